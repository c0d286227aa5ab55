"""algsimp rules for arithmetic: add, subtract, multiply, divide, remainder, negate, power,
abs, log, maximum, minimum, clamp.

Float caution (as XLA): a rewrite on floats must give bit-identical results except where XLA
itself accepts a difference (x + 0 -> x turns -0 + 0 = +0 into -0, as XLA does; under xla-cpu
semantics A / Const -> A * (1/Const) rounds twice, as XLA's does). x*0, x-x,
cancellations and constant reassociation are exact only for integers and stay integer-only.
"""
from __future__ import annotations

import numpy as np

from hlotools.ir.instruction import Instruction
from hlotools.ir.types import ELEMENT_TYPES
from hlotools.passes.algsimp_core import (
    Builder,
    bf16_waits_for_normalization,
    broadcast_scalar_constant,
    constant_side,
    drop_identity,
    folded,
    is_all,
    is_all_one,
    is_all_zero,
    is_constant,
    is_float,
    is_int,
    is_power_of_two_int,
    is_unsigned,
    keep_absorbing,
    reciprocal,
    rule,
    scalar_value,
    widening,
)


def _constant_or_broadcast_scalar(inst: Instruction) -> bool:
    """XLA's `Constant()` or `Broadcast(ConstantScalar())` operand patterns."""
    return is_constant(inst) or (inst.opcode == "broadcast" and broadcast_scalar_constant(inst) is not None)


def _combine_constants(b: Builder, opcode: str, c1: Instruction, c2: Instruction) -> Instruction:
    """op(c1, c2) as a new instruction (constant folding folds it), broadcast when the
    constants were broadcast scalars — XLA's MakeBinaryHlo + CreateBroadcast."""
    if c1.opcode == "broadcast" and c2.opcode == "broadcast":
        s1, s2 = c1.operands[0], c2.operands[0]
        combined = b.binary(opcode, s1, s2, s1.shape)
        return b.broadcast(combined, b.anchor.shape, ())
    return b.binary(opcode, c1, c2, c1.shape)


# -- add ---------------------------------------------------------------------------------------
@rule("add")
def add_zero(inst: Instruction, b: Builder) -> Instruction | None:
    """A + 0 => A and 0 + A => A (XLA applies it to every type)."""
    return drop_identity(inst, is_all_zero)


@rule("add")
def add_constant_to_rhs(inst: Instruction, b: Builder) -> Instruction | None:
    """Const + A => A + Const: canonical form for the reassociation rules (add commutes exactly)."""
    x, y = inst.operands
    if is_constant(x) and not is_constant(y):
        return b.binary("add", y, x)
    return None


@rule("add")
def add_reassociate_int_constants(inst: Instruction, b: Builder) -> Instruction | None:
    """(A + C1) + C2 => A + (C1 + C2), integers only (exact: wrapping addition associates)."""
    x, c2 = inst.operands
    if not is_int(inst) or x.opcode != "add" or not _constant_or_broadcast_scalar(c2):
        return None
    a, c1 = x.operands
    if is_constant(a) or not _constant_or_broadcast_scalar(c1) or (c1.opcode == "broadcast") != (c2.opcode == "broadcast"):
        return None
    return b.binary("add", a, _combine_constants(b, "add", c1, c2))


@rule("add")
def add_sub_cancel_int(inst: Instruction, b: Builder) -> Instruction | None:
    """A + (B - A) => B and (B - A) + A => B, integers only."""
    if not is_int(inst):
        return None
    x, y = inst.operands
    if y.opcode == "subtract" and y.operands[1] is x:
        return y.operands[0]
    if x.opcode == "subtract" and x.operands[1] is y:
        return x.operands[0]
    return None


@rule("add")
def add_sub_constant_int(inst: Instruction, b: Builder) -> Instruction | None:
    """(C1 - A) + C2 => (C1 + C2) - A, integers only."""
    x, c2 = inst.operands
    if not is_int(inst) or x.opcode != "subtract" or not _constant_or_broadcast_scalar(c2):
        return None
    c1, a = x.operands
    if is_constant(a) or not _constant_or_broadcast_scalar(c1) or (c1.opcode == "broadcast") != (c2.opcode == "broadcast"):
        return None
    return b.binary("subtract", _combine_constants(b, "add", c1, c2), a)


def _is_fp_power_of_two(inst: Instruction) -> bool:
    """XLA's IsAllFpConstantPowerOf2: a float scalar constant (or broadcast of one) = +-2^k."""
    value = scalar_value(inst) if is_float(inst) else None
    if value is None or value == 0 or not np.isfinite(value):
        return False
    return abs(float(np.frexp(value)[0])) == 0.5


