"""reduce / reduce-window / select-and-scatter, with hand-worked expected values."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from tests.support.helpers import scalar_computation
from tests.support.runner import opcode, run, run1, run_both, same_bits

ADD = scalar_computation("add", "add")
MAX = scalar_computation("max", "maximum")
# argmax reducer: (value, index) pairs, ties to the smaller index (a non-simple reducer)
ARGMAX = """argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, av, bv)
  i = s32[] select(keep, ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
"""


@opcode("reduce")
def test_reduce_sum_rows_and_all(backend: str) -> None:
    text = ADD + """ENTRY e {
  a = f32[2,3] parameter(0)
  z = f32[] constant(0)
  rows = f32[2] reduce(a, z), dimensions={1}, to_apply=add
  all = f32[] reduce(a, z), dimensions={0,1}, to_apply=add
  ROOT t = (f32[2], f32[]) tuple(rows, all)
}"""
    rows, total = run(text, np.array([[1, 2, 3], [4, 5, 6]], np.float32), backend=backend)
    assert rows.tolist() == [6, 15] and total.tolist() == 21


@opcode("reduce")
def test_reduce_max_propagates_nan_and_empty_gives_init(backend: str) -> None:
    text = MAX + """ENTRY e {
  a = f32[2,3] parameter(0)
  z = f32[] constant(-inf)
  ROOT r = f32[2] reduce(a, z), dimensions={1}, to_apply=max
}"""
    got = run1(text, np.array([[1, np.nan, 3], [4, 5, -6]], np.float32), backend=backend)
    assert np.isnan(got[0]) and got[1] == 5
    text = ADD + """ENTRY e {
  a = f32[0,3] parameter(0)
  z = f32[] constant(7)
  ROOT r = f32[3] reduce(a, z), dimensions={0}, to_apply=add
}"""
    assert run1(text, np.zeros((0, 3), np.float32), backend=backend).tolist() == [7, 7, 7]


@opcode("iota", "reduce")
def test_variadic_argmax_reduce(backend: str) -> None:
    text = ARGMAX + """ENTRY e {
  v = f32[2,4] parameter(0)
  i = s32[2,4] iota(), iota_dimension=1
  zv = f32[] constant(-inf)
  zi = s32[] constant(0)
  ROOT r = (f32[2], s32[2]) reduce(v, i, zv, zi), dimensions={1}, to_apply=argmax
}"""
    vals, idx = run(text, np.array([[1, 9, 9, 2], [-1, -3, -0.5, -2]], np.float32), backend=backend)
    assert vals.tolist() == [9, -0.5] and idx.tolist() == [1, 2]


@opcode("reduce")
def test_integer_sum_wraps(backend: str) -> None:
    text = scalar_computation("add", "add", "s8") + """ENTRY e {
  a = s8[3] parameter(0)
  z = s8[] constant(0)
  ROOT r = s8[] reduce(a, z), dimensions={0}, to_apply=add
}"""
    assert run1(text, np.array([100, 100, 100], np.int8), backend=backend).tolist() == 44  # 300 mod 256


@opcode("reduce")
def test_bf16_reduce_rounds_each_step(backend: str) -> None:
    bf = ml_dtypes.bfloat16
    text = scalar_computation("add", "add", "bf16") + """ENTRY e {
  a = bf16[2] parameter(0)
  z = bf16[] constant(0)
  ROOT r = bf16[] reduce(a, z), dimensions={0}, to_apply=add
}"""
    # 256 + 1 rounds to 256 in bf16 (8 significant bits), so (256 + 1) + 1 = 256 as well
    got = run1(text, np.array([256, 1], bf), backend=backend)
    assert got.dtype == bf and float(got) == 256.0


@opcode("reduce-window")
def test_reduce_window_max_pool_with_padding_and_stride(backend: str) -> None:
    text = MAX + """ENTRY e {
  a = f32[1,4] parameter(0)
  z = f32[] constant(-inf)
  ROOT r = f32[1,3] reduce-window(a, z), window={size=1x2 stride=1x2 pad=0_0x1_1}, to_apply=max
}"""
    # padded: [-inf, 1, 5, 2, 7, -inf] -> windows [-inf,1] [5,2] [7,-inf]
    assert run1(text, np.array([[1, 5, 2, 7]], np.float32), backend=backend).tolist() == [[1, 5, 7]]


def _window_sums(x: list[float], init: float, out: int, window: str) -> list[float]:
    """reduce-window add of the f32 vector x (init `init`, `out` windows, window={`window`})."""
    text = ADD + f"""ENTRY e {{
  a = f32[{len(x)}] parameter(0)
  z = f32[] constant({init})
  ROOT r = f32[{out}] reduce-window(a, z), window={{{window}}}, to_apply=add
}}"""
    got: list[float] = run1(text, np.array(x, np.float32)).tolist()
    return got


@opcode("reduce-window")
def test_reduce_window_init_combined_once_and_dilations() -> None:
    # windows {0, 2} and {1, 3}; init added once per window
    assert _window_sums([1, 2, 3, 4], 100, 2, "size=2 rhs_dilate=2") == [104, 106]
    # base-dilated operand [1, _, 2, _, 3]: holes contribute nothing
    assert _window_sums([1, 2, 3], 0, 4, "size=2 lhs_dilate=2") == [1, 2, 2, 3]


@opcode("reduce-window")
def test_reduce_window_cumulative_sum_like_jax() -> None:
    assert _window_sums([1, 2, 3, 4, 5], 0, 5, "size=5 pad=4_0") == [1, 3, 6, 10, 15]


@opcode("iota", "reduce-window")
def test_variadic_reduce_window_skips_padding(backend: str) -> None:
    text = ARGMAX + """ENTRY e {
  v = f32[4] parameter(0)
  i = s32[4] iota(), iota_dimension=0
  zv = f32[] constant(-inf)
  zi = s32[] constant(-1)
  ROOT r = (f32[4], s32[4]) reduce-window(v, i, zv, zi), window={size=2 pad=1_0}, to_apply=argmax
}"""
    # windows [pad,3] [3,1] [1,4] [4,4]: the padding never wins, ties go to the smaller index
    vals, idx = run(text, np.array([3, 1, 4, 4], np.float32), backend=backend)
    assert vals.tolist() == [3, 3, 4, 4] and idx.tolist() == [0, 0, 2, 2]


@opcode("select-and-scatter")
def test_select_and_scatter_max_pool_gradient(backend: str) -> None:
    text = scalar_computation("ge", "compare", out_ty="pred", attrs=", direction=GE") + ADD + """ENTRY e {
  x = f32[4] parameter(0)
  g = f32[3] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[4] select-and-scatter(x, g, z), window={size=2}, select=ge, scatter=add
}"""
    # windows [1,5] [5,5] [5,2] pick 5@1, 5@1 (GE keeps the current selection on ties), 5@2
    got = run1(text, np.array([1, 5, 5, 2], np.float32), np.array([10, 20, 30], np.float32), backend=backend)
    assert got.tolist() == [0, 30, 30, 0]


@opcode("iota", "reduce")
def test_long_variadic_reduce_takes_the_pairwise_path(backend: str) -> None:
    text = ARGMAX + """ENTRY e {
  v = f32[5000] parameter(0)
  i = s32[5000] iota(), iota_dimension=0
  zv = f32[] constant(-inf)
  zi = s32[] constant(0)
  ROOT r = (f32[], s32[]) reduce(v, i, zv, zi), dimensions={0}, to_apply=argmax
}"""
    # values 0..999 repeated five times: the maximum 999 first appears at index 999
    vals, idx = run(text, (np.arange(5000) % 1000).astype(np.float32), backend=backend)
    assert vals.tolist() == 999 and idx.tolist() == 999


# ------------------------------------------------- LLVM backend vs interpreter, bit for bit
# Sweeps over types and edge values with the interpreter as the reference (run_both/same_bits):
# each case runs both backends itself, so it takes no `backend` fixture.


@opcode("reduce", "reduce-window")
def test_reduce_variadic_and_reduce_window() -> None:
    text = """HloModule m
argmax {
  a = f32[] parameter(0)  i = s32[] parameter(1)  b = f32[] parameter(2)  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GE
  v = f32[] select(gt, a, b)
  k = s32[] select(gt, i, j)
  ROOT t = (f32[], s32[]) tuple(v, k)
}
max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = f32[] maximum(a, b) }
ENTRY e {
  x = f32[4,7] parameter(0)
  io = s32[4,7] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  r = (f32[4], s32[4]) reduce(x, io, ninf, zero), dimensions={1}, to_apply=argmax
  w = f32[2,4] reduce-window(x, ninf), window={size=2x3 stride=2x2 pad=0_0x1_1}, to_apply=max
  r0 = f32[4] get-tuple-element(r), index=0
  r1 = s32[4] get-tuple-element(r), index=1
  ROOT t = (f32[4], s32[4], f32[2,4]) tuple(r0, r1, w)
}"""
    x = np.random.default_rng(1).standard_normal((4, 7)).astype(np.float32)
    same_bits(*run_both(text, [x]))


@opcode("select-and-scatter")
def test_select_and_scatter_max_pool_gradient_2d_padded_strided() -> None:
    text = """HloModule m
ge { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = pred[] compare(a, b), direction=GE }
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = f32[] add(a, b) }
ENTRY e {
  x = f32[5,6] parameter(0)
  s = f32[3,3] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[5,6] select-and-scatter(x, s, z), window={size=2x3 stride=2x2 pad=0_1x1_1}, select=ge, scatter=add
}"""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, (5, 6)).astype(np.float32)  # ties: the first maximum wins
    s = rng.standard_normal((3, 3)).astype(np.float32)
    same_bits(*run_both(text, [x, s]))
