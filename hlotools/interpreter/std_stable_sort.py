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
insertion and merge depends on the data. So all rows, and all chunks or merges of one
pass, advance together: one vectorised `less` call per insertion step, and per block of
merge steps (_merge_path: every comparison the next K steps could make, evaluated at once),
instead of one scalar call per comparison. `less(r, x, y)` takes flat arrays (row,
original position, original position) and says whether row r's element x goes before its
element y; it must be pure (it may be asked about pairs the algorithm never compares).

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
    i, j, k = _merge_path(src, dst, rows, (lo.copy(), mid.copy(), lo.copy()), (mid, hi), 1, less)
    _move_tails(src, dst, rows, [(i, mid), (j, hi)], k)


def _merge_backward(src: np.ndarray, dst: np.ndarray, half: int, less: BatchLess) -> None:
    """std::__move_merge_adaptive_backward of [0, half) and [half, n) from the back: the
    first run's last element goes last only if less(second's last, first's last)."""
    m, n = src.shape
    rows = np.arange(m)
    start = (np.full(m, half - 1, np.int64), np.full(m, n - 1, np.int64), np.full(m, n - 1, np.int64))
    ends = (np.full(m, -1, np.int64), np.full(m, half - 1, np.int64))
    i, j, _ = _merge_path(src, dst, rows, start, ends, -1, less)
    # what is left of one run goes, in order, to the front of the row
    _move_tails(src, dst, rows, [(np.zeros(m, np.int64), i + 1), (np.full(m, half, np.int64), j + 1)],
                np.zeros(m, np.int64))


BLOCK_BUDGET = 1 << 13  # comparator evaluations per speculative block
PYTHON_WALK = 32  # up to this many merges at once, walk each in plain Python
Block = tuple[np.ndarray, np.ndarray, np.ndarray]  # less table (P, K, K), first and second (P, K)


def _merge_path(src: np.ndarray, dst: np.ndarray, rows: np.ndarray,
                start: tuple[np.ndarray, np.ndarray, np.ndarray], ends: tuple[np.ndarray, np.ndarray],
                sign: int, less: BatchLess) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Run merges (one per entry of `rows`) while both runs have elements: first run at i,
    second at j, output at k, all moving by `sign` and stopping at `ends` (exclusive).
    Forward (sign 1) the second run's element is taken where less(second, first), backward
    (sign -1) the first run's.

    The merges' decisions come in speculative K x K blocks: one vectorised `less` call
    evaluates every pair (first[i + a], second[j + b]) the next K steps could meet, then a
    walk follows each merge's path through its block (at least K steps unless a run ends):
    lockstep in numpy for many merges, in plain Python for a few, where numpy's per-call
    cost would dominate. K shrinks as more merges run at once, so a block stays near
    BLOCK_BUDGET evaluations: few long merges (the last passes) need few calls."""
    i, j, k = (v.copy() for v in start)
    i_end, j_end = ends
    active = np.flatnonzero(((i - i_end) * sign < 0) & ((j - j_end) * sign < 0))
    while active.size:
        p = active.size
        kb = max(1, min(64, int(np.sqrt(BLOCK_BUDGET // p))))
        r = rows[active]
        ai, aj, ak = i[active], j[active], k[active]
        ie, je = i_end[active], j_end[active]
        offs = np.arange(kb) * sign
        ii = ai[:, None] + offs  # positions past a run's end are clipped; the walk never reads them
        jj = aj[:, None] + offs
        ii = np.minimum(ii, ie[:, None] - 1) if sign > 0 else np.maximum(ii, ie[:, None] + 1)
        jj = np.minimum(jj, je[:, None] - 1) if sign > 0 else np.maximum(jj, je[:, None] + 1)
        first, second = src[r[:, None], ii], src[r[:, None], jj]
        shape = (p, kb, kb)
        table = less(np.broadcast_to(r[:, None, None], shape).ravel(),
                     np.broadcast_to(second[:, None, :], shape).ravel(),
                     np.broadcast_to(first[:, :, None], shape).ravel()).reshape(shape)
        if p <= PYTHON_WALK:
            da, db = _walk_each(dst, r, (ai, aj, ak), (ie, je), sign, (table, first, second))
        else:
            da, db = _walk_lockstep(dst, r, (ai, aj, ak), (ie, je), sign, (table, first, second))
        i[active] = ai + da * sign
        j[active] = aj + db * sign
        k[active] = ak + (da + db) * sign
        still = ((i[active] - ie) * sign < 0) & ((j[active] - je) * sign < 0)
        active = active[still]
    return i, j, k


def _walk_lockstep(dst: np.ndarray, r: np.ndarray, at: tuple[np.ndarray, np.ndarray, np.ndarray],
                   ends: tuple[np.ndarray, np.ndarray], sign: int, block: Block) -> tuple[np.ndarray, np.ndarray]:
    """Follow every merge's path through its block, all merges one step at a time; returns
    how far each went in its first and its second run."""
    (ai, aj, ak), (ie, je), (table, first, second) = at, ends, block
    p, kb = first.shape
    da, db = np.zeros(p, np.int64), np.zeros(p, np.int64)
    live = np.arange(p)
    while live.size:
        x, y = da[live], db[live]
        hit = table[live, x, y]
        take_second = hit if sign > 0 else ~hit
        dst[r[live], ak[live] + (x + y) * sign] = np.where(take_second, second[live, y], first[live, x])
        da[live] = x + ~take_second
        db[live] = y + take_second
        x, y = da[live], db[live]
        inside = ((x < kb) & (y < kb) & ((ai[live] + x * sign - ie[live]) * sign < 0)
                  & ((aj[live] + y * sign - je[live]) * sign < 0))
        live = live[inside]
    return da, db


def _walk_each(dst: np.ndarray, r: np.ndarray, at: tuple[np.ndarray, np.ndarray, np.ndarray],
               ends: tuple[np.ndarray, np.ndarray], sign: int, block: Block) -> tuple[np.ndarray, np.ndarray]:
    """_walk_lockstep for a few merges: each path in plain Python, one store per merge."""
    (ai, aj, ak), (ie, je), (table, first, second) = at, ends, block
    p, kb = first.shape
    da, db = np.zeros(p, np.int64), np.zeros(p, np.int64)
    tables, firsts, seconds = table.tolist(), first.tolist(), second.tolist()
    for q in range(p):
        t, f, s = tables[q], firsts[q], seconds[q]
        lim_x, lim_y = min(kb, int((ie[q] - ai[q]) * sign)), min(kb, int((je[q] - aj[q]) * sign))
        x = y = 0
        out: list[int] = []
        while x < lim_x and y < lim_y:
            if t[x][y] == (sign > 0):
                out.append(s[y])
                y += 1
            else:
                out.append(f[x])
                x += 1
        dst[r[q], ak[q] + np.arange(len(out)) * sign] = out
        da[q], db[q] = x, y
    return da, db


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
