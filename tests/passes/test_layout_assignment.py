"""layout-assignment beyond its goldens: every shape gets a layout, values never change (also
for column-major entry layouts), free-transpose arithmetic, idempotence."""
from __future__ import annotations

import numpy as np

import hlotools
from hlotools import evaluate
from hlotools.ir.shape import Layout, Shape
from hlotools.passes.base import PassContext
from hlotools.passes.layout_assignment import LayoutAssignment, bitcast_layout, entry_layout, row_major

COLUMN_MAJOR = """HloModule m, entry_computation_layout={(f32[3,5]{0,1}, f32[5,3]{1,0})->(f32[5,3]{0,1}, f32[3,5]{1,0}, f32[15]{0})}
ENTRY main {
  p0 = f32[3,5] parameter(0)
  p1 = f32[5,3] parameter(1)
  t = f32[5,3] transpose(p0), dimensions={1,0}
  s = f32[5,3] add(t, p1)
  n = f32[3,5] negate(p0)
  r = f32[15] reshape(n)
  ROOT out = (f32[5,3], f32[3,5], f32[15]) tuple(s, n, r)
}"""


def _run(module) -> bool:
    changed = LayoutAssignment().run(module, PassContext(pass_name="layout-assignment"))
    hlotools.verify_module(module)
    return changed


def _leaves(module):
    for comp in module.computations:
        for inst in comp.instructions:
            yield from ((inst, leaf) for leaf in inst.shape.leaves())


def test_values_unchanged_with_column_major_entry_layout() -> None:
    module = hlotools.parse_module(COLUMN_MAJOR)
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((3, 5)).astype(np.float32), rng.standard_normal((5, 3)).astype(np.float32)]
    want = evaluate(module, args)
    assert _run(module)
    for g, w in zip(evaluate(module, args), want):
        np.testing.assert_array_equal(g, w)
    text = hlotools.print_module(module)
    assert "t = f32[5,3]{1,0} transpose(p0)" in text  # free: reads the column-major parameter
    assert "copy(p0)" in text  # the negate reads a row-major copy
    assert "f32[5,3]{0,1} copy(s)" in text  # the result layout of tuple element 0
    assert "bitcast(n)" in text  # the reshape of a row-major value


def test_every_array_shape_has_a_layout_and_the_pass_is_idempotent() -> None:
    module = hlotools.parse_module(COLUMN_MAJOR)
    _run(module)
    for inst, leaf in _leaves(module):
        if leaf.is_array:
            assert leaf.layout is not None and len(leaf.layout.minor_to_major) == leaf.rank, inst.name
    text = hlotools.print_module(module)
    assert _run(module) is False
    assert hlotools.print_module(module) == text


def test_entry_layout_reading() -> None:
    module = hlotools.parse_module(COLUMN_MAJOR)
    params, result = entry_layout(module)
    assert params is not None and result is not None
    assert [str(p) for p in params] == ["f32[3,5]{0,1}", "f32[5,3]{1,0}"]
    assert result.tuple_shapes is not None and str(result.tuple_shapes[0]) == "f32[5,3]{0,1}"


def test_bitcast_layout_of_a_transpose() -> None:
    module = hlotools.parse_module("""HloModule m
ENTRY main {
  p = f32[2,3,4]{0,2,1} parameter(0)
  ROOT t = f32[4,2,3] transpose(p), dimensions={2,0,1}
}""")
    t = module.entry.root  # type: ignore[union-attr]
    # Operand minor-to-major (0,2,1) = dims of size 2,4,3; in the result they are dims 1,0,2.
    assert bitcast_layout(t) == Layout((1, 0, 2))


def test_row_major() -> None:
    from hlotools.ir.types import ELEMENT_TYPES

    f32 = ELEMENT_TYPES["f32"]
    s = Shape.array(f32, (2, 3), Layout((0, 1)))
    assert row_major(s).layout == Layout((1, 0))
    tup = Shape.tuple_of([s, Shape.array(f32, (4,))])
    assert [str(x) for x in row_major(tup).tuple_shapes] == ["f32[2,3]{1,0}", "f32[4]{0}"]  # type: ignore[union-attr]
    tiled = Shape.array(f32, (2, 3), Layout((0, 1), "T(2,128)"))
    assert row_major(tiled) is tiled  # annotated layouts are not ours to change
