"""algsimp rules that change float results: XLA's AlgebraicSimplifier makes them on CPU, so
the xla-cpu semantics make them too (under `spec` none of these fire).

Measured with jaxlib 0.10's XLA CPU (`xla_ref.py opt` on one small module per rule) and read in
algebraic_simplifier.cc (HandleDivide, HandleMultiply, HandleAdd, HandleLog, HandlePower,
HandleRsqrt, HandleSqrt); each rule's docstring gives XLA's condition:
- divide: exp(A)/exp(B) => exp(A-B); A/exp(B) => A*exp(-B); A/pow(B,C) => A*pow(B,-C) (integers
  too); A/sqrt(B) => A*rsqrt(B) and A/rsqrt(B) => A*sqrt(B) (single-use root); A/broadcast(B) =>
  A*broadcast(1/B) (CPU, B single-use, not complex); (A/B)/(C/D) => (A*D)/(B*C); (A/B)/C =>
  A/(B*C); A/(B/C) => (A*C)/B; convert(pred)/broadcast(Y) => broadcast(1/Y)*X. (A/Const is
  div_float_constant in algsimp_arith.py.)
- multiply: constant reassociation (A*C1)*C2 and (X*C1)*(Y*C2); (A*C)*broadcast(B) =>
  A*broadcast(B*C); exp(A)*exp(B) => exp(A+B); sqrt(x)^2 => x and rsqrt(x)^2 => 1/x for x >= 0;
  X*convert(pred P) => select(P, X, 0).
- add: (A + C1) + C2 => A + (C1 + C2), (C1 - A) + C2 => (C1 + C2) - A (also with the subtracts
  XLA first turns into adds of -C).
- log(exp(A)) => A (log_exp; real types only for the exp, log and sqrt rules), log(pow(A,B)) => B*log|A| (0 where B = 0),
  log(sqrt(A)) => 0.5*log(A), log(rsqrt(A)) => -0.5*log(A).
- power: pow(exp(A),B) => exp(A*B); pow(A,3) => A*(A*A); pow(A,0.5) => sqrt(A) for A >= 0.
- rsqrt(pow(A,-2)) => A and rsqrt(1/A) => sqrt(A) for A >= 0; sqrt(A*A) => |A|.

bf16: XLA CPU's FloatNormalization has made every bf16 op an f32 op between converts before
algsimp runs, so patterns across two bf16 ops do not match there (a convert pair sits between)
and these rules leave bf16 alone, except pow(A,3), which XLA matches on the f32 op.

Folded constants (C1 + C2, C1 * C2) are computed here in the element type with IEEE gradual
underflow, as XLA's constant folding computes them (HloEvaluator, denormals kept).
"""
from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from hlotools.ir.instruction import Instruction
from hlotools.ir.types import F32, PRED
from hlotools.passes import algsimp_arith
from hlotools.passes.algsimp_core import (
    INEXACT_RULES,
    Builder,
    Rule,
    bf16_waits_for_normalization,
    constant_array,
    folded,
    is_all,
    rule,
    widening,
)


def inexact_rule(*opcodes: str) -> Callable[[Rule], Rule]:
    """Register a float-changing rule: in algsimp's table (tried only when the run allows
    inexact rewrites, b.inexact) and in INEXACT_RULES, which algsimp-inexact runs alone."""
    def register(fn: Rule) -> Rule:
        @functools.wraps(fn)
        def guarded(inst: Instruction, b: Builder) -> Instruction | None:
            return fn(inst, b) if b.inexact else None
        INEXACT_RULES.register(*opcodes)(guarded)
        return rule(*opcodes)(guarded)
    return register


# -- what the rules look at ------------------------------------------------------------------------
def _direct(inst: Instruction) -> bool:
    """A float or complex array op that XLA's algsimp sees in its own type (not bf16)."""
    t = inst.shape.element_type if inst.shape.is_array else None
    return t is not None and (t.is_float or t.is_complex) and t.name != "bf16"


