"""The `{-# dialect_resources: { builtin: { name: "0x..." } } #-}` section -> {name: bytes}
(each blob's first 4 bytes are its alignment, as MLIR writes it)."""
from __future__ import annotations

import re

from hlotools.errors import HloParseError
from hlotools.text.lexer import LineMap

_BLOB = re.compile(r'([\w$.\-]+)\s*:\s*"0x([0-9a-fA-F]*)"')


def resources(tok: tuple, lines: LineMap) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for m in _BLOB.finditer(tok[1]):
        hexdigits = m.group(2)
        if len(hexdigits) % 2 or len(hexdigits) < 8:
            line, col = lines.locate(tok[2] + m.start(2))
            raise HloParseError(f"resource blob '{m.group(1)}' is not whole bytes with a 4-byte alignment prefix",
                                line, col)
        out[m.group(1)] = bytes.fromhex(hexdigits)
    return out
