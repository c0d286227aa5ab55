"""Reshape mover (XLA's ReshapeMover, pass name `reshape-mover`).

Sinks "rearranges" (reshape, transpose) below elementwise ops:
    op(rearrange(x), rearrange(y))  ->  rearrange(op(x, y))
when every rearranged operand uses an equivalent rearrange and every other operand is
trivially rearrangeable (a constant, an rng with one user, a scalar broadcast, or — for
transposes — a broadcast whose dimensions keep their order). Those get the inverse rearrange,
which algsimp later folds (reshape(broadcast(scalar)) -> broadcast); the rearranged operands
themselves are unwrapped directly (XLA leaves transpose'(transpose(x)) for algsimp). A candidate moves only if every user of its rearranged operands moves too, so a
rearrange disappears instead of being duplicated; the candidate set is pruned to that fixed
point first. Meant to run in a fixed point with algsimp, as in XLA's pipeline.
"""
from __future__ import annotations

from dataclasses import dataclass

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.shape import Layout, Shape
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.dce import remove_dead_from


@dataclass
class ReshapeMover(HloPass):
    """XLA's ReshapeMover (see the module docstring)."""
    name = "reshape-mover"
    description = "sink reshapes/transposes below elementwise ops when that removes them"

    reshape_of_1d_broadcast_is_cheap: bool = False

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        for comp in list(module.computations):
            if comp.is_fusion_computation:
                continue
            candidates = {id(i): i for i in comp.instructions if self.is_candidate(i)}
            moved = _prune(candidates)
            sunk: list[Instruction] = []
            for inst in comp.instructions:
                if id(inst) not in moved:
                    continue
                if not ctx.consume_fuel(f"sink rearranges across {inst.name}"):
                    break
                self.sink(rw, comp, inst)
                sunk.append(inst)
            if sunk:
                rw.flush_deferred(comp)
                remove_dead_from(rw, comp, sunk)
        return rw.changed

    # -- which instructions qualify ---------------------------------------------------------
    def can_trivially_rearrange(self, inst: Instruction, rearrange: Instruction) -> bool:
        """Can `inst` take the inverse of `rearrange` for free (XLA's CanTriviallyRearrange)?"""
        source = rearrange.operands[0]
        if rearrange.opcode == "reshape" and rearrange.shape.without_layout() == source.shape.without_layout():
            return True
        if rearrange.opcode == "transpose" and _is_identity(rearrange.attrs.get("dimensions", ())):
            return True
        if inst.opcode == "constant":
            return inst.literal is not None and not inst.literal.elided
        if inst.opcode == "rng" and len(inst.users) == 1:
            return True
        if inst.opcode != "broadcast":
            return False
        dims = tuple(inst.attrs.get("dimensions", ()))
        if list(dims) != sorted(dims):
            return False
        if rearrange.opcode == "reshape":
            operand_dims = [d for d in inst.operands[0].shape.dims]
            if not operand_dims:
                return True
            return self.reshape_of_1d_broadcast_is_cheap and sum(1 for d in operand_dims if d != 1) <= 1
        perm = tuple(rearrange.attrs.get("dimensions", ()))
        moved_dims = [perm[d] for d in dims]  # XLA's TransposedBcastDims under the inverse
        return moved_dims == sorted(moved_dims)

    def first_nontrivial_rearrange(self, inst: Instruction) -> Instruction | None:
        for operand in inst.operands:
            if _is_rearrange(operand) and not self.can_trivially_rearrange(operand.operands[0], operand):
                return operand
        return None

    def is_candidate(self, inst: Instruction) -> bool:
        if not _is_elementwise(inst) or inst.shape.is_tuple:
            return False
        rearrange = self.first_nontrivial_rearrange(inst)
        if rearrange is None:
            return False
        for operand in inst.operands:
            if _is_rearrange(operand):
                if not _equivalent(operand, rearrange):
                    return False
            elif operand.shape.dims != inst.shape.dims or not self.can_trivially_rearrange(operand, rearrange):
                return False
        return True

    # -- the rewrite -----------------------------------------------------------------------------
    def sink(self, rw: Rewriter, comp: Computation, inst: Instruction) -> Instruction:
        rearrange = self.first_nontrivial_rearrange(inst)
        assert rearrange is not None
        source_shape = rearrange.operands[0].shape
        operands = [_apply_inverse(rw, comp, rearrange, o, before=inst) for o in inst.operands]
        attrs = {k: v for k, v in inst.attrs.items() if k != "sharding"}
        new_op = inst.clone(operands, shape=_retyped(source_shape, inst.shape), attrs=attrs)
        rw.add_instruction_deferred(comp, new_op, before=inst, name=inst.name)
        rearrange_attrs = {"dimensions": rearrange.attrs["dimensions"]} if rearrange.opcode == "transpose" else {}
        new_rearrange = Instruction(rearrange.opcode, rearrange.opcode, inst.shape, [new_op], rearrange_attrs)
        if "metadata" in inst.attrs:
            new_rearrange.attrs["metadata"] = inst.attrs["metadata"]
        rw.add_instruction_deferred(comp, new_rearrange, before=inst, name=rearrange.opcode)
        rw.replace_all_uses_with(inst, new_rearrange)
        return new_rearrange


