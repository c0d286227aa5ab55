"""The LLVM backend: HLO -> llvmlite.ir (compiler.py and the emit_* files, dispatched from the
tables in registry.py) -> native code (jit.py) -> called from Python (runtime.py).

Importing this package registers every emitter.
"""
from __future__ import annotations

from hlotools.backend.llvm import (  # noqa: F401  (registration side effects)
    emit_arith,
    emit_control,
    emit_conv,
    emit_conv_gemm,
    emit_data,
    emit_dot,
    emit_elemental,
    emit_gemm,
    emit_reduce,
    emit_rng,
    emit_sort,
    unsupported,
)
from hlotools.backend.llvm.runtime import CompiledModule, compile_module

__all__ = ["CompiledModule", "compile_module"]
