"""Tuple simplification (XLA's TupleSimplifier, pass name `tuple-simplifier`).

Two rewrites, in post-order so chains collapse in one run:
  * get-tuple-element(tuple(x0, ..., xn), i)  ->  xi, also down a chain of get-tuple-elements
    over nested tuples (gte(gte(tuple(a, tuple(b, c)), 1), 0) -> b) when a link in between
    must stay (its sharding differs);
  * tuple(gte(t, 0), gte(t, 1), ..., gte(t, n-1))  ->  t  when t has exactly those n elements
    (shapes compatible), i.e. the tuple rebuilds t unchanged.
The replaced instruction goes, and so do operands it alone kept alive (XLA's ReplaceInstruction).
Like XLA's `preserve_sharding`, a replacement that would change a sharding is not made.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.dce import remove_dead_from
from hlotools.passes.side_effects import SideEffects


@dataclass
class TupleSimplifier(HloPass):
    """XLA's TupleSimplifier: get-tuple-element of a tuple becomes the element."""
    name = "tuple-simplifier"
    description = "gte(tuple(...), i) -> operand i; tuple(gte(t, 0..n-1)) -> t"

    exclude_entry_computation: bool = False

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        effects = SideEffects()
        for comp in list(module.computations):
            if self.exclude_entry_computation and comp is module.entry:
                continue
            _simplify_computation(rw, comp, ctx, effects)
        return rw.changed


def _same(inst: Instruction) -> Instruction:
    return inst


def whole_tuple_source(tuple_inst: Instruction, resolve: Callable[[Instruction], Instruction] = _same
                       ) -> Instruction | None:
    """`t` if `tuple_inst` is tuple(gte(t, 0), ..., gte(t, n-1)) rebuilding all of `t`
    (`resolve` maps an instruction to its pending replacement)."""
    top: Instruction | None = None
    for number, operand in enumerate(tuple_inst.operands):
        operand = resolve(operand)
        if operand.opcode != "get-tuple-element" or operand.attrs.get("index") != number:
            return None
        source = resolve(operand.operands[0])
        if top is None:
            top = source
            if not top.shape.compatible(tuple_inst.shape):
                return None
        elif source is not top:
            return None
    return top


def element_source(gte: Instruction, resolve: Callable[[Instruction], Instruction] = _same
                   ) -> Instruction | None:
    """What a get-tuple-element (or a chain of them) reads, when the chain starts at a `tuple`
    instruction and goes down through tuples only (XLA's LatestNonGteAncestorAndIndex walk)."""
    path: list[int] = []
    source = gte
    while source.opcode == "get-tuple-element":
        index = source.attrs.get("index")
        if not isinstance(index, int):
            return None
        path.append(index)
        source = resolve(source.operands[0])
    for index in reversed(path):
        if source.opcode != "tuple" or not 0 <= index < len(source.operands):
            return None
        source = resolve(source.operands[index])
    return source


def _sharding_conflict(old: Instruction, new: Instruction) -> bool:
    a, b = old.attrs.get("sharding"), new.attrs.get("sharding")
    return a is not None and b is not None and str(a) != str(b)


def _simplify_computation(rw: Rewriter, comp: Computation, ctx: PassContext, effects: SideEffects) -> None:
    merged: dict[int, Instruction] = {}  # uses move in one batch (linear for high fan-out)

    def resolve(inst: Instruction) -> Instruction:
        while id(inst) in merged:
            inst = merged[id(inst)]
        return inst

    replaced: list[Instruction] = []
    for inst in comp.post_order():
        if inst.opcode == "tuple":
            new = whole_tuple_source(inst, resolve)
            rule = "whole tuple"
        elif inst.opcode == "get-tuple-element":
            new = element_source(inst, resolve)
            rule = "gte of tuple"
        else:
            continue
        if new is None or new is inst or _sharding_conflict(inst, new):
            continue
        if not ctx.consume_fuel(f"{rule}: {inst.name} -> {new.name}"):
            continue
        ctx.decision("%s: %s -> %s", rule, inst.name, new.name)
        merged[id(inst)] = new
        replaced.append(inst)
    if replaced:
        rw.replace_all_uses_batched(comp, merged)
        remove_dead_from(rw, comp, replaced, effects)
