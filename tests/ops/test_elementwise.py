"""Per-opcode semantics of the elementwise kernels, on XLA's corner cases.

Expected values are written out by hand from XLA's documented behaviour (hlo_evaluator /
elemental_ir_emitter), never produced by the interpreter.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from hlotools.ir.types import ELEMENT_TYPES
from tests.support.runner import binary, binary_module, opcode, run1, run_both, same_bits, unary, unary_module

I32_MIN, I32_MAX = -(2**31), 2**31 - 1
NEG_NAN = np.copysign(np.float32(np.nan), np.float32(-1))


@opcode("divide")
def test_signed_divide_by_zero_and_overflow(backend: str) -> None:
    x = np.array([7, -7, 7, -7, 5, I32_MIN, I32_MIN, 0], np.int32)
    y = np.array([2, 2, -2, -2, 0, -1, 0, 3], np.int32)
    assert binary("divide", "s32", x, y, backend=backend).tolist() == [3, -3, -3, 3, -1, I32_MIN, -1, 0]


@opcode("divide")
def test_s8_and_s64_divide_overflow(backend: str) -> None:
    assert binary("divide", "s8", np.array([-128, 9], np.int8), np.array([-1, 0], np.int8), backend=backend).tolist() == [-128, -1]
    lo = -(2**63)
    got = binary("divide", "s64", np.array([lo, lo], np.int64), np.array([-1, 2], np.int64), backend=backend)
    assert got.tolist() == [lo, lo // 2]


@opcode("divide")
def test_unsigned_divide_by_zero_is_all_ones(backend: str) -> None:
    got = binary("divide", "u32", np.array([7, 0, 9], np.uint32), np.array([2, 0, 0], np.uint32), backend=backend)
    assert got.tolist() == [3, 2**32 - 1, 2**32 - 1]
    assert binary("divide", "u8", np.array([200], np.uint8), np.array([0], np.uint8), backend=backend).tolist() == [255]


@opcode("remainder")
def test_integer_remainder(backend: str) -> None:
    x = np.array([7, -7, 7, -7, 5, I32_MIN, -5], np.int32)
    y = np.array([2, 2, -2, -2, 0, -1, 0], np.int32)
    assert binary("remainder", "s32", x, y, backend=backend).tolist() == [1, -1, 1, -1, 5, 0, -5]
    assert binary("remainder", "u16", np.array([9, 9], np.uint16), np.array([4, 0], np.uint16), backend=backend).tolist() == [1, 9]


@opcode("remainder")
def test_float_remainder_is_fmod(backend: str) -> None:
    got = binary("remainder", "f32", np.array([5.5, -5.5, 1.0], np.float32), np.array([2, 2, 0], np.float32), backend=backend)
    assert got[0] == 1.5 and got[1] == -1.5 and np.isnan(got[2])


@opcode("shift-left", "shift-right-logical", "shift-right-arithmetic")
def test_shifts_saturate_at_bit_width(backend: str) -> None:
    x = np.array([1, 1, 1, -1, 3], np.int32)
    n = np.array([0, 31, 32, -1, 1], np.int32)
    assert binary("shift-left", "s32", x, n, backend=backend).tolist() == [1, I32_MIN, 0, 0, 6]
    x = np.array([-1, -1, 16, 16], np.int32)
    n = np.array([28, 32, 2, -3], np.int32)
    assert binary("shift-right-logical", "s32", x, n, backend=backend).tolist() == [15, 0, 4, 0]
    x = np.array([-16, -16, 16, 16, -1], np.int32)
    n = np.array([2, 40, 2, 40, -1], np.int32)
    assert binary("shift-right-arithmetic", "s32", x, n, backend=backend).tolist() == [-4, -1, 4, 0, -1]


@opcode("shift-left", "shift-right-logical", "shift-right-arithmetic")
def test_shifts_on_unsigned_and_s64(backend: str) -> None:
    assert binary("shift-right-arithmetic", "u8", np.array([0x80, 0x40], np.uint8),
                  np.array([1, 1], np.uint8), backend=backend).tolist() == [0xC0, 0x20]
    assert binary("shift-left", "u8", np.array([0xFF, 0xFF], np.uint8), np.array([8, 4], np.uint8), backend=backend).tolist() == [0, 0xF0]
    got = binary("shift-left", "s64", np.array([1, 1], np.int64), np.array([63, 64], np.int64), backend=backend)
    assert got.tolist() == [-(2**63), 0]
    got = binary("shift-right-logical", "u64", np.array([2**64 - 1], np.uint64), np.array([60], np.uint64), backend=backend)
    assert got.tolist() == [15]


@opcode("shift-left", "add")
def test_s4_wraps_at_four_bits(backend: str) -> None:
    s4 = ml_dtypes.int4
    got = binary("shift-left", "s4", np.array([1, 1, 3], s4), np.array([3, 4, 1], s4), backend=backend)
    assert got.astype(np.int8).tolist() == [-8, 0, 6]
    got = binary("add", "s4", np.array([7, -8], s4), np.array([1, -1], s4), backend=backend)
    assert got.astype(np.int8).tolist() == [-8, 7]
    got = binary("add", "u4", np.array([15, 3], ml_dtypes.uint4), np.array([1, 4], ml_dtypes.uint4), backend=backend)
    assert got.astype(np.uint8).tolist() == [0, 7]


@opcode("power")
def test_integer_power(backend: str) -> None:
    x = np.array([2, 2, -1, -1, 1, 3, 0, -2, 0], np.int32)
    y = np.array([10, -1, -3, -2, -5, 0, 0, 3, 5], np.int32)
    # negative exponent: 1 for base 1, +-1 for base -1 by parity, else 0: XLA CPU's answers
    # (tests/xla/test_agreement_interp.py has the whole story)
    assert binary("power", "s32", x, y, backend=backend).tolist() == [1024, 0, -1, 1, 1, 1, 1, -8, 0]
    assert binary("power", "s8", np.array([7], np.int8), np.array([7], np.int8), backend=backend).tolist() == [-9]  # 823543 mod 256


@opcode("power", "atan2")
def test_float_power_and_atan2(backend: str) -> None:
    got = binary("power", "f32", np.array([2, 4, np.nan], np.float32), np.array([-1, 0.5, 0], np.float32), backend=backend)
    assert got.tolist() == [0.5, 2.0, 1.0]
    got = binary("atan2", "f32", np.array([1, 1, -1, 0], np.float32), np.array([1, -1, -1, -1], np.float32), backend=backend)
    expected = [math.pi / 4, 3 * math.pi / 4, -3 * math.pi / 4, math.pi]
    assert np.allclose(got, expected, rtol=1e-7)


@opcode("maximum", "minimum")
def test_min_max_propagate_nan_and_order_zeros(backend: str) -> None:
    x = np.array([np.nan, 1, 2, -0.0], np.float32)
    y = np.array([1, np.nan, 3, 5], np.float32)
    mx = binary("maximum", "f32", x, y, backend=backend)
    mn = binary("minimum", "f32", x, y, backend=backend)
    assert np.isnan(mx[:2]).all() and mx[2] == 3 and mx[3] == 5
    assert np.isnan(mn[:2]).all() and mn[2] == 2 and mn[3] == 0 and math.copysign(1, mn[3]) == -1


FLOAT_TYPES = [("f16", np.float16), ("bf16", ml_dtypes.bfloat16), ("f32", np.float32), ("f64", np.float64)]
ZX = [-0.0, 0.0, -0.0, 0.0, np.nan, 1.0, -2.0, 3.0, -np.inf, 5.0]
ZY = [0.0, -0.0, -0.0, 0.0, 1.0, np.nan, -2.0, 2.0, -np.inf, np.inf]
MAX_ZXY = [0.0, 0.0, -0.0, 0.0, np.nan, np.nan, -2.0, 3.0, -np.inf, np.inf]
MIN_ZXY = [-0.0, -0.0, -0.0, 0.0, np.nan, np.nan, -2.0, 2.0, -np.inf, 5.0]


def _bits(a: np.ndarray) -> list[int]:
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize]).tolist()


@opcode("maximum", "minimum")
@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("et,dt", FLOAT_TYPES)
def test_signed_zeros_and_nans_bit_for_bit(op: str, et: str, dt: type, backend: str) -> None:
    """-0 orders below +0 (IEEE 754-2019, llvm.maximum), the NaN operand comes out as it is
    (its bits), and every other equal pair is kept, at every float width."""
    got = binary(op, et, np.array(ZX, dt), np.array(ZY, dt), backend=backend)
    assert _bits(got) == _bits(np.array(MAX_ZXY if op == "maximum" else MIN_ZXY, dt))


@opcode("clamp")
@pytest.mark.parametrize("et,dt", FLOAT_TYPES)
def test_clamp_is_min_of_max_on_both_backends(et: str, dt: type, backend: str) -> None:
    n = len(ZX)
    text = (f"HloModule m\nENTRY e {{\n  lo = {et}[{n}] parameter(0)\n  x = {et}[{n}] parameter(1)\n"
            f"  hi = {et}[{n}] parameter(2)\n  ROOT r = {et}[{n}] clamp(lo, x, hi)\n}}\n")
    got = run1(text, np.array(ZY, dt), np.array(ZX, dt), np.zeros(n, dt), backend=backend)
    # min(max(x, lo), +0): max(-0, +0) = +0, min(-0, +0) = -0
    want = [0.0, 0.0, -0.0, 0.0, np.nan, np.nan, -2.0, 0.0, -np.inf, 0.0]
    assert _bits(got) == _bits(np.array(want, dt))


@opcode("compare")
def test_compare_totalorder(backend: str) -> None:
    x = np.array([NEG_NAN, -np.inf, -0.0, 0.0, np.nan, 1.0], np.float32)
    y = np.array([-np.inf, -1.0, 0.0, np.nan, np.nan, 1.0], np.float32)
    lt = binary("compare", "f32", x, y, "pred", ", direction=LT, type=TOTALORDER", backend=backend)
    assert lt.tolist() == [True, True, True, True, False, False]
    eq = binary("compare", "f32", x, y, "pred", ", direction=EQ, type=TOTALORDER", backend=backend)
    assert eq.tolist() == [False, False, False, False, True, True]


@opcode("compare")
def test_compare_float_is_ieee(backend: str) -> None:
    x = np.array([-0.0, np.nan, np.nan, 1.0], np.float32)
    y = np.array([0.0, np.nan, 1.0, 2.0], np.float32)
    assert binary("compare", "f32", x, y, "pred", ", direction=LT", backend=backend).tolist() == [False, False, False, True]
    assert binary("compare", "f32", x, y, "pred", ", direction=NE", backend=backend).tolist() == [False, True, True, True]
    assert binary("compare", "f32", x, y, "pred", ", direction=EQ", backend=backend).tolist() == [True, False, False, False]


@opcode("compare")
def test_compare_unsigned_and_bf16(backend: str) -> None:
    got = binary("compare", "u32", np.array([2**32 - 1, 1], np.uint32), np.array([1, 2], np.uint32), "pred",
                 ", direction=GT", backend=backend)
    assert got.tolist() == [True, False]
    bf = ml_dtypes.bfloat16
    got = binary("compare", "bf16", np.array([-0.0, 1.5], bf), np.array([0.0, 1.5], bf), "pred",
                 ", direction=LT, type=TOTALORDER", backend=backend)
    assert got.tolist() == [True, False]


@opcode("round-nearest-afz", "round-nearest-even")
def test_round_half_away_vs_half_even(backend: str) -> None:
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, -0.3, 3.7], np.float32)
    afz = unary("round-nearest-afz", "f32", x, backend=backend)
    assert afz.tolist() == [1, 2, 3, -1, -3, 0, -0.0, 4]
    assert math.copysign(1, afz[6]) == -1
    even = unary("round-nearest-even", "f32", x, backend=backend)
    assert even.tolist() == [0, 2, 2, -0.0, -2, 0, -0.0, 4]


@opcode("sign")
def test_sign_keeps_signed_zero_and_nan(backend: str) -> None:
    got = unary("sign", "f32", np.array([-3, -0.0, 0.0, 7, np.nan], np.float32), backend=backend)
    assert got[0] == -1 and got[3] == 1 and np.isnan(got[4])
    assert math.copysign(1, got[1]) == -1 and math.copysign(1, got[2]) == 1 and got[1] == 0
    assert unary("sign", "s32", np.array([-5, 0, 9], np.int32), backend=backend).tolist() == [-1, 0, 1]


@opcode("popcnt", "count-leading-zeros")
def test_popcnt_and_clz_every_width(backend: str) -> None:
    assert unary("popcnt", "s8", np.array([-1, 0, 5], np.int8), backend=backend).tolist() == [8, 0, 2]
    assert unary("popcnt", "s32", np.array([-1, 7], np.int32), backend=backend).tolist() == [32, 3]
    assert unary("popcnt", "u64", np.array([2**64 - 1], np.uint64), backend=backend).tolist() == [64]
    assert unary("count-leading-zeros", "s8", np.array([0, 1, -1, 64], np.int8), backend=backend).tolist() == [8, 7, 0, 1]
    assert unary("count-leading-zeros", "u16", np.array([0, 1, 0x8000], np.uint16), backend=backend).tolist() == [16, 15, 0]
    assert unary("count-leading-zeros", "s32", np.array([0, 1, -1, 2**30], np.int32), backend=backend).tolist() == [32, 31, 0, 1]
    assert unary("count-leading-zeros", "s64", np.array([0, 1, 2**40], np.int64), backend=backend).tolist() == [64, 63, 23]
    s4 = ml_dtypes.int4
    assert unary("count-leading-zeros", "s4", np.array([0, 1, -1, 3], s4), backend=backend).astype(np.int8).tolist() == [4, 3, 0, 2]
    assert unary("popcnt", "s4", np.array([-1, 5], s4), backend=backend).astype(np.int8).tolist() == [4, 2]


@opcode("abs", "negate", "not")
def test_abs_negate_not(backend: str) -> None:
    assert unary("abs", "s32", np.array([I32_MIN, -3], np.int32), backend=backend).tolist() == [I32_MIN, 3]
    assert unary("negate", "s32", np.array([I32_MIN, 3], np.int32), backend=backend).tolist() == [I32_MIN, -3]
    assert unary("negate", "u8", np.array([1, 0], np.uint8), backend=backend).tolist() == [255, 0]
    assert unary("not", "pred", np.array([True, False]), backend=backend).tolist() == [False, True]
    assert unary("not", "s8", np.array([0, -1], np.int8), backend=backend).tolist() == [-1, 0]
    got = unary("abs", "c64", np.array([3 + 4j], np.complex64), out_ty="f32", backend=backend)
    assert got.dtype == np.float32 and got.tolist() == [5.0]


@opcode("logistic", "erf")
def test_logistic_erf_and_friends(backend: str) -> None:
    x = np.array([0.0, 2.0, -100.0, 100.0], np.float32)
    lg = unary("logistic", "f32", x, backend=backend)
    assert lg[0] == 0.5 and lg[2] == 0 and lg[3] == 1
    assert abs(float(lg[1]) - 1 / (1 + math.exp(-2))) < 1e-7
    xs = np.array([0.0, 0.5, -1.0, 2.0, 3.5, -6.0], np.float64)
    got = unary("erf", "f64", xs, backend=backend)
    for g, v in zip(got, xs):
        assert abs(g - math.erf(v)) <= 16 * 2.0**-52 * max(1.0, abs(math.erf(v)))  # f64: within 16 ulp
    got32 = unary("erf", "f32", xs.astype(np.float32), backend=backend)
    assert got32.dtype == np.float32 and got32[1] == np.float32(math.erf(0.5))


@opcode("add", "multiply", "exponential")
def test_f16_and_bf16_round_to_type_after_each_op(backend: str) -> None:
    bf = ml_dtypes.bfloat16
    # 1 + 2^-8 is not representable in bf16 (7 mantissa bits): rounds to even = 1.0
    got = binary("add", "bf16", np.array([1.0, 1.0], bf), np.array([2.0**-8, 3 * 2.0**-8], bf), backend=backend)
    assert got.astype(np.float32).tolist() == [1.0, 1.015625]
    got = binary("multiply", "f16", np.array([300.0], np.float16), np.array([300.0], np.float16), backend=backend)
    assert np.isinf(got[0])  # 90000 overflows f16 (max 65504)
    got = unary("exponential", "bf16", np.array([1.0], bf), backend=backend)
    assert got.dtype == bf and float(got[0]) == 2.71875  # e rounded to bf16


@opcode("clamp")
def test_clamp_operand_order_and_scalar_bounds(backend: str) -> None:


    text = """HloModule t
