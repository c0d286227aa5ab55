"""One exception family for every user-facing failure, always with a place to point at."""
from __future__ import annotations

import re
from dataclasses import dataclass

CONTEXT = 100  # characters of the source line shown on each side of the caret
MAX_MESSAGE = 1000  # a message quoting the input is cut there
_LINE_BREAK = re.compile(r"\r\n|\n|\r")  # as the lexer's LineMap counts lines


@dataclass(frozen=True)
class SourceLocation:
    line: int
    column: int
    filename: str | None = None

    def __str__(self) -> str:
        return f"{self.filename or '<input>'}:{self.line}:{self.column}"


class ShapeError(Exception):
    """A malformed shape text; `offset` is relative to its start. Not an HloError: whoever parses
    a shape (the parser, io, the compile cache, the verifier's layout checks) turns it into one
    with a place, or into its own refusal."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


class HloError(Exception):
    """Bad input (text, shapes, arguments): printed as FILE:LINE:COL: error: MESSAGE."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 filename: str | None = None, source: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.filename = filename
        self.source = source  # full text, so format() can show the offending line

    @property
    def location(self) -> SourceLocation | None:
        if self.line is None:
            return None
        return SourceLocation(self.line, self.column or 1, self.filename)

    def with_place(self, filename: str | None = None, source: str | None = None) -> HloError:
        if filename is not None and self.filename is None:
            self.filename = filename
        if source is not None and self.source is None:
            self.source = source
        return self

    def format(self) -> str:
        """The one-line message, then (when known) the source line and a caret.

        The quoted line is a window of at most ~2*CONTEXT characters around the caret, with
        non-printable characters escaped: a 100 MB file of NUL bytes is one line."""
        where = self.filename or "<input>"
        message = _printable(self.message, MAX_MESSAGE)
        if self.line is None:
            return f"{where}: error: {message}"
        head = f"{where}:{self.line}:{self.column or 1}: error: {message}"
        if not self.source:
            return head
        text = _source_line(self.source, self.line)
        if text is None:
            return head
        shown, caret = _window(text, (self.column or 1) - 1)
        return f"{head}\n{shown}\n{' ' * caret}^"

    def __str__(self) -> str:
        if self.line is None:
            return self.message
        return f"{self.filename or '<input>'}:{self.line}:{self.column or 1}: {self.message}"


class HloParseError(HloError):
    """The text is not valid HLO syntax (or breaks a rule XLA's parser enforces)."""


class HloVerifyError(HloError):
    """The module parses but is semantically invalid (shapes, operand counts, attributes)."""


class HloRuntimeError(HloError):
    """Execution cannot proceed: bad arguments, unsupported op, elided constant, ..."""


class HloUnsupportedError(HloRuntimeError):
    """A construct hlotools deliberately does not execute (named in the message)."""


def _source_line(source: str, line: int) -> str | None:
    """Line `line` (1-based) of source, split the way the lexer numbers lines (\\n, \\r\\n, \\r;
    str.splitlines would also split at \\f, \\x1c, U+2028, ... and disagree with the column)."""
    if line < 1:
        return None
    start = 0
    if line > 1:
        for k, m in enumerate(_LINE_BREAK.finditer(source), 2):
            if k == line:
                start = m.end()
                break
        else:
            return None
    end = _LINE_BREAK.search(source, start)
    return source[start:end.start() if end else len(source)]


def _shown(c: str) -> str:
    if c == "\t":
        return " "  # one column, as the lexer counts it
    if c.isprintable():
        return c
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _window(text: str, index: int) -> tuple[str, int]:
    """(displayed text, caret column) for the characters around text[index]."""
    index = max(0, min(index, len(text)))
    lo, hi = max(0, index - CONTEXT), min(len(text), index + CONTEXT)
    before = "".join(_shown(c) for c in text[lo:index])
    after = "".join(_shown(c) for c in text[index:hi])
    prefix = "..." if lo > 0 else ""
    suffix = "..." if hi < len(text) else ""
    return prefix + before + after + suffix, len(prefix) + len(before)


def _printable(message: str, limit: int) -> str:
    """The message with control characters escaped, cut to `limit` characters."""
    if message.isprintable() and len(message) <= limit:
        return message
    out = "".join(_shown(c) if c != "\t" else "\\t" for c in message[:limit])
    return out + ("..." if len(message) > limit else "")
