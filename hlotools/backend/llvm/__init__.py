"""The LLVM backend: HLO -> llvmlite.ir (compiler.py and the emit_* files, dispatched from the
tables in registry.py) -> native code (jit.py) -> called from Python (runtime.py).

The emitters register themselves when the first module is compiled (load_emitters).

How it fits together (read in this order):

* registry.py     the tables: ELEMENTAL (opcode -> value_at generator), EMITTERS (opcode -> code
                  that writes the result buffers), ALIASES, SCRATCH, NO_INLINE, UNSUPPORTED.
                  tests/test_llvm_opcodes.py checks every opcode of ir/opcodes.py is in one of them.
* compiler.py     ModuleCompiler: one LLVM module per HLO module, one function
                  `void f(ptr arena, ptr params, ptr outs)` per called computation (entry, while
                  bodies/conditions, call/conditional targets, non-elemental fusions). Per
                  instruction it decides param/const/alias/inline/define; `inline` is implicit
                  fusion (generated inside the consumer's loop nest), `define` gets buffers and
                  is emitted by EMITTERS[op] or, by default, one loop nest over
                  `value_at(inst, index)` (emit_elemental_loop).
* buffers.py      liveness-based buffer assignment into one temp arena; root leaves written into
                  the caller's output buffers; in-place dynamic-update-slice; alias-safe while state.
* emit_elemental.py  ElementalGen.value_at (cached per index, regions for inner loops), apply()
                  to inline scalar computations, data-movement generators. emit_arith.py
                  (elementwise), emit_math.py (transcendentals), emit_complex.py, emit_types.py
                  (storage vs value types; narrow floats by bit manipulation), emit_loops.py
                  (loop nests in layout order), emit_reduce.py, emit_data.py (gather, scatter,
                  dynamic-update-slice, custom-call identities), emit_dot.py, emit_conv.py,
                  emit_sort.py, emit_rng.py (rng-bit-generator, stochastic-convert),
                  emit_rng_distributions.py (rng, rng-get-and-update-state), emit_collective.py
                  (collectives on one device), emit_control.py (while, conditional, call, fusion).
* jit.py          the only importer of llvmlite.binding: target machine, new-PM pipeline,
                  MCJIT, symbol checks, object/assembly emission.
* runtime.py      CompiledModule: numpy leaves in, numpy leaves out (like interpreter.evaluate).

Adding an op: write `@elemental("op")` (a value at an index from operand values, no memory) or
`@emitter("op")` (reads operands via fe.gen.value_at / fe.leaf_ptrs, writes fe.leaf_ptrs(inst)),
declare scratch memory in SCRATCH, and remove the op from unsupported.py. An emitter registered
for an opcode replaces the default elemental loop; a later registration (e.g. a faster dot) can
wrap or replace an earlier one by assigning EMITTERS[op] directly.
"""
from __future__ import annotations

import pkgutil
from importlib import import_module
from typing import Any


def load_emitters() -> None:
    """Register every lowering (idempotent; ModuleCompiler calls it): each module of lower/
    fills registry.py's tables with its decorators, and unsupported.py lists the refusals.
    Imported before the first compile, not at package import, so that a warm start from the
    compile cache (native/cache.py -> native/shared_library.py) imports neither llvmlite nor
    the lowerings. A new lowering is one file in lower/ (and its opcode's removal from
    unsupported.py); nothing lists the files."""
    from hlotools.backend.llvm import lower
    for info in sorted(pkgutil.iter_modules(lower.__path__), key=lambda m: m.name):
        import_module(f"{lower.__name__}.{info.name}")
    import_module("hlotools.backend.llvm.unsupported")


def __getattr__(name: str) -> Any:
    """`from hlotools.backend.llvm import compile_module` (and CompiledModule) on first use."""
    if name in ("CompiledModule", "compile_module"):
        load_emitters()
        from hlotools.backend.llvm.driver import runtime
        return getattr(runtime, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CompiledModule", "compile_module"]
