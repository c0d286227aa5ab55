"""StableHLO text -> tokens for grammar/stablehlo.lark: one compiled regex plus bracket scans.

MLIR ops have no terminator; printers put one op per line. So a word is an op name (OPNAME)
where a statement can start: first on its line, or right after `%x =`. Composite values
(`tensor<...>`, `dense<...>`, `#stablehlo.dot<...>`, `loc(...)`) are single tokens, scanned
with their brackets balanced and decoded later by the module that reads them.
"""
from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from hlotools.errors import HloParseError
from hlotools.text.lexer import LineMap

Token = tuple[str, str, int, bool]  # (type, text, offset, first on its line)

_ID = r"[A-Za-z_$][\w$.\-]*"
_SSA = r"%[\w$.\-]+"
# Blanks before a token are part of its match (one regex call per token, not two); line breaks
# and comments are a WS token of their own (a statement may start after one).
_MASTER = re.compile(r"[ \t]*(?:" + "|".join([
    r"(?P<WS>(?:[\r\n]|//[^\n]*)(?:[ \t\r\n]+|//[^\n]*)*)",
    r"(?P<RESOURCES>\{-#)",
    r"(?P<RPROP>\}>)",
    r"(?P<PUNCT>[(){}\[\],:=])",  # the commonest tokens early: the alternatives are tried in order
    rf"(?P<RESULTS>{_SSA}(?::\d+)?(?:[ \t]*,[ \t]*{_SSA}(?::\d+)?)*[ \t]*=(?!=))",
    rf"(?P<TYPED>{_SSA}:[ \t]*tensor<[^<>\"\n\-]*>)",  # `%arg0: tensor<2xf32>`: three atoms from one match
    rf"(?P<VALUE>{_SSA}(?:#\d+)?)",
    rf"(?P<SYMBOL>@(?:{_ID}|\"(?:[^\"\\\n]|\\.)*\"))",
    r"(?P<BLOCK>\^[\w$.\-]+)",
    r"(?P<LOCDEF>#[\w$.\-]+[ \t]*=[ \t]*loc\()",
    r"(?P<HASHANGLE>#[\w$.\-]*<)",
    r"(?P<HASH>#[\w$.\-]+)",
    r"(?P<BANG>![\w$.\-]+)",
    r"(?P<LOC>loc\()",
    r"(?P<WORDANGLE>[A-Za-z_][\w$]*<)",
    r"(?P<NUMBER>-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?))",
    r"(?P<STRING>\"(?:[^\"\\\n]|\\.)*\")",
    rf"(?P<BARE>{_ID})",
    r"(?P<ARROW>->)",
    r"(?P<LPROP><\{)",
    r"(?P<ANGLE><)",
    r"(?P<OTHER>[?*+x!|&])",
]) + ")")
_SIMPLE_CLOSE = re.compile(r'[^<>"\n\-]*>')  # the rest of `tensor<2x3xf32>`: no nesting, strings or arrows
_VALUE_ONLY = re.compile(_SSA + r"(?:#\d+)?")
_PUNCT = {"(": "LPAR", ")": "RPAR", "{": "LBRACE", "}": "RBRACE", "[": "LBRACK", "]": "RBRACK",
          ",": "COMMA", ":": "COLON", "=": "EQ"}
_TYPE_WORDS = frozenset({"tensor", "tuple", "complex", "vector", "memref"})
_STATEMENT_WORDS = frozenset({"module", "return", "call", "func"})
_STRING_IN_BRACKETS = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"")
MLIR_BYTECODE = b"ML\xefR"


def _error(lines: LineMap, pos: int, message: str) -> HloParseError:
    line, col = lines.locate(pos)
    return HloParseError(message, line, col)


def scan_balanced(text: str, pos: int, opener: str, closer: str, lines: LineMap) -> int:
    """The offset just past the `closer` matching the `opener` at text[pos - 1]; strings and
    `->` inside are skipped (a `>` of an arrow closes nothing)."""
    depth = 1
    n = len(text)
    i = pos
    while i < n:
        c = text[i]
        if c == '"':
            m = _STRING_IN_BRACKETS.match(text, i)
            if m is None:
                raise _error(lines, i, "unterminated string")
            i = m.end()
            continue
        if c == opener:
            depth += 1
        elif c == closer:
            if not (closer == ">" and i > 0 and text[i - 1] == "-"):
                depth -= 1
                if depth == 0:
                    return i + 1
        elif c == "\n" and closer == ">":
            break  # a type or attribute never spans lines: report the opener, not the file's end
        i += 1
    raise _error(lines, pos - 1, f"unbalanced '{opener}': no matching '{closer}'")


_SPACE = re.compile(r"[ \t\r\n]*")


def _fast_run(text: str, pos: int, fast_op: Any, fast_return: Any) -> tuple[list, int] | None:
    """The OpViews of the run of fast-path lines starting at pos (one FASTOP token for them all:
    the parser then steps once per run, not thrice per op), and where the run ends."""
    views = []
    space = _SPACE.match
    n = len(text)
    while pos < n:
        c = text[pos]
        if c == "%":
            fast = fast_op(text, pos)
        elif c == "r" or c == "s" or c == "f":
            fast = fast_return(text, pos)
        else:
            break
        if fast is None:
            break
        views.append(fast[0])
        blank = space(text, fast[1])  # a fast line ends at a newline (or the end): the next line starts here
        assert blank is not None
        pos = blank.end()
    return (views, pos) if views else None


