"""bf16 arithmetic as XLA CPU's FloatNormalization leaves it (pass name `float-normalization-bf16`).

XLA CPU has no bf16 arithmetic: FloatNormalization(BF16 -> F32) rewrites every bf16 op the
CPU does not support (all arithmetic; data movement and converts stay bf16) into the f32 op
between converts, `convert_bf16(op_f32(convert_f32(x), ...))`. Numerically that is the
per-op rounding both backends already do, with one exception, XLA's excess precision
(`xla_allow_excess_precision`, default true): a user of the op that is itself a
`convert(bf16 -> f32)` is replaced by the f32 op, so it sees the value *before* rounding
(FloatNormalizationVisitor::ChangeOutputTypeThenInsertConvertBack). XLA's simplify-fp-conversions,
which would also drop the f32->bf16->f32 pairs between two bf16 ops, runs on CPU only in the
oneDNN pipeline: the jaxlib build keeps those pairs (measured; see tests/xla/test_excess_precision.py).

So this pass rewrites exactly the ops whose result differs from per-op rounding: an
elementwise bf16 op with a `convert(-> f32)` user gets an f32 twin that those users read;
its other users keep the (bit-identical) bf16 op. With allow-excess-precision=false it does
nothing, as XLA then keeps every rounding.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from hlotools.ir import semantics
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.types import F32, element_type
from hlotools.passes.base import HloPass, PassContext

ENV = "HLOTOOLS_EXCESS_PRECISION"
BF16 = element_type("bf16")
# The op categories FloatNormalization upcasts on CPU whose result rounding can matter.
_ARITHMETIC = frozenset({"unary", "binary"})


def excess_precision_allowed() -> bool:
    """XLA's xla_allow_excess_precision for this run: on under the xla-cpu semantics unless
    HLOTOOLS_EXCESS_PRECISION=0 (or false/off); `spec` semantics round after every op."""
    value = os.environ.get(ENV, "").strip().lower()
    return semantics.xla_cpu() and value not in ("0", "false", "off", "no")


@dataclass
class FloatNormalization(HloPass):
    """XLA's FloatNormalization for bf16 on CPU, where it changes values (module docstring)."""
    name = "float-normalization-bf16"
    description = "bf16 ops read by convert(->f32) give those converts their unrounded f32 value"

    allow_excess_precision: bool | None = None  # None: excess_precision_allowed() when it runs

    def run(self, module: Module, ctx: PassContext) -> bool:
        allowed = self.allow_excess_precision
        if not (excess_precision_allowed() if allowed is None else allowed):
            return False
        rw = Rewriter(module)
        for comp in list(module.computations):
            for inst in list(comp.instructions):
                users = _f32_convert_users(inst)
                if users and ctx.consume_fuel(inst.name):
                    _upcast(rw, comp, inst, users)
        return rw.changed


def _f32_convert_users(inst: Instruction) -> list[Instruction]:
    if inst.info.category not in _ARITHMETIC or not inst.shape.is_array or inst.shape.element_type != BF16:
        return []
    if any(not o.shape.is_array or o.shape.element_type != BF16 for o in inst.operands):
        return []
    return [u for u in inst.users if u.opcode == "convert" and u.shape.is_array and u.shape.element_type == F32]


def _upcast(rw: Rewriter, comp: Computation, inst: Instruction, users: list[Instruction]) -> None:
    """op_f32(convert_f32(x), ...) takes the place of each convert(op -> f32) in `users`."""
    f32 = inst.shape.with_element_type(F32)
    operands = [rw.new_instruction(comp, "convert", o.shape.with_element_type(F32), [o], before=inst,
                                   name="convert") for o in inst.operands]
    wide = rw.new_instruction(comp, inst.opcode, f32, operands, attrs=dict(inst.attrs), before=inst,
                              name=inst.name)
    for user in users:
        rw.replace_all_uses_with(user, wide)
    rw.remove_instructions(comp, [u for u in users if not u.users and comp.root is not u])
    if not inst.users and comp.root is not inst:
        rw.remove_instructions(comp, [inst])
