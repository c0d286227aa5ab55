"""The LLVM backend's lowerings: one module per opcode family, named like hlotools/interpreter/'s.

`load()` imports each module here (each fills registry.py's tables with its decorators) and
unsupported.py (the refusals): a new lowering is one file in this folder, and nothing lists the
files. The driver loads them before codegen, which only reads the tables.
"""
from __future__ import annotations

import pkgutil
from importlib import import_module

from hlotools.backend.llvm import registry


def load() -> None:
    """Register every lowering (idempotent)."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        import_module(f"{__name__}.{info.name}")
    import_module("hlotools.backend.llvm.unsupported")
    registry.LOADED[0] = True
