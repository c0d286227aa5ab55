"""Elementwise ATen ops: arithmetic, comparisons, logic and the unary math functions.

Operands are converted to the type torch computes in (context.compute_type, torch's type
promotion of tensors and Python numbers) and broadcast numpy-style; composites of several
HLO ops (gelu, ...) on f16/bf16 run in f32 and round once, as eager's CPU kernels do."""
from __future__ import annotations

import math

import torch
from torch.fx import Node

from hlotools.torch import ops
from hlotools.torch.builder import Value
from hlotools.torch.lowering.context import Call, Context, arg, compute_type, out_type
from hlotools.torch.lowering.registry import FOLLOWS, SETS, lowers

aten = torch.ops.aten

UNARY = {
    aten.exp.default: "exponential", aten.log.default: "log", aten.log1p.default: "log-plus-one",
    aten.expm1.default: "exponential-minus-one", aten.tanh.default: "tanh", aten.sigmoid.default: "logistic",
    aten.sqrt.default: "sqrt", aten.rsqrt.default: "rsqrt", aten.sin.default: "sine", aten.cos.default: "cosine",
    aten.tan.default: "tan", aten.erf.default: "erf", aten.floor.default: "floor", aten.ceil.default: "ceil",
    aten.round.default: "round-nearest-even", aten.abs.default: "abs", aten.neg.default: "negate",
    aten.sign.default: "sign", aten.sinh.default: "sinh", aten.cosh.default: "cosh", aten.asin.default: "asin",
    aten.acos.default: "acos", aten.asinh.default: "asinh",
    aten.acosh.default: "acosh", aten.atanh.default: "atanh",
}
BINARY = {aten.mul.Tensor: "multiply", aten.mul.Scalar: "multiply", aten.maximum.default: "maximum",
          aten.minimum.default: "minimum", aten.atan2.default: "atan2",
          aten.bitwise_and.Tensor: "and", aten.bitwise_or.Tensor: "or", aten.bitwise_xor.Tensor: "xor",
          aten.bitwise_and.Scalar: "and", aten.bitwise_or.Scalar: "or", aten.bitwise_xor.Scalar: "xor"}
LOGICAL = {aten.logical_and.default: "and", aten.logical_or.default: "or", aten.logical_xor.default: "xor"}
COMPARES = {getattr(aten, name).Tensor: d for name, d in ops.COMPARE.items()} | {
    getattr(aten, name).Scalar: d for name, d in ops.COMPARE.items()}


def _no_bool_arith(node: Call) -> str | None:
    return "bool arithmetic" if out_type(node) == "pred" else None


def _operands(cx: Context, node: Call, dtype: str) -> list[Value]:
    return [cx.operand(a, dtype) for a in node.args[:2]]


def _scaled(cx: Context, node: Call, value: Value) -> Value:
    """`alpha * value` for add/sub's alpha keyword."""
    alpha = node.kwargs.get("alpha", 1)
    return value if alpha == 1 else ops.binary(cx.b, "multiply", value, ops.constant(cx.b, alpha, value.dtype))


@lowers(aten.add.Tensor, aten.add.Scalar, aten.sub.Tensor, aten.sub.Scalar, dynamic=FOLLOWS)
def add_sub(cx: Context, node: Call) -> Value:
    ct = out_type(node)
    x, y = _operands(cx, node, ct)
    opcode = "add" if node.target in (aten.add.Tensor, aten.add.Scalar) else "subtract"
    if ct == "pred":  # bool + bool is logical or in torch
        return ops.binary(cx.b, "or", x, y)
    return ops.binary(cx.b, opcode, x, _scaled(cx, node, y))


@lowers(*BINARY, dynamic=FOLLOWS)
def binary(cx: Context, node: Call) -> Value:
    ct = out_type(node)
    opcode = BINARY[node.target]
    if ct == "pred" and opcode == "multiply":
        opcode = "and"
    x, y = _operands(cx, node, ct)
    return ops.binary(cx.b, opcode, x, y)


@lowers(*COMPARES, dynamic=FOLLOWS)
def compare(cx: Context, node: Call) -> Value:
    x, y = _operands(cx, node, compute_type(node))
    return ops.compare(cx.b, COMPARES[node.target], x, y)


def _nonzero(cx: Context, x: Value) -> Value:
    if x.dtype == "pred":
        return x
    return ops.compare(cx.b, "NE", x, ops.constant(cx.b, 0, x.dtype))


