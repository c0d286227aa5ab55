"""Normalisations, dropout and attention: the ATen ops of torch.nn layers that stay whole
after the core-ATen decompositions (batch norm in training and eval, layer norm, group
norm, dropout, the backward of CPU flash attention). f16/bf16 run in f32 and round once."""
from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from hlotools.torch import ops
from hlotools.torch.builder import Value
from hlotools.torch.lowering.context import Call, Context, batch_only, out_dims, out_type
from hlotools.torch.lowering.elementwise import upcast
from hlotools.torch.lowering.registry import FOLLOWS, lowers

aten = torch.ops.aten


def _channel(cx: Context, v: Value, like: Value, axis: int = 1) -> Value:
    """A per-channel vector broadcast along `axis` of `like`."""
    return ops.broadcast_in_dim(cx.b, ops.convert(cx.b, v, like.dtype), like.dims, [axis])


def _affine(cx: Context, y: Value, weight: object, bias: object, axis: int = 1) -> Value:
    if weight is not None:
        y = ops.binary(cx.b, "multiply", y, _channel(cx, cx.tensor(weight), y, axis))
    if bias is not None:
        y = ops.binary(cx.b, "add", y, _channel(cx, cx.tensor(bias), y, axis))
    return y


def moments(cx: Context, x: Value, axes: Sequence[int], count: Value | None = None) -> tuple[Value, Value]:
    """(mean, biased variance) over `axes`, both with the axes kept as size 1; `count` is
    their number of elements where it is only known at run time."""
    b = cx.b
    if count is None:
        count = ops.constant(b, math.prod(x.dims[a] for a in axes), x.dtype)
    mean = ops.binary(b, "divide", ops.reduce(b, x, axes, "add", 0, True), count)
    d = ops.binary(b, "subtract", x, mean)
    var = ops.binary(b, "divide", ops.reduce(b, ops.binary(b, "multiply", d, d), axes, "add", 0, True), count)
    return mean, var


def _rstd(cx: Context, var: Value, eps: float) -> Value:
    return ops.unary(cx.b, "rsqrt", ops.binary(cx.b, "add", var, ops.constant(cx.b, eps, var.dtype)))


def _normalise_eval(cx: Context, x: Value, mean: Value, var: Value, eps: float) -> Value:
    centred = ops.binary(cx.b, "subtract", x, _channel(cx, mean, x))
    return ops.binary(cx.b, "multiply", centred, _channel(cx, _rstd(cx, ops.convert(cx.b, var, x.dtype), eps), x))


def _empty_like_meta(cx: Context, node: Call, index: int) -> Value:
    return ops.full(cx.b, 0, out_type(node, index), out_dims(node, index))


@lowers(aten._native_batch_norm_legit_no_training.default, supports=batch_only, dynamic=FOLLOWS)
def batch_norm_eval(cx: Context, node: Call) -> list[Value]:
    x0 = cx.tensor(node.args[0])
    x = upcast(cx, x0)
    mean, var = cx.tensors(node.args[3:5])
    y = _affine(cx, _normalise_eval(cx, x, mean, var, float(node.args[6])), node.args[1], node.args[2])
    return [ops.convert(cx.b, y, x0.dtype), _empty_like_meta(cx, node, 1), _empty_like_meta(cx, node, 2)]


@lowers(aten._native_batch_norm_legit_functional.default, supports=batch_only, dynamic=FOLLOWS)
def batch_norm_functional(cx: Context, node: Call) -> list[Value]:
    """(out, saved mean, saved rstd, new running mean, new running var): in training the
    batch's statistics normalise and the running ones move by `momentum` (the variance
    unbiased, as torch keeps it)."""
    b = cx.b
    x0 = cx.tensor(node.args[0])
    x = upcast(cx, x0)
    running_mean, running_var = cx.tensors(node.args[3:5])
    training, momentum, eps = bool(node.args[5]), float(node.args[6]), float(node.args[7])
    if not training:
        y = _affine(cx, _normalise_eval(cx, x, running_mean, running_var, eps), node.args[1], node.args[2])
        return [ops.convert(b, y, x0.dtype), _empty_like_meta(cx, node, 1), _empty_like_meta(cx, node, 2),
                running_mean, running_var]
    axes = [0, *range(2, x.rank)]
    y, flat_mean, flat_rstd, flat_var = _batch_statistics_norm(cx, node, x, eps)
    unbiased = ops.binary(b, "multiply", flat_var, _bessel(cx, node.args[0], axes, x.dtype))
    return [ops.convert(b, y, x0.dtype), ops.convert(b, flat_mean, out_type(node, 1)),
            ops.convert(b, flat_rstd, out_type(node, 2)),
            _moved(cx, running_mean, flat_mean, momentum), _moved(cx, running_var, unbiased, momentum)]


