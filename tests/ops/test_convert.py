"""convert / bitcast-convert / reduce-precision semantics, with hand-written expected values."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from hlotools.ir.types import ELEMENT_TYPES
from tests.support.runner import binary_module, opcode, run1, run_both, same_bits, unary, unary_module

I32_MIN, I32_MAX = -(2**31), 2**31 - 1


@opcode("convert")
def test_float_to_int_truncates_saturates_and_maps_nan_to_zero(backend: str) -> None:
    x = np.array([1.9, -1.9, np.nan, 3e9, -3e9, np.inf, -np.inf, 2147483520.0], np.float32)
    got = unary("convert", "f32", x, out_ty="s32", backend=backend)
    assert got.tolist() == [1, -1, 0, I32_MAX, I32_MIN, I32_MAX, I32_MIN, 2147483520]
    got = unary("convert", "f32", np.array([-1.5, 300, 255.9, 0.99], np.float32), out_ty="u8", backend=backend)
    assert got.tolist() == [0, 255, 255, 0]
    got = unary("convert", "f64", np.array([1e300, -1e300, 9.3e18], np.float64), out_ty="s64", backend=backend)
    assert got.tolist() == [2**63 - 1, -(2**63), 2**63 - 1]
    got = unary("convert", "f32", np.array([1e20, -5], np.float32), out_ty="u64", backend=backend)
    assert got.tolist() == [2**64 - 1, 0]
    got = unary("convert", "f32", np.array([7.9, 8.5, -9.0, -8.2], np.float32), out_ty="s4", backend=backend)
    assert got.astype(np.int8).tolist() == [7, 7, -8, -8]


@opcode("convert")
def test_int_to_int_wraps(backend: str) -> None:
    got = unary("convert", "s32", np.array([300, -129, 127], np.int32), out_ty="s8", backend=backend)
    assert got.tolist() == [44, 127, 127]
    got = unary("convert", "s32", np.array([-1], np.int32), out_ty="u32", backend=backend)
    assert got.tolist() == [2**32 - 1]
    got = unary("convert", "s32", np.array([9, -9, 15], np.int32), out_ty="s4", backend=backend)
    assert got.astype(np.int8).tolist() == [-7, 7, -1]
    got = unary("convert", "u4", np.array([15, 3], ml_dtypes.uint4), out_ty="s32", backend=backend)
    assert got.tolist() == [15, 3]


@opcode("convert")
def test_pred_conversions(backend: str) -> None:
    got = unary("convert", "f32", np.array([0.0, -0.0, np.nan, 2.0], np.float32), out_ty="pred", backend=backend)
    assert got.tolist() == [False, False, True, True]
    got = unary("convert", "pred", np.array([True, False]), out_ty="f32", backend=backend)
    assert got.tolist() == [1.0, 0.0]
    got = unary("convert", "s8", np.array([0, -3], np.int8), out_ty="pred", backend=backend)
    assert got.tolist() == [False, True]


@opcode("convert")
def test_float_narrowing_rounds_to_nearest_even(backend: str) -> None:
    bf = ml_dtypes.bfloat16
    x = np.array([1 + 2.0**-8, 1 + 3 * 2.0**-8, 1 + 2.0**-8 + 2.0**-20, 3.0e38], np.float32)
    got = unary("convert", "f32", x, out_ty="bf16", backend=backend)
    assert got.dtype == bf
    assert got.astype(np.float32).tolist()[:3] == [1.0, 1.015625, 1.0078125]
    assert float(got[3]) == float(bf(3.0e38))
    got = unary("convert", "f32", np.array([65520.0, 65519.0], np.float32), out_ty="f16", backend=backend)
    assert np.isinf(got[0]) and got[1] == 65504
    got = unary("convert", "s32", np.array([16777217], np.int32), out_ty="f32", backend=backend)
    assert got.tolist() == [16777216.0]


@opcode("convert")
def test_convert_to_f8_saturating_types(backend: str) -> None:
    got = unary("convert", "f32", np.array([1.0, 1.0625, 1.1875, 500.0], np.float32), out_ty="f8e4m3fn", backend=backend)
    assert got.dtype == ml_dtypes.float8_e4m3fn
    vals = got.astype(np.float32)
    assert vals[0] == 1.0 and vals[1] == 1.0 and vals[2] == 1.25  # 3 mantissa bits, ties to even
    assert np.isnan(vals[3])  # e4m3fn has no infinity: overflow is NaN


@opcode("bitcast-convert")
def test_bitcast_convert_same_and_different_widths(backend: str) -> None:
    got = unary("bitcast-convert", "f32", np.array([1.0, -0.0], np.float32), out_ty="u32", backend=backend)
    assert got.tolist() == [0x3F800000, 0x80000000]
    text = """HloModule t
ENTRY e {
  a = u32[2] parameter(0)
  ROOT r = u8[2,4] bitcast-convert(a)
}"""
    got = run1(text, np.array([0x01020304, 0xA0B0C0D0], np.uint32), backend=backend)
    assert got.tolist() == [[4, 3, 2, 1], [0xD0, 0xC0, 0xB0, 0xA0]]  # little-endian: minor index 0 is lowest
    text = """HloModule t
ENTRY e {
  a = u16[3,2] parameter(0)
  ROOT r = s32[3] bitcast-convert(a)
}"""
    got = run1(text, np.array([[1, 0], [0xFFFF, 0xFFFF], [0, 0x8000]], np.uint16), backend=backend)
    assert got.tolist() == [1, -1, I32_MIN]


@opcode("bitcast-convert")
def test_bitcast_convert_sub_byte(backend: str) -> None:
    text = """HloModule t
