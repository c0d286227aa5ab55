"""hlo-opt: read HLO text, check it, and print it back in canonical form.

The flow per module is parse -> verify -> (transform) -> print. `OptOptions` carries what
the flags ask for, and `process_module` is the one place a module goes through, so a pass
pipeline (`--passes`, `-O1`, ...) slots in between verification and printing without
touching how input, output, splitting or errors work.
"""
from __future__ import annotations

from dataclasses import dataclass

import click

from hlotools import parse_module, print_module
from hlotools.cli.common import (
    CONTEXT_SETTINGS,
    EXIT_BAD_INPUT,
    HloCommand,
    debug_option,
    err,
    input_argument,
    output_option,
    read_input,
    style_option,
    write_output,
)
from hlotools.cli.split_input import SEPARATOR, check_no_separator, split_chunks
from hlotools.errors import HloError

EPILOG = """\b
Examples:
  hlo-opt model.hlo                      check model.hlo and print it canonically
  hlo-opt model.hlo --style=long         print in XLA's dump form (layouts, full names)
  cat model.hlo | hlo-opt -              read standard input
  hlo-opt cases.hlo --split-input-file   several modules separated by '// -----' lines
  hlo-opt model.hlo -o clean.hlo         write to a file
  hlo-opt bad.hlo --no-verify            print a module that parses but breaks shape rules

\b
Exit status: 0 ok, 1 bad input (the message names FILE:LINE:COL), 2 bad usage,
70 internal error (add --debug for a traceback).
"""


@dataclass
class OptOptions:
    style: str | None = None  # None: the module's own style (module.source_style)
    verify: bool = True


def process_module(text: str, filename: str, options: OptOptions) -> str:
    """One module's text in, its canonical text out (raises HloError on bad input)."""
    module = parse_module(text, filename, verify=options.verify)
    style = options.style or module.source_style or "short"
    return print_module(module, style)


def _join(outputs: list[str]) -> str:
    """Modules separated the way they came in, so the output can be split again."""
    return f"\n\n{SEPARATOR}\n\n".join(o.rstrip("\n") for o in outputs) + "\n"


@click.command(cls=HloCommand, context_settings=CONTEXT_SETTINGS, epilog=EPILOG)
@input_argument
@output_option
@style_option
@click.option("--split-input-file", is_flag=True,
              help=f"Treat each '{SEPARATOR}'-separated part of FILE as its own module; the outputs are "
                   "separated the same way. A bad part is reported (with its line in the whole file) "
                   "and the others are still processed.")
@click.option("--no-verify", is_flag=True, help="Parse only: skip the verifier (shape and operand checks).")
@debug_option
@click.pass_context
def main(ctx: click.Context, input_file: str, output: str, style: str | None, split_input_file: bool,
         no_verify: bool, debug: bool) -> None:
    """Parse, verify and print an HLO module (FILE, or '-' for standard input)."""
    text, name = read_input(input_file)
    options = OptOptions(style=style, verify=not no_verify)
    if not split_input_file:
        check_no_separator(text, name)
        write_output(output, process_module(text, name, options))
        return
    outputs: list[str] = []
    failed = 0
    for chunk in split_chunks(text, name):
        try:
            outputs.append(process_module(chunk.text, name, options))
        except HloError as e:
            if debug:
                raise
            err(e.with_place(name, chunk.text).format())
            failed += 1
    write_output(output, _join(outputs))
    if failed:
        ctx.exit(EXIT_BAD_INPUT)


if __name__ == "__main__":
    main()
