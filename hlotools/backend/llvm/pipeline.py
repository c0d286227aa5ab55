"""The HLO passes run before codegen: XLA CPU's -O2 pipeline (simplification, fusion,
layout assignment, scheduling) from hlotools.passes.pipeline.PRESETS, keeping only the
passes that are registered (the rest are being written; the compiler handles modules
without fusions or layouts by fusing implicitly and assuming row-major layouts).

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
    """A copy of `module` after the available passes of `preset` (the module itself when
    there is nothing to run)."""
    spec = available_pipeline(preset)
    if not spec:
        return module
    from hlotools.passes.manager import run_pipeline
    from hlotools.passes.pipeline import parse_pipeline
    from hlotools.text.reparse import reparsed_copy
    copy = reparsed_copy(module)  # what parse(print(module)) builds, without the text (~5x faster)
    run_pipeline(copy, parse_pipeline(spec))
    return copy