ENTRY e {
  a = s8[2] parameter(0)
  ROOT r = s4[2,2] bitcast-convert(a)
}"""
    got = run1(text, np.array([0x7F, -0x10], np.int8), backend=backend)  # 0x7F -> low 0xF (-1), high 0x7; 0xF0 -> 0, -1
    assert got.astype(np.int8).tolist() == [[-1, 7], [0, -1]]
    text = """HloModule t
ENTRY e {
  a = u4[2] parameter(0)
  ROOT r = s4[2] bitcast-convert(a)
}"""
    got = run1(text, np.array([15, 7], ml_dtypes.uint4), backend=backend)
    assert got.astype(np.int8).tolist() == [-1, 7]


@opcode("reduce-precision")
def test_reduce_precision(backend: str) -> None:
    x = np.array([1.0 + 2.0**-10, 1.0 + 3 * 2.0**-11, 1e10, 1e-10, np.nan, -np.inf], np.float32)
    got = unary("reduce-precision", "f32", x, extra=", exponent_bits=5, mantissa_bits=10", backend=backend)
    # as f16: 1+2^-10 exact; 1+3*2^-11 ties to even -> 1+2^-9; 1e10 overflows; 1e-10 underflows
    assert got[0] == np.float32(1.0 + 2.0**-10)
    assert got[1] == np.float32(1.0 + 2.0**-9)
    assert np.isinf(got[2]) and got[3] == 0 and np.isnan(got[4]) and got[5] == -np.inf
    got = unary("reduce-precision", "f32", np.array([1.0 + 2.0**-8, -(1 + 2.0**-7)], np.float32),
                extra=", exponent_bits=8, mantissa_bits=7", backend=backend)
    assert got.tolist() == [1.0, -(1 + 2.0**-7)]  # bf16 rounding
    assert math.copysign(1, unary("reduce-precision", "f32", np.array([-1e-30], np.float32),
                                  extra=", exponent_bits=5, mantissa_bits=10", backend=backend)[0]) == -1


# ------------------------------------------------- LLVM backend vs interpreter, bit for bit
# Sweeps over types and edge values with the interpreter as the reference (run_both/same_bits):
# each case runs both backends itself, so it takes no `backend` fixture.

SMALL_FLOATS = ["f16", "bf16", "f8e5m2", "f8e4m3", "f8e3m4", "f8e4m3fn", "f8e4m3fnuz", "f8e5m2fnuz",
                "f8e4m3b11fnuz", "f4e2m1fn", "f6e3m2fn", "f6e2m3fn"]


@opcode("convert")
@pytest.mark.parametrize("et", SMALL_FLOATS)
def test_convert_f32_to_narrow_floats_rounds_like_ml_dtypes(et: str) -> None:
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(2000) * s for s in (1e-6, 1e-3, 0.1, 1, 10, 1000, 1e5)])
    x = np.concatenate([x, [0.0, -0.0, np.inf, -np.inf, 448, 464, 57344, 61440, 6.5e4, 65520]]).astype(np.float32)
    # exact halfway cases of the target, both parities
    got, want = run_both(unary_module("convert", "f32", len(x), et), [x])
    same_bits(got, want)


@opcode("convert", "add", "multiply")
@pytest.mark.parametrize("et", SMALL_FLOATS)
def test_narrow_float_roundtrip_and_arithmetic(et: str) -> None:
    dt = ELEMENT_TYPES[et].dtype
    bits = ELEMENT_TYPES[et].bits
    codes = np.arange(1 << min(bits, 16), dtype=np.uint16 if bits > 8 else np.uint8)
    x = codes.view(dt) if bits in (8, 16) else codes.astype(np.uint8).view(dt)
    if bits < 8:
        x = np.array([float(ml_dtypes.finfo(dt).max) * s for s in np.linspace(-1, 1, 33)]).astype(dt)
    same_bits(*run_both(unary_module("convert", et, len(x), "f32"), [x]))
    y = x[::-1].copy()
    same_bits(*run_both(binary_module("add", et, len(x)), [x, y]))
    same_bits(*run_both(binary_module("multiply", et, len(x)), [x, y]))


@opcode("convert")
@pytest.mark.parametrize("src,dst", [("f32", "s32"), ("f32", "u8"), ("f32", "s8"), ("f64", "s64"), ("f32", "u32"),
                                     ("f32", "s4"), ("s32", "f32"), ("s64", "f16"), ("u32", "bf16"), ("s32", "pred"),
                                     ("f32", "pred"), ("pred", "f32"), ("s32", "s8"), ("s8", "u64"), ("f32", "f64"),
                                     ("f64", "f32"), ("f16", "bf16"), ("f32", "c64")])
def test_convert_between_types(src: str, dst: str) -> None:
    dt = ELEMENT_TYPES[src].dtype
    raw = np.array([0, 1, -1, 2.5, -2.5, 127.9, 128, 255.5, 300, -129, 1e10, -1e10, 3e38, np.nan, np.inf, -np.inf])
    if ELEMENT_TYPES[src].is_integer or src == "pred":
        raw = np.nan_to_num(raw, nan=0, posinf=0, neginf=0)
        raw = np.clip(raw, *(lambda i: (i.min, i.max))(np.iinfo(dt)) if src != "pred" else (0, 1))
    x = raw.astype(dt)
    same_bits(*run_both(unary_module("convert", src, len(x), dst), [x]))
