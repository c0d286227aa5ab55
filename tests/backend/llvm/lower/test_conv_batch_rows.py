"""lower/conv_gemm.py's batch_as_rows: a rows-form convolution whose result keeps the rows of
consecutive batch elements together (torch's weight gradient, fb01_io01->fb01: the batch is
the input's channels, 9 kernel positions each) runs as one GEMM over batch x positions. It
must be taken there, give the per-batch GEMMs' bits and match the interpreter (odd sizes,
the forward's stride and dilation, f64, threads), and leave the tasks' fills to convolutions
with many positions per batch element."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from hlotools.backend.llvm.lower import conv_gemm
from tests.backend.llvm.lower.test_conv_columns import _args, conv_module

WGRAD = "dim_labels=fb01_io01->fb01"
CASES = {  # x [N, C, H, W] and the output gradient g [N, O, Ho, Wo] -> dw [O, C, 3, 3]
    "odd_sizes": conv_module("[5,3,13,11]", "[5,7,13,11]", "[7,3,3,3]", f"window={{size=13x11 pad=1_1x1_1}}, {WGRAD}"),
    # 6 and 3 positions: fewer than a panel at every level (so never conv_columns' form)
    "kernel_2x3": conv_module("[8,3,13,11]", "[8,7,13,11]", "[7,3,2,3]", f"window={{size=13x11 pad=0_1x1_1}}, {WGRAD}"),
    "forward_stride2": conv_module("[6,6,15,13]", "[6,16,8,7]", "[16,6,3,3]",
                                   f"window={{size=8x7 pad=1_1x1_1 rhs_dilate=2x2}}, {WGRAD}"),
    "forward_dilation2": conv_module("[4,4,12,12]", "[4,8,12,12]", "[8,4,3,3]",
                                     f"window={{size=12x12 stride=2x2 pad=2_2x2_2}}, {WGRAD}"),
    "f64": conv_module("[8,3,13,11]", "[8,12,13,11]", "[12,3,1,3]", f"window={{size=13x11 pad=0_0x1_1}}, {WGRAD}", "f64"),
    # the CNN's second weight gradient: packed kernel small enough for the tasks' fills
    "cnn_second": conv_module("[8,16,32,32]", "[8,32,32,32]", "[32,16,3,3]",
                              f"window={{size=32x32 pad=1_1x1_1}}, {WGRAD}"),
}


def _plan(text: str) -> conv_gemm.lower_gemm.Plan:
    found = conv_gemm.conv_plan(hlotools.parse_module(text).entry.root)  # type: ignore[union-attr]
    assert found is not None
    if found[0].swapped:  # 9 positions fill a panel below AVX-512 (f32) or AVX (f64)
        pytest.skip("conv_columns' form at this target's panel width")
    return found[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_batch_as_rows_gives_the_per_batch_bits(name: str) -> None:
    text = CASES[name]
    p = _plan(text)
    g = conv_gemm.batch_as_rows(p)
    assert g is not p and g.dims.batch == (1,) and g.dims.m == p.dims.batch[0] * p.dims.m
    # a whole im2col, not the tasks' fills, where the fold saves a quarter of the row blocks (MR
    # rows: 8 at AVX-512, 6 below; the tasks' fills then run per batch element, unfolded)
    assert len(p.scratch) == 2 or not conv_gemm._blocks_saved(p)
    args = _args(text)
    got = compile_module(hlotools.parse_module(text))(args)[0]
    want = evaluate(hlotools.parse_module(text), args)[0]
    tol = 1e-12 if got.dtype == np.float64 else 2e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=10 * tol * float(np.abs(want).max()))
    with conv_gemm.batch_rows_disabled():
        assert conv_gemm.batch_as_rows(p) is p
        per_batch = compile_module(hlotools.parse_module(text))(args)[0]
    assert got.tobytes() == per_batch.tobytes()


def test_many_positions_keep_the_tasks_fills() -> None:
    # NHWC: the batch is also just outside the positions, but 1024 of them fill whole row blocks
    text = conv_module("[2,32,32,16]", "[3,3,16,32]", "[2,32,32,32]",
                       "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f")
    p = _plan(text)
    assert conv_gemm.batch_as_rows(p) is not p and len(p.scratch) == 3
    args = _args(text)
    np.testing.assert_allclose(compile_module(hlotools.parse_module(text))(args)[0],
                               evaluate(hlotools.parse_module(text), args)[0], rtol=2e-5, atol=2e-4)


def test_groups_fall_back() -> None:
    text = conv_module("[4,8,12,12]", "[2,8,12,12]", "[8,8,3,3]",
                       f"window={{size=12x12 pad=1_1x1_1}}, {WGRAD}, feature_group_count=2")
    assert conv_gemm.conv_plan(hlotools.parse_module(text).entry.root) is None  # type: ignore[union-attr]
    args = _args(text)
    np.testing.assert_allclose(compile_module(hlotools.parse_module(text))(args)[0],
                               evaluate(hlotools.parse_module(text), args)[0], rtol=2e-5, atol=2e-4)
