"""lower/conv_columns.py: a convolution with an NCHW-like result as the GEMM with the
features for rows. It must take that form where meant, give the same bits as conv_gemm's form
(rows the positions) and match the interpreter: odd sizes, a 3-channel input, strides,
padding (asymmetric, negative), both dilations, reversal, 1 and 3 spatial dims, f64, bf16
operands, kernel and result layouts, threads, and a kOutput fusion's epilogue."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from hlotools.backend.llvm.lower import conv_columns, conv_gemm
from tests.backend.llvm.lower.test_output_fusion import Case, _relu, run_case


def conv_module(lhs: str, rhs: str, out: str, attrs: str, et: str = "f32", out_et: str | None = None) -> str:
    return (f"HloModule m\nENTRY e {{\n  x = {et}{lhs} parameter(0)\n  k = {et}{rhs} parameter(1)\n"
            f"  ROOT c = {out_et or et}{out} convolution(x, k), {attrs}\n}}\n")


NCHW = "dim_labels=bf01_oi01->bf01"
CASES = {
    "three_channels_odd": conv_module("[3,3,13,11]", "[16,3,3,3]", "[3,16,13,11]", f"window={{size=3x3 pad=1_1x1_1}}, {NCHW}"),
    "stride2_asymmetric_pad": conv_module("[2,9,17,15]", "[13,9,3,3]", "[2,13,9,7]",
                                          f"window={{size=3x3 stride=2x2 pad=2_1x0_1}}, {NCHW}"),
    "window_dilation": conv_module("[2,4,14,14]", "[8,4,3,3]", "[2,8,10,14]",
                                   f"window={{size=3x3 pad=0_0x2_2 rhs_dilate=2x2}}, {NCHW}"),
    "negative_padding": conv_module("[2,8,12,12]", "[16,8,3,2]", "[2,16,9,12]",
                                    f"window={{size=3x2 pad=-1_0x1_0}}, {NCHW}"),
    "base_dilation_both_dims": conv_module("[2,4,7,9]", "[8,4,3,2]", "[2,8,13,18]",
                                           f"window={{size=3x2 pad=1_1x1_1 lhs_dilate=2x2}}, {NCHW}"),
    "base_dilation_outer_reversal": conv_module("[2,4,7,9]", "[8,4,3,3]", "[2,8,13,9]",
                                                f"window={{size=3x3 pad=1_1x1_1 lhs_dilate=2x1 rhs_reversal=1x1}}, {NCHW}"),
    "strided_dilated_reversed": conv_module("[2,6,19,23]", "[12,6,3,3]", "[2,12,9,10]",
                                            f"window={{size=3x3 stride=2x2 pad=0_0x1_0 rhs_dilate=1x2 rhs_reversal=0x1}}, {NCHW}"),
    "one_d": conv_module("[4,12,40]", "[20,12,5]", "[4,20,40]", "window={size=5 pad=2_2}, dim_labels=bf0_oi0->bf0"),
    "three_d": conv_module("[1,4,6,7,8]", "[16,4,3,3,3]", "[1,16,4,5,6]", "window={size=3x3x3}, dim_labels=bf012_oi012->bf012"),
    "f64": conv_module("[2,8,9,9]", "[12,8,3,3]", "[2,12,9,9]", f"window={{size=3x3 pad=1_1x1_1}}, {NCHW}", "f64"),
    "bf16_operands": conv_module("[2,8,9,9]", "[12,8,3,3]", "[2,12,9,9]", f"window={{size=3x3 pad=1_1x1_1}}, {NCHW}",
                                 "bf16", "f32"),
    # the kernel in HWIO order (A packed from strided reads), the input NHWC, the result NCHW
    "nhwc_input_hwio_kernel": conv_module("[2,11,10,6]", "[3,3,6,9]", "[2,9,11,10]",
                                          "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->bf01"),
    # the result's batch minor to the features but outside the positions: f b 0 1
    "feature_outermost": ("HloModule m\nENTRY e {\n  x = f32[2,8,10,10] parameter(0)\n  k = f32[8,8,3,3] parameter(1)\n"
                          "  ROOT c = f32[2,8,10,10]{3,2,0,1} convolution(x, k), window={size=3x3 pad=1_1x1_1}, "
                          f"{NCHW}\n}}\n"),
    # 32x32 positions per image: 64 KiB rows (one more panel), columns on several threads
    "threaded": conv_module("[8,16,32,32]", "[32,16,3,3]", "[8,32,32,32]", f"window={{size=3x3 pad=1_1x1_1}}, {NCHW}"),
}
# not this form: positions not contiguous (features minor), fewer positions than a panel, groups
OTHERS = {
    "nhwc_result": conv_module("[2,4,12,12]", "[8,4,3,3]", "[2,12,12,8]", "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->b01f"),
    "few_positions": conv_module("[64,32,3,3]", "[64,32,3,3]", "[64,64,1,1]", f"window={{size=3x3}}, {NCHW}"),
    "feature_groups": conv_module("[2,8,12,12]", "[16,4,3,3]", "[2,16,12,12]",
                                  f"window={{size=3x3 pad=1_1x1_1}}, {NCHW}, feature_group_count=2"),
    "batch_groups": conv_module("[4,8,12,12]", "[16,8,3,3]", "[2,16,10,10]",
                                f"window={{size=3x3}}, {NCHW}, batch_group_count=2"),
}


def _args(text: str) -> list[np.ndarray]:
    module = hlotools.parse_module(text)
    rng = np.random.default_rng(3)
    assert module.entry is not None
    return [rng.standard_normal(p.shape.dims).astype(p.shape.dtype) for p in module.entry.parameters]


def _columns_form(text: str) -> bool:
    root = hlotools.parse_module(text).entry.root  # type: ignore[union-attr]
    found = conv_gemm.conv_plan(root)
    return found is not None and found[0].swapped


def _check(text: str) -> np.ndarray:
    args = _args(text)
    got = compile_module(hlotools.parse_module(text))(args)[0]
    want = evaluate(hlotools.parse_module(text), args)[0]
    tol = 1e-12 if got.dtype == np.float64 else 2e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=10 * tol)
    return got


@pytest.mark.parametrize("name", sorted(CASES))
def test_columns_form_gives_the_rows_forms_bits(name: str) -> None:
    text = CASES[name]
    assert _columns_form(text)
    got = _check(text)
    with conv_columns.disabled():
        assert not _columns_form(text)
        rows = compile_module(hlotools.parse_module(text))(_args(text))[0]
    assert got.tobytes() == rows.tobytes()


@pytest.mark.parametrize("name", sorted(OTHERS))
def test_other_convolutions_keep_their_paths(name: str) -> None:
    assert not _columns_form(OTHERS[name])
    _check(OTHERS[name])


def test_row_length_skips_4k_multiples() -> None:
    assert conv_columns.row_length(4096, 32, 4) == 4096 + 32
    assert conv_columns.row_length(1100, 32, 4) == 1120
    assert conv_columns.row_length(40, 16, 4) == 48


def test_nchw_bias_relu_epilogue() -> None:
    s = "f32[2,24,13,11]"
    case = Case(["f32[2,5,13,11]", "f32[24,5,3,3]", "f32[24]"],
                [f"d = {s} convolution(p0, p1), window={{size=3x3 pad=1_1x1_1}}, {NCHW}",
                 f"b = {s} broadcast(p2), dimensions={{1}}", f"a = {s} add(d, b)", *_relu(s)], s)
    assert _columns_form(conv_module("[2,5,13,11]", "[24,5,3,3]", "[2,24,13,11]",
                                     f"window={{size=3x3 pad=1_1x1_1}}, {NCHW}"))
    run_case(case, exact=False, expect="epilogue", rtol=1e-4, atol=1e-4)