@rule("add")
def add_factor_common_multiplicand(inst: Instruction, b: Builder) -> Instruction | None:
    """A*C + B*C => (A + B)*C when both products are used once: integers always; floats only
    when C is +-2^k (XLA's condition: exact unless a product overflows or underflows)."""
    x, y = inst.operands
    if x.opcode != "multiply" or y.opcode != "multiply" or len(x.users) != 1 or len(y.users) != 1 or x is y:
        return None
    for a, c in ((x.operands[0], x.operands[1]), (x.operands[1], x.operands[0])):
        if c in y.operands and (is_int(inst) or _is_fp_power_of_two(c)):
            other = y.operands[1] if y.operands[0] is c else y.operands[0]
            return b.binary("multiply", b.binary("add", a, other), c)
    return None


# -- subtract ------------------------------------------------------------------------------------
@rule("subtract")
def sub_zero(inst: Instruction, b: Builder) -> Instruction | None:
    """A - 0 => A (exact for every type, -0 - 0 = -0 included)."""
    x, y = inst.operands
    return x if is_all(y, 0) else None


@rule("subtract")
def sub_self_int(inst: Instruction, b: Builder) -> Instruction | None:
    """A - A => 0, integers only (for floats inf - inf and NaN - NaN are NaN)."""
    x, y = inst.operands
    return b.filled(inst, 0) if x is y and is_int(inst) else None


@rule("subtract")
def sub_constant_to_add(inst: Instruction, b: Builder) -> Instruction | None:
    """A - C => A + (-C): canonical for reassociation; exact (negation is exact, and
    a - c == a + (-c) in IEEE and in wrapping integer arithmetic)."""
    x, y = inst.operands
    if is_constant(x) or not (is_int(inst) or is_float(inst)):
        return None
    if is_constant(y):
        return b.binary("add", x, b.unary("negate", y))
    if y.opcode == "broadcast" and is_constant(y.operands[0]):
        c = y.operands[0]
        neg = b.broadcast(b.unary("negate", c), y.shape, tuple(y.attrs.get("dimensions", ())))
        return b.binary("add", x, neg)
    return None


@rule("subtract")
def sub_add_cancel_int(inst: Instruction, b: Builder) -> Instruction | None:
    """(A + B) - A => B and (A + B) - B => A, integers only."""
    x, y = inst.operands
    if not is_int(inst) or x.opcode != "add":
        return None
    p, q = x.operands
    if p is y:
        return q
    if q is y:
        return p
    return None


@rule("subtract")
def sub_sub_cancel_int(inst: Instruction, b: Builder) -> Instruction | None:
    """A - (A - B) => B, integers only."""
    x, y = inst.operands
    if is_int(inst) and y.opcode == "subtract" and y.operands[0] is x:
        return y.operands[1]
    return None


@rule("subtract")
def sub_add_to_negate_int(inst: Instruction, b: Builder) -> Instruction | None:
    """A - (A + B) => -B, integers only."""
    x, y = inst.operands
    if not is_int(inst) or y.opcode != "add":
        return None
    p, q = y.operands
    if p is x:
        return b.unary("negate", q)
    if q is x:
        return b.unary("negate", p)
    return None


# -- multiply --------------------------------------------------------------------------------------
@rule("multiply")
def mul_one(inst: Instruction, b: Builder) -> Instruction | None:
    """A * 1 => A and 1 * A => A (exact for every type)."""
    return drop_identity(inst, is_all_one)


@rule("multiply")
def mul_zero_int(inst: Instruction, b: Builder) -> Instruction | None:
    """A * 0 => 0, integers only (for floats NaN*0 and inf*0 are NaN, and -x*0 is -0)."""
    return keep_absorbing(inst, is_all_zero) if is_int(inst) else None


@rule("multiply")
def mul_minus_one(inst: Instruction, b: Builder) -> Instruction | None:
    """A * -1 => -A and -1 * A => -A (exact: IEEE multiplication by -1 only flips the sign)."""
    if not (is_int(inst) or is_float(inst)) or is_unsigned(inst):
        return None
    side = constant_side(inst, lambda v: is_all(v, -1))
    return b.unary("negate", side.other) if side else None


