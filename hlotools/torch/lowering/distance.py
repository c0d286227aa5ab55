"""Pairwise distances: _cdist_forward (between the rows of two batches of matrices) and
_pdist_forward (between the rows of one matrix, the upper triangle), as torch's CPU kernels
compute them: p-norms of the differences (0: the count of nonzero ones, inf: the largest),
and for p = 2 on large inputs torch's matrix-product form (|x|^2 - 2 x.y + |y|^2, clamped at
0), whose rounding differs."""
from __future__ import annotations

import math

import torch

from hlotools.torch import ops
from hlotools.torch.builder import Value
from hlotools.torch.lowering.context import Call, Context, arg, out_type
from hlotools.torch.lowering.registry import lowers

aten = torch.ops.aten


def _p_norms(cx: Context, diff: Value, p: float) -> Value:
    """The p-norm of `diff` over its last dim."""
    b = cx.b
    magnitude = ops.unary(b, "abs", diff)
    last = [diff.rank - 1]
    if p == 0:
        nonzero = ops.convert(b, ops.compare(b, "NE", diff, ops.constant(b, 0, diff.dtype)), diff.dtype)
        return ops.reduce(b, nonzero, last, "add", 0)
    if math.isinf(p):
        return ops.reduce(b, magnitude, last, "maximum" if p > 0 else "minimum", 0.0 if p > 0 else float("inf"))
    if p == 1:
        return ops.reduce(b, magnitude, last, "add", 0)
    if p == 2:
        return ops.unary(b, "sqrt", ops.reduce(b, ops.binary(b, "multiply", diff, diff), last, "add", 0))
    total = ops.reduce(b, ops.binary(b, "power", magnitude, ops.constant(b, p, diff.dtype)), last, "add", 0)
    return ops.binary(b, "power", total, ops.constant(b, 1 / p, diff.dtype))


def _differences(cx: Context, x1: Value, x2: Value) -> Value:
    """[..., P, R, M]: x1[..., p, :] - x2[..., r, :]."""
    *batch, rows, m = x1.dims
    cols = x2.dims[-2]
    shape = [*batch, rows, cols, m]
    k = len(batch)
    a = ops.broadcast_in_dim(cx.b, x1, shape, [*range(k), k, k + 2])
    c = ops.broadcast_in_dim(cx.b, x2, shape, [*range(k), k + 1, k + 2])
    return ops.binary(cx.b, "subtract", a, c)


def _euclidean_by_products(cx: Context, x1: Value, x2: Value) -> Value:
    """torch's _euclidean_dist: [-2 x, |x|^2, 1] . [y, 1, |y|^2], clamped at 0, square root."""
    b = cx.b
    k = x1.rank - 2
    n1 = ops.reduce(b, ops.binary(b, "multiply", x1, x1), [k + 1], "add", 0, True)
    n2 = ops.reduce(b, ops.binary(b, "multiply", x2, x2), [k + 1], "add", 0, True)
    ones1, ones2 = ops.full(b, 1, x1.dtype, n1.dims), ops.full(b, 1, x2.dtype, n2.dims)
    left = ops.concatenate(b, [ops.binary(b, "multiply", x1, ops.constant(b, -2, x1.dtype)), n1, ones1], k + 1)
    right = ops.concatenate(b, [x2, ones2, n2], k + 1)
    product = ops.dot(b, left, ops.transpose(b, right, [*range(k), k + 1, k]), k)
    return ops.unary(b, "sqrt", ops.binary(b, "maximum", product, ops.constant(b, 0, product.dtype)))


def _float_rows(node: Call) -> str | None:
    tensors = [a.meta["val"] for a in node.args[:2] if hasattr(a, "meta")]
    if any(t.dtype not in (torch.float32, torch.float64) for t in tensors):
        return "only f32/f64 distances"
    return None if all(t.numel() > 0 for t in tensors) else "empty input"


@lowers(aten._cdist_forward.default, supports=_float_rows)
def cdist(cx: Context, node: Call) -> Value:
    """compute_mode None/0 takes the product form for p = 2 past 25 rows, 1 always, 2 never."""
    x1, x2 = cx.tensors(node.args[:2])
    p, mode = float(node.args[2]), arg(node, 3, "compute_mode")
    rows, cols = x1.dims[-2], x2.dims[-2]
    products = p == 2 and (mode == 1 or (mode in (None, 0) and (rows > 25 or cols > 25)))
    if x1.rank > 3 or x2.dims[:-2] != x1.dims[:-2]:
        batch = ops.broadcast_shape(x1.dims[:-2], x2.dims[:-2])
        x1 = ops.broadcast_to(cx.b, x1, [*batch, *x1.dims[-2:]])
        x2 = ops.broadcast_to(cx.b, x2, [*batch, *x2.dims[-2:]])
    y = _euclidean_by_products(cx, x1, x2) if products else _p_norms(cx, _differences(cx, x1, x2), p)
    return ops.convert(cx.b, y, out_type(node))


@lowers(aten._pdist_forward.default, supports=_float_rows)
def pdist(cx: Context, node: Call) -> Value:
    """Row i's distances to rows i+1.. in turn (the upper triangle, row-major)."""
    b = cx.b
    x = cx.tensor(node.args[0])
    n, m = x.dims
    if n < 2:
        return ops.full(b, 0, x.dtype, [0])
    distances = _p_norms(cx, _differences(cx, x, x), float(arg(node, 1, "p", 2)))
    pieces = [ops.reshape(b, ops.slice_(b, distances, [i, i + 1], [i + 1, n], [1, 1]), [n - 1 - i]) for i in range(n - 1)]
    return ops.concatenate(b, pieces, 0)
