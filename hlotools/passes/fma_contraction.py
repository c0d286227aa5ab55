"""f16 multiply-add as one fused multiply-add, as XLA CPU's code does on the reference host
(pass name `fma-contraction`; no HLO pass of XLA's: LLVM does it while compiling XLA's code).

XLA CPU compiles with llvm::FPOpFusion::Fast ("always allow FMA fusion", cpu_compiler.cc), so
LLVM's DAGCombiner turns `fadd/fsub(fmul(a, b), c)` into one fma wherever the target has a
fused multiply-add for the type and the fmul has no other use. For f16 that is a host with
AVX512-FP16, which computed the shared JAX corpus: its dtype_converts `(h*h + 1).astype(f16)`
is fma(h, h, 1) rounded once (14 of 128 elements differ from rounding h*h first). Elsewhere
f16 arithmetic is promoted to f32 one op at a time (bit-identical to native f16 except for
this contraction), and bf16 never contracts (FloatNormalization keeps a convert pair between
its ops). The rule modelled is the DAGCombiner's for x86 (not "aggressive"): for each f16
add/subtract, its first operand if that is an f16 multiply used once (by it alone), else its
second; sub(m, c) -> fma(a, b, -c), sub(c, m) -> fma(-a, b, c).

The fma is spelled in f32 HLO ops so both backends compute it bit for bit with no new opcode:
a*b is exact in f32 (11+11 significant bits), r = a*b + c is rounded once and its error e
found exactly (Knuth's TwoSum); r is then moved to round-to-odd (truncate, set the last bit
when inexact), and round-to-odd at 24 bits then round-to-nearest at 11 is the single
rounding of a*b + c. Every f32 value in it is normal, so flushing denormals changes nothing.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hlotools.ir import semantics
from hlotools.ir.attributes import Enum
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.literal import Literal
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.shape import Shape
from hlotools.ir.types import F32, PRED, S32, element_type
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.dce import remove_dead_from

F16 = element_type("f16")


@dataclass
class FmaContraction(HloPass):
    """f16 add/subtract of a single-use f16 multiply -> one rounding (module docstring)."""
    name = "fma-contraction"
    description = "f16 a*b+c with a single-use multiply rounds once, as XLA's FMA-contracted code"

    enabled: bool | None = None  # None: under the xla-cpu semantics (hlotools.ir.semantics)

    def run(self, module: Module, ctx: PassContext) -> bool:
        if not (semantics.xla_cpu() if self.enabled is None else self.enabled):
            return False
        rw = Rewriter(module)
        for comp in list(module.computations):
            replaced = [inst for inst in list(comp.instructions) if _contract(rw, comp, inst, ctx)]
            rw.flush_deferred(comp)
            remove_dead_from(rw, comp, replaced)
        return rw.changed


def _is_f16(inst: Instruction) -> bool:
    return inst.shape.is_array and inst.shape.element_type == F16


def _contractable(inst: Instruction, user: Instruction) -> bool:
    """A multiply the DAG would fuse into `user`: f16, and `user` its one use."""
    return (inst.opcode == "multiply" and _is_f16(inst) and inst.parent is user.parent
            and inst.users == [user] and sum(o is inst for o in user.operands) == 1)


def _contract(rw: Rewriter, comp: Computation, inst: Instruction, ctx: PassContext) -> bool:
    if inst.opcode not in ("add", "subtract") or not _is_f16(inst):
        return False
    for k in (0, 1):
        mul = inst.operands[k]
        if _contractable(mul, inst) and ctx.consume_fuel(inst.name):
            fused = _Builder(rw, comp, inst).fma(mul, inst.operands[1 - k], negate_product=(
                inst.opcode == "subtract" and k == 1), negate_addend=(inst.opcode == "subtract" and k == 0))
            rw.replace_all_uses_with(inst, fused)
            return True
    return False


@dataclass
class _Builder:
    """Elementwise f32 HLO before `anchor` (deferred insertion: the pass stays linear)."""
    rw: Rewriter
    comp: Computation
    anchor: Instruction

    def op(self, opcode: str, et: object, *operands: Instruction, **attrs: object) -> Instruction:
        shape = Shape.array(et, self.anchor.shape.dims)  # type: ignore[arg-type]
        inst = Instruction(opcode, opcode, shape, list(operands), dict(attrs) or None)
        return self.rw.add_instruction_deferred(self.comp, inst, self.anchor, name=f"fma.{opcode}")

    def const(self, value: float | int, et: object) -> Instruction:
        scalar = Shape.array(et, ())  # type: ignore[arg-type]
        lit = Literal.from_array(scalar, np.asarray(value))
        c = self.rw.add_instruction_deferred(self.comp, Instruction("constant", "constant", scalar, [], None, lit),
                                             self.anchor, name="fma.constant")
        return self.op("broadcast", et, c, dimensions=())

    def fma(self, mul: Instruction, addend: Instruction, negate_product: bool, negate_addend: bool) -> Instruction:
        a, b = (self.op("convert", F32, o) for o in mul.operands)
        c = self.op("convert", F32, addend)
        if negate_product:
            a = self.op("negate", F32, a)
        if negate_addend:
            c = self.op("negate", F32, c)
        p = self.op("multiply", F32, a, b)  # exact: 22 significant bits
        return self.op("convert", F16, self.round_to_odd(p, c))

    def round_to_odd(self, p: Instruction, c: Instruction) -> Instruction:
        """p + c rounded to odd in f32, from the nearest r and TwoSum's exact error e."""
        r = self.op("add", F32, p, c)
        bp = self.op("subtract", F32, r, c)
        bc = self.op("subtract", F32, r, bp)
        e = self.op("add", F32, self.op("subtract", F32, p, bp), self.op("subtract", F32, c, bc))
        zero = self.const(0.0, F32)
        inexact = self.op("and", PRED, self.op("compare", PRED, e, zero, direction=Enum("NE")),
                          self.op("compare", PRED, e, e, direction=Enum("EQ")))  # a NaN/inf r stays
        outward = self.op("compare", PRED, self.op("compare", PRED, e, zero, direction=Enum("GT")),
                          self.op("compare", PRED, r, zero, direction=Enum("GT")), direction=Enum("EQ"))
        bits = self.op("bitcast-convert", S32, r)
        one = self.const(1, S32)
        toward_zero = self.op("select", S32, outward, bits, self.op("subtract", S32, bits, one))
        odd = self.op("select", S32, inexact, self.op("or", S32, toward_zero, one), bits)
        return self.op("bitcast-convert", F32, odd)