@rule("multiply")
def mul_reassociate_int_constants(inst: Instruction, b: Builder) -> Instruction | None:
    """(A * C1) * C2 => A * (C1 * C2), integers only (wrapping multiplication associates)."""
    x, c2 = inst.operands
    if not is_int(inst) or x.opcode != "multiply" or not _constant_or_broadcast_scalar(c2):
        return None
    a, c1 = x.operands
    if is_constant(a) or not _constant_or_broadcast_scalar(c1) or (c1.opcode == "broadcast") != (c2.opcode == "broadcast"):
        return None
    return b.binary("multiply", a, _combine_constants(b, "multiply", c1, c2))


@rule("multiply")
def mul_negate_negate(inst: Instruction, b: Builder) -> Instruction | None:
    """(-A) * (-B) => A * B (exact: rounding is symmetric in the sign)."""
    x, y = inst.operands
    if x.opcode == "negate" and y.opcode == "negate":
        return b.binary("multiply", x.operands[0], y.operands[0])
    return None


# -- divide / remainder ------------------------------------------------------------------------------
@rule("divide")
def div_one(inst: Instruction, b: Builder) -> Instruction | None:
    """A / 1 => A."""
    x, y = inst.operands
    return x if is_all(y, 1) else None


@rule("divide")
def div_unsigned_power_of_two(inst: Instruction, b: Builder) -> Instruction | None:
    """Unsigned A / 2^k => A >> k (logical shift; exact)."""
    x, y = inst.operands
    value = scalar_value(y)
    if not is_unsigned(inst) or not is_power_of_two_int(value):
        return None
    return b.binary("shift-right-logical", x, b.filled(inst, int(value).bit_length() - 1))


@rule("divide")
def div_float_constant(inst: Instruction, b: Builder) -> Instruction | None:
    """Float or complex A / Const => A * (1/Const), for a non-constant A and a divisor that is a
    constant or a broadcast of one: XLA's rule (HandleDivide), which xla-cpu semantics follow.
    1/Const is rounded to the element type (XLA's InvertConstant), so x / 3 is x * 0.333333343
    (an ulp from the quotient for a third of all x) and f16 x / 2^-24 is x * inf. Under spec
    semantics only exact reciprocals: a scalar C = +-2^k whose 1/C is finite, where both sides
    are the correctly rounded A/C."""
    x, y = inst.operands
    t = inst.shape.element_type
    if t is None or not (t.is_float or t.is_complex) or x.opcode == "constant":
        return None
    if not b.inexact:  # spec semantics (or inexact=false)
        return _div_exact_reciprocal(inst, b)
    if (t.is_float and t.name not in _RECIPROCAL_TYPES) or bf16_waits_for_normalization(inst):
        return None  # f8 types: XLA CPU's normalization decides; left as the quotient
    if y.opcode == "convert" and widening(y) and y.operands[0].opcode == "broadcast":
        y = y.operands[0]  # float-normalization's f32 twin of a bf16 divide: convert(broadcast(c))
    c = y.operands[0] if y.opcode == "broadcast" else y
    values = folded(c)  # a constant, or an exact widening convert of one (the f32 twin)
    if values is None:
        return None
    wide = ELEMENT_TYPES[_RECIPROCAL_TYPES.get(t.name, t.name)]
    inverse = reciprocal(values.astype(wide.dtype), wide)  # flushed as XLA's compile thread
    recip = b.constant(c.shape.with_element_type(wide), inverse)
    if y is not c:
        recip = b.broadcast(recip, y.shape.with_element_type(wide), tuple(y.attrs.get("dimensions", ())))
    if wide is t:
        return b.binary("multiply", x, recip)
    # bf16: XLA CPU's float normalization made the divide an f32 one before algsimp saw it
    # (1/3 is f32's 0.333333343, not bf16's 0.333984375; one rounding to bf16 at the end).
    wide_x = b.unary("convert", x, x.shape.with_element_type(wide))
    return b.unary("convert", b.binary("multiply", wide_x, recip, wide_x.shape), inst.shape)


# The element types whose reciprocal XLA CPU computes, and in which type.
_RECIPROCAL_TYPES = {"f16": "f16", "bf16": "f32", "f32": "f32", "f64": "f64"}


def _div_exact_reciprocal(inst: Instruction, b: Builder) -> Instruction | None:
    x, y = inst.operands
    value = scalar_value(y)
    if not is_float(inst) or is_constant(x) or value is None or value == 0 or not np.isfinite(value):
        return None
    dtype = inst.shape.dtype
    with np.errstate(over="ignore"):
        inverse = np.array(1.0 / float(value), dtype=np.float64).astype(dtype)
    if not np.isfinite(float(inverse)) or float(inverse) * float(value) != 1.0:
        return None
    mantissa, _ = np.frexp(float(value))
    if abs(mantissa) != 0.5:
        return None
    return b.binary("multiply", x, b.filled(inst, inverse))


