"""Gathers and scatters: embedding, gather, index / index_select (advanced indexing),
scatter, scatter_add, scatter_reduce and index_put, each as HLO gathers and scatters;
masked_scatter as a gather at the running count of the mask.

Negative indices count from the end, as in torch; indices out of range are torch's error
and XLA's clamp, so they are not checked here."""
from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import torch

from hlotools.torch import ops
from hlotools.torch.builder import Builder, Value, ints
from hlotools.torch.lowering.context import Call, Context, arg, out_dims, out_type
from hlotools.torch.lowering.elementwise import integer_floor_divide
from hlotools.torch.lowering.reduction import LIMITS, running
from hlotools.torch.lowering.registry import FOLLOWS, lowers

aten = torch.ops.aten


def wrapped(cx: Context, index: Value, size: int) -> Value:
    """index as s64 with negative entries counted from the end."""
    b = cx.b
    i = ops.convert(b, index, "s64")
    if index.dtype.startswith("u"):
        return i
    negative = ops.compare(b, "LT", i, ops.constant(b, 0, "s64"))
    return ops.select(b, negative, ops.binary(b, "add", i, ops.constant(b, size, "s64")), i)


def gather(b: Builder, x: Value, indices: Value, offset_dims: Sequence[int], collapsed: Sequence[int],
           index_map: Sequence[int], slice_sizes: Sequence[int], out: Sequence[int]) -> Value:
    return b.emit("gather", [x, indices], x.dtype, out,
                  f"offset_dims={ints(offset_dims)}, collapsed_slice_dims={ints(collapsed)}, "
                  f"start_index_map={ints(index_map)}, index_vector_dim={indices.rank - 1}, "
                  f"slice_sizes={ints(slice_sizes)}")


def scatter(cx: Context, x: Value, indices: Value, updates: Value, window_dims: Sequence[int],
            inserted: Sequence[int], to_operand: Sequence[int], combine: str) -> Value:
    """combine: "replace" (the last update wins) or the opcode reducing updates into x."""
    b = cx.b
    if combine != "replace":
        combiner = ops.scalar_computation(b, "or" if x.dtype == "pred" and combine == "add" else combine, x.dtype)
    else:
        combiner = b.computation(f"replace_{x.dtype}", f"replace_{x.dtype} {{\n  a = {x.dtype}[] parameter(0)\n"
                                 f"  ROOT b = {x.dtype}[] parameter(1)\n}}\n")
    return b.emit("scatter", [x, indices, ops.convert(b, updates, x.dtype)], x.dtype, x.dims,
                  f"update_window_dims={ints(window_dims)}, inserted_window_dims={ints(inserted)}, "
                  f"scatter_dims_to_operand_dims={ints(to_operand)}, index_vector_dim={indices.rank - 1}, "
                  f"to_apply={combiner}")


@lowers(aten.embedding.default, dynamic=FOLLOWS)
def embedding(cx: Context, node: Call) -> Value:
    w, idx = cx.tensors(node.args[:2])
    i = ops.reshape(cx.b, wrapped(cx, idx, w.dims[0]), [*idx.dims, 1])
    return gather(cx.b, w, i, [idx.rank], [0], [0], [1, w.dims[1]], [*idx.dims, w.dims[1]])


def full_indices(cx: Context, index: Value, dim: int, size: int) -> Value:
    """[*index.dims, rank]: every element's coordinates with `dim` replaced by the index."""
    b = cx.b
    parts = []
    for d in range(index.rank):
        coord = wrapped(cx, index, size) if d == dim else ops.iota(b, "s64", index.dims, d)
        parts.append(ops.reshape(b, coord, [*index.dims, 1]))
    return ops.concatenate(b, parts, index.rank)


@lowers(aten.gather.default)
def gather_(cx: Context, node: Call) -> Value:
    x, index = cx.tensor(node.args[0]), cx.tensor(node.args[2])
    if x.rank == 0:
        return x
    dim = node.args[1] % x.rank
    coords = full_indices(cx, index, dim, x.dims[dim])
    axes = list(range(x.rank))
    return gather(cx.b, x, coords, [], axes, axes, [1] * x.rank, index.dims)


