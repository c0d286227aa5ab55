"""Pooling over 2 or 3 spatial dims: max pool with indices and its backward, average pool
and its backward, adaptive average pool and its backward.

Windows are walked one kernel position at a time (a strided slice of the padded input per
position), which gives torch's exact index and tie rules (the first maximum, a NaN wins)
and lets the backward place each position's gradient back with one pad (interior
padding = stride - 1, negative edges crop)."""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import torch

from hlotools.torch import ops
from hlotools.torch.builder import Value
from hlotools.torch.lowering.context import Call, Context, arg, batch_only, out_dims, out_type
from hlotools.torch.lowering.elementwise import upcast
from hlotools.torch.lowering.reduction import LIMITS
from hlotools.torch.lowering.registry import FOLLOWS, lowers

aten = torch.ops.aten


def spatial(v: Sequence[int] | int | None, default: Sequence[int], n: int) -> list[int]:
    """A pooling argument per spatial dim (one int, or one of length 1, for all n)."""
    if v is None or (isinstance(v, list | tuple) and len(v) == 0):
        return list(default)
    if isinstance(v, int):
        return [v] * n
    return [v[0]] * n if len(v) == 1 else list(v[:n])


def batched(cx: Context, x: Value, n: int) -> Value:
    """x with a batch dim (an unbatched [C, *spatial] input gets one of size 1)."""
    return ops.reshape(cx.b, x, [1, *x.dims]) if x.rank == n + 1 else x


def _window_position(cx: Context, padded: Value, corner: Sequence[int], out: Sequence[int], stride: Sequence[int]) -> Value:
    """padded[..., corner + i*stride] for every output position i."""
    starts = [0, 0, *corner]
    limits = [*padded.dims[:2], *(c + (o - 1) * s + 1 for c, o, s in zip(corner, out, stride))]
    return ops.slice_(cx.b, padded, starts, limits, [1, 1, *stride])


def _pool_geometry(node: Call, n: int, first: int) -> tuple[list[int], list[int], list[int], list[int]]:
    kernel = spatial(node.args[first], [1] * n, n)
    stride = spatial(arg(node, first + 1, "stride"), kernel, n)
    padding = spatial(arg(node, first + 2, "padding"), [0] * n, n)
    dilation = spatial(arg(node, first + 3, "dilation"), [1] * n, n)
    return kernel, stride, padding, dilation


def _pads(x: Value, out: Sequence[int], kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int],
          dilation: Sequence[int]) -> list[tuple[int, int]]:
    """(low, high) per spatial dim so that every window of the `out` grid lies inside."""
    return [(p, max(0, (o - 1) * s + (k - 1) * d + 1 - n - p))
            for n, o, k, s, p, d in zip(x.dims[2:], out, kernel, stride, padding, dilation)]


def _flat_position(cx: Context, coords: Sequence[Value], sizes: Sequence[int]) -> Value:
    """The row-major index of `coords` in a grid of `sizes` (torch's max-pool indices)."""
    b = cx.b
    flat = coords[0]
    for c, n in zip(coords[1:], sizes[1:]):
        flat = ops.binary(b, "add", ops.binary(b, "multiply", flat, ops.constant(b, n, "s64")), c)
    return flat


def _input_coords(cx: Context, shape: Sequence[int], stride: Sequence[int], offset: Sequence[int]) -> list[Value]:
    """Per spatial dim d, output position i's input coordinate i*stride[d] + offset[d]."""
    b = cx.b
    return [ops.binary(b, "add", ops.binary(b, "multiply", ops.iota(b, "s64", shape, 2 + d), ops.constant(b, s, "s64")),
                       ops.constant(b, o, "s64")) for d, (s, o) in enumerate(zip(stride, offset))]


