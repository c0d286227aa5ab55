"""hlo-translate: a module in another form: canonical HLO text, Graphviz, or through the
LLVM backend LLVM IR (before / after LLVM's optimiser), assembly, a relocatable object file
exporting one C function, and the C header that documents that function (AOT, also for
other targets: --target-triple, --cpu). hlotools/backend/llvm/driver/aot.py defines the C interface.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
    usage_error,
    version_option,
    write_output,
)
from hlotools.cli.dump_folder import dump_options, pick_input
from hlotools.cli.stoppable import stoppable_when, timeout_option
from hlotools.errors import HloError
from hlotools.graph.dot import DotError, DotOptions, module_to_dot
from hlotools.ir.module import Module

EMITTERS: dict[str, Callable[[Module, str | None], str]] = {
    "hlo": lambda m, style: print_module(m, style or m.source_style or "short"),
    "html": lambda m, style: _html(m),
    "stablehlo": lambda m, style: _stablehlo(m),
}


def _html(module: Module) -> str:
    from hlotools.graph.html import module_to_html
    return module_to_html(module)


def _stablehlo(module: Module) -> str:
    from hlotools.text.stablehlo.export import export_stablehlo
    return export_stablehlo(module)
LLVM_FORMS = ("llvm", "llvm-opt", "asm", "obj", "header")

EPILOG = """\b
Examples:
  hlo-translate model.hlo --emit=hlo --style=long    canonical text in XLA's dump form
  hlo-translate model.hlo --emit=dot -o model.dot    Graphviz; then: dot -Tsvg model.dot
  hlo-translate m.hlo --emit=dot --node dot.3 --radius 2   only the neighbourhood of dot.3
  hlo-translate m.hlo --emit=dot --collapse-fusions --max-nodes 300   a smaller picture
  hlo-translate model.hlo --emit=html -o g.html   one self-contained page: the graph, clusters, search
  hlo-translate model.hlo --emit=stablehlo           StableHLO text (MLIR generic form)
  hlo-opt model.hlo | hlo-translate - --emit=dot     read standard input
  hlo-translate model.hlo --emit=llvm-opt            LLVM IR after LLVM's -O3
  hlo-translate model.hlo --emit=obj -o model.o      AOT: an object exporting
  hlo-translate model.hlo --emit=header -o model.h     int model(params, results, temp)
  hlo-translate model.hlo --emit=obj --target-triple aarch64-unknown-linux-gnu -o model.o

\b
The LLVM forms run the -O2 HLO passes first (HLOTOOLS_LLVM_PASSES=none: the module as
given). Objects default to the host CPU and its features; give --cpu (e.g. x86-64-v2,
generic) for machines other than this one. The header documents the function, the
buffers (bytes, dims, layout, element storage) and the temp size.

