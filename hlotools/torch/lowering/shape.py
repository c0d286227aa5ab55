"""ATen ops that move, copy or create data without arithmetic on it: views, permutes,
broadcasts, slices, concatenation, padding, scatters into slices, and factories
(full, arange). Result dims come from the node's meta["val"] where torch already
resolved them (-1 in view, expand's -1)."""
from __future__ import annotations

import torch
from torch.fx import Node

from hlotools.torch import ops, symbolic
from hlotools.torch.builder import Value
from hlotools.torch.lowering.context import Call, Context, arg, out_dims, out_type, val
from hlotools.torch.lowering.registry import FOLLOWS, SETS, lowers

aten = torch.ops.aten


@lowers(aten.view.default, aten.squeeze.dims, aten.unsqueeze.default, dynamic=FOLLOWS)
def view(cx: Context, node: Call) -> Value:
    """The reshape declares the result's symbolic dims dynamic: where a dynamic dim splits,
    that says which part of it is dynamic (XLA's dynamic dimension inference reads it)."""
    x, dims = cx.tensor(node.args[0]), out_dims(node)
    if x.dims == dims:
        return x
    return cx.b.emit("reshape", [x], x.dtype, dims, dynamic=[symbolic.is_symbolic(d) for d in val(node).shape])


@lowers(aten.permute.default, dynamic=FOLLOWS)
def permute(cx: Context, node: Call) -> Value:
    x = cx.tensor(node.args[0])
    return ops.transpose(cx.b, x, [d % x.rank for d in node.args[1]])


@lowers(aten.expand.default, dynamic=FOLLOWS)
def expand(cx: Context, node: Call) -> Value:
    """Stretched and new dims take their sizes from the arguments; the others keep the operand's."""
    x, dims = cx.tensor(node.args[0]), out_dims(node)
    source = node.args[0].meta["val"].shape
    offset = len(dims) - x.rank
    stretched = [d for d in range(len(dims)) if d < offset or source[d - offset] != val(node).shape[d]]
    return cx.set_sizes(ops.broadcast_to(cx.b, x, dims), val(node), stretched)


def bounds(size: int, start: int | None, end: int | None, step: int) -> tuple[int, int]:
    """Python slice bounds as torch clamps them (negative from the end, then to [0, size])."""
    lo = 0 if start is None else (start + size if start < 0 else start)
    hi = size if end is None else (end + size if end < 0 else end)
    lo, hi = min(max(lo, 0), size), min(max(hi, 0), size)
    return lo, max(lo, hi)


def _slice_dim(cx: Context, x: Value, dim: int, lo: int, hi: int, step: int) -> Value:
    starts, limits, strides = [0] * x.rank, list(x.dims), [1] * x.rank
    starts[dim], limits[dim], strides[dim] = lo, hi, step
    return ops.slice_(cx.b, x, starts, limits, strides)


def _static_step_and_start(node: Call) -> str | None:
    """A symbolic end is a size (valid elements first); a symbolic start or step is not, nor
    is a bound counted from the end of a symbolic dim (that end is its runtime size)."""
    if any(isinstance(arg(node, i, k), Node) for i, k in ((2, "start"), (4, "step"))):
        return "symbolic start or step"
    if _from_symbolic_end(node, arg(node, 2, "start")):
        return "a start counted from the end of a symbolic dim"
    return None


def _from_symbolic_end(node: Call, bound: object) -> bool:
    """`bound` counts from the end of the sliced dim, and that dim is symbolic."""
    shape = node.args[0].meta["val"].shape
    dim = arg(node, 1, "dim", 0) % max(len(shape), 1)
    return bool(shape) and symbolic.is_symbolic(shape[dim]) and isinstance(bound, int) and bound < 0


@lowers(aten.slice.Tensor, supports=_static_step_and_start, dynamic=FOLLOWS)
def slice_tensor(cx: Context, node: Call) -> Value:
    x = cx.tensor(node.args[0])
    dim = arg(node, 1, "dim", 0) % max(x.rank, 1)
    step = arg(node, 4, "step", 1)
    end = arg(node, 3, "end")
    sized = isinstance(end, Node) or _from_symbolic_end(node, end)  # then the result's size is torch's
    lo, hi = bounds(x.dims[dim], cx.number(arg(node, 2, "start")), None if sized else end, step)
    if sized:  # torch's length at the bound
        hi = lo + (out_dims(node)[dim] - 1) * step + 1 if out_dims(node)[dim] else lo
    sliced = _slice_dim(cx, x, dim, lo, hi, step)
    return cx.set_sizes(sliced, val(node), [dim]) if sized else sliced


