"""libstdc++'s std::stable_sort in IR, for stable sorts and topk: the same decisions as the
interpreter's replay (hlotools/interpreter/std_stable_sort.py), so LLVM and the interpreter
agree bit for bit whatever the comparator, and with XLA:CPU, which sorts an
`is_stable=true` sort with std::stable_sort.

For a strict weak order any stable sort gives the same answer; this one matters where the
comparator is not one (IEEE LT/GT meeting NaN, generic comparators): there only the
algorithm's own sequence of decisions defines the order. With its temporary buffer (half the
row, always available for the rows XLA sorts) libstdc++ does:

    middle = (n + 1) / 2; merge-sort [0, middle) and [middle, n) with the buffer, each as
      insertion sort of chunks of 7, then __merge_sort_loop passes with step 7, 14, 28, ...
      alternating array -> buffer -> array (a segment done early is carried along as a copy)
    merge the halves: forward (n even, the first half moved to the buffer) or backward
      (n odd, the second half moved), taking the second run's element only where
      less(second, first) holds.

It is also no slower than a plain bottom-up merge from width 1: the insertion sort of short
chunks replaces the three cheapest and most numerous merge passes.

The permutation (i64, original positions) is what gets sorted, ping-ponging between the
two scratch rows; `less(x, y)` compares the elements originally at x and y. The comparator
is inlined at four places (insertion front test, insertion walk, merge, and the final
backward merge for odd n). Every loop is bounded by its range: the insertion walk by the
chunk's first element (libstdc++'s unguarded walk stops there because that test already
failed), merges by their runs, so no comparator can make an access leave the row.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import llvmlite.ir as ir

from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range
from hlotools.backend.llvm.lower.std_sort import IndexCode, while_loop

Less = Callable[[ir.Value, ir.Value], ir.Value]  # (original index, original index) -> i1

CHUNK = 7  # libstdc++ _S_chunk_size


@dataclass
class StdStableSort(IndexCode):
    """Emits std::stable_sort of the permutation in `a` (n known at compile time), using
    `buf` as the buffer; `emit` returns a pointer to whichever row holds the result."""

    a: ir.Value
    buf: ir.Value
    n: int
    less: Less

    # -- small helpers ------------------------------------------------------------------
    def ptr(self, slot: ir.Value) -> ir.Value:
        return self.b.load(slot, typ=types.PTR)

    def min(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.select(self.lt(x, y), x, y)

    # -- std::stable_sort ----------------------------------------------------------------
    def emit(self) -> ir.Value:
        if self.n < 2:
            return self.a
        half = (self.n + 1) // 2
        self.chunk_insertion_sort(half)
        src, dst = self.var(self.a), self.var(self.buf)
        if half > CHUNK:
            self.merge_passes(half, src, dst)
        s, d = self.ptr(src), self.ptr(dst)
        if half <= self.n - half:
            self.merge_runs(s, d, c64(0), c64(self.n), c64(half))
        else:
            self.merge_backward(s, d, half)
        return d

    def chunk_insertion_sort(self, half: int) -> None:
        """__chunk_insertion_sort of both halves: chunks [7c, 7c + 7) of [0, half), then of
        [half, n), one loop over all chunks."""
        b, n = self.b, self.n
        first_chunks = -(-half // CHUNK)
        chunks = first_chunks + -(-(n - half) // CHUNK)
        with for_range(b, 0, chunks, name="chunk") as c:
            second = b.icmp_signed(">=", c, c64(first_chunks))
            base = b.select(second, c64(half), c64(0))
            start = b.add(base, b.mul(b.select(second, b.sub(c, c64(first_chunks)), c), c64(CHUNK)))
            end = self.min(b.add(start, c64(CHUNK)), b.select(second, c64(n), c64(half)))
            self.insertion_sort(start, end)

    def insertion_sort(self, first: ir.Value, last: ir.Value) -> None:
        """std::__insertion_sort: element i goes to the front if less(a[i], a[first]), else
        walks left while less(a[i], a[k - 1]) (k > first + 1: at first + 1 the walk's test
        is the front test, which failed)."""
        b = self.b
        i = self.var(b.add(first, c64(1)))

        def step() -> None:
            iv = self.get(i)
            value = self.load(self.a, iv)
            pos = self.var(iv)
            with b.if_else(self.less(value, self.load(self.a, first))) as (front, walk):
                with front:
                    while_loop(b, [lambda: b.icmp_signed(">", self.get(pos), first)], lambda: self.move_down(pos),
                               "ins.front")
                with walk:
                    while_loop(b, [lambda: b.icmp_signed(">", self.get(pos), b.add(first, c64(1))),
                                   lambda: self.less(value, self.load(self.a, b.sub(self.get(pos), c64(1))))],
                               lambda: self.move_down(pos), "ins.walk")
            self.store(self.a, self.get(pos), value)
            b.store(b.add(iv, c64(1)), i)
        while_loop(b, [lambda: self.lt(self.get(i), last)], step, "ins")

    def move_down(self, pos: ir.AllocaInstr) -> None:
        """a[pos] = a[pos - 1]; --pos."""
        p = self.get(pos)
        prev = self.b.sub(p, c64(1))
        self.store(self.a, p, self.load(self.a, prev))
        self.b.store(prev, pos)

    def merge_passes(self, half: int, src: ir.AllocaInstr, dst: ir.AllocaInstr) -> None:
        """__merge_sort_loop passes over both halves while step < half, swapping src and dst
        after each; the second half, done once step >= its length, is copied along."""
        b, n = self.b, self.n
        step = self.var(CHUNK)

        def one_pass() -> None:
            w = self.get(step)
            s, d = self.ptr(src), self.ptr(dst)
            with for_range(b, 0, 2, name="seg") as seg:
                second = b.icmp_signed("==", seg, c64(1))
                lo = b.select(second, c64(half), c64(0))
                hi = b.select(second, c64(n), c64(half))
                live = self.lt(w, b.sub(hi, lo))
                with b.if_else(live) as (merge, copy):
                    with merge:
                        self.merge_runs(s, d, lo, hi, w)
                    with copy:
                        with for_range(b, lo, hi, name="carry") as k:
                            self.store(d, k, self.load(s, k))
            b.store(d, src)
            b.store(s, dst)
            b.store(b.mul(w, c64(2)), step)
        while_loop(b, [lambda: self.lt(self.get(step), c64(half))], one_pass, "passes")

    def merge_runs(self, s: ir.Value, d: ir.Value, lo0: ir.Value, hi0: ir.Value, w: ir.Value) -> None:
        """__merge_sort_loop(s[lo0, hi0) -> d, step w): merge [lo, lo+w) with [lo+w, lo+2w)
        for lo = lo0, lo0 + 2w, ..., the last pair cut at hi0. A merge takes the right
        element only when it is strictly less (std::__move_merge)."""
        b = self.b
        lo = self.var(lo0)
        last = b.sub(hi0, c64(1))

        def merge() -> None:
            lo_v = self.get(lo)
            mid = self.min(b.add(lo_v, w), hi0)
            hi = self.min(b.add(mid, w), hi0)
            i, j, k = self.var(lo_v), self.var(mid), self.var(lo_v)

            def step() -> None:
                iv, jv, kv = (self.get(v) for v in (i, j, k))
                left_ok = self.lt(iv, mid)
                right_ok = self.lt(jv, hi)
                li = self.load(s, self.min(iv, last))
                ri = self.load(s, self.min(jv, last))
                right_less = self.less(ri, li)
                take_right = b.and_(right_ok, b.or_(b.not_(left_ok), right_less))
                self.store(d, kv, b.select(take_right, ri, li))
                b.store(b.select(take_right, iv, b.add(iv, c64(1))), i)
                b.store(b.select(take_right, b.add(jv, c64(1)), jv), j)
                b.store(b.add(kv, c64(1)), k)
            while_loop(b, [lambda: self.lt(self.get(k), hi)], step, "merge")
            b.store(hi, lo)
        while_loop(b, [lambda: self.lt(self.get(lo), hi0)], merge, "runs")

    def merge_backward(self, s: ir.Value, d: ir.Value, half: int) -> None:
        """std::__move_merge_adaptive_backward of s[0, half) and s[half, n) into d, from
        the back: the first run's element goes last only where less(second's, first's)."""
        b, n = self.b, self.n
        i, j, k = self.var(half - 1), self.var(n - 1), self.var(n - 1)

        def step() -> None:
            iv, jv, kv = (self.get(v) for v in (i, j, k))
            left_ok = b.icmp_signed(">=", iv, c64(0))
            right_ok = b.icmp_signed(">=", jv, c64(half))
            li = self.load(s, b.select(left_ok, iv, c64(0)))
            ri = self.load(s, jv)  # j >= half - 1 >= 0 throughout
            left_greater = self.less(ri, li)
            take_left = b.and_(left_ok, b.or_(b.not_(right_ok), left_greater))
            self.store(d, kv, b.select(take_left, li, ri))
            b.store(b.select(take_left, b.sub(iv, c64(1)), iv), i)
            b.store(b.select(take_left, jv, b.sub(jv, c64(1))), j)
            b.store(b.sub(kv, c64(1)), k)
        while_loop(b, [lambda: b.icmp_signed(">=", self.get(k), c64(0))], step, "merge.back")


def emit_std_stable_sort(b: ir.IRBuilder, entry: ir.IRBuilder, a: ir.Value, buf: ir.Value, n: int,
                         less: Less) -> ir.Value:
    """std::stable_sort(a, a + n, less) with `buf` (n slots) as scratch; returns the row
    (a or buf) that holds the sorted permutation. `a` must hold the permutation to sort."""
    return StdStableSort(b, entry, a, buf, n, less).emit()
