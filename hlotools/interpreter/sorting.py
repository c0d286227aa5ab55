"""sort (multi-operand, custom comparator) and topk.

XLA:CPU sorts with std::stable_sort when is_stable is set and std::sort otherwise, and both
leave an order that is the algorithm's own where the comparator is not a strict weak order
(IEEE LT/GT meeting NaN) or where ties are visible (std::sort). The interpreter gives
libstdc++'s answer in every case:
- a comparator `compare(p[2i], p[2i+1])` or `compare(f(lhs...), f(rhs...))` with LT/GT on
  data where it is a strict weak order (integers, TOTALORDER, floats of a NaN-free row)
  becomes one stable numpy argsort: all stable sorts agree there. An unstable sort then
  replays std::sort (std_sort.py) on the rows whose ties are visible.
- the same compare on a row with NaNs replays libstdc++ on the values themselves:
  std::stable_sort (std_stable_sort.py) or std::sort.
- any other comparator: the std::stable_sort replay with the comparator run on whole
  arrays once per lockstep step (O(n) calls, not O(n log n) scalar ones); an unstable sort
  then numbers equivalence classes along that order and replays std::sort over them.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from hlotools.errors import HloRuntimeError
from hlotools.interpreter.linalg import dtype_kind
from hlotools.interpreter.numeric import merge_leading
from hlotools.interpreter.registry import kernel
from hlotools.interpreter.std_sort import std_sort
from hlotools.interpreter.std_stable_sort import stable_sort_rows
from hlotools.ir import semantics
from hlotools.ir.instruction import Instruction
from hlotools.ir.patterns import KeyComparator, key_comparator, simple_comparator


def _fail(inst: Instruction, message: str) -> HloRuntimeError:
    return HloRuntimeError(f"{inst.opcode} %{inst.name}: {message}", inst.line or None, inst.column or None)


def total_order_key(x: np.ndarray) -> np.ndarray:
    """Signed integers ordered like XLA's TOTALORDER: -NaN < -inf < ... < -0 < +0 < ... < NaN."""
    x = np.asarray(x)
    if x.dtype.kind in "biu" or x.dtype.name.startswith(("int", "uint")):
        return x.astype(np.int64)
    if x.dtype.kind == "c":
        x = np.real(x)
    bits = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[x.dtype.itemsize]
    signed = x.view(bits).astype(np.int64)
    # Negative floats: flip the magnitude bits so larger magnitudes sort lower.
    mask = np.int64((1 << (8 * x.dtype.itemsize - 1)) - 1)
    return np.where(signed < 0, signed ^ mask, signed)


def _sort_key(x: np.ndarray, total_order: bool) -> np.ndarray | None:
    """A key whose ascending numpy order equals the comparator's order, or None if the
    comparator is not a strict weak order on this data (float compare with NaNs)."""
    kind = x.dtype.kind
    if kind == "b":
        return x.astype(np.uint8)
    if kind in "iu" and x.dtype.isbuiltin:
        return x
    if x.dtype.name.startswith(("int", "uint")):
        return x.astype(np.int64)
    if kind == "c":
        return None
    if total_order:
        return total_order_key(x)
    wide = x.astype(np.float64)
    if np.isnan(wide).any():
        return None
    return wide + 0.0  # -0 and +0 compare equal under FLOAT compare


def _descending(key: np.ndarray) -> np.ndarray:
    if key.dtype.kind == "f":
        return -key
    if key.dtype.kind == "u":
        return np.iinfo(key.dtype).max - key
    return ~key.astype(np.int64)


def _permute(arrays: list[np.ndarray], perm: np.ndarray) -> list[np.ndarray]:
    return [np.take_along_axis(a, perm, axis=-1) for a in arrays]