def _index_within(node: Call) -> str | None:
    """An index into a symbolic dim counts from its start (from the end is its runtime size)."""
    size = node.args[0].meta["val"].shape[node.args[1]]
    index = node.args[2]
    if isinstance(index, Node) or (symbolic.is_symbolic(size) and index < 0):
        return "index from the end of a symbolic dim"
    return None


@lowers(aten.select.int, supports=_index_within, dynamic=FOLLOWS)
def select_int(cx: Context, node: Call) -> Value:
    x = cx.tensor(node.args[0])
    dim = node.args[1] % x.rank
    index = node.args[2] % x.dims[dim]
    return ops.reshape(cx.b, _slice_dim(cx, x, dim, index, index + 1, 1), out_dims(node))


def _static_split_dim(node: Call) -> str | None:
    """Along a static dim each piece is a slice keeping the dynamic dims whole; along a
    symbolic one the pieces' sizes are sizes of it (not lowered)."""
    shape = node.args[0].meta["val"].shape
    dim = arg(node, 2, "dim", 0) % max(len(shape), 1)
    if symbolic.is_symbolic(shape[dim]) or not all(isinstance(n, int) for n in node.args[1]):
        return "a split along a symbolic dim"
    return None


@lowers(aten.split_with_sizes.default, supports=_static_split_dim, dynamic=FOLLOWS)
def split(cx: Context, node: Call) -> list[Value]:
    x = cx.tensor(node.args[0])
    dim = arg(node, 2, "dim", 0) % x.rank
    pieces, lo = [], 0
    for piece in node.meta["val"]:
        n = int(piece.shape[dim])
        pieces.append(_slice_dim(cx, x, dim, lo, lo + n, 1))
        lo += n
    return pieces


@lowers(aten.cat.default, dynamic=FOLLOWS)
def cat(cx: Context, node: Call) -> Value:
    ct = out_type(node)
    dims = out_dims(node)
    values = [ops.convert(cx.b, cx.tensor(t), ct) for t in node.args[0]]
    values = [v for v in values if v.rank == len(dims) and 0 not in v.dims]  # torch skips empty ones
    if not values:
        return ops.full(cx.b, 0, ct, dims)
    return ops.concatenate(cx.b, values, arg(node, 1, "dim", 0) % len(dims))


@lowers(aten.repeat.default)
def repeat(cx: Context, node: Call) -> Value:
    """x tiled repeats[i] times along dim i (leading repeats add dims): broadcast to
    [r0, d0, r1, d1, ...], then merge each (r, d) pair."""
    x, repeats = cx.tensor(node.args[0]), list(node.args[1])
    dims = [1] * (len(repeats) - x.rank) + list(x.dims)
    x = ops.reshape(cx.b, x, dims)
    pairs = [n for r, d in zip(repeats, dims) for n in (r, d)]
    tiled = ops.broadcast_in_dim(cx.b, x, pairs, list(range(1, len(pairs), 2)))
    return ops.reshape(cx.b, tiled, out_dims(node))


@lowers(aten.diagonal.default)
def diagonal(cx: Context, node: Call) -> Value:
    """The diagonal of dims (dim1, dim2), shifted by offset, as the last dim: those two dims
    moved last and flattened, the diagonal is a strided slice of n*m elements (stride m+1)."""
    x = cx.tensor(node.args[0])
    offset = arg(node, 1, "offset", 0)
    d1, d2 = arg(node, 2, "dim1", 0) % x.rank, arg(node, 3, "dim2", 1) % x.rank
    rest = [d for d in range(x.rank) if d not in (d1, d2)]
    dims = out_dims(node)
    length = dims[-1]
    n, m = x.dims[d1], x.dims[d2]
    if length == 0:
        return ops.full(cx.b, 0, x.dtype, dims)
    moved = ops.transpose(cx.b, x, [*rest, d1, d2])
    flat = ops.reshape(cx.b, moved, [*moved.dims[:-2], n * m])
    start = offset if offset >= 0 else -offset * m
    return _slice_dim(cx, flat, flat.rank - 1, start, start + (length - 1) * (m + 1) + 1, m + 1)


