"""sort and topk against hand-worked values: stability on ties, descending, TOTALORDER of
floats, multi-operand sorts, comparators the fast path does not recognise (merge sort
calling the comparator), sorting along a non-minor dim, and topk's tie order."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools.interpreter.sorting import stable_sort_permutation
from tests.support.paths import SHARED
from tests.support.runner import opcode, run, run_both, same_bits

F = np.float32
I32 = np.int32


def cmp_module(body: str, ptype: str, n: int, direction: str, extra: str = "") -> str:
    return f"""HloModule t
cmp {{
  a = {ptype}[] parameter(0)
  b = {ptype}[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction={direction}{extra}
}}

ENTRY e {{
  k = {ptype}[{n}] parameter(0)
  v = s32[{n}] parameter(1)
  ROOT s = ({ptype}[{n}], s32[{n}]) sort(k, v), dimensions={{0}}, is_stable=true, to_apply=cmp
}}
"""


@opcode("compare", "sort")
def test_stable_ascending_keeps_tie_order(backend: str) -> None:
    keys, vals = run(cmp_module("", "s32", 5, "LT"), np.array([3, 1, 3, 1, 2], I32), np.arange(5, dtype=I32), backend=backend)
    assert keys.tolist() == [1, 1, 2, 3, 3] and vals.tolist() == [1, 3, 4, 0, 2]


@opcode("compare", "sort")
def test_stable_descending_keeps_tie_order(backend: str) -> None:
    keys, vals = run(cmp_module("", "s32", 5, "GT"), np.array([3, 1, 3, 1, 2], I32), np.arange(5, dtype=I32), backend=backend)
    assert keys.tolist() == [3, 3, 2, 1, 1] and vals.tolist() == [0, 2, 4, 1, 3]


@opcode("compare", "sort")
def test_totalorder_float_sort(backend: str) -> None:
    x = np.array([np.nan, 0.0, -0.0, -np.inf, 1.0, -np.nan], F)
    keys, vals = run(cmp_module("", "f32", 6, "LT", ", type=TOTALORDER"), x, np.arange(6, dtype=I32), backend=backend)
    # -NaN < -inf < -0 < +0 < 1 < NaN
    assert vals.tolist() == [5, 3, 2, 1, 4, 0]
    assert np.signbit(keys[2]) and not np.signbit(keys[3])


@opcode("compare", "sort")
def test_sort_by_second_operand(backend: str) -> None:
    text = """HloModule t
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(d, c), direction=LT
}

ENTRY e {
  k = f32[4] parameter(0)
  v = s32[4] parameter(1)
  ROOT s = (f32[4], s32[4]) sort(k, v), dimensions={0}, is_stable=true, to_apply=cmp
}
"""
    # compare(rhs_1, lhs_1) < : descending by operand 1
    keys, vals = run(text, np.array([10, 20, 30, 40], F), np.array([2, 9, 2, 5], I32), backend=backend)
    assert vals.tolist() == [9, 5, 2, 2] and keys.tolist() == [20, 40, 10, 30]


@opcode("abs", "compare", "sort")
def test_custom_comparator_abs_value_is_stable(backend: str) -> None:
    text = """HloModule t
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  x = f32[] abs(a)
  y = f32[] abs(b)
  ROOT r = pred[] compare(x, y), direction=LT
}

ENTRY e {
  k = f32[6] parameter(0)
  ROOT s = f32[6] sort(k), dimensions={0}, is_stable=true, to_apply=cmp
}
"""
    out, = run(text, np.array([-3, 1, 2, -1, 3, -2], F), backend=backend)
    assert out.tolist() == [1, -1, 2, -2, -3, 3]


@opcode("compare", "and", "or", "sort")
def test_lexicographic_comparator_two_keys(backend: str) -> None:
    text = """HloModule t
cmp {
  a0 = s32[] parameter(0)
  b0 = s32[] parameter(1)
  a1 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  lt0 = pred[] compare(a0, b0), direction=LT
  eq0 = pred[] compare(a0, b0), direction=EQ
  lt1 = pred[] compare(a1, b1), direction=LT
  both = pred[] and(eq0, lt1)
  ROOT r = pred[] or(lt0, both)
}

