"""Matrix products and convolutions, forward and backward (convolution_backward as XLA's
own autodiff writes it: the input gradient a convolution of the output gradient with the
flipped kernel over a dilated base, the kernel gradient a convolution of the input with the
output gradient as kernel). f16/bf16 run in f32 and round once, as eager's CPU does."""
from __future__ import annotations

from collections.abc import Sequence

import torch

from hlotools.torch import ops
from hlotools.torch.builder import Value, ints
from hlotools.torch.lowering.context import Call, Context, batch_only, out_dims, out_type
from hlotools.torch.lowering.elementwise import upcast
from hlotools.torch.lowering.registry import FOLLOWS, lowers

aten = torch.ops.aten


def _matmul(cx: Context, x: Value, y: Value, batch: int, ct: str) -> Value:
    x, y = upcast(cx, ops.convert(cx.b, x, ct)), upcast(cx, ops.convert(cx.b, y, ct))
    return ops.dot(cx.b, x, y, batch)


def _no_bool(node: Call) -> str | None:
    return "bool matmul" if out_type(node) == "pred" else None


@lowers(aten.mm.default, aten.bmm.default, supports=_no_bool, dynamic=FOLLOWS)
def mm(cx: Context, node: Call) -> Value:
    x, y = cx.tensors(node.args[:2])
    return ops.convert(cx.b, _matmul(cx, x, y, x.rank - 2, out_type(node)), out_type(node))


@lowers(aten.addmm.default, supports=_no_bool, dynamic=FOLLOWS)
def addmm(cx: Context, node: Call) -> Value:
    b, ct = cx.b, out_type(node)
    bias, x, y = cx.tensors(node.args[:3])
    prod = _matmul(cx, x, y, x.rank - 2, ct)
    alpha, beta = node.kwargs.get("alpha", 1), node.kwargs.get("beta", 1)
    if alpha != 1:
        prod = ops.binary(b, "multiply", prod, ops.constant(b, alpha, prod.dtype))
    if beta == 0:  # torch ignores the bias (NaN included) when beta is 0
        return ops.convert(b, prod, ct)
    bias = upcast(cx, ops.convert(b, bias, ct))
    if beta != 1:
        bias = ops.binary(b, "multiply", bias, ops.constant(b, beta, bias.dtype))
    return ops.convert(b, ops.binary(b, "add", prod, bias), ct)


def _labels(spatial: int) -> str:
    s = "".join(str(i) for i in range(spatial))
    return f"bf{s}_oi{s}->bf{s}"


def conv(cx: Context, x: Value, w: Value, out: Sequence[int], stride: Sequence[int],
         pads: Sequence[tuple[int, int]], lhs_dilate: Sequence[int], rhs_dilate: Sequence[int], groups: int,
         labels: str | None = None) -> Value:
    spatial = x.rank - 2
    window = ops.window_text(w.dims[2:] if labels is None else _kernel_window(labels, w), stride, pads,
                             lhs_dilate, rhs_dilate)
    group = f", feature_group_count={groups}" if groups != 1 else ""
    return cx.b.emit("convolution", [x, w], x.dtype, out, f"{window}, dim_labels={labels or _labels(spatial)}{group}")


def _kernel_window(labels: str, w: Value) -> list[int]:
    kernel = labels.split("_")[1].split("->")[0]
    return [w.dims[kernel.index(str(i))] for i in range(len(kernel) - 2)]


