"""Stable sorts whose comparator is not a strict weak order (NaNs under IEEE LT/GT, generic
comparators, even LE and NE) give exactly libstdc++'s std::stable_sort order, which is what
XLA:CPU runs for is_stable=true: the interpreter equals a pure-Python transliteration of
libstdc++ written here (independent of hlotools/interpreter/std_stable_sort.py), the LLVM
backend equals the interpreter bit for bit, and every row is a permutation of its input."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from hlotools.interpreter.std_stable_sort import stable_sort_rows
from hlotools.ir.types import ELEMENT_TYPES

Less = Callable[[int, int], bool]


# -- libstdc++'s std::stable_sort, statement by statement (with its half-size buffer) ----
def libstdcxx_stable_sort(items: list[int], less: Less) -> list[int]:
    a = list(items)
    n = len(a)
    if n == 0:
        return a
    middle = (n + 1) // 2
    buffer: list[int] = [0] * middle
    _merge_sort_with_buffer(a, 0, middle, buffer, less)
    _merge_sort_with_buffer(a, middle, n, buffer, less)
    _merge_adaptive(a, 0, middle, n, buffer, less)
    return a


def _insertion_sort(a: list[int], first: int, last: int, less: Less) -> None:
    for i in range(first + 1, last):
        val = a[i]
        if less(val, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:  # __unguarded_linear_insert
            k = i
            while less(val, a[k - 1]):
                a[k] = a[k - 1]
                k -= 1
            a[k] = val


def _move_merge(src1: list[int], f1: int, l1: int, src2: list[int], f2: int, l2: int,
                out: list[int], r: int, less: Less) -> int:
    while f1 != l1 and f2 != l2:
        if less(src2[f2], src1[f1]):
            out[r] = src2[f2]
            f2 += 1
        else:
            out[r] = src1[f1]
            f1 += 1
        r += 1
    for x in src1[f1:l1] + src2[f2:l2]:
        out[r] = x
        r += 1
    return r


def _merge_sort_loop(src: list[int], first: int, last: int, out: list[int], r: int, step: int,
                     less: Less) -> None:
    two = 2 * step
    while last - first >= two:
        r = _move_merge(src, first, first + step, src, first + step, first + two, out, r, less)
        first += two
    step = min(last - first, step)
    _move_merge(src, first, first + step, src, first + step, last, out, r, less)


def _merge_sort_with_buffer(a: list[int], first: int, last: int, buffer: list[int], less: Less) -> None:
    length = last - first
    step = 7  # _S_chunk_size
    f = first
    while last - f >= step:
        _insertion_sort(a, f, f + step, less)
        f += step
    _insertion_sort(a, f, last, less)
    while step < length:
        _merge_sort_loop(a, first, last, buffer, 0, step, less)
        step *= 2
        _merge_sort_loop(buffer, 0, length, a, first, step, less)
        step *= 2


def _merge_adaptive(a: list[int], first: int, middle: int, last: int, buffer: list[int], less: Less) -> None:
    len1, len2 = middle - first, last - middle
    if len1 <= len2:  # __move_merge_adaptive: the first half to the buffer, merge forward
        buffer[:len1] = a[first:middle]
        _move_merge(buffer, 0, len1, a, middle, last, a, first, less)
        return
    # __move_merge_adaptive_backward: the second half to the buffer, merge from the back
    buffer[:len2] = a[middle:last]
    if len2 == 0:
        return
    last1, last2, result = middle - 1, len2 - 1, last
    while True:
        result -= 1
        if less(buffer[last2], a[last1]):
            a[result] = a[last1]
            if last1 == first:
                a[result - last2 - 1:result] = buffer[:last2 + 1]
                return
            last1 -= 1
        else:
            a[result] = buffer[last2]
            if last2 == 0:
                return
            last2 -= 1


def plain_merge_sort(items: list[int], less: Less) -> list[int]:
    """A bottom-up stable merge from width 1: the same answer on strict weak orders only."""
    a = list(items)
    width = 1
    while width < len(a):
        out: list[int] = [0] * len(a)
        for lo in range(0, len(a), 2 * width):
            mid, hi = min(lo + width, len(a)), min(lo + 2 * width, len(a))
            _move_merge(a, lo, mid, a, mid, hi, out, lo, less)
        a, width = out, 2 * width
    return a


# -- the replay itself, on arbitrary relations --------------------------------------------
@pytest.mark.parametrize("n", [*range(0, 40), 56, 57, 100, 113, 250])
def test_replay_matches_libstdcxx_for_any_relation(n: int) -> None:
    """Random relations (not even irreflexive) and NaN-laden IEEE `<`, three rows at once."""
    rng = np.random.default_rng(n)
    table = rng.random((3, max(n, 1), max(n, 1))) < 0.5
    keys = np.where(rng.random((3, n)) < 0.3, np.nan, rng.integers(0, 4, (3, n)).astype(float))
    relations: list[Callable[[Any, Any, Any], Any]] = [lambda r, x, y: table[r, x, y],
                                                       lambda r, x, y: keys[r, x] < keys[r, y]]
    for rel in relations:
        got = stable_sort_rows(3, n, rel)
        for r in range(3):
            def less(x: int, y: int, r: int = r, f: Callable[[Any, Any, Any], Any] = rel) -> bool:
                return bool(f(r, x, y))
            want = libstdcxx_stable_sort(list(range(n)), less)
            assert sorted(want) == list(range(n))
            assert got[r].tolist() == want


def test_nans_make_the_algorithm_matter() -> None:
    """Not vacuous: on NaN-laden keys libstdc++'s order is not a plain merge's."""
    rng = np.random.default_rng(5)
    differ = 0
    for _ in range(20):
        k = np.where(rng.random(40) < 0.2, np.nan, rng.integers(0, 5, 40).astype(float)).tolist()

        def less(x: int, y: int, k: list[float] = k) -> bool:
            return k[x] < k[y]
        differ += libstdcxx_stable_sort(list(range(40)), less) != plain_merge_sort(list(range(40)), less)
    assert differ >= 10


# -- HLO sorts on both backends -----------------------------------------------------------
COMPARATORS = ["lt", "gt", "lex", "wrapped", "le", "ne"]


def _scalar_less(kind: str, cols: list[list[Any]]) -> Less:
    """What the comparator computes, in plain Python on the operands' values."""
    k = cols[0]
    if kind in ("lt", "wrapped"):
        return lambda i, j: k[i] < k[j]
    if kind == "gt":
        return lambda i, j: k[i] > k[j]
    if kind == "le":
        return lambda i, j: k[i] <= k[j]
    if kind == "ne":
        return lambda i, j: k[i] != k[j]
    k1 = cols[1]
    return lambda i, j: k[i] < k[j] or (k[i] == k[j] and k1[i] < k1[j])


