"""Regular expressions compiled on first use.

The text front end (and ir/shape_text.py) has ~50 module-level patterns; compiling them all costs ~5 ms of every
process start (a cached hlo-run of a small module uses a dozen). `lazy_regex` defers the
compile to the first call; after it, the pattern's methods are plain instance attributes
(bound methods of the compiled pattern), so a call costs what a compiled pattern's does.
Only for patterns that many inputs never need: the hot lexer patterns stay re.compile.
"""
from __future__ import annotations

import re
from typing import Any

_METHODS = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")


class LazyRegex:
    """A stand-in for re.compile(pattern, flags) until first use."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:  # only while an attribute is missing: the first use
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = re.compile(self._source, self._flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        self.pattern = compiled.pattern
        self.flags = compiled.flags
        self.groups = compiled.groups
        self.groupindex = compiled.groupindex
        return getattr(compiled, name)


def lazy_regex(pattern: str, flags: int = 0) -> Any:
    """re.compile(pattern, flags), compiled when first used (typed Any: it is used as a Pattern)."""
    return LazyRegex(pattern, flags)
