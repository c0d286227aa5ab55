"""Imports every kernel module of the interpreter's part B (linear algebra, indexing,
sorting, random numbers, custom calls), so that importing this one module registers all of
their @kernel entries. (hlotools/interpreter/__init__.py also imports every module of the
package; this list keeps part B's set explicit.)"""
from __future__ import annotations

from hlotools.interpreter import custom_calls, indexing, linalg, random, sorting

__all__ = ["custom_calls", "indexing", "linalg", "random", "sorting"]
