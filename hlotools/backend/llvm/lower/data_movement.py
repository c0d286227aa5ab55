"""Data movement as elemental generators (index arithmetic only, no memory of their own):
parameter, constant, copy, tuple, get-tuple-element, broadcast, transpose, reshape and
bitcast, slice, reverse, iota, dynamic-slice, pad, concatenate; plus the index helpers the
other lowerings share (clamp_index, index_value). Named like interpreter/data_movement.py.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import layout_of
from hlotools.backend.llvm.codegen.elemental import ElementalGen, Index, Value, constant_value
from hlotools.backend.llvm.codegen.registry import elemental
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import FlatIndex, c64, index_op, known_range, strides
from hlotools.errors import HloUnsupportedError
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    pass


@elemental("parameter")
def _parameter(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    return gen.load(inst, index)


@elemental("constant")
def _constant(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    if not inst.shape.dims:
        return constant_value(inst)
    g = gen.fe.mc.constant_global(inst) if not gen.fe.is_materialised(inst) else gen.fe.leaf_ptrs(inst)[0]
    return gen.fe.load_element(g, inst.shape, index)


@elemental("copy", "opt-barrier", "domain")
def _identity(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    return gen.operand(inst, 0, index)


@elemental("tuple")
def _tuple(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    out: list[ir.Value] = []
    for k in range(len(inst.operands)):
        v = gen.operand(inst, k, index)
        out.extend(v if isinstance(v, list) else [v])
    return out


@elemental("get-tuple-element")
def _gte(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    src = inst.operands[0].shape.tuple_shapes or ()
    k = int(inst.attrs.get("index", 0))
    start = sum(len(s.leaves()) for s in src[:k])
    vals = gen.operand(inst, 0, index)
    part = vals[start:start + len(src[k].leaves())]
    return part if src[k].is_tuple else part[0]


@elemental("broadcast")
def _broadcast(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    dims = inst.attrs.get("dimensions", ())
    return gen.operand(inst, 0, [index[d] for d in dims])


@elemental("transpose")
def _transpose(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    perm = inst.attrs.get("dimensions", ())
    src = [c64(0)] * len(perm)
    for out_dim, in_dim in enumerate(perm):
        src[in_dim] = index[out_dim]
    return gen.operand(inst, 0, src)


@elemental("reshape", "bitcast")
def _reshape(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    """The element at the same row-major linear index of the operand (a bitcast between
    layouts: at the same physical offset). The index maps dim group by dim group
    (_regrouped), so a minor dim both shapes share stays the loop's own variable: no
    urem/udiv on the dim a loop vectorises along."""
    b = gen.b
    src_shape = inst.operands[0].shape
    buffer = gen.buffer_shape(inst.operands[0])
    if buffer is not None and (buffer.dims != src_shape.dims or not src_shape.dims or not inst.shape.dims):
        buffer = None
    if inst.opcode == "bitcast" and inst.shape.layout is not None and src_shape.layout is not None:
        from hlotools.backend.llvm.llvm_ir.loops import linear_index
        offset = linear_index(b, inst.shape, index)  # the physical order is the bitcast's
        if buffer is not None and strides(buffer) == strides(src_shape):
            return _bitcast_element(gen, inst, FlatIndex.offset_only(offset, buffer))  # a load at that offset
        src = _regrouped(b, inst.shape, index, src_shape, layout_of(inst.shape), layout_of(src_shape))
        return _bitcast_element(gen, inst, FlatIndex(src, offset, src_shape))
    row_major = list(range(len(inst.shape.dims) - 1, -1, -1))
    if isinstance(index, FlatIndex) and index.dims == inst.shape.dims and list(index.layout) == row_major:
        linear = index.linear  # the offset in a row-major layout is the row-major linear index
    else:
        linear = c64(0)
        for d, n in enumerate(inst.shape.dims):
            linear = index_op(b, "add", index_op(b, "mul", linear, n), index[d]) if d else index[d]
    if buffer is not None and strides(buffer) == _row_major_strides(src_shape.dims):
        return _bitcast_element(gen, inst, FlatIndex.offset_only(linear, buffer))  # a load at that offset
    src = _regrouped(b, inst.shape, index, src_shape, row_major, list(range(len(src_shape.dims) - 1, -1, -1)))
    if strides(src_shape) == _row_major_strides(src_shape.dims):  # its readers' offset is `linear`
        return _bitcast_element(gen, inst, FlatIndex(src, linear, src_shape))
    return _bitcast_element(gen, inst, src)


def _regrouped(b: ir.IRBuilder, shape: Shape, index: Index, to: Shape, order: Sequence[int],
               to_order: Sequence[int]) -> list[ir.Value]:
    """The index in `to` of the element at `index` of `shape`, both read as one sequence in
    the given dim orders (minor first). Runs of dims with equal products map to each other:
    a run of one dim on each side is the same component, and only the other runs go through
    a linear offset (a multiply-add, then urem/udiv where the run of `to` has several dims)."""
    mine = [d for d in order if shape.dims[d] != 1]
    theirs = [d for d in to_order if to.dims[d] != 1]
    out: list[ir.Value] = [c64(0)] * len(to.dims)
    if 0 in shape.dims:
        return out  # no element to read
    i = j = 0
    while i < len(mine) and j < len(theirs):
        run, their_run = [mine[i]], [theirs[j]]
        have, want = shape.dims[mine[i]], to.dims[theirs[j]]
        i, j = i + 1, j + 1
        while have != want:
            if have < want:
                run.append(mine[i])
                have, i = have * shape.dims[mine[i]], i + 1
            else:
                their_run.append(theirs[j])
                want, j = want * to.dims[theirs[j]], j + 1
        linear, step = index[run[0]], shape.dims[run[0]]
        for d in run[1:]:
            linear = index_op(b, "add", linear, index_op(b, "mul", index[d], step))
            step *= shape.dims[d]
        for d in their_run[:-1]:
            out[d] = index_op(b, "urem", linear, to.dims[d])
            linear = index_op(b, "udiv", linear, to.dims[d])
        out[their_run[-1]] = linear
    return out


def _row_major_strides(dims: tuple[int, ...] | list[int]) -> list[int]:
    out, step = [0] * len(dims), 1
    for d in range(len(dims) - 1, -1, -1):
        out[d] = step
        step *= dims[d]
    return out


def _bitcast_element(gen: ElementalGen, inst: Instruction, src: Index) -> Value:
    """The operand's element at `src`, reinterpreted when a bitcast changes the element
    type (XLA's bitcast keeps the bytes: f32 -> s32 is the bit pattern, as bitcast-convert)."""
    et, src_et = inst.shape.element_type, inst.operands[0].shape.element_type
    if inst.opcode != "bitcast" or et == src_et:
        return gen.operand(inst, 0, src)
    from hlotools.backend.llvm.llvm_ir.arith import bits_of, from_bits
    from hlotools.backend.llvm.lower.elementwise import raw_bits
    assert et is not None and src_et is not None
    if "complex" in (et.kind, src_et.kind) or bits_of(et) != bits_of(src_et):
        raise HloUnsupportedError(f"bitcast from {src_et.name} to {et.name} (element types of other widths)")
    return from_bits(gen.b, raw_bits(gen, inst.operands[0], src), et)


@elemental("slice")
def _slice(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    b = gen.b
    ranges = inst.attrs.get("slice", ())
    src = []
    for i, r in zip(index, ranges):
        src.append(index_op(b, "add", index_op(b, "mul", i, r.stride), r.start))
    return gen.operand(inst, 0, src)


@elemental("reverse")
def _reverse(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    dims = set(inst.attrs.get("dimensions", ()))
    shape = inst.shape.dims
    src = [index_op(gen.b, "sub", c64(shape[d] - 1), i) if d in dims else i for d, i in enumerate(index)]
    return gen.operand(inst, 0, src)


@elemental("iota")
def _iota(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    from hlotools.backend.llvm.llvm_ir.arith import convert_value
    d = int(inst.attrs.get("iota_dimension", 0))
    et = inst.shape.element_type
    assert et is not None
    from hlotools.ir.types import ELEMENT_TYPES
    return convert_value(gen.b, index[d], ELEMENT_TYPES["s64"], et)


def clamp_index(b: ir.IRBuilder, v: ir.Value, lo: int, hi: int) -> ir.Value:
    """min(max(v, lo), hi) on i64 (hi < lo only for empty ranges, then lo wins)."""
    v = b.select(b.icmp_signed("<", v, c64(lo)), c64(lo), v)
    return b.select(b.icmp_signed(">", v, c64(hi)), c64(hi), v)


def index_value(gen: ElementalGen, inst: Instruction, k: int, index: Index) -> ir.Value:
    """An operand that holds an index, sign- or zero-extended to i64. A u64 index of 2^63 or
    more (negative as i64) saturates to INT64_MAX: every index range is below it, so it clamps
    high and counts as out of bounds, as XLA CPU does (2^64 - 1 starts a gather at the top)."""
    v = gen.operand(inst, k, index)
    et = inst.operands[k].shape.element_type
    assert et is not None
    if v.type.width == 64:
        if et.kind != "unsigned":
            return v
        return gen.b.select(gen.b.icmp_signed("<", v, c64(0)), c64(2 ** 63 - 1), v)
    return gen.b.zext(v, types.I64) if et.kind in ("unsigned", "pred") else gen.b.sext(v, types.I64)


@elemental("dynamic-slice")
def _dynamic_slice(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    """Start indices clamp to [0, operand_dim - size] (XLA's semantics)."""
    b = gen.b
    src_dims = inst.operands[0].shape.dims
    out_dims = inst.shape.dims
    src = []
    scalar_starts = len(inst.operands) > 2 or (len(src_dims) == 1 and len(inst.operands) == 2
                                               and not inst.operands[1].shape.dims)
    for d, i in enumerate(index):
        if scalar_starts:
            start = index_value(gen, inst, 1 + d, [])
        else:
            start = index_value(gen, inst, 1, [c64(d)])
        start = clamp_index(b, start, 0, src_dims[d] - out_dims[d])
        src.append(b.add(start, i))
    return gen.operand(inst, 0, src)


@elemental("pad")
def _pad(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    """Branch-free: compute the operand index, load at a clamped index, select pad value."""
    b = gen.b
    cfg = inst.attrs["padding"].dims
    src_dims = inst.operands[0].shape.dims
    inside: ir.Value = ir.Constant(types.I1, 1)
    src = []
    for d, i in enumerate(index):
        low, _high, interior = cfg[d]
        rel = b.sub(i, c64(low)) if low else i
        step = interior + 1
        if step > 1:
            q = b.sdiv(rel, c64(step))
            ok = b.icmp_signed("==", b.srem(rel, c64(step)), c64(0))
            inside = b.and_(inside, ok)
        else:
            q = rel
        ok = b.and_(b.icmp_signed(">=", q, c64(0)), b.icmp_signed("<", q, c64(src_dims[d])))
        inside = b.and_(inside, ok)
        src.append(clamp_index(b, q, 0, max(0, src_dims[d] - 1)))
    pad_value = gen.operand(inst, 1, [])
    if any(n == 0 for n in src_dims):
        return pad_value
    v = gen.operand(inst, 0, src)
    return b.select(inside, v, pad_value)


@elemental("concatenate")
def _concatenate(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    """The one operand an index a loop keeps inside its piece reads (known_range: loop_nest
    cuts the innermost loop at the pieces). Else, along the minor dim (the innermost loop's),
    a select chain over the operands, each read at a clamped, in-bounds index: branch-free,
    for the vectoriser; along another dim, branches (_concatenate_branches)."""
    b = gen.b
    dim = int(inst.attrs["dimensions"][0])
    result: ir.Value | None = None
    offset = 0
    pieces = []
    for k, op in enumerate(inst.operands):
        n = op.shape.dims[dim]
        if n == 0:
            continue
        pieces.append((k, offset, n))
        offset += n
    minor = [d for d in layout_of(inst.shape) if inst.shape.dims[d] > 1]
    i = index[dim]
    known = known_range(i)
    inside = [(k, start) for k, start, n in pieces if known and start <= known[0] and known[1] <= start + n]
    if inside:  # the index stays inside one piece (a loop cut at the pieces: loop_nest's splits)
        k, start = inside[0]
        src = list(index)
        src[dim] = b.sub(i, c64(start)) if start else i
        return gen.operand(inst, k, src)
    if len(pieces) > 1 and minor and dim != minor[0]:
        return _concatenate_branches(gen, inst, index, dim, pieces)
    for k, start, n in reversed(pieces):
        local = clamp_index(b, b.sub(i, c64(start)), 0, n - 1)
        src = list(index)
        src[dim] = local
        v = gen.operand(inst, k, src)
        result = v if result is None else b.select(b.icmp_signed("<", i, c64(start + n)), v, result)
    assert result is not None
    return result


def _concatenate_branches(gen: ElementalGen, inst: Instruction, index: Index, dim: int,
                          pieces: list[tuple[int, int, int]]) -> Value:
    """The one operand the element comes from, chosen by branches: the select chain computes
    every operand at every element (the three pieces of a q/k/v gradient, each a rotary's
    pads: 3x the work). An outer loop runs along `dim`, so the choice holds for a whole inner
    loop, which LLVM unswitches."""
    b = gen.b
    i = index[dim]
    done = b.append_basic_block("concat.done")
    incoming = []
    for num, (k, start, n) in enumerate(pieces):
        last = num == len(pieces) - 1
        if not last:
            here, rest = b.append_basic_block(f"concat.{k}"), b.append_basic_block("concat.rest")
            b.cbranch(b.icmp_signed("<", i, c64(start + n)), here, rest)
            b.position_at_end(here)
        src = list(index)
        src[dim] = b.sub(i, c64(start)) if start else i
        with gen.region():
            v = gen.operand(inst, k, src)
        incoming.append((v, b.block))
        b.branch(done)
        if not last:
            b.position_at_end(rest)
    b.position_at_end(done)
    phi = b.phi(incoming[0][0].type)
    for v, block in incoming:
        phi.add_incoming(v, block)
    return phi
