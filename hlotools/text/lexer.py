"""The HLO lexer: one compiled regex plus a few scanners for verbatim regions.

XLA's lexer classifies a word by what is glued to it (`x:` is a name, `x=` an attribute name),
so a context-free longest-match lexer does not fit. This lexer produces the coarse tokens the
grammar (grammar/hlo.lark) expects; a token is a plain tuple `(type, text, pos, aux)`:
  SHAPE    text = the shape's source text (decoded and memoised by ir/shape_text.py)
  ATTR     text = attribute name, aux = (raw value text, position of the value)
  LITERAL / PARAMNUM  text = the text between the parentheses, aux = its position
  GTE      text = `#1#0`
everything else: text = the token's text (for PNAME without the `%`, for CNAME without ':').
"""
from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Generator, Iterator

from hlotools.errors import HloParseError
from hlotools.ir.lazy_regex import lazy_regex
from hlotools.ir.opcodes import COMPUTATION_ATTRS, COMPUTATION_LIST_ATTRS
from hlotools.ir.shape_text import GAP
from hlotools.ir.types import ELEMENT_TYPES
from hlotools.text.lexer_fast import fast_instruction

Token = tuple  # (type, text, pos, aux)

PRIMITIVE_TYPES = frozenset(ELEMENT_TYPES)
# Words XLA lexes as keywords (other than the structural ones): they can never be bare names.
KEYWORDS = frozenset("true false inf nan maximal replicated manual last_tile_dim_replicate "
                     "shard_as shard_like unknown unreduced".split())
_STRUCTURAL = {"HloModule": "HLOMODULE", "ENTRY": "ENTRY", "ROOT": "ROOT"}
_CATTRS = frozenset(COMPUTATION_ATTRS)
_CLATTRS = frozenset(COMPUTATION_LIST_ATTRS)
_PUNCT = {"(": "LPAR", ")": "RPAR", "{": "LBRACE", "}": "RBRACE", ",": "COMMA", "=": "EQ"}

_TOKEN = re.compile(r"""
  (?P<skip>(?:[ \t\n\r]+|//[^\n\r]*|/\*(?:[^*]|\*(?!/))*\*/)+)
| %(?P<pname>[A-Za-z_][A-Za-z0-9_.\-]*)
| (?P<word>[A-Za-z_][A-Za-z0-9_.\-]*)
| (?P<gte>(?:\#-?[A-Za-z0-9_]*)+)
| (?P<punct>[(){},=])
| (?P<arrow>->)
""", re.X)
# The rest of an array shape after its element type: dims, then a layout when the `{` is
# followed by a digit or ':' (XLA's rule; otherwise the brace opens something else), with
# comments allowed before the `{` (GAP: whitespace and comments, as ir/shape_text reads them).
_SHAPE_REST = re.compile(r"\[[^\]\[]*\]" + r"(?:" + GAP + r"\{(?=" + GAP + r"[0-9:])(?:[^{}]|\{[^{}]*\})*\})?")
_SKIP = re.compile(GAP)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_VALUE_SPECIAL = re.compile(r'[\s,{}()\[\]"/]')
_PARENS = lazy_regex(r"[()]|/\*(?:[^*]|\*(?!/))*\*/|//[^\n\r]*|\"(?:[^\"\\]|\\.)*\"")
_FRAMES = lazy_regex(r"""(?:[ \t\n\r]+|//[^\n\r]*|/\*(?:[^*]|\*(?!/))*\*/
  |(?:FileNames|FunctionNames|FileLocations|StackFrames)(?![A-Za-z0-9_.\-])
  |-?[0-9]+|"(?:[^"\\]|\\.)*"|\{[^{}]*\})*""", re.X)
_MESH_CONT = lazy_regex(r"[ \t\n\r]*(?:\{|,[ \t\n\r]*device_ids=)")


