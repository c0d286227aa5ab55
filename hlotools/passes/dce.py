"""Dead code elimination (XLA's HloDCE, pass name `dce`).

An instruction is dead when it is not the root, has no users, is not a parameter, is not a
control predecessor of anything, and has no side effects (the opcode table, custom-calls marked
`custom_call_has_side_effect=true`, or a called computation — a while body, say — containing
such an op), and is not a while loop marked xla_disable_while_loop_dce. Removal is
transitive: walking the textual (topological) order backwards decides every user before its
operands, so one sweep finds everything that is dead, however deep.
Afterwards the computations the entry no longer reaches are deleted.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter, reachable_computations
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.side_effects import SideEffects, disables_while_dce


@dataclass
class HloDCE(HloPass):
    """XLA's HloDCE: removes instructions and computations nothing uses."""
    name = "dce"
    description = "remove dead instructions (no users, no side effects) and unreachable computations"

    remove_unreachable_computations: bool = True

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        effects = SideEffects()
        for comp in list(module.computations):
            remove_dead_instructions(rw, comp, ctx, effects)
        if self.remove_unreachable_computations:
            remove_dead_computations(rw, module, ctx)
        return rw.changed


def _control_successor_ids(comp: Computation) -> set[int]:
    out: set[int] = set()
    for inst in comp.instructions:
        for pred in inst.control_predecessors:
            out.add(id(pred))
    return out


def _removable(inst: Instruction, comp: Computation, pinned: set[int], effects: SideEffects) -> bool:
    return (inst is not comp.root and inst.opcode != "parameter" and id(inst) not in pinned
            and not effects.instruction(inst) and not disables_while_dce(inst))


def remove_dead_instructions(rw: Rewriter, comp: Computation, ctx: PassContext | None = None,
                             effects: SideEffects | None = None) -> int:
    """Remove every dead instruction of `comp` in one backward sweep; returns how many."""
    effects = effects or SideEffects()
    pinned = _control_successor_ids(comp)
    dead: set[int] = set()
    order = comp.instructions
    for inst in reversed(order):
        if not all(id(u) in dead for u in inst.users):
            continue
        if not _removable(inst, comp, pinned, effects):
            continue
        if ctx is not None and not ctx.consume_fuel(f"remove {inst.name}"):
            continue
        dead.add(id(inst))
    if not dead:
        return 0
    if ctx is not None:
        ctx.decision("removed %d dead instructions from %s", len(dead), comp.name)
    return rw.remove_instructions(comp, [i for i in order if id(i) in dead])


def remove_dead_from(rw: Rewriter, comp: Computation, seeds: Iterable[Instruction],
                     effects: SideEffects | None = None) -> int:
    """Remove `seeds` that became dead after a replacement, and operands that die with them.

    XLA's ReplaceInstruction/RemoveInstructionAndUnusedOperands: only what the rewrite made
    dead goes, pre-existing dead code stays (that is DCE's job). Linear in what is removed."""
    effects = effects or SideEffects()
    pinned = _control_successor_ids(comp) if any(i.control_predecessors for i in comp.instructions) else set()
    dead: dict[int, Instruction] = {}
    stack = list(seeds)
    while stack:
        inst = stack.pop()
        if id(inst) in dead or inst.parent is not comp:
            continue
        if not all(id(u) in dead for u in inst.users) or not _removable(inst, comp, pinned, effects):
            continue
        dead[id(inst)] = inst
        stack.extend(inst.operands)
    if not dead:
        return 0
    return rw.remove_instructions(comp, dead.values())


def remove_dead_computations(rw: Rewriter, module: Module, ctx: PassContext | None = None) -> int:
    """Delete computations the entry does not reach (directly or through other computations)."""
    if module.entry is None:
        return 0
    live = {id(c) for c in reachable_computations(module)}
    dead = [c for c in module.computations if id(c) not in live]
    if ctx is not None:
        dead = [c for c in dead if ctx.consume_fuel(f"remove computation {c.name}")]
    if not dead:
        return 0
    return rw.remove_computations(dead)