def _comparator(kind: str, types: list[str]) -> str:
    params = "\n".join(f"  p{2 * k + s} = {t}[] parameter({2 * k + s})" for k, t in enumerate(types) for s in (0, 1))
    if kind in ("lt", "gt", "le", "ne"):
        body = f"  ROOT c = pred[] compare(p0, p1), direction={kind.upper()}"
    elif kind == "lex":
        body = ("  lt0 = pred[] compare(p0, p1), direction=LT\n  eq0 = pred[] compare(p0, p1), direction=EQ\n"
                "  lt1 = pred[] compare(p2, p3), direction=LT\n  t = pred[] and(eq0, lt1)\n"
                "  ROOT c = pred[] or(lt0, t)")
    else:  # LT, but not at the root
        body = "  c0 = pred[] compare(p0, p1), direction=LT\n  ROOT c = pred[] and(c0, c0)"
    return f"cmp {{\n{params}\n{body}\n}}\n"


def stable_module(kind: str, types: list[str], dims: tuple[int, ...], dim: int) -> str:
    shapes = [f"{t}[{','.join(map(str, dims))}]" for t in types]
    params = "\n".join(f"  x{k} = {s} parameter({k})" for k, s in enumerate(shapes))
    result = shapes[0] if len(shapes) == 1 else f"({', '.join(shapes)})"
    args = ", ".join(f"x{k}" for k in range(len(shapes)))
    return (f"HloModule stable\n{_comparator(kind, types)}\nENTRY e {{\n{params}\n"
            f"  ROOT s = {result} sort({args}), dimensions={{{dim}}}, is_stable=true, to_apply=cmp\n}}\n")


def _data(rng: np.random.Generator, et: str, dims: tuple[int, ...], nan_rate: float) -> np.ndarray:
    dt = ELEMENT_TYPES[et].dtype
    x = rng.integers(-2, 3, dims)
    if not ELEMENT_TYPES[et].is_float:
        return x.astype(dt)
    v = x.astype(np.float64) * 0.5
    pick = rng.random(dims)
    v = np.where(pick < nan_rate, np.nan, v)
    v = np.where((pick >= nan_rate) & (pick < nan_rate + 0.1), -0.0, v)
    return v.astype(dt)


def _leaves(x: Any) -> list[np.ndarray]:
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _leaves(item)]
    return [np.ascontiguousarray(np.asarray(x))]


def expected(kind: str, args: list[np.ndarray], dim: int) -> list[np.ndarray]:
    """Every row sorted by the transliteration above, every operand moved with it."""
    rows = [np.moveaxis(a, dim, -1) for a in args]
    n = rows[0].shape[-1]
    flat = [r.reshape(-1, n) for r in rows]
    out = [np.empty_like(f) for f in flat]
    for r in range(flat[0].shape[0]):
        cols = [f[r].astype(np.float64).tolist() if f.dtype.kind not in "iub" else f[r].tolist() for f in flat]
        perm = libstdcxx_stable_sort(list(range(n)), _scalar_less(kind, cols))
        assert sorted(perm) == list(range(n))
        for o, f in zip(out, flat):
            o[r] = f[r][perm]
    return [np.moveaxis(o.reshape(rows[0].shape), -1, dim) for o in out]


