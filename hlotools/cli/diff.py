"""hlo-diff: what changed between two HLO modules, structurally (hlotools/diff does the matching).

Text for people (coloured on a terminal unless NO_COLOR is set), --json for scripts; exit 0 when
the structure is the same (renames alone do not count), 3 when it differs.
"""
from __future__ import annotations

import json
import os
import sys

import click

from hlotools import parse_module
from hlotools.cli.common import (
    CONTEXT_SETTINGS,
    EXIT_MISMATCH,
    HloCommand,
    debug_option,
    input_format_option,
    read_input,
    version_option,
)
from hlotools.diff import ModuleDiff, Ref, diff_modules

EPILOG = """\b
Examples:
  hlo-diff before.hlo after.hlo             added/removed/changed instructions, fusions formed or split
  hlo-diff a.hlo b.hlo --json               the same as one JSON document
  hlo-diff DUMP/module_0008.jit_step.0016.*.txt DUMP/module_0008.jit_step.0017.*.txt   one XLA pass
  hlo-opt DUMP --module jit_step --xla-passes   every XLA pass of a dump folder, ours beside it

\b
Instructions are matched by name, then by structure (the same computation under another name,
or inside a fusion), then by place in the graph (opcode and matched operands). metadata is not
compared unless --metadata is given.

\b
Exit status: 0 same structure, 1 bad input, 2 bad usage, 3 the modules differ.
"""

STYLES = {"-": "red", "+": "green", "~": "yellow", "*": "cyan"}


def use_colour() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _ref(r: Ref) -> str:
    return f"{r.name} = {r.opcode} {r.shape}"


def diff_lines(d: ModuleDiff, limit: int | None = None) -> list[tuple[str, str]]:
    """(marker, text) lines of a diff: '*' fusion events, '-' removed, '+' added, '~' changed."""
    out: list[tuple[str, str]] = []
    for f in d.fusions:
        members = ", ".join(m.name for m in f.members)
        verb = "from" if f.event == "formed" else "into"
        out.append(("*", f"fusion {f.event}: {f.fusion.name} ({f.kind}, {f.fusion.shape}) {verb} "
                         f"{len(f.members)}: {members}"))
    out += [("-", f"removed {_ref(r)}  ({r.computation})") for r in d.removed]
    out += [("+", f"added   {_ref(r)}  ({r.computation})") for r in d.added]
    for c in d.changed:
        name = c.before.name if c.before.name == c.after.name else f"{c.before.name} -> {c.after.name}"
        fields = "; ".join(f"{f.field}: {f.before} -> {f.after}" for f in c.fields)
        out.append(("~", f"changed {name} ({c.after.opcode}): {fields}"))
    if limit is not None and len(out) > limit:
        out = out[:limit] + [(" ", f"... {len(out) - limit} more")]
    return out


def render(d: ModuleDiff, colour: bool, limit: int | None = None, indent: str = "") -> str:
    lines = []
    for marker, text in diff_lines(d, limit):
        line = f"{indent}{marker} {text}"
        lines.append(click.style(line, fg=STYLES[marker]) if colour and marker in STYLES else line)
    return "\n".join(lines)


@click.command(cls=HloCommand, context_settings=CONTEXT_SETTINGS, epilog=EPILOG)
@input_format_option
@click.argument("before", metavar="A")
@click.argument("after", metavar="B")
@click.option("--json", "as_json", is_flag=True, help="Print the diff as one JSON document (errors too).")
@click.option("--metadata", is_flag=True, help="Compare metadata={...} too (op_name, source lines).")
@click.option("--renames", is_flag=True, help="Also list instructions that only changed their name.")
@version_option
@debug_option
@click.pass_context
def main(ctx: click.Context, before: str, after: str, as_json: bool, metadata: bool, renames: bool,
         debug: bool) -> None:
    """Compare two HLO modules (files, '-' for standard input once) structurally."""
    a = parse_module(*read_input(before))
    b = parse_module(*read_input(after))
    d = diff_modules(a, b, with_metadata=metadata)
    if as_json:
        click.echo(json.dumps(d.to_json(), indent=1))
    else:
        colour = use_colour()
        head = f"--- {before} (module {a.name})\n+++ {after} (module {b.name})"
        body = render(d, colour)
        if renames and d.renamed:
            body += ("\n" if body else "") + "\n".join(f"= renamed {x} -> {y}" for x, y in d.renamed)
        click.echo("\n".join(x for x in (head, body, f"summary: {d.summary()}") if x))
    if not d.same:
        ctx.exit(EXIT_MISMATCH)


if __name__ == "__main__":
    main()