def max_pool_positions(cx: Context, x: Value, out: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
                       padding: Sequence[int], dilation: Sequence[int]) -> tuple[Value, Value]:
    """(values, flat indices into the spatial grid) of the max pool, torch's rules."""
    b = cx.b
    sizes = x.dims[2:]
    pads = _pads(x, out, kernel, stride, padding, dilation)
    padded = ops.pad(b, x, ops.constant(b, LIMITS[x.dtype][0], x.dtype), [0, 0, *(lo for lo, _ in pads)],
                     [0, 0, *(hi for _, hi in pads)])
    shape = [*x.dims[:2], *out]
    best = ops.full(b, LIMITS[x.dtype][0], x.dtype, shape)
    index = ops.full(b, -1, "s64", shape)
    for position in itertools.product(*(range(k) for k in kernel)):
        corner = [k * d for k, d in zip(position, dilation)]
        v = _window_position(cx, padded, corner, out, stride)
        coords = _input_coords(cx, shape, stride, [c - p for c, p in zip(corner, padding)])
        inside = _all(cx, [_in_range(cx, c, n) for c, n in zip(coords, sizes)])
        better = ops.binary(b, "or", ops.compare(b, "GT", v, best), ops.compare(b, "EQ", index, ops.constant(b, -1, "s64")))
        if x.dtype[0] in "fb":
            better = ops.binary(b, "or", better, ops.compare(b, "NE", v, v))
        take = _and(cx, inside, better)
        best = ops.select(b, take, v, best)
        index = ops.select(b, take, _flat_position(cx, coords, sizes), index)
    return best, index


def _and(cx: Context, x: Value, y: Value) -> Value:
    return ops.binary(cx.b, "and", x, y)


def _all(cx: Context, preds: Sequence[Value]) -> Value:
    out = preds[0]
    for p in preds[1:]:
        out = _and(cx, out, p)
    return out


def _in_range(cx: Context, i: Value, n: int) -> Value:
    b = cx.b
    return _and(cx, ops.compare(b, "GE", i, ops.constant(b, 0, "s64")), ops.compare(b, "LT", i, ops.constant(b, n, "s64")))


def _spatial_dims(node: Call) -> int:
    """2 or 3: the op's spatial dims (from its name: max_pool3d_..., avg_pool2d, ...)."""
    return 3 if "3d" in str(node.target) else 2


def _pooled(node: Call) -> str | None:
    x = node.args[0].meta["val"]
    n = _spatial_dims(node)
    if x.dim() not in (n + 1, n + 2) or x.numel() == 0:
        return f"only {n}-D pooling of non-empty inputs"
    return batch_only(node)


POOL_2D_3D = {"max": (aten.max_pool2d_with_indices.default, aten.max_pool3d_with_indices.default),
              "max_backward": (aten.max_pool2d_with_indices_backward.default,
                               aten.max_pool3d_with_indices_backward.default),
              "avg": (aten.avg_pool2d.default, aten.avg_pool3d.default),
              "avg_backward": (aten.avg_pool2d_backward.default, aten.avg_pool3d_backward.default),
              "adaptive": (aten._adaptive_avg_pool2d.default, aten._adaptive_avg_pool3d.default),
              "adaptive_backward": (aten._adaptive_avg_pool2d_backward.default,
                                    aten._adaptive_avg_pool3d_backward.default)}


@lowers(*POOL_2D_3D["max"], supports=_pooled, dynamic=FOLLOWS)
def max_pool(cx: Context, node: Call) -> list[Value]:
    n = _spatial_dims(node)
    x = batched(cx, cx.tensor(node.args[0]), n)
    kernel, stride, padding, dilation = _pool_geometry(node, n, 1)
    dims = out_dims(node, 0)
    values, index = max_pool_positions(cx, x, dims[-n:], kernel, stride, padding, dilation)
    return [ops.reshape(cx.b, values, dims), ops.reshape(cx.b, index, dims)]


def place(cx: Context, g: Value, corner: Sequence[int], stride: Sequence[int], size: Sequence[int]) -> Value:
    """g's element i at corner + i*stride of a zero `size` grid (corner entries may be
    negative: the pad crops)."""
    b = cx.b
    high = [n - (t + (o - 1) * s + 1) for n, t, o, s in zip(size, corner, g.dims[2:], stride)]
    return ops.pad(b, g, ops.constant(b, 0, g.dtype), [0, 0, *corner], [0, 0, *high], [0, 0, *(s - 1 for s in stride)])


