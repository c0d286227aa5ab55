"""hlo-opt: read HLO text, check it, optionally run passes, and print it in canonical form.

The flow per module is parse -> verify -> passes -> print. `OptOptions` carries what the
flags ask for, and `process_module` is the one place a module goes through; the pass
manager (hlotools/passes/manager.py) does verify-each, dumps, printing after passes and
--bisect-limit, `timing.py` formats --time-passes and `bisect.py` does --bisect-against.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from hlotools import parse_module, print_module
from hlotools.cli.common import (
    CONTEXT_SETTINGS,
    EXIT_BAD_INPUT,
    EXIT_MISMATCH,
    VariadicCommand,
    debug_option,
    err,
    input_format_option,
    llvm_spellings,
    output_option,
    read_input,
    semantics_option,
    style_option,
    usage_error,
    version_option,
    write_output,
)
from hlotools.cli.dump_folder import dump_options, pick_input
from hlotools.cli.progress import Progress
from hlotools.cli.split_input import SEPARATOR, check_no_separator, split_chunks
from hlotools.cli.stoppable import stoppable_when, timeout_option
from hlotools.errors import HloError
from hlotools.ir.module import Module
from hlotools.log import ENV, cli_logging, env_level
from hlotools.passes.manager import ManagerOptions, PassManager, PipelineReport
from hlotools.passes.pipeline import PRESET_DESCRIPTIONS, Step, parse_pipeline, pipeline_lines, pipeline_text
from hlotools.passes.registry import ALIASES, PASSES, pass_class
from hlotools.passes.timing import timing_json, timing_table

if TYPE_CHECKING:  # --report only: hlo-opt does not import the analyses it measures with otherwise
    from hlotools.cli.compile_report import ReportCollector

EPILOG = """\b
Examples:
  hlo-opt model.hlo                      check model.hlo and print it canonically
  hlo-opt model.hlo --passes=algsimp,cse,dce          run passes in this order, then print
  hlo-opt m.hlo --passes='fixed-point(algsimp,dce)'   repeat a group until nothing changes
  hlo-opt m.hlo --passes='cse{is-layout-sensitive=true},dce'   set pass options
  hlo-opt m.hlo -O2                      the default pipeline (-O0: none, -O1: simplification)
  hlo-opt -O2 --print-pipeline           the pipeline -O2 expands to, as a --passes spec
  hlo-opt --list-passes                  the pass names (XLA's) and what each does
  hlo-opt m.hlo -O2 --verify-each        verify after every pass (a failure writes a reproducer)
  hlo-opt m.hlo -O2 --dump-dir d         d/module_0000.NAME.before_optimizations.txt, ... (XLA's names)
  hlo-opt DUMP_DIR                       list the modules of an XLA dump folder (--xla_dump_to)
  hlo-opt DUMP_DIR --module jit_f --stage after_algsimp   read one file of it (before, after, STEP, PASS)
  hlo-opt DUMP_DIR --module jit_f --xla-passes   what each XLA pass changed, and what ours change
  hlo-opt m.hlo -O2 --print-changed      a unified diff on stderr for each pass that changed it
  hlo-opt m.hlo -O2 --time-passes        per-pass times on stderr (--time-passes=json for CI)
  hlo-opt m.hlo -O2 --report=html --report-file r.html   a page: pass timeline, counts, fusion decisions, memory
  hlo-opt m.hlo -O2 --bisect-limit=7:3   run 7 pass applications, the 7th with fuel for 3 rewrites
  hlo-opt m.hlo -O2 --bisect-against=interp --random 0   find the pass that changes the results
  hlo-opt m.hlo -O2 -vv                  log pass decisions (HLOTOOLS_LOG=debug does the same)
  hlo-opt model.hlo --style=long         print in XLA's dump form (layouts, full names)
  cat model.hlo | hlo-opt -              read standard input
  hlo-opt cases.hlo --split-input-file   several modules separated by '// -----' lines
  hlo-opt a.hlo b.hlo -O1                several files: outputs separated by '// -----' lines
  hlo-opt model.hlo -o clean.hlo         write to a file
  hlo-opt bad.hlo --no-verify            print a module that parses but breaks shape rules

\b
Pass applications are numbered from 1 in execution order, fixed-point iterations unrolled;
--bisect-limit, BISECT log lines, dump file numbers and index.txt all use these numbers.
Dumps are written only for passes that changed the module (all with --dump-all).

\b
Exit status: 0 ok (--bisect-against: no pass changes the outputs), 1 bad input or a
verifier failure after a pass (the message names FILE:LINE:COL or the pass), 2 bad usage
(including an unknown pass name), 3 --bisect-against found the pass that changes the
outputs, 70 internal error such as a crashing pass (add --debug for a traceback), 124
--timeout expired, 130 Ctrl-C.
"""


@dataclass
class OptOptions:
    """What hlo-opt does to each module: print style, verification, pipeline, manager options."""
    style: str | None = None  # None: the module's own style (module.source_style)
    verify: bool = True
    pipeline: list[Step] = field(default_factory=list)  # from --passes / -O; empty: print only
    manager: ManagerOptions = field(default_factory=ManagerOptions)
    reports: list[PipelineReport] = field(default_factory=list)  # one per module that ran passes
    collector: ReportCollector | None = None  # --report: what each compile did
    metrics: list[dict] | None = None  # --json: one module_metrics document per module
    quiet: bool = False  # -q: no progress line
    sweep: Progress | None = None  # the progress line of several modules, which passes report to


# A progress line (on a terminal) for pipelines over modules at least this large, and for
# sweeps over at least this many files (or the parts of a --split-input-file, however many).
PROGRESS_INSTRUCTIONS = 1000
SWEEP_FILES = 10


def process_module(text: str, filename: str, options: OptOptions, module_id: int = 0) -> str:
    """One module's text in, its canonical text out (raises HloError on bad input)."""
    module = parse_module(text, filename, verify=options.verify)
    report = None
    if options.pipeline:
        collector = options.collector
        large = module.instruction_count() >= PROGRESS_INSTRUCTIONS
        own = Progress(f"{module.name}: passes", quiet=options.quiet or not large or options.sweep is not None)
        with own if options.sweep is None else contextlib.nullcontext(options.sweep) as progress:
            def on_pass(n: int, name: str, instructions: int) -> None:
                progress.update(description=f"{module.name}: pass {n} {name} ({instructions} instructions)")
            manager_options = dataclasses.replace(options.manager, module_id=module_id,
                                                  on_pass=on_pass if progress.enabled else None)
            if collector is not None:
                collector.file = filename
                manager_options.observer = collector.observe
            manager = PassManager(manager_options)
            report = manager.report
            options.reports.append(report)
            try:
                manager.run(module, options.pipeline)
            except HloError as e:  # a verifier failure after a pass: name the input file
                raise e.with_place(filename) from None
        if collector is not None:
            collector.finish(module)
    style = options.style or module.source_style or "short"
    if options.metrics is not None:
        options.metrics.append({"file": filename} | module_metrics(module, report))
    return print_module(module, style)


def module_metrics(module: Module, report: PipelineReport | None) -> dict:
    """What hlo-run --json and hlo-bench report of a compile, as far as the passes decide it:
    the kernel count (fusions + unfused non-trivial instructions: passes/fusion_stats.py), the
    entry's peak live bytes in its order (the scheduling pass's memory model; hlo-run's
    peak_bytes is the backend's buffer assignment) and the passes' times."""
    from hlotools.cli.compile_report import module_counts
    counts = module_counts(module)
    doc: dict = {"module": module.name, "instructions": counts["instructions"], "kernels": counts["kernels"],
                 "peak_live_bytes": counts["peak_bytes"]}
    if report is not None:
        timing = report.to_json()
        doc["compile_ms"] = {"passes": timing["total_ms"]}
        doc["passes"] = timing["passes"]
    return doc


def _parse_passes(ctx: click.Context, param: click.Parameter, value: str | None) -> list[Step]:
    if not value:
        return []
    try:
        return parse_pipeline(value)
    except HloError as e:
        raise click.BadParameter(e.message) from None


def _list_passes(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    width = max(map(len, PASSES)) + 2
    xla = {ours: xla_name for xla_name, ours in ALIASES.items()}
    lines = [f"{name.ljust(width)}{pass_class(name).description}" + (f" (XLA: {xla[name]})" if name in xla else "")
             for name in sorted(PASSES)]
    click.echo("\n".join(lines))
    ctx.exit(0)


_BISECT_LIMIT = re.compile(r"^(\d+)(?::(\d+))?$")


def _parse_bisect_limit(ctx: click.Context, param: click.Parameter,
                        value: str | None) -> tuple[int, int | None] | None:
    if value is None:
        return None
    m = _BISECT_LIMIT.match(value.strip())
    if not m:
        raise click.BadParameter(f"expected N or N:M (pass applications, then rewrites of the N-th), "
                                 f"got '{value}'")
    return int(m.group(1)), (int(m.group(2)) if m.group(2) is not None else None)


def _join(outputs: list[str]) -> str:
    """Modules separated the way they came in, so the output can be split again."""
    return f"\n\n{SEPARATOR}\n\n".join(o.rstrip("\n") for o in outputs) + "\n"


# Options whose value is optional: the bare flag means this value (click options take a fixed
# count, and an optional value would swallow FILE in `hlo-opt --time-passes m.hlo`).
_BARE_DEFAULTS = {"--time-passes": "--time-passes=table", "--print-changed": "--print-changed=diff",
                  "-O": "-O2", "--report": "--report=html"}


class OptCommand(VariadicCommand):
    variadic_options = ("--inputs",)  # --inputs a.npy b.npy ... (for --bisect-against)

    def preprocess(self, args: list[str]) -> list[str]:
        args = llvm_spellings(self, args)
        if "--" in args:
            cut = args.index("--")
            args = [_BARE_DEFAULTS.get(a, a) for a in args[:cut]] + list(args[cut:])
        else:
            args = [_BARE_DEFAULTS.get(a, a) for a in args]
        return self.expand_variadic(args)


def _choose_pipeline(pipeline: list[Step], level: str | None, passes_given: bool) -> list[Step]:
    if level is not None and passes_given:
        raise usage_error(f"give -O{level} or --passes, not both (a spec may name a level: "
                          f"--passes=O{level},PASS)")
    if level is not None:
        return parse_pipeline(f"O{level}")
    return pipeline


def _print_pipeline(steps: list[Step], verbose: int) -> None:
    click.echo(pipeline_text(steps))
    if verbose:
        err("\n".join(pipeline_lines(steps)) or "(no passes)")


def _check_env() -> None:
    try:
        env_level(os.environ.get(ENV))
    except ValueError as e:
        raise usage_error(str(e)) from None


@click.command(cls=OptCommand, context_settings=CONTEXT_SETTINGS, epilog=EPILOG)
@input_format_option
@click.argument("input_files", metavar="FILE...", nargs=-1)
@output_option
@style_option
@click.option("--split-input-file", is_flag=True,
              help=f"Treat each '{SEPARATOR}'-separated part of FILE as its own module; the outputs are "
                   "separated the same way. A bad part is reported (with its line in the whole file) "
                   "and the others are still processed.")
@click.option("--no-verify", is_flag=True, help="Parse only: skip the verifier (shape and operand checks).")
@click.option("--passes", "pipeline", metavar="PIPELINE", callback=_parse_passes,
              help="Passes to run, in order, by XLA's names: 'algsimp,cse,dce'; "
                   "'fixed-point(algsimp,dce)' repeats a group; 'pass{option=value}' sets options; "
                   "O1/O2 name the presets. An unknown name is a usage error listing close matches.")
@click.option("-O", "level", type=click.Choice(["0", "1", "2"]), default=None, metavar="LEVEL",
              help=f"-O0: {PRESET_DESCRIPTIONS['O0']}; -O1: {PRESET_DESCRIPTIONS['O1']}; -O2 (also bare "
                   f"-O): {PRESET_DESCRIPTIONS['O2']}.")
@click.option("--list-passes", is_flag=True, expose_value=False, is_eager=True, callback=_list_passes,
              help="Print every pass name with a one-line description, and exit.")
@click.option("--print-pipeline", is_flag=True,
              help="Print the pipeline (presets expanded) as a --passes spec, and exit (-v: as a tree too).")
@click.option("--verify-each/--no-verify-each", default=False, envvar="HLOTOOLS_VERIFY_EACH",
              help="Run the verifier after every pass that changed the module (as XLA's pipelines do); "
                   "a failure names the pass and those before it and writes the module before that pass "
                   "to a reproducer file it names. Default off, or HLOTOOLS_VERIFY_EACH=1 (the tests).")
@click.option("--dump-dir", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Dump the module before and after the pipeline and after each pass that changed it, "
                   "XLA's names (module_0000.NAME.0003.transforms_pipeline.after_algsimp.txt), plus index.txt/index.json.")
@click.option("--dump-all", is_flag=True, help="With --dump-dir: also dump after passes that changed nothing.")
@click.option("--dump-style", type=click.Choice(["short", "long"]), default="long", show_default=True,
              help="Print style of dumps, --print-after-all and --print-changed.")
@click.option("--print-after-all", is_flag=True, help="Print the module on stderr after every pass.")
@click.option("--print-changed", type=click.Choice(["diff", "full"]), default=None, metavar="[=diff|full]",
              help="After each pass that changed the module, print a unified diff (bare flag: diff) or "
                   "the whole module on stderr.")
@click.option("--time-passes", type=click.Choice(["table", "json"]), default=None, metavar="[=table|json]",
              help="Print per-pass times on stderr: pass, runs, wall ms, % of total, instructions "
                   "before -> after, changed; compile time is the sum of pass times.")
@click.option("--report", type=click.Choice(["html"]), default=None, metavar="[=html]",
              help="One HTML page about the compile: the pass timeline, instructions, kernels and entry "
                   "peak bytes after each pass, the fusion decisions, the backend's buffer assignment. "
                   "Written to --report-file, else to standard output (the module then only with -o).")
@click.option("--report-file", default=None, metavar="FILE", help="Where --report writes its page.")
@click.option("--time-passes-file", default=None, metavar="FILE",
              help="Write --time-passes' output to FILE instead of stderr (JSON unless --time-passes=table), "
                   "so -v logging cannot mix with it.")
@click.option("--bisect-limit", callback=_parse_bisect_limit, default=None, metavar="N[:M]",
              help="Run only the first N pass applications (the N-th with fuel for M rewrites, for "
                   "passes that take fuel); logs 'BISECT: running|NOT running pass (n) NAME'.")
@click.option("--bisect-against", type=click.Choice(["interp"]), default=None,
              help="Find the first pass application (and rewrite) after which the interpreter's outputs "
                   "differ from the original module's; prints it and exits 3 (0 if none).")
@click.option("--inputs", multiple=True, metavar="FILE...",
              help="With --bisect-against: the arguments, as for hlo-run (.npy per parameter, one .npz, "
                   "or HLO literal text).")
@click.option("--random", "seed", type=click.IntRange(min=0), default=None, metavar="SEED",
              help="With --bisect-against: random arguments from SEED (as hlo-run --random).")
@click.option("--rtol", type=click.FloatRange(min=0), default=None, metavar="R",
              help="With --bisect-against: relative tolerance for floats (default: by element type; "
                   "integers always compare exactly).")
@click.option("--atol", type=click.FloatRange(min=0), default=None, metavar="A",
              help="With --bisect-against: absolute tolerance for floats.")
@dump_options
@click.option("--xla-passes", is_flag=True,
              help="With a dump folder and --module: what each of XLA's per-pass files changed (an "
                   "hlo-diff summary per pass) and, for passes hlotools implements, what ours changes "
                   "on the same input and how far its result is from XLA's.")
@click.option("--json", "as_json", is_flag=True,
              help="Machine-readable output: per module its kernels, peak live bytes, instructions and "
                   "pass times (and its text, unless -o names a file); a dump folder's listing, "
                   "--xla-passes, and errors.")
@click.option("-q", "--quiet", is_flag=True, help="No progress line on a terminal.")
@timeout_option("parsing, passes and printing, all files together")
@version_option
@click.option("-v", "--verbose", count=True,
              help=f"-v: info (passes run, times), -vv: debug (pass decisions), -vvv: trace (module "
                   f"after each pass). {ENV}=info|debug|trace does the same.")
@semantics_option
@debug_option
@click.pass_context
def main(ctx: click.Context, timeout: float | None, **options: Any) -> None:
    """Parse, verify, optionally transform, and print HLO modules (FILE..., '-' for stdin, or an XLA
    dump folder: listed, or one file of it picked with --module/--stage)."""
    stoppable_when(timeout, lambda: _main(ctx, **options), _doing("optimizing", options["input_files"]))


def _doing(verb: str, files: tuple[str, ...]) -> str:
    return f"{verb} {files[0]}" if len(files) == 1 and files[0] != "-" else verb


def _main(ctx: click.Context, input_files: tuple[str, ...], output: str, style: str | None, split_input_file: bool,
          no_verify: bool, pipeline: list[Step], level: str | None, print_pipeline: bool, verify_each: bool,
          dump_dir: Path | None, dump_all: bool, dump_style: str, print_after_all: bool,
          print_changed: str | None, time_passes: str | None, time_passes_file: str | None, report: str | None,
          report_file: str | None, bisect_limit: tuple[int, int | None] | None, bisect_against: str | None,
          inputs: tuple[str, ...], seed: int | None, rtol: float | None, atol: float | None, dump_module: str | None,
          stage: str | None, xla_passes: bool, as_json: bool, quiet: bool, verbose: int, debug: bool) -> None:
    _check_env()
    given = ctx.get_parameter_source("pipeline") == click.core.ParameterSource.COMMANDLINE
    with cli_logging(verbose, always_show=("BISECT:",) if bisect_limit else ()):
        steps = _choose_pipeline(pipeline, level, given)
        if print_pipeline:
            _print_pipeline(steps, verbose)
            return
        if (inputs or seed is not None or rtol is not None or atol is not None) and not bisect_against:
            raise usage_error("--inputs, --random, --rtol and --atol go with --bisect-against")
        manager = ManagerOptions(verify_each=verify_each, dump_dir=dump_dir, dump_all=dump_all,
                                 dump_style=dump_style, print_after_all=print_after_all,
                                 print_changed=print_changed,
                                 bisect_limit=bisect_limit[0] if bisect_limit else None,
                                 bisect_rewrites=bisect_limit[1] if bisect_limit else None)
        options = OptOptions(style=style, verify=not no_verify, pipeline=steps, manager=manager,
                             metrics=[] if as_json else None, quiet=quiet)
        _check_report(report, report_file, steps, bisect_against, xla_passes)
        if report:
            from hlotools.cli.compile_report import ReportCollector
            options.collector = ReportCollector()
            if report_file is None and output == "-":
                output = ""  # the page takes standard output: the module text only with -o
        if xla_passes:
            from hlotools.cli.xla_passes import xla_passes_report
            click.echo(xla_passes_report(_one_input(input_files), dump_module, as_json))
            return
        files = _input_files(input_files, dump_module, stage, as_json)
        if not files:
            return  # a dump folder was listed
        if dump_dir is not None:
            _check_dump_dir(dump_dir)
        if bisect_against:
            if len(files) > 1:
                raise usage_error("--bisect-against searches one module: give one FILE")
            text, name = read_input(files[0])
            _bisect(ctx, text, name, options, bisect_limit, split_input_file, inputs, seed, rtol, atol)
            return
        try:
            with options.collector.capturing() if options.collector else contextlib.nullcontext():
                _run(ctx, files, options, split_input_file, output, debug)
        finally:
            _time_passes(options.reports, time_passes, time_passes_file)
            if options.collector is not None and options.collector.modules:
                _write_report(options.collector, steps, report_file)


def _check_report(report: str | None, report_file: str | None, steps: list[Step], bisect_against: str | None,
                  xla_passes: bool) -> None:
    if report_file is not None and not report:
        raise usage_error("--report-file goes with --report=html")
    if report and not steps:
        raise usage_error("--report describes a compile: give -O1/-O2 or --passes=...")
    if report and (bisect_against or xla_passes):
        raise usage_error("--report goes with a compile, not with --bisect-against or --xla-passes")


def _write_report(collector: ReportCollector, steps: list[Step], report_file: str | None) -> None:
    from hlotools.graph.report import report_to_html
    data = collector.data() | {"pipeline": pipeline_text(steps)}
    write_output(report_file or "-", report_to_html(data))


def _time_passes(reports: list[PipelineReport], how: str | None, path: str | None) -> None:
    """--time-passes on stderr, or (--time-passes-file) in a file of its own."""
    if not reports or not (how or path):
        return
    text = (timing_table if how == "table" else timing_json)(reports)
    if path is None:
        err(text.rstrip("\n"))
    else:
        write_output(path, text if text.endswith("\n") else text + "\n")


def _check_dump_dir(folder: Path) -> None:
    """Create --dump-dir and write a probe file now, so a folder that cannot be written is one
    error naming it before any pass runs (not an OSError from the middle of the pipeline)."""
    import tempfile
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".hlo-opt-probe-"):
            pass
    except OSError as e:
        raise HloError(f"--dump-dir: cannot create or write this folder: {e.strerror or e}",
                       filename=str(folder)) from None


def _one_input(input_files: tuple[str, ...]) -> str:
    if len(input_files) != 1:
        raise usage_error("--xla-passes reads one XLA dump folder: give DIR --module M")
    return input_files[0]


def _input_files(input_files: tuple[str, ...], dump_module: str | None, stage: str | None,
                 as_json: bool) -> list[str]:
    """The files to read ('-' when none is given); [] when a dump folder was listed instead."""
    if len(input_files) <= 1:
        picked = pick_input(input_files[0] if input_files else "-", dump_module, stage, as_json)
        return [picked] if picked is not None else []
    if dump_module is not None or stage is not None:
        raise usage_error("--module and --stage pick a file of one XLA dump folder: give that folder alone")
    return list(input_files)


def _run(ctx: click.Context, files: list[str], options: OptOptions, split_input_file: bool,
         output: str, debug: bool) -> None:
    if not split_input_file and len(files) == 1:
        text, name = read_input(files[0])
        check_no_separator(text, name)
        _write(output, [process_module(text, name, options)], options)
        return
    outputs: list[str] = []
    failed = 0
    total = None if split_input_file else len(files)  # the parts of a split file are not known yet
    with Progress("hlo-opt", total=total, quiet=options.quiet or (total or SWEEP_FILES) < SWEEP_FILES) as sweep:
        options.sweep = sweep if sweep.enabled else None
        for name, chunk_text in _modules(files, split_input_file):
            sweep.update(description=f"hlo-opt {name}")
            try:
                if not split_input_file:
                    check_no_separator(chunk_text, name)
                outputs.append(process_module(chunk_text, name, options, len(outputs) + failed))
            except HloError as e:
                if debug:
                    raise
                err(e.with_place(name, chunk_text).format())
                failed += 1
            sweep.advance()
        options.sweep = None
    _write(output, outputs, options)
    if failed:
        ctx.exit(EXIT_BAD_INPUT)


def _write(output: str, outputs: list[str], options: OptOptions) -> None:
    """The modules' text to -o; under --json one document on stdout, with the text in it when
    -o is stdout. An empty `output`: --report's page has standard output, the text goes nowhere."""
    if not output:
        return
    if options.metrics is None:
        write_output(output, outputs[0] if len(outputs) == 1 else _join(outputs))
        return
    import json
    if output != "-":
        write_output(output, outputs[0] if len(outputs) == 1 else _join(outputs))
    else:
        for doc, text in zip(options.metrics, outputs):
            doc["text"] = text
    click.echo(json.dumps({"modules": options.metrics}, indent=1))


def _modules(files: list[str], split_input_file: bool) -> Iterator[tuple[str, str]]:
    """(file name, module text) of every module of every file, in order."""
    for path in files:
        text, name = read_input(path)
        if split_input_file:
            yield from ((name, chunk.text) for chunk in split_chunks(text, name))
        else:
            yield name, text


def _bisect(ctx: click.Context, text: str, name: str, options: OptOptions,
            bisect_limit: tuple[int, int | None] | None, split_input_file: bool, inputs: tuple[str, ...],
            seed: int | None, rtol: float | None, atol: float | None) -> None:
    """--bisect-against=interp: search, print the verdict on stdout, exit 3 if a culprit is found."""
    from hlotools.cli.bisect import Bisector, load_arguments, report_lines
    if split_input_file or bisect_limit:
        raise usage_error("--bisect-against searches one module itself: drop --split-input-file/--bisect-limit")
    if not options.pipeline:
        raise usage_error("--bisect-against needs a pipeline: give --passes=... or -O1/-O2")
    if inputs and seed is not None:
        raise usage_error("--inputs and --random exclude each other")
    check_no_separator(text, name)
    try:
        module = parse_module(text, name, verify=options.verify)
        args = load_arguments(module, inputs, seed)
        spec = pipeline_text(options.pipeline)
        bisector = Bisector(text, name, spec, args, rtol, atol, verify_each=True,
                            style=options.style or module.source_style or "short")
        result = bisector.run()
    except HloError as e:
        raise e.with_place(name, text) from None
    click.echo("\n".join(report_lines(result, name, spec, rtol, atol)))
    if result.diff:
        click.echo(result.diff, nl=not result.diff.endswith("\n"))
    if result.found:
        ctx.exit(EXIT_MISMATCH)


if __name__ == "__main__":
    main()
