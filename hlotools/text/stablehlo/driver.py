"""StableHLO text -> statement tree: Lark's LALR tables for grammar/stablehlo.lark, driven by the
same token-tuple shift/reduce loop as the HLO parser (hlotools/text/parser.py), tables cached
the same way."""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
from pathlib import Path
from typing import Any

from hlotools.errors import HloParseError
from hlotools.text.lexer import LineMap
from hlotools.text.parser import Tables, _build_tables, _lark_identity
from hlotools.text.stablehlo.lexer import Token, tokenize
from hlotools.text.stablehlo.syntax import Stmt, SyntaxBuilder

_TABLES: Tables | None = None
_FORMAT = 1
_WHAT = {"OPNAME": "an op", "RESULTS": "'%name ='", "BLOCK": "a block label", "ATOMS": "an operand or attribute",
         "RPAR": "')'", "RBRACK": "']'", "RBRACE": "'}'",
         "RPROP": "'}>'", "$END": "end of input"}


def grammar_text() -> str:
    from importlib.util import find_spec
    spec = find_spec("hlotools.grammar")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(folder) / "stablehlo.lark"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    from importlib import resources
    return resources.files("hlotools.grammar").joinpath("stablehlo.lark").read_text(encoding="utf-8")


def tables() -> Tables:
    global _TABLES
    if _TABLES is not None:
        return _TABLES
    grammar = grammar_text()
    digest = hashlib.sha256(f"{_FORMAT}:{_lark_identity()}:{sys.version_info[:2]}:{grammar}".encode()).hexdigest()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "hlotools" / f"stablehlo-lalr-{digest[:16]}.pickle"
    try:
        with open(path, "rb") as f:
            _TABLES = pickle.load(f)
            return _TABLES
    except (OSError, pickle.PickleError, EOFError, ValueError, AttributeError):
        pass
    _TABLES = _build_tables(grammar)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            pickle.dump(_TABLES, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except OSError:
        pass
    return _TABLES


def parse_statements(text: str, lines: LineMap) -> tuple[list[Stmt], Token | None]:
    """The top-level statements and the dialect-resources section (if any)."""
    states, rules, start, end = tables()
    builder = SyntaxBuilder()
    callbacks = [getattr(builder, r[0]) for r in rules]
    sizes = [r[1] for r in rules]
    origins = [r[2] for r in rules]
    sstack = [start]
    vstack: list[Any] = []
    for tok in tokenize(text, lines):
        ttype = tok[0]
        while True:
            act = states[sstack[-1]].get(ttype)
            if act is None:
                raise _syntax_error(tok, states[sstack[-1]], lines)
            if act[0]:
                sstack.append(act[1])
                vstack.append(tok)
                break
            k = act[1]
            size = sizes[k]
            if size:
                children = vstack[-size:]
                del vstack[-size:]
                del sstack[-size:]
            else:
                children = []
            value = callbacks[k](children)
            sstack.append(states[sstack[-1]][origins[k]][1])
            vstack.append(value)
            if ttype == "$END" and sstack[-1] == end:
                return value, builder.resources
    raise HloParseError("unexpected end of input")  # pragma: no cover


def _syntax_error(tok: Token, row: dict, lines: LineMap) -> HloParseError:
    expected = [w for t, w in _WHAT.items() if t in row]
    found = "end of input" if tok[0] == "$END" else f"'{tok[1][:40]}'"
    if tok[0] == "BARE" and tok[3]:
        message = f"expected an op name (dialect.op) at the start of a line, but found {found}"
    elif expected:
        message = f"expected {', '.join(dict.fromkeys(expected))}, but found {found}"
    else:
        message = f"unexpected {found}"
    line, col = lines.locate(tok[2])
    return HloParseError(message, line, col)
