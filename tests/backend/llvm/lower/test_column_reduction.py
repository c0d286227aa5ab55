"""The tiled column reduction (lower/column_reduction.py): which reduces take it, and that
they give the elemental loop's bits (every column folded in the same order) and the
interpreter's values, for odd sizes, NaN payloads, infinities, max/min and fused producers."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools.backend.llvm import compile_module
from hlotools.backend.llvm.driver.pipeline import optimise_module
from hlotools.backend.llvm.lower import column_reduction
from hlotools.backend.llvm.lower.column_reduction import column_tiles
from hlotools.interpreter import evaluate
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from tests.ops.test_reduction import ARGMAX
from tests.support.helpers import scalar_computation
from tests.support.runner import same_bits

REDUCERS = {"add": "add", "max": "maximum", "min": "minimum", "mul": "multiply"}
INITS = {"add": "0", "max": "-inf", "min": "inf", "mul": "1"}


def reduce_module(shape: tuple[int, ...], dims: tuple[int, ...], reducer: str = "add", ty: str = "f32",
                  fused: bool = False) -> str:
    out = ",".join(str(n) for d, n in enumerate(shape) if d not in dims)
    s = ",".join(map(str, shape))
    x = "m" if fused else "x"
    fuse = f"  y = {ty}[{s}] parameter(1)\n  m = {ty}[{s}] multiply(x, y)\n" if fused else ""
    return (scalar_computation("r", REDUCERS[reducer], ty) + "ENTRY e {\n"
            f"  x = {ty}[{s}] parameter(0)\n{fuse}  z = {ty}[] constant({INITS[reducer]})\n"
            f"  ROOT o = {ty}[{out}] reduce({x}, z), dimensions={{{','.join(map(str, dims))}}}, to_apply=r\n}}\n")


def root(m: Module) -> Instruction:
    assert m.entry is not None and m.entry.root is not None
    return m.entry.root


def both_paths(text: str, args: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    got = []
    for on in (True, False):
        with column_tiles(on):
            got.append(np.asarray(compile_module(hlotools.parse_module(text))(args)[0]))
    return got[0], got[1]


def data(shape: tuple[int, ...], ty: str, seed: int, specials: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.integers(-8, 9, shape).astype(ty.replace("f", "float"))  # small integers: exact sums in any order
    if specials and x.size > 2:
        flat = x.reshape(-1)
        ibits = np.uint32 if ty == "f32" else np.uint64
        payloads = (np.array([0x7FC00001, 0xFFC00002, 0x7F800003], np.uint32) if ty == "f32" else
                    np.array([0x7FF8000000000001, 0xFFF8000000000002, 0x7FF0000000000003], np.uint64))
        picks = rng.choice(flat.size, size=min(flat.size, 6), replace=False)
        flat[picks[:3]] = payloads[:len(picks[:3])].astype(ibits).view(flat.dtype)
        flat[picks[3:]] = [np.inf, -np.inf, np.inf][:len(picks[3:])]
    return x


def test_plan_takes_column_reductions_only() -> None:
    def taken(text: str) -> bool:
        m = hlotools.parse_module(text)
        return column_reduction.plan(root(m)) is not None
    assert taken(reduce_module((512, 768), (0,)))
    assert taken(reduce_module((4, 128, 256), (0, 1), "max", "f64"))
    assert taken(reduce_module((3, 5, 7), (1,)))  # an outer kept dim
    assert not taken(reduce_module((512, 768), (1,)))  # a row reduction: the minor dim is reduced
    assert not taken(reduce_module((512, 768), (0,), ty="f16"))  # XLA's exact f16 tree
    variadic = ARGMAX + """ENTRY e {
  v = f32[64,8] parameter(0)
  i = s32[64,8] iota(), iota_dimension=0
  zv = f32[] constant(-inf)
  zi = s32[] constant(0)
  ROOT r = (f32[8], s32[8]) reduce(v, i, zv, zi), dimensions={0}, to_apply=argmax
}
"""
    assert not taken(variadic)
    v = np.random.default_rng(1).standard_normal((64, 8)).astype(np.float32)
    got = compile_module(hlotools.parse_module(variadic))([v])
    same_bits([np.asarray(g) for g in got], evaluate(hlotools.parse_module(variadic), [v]))


@pytest.mark.parametrize("rows", [1, 2, 17, 513])
@pytest.mark.parametrize("cols", [1, 3, 17, 1000])
def test_sum_over_rows_same_bits(rows: int, cols: int) -> None:
    text = reduce_module((rows, cols), (0,))
    x = np.random.default_rng(rows * cols).standard_normal((rows, cols)).astype(np.float32)
    new, old = both_paths(text, [x])
    assert new.tobytes() == old.tobytes()
    ints = data((rows, cols), "f32", 2, False)
    new, _ = both_paths(text, [ints])
    same_bits([new], evaluate(hlotools.parse_module(text), [ints]))


@pytest.mark.parametrize("reducer", ["add", "max", "min", "mul"])
@pytest.mark.parametrize("ty", ["f32", "f64"])
@pytest.mark.parametrize("shape,dims", [((513, 17), (0,)), ((40, 3), (0,)), ((4, 33, 70), (0, 1)),
                                        ((3, 5, 66), (1,)), ((2, 20, 3, 19), (0, 2))])
def test_specials_same_bits_and_interpreter(reducer: str, ty: str, shape: tuple[int, ...],
                                            dims: tuple[int, ...]) -> None:
    """NaN payloads (which one comes out, quieted) and infinities, every reducer and shape kind:
    the bits of the elemental loop, the interpreter's values."""
    text = reduce_module(shape, dims, reducer, ty)
    for seed in range(3):
        x = data(shape, ty, seed, True)
        if reducer == "mul":
            x = np.where(np.abs(x) > 2, np.sign(x), x)  # no overflow to inf
        new, old = both_paths(text, [x])
        assert new.tobytes() == old.tobytes()
        same_bits([new], evaluate(hlotools.parse_module(text), [x]))


@pytest.mark.parametrize("ty", ["f32", "f64"])
def test_fused_multiply_then_column_sum(ty: str) -> None:
    text = reduce_module((300, 130), (0,), "add", ty, fused=True)
    m = hlotools.parse_module(text)
    fused = optimise_module(m)  # the fusion the backend compiles
    assert root(fused).opcode == "fusion" and column_reduction.plan(root(fused)) is not None
    rng = np.random.default_rng(5)
    x, y = (rng.standard_normal((300, 130)).astype(ty.replace("f", "float")) for _ in range(2))
    new, old = both_paths(text, [x, y])
    assert new.tobytes() == old.tobytes()
