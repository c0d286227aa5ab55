"""The numpy reference interpreter (the project's oracle).

Importing the package imports every kernel module in it, so each module's @kernel
registrations land in registry.KERNELS without a central list to keep in sync.
"""
from __future__ import annotations

import importlib
import pkgutil

from hlotools.interpreter.evaluator import Evaluator, evaluate

__all__ = ["Evaluator", "evaluate"]

_NOT_KERNELS = {"evaluator", "registry", "denormals"}
for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _info.name not in _NOT_KERNELS and not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")

from hlotools.interpreter import denormals as _denormals  # noqa: E402  (after every kernel registered)

_denormals.install()
