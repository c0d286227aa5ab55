"""Reductions: sums and means (f16/bf16 accumulate in f32, as eager's CPU kernels do),
extrema with their indices (first index of the extreme; NaN wins, as in torch), any,
variance, softmax and log-softmax, cumulative sums."""
from __future__ import annotations

from collections.abc import Sequence

import torch

from hlotools.torch import ops
from hlotools.torch.builder import Builder, Value
from hlotools.torch.lowering.context import Call, Context, arg, out_dims, out_type
from hlotools.torch.lowering.elementwise import upcast
from hlotools.torch.lowering.registry import FOLLOWS, lowers

aten = torch.ops.aten

LIMITS = {"f16": (float("-inf"), float("inf")), "bf16": (float("-inf"), float("inf")),
          "f32": (float("-inf"), float("inf")), "f64": (float("-inf"), float("inf")),
          "s8": (-2**7, 2**7 - 1), "s16": (-2**15, 2**15 - 1), "s32": (-2**31, 2**31 - 1),
          "s64": (-2**63, 2**63 - 1), "u8": (0, 255), "pred": (False, True)}


def axes_of(x: Value, dims: Sequence[int] | int | None) -> list[int]:
    """The reduced axes: None or [] mean all of them (torch's convention)."""
    if dims is None or (isinstance(dims, list | tuple) and len(dims) == 0):
        return list(range(x.rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({d % max(x.rank, 1) for d in dims}) if x.rank else []


def _count(x: Value, axes: list[int]) -> int:
    n = 1
    for a in axes:
        n *= x.dims[a]
    return n


def _sum(cx: Context, node: Call, mean: bool) -> Value:
    ct = out_type(node)
    x = upcast(cx, ops.convert(cx.b, cx.tensor(node.args[0]), ct))
    axes = axes_of(x, arg(node, 1, "dim") if node.target != aten.mean.default else None)
    keep = bool(arg(node, 2, "keepdim", False))
    s = ops.reduce(cx.b, x, axes, "add", 0, keep)
    if mean:
        s = ops.binary(cx.b, "divide", s, cx.count(node.args[0], axes, s.dtype))
    return ops.convert(cx.b, s, ct)


@lowers(aten.sum.dim_IntList, dynamic=FOLLOWS)
def sum_(cx: Context, node: Call) -> Value:
    return _sum(cx, node, mean=False)


def _float_only(node: Call) -> str | None:
    return None if out_type(node)[0] in "fbc" else "integer input"


@lowers(aten.mean.dim, aten.mean.default, supports=_float_only, dynamic=FOLLOWS)
def mean(cx: Context, node: Call) -> Value:
    return _sum(cx, node, mean=True)


@lowers(aten.prod.dim_int, aten.prod.default, dynamic=FOLLOWS)
def prod(cx: Context, node: Call) -> Value:
    ct = out_type(node)
    x = upcast(cx, ops.convert(cx.b, cx.tensor(node.args[0]), ct))
    dims = arg(node, 1, "dim") if node.target == aten.prod.dim_int else None
    return ops.convert(cx.b, ops.reduce(cx.b, x, axes_of(x, dims), "multiply", 1, bool(arg(node, 2, "keepdim", False))), ct)


def _extreme(cx: Context, x: Value, axes: list[int], biggest: bool, keepdim: bool) -> Value:
    """HLO's maximum/minimum propagate NaN, as torch's amax/amin/max/min do."""
    init = LIMITS[x.dtype][0 if biggest else 1]
    return ops.reduce(cx.b, x, axes, "maximum" if biggest else "minimum", init, keepdim)


@lowers(aten.amax.default, aten.amin.default, dynamic=FOLLOWS)
def amax(cx: Context, node: Call) -> Value:
    x = cx.tensor(node.args[0])
    return _extreme(cx, x, axes_of(x, arg(node, 1, "dim")), node.target == aten.amax.default,
                    bool(arg(node, 2, "keepdim", False)))


def _not_empty(node: Call) -> str | None:
    return None if node.args[0].meta["val"].numel() > 0 else "empty input"  # torch raises


@lowers(aten.max.default, aten.min.default, supports=_not_empty, dynamic=FOLLOWS)
def max_all(cx: Context, node: Call) -> Value:
    """torch.max(x) without a dim: the extreme of every element (no index)."""
    x = cx.tensor(node.args[0])
    return _extreme(cx, x, list(range(x.rank)), node.target == aten.max.default, False)


@lowers(aten.any.dim, aten.any.dims, aten.any.default, dynamic=FOLLOWS)
def any_(cx: Context, node: Call) -> Value:
    x = cx.tensor(node.args[0])
    nonzero = x if x.dtype == "pred" else ops.compare(cx.b, "NE", x, ops.constant(cx.b, 0, x.dtype))
    dims = None if node.target == aten.any.default else arg(node, 1, "dim")
    if node.target == aten.any.dims and dims is not None and len(dims) == 0:
        return ops.convert(cx.b, nonzero, out_type(node))  # any over no dims: each element's truth
    return ops.convert(cx.b, ops.reduce(cx.b, nonzero, axes_of(x, dims), "or", False,
                                        bool(arg(node, 2, "keepdim", False))), out_type(node))


def arg_reducer(b: Builder, dtype: str, biggest: bool) -> str:
    """(value, index) pairs -> the extreme, NaN first, the smaller index on ties."""
    name = f"arg{'max' if biggest else 'min'}_{dtype}"
    d = "GT" if biggest else "LT"
    text = f"""{name} {{
  a = {dtype}[] parameter(0)
  ai = s64[] parameter(1)
  b = {dtype}[] parameter(2)
  bi = s64[] parameter(3)
  better = pred[] compare(a, b), direction={d}
  same = pred[] compare(a, b), direction=EQ
  anan = pred[] compare(a, a), direction=NE
  bnan = pred[] compare(b, b), direction=NE
  first = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(same, first)
  wins = pred[] or(better, tie)
  nonan = pred[] or(anan, bnan)
  notnan = pred[] not(nonan)
  plain = pred[] and(notnan, wins)
  notb = pred[] not(bnan)
  aorder = pred[] or(notb, first)
  nanwin = pred[] and(anan, aorder)
  pick = pred[] or(plain, nanwin)
  v = {dtype}[] select(pick, a, b)
  i = s64[] select(pick, ai, bi)
  ROOT r = ({dtype}[], s64[]) tuple(v, i)
}}
"""
    return b.computation(name, text)


def arg_extreme(cx: Context, x: Value, axis: int, biggest: bool, keepdim: bool) -> tuple[Value, Value]:
    b = cx.b
    index = ops.iota(b, "s64", x.dims, axis)
    init = LIMITS[x.dtype][0 if biggest else 1]
    dims = [d for i, d in enumerate(x.dims) if i != axis]
    values, indices = b.emit_tuple("reduce", [x, index, ops.constant(b, init, x.dtype), ops.constant(b, 0, "s64")],
                                   [(x.dtype, tuple(dims)), ("s64", tuple(dims))],
                                   f"dimensions={{{axis}}}, to_apply={arg_reducer(b, x.dtype, biggest)}")
    if keepdim:
        kept = ops.keep_dims(x.dims, [axis])
        values, indices = ops.reshape(b, values, kept), ops.reshape(b, indices, kept)
    return values, indices


def _has_dims(node: Call) -> str | None:
    x = node.args[0].meta["val"]  # type: ignore[union-attr]
    if x.dtype == torch.bool:
        return "bool input"
    return None if x.dim() == 0 or x.numel() > 0 else "empty input"


@lowers(aten.max.dim, aten.min.dim, supports=_has_dims)
def max_dim(cx: Context, node: Call) -> list[Value]:
    x = cx.tensor(node.args[0])
    if x.rank == 0:
        return [x, ops.constant(cx.b, 0, "s64")]
    return list(arg_extreme(cx, x, node.args[1] % x.rank, node.target == aten.max.dim,
                            bool(arg(node, 2, "keepdim", False))))


@lowers(aten.argmax.default, aten.argmin.default, supports=_has_dims)
def argmax(cx: Context, node: Call) -> Value:
    x = cx.tensor(node.args[0])
    dim = arg(node, 1, "dim")
    keep = bool(arg(node, 2, "keepdim", False))
    if x.rank == 0:
        return ops.constant(cx.b, 0, "s64")
    if dim is None:
        flat = ops.reshape(cx.b, x, [_count(x, list(range(x.rank)))])
        _, i = arg_extreme(cx, flat, 0, node.target == aten.argmax.default, False)
        return ops.reshape(cx.b, i, out_dims(node))
    return arg_extreme(cx, x, dim % x.rank, node.target == aten.argmax.default, keep)[1]


def _var_mean(cx: Context, node: Call) -> tuple[Value, Value]:
    """The count (and so the divisor n - correction) is the runtime size of a symbolic dim."""
    b = cx.b
    x = upcast(cx, cx.tensor(node.args[0]))
    axes = axes_of(x, arg(node, 1, "dim"))
    correction = node.kwargs.get("correction", 1)
    keep = bool(node.kwargs.get("keepdim", False))
    n = cx.count(node.args[0], axes, x.dtype)
    m = ops.binary(b, "divide", ops.reduce(b, x, axes, "add", 0, True), n)
    d = ops.binary(b, "subtract", x, m)
    s = ops.reduce(b, ops.binary(b, "multiply", d, d), axes, "add", 0, keep)
    c = ops.constant(b, correction if correction is not None else 1, x.dtype)
    denom = ops.binary(b, "maximum", ops.binary(b, "subtract", n, c), ops.constant(b, 0, x.dtype))
    return ops.binary(b, "divide", s, denom), m if keep else ops.reshape(b, m, s.dims)


@lowers(aten.var.correction, supports=_float_only, dynamic=FOLLOWS)
def var(cx: Context, node: Call) -> Value:
    return ops.convert(cx.b, _var_mean(cx, node)[0], out_type(node))


def _float_input(node: Call) -> str | None:
    return None if node.args[0].meta["val"].dtype.is_floating_point else "integer or complex input"


@lowers(aten.var_mean.correction, supports=_float_input, dynamic=FOLLOWS)
def var_mean(cx: Context, node: Call) -> list[Value]:
    v, m = _var_mean(cx, node)
    return [ops.convert(cx.b, v, out_type(node, 0)), ops.convert(cx.b, m, out_type(node, 1))]


def softmax_parts(cx: Context, x: Value, axis: int) -> tuple[Value, Value]:
    """(x - max, sum(exp(x - max))) along `axis`, the sum kept as a size-1 dim."""
    b = cx.b
    shifted = ops.binary(b, "subtract", x, ops.reduce(b, x, [axis], "maximum", float("-inf"), True))
    total = ops.reduce(b, ops.unary(b, "exponential", shifted), [axis], "add", 0, True)
    return shifted, total


@lowers(aten._softmax.default, aten._log_softmax.default, dynamic=FOLLOWS)
def softmax(cx: Context, node: Call) -> Value:
    b = cx.b
    x = upcast(cx, cx.tensor(node.args[0]))
    if x.rank == 0:
        return ops.full(b, 0.0 if node.target == aten._log_softmax.default else 1.0, out_type(node), ())
    axis = node.args[1] % x.rank
    shifted, total = softmax_parts(cx, x, axis)
    if node.target == aten._log_softmax.default:
        y = ops.binary(b, "subtract", shifted, ops.unary(b, "log", total))
    else:
        y = ops.binary(b, "divide", ops.unary(b, "exponential", shifted), total)
    return ops.convert(b, y, out_type(node))


@lowers(aten.cumsum.default, aten.cumprod.default, dynamic=FOLLOWS)
def cumulative(cx: Context, node: Call) -> Value:
    """A running sum or product along dim: a reduce-window over the n elements up to each.
    Along a dynamic dim n is its bound: the padder masks the padding with the init value and
    the window up to element i < size still holds every valid element before it."""
    ct = out_type(node)
    x = upcast(cx, ops.convert(cx.b, cx.tensor(node.args[0]), ct))
    if x.rank == 0:
        return ops.convert(cx.b, x, ct)
    opcode, init = ("add", 0) if node.target == aten.cumsum.default else ("multiply", 1)
    return ops.convert(cx.b, running(cx, x, node.args[1] % x.rank, opcode, init), ct)


def running(cx: Context, x: Value, axis: int, opcode: str, init: int) -> Value:
    """The inclusive running `opcode` of x along axis (a window of every element up to each)."""
    n = x.dims[axis]
    size = [n if i == axis else 1 for i in range(x.rank)]
    pads = [(n - 1, 0) if i == axis else (0, 0) for i in range(x.rank)]
    return ops.reduce_window(cx.b, x, opcode, init, size, [1] * x.rank, pads)


def _norm_supported(node: Call) -> str | None:
    if arg(node, 4, "dtype") is not None:
        return "dtype argument"
    return None if out_type(node) in ("f16", "bf16", "f32", "f64") else "integer or complex input"


@lowers(aten.linalg_vector_norm.default, supports=_norm_supported)
def vector_norm(cx: Context, node: Call) -> Value:
    """sum(|x|^ord)^(1/ord) over dim, with torch's special orders (2, 1, inf, -inf, 0) exact,
    accumulated in f32 for f16/bf16."""
    b, x0 = cx.b, cx.tensor(node.args[0])
    order = float(arg(node, 1, "ord", 2))
    x = upcast(cx, x0)
    axes = axes_of(x, arg(node, 2, "dim"))
    keep = bool(arg(node, 3, "keepdim", False))
    magnitude = ops.unary(b, "abs", x)
    if order in (float("inf"), float("-inf")):
        opcode, init = ("maximum", 0.0) if order > 0 else ("minimum", float("inf"))  # |x| >= 0
        return ops.convert(b, ops.reduce(b, magnitude, axes, opcode, init, keep), x0.dtype)
    if order == 0:
        nonzero = ops.convert(b, ops.compare(b, "NE", x, ops.constant(b, 0, x.dtype)), x.dtype)
        return ops.convert(b, ops.reduce(b, nonzero, axes, "add", 0, keep), x0.dtype)
    if order == 2:
        powered = ops.binary(b, "multiply", x, x)
    elif order == 1:
        powered = magnitude
    else:
        powered = ops.binary(b, "power", magnitude, ops.constant(b, order, x.dtype))
    total = ops.reduce(b, powered, axes, "add", 0, keep)
    if order == 2:
        total = ops.unary(b, "sqrt", total)
    elif order != 1:
        total = ops.binary(b, "power", total, ops.constant(b, 1 / order, x.dtype))
    return ops.convert(b, total, x0.dtype)
