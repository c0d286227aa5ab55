"""One-token instructions: the lexer's fast path for the common, simple instruction.

Most instructions in real dumps look like `[ROOT] name = shape opcode(a, b), attr=value, ...`
with plain operand names (optionally typed with an array shape or `#i` compact GTEs). The
LALR driver spends ~25 shift/reduce steps on such a line; this module recognises the whole
instruction with a few regexes and hands the grammar one INSTR token (grammar/hlo.lark:
`instruction: INSTR`), whose value holds exactly the pieces the general rules would have
produced. Anything unusual (comments inside, nested operands, tuple-typed operands, inline
computations, computation lists) returns None and the general token path takes over, so both
paths accept the same language and report the same errors.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from hlotools.ir.opcodes import COMPUTATION_ATTRS, COMPUTATION_LIST_ATTRS
from hlotools.ir.types import ELEMENT_TYPES

if TYPE_CHECKING:
    from hlotools.text.lexer import LineMap, Token  # lexer imports this module

    Scanner = Callable[[str, int, LineMap], int]  # (text, pos, lines) -> end of the value

_WS = r"[ \t\r\n]"
_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
_PTYPE = r"[a-z][a-z0-9_]*(?=\[)"  # checked against ELEMENT_TYPES after the match
_ARRAY = _PTYPE + r"\[[^\]\[]*\](?:\{(?=[0-9:])[^{}]*\})?"
_TUPLE = r"\((?:" + _WS + r"*" + _ARRAY + r"(?:" + _WS + r"*," + _WS + r"*" + _ARRAY + r")*)?" + _WS + r"*\)"
_HEAD = re.compile(r"(ROOT" + _WS + r"+)?(%?)(" + _NAME + r")" + _WS + r"+=" + _WS + r"+(?:(" + _ARRAY + "|"
                   + _TUPLE + r")" + _WS + r"+)?(" + _NAME + r")\(")
_ITEM = r"(?:" + _ARRAY + _WS + r"+)?%?" + _NAME + r"(?:#[0-9]+)*"
_OPERANDS = re.compile(_WS + r"*(?:" + _ITEM + r"(?:" + _WS + r"*," + _WS + r"*" + _ITEM + r")*)?" + _WS
                       + r"*\)")
_ITEM_PARTS = re.compile(r"(?:(" + _ARRAY + r")" + _WS + r"+)?(%?)(" + _NAME + r")((?:#[0-9]+)*)")
_PARAM = re.compile(r"\(" + _WS + r"*([0-9]+)" + _WS + r"*\)")
_ATTR = re.compile(_WS + r"*," + _WS + r"*(" + _NAME + r")=")
_COMP_NAME = re.compile(_WS + r"*(%?)(" + _NAME + r")")
_CATTRS = frozenset(COMPUTATION_ATTRS)
_CLATTRS = frozenset(COMPUTATION_LIST_ATTRS)


_TYPE_WORD = re.compile(r"([a-z][a-z0-9_]*)\[")
_KNOWN_TEXT: dict[str, bool] = {}


def _types_known(shape_text: str) -> bool:
    """Every element type word in the shape is a real type (else the general path reports it)."""
    ok = _KNOWN_TEXT.get(shape_text)
    if ok is None:
        ok = all(t in ELEMENT_TYPES for t in _TYPE_WORD.findall(shape_text))
        if len(_KNOWN_TEXT) < 50_000:
            _KNOWN_TEXT[shape_text] = ok
    return ok


def fast_instruction(text: str, pos: int, reserved: frozenset[str], lines: LineMap, scan_value: Scanner,
                     scan_literal_value: Scanner, scan_parens: Scanner) -> tuple[Token, int] | None:
    """(INSTR token, end) for a simple instruction at pos, else None. The scanners come from
    lexer.py as arguments (importing them here would be a cycle)."""
    m = _HEAD.match(text, pos)
    if m is None:
        return None
    root, pct, name, shape_text, opcode = m.groups()
    if (not pct and name in reserved) or opcode in reserved:
        return None
    if shape_text and not _types_known(shape_text):
        return None
    payload: tuple
    attrs: list[tuple] = []
    name_pos = m.start(2)  # a %name token starts at the %
    lpar = m.end() - 1
    if opcode == "constant" or opcode == "parameter":
        close = scan_parens(text, lpar, lines)
        kind = "LITERAL" if opcode == "constant" else "PARAMNUM"
        if kind == "PARAMNUM" and _PARAM.match(text, lpar) is None:
            return None
        payload = (kind, (kind, opcode, lpar, (text[lpar + 1:close], lpar + 1)))
        end = close + 1
    else:
        mo = _OPERANDS.match(text, m.end())
        if mo is None:
            return None
        ops = []
        for it in _ITEM_PARTS.finditer(text, m.end(), mo.end() - 1):
            oshape, opct, oname, gte = it.groups()
            if (not opct and oname in reserved) or (oshape and not _types_known(oshape)):
                return None
            ops.append((oshape, it.start(3) - len(opct), "PNAME" if opct else "IDENT", oname,
                        it.start(4) if gte else -1, gte))
        payload = ("OPS", ops, lpar)
        end = mo.end()
    while True:
        ma = _ATTR.match(text, end)
        if ma is None:
            break
        key = ma.group(1)
        kpos = ma.start(1)
        vpos = ma.end()
        if key in _CLATTRS:
            return None
        if key in _CATTRS:
            mc = _COMP_NAME.match(text, vpos)
            if mc is None or (not mc.group(1) and mc.group(2) in reserved):
                return None
            nxt = text[mc.end():mc.end() + 1]
            if nxt in ("=", ":", "(", "#", "["):
                return None
            attrs.append(("comp", key, kpos, "PNAME" if mc.group(1) else "IDENT", mc.group(2), mc.start(2)))
            end = mc.end()
            continue
        while vpos < len(text) and text[vpos] in " \t\r\n":
            vpos += 1
        if text.startswith(("/*", "//"), vpos):
            return None
        vend = scan_literal_value(text, vpos, lines) if key == "literal" else scan_value(text, vpos, lines)
        attrs.append(("raw", key, kpos, text[vpos:vend], vpos))
        end = vend
    return ("INSTR", name, pos, (root is not None, pos, pct, name_pos, shape_text, m.start(4) if shape_text else -1,
                                 opcode, m.start(5), payload, attrs)), end
