"""Instruction scheduling (XLA's HloMemoryScheduler with its ListScheduler; pass `scheduling`).

Each non-fusion computation is re-ordered by a greedy list scheduler that lowers peak live
memory: among the ready instructions it picks the one that frees the most bytes net of what it
defines (XLA's ListScheduler priority), breaking ties by the DFS post order from the root, so
the result depends on the graph only, not on the text's order (which makes the pass
idempotent). The new order is kept only when its simulated peak is lower than the old one's;
the module is marked `is_scheduled=true` (printed in the header, as XLA does).

Memory model (the one `peak_bytes` simulates): every instruction defines a buffer of its
shape's byte size, freed after its last user runs; parameters and constants are live
throughout (they belong to the caller / the executable), the root until the end;
get-tuple-element, bitcast and tuple alias their operands, which stay live as long as the
alias does (a tuple's own pointer table counts 8 bytes per element).

Parallel groups: `parallel_groups(comp)` splits a computation into ASAP levels: level 0 has the
instructions without operands in the computation, level k those whose latest operand is at
level k-1. Instructions of one level are independent of each other, so a backend may run each
level's kernels concurrently once the previous levels are done. The pass records them per
computation in `SCHEDULE_GROUPS` (a weak map from Computation to the list of levels, each in
schedule order); a backend reads `groups_for(comp)`, which recomputes them when the pass did
not run or the computation changed since.
"""
from __future__ import annotations

import heapq
import logging
import weakref
from dataclasses import dataclass

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction, unique
from hlotools.ir.module import Module
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.rewriter import Rewriter
from hlotools.passes.base import HloPass, PassContext

# Results that are their operands' buffers: the pass-through ops, except opt-barrier, domain and
# add-dependency, which this estimate counts as buffers of their own (XLA's dataflow forwards
# them too; they are rare where memory is scheduled, and counting them keeps the schedules).
ALIASES = frozenset(n for n, i in OPCODES.items() if i.passthrough) - {"opt-barrier", "domain", "add-dependency"}
ALWAYS_LIVE = frozenset(["parameter", "constant"])
# Computation -> (instruction ids in order, groups as positions in that order): the pass's
# annotation for backends. Positions, not the instructions: a value holding the instructions
# (whose `parent` is the key) kept every scheduled module alive for the process's life.
SCHEDULE_GROUPS: weakref.WeakKeyDictionary[Computation, tuple[tuple[int, ...], list[list[int]]]] = \
    weakref.WeakKeyDictionary()
log = logging.getLogger("hlotools.passes")


@dataclass
class Scheduling(HloPass):
    """A memory-minimising list schedule of every computation (see the module docstring)."""
    name = "scheduling"
    description = "memory-minimising list schedule of every computation; is_scheduled=true; parallel groups"

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        total_before = total_after = 0
        for comp in module.computations:
            if comp.is_fusion_computation or not comp.instructions:
                continue
            before = peak_bytes(comp, comp.instructions)
            order = list_schedule(comp)
            after = peak_bytes(comp, order)
            if after < before:
                rw.set_instruction_order(comp, order)
                ctx.decision("%s: peak live memory %d -> %d bytes", comp.name, before, after)
            else:
                after = before
                ctx.decision("%s: kept the order (peak %d bytes, the list schedule is not lower)", comp.name, before)
            if comp is module.entry:
                total_before, total_after = before, after
            groups = parallel_groups(comp)
            place = {id(i): k for k, i in enumerate(comp.instructions)}
            SCHEDULE_GROUPS[comp] = (tuple(place), [[place[id(i)] for i in g] for g in groups])
            if groups:
                ctx.decision("%s: %d parallel groups, widest %d", comp.name, len(groups), max(len(g) for g in groups))
        log.info("scheduling: entry peak live memory %d -> %d bytes", total_before, total_after)
        rw.set_module_attr("is_scheduled", True)
        return rw.changed


# -- the memory model ----------------------------------------------------------------------
def buffer_bytes(inst: Instruction) -> int:
    if inst.opcode in ("get-tuple-element", "bitcast") or inst.opcode in ALWAYS_LIVE:
        return 0
    return inst.shape.byte_size()


class _Liveness:
    """Reference counts of one computation's buffers while an order is played out."""

    def __init__(self, comp: Computation) -> None:
        self.comp = comp
        self.local = {id(i) for i in comp.instructions}
        self.refs: dict[int, int] = {}
        for inst in comp.instructions:
            self.refs[id(inst)] = sum(1 for u in unique(inst.users) if id(u) in self.local)
        self.live = sum(i.shape.byte_size() for i in comp.instructions if i.opcode in ALWAYS_LIVE)

    def run(self, inst: Instruction) -> int:
        """Schedule `inst`: define its buffer, release operands it was the last user of.
        Returns the live bytes while `inst` runs (its operands and its result together)."""
        self.live += buffer_bytes(inst)
        high = self.live
        if inst.opcode not in ALIASES:
            for o in unique(inst.operands):
                self._release(o)
        if self.refs[id(inst)] == 0:
            self._free(inst)
        return high

    def _release(self, o: Instruction) -> None:
        if id(o) not in self.local:
            return
        self.refs[id(o)] -= 1
        if self.refs[id(o)] == 0:
            self._free(o)

    def _free(self, inst: Instruction) -> None:
        if inst is self.comp.root or inst.opcode in ALWAYS_LIVE:
            return
        self.live -= buffer_bytes(inst)
        if inst.opcode in ALIASES:
            for o in unique(inst.operands):
                self._release(o)


