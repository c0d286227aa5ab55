"""algsimp rules for data movement: reshape, transpose, broadcast, slice, concatenate, pad,
reverse, copy, bitcast, convert, get-tuple-element, real/imag/complex, iota.

These move or relabel elements without arithmetic, so every rewrite here is exact.
"""
from __future__ import annotations

from hlotools.ir.attributes import PaddingConfig, SliceRange
from hlotools.ir.instruction import Instruction
from hlotools.ir.types import ElementType
from hlotools.passes.algsimp_core import Builder, dims_attr, rule


# -- reshape / transpose / broadcast ------------------------------------------------------------
@rule("reshape")
def reshape_identity(inst: Instruction, b: Builder) -> Instruction | None:
    """reshape(A) => A when the dims do not change."""
    x = inst.operands[0]
    return x if x.shape.dims == inst.shape.dims else None


@rule("reshape")
def reshape_reshape(inst: Instruction, b: Builder) -> Instruction | None:
    """reshape(reshape(A)) => reshape(A) (row-major element order is all a reshape keeps)."""
    x = inst.operands[0]
    if x.opcode == "reshape":
        return b.new("reshape", inst.shape, [x.operands[0]])
    return None


@rule("reshape", "transpose", "slice", "reverse")
def rebroadcast_scalar(inst: Instruction, b: Builder) -> Instruction | None:
    """op(broadcast(scalar)) => broadcast(scalar) to op's shape, for ops that only permute or
    select elements (every element is the scalar either way)."""
    x = inst.operands[0]
    if x.opcode == "broadcast" and x.operands[0].shape.rank == 0:
        if x.shape == inst.shape:
            return x
        return b.new("broadcast", inst.shape, [x.operands[0]], {"dimensions": ()})
    return None


@rule("transpose")
def transpose_identity(inst: Instruction, b: Builder) -> Instruction | None:
    """transpose(A, {0,1,...,n-1}) => A."""
    dims = dims_attr(inst)
    return inst.operands[0] if dims == tuple(range(len(dims))) else None


@rule("transpose")
def transpose_transpose(inst: Instruction, b: Builder) -> Instruction | None:
    """transpose(transpose(A, p1), p2) => transpose(A, p1[p2]) (output dim i reads operand
    dim p[i], so the composition reads p1[p2[i]])."""
    x = inst.operands[0]
    if x.opcode != "transpose":
        return None
    p1, p2 = dims_attr(x), dims_attr(inst)
    composed = tuple(p1[d] for d in p2)
    return b.new("transpose", inst.shape, [x.operands[0]], {"dimensions": composed})


@rule("transpose")
def transpose_degenerate_to_reshape(inst: Instruction, b: Builder) -> Instruction | None:
    """A transpose that only moves size-1 dims (the others keep their order) => reshape."""
    x = inst.operands[0]
    moved = [p for p in dims_attr(inst) if x.shape.dims[p] != 1]
    if moved != sorted(moved) or dims_attr(inst) == tuple(range(inst.shape.rank)):
        return None
    return b.new("reshape", inst.shape, [x])


@rule("broadcast")
def broadcast_identity(inst: Instruction, b: Builder) -> Instruction | None:
    """broadcast(A) => A when it maps every dim onto itself (same dims, identity mapping)."""
    x = inst.operands[0]
    if x.shape.dims == inst.shape.dims and dims_attr(inst) == tuple(range(inst.shape.rank)):
        return x
    return None


@rule("broadcast")
def broadcast_broadcast(inst: Instruction, b: Builder) -> Instruction | None:
    """broadcast(broadcast(A, d1), d2) => broadcast(A, d2[d1]) (operand dim j lands on
    outer dim d2[d1[j]])."""
    x = inst.operands[0]
    if x.opcode != "broadcast":
        return None
    d1, d2 = dims_attr(x), dims_attr(inst)
    return b.new("broadcast", inst.shape, [x.operands[0]], {"dimensions": tuple(d2[j] for j in d1)})


@rule("broadcast")
def broadcast_of_iota(inst: Instruction, b: Builder) -> Instruction | None:
    """broadcast(iota(d), dims) => iota(dims[d]) of the broadcast's shape (element idx of the
    result reads the iota at idx[dims[d]])."""
    x = inst.operands[0]
    d = x.attrs.get("iota_dimension")
    if x.opcode != "iota" or not isinstance(d, int):
        return None
    return b.new("iota", inst.shape, [], {"iota_dimension": dims_attr(inst)[d]})