# The tokens the grammar sees one by one; every other kind (values, types, numbers, ',', ':', ...)
# is gathered into an ATOMS token whose fifth field is the run, so the LALR loop steps once per run.
STRUCTURE = frozenset({"FASTOP", "FUNCHEAD", "OPNAME", "RESULTS", "BLOCK", "LOCDEF", "RESOURCES", "LPAR", "RPAR", "LBRACE",
                       "RBRACE", "LBRACK", "RBRACK", "LPROP", "RPROP"})


def _fast_lines(text: str, pos: int, c: str) -> tuple[str, Any, int] | None:
    """A FUNCHEAD (a func.func header line) or a FASTOP (a run of op lines) at the start of a
    line, as (kind, payload, end), or None: lexer_fast.py reads them."""
    from hlotools.text.stablehlo import lexer_fast  # (it imports the reader, which imports this module)
    if c == "f" and text.startswith("func.func ", pos):
        head = lexer_fast.fast_function(text, pos)
        if head is not None:
            return "FUNCHEAD", head[0], head[1]
    run = _fast_run(text, pos, lexer_fast.fast_op, lexer_fast.fast_return)
    return None if run is None else ("FASTOP", run[0], run[1])


def tokenize(text: str, lines: LineMap) -> Iterator[Token]:
    """The grammar's tokens (atom runs merged, see STRUCTURE), then $END."""
    pos = 0
    n = len(text)
    line_start = True
    after_results = False
    match = _MASTER.match
    structure = STRUCTURE
    atoms: list[Token] = []
    while pos < n:
        m = match(text, pos)
        if m is None:
            if not text[pos:].strip(" \t"):
                break
            at = len(text[pos:]) - len(text[pos:].lstrip(" \t")) + pos
            raise _error(lines, at, f"unexpected character {text[at]!r}")
        kind = m.lastgroup or ""
        end = m.end()
        if kind == "WS":
            if "\n" in m.group():
                line_start = True
            pos = end
            continue
        start = m.start(kind)
        first = line_start
        line_start = False
        c = text[start]
        if first and (c == "%" or c in "rsf"):
            fast = _fast_lines(text, start, c)
            if fast is not None:
                if atoms:
                    yield ("ATOMS", atoms[0][1], atoms[0][2], atoms[0][3], atoms)  # type: ignore[misc]
                    atoms = []
                yield (fast[0], "", start, True, fast[1])  # type: ignore[misc]
                pos = fast[2]
                line_start = True  # fast lines end at a newline (or the end); a header just before one
                after_results = False
                continue
        if kind == "PUNCT":
            kind = _PUNCT[c]
        elif kind == "TYPED":
            colon = text.index(":", start)
            at = text.index("t", colon)
            atoms.append(("VALUE", text[start:colon], start, first))
            atoms.append(("COLON", ":", colon, False))
            atoms.append(("TYPE", text[at:end], at, False))
            pos = end
            after_results = False
            continue
        elif kind == "RESULTS" and not first:  # `%iterArg = %x` inside while(...): a value and '='
            m2 = _VALUE_ONLY.match(text, start)
            assert m2 is not None
            end = m2.end()
            kind = "VALUE"
        elif kind == "HASHANGLE" or kind == "WORDANGLE":
            simple = _SIMPLE_CLOSE.match(text, end)
            end = simple.end() if simple is not None else scan_balanced(text, end, "<", ">", lines)
            word = text[start:m.end() - 1]
            kind = "HASH" if kind == "HASHANGLE" else ("TYPE" if word in _TYPE_WORDS else "DENSE")
        elif kind == "BANG":
            if end < n and text[end] == "<":
                end = scan_balanced(text, end + 1, "<", ">", lines)
            kind = "TYPE"
        elif kind == "LOC" or kind == "LOCDEF":
            end = scan_balanced(text, end, "(", ")", lines)
        elif kind == "ANGLE":
            end = scan_balanced(text, end, "<", ">", lines)
        elif kind == "RESOURCES":
            close = text.find("#-}", end)
            if close < 0:
                raise _error(lines, start, "unterminated '{-#' resource section: no '#-}'")
            end = close + 3
        elif (first or after_results) and (kind == "BARE" and ("." in m.group(kind) or m.group(kind) in
                                                               _STATEMENT_WORDS) or kind == "STRING"):
            kind = "OPNAME"
        after_results = kind == "RESULTS"
        if kind in structure:
            if atoms:
                yield ("ATOMS", atoms[0][1], atoms[0][2], atoms[0][3], atoms)  # type: ignore[misc]
                atoms = []
            yield (kind, text[start:end], start, first)
        else:
            atoms.append((kind, text[start:end], start, first))
        pos = end
    if atoms:
        yield ("ATOMS", atoms[0][1], atoms[0][2], atoms[0][3], atoms)  # type: ignore[misc]
    yield ("$END", "", n, True)


__all__ = ["MLIR_BYTECODE", "STRUCTURE", "Token", "scan_balanced", "tokenize"]