@lowers(*POOL_2D_3D["max_backward"], supports=_pooled, dynamic=FOLLOWS)
def max_pool_backward(cx: Context, node: Call) -> Value:
    b = cx.b
    n = _spatial_dims(node)
    g0, x0 = cx.tensors(node.args[:2])
    g, x = upcast(cx, batched(cx, g0, n)), batched(cx, x0, n)
    kernel, stride, padding, dilation = _pool_geometry(node, n, 2)
    index = batched(cx, ops.convert(b, cx.tensor(node.args[7]), "s64"), n)
    sizes = x.dims[2:]
    total = ops.full(b, 0, g.dtype, x.dims)
    zero = ops.constant(b, 0, g.dtype)
    for position in itertools.product(*(range(k) for k in kernel)):
        corner = [k * d - p for k, d, p in zip(position, dilation, padding)]
        flat = _flat_position(cx, _input_coords(cx, g.dims, stride, corner), sizes)
        mine = ops.select(b, ops.compare(b, "EQ", index, flat), g, zero)
        total = ops.binary(b, "add", total, place(cx, mine, corner, stride, sizes))
    return ops.convert(b, ops.reshape(b, total, x0.dims), g0.dtype)


def _avg_geometry(node: Call, n: int, first: int) -> tuple[list[int], list[int], list[int], bool, object]:
    kernel = spatial(node.args[first], [1] * n, n)
    stride = spatial(arg(node, first + 1, "stride"), kernel, n)
    padding = spatial(arg(node, first + 2, "padding"), [0] * n, n)
    include = bool(arg(node, first + 4, "count_include_pad", True))
    return kernel, stride, padding, include, arg(node, first + 5, "divisor_override")


def avg_divisor(cx: Context, x: Value, out: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
                padding: Sequence[int], include: bool, override: object) -> Value:
    """Per output element, what torch divides its window's sum by: the override, or the
    window's count of elements inside the padded (count_include_pad) or real input."""
    b = cx.b
    if override:
        return ops.constant(b, override, x.dtype)  # type: ignore[arg-type]
    pads = _pads(x, out, kernel, stride, padding, [1] * len(kernel))
    if include:
        ones = ops.full(b, 1, x.dtype, [1, 1, *(n + 2 * p for n, p in zip(x.dims[2:], padding))])
        extra = [(0, max(0, hi - p)) for (_, hi), p in zip(pads, padding)]
    else:
        ones = ops.full(b, 1, x.dtype, [1, 1, *x.dims[2:]])
        extra = pads
    return window_sum(cx, ones, out, kernel, stride, extra)


def window_sum(cx: Context, x: Value, out: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
               pads: Sequence[tuple[int, int]]) -> Value:
    """Sums over the windows of the `out` grid (pads may reach past the last window: cropped)."""
    total = ops.reduce_window(cx.b, x, "add", 0, [1, 1, *kernel], [1, 1, *stride], [(0, 0), (0, 0), *pads])
    return ops.slice_(cx.b, total, [0] * x.rank, [*total.dims[:2], *out], [1] * x.rank)


@lowers(*POOL_2D_3D["avg"], supports=_pooled, dynamic=FOLLOWS)
def avg_pool(cx: Context, node: Call) -> Value:
    b = cx.b
    n = _spatial_dims(node)
    x = upcast(cx, batched(cx, cx.tensor(node.args[0]), n))
    kernel, stride, padding, include, override = _avg_geometry(node, n, 1)
    dims = out_dims(node)
    out = dims[-n:]
    total = window_sum(cx, x, out, kernel, stride, _pads(x, out, kernel, stride, padding, [1] * n))
    y = ops.binary(b, "divide", total, avg_divisor(cx, x, out, kernel, stride, padding, include, override))
    return ops.convert(b, ops.reshape(b, y, dims), out_type(node))


