"""One exception family for every user-facing failure, always with a place to point at."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    line: int
    column: int
    filename: str | None = None

    def __str__(self) -> str:
        return f"{self.filename or '<input>'}:{self.line}:{self.column}"


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
        """The one-line message, then (when known) the source line and a caret."""
        where = self.filename or "<input>"
        if self.line is None:
            return f"{where}: error: {self.message}"
        head = f"{where}:{self.line}:{self.column or 1}: error: {self.message}"
        if not self.source:
            return head
        lines = self.source.splitlines()
        if not 1 <= self.line <= len(lines):
            return head
        text = lines[self.line - 1].expandtabs(1)
        return f"{head}\n{text}\n{' ' * max((self.column or 1) - 1, 0)}^"

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
