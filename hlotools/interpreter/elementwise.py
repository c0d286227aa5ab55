"""Elementwise kernels: unary, binary, compare, select, clamp.

Every kernel computes in `numeric.compute_dtype` (f32 for f16/bf16/f8, as XLA CPU does) and
rounds once to the result type. Kernels only look at element types, never at dims, so they
also run "batched" (a scalar computation applied to whole arrays, see Evaluator.apply).
Integer corner cases follow XLA's evaluator (hlo_evaluator_typed_visitor.h); see the
docstrings of the individual helpers.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from hlotools.errors import HloRuntimeError, HloUnsupportedError
from hlotools.interpreter import complex_ops, polynomials, special
from hlotools.interpreter.numeric import (
    contiguous,
    finish,
    float_maximum,
    float_minimum,
    quiet_nan,
    to_compute,
    unsigned_view,
)
from hlotools.interpreter.registry import kernel
from hlotools.ir import semantics
from hlotools.ir.instruction import Instruction
from hlotools.ir.types import ElementType, int_limits

Array = np.ndarray
UnaryFn = Callable[[Array, ElementType], Array]
BinaryFn = Callable[[Array, Array, ElementType], Array]


def _is_int(et: ElementType) -> bool:
    return et.kind in ("signed", "unsigned")


# --------------------------------------------------------------------------- unary

def _abs(x: Array, et: ElementType) -> Array:
    return np.abs(x)  # complex -> modulus (real dtype); INT_MIN stays INT_MIN (wraps)


def _negate(x: Array, et: ElementType) -> Array:
    if et.kind == "pred":
        return x
    return np.negative(x)


def _not(x: Array, et: ElementType) -> Array:
    if et.kind == "pred":
        return np.logical_not(x)
    if _is_int(et):
        return np.invert(x)
    raise HloRuntimeError(f"not is undefined for {et}")


def _sign(x: Array, et: ElementType) -> Array:
    if et.kind == "complex":
        mag = np.abs(x)
        return np.where(mag == 0, x, x / np.where(mag == 0, 1, mag)).astype(x.dtype)
    if et.kind == "float":
        # copysign(x != 0, x): keeps -0 and +0; NaN stays NaN.
        return np.where(np.isnan(x), x, np.copysign((x != 0).astype(x.dtype), x))
    return np.sign(x).astype(x.dtype)


def _round_afz(x: Array, et: ElementType) -> Array:
    """std::round: half away from zero (floor(|x|+0.5) would misround 0.49999997)."""
    if _is_int(et):
        return x
    t = np.trunc(x)
    frac = x - t
    r = t + np.where(np.abs(frac) >= 0.5, np.sign(x), 0).astype(x.dtype)
    return np.copysign(r, x)


def _round_even(x: Array, et: ElementType) -> Array:
    return x if _is_int(et) else np.rint(x)


def _popcnt(x: Array, et: ElementType) -> Array:
    return np.bitwise_count(unsigned_view(x, et)).astype(x.dtype)


def _clz(x: Array, et: ElementType) -> Array:
    """Count leading zeros at width et.bits: bits - bit_length(unsigned pattern)."""
    u = unsigned_view(x, et)
    length = np.zeros(u.shape, np.int64)
    shift = 32
    while shift >= 1:
        if shift < et.bits:
            hi = (u >> np.uint64(shift)) != 0
            length += hi * shift
            u = np.where(hi, u >> np.uint64(shift), u)
        shift //= 2
    length += (u != 0)
    return (et.bits - length).astype(x.dtype)


def _real(x: Array, et: ElementType) -> Array:
    return np.real(x)


def _imag(x: Array, et: ElementType) -> Array:
    return np.imag(x) if et.kind == "complex" else np.zeros_like(x)


def _exp(x: Array) -> Array:
    """f32 (and f16/bf16 computed in f32): XLA CPU's polynomial, bit for bit; f64 and complex: numpy."""
    return polynomials.exp_f32(x) if x.dtype == np.float32 else np.exp(x)


def _tanh(x: Array) -> Array:
    return polynomials.tanh_f32(x) if x.dtype == np.float32 else np.tanh(x)


def _logistic(x: Array, et: ElementType) -> Array:
    """1 / (1 + exp(-x)); f16 rounds to f16 after each step, as XLA CPU expands it (its
    logistic expander runs before f16 is upcast; bf16 stays in f32): 1462 of 4096 f16 values
    differed by an ulp computed in f32 throughout."""
    one = np.ones((), x.dtype)
    if et.name == "f16":
        def r(v: Array) -> Array:
            return v.astype(np.float16).astype(x.dtype)
        return one / r(one + r(_exp(-x)))
    return one / (one + (_exp(-x) if et.kind == "float" else np.exp(-x)))