class LineMap:
    """Offsets -> (line, column), both 1-based; built once per text, looked up by bisection."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None

    def locate(self, pos: int) -> tuple[int, int]:
        starts = self._starts
        if starts is None:
            starts = [0] + [m.end() for m in re.finditer(r"\r\n|\n|\r", self.text)]
            self._starts = starts
        lo = bisect_right(starts, pos) - 1
        return lo + 1, pos - starts[lo] + 1


def error_at(lines: LineMap, pos: int, message: str) -> HloParseError:
    line, col = lines.locate(pos)
    return HloParseError(message, line, col)


def scan_string_end(text: str, pos: int) -> int:
    m = _STRING.match(text, pos)
    return m.end() if m else -1


# The common value shapes, matched in one step: a plain word/number, a string, or one brace
# level with strings inside (metadata={op_name="..." source_line=3}, dimensions={0,1}).
_SIMPLE_VALUE = re.compile(r"""(?:[^\s,{}()\[\]"/]+|"(?:[^"\\]|\\.)*"|\{[^{}"()\[\]/]*(?:"(?:[^"\\]|\\.)*"[^{}"()\[\]/]*)*\})""")
_VALUE_END = frozenset(" \t\r\n,)}")


def scan_value(text: str, pos: int, lines: LineMap) -> int:
    m = _SIMPLE_VALUE.match(text, pos)
    if m is not None:
        end = m.end()
        if end == len(text) or text[end] in _VALUE_END:
            if not text.startswith(("mesh[", "maximal_mesh["), pos):
                return end
    return _scan_value(text, pos, lines)


def _scan_value(text: str, pos: int, lines: LineMap) -> int:
    """End of an attribute value starting at pos: glued atoms, brackets balanced.

    The value ends at a top-level ',', whitespace or unmatched closing bracket. Strings are
    skipped (raw JSON backend configs contain braces inside strings). The mesh forms
    `mesh[...] {...}` and `mesh[...], device_ids=(...)` continue across the separator.
    """
    depth = 0
    i = pos
    search = _VALUE_SPECIAL.search
    while True:
        m = search(text, i)
        if m is None:
            if depth:  # unbalanced: hand the rest of the line to the value's own decoder
                nl = text.find("\n", pos)
                return len(text) if nl < 0 else nl
            return len(text)
        j = m.start()
        c = text[j]
        if c == '"':
            end = scan_string_end(text, j)
            if end < 0:
                raise error_at(lines, j, "unterminated string")
            i = end
        elif c in "{([":
            depth += 1
            i = j + 1
        elif c in "})]":
            if depth == 0:
                return j
            depth -= 1
            i = j + 1
        elif c == "/":
            if depth == 0:
                return j
            m2 = _SKIP.match(text, j)
            i = m2.end() if m2 and m2.end() > j else j + 1
        elif depth == 0:
            if text.startswith(("mesh[", "maximal_mesh["), pos):
                m3 = _MESH_CONT.match(text, j)
                if m3:
                    i = m3.end() - 1 if text[m3.end() - 1] == "{" else m3.end()
                    continue
            return j
        else:
            i = j + 1


def scan_parens(text: str, pos: int, lines: LineMap) -> int:
    """pos is at '('; returns the position of its matching ')'."""
    close = text.find(")", pos + 1)
    if close > 0 and not any(c in text[pos + 1:close] for c in '("/'):
        return close  # the common case (a constant's values, a parameter number), found by memchr
    depth = 0
    for m in _PARENS.finditer(text, pos):
        c = m.group()
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return m.start()
    raise error_at(lines, pos, "expected ')' to close the '(' opened here")


RESERVED = PRIMITIVE_TYPES | KEYWORDS | frozenset(_STRUCTURAL) | frozenset(
    ["FileNames", "FunctionNames", "FileLocations", "StackFrames"])
FAST_PATH = True  # the one-token instruction path (lexer_fast); tests switch it off to compare
_FAST_START = frozenset("%ROOTabcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")


def tokenize(text: str, lines: LineMap) -> Iterator[Token]:
    """The grammar's tokens, in order; the first character that starts no token is yielded as a
    NUMBER/STRING/CHAR token (or raised) so the parser can say what it expected there.

    One long loop because it is the parser's hottest code: a helper per word kind would add a
    function call per token (a 100k-instruction module has ~1M of them).
    """
    match = _TOKEN.match
    n = len(text)
    pos = 0
    while pos < n:
        if FAST_PATH and text[pos] in _FAST_START:
            fast = fast_instruction(text, pos, RESERVED, lines, scan_value, scan_literal_value, scan_parens)
            if fast is not None:
                yield fast[0]
                pos = fast[1]
                continue
        m = match(text, pos)
        if m is None:
            yield _bad_char(text, pos, lines)
            return
        kind = m.lastgroup
        end = m.end()
        if kind == "skip":
            if end == pos:  # pragma: no cover - the regex never matches empty here
                break
            pos = end
            continue
        if kind == "word":
            word = m.group("word")
            nxt = text[end:end + 1]
            if nxt == ":":
                yield ("CNAME", word, pos, None)
                pos = end + 1
            elif nxt == "=":
                pos = yield from _attr(text, word, pos, end + 1, lines)
            elif word in PRIMITIVE_TYPES and nxt == "[":
                m2 = _SHAPE_REST.match(text, end)
                if m2 is None:
                    raise error_at(lines, end, "expected ']' to close the dimensions of the shape")
                yield ("SHAPE", text[pos:m2.end()], pos, None)
                pos = m2.end()
            elif word == "b" and nxt == "(":
                yield ("BUFFER", "b(", pos, None)
                pos = end + 1
            elif word == "constant" or word == "parameter":
                m2 = _SKIP.match(text, end)
                j = m2.end() if m2 else end
                if text[j:j + 1] == "(":
                    close = scan_parens(text, j, lines)
                    yield ("IDENT", word, pos, None)
                    yield ("LITERAL" if word == "constant" else "PARAMNUM", word, j,
                           (text[j + 1:close], j + 1))
                    pos = close + 1
                else:
                    yield ("IDENT", word, pos, None)
                    pos = end
            elif word in _STRUCTURAL:
                yield (_STRUCTURAL[word], word, pos, None)
                pos = end
            elif word == "FileNames":
                m2 = _FRAMES.match(text, pos)
                stop = m2.end() if m2 else end
                block = text[pos:stop].rstrip()
                yield ("STACKFRAMES", block, pos, None)
                pos = pos + len(block)
            elif word in PRIMITIVE_TYPES:
                yield ("PTYPE", word, pos, None)
                pos = end
            elif word in KEYWORDS:
                yield ("KEYWORD", word, pos, None)
                pos = end
            else:
                yield ("IDENT", word, pos, None)
                pos = end
        elif kind == "pname":
            yield ("PNAME", m.group("pname"), pos, None)
            pos = end
        elif kind == "punct":
            c = text[pos]
            yield (_PUNCT[c], c, pos, None)
            pos = end
        elif kind == "gte":
            yield ("GTE", m.group(), pos, None)
            pos = end
        else:
            yield ("ARROW", "->", pos, None)
            pos = end


def _attr(text: str, name: str, pos: int, vpos: int, lines: LineMap) -> Generator[Token, None, int]:
    """An attribute `name=`: computation attributes leave the value to the grammar."""
    if name in _CATTRS:
        yield ("CATTR", name, pos, None)
        return vpos
    if name in _CLATTRS:
        yield ("CLATTR", name, pos, None)
        return vpos
    m = _SKIP.match(text, vpos)
    if m is not None:
        vpos = m.end()  # XLA's lexer skips whitespace between `name=` and the value
    end = scan_literal_value(text, vpos, lines) if name == "literal" else scan_value(text, vpos, lines)
    yield ("ATTR", name, pos, (text[vpos:end], vpos))
    return end


_SHAPE_START = re.compile(r"[a-z][a-z0-9_]*(?=\[)")


def scan_literal_value(text: str, pos: int, lines: LineMap) -> int:
    """custom-call's `literal=`: `shape value` (whitespace inside) or a parenthesised tuple."""
    if text.startswith("(", pos):
        return scan_parens(text, pos, lines) + 1
    m = _SHAPE_START.match(text, pos)
    if m is None:
        return scan_value(text, pos, lines)
    m2 = _SHAPE_REST.match(text, m.end())
    if m2 is None:
        return scan_value(text, pos, lines)
    m3 = _SKIP.match(text, m2.end())
    j = m3.end() if m3 else m2.end()
    if text.startswith("(", j):
        return scan_parens(text, j, lines) + 1
    return scan_value(text, j, lines)


# Where XLA's lexer reads NUL: everywhere except inside a quoted string (LexString matches the
# whole string with RE2, which takes any byte; comments and tokens read char by char and stop).
_NUL_SCAN = re.compile(r"""//[^\n\r\0]*|/\*(?:[^*\0]|\*(?!/))*(?:\*/)?|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\0""")


def check_nul(text: str, lines: LineMap) -> None:
    """Raise at the first NUL byte outside a string (the token regexes would skip it in comments)."""
    if "\0" not in text:
        return
    for m in _NUL_SCAN.finditer(text):
        if m.group() == "\0":
            raise error_at(lines, m.start(), "NUL character in the input")


# A decimal integer of 21 or more digits fits neither int64 nor uint64, where XLA's lexer reads
# every integer ("expects integer"); Python would refuse it with a ValueError past 4300 digits.
# Strings and comments are skipped; digits glued to a word, '.', or an exponent are not integers.
_LONG_DIGITS = re.compile(r"[0-9]{21}")
_LONG_INT_SCAN = re.compile(r"""//[^\n\r]*|/\*(?:[^*]|\*(?!/))*(?:\*/)?|"(?:[^"\\]|\\.)*"|(?<![\w.])(?<![eE][+-])[0-9]{21,}(?![\w.])""")


def check_long_integers(text: str, lines: LineMap) -> None:
    """Raise at the first integer that cannot be a 64-bit value (a memchr-fast pre-scan first)."""
    if _LONG_DIGITS.search(text) is None:
        return
    for m in _LONG_INT_SCAN.finditer(text):
        digits = m.group()
        if digits[0].isdigit():
            shown = digits if len(digits) <= 40 else f"{digits[:20]}...({len(digits)} digits)"
            raise error_at(lines, m.start(), f"integer {shown} does not fit in 64 bits (XLA reads integers "
                           "as int64 or uint64)")


def _bad_char(text: str, pos: int, lines: LineMap) -> Token:
    c = text[pos]
    if text.startswith("/*", pos):
        raise error_at(lines, pos, "unterminated /* comment")
    if c == "%":
        raise error_at(lines, pos, "expected a name after '%'")
    if c == "\0":
        raise error_at(lines, pos, "NUL character in the input")
    if c == '"':
        if scan_string_end(text, pos) < 0:
            raise error_at(lines, pos, "unterminated string")
        return ("STRING", text[pos:scan_string_end(text, pos)], pos, None)
    if c.isdigit() or c == "-":
        m = re.match(r"-?[0-9][0-9A-Za-z_.]*", text[pos:])
        return ("NUMBER", m.group() if m else c, pos, None)
    return ("CHAR", c, pos, None)