@rule("remainder")
def rem_unsigned_power_of_two(inst: Instruction, b: Builder) -> Instruction | None:
    """Unsigned A % 2^k => A & (2^k - 1)."""
    x, y = inst.operands
    value = scalar_value(y)
    if not is_unsigned(inst) or not is_power_of_two_int(value):
        return None
    return b.binary("and", x, b.filled(inst, int(value) - 1))


# -- negate / abs / power / log ------------------------------------------------------------------------
@rule("negate")
def neg_neg(inst: Instruction, b: Builder) -> Instruction | None:
    """-(-A) => A."""
    x = inst.operands[0]
    return x.operands[0] if x.opcode == "negate" else None


@rule("abs")
def abs_of_nonnegative(inst: Instruction, b: Builder) -> Instruction | None:
    """abs(A) => A when A is known non-negative: abs(abs(x)), abs(exp(x)) (exp is never -0)."""
    x = inst.operands[0]
    return x if x.opcode in ("abs", "exponential") else None


@rule("power")
def pow_zero(inst: Instruction, b: Builder) -> Instruction | None:
    """pow(A, 0) => 1 (also for A = 0, NaN and inf, as IEEE pow and XLA define it)."""
    x, y = inst.operands
    return b.filled(inst, 1) if is_all(y, 0) else None


@rule("power")
def pow_one(inst: Instruction, b: Builder) -> Instruction | None:
    """pow(A, 1) => A."""
    x, y = inst.operands
    return x if is_all(y, 1) else None


@rule("power")
def pow_two(inst: Instruction, b: Builder) -> Instruction | None:
    """pow(A, 2) => A * A (both are the correctly rounded square)."""
    x, y = inst.operands
    return b.binary("multiply", x, x) if is_all(y, 2) else None


@rule("power")
def pow_minus_one(inst: Instruction, b: Builder) -> Instruction | None:
    """pow(A, -1) => 1 / A, floats only (both are the correctly rounded reciprocal)."""
    x, y = inst.operands
    if is_float(inst) and is_all(y, -1):
        return b.binary("divide", b.filled(inst, 1), x)
    return None


@rule("log")
def log_exp_fast_math(inst: Instruction, b: Builder) -> Instruction | None:
    """log(exp(A)) => A, only with enable_fast_math (exp overflows to inf for large A)."""
    x = inst.operands[0]
    if getattr(b.options, "enable_fast_math", False) and x.opcode == "exponential":
        return x.operands[0]
    return None


# -- maximum / minimum / clamp -----------------------------------------------------------------------
@rule("maximum", "minimum")
def minmax_same(inst: Instruction, b: Builder) -> Instruction | None:
    """max(A, A) => A and min(A, A) => A."""
    x, y = inst.operands
    return x if x is y else None


def _is_extreme(inst: Instruction, low: bool) -> bool:
    """All -inf (low) / +inf for floats, the type's lowest / highest value for integers."""
    value = scalar_value(inst)
    if value is None or isinstance(value, (bool, complex)):
        return False
    dtype = inst.shape.dtype
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return value == (info.min if low else info.max)
    return value == (-np.inf if low else np.inf)


@rule("maximum")
def max_lowest(inst: Instruction, b: Builder) -> Instruction | None:
    """max(A, -inf) => A (integers: the lowest value); NaN still propagates from A."""
    return drop_identity(inst, lambda v: _is_extreme(v, low=True))


@rule("minimum")
def min_highest(inst: Instruction, b: Builder) -> Instruction | None:
    """min(A, +inf) => A (integers: the highest value)."""
    return drop_identity(inst, lambda v: _is_extreme(v, low=False))


@rule("maximum", "minimum")
def minmax_absorb(inst: Instruction, b: Builder) -> Instruction | None:
    """max(max(A, B), B) => max(A, B) (and mirrored forms, and min): exact, NaN included."""
    x, y = inst.operands
    if x.opcode == inst.opcode and y in x.operands:
        return x
    if y.opcode == inst.opcode and x in y.operands:
        return y
    return None


@rule("clamp")
def clamp_of_clamp(inst: Instruction, b: Builder) -> Instruction | None:
    """clamp(a, clamp(a, x, b), b) => clamp(a, x, b)."""
    lo, x, hi = inst.operands
    if x.opcode == "clamp" and x.operands[0] is lo and x.operands[2] is hi:
        return x
    return None