def peak_bytes(comp: Computation, order: list[Instruction]) -> int:
    """Peak live bytes of `comp` executed in `order` (the model in the module docstring)."""
    lv = _Liveness(comp)
    peak = lv.live
    for inst in order:
        peak = max(peak, lv.run(inst))
    return peak


# -- the list scheduler ----------------------------------------------------------------------
def canonical_order(comp: Computation) -> list[Instruction]:
    """DFS post order from the root (operands in order), then what the root does not reach."""
    order: list[Instruction] = []
    seen: set[int] = set()
    starts = ([comp.root] if comp.root is not None else []) + list(comp.instructions)
    for start in starts:
        if id(start) in seen:
            continue
        seen.add(id(start))
        stack: list[tuple[Instruction, int]] = [(start, 0)]
        while stack:
            inst, i = stack.pop()
            deps = inst.operands + inst.control_predecessors
            if i < len(deps):
                stack.append((inst, i + 1))
                d = deps[i]
                if id(d) not in seen and d.parent is comp:
                    seen.add(id(d))
                    stack.append((d, 0))
            else:
                order.append(inst)
    return order


def list_schedule(comp: Computation) -> list[Instruction]:
    """Parameters first (by number), then greedily the ready instruction freeing the most
    bytes net of what it defines; O(n log n) with a lazily updated heap."""
    rank = {id(i): n for n, i in enumerate(canonical_order(comp))}
    local = set(rank)
    succs: dict[int, list[Instruction]] = {id(i): [] for i in comp.instructions}
    pending: dict[int, int] = {}
    for inst in comp.instructions:
        deps = unique([d for d in inst.operands + inst.control_predecessors if id(d) in local])
        pending[id(inst)] = len(deps)
        for d in deps:
            succs[id(d)].append(inst)
    lv = _Liveness(comp)
    scheduled: set[int] = set()
    heap: list[tuple[int, int, int]] = []
    version: dict[int, int] = {}
    by_id = {id(i): i for i in comp.instructions}

    def priority(inst: Instruction) -> int:
        freed = 0
        if inst.opcode not in ALIASES:
            for o in unique(inst.operands):
                if id(o) in local and lv.refs[id(o)] == 1 and o is not comp.root and o.opcode not in ALIASES:
                    freed += buffer_bytes(o)
        return freed - buffer_bytes(inst)

    def push(inst: Instruction) -> None:
        v = version.get(id(inst), 0) + 1
        version[id(inst)] = v
        heapq.heappush(heap, (-priority(inst), rank[id(inst)], v))

    def boost(o: Instruction) -> None:
        """`o` has one user left: that user now frees `o`, its priority rises."""
        for u in o.users:
            if id(u) in local and id(u) not in scheduled and pending[id(u)] == 0:
                push(u)

    order: list[Instruction] = []

    def take(inst: Instruction) -> None:
        scheduled.add(id(inst))
        order.append(inst)
        before = {id(o): lv.refs[id(o)] for o in inst.operands if id(o) in local}
        lv.run(inst)
        for oid, refs in before.items():
            if refs == 2 and lv.refs[oid] == 1:
                boost(by_id[oid])
        for s in succs[id(inst)]:
            pending[id(s)] -= 1
            if pending[id(s)] == 0 and s.opcode != "parameter":
                push(s)

    rank_of_id = {v: k for k, v in rank.items()}
    for p in sorted((i for i in comp.instructions if i.opcode == "parameter"),
                    key=lambda i: (i.parameter_number or 0, rank[id(i)])):
        take(p)
    for inst in comp.instructions:
        if pending[id(inst)] == 0 and inst.opcode != "parameter" and id(inst) not in scheduled:
            push(inst)
    while heap:
        _, r, v = heapq.heappop(heap)
        inst = by_id[rank_of_id[r]]
        if id(inst) in scheduled or version[id(inst)] != v:
            continue
        take(inst)
    assert len(order) == len(comp.instructions), f"{comp.name}: the dependence graph has a cycle"
    return order


# -- parallel groups ---------------------------------------------------------------------------
def parallel_groups(comp: Computation) -> list[list[Instruction]]:
    """ASAP levels of `comp` (see the module docstring), each in the computation's order."""
    local = {id(i) for i in comp.instructions}
    level: dict[int, int] = {}
    groups: list[list[Instruction]] = []
    for inst in comp.instructions:  # a topological order
        deps = [level[id(d)] for d in inst.operands + inst.control_predecessors if id(d) in local and id(d) in level]
        lv = 1 + max(deps) if deps else 0
        level[id(inst)] = lv
        while len(groups) <= lv:
            groups.append([])
        groups[lv].append(inst)
    return groups


def groups_for(comp: Computation) -> list[list[Instruction]]:
    """The parallel groups the pass recorded for `comp`, recomputed if `comp` changed since."""
    cached = SCHEDULE_GROUPS.get(comp)
    if cached is not None and cached[0] == tuple(id(i) for i in comp.instructions):
        return [[comp.instructions[k] for k in g] for g in cached[1]]
    return parallel_groups(comp)
