"""Common subexpression elimination (XLA's HloCSE, pass name `cse`).

Per computation, in post-order, every candidate gets a hash key: opcode, shape (layout only
when `is_layout_sensitive`), its operands' identities (sorted for the commutative opcodes of
the opcode table), its attributes except metadata, and for constants the literal's value. The
first instruction with a key is the representative; later ones hand it their users (in one
batch at the end, see Rewriter.replace_all_uses_batched: one by one is quadratic when
thousands of duplicates merge into one constant) and are removed. Post-order means operands are already merged, so whole expression trees collapse in
one run; a dict lookup per instruction keeps it linear.

Never merged: instructions with side effects (including rng and calls of effectful
computations), parameters and other zero-operand ops except constants, iota, partition-id and
replica-id, and instructions with control dependencies. Called computations compare equal when
they are the same computation or structurally identical (a fingerprint per computation, computed
once), which is how two `reduce`s with separately printed but identical `add` regions merge.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.rewriter import Rewriter, reachable_computations
from hlotools.ir.shape import Shape
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.side_effects import SideEffects

# Attributes that do not change what an instruction computes (XLA's Identical ignores them).
IGNORED_ATTRS = frozenset({"metadata"})
# Zero-operand opcodes that are pure functions of their attributes.
ZERO_OPERAND_CANDIDATES = frozenset({"constant", "iota", "partition-id", "replica-id"})
# Pure, but merging them changes nothing worth the risk (token plumbing, domain boundaries).
NEVER_MERGED = frozenset({"parameter", "after-all", "add-dependency", "domain", "opt-barrier"})


@dataclass
class HloCSE(HloPass):
    """XLA's HloCSE: one instruction for each set of identical ones."""
    name = "cse"
    description = "compute identical instructions (same opcode, shape, operands, attributes) once"

    is_layout_sensitive: bool = False
    only_fusion_computations: bool = False

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        keys = _Keys(self.is_layout_sensitive)
        for comp in reachable_computations(module):
            if self.only_fusion_computations and not comp.is_fusion_computation:
                continue
            _cse_computation(rw, comp, keys, ctx)
        return rw.changed


class _Keys:
    """Hash keys of instructions and structural fingerprints of computations."""

    def __init__(self, layout_sensitive: bool) -> None:
        self.layout_sensitive = layout_sensitive
        self.effects = SideEffects()
        self._fingerprints: dict[int, int] = {}
        self._interned: dict[tuple, int] = {}
        self._layout_free: dict[int, tuple[Shape, Shape]] = {}  # id(shape) -> (shape, without layout)

    def shape_key(self, inst: Instruction) -> Any:
        shape = inst.shape
        if self.layout_sensitive:
            return shape
        known = self._layout_free.get(id(shape))  # shapes are shared: strip each layout once
        if known is None:
            known = self._layout_free[id(shape)] = (shape, shape.without_layout())
        return known[1]

    def attr_value(self, value: Any) -> Any:
        if isinstance(value, Computation):
            return ("computation", self.fingerprint(value))
        if isinstance(value, tuple) and value and isinstance(value[0], Computation):
            return ("computations", tuple(self.fingerprint(c) for c in value))
        if isinstance(value, list):
            return tuple(self.attr_value(v) for v in value)
        if isinstance(value, dict):
            return tuple(sorted((k, self.attr_value(v)) for k, v in value.items()))
        return value

    def attrs_key(self, inst: Instruction) -> tuple:
        attrs = inst.attrs
        if not attrs:
            return ()
        return tuple([(k, self.attr_value(v)) for k, v in attrs.items() if k not in IGNORED_ATTRS])

    def literal_key(self, inst: Instruction) -> Any:
        return inst.literal.key() if inst.literal is not None else None

    def fingerprint(self, comp: Computation) -> int:
        """Equal numbers for structurally identical computations (names and metadata aside)."""
        known = self._fingerprints.get(id(comp))
        if known is not None:
            return known
        index: dict[int, int] = {}
        parts: list[tuple] = []
        for n, inst in enumerate(comp.post_order()):
            index[id(inst)] = n
            parts.append((inst.opcode, inst.shape, inst.parameter_number, self.literal_key(inst),
                          tuple(index.get(id(o), -1) for o in inst.operands),
                          tuple(index.get(id(p), -1) for p in inst.control_predecessors),
                          self.attrs_key(inst)))
        root = index[id(comp.root)] if comp.root is not None else -1
        key = (tuple(parts), root)
        number = self._interned.setdefault(key, len(self._interned))
        self._fingerprints[id(comp)] = number
        return number


def is_candidate(inst: Instruction, effects: SideEffects) -> bool:
    if inst.opcode in NEVER_MERGED or inst.opcode not in OPCODES:
        return False
    if not inst.operands and inst.opcode not in ZERO_OPERAND_CANDIDATES:
        return False
    if inst.control_predecessors:
        return False
    if inst.opcode == "constant" and (inst.literal is None or inst.literal.elided):
        return False
    return not effects.instruction(inst)


def _instruction_key(inst: Instruction, keys: _Keys, merged: dict[int, Instruction]) -> tuple:
    operands = tuple([id(merged.get(id(o), o)) for o in inst.operands]) if merged else \
        tuple(map(id, inst.operands))
    if OPCODES[inst.opcode].commutative and len(operands) == 2:
        operands = tuple(sorted(operands))
    return (inst.opcode, keys.shape_key(inst), operands, keys.attrs_key(inst), keys.literal_key(inst))


def _cse_computation(rw: Rewriter, comp: Computation, keys: _Keys, ctx: PassContext) -> int:
    pinned = {id(p) for i in comp.instructions for p in i.control_predecessors}
    seen: dict[tuple, Instruction] = {}
    merged: dict[int, Instruction] = {}  # id(duplicate) -> representative; uses move in one batch
    duplicates: list[Instruction] = []
    # The full key (attributes, shape, literal) is built only for an instruction whose opcode
    # and operands (as a multiset: commutative operands sort) some earlier one shares; a lone
    # one is keyed later, when a second one arrives (its operands, before it in post-order,
    # are merged by then, so its key is the same).
    lone: dict[tuple, Instruction | None] = {}  # (opcode, |operands|, sum of ids) -> unkeyed first
    for inst in comp.post_order():
        if id(inst) in pinned or not is_candidate(inst, keys.effects):
            continue
        ops = inst.operands
        coarse = (inst.opcode, len(ops), sum([id(merged.get(id(o), o)) for o in ops]) if merged else
                  sum(map(id, ops)))
        if coarse not in lone:
            lone[coarse] = inst
            continue
        alone = lone[coarse]
        if alone is not None:
            seen.setdefault(_instruction_key(alone, keys, merged), alone)
            lone[coarse] = None
        key = _instruction_key(inst, keys, merged)
        first = seen.get(key)
        if first is None:
            seen[key] = inst
            continue
        if not ctx.consume_fuel(f"{inst.name} -> {first.name}"):
            continue
        ctx.decision("%s is identical to %s", inst.name, first.name)
        merged[id(inst)] = first
        duplicates.append(inst)
    if duplicates:
        rw.replace_all_uses_batched(comp, merged)
        rw.remove_instructions(comp, duplicates)
    return len(duplicates)
