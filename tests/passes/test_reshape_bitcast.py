"""reshape_is_bitcast (XLA's ShapeUtil::ReshapeIsBitcast) agrees with the interpreter.

The check: for random small shapes and layouts, reshape_is_bitcast says True exactly when the
interpreter's physical bitcast gives the same values as its logical reshape. Tiled layouts are
refused (the interpreter walks minor_to_major only, tiles pad the bytes), and the case of
corpus/xla pass_tests/algsimp_test_0375 (layout-assignment made a tiled reshape a bitcast) is
pinned, through the whole -O2 pipeline.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hlotools
from hlotools import evaluate
from hlotools.ir.shape import Layout, Shape
from hlotools.ir.types import ELEMENT_TYPES
from hlotools.passes.reshape_bitcast import reshape_is_bitcast
from tests.support.paths import SHARED

F32 = ELEMENT_TYPES["f32"]


def _shape(dims: tuple[int, ...], m2m: tuple[int, ...], extras: str = "") -> Shape:
    return Shape.array(F32, dims, Layout(m2m, extras))


def _text(s: Shape) -> str:
    return f"f32[{','.join(map(str, s.dims))}]{s.layout}"


def _bitcast_equals_reshape(src: Shape, dst: Shape) -> bool:
    text = (f"HloModule m\n\nENTRY e {{\n  p = {_text(src)} parameter(0)\n"
            f"  r = {_text(dst)} reshape(p)\n  b = {_text(dst)} bitcast(p)\n"
            f"  ROOT t = ({_text(dst)}, {_text(dst)}) tuple(r, b)\n}}\n")
    module = hlotools.parse_module(text)
    x = np.arange(int(np.prod(src.dims)), dtype=np.float32).reshape(src.dims)
    r, b = evaluate(module, [x])
    return bool(np.array_equal(np.asarray(r), np.asarray(b)))


def _factorisations(n: int, rank: int) -> list[tuple[int, ...]]:
    return [d for d in itertools.product(range(1, n + 1), repeat=rank) if int(np.prod(d)) == n]


@st.composite
def _reshape_pair(draw: st.DrawFn) -> tuple[Shape, Shape]:
    n = draw(st.sampled_from([1, 2, 4, 6, 8, 12]))
    shapes = []
    for _ in range(2):
        rank = draw(st.integers(1, 4))
        options = _factorisations(n, rank)
        dims = draw(st.sampled_from(options)) if options else (n,)
        m2m = tuple(draw(st.permutations(range(len(dims)))))
        shapes.append(_shape(dims, m2m))
    return shapes[0], shapes[1]


@settings(max_examples=80, deadline=None)
@given(_reshape_pair())
def test_reshape_is_bitcast_matches_the_interpreter(pair: tuple[Shape, Shape]) -> None:
    src, dst = pair
    assert reshape_is_bitcast(src, dst) == _bitcast_equals_reshape(src, dst), (src, dst)


def test_row_major_reshapes_are_bitcasts() -> None:
    assert reshape_is_bitcast(_shape((4, 6), (1, 0)), _shape((2, 2, 6), (2, 1, 0)))
    assert reshape_is_bitcast(_shape((4, 6), (1, 0)), _shape((24,), (0,)))
    # degenerate dims may sit anywhere in the layout
    assert reshape_is_bitcast(_shape((1, 6), (0, 1)), _shape((6,), (0,)))
    assert reshape_is_bitcast(_shape((0, 3), (0, 1)), _shape((3, 0), (1, 0)))


def test_layout_changing_reshapes_are_not_bitcasts() -> None:
    assert not reshape_is_bitcast(_shape((4, 6), (0, 1)), _shape((24,), (0,)))
    assert not reshape_is_bitcast(_shape((4, 6), (1, 0)), _shape((2, 2, 6), (0, 1, 2)))
    # column-major on both sides: the logical split of dim 0 is not the physical one
    assert not reshape_is_bitcast(_shape((4, 6), (0, 1)), _shape((2, 2, 6), (0, 1, 2)))
    # different element types or counts
    s32 = Shape.array(ELEMENT_TYPES["s32"], (24,), Layout((0,)))
    assert not reshape_is_bitcast(_shape((4, 6), (1, 0)), s32)
    assert reshape_is_bitcast(_shape((4, 6), (1, 0)), s32, ignore_element_type=True)
    assert not reshape_is_bitcast(_shape((4, 6), (1, 0)), _shape((25,), (0,)))


def test_tiled_layouts_are_refused() -> None:
    """algsimp_test_0375: f32[128,8]{0,1:T(8,128)} -> f32[16,8,8]{1,2,0:T(8,128)}."""
    src = _shape((128, 8), (0, 1), "T(8,128)")
    dst = _shape((16, 8, 8), (1, 2, 0), "T(8,128)")
    assert not reshape_is_bitcast(src, dst)
    # even where the minor_to_major walk alone would agree
    assert not reshape_is_bitcast(_shape((16, 128), (1, 0), "T(8,128)"), _shape((2048,), (0,), "T(8,128)"))
    assert reshape_is_bitcast(src, src)
    assert not reshape_is_bitcast(_shape((4, 6), (1, 0), "S(1)"), _shape((24,), (0,)))


CASE_0375 = SHARED / "corpus" / "xla" / "pass_tests" / "algsimp_test_0375.hlo"


@pytest.mark.skipif(not CASE_0375.is_file(), reason="shared/corpus/xla is absent")
def test_o2_keeps_algsimp_test_0375() -> None:
    """-O2 must not turn the tiled reshape of algsimp_test_0375 into a bitcast (layout-assignment
    took a tiled layout for row-major and did: 1008 of 1024 elements wrong; fixed in 804f591)."""
    from hlotools.io.random_inputs import random_inputs
    from hlotools.passes.manager import ManagerOptions, PassManager
    from hlotools.passes.pipeline import PRESETS, parse_pipeline

    text = CASE_0375.read_text()
    module = hlotools.parse_module(text, str(CASE_0375))
    args = list(random_inputs(module, 0))
    want = [np.asarray(o) for o in evaluate(module, args)]
    PassManager(ManagerOptions(verify_each=True)).run(module, parse_pipeline(PRESETS["O2"]))
    assert "bitcast" not in hlotools.print_module(module)
    got = [np.asarray(o) for o in evaluate(module, args)]
    assert len(got) == len(want) and all(np.array_equal(g, w) for g, w in zip(got, want))
