"""Kernel counts and the computations fusion works on.

A *kernel* is what a backend launches as one loop nest: a fusion, or an unfused non-trivial
instruction (anything but parameter, constant, tuple, get-tuple-element and bitcast, which
define no new buffer contents; nor a transpose whose layout makes it the same bytes). Only control-flow computations are counted — the entry, while
bodies and conditions, conditional branches, called computations — not the embedded bodies of
fusions, reductions, sorts or maps, which run inside a kernel. bench/passes.py and
bench/fusion.py call `kernel_count` on our -O2 output and on XLA's NAME.xla_opt.hlo.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import CONTROL_FLOW, OPCODES, computation_attributes
from hlotools.ir.rewriter import Rewriter

# No kernel of their own: sources and the pass-through ops, except opt-barrier, domain and
# add-dependency, which the fusion log has always counted as kernels (the counts stay comparable).
TRIVIAL = (frozenset(n for n, i in OPCODES.items() if i.passthrough) - {"opt-barrier", "domain", "add-dependency"}
           | {"parameter", "constant"})


def is_free_transpose(inst: Instruction) -> bool:
    """A transpose whose layout is its operand's permuted moves no data (a bitcast, really)."""
    if inst.opcode != "transpose":
        return False
    from hlotools.passes.layout_assignment import is_free_transpose as free

    return free(inst)
# Attributes through which control flow (not an embedded computation) is reached.
CONTROL_FLOW_ATTRS = {n: computation_attributes(n) for n, i in OPCODES.items() if i.calls == CONTROL_FLOW}


@dataclass(frozen=True)
class KernelCount:
    """How many kernels a computation runs (fusions and unfused instructions), for the fusion log."""
    fusions: int
    unfused: int
    by_opcode: tuple[tuple[str, int], ...]  # unfused kernels per opcode, most frequent first

    @property
    def total(self) -> int:
        return self.fusions + self.unfused


def control_flow_computations(module: Module) -> list[Computation]:
    """The entry and the computations control flow reaches from it, in module order."""
    if module.entry is None:
        return [c for c in module.computations if not c.is_fusion_computation]
    seen = {id(module.entry)}
    stack = [module.entry]
    while stack:
        comp = stack.pop()
        for inst in comp.instructions:
            for attr in CONTROL_FLOW_ATTRS.get(inst.opcode, ()):
                value = inst.attrs.get(attr)
                for callee in value if isinstance(value, tuple) else (value,):
                    if isinstance(callee, Computation) and id(callee) not in seen:
                        seen.add(id(callee))
                        stack.append(callee)
    return [c for c in module.computations if id(c) in seen]


def kernel_counts(module: Module) -> KernelCount:
    fusions = 0
    unfused: Counter[str] = Counter()
    for comp in control_flow_computations(module):
        for inst in comp.instructions:
            if inst.opcode == "fusion":
                fusions += 1
            elif inst.opcode not in TRIVIAL and not is_free_transpose(inst):
                unfused[inst.opcode] += 1
    return KernelCount(fusions, sum(unfused.values()), tuple(unfused.most_common()))


def kernel_count(module: Module) -> int:
    """Fusions + unfused non-trivial instructions in the control-flow computations."""
    return kernel_counts(module).total


def fusion_bodies(module: Module) -> set[int]:
    """ids of the computations some fusion instruction calls."""
    out: set[int] = set()
    for comp in module.computations:
        for inst in comp.instructions:
            if inst.opcode == "fusion":
                body = inst.attrs.get("calls")
                if isinstance(body, Computation):
                    out.add(id(body))
    return out


def unused_fusion_computations(module: Module) -> set[int]:
    """ids of fused computations no fusion calls (dead before a pass: not the pass's to remove)."""
    called = fusion_bodies(module)
    return {id(c) for c in module.computations if c.is_fusion_computation and id(c) not in called}


def remove_unused_fusion_computations(rw: Rewriter, unused_before: set[int]) -> int:
    """Delete the fused computations a pass left uncalled (those in `unused_before` were so
    already and stay)."""
    called = fusion_bodies(rw.module)
    dead = [c for c in rw.module.computations
            if c.is_fusion_computation and id(c) not in called and id(c) not in unused_before]
    return rw.remove_computations(dead) if dead else 0
