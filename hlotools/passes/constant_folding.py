"""`constant-folding`: XLA's HloConstantFolding — evaluate constant subgraphs with the
interpreter and replace them by constants.

An instruction is folded when every operand is a constant, or a broadcast of one, or an
iota (those are evaluated on the fly, never folded themselves: they would turn a scalar into a
huge literal). What is never folded follows XLA: side-effecting ops, rng, collectives,
custom-calls, fft, while loops (unless `fold_while`), anything with control dependencies or
calling a computation that holds such an op, tuples (algsimp expands tuple constants again),
pad of a broadcast, and results or operands above `max_elements` (XLA's 45M element limit).
Elided constants (`{...}` in the text) have no value and are never computed with.

One pass in textual (topological) order folds whole chains: a folded instruction is a
constant by the time its users are visited.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from hlotools.errors import HloError
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.literal import Literal
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.passes.algsimp_core import inherit_attrs
from hlotools.passes.base import HloPass, PassContext

if TYPE_CHECKING:
    from hlotools.interpreter import Evaluator

# Never evaluated at compile time, not even inside a loop being folded: values of the device or
# the runtime, and kernels XLA's evaluator leaves to the backend. (The opcode table's side
# effects and the categories below are never folded either.)
_NEVER_EVALUATED = frozenset({"rng-bit-generator", "custom-call", "fft", "after-all", "partition-id", "replica-id"})
# Opcodes XLA's constant folding leaves alone besides those.
NEVER_FOLD = _NEVER_EVALUATED | {"parameter", "constant", "tuple", "add-dependency", "broadcast", "iota", "domain",
                                 "get-dimension-size", "set-dimension-size", "ragged-dot"}
NEVER_FOLD_CATEGORIES = frozenset({"collective", "async"})


@dataclass
class HloConstantFolding(HloPass):
    """XLA's HloConstantFolding (see the module docstring)."""
    name = "constant-folding"
    description = "evaluate instructions whose operands are all constants and replace them by constants"

    max_elements: int = 45_000_000  # XLA's kMaximumConstantSizeElements (results and operands)
    fold_while: bool = False  # XLA's kAggressive level folds while loops too
    fold_float_arithmetic: bool = True  # false: only integer/pred math and pure data movement
    max_while_iterations: int = 100_000  # evaluation cap for while loops (with fold-while)

    def run(self, module: Module, ctx: PassContext) -> bool:
        folder = _Folder(self, module, ctx)
        for comp in list(module.computations):
            if comp.is_fusion_computation:
                continue
            folder.fold_computation(comp)
            if ctx.out_of_fuel:
                break
        return folder.folded > 0


