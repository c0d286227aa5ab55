"""`loc(...)` -> HLO metadata, as XLA's translation fills OpMetadata: op_name from the name of a
NameLoc (`loc("jit(f)/add"(#loc3))`), source_file/source_line from the first FileLineColLoc
(`loc("f.py":12:3)`) found, following `#locN` aliases."""
from __future__ import annotations

import re

_ALIAS = re.compile(r"#loc[\w$.\-]*")
_NAME = re.compile(r'"((?:[^"\\]|\\.)*)"\(')
_FILE = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+)(?::\d+)?')


class Locations:
    def __init__(self, defs: dict[str, str]) -> None:
        self.defs = defs  # "#loc3" -> "loc(...)"
        self.cache: dict[str, str] = {}

    def expand(self, text: str, depth: int = 0) -> str:
        if depth > 20:
            return text
        return _ALIAS.sub(lambda m: self.expand(self.defs.get(m.group(), ""), depth + 1), text)

    def metadata(self, loc: str) -> str:
        out = self.cache.get(loc)
        if out is None:
            full = self.expand(loc)
            parts = []
            name = _NAME.search(full)
            if name:
                parts.append(f'op_name="{name.group(1)}"')
            where = _FILE.search(full)
            if where:
                parts.append(f'source_file="{where.group(1)}" source_line={where.group(2)}')
            out = self.cache[loc] = "metadata={" + " ".join(parts) + "}" if parts else ""
        return out


def location_defs(stmts: list) -> dict[str, str]:
    from hlotools.text.stablehlo.syntax import LocDef
    out: dict[str, str] = {}
    for s in stmts:
        if isinstance(s, LocDef):
            name, _, rest = s.text.partition("=")
            out[name.strip()] = rest.strip()
    return out
