"""Reductions and rng-bit-generator as XLA CPU computes them, on both backends: the values
below were recorded from real XLA (jaxlib 0.10, /work/shared/tools/xla_ref.py run); the tests
never need jax. See hlotools/ir/xla_reduce.py for what XLA does and why."""
from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver.runtime import CompiledModule
from hlotools.ir import semantics
from hlotools.ir.types import element_type
from hlotools.ir.xla_reduce import offloaded_to_ynn

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


def _param_reduce(ty: str, shape: tuple[int, ...], dims: tuple[int, ...]) -> str:
    """_reduce's module with the init value as parameter 1 (hlofile_0099's form)."""
    return _reduce(ty, shape, dims, ADD.format(t=ty), "0").replace(
        f"c = {ty}[] constant(0)", f"c = {ty}[] parameter(1)")


# (type, shape, reduced dims, init, init is a parameter, input seed, how many times XLA
# applied init, CRC-32 of XLA's output bytes). Inputs are default_rng(seed).integers(-8, 9)
# in the type, so every order sums exactly and XLA's output is x.sum + count * init
# (checked when recording). Count 1: YNNPACK took the reduce (an f32/f64 add of at least
# 4096 operand elements, rank <= 8); more: TreeReductionRewriter's 32-wide tree.
INIT_COUNTS = [
    ("f32", (8, 2048), (1,), "0.25", True, 10, 1, 0x77f2a495),  # hlofile_0099's reduce
    ("f32", (8, 2048), (1,), "0.25", False, 11, 1, 0xb3091dd0),
    ("f32", (2048, 2), (0,), "-1.5", True, 12, 1, 0x19e72b58),
    ("f32", (4096,), (0,), "0.5", True, 13, 1, 0x74a8ec4a),
    ("f32", (4095,), (0,), "0.5", True, 14, 133, 0x3d703b8a),  # one element short: the tree
    ("f32", (64, 64), (0, 1), "2", False, 15, 1, 0xd78afe77),
    ("f32", (33, 124), (0,), "0.25", True, 16, 3, 0x2c895654),  # 4092 elements
    ("f64", (64, 64), (1,), "1.5", True, 17, 1, 0x7fd8c064),
    ("f64", (100,), (0,), "1.5", True, 18, 5, 0x26b32271),
    ("f32", (2,) * 8 + (40,), tuple(range(9)), "0.25", True, 19, 3, 0x5aaaf13a),  # rank 9: the tree
    ("f32", (2,) * 7 + (40,), tuple(range(8)), "0.25", True, 20, 1, 0x3b368106),
]


@BACKENDS
@pytest.mark.parametrize("case", INIT_COUNTS, ids=[f"{c[0]}{list(c[1])}{list(c[2])}x{c[6]}" for c in INIT_COUNTS])
def test_init_applications_follow_xla_cpus_path(run: Backend, case: tuple) -> None:
    """YNNPACK's f32/f64 sums apply the init value once (hlofile_0099: f32[8,2048] with a
    parameter init; the tree's count gave init * 65 per row), the tree once per window."""
    ty, shape, dims, init, param, seed, count, crc = case
    x = np.random.default_rng(seed).integers(-8, 9, shape).astype(DT[ty])
    text = _param_reduce(ty, shape, dims) if param else _reduce(ty, shape, dims, ADD.format(t=ty), init)
    args = [x, np.asarray(float(init), DT[ty])] if param else [x]
    (got,) = run(text, args)
    got = np.asarray(got, DT[ty]).reshape(-1)
    assert got.tolist() == (x.astype(np.float64).sum(axis=dims) + count * float(init)).reshape(-1).tolist()
    assert zlib.crc32(got.tobytes()) == crc