ENTRY e {
  lo = f32[] parameter(0)
  x = f32[4] parameter(1)
  hi = f32[] parameter(2)
  ROOT r = f32[4] clamp(lo, x, hi)
}"""
    got = run1(text, np.float32(-1), np.array([-5, 0.5, 9, np.nan], np.float32), np.float32(2), backend=backend)
    assert got[:3].tolist() == [-1, 0.5, 2] and np.isnan(got[3])


@opcode("select")
def test_select_with_scalar_predicate(backend: str) -> None:


    text = """HloModule t
ENTRY e {
  p = pred[] parameter(0)
  a = s32[3] parameter(1)
  b = s32[3] parameter(2)
  ROOT r = s32[3] select(p, a, b)
}"""
    a, b = np.array([1, 2, 3], np.int32), np.array([4, 5, 6], np.int32)
    assert run1(text, np.bool_(True), a, b, backend=backend).tolist() == [1, 2, 3]
    assert run1(text, np.bool_(False), a, b, backend=backend).tolist() == [4, 5, 6]


@opcode("mulhi")
def test_mulhi(backend: str) -> None:
    got = binary("mulhi", "s32", np.array([2**30, -1, I32_MIN], np.int32), np.array([8, 1, I32_MIN], np.int32), backend=backend)
    assert got.tolist() == [2, -1, 2**30]
    got = binary("mulhi", "u64", np.array([2**63, 2**64 - 1], np.uint64), np.array([4, 2**64 - 1], np.uint64), backend=backend)
    assert got.tolist() == [2, 2**64 - 2]
    got = binary("mulhi", "s64", np.array([-(2**63), -1], np.int64), np.array([2, 5], np.int64), backend=backend)
    assert got.tolist() == [-1, -1]


@opcode("complex", "real", "imag")
def test_complex_real_imag(backend: str) -> None:
    got = binary("complex", "f32", np.array([1, -2], np.float32), np.array([3, np.inf], np.float32), "c64", backend=backend)
    assert got.dtype == np.complex64 and got[0] == 1 + 3j and got[1].imag == np.inf and got[1].real == -2
    assert unary("real", "c64", np.array([1 + 2j], np.complex64), "f32", backend=backend).tolist() == [1.0]
    assert unary("imag", "c128", np.array([1 + 2j], np.complex128), "f64", backend=backend).tolist() == [2.0]


@opcode("add")
@pytest.mark.parametrize("ty,dtype", [("f8e4m3fn", ml_dtypes.float8_e4m3fn), ("f8e5m2", ml_dtypes.float8_e5m2)])
def test_f8_arithmetic_rounds_to_type(ty: str, dtype: type, backend: str) -> None:
    got = binary("add", ty, np.array([1.0, 2.0], dtype), np.array([0.0625, 0.25], dtype), backend=backend)
    # e4m3fn: 3 mantissa bits -> 1.0625 is exact? (1 + 1/16 needs 4 bits) -> rounds to even 1.0
    want = [float(dtype(1.0625)), float(dtype(2.25))]
    assert got.astype(np.float32).tolist() == want


# ------------------------------------------------------------------ every element type

_NUMERIC = [n for n, et in ELEMENT_TYPES.items()
            if et.kind in ("signed", "unsigned", "float", "complex") and et.dtype is not None
            and et.bits >= 4 and n not in ("f8e8m0fnu",)]


@opcode("negate", "compare", "convert", "add", "multiply", "maximum")
@pytest.mark.parametrize("ty", _NUMERIC)
def test_add_multiply_compare_convert_on_every_type(ty: str, backend: str) -> None:
    """Small exact values on every numeric type (f8e8m0fnu only holds powers of two)."""

    dt = ELEMENT_TYPES[ty].dtype
    x = np.array([1, 2], np.float32).astype(dt)
    y = np.array([3, 1], np.float32).astype(dt)
    assert binary("add", ty, x, y, backend=backend).astype(np.complex128).tolist() == [4, 3]
    assert binary("multiply", ty, x, y, backend=backend).astype(np.complex128).tolist() == [3, 2]
    if ELEMENT_TYPES[ty].kind != "complex":
        assert binary("compare", ty, x, y, "pred", ", direction=LT", backend=backend).tolist() == [True, False]
        assert binary("maximum", ty, x, y, backend=backend).astype(np.float32).tolist() == [3, 2]
        assert unary("convert", ty, x, out_ty="f32", backend=backend).tolist() == [1.0, 2.0]
    got = unary("negate", ty, x, backend=backend)
    if ELEMENT_TYPES[ty].kind == "unsigned":
        width = ELEMENT_TYPES[ty].bits
        assert [int(v) for v in got.astype(np.uint64)] == [2**width - 1, 2**width - 2]
    else:
        assert got.astype(np.complex128).tolist() == [-1, -2]


@opcode("add", "multiply", "maximum", "xor")
def test_pred_arithmetic_is_logical(backend: str) -> None:
    t, f = np.array([True, True, False, False]), np.array([True, False, True, False])
    assert binary("add", "pred", t, f, backend=backend).tolist() == [True, True, True, False]
    assert binary("multiply", "pred", t, f, backend=backend).tolist() == [True, False, False, False]
    assert binary("maximum", "pred", t, f, backend=backend).tolist() == [True, True, True, False]
    assert binary("xor", "pred", t, f, backend=backend).tolist() == [False, True, True, False]


@opcode("compare", "convert", "multiply")
def test_f8e8m0fnu_powers_of_two() -> None:
    """f8e8m0fnu holds only powers of two (no zero, no sign): products of powers are exact.
    Interpreter only: the LLVM backend refuses the type (emit_types.UNSUPPORTED_TYPES)."""
    dt = ml_dtypes.float8_e8m0fnu
    x = np.array([1, 2, 4, 0.25], np.float32).astype(dt)
    y = np.array([2, 0.5, 4, 8], np.float32).astype(dt)
    assert binary("multiply", "f8e8m0fnu", x, y).astype(np.float32).tolist() == [2, 1, 16, 2]
    assert binary("compare", "f8e8m0fnu", x, y, "pred", ", direction=LT").tolist() == [True, False, False, True]
    assert unary("convert", "f8e8m0fnu", x, out_ty="f32").tolist() == [1, 2, 4, 0.25]


# ------------------------------------------------- LLVM backend vs interpreter, bit for bit
# Sweeps over types and edge values with the interpreter as the reference (run_both/same_bits):
# each case runs both backends itself, so it takes no `backend` fixture.

INT_EDGE = {"s8": [-128, -1, 0, 1, 7, 127], "s32": [-2**31, -1, 0, 1, 31, 32, 2**31 - 1],
            "u8": [0, 1, 7, 8, 255], "u32": [0, 1, 31, 32, 2**32 - 1], "s64": [-2**63, -1, 0, 1, 63, 64],
            "s4": [-8, -1, 0, 1, 3, 7], "u4": [0, 1, 3, 4, 15]}


@opcode("add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "shift-left", "shift-right-logical", "shift-right-arithmetic", "and", "xor")
@pytest.mark.parametrize("et", sorted(INT_EDGE))
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum",
                                "shift-left", "shift-right-logical", "shift-right-arithmetic", "and", "xor"])
def test_integer_binary_edges(op: str, et: str) -> None:
    dt = ELEMENT_TYPES[et].dtype
    vals = INT_EDGE[et]
    x = np.array([a for a in vals for _ in vals]).astype(np.int64)
    y = np.array([b for _ in vals for b in vals]).astype(np.int64)
    x, y = x.astype(dt), y.astype(dt)
    same_bits(*run_both(binary_module(op, et, len(x)), [x, y]))


@opcode("abs", "negate", "sign", "floor", "ceil", "round-nearest-afz", "round-nearest-even", "sqrt", "is-finite")
@pytest.mark.parametrize("op", ["abs", "negate", "sign", "floor", "ceil", "round-nearest-afz", "round-nearest-even",
                                "sqrt", "is-finite"])
def test_float_unary_exact(op: str) -> None:
    x = np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 1e30, np.inf, -np.inf, np.nan, 4.0], np.float32)
    out = "pred" if op == "is-finite" else "f32"
    same_bits(*run_both(unary_module(op, "f32", len(x), out), [x]))


@opcode("exponential", "log", "tanh", "logistic", "sine", "cosine", "erf", "exponential-minus-one", "log-plus-one", "rsqrt", "cbrt")
@pytest.mark.parametrize("op", ["exponential", "log", "tanh", "logistic", "sine", "cosine", "erf",
                                "exponential-minus-one", "log-plus-one", "rsqrt", "cbrt"])
@pytest.mark.parametrize("et", ["f32", "f64", "bf16"])
def test_transcendentals_match_the_interpreter(op: str, et: str) -> None:
    dt = ELEMENT_TYPES[et].dtype
    x = np.concatenate([np.linspace(-20, 20, 401), [0, -0.0, 1e-5, -1e-5, 88, 89, -104, -110, np.inf, -np.inf,
                                                    np.nan]]).astype(dt)
    if op in ("log", "rsqrt", "cbrt"):
        x = np.abs(x)
    got, want = run_both(unary_module(op, et, len(x)), [x])
    g, w = got[0].astype(np.float64), want[0].astype(np.float64)
    assert (np.isnan(g) == np.isnan(w)).all()
    eps = float(ml_dtypes.finfo(dt).eps)
    inf = np.isinf(w)
    assert (g[inf] == w[inf]).all(), "infinities differ"
    ok = ~np.isnan(w) & ~inf
    err = np.abs(g[ok] - w[ok])
    assert (err <= 8 * eps * np.abs(w[ok]) + 1e-30).all(), f"worst {np.max(err / (np.abs(w[ok]) + 1e-30))}"


@opcode("compare", "select", "clamp")
def test_compare_and_select_and_clamp() -> None:
    x = np.array([np.nan, -0.0, 0.0, 1, -1, np.inf], np.float32)
    y = np.array([np.nan, 0.0, -0.0, 2, -1, np.inf], np.float32)
    for d in ("EQ", "NE", "LT", "LE", "GT", "GE"):
        for t in ("", ", type=TOTALORDER"):
            same_bits(*run_both(binary_module("compare", "f32", 6, "pred", f", direction={d}{t}"), [x, y]))
    text = ("HloModule m\nENTRY e {\n  p = pred[6] parameter(0)\n  a = f32[6] parameter(1)\n  b = f32[6] parameter(2)\n"
            "  s = f32[6] select(p, a, b)\n  l = f32[] constant(-0.5)\n  h = f32[] constant(1.5)\n"
            "  lo = f32[6] broadcast(l), dimensions={}\n  hi = f32[6] broadcast(h), dimensions={}\n"
            "  ROOT c = f32[6] clamp(lo, s, hi)\n}\n")
    same_bits(*run_both(text, [x > 0, x, y]))