def _scatter_along(cx: Context, node: Call, x: Value, source: Value, combine: str) -> Value:
    """x with source[i] combined into x[i with dim replaced by index[i]] (torch's scatter
    of node's index along its dim); a 0-d x as a 1-element one."""
    b, index = cx.b, cx.tensor(node.args[2])
    if 0 in index.dims:
        return x
    if x.rank == 0:
        one = [ops.reshape(b, v, [1]) for v in (x, index, source)]
        return ops.reshape(b, _scatter_into(cx, one[0], one[1], one[2], 0, combine), ())
    return _scatter_into(cx, x, index, source, node.args[1] % x.rank, combine)


def _scatter_into(cx: Context, x: Value, index: Value, source: Value, dim: int, combine: str) -> Value:
    coords = full_indices(cx, index, dim, x.dims[dim])
    updates = ops.slice_(cx.b, source, [0] * source.rank, index.dims, [1] * source.rank) \
        if source.dims != index.dims else source
    axes = list(range(x.rank))
    return scatter(cx, x, coords, updates, [], axes, axes, combine)


def _no_reduce(node: Call) -> str | None:
    return "scatter with reduce=" if node.kwargs.get("reduce") else None


@lowers(aten.scatter.value, aten.scatter.src, supports=_no_reduce)
def scatter_(cx: Context, node: Call) -> Value:
    x, index = cx.tensor(node.args[0]), cx.tensor(node.args[2])
    src = node.args[3]
    source = cx.tensor(src) if node.target == aten.scatter.src else ops.full(cx.b, src, x.dtype, index.dims)
    return _scatter_along(cx, node, x, source, "replace")


@lowers(aten.scatter_add.default)
def scatter_add(cx: Context, node: Call) -> Value:
    return _scatter_along(cx, node, cx.tensor(node.args[0]), cx.tensor(node.args[3]), "add")


REDUCERS = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def _reducer_known(node: Call) -> str | None:
    if node.args[0].meta["val"].dtype in (torch.bool, torch.complex64):
        return "bool or complex input"
    return None if node.args[4] in REDUCERS else f"reduce={node.args[4]!r}"


def _identity(how: str, dtype: str) -> float | int:
    return {"prod": 1, "amax": LIMITS[dtype][0], "amin": LIMITS[dtype][1]}.get(how, 0)


@lowers(aten.scatter_reduce.two, supports=_reducer_known)
def scatter_reduce(cx: Context, node: Call) -> Value:
    """Without include_self the scattered-to elements start from the reducer's identity;
    a mean divides by its count (self counting one when included; floor division of
    integers), as torch's kernel does."""
    b = cx.b
    x, index, src = cx.tensor(node.args[0]), cx.tensor(node.args[2]), cx.tensor(node.args[3])
    how, include = node.args[4], bool(node.kwargs.get("include_self", True))
    base = x
    if not include:
        hit = _scatter_along(cx, node, ops.full(b, False, "pred", x.dims), ops.full(b, True, "pred", index.dims), "replace")
        base = ops.select(b, hit, ops.full(b, _identity(how, x.dtype), x.dtype, x.dims), x)
    total = _scatter_along(cx, node, base, ops.convert(b, src, x.dtype), REDUCERS[how])
    if how != "mean":
        return total
    count = _scatter_along(cx, node, ops.full(b, int(include), x.dtype, x.dims), ops.full(b, 1, x.dtype, index.dims), "add")
    zero = ops.compare(b, "EQ", count, ops.constant(b, 0, x.dtype))
    count = ops.select(b, zero, ops.full(b, 1, x.dtype, x.dims), count)
    if x.dtype[0] in "fb":
        return ops.binary(b, "divide", total, count)
    return integer_floor_divide(cx, total, count)


def _int_indices(node: Call) -> str | None:
    for i in node.args[1]:
        if i is not None and i.meta["val"].dtype in (torch.bool, torch.uint8):
            return "boolean mask indices (data-dependent shape)"
    return None


