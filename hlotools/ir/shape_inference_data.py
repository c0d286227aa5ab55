"""Shape rules of data-movement opcodes: broadcast, reshape, transpose, slices, concatenate,
pad, reverse, gather, scatter, iota, tuple, get-tuple-element, sort, topk, dimension sizes.

Error texts follow XLA's ShapeInference where it has one, so a message can be matched against
XLA's behaviour.
"""
from __future__ import annotations

import math

from hlotools.ir.attributes import PaddingConfig
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.shape_inference_common import (
    S32,
    array_operand,
    attr,
    check_dims_in_range,
    check_unique,
    declared,
    dims_str,
    fail,
    make,
    operand_shape,
    opt_attr,
    rule,
    shape_text,
    strip_layout,
)


@rule("broadcast")
def infer_broadcast(inst: Instruction) -> Shape:
    """XLA's broadcast maps operand dim i to output dim dimensions[i]; the output dims come
    from the declared shape (they cannot be inferred)."""
    x = array_operand(inst, 0)
    out = declared(inst, "broadcast's output dimensions")
    dims = tuple(opt_attr(inst, "dimensions", ()))
    if len(dims) != x.rank:
        raise fail(inst, f"dimensions {dims_str(dims)} must have one entry per operand dimension "
                         f"(operand {shape_text(x)})")
    check_dims_in_range(inst, dims, out.rank, "dimensions")
    check_unique(inst, dims, "dimensions")
    for i, d in enumerate(dims):
        if out.dims[d] != x.dims[i]:
            raise fail(inst, f"operand dimension {i} (size {x.dims[i]}) does not match output "
                             f"dimension {d} (size {out.dims[d]})")
    return make(x.element_type, out.dims, out.dynamic)


