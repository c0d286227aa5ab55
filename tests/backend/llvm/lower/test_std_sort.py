"""Unstable sorts (is_stable=false) on the LLVM backend put ties exactly where the
interpreter's libstdc++ std::sort replay puts them (hlotools/interpreter/std_sort.py), bit for
bit: many ties, several operands, rows along any dimension and layout, NaNs and -0.0 under
IEEE compare (not a strict weak order), TOTALORDER, keyed and generic comparators, sizes
around the insertion-sort threshold (16/17) and inputs that drive introsort to its depth
limit (heap sort). Stable sorts (std::stable_sort's order on NaNs and generic comparators)
are tests/interpreter/test_std_stable_sort.py's."""
from __future__ import annotations

import itertools
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from hlotools.interpreter import std_sort as model
from hlotools.ir.types import ELEMENT_TYPES

KEY_TYPES = ["f32", "f64", "bf16", "f16", "s32", "u8", "s64", "pred"]
PAYLOAD_TYPES = ["s32", "u32", "f32", "bf16"]
SIZES = [1, 2, 3, 15, 16, 17, 18, 31, 32, 33, 64, 100, 257]
# simple compares, a keyed one (the same expression of lhs and rhs), and generic ones the
# interpreter sorts by equivalence classes
COMPARATORS = ["lt", "gt", "lt_total", "gt_total", "swapped", "keyed", "lex", "wrapped"]
GENERIC = {"lex", "wrapped"}


def _shape(et: str, dims: tuple[int, ...], layout: tuple[int, ...]) -> str:
    return f"{et}[{','.join(map(str, dims))}]{{{','.join(map(str, layout))}}}"


def _comparator(kind: str, types: list[str]) -> str:
    params = "\n".join(f"  p{2 * k + s} = {t}[] parameter({2 * k + s})" for k, t in enumerate(types) for s in (0, 1))
    total = ", type=TOTALORDER" if ELEMENT_TYPES[types[0]].is_float and kind.endswith("_total") else ""
    if kind in ("lt", "gt", "lt_total", "gt_total"):
        body = f"  ROOT c = pred[] compare(p0, p1), direction={kind[:2].upper()}{total}"
    elif kind == "swapped":  # compare(rhs, lhs): descending
        body = "  ROOT c = pred[] compare(p1, p0), direction=LT"
    elif kind == "keyed":
        body = (f"  k0 = {types[0]}[] negate(p0)\n  k1 = {types[0]}[] negate(p1)\n"
                "  ROOT c = pred[] compare(k0, k1), direction=LT")
    elif kind == "lex":  # by operand 0, then operand 1
        body = ("  lt0 = pred[] compare(p0, p1), direction=LT\n  eq0 = pred[] compare(p0, p1), direction=EQ\n"
                "  lt1 = pred[] compare(p2, p3), direction=LT\n  t = pred[] and(eq0, lt1)\n"
                "  ROOT c = pred[] or(lt0, t)")
    else:  # "wrapped": LT, but not at the root
        body = "  c0 = pred[] compare(p0, p1), direction=LT\n  ROOT c = pred[] and(c0, c0)"
    return f"cmp {{\n{params}\n{body}\n}}\n"


def sort_module(kind: str, types: list[str], dims: tuple[int, ...], layouts: list[tuple[int, ...]], dim: int) -> str:
    shapes = [_shape(t, dims, lay) for t, lay in zip(types, layouts)]
    params = "\n".join(f"  x{k} = {s} parameter({k})" for k, s in enumerate(shapes))
    result = shapes[0] if len(shapes) == 1 else f"({', '.join(shapes)})"
    args = ", ".join(f"x{k}" for k in range(len(shapes)))
    return (f"HloModule ties\n{_comparator(kind, types)}\nENTRY e {{\n{params}\n"
            f"  ROOT s = {result} sort({args}), dimensions={{{dim}}}, to_apply=cmp\n}}\n")


