"""The call graph as the call-related passes need it (XLA's CallGraph, the parts we use).

A call site is an instruction calling a computation, in one of two contexts (XLA's
CallContext): control flow (`call`, `while`, `conditional`, async ops: the callee runs as a
sequence of instructions) or embedded (`reduce`, `map`, `sort`, `fusion`, `scatter`, ...:
the callee is applied as a scalar function or fused body).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import CONTROL_FLOW, EMBEDDED, OPCODES


def call_context(inst: Instruction) -> str:
    info = OPCODES.get(inst.opcode)
    return CONTROL_FLOW if info is not None and info.calls == CONTROL_FLOW else EMBEDDED


@dataclass
class CallGraph:
    """The call sites of every computation (by id of the callee)."""
    module: Module
    callers: dict[int, list[Instruction]] = field(default_factory=dict)  # id(callee) -> call sites

    @staticmethod
    def build(module: Module) -> CallGraph:
        graph = CallGraph(module)
        for comp in module.computations:
            for inst in comp.instructions:
                for callee in inst.called_computations():
                    graph.callers.setdefault(id(callee), []).append(inst)
        return graph

    def call_sites(self, comp: Computation) -> list[Instruction]:
        return self.callers.get(id(comp), [])

    def context(self, comp: Computation) -> str:
        """'control-flow', 'embedded', 'both' or 'none' (the entry / unreachable)."""
        kinds = {call_context(i) for i in self.call_sites(comp)}
        if not kinds:
            return "none"
        return "both" if len(kinds) == 2 else kinds.pop()


def callees_first(module: Module) -> list[Computation]:
    """Every computation after all computations it calls (XLA's VisitNodes post-order);
    computations nothing calls are roots of the walk, the entry last."""
    order: list[Computation] = []
    seen: set[int] = set()
    roots = [c for c in module.computations if c is not module.entry]
    if module.entry is not None:
        roots.append(module.entry)
    for start in roots:
        if id(start) in seen:
            continue
        seen.add(id(start))
        stack: list[tuple[Computation, list[Computation]]] = [(start, _callees(start))]
        while stack:
            comp, pending = stack[-1]
            if pending:
                nxt = pending.pop()
                if id(nxt) not in seen:
                    seen.add(id(nxt))
                    stack.append((nxt, _callees(nxt)))
            else:
                stack.pop()
                order.append(comp)
    return order


def _callees(comp: Computation) -> list[Computation]:
    out: list[Computation] = []
    for inst in comp.instructions:
        out.extend(inst.called_computations())
    out.reverse()  # popped from the end: visit in textual order
    return out