def _advanced(cx: Context, x: Value, indices: Sequence[object]) -> tuple[Value, list[int], Value, list[int], bool]:
    """(x with the indexed dims first, their order, the stacked broadcast indices
    [*B, k], the other dims, whether the indexed dims were adjacent)."""
    b = cx.b
    where = [d for d, i in enumerate(indices) if i is not None]
    rest = [d for d in range(x.rank) if d not in where]
    values = [wrapped(cx, cx.tensor(indices[d]), x.dims[d]) for d in where]
    shape = ops.broadcast_shape(*(v.dims for v in values))
    stacked = ops.concatenate(b, [ops.reshape(b, ops.broadcast_to(b, v, shape), [*shape, 1]) for v in values], len(shape))
    adjacent = where == list(range(where[0], where[0] + len(where)))
    return ops.transpose(b, x, where + rest), where, stacked, rest, adjacent


@lowers(aten.index.Tensor, supports=_int_indices)
def index(cx: Context, node: Call) -> Value:
    b = cx.b
    x = cx.tensor(node.args[0])
    moved, where, stacked, rest, adjacent = _advanced(cx, x, node.args[1])
    k, batch = len(where), stacked.rank - 1
    got = gather(b, moved, stacked, list(range(batch, batch + len(rest))), list(range(k)), list(range(k)),
                 [1] * k + [x.dims[d] for d in rest], [*stacked.dims[:-1], *(x.dims[d] for d in rest)])
    before = where[0] if adjacent else 0
    perm = [*range(batch, batch + before), *range(batch), *range(batch + before, batch + len(rest))]
    return ops.reshape(b, ops.transpose(b, got, perm), out_dims(node))


@lowers(aten.index_put.default, supports=_int_indices)
def index_put(cx: Context, node: Call) -> Value:
    b = cx.b
    x, values = cx.tensor(node.args[0]), cx.tensor(node.args[2])
    moved, where, stacked, rest, adjacent = _advanced(cx, x, node.args[1])
    k, batch = len(where), stacked.rank - 1
    before = where[0] if adjacent else 0
    rest_dims = [x.dims[d] for d in rest]
    bdims = list(stacked.dims[:-1])
    result_dims = [*rest_dims[:before], *bdims, *rest_dims[before:]]
    v = ops.broadcast_to(b, ops.convert(b, values, x.dtype), result_dims)
    perm = [*range(before, before + batch), *range(before), *range(before + batch, len(result_dims))]
    v = ops.transpose(b, v, perm)
    done = scatter(cx, moved, stacked, v, list(range(batch, batch + len(rest))), list(range(k)), list(range(k)),
                   "add" if arg(node, 3, "accumulate", False) else "replace")
    order = where + rest
    inverse = [order.index(d) for d in range(x.rank)]
    return ops.transpose(b, done, inverse)


@lowers(aten.index_select.default)
def index_select(cx: Context, node: Call) -> Value:
    b = cx.b
    x, idx = cx.tensor(node.args[0]), cx.tensor(node.args[2])
    if x.rank == 0:
        return x
    dim = node.args[1] % x.rank
    n = idx.dims[0] if idx.rank else 1
    i = ops.reshape(b, wrapped(cx, idx, x.dims[dim]), [n, 1])
    others = [d for d in range(x.rank) if d != dim]
    sizes = [1 if d == dim else size for d, size in enumerate(x.dims)]
    got = gather(b, x, i, list(range(1, x.rank)), [dim], [dim], sizes, [n, *(x.dims[d] for d in others)])
    return ops.transpose(b, got, [*range(1, dim + 1), 0, *range(dim + 1, x.rank)])


@lowers(aten.masked_scatter.default)
def masked_scatter(cx: Context, node: Call) -> Value:
    """Where the mask holds, the next element of source (row-major): the k-th true element
    takes source.flat[k - 1], k the running count of the mask up to it."""
    b = cx.b
    dims = out_dims(node)
    x = ops.broadcast_to(b, cx.tensor(node.args[0]), dims)
    mask = ops.broadcast_to(b, ops.convert(b, cx.tensor(node.args[1]), "pred"), dims)
    source = cx.tensor(node.args[2])
    total, available = math.prod(dims), math.prod(source.dims)
    if total == 0 or available == 0:  # no element to take (torch: then the mask holds nowhere)
        return x
    at = ops.reshape(b, ops.binary(b, "maximum", _taken(cx, mask), ops.constant(b, 0, "s64")), [total, 1])
    flat_source = ops.reshape(b, source, [available])
    picked = gather(b, flat_source, at, [], [0], [0], [1], [total])
    return ops.select(b, mask, ops.reshape(b, ops.convert(b, picked, x.dtype), dims), x)


