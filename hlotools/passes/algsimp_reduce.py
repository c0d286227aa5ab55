"""algsimp rules for reductions, contractions and dynamic slicing: reduce, dot,
dynamic-slice, dynamic-update-slice."""
from __future__ import annotations

from hlotools.ir.attributes import SliceRange
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import REDUCERS, reducer_identity
from hlotools.ir.patterns import binary_reducer_opcode
from hlotools.passes.algsimp_core import (
    Builder,
    constant_array,
    dims_attr,
    is_float,
    is_int,
    is_scalar_constant,
    rule,
    scalar_value,
)


# -- reduce -------------------------------------------------------------------------------------
def _reduction_opcode(inst: Instruction) -> str | None:
    """The opcode of a to_apply computation that is `op(p0, p1)` of its two parameters."""
    return binary_reducer_opcode(inst.attrs.get("to_apply"))


def _is_identity(opcode: str, init: Instruction) -> bool:
    """Is the scalar constant `init` the identity of the reduction `opcode`? Compared by value,
    as XLA does: either zero is float add's identity."""
    r = REDUCERS.get(opcode)
    if r is None or not is_scalar_constant(init):
        return False
    t = init.shape.element_type
    assert t is not None
    floating = t.is_float or t.is_complex
    if (floating and r.floating is None) or (t.is_complex and r.dual):
        return False  # and/or/xor have no float form; complex numbers have no order (no max/min identity)
    return bool(scalar_value(init) == reducer_identity(opcode, t.kind, t.bits))


@rule("reduce")
def reduce_empty_input(inst: Instruction, b: Builder) -> Instruction | None:
    """reduce over a zero-element input => broadcast(init)."""
    if len(inst.operands) != 2 or inst.shape.is_tuple:
        return None
    x, init = inst.operands
    if x.shape.size != 0 or inst.shape.size == 0:
        return None
    return b.broadcast(init, inst.shape, ())


@rule("reduce")
def reduce_trivial(inst: Instruction, b: Builder) -> Instruction | None:
    """reduce(A, identity) over no dims (or only size-1 dims) => reshape(A): each output
    element reduces one input element with the identity."""
    if len(inst.operands) != 2 or inst.shape.is_tuple:
        return None
    x, init = inst.operands
    if any(x.shape.dims[d] != 1 for d in dims_attr(inst)):
        return None
    opcode = _reduction_opcode(inst)
    if opcode is None or not _is_identity(opcode, init):
        return None
    return b.reshape(x, inst.shape)



@rule("reduce")
def reduce_of_reduce(inst: Instruction, b: Builder) -> Instruction | None:
    """reduce(reduce(A, v, d1), v, d2) => reduce(A, v, d1 + d2) with the same computation and
    init, when the inner one has no other user. Float sums are not merged (the order of the
    additions would change); max/min and integer ops are exact in any order."""
    if len(inst.operands) != 2:
        return None
    x, init = inst.operands
    if x.opcode != "reduce" or len(x.operands) != 2 or len(x.users) != 1:
        return None
    opcode = _reduction_opcode(inst)
    if opcode is None or _reduction_opcode(x) != opcode or not _same_scalar(init, x.operands[1]):
        return None
    t = inst.shape.element_type
    r = REDUCERS.get(opcode)
    # merging two reduces reorders the combination: only exact reducers keep the bits
    if t is None or r is None or not (r.exact_for_floats if t.is_float or t.is_complex else r.exact_for_ints):
        return None
    a = x.operands[0]
    inner = set(dims_attr(x))
    kept = [d for d in range(a.shape.rank) if d not in inner]
    merged = tuple(sorted(inner | {kept[d] for d in dims_attr(inst)}))
    return b.new("reduce", inst.shape, [a, init], {"dimensions": merged, "to_apply": inst.attrs["to_apply"]})


def _same_scalar(a: Instruction, c: Instruction) -> bool:
    if a is c:
        return True
    if not (is_scalar_constant(a) and is_scalar_constant(c) and a.shape.element_type == c.shape.element_type):
        return False
    x, y = constant_array(a), constant_array(c)
    return x is not None and y is not None and x.tobytes() == y.tobytes()


@rule("reduce-window")
def reduce_window_trivial(inst: Instruction, b: Builder) -> Instruction | None:
    """reduce-window with a 1-element window, stride 1, no padding or dilation, and the
    identity as init => the operand (each output element combines one input with the identity)."""
    if len(inst.operands) != 2 or inst.shape.is_tuple:
        return None
    x, init = inst.operands
    window = inst.attrs.get("window")
    if window is None or x.shape.dims != inst.shape.dims:
        return None
    if any((d.size, d.stride, d.padding_low, d.padding_high, d.window_dilation, d.base_dilation) != (1, 1, 0, 0, 1, 1)
           for d in window.dims):
        return None
    opcode = _reduction_opcode(inst)
    return x if opcode is not None and _is_identity(opcode, init) else None


