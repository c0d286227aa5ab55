"""`algsimp`: XLA's AlgebraicSimplifier — local rewrites that make a module smaller or cheaper.

The rules live in algsimp_arith.py, algsimp_logic.py, algsimp_shape.py and algsimp_reduce.py,
grouped per opcode and registered in algsimp_core.RULES. This file is the driver: a worklist
per computation, seeded in textual (topological) order; when a rule replaces an instruction,
the instructions it built and the users of the replacement go back on the worklist, so one
run reaches a fixed point (a second run changes nothing) and the work stays proportional to
the rewrites made — a 100k-instruction module is never rescanned per rewrite.

Floating point follows XLA: rewrites XLA never makes on floats (x*0, x-x, ...) are limited to
integers, the fast-math ones XLA gates behind `enable_fast_math` sit behind the same option,
and the ones XLA CPU makes although they change float results (A / Const => A * (1/Const),
constant reassociation, exp(A)*exp(B) => exp(A+B), ...; algsimp_inexact.py) are taken under
the xla-cpu semantics only: under `spec` algsimp keeps every float value.

`algsimp-inexact` is that last group alone: the interpreter runs it on a copy of the module
(evaluator.py), so evaluating an unoptimised module gives XLA CPU's values too.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from hlotools.ir import semantics
from hlotools.ir.computation import Computation
from hlotools.ir.dispatch import RuleTable
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.passes import (  # noqa: F401  (importing registers the rules)
    algsimp_arith,
    algsimp_inexact,
    algsimp_logic,
    algsimp_reduce,
    algsimp_shape,
)
from hlotools.passes.algsimp_core import INEXACT_RULES, RULES, Builder, Rule, inherit_attrs, same_shape
from hlotools.passes.base import HloPass, PassContext


@dataclass
class AlgebraicSimplifier(HloPass):
    name = "algsimp"
    description = "algebraic simplification: x+0, x*1, reshape/transpose/slice/concat identities, ..."

    enable_fast_math: bool = False  # XLA's option: log(exp(x)) -> x even under spec semantics
    max_rewrites_per_instruction: int = 16  # loop guard: a buggy rule pair cannot hang the pass
    # XLA CPU's float-changing rewrites (algsimp_inexact.py); None: under the xla-cpu semantics.
    inexact: bool | None = None

    def rules(self) -> RuleTable[Rule]:
        return RULES

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        rewrites = 0
        inexact = semantics.xla_cpu() if self.inexact is None else self.inexact
        for comp in list(module.computations):
            if comp.is_fusion_computation:
                continue  # XLA simplifies only non-fusion computations
            rewrites += _ComputationSimplifier(self, rw, ctx, comp, inexact).run()
            if ctx.out_of_fuel:
                break
        # Not rw.changed: a rule whose result was refused (shape, fuel) built and dropped
        # helpers, which leaves the module as it was.
        return rewrites > 0


@dataclass
class InexactAlgebraicSimplifier(AlgebraicSimplifier):
    """Only algsimp's float-changing rules (INEXACT_RULES), under the xla-cpu semantics: what
    the interpreter needs to give XLA CPU's values for a module that no pass has touched."""
    name = "algsimp-inexact"
    description = "XLA CPU's float-changing algsimp rewrites alone (A / Const => A * (1/Const), ...)"

    def rules(self) -> RuleTable[Rule]:
        return INEXACT_RULES


