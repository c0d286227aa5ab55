"""Pooling: max pool with indices and its backward, average pool and its backward,
adaptive average pool and its backward.

Windows are walked one kernel position at a time (a strided slice of the padded input per
position), which gives torch's exact index and tie rules (the first maximum, a NaN wins)
and lets the backward place each position's gradient back with one pad (interior
padding = stride - 1, negative edges crop)."""
from __future__ import annotations

import itertools
from collections.abc import Sequence

import torch

from hlotools.torch import ops
from hlotools.torch.builder import Value
from hlotools.torch.lowering.context import Call, Context, arg, batch_only, out_dims, out_type
from hlotools.torch.lowering.elementwise import upcast
from hlotools.torch.lowering.reduction import LIMITS
from hlotools.torch.lowering.registry import FOLLOWS, lowers

aten = torch.ops.aten


def pair(v: Sequence[int] | int | None, default: Sequence[int]) -> list[int]:
    if v is None or (isinstance(v, list | tuple) and len(v) == 0):
        return list(default)
    if isinstance(v, int):
        return [v, v]
    return [v[0], v[0]] if len(v) == 1 else [v[0], v[1]]


def as_4d(cx: Context, x: Value) -> Value:
    return ops.reshape(cx.b, x, [1, *x.dims]) if x.rank == 3 else x


def _window_position(cx: Context, padded: Value, top: int, left: int, out: Sequence[int], stride: Sequence[int]) -> Value:
    """padded[..., top + i*stride, left + j*stride] for every output (i, j)."""
    n, c = padded.dims[:2]
    starts = [0, 0, top, left]
    limits = [n, c, top + (out[0] - 1) * stride[0] + 1, left + (out[1] - 1) * stride[1] + 1]
    return ops.slice_(cx.b, padded, starts, limits, [1, 1, *stride])


def _pool_geometry(node: Call, x: Value, first: int) -> tuple[list[int], list[int], list[int], list[int]]:
    kernel = pair(node.args[first], [1, 1])
    stride = pair(arg(node, first + 1, "stride"), kernel)
    padding = pair(arg(node, first + 2, "padding"), [0, 0])
    dilation = pair(arg(node, first + 3, "dilation"), [1, 1])
    return kernel, stride, padding, dilation


def _pads(x: Value, out: Sequence[int], kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int],
          dilation: Sequence[int]) -> list[tuple[int, int]]:
    """(low, high) per spatial dim so that every window of the `out` grid lies inside."""
    return [(p, max(0, (o - 1) * s + (k - 1) * d + 1 - n - p))
            for n, o, k, s, p, d in zip(x.dims[2:], out, kernel, stride, padding, dilation)]


def max_pool_positions(cx: Context, x: Value, out: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
                       padding: Sequence[int], dilation: Sequence[int]) -> tuple[Value, Value]:
    """(values, flat indices into H*W) of the max pool, torch's rules."""
    b = cx.b
    h, w = x.dims[2:]
    pads = _pads(x, out, kernel, stride, padding, dilation)
    low, high = [0, 0, pads[0][0], pads[1][0]], [0, 0, pads[0][1], pads[1][1]]
    padded = ops.pad(b, x, ops.constant(b, LIMITS[x.dtype][0], x.dtype), low, high)
    shape = [*x.dims[:2], *out]
    row = ops.iota(b, "s64", shape, 2)
    col = ops.iota(b, "s64", shape, 3)
    best = ops.full(b, LIMITS[x.dtype][0], x.dtype, shape)
    index = ops.full(b, -1, "s64", shape)
    for kh, kw in itertools.product(range(kernel[0]), range(kernel[1])):
        top, left = kh * dilation[0], kw * dilation[1]
        v = _window_position(cx, padded, top, left, out, stride)
        r = ops.binary(b, "add", ops.binary(b, "multiply", row, ops.constant(b, stride[0], "s64")),
                       ops.constant(b, top - padding[0], "s64"))
        c = ops.binary(b, "add", ops.binary(b, "multiply", col, ops.constant(b, stride[1], "s64")),
                       ops.constant(b, left - padding[1], "s64"))
        inside = _and(cx, _in_range(cx, r, h), _in_range(cx, c, w))
        better = ops.binary(b, "or", ops.compare(b, "GT", v, best), ops.compare(b, "EQ", index, ops.constant(b, -1, "s64")))
        if x.dtype[0] in "fb":
            better = ops.binary(b, "or", better, ops.compare(b, "NE", v, v))
        take = _and(cx, inside, better)
        best = ops.select(b, take, v, best)
        flat = ops.binary(b, "add", ops.binary(b, "multiply", r, ops.constant(b, w, "s64")), c)
        index = ops.select(b, take, flat, index)
    return best, index


