"""The LLVM backend: HLO -> llvmlite.ir (codegen/, the lowerings of lower/ dispatched from the
tables in codegen/registry.py) -> native code (native/jit.py) -> called from Python (driver/runtime.py).

The folders are layers; each imports only the ones before it (tests/backend/llvm/test_layers.py):

* abi.py          the base: the entry's calling convention and leaf storage (llvmlite-free).
* native/         machine code: jit.py (the only importer of llvmlite.binding: target machine,
                  new-PM pipeline, MCJIT, object/assembly emission), host.py, targets.py (one row
                  per architecture), objfile.py (ELF), cache.py (the compile cache's storage and
                  keys), shared_library.py and background_link.py (a warm start dlopens a .so).
* llvm_ir/        IR building blocks: types.py (storage vs value types; narrow floats by bit
                  manipulation), loops.py (loop nests in layout order), arith.py, math_ops.py,
                  complex_ops.py (scalar code), denormals.py (XLA CPU's FTZ/DAZ).
* kernels/        the runtime library (library.py), module-independent, compiled once per machine
                  and linked into every JIT module: parallel_for.py and thread_pool.py, the GEMM
                  kernels and their epilogues, im2col convolution, reduce-window.
* codegen/        module.py (ModuleCompiler: one LLVM module per HLO module, one function
                  `void f(ptr arena, ptr params, ptr outs)` per called computation), function.py
                  (FunctionEmitter: per instruction param/const/alias/inline/define, each `define`
                  emitted by EMITTERS[op] or one loop nest over `value_at(inst, index)`),
                  placement.py (the alias, in-place and inline decisions), elemental.py
                  (ElementalGen.value_at), buffers.py (liveness-based arena assignment),
                  alias_scopes.py, concurrent.py (independent kernels as one parallel_for),
                  outline.py (loop nests outlined into parallel workers), registry.py (the
                  dispatch tables ELEMENTAL, EMITTERS, ALIASES, SCRATCH, TASK_WORK, NO_INLINE,
                  CUSTOM_CALLS, UNSUPPORTED, which codegen reads and lower/ fills;
                  tests/backend/llvm/test_opcodes.py checks every opcode of ir/opcodes.py is in one).
* lower/          one module per opcode family, named like hlotools/interpreter/'s: elementwise,
                  data_movement, indexing, reduction, reduce_window, control, collective, dot, gemm,
                  convolution, conv_gemm, output_fusion, linalg, lapack, fft, random, sorting, ...;
                  unsupported.py lists the refusals with their reasons.
* driver/         pipeline.py (the HLO passes), compile.py (compile_cached), runtime.py
                  (CompiledModule: numpy leaves in, numpy leaves out, like interpreter.evaluate),
                  aot.py (an object file and C header for any target).

Adding an op: a file in lower/ (or a function in its family's file) with `@elemental("op")` (a
value at an index from operand values, no memory) or `@emitter("op")` (reads operands via
fe.gen.value_at / fe.leaf_ptrs, writes fe.leaf_ptrs(inst)), scratch memory in SCRATCH, and the
op's removal from lower/unsupported.py: lower.load() finds the file. An emitter registered for an
opcode replaces the default elemental loop; registering an opcode twice is an error, so a faster
lowering loaded later (lower/gemm.py's dot) takes the place of its fallback with
EMITTERS.replace(op, fn).
"""
from __future__ import annotations

from typing import Any


def load_emitters() -> None:
    """Register every lowering (lower.load; idempotent). Done before the first compile, not at
    package import, so that a warm start from the compile cache (native/cache.py ->
    native/shared_library.py) imports neither llvmlite nor the lowerings."""
    from hlotools.backend.llvm import lower
    lower.load()


def __getattr__(name: str) -> Any:
    """`from hlotools.backend.llvm import compile_module` (and CompiledModule) on first use."""
    if name in ("CompiledModule", "PaddedModule", "compile_module"):
        load_emitters()
        from hlotools.backend.llvm.driver import runtime
        return getattr(runtime, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CompiledModule", "compile_module"]
