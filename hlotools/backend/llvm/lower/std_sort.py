"""libstdc++'s std::sort (introsort) in IR, for unstable sorts: the same decisions as the
interpreter's replay (hlotools/interpreter/std_sort.py), so ties end where XLA:CPU puts them.

XLA:CPU sorts an `is_stable=false` sort with std::sort, and the order it leaves equivalent
elements in is whatever that algorithm does: median-of-3 pivot moved to the front, Hoare
partition, recursion on the right part and a loop on the left one while a range holds more
than 16 elements, heap sort once 2*floor(log2 n) partitions deep, then one insertion sort
over the whole row. The comparator is pure, so only its results matter: the emitted code
takes every branch the model takes (it may evaluate a comparison the model would have
skipped, e.g. all three of the median-of-3, but never acts differently).

The permutation `perm` (i64, original positions) is what gets sorted; `less(x, y)` compares
the elements originally at x and y. Recursion becomes an explicit stack: a range pushes its
left part and goes on with its right part, which visits ranges in the model's order (ranges
are disjoint, so the order would not matter anyway). Depths on the stack strictly decrease,
so it never holds more than depth_limit + 1 ranges.

Safety: libstdc++'s "unguarded" loops find their stop only if the comparator is a strict
weak order. Every loop here is bounded by its range as well (the model has the same bounds,
so both still agree): the partition's forward scan stops at the range's last element, its
backward scan at the pivot, the final insertion's backward walk at the row's start. For the
comparators that reach this code (a compare LT/GT at the root: asymmetric and irreflexive
even on NaNs, or integer class ids) the partition bounds never act; they and the walk's
bound keep every access inside the row whatever the data.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import llvmlite.ir as ir

from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64

Less = Callable[[ir.Value, ir.Value], ir.Value]  # (original index, original index) -> i1

THRESHOLD = 16  # libstdc++ _S_threshold


def depth_limit(n: int) -> int:
    """std::__lg(n) * 2."""
    return 2 * (n.bit_length() - 1)


def new_var(b_entry: ir.IRBuilder, b: ir.IRBuilder, init: ir.Value) -> ir.AllocaInstr:
    """A mutable local (an entry-block alloca, which mem2reg turns into SSA values)."""
    slot = b_entry.alloca(init.type)
    b.store(init, slot)
    return slot


def while_loop(b: ir.IRBuilder, conds: list[Callable[[], ir.Value]], body: Callable[[], None], name: str) -> None:
    """`while (c0() && c1() && ...) body();` with short-circuit conditions (a later condition
    may only be evaluated, e.g. read memory, once the earlier ones hold)."""
    head = b.append_basic_block(f"{name}.head")
    loop = b.append_basic_block(f"{name}.body")
    done = b.append_basic_block(f"{name}.done")
    b.branch(head)
    b.position_at_end(head)
    for k, cond in enumerate(conds):
        nxt = loop if k == len(conds) - 1 else b.append_basic_block(f"{name}.and{k}")
        b.cbranch(cond(), nxt, done)
        b.position_at_end(nxt)
    body()
    b.branch(head)
    b.position_at_end(done)


@dataclass
class IndexCode:
    """The i64 helpers both libstdc++ replays (this file's std::sort, emit_std_stable_sort's
    std::stable_sort) emit with: slots in the entry block, loads and stores of i64 rows."""

    b: ir.IRBuilder
    entry: ir.IRBuilder  # where allocas go

    def var(self, init: ir.Value | int) -> ir.AllocaInstr:
        return new_var(self.entry, self.b, c64(init) if isinstance(init, int) else init)

    def get(self, slot: ir.Value) -> ir.Value:
        return self.b.load(slot, typ=types.I64)

    def load(self, row: ir.Value, i: ir.Value) -> ir.Value:
        return self.b.load(self.b.gep(row, [i], inbounds=True, source_etype=types.I64), typ=types.I64)

    def store(self, row: ir.Value, i: ir.Value, v: ir.Value) -> None:
        self.b.store(v, self.b.gep(row, [i], inbounds=True, source_etype=types.I64))

    def lt(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.icmp_signed("<", x, y)


@dataclass
class StdSort(IndexCode):
    """Emits std::sort of perm[0:n] (n known at compile time) at the builder's position."""

    perm: ir.Value
    n: int
    less: Less

    # -- small helpers ------------------------------------------------------------------
    def at(self, i: ir.Value) -> ir.Value:
        return self.load(self.perm, i)

    def put(self, i: ir.Value, v: ir.Value) -> None:
        self.store(self.perm, i, v)

    def swap(self, i: ir.Value, j: ir.Value) -> None:
        vi, vj = self.at(i), self.at(j)
        self.put(i, vj)
        self.put(j, vi)

    # -- std::sort -----------------------------------------------------------------------
    def emit(self) -> None:
        if self.n < 2:
            return
        if self.n > THRESHOLD:
            self.introsort()
        self.final_insertion_sort()

    def introsort(self) -> None:
        b = self.b
        size = depth_limit(self.n) + 1
        stack = self.entry.alloca(types.I64, size=c64(3 * size))

        def slot(k: ir.Value, field: int) -> ir.Value:
            return b.gep(stack, [b.add(b.mul(k, c64(3)), c64(field))], inbounds=True, source_etype=types.I64)
        sp = self.var(1)
        b.store(c64(0), slot(c64(0), 0))
        b.store(c64(self.n), slot(c64(0), 1))
        b.store(c64(depth_limit(self.n)), slot(c64(0), 2))
        first, last, depth = self.var(0), self.var(0), self.var(0)

        def pop() -> None:
            top = b.sub(self.get(sp), c64(1))
            b.store(top, sp)
            for field, var in enumerate((first, last, depth)):
                b.store(b.load(slot(top, field), typ=types.I64), var)
            while_loop(b, [lambda: b.icmp_signed(">", b.sub(self.get(last), self.get(first)), c64(THRESHOLD))],
                       range_step, "intro")

        def range_step() -> None:
            lo, hi, d = self.get(first), self.get(last), self.get(depth)
            heap, part = b.append_basic_block("intro.heap"), b.append_basic_block("intro.part")
            after = b.append_basic_block("intro.next")
            b.cbranch(b.icmp_signed("==", d, c64(0)), heap, part)
            b.position_at_end(heap)
            self.heap_sort(lo, hi)
            b.store(lo, last)  # range done: leave the loop
            b.branch(after)
            b.position_at_end(part)
            d1 = b.sub(d, c64(1))
            b.store(d1, depth)
            cut = self.partition_pivot(lo, hi)
            top = self.get(sp)  # push [lo, cut) for later, go on with [cut, hi)
            b.store(lo, slot(top, 0))
            b.store(cut, slot(top, 1))
            b.store(d1, slot(top, 2))
            b.store(b.add(top, c64(1)), sp)
            b.store(cut, first)
            b.branch(after)
            b.position_at_end(after)
        while_loop(b, [lambda: b.icmp_signed(">", self.get(sp), c64(0))], pop, "intro.stack")

    def partition_pivot(self, first: ir.Value, last: ir.Value) -> ir.Value:
        b = self.b
        mid = b.add(first, b.sdiv(b.sub(last, first), c64(2)))
        self.move_median_to_first(first, b.add(first, c64(1)), mid, b.sub(last, c64(1)))
        return self.partition(b.add(first, c64(1)), last, first)

    def move_median_to_first(self, result: ir.Value, x: ir.Value, y: ir.Value, z: ir.Value) -> None:
        b = self.b
        a, c, e = self.at(x), self.at(y), self.at(z)
        xy, yz, xz = self.less(a, c), self.less(c, e), self.less(a, e)
        # less(x,y) ? (less(y,z) ? y : less(x,z) ? z : x) : (less(x,z) ? x : less(y,z) ? z : y)
        if_xy = b.select(yz, y, b.select(xz, z, x))
        if_not = b.select(xz, x, b.select(yz, z, y))
        self.swap(result, b.select(xy, if_xy, if_not))

    def partition(self, first0: ir.Value, last0: ir.Value, pivot: ir.Value) -> ir.Value:
        """__unguarded_partition(first, last, pivot), bounded to [pivot, last0)."""
        b = self.b
        pv = self.at(pivot)  # the pivot slot is never written during the partition
        end = b.sub(last0, c64(1))
        first, last = self.var(first0), self.var(last0)
        out = b.append_basic_block("part.out")
        body = b.append_basic_block("part.body")
        b.branch(body)
        b.position_at_end(body)
        while_loop(b, [lambda: self.lt(self.get(first), end), lambda: self.less(self.at(self.get(first)), pv)],
                   lambda: b.store(b.add(self.get(first), c64(1)), first), "part.fwd")
        b.store(b.sub(self.get(last), c64(1)), last)
        while_loop(b, [lambda: b.icmp_signed(">", self.get(last), pivot), lambda: self.less(pv, self.at(self.get(last)))],
                   lambda: b.store(b.sub(self.get(last), c64(1)), last), "part.bwd")
        f, la = self.get(first), self.get(last)
        cont = b.append_basic_block("part.swap")
        b.cbranch(self.lt(f, la), cont, out)
        b.position_at_end(cont)
        self.swap(f, la)
        b.store(b.add(f, c64(1)), first)
        b.branch(body)
        b.position_at_end(out)
        return self.get(first)

    def final_insertion_sort(self) -> None:
        """__final_insertion_sort over [0, n): __insertion_sort of the first 16 (an element
        less than the first goes to the front), then __unguarded_linear_insert of the rest."""
        b = self.b
        head = min(self.n, THRESHOLD)
        i = self.var(1)

        def step() -> None:
            iv = self.get(i)
            value = self.at(iv)
            front = b.append_basic_block("ins.front")
            walk = b.append_basic_block("ins.walk")
            nxt = b.append_basic_block("ins.next")
            in_head = self.lt(iv, c64(head))
            check = b.append_basic_block("ins.check")
            b.cbranch(in_head, check, walk)
            b.position_at_end(check)
            b.cbranch(self.less(value, self.at(c64(0))), front, walk)
            b.position_at_end(front)
            self.shift_right(iv)
            self.put(c64(0), value)
            b.branch(nxt)
            b.position_at_end(walk)
            self.linear_insert(iv, value)
            b.branch(nxt)
            b.position_at_end(nxt)
            b.store(b.add(iv, c64(1)), i)
        while_loop(b, [lambda: self.lt(self.get(i), c64(self.n))], step, "ins")

    def shift_right(self, i: ir.Value) -> None:
        """perm[1:i+1] = perm[0:i] (std::move_backward)."""
        b = self.b
        j = self.var(i)
        while_loop(b, [lambda: b.icmp_signed(">", self.get(j), c64(0))],
                   lambda: self._move_down(j), "shift")

    def _move_down(self, j: ir.AllocaInstr) -> None:
        jv = self.get(j)
        prev = self.b.sub(jv, c64(1))
        self.put(jv, self.at(prev))
        self.b.store(prev, j)

    def linear_insert(self, last0: ir.Value, value: ir.Value) -> None:
        """__unguarded_linear_insert(last), bounded by the row's start."""
        b = self.b
        last = self.var(last0)
        while_loop(b, [lambda: b.icmp_signed(">", self.get(last), c64(0)),
                       lambda: self.less(value, self.at(b.sub(self.get(last), c64(1))))],
                   lambda: self._move_down(last), "walk")
        self.put(self.get(last), value)

    def heap_sort(self, first: ir.Value, last: ir.Value) -> None:
        """std::__partial_sort(first, last, last) = make_heap then sort_heap, as one loop of
        __adjust_heap calls: the make_heap steps (parent = (len-2)/2 .. 0), then the
        sort_heap steps (move the top behind the shrinking heap)."""
        b = self.b
        length = b.sub(last, first)
        parents = b.add(b.sdiv(b.sub(length, c64(2)), c64(2)), c64(1))  # make_heap steps
        steps = b.add(parents, b.sub(length, c64(1)))
        k = self.var(0)
        hole, size, value = self.var(0), self.var(0), self.var(0)

        def step() -> None:
            kv = self.get(k)
            mk, srt, go = (b.append_basic_block(f"heap.{s}") for s in ("make", "sort", "adjust"))
            b.cbranch(self.lt(kv, parents), mk, srt)
            b.position_at_end(mk)
            h = b.sub(b.sub(parents, c64(1)), kv)
            b.store(h, hole)
            b.store(length, size)
            b.store(self.at(b.add(first, h)), value)
            b.branch(go)
            b.position_at_end(srt)
            end = b.sub(length, b.add(b.sub(kv, parents), c64(1)))  # the heap's new length
            b.store(self.at(b.add(first, end)), value)
            self.put(b.add(first, end), self.at(first))
            b.store(c64(0), hole)
            b.store(end, size)
            b.branch(go)
            b.position_at_end(go)
            self.adjust_heap(first, self.get(hole), self.get(size), self.get(value))
            b.store(b.add(kv, c64(1)), k)
        # length >= 2 always (heap sort runs on ranges of more than 16)
        while_loop(b, [lambda: self.lt(self.get(k), steps)], step, "heap")

    def adjust_heap(self, first: ir.Value, hole0: ir.Value, length: ir.Value, value: ir.Value) -> None:
        b = self.b
        top = hole0
        hole, child = self.var(hole0), self.var(hole0)
        half = b.sdiv(b.sub(length, c64(1)), c64(2))

        def down() -> None:
            c = b.mul(b.add(self.get(child), c64(1)), c64(2))
            left = b.sub(c, c64(1))
            pick = b.select(self.less(self.at(b.add(first, c)), self.at(b.add(first, left))), left, c)
            self.put(b.add(first, self.get(hole)), self.at(b.add(first, pick)))
            b.store(pick, hole)
            b.store(pick, child)
        while_loop(b, [lambda: self.lt(self.get(child), half)], down, "sift")
        even = b.icmp_signed("==", b.srem(length, c64(2)), c64(0))
        last_parent = b.icmp_signed("==", self.get(child), b.sdiv(b.sub(length, c64(2)), c64(2)))
        with b.if_then(b.and_(even, last_parent)):
            c = b.mul(b.add(self.get(child), c64(1)), c64(2))
            self.put(b.add(first, self.get(hole)), self.at(b.add(first, b.sub(c, c64(1)))))
            b.store(b.sub(c, c64(1)), hole)

        def parent() -> ir.Value:
            return b.sdiv(b.sub(self.get(hole), c64(1)), c64(2))

        def up() -> None:
            p = parent()
            self.put(b.add(first, self.get(hole)), self.at(b.add(first, p)))
            b.store(p, hole)
        while_loop(b, [lambda: b.icmp_signed(">", self.get(hole), top),
                       lambda: self.less(self.at(b.add(first, parent())), value)], up, "push")
        self.put(b.add(first, self.get(hole)), value)


def emit_std_sort(b: ir.IRBuilder, entry: ir.IRBuilder, perm: ir.Value, n: int, less: Less) -> None:
    """std::sort(perm, perm + n, less), n known at compile time."""
    StdSort(b, entry, perm, n, less).emit()
