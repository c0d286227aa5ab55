"""Buffer assignment for one computation: which memory each materialised value lives in.

Every array leaf an instruction defines is a logical buffer with a live range in schedule
positions: from its definition to the last instruction that reads it. A read by an
instruction that is emitted inside a consumer's loop ("inlined", implicit fusion) happens
where that consumer is emitted. Buffers whose ranges do not overlap share memory: they are
packed into ONE preallocated temp arena, first fit in definition order (XLA's heap
simulator idea). Leaves of the root are written straight into the caller's output buffers
when they can be (else copied at the end); an in-place instruction (dynamic-update-slice,
or a fusion whose root updates one of its parameters) shares its operand's buffer when it is that buffer's only and last reader; a donated entry
parameter (input_output_alias) becomes the memory of the output it aliases when it is dead by
the time that output is defined.

Aliasing instructions (tuple, get-tuple-element, bitcast, ...) define nothing: their leaves
are their operands' leaves.

Concurrent sets (codegen/concurrent.py: kernels run at the same time by one parallel_for) are
contiguous in the order and occupy ONE schedule position: every member's buffers and scratch
are defined there and every operand is read there, so like the buffers of one instruction they
never share memory with each other (outputs, scratch, and the operands another member still
reads), and nothing dies before the whole set is done.
"""
from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hlotools.ir.instruction import Instruction

ALIGN = 64
INF = 1 << 60


@dataclass(frozen=True)
class Leaf:
    """Where one array leaf of a value comes from."""

    kind: str  # 'buffer' | 'param' | 'const' | 'none' (tokens, empty)
    index: int = 0  # buffer id, or flat parameter leaf number
    inst: Instruction | None = None  # the constant


@dataclass
class Location:
    kind: str  # 'arena' | 'output' | 'param'
    offset: int = 0  # bytes into the arena, or output / flat parameter leaf number


@dataclass
class LogicalBuffer:
    id: int
    inst: Instruction
    leaf: int
    size: int
    start: int
    end: int
    readers: list[Instruction] = field(default_factory=list)


@dataclass
class BufferPlan:
    buffers: list[LogicalBuffer]
    leaves: dict[int, list[Leaf]]  # id(inst) -> its leaves
    location: dict[int, Location]  # buffer id -> location
    scratch: dict[int, list[int]]  # id(inst) -> arena offsets of its scratch buffers
    output_copies: list[tuple[int, Leaf]]  # (output leaf, source) copied at the end
    arena_bytes: int  # peak bytes of this computation's own temporaries
    in_place: set[int] = field(default_factory=set)  # id(inst) sharing its operand's buffer
    alias_safe: set[int] = field(default_factory=set)  # result leaves that may be their param leaf

    def buffer_location(self, inst: Instruction, leaf: int = 0) -> Location | None:
        lf = self.leaves[id(inst)][leaf]
        return self.location.get(lf.index) if lf.kind == "buffer" else None