def _rsqrt(x: Array, et: ElementType) -> Array:
    return np.ones((), x.dtype) / np.sqrt(x)


def _erf(x: Array, et: ElementType) -> Array:
    if et.kind != "float":
        raise HloUnsupportedError(f"erf of {et}")
    return special.erf(x).astype(x.dtype)


def _is_finite(x: Array, et: ElementType) -> Array:
    return np.isfinite(x)


def _float_only(name: str, fn: Callable[[Array], Array]) -> UnaryFn:
    def apply(x: Array, et: ElementType) -> Array:
        if et.kind not in ("float", "complex"):
            raise HloRuntimeError(f"{name} is undefined for {et}")
        return fn(x)
    return apply


_UNARY: dict[str, UnaryFn] = {
    "abs": _abs, "negate": _negate, "not": _not, "sign": _sign,
    "round-nearest-afz": _round_afz, "round-nearest-even": _round_even,
    "popcnt": _popcnt, "count-leading-zeros": _clz, "real": _real, "imag": _imag,
    "logistic": _logistic, "rsqrt": _rsqrt, "erf": _erf, "is-finite": _is_finite,
    "ceil": _float_only("ceil", np.ceil), "floor": _float_only("floor", np.floor),
    "exponential": _float_only("exponential", _exp),
    "exponential-minus-one": _float_only("exponential-minus-one", np.expm1),
    "log": _float_only("log", np.log), "log-plus-one": _float_only("log-plus-one", np.log1p),
    "sqrt": _float_only("sqrt", np.sqrt), "cbrt": _float_only("cbrt", np.cbrt),
    "sine": _float_only("sine", np.sin), "cosine": _float_only("cosine", np.cos),
    "tan": _float_only("tan", np.tan), "tanh": _float_only("tanh", _tanh),
    "sinh": _float_only("sinh", np.sinh), "cosh": _float_only("cosh", np.cosh),
    "acos": _float_only("acos", np.arccos), "acosh": _float_only("acosh", np.arccosh),
    "asin": _float_only("asin", np.arcsin), "asinh": _float_only("asinh", np.arcsinh),
    "atanh": _float_only("atanh", np.arctanh),
}


# A NaN operand comes out of these as itself, quieted (logistic: of its negation, as
# 1 / (1 + exp(-x))): what x86 arithmetic, XLA CPU's polynomials and libm do. numpy's own
# loops return a canonical +NaN instead for some of them (exp, sin, tanh, ... with SIMD).
_NAN_PASSES = frozenset({"exponential", "exponential-minus-one", "sqrt", "rsqrt", "cbrt", "sine", "cosine",
                         "tan", "tanh", "sinh", "cosh", "acos", "acosh", "asin", "asinh", "atanh", "erf",
                         "ceil", "floor", "round-nearest-afz", "round-nearest-even", "logistic"})
# XLA CPU's log and log1p computed in f32 (its own polynomial, Eigen's plog; not f16's log)
# answer every invalid operand (NaN, x < 0, x < -1) with the all-ones pattern 0xFFFFFFFF;
# f64 goes to libm (log(x < 0) is +NaN). emit_arith._xla_log is the LLVM side.
_LOG_DOMAIN = {"log": 0.0, "log-plus-one": -1.0}


def _nan_rule(opcode: str, x: Array, r: Array, et: ElementType) -> Array:
    if et.kind != "float" or r.dtype.kind != "f":
        return r
    if opcode in _LOG_DOMAIN and not (opcode == "log" and et.name == "f16"):  # f16 log is libm's
        bad = np.isnan(x) | (x < _LOG_DOMAIN[opcode])
        if not np.any(bad):
            return r
        if x.dtype == np.float64:
            return np.where(np.isnan(x), quiet_nan(x), np.where(bad, np.float64(np.nan), r))
        return np.where(bad, np.array(0xFFFFFFFF, np.uint32).view(np.float32), r)
    if opcode in _NAN_PASSES or opcode == "log":
        nan = np.isnan(x)
        if np.any(nan):
            return np.where(nan, quiet_nan(-x if opcode == "logistic" else x), r)
    return r


