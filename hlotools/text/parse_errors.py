"""Syntax errors in HLO terms: what was expected (from the LALR row) and where, never a token dump."""
from __future__ import annotations

from typing import Any

from hlotools.errors import HloParseError
from hlotools.text.lexer import LineMap, Token

_WHAT = {
    "HLOMODULE": "'HloModule'", "ENTRY": "'ENTRY'", "ROOT": "'ROOT'", "PNAME": "a name",
    "IDENT": "a name", "CNAME": "a parameter 'name:'", "EQ": "'='", "ARROW": "'->'", "LPAR": "'('",
    "RPAR": "')'", "LBRACE": "'{'", "RBRACE": "'}'", "COMMA": "','", "SHAPE": "a shape",
    "ATTR": "an attribute", "CATTR": "an attribute", "CLATTR": "an attribute",
    "LITERAL": "a constant", "PARAMNUM": "a parameter", "GTE": "'#'",
    "STACKFRAMES": "a stack frame table", "$END": "end of input",
}
_ORDER = ["COMMA", "RPAR", "RBRACE", "LPAR", "LBRACE", "EQ", "ARROW", "SHAPE", "PNAME", "IDENT", "CNAME",
          "ROOT", "ENTRY", "HLOMODULE", "ATTR", "CATTR", "CLATTR", "LITERAL", "PARAMNUM", "GTE",
          "STACKFRAMES", "$END"]


def describe(tok: Token) -> str:
    t, text = tok[0], tok[1]
    if t == "$END":
        return "end of input"
    if t in ("ATTR", "CATTR", "CLATTR"):
        return f"'{text}='"
    if t == "SHAPE":
        return f"shape '{text}'"
    if t == "PNAME":
        return f"'%{text}'"
    if t == "CNAME":
        return f"'{text}:'"
    if t in ("LITERAL", "PARAMNUM"):
        return f"'{text}(...)'"
    if t == "PTYPE":
        return f"type keyword '{text}'"
    if t == "KEYWORD":
        return f"keyword '{text}'"
    shown = text if len(text) <= 40 else text[:37] + "..."
    return f"'{shown}'"


def _alternatives(row: dict[str, Any]) -> list[str]:
    terms = [t for t in _ORDER if t in row]
    out: list[str] = []
    for t in terms:
        w = _WHAT[t]
        if w not in out:
            out.append(w)
    return out


def _join(items: list[str]) -> str:
    if len(items) <= 2:
        return " or ".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


def _context(tok: Token, last: Token | None, row: dict[str, Any], vstack: list[Any], single: bool) -> str:
    if single and "$END" in row:
        return "Expected eof after parsing single instruction"
    if single and "CNAME" in row and "RPAR" in row and len(vstack) == 2:
        return ("expects '=' in instruction (text that starts with neither 'HloModule', 'ENTRY' nor "
                "'name {' is read as a single instruction)")
    if {"PNAME", "IDENT", "ROOT"} <= set(row) and tok[0] not in ("PNAME", "IDENT"):
        if tok[0] == "ATTR":
            return (f"expects name ('{tok[1]}=' reads as an attribute; an instruction needs a space "
                    "before '=')")
        return "expects name"
    if set(row) == {"IDENT"}:
        return "expects opcode"
    if set(row) <= {"ATTR", "CATTR", "CLATTR"}:
        return "expects attribute name (name=value after ',')"
    if "GTE" in row:
        return "expected ',' or ')' after operand"
    top = vstack[-1] if vstack else None
    if isinstance(top, tuple) and top and top[0] in ("ref", "nested", "anon"):
        return "expected ',' or ')' after operand"
    if "EQ" in row and len(row) <= 2:
        if tok[0] == "ATTR" or (last is not None and last[0] in ("ROOT",)):
            return "expects an instruction name followed by ' = ' (a name glued to '=' reads as an attribute)"
        return "expected '=' after the instruction name"
    if last is not None and last[0] == "EQ" and "SHAPE" in row:
        return "expected a shape or an opcode after '='"
    if last is not None and last[0] == "IDENT" and "LPAR" in row and "LITERAL" in row:
        return f"expected '(' after opcode {last[1]}"
    if "COMMA" in row and "ROOT" in row:
        return "expected ',' before the next attribute, or the next instruction"
    return ""


def syntax_error(tok: Token, last: Token | None, row: dict[str, Any], vstack: list[Any],
                 lines: LineMap, single: bool = False) -> HloParseError:
    """`single`: the text is read as one instruction (XLA's rule: it starts with neither
    HloModule nor ENTRY, and its second token is not '{')."""
    found = describe(tok)
    msg = _context(tok, last, row, vstack, single)
    if not msg:
        msg = f"expected {_join(_alternatives(row))}"
    if tok[0] == "ATTR" and "COMMA" in row and "ROOT" not in row:
        msg += " (attributes are separated by ',')"
    if tok[0] == "IDENT" and lines.text.startswith("[", tok[2] + len(tok[1])) and "SHAPE" in row:
        msg = f"unknown primitive type '{tok[1]}'; {msg}"
    elif last is not None and last[0] == "IDENT" and tok[1] == "[" and \
            lines.text.startswith("[", last[2] + len(last[1])):
        line, col = lines.locate(last[2])
        return HloParseError(f"unknown primitive type '{last[1]}'", line, col)
    line, col = lines.locate(tok[2])
    hint = ""
    if msg.startswith("Expected eof after parsing single instruction"):
        hint = ". Did you mean to write an HLO module and forget the \"HloModule\" header?"
    return HloParseError(f"{msg}, but found {found}{hint}", line, col)