# -- slice / concatenate / pad / reverse --------------------------------------------------------
def _ranges(inst: Instruction) -> tuple[SliceRange, ...]:
    return tuple(inst.attrs.get("slice", ()))


@rule("slice")
def slice_full(inst: Instruction, b: Builder) -> Instruction | None:
    """slice(A) => A when it keeps every element (start 0, limit = size, stride 1)."""
    x = inst.operands[0]
    if x.shape.dims != inst.shape.dims:
        return None
    ranges = _ranges(inst)
    if all(r.start == 0 and r.limit == d and (r.stride == 1 or d <= 1) for r, d in zip(ranges, x.shape.dims)):
        return x
    return None


@rule("slice")
def slice_slice(inst: Instruction, b: Builder) -> Instruction | None:
    """slice(slice(A, r1), r2) => slice(A, r) with start s1 + s2*t1 and stride t1*t2
    (element i of the outer slice is element s1 + (s2 + i*t2)*t1 of A)."""
    x = inst.operands[0]
    if x.opcode != "slice" or inst.shape.size == 0:
        return None
    merged = []
    for r1, r2, n in zip(_ranges(x), _ranges(inst), inst.shape.dims):
        start, stride = r1.start + r2.start * r1.stride, r1.stride * r2.stride
        merged.append(SliceRange(start, start + (n - 1) * stride + 1, stride if n > 1 else 1))
    return b.new("slice", inst.shape, [x.operands[0]], {"slice": tuple(merged)})


@rule("concatenate")
def concat_single_operand(inst: Instruction, b: Builder) -> Instruction | None:
    """concatenate(A) => A."""
    return inst.operands[0] if len(inst.operands) == 1 else None


@rule("concatenate")
def concat_drop_empty(inst: Instruction, b: Builder) -> Instruction | None:
    """Drop zero-element operands of a concatenate (one left: that operand)."""
    ops = inst.operands
    kept = [o for o in ops if o.shape.size != 0]
    if len(kept) == len(ops) or not kept:
        return None
    if len(kept) == 1:
        return kept[0]
    return b.new("concatenate", inst.shape, kept, dict(inst.attrs))


@rule("concatenate")
def concat_flatten(inst: Instruction, b: Builder) -> Instruction | None:
    """concat(A, concat(B, C), D) => concat(A, B, C, D) along the same dim (inner used once)."""
    dim = dims_attr(inst)
    for i, o in enumerate(inst.operands):
        if o.opcode == "concatenate" and dims_attr(o) == dim and len(o.users) == 1:
            ops = inst.operands[:i] + o.operands + inst.operands[i + 1:]
            return b.new("concatenate", inst.shape, ops, {"dimensions": dim})
    return None


def _unstrided(inst: Instruction) -> bool:
    return inst.opcode == "slice" and all(r.stride == 1 for r in _ranges(inst))


@rule("concatenate")
def concat_adjacent_slices(inst: Instruction, b: Builder) -> Instruction | None:
    """concat(slice(A, [a:b]), slice(A, [b:c])) => slice(A, [a:c]) along the concat dim, for
    unstrided slices of the same A that agree on every other dim."""
    (dim,) = dims_attr(inst) or (0,)
    ops = inst.operands
    for i, first in enumerate(ops):
        if not _unstrided(first):
            continue
        j, ranges = i + 1, list(_ranges(first))
        while j < len(ops) and _unstrided(ops[j]) and ops[j].operands[0] is first.operands[0]:
            nxt = _ranges(ops[j])
            if nxt[dim].start != ranges[dim].limit or any(
                    k != dim and (r.start, r.limit) != (q.start, q.limit) for k, (r, q) in enumerate(zip(ranges, nxt))):
                break
            ranges[dim] = SliceRange(ranges[dim].start, nxt[dim].limit, 1)
            j += 1
        if j - i < 2:
            continue
        dims = list(first.shape.dims)
        dims[dim] = ranges[dim].limit - ranges[dim].start
        assert first.shape.element_type is not None
        merged = b.new("slice", b.shape(first.shape.element_type, dims), [first.operands[0]],
                       {"slice": tuple(ranges)})
        rest = ops[:i] + [merged] + ops[j:]
        return merged if len(rest) == 1 else b.new("concatenate", inst.shape, rest, {"dimensions": (dim,)})
    return None