@lowers(*POOL_2D_3D["avg_backward"], supports=_pooled, dynamic=FOLLOWS)
def avg_pool_backward(cx: Context, node: Call) -> Value:
    b = cx.b
    n = _spatial_dims(node)
    g0, x0 = cx.tensors(node.args[:2])
    g, x = upcast(cx, batched(cx, g0, n)), upcast(cx, batched(cx, x0, n))
    kernel, stride, padding, include, override = _avg_geometry(node, n, 2)
    share = ops.binary(b, "divide", g, avg_divisor(cx, x, g.dims[2:], kernel, stride, padding, include, override))
    total = ops.full(b, 0, g.dtype, x.dims)
    for position in itertools.product(*(range(k) for k in kernel)):
        corner = [k - p for k, p in zip(position, padding)]
        total = ops.binary(b, "add", total, place(cx, share, corner, stride, x.dims[2:]))
    return ops.convert(b, ops.reshape(b, total, x0.dims), g0.dtype)


def adaptive_weights(cx: Context, n: int, out: int, dtype: str) -> Value:
    """[n, out]: 1/len(window j) where input i is in output j's window, torch's windows
    [floor(j*n/out), ceil((j+1)*n/out))."""
    b = cx.b
    i = ops.iota(b, "s64", [n, out], 0)
    j = ops.iota(b, "s64", [n, out], 1)
    c = lambda v: ops.constant(b, v, "s64")  # noqa: E731
    start = ops.binary(b, "divide", ops.binary(b, "multiply", j, c(n)), c(out))
    end = ops.binary(b, "divide", ops.binary(b, "add", ops.binary(b, "multiply", ops.binary(b, "add", j, c(1)), c(n)),
                                             c(out - 1)), c(out))
    inside = _and(cx, ops.compare(b, "GE", i, start), ops.compare(b, "LT", i, end))
    count = ops.convert(b, ops.binary(b, "subtract", end, start), dtype)
    return ops.select(b, inside, ops.binary(b, "divide", ops.constant(b, 1, dtype), count), ops.constant(b, 0, dtype))


def contract_spatial(cx: Context, x: Value, weights: Sequence[Value]) -> Value:
    """y[n, c, p, q, ...] = sum over the spatial dims of x[n, c, h, w, ...] * wh[h, p] * ww[w, q] * ...:
    one dot per spatial dim, that dim moved last and contracted."""
    b = cx.b
    for d, w in enumerate(weights):
        axis = 2 + d
        order = [a for a in range(x.rank) if a != axis] + [axis]
        moved = ops.transpose(b, x, order)
        rows = math.prod(moved.dims[:-1])
        y = ops.dot(b, ops.reshape(b, moved, [rows, moved.dims[-1]]), w)
        y = ops.reshape(b, y, [*moved.dims[:-1], w.dims[1]])
        x = ops.transpose(b, y, [order.index(a) for a in range(x.rank)])
    return x


@lowers(*POOL_2D_3D["adaptive"], supports=_pooled, dynamic=FOLLOWS)
def adaptive_avg_pool(cx: Context, node: Call) -> Value:
    n = _spatial_dims(node)
    x = upcast(cx, batched(cx, cx.tensor(node.args[0]), n))
    dims = out_dims(node)
    weights = [adaptive_weights(cx, size, out, x.dtype) for size, out in zip(x.dims[2:], dims[-n:])]
    return ops.convert(cx.b, ops.reshape(cx.b, contract_spatial(cx, x, weights), dims), out_type(node))


@lowers(*POOL_2D_3D["adaptive_backward"], supports=_pooled, dynamic=FOLLOWS)
def adaptive_avg_pool_backward(cx: Context, node: Call) -> Value:
    b = cx.b
    n = _spatial_dims(node)
    g0, x0 = cx.tensors(node.args[:2])
    g, x = upcast(cx, batched(cx, g0, n)), batched(cx, x0, n)
    weights = [ops.transpose(b, adaptive_weights(cx, size, out, g.dtype), [1, 0])
               for size, out in zip(x.dims[2:], g.dims[2:])]
    return ops.convert(b, ops.reshape(b, contract_spatial(cx, g, weights), x0.dims), g0.dtype)