def stable_sort_permutation(ev: Any, comp: Any, rows: list[np.ndarray]) -> np.ndarray:
    """std::stable_sort's permutation of every row (operands shaped (M, n)) under `comp`,
    the comparator run on whole arrays once per lockstep step (std_stable_sort.py): exact
    for any comparator, a strict weak order or not."""
    m, n = rows[0].shape

    def less(r: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return _compare(ev, comp, [op[r, x] for op in rows], [op[r, y] for op in rows])
    return stable_sort_rows(m, n, less)


def _stable_by_values(wide: np.ndarray) -> np.ndarray:
    """std::stable_sort of rows of floats under IEEE `<`: a key sort where the row holds
    no NaN (a strict weak order there, so every stable sort agrees), the exact replay on
    the rows that do (NaN compares false both ways, which is no strict weak order)."""
    nan = np.isnan(wide)
    perm = np.argsort(np.where(nan, 0.0, wide) + 0.0, axis=-1, kind="stable")
    bad = np.flatnonzero(nan.any(axis=1))
    if bad.size:
        keys = wide[bad]
        perm[bad] = stable_sort_rows(bad.size, wide.shape[1], lambda r, x, y: keys[r, x] < keys[r, y])
    return perm


def _compare(ev: Any, comp: Any, lhs: list[np.ndarray], rhs: list[np.ndarray]) -> np.ndarray:
    """less(lhs, rhs) elementwise; the comparator takes (lhs_0, rhs_0, lhs_1, rhs_1, ...)."""
    args: list[np.ndarray] = []
    for a, b in zip(lhs, rhs):
        args += [a, b]
    return np.asarray(ev.apply(comp, args)[0]).astype(bool)


def _std_sort_rows(perm: np.ndarray, rows: list[int], keys: np.ndarray) -> np.ndarray:
    """Redo the listed rows with the libstdc++ std::sort model; `keys[r]` orders row r
    (less(i, j) = keys[r, i] < keys[r, j], Python semantics, so NaN compares false)."""
    perm = perm.copy()
    for r in rows:
        perm[r] = std_sort(list(range(keys.shape[-1])), _less_by(keys[r].tolist()))
    return perm


def _less_by(k: list[Any]) -> Callable[[int, int], bool]:
    return lambda i, j: bool(k[i] < k[j])


def _visible_tie_rows(tie: np.ndarray, rows: list[np.ndarray], perm: np.ndarray) -> list[int]:
    """Rows where some tie (`tie[r, p]`: sorted positions p and p+1 are equivalent) joins
    elements that differ in some operand's bits; elsewhere every order of ties looks the same."""
    if tie.shape[-1] == 0 or not tie.any():
        return []
    differ = np.zeros_like(tie)
    for r in _permute(rows, perm):
        bits = r.view(f"u{r.dtype.itemsize}") if r.dtype.itemsize in (1, 2, 4, 8) else r
        differ |= bits[:, 1:] != bits[:, :-1]
    return np.flatnonzero((tie & differ).any(axis=1)).tolist()


def _unstable_from_classes(ev: Any, comp: Any, rows: list[np.ndarray], perm: np.ndarray) -> np.ndarray:
    """For an arbitrary comparator: equivalence classes from one comparator call on
    neighbours of the stable order, then std::sort over class ids for rows with ties."""
    if rows[0].shape[-1] < 2:
        return perm
    cur = _permute(rows, perm)
    step = _compare(ev, comp, [c[:, :-1] for c in cur], [c[:, 1:] for c in cur])
    cls_sorted = np.concatenate([np.zeros((perm.shape[0], 1), np.int64), np.cumsum(step, axis=1)], axis=1)
    cls = np.empty_like(cls_sorted)
    np.put_along_axis(cls, perm, cls_sorted, axis=-1)
    return _std_sort_rows(perm, _visible_tie_rows(~step, rows, perm), cls)


_KEYS: weakref.WeakKeyDictionary[Any, KeyComparator | None] = weakref.WeakKeyDictionary()


def _key_comparator(comp: Any) -> KeyComparator | None:
    if comp not in _KEYS:
        _KEYS[comp] = key_comparator(comp)
    return _KEYS[comp]


def _sort_by_key(col: np.ndarray, total_order: bool, descending: bool, stable: bool,
                 rows: list[np.ndarray]) -> np.ndarray | None:
    """Sort permutation of rows of `col` under compare LT/GT (FLOAT or TOTALORDER), or None
    when that compare is not a strict weak order on the data and the order must come from
    running the comparator (IEEE compare with NaNs in a stable sort)."""
    key = _sort_key(col, total_order)
    if key is not None:
        k = _descending(key) if descending else key
        perm = np.argsort(k, axis=-1, kind="stable")
        if not stable:
            sk = np.take_along_axis(k, perm, axis=-1)
            perm = _std_sort_rows(perm, _visible_tie_rows(sk[:, 1:] == sk[:, :-1], rows, perm), k)
        return perm
    if dtype_kind(col.dtype) == "f":
        # IEEE compare with NaNs (no strict weak order): replay libstdc++ on the values.
        wide = col.astype(np.float64)
        wide = -wide if descending else wide
        if stable:
            return _stable_by_values(wide)
        return _std_sort_rows(np.zeros(col.shape, np.int64), list(range(col.shape[0])), wide)
    return None


def sort_arrays(ev: Any, comp: Any, operands: list[np.ndarray], dim: int, stable: bool = True) -> list[np.ndarray]:
    """Sort along `dim`: stable like std::stable_sort, or (stable=False) with the order of
    ties that XLA:CPU's std::sort produces."""
    moved = [np.moveaxis(o, dim, -1) for o in operands]
    shape = moved[0].shape
    rows = [merge_leading(a.reshape(shape or (1,)), 1) for a in moved]
    perm = None
    simple = simple_comparator(comp)
    if simple is not None and simple.operand < len(rows):
        perm = _sort_by_key(_compared(rows[simple.operand], simple.total_order), simple.total_order,
                            simple.descending, stable, rows)
    if perm is None and comp is not None:
        keyed = _key_comparator(comp)
        if keyed is not None:
            key = np.asarray(ev.apply(keyed.key, rows)[0])
            perm = _sort_by_key(_compared(key, keyed.total_order), keyed.total_order, keyed.descending, stable, rows)
    if perm is None:
        perm = stable_sort_permutation(ev, comp, rows)
        if not stable:
            perm = _unstable_from_classes(ev, comp, rows, perm)
    out = _permute(rows, perm)
    return [np.ascontiguousarray(np.moveaxis(o.reshape(shape), -1, dim)) for o in out]


def _compared(key: np.ndarray, total_order: bool) -> np.ndarray:
    """The values a float LT/GT comparator sees: under XLA CPU's DAZ a denormal compares as a
    zero of its sign (the compare kernel flushes too: general comparators agree); TOTALORDER
    compares the bits, which DAZ leaves alone."""
    if total_order or not semantics.flush_denormals():
        return key
    from hlotools.interpreter.denormals import flush
    return np.asarray(flush(key))


@kernel("sort")
def sort_kernel(inst: Instruction, args: list[Any], ev: Any) -> Any:
    dims = tuple(inst.attrs.get("dimensions", ()))
    if len(dims) != 1:
        raise _fail(inst, f"expected one sort dimension, got {dims}")
    comp = inst.attrs.get("to_apply")
    if comp is None:
        raise _fail(inst, "missing to_apply comparator")
    operands = [np.asarray(a) for a in args]
    if any(o.shape != operands[0].shape for o in operands):
        raise _fail(inst, "all sort operands must have the same dimensions")
    dim = dims[0]
    if operands[0].ndim == 0 or not 0 <= dim < operands[0].ndim:
        raise _fail(inst, f"sort dimension {dim} out of range for rank {operands[0].ndim}")
    out = sort_arrays(ev, comp, operands, dim, bool(inst.attrs.get("is_stable", False)))
    return tuple(out) if inst.shape.is_tuple else out[0]


def top_k(x: np.ndarray, k: int, largest: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """k largest (smallest) along the last dim, in XLA's TOTALORDER, ties to the lower index."""
    key = total_order_key(x)
    order = np.argsort(_descending(key) if largest else key, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)


@kernel("topk")
def topk_kernel(inst: Instruction, args: list[Any], ev: Any) -> tuple:
    x = np.asarray(args[0])
    k = int(inst.attrs.get("k", 0))
    if x.ndim == 0 or not 0 <= k <= x.shape[-1]:
        raise _fail(inst, f"k={k} out of range for operand shape {x.shape}")
    return top_k(x, k, bool(inst.attrs.get("largest", True)))
