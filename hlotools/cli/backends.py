"""Where hlo-run executes a module: the backends that exist, and which one is best.

A backend turns a module into a runner once (`compile`, timed as its own phase when the
backend really compiles) and the runner maps flattened argument leaves to result leaves.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hlotools.ir.module import Module

Runner = Callable[[list[np.ndarray | None]], list[np.ndarray]]


@dataclass(frozen=True)
class CompileRequest:
    """What hlo-run knows besides the module, for backends that can use it."""

    source_text: str | None = None  # the text the module was parsed from (the cache's first key)
    use_cache: bool = True  # the persistent compile cache (--no-cache turns it off)
    log: Callable[[str], None] | None = None  # -v: where cache hits and misses are reported


@dataclass(frozen=True)
class Backend:
    name: str
    description: str
    compile: Callable[[Module], Runner]
    compiles: bool  # does `compile` do real work (worth timing)?
    compile_with: Callable[[Module, CompileRequest], Runner] | None = None  # used instead when set


def _interpreter(module: Module) -> Runner:
    from hlotools.interpreter import evaluate

    def run(args: list[np.ndarray | None]) -> list[np.ndarray]:
        return list(evaluate(module, args))  # type: ignore[arg-type]
    return run


def _llvm(module: Module) -> Runner:
    return _llvm_with(module, CompileRequest(use_cache=False))


def _llvm_with(module: Module, request: CompileRequest) -> Runner:
    """Passes, codegen and LLVM, or the machine code from the persistent compile cache."""
    import os

    from hlotools.backend.llvm.cache import CompileCache, CompileOptions, compile_cached

    options = CompileOptions(preset=os.environ.get("HLOTOOLS_LLVM_PASSES", "O2"))
    store = CompileCache(log=request.log) if request.use_cache else None
    compiled = compile_cached(module, options, compile_cache=store, source_text=request.source_text)
    return lambda args: compiled(args)


BACKENDS: dict[str, Backend] = {
    "llvm": Backend("llvm", "native code through LLVM (llvmlite JIT)", _llvm, compiles=True,
                    compile_with=_llvm_with),
    "interp": Backend("interp", "the numpy reference interpreter", _interpreter, compiles=False),
}
KNOWN = ("llvm", "interp")  # every backend name, best first
# The interpreter stays the default until the LLVM backend runs the whole corpus (it still
# refuses convolution, sort, fft, ... at compile time); then PREFERENCE = KNOWN.
PREFERENCE = ("interp", "llvm")


def best_available() -> Backend:
    return next(BACKENDS[n] for n in PREFERENCE if n in BACKENDS)


def not_available_message(name: str) -> str:
    return (f"the {name} backend is not available yet; available: {', '.join(BACKENDS)} "
            f"(omit --backend to use the best available)")