def _values(rng: np.random.Generator, et: str, dims: tuple[int, ...], distinct: int, specials: bool) -> np.ndarray:
    """Few distinct values (ties), and for floats NaNs (both signs), -0.0 and +0.0."""
    dt = ELEMENT_TYPES[et].dtype
    if et == "pred":
        return rng.integers(0, 2, dims).astype(bool)
    x = rng.integers(0, distinct, dims)
    if not ELEMENT_TYPES[et].is_float:
        return (x if et.startswith("u") else x - distinct // 2).astype(dt)
    v = (x - distinct // 2).astype(np.float64) * 0.5
    if specials:
        pick = rng.random(dims)
        v = np.where(pick < 0.1, np.nan, v)
        v = np.where((pick >= 0.1) & (pick < 0.15), -np.nan, v)
        v = np.where((pick >= 0.15) & (pick < 0.25), -0.0, v)
        v = np.where((pick >= 0.25) & (pick < 0.3), 0.0, v)
    return v.astype(dt)


def _leaves(x: Any) -> list[np.ndarray]:
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _leaves(item)]
    return [np.ascontiguousarray(np.asarray(x))]


def assert_same_bits(text: str, args: list[np.ndarray]) -> None:
    m = hlotools.parse_module(text)
    want, got = _leaves(evaluate(m, args)), _leaves(compile_module(m)(args))
    assert len(want) == len(got)
    for k, (w, g) in enumerate(zip(want, got)):
        assert w.shape == g.shape and w.dtype == g.dtype, (k, w.shape, g.shape, w.dtype, g.dtype)
        assert np.array_equal(w.view(np.uint8), g.view(np.uint8)), f"{text}\noutput {k}\nllvm {g}\ninterpreter {w}"


@st.composite
def sorts(draw: st.DrawFn) -> tuple[str, list[np.ndarray]]:
    rank = draw(st.integers(1, 3))
    dim = draw(st.integers(0, rank - 1))
    n = draw(st.sampled_from(SIZES))
    dims = tuple(n if d == dim else draw(st.integers(1, 3)) for d in range(rank))
    kind = draw(st.sampled_from(COMPARATORS))
    key = draw(st.sampled_from(KEY_TYPES))
    if kind == "keyed" and key == "pred":
        key = "s32"
    payloads = draw(st.lists(st.sampled_from(PAYLOAD_TYPES), min_size=1 if kind == "lex" else 0, max_size=2))
    types = [key, *payloads]
    layouts = [tuple(draw(st.permutations(range(rank)))) for _ in types]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    distinct = draw(st.sampled_from([1, 2, 3, 5, 1000]))
    specials = draw(st.booleans())  # NaNs: no strict weak order, for generic comparators too
    args = [_values(rng, key, dims, distinct, specials)]
    args += [_values(rng, t, dims, 7, False) for t in payloads]
    return sort_module(kind, types, dims, layouts, dim), args


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sorts())
def test_unstable_sort_puts_ties_where_the_interpreter_does(case: tuple[str, list[np.ndarray]]) -> None:
    assert_same_bits(*case)


@pytest.mark.parametrize("n", [16, 17, 18, 33])
@pytest.mark.parametrize("kind", ["lt", "gt", "lt_total", "lex"])
def test_threshold_sizes_with_every_row_tied(n: int, kind: str) -> None:
    """Rows of 16/17/18/33: the final insertion sort alone, or after one partition."""
    dims = (4, n)
    rng = np.random.default_rng(n)
    keys = _values(rng, "f32", dims, 3, kind != "lex")
    iota = np.broadcast_to(np.arange(n, dtype=np.int32), dims).copy()
    assert_same_bits(sort_module(kind, ["f32", "s32"], dims, [(1, 0), (1, 0)], 1), [keys, iota])


