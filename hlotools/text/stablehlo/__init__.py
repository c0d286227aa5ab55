"""StableHLO (MLIR text) -> IR: the front end for what `jax.jit(f).lower(x).as_text()`, jax.export
and torchax print.

The text is parsed (grammar/stablehlo.lark), translated to HLO text with XLA's MLIR->HLO
conventions (translate.py, ops*.py, chlo*.py), and that text is parsed by the HLO parser, so
the IR is built, shape-checked and verified exactly as for HLO input. Errors point into the
StableHLO text: FILE:LINE:COL of the op, also for what the HLO parser finds in its translation.
"""
from __future__ import annotations

import gc
import re
from typing import TYPE_CHECKING

from hlotools.errors import HloError, HloParseError

if TYPE_CHECKING:
    from hlotools.ir.module import Module

# `module @x`, `module attributes {`, `module {` + func.func, bare func.func, the generic form;
# never an HLO computation that happens to be called `module`.
_START = re.compile(r'\s*(?://[^\n]*\n\s*)*(module\s+(?:@|attributes\b)|module\s*\{\s*(?:func\.func|sdy\.|"func)'
                    r'|func\.func\s|"builtin\.module"|"func\.func"|#loc\w*\s*=)')


def looks_like_stablehlo(text: str) -> bool:
    """Does the text start as MLIR does (`module`, `func.func`, the generic form, `#loc` aliases)?"""
    return _START.match(text[:4096]) is not None


def stablehlo_to_hlo(text: str, filename: str | None = None) -> str:
    """The HLO text of a StableHLO module, checked by the HLO parser (errors located in `text`)."""
    hlo, _ = _translate_checked(text, filename)
    return hlo


def parse_stablehlo(text: str, filename: str | None = None, *, verify: bool = True) -> Module:
    """A StableHLO module as IR (verified, unless verify=False)."""
    return _translate_checked(text, filename, verify)[1]


def _translate_checked(text: str, filename: str | None, check: bool = True) -> tuple[str, Module]:
    from hlotools.text.lexer import LineMap
    from hlotools.text.parser import parse
    hlo, where = _translate(text, filename)
    from hlotools.ir.verifier import verify
    try:
        module = parse(hlo)
        if check:
            verify(module)
        return hlo, module
    except HloError as e:
        lines = LineMap(text)
        pos = where[e.line - 1] if e.line is not None and 0 < e.line <= len(where) else 0
        line, col = lines.locate(pos)
        raise HloParseError(f"{e.message} (in the HLO translation of this op)", line, col,
                            filename, text) from None


def _translate(text: str, filename: str | None) -> tuple[str, list[int]]:
    from hlotools.text.lexer import LineMap
    from hlotools.text.stablehlo.attributes import AttrError
    from hlotools.text.stablehlo.driver import parse_statements
    from hlotools.text.stablehlo.locations import location_defs
    from hlotools.text.stablehlo.resources import resources
    from hlotools.text.stablehlo.translate import TranslateError, to_hlo_text
    from hlotools.text.stablehlo.types import TypeError_
    lines = LineMap(text)
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        if text.lstrip().startswith("HloModule"):
            raise HloParseError("this is HLO text, not StableHLO (drop --input-format=stablehlo)", 1, 1)
        if "\x00" in text:
            line, col = lines.locate(text.index("\x00"))
            raise HloParseError("NUL character in the input", line, col)
        stmts, res = parse_statements(text, lines)
        blobs = resources(res, lines) if res is not None else {}
        return to_hlo_text(stmts, lines, blobs, location_defs(stmts))
    except (TranslateError, AttrError) as e:
        line, col = lines.locate(max(e.pos, 0))
        raise HloParseError(e.message, line, col, filename, text) from None
    except TypeError_ as e:
        raise HloParseError(e.message, 1, 1, filename, text) from None
    except HloError as e:
        raise e.with_place(filename, text) from None
    except RecursionError:
        raise HloParseError("maximum recursion depth exceeded (nesting too deep)").with_place(filename, text) from None
    finally:
        if gc_was_enabled:
            gc.enable()


__all__ = ["looks_like_stablehlo", "parse_stablehlo", "stablehlo_to_hlo"]
