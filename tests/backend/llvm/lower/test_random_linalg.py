"""LLVM backend: stochastic-convert (XLA's StochasticConvertDecomposer), cholesky of complex
matrices (vs the interpreter), rng (a real generator: ranges and moments of its
distributions, fresh numbers per call) and rng-get-and-update-state (vs the interpreter)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from hlotools.errors import HloUnsupportedError


def llvm(text: str, args: list[np.ndarray] | None = None) -> list[np.ndarray]:
    return [np.asarray(r) for r in compile_module(hlotools.parse_module(text))(args or [])]


def interp(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    with np.errstate(all="ignore"):
        return [np.asarray(r) for r in evaluate(hlotools.parse_module(text), args)]


# ------------------------------------------------------------------ stochastic-convert

def xla_stochastic_convert(x: np.ndarray, r: np.ndarray, dst: np.dtype) -> np.ndarray:
    """numpy model of XLA's StochasticConvertDecomposer (fraction scaled by 2^bits and
    truncated to the random type before the comparison)."""
    bits = r.dtype.itemsize * 8
    info = np.iinfo(dst)
    xf = x.astype(np.float64)
    with np.errstate(all="ignore"):
        mag = np.abs(xf)
        whole = np.floor(mag)
        fixed = np.nan_to_num((mag - whole) * 2.0 ** bits, nan=0.0)
        up = r.astype(np.uint64) < np.floor(fixed).astype(np.uint64)  # fixed < 2^bits
        res = np.where(xf < 0, -1, 1) * (whole + up)
        inside = (xf > info.min) & (xf < info.max)  # XLA: x <= min gives min, x >= max gives max
        res = np.where(inside, res, 0).astype(dst)
    return np.where(xf >= info.max, info.max, np.where(xf <= info.min, info.min, res)).astype(dst)


def sc_module(src: str, bits: str, dst: str, n: int) -> str:
    return (f"HloModule m\nENTRY e {{\n  x = {src}[{n}] parameter(0)\n  r = {bits}[{n}] parameter(1)\n"
            f"  ROOT y = {dst}[{n}] stochastic-convert(x, r)\n}}\n")


EDGES = [0.0, -0.0, 0.5, -0.5, 1.25, -1.75, 2.5, 126.9, 127.5, -128.5, 1000.0, -1000.0, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("src, bits, dst", [("f32", "u32", "s8"), ("f32", "u32", "s32"), ("f16", "u16", "s16"),
                                            ("bf16", "u16", "s8"), ("f64", "u64", "s64"), ("f64", "u64", "s16")])
def test_stochastic_convert_matches_xla_and_the_interpreter(src: str, bits: str, dst: str) -> None:
    from hlotools.ir.types import ELEMENT_TYPES
    sdt, bdt, ddt = (np.dtype(ELEMENT_TYPES[t].dtype) for t in (src, bits, dst))
    rng = np.random.default_rng(0)
    vals = np.concatenate([np.array(EDGES), rng.uniform(-300, 300, 200)]).astype(sdt)
    r = rng.integers(0, np.iinfo(bdt).max, len(vals), dtype=np.uint64, endpoint=True).astype(bdt)
    r[:3] = [0, np.iinfo(bdt).max, 1 << (r.dtype.itemsize * 8 - 1)]
    text = sc_module(src, bits, dst, len(vals))
    got = llvm(text, [vals, r])[0]
    assert np.array_equal(got, xla_stochastic_convert(vals, r, ddt))
    assert np.array_equal(got, interp(text, [vals, r])[0])  # fractions scaled by 2^bits are integers here


def test_stochastic_convert_truncates_the_scaled_fraction_like_xla() -> None:
    """1e-10 * 2^32 = 0.43 truncates to 0 in XLA's u32 comparison: random 0 does not round up
    (on both backends: the interpreter follows XLA's StochasticConvertDecomposer too)."""
    x = np.array([1e-10, -1e-10, 0.75], np.float32)
    r = np.array([0, 0, 3 << 30], np.uint32)
    text = sc_module("f32", "u32", "s32", 3)
    got = llvm(text, [x, r])[0]
    assert got.tolist() == [0, 0, 0]
    assert np.array_equal(got, xla_stochastic_convert(x, r, np.dtype(np.int32)))
    assert np.array_equal(got, interp(text, [x, r])[0])


def test_stochastic_convert_to_unsigned_is_refused() -> None:
    with pytest.raises(HloUnsupportedError, match=r"stochastic-convert %y.*signed integers only"):
        compile_module(hlotools.parse_module(sc_module("f32", "u32", "u32", 4)))


# ------------------------------------------------------------------ complex cholesky

def hermitian_pd(n: int, batch: int, dt: type, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((batch, n, n)) + 1j * rng.standard_normal((batch, n, n))
    h = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)
    return h.astype(dt)


@pytest.mark.parametrize("et, dt, tol", [("c64", np.complex64, 1e-5), ("c128", np.complex128, 1e-12)])
@pytest.mark.parametrize("lower", [True, False])
def test_complex_cholesky_matches_the_interpreter(et: str, dt: type, tol: float, lower: bool) -> None:
    a = hermitian_pd(5, 3, dt)
    a[1, 0, 0] = -1  # not positive definite: all NaN
    side = np.tril if lower else np.triu
    a = side(a) + (999 + 7j) * (1 - side(np.ones((5, 5)))).astype(dt)  # the other triangle is never read
    text = (f"HloModule m\nENTRY e {{\n  a = {et}[3,5,5] parameter(0)\n"
            f"  ROOT c = {et}[3,5,5] cholesky(a), lower={'true' if lower else 'false'}\n}}\n")
    got, want = llvm(text, [a])[0], interp(text, [a])[0]
    assert got.dtype == want.dtype
    assert np.isnan(got[1].real).all() and not got[1].imag.any() and np.isnan(want[1].real).all()
    ok = [0, 2]
    np.testing.assert_allclose(got[ok], want[ok], rtol=tol, atol=tol)
    f = got[0].astype(np.complex128)
    back = f @ np.conj(f.T) if lower else np.conj(f.T) @ f
    full = hermitian_pd(5, 3, np.complex128)[0]
    np.testing.assert_allclose(back, full, rtol=10 * tol, atol=10 * tol)


# ------------------------------------------------------------------ rng

def rng_module(et: str, dims: str, a: str, b: str, distribution: str, count: int = 1) -> str:
    lines = [f"  r{k} = {et}[{dims}] rng(a, b), distribution={distribution}" for k in range(count)]
    root = f"  ROOT t = ({', '.join([f'{et}[{dims}]'] * count)}) tuple({', '.join(f'r{k}' for k in range(count))})"
    return (f"HloModule m\nENTRY e {{\n  a = {et}[] constant({a})\n  b = {et}[] constant({b})\n"
            + "\n".join(lines) + "\n" + root + "\n}\n")


@pytest.mark.parametrize("et", ["s32", "u32", "s64", "u64"])
def test_rng_uniform_integers_cover_their_range(et: str) -> None:
    out = llvm(rng_module(et, "4096", "3", "10", "rng_uniform"))[0]
    assert out.min() >= 3 and out.max() < 10
    counts = np.bincount(out.astype(np.int64) - 3, minlength=7)
    assert (abs(counts - 4096 / 7) < 120).all(), counts


def test_rng_uniform_of_an_empty_range_and_negative_bounds() -> None:
    assert not llvm(rng_module("u64", "", "0", "1", "rng_uniform"))[0]  # hlofile_0443: [0, 1)
    out = llvm(rng_module("s32", "1000", "-5", "-2", "rng_uniform"))[0]
    assert set(out.tolist()) == {-5, -4, -3}


@pytest.mark.parametrize("et", ["f32", "f64", "f16", "bf16"])
def test_rng_uniform_floats_in_range_with_the_right_mean(et: str) -> None:
    out = llvm(rng_module(et, "64,128", "-2", "5", "rng_uniform"))[0].astype(np.float64)
    assert out.min() >= -2 and out.max() <= 5 and out.max() > 4.9 and out.min() < -1.9
    assert abs(out.mean() - 1.5) < 0.1 and abs(out.std() - 7 / np.sqrt(12)) < 0.1


@pytest.mark.parametrize("et", ["f32", "f64", "f16", "bf16"])
def test_rng_normal_moments(et: str) -> None:
    out = llvm(rng_module(et, "16384", "1", "2", "rng_normal"))[0].astype(np.float64)
    assert np.isfinite(out).all()
    assert abs(out.mean() - 1) < 0.06 and abs(out.std() - 2) < 0.06
    assert abs(np.mean(np.abs(out - 1) < 2) - 0.6827) < 0.015  # one sigma


def test_rng_draws_new_numbers_per_call_and_per_instruction() -> None:
    compiled = compile_module(hlotools.parse_module(rng_module("f32", "256", "0", "1", "rng_uniform", count=2)))
    first, second = [np.asarray(v) for v in compiled([])]
    again = np.asarray(compiled([])[0])
    assert not np.array_equal(first, second) and not np.array_equal(first, again)
    fresh = compile_module(hlotools.parse_module(rng_module("f32", "256", "0", "1", "rng_uniform", count=2)))
    assert np.array_equal(np.asarray(fresh([])[0]), first)  # reproducible per compiled module


@pytest.mark.parametrize("et, distribution", [("s8", "rng_uniform"), ("s32", "rng_normal"), ("pred", "rng_uniform")])
def test_rng_of_types_xla_cannot_draw_is_refused(et: str, distribution: str) -> None:
    a, b = ("false", "true") if et == "pred" else ("0", "1")
    m = hlotools.parse_module(rng_module(et, "4", a, b, distribution), verify=False)
    with pytest.raises(HloUnsupportedError, match=r"rng %r0: XLA's RngExpander"):
        compile_module(m)


def test_rng_get_and_update_state_matches_the_interpreter_then_advances() -> None:
    text = "HloModule m\nENTRY e {\n  ROOT s = u64[2] rng-get-and-update-state(), delta=5\n}\n"
    compiled = compile_module(hlotools.parse_module(text))
    first = np.asarray(compiled([])[0])
    assert np.array_equal(first, interp(text, [])[0])
    assert np.asarray(compiled([])[0]).tolist() == [int(first[0]) + 5, int(first[1])]


def test_rng_bf16_rounds_from_f32() -> None:
    out = llvm(rng_module("bf16", "512", "0", "1", "rng_uniform"))[0]
    assert out.dtype == ml_dtypes.bfloat16
    assert np.array_equal(out.astype(np.float32).astype(ml_dtypes.bfloat16), out)