def _and(cx: Context, x: Value, y: Value) -> Value:
    return ops.binary(cx.b, "and", x, y)


def _in_range(cx: Context, i: Value, n: int) -> Value:
    b = cx.b
    return _and(cx, ops.compare(b, "GE", i, ops.constant(b, 0, "s64")), ops.compare(b, "LT", i, ops.constant(b, n, "s64")))


def _spatial_2d(node: Call) -> str | None:
    x = node.args[0].meta["val"]
    return None if x.dim() in (3, 4) and x.numel() > 0 else "only 2-D pooling of non-empty inputs"


def _spatial_2d_any_batch(node: Call) -> str | None:
    return _spatial_2d(node) or batch_only(node)


@lowers(aten.max_pool2d_with_indices.default, supports=_spatial_2d_any_batch, dynamic=FOLLOWS)
def max_pool2d(cx: Context, node: Call) -> list[Value]:
    x0 = cx.tensor(node.args[0])
    x = as_4d(cx, x0)
    kernel, stride, padding, dilation = _pool_geometry(node, x, 1)
    dims = out_dims(node, 0)
    values, index = max_pool_positions(cx, x, dims[-2:], kernel, stride, padding, dilation)
    return [ops.reshape(cx.b, values, dims), ops.reshape(cx.b, index, dims)]


def place(cx: Context, g: Value, top: int, left: int, stride: Sequence[int], size: Sequence[int]) -> Value:
    """g's element (i, j) at (top + i*stride, left + j*stride) of a zero `size` grid (top
    and left may be negative: the pad crops)."""
    b = cx.b
    low = [0, 0, top, left]
    high = [0, 0, *(n - (t + (o - 1) * s + 1) for n, t, o, s in zip(size, (top, left), g.dims[2:], stride))]
    return ops.pad(b, g, ops.constant(b, 0, g.dtype), low, high, [0, 0, stride[0] - 1, stride[1] - 1])


@lowers(aten.max_pool2d_with_indices_backward.default, supports=_spatial_2d_any_batch, dynamic=FOLLOWS)
def max_pool2d_backward(cx: Context, node: Call) -> Value:
    b = cx.b
    g0, x0 = cx.tensors(node.args[:2])
    g, x = upcast(cx, as_4d(cx, g0)), as_4d(cx, x0)
    kernel, stride, padding, dilation = _pool_geometry(node, x, 2)
    index = as_4d(cx, ops.convert(b, cx.tensor(node.args[7]), "s64"))
    h, w = x.dims[2:]
    row = ops.iota(b, "s64", g.dims, 2)
    col = ops.iota(b, "s64", g.dims, 3)
    total = ops.full(b, 0, g.dtype, [*x.dims[:2], h, w])
    zero = ops.constant(b, 0, g.dtype)
    for kh, kw in itertools.product(range(kernel[0]), range(kernel[1])):
        top, left = kh * dilation[0] - padding[0], kw * dilation[1] - padding[1]
        r = ops.binary(b, "add", ops.binary(b, "multiply", row, ops.constant(b, stride[0], "s64")), ops.constant(b, top, "s64"))
        c = ops.binary(b, "add", ops.binary(b, "multiply", col, ops.constant(b, stride[1], "s64")), ops.constant(b, left, "s64"))
        flat = ops.binary(b, "add", ops.binary(b, "multiply", r, ops.constant(b, w, "s64")), c)
        mine = ops.select(b, ops.compare(b, "EQ", index, flat), g, zero)
        total = ops.binary(b, "add", total, place(cx, mine, top, left, stride, (h, w)))
    return ops.convert(b, ops.reshape(b, total, x0.dims), g0.dtype)


def _avg_geometry(node: Call, first: int) -> tuple[list[int], list[int], list[int], bool, object]:
    kernel = pair(node.args[first], [1, 1])
    stride = pair(arg(node, first + 1, "stride"), kernel)
    padding = pair(arg(node, first + 2, "padding"), [0, 0])
    include = bool(arg(node, first + 4, "count_include_pad", True))
    return kernel, stride, padding, include, arg(node, first + 5, "divisor_override")


def avg_divisor(cx: Context, x: Value, out: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
                padding: Sequence[int], include: bool, override: object) -> Value:
    """Per output element, what torch divides its window's sum by: the override, or the
    window's count of elements inside the padded (count_include_pad) or real input."""
    b = cx.b
    if override:
        return ops.constant(b, override, x.dtype)  # type: ignore[arg-type]
    pads = _pads(x, out, kernel, stride, padding, [1, 1])
    h, w = x.dims[2:]
    if include:
        ones = ops.full(b, 1, x.dtype, [1, 1, h + 2 * padding[0], w + 2 * padding[1]])
        extra = [(0, max(0, hi - p)) for (_, hi), p in zip(pads, padding)]
    else:
        ones = ops.full(b, 1, x.dtype, [1, 1, h, w])
        extra = pads
    return window_sum(cx, ones, out, kernel, stride, extra)


