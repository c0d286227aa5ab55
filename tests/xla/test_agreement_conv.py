"""Convolutions with inf in the kernel or the input as XLA CPU computes them, on both backends:
whether padding and lhs-dilation holes are multiplied (0 * inf = NaN: Eigen's generic
convolution, and the spec) or skipped (the elemental loop, Eigen's custom transposed
convolution, algsimp's operand swap), and where XLA's group rewrites leak 0 * inf into other
groups. The outputs were recorded from real XLA (jaxlib 0.10, tests/support/xla_conv_cases.py);
the tests never need jax. See hlotools/ir/xla_conv.py for the rule and its evidence."""
from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver.runtime import CompiledModule
from hlotools.backend.llvm.lower import conv_gemm
from hlotools.ir import semantics
from hlotools.ir.instruction import Instruction
from hlotools.ir.xla_conv import ConvNumerics, convolution_numerics
from tests.support.xla_conv_cases import CASES, RECORDED, hlo, inputs

DT = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}
TOL = {"f16": 2e-3, "bf16": 1e-2, "f32": 1e-4, "f64": 1e-9}
Backend = Callable[[str, list[np.ndarray]], np.ndarray]
XLA = dict(np.load(RECORDED))


def _interp(text: str, args: list[np.ndarray]) -> np.ndarray:
    return np.asarray(evaluate(hlotools.parse_module(text), args)[0])


def _llvm(text: str, args: list[np.ndarray]) -> np.ndarray:
    return np.asarray(CompiledModule(hlotools.parse_module(text))(args)[0])


BACKENDS = pytest.mark.parametrize("run", [_interp, _llvm], ids=["interp", "llvm"])


def _assert_same(got: np.ndarray, want: np.ndarray, ty: str) -> None:
    got = got.astype(np.float64)
    want = want.astype(np.float64)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg="NaN positions")
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)], err_msg="infs")
    np.testing.assert_allclose(got[finite], want[finite], rtol=TOL[ty], atol=TOL[ty])


@BACKENDS
@pytest.mark.parametrize("name", list(CASES))
def test_convolution_matches_xla_cpu(run: Backend, name: str) -> None:
    """Every case as XLA CPU computed it: NaN exactly where XLA has one, the same infs."""
    case = CASES[name]
    got = run(hlo(case), inputs(case, DT))
    _assert_same(got, XLA[name], case["ty"])


@BACKENDS
@pytest.mark.parametrize("name", ["f64_pad", "f32_lhsdil_s1", "f32_rev", "f32_kernel8b", "f32_swap_big_kernel"])
def test_spec_semantics_multiplies_padding(run: Backend, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under `spec` padding is zeros times the kernel: the inf kernel element makes NaN where
    XLA CPU's skipping path has none."""
    monkeypatch.setenv(semantics.ENV, "spec")
    case = CASES[name]
    got = run(hlo(case), inputs(case, DT))
    assert not np.isnan(XLA[name]).any()
    assert np.isnan(got.astype(np.float64)).any()
    finite = np.isfinite(XLA[name]) & ~np.isnan(got.astype(np.float64))
    np.testing.assert_allclose(got.astype(np.float64)[finite], XLA[name][finite], rtol=TOL[case["ty"]],
                               atol=TOL[case["ty"]])


def _conv(name: str) -> Instruction:
    module = hlotools.parse_module(hlo(CASES[name]))
    return next(i for c in module.computations for i in c.instructions if i.opcode == "convolution")


SKIP = ConvNumerics(skips_padding=True)
MULTIPLY = ConvNumerics()
PATHS = {
    "f32_pad": MULTIPLY, "bf16_pad": MULTIPLY, "f32_nchw_entry": MULTIPLY, "f32_nhwc_cond": MULTIPLY,
    "f32_lhsdil_s2": MULTIPLY, "f32_3d_lhsdil": MULTIPLY, "f16_kernel8b": MULTIPLY,
    "f64_pad": SKIP, "f32_rev": SKIP, "f32_nchw_cond": SKIP, "f32_4d": SKIP, "f32_kernel8b": SKIP,
    "f32_output8b": SKIP, "f32_lhsdil_s1": SKIP, "f32_1d_lhsdil": SKIP, "f32_swap_big_kernel": SKIP,
    "f32_bg2_rhsinf": ConvNumerics(kernel_leaks=True), "f32_1d_bg2_rhsinf": SKIP, "f32_3d_bg2_rhsinf": SKIP,
    "f32_bg2_cond_rhsinf": SKIP, "f32_swap_bg2": SKIP, "f32_bg2_eq_rhsinf_pad": MULTIPLY,
    "f64_fg2_depthwise_lhsinf": ConvNumerics(skips_padding=True, input_leaks=True),
    "f64_fg2_group2_lhsinf": SKIP, "f32_fg2_pad": MULTIPLY,
}


@pytest.mark.parametrize("name", list(PATHS))
def test_numerics_name_xla_cpus_path(name: str) -> None:
    assert convolution_numerics(_conv(name)) == PATHS[name]


def test_spec_numerics_never_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(semantics.ENV, "spec")
    assert all(convolution_numerics(_conv(n)) == MULTIPLY for n in PATHS)


def test_gemm_path_is_checked_at_run_time_only_when_it_can_differ() -> None:
    """The im2col + GEMM convolution multiplies padding: where XLA skips it, a run-time
    check of the kernel picks the skipping loop (and a kOutput fusion keeps the conv out of
    its epilogue); where XLA multiplies too, or no padding is read, nothing is checked."""
    skipping = _conv("f32_big_lhsdil")
    assert conv_gemm.conv_plan(skipping) is not None
    assert conv_gemm.needs_kernel_check(skipping) and conv_gemm.fused_plan(skipping) is None
    multiplying = _conv("f32_big_pad")
    assert not conv_gemm.needs_kernel_check(multiplying)
    assert conv_gemm.fused_plan(multiplying) is not None


@pytest.mark.parametrize("value,checked", [("1.5", False), ("inf", True), ("nan", True)])
def test_constant_kernel_known_finite_keeps_the_gemm(value: str, checked: bool) -> None:
    text = ("HloModule m\nENTRY e {\n  x = f32[1,6,6,1] parameter(0)\n"
            f"  k = f32[1,1,1,2] constant({{{{{{{{0.5, {value}}}}}}}}})\n"
            "  ROOT c = f32[1,13,13,2] convolution(x, k), window={size=1x1 pad=1_1x1_1 lhs_dilate=2x2}, "
            "dim_labels=b01f_01io->b01f\n}\n")
    conv = hlotools.parse_module(text).entry.root
    assert convolution_numerics(conv).skips_padding
    assert conv_gemm.needs_kernel_check(conv) is checked
