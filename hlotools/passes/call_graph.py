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