@dataclass
class Classifier:
    """What the compiler decided per instruction (buffers.py stays opcode-agnostic)."""

    kind: Callable[[Instruction], str]  # 'param' | 'const' | 'alias' | 'inline' | 'define'
    alias_leaves: Callable[[Instruction, list[list[Leaf]]], list[Leaf]]
    leaf_sizes: Callable[[Instruction], list[int]]
    scratch: Callable[[Instruction], list[int]]
    in_place_operand: Callable[[Instruction], int | None]
    param_leaf_base: Callable[[Instruction], int]
    # Result leaf -> flat parameter leaf whose memory the caller may pass as that result
    # (while bodies: k -> k; the entry: input_output_alias). Only pairs of identical shapes.
    param_alias: dict[int, int] = field(default_factory=dict)


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def assign(order: list[Instruction], root: Instruction, cls: Classifier,
           concurrent: Sequence[Sequence[Instruction]] = ()) -> BufferPlan:
    pos = schedule_positions(order, concurrent)
    buffers: list[LogicalBuffer] = []
    leaves: dict[int, list[Leaf]] = {}
    kinds = {id(inst): cls.kind(inst) for inst in order}
    for inst in order:
        leaves[id(inst)] = _leaves_of(inst, kinds[id(inst)], pos[id(inst)], leaves, buffers, cls)
    emit_pos = _emit_positions(order, kinds, pos)
    param_readers: dict[int, list[tuple[int, Instruction]]] = {}
    for inst in order:
        if kinds[id(inst)] == "alias":
            continue
        for op in inst.operands:
            for lf in leaves.get(id(op), []):
                if lf.kind == "buffer":
                    b = buffers[lf.index]
                    b.end = max(b.end, emit_pos[id(inst)])
                    b.readers.append(inst)
                elif lf.kind == "param":
                    param_readers.setdefault(lf.index, []).append((emit_pos[id(inst)], inst))
    root_leaves = leaves[id(root)]
    for lf in root_leaves:
        if lf.kind == "buffer":
            buffers[lf.index].end = INF
    group = list(range(len(buffers)))

    def find(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    in_place = _share_in_place(order, leaves, buffers, pos, kinds, cls, find, group)
    location: dict[int, Location] = {}
    output_copies = _place_outputs(root_leaves, buffers, find, location)
    alias_safe: set[int] = set()
    if cls.param_alias:
        alias_safe = _alias_safe_leaves(root_leaves, buffers, find, location, param_readers, output_copies,
                                        leaves, in_place, cls.param_alias, cls.in_place_operand)
    arena, scratch = _pack_arena(order, buffers, find, location, pos, cls)
    for b in buffers:
        location[b.id] = location[find(b.id)]
    return BufferPlan(buffers, leaves, location, scratch, output_copies, arena, in_place, alias_safe)


def schedule_positions(order: list[Instruction], concurrent: Sequence[Sequence[Instruction]] = ()
                       ) -> dict[int, int]:
    """id(inst) -> schedule position; the members of a concurrent set share one."""
    set_of = {id(i): k for k, s in enumerate(concurrent) for i in s}
    pos: dict[int, int] = {}
    p = -1
    prev: int | None = None
    seen: set[int] = set()
    for inst in order:
        k = set_of.get(id(inst))
        if k is None or k != prev:
            if k is not None and k in seen:
                raise ValueError(f"concurrent set {k} (%{inst.name}) is not contiguous in the order")
            p += 1
        if k is not None:
            seen.add(k)
        prev = k
        pos[id(inst)] = p
    return pos


def _alias_safe_leaves(root_leaves: list[Leaf], buffers: list[LogicalBuffer], find: Callable[[int], int],
                       location: dict[int, Location], param_readers: dict[int, list[tuple[int, Instruction]]],
                       output_copies: list[tuple[int, Leaf]], leaves: dict[int, list[Leaf]],
                       in_place: set[int], param_alias: dict[int, int],
                       in_place_operand: Callable[[Instruction], int | None]) -> set[int]:
    """Result leaves k that may be written into the memory of parameter leaf param_alias[k]:
    a pass-through (the result is that parameter itself), or a result whose first write
    comes after every read of the parameter — except an in-place instruction (a
    dynamic-update-slice, or a fusion whose root is one: Classifier.in_place_operand) of the
    parameter that is its only reader, which then updates it in place (the scan / KV-cache
    pattern).
    The generated code stays correct when the caller passes distinct memory anyway (it copies
    when the pointers differ), so aliasing is purely an optimisation."""
    copied = {lf.index for _, lf in output_copies if lf.kind == "param"}
    targets = list(param_alias.values())
    safe: set[int] = set()
    for k, i in param_alias.items():
        if k >= len(root_leaves) or targets.count(i) != 1:
            continue
        lf = root_leaves[k]
        if lf == Leaf("param", i):
            if sum(1 for o in root_leaves if o == lf) == 1:
                safe.add(k)
            continue
        if lf.kind != "buffer" or i in copied:
            continue
        g = find(lf.index)
        loc = location.get(g)
        if loc is None or loc.kind != "output" or loc.offset != k:
            continue
        members = [b for b in buffers if find(b.id) == g]
        first = min(members, key=lambda b: b.start)
        readers = param_readers.get(i, [])
        upd = first.inst
        j = in_place_operand(upd)
        if all(p < first.start for p, _ in readers):
            safe.add(k)
        elif (j is not None and len(readers) == 1 and readers[0][1] is upd
              and leaves[id(upd.operands[j])] == [Leaf("param", i)]):
            safe.add(k)
            in_place.add(id(upd))  # its operand's memory is (normally) the output: copy only if not
    return safe


def _leaves_of(inst: Instruction, kind: str, p: int, leaves: dict[int, list[Leaf]],
               buffers: list[LogicalBuffer], cls: Classifier) -> list[Leaf]:
    if kind == "param":
        base = cls.param_leaf_base(inst)
        return [Leaf("param", base + i) for i in range(len(inst.shape.leaves()))]
    if kind == "const":
        return [Leaf("const", 0, inst)]
    if kind == "alias":
        return cls.alias_leaves(inst, [leaves[id(op)] for op in inst.operands])
    if kind == "inline":
        return []
    out = []
    for i, size in enumerate(cls.leaf_sizes(inst)):
        if size <= 0:
            out.append(Leaf("none"))
            continue
        buffers.append(LogicalBuffer(len(buffers), inst, i, size, p, p))
        out.append(Leaf("buffer", len(buffers) - 1))
    return out


def _emit_positions(order: list[Instruction], kinds: dict[int, str], pos: dict[int, int]) -> dict[int, int]:
    """Where each instruction's reads happen: its own position, or for an inlined one the
    latest position of the consumers it is emitted into."""
    out: dict[int, int] = {}
    for inst in reversed(order):
        p = pos[id(inst)]
        if kinds[id(inst)] == "inline":
            users = [out[id(u)] for u in inst.users if id(u) in out]
            p = max(users, default=p)
        out[id(inst)] = p
    return out


def _share_in_place(order: list[Instruction], leaves: dict[int, list[Leaf]], buffers: list[LogicalBuffer],
                    pos: dict[int, int], kinds: dict[int, str], cls: Classifier,
                    find: Callable[[int], int], group: list[int]) -> set[int]:
    shared: set[int] = set()
    for inst in order:
        if kinds[id(inst)] != "define":
            continue
        k = cls.in_place_operand(inst)
        if k is None:
            continue
        src = leaves[id(inst.operands[k])]
        dst = leaves[id(inst)]
        if len(src) != 1 or len(dst) != 1 or src[0].kind != "buffer" or dst[0].kind != "buffer":
            continue
        sb, db = buffers[src[0].index], buffers[dst[0].index]
        if sb.end != pos[id(inst)] or sb.size != db.size or any(r is not inst for r in sb.readers):
            continue
        if any(src[0] in leaves.get(id(op), []) for j, op in enumerate(inst.operands) if j != k):
            continue  # the same buffer is also another operand (e.g. through a bitcast): not in place
        group[find(db.id)] = find(sb.id)
        shared.add(id(inst))
    return shared


def _place_outputs(root_leaves: list[Leaf], buffers: list[LogicalBuffer], find: Callable[[int], int],
                   location: dict[int, Location]) -> list[tuple[int, Leaf]]:
    copies: list[tuple[int, Leaf]] = []
    groups_used: dict[int, int] = {}
    counts: dict[int, int] = {}
    for lf in root_leaves:
        if lf.kind == "buffer":
            counts[find(lf.index)] = counts.get(find(lf.index), 0) + 1
    for j, lf in enumerate(root_leaves):
        if lf.kind == "buffer" and counts[find(lf.index)] == 1:
            g = find(lf.index)
            groups_used[g] = j
            location[g] = Location("output", j)
        elif lf.kind != "none":
            copies.append((j, lf))
    return copies


def _pack_arena(order: list[Instruction], buffers: list[LogicalBuffer], find: Callable[[int], int],
                location: dict[int, Location], pos: dict[int, int], cls: Classifier
                ) -> tuple[int, dict[int, list[int]]]:
    """First fit in start order over live intervals; returns (peak bytes, scratch offsets)."""
    spans: dict[int, list[int]] = {}  # group -> [start, end, size]
    for b in buffers:
        g = find(b.id)
        if g in location:
            continue
        s = spans.setdefault(g, [b.start, b.end, 0])
        s[0], s[1], s[2] = min(s[0], b.start), max(s[1], b.end), max(s[2], b.size)
    items: list[tuple[int, int, int, tuple[str, int, int]]] = [
        (s[0], s[1], _align(s[2]), ("group", g, 0)) for g, s in spans.items()]
    for inst in order:
        for k, size in enumerate(cls.scratch(inst)):
            p = pos[id(inst)]
            items.append((p, p, _align(size), ("scratch", id(inst), k)))
    items.sort(key=lambda t: (t[0], -t[2]))
    offsets, peak = first_fit([(start, end, size) for start, end, size, _ in items])
    scratch: dict[int, dict[int, int]] = {}
    for (_, _, _, (what, key, k)), offset in zip(items, offsets):
        if what == "group":
            location[key] = Location("arena", offset)
        else:
            scratch.setdefault(key, {})[k] = offset
    return peak, {key: [d[k] for k in sorted(d)] for key, d in scratch.items()}


def first_fit(items: list[tuple[int, int, int]]) -> tuple[list[int], int]:
    """Offsets for live intervals (start, end, size), taken in the order given, each at the
    lowest offset that overlaps no interval still live at its start; and the peak bytes.

    The live intervals are kept sorted by offset, with a heap of them by end: a training step
    keeps its forward activations live for the backward, so re-filtering and re-sorting all of
    them per buffer made the arena quadratic in depth."""
    active: list[tuple[int, int, int]] = []  # (offset, size, end), sorted
    ending: list[tuple[int, tuple[int, int, int]]] = []  # (end, its active entry), a heap
    offsets: list[int] = []
    peak = 0
    for start, end, size in items:
        while ending and ending[0][0] < start:
            gone = heapq.heappop(ending)[1]
            del active[bisect.bisect_left(active, gone)]
        offset = 0
        for a_off, a_size, _ in active:
            if a_off - offset >= size:
                break
            if a_off + a_size > offset:  # (max() without the call: this loop is the packer's time)
                offset = a_off + a_size
        entry = (offset, size, end)
        bisect.insort(active, entry)
        heapq.heappush(ending, (end, entry))
        offsets.append(offset)
        peak = max(peak, offset + size)
    return offsets, peak