class _Folder:
    def __init__(self, options: HloConstantFolding, module: Module, ctx: PassContext) -> None:
        self.options = options
        self.ctx = ctx
        self.rw = Rewriter(module)
        self.module = module
        self._evaluator: Evaluator | None = None
        self.folded = 0
        self._clean_computations: dict[int, bool] = {}
        self._debug = ctx.logger.isEnabledFor(logging.DEBUG)

    # -- driving --------------------------------------------------------------------------
    def fold_computation(self, comp: Computation) -> None:
        control = {id(p) for i in comp.instructions for p in i.control_predecessors}
        dead: list[Instruction] = []
        dead_ids: set[int] = set()
        for inst in list(comp.instructions):
            if id(inst) in dead_ids or not self._candidate(inst, comp, control):
                continue
            value = self._evaluate(inst)
            if value is None:
                continue
            if not self.ctx.consume_fuel(f"fold %{inst.name}"):
                break
            self._replace(comp, inst, value, control, dead, dead_ids)
        self.rw.flush_deferred(comp)
        if dead:
            self.rw.remove_instructions(comp, dead)

    def _replace(self, comp: Computation, inst: Instruction, value: np.ndarray, control: set[int],
                 dead: list[Instruction], dead_ids: set[int]) -> None:
        literal = Literal.from_array(inst.shape, value)
        const = Instruction("constant", "constant", inst.shape, [], {}, literal=literal)
        inherit_attrs(inst, const)  # metadata, frontend attributes, sharding (as XLA)
        self.rw.add_instruction_deferred(comp, const, inst, name="constant")
        self.rw.replace_all_uses_with(inst, const)
        self.folded += 1
        if self._debug:
            self.ctx.decision("folded %%%s (%s) into %%%s", inst.name, inst.opcode, const.name)
        stack = [inst]
        while stack:  # XLA's RemoveInstructionAndUnusedOperands
            x = stack.pop()
            if (id(x) in dead_ids or x.users or x is comp.root or x.opcode == "parameter"
                    or x.info.side_effect or id(x) in control or x.control_predecessors):
                continue
            operands = list(dict.fromkeys(x.operands))
            self.rw.detach(x)
            dead_ids.add(id(x))
            dead.append(x)
            stack.extend(operands)

    # -- what may be folded -----------------------------------------------------------------
    def _candidate(self, inst: Instruction, comp: Computation, control: set[int]) -> bool:
        if inst.opcode in NEVER_FOLD or not inst.operands or not inst.shape.is_array:
            return False
        info = inst.info
        if info.side_effect or info.category in NEVER_FOLD_CATEGORIES:
            return False
        if inst.opcode == "while" and not self.options.fold_while:
            return False
        if not inst.users and inst is not comp.root:
            return False  # dead code: DCE's business, not worth evaluating
        if inst.control_predecessors or id(inst) in control:
            return False
        if inst.opcode == "pad" and inst.operands[0].opcode == "broadcast":
            return False  # XLA keeps pad(broadcast(c), c): cheaper than a big literal
        if not all(_foldable_operand(o) for o in inst.operands):
            return False
        if not self.options.fold_float_arithmetic and _float_arithmetic(inst):
            return False
        if _bitcast_changes_width(inst):
            return False
        elements = sum(o.shape.size for o in inst.operands if o.shape.is_array)
        if max(elements, inst.shape.size) > self.options.max_elements:
            return False
        return all(self._clean(c) for c in inst.called_computations())

    def _clean(self, comp: Computation) -> bool:
        """May `comp` be evaluated at compile time (no side effects, nothing never-folded)?"""
        known = self._clean_computations.get(id(comp))
        if known is not None:
            return known
        self._clean_computations[id(comp)] = False  # recursion guard
        ok = all(_pure(i) and all(self._clean(c) for c in i.called_computations()) for i in comp.instructions)
        self._clean_computations[id(comp)] = ok
        return ok

    # -- evaluating ----------------------------------------------------------------------------
    @property
    def evaluator(self) -> Evaluator:
        """Made (and the interpreter imported, ~10 ms in a fresh process, ~50 ms without
        .pyc files) only when something is to be folded: most modules fold nothing."""
        if self._evaluator is None:
            from hlotools.interpreter import Evaluator
            # A loop that does not stop must not hang the compiler: past the cap the evaluation
            # fails and the loop is simply not folded.
            self._evaluator = Evaluator(self.module, max_while_iterations=self.options.max_while_iterations)
        return self._evaluator

    def _evaluate(self, inst: Instruction) -> np.ndarray | None:
        from hlotools.interpreter.registry import KERNELS, UNSUPPORTED
        from hlotools.ir.semantics import gradual_underflow
        kernel = KERNELS.get(inst.opcode)
        if kernel is None:
            if self._debug:
                self.ctx.decision("not folded %%%s: the interpreter does not evaluate %s (%s)", inst.name,
                                  inst.opcode, UNSUPPORTED.get(inst.opcode, "no kernel"))
            return None
        try:  # XLA folds with its HloEvaluator, which keeps denormals (its kernels flush them)
            with np.errstate(all="ignore"), gradual_underflow():
                args = [_operand_value(o, self.evaluator) for o in inst.operands]
                out = kernel(inst, args, self.evaluator)
        except HloError as e:
            # Operands the kernel cannot evaluate (kernels raise HloErrors only: the registry
            # guards them) are not folded; anything else is an interpreter bug and surfaces.
            if self._debug:
                self.ctx.decision("not folded %%%s: %s", inst.name, e)
            return None
        out = np.asarray(out) if isinstance(out, np.generic) else out
        if not isinstance(out, np.ndarray) or out.dtype != inst.shape.dtype or out.shape != inst.shape.dims:
            return None
        return out


def _pure(inst: Instruction) -> bool:
    info = inst.info
    if info.side_effect or info.category in NEVER_FOLD_CATEGORIES or inst.opcode in _NEVER_EVALUATED:
        return False
    return not (inst.opcode == "constant" and _elided(inst))


def _elided(inst: Instruction) -> bool:
    lit = inst.literal
    return lit is None or lit.elided or (lit.array is None and lit.elements is None)


def _foldable_operand(op: Instruction) -> bool:
    """A constant with a value, or a broadcast of one, or an iota (XLA: constant-like)."""
    if op.opcode == "constant":
        return op.shape.is_array and not _elided(op)
    if op.opcode == "broadcast":
        return _foldable_operand(op.operands[0]) and op.operands[0].opcode == "constant"
    return op.opcode == "iota" and op.shape.is_array


def _operand_value(op: Instruction, ev: Evaluator) -> Any:
    from hlotools.interpreter.registry import KERNELS
    if op.opcode == "constant":
        assert op.literal is not None
        return op.literal.value()
    return KERNELS[op.opcode](op, [_operand_value(o, ev) for o in op.operands], ev)


def _float_arithmetic(inst: Instruction) -> bool:
    """Does `inst` compute with floats (as opposed to moving them or comparing integers)?"""
    if inst.info.category == "data":
        return False
    types = [inst.shape.element_type] + [o.shape.element_type for o in inst.operands]
    return any(t is not None and (t.is_float or t.is_complex) for t in types)


def _bitcast_changes_width(inst: Instruction) -> bool:
    """XLA does not fold bitcast-converts between sub-byte types and wider ones."""
    if inst.opcode != "bitcast-convert":
        return False
    src, dst = inst.operands[0].shape.element_type, inst.shape.element_type
    return src is not None and dst is not None and src.bits != dst.bits and min(src.bits, dst.bits) < 8
