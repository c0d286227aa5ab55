"""Reductions and rng-bit-generator as XLA CPU computes them, on both backends: the values
below were recorded from real XLA (jaxlib 0.10, /work/shared/tools/xla_ref.py run); the tests
never need jax. See hlotools/ir/xla_reduce.py for what XLA does and why."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools.backend.llvm.runtime import CompiledModule
from hlotools.interpreter import evaluate
from hlotools.ir import semantics

DT = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
      "s32": np.int32, "u64": np.uint64}
Backend = Callable[[str, list[np.ndarray]], list[np.ndarray]]


def _interp(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(v) for v in evaluate(hlotools.parse_module(text), args)]


def _llvm(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(v) for v in CompiledModule(hlotools.parse_module(text))(args)]


BACKENDS = pytest.mark.parametrize("run", [_interp, _llvm], ids=["interp", "llvm"])


def _bits(a: Any) -> list[int]:
    a = np.ascontiguousarray(np.asarray(a)).reshape(-1)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize]).tolist()


def _reduce(ty: str, shape: tuple[int, ...], dims: tuple[int, ...], body: str, init: str) -> str:
    out = ",".join(str(s) for i, s in enumerate(shape) if i not in dims)
    return (f"HloModule m\nred {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n{body}}}\n"
            f"ENTRY e {{\n  x = {ty}[{','.join(map(str, shape))}] parameter(0)\n"
            f"  c = {ty}[] constant({init})\n  ROOT r = {ty}[{out}] reduce(x, c), "
            f"dimensions={{{','.join(map(str, dims))}}}, to_apply=red\n}}\n")


ADD = "  ROOT r = {t}[] add(a, b)\n"
MUL = "  ROOT r = {t}[] multiply(a, b)\n"
CUSTOM = "  h = {t}[] constant(0.5)\n  m = {t}[] multiply(a, h)\n  ROOT r = {t}[] add(m, b)\n"

# (type, shape, reduced dims, reducer, init, input seed, XLA's output bits). Inputs are
# default_rng(seed).standard_normal(shape) (1 + x/64 for the product) rounded to the type.
RECORDED = [
    ("f16", (5000,), (0,), ADD, "0", 0, [52650]),
    ("bf16", (5000,), (0,), ADD, "0", 1, [49808]),
    ("f16", (70, 50), (0, 1), ADD, "0", 2, [53807]),
    ("bf16", (3, 40, 1100), (1, 2), ADD, "0", 3, [17279, 49910, 17080]),
    ("f16", (4, 1, 100), (0, 2), ADD, "0.25", 4, [19314]),
    ("f16", (1100,), (0,), MUL, "1", 5, [15479]),
    ("bf16", (2, 300), (1,), CUSTOM, "0", 6, [49157, 49120]),
    ("f32", (2, 300), (1,), CUSTOM, "1", 7, [3215026639, 3221314960]),
]


@BACKENDS
@pytest.mark.parametrize("case", RECORDED, ids=[f"{c[0]}{list(c[1])}{list(c[2])}s{c[5]}" for c in RECORDED])
def test_reduce_follows_xla_cpus_tree_bit_for_bit(run: Backend, case: tuple) -> None:
    """f16/bf16 reduces and reducers other than a plain op: XLA CPU's 32-wide reduce-window
    tree (each step rounded, init per window), not one running sum nor a pairwise tree."""
    ty, shape, dims, body, init, seed, want = case
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    if body is MUL:
        x = (1 + x / 64).astype(np.float32)
    (got,) = run(_reduce(ty, shape, dims, body.format(t=ty), init), [x.astype(DT[ty])])
    assert _bits(got) == want


@BACKENDS
@pytest.mark.parametrize("ty,want", [("f16", 5000.0), ("bf16", 4992.0)])
def test_five_thousand_narrow_ones(run: Backend, ty: str, want: float) -> None:
    """XLA: 5000 in f16, 4992 in bf16 (5000 rounded); a running f16 sum sticks at 2048."""
    (got,) = run(_reduce(ty, (5000,), (0,), ADD.format(t=ty), "0"), [np.ones(5000, DT[ty])])
    assert float(got) == want


@BACKENDS
def test_init_is_applied_once_per_window_as_xla_cpu(run: Backend) -> None:
    """s32[100] of zeros with init 1: XLA gives 5 (4 windows of 32 + the final reduce);
    the spec semantics applies init once."""
    text = _reduce("s32", (100,), (0,), ADD.format(t="s32"), "1")
    assert int(run(text, [np.zeros(100, np.int32)])[0]) == 5
    with semantics.using("spec"):
        assert int(run(text, [np.zeros(100, np.int32)])[0]) == 1


VARIADIC_SIZE_ONE = """HloModule m
red {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  v = f32[] add(a, b)
  i = s32[] add(ai, bi)
  ROOT r = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[3,1] parameter(0)
  y = s32[3,1] parameter(1)
  c = f32[] constant(10)
  z = s32[] constant(100)
  ROOT r = (f32[3], s32[3]) reduce(x, y, c, z), dimensions={1}, to_apply=red
}
"""


@BACKENDS
def test_reduce_over_size_one_dims_is_the_operand(run: Backend) -> None:
    """XLA's algsimp makes a reduce that keeps the element count a reshape: init 10 / 100 are
    never added (XLA: [1, 1, 1], [1, 1, 1]); spec: once."""
    args = [np.ones((3, 1), np.float32), np.ones((3, 1), np.int32)]
    v, i = run(VARIADIC_SIZE_ONE, args)
    assert v.tolist() == [1, 1, 1] and i.tolist() == [1, 1, 1]
    one = _reduce("f32", (3, 1, 2), (1,), ADD.format(t="f32"), "10")
    assert run(one, [np.ones((3, 1, 2), np.float32)])[0].tolist() == [[1, 1]] * 3
    none = _reduce("f32", (3, 2), (), ADD.format(t="f32"), "10")
    assert run(none, [np.ones((3, 2), np.float32)])[0].tolist() == [[1, 1]] * 3
    with semantics.using("spec"):
        v, i = run(VARIADIC_SIZE_ONE, args)
        assert v.tolist() == [11, 11, 11] and i.tolist() == [101, 101, 101]


SEQUENTIAL_VARIADIC = """HloModule m
red {
  a = f64[] parameter(0)
  ai = s32[] parameter(1)
  b = f64[] parameter(2)
  bi = s32[] parameter(3)
  t = f64[] constant(10)
  m = f64[] multiply(a, t)
  v = f64[] add(m, b)
  i = s32[] add(ai, bi)
  ROOT r = (f64[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f64[2,3] parameter(0)
  y = s32[2,3] parameter(1)
  c = f64[] constant(0)
  z = s32[] constant(0)
  ROOT r = (f64[], s32[]) reduce(x, y, c, z), dimensions={0,1}, to_apply=red
}
"""


@BACKENDS
def test_variadic_reduce_is_one_sequential_fold(run: Backend) -> None:
    """XLA does not tree-rewrite variadic reduces: acc*10 + x over 1..6 row-major is 123456
    (the LLVM backend's two-level row fold gave 1686)."""
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float64)
    v, i = run(SEQUENTIAL_VARIADIC, [x, np.ones((2, 3), np.int32)])
    assert float(v) == 123456.0 and int(i) == 6


ARGMAX = """HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  an = pred[] compare(av, av), direction=NE
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  g1 = pred[] or(gt, tie)
  pick = pred[] or(g1, an)
  v = f32[] select(pick, av, bv)
  i = s32[] select(pick, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  x = f32[4,37] parameter(0)
  io = s32[4,37] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT r = (f32[4], s32[4]) reduce(x, io, ninf, z), dimensions={1}, to_apply=argmax
}
"""


@BACKENDS
def test_argmax_with_nans_and_ties(run: Backend) -> None:
    x = np.random.default_rng(0).integers(-3, 4, (4, 37)).astype(np.float32)
    x[1, 5] = x[1, 20] = np.nan
    x[2, :] = 2.0
    x[3, :] = -np.inf
    v, i = run(ARGMAX, [x])
    assert np.array_equal(v, np.array([3, np.nan, 2, -np.inf], np.float32), equal_nan=True)
    assert i.tolist() == [11, 5, 0, 0]  # XLA: the first NaN, the first of equal maxima


def _rng(algorithm: str, out: str) -> str:
    return (f"HloModule m\nENTRY e {{\n  s = u64[2] parameter(0)\n  ROOT r = (u64[2], {out}) "
            f"rng-bit-generator(s), algorithm={algorithm}\n}}\n")


@BACKENDS
@pytest.mark.parametrize("algorithm,out,state", [
    ("rng_three_fry", "u32[0]", [5, 7]), ("rng_three_fry", "u32[0,4]", [5, 7]),
    ("rng_philox", "u32[0]", [5, 7]), ("rng_default", "u64[0]", [5, 7]),
    ("rng_three_fry", "u32[3]", [5, 9]), ("rng_three_fry", "u64[3]", [5, 10]),
    ("rng_philox", "u32[5]", [5, 9]),
])
def test_rng_state_advances_as_xla(run: Backend, algorithm: str, out: str, state: list[int]) -> None:
    """An empty output leaves the state as it is (XLA: [5, 7]; the LLVM three-fry advanced
    the counter by one)."""
    got = run(_rng(algorithm, out), [np.array([5, 7], np.uint64)])[0]
    assert got.tolist() == state


def _select_and_scatter(shape: str, src: str, window: str) -> str:
    return (f"HloModule m\nsel {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
            f"  ROOT r = pred[] compare(a, b), direction=GE\n}}\nsc {{\n  a = f32[] parameter(0)\n"
            f"  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}}\nENTRY e {{\n"
            f"  x = f32[{shape}] parameter(0)\n  s = f32[{src}] parameter(1)\n  i = f32[] constant(0)\n"
            f"  ROOT r = f32[{shape}] select-and-scatter(x, s, i), window={{{window}}}, select=sel, "
            f"scatter=sc\n}}\n")


@BACKENDS
@pytest.mark.parametrize("shape,src,window,x,want", [
    # all-negative operand: padding (even if it held the init value 0) is never selected
    ("5", "5", "size=3 pad=1_1", [-1, -4, -3, -2, -5], [3, 0, 0, 12, 0]),
    # windows wholly in padding select nothing: their source values are dropped
    ("3", "4", "size=2 stride=2 pad=3_3", [-2, -1, -3], [2, 3, 0]),
    ("2,2", "3,3", "size=2x2 stride=2x2 pad=2_2x2_2", [[-1, -2], [-3, -4]], [[5, 0], [0, 0]]),
])
def test_select_and_scatter_never_selects_padding(run: Backend, shape: str, src: str, window: str,
                                                  x: list, want: list) -> None:
    s = np.arange(1, int(np.prod([int(v) for v in src.split(",")])) + 1, dtype=np.float32)
    s = s.reshape([int(v) for v in src.split(",")])
    got = run(_select_and_scatter(shape, src, window), [np.array(x, np.float32), s])[0]
    assert got.tolist() == want