@kernel(*_UNARY)
def unary(inst: Instruction, args: list, ev: object) -> Array:
    et = inst.operand_element_type()
    x = to_compute(args[0], et)
    if et.kind == "complex" and inst.opcode in complex_ops.NUMPY_UNARY:
        return finish(complex_ops.numpy_unary(inst.opcode, x), inst.element_type)
    r = _nan_rule(inst.opcode, x, np.asarray(_UNARY[inst.opcode](x, et)), et)  # FP warnings are off
    return finish(r, inst.element_type)


@kernel("copy")
def copy(inst: Instruction, args: list, ev: object) -> object:
    """Logically an identity (a physical relayout only)."""
    return args[0]


# -------------------------------------------------------------------------- binary

def _int_divide(x: Array, y: Array, et: ElementType) -> Array:
    """C division (toward zero); x/0 = all ones (-1 signed, max unsigned); INT_MIN/-1 = INT_MIN."""
    zero = y == 0
    if et.kind == "unsigned":
        safe = np.where(zero, 1, y).astype(x.dtype)
        return np.where(zero, np.array(int_limits(et)[1]).astype(x.dtype), x // safe)
    lo = int_limits(et)[0]
    overflow = (x == lo) & (y == -1)
    safe = np.where(zero | overflow, 1, y).astype(x.dtype)
    r = np.fmod(x, safe)
    q = (x - r) // safe  # exact: x - r is a multiple of safe
    q = np.where(overflow, x, q)
    return np.where(zero, np.array(-1).astype(x.dtype), q).astype(x.dtype)


def _int_remainder(x: Array, y: Array, et: ElementType) -> Array:
    """C remainder (sign of the dividend); x % 0 = x; INT_MIN % -1 = 0."""
    zero = y == 0
    bad = zero
    if et.kind == "signed":
        bad = zero | ((x == int_limits(et)[0]) & (y == -1))
    safe = np.where(bad, 1, y).astype(x.dtype)
    r = np.fmod(x, safe)
    return np.where(zero, x, r).astype(x.dtype)


def _divide(x: Array, y: Array, et: ElementType) -> Array:
    if _is_int(et):
        return _int_divide(x, y, et)
    return x / y


def _remainder(x: Array, y: Array, et: ElementType) -> Array:
    if _is_int(et):
        return _int_remainder(x, y, et)
    if et.kind == "complex":
        raise HloRuntimeError("remainder is undefined for complex")
    return np.fmod(x, y)


def _int_power(x: Array, y: Array, et: ElementType) -> Array:
    """Exponentiation by squaring with wraparound. XLA CPU's code (EmitIntegerPow; the
    xla-cpu semantics) squares six times, so only the exponent's low 6 bits count (2^64 = 1),
    and takes an exponent with its top bit set as negative for unsigned types too: then the
    result is 1 for base 1, +-1 for base -1 (all ones) by the exponent's parity, else 0. XLA's
    evaluator (constant folding; the spec semantics) uses the whole exponent and gives 0 for
    every negative exponent but base 1's."""
    signed = et.kind == "signed"
    base = np.asarray(x).astype(np.int64) if signed else np.asarray(x).astype(np.uint64)
    exp = np.asarray(y).astype(np.int64) if signed else np.asarray(y).astype(np.uint64)
    base, exp = np.broadcast_arrays(base, exp)
    xla = semantics.xla_cpu()
    neg = exp < 0 if signed else ((exp >> (et.bits - 1)) & 1) == 1 if xla else np.zeros(exp.shape, bool)
    e = np.where(neg, 0, exp & 63 if xla else exp).astype(exp.dtype)
    acc = np.ones(base.shape, base.dtype)
    b = base.copy()
    while np.any(e != 0):
        odd = (e & 1) == 1
        acc = np.where(odd, acc * b, acc)
        b = b * b
        e = e >> 1
    minus_one = (base == -1) if signed else (base == (1 << et.bits) - 1)
    if xla:  # (-1)^n: -1 for odd n, 1 for even n (the raw all-ones value for unsigned types)
        at_neg = np.where(minus_one, np.where((exp & 1) == 1, base, 1), base == 1)
    else:
        at_neg = base == 1
    acc = np.where(neg, at_neg.astype(acc.dtype), acc)
    return acc.astype(x.dtype)


def _power(x: Array, y: Array, et: ElementType) -> Array:
    if _is_int(et):
        return _int_power(x, y, et)
    if et.kind == "pred":
        return np.logical_or(x, np.logical_not(y))
    return np.power(x, y)


def _shift(kind: str) -> BinaryFn:
    def apply(x: Array, y: Array, et: ElementType) -> Array:
        """Counts are unsigned: a count >= bit width (or negative) shifts everything out
        (arithmetic right shift then fills with the sign bit). Unsigned operands of an
        arithmetic shift are read as signed of the same width, as XLA's evaluator does."""
        bits = et.bits
        mask = np.uint64((1 << bits) - 1)
        ux = unsigned_view(x, et)
        count = unsigned_view(y, et)
        big = count >= np.uint64(bits)
        c = np.where(big, np.uint64(0), count).astype(np.uint64)
        if kind == "left":
            r = np.where(big, np.uint64(0), (ux << c) & mask)
        elif kind == "logical":
            r = np.where(big, np.uint64(0), ux >> c)
        else:
            s = _signed(ux, bits)
            rs = np.where(big, np.where(s < 0, -1, 0), s >> c.astype(np.int64))
            r = rs.astype(np.int64).view(np.uint64) & mask
        return _from_unsigned(np.asarray(r).astype(np.uint64), x.dtype, et)
    return apply


def _signed(u: Array, bits: int) -> Array:
    """Two's-complement value (int64) of a `bits`-wide pattern held in uint64."""
    u = contiguous(np.asarray(u, dtype=np.uint64))
    if bits >= 64:
        return u.view(np.int64)
    s = u.astype(np.int64)
    return np.where(s >= (1 << (bits - 1)), s - (1 << bits), s)


def _from_unsigned(u: Array, dtype: np.dtype, et: ElementType) -> Array:
    """Reinterpret a uint64 bit pattern of width et.bits as the compute dtype `dtype`."""
    if et.kind == "signed":
        return _signed(u, et.bits).astype(dtype)
    return u.astype(dtype)


def _mulhi(x: Array, y: Array, et: ElementType) -> Array:
    """High half of the double-width product."""
    bits = et.bits
    if bits <= 32:
        wide = np.int64 if et.kind == "signed" else np.uint64
        p = np.asarray(x).astype(wide) * np.asarray(y).astype(wide)
        return (p >> bits).astype(x.dtype)
    ux = np.asarray(x).view(np.uint64) if et.kind == "signed" else np.asarray(x).astype(np.uint64)
    uy = np.asarray(y).view(np.uint64) if et.kind == "signed" else np.asarray(y).astype(np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    a_lo, a_hi = ux & m32, ux >> s32
    b_lo, b_hi = uy & m32, uy >> s32
    lo_lo = a_lo * b_lo
    mid1 = a_hi * b_lo + (lo_lo >> s32)
    mid2 = a_lo * b_hi + (mid1 & m32)
    hi = a_hi * b_hi + (mid1 >> s32) + (mid2 >> s32)
    if et.kind == "signed":
        hi = hi - np.where(np.asarray(x) < 0, uy, 0).astype(np.uint64) \
            - np.where(np.asarray(y) < 0, ux, 0).astype(np.uint64)
        return hi.view(np.int64).astype(x.dtype)
    return hi.astype(x.dtype)


def _logic(fn_bool: Callable[[Array, Array], Array], fn_int: Callable[[Array, Array], Array]) -> BinaryFn:
    def apply(x: Array, y: Array, et: ElementType) -> Array:
        if et.kind == "pred":
            return fn_bool(x, y)
        if _is_int(et):
            return fn_int(x, y)
        raise HloRuntimeError(f"bitwise op on {et}")
    return apply


def _arith(fn: Callable[[Array, Array], Array], pred_fn: Callable[[Array, Array], Array]) -> BinaryFn:
    def apply(x: Array, y: Array, et: ElementType) -> Array:
        return pred_fn(x, y) if et.kind == "pred" else fn(x, y)
    return apply


def _max(x: Array, y: Array, et: ElementType) -> Array:
    if et.kind == "complex":
        raise HloRuntimeError("maximum is undefined for complex")
    return float_maximum(x, y) if et.kind == "float" else np.maximum(x, y)


def _min(x: Array, y: Array, et: ElementType) -> Array:
    if et.kind == "complex":
        raise HloRuntimeError("minimum is undefined for complex")
    return float_minimum(x, y) if et.kind == "float" else np.minimum(x, y)


def _atan2(x: Array, y: Array, et: ElementType) -> Array:
    return np.arctan2(x, y)  # complex: ir/complex_math.atan2


def _complex(x: Array, y: Array, et: ElementType) -> Array:
    cdt = np.complex128 if et.bits == 64 else np.complex64
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    out = np.empty(x.shape, cdt)  # not x + 1j*y: inf * 1j would make the real part NaN
    out.real = x
    out.imag = y
    return out


_BINARY: dict[str, BinaryFn] = {
    "add": _arith(np.add, np.logical_or), "subtract": _arith(np.subtract, np.logical_xor),
    "multiply": _arith(np.multiply, np.logical_and), "divide": _divide, "remainder": _remainder,
    "power": _power, "atan2": _atan2, "maximum": _max, "minimum": _min, "complex": _complex,
    "and": _logic(np.logical_and, np.bitwise_and), "or": _logic(np.logical_or, np.bitwise_or),
    "xor": _logic(np.logical_xor, np.bitwise_xor),
    "shift-left": _shift("left"), "shift-right-logical": _shift("logical"),
    "shift-right-arithmetic": _shift("arithmetic"), "mulhi": _mulhi,
}


@kernel(*_BINARY)
def binary(inst: Instruction, args: list, ev: object) -> Array:
    et = inst.operand_element_type()
    x, y = to_compute(args[0], et), to_compute(args[1], et)
    if et.kind == "complex" and inst.opcode in complex_ops.BINARY:
        return finish(complex_ops.numpy_binary(inst.opcode, x, y), inst.element_type)
    r = _BINARY[inst.opcode](x, y, et)
    if et.kind == "float" and inst.opcode in _FIRST_NAN:
        r = _first_operand_nan(x, np.asarray(r))
    return finish(r, inst.element_type)


# x86 arithmetic gives the first operand's NaN (quieted) when both are NaN; numpy's loops (and
# LLVM, which commutes add/multiply) do not keep to it, so both backends pick it explicitly.
_FIRST_NAN = frozenset({"add", "subtract", "multiply", "divide"})


def _first_operand_nan(x: Array, r: Array) -> Array:
    nan = np.isnan(x)
    if not np.any(nan) or r.dtype.kind != "f":
        return r
    return np.where(nan, quiet_nan(x).astype(r.dtype), r)


# ------------------------------------------------------------------------- compare

def total_order_key(x: Array, et: ElementType) -> Array:
    """Signed integers that order floats as -NaN < -inf < ... < -0 < +0 < ... < inf < NaN."""
    nbytes = et.dtype.itemsize if et.dtype is not None else 4
    sdt = np.dtype(f"i{nbytes}")
    s = contiguous(x).view(sdt).astype(np.int64)
    flip = (1 << (8 * nbytes - 1)) - 1
    return np.where(s < 0, s ^ flip, s)


_DIRECTIONS: dict[str, Callable[[Array, Array], Array]] = {
    "EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
    "GT": np.greater, "GE": np.greater_equal,
}


@kernel("compare")
def compare(inst: Instruction, args: list, ev: object) -> Array:
    et = inst.operand_element_type()
    direction = str(inst.attrs.get("direction", ""))
    fn = _DIRECTIONS.get(direction)
    if fn is None:
        raise HloRuntimeError(f"compare has no valid direction (got '{direction}')")
    ctype = str(inst.attrs.get("type", "") or "")
    x, y = args
    if et.kind == "float" and ctype == "TOTALORDER":
        return np.asarray(fn(total_order_key(x, et), total_order_key(y, et)))
    if et.kind == "complex" and direction not in ("EQ", "NE"):
        raise HloRuntimeError(f"compare {direction} is undefined for complex")
    if _is_int(et) or et.kind == "pred":
        x, y = to_compute(x, et), to_compute(y, et)
    elif et.kind == "float":
        x, y = to_compute(x, et), to_compute(y, et)
    return np.asarray(fn(x, y))


# ------------------------------------------------------------------- select, clamp

@kernel("select")
def select(inst: Instruction, args: list, ev: object) -> Array:
    p, a, b = args
    return np.asarray(np.where(p, a, b))


@kernel("clamp")
def clamp(inst: Instruction, args: list, ev: object) -> Array:
    """clamp(min, x, max) = min(max(x, lo), hi), as XLA's elemental emitter builds it; NaN
    anywhere propagates."""
    et = inst.operand_element_type(1)
    lo, x, hi = (to_compute(a, et) for a in args)
    if et.kind == "complex":
        raise HloRuntimeError("clamp is undefined for complex")
    r = _min(_max(x, lo, et), hi, et)  # maximum's and minimum's own rules (signed zeros too)
    return finish(r, inst.element_type)
