"""Compiling a lowered graph's HLO text and calling it with torch tensors.

The in-process cache is keyed on the HLO text (it holds every shape, dtype and layout; the
weights are parameters, so new weights are a hit) plus the backend and pass pipeline; the
LLVM backend's persistent cache (compile_cached) makes a second process a hit too. Tensors
cross as numpy views of their memory both ways (bf16 through ml_dtypes)."""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch

from hlotools.ir import semantics
from hlotools.ir.module import Module
from hlotools.torch import dtypes
from hlotools.torch.graph_to_hlo import Lowered
from hlotools.torch.options import Options

Runner = Callable[[Sequence[np.ndarray]], list[np.ndarray]]
_CACHE: dict[tuple[str, str, str, str], Runner] = {}
_LOCK = threading.Lock()
_DUMPED = [0]


def cached_runner(lowered: Lowered, backend: str, options: Options) -> tuple[Runner, str]:
    """The runner of `lowered.text` on `backend` ("llvm" or "interp") and how it was found,
    compiled (and, for the interpreter, run) under `options.semantics`."""
    key = (backend, options.passes, options.semantics, lowered.text)
    with _LOCK, semantics.using(options.semantics):
        found = _CACHE.get(key)
        if found is not None and options.dump_dir is None:
            return found, "in-process cache hit (same HLO text)"
        module = _parse(lowered.text)
        module, text, padded = _static_form(module, lowered.text)
        if options.dump_dir is not None and text is None:  # the bounded module, before the padder
            options.dump_dir.mkdir(parents=True, exist_ok=True)
            (options.dump_dir / f"{module.name}.dynamic.hlo").write_text(lowered.text)
        runner, how = (_llvm(module, text, options) if backend == "llvm"
                       else _interpreter(module, options))
        runner = padded(runner)
        _CACHE[key] = runner
        return runner, ("in-process cache miss (new HLO text); " if found is None else "dumped again; ") + how


def _static_form(module: Module, text: str) -> tuple[Module, str | None, Callable[[Runner], Runner]]:
    """What compiles: a module with bounded dynamic dims as the dynamic padder's static form
    (keyed on its own text: the bounds, never a call's sizes), run by padding the arguments to
    the bounds and trimming the results to the sizes the module computed."""
    from hlotools.ir.dynamic import has_dynamic_shapes
    if not has_dynamic_shapes(module):
        return module, text, lambda runner: runner
    from hlotools.ir.dynamic_arrays import pad_arguments, unpad_results
    from hlotools.passes.dynamic_padder import pad_module
    static = module.clone()
    sig = pad_module(static)
    assert sig is not None  # the module has dynamic shapes

    def wrap(runner: Runner) -> Runner:
        return lambda args: unpad_results(sig, runner(cast(list[np.ndarray], pad_arguments(module, sig, list(args)))))
    return static, None, wrap


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()


def _parse(text: str) -> Module:
    from hlotools.ir.verifier import verify
    from hlotools.text.parser import parse
    module = parse(text, "<torch graph>")
    verify(module)
    return module


def _llvm(module: Module, text: str | None, options: Options) -> tuple[Runner, str]:
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
    from hlotools.backend.llvm.native.cache import CompileCache
    said: list[str] = []
    cache = CompileCache(log=said.append)
    if options.dump_dir is not None:
        module, text = _optimise_with_dumps(module, text, options), ""
        compiled = compile_cached(module, CompileOptions(preset="none"), compile_cache=cache)
    else:
        compiled = compile_cached(module, CompileOptions(preset=options.passes), compile_cache=cache,
                                  source_text=text)
    return compiled, "; ".join(said) or "persistent compile cache"


def _optimise_with_dumps(module: Module, text: str | None, options: Options) -> Module:
    """The pass pipeline run by the pass manager with hlo-opt --dump-dir's dumps."""
    from hlotools.backend.llvm.driver.compile import collector_paused
    from hlotools.backend.llvm.driver.pipeline import backend_pipeline
    from hlotools.passes.manager import ManagerOptions, run_pipeline
    from hlotools.passes.pipeline import parse_pipeline
    folder = options.dump_dir
    assert folder is not None
    folder.mkdir(parents=True, exist_ok=True)
    _DUMPED[0] += 1
    if text is None:
        from hlotools.text.printer import print_module
        text = print_module(module)
    (folder / f"{module.name}.hlo").write_text(text)
    copy = module.clone()
    spec = backend_pipeline(options.passes) if options.passes != "none" else ""
    if spec:
        with collector_paused():
            run_pipeline(copy, parse_pipeline(spec), ManagerOptions(dump_dir=folder, module_id=_DUMPED[0] - 1))
    return copy


def _interpreter(module: Module, options: Options) -> tuple[Runner, str]:
    from hlotools.interpreter import evaluate
    from hlotools.passes.xla_cpu_rounding import as_xla_cpu_rounds
    if options.dump_dir is not None:
        options.dump_dir.mkdir(parents=True, exist_ok=True)
        from hlotools.text.printer import print_module
        (options.dump_dir / f"{module.name}.hlo").write_text(print_module(module))
    rounded = as_xla_cpu_rounds(module)

    def run(args: Sequence[np.ndarray]) -> list[np.ndarray]:
        with semantics.using(options.semantics):  # the interpreter reads it as it evaluates
            return list(evaluate(rounded, list(args)))
    return run, "reference interpreter (nothing to compile)"


def _unaliased(outs: list[np.ndarray], inputs: list[np.ndarray]) -> list[np.ndarray]:
    """Outputs as arrays of their own: torch may write into any output (an in-place op after
    the graph), so none may share memory with an input or another output (the interpreter
    hands a parameter back as it is; two results may be one value)."""
    seen = {a.__array_interface__["data"][0] for a in inputs if a.size}
    fresh = []
    for out in outs:
        out = np.asarray(out)
        address = out.__array_interface__["data"][0]
        if out.size and address in seen:
            out = out.copy()
            address = out.__array_interface__["data"][0]
        seen.add(address)
        fresh.append(out)
    return fresh


Version = Callable[[Sequence[Any]], tuple[Lowered, Runner]]


def _array(value: Any) -> np.ndarray:
    if isinstance(value, int):  # a size the graph takes as an input (an s32[] parameter)
        return np.asarray(value, np.int32)
    return dtypes.to_numpy(value)


@dataclass
class CompiledGraph:
    """A graph's compiled module as a boxed callable (aot_autograd passes a list of tensors
    and, with symbolic sizes, ints). `version` picks the module for a call's sizes when the
    graph has a size without a declared bound (one module per power-of-two bucket)."""

    lowered: Lowered
    runner: Runner
    single: bool = False  # the graph returns one value, not a tuple
    version: Version | None = None
    _boxed_call: bool = True

    def __call__(self, args: list[Any]) -> Any:
        lowered, runner = self.version(args) if self.version is not None else (self.lowered, self.runner)
        arrays = [_array(args[i]) for i in lowered.arguments]
        outs = _unaliased(runner(arrays), arrays)
        results = [dtypes.from_numpy(outs[where]) if kind == "result" else
                   outs[where].item() if kind == "size" else where for kind, where in lowered.outputs]
        return results[0] if self.single else results

    def forward(self, *args: torch.Tensor) -> Any:
        return self(list(args))
