"""ir/patterns.py: one reducer recogniser (binary_reducer_opcode) under scatter's combiner
recogniser; the interpreter takes its numpy fast path only for the combiners it has a ufunc for."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.ir.patterns import binary_combiner, binary_reducer_opcode, simple_comparator

SCATTER = """HloModule s
f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] %BODY
}
ENTRY e {
  x = f32[4] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2] parameter(2)
  ROOT s = f32[4] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0},
    scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=f
}"""


@pytest.mark.parametrize(("body", "combiner", "expected"), [
    ("add(a, b)", "add", [1.0, 12.0, 3.0, 24.0]),
    ("maximum(b, a)", "maximum", [1.0, 10.0, 3.0, 20.0]),
    ("subtract(a, b)", "subtract", [1.0, -8.0, 3.0, -16.0]),  # no ufunc: the general path
    ("add(a, a)", None, [1.0, 4.0, 3.0, 8.0]),
])
def test_scatter_combiners(body: str, combiner: str | None, expected: list[float]) -> None:
    m = hlotools.parse_module(SCATTER.replace("%BODY", body))
    f = m.computation("f")
    assert binary_combiner(f) == combiner == binary_reducer_opcode(f)
    out = evaluate(m, [np.array([1, 2, 3, 4], np.float32), np.array([[1], [3]], np.int32),
                       np.array([10, 20], np.float32)])
    assert np.asarray(out[0]).tolist() == expected


@pytest.mark.parametrize(("body", "combiner"), [("b", "replace"), ("a", "keep")])
def test_parameter_roots(body: str, combiner: str) -> None:
    m = hlotools.parse_module(SCATTER.replace("ROOT r = f32[] %BODY", "r = f32[] add(a, b)\n  ROOT q = f32[] copy(" + body + ")"))
    f = m.computation("f")
    assert f is not None and f.root is not None
    f.root = f.root.operands[0]  # f(a, b) = b or a itself
    assert binary_combiner(f) == combiner and binary_reducer_opcode(f) is None


def test_comparator() -> None:
    m = hlotools.parse_module("""HloModule c
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(b, a), direction=LT
}
ENTRY e {
  x = f32[4] parameter(0)
  ROOT s = f32[4] sort(x), dimensions={0}, to_apply=lt
}""")
    found = simple_comparator(m.computation("lt"))
    assert found is not None and found.operand == 0 and found.descending and not found.total_order