ENTRY e {
  k = s32[5] parameter(0)
  v = s32[5] parameter(1)
  ROOT s = (s32[5], s32[5]) sort(k, v), dimensions={0}, to_apply=cmp
}
"""
    k, v = run(text, np.array([1, 0, 1, 0, 1], I32), np.array([5, 7, 3, 6, 4], I32), backend=backend)
    assert list(zip(k.tolist(), v.tolist())) == [(0, 6), (0, 7), (1, 3), (1, 4), (1, 5)]


@opcode("compare", "sort")
def test_sort_along_major_dimension(backend: str) -> None:
    text = """HloModule t
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GT
}

ENTRY e {
  k = f32[3,2] parameter(0)
  ROOT s = f32[3,2] sort(k), dimensions={0}, to_apply=cmp
}
"""
    out, = run(text, np.array([[1, 6], [3, 4], [2, 5]], F), backend=backend)
    assert out.tolist() == [[3, 6], [2, 5], [1, 4]]


# Interpreter only: the merge sort and the std::sort model below are the interpreter's own
# replays of libstdc++ (the LLVM backend emits its own, tests/backend/llvm/lower/test_std_sort.py).
class _LessThan:
    """A stand-in Evaluator whose comparator is Python's <, to drive the merge sort directly."""

    def apply(self, comp: object, args: list[np.ndarray]) -> list[np.ndarray]:
        return [args[0] < args[1]]


@opcode("sort")
@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 33])
def test_merge_sort_is_a_stable_sort(n: int) -> None:
    keys = (np.arange(n) * 7 % 4).reshape(1, n)  # many ties
    perm = stable_sort_permutation(_LessThan(), None, [keys])
    expected = sorted(range(n), key=lambda i: (keys[0, i], i))
    assert perm[0].tolist() == expected


TOPK = """HloModule t
ENTRY e {
  x = f32[2,5] parameter(0)
  ROOT t = (f32[2,3], s32[2,3]) topk(x), k=3, largest=%s
}
"""


@opcode("topk")
def test_topk_largest_ties_go_to_the_lower_index(backend: str) -> None:
    vals, idx = run(TOPK % "true", np.array([[1, 3, 3, 2, 3], [0.0, -0.0, 5, 0.0, -1]], F), backend=backend)
    assert vals.tolist() == [[3, 3, 3], [5, 0, 0]]
    assert idx.dtype == I32 and idx.tolist() == [[1, 2, 4], [2, 0, 3]]  # +0 above -0


@opcode("topk")
def test_topk_smallest(backend: str) -> None:
    vals, idx = run(TOPK % "false", np.array([[4, 1, 3, 1, 2], [9, 8, 7, 6, 5]], F), backend=backend)
    assert vals.tolist() == [[1, 1, 2], [5, 6, 7]] and idx.tolist() == [[1, 3, 4], [4, 3, 2]]


XLA = SHARED / "corpus" / "xla"


@opcode("sort")
@pytest.mark.parametrize("name", ["parser_test/parser_test_0121", "parser_test/parser_test_0122",
                                  "hlo_files/hlofile_0560"])
def test_unstable_sort_puts_ties_where_xla_cpu_does(name: str, backend: str) -> None:
    """Sorts without is_stable whose keys have ties: XLA:CPU's std::sort leaves equal keys
    out of input order; the outputs must match XLA's bit for bit."""
    hlo = XLA / f"{name}.hlo"
    if not hlo.exists():
        pytest.skip("shared XLA corpus not available")
    module = hlotools.parse_module(hlo.read_text())
    inputs = np.load(XLA / "expected" / f"{name}.inputs.npz")
    expected = np.load(XLA / "expected" / f"{name}.expected.npz")
    assert module.entry is not None
    params = [leaf for p in module.entry.parameters for leaf in p.shape.leaves()]
    args = [inputs[f"in{i}"].view(s.dtype) for i, s in enumerate(params)]
    outs = run(hlo.read_text(), *args, backend=backend)
    assert len(outs) == len(expected.files)
    for i, out in enumerate(outs):
        assert np.array_equal(np.ascontiguousarray(out).view(np.uint8), expected[f"out{i}"].view(np.uint8)), f"output {i}"