def _batch_statistics_norm(cx: Context, node: Call, x: Value, eps: float) -> tuple[Value, Value, Value, Value]:
    """(x normalised by its batch's per-channel statistics and the affine, mean, rstd,
    biased variance), the statistics as [C] vectors."""
    b = cx.b
    axes = [0, *range(2, x.rank)]
    mean, var = moments(cx, x, axes, cx.count(node.args[0], axes, x.dtype))
    rstd = _rstd(cx, var, eps)
    y = _affine(cx, ops.binary(b, "multiply", ops.binary(b, "subtract", x, mean), rstd), node.args[1], node.args[2])
    c = x.dims[1]
    return y, ops.reshape(b, mean, [c]), ops.reshape(b, rstd, [c]), ops.reshape(b, var, [c])


def _training_batch_only(node: Call) -> str | None:
    return batch_only(node) or (None if node.args[3] else "no statistics outside training")


@lowers(aten._native_batch_norm_legit.no_stats, supports=_training_batch_only, dynamic=FOLLOWS)
def batch_norm_no_stats(cx: Context, node: Call) -> list[Value]:
    """Batch norm without running statistics (track_running_stats=False, instance norm):
    (out, saved mean, saved rstd) of the batch's statistics."""
    x0 = cx.tensor(node.args[0])
    y, mean, rstd, _ = _batch_statistics_norm(cx, node, upcast(cx, x0), float(node.args[5]))
    return [ops.convert(cx.b, y, x0.dtype), ops.convert(cx.b, mean, out_type(node, 1)),
            ops.convert(cx.b, rstd, out_type(node, 2))]


def _bessel(cx: Context, x: object, axes: list[int], dtype: str) -> Value:
    """n / (n - 1) for the unbiased variance, in f64 and rounded once (as torch's constant)."""
    n = cx.count(x, axes, "f64")
    one = ops.constant(cx.b, 1, "f64")
    factor = ops.binary(cx.b, "divide", n, ops.binary(cx.b, "maximum", ops.binary(cx.b, "subtract", n, one), one))
    return ops.convert(cx.b, factor, dtype)


def _moved(cx: Context, running: Value, batch: Value, momentum: float) -> Value:
    b = cx.b
    r = ops.convert(b, running, batch.dtype)
    kept = ops.binary(b, "multiply", r, ops.constant(b, 1 - momentum, r.dtype))
    new = ops.binary(b, "add", kept, ops.binary(b, "multiply", batch, ops.constant(b, momentum, r.dtype)))
    return ops.convert(b, new, running.dtype)


@lowers(aten.native_layer_norm.default, dynamic=FOLLOWS)
def layer_norm(cx: Context, node: Call) -> list[Value]:
    """The statistics count the normalized dims at run time (a symbolic one too: the padder
    masks the reductions over it)."""
    b = cx.b
    x0 = cx.tensor(node.args[0])
    x = upcast(cx, x0)
    k = len(node.args[1])
    axes = list(range(x.rank - k, x.rank))
    mean, var = moments(cx, x, axes, cx.count(node.args[0], axes, x.dtype))
    rstd = _rstd(cx, var, float(node.args[4]))
    y = ops.binary(b, "multiply", ops.binary(b, "subtract", x, mean), rstd)
    for operand, opcode in ((node.args[2], "multiply"), (node.args[3], "add")):
        if operand is not None:
            v = ops.convert(b, cx.tensor(operand), x.dtype)
            y = ops.binary(b, opcode, y, ops.broadcast_in_dim(b, v, y.dims, axes))
    return [ops.convert(b, y, x0.dtype), ops.convert(b, mean, out_type(node, 1)),
            ops.convert(b, rstd, out_type(node, 2))]