@lowers(*LOGICAL, dynamic=FOLLOWS)
def logical(cx: Context, node: Call) -> Value:
    x, y = (_nonzero(cx, cx.tensor(a)) for a in node.args[:2])
    return ops.convert(cx.b, ops.binary(cx.b, LOGICAL[node.target], x, y), out_type(node))


@lowers(aten.logical_not.default, dynamic=FOLLOWS)
def logical_not(cx: Context, node: Call) -> Value:
    return ops.convert(cx.b, ops.unary(cx.b, "not", _nonzero(cx, cx.tensor(node.args[0]))), out_type(node))


@lowers(aten.bitwise_not.default, dynamic=FOLLOWS)
def bitwise_not(cx: Context, node: Call) -> Value:
    return ops.unary(cx.b, "not", cx.tensor(node.args[0]))


def _float_unary(node: Call) -> str | None:
    return None if node.target in (aten.abs.default, aten.neg.default, aten.sign.default) or \
        out_type(node) in ("f16", "bf16", "f32", "f64", "c64") else "integer input"


@lowers(*UNARY, supports=_float_unary, dynamic=FOLLOWS)
def unary(cx: Context, node: Call) -> Value:
    x = cx.operand(node.args[0], out_type(node))
    if x.dtype == "pred" and node.target == aten.abs.default:
        return x
    return ops.unary(cx.b, UNARY[node.target], x)


@lowers(aten.atan.default, supports=_float_unary, dynamic=FOLLOWS)
def atan(cx: Context, node: Call) -> Value:
    x = cx.operand(node.args[0], out_type(node))  # HLO has no atan opcode: atan2(x, 1)
    return ops.binary(cx.b, "atan2", x, ops.constant(cx.b, 1, x.dtype))


@lowers(aten.reciprocal.default, dynamic=FOLLOWS)
def reciprocal(cx: Context, node: Call) -> Value:
    x = cx.operand(node.args[0], out_type(node))
    return ops.binary(cx.b, "divide", ops.constant(cx.b, 1, x.dtype), x)


@lowers(aten.relu.default, supports=_no_bool_arith, dynamic=FOLLOWS)
def relu(cx: Context, node: Call) -> Value:
    x = cx.tensor(node.args[0])
    return ops.binary(cx.b, "maximum", x, ops.constant(cx.b, 0, x.dtype))


def upcast(cx: Context, x: Value) -> Value:
    """f16/bf16 -> f32 for composites (eager's CPU kernels compute those in f32)."""
    return ops.convert(cx.b, x, "f32") if x.dtype in ("f16", "bf16") else x


def _c(cx: Context, value: float, like: Value) -> Value:
    return ops.constant(cx.b, value, like.dtype)


@lowers(aten.gelu.default, dynamic=FOLLOWS)
def gelu(cx: Context, node: Call) -> Value:
    b, x0 = cx.b, cx.tensor(node.args[0])
    x = upcast(cx, x0)
    if node.kwargs.get("approximate", arg(node, 1, "approximate", "none")) == "tanh":
        inner = ops.binary(b, "multiply", x, ops.binary(b, "multiply", x, x))
        inner = ops.binary(b, "add", x, ops.binary(b, "multiply", inner, _c(cx, 0.044715, x)))
        t = ops.unary(b, "tanh", ops.binary(b, "multiply", inner, _c(cx, math.sqrt(2 / math.pi), x)))
    else:
        t = ops.unary(b, "erf", ops.binary(b, "multiply", x, _c(cx, math.sqrt(0.5), x)))
    y = ops.binary(b, "multiply", ops.binary(b, "multiply", x, _c(cx, 0.5, x)),
                   ops.binary(b, "add", t, _c(cx, 1.0, x)))
    return ops.convert(b, y, x0.dtype)


@lowers(aten.div.Tensor, aten.div.Scalar, aten.div.Tensor_mode, aten.div.Scalar_mode, dynamic=FOLLOWS)
def div(cx: Context, node: Call) -> Value:
    mode = node.kwargs.get("rounding_mode")
    ct = out_type(node)
    x, y = _operands(cx, node, ct)
    q = ops.binary(cx.b, "divide", x, y)
    if mode is None or ct.startswith("c"):
        return q
    if ct.startswith(("f", "b")):
        if mode == "floor":
            return ops.unary(cx.b, "floor", q)
        return ops.binary(cx.b, "multiply", ops.unary(cx.b, "sign", q), ops.unary(cx.b, "floor", ops.unary(cx.b, "abs", q)))
    if mode == "trunc":
        return q
    return integer_floor_divide(cx, x, y)