def _taken(cx: Context, mask: Value) -> Value:
    """Per element of the flattened mask, how many true elements come before it."""
    flat = ops.convert(cx.b, ops.reshape(cx.b, mask, [math.prod(mask.dims)]), "s64")
    return ops.binary(cx.b, "subtract", running(cx, flat, 0, "add", 0), ops.constant(cx.b, 1, "s64"))


@lowers(aten.masked_scatter_backward.default)
def masked_scatter_backward(cx: Context, node: Call) -> Value:
    """The source's gradient: the gradient at the k-th true element of the mask at k, zeros
    after the last. Elements off the mask go to one spare slot past the end, cut off."""
    b = cx.b
    g = cx.tensor(node.args[0])
    mask = ops.broadcast_to(b, ops.convert(b, cx.tensor(node.args[1]), "pred"), g.dims)
    dims = out_dims(node)
    size, total = math.prod(dims), math.prod(g.dims)
    if total == 0:
        return ops.full(b, 0, g.dtype, dims)
    flat_mask = ops.reshape(b, mask, [total])
    at = ops.select(b, flat_mask, _taken(cx, mask), ops.constant(b, size, "s64"))
    spare = ops.full(b, 0, g.dtype, [size + 1])
    placed = scatter(cx, spare, ops.reshape(b, at, [total, 1]), ops.reshape(b, g, [total]), [], [0], [0], "replace")
    return ops.reshape(b, ops.slice_(b, placed, [0], [size], [1]), dims)


@lowers(aten.replication_pad1d_backward.default, aten.replication_pad2d_backward.default,
        aten.replication_pad3d_backward.default)
