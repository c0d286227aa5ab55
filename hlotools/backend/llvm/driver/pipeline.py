"""The HLO passes run before codegen: XLA CPU's -O2 pipeline (simplification, fusion,
layout assignment, scheduling) from hlotools.passes.pipeline.PRESETS, keeping only the
passes that are registered (the rest are being written; the compiler handles modules
without fusions or layouts by fusing implicitly and assuming row-major layouts).

The backend's O2 adds `epilogue-fusion` after layout-assignment (before scheduling): a dot or
convolution and its elementwise consumers become one kOutput fusion, which the runtime GEMM
applies per finished tile, so common epilogues need no per-module LLVM loop (XLA CPU's library
fusions do the same). hlo-opt's -O2 stays XLA CPU's order; `backend_pipeline` is what runs here.
It also adds `fma-contraction` after float-normalization-bf16 (before fusion): what LLVM does to
XLA's f16 code on the reference host, which no HLO pass of XLA's does (passes/fma_contraction.py),
and between the two `algsimp-inexact`: XLA's algsimp rewrites bf16 ops after its normalisation.

The pipeline runs on a copy (text/reparse.py: the module parse(print(module)) would build),
so the caller's module is never changed.
"""
from __future__ import annotations

import re
from collections.abc import Container

from hlotools.ir.module import Module

_AVAILABLE: dict[tuple[str, frozenset[str]], str] = {}


def available_pipeline(preset: str = "O2") -> str:
    """`preset`'s spec without the passes that are not registered (remembered per spec and
    set of registered passes: every compile asks)."""
    from hlotools.passes.pipeline import PRESETS
    from hlotools.passes.registry import PASSES
    key = (PRESETS.get(preset, preset), frozenset(PASSES))
    known = _AVAILABLE.get(key)
    if known is None:
        known = _AVAILABLE[key] = _available_pipeline(key[0], PASSES)
    return known


# Passes the backend adds to a preset: preset -> ((pass, the pass it follows), ...).
BACKEND_ADDITIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "O2": (("fma-contraction", "float-normalization-bf16"), ("algsimp-inexact", "float-normalization-bf16"),
           ("epilogue-fusion", "layout-assignment")),
}
_BACKEND: dict[tuple[str, frozenset[str]], str] = {}


def backend_pipeline(preset: str = "O2") -> str:
    """The spec optimise_module runs for `preset`: available_pipeline's, plus the registered
    passes of BACKEND_ADDITIONS (each after the pass it follows, or at the end when that one
    is not in the spec); remembered like available_pipeline's."""
    from hlotools.passes.registry import PASSES
    key = (preset, frozenset(PASSES))
    known = _BACKEND.get(key)
    if known is None:
        known = available_pipeline(preset)
        for name, after in BACKEND_ADDITIONS.get(preset, ()):
            if name in PASSES:
                known = _insert_after(known, name, after)
        _BACKEND[key] = known
    return known


def _insert_after(spec: str, name: str, after: str) -> str:
    """`spec` with top-level pass `name` right after top-level pass `after` (appended if absent)."""
    parts = _top_level(spec)
    at = next((k + 1 for k, p in enumerate(parts) if p.split("{")[0] == after), len(parts))
    return ",".join(parts[:at] + [name] + parts[at:])


def _top_level(spec: str) -> list[str]:
    """The comma-separated items of a spec, not splitting inside (...) or {...}."""
    parts: list[str] = []
    depth, start = 0, 0
    for k, ch in enumerate(spec):
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(spec[start:k])
            start = k + 1
    if spec[start:]:
        parts.append(spec[start:])
    return parts


def _available_pipeline(spec: str, registered: Container[str]) -> str:
    spec = re.sub(r"[\w.\-]+(\{[^}]*\})?",
                  lambda m: m.group(0) if m.group(0).split("{")[0] in registered or m.group(0) == "fixed-point" else "",
                  spec)
    while True:
        new = re.sub(r",,+", ",", spec).replace("(,", "(").replace(",)", ")").replace("fixed-point()", "")
        new = new.strip(",")
        if new == spec:
            return spec
        spec = new


def optimise_module(module: Module, preset: str = "O2") -> Module:
    """A copy of `module` after backend_pipeline(preset) (the module itself when there is
    nothing to run)."""
    spec = backend_pipeline(preset)
    if not spec:
        return module
    from hlotools.passes.manager import run_pipeline
    from hlotools.passes.pipeline import parse_pipeline
    from hlotools.text.reparse import reparsed_copy
    copy = reparsed_copy(module)  # what parse(print(module)) builds, without the text (~5x faster)
    run_pipeline(copy, parse_pipeline(spec))
    return copy
