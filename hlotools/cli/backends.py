"""Where hlo-run executes a module: the backends that exist, and which one is best.

A backend turns a module into a `Compiled` once (`compile`; the LLVM backend's passes,
codegen and LLVM, or a compile cache hit, timed where they happen) and its runner maps
flattened argument leaves to result leaves.

The LLVM backend is the default. A module it refuses at compile time (HloUnsupportedError:
an op or construct it does not generate code for) runs on the interpreter instead when no
--backend was given (run.py says so on stderr); an explicit --backend=llvm reports the refusal.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hlotools.ir.module import Module

Runner = Callable[[list[np.ndarray | None]], list[np.ndarray]]


@dataclass(frozen=True)
class CompileRequest:
    """What hlo-run knows besides the module, for backends that can use it."""

    source_text: str | None = None  # the text the module was parsed from (the cache's first key)
    use_cache: bool = True  # the persistent compile cache (--no-cache turns it off)
    log: Callable[[str], None] | None = None  # -v: where cache hits and misses are reported


@dataclass
class Compiled:
    """A runner plus how it was made: the compile phases' seconds (each measured once, where it
    happened) and the compile cache's part in it."""

    run: Runner
    # [load, cache,] passes, codegen, llvm[, link] | cache-load
    phases: dict[str, float] = field(default_factory=dict)
    cache: str = "none"  # 'hit' (machine code from the cache), 'miss' (compiled, stored), 'off', 'none'
    loader: str = ""  # how a cached entry was loaded: 'shared-library' (dlopen) or 'jit' (MCJIT)
    stats: Any = None  # the LLVM backend's abi.CompileStats (also on a compile cache hit)

    def __call__(self, args: list[np.ndarray | None]) -> list[np.ndarray]:
        return self.run(args)

    def metrics(self) -> dict[str, Any]:
        """What a CI gate watches of a compile (hlo-run --json, hlo-bench): the kernel count
        (fusions + unfused non-trivial instructions of the optimised module), peak bytes (the
        temp arena buffer assignment packed: the most bytes of temporaries live at once,
        parameters and outputs aside) and each compile phase's milliseconds."""
        doc: dict[str, Any] = {"compile_ms": {p: round(s * 1e3, 4) for p, s in self.phases.items()}}
        if self.stats is not None:
            doc |= {"kernels": self.stats.kernel_count, "peak_bytes": self.stats.arena_bytes}
        return doc


@dataclass(frozen=True)
class Backend:
    """A way to run a module (llvm, interp) and how to compile for it."""
    name: str
    description: str
    compile: Callable[[Module], Runner]
    compiles: bool  # does `compile` do real work (worth timing)?
    compile_with: Callable[[Module, CompileRequest], Runner | Compiled] | None = None  # used instead when set


def _interpreter(module: Module) -> Runner:
    from hlotools import evaluate

    def run(args: list[np.ndarray | None]) -> list[np.ndarray]:
        return list(evaluate(module, args))  # type: ignore[arg-type]
    return run


def _llvm(module: Module) -> Runner:
    return _llvm_with(module, CompileRequest(use_cache=False))


def _llvm_with(module: Module, request: CompileRequest) -> Compiled:
    """Passes, codegen and LLVM, or the machine code from the persistent compile cache."""
    import os
    import time

    start = time.perf_counter()  # the backend's own imports count as compile time too ("load")
    from hlotools.backend.llvm.native import load_clock
    loaded = load_clock.seconds()
    with load_clock.loading():
        from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
        from hlotools.backend.llvm.native.cache import CompileCache

    options = CompileOptions(preset=os.environ.get("HLOTOOLS_LLVM_PASSES", "O2"))
    if request.use_cache:
        compiled = compile_cached(module, options, compile_cache=CompileCache(log=request.log),
                                  source_text=request.source_text)
        phases = _cache_phases(compiled, time.perf_counter() - start, load_clock.seconds() - loaded)
        return Compiled(compiled, *phases, stats=compiled.stats)
    # No cache: the same steps as compile_cached's, with the passes timed here.
    from hlotools.backend.llvm.driver.pipeline import optimise_module
    from hlotools.backend.llvm.driver.runtime import CompiledModule

    t0 = time.perf_counter()
    optimised = optimise_module(module, options.preset) if options.preset != "none" else module
    passes = time.perf_counter() - t0
    compiled = CompiledModule(optimised, opt_level=options.opt_level, implicit_fusion=options.implicit_fusion)
    return Compiled(compiled, {"passes": passes, "codegen": compiled.timings.codegen_s,
                               "llvm": compiled.timings.llvm_s}, "off", stats=compiled.stats)


def _cache_phases(compiled: Any, total: float, load: float) -> tuple[dict[str, float], str, str]:
    """(phases, cache state, loader) from the timings the runtime and the cache recorded.
    A hit is one phase, cache-load: everything from the backend's imports to a callable
    module. A miss splits into load (`load`: the seconds load_clock timed, the backend's
    and the passes' modules, llvmlite's LLVM, the runtime library's binding: paid once per
    process), cache (keys, the host's description, lookup, storing), passes, codegen, llvm
    and (when a shared library was made) link."""
    timings = getattr(compiled, "timings", None)
    extra: dict[str, float] = dict(getattr(timings, "extra", {}) or {})
    if "cache_total" in extra or "load_object" in extra:
        loader = "shared-library" if "dlopen" in extra else "jit"
        return {"cache-load": total}, "hit", loader
    phases = {"passes": extra.get("passes", 0.0), "codegen": getattr(timings, "codegen_s", 0.0),
              "llvm": getattr(timings, "llvm_s", 0.0)}
    if "link" in extra:
        phases["link"] = extra["link"]
    if "cache_lookup" in extra:  # the rest: keys, the host's description, lookup, storing
        phases = {"load": load, "cache": max(0.0, total - load - sum(phases.values())), **phases}
    return phases, "miss", ""


BACKENDS: dict[str, Backend] = {
    "llvm": Backend("llvm", "native code through LLVM (llvmlite JIT)", _llvm, compiles=True,
                    compile_with=_llvm_with),
    "interp": Backend("interp", "the numpy reference interpreter", _interpreter, compiles=False),
}
KNOWN = ("llvm", "interp")  # every backend name, best first
PREFERENCE = KNOWN  # the default: LLVM, with the interpreter for what LLVM refuses
FALLBACK = "interp"  # runs what the default backend refuses at compile time


def best_available() -> Backend:
    return next(BACKENDS[n] for n in PREFERENCE if n in BACKENDS)


def fallback_for(backend: Backend) -> Backend | None:
    """The backend that runs a module `backend` refused, when the user chose neither."""
    if backend.name == FALLBACK or FALLBACK not in BACKENDS:
        return None
    return BACKENDS[FALLBACK]


def not_available_message(name: str) -> str:
    return (f"the {name} backend is not available yet; available: {', '.join(BACKENDS)} "
            f"(omit --backend to use the best available)")
