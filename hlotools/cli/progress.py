"""A progress line on standard error for long work (a pipeline over thousands of instructions,
a cold compile, a sweep over many modules), drawn with rich only when standard error is a
terminal: nothing when it is piped or redirected, nothing with -q, and nothing imported then
(rich costs ~30 ms to import). The line is transient: it is gone when the work is done, so
what stays on the terminal is the tool's output.
"""
from __future__ import annotations

import sys
from types import TracebackType
from typing import Any


def progress_wanted(quiet: bool = False) -> bool:
    if quiet:
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """`with Progress("measuring", total=12) as p: ... p.advance(description=...)`; a no-op
    unless progress_wanted(). `total` None draws a spinner with the elapsed time."""

    def __init__(self, description: str, total: int | None = None, quiet: bool = False) -> None:
        self.description = description
        self.total = total
        self._bar: Any = None
        self._task: Any = None
        self.enabled = progress_wanted(quiet)

    def __enter__(self) -> Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )
            from rich.progress import Progress as RichProgress
            columns: list[Any] = [SpinnerColumn(), TextColumn("{task.description}")]
            if self.total is not None:
                columns += [BarColumn(), MofNCompleteColumn()]
            columns.append(TimeElapsedColumn())
            self._bar = RichProgress(*columns, console=Console(file=sys.stderr), transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self.description, total=self.total)
        return self

    def update(self, description: str | None = None, completed: int | None = None,
               total: int | None = None) -> None:
        if self._bar is not None:
            self._bar.update(self._task, description=description, completed=completed, total=total)

    def advance(self, description: str | None = None) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=1, description=description)

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
