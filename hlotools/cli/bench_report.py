"""hlo-bench's tables: rich on a terminal, one line per module when piped, markdown for CI logs."""
from __future__ import annotations

import sys

import click

from hlotools.cli.bench_compare import COLUMNS, Verdict

_COLOURS = {"regressed": "red", "missing": "red", "error": "red", "improved": "green", "ok": "green",
            "new": "yellow"}


def _cells(v: Verdict) -> list[str]:
    return [v.key] + [v.cells.get(c, "") for c in COLUMNS[1:]]


def _reasons(v: Verdict) -> list[str]:
    """Why a module failed (improvements show in the verdict column; --json lists them)."""
    return [f"{v.status}: {p}" for p in v.problems]


def print_table(verdicts: list[Verdict], summary: str) -> None:
    """Rich on a terminal (standard output), else plain lines: `MODULE: col value, ...: verdict`."""
    from hlotools.cli.report import _maybe_terminal
    if _maybe_terminal():
        from rich.console import Console
        console = Console(file=sys.stdout, highlight=False, soft_wrap=True)
        if console.is_terminal:
            _rich_table(console, verdicts, summary)
            return
    for v in verdicts:
        parts = [f"{c} {v.cells[c]}" for c in COLUMNS[1:-1] if v.cells.get(c)]
        click.echo(f"{v.key}: " + ", ".join(parts) + (": " if parts else "") + v.cells.get("verdict", v.status))
        for line in _reasons(v):
            click.echo(f"  {line}")
    click.echo(summary)


def _rich_table(console: object, verdicts: list[Verdict], summary: str) -> None:
    from rich.markup import escape
    from rich.table import Table
    table = Table(title="hlo-bench", title_justify="left")
    for c in COLUMNS:
        table.add_column(c, justify="left" if c in ("module", "verdict") else "right")
    for v in verdicts:
        cells = [escape(c) for c in _cells(v)]
        colour = _COLOURS.get(v.status)
        if colour:
            cells[-1] = f"[{colour}]{cells[-1]}[/{colour}]"
        table.add_row(*cells)
    console.print(table)  # type: ignore[attr-defined]
    for v in verdicts:
        for line in _reasons(v):
            console.print(f"{escape(v.key)}: {escape(line)}", markup=True)  # type: ignore[attr-defined]
    console.print(escape(summary))  # type: ignore[attr-defined]


def markdown(verdicts: list[Verdict], summary: str) -> str:
    """A GitHub-flavoured summary: the verdict, the table and the reasons."""
    def row(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"
    lines = ["### hlo-bench", "", f"**{summary}**", "", row(list(COLUMNS)), row(["---"] * len(COLUMNS))]
    lines += [row(_cells(v)) for v in verdicts]
    reasons = [f"- `{v.key}`: {line}" for v in verdicts for line in _reasons(v)]
    if reasons:
        lines += ["", *reasons]
    return "\n".join(lines) + "\n"