@rule("reshape")
def infer_reshape(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    out = declared(inst, "reshape's output dimensions")
    if x.is_static and out.is_static and math.prod(x.dims) != math.prod(out.dims):
        raise fail(inst, f"reshape changes the element count: {shape_text(x)} "
                         f"({math.prod(x.dims)} elements) to {shape_text(out)} "
                         f"({math.prod(out.dims)} elements)")
    return make(x.element_type, out.dims, out.dynamic)


@rule("dynamic-reshape")
def infer_dynamic_reshape(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    out = declared(inst)
    if len(inst.operands) != out.rank + 1:
        raise fail(inst, f"expects one size operand per output dimension ({out.rank}), got "
                         f"{len(inst.operands) - 1}")
    for i in range(1, len(inst.operands)):
        s = array_operand(inst, i)
        if s.rank != 0 or s.element_type != S32:
            raise fail(inst, f"size operand {i} must be s32[], got {shape_text(s)}")
    return make(x.element_type, out.dims, out.dynamic)


@rule("bitcast")
def infer_bitcast(inst: Instruction) -> Shape:
    operand_shape(inst, 0)
    return declared(inst)


@rule("transpose")
def infer_transpose(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    perm = tuple(attr(inst, "dimensions"))
    if sorted(perm) != list(range(x.rank)):
        raise fail(inst, f"dimensions {dims_str(perm)} is not a permutation of the operand's "
                         f"{x.rank} dimensions")
    dyn = tuple(x.dynamic[p] for p in perm) if x.dynamic else ()
    return make(x.element_type, [x.dims[p] for p in perm], dyn)


@rule("reverse")
def infer_reverse(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    dims = tuple(attr(inst, "dimensions"))
    check_dims_in_range(inst, dims, x.rank, "dimensions")
    check_unique(inst, dims, "dimensions")
    return make(x.element_type, x.dims, x.dynamic)


@rule("slice")
def infer_slice(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    ranges = attr(inst, "slice")
    if len(ranges) != x.rank:
        raise fail(inst, f"slice has {len(ranges)} ranges for an operand of rank {x.rank}")
    out = []
    for d, r in enumerate(ranges):
        if r.stride <= 0:
            raise fail(inst, f"stride {r.stride} in dimension {d} must be positive")
        if not 0 <= r.start <= r.limit <= x.dims[d]:
            raise fail(inst, f"slice [{r.start}:{r.limit}] in dimension {d} is out of bounds for "
                             f"size {x.dims[d]}")
        out.append(-(-(r.limit - r.start) // r.stride))
    return make(x.element_type, out)


def _check_indices(inst: Instruction, first: int, rank: int) -> None:
    """dynamic-(update-)slice start indices: `rank` integer scalars of one type, or (the old
    form) a single rank-1 vector."""
    idx = [array_operand(inst, i, f"start index {i - first}") for i in range(first, len(inst.operands))]
    if len(idx) == 1 and idx[0].rank == 1:
        if idx[0].dims[0] != rank:
            raise fail(inst, f"start index vector {shape_text(idx[0])} must have {rank} elements")
        idx_types = [idx[0]]
    else:
        if len(idx) != rank:
            raise fail(inst, f"expects {rank} start indices (one per operand dimension), got "
                             f"{len(idx)}")
        for s in idx:
            if s.rank != 0:
                raise fail(inst, f"start indices must be scalars, got {shape_text(s)}")
        idx_types = idx
    for s in idx_types:
        assert s.element_type is not None
        if not s.element_type.is_integer:
            raise fail(inst, f"start indices must be integers, got {shape_text(s)}")
    if len({s.element_type for s in idx_types}) > 1:
        raise fail(inst, "start indices must all have the same element type")


@rule("dynamic-slice")
def infer_dynamic_slice(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    sizes = tuple(attr(inst, "dynamic_slice_sizes"))
    _check_indices(inst, 1, x.rank)
    if len(sizes) != x.rank:
        raise fail(inst, f"dynamic_slice_sizes {dims_str(sizes)} must have {x.rank} entries")
    for d, (size, bound) in enumerate(zip(sizes, x.dims)):
        if not 0 <= size <= bound:
            raise fail(inst, f"slice size {size} in dimension {d} is out of range [0, {bound}]")
    return make(x.element_type, sizes)


@rule("dynamic-update-slice")
def infer_dynamic_update_slice(inst: Instruction) -> Shape:
    x, upd = array_operand(inst, 0), array_operand(inst, 1, "update")
    if upd.element_type != x.element_type:
        raise fail(inst, f"update {shape_text(upd)} and operand {shape_text(x)} have different "
                         "element types")
    if upd.rank != x.rank:
        raise fail(inst, f"update {shape_text(upd)} and operand {shape_text(x)} have different ranks")
    _check_indices(inst, 2, x.rank)
    for d, (u, o) in enumerate(zip(upd.dims, x.dims)):
        if not 0 <= u <= o:
            raise fail(inst, f"update dimension {d} (size {u}) is larger than the operand's ({o})")
    # XLA: dynamic where the operand is, or where a dynamic update covers the whole dimension.
    dyn = [x.is_dynamic_dim(d) or (upd.is_dynamic_dim(d) and upd.dims[d] == x.dims[d])
           for d in range(x.rank)]
    return make(x.element_type, x.dims, dyn)


@rule("concatenate")
def infer_concatenate(inst: Instruction) -> Shape:
    shapes = [array_operand(inst, i) for i in range(len(inst.operands))]
    if not shapes:
        raise fail(inst, "expects at least one operand")
    dims = tuple(attr(inst, "dimensions"))
    if len(dims) != 1:
        raise fail(inst, f"dimensions {dims_str(dims)} must have exactly one entry")
    first = shapes[0]
    dim = dims[0]
    check_dims_in_range(inst, dims, first.rank, "dimensions")
    total = 0
    for i, s in enumerate(shapes):
        if s.element_type != first.element_type:
            raise fail(inst, f"operand {i} {shape_text(s)} has a different element type than "
                             f"{shape_text(first)}")
        if s.rank != first.rank or any(a != b for k, (a, b) in enumerate(zip(s.dims, first.dims))
                                       if k != dim):
            raise fail(inst, f"operand {i} {shape_text(s)} does not match {shape_text(first)} "
                             f"outside dimension {dim}")
        total += s.dims[dim]
    out = list(first.dims)
    out[dim] = total
    return make(first.element_type, out)


@rule("pad")
def infer_pad(inst: Instruction) -> Shape:
    x, value = array_operand(inst, 0), array_operand(inst, 1, "padding value")
    if value.rank != 0 or value.element_type != x.element_type:
        raise fail(inst, f"padding value must be a scalar of the operand's type, got "
                         f"{shape_text(value)}")
    cfg: PaddingConfig = attr(inst, "padding")
    if len(cfg.dims) != x.rank:
        raise fail(inst, f"padding has {len(cfg.dims)} dimensions for an operand of rank {x.rank}")
    out = []
    for d, ((lo, hi, interior), size) in enumerate(zip(cfg.dims, x.dims)):
        if interior < 0:
            raise fail(inst, f"interior padding {interior} in dimension {d} must not be negative")
        n = lo + hi + size + max(size - 1, 0) * interior
        if n < 0:
            raise fail(inst, f"padding {lo}_{hi}_{interior} makes dimension {d} negative ({n})")
        out.append(n)
    return make(x.element_type, out)


@rule("iota")
def infer_iota(inst: Instruction) -> Shape:
    out = declared(inst)
    if not out.is_array or out.rank == 0:
        raise fail(inst, f"iota needs an array result of rank >= 1, got {shape_text(out)}")
    d = attr(inst, "iota_dimension")
    if not 0 <= d < out.rank:
        raise fail(inst, f"iota_dimension={d} is out of range for rank {out.rank}")
    return out


@rule("tuple")
def infer_tuple(inst: Instruction) -> Shape:
    return Shape.tuple_of([strip_layout(operand_shape(inst, i)) for i in range(len(inst.operands))])


@rule("get-tuple-element")
def infer_get_tuple_element(inst: Instruction) -> Shape:
    t = operand_shape(inst, 0)
    index = attr(inst, "index")
    if t.tuple_shapes is None:
        raise fail(inst, f"operand must be a tuple, got {shape_text(t)}")
    if not 0 <= index < len(t.tuple_shapes):
        raise fail(inst, f"index={index} is out of range for a tuple of {len(t.tuple_shapes)} "
                         "elements")
    return strip_layout(t.tuple_shapes[index])


@rule("sort")
def infer_sort(inst: Instruction) -> Shape:
    shapes = [array_operand(inst, i) for i in range(len(inst.operands))]
    dims = tuple(attr(inst, "dimensions"))
    if len(dims) != 1:
        raise fail(inst, f"dimensions {dims_str(dims)} must have exactly one entry")
    first = shapes[0]
    check_dims_in_range(inst, dims, first.rank, "dimensions")
    for i, s in enumerate(shapes[1:], 1):
        if s.dims != first.dims:
            raise fail(inst, f"operand {i} {shape_text(s)} and operand 0 {shape_text(first)} "
                             "have different dimensions")
    outs = [make(s.element_type, s.dims, s.dynamic) for s in shapes]
    return outs[0] if len(outs) == 1 else Shape.tuple_of(outs)


@rule("topk")
def infer_topk(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    k = attr(inst, "k")
    if x.rank == 0:
        raise fail(inst, "operand must have rank >= 1")
    if not 0 <= k <= x.dims[-1]:
        raise fail(inst, f"k={k} exceeds the last dimension of {shape_text(x)}")
    dims = x.dims[:-1] + (k,)
    return Shape.tuple_of([make(x.element_type, dims), make(S32, dims)])


@rule("get-dimension-size")
def infer_get_dimension_size(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    dims = tuple(attr(inst, "dimensions"))
    if len(dims) != 1:
        raise fail(inst, f"dimensions {dims_str(dims)} must have exactly one entry")
    check_dims_in_range(inst, dims, x.rank, "dimensions")
    return make(S32, ())


@rule("set-dimension-size")
def infer_set_dimension_size(inst: Instruction) -> Shape:
    x, size = array_operand(inst, 0), array_operand(inst, 1, "size")
    dims = tuple(attr(inst, "dimensions"))
    if len(dims) != 1:
        raise fail(inst, f"dimensions {dims_str(dims)} must have exactly one entry")
    check_dims_in_range(inst, dims, x.rank, "dimensions")
    if size.rank != 0 or size.element_type != S32:
        raise fail(inst, f"size operand must be s32[], got {shape_text(size)}")
    dyn = list(x.dynamic or (False,) * x.rank)
    dyn[dims[0]] = True
    return make(x.element_type, x.dims, dyn)


def _check_sorted(inst: Instruction, dims: tuple[int, ...], what: str) -> None:
    """XLA's gather/scatter dimension lists must be ascending without repeats."""
    if list(dims) != sorted(set(dims)):
        raise fail(inst, f"{what} {dims_str(dims)} must be sorted and unique")


def _expanded_indices(inst: Instruction, indices: Shape, index_vector_dim: int) -> tuple[int, ...]:
    if not 0 <= index_vector_dim <= indices.rank:
        raise fail(inst, f"index_vector_dim={index_vector_dim} is out of range for indices of "
                         f"rank {indices.rank}")
    assert indices.element_type is not None
    if not indices.element_type.is_integer:
        raise fail(inst, f"indices must be integers, got {shape_text(indices)}")
    dims = indices.dims
    return dims + (1,) if index_vector_dim == indices.rank else dims


@rule("gather")
def infer_gather(inst: Instruction) -> Shape:
    """XLA InferGatherShape: output = batch dims of the indices interleaved with the slice's
    non-collapsed (offset) dims at `offset_dims`."""
    x, idx = array_operand(inst, 0), array_operand(inst, 1, "start indices")
    offset_dims = tuple(attr(inst, "offset_dims"))
    collapsed = tuple(opt_attr(inst, "collapsed_slice_dims", ()))
    start_map = tuple(attr(inst, "start_index_map"))
    ivd = attr(inst, "index_vector_dim")
    sizes = tuple(attr(inst, "slice_sizes"))
    op_batch = tuple(opt_attr(inst, "operand_batching_dims", ()))
    idx_batch = tuple(opt_attr(inst, "start_indices_batching_dims", ()))
    expanded = _expanded_indices(inst, idx, ivd)
    if len(start_map) != expanded[ivd]:
        raise fail(inst, f"start_index_map {dims_str(start_map)} must have {expanded[ivd]} entries "
                         "(the index vector size)")
    if len(sizes) != x.rank:
        raise fail(inst, f"slice_sizes {dims_str(sizes)} must have {x.rank} entries")
    check_dims_in_range(inst, start_map, x.rank, "start_index_map")
    check_dims_in_range(inst, collapsed, x.rank, "collapsed_slice_dims")
    check_dims_in_range(inst, op_batch, x.rank, "operand_batching_dims")
    check_unique(inst, collapsed + op_batch, "collapsed_slice_dims + operand_batching_dims")
    check_unique(inst, start_map, "start_index_map")
    _check_sorted(inst, collapsed, "collapsed_slice_dims")
    if len(op_batch) != len(idx_batch):
        raise fail(inst, "operand_batching_dims and start_indices_batching_dims differ in length")
    for d, (s, bound) in enumerate(zip(sizes, x.dims)):
        if not 0 <= s <= bound:
            raise fail(inst, f"slice size {s} in dimension {d} is out of range [0, {bound}]")
    for d in collapsed + op_batch:
        if sizes[d] > 1:
            raise fail(inst, f"slice size of collapsed/batching dimension {d} must be <= 1, got "
                             f"{sizes[d]}")
    offsets = [s for d, s in enumerate(sizes) if d not in collapsed and d not in op_batch]
    if len(offsets) != len(offset_dims):
        raise fail(inst, f"offset_dims {dims_str(offset_dims)} must have {len(offsets)} entries")
    batch = [s for d, s in enumerate(expanded) if d != ivd]
    out_rank = len(offset_dims) + len(batch)
    check_dims_in_range(inst, offset_dims, out_rank, "offset_dims")
    if list(offset_dims) != sorted(set(offset_dims)):
        raise fail(inst, f"offset_dims {dims_str(offset_dims)} must be sorted and unique")
    out = []
    oi = bi = 0
    for d in range(out_rank):
        if d in offset_dims:
            out.append(offsets[oi])
            oi += 1
        else:
            out.append(batch[bi])
            bi += 1
    return make(x.element_type, out)


@rule("scatter")
def infer_scatter(inst: Instruction) -> Shape:
    """XLA InferScatterShape: N operands, indices, N updates; the result is the operands'
    shapes. The update shape must be the scatter (batch) dims plus the window dims."""
    n_ops = len(inst.operands)
    if n_ops < 3 or n_ops % 2 == 0:
        raise fail(inst, f"expects N operands, indices and N updates (an odd count >= 3), got "
                         f"{n_ops}")
    n = n_ops // 2
    xs = [array_operand(inst, i) for i in range(n)]
    idx = array_operand(inst, n, "scatter indices")
    ups = [array_operand(inst, n + 1 + i, f"update {i}") for i in range(n)]
    window = tuple(attr(inst, "update_window_dims"))
    inserted = tuple(opt_attr(inst, "inserted_window_dims", ()))
    to_operand = tuple(attr(inst, "scatter_dims_to_operand_dims"))
    ivd = attr(inst, "index_vector_dim")
    in_batch = tuple(opt_attr(inst, "input_batching_dims", ()))
    x = xs[0]
    expanded = _expanded_indices(inst, idx, ivd)
    if len(to_operand) != expanded[ivd]:
        raise fail(inst, f"scatter_dims_to_operand_dims {dims_str(to_operand)} must have "
                         f"{expanded[ivd]} entries (the index vector size)")
    check_dims_in_range(inst, to_operand, x.rank, "scatter_dims_to_operand_dims")
    check_dims_in_range(inst, inserted, x.rank, "inserted_window_dims")
    check_unique(inst, inserted + in_batch, "inserted_window_dims + input_batching_dims")
    check_unique(inst, to_operand, "scatter_dims_to_operand_dims")
    _check_sorted(inst, window, "update_window_dims")
    _check_sorted(inst, inserted, "inserted_window_dims")
    if len(window) + len(inserted) + len(in_batch) != x.rank:
        raise fail(inst, f"update_window_dims {dims_str(window)} + inserted_window_dims "
                         f"{dims_str(inserted)} + input_batching_dims must cover the operand's "
                         f"{x.rank} dimensions")
    scatter_rank = len(expanded) - 1
    for i, (xi, ui) in enumerate(zip(xs, ups)):
        if xi.dims != x.dims:
            raise fail(inst, f"operand {i} {shape_text(xi)} differs from operand 0 {shape_text(x)}")
        if ui.element_type != xi.element_type:
            raise fail(inst, f"update {i} {shape_text(ui)} and operand {shape_text(xi)} have "
                             "different element types")
        if ui.rank != len(window) + scatter_rank:
            raise fail(inst, f"update {i} {shape_text(ui)} must have rank "
                             f"{len(window) + scatter_rank} (window + scatter dims)")
    check_dims_in_range(inst, window, ups[0].rank, "update_window_dims")
    operand_window = [d for d in range(x.rank) if d not in inserted and d not in in_batch]
    for wd, od in zip(window, operand_window):
        if ups[0].dims[wd] > x.dims[od]:
            raise fail(inst, f"update window dimension {wd} (size {ups[0].dims[wd]}) is larger "
                             f"than operand dimension {od} ({x.dims[od]})")
    upd_scatter = [d for d in range(ups[0].rank) if d not in window]
    idx_scatter = [d for d in range(len(expanded)) if d != ivd]
    for ud, sd in zip(upd_scatter, idx_scatter):
        if ups[0].dims[ud] != expanded[sd]:
            raise fail(inst, f"update scatter dimension {ud} (size {ups[0].dims[ud]}) does not "
                             f"match the indices' dimension {sd} ({expanded[sd]})")
    outs = [make(s.element_type, s.dims, s.dynamic) for s in xs]
    return outs[0] if n == 1 else Shape.tuple_of(outs)