def _real(inst: Instruction) -> bool:
    """A real float op in its own type: complex exp, log and sqrt never reach XLA's algsimp as
    such (jaxlib's HLO -> StableHLO import expands them into real ops), and constant folding of
    complex products is not modelled."""
    return _direct(inst) and not inst.shape.element_type.is_complex  # type: ignore[union-attr]


def _is(inst: Instruction, opcode: str) -> bool:
    return inst.opcode == opcode


def _single_use(inst: Instruction) -> bool:
    return len(inst.users) == 1


def _constant_term(inst: Instruction) -> tuple[np.ndarray, bool] | None:
    """(value, broadcast?) for XLA's `Constant()` or `Broadcast(ConstantScalar())` operands."""
    if inst.opcode == "broadcast":
        inner = inst.operands[0]
        value = folded(inner)
        return (value, True) if value is not None and inner.shape.rank == 0 else None
    value = folded(inst)
    return (value, False) if value is not None else None


def _fold(b: Builder, like: Instruction, value: np.ndarray, broadcast: bool) -> Instruction:
    """A folded constant for `like`: a scalar broadcast to its shape, or an array constant."""
    t = like.shape.element_type
    assert t is not None
    value = np.asarray(value, t.dtype)
    if broadcast:
        return b.broadcast(b.scalar(t, value.reshape(())), like.shape, ())
    return b.constant(like.shape, value.reshape(like.shape.dims))