@opcode("sort")
def test_std_sort_model_sorts_and_is_unstable_on_long_rows() -> None:
    from hlotools.interpreter.std_sort import std_sort

    keys = [(i * 37) % 5 for i in range(40)]
    order = std_sort(list(range(40)), lambda i, j: keys[i] < keys[j])
    assert [keys[i] for i in order] == sorted(keys)
    assert sorted(order) == list(range(40))
    # Up to 16 elements std::sort is an insertion sort, which keeps ties in input order.
    small = [3, 1, 3, 1, 2]
    assert std_sort(list(range(5)), lambda i, j: small[i] < small[j]) == [1, 3, 4, 0, 2]


@opcode("compare", "select", "sort")
def test_jax_float_comparator_canonicalises_zero_and_nan(backend: str) -> None:
    # JAX's comparator: -0 -> 0 and every NaN -> +NaN, then TOTALORDER LT. So -0 and +0 tie
    # (input order kept) and NaNs go last.
    text = """HloModule t
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  qnan = f32[] constant(nan)
  zero = f32[] constant(0)
  a_nan = pred[] compare(a, a), direction=NE
  a_zero = pred[] compare(a, zero), direction=EQ
  a0 = f32[] select(a_zero, zero, a)
  a1 = f32[] select(a_nan, qnan, a0)
  b_nan = pred[] compare(b, b), direction=NE
  b_zero = pred[] compare(b, zero), direction=EQ
  b0 = f32[] select(b_zero, zero, b)
  b1 = f32[] select(b_nan, qnan, b0)
  ROOT lt = pred[] compare(a1, b1), direction=LT, type=TOTALORDER
}

ENTRY e {
  k = f32[6] parameter(0)
  v = s32[6] parameter(1)
  ROOT s = (f32[6], s32[6]) sort(k, v), dimensions={0}, is_stable=true, to_apply=cmp
}
"""
    x = np.array([np.nan, 0.0, -0.0, 1, -1, -np.nan], F)
    _, idx = run(text, x, np.arange(6, dtype=I32), backend=backend)
    assert idx.tolist() == [4, 1, 2, 3, 0, 5]


@opcode("compare", "sort")
def test_stable_sort_with_nans_is_libstdcxx_not_a_plain_merge(backend: str) -> None:
    """[2, NaN, 1] under IEEE LT: std::stable_sort merges the halves [2, NaN] and [1]
    backward (odd length): less(1, NaN) fails, so 1 stays last: [2, NaN, 1]. A forward
    merge would give [1, 2, NaN]. A NaN-free row of the same sort is sorted as usual."""
    x = np.array([[2, np.nan, 1], [3, 1, 2]], F)
    text = cmp_module("", "f32", 3, "LT").replace("f32[3]", "f32[2,3]").replace("s32[3]", "s32[2,3]")
    text = text.replace("dimensions={0}", "dimensions={1}")
    keys, vals = run(text, x, np.broadcast_to(np.arange(3, dtype=I32), (2, 3)).copy(), backend=backend)
    assert vals.tolist() == [[0, 1, 2], [1, 2, 0]]
    assert np.isnan(keys[0, 1]) and keys[1].tolist() == [1, 2, 3]


# ------------------------------------------------- LLVM backend vs interpreter, bit for bit
# Sweeps over types and edge values with the interpreter as the reference (run_both/same_bits):
# each case runs both backends itself, so it takes no `backend` fixture.


@opcode("sort")
@pytest.mark.parametrize("n", [1, 2, 7, 64, 100])
def test_sort_multi_operand_stable(n: int) -> None:
    text = f"""HloModule m
lt {{ a = f32[] parameter(0)  b = f32[] parameter(1)  i = s32[] parameter(2)  j = s32[] parameter(3)
     ROOT c = pred[] compare(a, b), direction=LT }}
ENTRY e {{
  x = f32[3,{n}] parameter(0)
  io = s32[3,{n}] iota(), iota_dimension=1
  ROOT s = (f32[3,{n}], s32[3,{n}]) sort(x, io), dimensions={{1}}, is_stable=true, to_apply=lt
}}"""
    x = np.random.default_rng(n).integers(0, 5, (3, n)).astype(np.float32)  # many ties
    same_bits(*run_both(text, [x]))
