"""Transpose folding (XLA's TransposeFolding as XLA CPU configures it; pass `transpose-folding`).

A dot reads its operands through dimension numbers, so a transpose in front of it need not be
materialised: `dot(x, transpose(w))` becomes `dot(x, w)` with that side's contracting and
batch dims mapped through the permutation (dim d of the transpose is dim perm[d] of w). The
result is the same dot, element for element; the GEMM reads w with swapped strides
(lower/gemm.py packs B panel-major from any strides, and reads A strided), so a PyTorch-style
`x @ w.T` no longer copies the weight on every call.

XLA CPU's rules (IsRowColumnTransposeDotOperand behind DotImplementationCanHandleTranspose,
which holds for the strategies its default options pick: Eigen, the naive loop, tiled GEMV):
  * both dot operands have rank >= 2 (a matrix-vector dot keeps its transpose);
  * the operand is a transpose that is not the identity;
  * on that side, the batch dims are all but two of the operand's dims, each left in place by
    the permutation, and there is exactly one contracting dim: the transpose swaps the two
    matrix dims and nothing else, so the result's dim order does not change.
A transpose with other users stays for them. Convolutions are not folded: XLA CPU passes
NeverFoldTranspose for them. Fusion computations are left alone (MakeNonFusionComputations).
XLA CPU runs the pass once, after its simplification pipelines and before layout assignment.
"""
from __future__ import annotations

from dataclasses import dataclass

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.dce import remove_dead_from

_SIDES = (("lhs_contracting_dims", "lhs_batch_dims"), ("rhs_contracting_dims", "rhs_batch_dims"))


@dataclass
class TransposeFolding(HloPass):
    """XLA CPU's TransposeFolding: transposes of dot operands become dimension numbers."""
    name = "transpose-folding"
    description = "dot(transpose(x), y) -> dot(x, y) with permuted contracting/batch dims (XLA CPU's rules)"

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        for comp in list(module.computations):
            if not comp.is_fusion_computation:
                _fold_computation(rw, comp, ctx)
        return rw.changed


def foldable_operands(dot: Instruction) -> list[int]:
    """The operand indices of `dot` whose transposes fold into it (XLA CPU's rules above)."""
    if dot.opcode != "dot" or len(dot.operands) != 2 or any(o.shape.rank < 2 for o in dot.operands):
        return []
    out = []
    for side, operand in enumerate(dot.operands):
        perm = tuple(operand.attrs.get("dimensions", ())) if operand.opcode == "transpose" else ()
        if not perm or perm == tuple(range(len(perm))):
            continue
        contracting_key, batch_key = _SIDES[side]
        batch = tuple(dot.attrs.get(batch_key, ()))
        if len(batch) == operand.shape.rank - 2 and len(tuple(dot.attrs.get(contracting_key, ()))) == 1 \
                and all(perm[d] == d for d in batch):
            out.append(side)
    return out


def folded_dot(dot: Instruction, sides: list[int]) -> Instruction:
    """A new dot reading the transposes' operands at `sides`, dims mapped (not yet placed)."""
    attrs = dict(dot.attrs)
    operands = list(dot.operands)
    for side in sides:
        transpose = operands[side]
        perm = tuple(transpose.attrs["dimensions"])
        for key in _SIDES[side]:
            if key in attrs:
                attrs[key] = tuple(perm[d] for d in attrs[key])
        operands[side] = transpose.operands[0]
    return dot.clone(operands, attrs=attrs)


def _fold_computation(rw: Rewriter, comp: Computation, ctx: PassContext) -> None:
    linked = {id(i) for i in comp.instructions if i.control_predecessors}
    linked.update(id(p) for i in comp.instructions for p in i.control_predecessors)
    replaced: list[Instruction] = []
    for inst in comp.instructions:
        if inst.opcode != "dot" or id(inst) in linked:  # a new instruction would lose the edges
            continue
        sides = foldable_operands(inst)
        names = " and ".join(inst.operands[s].name for s in sides)
        if not sides or not ctx.consume_fuel(f"fold {names} into {inst.name}"):
            continue
        ctx.decision("folded %s into %s", names, inst.name)
        new = rw.add_instruction_deferred(comp, folded_dot(inst, sides), before=inst)
        rw.replace_all_uses_with(inst, new)
        rw.take_name(new, inst)
        replaced.append(inst)
    rw.flush_deferred(comp)
    remove_dead_from(rw, comp, replaced)  # the dots, and the transposes only they read
