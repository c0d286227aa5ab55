"""kernels/conv.py's generic im2col and kernel packing (the runtime library's `conv.<type>`):
every convolution emit_conv_gemm gives them must come out bit for bit as with the loop
nests generated per convolution (same A and B, same GEMM), and match the interpreter:
layouts, strides, padding, both dilations, reversal, 0 to 3 spatial dims, f64, threads,
position tables too big (the computing nest), and AOT objects that define the functions
inside."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from hlotools.backend.llvm.driver import aot
from hlotools.backend.llvm.kernels import library as runtime_library
from hlotools.backend.llvm.lower import conv_columns
from hlotools.backend.llvm.lower.conv_gemm import generated_im2col
from hlotools.backend.llvm.native.objfile import read_object
from tests.backend.llvm.driver.test_aot import build_and_run, needs_cc


def conv_module(lhs: str, rhs: str, out: str, attrs: str, et: str = "f32") -> str:
    return (f"HloModule m\nENTRY e {{\n  x = {et}{lhs} parameter(0)\n  k = {et}{rhs} parameter(1)\n"
            f"  ROOT c = {et}{out} convolution(x, k), {attrs}\n}}\n")


CASES = {
    "nhwc_pad1": conv_module("[2,12,12,16]", "[3,3,16,24]", "[2,12,12,24]",
                             "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
    "nchw_stride2_pad": conv_module("[2,8,13,11]", "[20,8,3,3]", "[2,20,7,6]",
                                    "window={size=3x3 stride=2x2 pad=2_1x1_1}, dim_labels=bf01_oi01->bf01"),
    "window_dilation": conv_module("[2,14,14,8]", "[3,3,8,16]", "[2,10,14,16]",
                                   "window={size=3x3 pad=0_0x2_2 rhs_dilate=2x2}, dim_labels=b01f_01io->b01f"),
    "base_dilation_reversal": conv_module("[2,7,9,8]", "[3,2,8,16]", "[2,13,10,16]",
                                          "window={size=3x2 pad=1_1x1_1 lhs_dilate=2x1 rhs_reversal=1x0}, "
                                          "dim_labels=b01f_01io->b01f"),
    "nchw_dilated_reversed": conv_module("[2,8,9,11]", "[16,8,3,3]", "[2,16,9,21]",
                                         "window={size=3x3 pad=1_1x1_1 lhs_dilate=1x2 rhs_reversal=0x1}, "
                                         "dim_labels=bf01_oi01->bf01"),
    "kernel_spatial_innermost": conv_module("[2,10,10,16]", "[16,24,3,3]", "[2,8,8,24]",
                                            "window={size=3x3}, dim_labels=b01f_io01->b01f"),
    "layouts": ("HloModule m\nENTRY e {\n  x = f32[2,10,10,16]{0,3,2,1} parameter(0)\n"
                "  k = f32[3,3,16,24]{2,3,0,1} parameter(1)\n"
                "  ROOT c = f32[2,10,10,24]{1,2,3,0} convolution(x, k), window={size=3x3 pad=1_1x1_1}, "
                "dim_labels=b01f_01io->b01f\n}\n"),
    "one_d": conv_module("[4,40,12]", "[5,12,20]", "[4,40,20]", "window={size=5 pad=2_2}, dim_labels=b0f_0io->b0f"),
    # 600 x 3 window positions: more than conv_kernel.TABLE, so positions are computed per element
    "long_one_d": conv_module("[2,600,8]", "[3,8,16]", "[2,300,16]", "window={size=3 stride=2 pad=1_1}, "
                              "dim_labels=b0f_0io->b0f"),
    "three_d": conv_module("[1,6,7,8,8]", "[3,3,3,8,16]", "[1,4,5,6,16]", "window={size=3x3x3}, "
                           "dim_labels=b012f_012io->b012f"),
    "no_spatial": conv_module("[4,256]", "[256,160]", "[4,160]", "dim_labels=bf_io->bf"),
    "f64": conv_module("[2,9,9,8]", "[3,3,8,16]", "[2,9,9,16]", "window={size=3x3 pad=1_1x1_1}, "
                       "dim_labels=b01f_01io->b01f", "f64"),
    "threaded": conv_module("[8,32,32,16]", "[3,3,16,32]", "[8,32,32,32]",
                            "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
    # a packed kernel over conv_gemm.FILL_MAX_B: the whole im2col first, not in the GEMM's tasks
    "big_kernel": conv_module("[2,9,9,256]", "[3,3,256,128]", "[2,9,9,128]",
                              "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
}
# emit_conv_gemm keeps its generated loop nests for these (bf16 operands of an f32 result; four
# spatial dims, more than conv_kernel.MAX_SPATIAL): still the same numbers
FALLBACK = {
    "narrow_operands": ("HloModule m\nENTRY e {\n  x = bf16[2,12,12,16] parameter(0)\n"
                        "  k = bf16[3,3,16,24] parameter(1)\n  ROOT c = f32[2,12,12,24] convolution(x, k), "
                        "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n}\n"),
    "four_d": conv_module("[1,5,5,5,5,8]", "[2,2,2,2,8,8]", "[1,4,4,4,4,8]", "window={size=2x2x2x2}, "
                          "dim_labels=b0123f_0123io->b0123f"),
}


def _args(text: str, seed: int = 0) -> list[np.ndarray]:
    module = hlotools.parse_module(text)
    rng = np.random.default_rng(seed)
    assert module.entry is not None
    return [rng.standard_normal(p.shape.dims).astype(p.shape.dtype) for p in module.entry.parameters]


def _both(text: str) -> tuple[list[np.ndarray], list[np.ndarray], object, object]:
    args = _args(text)
    fast = compile_module(hlotools.parse_module(text))
    with generated_im2col():
        slow = compile_module(hlotools.parse_module(text))
    return fast(args), slow(args), fast, slow


def _check_interpreter(text: str, got: list[np.ndarray]) -> None:
    want = evaluate(hlotools.parse_module(text), _args(text))
    rtol = 1e-12 if got[0].dtype == np.float64 else 2e-5
    np.testing.assert_allclose(got[0], want[0], rtol=rtol, atol=rtol * 10)


@pytest.mark.parametrize("name", sorted(CASES))
def test_runtime_im2col_is_bit_identical_to_the_generated_one(name: str) -> None:
    text = CASES[name]
    with conv_columns.disabled():  # the NCHW results would take conv_columns' form (no im2col)
        got, want, fast, slow = _both(text)
    assert got[0].tobytes() == want[0].tobytes()
    et = "f64" if name == "f64" else "f32"
    assert runtime_library.conv_group(et) in fast.runtime_groups  # type: ignore[attr-defined]
    assert runtime_library.conv_group(et) not in slow.runtime_groups  # type: ignore[attr-defined]
    assert "@\"conv.im2col." not in slow.llvm_ir  # type: ignore[attr-defined]
    _check_interpreter(text, got)


@pytest.mark.parametrize("name", sorted(FALLBACK))
def test_other_convolutions_keep_the_generated_loop_nests(name: str) -> None:
    text = FALLBACK[name]
    got, want, fast, _ = _both(text)
    assert runtime_library.conv_group("f32") not in fast.runtime_groups  # type: ignore[attr-defined]
    assert "gemm.f32" in " ".join(fast.runtime_groups)  # type: ignore[attr-defined]  # still the GEMM path
    assert got[0].tobytes() == want[0].tobytes()
    _check_interpreter(text, got)


@pytest.mark.parametrize("name, in_tasks", [("threaded", True), ("one_d", True), ("big_kernel", False)])
def test_the_gemm_tasks_fill_a_when_the_kernel_is_small(name: str, in_tasks: bool) -> None:
    from hlotools.backend.llvm.lower import conv_gemm
    conv = hlotools.parse_module(CASES[name]).entry.root  # type: ignore[union-attr]
    found = conv_gemm.conv_plan(conv)
    assert found is not None and conv_gemm.fills_in_tasks(found[0]) is in_tasks
    ir_text: str = compile_module(hlotools.parse_module(CASES[name])).llvm_ir  # type: ignore[attr-defined]
    assert ('@"conv.rows.f32"' in ir_text) is in_tasks
    assert ('@"conv.im2col.f32"' in ir_text) is not in_tasks


def test_the_module_only_declares_the_functions() -> None:
    _, _, fast, _ = _both(CASES["nhwc_pad1"])
    ir_text: str = fast.llvm_ir  # type: ignore[attr-defined]
    assert 'declare void @"conv.rows.f32"' in ir_text and 'declare void @"conv.pack.f32"' in ir_text
    assert "par.im2col" not in ir_text  # no outlined im2col worker any more


def test_groups_of_the_conv_symbols() -> None:
    assert runtime_library.group_of("conv.im2col.f32") == runtime_library.group_of("conv.pack.f32") == runtime_library.conv_group("f32") == "conv.f32"
    assert runtime_library.group_of("conv.pack.f64") == "conv.f64"
    assert runtime_library.group_of("conv.im2col.s32") is None and runtime_library.group_of("conv.f32") is None
    text = runtime_library.build_ir("conv.f64")
    assert 'define void @"conv.im2col.f64"' in text and 'define void @"conv.pack.f64"' in text
    assert 'define void @"conv.rows.f64"' in text and 'define void @"conv.tables.f64"' in text
    assert runtime_library.group_of("conv.rows.f32") == runtime_library.group_of("conv.tables.f32") == "conv.f32"
    with pytest.raises(hlotools.HloError, match="no group"):
        runtime_library.build_ir("conv.f16")


def test_aot_object_defines_the_functions_inside() -> None:
    built = aot.build(hlotools.parse_module(CASES["nhwc_pad1"]), aot.AotOptions(function_name="conv"))
    info = read_object(aot.emit(built, "obj"))  # type: ignore[arg-type]
    assert info.defined == ("conv",)
    assert not [s for s in info.undefined if runtime_library.group_of(s)]


@needs_cc
def test_c_program_runs_the_convolution(tmp_path: Path) -> None:
    text = CASES["base_dilation_reversal"]
    got = build_and_run(tmp_path, text, list(_args(text)), "conv")
    jit_got = compile_module(hlotools.parse_module(text))(_args(text))
    assert got[0].tobytes() == jit_got[0].tobytes()