@lowers(aten.native_group_norm.default)
def group_norm(cx: Context, node: Call) -> list[Value]:
    b = cx.b
    x0 = cx.tensor(node.args[0])
    x = upcast(cx, x0)
    n, groups, eps = int(node.args[3]), int(node.args[6]), float(node.args[7])
    grouped = ops.reshape(b, x, [n, groups, math.prod(x.dims) // (n * groups)])
    mean, var = moments(cx, grouped, [2])
    rstd = _rstd(cx, var, eps)
    y = ops.reshape(b, ops.binary(b, "multiply", ops.binary(b, "subtract", grouped, mean), rstd), x.dims)
    y = _affine(cx, y, node.args[1], node.args[2])
    return [ops.convert(b, y, x0.dtype), ops.convert(b, ops.reshape(b, mean, [n, groups]), out_type(node, 1)),
            ops.convert(b, ops.reshape(b, rstd, [n, groups]), out_type(node, 2))]


def _plain_attention(node: Call) -> str | None:
    q, k = node.args[1].meta["val"], node.args[2].meta["val"]
    if float(node.args[6]) != 0.0:
        return "attention dropout"
    return None if q.dim() == 4 and q.shape[1] == k.shape[1] else "grouped-query or non-4-D attention"


@lowers(aten._scaled_dot_product_flash_attention_for_cpu_backward.default, supports=_plain_attention)
def flash_attention_backward(cx: Context, node: Call) -> list[Value]:
    """Gradients of softmax(q k^T * scale + mask) v, the probabilities recomputed from q and k."""
    b = cx.b
    g0, q0, k0, v0 = cx.tensors(node.args[:4])
    g, q, k, v = (upcast(cx, t) for t in (g0, q0, k0, v0))
    bh, length, source = q.dims[0] * q.dims[1], q.dims[2], k.dims[2]
    scale = node.kwargs.get("scale") or 1 / math.sqrt(q.dims[3])
    flat = lambda t: ops.reshape(b, t, [bh, t.dims[2], t.dims[3]])  # noqa: E731
    gq, qq, kk, vv = flat(g), flat(q), flat(k), flat(v)
    kt = ops.transpose(b, kk, [0, 2, 1])
    s = ops.binary(b, "multiply", ops.dot(b, qq, kt, 1), ops.constant(b, scale, q.dtype))
    mask = node.kwargs.get("attn_mask")
    if mask is not None:
        m = cx.tensor(mask)
        m = ops.reshape(b, ops.broadcast_to(b, m, [q.dims[0], q.dims[1], length, source]), [bh, length, source])
        s = ops.binary(b, "add", s, upcast(cx, ops.convert(b, m, q.dtype)) if m.dtype != "pred" else
                       ops.select(b, m, ops.constant(b, 0.0, q.dtype), ops.constant(b, float("-inf"), q.dtype)))
    if node.args[7]:
        keep = ops.compare(b, "LE", ops.iota(b, "s64", [bh, length, source], 2), ops.iota(b, "s64", [bh, length, source], 1))
        s = ops.select(b, keep, s, ops.constant(b, float("-inf"), q.dtype))
    shifted = ops.binary(b, "subtract", s, ops.reduce(b, s, [2], "maximum", float("-inf"), True))
    e = ops.unary(b, "exponential", shifted)
    p = ops.binary(b, "divide", e, ops.reduce(b, e, [2], "add", 0, True))
    dv = ops.dot(b, ops.transpose(b, p, [0, 2, 1]), gq, 1)
    dp = ops.dot(b, gq, ops.transpose(b, vv, [0, 2, 1]), 1)
    row = ops.reduce(b, ops.binary(b, "multiply", dp, p), [2], "add", 0, True)
    ds = ops.binary(b, "multiply", p, ops.binary(b, "subtract", dp, row))
    ds = ops.binary(b, "multiply", ds, ops.constant(b, scale, q.dtype))
    dq = ops.dot(b, ds, kk, 1)
    dk = ops.dot(b, ops.transpose(b, ds, [0, 2, 1]), qq, 1)
    return [ops.convert(b, ops.reshape(b, d, t.dims), t.dtype) for d, t in ((dq, q0), (dk, k0), (dv, v0))]
