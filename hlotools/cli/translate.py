"""hlo-translate: a module in another form (canonical HLO text, Graphviz).

The machine-code forms (`llvm`, `llvm-opt`, `asm`, `obj`) belong to the LLVM backend; until
it exists they are refused as a usage error that says so, rather than silently missing.
"""
from __future__ import annotations

from collections.abc import Callable

import click

from hlotools import parse_module, print_module
from hlotools.cli.common import (
    CONTEXT_SETTINGS,
    HloCommand,
    debug_option,
    input_argument,
    output_option,
    read_input,
    style_option,
    write_output,
)
from hlotools.graph.dot import module_to_dot
from hlotools.ir.module import Module

EMITTERS: dict[str, Callable[[Module, str | None], str]] = {
    "hlo": lambda m, style: print_module(m, style or m.source_style or "short"),
    "dot": lambda m, style: module_to_dot(m),
}
NEEDS_LLVM_BACKEND = ("llvm", "llvm-opt", "asm", "obj")

EPILOG = """\b
Examples:
  hlo-translate model.hlo --emit=hlo --style=long    canonical text in XLA's dump form
  hlo-translate model.hlo --emit=dot -o model.dot    Graphviz; then: dot -Tsvg model.dot
  hlo-opt model.hlo | hlo-translate - --emit=dot     read standard input

\b
--emit=llvm, llvm-opt, asm and obj need the LLVM backend, which is not available yet.

\b
Exit status: 0 ok, 1 bad input (the message names FILE:LINE:COL), 2 bad usage,
70 internal error (add --debug for a traceback).
"""


def _check_emit(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if value in EMITTERS:
        return value
    if value in NEEDS_LLVM_BACKEND:
        raise click.BadParameter(f"'{value}' needs the LLVM backend, which is not available yet "
                                 f"(available now: {', '.join(EMITTERS)})")
    raise click.BadParameter(f"'{value}' is not a known form; choose from "
                             f"{', '.join(list(EMITTERS) + list(NEEDS_LLVM_BACKEND))}")


@click.command(cls=HloCommand, context_settings=CONTEXT_SETTINGS, epilog=EPILOG)
@input_argument
@click.option("--emit", default="hlo", show_default=True, callback=_check_emit, metavar="FORM",
              help=f"What to write: {', '.join(EMITTERS)} (later: {', '.join(NEEDS_LLVM_BACKEND)}).")
@output_option
@style_option
@click.option("--no-verify", is_flag=True, help="Parse only: skip the verifier.")
@debug_option
def main(input_file: str, emit: str, output: str, style: str | None, no_verify: bool, debug: bool) -> None:
    """Translate an HLO module (FILE, or '-' for standard input) to another form."""
    text, name = read_input(input_file)
    module = parse_module(text, name, verify=not no_verify)
    write_output(output, EMITTERS[emit](module, style))


if __name__ == "__main__":
    main()
