"""XLA CPU's module-level float rounding, as rewrites of a copy of the module.

Where XLA CPU rounds f16/bf16 results differs from per-op rounding in two rewrites of the
module (bf16 excess precision, f16 FMA contraction), and XLA CPU's algsimp changes float
results on its own (A / Const => A * (1/Const), constant reassociation, ...: algsimp-inexact,
after call-inlining and the bf16 normalisation as in XLA, so a constant passed to a called
computation is one to the divide it feeds). The LLVM backend's pipeline runs these passes; the
interpreter's kernels compute each op as given, so running a module "as XLA CPU does" on the
interpreter (hlotools.evaluate, hlo-run --backend=interp) first runs them here, on a copy,
when the module has f16/bf16 arithmetic or such a pattern at all (with cse before the
contraction, as XLA: two equal multiplies are one, used twice, which does not contract).
"""
from __future__ import annotations

from hlotools.ir import semantics
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module

PIPELINE = "call-inliner,float-normalization-bf16,algsimp-inexact,cse,fma-contraction"


def as_xla_cpu_rounds(module: Module) -> Module:
    """`module` itself under spec semantics or when nothing would change, else a rewritten copy."""
    if not semantics.xla_cpu() or not _has_xla_rewrites(module):
        return module
    from hlotools.passes.manager import run_pipeline
    from hlotools.passes.pipeline import parse_pipeline
    copy = module.clone()
    run_pipeline(copy, parse_pipeline(PIPELINE))
    return copy


def _has_xla_rewrites(module: Module) -> bool:
    from hlotools.passes.algsimp_inexact import may_rewrite
    return any(_narrow_arithmetic(inst) or may_rewrite(inst)
               for comp in module.computations for inst in comp.instructions)


def _narrow_arithmetic(inst: Instruction) -> bool:
    return (inst.info.category in ("unary", "binary") and inst.shape.is_array
            and inst.shape.element_type is not None and inst.shape.element_type.name in ("f16", "bf16"))