@rule("concatenate")
def concat_broadcast_scalar_to_pad(inst: Instruction, b: Builder) -> Instruction | None:
    """concat(broadcast(s), A) => pad(A, s) with low padding (or high, for concat(A,
    broadcast(s))): XLA's form, which folds into other pads and windows."""
    if len(inst.operands) != 2:
        return None
    (dim,) = dims_attr(inst) or (0,)
    first, second = inst.operands
    low = first.opcode == "broadcast" and first.operands[0].shape.rank == 0
    high = second.opcode == "broadcast" and second.operands[0].shape.rank == 0
    if not (low or high):
        return None
    padded, fill = (second, first) if low else (first, second)
    config = [(0, 0, 0)] * inst.shape.rank
    config[dim] = (first.shape.dims[dim], 0, 0) if low else (0, second.shape.dims[dim], 0)
    return b.new("pad", inst.shape, [padded, fill.operands[0]], {"padding": PaddingConfig(tuple(config))})


@rule("slice")
def slice_of_concat(inst: Instruction, b: Builder) -> Instruction | None:
    """slice(concat(A, B, ...)) reading inside one operand => slice of that operand."""
    x = inst.operands[0]
    if x.opcode != "concatenate" or inst.shape.size == 0:
        return None
    (dim,) = dims_attr(x) or (0,)
    ranges = _ranges(inst)
    r = ranges[dim]
    last = r.start + (inst.shape.dims[dim] - 1) * r.stride
    offset = 0
    for o in x.operands:
        size = o.shape.dims[dim]
        if offset <= r.start and last < offset + size:
            moved = SliceRange(r.start - offset, last - offset + 1, r.stride)
            new = ranges[:dim] + (moved,) + ranges[dim + 1:]
            return b.new("slice", inst.shape, [o], {"slice": new})
        offset += size
    return None


@rule("slice")
def slice_of_pad(inst: Instruction, b: Builder) -> Instruction | None:
    """slice(pad(A, v)) that reads no padding => slice of A (pads without interior padding)."""
    x = inst.operands[0]
    if x.opcode != "pad" or inst.shape.size == 0:
        return None
    padding = x.attrs.get("padding")
    if padding is None or any(it for _, _, it in padding.dims):
        return None
    a = x.operands[0]
    moved = []
    for r, n, (lo, _, _), size in zip(_ranges(inst), inst.shape.dims, padding.dims, a.shape.dims):
        start, last = r.start - lo, r.start + (n - 1) * r.stride - lo
        if start < 0 or last >= size:
            return None
        moved.append(SliceRange(start, last + 1, r.stride))
    return b.new("slice", inst.shape, [a], {"slice": tuple(moved)})


@rule("pad")
def pad_no_padding(inst: Instruction, b: Builder) -> Instruction | None:
    """pad(A, v) => A when every low, high and interior padding is 0."""
    padding = inst.attrs.get("padding")
    if padding is not None and all(lo == 0 and hi == 0 and it == 0 for lo, hi, it in padding.dims):
        return inst.operands[0]
    return None


@rule("reverse")
def reverse_degenerate(inst: Instruction, b: Builder) -> Instruction | None:
    """reverse(A) => A when every reversed dim has size <= 1."""
    x = inst.operands[0]
    return x if all(x.shape.dims[d] <= 1 for d in dims_attr(inst)) else None


@rule("reverse")
def reverse_reverse(inst: Instruction, b: Builder) -> Instruction | None:
    """reverse(reverse(A, d), d) => A."""
    x = inst.operands[0]
    if x.opcode == "reverse" and sorted(dims_attr(x)) == sorted(dims_attr(inst)):
        return x.operands[0]
    return None


# -- copy / bitcast / convert ---------------------------------------------------------------------
@rule("copy")
def copy_identity(inst: Instruction, b: Builder) -> Instruction | None:
    """copy(A) => A when the copy does not change the layout."""
    x = inst.operands[0]
    return x if x.shape == inst.shape else None


@rule("copy")
def copy_copy(inst: Instruction, b: Builder) -> Instruction | None:
    """copy(copy(A)) => copy(A)."""
    x = inst.operands[0]
    if x.opcode == "copy":
        return b.new("copy", inst.shape, [x.operands[0]])
    return None