def integer_floor_divide(cx: Context, x: Value, y: Value) -> Value:
    """torch's floor division of integers: XLA divides towards zero; step down where signs differ."""
    q = ops.binary(cx.b, "divide", x, y)
    if x.dtype.startswith("u"):
        return q
    r = ops.binary(cx.b, "remainder", x, y)
    zero = ops.constant(cx.b, 0, x.dtype)
    fix = ops.binary(cx.b, "and", ops.compare(cx.b, "NE", r, zero),
                     ops.compare(cx.b, "NE", ops.compare(cx.b, "LT", r, zero), ops.compare(cx.b, "LT", y, zero)))
    return ops.select(cx.b, fix, ops.binary(cx.b, "subtract", q, ops.constant(cx.b, 1, x.dtype)), q)


POW_SPECIAL = {2: "square", 0.5: "sqrt", -0.5: "rsqrt", -1: "reciprocal", 1: "identity"}


@lowers(aten.pow.Tensor_Scalar, aten.pow.Tensor_Tensor, aten.pow.Scalar, supports=_no_bool_arith, dynamic=FOLLOWS)
def pow_(cx: Context, node: Call) -> Value:
    b, ct = cx.b, out_type(node)
    exponent = node.args[1]
    if not isinstance(exponent, Node) and isinstance(node.args[0], Node) and exponent in POW_SPECIAL:
        x = cx.operand(node.args[0], ct)
        kind = POW_SPECIAL[exponent]  # torch's own fast paths: exact products and roots
        if kind == "square":
            return ops.binary(b, "multiply", x, x)
        if kind == "reciprocal":
            return ops.binary(b, "divide", ops.constant(b, 1, ct), x)
        return x if kind == "identity" else ops.unary(b, kind, x)
    x, y = _operands(cx, node, ct)
    return ops.binary(b, "power", x, y)


@lowers(aten.clamp.default, aten.clamp.Tensor, supports=_no_bool_arith, dynamic=FOLLOWS)
def clamp(cx: Context, node: Call) -> Value:
    ct = out_type(node)
    x = cx.operand(node.args[0], ct)
    low, high = arg(node, 1, "min"), arg(node, 2, "max")
    if low is not None:
        x = ops.binary(cx.b, "maximum", x, cx.operand(low, ct))
    if high is not None:
        x = ops.binary(cx.b, "minimum", x, cx.operand(high, ct))
    return x


@lowers(aten.where.self, dynamic=FOLLOWS)
def where(cx: Context, node: Call) -> Value:
    ct = out_type(node)
    cond = _nonzero(cx, cx.tensor(node.args[0]))
    return ops.select(cx.b, cond, cx.operand(node.args[1], ct), cx.operand(node.args[2], ct))


@lowers(aten.isnan.default, dynamic=FOLLOWS)
def isnan(cx: Context, node: Call) -> Value:
    x = cx.tensor(node.args[0])
    return ops.compare(cx.b, "NE", x, x) if x.dtype[0] in "fbc" else ops.full(cx.b, False, "pred", x.dims)


@lowers(aten._to_copy.default, aten.clone.default, aten.alias.default, dynamic=FOLLOWS)
def to_copy(cx: Context, node: Call) -> Value:
    return _convert(cx, cx.tensor(node.args[0]), out_type(node))


def _convert(cx: Context, x: Value, dtype: str) -> Value:
    if dtype == "pred" and x.dtype != "pred":
        return _nonzero(cx, x)  # torch: any nonzero is True, NaN included
    return ops.convert(cx.b, x, dtype)


@lowers(aten.copy.default, dynamic=SETS)  # the result has dst's sizes, whatever src broadcasts from
def copy(cx: Context, node: Call) -> Value:
    dst, src = cx.tensors(node.args[:2])
    return ops.broadcast_to(cx.b, _convert(cx, src, dst.dtype), dst.dims)


def _float_only(node: Call) -> str | None:
    return None if out_type(node) in ("f16", "bf16", "f32", "f64") else "integer input"


