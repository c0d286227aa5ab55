"""Sharding and collective device lists, checked the way hlo_parser.cc reads them.

`sharding={...}` and `replica_groups=...` stay Raw text in the IR (printed back unchanged); these
readers reject what XLA rejects: device counts that do not match the tile assignment, iota
sizes, mesh axis names and indices, device_ids counts, and malformed token sequences.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable

from hlotools.text.parse_attrs import AttrError
from hlotools.text.parse_mini import Mini


def _iota(m: Mini) -> tuple[list[int], list[int]]:
    dims = m.ints("[", "]")
    if not dims:
        raise m.error("expected non-empty iota_reshape_dims")
    perm = [0]
    if len(dims) > 1:
        if not m.at("T"):
            raise m.error("expected 'T(' to start sharding devices iota_transpose_perm")
        m.take()
        perm = m.ints("(", ")")
        for d in perm:
            if d >= len(dims):
                raise m.error(f"Out of range iota minor_to_major value {d}, expecting value in range "
                              f"[0, {len(dims)})")
        if sorted(perm) != list(range(len(dims))):
            # XLA's parser lets this through and then CHECK-fails building the IotaTileAssignment.
            raise m.error(f"iota_transpose_perm T({','.join(map(str, perm))}) must be a permutation of the "
                          f"{len(dims)} iota_reshape_dims")
    return dims, perm


def _tile_assignment(m: Mini, allow_devices: bool) -> tuple[list[int], list[int] | None, list[int]]:
    """[dims] then `<=[reshape]T(perm)` or an explicit device list."""
    dims = m.ints("[", "]")
    if m.eat("<="):
        reshape, _ = _iota(m)
        return dims, reshape, []
    if not allow_devices:
        raise m.error("Caller expected iota tile assignment when parsing, which should not have any manual "
                      "device entries.")
    devices = [m.integer()]
    while m.eat(","):
        devices.append(m.integer())
    return dims, None, devices


def _metadata(m: Mini) -> None:
    depth = 0
    while True:  # metadata payloads are checked by the metadata attribute itself; skip balanced
        k, v, _ = m.take()
        if k == "eof":
            raise m.error("expects '}' to end sub attributes")
        if v == "{":
            depth += 1
        elif v == "}":
            depth -= 1
            if depth == 0:
                return


def _single_sharding(m: Mini) -> None:
    """One `{...}` sharding: the mesh forms, or XLA's keyword list (replicated, maximal device=,
    devices=[..]<=[..]T(..), last_tile_dims=, metadata=...), checked in ParseSingleSharding's order
    so the same texts are rejected with its messages."""
    start = m.peek()[2]
    m.expect("{", "expected '{' to start sharding attribute")
    if m.at("mesh") or m.at("maximal_mesh"):
        _mesh(m)
        _skip_to_close(m)
        return
    kinds: set[str] = set()
    devices: list[int] = []
    dims: list[int] = []
    reshape: list[int] | None = None
    while not m.at("}"):
        k, v, _ = m.peek()
        if k == "eof":
            raise m.error("expected '}' to end sharding attribute")
        m.take()
        if v in ("maximal", "replicated", "manual", "unknown", "unreduced", "last_tile_dim_replicate"):
            kinds.add(v)
        elif v in ("shard_as", "shard_like"):
            m.integer()
        elif k == "attr" and v == "device":
            devices = [m.integer()]
        elif k == "attr" and v == "devices":
            dims, reshape, devices = _tile_assignment(m, True)
        elif k == "attr" and v == "metadata":
            if m.at("{"):
                _metadata(m)
        elif k == "attr" and v == "last_tile_dims":
            _skip_group(m)
        elif k == "attr":
            raise AttrError("unknown attribute in sharding: expected device=, devices= metadata= or "
                            "last_tile_dims= ", m.toks[m.i - 1][2])
        else:
            raise AttrError("unexpected token", m.toks[m.i - 1][2])
    m.take()
    for kind in ("replicated", "manual", "unknown", "unreduced"):
        if kind in kinds and "maximal" not in kinds and devices:
            raise AttrError(f"{kind} shardings should not have any devices assigned", start)
    if "maximal" in kinds:
        if len(devices) != 1:
            raise AttrError("maximal shardings should have exactly one device assigned", start)
        return
    if kinds & {"replicated", "manual", "unknown", "unreduced"}:
        return
    if not dims:
        raise AttrError("non-maximal shardings must have a tile assignment list including dimensions", start)
    if reshape is not None:
        if math.prod(dims) != math.prod(reshape):
            raise AttrError(f"iota tile assignment size {math.prod(reshape)} does not match the tile "
                            f"assignment dimensions product {math.prod(dims)}", start)
        return
    if len(devices) <= 1:
        raise AttrError("non-maximal shardings must have more than one device assigned", start)
    if len(devices) != math.prod(dims):
        raise AttrError(f"sharding device count {len(devices)} does not match the tile assignment size "
                        f"{math.prod(dims)}", start)


def _skip_group(m: Mini) -> None:
    opener = m.take()[1]
    closer = {"{": "}", "(": ")", "[": "]"}.get(opener)
    if closer is None:
        return
    depth = 1
    while depth:
        k, v, _ = m.take()
        if k == "eof":
            raise m.error(f"expects '{closer}'")
        if v == opener:
            depth += 1
        elif v == closer:
            depth -= 1


def _skip_to_close(m: Mini) -> None:
    depth = 1
    while depth:
        k, v, _ = m.take()
        if k == "eof":
            raise m.error("expected '}' to end sharding attribute")
        if v in "{([" and k == "punct":
            depth += 1
        elif v in "})]" and k == "punct":
            depth -= 1


def sharding(text: str) -> None:
    m = Mini(text)
    m.expect("{", "expected '{' to start sharding attribute")
    if not m.at("{") and not m.at("}"):
        m.i -= 1
        _single_sharding(m)
        m.done()
        return
    if not m.at("}"):
        _single_sharding(m)
        while m.eat(","):
            _single_sharding(m)
    m.expect("}", "expected '}' to end sharding attribute")
    m.done()


def _mesh(m: Mini) -> tuple[list[str], list[int]]:
    """`mesh[axis=N, ...]` or `maximal_mesh[device_id=N]`: returns (axis names, axis sizes) so the
    named-axis sharding that follows can be checked against the mesh."""
    kind = m.take()[1]
    if kind == "maximal_mesh":
        m.expect("[", "expected '[' after maximal_mesh")
        k, v, _ = m.take()
        if k != "attr" or v != "device_id":
            raise m.error("expected device_id= attribute in maximal_mesh")
        m.integer()
        m.expect("]", "expected ']' to end maximal_mesh")
        return [], []
    m.expect("[", "expected '[' after mesh")
    names: list[str] = []
    sizes: list[int] = []
    while not m.at("]"):
        k, v, _ = m.peek()
        if k == "attr" and v == "device_ids":
            break
        if k != "string":
            raise m.error("expects string")
        m.take()
        names.append(v[1:-1])
        m.expect("=", "expects '=' after axis name")
        sizes.append(m.integer())
        if not m.eat(","):
            break
    if m.peek()[0] == "attr" and m.peek()[1] == "device_ids":
        m.take()
        m.expect("(", "expected '(' for device_ids")
        if m.at("["):
            reshape, _ = _iota(m)
            m.expect(")", "expected ')' to end device_ids")
            if math.prod(sizes) != math.prod(reshape):
                raise m.error(f"mesh device_ids iota size {math.prod(reshape)} does not match the product of "
                              f"the mesh axis sizes {math.prod(sizes)}")
        else:
            devices = [] if m.at(")") else [m.integer()]
            while m.eat(","):
                devices.append(m.integer())
            m.expect(")", "expected ')' to end device_ids")
            if len(devices) != math.prod(sizes):
                raise m.error(f"Expected {math.prod(sizes)} device_ids based on mesh axes, but got "
                              f"{len(devices)}")
    m.expect("]", "expected ']' to end mesh axes")
    return names, sizes


def _mesh_text(names: list[str], sizes: list[int]) -> str:
    return "@mesh<" + ",".join(f"{n}={s}" for n, s in zip(names, sizes)) + ">"


def _axis_refs(m: Mini, names: list[str], sizes: list[int]) -> None:
    m.expect("{", "expects a list starting with {")
    while not m.at("}"):
        k, v, _ = m.peek()
        if k != "string":
            raise m.error("expects string")
        m.take()
        axis = v[1:-1]
        if axis in names:
            idx = names.index(axis)
        elif re.fullmatch(r"-?[0-9]+", axis):
            idx = int(axis)
        else:
            raise m.error(f"axis '{axis}' is not a valid axis name or index in mesh {_mesh_text(names, sizes)}")
        if not 0 <= idx < len(names):
            raise m.error(f"axis index {idx} is out of bounds for mesh {_mesh_text(names, sizes)} which has "
                          f"{len(names)} axes")
        if m.eat(":"):
            m.expect("(", "expected '(' before pre_size in sub axis")
            m.integer()
            m.expect(")", "expected ')' after pre_size in sub axis")
            m.integer()
        if not m.eat(","):
            break
    m.expect("}", "expects a list to end with }")


def replica_groups(text: str) -> None:
    m = Mini(text)
    if m.at("{"):
        m.expect("{", "expects a list starting with {")
        if not m.at("}"):
            m.ints("{", "}")
            while m.eat(","):
                m.ints("{", "}")
        m.expect("}", "expects a list to end with }")
    elif m.at("mesh") or m.at("maximal_mesh"):
        names, sizes = _mesh(m)
        _axis_refs(m, names, sizes)
    else:
        dims, reshape, _ = _tile_assignment(m, False)
        if len(dims) != 2:
            raise AttrError(f"Expected tile assignment to have 2 dimensions for collective device list but "
                            f"got {len(dims)}")
        assert reshape is not None
        if math.prod(dims) != math.prod(reshape):
            raise m.error(f"collective device list iota size {math.prod(reshape)} does not match the tile "
                          f"assignment dimensions product {math.prod(dims)}")
    m.done()


CHECKS: dict[str, Callable[[str], None]] = {
    "sharding": sharding,
    "replica_groups": replica_groups,
}