@lowers(aten.flip.default, dynamic=FOLLOWS)
def flip(cx: Context, node: Call) -> Value:
    """A reverse; of a dynamic dim the padder reads x[size-1-i], so the valid elements stay first."""
    x = cx.tensor(node.args[0])
    axes = sorted({d % x.rank for d in node.args[1]})
    return cx.b.emit("reverse", [x], x.dtype, x.dims, f"dimensions={{{','.join(map(str, axes))}}}") if axes else x


def _numeric_pads(node: Call) -> str | None:
    return None if all(isinstance(p, int) for p in arg(node, 1, "pad")) else "symbolic padding"


@lowers(aten.constant_pad_nd.default, supports=_numeric_pads, dynamic=FOLLOWS)
def constant_pad_nd(cx: Context, node: Call) -> Value:
    """Of a dynamic dim the padder first fills its padding with the value, so the high pad
    follows the valid elements (a negative pad crops: from the start, or from the bound's
    end, past the valid ones)."""
    x = cx.tensor(node.args[0])
    pads = list(arg(node, 1, "pad"))
    low, high = [0] * x.rank, [0] * x.rank
    for i in range(len(pads) // 2):  # (last dim's low, high, the one before's, ...)
        low[x.rank - 1 - i], high[x.rank - 1 - i] = pads[2 * i], pads[2 * i + 1]
    return ops.pad(cx.b, x, ops.constant(cx.b, arg(node, 2, "value", 0), x.dtype), low, high)


def scatter_into_slice(cx: Context, x: Value, src: Value, dim: int, lo: int, step: int) -> Value:
    """x with x[..., lo::step (src.dims[dim] of them), ...] = src: src padded into place,
    chosen by a mask padded the same way."""
    n = src.dims[dim]
    if n == 0:
        return x
    low, high, interior = [0] * x.rank, [0] * x.rank, [0] * x.rank
    low[dim], interior[dim] = lo, step - 1
    high[dim] = x.dims[dim] - (lo + (n - 1) * step + 1)
    placed = ops.pad(cx.b, ops.convert(cx.b, src, x.dtype), ops.constant(cx.b, 0, x.dtype), low, high, interior)
    mask = ops.pad(cx.b, ops.full(cx.b, True, "pred", src.dims), ops.constant(cx.b, False, "pred"),
                   low, high, interior)
    return ops.select(cx.b, mask, placed, x)


@lowers(aten.slice_scatter.default)
def slice_scatter(cx: Context, node: Call) -> Value:
    x, src = cx.tensors(node.args[:2])
    dim = arg(node, 2, "dim", 0) % x.rank
    step = arg(node, 5, "step", 1)
    lo, _ = bounds(x.dims[dim], arg(node, 3, "start"), arg(node, 4, "end"), step)
    return scatter_into_slice(cx, x, src, dim, lo, step)


@lowers(aten.full.default, aten.full_like.default, aten.scalar_tensor.default, dynamic=SETS)
def full(cx: Context, node: Call) -> Value:
    value = node.args[0] if node.target == aten.scalar_tensor.default else node.args[1]
    return ops.full(cx.b, value, out_type(node), out_dims(node))


@lowers(aten.empty.memory_format, aten.empty_strided.default, aten.new_empty_strided.default, dynamic=SETS)
def zeros(cx: Context, node: Call) -> Value:
    """torch leaves an empty tensor's values unset (its strides are a memory layout, no
    values): zeros are one of its answers."""
    return ops.full(cx.b, 0, out_type(node), out_dims(node))


def _numeric_start_and_step(node: Call) -> str | None:
    """A symbolic end only sets the length (the result's size); start and step are data."""
    return None if isinstance(arg(node, 0, "start", 0), int | float) and \
        isinstance(arg(node, 2, "step", 1), int | float) else "symbolic start or step"


@lowers(aten.arange.start_step, supports=_numeric_start_and_step, dynamic=SETS)
def arange(cx: Context, node: Call) -> Value:
    ct, dims = out_type(node), out_dims(node)
    start, step = arg(node, 0, "start", 0), arg(node, 2, "step", 1)
    work = "s64" if ct[0] in "su" else "f64"  # torch steps in its accumulate type
    i = ops.convert(cx.b, ops.iota(cx.b, "s64", dims, 0), work)
    y = ops.binary(cx.b, "add", ops.binary(cx.b, "multiply", i, ops.constant(cx.b, step, work)),
                   ops.constant(cx.b, start, work))
    return ops.convert(cx.b, y, ct)