@lowers(aten.elu.default, supports=_float_only, dynamic=FOLLOWS)
def elu(cx: Context, node: Call) -> Value:
    """scale * (x if x > 0 else alpha * expm1(input_scale * x)), in f32 for f16/bf16."""
    b, x0 = cx.b, cx.tensor(node.args[0])
    alpha, scale, input_scale = (arg(node, i, name, 1.0) for i, name in ((1, "alpha"), (2, "scale"), (3, "input_scale")))
    x = upcast(cx, x0)
    negative = ops.unary(b, "exponential-minus-one", ops.binary(b, "multiply", x, _c(cx, input_scale, x)))
    negative = ops.binary(b, "multiply", negative, _c(cx, alpha * scale, x))
    positive = ops.binary(b, "multiply", x, _c(cx, scale, x)) if scale != 1 else x
    y = ops.select(b, ops.compare(b, "GT", x, _c(cx, 0, x)), positive, negative)
    return ops.convert(b, y, x0.dtype)


@lowers(aten.leaky_relu.default, supports=_float_only, dynamic=FOLLOWS)
def leaky_relu(cx: Context, node: Call) -> Value:
    b, x = cx.b, cx.tensor(node.args[0])
    slope = arg(node, 1, "negative_slope", 0.01)
    return ops.select(b, ops.compare(b, "GT", x, _c(cx, 0, x)), x, ops.binary(b, "multiply", x, _c(cx, slope, x)))


@lowers(aten.hardtanh.default, supports=_no_bool_arith, dynamic=FOLLOWS)
def hardtanh(cx: Context, node: Call) -> Value:
    """clamp(x, min_val, max_val); NaN stays NaN (maximum/minimum propagate it, as torch)."""
    b, x = cx.b, cx.tensor(node.args[0])
    low, high = arg(node, 1, "min_val", -1.0), arg(node, 2, "max_val", 1.0)
    return ops.binary(b, "minimum", ops.binary(b, "maximum", x, _c(cx, low, x)), _c(cx, high, x))


@lowers(aten.isinf.default, dynamic=FOLLOWS)
def isinf(cx: Context, node: Call) -> Value:
    b, x = cx.b, cx.tensor(node.args[0])
    if x.dtype not in ("f16", "bf16", "f32", "f64", "c64"):
        return ops.full(b, False, "pred", x.dims)
    if x.dtype == "c64":  # inf when either part is (the other may be NaN)
        real, imag = (b.emit(part, [x], "f32", x.dims) for part in ("real", "imag"))
        return ops.binary(b, "or", _infinite(cx, real), _infinite(cx, imag))
    return _infinite(cx, x)


def _infinite(cx: Context, x: Value) -> Value:
    return ops.compare(cx.b, "EQ", ops.unary(cx.b, "abs", x), ops.constant(cx.b, float("inf"), x.dtype))


@lowers(aten.log2.default, aten.log10.default, supports=_float_unary, dynamic=FOLLOWS)
def log_base(cx: Context, node: Call) -> Value:
    """log(x) / log(base): HLO has the natural logarithm only."""
    x = cx.operand(node.args[0], out_type(node))
    base = 2.0 if node.target == aten.log2.default else 10.0
    return ops.binary(cx.b, "divide", ops.unary(cx.b, "log", x), ops.constant(cx.b, math.log(base), x.dtype))


@lowers(aten.trunc.default, dynamic=FOLLOWS)
def trunc(cx: Context, node: Call) -> Value:
    x = cx.tensor(node.args[0])
    if x.dtype not in ("f16", "bf16", "f32", "f64"):
        return x
    b = cx.b  # sign(x) * floor(|x|): rounds towards zero, keeps -0.0 and NaN
    return ops.binary(b, "multiply", ops.unary(b, "sign", x), ops.unary(b, "floor", ops.unary(b, "abs", x)))


@lowers(aten.fmod.Tensor, aten.fmod.Scalar, aten.remainder.Tensor, aten.remainder.Scalar,
        supports=_no_bool_arith, dynamic=FOLLOWS)
def remainder(cx: Context, node: Call) -> Value:
    """fmod is HLO's remainder (the dividend's sign, C's fmod and %); torch.remainder takes the
    divisor's sign instead, as torch's CPU kernel does: fmod, plus y where the signs differ."""
    b, ct = cx.b, out_type(node)
    x, y = _operands(cx, node, ct)
    r = ops.binary(b, "remainder", x, y)
    if node.target in (aten.fmod.Tensor, aten.fmod.Scalar) or ct.startswith("u"):
        return r
    zero = ops.constant(b, 0, ct)
    differ = ops.binary(b, "and", ops.compare(b, "NE", r, zero),
                        ops.compare(b, "NE", ops.compare(b, "LT", r, zero), ops.compare(b, "LT", y, zero)))
    return ops.select(b, differ, ops.binary(b, "add", r, y), r)