def _counting_heap_sort(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = model._heap_sort

    def counted(a: list[int], first: int, last: int, less: model.Less) -> None:
        calls.append(last - first)
        real(a, first, last, less)
    monkeypatch.setattr(model, "_heap_sort", counted)
    return calls


def killer_keys(n: int, nans: frozenset[int] = frozenset()) -> list[float]:
    """McIlroy's adversary ("A killer adversary for quicksort"): values fixed lazily while
    the model sorts, so that every pivot is nearly the smallest; sorting them again makes the
    same comparisons and drives introsort to its depth limit. Positions in `nans` are NaN
    (they compare false both ways throughout)."""
    gas = float(n)
    val = [float("nan") if i in nans else gas for i in range(n)]
    state = {"solid": 0, "candidate": 0}

    def less(x: int, y: int) -> bool:
        if val[x] == gas and val[y] == gas:
            frozen = x if x == state["candidate"] else y
            val[frozen] = float(state["solid"])
            state["solid"] += 1
        if val[x] == gas:
            state["candidate"] = x
        elif val[y] == gas:
            state["candidate"] = y
        return val[x] < val[y]
    model.std_sort(list(range(n)), less)
    return val


@pytest.mark.parametrize("n", [100, 300, 1000])
@pytest.mark.parametrize("variant", ["ties", "nans", "descending"])
def test_depth_limit_heap_sort(n: int, variant: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Adversarial keys push introsort to its depth limit: the heap sort runs (counted in the
    model) and the LLVM backend agrees with it, ties and NaNs included."""
    kind = "lt"
    if variant == "ties":  # pairs of equal keys: ties the replay has to place
        keys = np.array(killer_keys(n), np.float32) // 2
    elif variant == "nans":
        keys = np.array(killer_keys(n, frozenset(range(3, n, 7))), np.float32)
    else:  # the same degenerate order, through GT
        keys = -(np.array(killer_keys(n), np.float32) // 2)
        kind = "gt"
    calls = _counting_heap_sort(monkeypatch)
    rows = np.stack([keys, keys[::-1], keys])
    iota = np.broadcast_to(np.arange(n, dtype=np.int32), rows.shape).copy()
    assert_same_bits(sort_module(kind, ["f32", "s32"], rows.shape, [(1, 0), (1, 0)], 1), [rows, iota])
    assert calls, "the adversarial keys did not reach the heap sort"


def test_depth_limit_through_equivalence_classes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The generic-comparator path: std::sort over class ids reaches the heap sort too."""
    n = 300
    keys = np.array(killer_keys(n), np.float32) // 2
    calls = _counting_heap_sort(monkeypatch)
    iota = np.arange(n, dtype=np.int32)
    assert_same_bits(sort_module("wrapped", ["f32", "s32"], (n,), [(0,), (0,)], 0), [keys, iota])
    assert calls


def test_tie_order_is_std_sort_not_stable() -> None:
    """Not just the interpreter's word: a row of 20 equal keys comes out in std::sort's
    order, which is not the input order."""
    n = 20
    text = sort_module("lt", ["f32", "s32"], (n,), [(0,), (0,)], 0)
    m = hlotools.parse_module(text)
    keys, iota = np.zeros(n, np.float32), np.arange(n, dtype=np.int32)
    got = _leaves(compile_module(m)([keys, iota]))[1]
    keys_list = keys.tolist()
    want = model.std_sort(list(range(n)), lambda i, j: keys_list[i] < keys_list[j])
    assert got.tolist() == want
    assert want != list(range(n))


@pytest.mark.parametrize("kind", sorted(GENERIC))
def test_generic_comparator_on_nans_stays_a_permutation(kind: str) -> None:
    """A generic comparator that is not a strict weak order (IEEE LT with NaNs, not at the
    root): the LLVM backend still returns every element exactly once per row."""
    n = 200
    rng = np.random.default_rng(7)
    keys = _values(rng, "f32", (3, n), 3, True)
    iota = np.broadcast_to(np.arange(n, dtype=np.int32), (3, n)).copy()
    m = hlotools.parse_module(sort_module(kind, ["f32", "s32"], (3, n), [(1, 0), (1, 0)], 1))
    got = _leaves(compile_module(m)([keys, iota]))
    assert all(sorted(row) == list(range(n)) for row in got[1].tolist())
    assert np.array_equal(np.sort(got[0].view(np.uint32), axis=1), np.sort(keys.view(np.uint32), axis=1))


@pytest.mark.parametrize(("kind", "stable"), [("lex", False), ("lt", True), ("lex", True), ("wrapped", True)])
def test_generic_comparator_on_nans_matches_the_interpreter(kind: str, stable: bool) -> None:
    """NaNs under IEEE compare are no strict weak order: both sides replay libstdc++'s
    std::stable_sort (an unstable generic sort numbers its classes along that order), so
    they agree bit for bit, and every row is still a permutation (the interpreter's old
    vectorised merge lost and duplicated elements here)."""
    n = 40
    rng = np.random.default_rng(1)
    keys = _values(rng, "f32", (3, n), 3, True)
    iota = np.broadcast_to(np.arange(n, dtype=np.int32), (3, n)).copy()
    text = sort_module(kind, ["f32", "s32"], (3, n), [(1, 0), (1, 0)], 1)
    if stable:
        text = text.replace("to_apply=cmp", "is_stable=true, to_apply=cmp")
    assert_same_bits(text, [keys, iota])
    got = _leaves(evaluate(hlotools.parse_module(text), [keys, iota]))[1]
    assert all(sorted(row) == list(range(n)) for row in got.tolist())


@pytest.mark.parametrize(("kind", "stable"), [("lt_total", False), ("gt_total", False), ("lt", False),
                                              ("lt_total", True), ("gt_total", True), ("lt", True), ("gt", True)])
def test_nan_payloads_move_unchanged(kind: str, stable: bool) -> None:
    """A sort moves its operands' bits: bf16 NaN payloads (quiet, signalling, both signs)
    come out as they went in, in TOTALORDER's order of payloads, or (IEEE LT/GT, stable)
    where libstdc++'s std::stable_sort leaves them."""
    n = 40
    bits = np.random.default_rng(3).choice([0x7FC0, 0x7F81, 0x7FA0, 0xFFC0, 0xFF81, 0x3F80, 0x8000, 0x0000], (2, n))
    keys = bits.astype(np.uint16).view(ml_dtypes.bfloat16)
    iota = np.broadcast_to(np.arange(n, dtype=np.int32), (2, n)).copy()
    text = sort_module(kind, ["bf16", "s32"], (2, n), [(1, 0), (1, 0)], 1)
    if stable:
        text = text.replace("to_apply=cmp", "is_stable=true, to_apply=cmp")
    assert_same_bits(text, [keys, iota])


def test_topk_moves_nan_payloads_unchanged() -> None:
    text = ("HloModule t\nENTRY e {\n  x = bf16[3,20] parameter(0)\n"
            "  ROOT t = (bf16[3,5], s32[3,5]) topk(x), k=5, largest=true\n}\n")
    bits = np.random.default_rng(4).choice([0x7FC0, 0x7F81, 0x7FA0, 0xFFC0, 0x3F80], (3, 20))
    assert_same_bits(text, [bits.astype(np.uint16).view(ml_dtypes.bfloat16)])


class _Bounded(list):  # type: ignore[type-arg]
    """A list that refuses indices outside [0, len): Python's negative indices would
    otherwise let an unbounded walk wrap round silently."""

    def _check(self, i: Any) -> None:
        if isinstance(i, int) and not 0 <= i < len(self):
            raise AssertionError(f"index {i} outside [0, {len(self)})")

    def __getitem__(self, i: Any) -> Any:
        self._check(i)
        return super().__getitem__(i)

    def __setitem__(self, i: Any, v: Any) -> None:
        self._check(i)
        super().__setitem__(i, v)


@pytest.mark.parametrize("answer", ["true", "false", "random"])
def test_model_stays_in_its_list_for_any_comparator(answer: str) -> None:
    """The model's loops are bounded: a comparator that is not even irreflexive (always
    true, random answers) still gives a permutation without an index outside the list."""
    rng = np.random.default_rng(0)
    for n in itertools.chain(range(1, 40), (64, 200, 1000)):
        table = rng.random((n, n)) < 0.5 if answer == "random" else np.full((n, n), answer == "true")

        def less(i: int, j: int, t: np.ndarray = table) -> bool:
            return bool(t[i, j])
        out = model.std_sort(_Bounded(range(n)), less)
        assert sorted(out) == list(range(n))
