"""Literal formatting exactly as XLA's RoundTripFpToString / PrintWithoutShapeOneline."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hlotools.ir.literal import Literal
from hlotools.ir.shape import Shape
from hlotools.ir.types import ELEMENT_TYPES
from hlotools.text.literal_format import format_float, format_literal


def lit(type_name: str, values, dims=None) -> Literal:
    arr = np.asarray(values, dtype=ELEMENT_TYPES[type_name].dtype)
    dims = arr.shape if dims is None else dims
    return Literal.from_array(Shape.array(ELEMENT_TYPES[type_name], dims), arr)


@pytest.mark.parametrize("value,text", [
    (0.797884583, "0.797884583"),  # %.6g does not read back: %.9g
    (0.044715, "0.044715"),        # %.6g reads back
    (1e-05, "1e-05"), (1568.0, "1568"), (0.0009765625, "0.0009765625"),
    (-3.40282347e+38, "-3.40282347e+38"), (0.13333334, "0.13333334"),
    (-0.0, "-0.0"), (float("inf"), "inf"), (float("-inf"), "-inf"), (float("nan"), "nan"),
])
def test_f32_round_trip_rule(value: float, text: str) -> None:
    assert format_float(np.float32(value), "f32") == text


def test_nan_sign_and_payload() -> None:
    assert format_float(-np.float32("nan"), "f32") == "-nan"
    payload = np.array([0x7F800001], dtype=np.uint32).view(np.float32)[0]
    assert format_float(payload, "f32") == "nan(0x1)"
    neg = np.array([0xFFC00001], dtype=np.uint32).view(np.float32)[0]
    assert format_float(neg, "f32") == "-nan(0x400001)"
    # f8e4m3fn has no signalling NaN: never a payload.
    assert format_float(ml_dtypes.float8_e4m3fn(float("nan")), "f8e4m3fn") == "nan"


def test_f64_and_narrow_types() -> None:
    assert format_float(0.001, "f64") == "0.001"
    assert format_float(0.1 + 0.2, "f64") == "0.30000000000000004"
    assert format_float(ml_dtypes.bfloat16(57344), "bf16") == "5.734e+04"
    assert format_float(np.float16(0.1), "f16") == "0.099976"
    assert format_float(ml_dtypes.bfloat16(1.0), "bf16") == "1"


def test_arrays_scalars_and_tuples() -> None:
    assert format_literal(lit("f32", 0.5)) == "0.5"
    assert format_literal(lit("s32", [13, 15, 26, 6])) == "{13, 15, 26, 6}"
    assert format_literal(lit("s32", [[1024]])) == "{ {1024} }"
    assert format_literal(lit("f32", [[1, 2], [3, 4]])) == "{ { 1, 2 }, { 3, 4 } }"
    assert format_literal(lit("pred", True)) == "true"
    assert format_literal(lit("pred", [True, False])) == "{1, 0}"
    assert format_literal(lit("c64", 2j)) == "(0, 2)"
    assert format_literal(lit("s32", np.zeros((0,)))) == "{}"
    assert format_literal(lit("u8", [[[1, 2]], [[3, 4]]])) == "{ { { 1, 2 } }, { { 3, 4 } } }"
    t = Literal(Shape.tuple_of([]), elements=[lit("s32", [[1], [2]]), lit("s32", [2, 42])])
    assert format_literal(t) == "( { {1}, {2} }, {2, 42} )"
    elided = Literal(Shape.array(ELEMENT_TYPES["f32"], (100,)), elided=True)
    assert format_literal(elided) == "{...}"


def test_rank4_index_markers() -> None:
    assert format_literal(lit("s32", np.zeros((2, 0, 4, 3)))) == "{ { /*i0=0*/ }, { /*i0=1*/ } }"
    four = lit("s32", np.arange(4).reshape(1, 2, 1, 2))
    assert format_literal(four) == "{ { /*i0=0*/ { /*i1=0*/ { 0, 1 } }, { /*i1=1*/ { 2, 3 } } } }"


@pytest.mark.parametrize("type_name", ["f32", "f64", "bf16", "f16", "f8e5m2"])
def test_large_float_arrays_match_the_scalar_rule(type_name: str) -> None:
    rng = np.random.default_rng(7)
    dtype = ELEMENT_TYPES[type_name].dtype
    with np.errstate(over="ignore"):  # f16 and f8 overflow to inf: fine, inf is a value too
        values = (rng.standard_normal(300) * 10.0 ** rng.integers(-8, 8, 300)).astype(dtype)
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0], dtype=np.float64).astype(dtype)
    arr = np.concatenate([values, specials])
    text = format_literal(lit(type_name, arr))
    assert text == "{" + ", ".join(format_float(x, type_name) for x in arr) + "}"