def _ieee(op: np.ufunc, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(op(x, y))


def _ordered(inst: Instruction, opcode: str, first: str) -> tuple[Instruction, Instruction] | None:
    """(the operand of opcode `first`, the other one) of a binary `opcode` instruction, trying
    operand 0 first (XLA's AnyOrder matchers)."""
    if inst.opcode != opcode:
        return None
    x, y = inst.operands
    if x.opcode == first:
        return x, y
    if y.opcode == first:
        return y, x
    return None


def is_non_negative(inst: Instruction) -> bool:
    """XLA's IsNonNegative (real types): x*x, abs, exp, iota, a non-negative scalar constant
    (not -0 or NaN), through broadcast, min of two / max of one, pow(x, _), select of two."""
    t = inst.shape.element_type if inst.shape.is_array else None
    if t is None or t.is_complex or any(o.shape.is_array and o.shape.element_type is not None
                                        and o.shape.element_type.is_complex for o in inst.operands):
        return False
    op = inst.opcode
    if op == "multiply":
        return inst.operands[0] is inst.operands[1]
    if op in ("abs", "exponential", "iota"):
        return True
    if op == "broadcast":
        return is_non_negative(inst.operands[0])
    if op == "constant":
        value = constant_array(inst)
        return (value is not None and value.size == 1 and not np.signbit(value.astype(np.float64)).any()
                and not np.isnan(value.astype(np.float64)).any())
    if op == "minimum":
        return all(is_non_negative(o) for o in inst.operands)
    if op == "maximum":
        return any(is_non_negative(o) for o in inst.operands)
    if op == "power":
        return is_non_negative(inst.operands[0])
    if op == "select":
        return is_non_negative(inst.operands[1]) and is_non_negative(inst.operands[2])
    return False


# -- divide ------------------------------------------------------------------------------------------
@inexact_rule("divide")
def div_exp_exp(inst: Instruction, b: Builder) -> Instruction | None:
    """exp(A) / exp(B) => exp(A - B) (XLA: every type; overflow and rounding differ)."""
    x, y = inst.operands
    if not _real(inst) or x.opcode != "exponential" or y.opcode != "exponential":
        return None
    return b.unary("exponential", b.binary("subtract", x.operands[0], y.operands[0]))


@inexact_rule("divide")
def div_exp(inst: Instruction, b: Builder) -> Instruction | None:
    """A / exp(B) => A * exp(-B), whatever exp's other users."""
    x, y = inst.operands
    if not _real(inst) or y.opcode != "exponential":
        return None
    return b.binary("multiply", x, b.unary("exponential", b.unary("negate", y.operands[0])))


@inexact_rule("divide")
def div_pow(inst: Instruction, b: Builder) -> Instruction | None:
    """A / pow(B, C) => A * pow(B, -C). XLA does it before its "integral division" stop, so
    integers too (s32 7 / pow(2, 1) = 3 becomes 7 * pow(2, -1) = 0): XLA's answer."""
    x, y = inst.operands
    t = inst.shape.element_type if inst.shape.is_array else None
    if t is None or t.name == "bf16" or t.kind in ("pred", "unsigned") or y.opcode != "power":
        return None
    base, exponent = y.operands
    return b.binary("multiply", x, b.binary("power", base, b.unary("negate", exponent), base.shape))


@inexact_rule("divide")
def div_sqrt(inst: Instruction, b: Builder) -> Instruction | None:
    """A / sqrt(B) => A * rsqrt(B) when the sqrt has no other user."""
    x, y = inst.operands
    if not _real(inst) or y.opcode != "sqrt" or not _single_use(y):
        return None
    return b.binary("multiply", x, b.unary("rsqrt", y.operands[0]))


@inexact_rule("divide")
def div_rsqrt(inst: Instruction, b: Builder) -> Instruction | None:
    """A / rsqrt(B) => A * sqrt(B) when the rsqrt has no other user."""
    x, y = inst.operands
    if not _direct(inst) or y.opcode != "rsqrt" or not _single_use(y):
        return None
    return b.binary("multiply", x, b.unary("sqrt", y.operands[0]))


# XLA's A / Const comes here (HandleDivide's order): algsimp_arith.div_float_constant, which
# takes the exact reciprocals under spec too and so is registered as a plain rule there.
INEXACT_RULES.add("divide", algsimp_arith.div_float_constant)


@inexact_rule("divide")
def div_broadcast_reciprocal(inst: Instruction, b: Builder) -> Instruction | None:
    """A / broadcast(B) => A * broadcast(1 / B), B used only by the broadcast, not complex
    (XLA: executing_on_cpu and enable_sink_broadcast). The reciprocal is computed at run time,
    once per element of B. bf16 (f32 after XLA's normalization): 1/B and the product in f32,
    one rounding to bf16 at the end."""
    x, y = inst.operands
    t = inst.shape.element_type if inst.shape.is_array else None
    if t is None or not t.is_float or t.name not in ("f16", "bf16", "f32", "f64"):
        return None
    bcast = y.operands[0] if y.opcode == "convert" and widening(y) and _single_use(y) else y
    if bcast.opcode != "broadcast" or not _single_use(bcast.operands[0]) or folded(bcast.operands[0]) is not None:
        return None  # a constant divisor is div_float_constant's
    if _broadcasts_sink(x, bcast):
        return None  # XLA moves the broadcast below the divide first: broadcast(a / b) stays a quotient
    source = bcast.operands[0]
    dims = tuple(bcast.attrs.get("dimensions", ()))
    if t.name == "bf16":
        return None if bf16_waits_for_normalization(inst) else _bf16_via_f32(inst, b, x, source, dims)
    if bcast is not y:  # float-normalization's f32 twin: convert(broadcast(B)) is broadcast(convert(B))
        source = b.unary("convert", source, source.shape.with_element_type(t))
    recip = b.binary("divide", b.filled(source, 1), source, source.shape)
    return b.binary("multiply", x, b.broadcast(recip, y.shape, dims))


def _broadcasts_sink(x: Instruction, bcast: Instruction) -> bool:
    """XLA's TryToSinkBroadcastAfterElementwiseOps takes the divide first when its other
    operand is a broadcast of a scalar or of the same shape with the same dimensions."""
    if x.opcode != "broadcast" or bcast.shape.rank == 0:
        return False
    inner, other = x.operands[0], bcast.operands[0]
    return inner.shape.rank == 0 or (inner.shape.dims == other.shape.dims
                                     and x.attrs.get("dimensions") == bcast.attrs.get("dimensions"))


def _bf16_via_f32(inst: Instruction, b: Builder, x: Instruction, source: Instruction,
                  dims: tuple[int, ...]) -> Instruction:
    """convert_bf16(convert_f32(x) * broadcast(1 / convert_f32(source))): XLA's f32 ops."""
    wide_source = b.unary("convert", source, source.shape.with_element_type(F32))
    recip = b.binary("divide", b.filled(wide_source, 1), wide_source, wide_source.shape)
    wide_x = b.unary("convert", x, x.shape.with_element_type(F32))
    wide_y = b.broadcast(recip, inst.shape.with_element_type(F32), dims)
    return b.unary("convert", b.binary("multiply", wide_x, wide_y, wide_x.shape), inst.shape)


@inexact_rule("divide")
def div_div_div(inst: Instruction, b: Builder) -> Instruction | None:
    """(A / B) / (C / D) => (A * D) / (B * C)."""
    x, y = inst.operands
    if not _direct(inst) or x.opcode != "divide" or y.opcode != "divide":
        return None
    (a, b_), (c, d) = x.operands, y.operands
    return b.binary("divide", b.binary("multiply", a, d), b.binary("multiply", b_, c))


@inexact_rule("divide")
def div_div_left(inst: Instruction, b: Builder) -> Instruction | None:
    """(A / B) / C => A / (B * C)."""
    x, c = inst.operands
    if not _direct(inst) or x.opcode != "divide":
        return None
    a, b_ = x.operands
    return b.binary("divide", a, b.binary("multiply", b_, c))


@inexact_rule("divide")
def div_div_right(inst: Instruction, b: Builder) -> Instruction | None:
    """A / (B / C) => (A * C) / B."""
    a, y = inst.operands
    if not _direct(inst) or y.opcode != "divide":
        return None
    b_, c = y.operands
    return b.binary("divide", b.binary("multiply", a, c), b_)


@inexact_rule("divide")
def div_pred_convert(inst: Instruction, b: Builder) -> Instruction | None:
    """convert(pred P) / broadcast(scalar Y) => broadcast(1/Y) * convert(P), whatever Y's other
    users (the single-use case is div_broadcast_reciprocal's)."""
    x, y = inst.operands
    if not _direct(inst) or x.opcode != "convert" or x.operands[0].shape.element_type is not PRED:
        return None
    if y.opcode != "broadcast" or y.operands[0].shape.rank != 0:
        return None
    source = y.operands[0]
    recip = b.binary("divide", b.filled(source, 1), source, source.shape)
    return b.binary("multiply", b.broadcast(recip, inst.shape, ()), x)


# -- multiply ------------------------------------------------------------------------------------------
@inexact_rule("multiply")
def mul_convert_pred_to_select(inst: Instruction, b: Builder) -> Instruction | None:
    """X * convert(pred P) => select(P, X, 0): NaN and inf times false give 0, -x gives +0."""
    if not _direct(inst):
        return None
    x, y = inst.operands
    for conv, other in ((y, x), (x, y)):
        if conv.opcode == "convert" and conv.operands[0].shape.element_type is PRED:
            return b.new("select", inst.shape, [conv.operands[0], other, b.filled(inst, 0)])
    return None


def _times_constant(inst: Instruction) -> tuple[Instruction, np.ndarray, bool] | None:
    """(A, C, broadcast?) for Multiply(NonConstant A, C) in either order, C a Constant (or,
    with `broadcast`, a broadcast scalar constant)."""
    if inst.opcode != "multiply":
        return None
    x, y = inst.operands
    for a, c in ((x, y), (y, x)):
        term = _constant_term(c)
        if term is not None and folded(a) is None and a.opcode != "constant":
            return a, term[0], term[1]
    return None


@inexact_rule("multiply")
def mul_mul_constants_pair(inst: Instruction, b: Builder) -> Instruction | None:
    """(X * C1) * (Y * C2) => (X * Y) * (C1 * C2), C1 and C2 constants (not broadcasts)."""
    if not _real(inst):
        return None
    x, y = inst.operands
    left, right = _times_constant(x), _times_constant(y)
    if left is None or right is None or left[2] or right[2] or x is y:
        return None
    product = _ieee(np.multiply, left[1], right[1])
    return b.binary("multiply", b.binary("multiply", left[0], right[0]), _fold(b, inst, product, False))


@inexact_rule("multiply")
def mul_reassociate_constants(inst: Instruction, b: Builder) -> Instruction | None:
    """(A * C1) * C2 => A * (C1 * C2): constants in either order, or broadcast scalar
    constants on the right (XLA's two forms); integers are mul_reassociate_int_constants'."""
    if not _real(inst):
        return None
    x, y = inst.operands
    for inner, c2 in ((x, y), (y, x)):
        outer = _constant_term(c2)
        term = _times_constant(inner)
        if outer is None or term is None or outer[1] != term[2]:
            continue
        if outer[1] and (inner is not x or inner.operands[1] is term[0]):
            continue  # the broadcast form is Multiply(Multiply(A, bcast C1), bcast C2)
        return b.binary("multiply", term[0], _fold(b, inst, _ieee(np.multiply, term[1], outer[0]), outer[1]))
    return None


@inexact_rule("multiply")
def mul_mul_broadcast(inst: Instruction, b: Builder) -> Instruction | None:
    """(A * C) * broadcast(B) => A * broadcast(B * C), C a scalar constant (or a broadcast of
    one) and B not a constant: the product with C moves to B's smaller shape."""
    if not _direct(inst) or inst.shape.element_type.is_complex:  # type: ignore[union-attr]
        return None
    x, y = inst.operands
    for inner, op in ((x, y), (y, x)):
        term = _times_constant(inner)
        if term is None or term[1].size != 1 or op.opcode != "broadcast" or op.operands[0].opcode == "constant":
            continue
        source = op.operands[0]
        c = b.scalar(source.shape.element_type, term[1].reshape(()))  # type: ignore[arg-type]
        scaled = b.binary("multiply", source, b.broadcast(c, source.shape, ()), source.shape)
        return b.binary("multiply", term[0], b.broadcast(scaled, inst.shape, tuple(op.attrs.get("dimensions", ()))))
    return None


@inexact_rule("multiply")
def mul_exp_exp(inst: Instruction, b: Builder) -> Instruction | None:
    """exp(A) * exp(B) => exp(A + B)."""
    x, y = inst.operands
    if not _real(inst) or x.opcode != "exponential" or y.opcode != "exponential":
        return None
    return b.unary("exponential", b.binary("add", x.operands[0], y.operands[0]))


@inexact_rule("multiply")
def mul_sqrt_sqrt(inst: Instruction, b: Builder) -> Instruction | None:
    """sqrt(X) * sqrt(X) => X for X known non-negative (one sqrt or two equal ones)."""
    x, y = inst.operands
    if not _direct(inst) or x.opcode != "sqrt" or y.opcode != "sqrt" or x.operands[0] is not y.operands[0]:
        return None
    return x.operands[0] if is_non_negative(x.operands[0]) else None


@inexact_rule("multiply")
def mul_rsqrt_rsqrt(inst: Instruction, b: Builder) -> Instruction | None:
    """rsqrt(X) * rsqrt(X) => 1 / X for X known non-negative."""
    x, y = inst.operands
    if not _direct(inst) or x.opcode != "rsqrt" or y.opcode != "rsqrt" or x.operands[0] is not y.operands[0]:
        return None
    a = x.operands[0]
    return b.binary("divide", b.filled(a, 1), a) if is_non_negative(a) else None


# -- add / subtract ----------------------------------------------------------------------------------
def _plus_constant(inst: Instruction) -> tuple[Instruction, np.ndarray, bool] | None:
    """(A, C, broadcast?) for A + C or A - C (as A + (-C), XLA's canonical form), A not a constant."""
    if inst.opcode not in ("add", "subtract"):
        return None
    a, c = inst.operands
    term = _constant_term(c)
    if term is None or folded(a) is not None or a.opcode == "constant":
        return None
    value = term[0] if inst.opcode == "add" else np.negative(term[0])
    return a, value, term[1]


@inexact_rule("add", "subtract")
def add_reassociate_float_constants(inst: Instruction, b: Builder) -> Instruction | None:
    """(A + C1) + C2 => A + (C1 + C2) for floats, both constants or both broadcast scalar
    constants; a subtract of a constant counts as the add of its negation (XLA rewrites it so
    first, and folds the negation)."""
    if not _real(inst):
        return None
    outer = _plus_constant(inst)
    if outer is None:
        return None
    inner = _plus_constant(outer[0])
    if inner is None or inner[2] != outer[2]:
        return None
    total = _ieee(np.add, inner[1], outer[1])
    return b.binary("add", inner[0], _fold(b, inst, total, outer[2]))


@inexact_rule("add", "subtract")
def add_sub_float_constants(inst: Instruction, b: Builder) -> Instruction | None:
    """(C1 - A) + C2 => (C1 + C2) - A for floats (C2 may be a subtracted constant)."""
    if not _real(inst):
        return None
    outer = _plus_constant(inst)
    if outer is None or outer[0].opcode != "subtract":
        return None
    c1, a = outer[0].operands
    term = _constant_term(c1)
    if term is None or term[1] != outer[2] or folded(a) is not None or a.opcode == "constant":
        return None
    return b.binary("subtract", _fold(b, inst, _ieee(np.add, term[0], outer[1]), outer[2]), a)


# -- log ---------------------------------------------------------------------------------------------
@inexact_rule("log")
def log_pow(inst: Instruction, b: Builder) -> Instruction | None:
    """log(pow(A, B)) => select(B == 0, 0, log(|A|) * B)."""
    x = inst.operands[0]
    if not _real(inst) or x.opcode != "power":
        return None
    a, exponent = x.operands
    product = b.binary("multiply", b.unary("log", b.unary("abs", a), inst.shape), exponent)
    is_zero = b.compare(exponent, b.filled(exponent, 0), "EQ")
    return b.new("select", inst.shape, [is_zero, b.filled(inst, 0), product])


@inexact_rule("log")
def log_sqrt(inst: Instruction, b: Builder) -> Instruction | None:
    """log(sqrt(A)) => log(A) * 0.5."""
    x = inst.operands[0]
    if not _real(inst) or x.opcode != "sqrt":
        return None
    return b.binary("multiply", b.unary("log", x.operands[0], inst.shape), b.filled(inst, 0.5))


@inexact_rule("log")
def log_rsqrt(inst: Instruction, b: Builder) -> Instruction | None:
    """log(rsqrt(A)) => log(A) * -0.5."""
    x = inst.operands[0]
    if not _real(inst) or x.opcode != "rsqrt":
        return None
    return b.binary("multiply", b.unary("log", x.operands[0], inst.shape), b.filled(inst, -0.5))


# -- power / rsqrt / sqrt ------------------------------------------------------------------------------
@inexact_rule("power")
def pow_exp(inst: Instruction, b: Builder) -> Instruction | None:
    """pow(exp(A), B) => exp(A * B)."""
    x, y = inst.operands
    if not _real(inst) or x.opcode != "exponential":
        return None
    return b.unary("exponential", b.binary("multiply", x.operands[0], y))


@inexact_rule("power")
def pow_three(inst: Instruction, b: Builder) -> Instruction | None:
    """pow(A, 3) => A * (A * A) (GELU's cube): two roundings. bf16 too, in f32 (XLA matches
    the normalised f32 power, whose exponent constant-folds to 3)."""
    x, y = inst.operands
    t = inst.shape.element_type if inst.shape.is_array else None
    if t is None or not (t.is_float or t.is_complex) or not is_all(y, 3):
        return None
    if t.name != "bf16":
        return b.binary("multiply", x, b.binary("multiply", x, x))
    if bf16_waits_for_normalization(inst):
        return None
    wide = b.unary("convert", x, x.shape.with_element_type(F32))
    cube = b.binary("multiply", wide, b.binary("multiply", wide, wide, wide.shape), wide.shape)
    return b.unary("convert", cube, inst.shape)


@inexact_rule("power")
def pow_half(inst: Instruction, b: Builder) -> Instruction | None:
    """pow(A, 0.5) => sqrt(A) for A known non-negative (pow's and sqrt's roundings differ)."""
    x, y = inst.operands
    if not _real(inst) or not is_all(y, 0.5) or not is_non_negative(x):
        return None
    return b.unary("sqrt", x)


@inexact_rule("rsqrt")
def rsqrt_pow_minus_two(inst: Instruction, b: Builder) -> Instruction | None:
    """rsqrt(pow(A, -2)) => A for A known non-negative."""
    x = inst.operands[0]
    if not _direct(inst) or x.opcode != "power" or not is_all(x.operands[1], -2):
        return None
    return x.operands[0] if is_non_negative(x.operands[0]) else None


@inexact_rule("rsqrt")
def rsqrt_reciprocal(inst: Instruction, b: Builder) -> Instruction | None:
    """rsqrt(1 / A) => sqrt(A) for A known non-negative."""
    x = inst.operands[0]
    if not _direct(inst) or x.opcode != "divide" or not is_all(x.operands[0], 1):
        return None
    a = x.operands[1]
    return b.unary("sqrt", a) if is_non_negative(a) else None


@inexact_rule("sqrt")
def sqrt_square(inst: Instruction, b: Builder) -> Instruction | None:
    """sqrt(A * A) => |A| (A * A may overflow or underflow; |A| does not). Not complex: jaxlib
    expands complex sqrt before algsimp (XLA's algsimp_test_0327 records the expanded values)."""
    x = inst.operands[0]
    if not _real(inst) or x.opcode != "multiply" or x.operands[0] is not x.operands[1]:
        return None
    return b.unary("abs", x.operands[0])


# -- the interpreter's question: is there anything to do? -------------------------------------------------
_OPERAND_TRIGGERS: dict[str, frozenset[str]] = {
    "multiply": frozenset({"multiply", "exponential", "sqrt", "rsqrt", "convert", "broadcast"}),
    "add": frozenset({"add", "subtract"}),
    "subtract": frozenset({"add", "subtract"}),
    "log": frozenset({"exponential", "power", "sqrt", "rsqrt"}),
    "rsqrt": frozenset({"power", "divide"}),
    "sqrt": frozenset({"multiply"}),
}


def may_rewrite(inst: Instruction) -> bool:
    """A cheap over-approximation of "some inexact rule (or A / Const) could match `inst`"."""
    op = inst.opcode
    if op == "divide":
        return _direct(inst) or (inst.shape.is_array and inst.shape.element_type is not None
                                 and inst.shape.element_type.name == "bf16") or inst.operands[1].opcode == "power"
    if op == "power":
        return inst.shape.is_array
    triggers = _OPERAND_TRIGGERS.get(op)
    return triggers is not None and _direct(inst) and any(o.opcode in triggers for o in inst.operands)


@inexact_rule("log")
def log_exp(inst: Instruction, b: Builder) -> Instruction | None:
    """log(exp(A)) => A: jaxlib 0.10's XLA CPU makes it without fast math (log(exp(100)) is
    100, not inf). log_exp_fast_math makes it under spec with enable_fast_math."""
    x = inst.operands[0]
    return x.operands[0] if _real(inst) and x.opcode == "exponential" else None