def window_sum(cx: Context, x: Value, out: Sequence[int], kernel: Sequence[int], stride: Sequence[int],
               pads: Sequence[tuple[int, int]]) -> Value:
    """Sums over the windows of the `out` grid (pads may reach past the last window: cropped)."""
    total = ops.reduce_window(cx.b, x, "add", 0, [1, 1, *kernel], [1, 1, *stride], [(0, 0), (0, 0), *pads])
    return ops.slice_(cx.b, total, [0] * 4, [*total.dims[:2], *out], [1] * 4)


@lowers(aten.avg_pool2d.default, supports=_spatial_2d_any_batch, dynamic=FOLLOWS)
def avg_pool2d(cx: Context, node: Call) -> Value:
    b = cx.b
    x0 = cx.tensor(node.args[0])
    x = upcast(cx, as_4d(cx, x0))
    kernel, stride, padding, include, override = _avg_geometry(node, 1)
    dims = out_dims(node)
    out = dims[-2:]
    pads = _pads(x, out, kernel, stride, padding, [1, 1])
    total = window_sum(cx, x, out, kernel, stride, pads)
    y = ops.binary(b, "divide", total, avg_divisor(cx, x, out, kernel, stride, padding, include, override))
    return ops.convert(b, ops.reshape(b, y, dims), out_type(node))


@lowers(aten.avg_pool2d_backward.default, supports=_spatial_2d_any_batch, dynamic=FOLLOWS)
def avg_pool2d_backward(cx: Context, node: Call) -> Value:
    b = cx.b
    g0, x0 = cx.tensors(node.args[:2])
    g, x = upcast(cx, as_4d(cx, g0)), upcast(cx, as_4d(cx, x0))
    kernel, stride, padding, include, override = _avg_geometry(node, 2)
    share = ops.binary(b, "divide", g, avg_divisor(cx, x, g.dims[2:], kernel, stride, padding, include, override))
    h, w = x.dims[2:]
    total = ops.full(b, 0, g.dtype, x.dims)
    for kh, kw in itertools.product(range(kernel[0]), range(kernel[1])):
        total = ops.binary(b, "add", total, place(cx, share, kh - padding[0], kw - padding[1], stride, (h, w)))
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


def _contract_last_two(cx: Context, x: Value, wh: Value, ww: Value) -> Value:
    """y[n, c, p, q] = sum_{h, w} x[n, c, h, w] * wh[h, p] * ww[w, q]."""
    b = cx.b
    n, c, h, w = x.dims
    p, q = wh.dims[1], ww.dims[1]
    y = ops.dot(b, ops.reshape(b, x, [n * c * h, w]), ww)
    y = ops.transpose(b, ops.reshape(b, y, [n, c, h, q]), [0, 1, 3, 2])
    y = ops.dot(b, ops.reshape(b, y, [n * c * q, h]), wh)
    return ops.transpose(b, ops.reshape(b, y, [n, c, q, p]), [0, 1, 3, 2])


@lowers(aten._adaptive_avg_pool2d.default, supports=_spatial_2d_any_batch, dynamic=FOLLOWS)
def adaptive_avg_pool2d(cx: Context, node: Call) -> Value:
    x0 = cx.tensor(node.args[0])
    x = upcast(cx, as_4d(cx, x0))
    dims = out_dims(node)
    p, q = dims[-2:]
    h, w = x.dims[2:]
    y = _contract_last_two(cx, x, adaptive_weights(cx, h, p, x.dtype), adaptive_weights(cx, w, q, x.dtype))
    return ops.convert(cx.b, ops.reshape(cx.b, y, dims), out_type(node))


@lowers(aten._adaptive_avg_pool2d_backward.default, supports=_spatial_2d_any_batch, dynamic=FOLLOWS)
def adaptive_avg_pool2d_backward(cx: Context, node: Call) -> Value:
    b = cx.b
    g0, x0 = cx.tensors(node.args[:2])
    g, x = upcast(cx, as_4d(cx, g0)), as_4d(cx, x0)
    h, w = x.dims[2:]
    p, q = g.dims[2:]
    wh = ops.transpose(b, adaptive_weights(cx, h, p, g.dtype), [1, 0])
    ww = ops.transpose(b, adaptive_weights(cx, w, q, g.dtype), [1, 0])
    return ops.convert(b, ops.reshape(b, _contract_last_two(cx, g, wh, ww), x0.dims), g0.dtype)
