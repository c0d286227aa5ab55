"""The interpreter's f32/f64 dot sums each output element as acc = fma(a[k], b[k], acc) for
k = 0, 1, ... from +0 (interpreter/linalg.py fma_matmul), the LLVM backend's GEMM order, on
every host: np.matmul's BLAS picks its kernel (and its summation order) by CPU."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools.interpreter.complex_ops import _fma64
from hlotools.interpreter.linalg import fma_matmul
from hlotools.interpreter.special import fma32


def _sequential(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    fma = fma32 if a.dtype == np.float32 else _fma64
    nb, m, k = a.shape
    n = b.shape[2]
    acc = np.zeros((nb, m, n), a.dtype)
    for kk in range(k):
        acc = fma(np.broadcast_to(a[:, :, kk, None], acc.shape).astype(np.float64),
                  np.broadcast_to(b[:, None, kk, :], acc.shape).astype(np.float64), acc).astype(a.dtype)
    return acc


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["normal", "ties", "tiny", "huge"])
def test_fma_matmul_is_the_sequential_fma_sum(dtype: type, kind: str) -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        nb, m, k, n = (int(v) for v in rng.integers(1, 7, 4))
        a = rng.standard_normal((nb, m, k))
        b = rng.standard_normal((nb, k, n))
        if kind == "ties":  # few significant bits: sums land on midpoints of the f32/f64 grid
            a, b = np.round(a * 8) / 8, np.round(b * 8) * 2.0 ** -30
        elif kind == "tiny":  # partial sums in the subnormal range
            a = a * (1e-38 if dtype == np.float32 else 1e-307)
        elif kind == "huge":  # overflow to inf, inf - inf = NaN
            a = a * (1e38 if dtype == np.float32 else 1e307)
        a, b = a.astype(dtype), b.astype(dtype)
        with np.errstate(all="ignore"):
            got, want = fma_matmul(a, b), _sequential(a, b)
        assert got.dtype == dtype
        assert np.array_equal(got, want, equal_nan=True) and got.tobytes() == want.tobytes()


def test_dot_rounds_once_per_step_not_as_blas_does() -> None:
    """1 + 2^-24 - 1 in k order: 1 + 2^-24 rounds to 1 (a tie to even), then 0; a blocked or
    wider sum gives 2^-24."""
    text = """HloModule m
ENTRY e {
  a = f32[1,3]{1,0} parameter(0)
  b = f32[3,1]{1,0} parameter(1)
  ROOT d = f32[1,1]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}"""
    a = np.array([[1.0, 2.0 ** -24, -1.0]], np.float32)
    b = np.ones((3, 1), np.float32)
    (got,) = hlotools.evaluate(hlotools.parse_module(text), [a, b])
    assert got[0, 0] == 0.0
