"""The LLVM backend's lowerings: one module per opcode family, named like hlotools/interpreter/'s.

`load()` imports each module here: each fills codegen/registry.py's tables with its decorators,
and unsupported.py lists the refusals. A new lowering is one file in this folder (and its
opcode's removal from unsupported.py); nothing lists the files. The driver loads them before
codegen, which only reads the tables.
"""
from __future__ import annotations

import pkgutil
from importlib import import_module

from hlotools.backend.llvm.codegen import registry


def load() -> None:
    """Register every lowering (once: every compile asks)."""
    if registry.LOADED:
        return
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        import_module(f"{__name__}.{info.name}")
    registry.LOADED = True
