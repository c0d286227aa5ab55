"""`--split-input-file`: several modules in one file, separated by `// -----` lines.

Each chunk keeps its place in the whole file: it is parsed with as many empty lines in
front as precede it, so an error's LINE:COL (and the source line it shows) point into the
file the user has open, not into the chunk.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from hlotools.errors import HloParseError

SEPARATOR = "// -----"
_DASH_LINE = re.compile(r"^\s*//\s*-{2,4}\s*$")


@dataclass(frozen=True)
class Chunk:
    """One module of a --split-input-file input, padded so positions match the whole file."""
    text: str  # the chunk, preceded by (first_line - 1) newlines
    first_line: int  # 1-based line of the chunk's first line in the whole file


def _is_separator(line: str) -> bool:
    return line.strip().startswith(SEPARATOR)


def check_no_separator(text: str, filename: str) -> None:
    """Without --split-input-file a separator is a mistake worth naming (XLA's hlo-opt agrees)."""
    for n, line in enumerate(text.splitlines(), 1):
        if _is_separator(line):
            raise HloParseError(f"'{SEPARATOR}' separator found, but --split-input-file was not given",
                                n, line.index("/") + 1, filename, text)


def split_chunks(text: str, filename: str) -> list[Chunk]:
    """The chunks between separator lines; a near-separator (`// ---`) is an error."""
    lines = text.splitlines(keepends=True)
    chunks: list[Chunk] = []
    start = 0
    for n, line in enumerate(lines):
        if _is_separator(line):
            chunks.append(Chunk("\n" * start + "".join(lines[start:n]), start + 1))
            start = n + 1
        elif _DASH_LINE.match(line):
            raise HloParseError(f"unexpected separator: a module separator is '{SEPARATOR}'",
                                n + 1, line.index("/") + 1, filename, text)
    chunks.append(Chunk("\n" * start + "".join(lines[start:]), start + 1))
    return [c for c in chunks if c.text.strip()]