def replication_pad_backward(cx: Context, node: Call) -> Value:
    """The input's gradient: per padded dim, out position j read input clamp(j - low, 0,
    n - 1), so its gradient is a scatter-add along that dim at those indices (negative
    pads crop: positions are counted from low)."""
    b = cx.b
    g, x = cx.tensors(node.args[:2])
    pads = list(node.args[2])
    for i in range(len(pads) // 2):  # (last dim's low, high, the one before's, ...)
        dim = x.rank - 1 - i
        n, low = x.dims[dim], pads[2 * i]
        dims = list(g.dims)
        dims[dim] = n
        at = ops.binary(b, "subtract", ops.iota(b, "s64", g.dims, dim), ops.constant(b, low, "s64"))
        at = ops.binary(b, "minimum", ops.binary(b, "maximum", at, ops.constant(b, 0, "s64")), ops.constant(b, n - 1, "s64"))
        g = _scatter_into(cx, ops.full(b, 0, g.dtype, dims), at, g, dim, "add")
    return g


def _within_contiguous(node: Call) -> str | None:
    """as_strided reads the input's storage: that is its elements in order only where it is
    contiguous from offset 0, and only up to its own size."""
    x = node.args[0].meta["val"]
    size, stride = node.args[1], node.args[2]
    offset = arg(node, 3, "storage_offset") or 0
    if not x.is_contiguous() or x.storage_offset() != 0:
        return "as_strided of a non-contiguous or offset input (its storage is not its elements)"
    if arg(node, 3, "storage_offset") is not None and node.args[0].op == "placeholder":
        return "as_strided at a storage offset of a graph input (a view's storage starts before it)"
    last = offset + sum((n - 1) * s for n, s in zip(size, stride)) if all(n > 0 for n in size) else offset
    return None if last < max(x.numel(), 1) and x.numel() > 0 else "as_strided past the input's elements"


@lowers(aten.as_strided.default, supports=_within_contiguous)
def as_strided(cx: Context, node: Call) -> Value:
    """Element i of the result is x.flat[offset + sum(i_d * stride_d)]: one gather."""
    b = cx.b
    x = cx.tensor(node.args[0])
    dims = out_dims(node)
    at = ops.full(b, arg(node, 3, "storage_offset") or 0, "s64", dims)
    for d, step in enumerate(node.args[2]):
        at = ops.binary(b, "add", at, ops.binary(b, "multiply", ops.iota(b, "s64", dims, d), ops.constant(b, step, "s64")))
    flat = ops.reshape(b, x, [math.prod(x.dims)])
    return gather(b, flat, ops.reshape(b, at, [*dims, 1]), [], [0], [0], [1], dims)


BAG_MODES = {0: "add", 1: "add", 2: "maximum"}  # torch's sum, mean, max


def _bags_only(node: Call) -> str | None:
    """Only the bags' values: the other results (offset2bag, bag sizes, max indices) are
    what the CPU kernel's backward reads in its own layout, so a graph using them runs eagerly."""
    used = {u.args[1] for u in getattr(node, "users", {}) if u.target is operator.getitem and u.users}
    if used - {0}:
        return "embedding_bag's bookkeeping results (what its backward reads)"
    if node.args[1].meta["val"].dim() != 1:
        return "2-D indices"
    return None if arg(node, 4, "mode", 0) in BAG_MODES else "unknown mode"


@lowers(aten._embedding_bag.default, aten._embedding_bag_forward_only.default, supports=_bags_only)
def embedding_bag(cx: Context, node: Call) -> list[Value]:
    """Bag j reduces weight[indices[i]] (times its per-sample weight) over offsets[j] <= i <
    offsets[j + 1]: one gather, then a scatter by bag. padding_idx entries take no part (nor
    in a mean's count); an empty bag is zeros."""
    b = cx.b
    w, indices, offsets = cx.tensors(node.args[:3])
    mode = arg(node, 4, "mode", 0)
    psw, padding = arg(node, 6, "per_sample_weights"), arg(node, 8, "padding_idx", -1)
    n, d = indices.dims[0], w.dims[1]
    bags = out_dims(node, 0)[0]  # (one less than the offsets with include_last_offset)
    idx = ops.convert(b, indices, "s64")
    rows = gather(b, w, ops.reshape(b, idx, [n, 1]), [1], [0], [0], [1, d], [n, d])
    if psw is not None:
        rows = ops.binary(b, "multiply", rows, ops.broadcast_in_dim(b, ops.convert(b, cx.tensor(psw), w.dtype), [n, d], [0]))
    starts = ops.convert(b, offsets, "s64")
    # bag of entry i: how many bag starts are at or before it, less one
    started = ops.compare(b, "LE", ops.broadcast_in_dim(b, starts, [n, offsets.dims[0]], [1]),
                          ops.iota(b, "s64", [n, offsets.dims[0]], 0))
    bag = ops.binary(b, "subtract", ops.reduce(b, ops.convert(b, started, "s64"), [1], "add", 0), ops.constant(b, 1, "s64"))
    counted = ops.compare(b, "LT", bag, ops.constant(b, bags, "s64"))  # (past the last bag: not in one)
    if padding is not None and padding >= 0:
        counted = ops.binary(b, "and", counted, ops.compare(b, "NE", idx, ops.constant(b, padding, "s64")))
    at = ops.reshape(b, ops.select(b, counted, bag, ops.constant(b, bags, "s64")), [n, 1])  # a spare bag, cut off
    init = LIMITS[w.dtype][0] if mode == 2 else 0
    spare = ops.full(b, init, w.dtype, [bags + 1, d])
    total = scatter(cx, spare, at, rows, [1], [0], [0], BAG_MODES[mode])
    total = ops.slice_(b, total, [0, 0], [bags, d], [1, 1])
    ones = ops.convert(b, counted, w.dtype)
    count = ops.slice_(b, scatter(cx, ops.full(b, 0, w.dtype, [bags + 1]), at, ones, [], [0], [0], "add"), [0], [bags], [1])
    empty = ops.broadcast_in_dim(b, ops.compare(b, "EQ", count, ops.constant(b, 0, w.dtype)), [bags, d], [0])
    if mode == 1:
        total = ops.binary(b, "divide", total, ops.broadcast_in_dim(b, ops.binary(b, "maximum", count, ops.constant(b, 1, w.dtype)), [bags, d], [0]))
    out = ops.select(b, empty, ops.full(b, 0, w.dtype, [bags, d]), total)
    # the bookkeeping results no user reads (_bags_only)
    return [out, *(ops.full(b, 0, out_type(node, i), out_dims(node, i)) for i in (1, 2, 3))]