# -- dot -------------------------------------------------------------------------------------------
@rule("dot")
def dot_zero_elements(inst: Instruction, b: Builder) -> Instruction | None:
    """A dot with a zero-element operand or result => broadcast(0)."""
    if not (is_int(inst) or is_float(inst)):
        return None
    x, y = inst.operands
    if inst.shape.size and x.shape.size and y.shape.size:
        return None
    return b.filled(inst, 0)


@rule("dot")
def dot_size1_contracting(inst: Instruction, b: Builder) -> Instruction | None:
    """dot with one contracting dim of size 1 => multiply of broadcasts (an outer product,
    batched): XLA's dot strength reduction. Each result element is one product, so the
    multiply computes it exactly as the dot does."""
    if not (is_int(inst) or is_float(inst)):
        return None
    x, y = inst.operands
    lc, rc = dims_attr(inst, "lhs_contracting_dims"), dims_attr(inst, "rhs_contracting_dims")
    lb, rb = dims_attr(inst, "lhs_batch_dims"), dims_attr(inst, "rhs_batch_dims")
    if len(lc) != 1 or len(rc) != 1 or x.shape.dims[lc[0]] != 1 or y.shape.dims[rc[0]] != 1:
        return None
    n_lhs_free = x.shape.rank - len(lb) - 1
    lhs_map = _result_dims(x.shape.rank, lc[0], lb, len(lb))
    rhs_map = _result_dims(y.shape.rank, rc[0], rb, len(lb) + n_lhs_free)
    if lhs_map is None or rhs_map is None:
        return None
    t = inst.shape.element_type
    assert t is not None
    sides = []
    for operand, contracting, mapping in ((x, lc[0], lhs_map), (y, rc[0], rhs_map)):
        if operand.shape.element_type != t:
            operand = b.new("convert", b.shape(t, operand.shape.dims), [operand])
        dims = tuple(d for i, d in enumerate(operand.shape.dims) if i != contracting)
        reshaped = b.reshape(operand, b.shape(t, dims))
        sides.append(b.broadcast(reshaped, inst.shape, mapping))
    return b.binary("multiply", sides[0], sides[1], inst.shape)


def _result_dims(rank: int, contracting: int, batch: tuple[int, ...], free_base: int) -> tuple[int, ...] | None:
    """Where each non-contracting operand dim lands in the dot result (batch dims first, then
    lhs free dims, then rhs free dims); None unless increasing (broadcast needs sorted dims)."""
    out, free = [], free_base
    for d in range(rank):
        if d == contracting:
            continue
        if d in batch:
            out.append(batch.index(d))
        else:
            out.append(free)
            free += 1
    return tuple(out) if all(a < c for a, c in zip(out, out[1:])) else None


# -- dynamic-slice / dynamic-update-slice ------------------------------------------------------------
def _scalar_indices(inst: Instruction, first: int, rank: int) -> list[Instruction] | None:
    idx = inst.operands[first:]
    if len(idx) != rank or any(i.shape.rank != 0 for i in idx):
        return None
    return idx


@rule("dynamic-slice")
def dynamic_slice_full(inst: Instruction, b: Builder) -> Instruction | None:
    """dynamic-slice(A, ...) => A when it takes all of A (the start indices clamp to 0)."""
    x = inst.operands[0]
    return x if x.shape.dims == inst.shape.dims else None


@rule("dynamic-slice")
def dynamic_slice_constant_indices(inst: Instruction, b: Builder) -> Instruction | None:
    """dynamic-slice with constant start indices => slice (starts clamped into range, as
    dynamic-slice clamps them)."""
    x = inst.operands[0]
    idx = _scalar_indices(inst, 1, x.shape.rank)
    if idx is None or not all(is_scalar_constant(i) for i in idx):
        return None
    ranges = []
    for i, size, dim in zip(idx, inst.shape.dims, x.shape.dims):
        start = min(max(int(scalar_value(i)), 0), dim - size)
        ranges.append(SliceRange(start, start + size, 1))
    return b.new("slice", inst.shape, [x], {"slice": tuple(ranges)})


@rule("dynamic-update-slice")
def dus_full_update(inst: Instruction, b: Builder) -> Instruction | None:
    """dynamic-update-slice(A, U, ...) => U when U covers all of A (indices clamp to 0)."""
    x, update = inst.operands[0], inst.operands[1]
    return update if update.shape.dims == x.shape.dims else None


@rule("dynamic-update-slice")
def dus_empty_update(inst: Instruction, b: Builder) -> Instruction | None:
    """dynamic-update-slice(A, U, ...) => A when U has no elements."""
    x, update = inst.operands[0], inst.operands[1]
    return x if update.shape.size == 0 else None
