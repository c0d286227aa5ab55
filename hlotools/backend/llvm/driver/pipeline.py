"""The HLO passes run before codegen: XLA CPU's -O2 pipeline (simplification, fusion,
layout assignment, scheduling) from hlotools.passes.pipeline, plus the backend's own passes.

The backend's O2 adds `epilogue-fusion` after layout-assignment (before scheduling): a dot or
convolution and its elementwise consumers become one kOutput fusion, which the runtime GEMM
applies per finished tile, so common epilogues need no per-module LLVM loop (XLA CPU's library
fusions do the same). hlo-opt's -O2 stays XLA CPU's order; `backend_pipeline` is what runs here.
After float-normalization-bf16 (before fusion) it adds `algsimp-inexact` (XLA's algsimp
rewrites bf16 ops after its normalisation) and then `fma-contraction`: what LLVM does to XLA's
f16 code on the reference host, which no HLO pass of XLA's does (passes/fma_contraction.py).
Fusion runs with the backend's budget (BACKEND_OPTIONS).

The pipeline runs on a copy (Module.clone(): the module parse(print(module)) would build),
so the caller's module is never changed.
"""
from __future__ import annotations

from functools import cache

from hlotools.ir.module import Module

# Passes the backend adds to a preset: preset -> ((pass, the pass it follows), ...), in order
# (each goes right after the pass it follows, so the later of two after one pass runs first).
BACKEND_ADDITIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "O2": (("fma-contraction", "float-normalization-bf16"), ("algsimp-inexact", "float-normalization-bf16"),
           ("epilogue-fusion", "layout-assignment")),
}

# Options the backend gives passes of a preset: preset -> {pass: options}. Fusion copies at most
# 8 producers that other users still read into one fusion (fusion.py max-duplicated): XLA CPU
# copies without bound, which on a training step copies the rest of the residual stream's
# gradient chain into every layer's fusions (8 layers: 12,800 fused instructions instead of
# 5,700, and 4x the run time).
BACKEND_OPTIONS: dict[str, dict[str, str]] = {"O2": {"fusion": "max-duplicated=8"}}


@cache
def backend_pipeline(preset: str = "O2") -> str:
    """The spec optimise_module runs for `preset`: an -O preset with its BACKEND_ADDITIONS,
    any other text as the spec it is (HLOTOOLS_LLVM_PASSES=algsimp,dce); made once: every
    compile asks."""
    from hlotools.passes.pipeline import PRESET_LAYOUT, preset_spec
    if preset not in PRESET_LAYOUT:
        return preset
    spec = preset_spec(preset, insert_after=BACKEND_ADDITIONS.get(preset, ()))
    items = spec.split(",")
    for name, options in BACKEND_OPTIONS.get(preset, {}).items():
        items = [f"{name}{{{options}}}" if item == name else item for item in items]
    return ",".join(items)


def optimise_module(module: Module, preset: str = "O2") -> Module:
    """A copy of `module` after backend_pipeline(preset) (the module itself when there is
    nothing to run)."""
    spec = backend_pipeline(preset)
    if not spec:
        return module
    from hlotools.backend.llvm.native.load_clock import loading
    with loading():  # the passes' modules, imported once per process: hlo-run's "load" phase
        from hlotools.passes.manager import run_pipeline
        from hlotools.passes.pipeline import parse_pipeline
        passes = parse_pipeline(spec)
    copy = module.clone()  # what parse(print(module)) builds, without the text (~5x faster)
    run_pipeline(copy, passes)
    return copy
