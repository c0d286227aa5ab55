"""How hlo-run shows what happened: rich tables on a terminal, plain lines when piped.

Plain output is stable, one fact per line, so scripts and tests can read it; `--json` (in
run.py) is the machine-readable form of the same facts.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import click

from hlotools.io.compare import Comparison
from hlotools.io.summary import Summary


@dataclass
class Timing:
    """The measured seconds of one phase (one entry per repetition)."""
    phase: str  # parse | load | cache | passes | codegen | llvm | link | cache-load | compile | run
    seconds: list[float]

    @property
    def median(self) -> float:
        return _median(self.seconds)

    @property
    def minimum(self) -> float:
        return min(self.seconds)

    def to_json(self) -> dict:
        return {"runs": len(self.seconds), "median_ms": round(self.median * 1e3, 4),
                "min_ms": round(self.minimum * 1e3, 4)}


def _median(values: list[float]) -> float:
    """statistics.median's value (the mean of the middle two for an even count) without
    importing statistics (with fractions and decimal: ~3 ms of every hlo-run start)."""
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


class Reporter:
    """Writes to standard output; `rich` only when it is a terminal."""

    def __init__(self, force_plain: bool = False) -> None:
        self.rich = not force_plain and _maybe_terminal()
        if self.rich:  # rich costs ~30 ms to import: only where it may draw
            from rich.console import Console

            self.console = Console(file=sys.stdout, highlight=False, soft_wrap=True)
            self.rich = self.console.is_terminal

    def line(self, text: str) -> None:
        if self.rich:
            self.console.print(text, markup=False)
        else:
            click.echo(text)

    def summaries(self, items: list[Summary]) -> None:
        if not self.rich:
            for s in items:
                stats = s.stats_text()
                values = s.values_text()
                self.line(f"{s.name}: {s.shape}" + (f" {values}" if values else "") +
                          (f"  {stats}" if stats else ""))
            return
        from rich.table import Table

        table = Table(title="results", title_justify="left")
        for col in ("output", "shape", "values", "min", "max", "mean", "NaN"):
            table.add_column(col, justify="right" if col in ("min", "max", "mean", "NaN") else "left")
        for s in items:
            table.add_row(s.name, s.shape, s.values_text(), *s.stat_cells())
        self.console.print(table)

    def comparisons(self, items: list[Comparison], extra: dict[str, str] | None = None) -> None:
        """One line per comparison; `extra` (by name) appends more facts (--compare's largest
        differences)."""
        for c in items:
            text = c.describe() + (f"; {extra[c.name]}" if extra and c.name in extra else "")
            if self.rich:
                colour = "green" if c.ok else "red"
                self.console.print(f"[{colour}]{_escape(text)}[/{colour}]")
            else:
                self.line(text)

    def timings(self, items: list[Timing]) -> None:
        if not self.rich:
            for t in items:
                self.line(f"time {t.phase}: median {_ms(t.median)}, min {_ms(t.minimum)} "
                          f"({_runs(len(t.seconds))})")
            return
        from rich.table import Table

        table = Table(title="timings", title_justify="left")
        for col in ("phase", "runs", "median", "min"):
            table.add_column(col, justify="left" if col == "phase" else "right")
        for t in items:
            table.add_row(t.phase, str(len(t.seconds)), _ms(t.median), _ms(t.minimum))
        self.console.print(table)


def _maybe_terminal() -> bool:
    """False when rich would certainly print plain text: standard output is not a terminal and
    none of rich's switches (FORCE_COLOR, TTY_COMPATIBLE) is set."""
    import os
    if os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE"):
        return True
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _runs(n: int) -> str:
    return f"{n} run" + ("" if n == 1 else "s")