def flipped_kernel(cx: Context, w: Value, groups: int) -> Value:
    """torch's [A, B/groups, k...] kernel as the [B, A/groups, k...] kernel of the transposed
    direction, spatially reversed (XLA's transpose of a convolution)."""
    a, bg, k = w.dims[0], w.dims[1], w.dims[2:]
    g = groups
    w = ops.reshape(cx.b, w, [g, a // g, bg, *k])
    w = ops.transpose(cx.b, w, [0, 2, 1, *range(3, 3 + len(k))])
    w = ops.reshape(cx.b, w, [g * bg, a // g, *k])
    spatial = list(range(2, 2 + len(k)))
    return cx.b.emit("reverse", [w], w.dtype, w.dims, f"dimensions={ints(spatial)}")


def _conv_args(node: Call, first: int) -> tuple[list[int], list[int], list[int], bool, list[int], int]:
    a = node.args
    return list(a[first]), list(a[first + 1]), list(a[first + 2]), bool(a[first + 3]), list(a[first + 4]), int(a[first + 5])


def _conv_supported(node: Call) -> str | None:
    x = node.args[0].meta["val"]  # type: ignore[union-attr]
    if x.dim() < 3 or x.dtype not in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        return "only float convolutions with batch and feature dims"
    return None


def transposed_input_pads(size: Sequence[int], k: Sequence[int], stride: Sequence[int], padding: Sequence[int],
                          dilation: Sequence[int], out: Sequence[int]) -> list[tuple[int, int]]:
    """Pads of the transposed convolution that maps a `size` output back to `out` input."""
    pads = []
    for n, kk, s, p, d, o in zip(size, k, stride, padding, dilation, out):
        lo = d * (kk - 1) - p
        base = (n - 1) * s + 1
        pads.append((lo, o - base - lo + d * (kk - 1)))
    return pads


def _conv_of_any_batch(node: Call) -> str | None:
    return _conv_supported(node) or batch_only(node)


@lowers(aten.convolution.default, supports=_conv_of_any_batch, dynamic=FOLLOWS)
def convolution(cx: Context, node: Call) -> Value:
    b, ct = cx.b, out_type(node)
    x, w = (upcast(cx, cx.tensor(a)) for a in node.args[:2])
    stride, padding, dilation, transposed, output_padding, groups = _conv_args(node, 3)
    spatial = x.rank - 2
    out = out_dims(node)
    if transposed:
        k = w.dims[2:]
        pads = [(d * (kk - 1) - p, d * (kk - 1) - p + op)
                for kk, p, d, op in zip(k, padding, dilation, output_padding)]
        y = conv(cx, x, flipped_kernel(cx, w, groups), out, [1] * spatial, pads, stride, dilation, groups)
    else:
        y = conv(cx, x, w, out, stride, [(p, p) for p in padding], [1] * spatial, dilation, groups)
    if node.args[2] is not None:
        bias = upcast(cx, cx.tensor(node.args[2]))
        y = ops.binary(b, "add", y, ops.broadcast_in_dim(b, bias, y.dims, [1]))
    return ops.convert(b, y, ct)


def _backward_supported(node: Call) -> str | None:
    return _conv_supported(node) or ("transposed convolution backward" if node.args[7] else None)


def _backward_of_any_batch(node: Call) -> str | None:
    return _backward_supported(node) or batch_only(node)


@lowers(aten.convolution_backward.default, supports=_backward_of_any_batch, dynamic=FOLLOWS)
def convolution_backward(cx: Context, node: Call) -> list[Value | None]:
    g0, x0, w0 = cx.tensors(node.args[:3])
    g, x, w = upcast(cx, g0), upcast(cx, x0), upcast(cx, w0)
    stride, padding, dilation, _, _, groups = _conv_args(node, 4)
    mask = list(node.args[10])
    spatial = x.rank - 2
    results: list[Value | None] = [None, None, None]
    if mask[0]:
        pads = transposed_input_pads(g.dims[2:], w.dims[2:], stride, padding, dilation, x.dims[2:])
        gi = conv(cx, g, flipped_kernel(cx, w, groups), x.dims, [1] * spatial, pads, stride, dilation, groups)
        results[0] = ops.convert(cx.b, gi, x0.dtype)
    if mask[1]:
        results[1] = ops.convert(cx.b, _weight_grad(cx, g, x, w, stride, padding, dilation, groups), w0.dtype)
    if mask[2]:
        axes = [0, *range(2, g.rank)]
        results[2] = ops.convert(cx.b, ops.reduce(cx.b, g, axes, "add", 0), g0.dtype)
    return results


def _weight_grad(cx: Context, g: Value, x: Value, w: Value, stride: Sequence[int], padding: Sequence[int],
                 dilation: Sequence[int], groups: int) -> Value:
    """dw[o, i, k] = sum over batch and positions of x[n, i, pos*stride + k*dilation - pad] * g[n, o, pos]:
    a convolution with the batch as the contracted feature, the output gradient as kernel,
    stride and dilation swapped; one per group."""
    spatial = x.rank - 2
    s = "".join(str(i) for i in range(spatial))
    labels = f"fb{s}_io{s}->fb{s}"
    k = w.dims[2:]
    pads = []
    for n, o, kk, st, p, d in zip(x.dims[2:], g.dims[2:], k, stride, padding, dilation):
        pads.append((p, (kk - 1) * d + (o - 1) * st + 1 - n - p))
    cin, cout = x.dims[1] // groups, g.dims[1] // groups
    parts = []
    for group in range(groups):
        xs = _channels(cx, x, group * cin, cin)
        gs = _channels(cx, g, group * cout, cout)
        parts.append(conv(cx, xs, gs, [cout, cin, *k], dilation, pads, [1] * spatial, stride, 1, labels))
    return ops.concatenate(cx.b, parts, 0)


def _channels(cx: Context, x: Value, start: int, count: int) -> Value:
    limits = list(x.dims)
    limits[1] = start + count
    starts = [0] * x.rank
    starts[1] = start
    return ops.slice_(cx.b, x, starts, limits, [1] * x.rank)