# (type, reducer, shape, reduced dims) -> whether XLA's optimised module holds the reduce in
# a __ynn_fusion (True) or a reduce-window tree (False), read from xla_ref.py `opt`.
YNN_PATHS = [
    ("f32", "add", (4096,), (0,), True), ("f32", "add", (4095,), (0,), False),
    ("f64", "add", (8192,), (0,), True), ("f16", "add", (8192,), (0,), False),
    ("bf16", "add", (8192,), (0,), False), ("s32", "add", (8192,), (0,), False),
    ("s8", "add", (8192,), (0,), False), ("u8", "add", (8192,), (0,), False),
    ("u32", "add", (8192,), (0,), False), ("s64", "add", (8192,), (0,), False),
    ("c64", "add", (8192,), (0,), False), ("f32", "multiply", (8192,), (0,), False),
    ("s32", "xor", (8192,), (0,), False),
    *[(t, op, (8192,), (0,), True) for op in ("maximum", "minimum") for t in ("f16", "bf16", "f32", "f64", "s8", "u8")],
    *[(t, op, (8192,), (0,), False) for op in ("maximum", "minimum") for t in ("s16", "s32", "u32")],
    ("f32", "add", (2, 2048), (1,), True), ("f32", "add", (2048, 2), (0,), True),
    ("f32", "add", (64, 64, 3), (0, 1), True), ("f32", "add", (33, 124), (0,), False),
    ("f32", "add", (2,) * 7 + (4096,), (7,), True), ("f32", "add", (2,) * 8 + (4096,), (8,), False),
]


@pytest.mark.parametrize("case", YNN_PATHS, ids=[f"{c[0]}-{c[1]}{list(c[2])}{list(c[3])}" for c in YNN_PATHS])
def test_ynn_predicate_matches_xlas_choice(case: tuple) -> None:
    ty, op, shape, dims, ynn = case
    assert offloaded_to_ynn(op, element_type(ty), shape, dims) is ynn


@BACKENDS
@pytest.mark.parametrize("variadic", [False, True])
def test_scalar_reduce_window_is_its_operand(run: Backend, variadic: bool) -> None:
    """parser_test_0042/0043: reduce-window of a scalar 42 with init 1 is 42 in XLA (its
    optimised module is copy(operand), a parameter init too); spec: 43. A size-1 window
    over an array is not that: XLA gives x + init."""
    if variadic:
        text = ("HloModule m\nred {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] parameter(2)\n"
                "  d = f32[] parameter(3)\n  s = f32[] add(a, c)\n  t = f32[] add(b, d)\n"
                "  ROOT r = (f32[], f32[]) tuple(s, t)\n}\nENTRY e {\n  x = f32[] parameter(0)\n"
                "  i = f32[] parameter(1)\n  ROOT r = (f32[], f32[]) reduce-window(x, x, i, i), to_apply=red\n}\n")
    else:
        text = ("HloModule m\nred {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                "  ROOT r = f32[] add(a, b)\n}\nENTRY e {\n  x = f32[] parameter(0)\n  i = f32[] parameter(1)\n"
                "  ROOT r = f32[] reduce-window(x, i), to_apply=red\n}\n")
    args = [np.float32(42), np.float32(1)]
    assert [float(v) for v in run(text, args)] == [42.0] * (1 + variadic)
    with semantics.using("spec"):
        assert [float(v) for v in run(text, args)] == [43.0] * (1 + variadic)
    window = ("HloModule m\nred {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
              "  ROOT r = f32[] add(a, b)\n}\nENTRY e {\n  x = f32[5] parameter(0)\n  i = f32[] constant(1)\n"
              "  ROOT r = f32[5] reduce-window(x, i), window={size=1}, to_apply=red\n}\n")
    assert run(window, [np.full(5, 10, np.float32)])[0].tolist() == [11.0] * 5


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


def test_ynn_max_of_a_million_halves_is_one_numpy_reduction() -> None:
    """An f16 maximum that YNNPACK takes has no tree stages; the interpreter reduces it with
    numpy (0.1 s), not the tree path's per-element fold (10 s for 10^6 elements)."""
    import time
    x = np.random.default_rng(0).standard_normal(2_000_000).astype(np.float16)
    body = "  ROOT r = f16[] maximum(a, b)\n"
    start = time.perf_counter()
    (got,) = _interp(_reduce("f16", x.shape, (0,), body, "-inf"), [x])
    assert float(got) == float(x.max()) and time.perf_counter() - start < 5.0