def _prune(candidates: dict[int, Instruction]) -> set[int]:
    """Drop candidates until every user of every rearranged operand is a candidate."""
    removed = True
    while candidates and removed:
        removed = False
        rearranges: dict[int, Instruction] = {}
        for inst in candidates.values():
            for operand in inst.operands:
                if _is_rearrange(operand):
                    rearranges[id(operand)] = operand
        for operand in rearranges.values():
            if any(id(u) not in candidates for u in operand.users):
                for user in operand.users:
                    if candidates.pop(id(user), None) is not None:
                        removed = True
    return set(candidates)


def _apply_inverse(rw: Rewriter, comp: Computation, rearrange: Instruction, operand: Instruction,
                   before: Instruction) -> Instruction:
    """`operand` with the inverse of `rearrange` applied (skipping no-op and 2-reshape chains)."""
    if rearrange.opcode == "reshape":
        new_shape = _retyped(rearrange.operands[0].shape, operand.shape)
        if operand.shape == new_shape:
            return operand
        if operand.opcode == "reshape" and operand.operands[0].shape == new_shape:
            return operand.operands[0]
        reshape = Instruction("reshape", "reshape", new_shape, [operand])
        return rw.add_instruction_deferred(comp, reshape, before=before, name="reshape")
    perm = tuple(rearrange.attrs["dimensions"])
    if _is_identity(perm):
        return operand
    if operand.opcode == "transpose" and tuple(operand.attrs.get("dimensions", ())) == perm:
        return operand.operands[0]  # transpose'(transpose(x)) is x: what algsimp would make of it
    inverse = _inverse(perm)
    dims = tuple(operand.shape.dims[p] for p in inverse)
    et = operand.shape.element_type
    assert et is not None, "a transpose of an array"
    shape = Shape.array(et, dims, Layout.default(len(dims)) if operand.shape.layout is not None else None)
    transpose = Instruction("transpose", "transpose", shape, [operand], {"dimensions": inverse})
    return rw.add_instruction_deferred(comp, transpose, before=before, name="transpose")


def _retyped(shape: Shape, like: Shape) -> Shape:
    """`shape` with `like`'s element type (the layout of `shape`, or the default one)."""
    assert like.element_type is not None
    out = shape.with_element_type(like.element_type)
    if out.layout is None and like.layout is not None:
        out = out.with_default_layout()
    return out


def _is_rearrange(inst: Instruction) -> bool:
    return inst.opcode in ("reshape", "transpose")


def _is_elementwise(inst: Instruction) -> bool:
    info = OPCODES.get(inst.opcode)
    if info is None or not info.is_elementwise:
        return False
    if inst.opcode == "bitcast-convert":  # elementwise only when the element width is unchanged
        src, dst = inst.operands[0].shape.element_type, inst.shape.element_type
        return src is not None and dst is not None and src.bits == dst.bits
    return True


def _equivalent(a: Instruction, b: Instruction) -> bool:
    if a.opcode != b.opcode or a.shape.dims != b.shape.dims:
        return False
    if a.opcode == "transpose":
        return tuple(a.attrs.get("dimensions", ())) == tuple(b.attrs.get("dimensions", ()))
    return a.operands[0].shape.dims == b.operands[0].shape.dims


def _is_identity(perm: tuple[int, ...]) -> bool:
    return tuple(perm) == tuple(range(len(perm)))


def _inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    out = [0] * len(perm)
    for i, p in enumerate(perm):
        out[p] = i
    return tuple(out)