def _same_bits(want: np.ndarray, got: np.ndarray) -> bool:
    return want.shape == got.shape and want.dtype == got.dtype and np.array_equal(
        np.ascontiguousarray(want).view(np.uint8), np.ascontiguousarray(got).view(np.uint8))


def check(kind: str, types: list[str], args: list[np.ndarray], dim: int, llvm: bool = True) -> None:
    m = hlotools.parse_module(stable_module(kind, types, args[0].shape, dim))
    interp = _leaves(evaluate(m, args))
    for k, (w, g) in enumerate(zip(expected(kind, args, dim), interp)):
        assert _same_bits(w, g), f"{kind} {types} operand {k}\nwant {w}\ninterpreter {g}"
    if llvm:
        for k, (w, g) in enumerate(zip(interp, _leaves(compile_module(m)(args)))):
            assert _same_bits(w, g), f"{kind} {types} operand {k}\ninterpreter {w}\nllvm {g}"


SIZES = [1, 2, 3, 6, 7, 8, 9, 13, 14, 15, 16, 21, 28, 29, 30, 56, 57, 113]


@st.composite
def stable_sorts(draw: st.DrawFn) -> tuple[str, list[str], list[np.ndarray], int]:
    rank = draw(st.integers(1, 3))
    dim = draw(st.integers(0, rank - 1))
    n = draw(st.sampled_from(SIZES))
    dims = tuple(n if d == dim else draw(st.integers(1, 3)) for d in range(rank))
    kind = draw(st.sampled_from(COMPARATORS))
    key = draw(st.sampled_from(["f32", "f64", "bf16", "f16"]))
    extra = draw(st.lists(st.sampled_from(["s32", "f32"]), min_size=1 if kind == "lex" else 0, max_size=2))
    types = [key, *extra]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    nan_rate = draw(st.sampled_from([0.0, 0.1, 0.3, 0.9]))
    args = [_data(rng, key, dims, nan_rate)] + [_data(rng, t, dims, nan_rate) for t in extra]
    return kind, types, args, dim


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stable_sorts())
def test_stable_sort_is_libstdcxx_on_both_backends(case: tuple[str, list[str], list[np.ndarray], int]) -> None:
    check(*case)


@pytest.mark.parametrize("kind", ["lt", "gt"])
@pytest.mark.parametrize("n", [1000, 4097])
def test_large_rows_with_nans(kind: str, n: int) -> None:
    """Long rows through every merge pass and the final merge, forward (even n) and
    backward (odd n); NaN-free rows of the same sort take the interpreter's argsort."""
    rng = np.random.default_rng(n)
    keys = _data(rng, "f32", (3, n), 0.2)
    keys[1] = rng.standard_normal(n)  # no NaN: the fast path
    iota = np.broadcast_to(np.arange(n, dtype=np.int32), (3, n)).copy()
    check(kind, ["f32", "s32"], [keys, iota], 1)


@pytest.mark.parametrize("kind", ["lex", "le", "ne"])
def test_large_generic_rows_along_a_major_dimension(kind: str) -> None:
    n = 600
    rng = np.random.default_rng(1)
    keys = _data(rng, "f32", (n, 2), 0.2)
    payload = rng.integers(0, 3, (n, 2)).astype(np.int32)
    check(kind, ["f32", "s32"], [keys, payload], 0)


@pytest.mark.parametrize("answer", ["true", "false"])
def test_constant_comparators_give_libstdcxx_permutations(answer: str) -> None:
    """A comparator that is no order at all (always true: not even irreflexive): every
    size up to a few chunks and passes, both backends, libstdc++'s permutation."""
    for n in [*range(1, 31), 57, 100]:
        text = (f"HloModule c\ncmp {{\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
                f"  ROOT c = pred[] constant({answer})\n}}\n\nENTRY e {{\n  x = s32[2,{n}] parameter(0)\n"
                f"  ROOT s = s32[2,{n}] sort(x), dimensions={{1}}, is_stable=true, to_apply=cmp\n}}\n")
        m = hlotools.parse_module(text)
        x = np.stack([np.arange(n), np.arange(n)[::-1]]).astype(np.int32)
        want = [x[r][libstdcxx_stable_sort(list(range(n)), lambda i, j: answer == "true")] for r in range(2)]
        interp = _leaves(evaluate(m, [x]))[0]
        assert interp.tolist() == [w.tolist() for w in want], n
        assert np.array_equal(_leaves(compile_module(m)([x]))[0], interp), n
