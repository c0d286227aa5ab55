"""hlo-opt: read HLO text, check it, optionally run passes, and print it in canonical form.

The flow per module is parse -> verify -> passes -> print. `OptOptions` carries what the
flags ask for, and `process_module` is the one place a module goes through, so more pass
manager features (-O levels, dumps, timing, bisection: hlotools/passes/manager.py) become
fields of OptOptions without touching how input, output, splitting or errors work.
"""
from __future__ import annotations

from dataclasses import dataclass, field

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
from hlotools.passes.manager import run_pipeline
from hlotools.passes.pipeline import Step, parse_pipeline
from hlotools.passes.registry import PASSES

EPILOG = """\b
Examples:
  hlo-opt model.hlo                      check model.hlo and print it canonically
  hlo-opt model.hlo --passes=algsimp,cse,dce          run passes in this order, then print
  hlo-opt m.hlo --passes='fixed-point(algsimp,dce)'   repeat a group until nothing changes
  hlo-opt --list-passes                  the pass names (XLA's)
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
    pipeline: list[Step] = field(default_factory=list)  # from --passes; empty: print only


def process_module(text: str, filename: str, options: OptOptions) -> str:
    """One module's text in, its canonical text out (raises HloError on bad input)."""
    module = parse_module(text, filename, verify=options.verify)
    if options.pipeline:
        run_pipeline(module, options.pipeline)
    style = options.style or module.source_style or "short"
    return print_module(module, style)


def _parse_passes(ctx: click.Context, param: click.Parameter, value: str | None) -> list[Step]:
    if not value:
        return []
    try:
        return parse_pipeline(value)
    except HloError as e:
        raise click.BadParameter(e.message) from None


def _list_passes(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo("\n".join(sorted(PASSES)))
        ctx.exit(0)


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
@click.option("--passes", "pipeline", metavar="PIPELINE", callback=_parse_passes,
              help="Passes to run, in order, by XLA's names: 'algsimp,cse,dce'; "
                   "'fixed-point(algsimp,dce)' repeats a group; 'pass{option=value}' sets options.")
@click.option("--list-passes", is_flag=True, expose_value=False, is_eager=True, callback=_list_passes,
              help="Print the names of all passes and exit.")
@debug_option
@click.pass_context
def main(ctx: click.Context, input_file: str, output: str, style: str | None, split_input_file: bool,
         no_verify: bool, pipeline: list[Step], debug: bool) -> None:
    """Parse, verify, optionally transform, and print an HLO module (FILE, or '-' for stdin)."""
    text, name = read_input(input_file)
    options = OptOptions(style=style, verify=not no_verify, pipeline=pipeline)
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