\b
Exit status: 0 ok, 1 bad input (the message names FILE:LINE:COL), 2 bad usage,
70 internal error (add --debug for a traceback), 124 --timeout expired, 130 Ctrl-C.
"""


FORMS = ("hlo", "dot", "html", "stablehlo", *LLVM_FORMS)


def _check_emit(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if value in FORMS:
        return value
    raise click.BadParameter(f"'{value}' is not a known form; choose from {', '.join(FORMS)}")


@click.command(cls=HloCommand, context_settings=CONTEXT_SETTINGS, epilog=EPILOG)
@input_argument
@click.option("--emit", default="hlo", show_default=True, callback=_check_emit, metavar="FORM",
              help=f"What to write: {', '.join(FORMS)}.")
@output_option
@style_option
@click.option("--target-triple", default=None, metavar="TRIPLE",
              help="LLVM forms: the target, e.g. aarch64-unknown-linux-gnu (default: the host).")
@click.option("--cpu", default=None, metavar="CPU",
              help="LLVM forms: the target CPU, e.g. x86-64-v3, neoverse-n1 (default: the host's for the "
                   "host triple, else generic).")
@click.option("--features", default=None, metavar="ATTRS",
              help="LLVM forms: target features, e.g. +avx2,+fma (default: the host CPU's with it, else none).")
@click.option("--function-name", default=None, metavar="NAME",
              help="obj/header: the C function's name (default: the module name as a C identifier).")
@click.option("--collapse-fusions", is_flag=True,
              help="dot: one node per fusion (default: each fusion a cluster holding its fused computation).")
@click.option("--node", "focus", default=None, metavar="NAME",
              help="dot: draw only the instructions within --radius operand/user steps of NAME.")
@click.option("--radius", type=click.IntRange(min=0), default=None, metavar="R",
              help="dot: with --node, how many steps out to draw (default 3).")
@click.option("--max-nodes", type=click.IntRange(min=1), default=None, metavar="N",
              help="dot: draw at most N nodes (entry computation first) and a note saying how many were left out.")
@click.option("--no-verify", is_flag=True, help="Parse only: skip the verifier.")
@timeout_option("parsing, passes and LLVM")
@dump_options
@version_option
@debug_option
def main(timeout: float | None, **options: Any) -> None:
    """Translate an HLO module (FILE, or '-' for standard input, or one file of an XLA dump folder:
    --module/--stage) to another form."""
    name = options["input_file"]
    stoppable_when(timeout, lambda: _translate(**options), f"translating {name}" if name != "-" else "translating")


def _translate(input_file: str, emit: str, output: str, style: str | None, target_triple: str | None,
               cpu: str | None, features: str | None, function_name: str | None, collapse_fusions: bool,
               focus: str | None, radius: int | None, max_nodes: int | None, no_verify: bool,
               dump_module: str | None, stage: str | None, debug: bool) -> None:
    if emit not in LLVM_FORMS and (target_triple or cpu or features or function_name):
        raise usage_error(f"--target-triple, --cpu, --features and --function-name apply to "
                          f"{', '.join(LLVM_FORMS)}, not --emit={emit}")
    graph_given = collapse_fusions or focus is not None or max_nodes is not None or radius is not None
    if emit != "dot" and graph_given:
        raise usage_error(f"--collapse-fusions, --node, --radius and --max-nodes apply to dot, not --emit={emit}")
    if radius is not None and focus is None:
        raise usage_error("--radius goes with --node NAME")
    if emit == "obj" and output == "-" and sys.stdout.isatty():
        raise usage_error("an object file is binary: give -o FILE (or redirect standard output)")
    picked = pick_input(input_file, dump_module, stage)
    if picked is None:
        return  # a dump folder was listed
    text, name = read_input(picked)
    module = parse_module(text, name, verify=not no_verify)
    if emit == "dot":
        options = DotOptions(fusions=not collapse_fusions, node=focus, radius=3 if radius is None else radius,
                             max_nodes=max_nodes)
        try:
            write_output(output, module_to_dot(module, options))
        except DotError as e:
            raise usage_error(f"--node: {e}") from None
        return
    if emit in EMITTERS:
        write_output(output, EMITTERS[emit](module, style))
        return
    result = _llvm_form(module, emit, target_triple, cpu, features, function_name)
    if isinstance(result, bytes):
        _write_bytes(output, result)
    else:
        write_output(output, result)


def _llvm_form(module: Module, emit: str, triple: str | None, cpu: str | None, features: str | None,
               function_name: str | None) -> str | bytes:
    import os

    from hlotools.backend.llvm.driver.aot import AotOptions, TargetError, c_identifier, compile_aot
    if function_name is not None and c_identifier(function_name) != function_name:
        raise usage_error(f"--function-name {function_name!r} is not a C identifier")
    options = AotOptions(function_name=function_name, triple=triple, cpu=cpu, features=features,
                         preset=os.environ.get("HLOTOOLS_LLVM_PASSES", "O2"))
    try:
        return compile_aot(module, emit, options)
    except TargetError as e:
        raise usage_error(e.message) from None


def _write_bytes(path: str, data: bytes) -> None:
    if path == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        Path(path).write_bytes(data)
    except OSError as e:
        raise HloError(f"cannot write: {e.strerror or e}", filename=path) from None


if __name__ == "__main__":
    main()