class _ComputationSimplifier:
    """The worklist state for one computation."""

    def __init__(self, options: AlgebraicSimplifier, rw: Rewriter, ctx: PassContext,
                 comp: Computation, inexact: bool) -> None:
        self.options = options
        self.rules = options.rules()
        self.inexact = inexact
        self.rw = rw
        self.ctx = ctx
        self.comp = comp
        self.dead: set[int] = set()
        self.dead_list: list[Instruction] = []
        self.created: list[Instruction] = []
        self.stack: list[Instruction] = []
        self.queued: set[int] = set()
        self.log_decisions = ctx.logger.isEnabledFor(logging.DEBUG)
        # Instructions other instructions must follow: XLA does not replace those.
        self.control_preds = {id(p) for i in comp.instructions for p in i.control_predecessors}
        self.builder = Builder(rw, comp, None, options, inexact)  # type: ignore[arg-type]  # anchored per visit

    def run(self) -> int:
        """Simplify to a fixed point; returns the number of rewrites made."""
        rewrites = 0
        stack = self.stack = list(reversed(self.comp.instructions))
        queued = self.queued = {id(i) for i in stack}
        budget = self.options.max_rewrites_per_instruction * len(stack) + 1000
        while stack:
            inst = stack.pop()
            queued.discard(id(inst))
            if id(inst) in self.dead or inst.opcode not in self.rules:
                continue
            step = self._simplify(inst)
            if step is None:
                if self.ctx.out_of_fuel:
                    break
                continue
            replacement, built = step
            rewrites += 1
            budget -= 1
            if budget < 0:
                self.ctx.logger.warning("algsimp: rewrite budget exhausted in %s; stopping", self.comp.name)
                break
            # Users first, then the new instructions (operands before users) on top.
            for user in reversed(replacement.users):
                self._push(user)
            for new in reversed(built):
                self._push(new)
        self._finish()
        return rewrites

    def _push(self, inst: Instruction) -> None:
        if id(inst) not in self.queued and id(inst) not in self.dead:
            self.stack.append(inst)
            self.queued.add(id(inst))

    def _simplify(self, inst: Instruction) -> tuple[Instruction, list[Instruction]] | None:
        if inst.control_predecessors or id(inst) in self.control_preds:
            return None
        b = self.builder  # one per computation, re-anchored (not one per instruction visited)
        b.anchor = inst
        if b.created:
            b.created = []
        for fn in self.rules[inst.opcode]:
            if b.created:
                b.created = []
            replacement = fn(inst, b)
            if replacement is None or replacement is inst:
                if b.created:  # (most rules build nothing: ~6 tried per instruction)
                    self._discard(b.created)
                continue
            if not self._acceptable(inst, replacement):
                self._discard(b.created)
                continue
            if not self.ctx.consume_fuel(f"{fn.__name__} on %{inst.name}"):
                self._discard(b.created)
                return None
            if self.log_decisions:
                self.ctx.decision("%s: %%%s -> %%%s", fn.__name__, inst.name, replacement.name)
            self._replace(inst, replacement)
            self.created.extend(b.created)
            return replacement, b.created
        return None

    def _acceptable(self, inst: Instruction, replacement: Instruction) -> bool:
        """XLA's ReplaceInstructionIfCompatible, plus: a root keeps its exact shape (layout)."""
        if not same_shape(inst.shape, replacement.shape):
            return False
        return not (inst is self.comp.root and inst.shape != replacement.shape
                    and inst.shape.layout is not None and replacement.shape.layout is not None)

    def _replace(self, inst: Instruction, replacement: Instruction) -> None:
        """XLA's HloComputation::ReplaceInstruction: the replacement inherits metadata (when it
        has no op_name), frontend attributes and sharding (when it has none), takes the old
        name when the opcodes match, and the old instruction goes with its unused operands."""
        inherit_attrs(inst, replacement)
        self.rw.replace_all_uses_with(inst, replacement)
        if inst.opcode == replacement.opcode and (
                inst.opcode != "custom-call"
                or inst.attrs.get("custom_call_target") == replacement.attrs.get("custom_call_target")):
            self.rw.take_name(replacement, inst)
        self._kill(inst)

    def _removable(self, inst: Instruction) -> bool:
        return not (id(inst) in self.dead or inst.users or inst is self.comp.root
                    or inst.opcode == "parameter" or inst.info.side_effect
                    or inst.attrs.get("custom_call_has_side_effect") is True
                    or inst.control_predecessors or id(inst) in self.control_preds)

    def _kill(self, inst: Instruction) -> None:
        """Detach `inst` and, transitively, the operands only it used (XLA's
        RemoveInstructionAndUnusedOperands); the list removal is batched in `_finish`."""
        stack = [inst]
        while stack:
            x = stack.pop()
            if not self._removable(x):
                continue
            operands = list(dict.fromkeys(x.operands))
            self.rw.detach(x)
            self.dead.add(id(x))
            self.dead_list.append(x)
            stack.extend(operands)
            for op in operands:  # now used once: single-use rules may match its user
                if len(op.users) == 1:
                    self._push(op.users[0])

    def _discard(self, built: list[Instruction]) -> None:
        for x in reversed(built):
            self._kill(x)

    def _finish(self) -> None:
        for x in self.created:  # helpers a rule built but the final graph does not use
            self._kill(x)
        self.rw.flush_deferred(self.comp)
        if self.dead_list:
            self.rw.remove_instructions(self.comp, self.dead_list)
