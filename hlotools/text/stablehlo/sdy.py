"""Shardy (`sdy`) shardings -> HLO sharding text, as XLA's Shardy export writes them.

`sdy.mesh @mesh = <["x"=2, "y"=4]>` names the device mesh (devices 0..7 laid out row-major
over the axes, or `device_ids=[...]`); `#sdy.sharding<@mesh, [{"x"}, {}]>` shards tensor dim 0
over axis x. HLO's tiled sharding lists the tiles per dim (the product of each dim's axis
sizes) and the device of every tile: the mesh's device array transposed so that the used axes
come in dim order, the unused ones last (a `last_tile_dim_replicate` dim when their product is
above 1). Iota meshes are written in XLA's compact `<=[dims]T(perm)` form, others as device
lists; a sharding that tiles nothing is `{replicated}`, an axis-less mesh with one device id
`{maximal device=N}`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from hlotools.text.stablehlo.attributes import AttrError
from hlotools.text.stablehlo.types import split_top

_AXIS = re.compile(r'\s*"([^"]+)"\s*=\s*(\d+)\s*$')
_MESH = re.compile(r"<\s*\[(.*?)\]\s*(?:,\s*device_ids\s*=\s*\[([\d,\s]*)\])?\s*>$", re.S)
_SHARDING = re.compile(r"#sdy\.sharding<\s*(@[\w$.\-]+|mesh<.*?\]\s*>|mesh<\s*\[.*?\]\s*(?:,[^>]*)?>)\s*,\s*"
                       r"\[(.*?)\]\s*((?:,\s*\w+\s*=\s*\{[^}]*\}\s*)*)>$", re.S)
_DIM = re.compile(r"\{(.*?)\}\s*(?:p\d+)?$", re.S)
_NAME = re.compile(r'"([^"]+)"(.*)$', re.S)


@dataclass(frozen=True)
class Mesh:
    axes: tuple[tuple[str, int], ...]
    device_ids: tuple[int, ...] | None  # None: iota

    @property
    def text(self) -> str:
        axes = ", ".join(f'"{n}"={s}' for n, s in self.axes)
        ids = "" if self.device_ids is None else ", device_ids=[" + ", ".join(map(str, self.device_ids)) + "]"
        return f"#sdy.mesh<[{axes}]{ids}>"


def parse_mesh(angle: str, pos: int) -> Mesh:
    """The `<["x"=2, "y"=4]>` of an sdy.mesh (or of an inline `mesh<...>`)."""
    m = _MESH.match(angle.strip())
    if m is None:
        raise AttrError(f"expected a mesh '<[\"axis\"=size, ...]>', but found '{angle[:60]}'", pos)
    axes = []
    for part in split_top(m.group(1)):
        if not part:
            continue
        a = _AXIS.match(part)
        if a is None:
            raise AttrError(f"expected '\"axis\"=size' in a mesh, but found '{part[:40]}'", pos)
        axes.append((a.group(1), int(a.group(2))))
    ids = None
    if m.group(2) is not None:
        ids = tuple(int(d) for d in m.group(2).split(",") if d.strip())
        size = int(np.prod([s for _, s in axes])) if axes else 1
        if len(ids) != size:
            raise AttrError(f"the mesh has {size} devices, but device_ids lists {len(ids)}", pos)
        if ids == tuple(range(size)):
            ids = None
    return Mesh(tuple(axes), ids)


def hlo_sharding(text: str, meshes: dict[str, Mesh], rank: int, pos: int) -> str:
    """The HLO `{...}` sharding of one `#sdy.sharding<...>` (or a `<@mesh, [...]>` of a per-value list)."""
    body = text if text.startswith("#sdy.sharding<") else "#sdy.sharding" + text.strip()
    m = _SHARDING.match(body.strip())
    if m is None:
        raise AttrError(f"expected '#sdy.sharding<@mesh, [dims]>', but found '{text[:60]}'", pos)
    ref = m.group(1)
    if ref.startswith("@"):
        mesh = meshes.get(ref[1:])
        if mesh is None:
            raise AttrError(f"sharding names mesh '{ref}', which no sdy.mesh defines", pos)
    else:
        mesh = parse_mesh(ref[4:], pos)
    dims = [d for d in split_top(m.group(2)) if d] if m.group(2).strip() else []
    if len(dims) != rank:
        raise AttrError(f"the sharding gives {len(dims)} dims for a rank-{rank} value", pos)
    return _tiled(mesh, [_dim_axes(d, mesh, pos) for d in dims])


def _dim_axes(dim: str, mesh: Mesh, pos: int) -> list[int]:
    m = _DIM.match(dim.strip())
    if m is None:
        raise AttrError(f"expected a dim sharding '{{\"axis\", ...}}', but found '{dim[:40]}'", pos)
    names = [n for n, _ in mesh.axes]
    out = []
    for part in split_top(m.group(1)):
        part = part.strip()
        if not part or part == "?":
            continue
        a = _NAME.match(part)
        if a is None:
            raise AttrError(f"expected an axis name, but found '{part[:40]}'", pos)
        if a.group(2).strip():
            raise AttrError(f"sub-axis sharding '{part}' has no HLO translation here", pos)
        if a.group(1) not in names:
            raise AttrError(f"axis '{a.group(1)}' is not in the mesh", pos)
        out.append(names.index(a.group(1)))
    return out


def _tiled(mesh: Mesh, dims: list[list[int]]) -> str:
    if not mesh.axes:
        ids = mesh.device_ids
        return f"{{maximal device={ids[0]}}}" if ids is not None and len(ids) == 1 else "{replicated}"
    sizes = [s for _, s in mesh.axes]
    tiles = [int(np.prod([sizes[a] for a in d])) for d in dims]
    if all(t == 1 for t in tiles):
        return "{replicated}"
    used = [a for d in dims for a in d]
    unused = [a for a in range(len(sizes)) if a not in used]
    replicate = int(np.prod([sizes[a] for a in unused])) if unused else 1
    shape = tiles + ([replicate] if replicate > 1 else [])
    perm = used + unused
    if mesh.device_ids is None:
        devices = _iota(sizes, perm)
    else:
        order = np.array(mesh.device_ids).reshape(sizes).transpose(perm).reshape(-1)
        devices = ",".join(str(int(d)) for d in order)
    tail = " last_tile_dim_replicate" if replicate > 1 else ""
    return "{devices=[" + ",".join(map(str, shape)) + "]" + devices + tail + "}"


def _iota(sizes: list[int], perm: list[int]) -> str:
    """XLA's canonical iota tile assignment: size-1 axes dropped, runs of axes that stay
    adjacent under the transpose merged; `<=[N]` when no transpose is left."""
    keep = [a for a in range(len(sizes)) if sizes[a] != 1]
    sizes = [sizes[a] for a in keep]
    perm = [keep.index(a) for a in perm if a in keep]
    groups: list[list[int]] = []
    for a in perm:
        if groups and groups[-1][-1] + 1 == a:
            groups[-1].append(a)
        else:
            groups.append([a])
    by_start = sorted(groups, key=lambda g: g[0])
    merged = [int(np.prod([sizes[a] for a in g])) for g in by_start]
    new_perm = [by_start.index(g) for g in groups]
    if new_perm == sorted(new_perm):
        return f"<=[{int(np.prod(merged)) if merged else 1}]"
    return "<=[" + ",".join(map(str, merged)) + "]T(" + ",".join(map(str, new_perm)) + ")"


def meshes_attribute(meshes: dict[str, Mesh]) -> str:
    """The module's frontend attribute XLA's export keeps the meshes in."""
    return "xla.sdy.meshes={" + ", ".join(f"{n} = {m.text}" for n, m in meshes.items()) + "}"


def escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


__all__ = ["Mesh", "escaped", "hlo_sharding", "meshes_attribute", "parse_mesh"]
