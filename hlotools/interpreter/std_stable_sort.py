"""libstdc++'s std::stable_sort, replayed on many rows at once.

XLA:CPU sorts an `is_stable=true` sort with std::stable_sort. For a strict weak order every
stable sort gives the same answer, but a comparator that is not one (IEEE LT/GT on NaNs,
which compare false both ways yet are not "equal" to everything in a transitive way) leaves
an order that only the algorithm's own sequence of decisions defines. This module replays
that sequence (libstdc++ with its temporary buffer available, as for any row XLA sorts):

    std::stable_sort(first, last):  middle = first + (len + 1) / 2
      __merge_sort_with_buffer(first, middle); __merge_sort_with_buffer(middle, last)
      __merge_adaptive(first, middle, last): len1 <= len2 (even len) -> forward merge,
                                             otherwise a backward merge
    __merge_sort_with_buffer(range):  insertion sort of chunks of 7 (_S_chunk_size), then
      __merge_sort_loop passes with step 7, 14, 28, ... alternating array -> buffer ->
      array (the pass after the last real one, step >= len, is a plain copy)
    __move_merge: takes the second run's element only if comp(second, first); the backward
      merge takes the first run's element only if comp(second, first).

The structure (chunks, runs, passes) depends only on the row length; only the path of each
insertion and merge depends on the data. So all rows, and all merges of one pass, advance
in lockstep: one vectorised `less` call per merge step instead of one scalar call per
comparison. `less(r, x, y)` takes flat arrays (row, original position, original position)
and says whether row r's element x goes before its element y.

Every loop is bounded by its range (libstdc++'s "unguarded" insertion walk is bounded by
the chunk's first element, whose comparison already failed), so any comparator, even one
that is no order at all, gives a permutation of each row.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

BatchLess = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]

CHUNK = 7  # libstdc++ _S_chunk_size


def stable_sort_rows(m: int, n: int, less: BatchLess) -> np.ndarray:
    """The (m, n) permutation std::stable_sort leaves in every row (original positions)."""
    a = np.broadcast_to(np.arange(n, dtype=np.int64), (m, n)).copy()
    if n < 2 or m == 0:
        return a
    half = (n + 1) // 2
    segments = [(0, half), (half, n)]
    _insertion_sort(a, [(c, min(c + CHUNK, hi)) for lo, hi in segments for c in range(lo, hi, CHUNK)], less)
    buf = np.empty_like(a)
    step = CHUNK
    while step < half:
        live = [(lo, hi) for lo, hi in segments if step < hi - lo]
        _merge(a, buf, _loop_runs(live, step), less)
        _copy_rest(a, buf, segments, live)
        a, buf = buf, a
        step *= 2
    if half <= n - half:
        _merge(a, buf, [(0, half, n)], less)
    else:
        _merge_backward(a, buf, half, less)
    return buf


def _loop_runs(segments: list[tuple[int, int]], step: int) -> list[tuple[int, int, int]]:
    """__merge_sort_loop's merges (lo, mid, hi) over each segment."""
    runs = []
    for lo, hi in segments:
        for start in range(lo, hi, 2 * step):
            runs.append((start, min(start + step, hi), min(start + 2 * step, hi)))
    return runs


def _copy_rest(src: np.ndarray, dst: np.ndarray, segments: list[tuple[int, int]],
               live: list[tuple[int, int]]) -> None:
    """A segment whose passes are over keeps its order in the other array too."""
    for lo, hi in segments:
        if (lo, hi) not in live:
            dst[:, lo:hi] = src[:, lo:hi]


def _insertion_sort(a: np.ndarray, chunks: list[tuple[int, int]], less: BatchLess) -> None:
    """std::__insertion_sort of every chunk of every row: element i goes to the front if
    less(a[i], a[first]), else walks left while less(a[i], a[k - 1])."""
    m = a.shape[0]
    starts = np.array([lo for lo, _ in chunks], np.int64)
    sizes = np.array([hi - lo for lo, hi in chunks], np.int64)
    for t in range(1, int(sizes.max(initial=0))):
        first = np.tile(starts[sizes > t], m)
        rows = np.repeat(np.arange(m), int((sizes > t).sum()))
        i = first + t
        val = a[rows, i]
        front = less(rows, val, a[rows, first])
        pos = np.where(front, first, i)
        walking = ~front & (i > first + 1)  # next to the front, the walk's one test just failed
        while walking.any():
            w = np.flatnonzero(walking)
            step = less(rows[w], val[w], a[rows[w], pos[w] - 1])
            pos[w] = np.where(step, pos[w] - 1, pos[w])
            walking[w] = step & (pos[w] > first[w] + 1)
        for k in range(t, 0, -1):  # move [pos, i) one place right, val into pos
            shift = pos <= first + k - 1
            a[rows[shift], first[shift] + k] = a[rows[shift], first[shift] + k - 1]
        a[rows, pos] = val


def _merge(src: np.ndarray, dst: np.ndarray, runs: list[tuple[int, int, int]], less: BatchLess) -> None:
    """std::__move_merge of [lo, mid) and [mid, hi) into dst[lo, hi) for every run and row."""
    m = src.shape[0]
    lo, mid, hi = (np.tile(np.array(c, np.int64), m) for c in zip(*runs))
    rows = np.repeat(np.arange(m), len(runs))
    i, j, k = lo.copy(), mid.copy(), lo.copy()
    active = np.flatnonzero((i < mid) & (j < hi))
    while active.size:
        r, ia, ja = rows[active], i[active], j[active]
        left, right = src[r, ia], src[r, ja]
        take_right = less(r, right, left)
        dst[r, k[active]] = np.where(take_right, right, left)
        i[active] = ia + ~take_right
        j[active] = ja + take_right
        k[active] += 1
        still = (i[active] < mid[active]) & (j[active] < hi[active])
        active = active[still]
    _move_tails(src, dst, rows, [(i, mid), (j, hi)], k)


def _move_tails(src: np.ndarray, dst: np.ndarray, rows: np.ndarray,
                tails: list[tuple[np.ndarray, np.ndarray]], out: np.ndarray) -> None:
    """dst[r, out:] = src[r, start:end] for each tail in turn (each row's tails are contiguous)."""
    for start, end in tails:
        length = end - start
        total = int(length.sum())
        if total:
            rep = np.repeat(np.arange(rows.size), length)
            offset = np.arange(total) - np.repeat(np.cumsum(length) - length, length)
            dst[rows[rep], out[rep] + offset] = src[rows[rep], start[rep] + offset]
            out = out + length


def _merge_backward(src: np.ndarray, dst: np.ndarray, half: int, less: BatchLess) -> None:
    """std::__move_merge_adaptive_backward of [0, half) and [half, n) from the back: the
    first run's last element goes last only if less(second's last, first's last)."""
    m, n = src.shape
    rows = np.arange(m)
    i, j, k = (np.full(m, v, np.int64) for v in (half - 1, n - 1, n - 1))
    active = rows.copy()
    while active.size:
        ia, ja = i[active], j[active]
        left, right = src[active, ia], src[active, ja]
        take_left = less(active, right, left)
        dst[active, k[active]] = np.where(take_left, left, right)
        i[active] = ia - take_left
        j[active] = ja - ~take_left
        k[active] -= 1
        active = active[(i[active] >= 0) & (j[active] >= half)]
    # what is left of one run goes, in order, to the front of the row
    _move_tails(src, dst, rows, [(np.zeros(m, np.int64), i + 1), (np.full(m, half, np.int64), j + 1)],
                np.zeros(m, np.int64))
