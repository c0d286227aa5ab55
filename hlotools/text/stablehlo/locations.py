"""`loc(...)` -> HLO metadata, as XLA's translation fills OpMetadata: op_name from the name of a
NameLoc (`loc("jit(f)/add"(#loc3))`), source_file/source_line from the first FileLineColLoc
(`loc("f.py":12:3)`) found, following `#locN` aliases."""
from __future__ import annotations

import re

_ALIAS = re.compile(r"#loc[\w$.\-]*")
_NAME = re.compile(r'"((?:[^"\\]|\\.)*)"\(')
_PLAIN_NAME = re.compile(r'loc\("((?:[^"\\]|\\.)*)"\)')
_STEM = re.compile(r"[A-Za-z_][\w.\-]{0,40}")
_FILE = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+)(?::\d+)?')


class Locations:
    def __init__(self, defs: dict[str, str]) -> None:
        self.defs = defs  # "#loc3" -> "loc(...)"
        self.cache: dict[str, str] = {}

    def expand(self, text: str, depth: int = 0) -> str:
        if depth > 20:
            return text
        return _ALIAS.sub(lambda m: self.expand(self.defs.get(m.group(), ""), depth + 1), text)

    def op_name(self, loc: str) -> str | None:
        """The last path segment of the loc's name (`jit(f)/reduce_max` -> reduce_max), for names."""
        name = _NAME.search(self.expand(loc)) or _PLAIN_NAME.match(loc)
        if name is None:
            return None
        stem = name.group(1).rsplit("/", 1)[-1]
        return stem if _STEM.fullmatch(stem) else None

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