@rule("bitcast", "bitcast-convert")
def bitcast_same_shape(inst: Instruction, b: Builder) -> Instruction | None:
    """bitcast(A) / bitcast-convert(A) => A when the shape (and layout) is unchanged."""
    x = inst.operands[0]
    return x if x.shape == inst.shape else None


@rule("convert")
def convert_same_type(inst: Instruction, b: Builder) -> Instruction | None:
    """convert(A) => A when A already has the target element type."""
    x = inst.operands[0]
    return x if x.shape.element_type == inst.shape.element_type else None


_MANTISSA = {"f16": 11, "bf16": 8, "f32": 24, "f64": 53}
_EXPONENT = {"f16": 5, "bf16": 8, "f32": 8, "f64": 11}


def cast_preserves_values(src: ElementType, dst: ElementType) -> bool:
    """XLA's primitive_util::CastPreservesValues: every src value converts to dst and back."""
    if src == dst or src.kind == "pred":
        return True
    if src.is_integer and dst.is_integer:
        if src.kind == dst.kind:
            return dst.bits >= src.bits
        return src.kind == "unsigned" and dst.bits > src.bits
    if src.is_integer and dst.is_float:
        digits = src.bits - (1 if src.kind == "signed" else 0)
        return dst.name in _MANTISSA and _MANTISSA[dst.name] >= digits
    if src.is_float and dst.is_float:
        return (src.name in _MANTISSA and dst.name in _MANTISSA and _MANTISSA[dst.name] >= _MANTISSA[src.name]
                and _EXPONENT[dst.name] >= _EXPONENT[src.name])
    if src.is_complex and dst.is_complex:
        return dst.bits >= src.bits
    if src.is_float and dst.is_complex:
        half = {"c64": "f32", "c128": "f64"}[dst.name]
        return cast_preserves_values(src, _float_type(half))
    return False


def _float_type(name: str) -> ElementType:
    from hlotools.ir.types import ELEMENT_TYPES
    return ELEMENT_TYPES[name]


@rule("convert")
def convert_round_trip(inst: Instruction, b: Builder) -> Instruction | None:
    """convert(convert(A: T) to U) to T => A when T -> U preserves every value (XLA's
    IsConvertPairNoOp), e.g. f32 -> f64 -> f32 or s8 -> s32 -> s8."""
    x = inst.operands[0]
    if x.opcode != "convert":
        return None
    a = x.operands[0]
    src, mid = a.shape.element_type, x.shape.element_type
    if src == inst.shape.element_type and src is not None and mid is not None and cast_preserves_values(src, mid):
        return a
    return None


# -- tuples, complex numbers, iota ----------------------------------------------------------------
@rule("get-tuple-element")
def gte_of_tuple(inst: Instruction, b: Builder) -> Instruction | None:
    """get-tuple-element(tuple(A0, ..., An), i) => Ai."""
    x = inst.operands[0]
    index = inst.attrs.get("index")
    if x.opcode == "tuple" and isinstance(index, int) and 0 <= index < len(x.operands):
        return x.operands[index]
    return None


@rule("real")
def real_simplify(inst: Instruction, b: Builder) -> Instruction | None:
    """real(complex(R, I)) => R; real(A) => A for a non-complex A."""
    x = inst.operands[0]
    if x.opcode == "complex":
        return x.operands[0]
    t = x.shape.element_type
    return x if t is not None and not t.is_complex else None


@rule("imag")
def imag_simplify(inst: Instruction, b: Builder) -> Instruction | None:
    """imag(complex(R, I)) => I; imag(A) => 0 for a non-complex A."""
    x = inst.operands[0]
    if x.opcode == "complex":
        return x.operands[1]
    t = x.shape.element_type
    return b.filled(inst, 0) if t is not None and not t.is_complex else None


@rule("complex")
def complex_of_real_imag(inst: Instruction, b: Builder) -> Instruction | None:
    """complex(real(C), imag(C)) => C."""
    r, i = inst.operands
    if r.opcode == "real" and i.opcode == "imag" and r.operands[0] is i.operands[0]:
        return r.operands[0]
    return None


@rule("iota")
def iota_degenerate(inst: Instruction, b: Builder) -> Instruction | None:
    """iota along a dim of size 1 => zeros (broadcast of a scalar 0)."""
    d = inst.attrs.get("iota_dimension")
    if isinstance(d, int) and 0 <= d < inst.shape.rank and inst.shape.dims[d] == 1 and inst.shape.size > 0:
        return b.filled(inst, 0)
    return None
