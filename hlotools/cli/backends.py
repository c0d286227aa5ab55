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
class Backend:
    name: str
    description: str
    compile: Callable[[Module], Runner]
    compiles: bool  # does `compile` do real work (worth timing)?


def _interpreter(module: Module) -> Runner:
    from hlotools.interpreter import evaluate

    def run(args: list[np.ndarray | None]) -> list[np.ndarray]:
        return list(evaluate(module, args))  # type: ignore[arg-type]
    return run


def _llvm(module: Module) -> Runner:
    import os

    from hlotools.backend.llvm import compile_module
    from hlotools.backend.llvm.pipeline import optimise_module

    preset = os.environ.get("HLOTOOLS_LLVM_PASSES", "O2")
    compiled = compile_module(optimise_module(module, preset) if preset != "none" else module)
    return lambda args: compiled(args)


BACKENDS: dict[str, Backend] = {
    "llvm": Backend("llvm", "native code through LLVM (llvmlite JIT)", _llvm, compiles=True),
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
