"""maximum/minimum of floats on the LLVM backend order -0 below +0 (IEEE 754-2019, as
llvm.maximum and the interpreter), propagate the NaN operand, and keep every other equal
pair as it is: bit for bit the interpreter's answer, for every float width."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver.runtime import CompiledModule

TYPES = [("f16", np.float16), ("bf16", ml_dtypes.bfloat16), ("f32", np.float32), ("f64", np.float64)]
X = [-0.0, 0.0, -0.0, 0.0, np.nan, 1.0, -2.0, 3.0, -np.inf, 5.0]
Y = [0.0, -0.0, -0.0, 0.0, 1.0, np.nan, -2.0, 2.0, -np.inf, np.inf]


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("et,dt", TYPES)
def test_signed_zeros_and_nans_match_the_interpreter(op: str, et: str, dt: type) -> None:
    n = len(X)
    text = (f"HloModule m\nENTRY e {{\n  x = {et}[{n}] parameter(0)\n  y = {et}[{n}] parameter(1)\n"
            f"  ROOT r = {et}[{n}] {op}(x, y)\n}}\n")
    m = hlotools.parse_module(text)
    x, y = np.array(X, dt), np.array(Y, dt)
    got = CompiledModule(m)([x, y])[0]
    want = evaluate(m, [x, y])[0]
    assert np.array_equal(_bits(got), _bits(want))
    zero = np.array([0.0], dt)
    expected_first_two = (zero, zero) if op == "maximum" else (-zero, -zero)
    assert np.signbit(got[0]) == np.signbit(expected_first_two[0][0])
    assert np.signbit(got[1]) == np.signbit(expected_first_two[1][0])


@pytest.mark.parametrize("et,dt", TYPES)
def test_clamp_is_min_of_max_on_both_backends(et: str, dt: type) -> None:
    n = len(X)
    text = (f"HloModule m\nENTRY e {{\n  lo = {et}[{n}] parameter(0)\n  x = {et}[{n}] parameter(1)\n"
            f"  hi = {et}[{n}] parameter(2)\n  ROOT r = {et}[{n}] clamp(lo, x, hi)\n}}\n")
    m = hlotools.parse_module(text)
    lo, x, hi = np.array(Y, dt), np.array(X, dt), np.array([0.0] * n, dt)
    got = CompiledModule(m)([lo, x, hi])[0]
    want = evaluate(m, [lo, x, hi])[0]
    assert np.array_equal(_bits(got), _bits(want))
    assert not np.signbit(want[0]) and np.signbit(want[2])  # max(-0, +0) = +0; min(-0, +0) = -0
