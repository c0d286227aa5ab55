"""HLO text -> IR: Lark's LALR tables for grammar/hlo.lark, driven here with our own callbacks.

Lark builds the LALR(1) tables once; they are pickled (as plain dicts) into the user's cache
directory so later runs skip the analysis, and rebuilt in memory if that directory is not
writable. The parse loop below is Lark's shift/reduce loop without Token objects or a tree:
each reduction calls the Builder method named by the grammar alternative's alias, so the IR is
built while parsing. Lark's exceptions never escape; syntax errors become HloParseError with a
message in HLO terms.
"""
from __future__ import annotations

import gc
import hashlib
import os
import pickle
import sys
from pathlib import Path
from typing import Any

from hlotools.errors import HloError, HloParseError
from hlotools.ir.module import Module
from hlotools.text.lexer import LineMap, Token, check_long_integers, check_nul, tokenize
from hlotools.text.parse_build import Builder
from hlotools.text.parse_errors import syntax_error

# states[state][terminal or nonterminal] = (is_shift, new state | rule index)
# rules[i] = (callback name, expansion length, origin nonterminal)
Tables = tuple[dict[int, dict[str, tuple[bool, int]]], list[tuple[str, int, str]], int, int]
_TABLES: Tables | None = None
_FORMAT = 2


def grammar_text() -> str:
    """grammar/hlo.lark, read from the package's folder (found with find_spec: importlib.resources
    costs ~3 ms of imports at every start); through importlib.resources where the package is
    not a plain folder (a zip)."""
    from importlib.util import find_spec
    spec = find_spec("hlotools.grammar")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        path = Path(folder) / "hlo.lark"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    from importlib import resources
    return resources.files("hlotools.grammar").joinpath("hlo.lark").read_text(encoding="utf-8")


def _cache_path(digest: str) -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hlotools" / f"hlo-lalr-{digest[:16]}.pickle"


def _build_tables(grammar: str) -> Tables:
    from lark import Lark
    from lark.lexer import Lexer

    class _NoLexer(Lexer):  # the tokens come from hlotools.text.lexer
        def __init__(self, conf: Any) -> None:
            pass

        def lex(self, *args: Any) -> Any:  # pragma: no cover - never called
            return iter(())

    lark = Lark(grammar, parser="lalr", lexer=_NoLexer)
    table = lark.parser.parser.parser.parse_table
    rule_index: dict[Any, int] = {}
    rules: list[tuple[str, int, str]] = []
    states: dict[int, dict[str, tuple[bool, int]]] = {}
    for state, row in table.states.items():
        out: dict[str, tuple[bool, int]] = {}
        for sym, (action, arg) in row.items():
            sym = str(sym)  # Lark hands Token objects (slow __eq__); the table holds plain str
            if action.name == "Shift":
                out[sym] = (True, arg)
            else:
                k = rule_index.get(arg)
                if k is None:
                    k = rule_index[arg] = len(rules)
                    rules.append((str(arg.alias or arg.origin.name), len(arg.expansion), str(arg.origin.name)))
                out[sym] = (False, k)
        states[state] = out
    return states, rules, table.start_states["start"], table.end_states["start"]


def _lark_identity() -> str:
    """Which lark built the tables, without importing it (importing lark costs ~30 ms of a
    warm hlo-run): its package file's path, size and modification time (an upgrade rewrites it)."""
    from importlib.util import find_spec
    spec = find_spec("lark")
    origin = spec.origin if spec is not None else None
    try:
        st = os.stat(origin) if origin else None
    except OSError:
        st = None
    return f"{origin}:{st.st_size}:{st.st_mtime_ns}" if st is not None else "lark:unknown"


def tables() -> Tables:
    global _TABLES
    if _TABLES is not None:
        return _TABLES
    grammar = grammar_text()
    digest = hashlib.sha256(f"{_FORMAT}:{_lark_identity()}:{sys.version_info[:2]}:{grammar}".encode()).hexdigest()
    path = _cache_path(digest)
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
        pass  # read-only home: keep the in-memory tables
    return _TABLES


def parse(text: str, filename: str | None = None) -> Module:
    """Parse a full module, a header-less module or a single instruction."""
    lines = LineMap(text)
    # The IR is a large graph of small objects: the cyclic GC would rescan it again and again
    # while it grows (quadratic on a 100k-instruction module). Nothing made here is garbage.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse(text, lines)
    except HloError as e:
        raise e.with_place(filename, text) from None
    except RecursionError:
        raise HloParseError("maximum recursion depth exceeded").with_place(filename, text) from None
    finally:
        if gc_was_enabled:
            gc.enable()


def _parse(text: str, lines: LineMap) -> Module:
    """Lark's LALR shift/reduce loop over our tokens, calling the Builder at each reduction
    (no Token objects, no tree: that is where plain Lark spends its time)."""
    check_nul(text, lines)
    check_long_integers(text, lines)
    states, rules, start, end = tables()
    builder = Builder(text, lines)
    callbacks = [getattr(builder, r[0]) for r in rules]
    sizes = [r[1] for r in rules]
    origins = [r[2] for r in rules]
    sstack = [start]
    vstack: list[Any] = []
    last: Token | None = None
    first: list[str] = []
    for tok in _with_end(tokenize(text, lines), len(text)):
        if len(first) < 2:
            first.append(tok[0])
        ttype = tok[0]
        while True:
            act = states[sstack[-1]].get(ttype)
            if act is None:
                single = first[0] not in ("HLOMODULE", "ENTRY", "STACKFRAMES") and first[1:2] != ["LBRACE"]
                raise syntax_error(tok, last, states[sstack[-1]], vstack, lines, single)
            if act[0]:
                sstack.append(act[1])
                vstack.append(tok)
                last = tok
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
                return value
    raise HloParseError("unexpected end of input")  # pragma: no cover - $END always decides


def _with_end(tokens: Any, n: int) -> Any:
    yield from tokens
    yield ("$END", "", n, None)
