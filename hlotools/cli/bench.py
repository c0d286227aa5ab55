"""hlo-bench: a CI regression gate over a set of modules.

`--save` records per module what a change to hlotools may make worse: compile time per phase
(passes, codegen, LLVM; from scratch, no compile cache), kernel count, peak bytes of buffer
assignment's temp arena, run time (median of --repeat runs) and output checksums;
`--baseline` compares a new run with such a file (bench_compare.py says how) and exits 1 on a
regression. A module suspected of being slower is measured again (--retries times) and its best
median counts, so one noisy measurement does not fail CI.
"""
from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any

import click

from hlotools import __version__
from hlotools.cli.bench_compare import Thresholds, Verdict, compare, merge_min, summary_line
from hlotools.cli.bench_measure import BenchInput, collect_inputs, measure, warm_up
from hlotools.cli.common import (
    CONTEXT_SETTINGS,
    HloCommand,
    debug_option,
    semantics_option,
    usage_error,
    version_option,
)
from hlotools.cli.progress import Progress

FORMAT = "hlo-bench/1"
EXIT_REGRESSION = 1
EPILOG = """\b
Examples:
  hlo-bench models/ --save baseline.json          measure every .hlo/.mlir file of models/
  hlo-bench models/ --baseline baseline.json      compare; exit 1 on a regression
  hlo-bench a.hlo b.mlir --baseline b.json --threshold 5%    times may grow by 5%
  hlo-bench DUMP_DIR --save xla.json              an XLA dump folder: each module's
                                                  before_optimizations file
  hlo-bench models/ --baseline b.json --save b.json   compare, then record the new figures
  hlo-bench models/ --baseline b.json --markdown "$GITHUB_STEP_SUMMARY"   a summary for CI
  hlo-bench models/ --jobs 2 --repeat 10 --json   two worker processes, JSON on stdout
  hlo-bench models/ --baseline b.json --timeout 300   a module that hangs fails instead

\b
What is measured, per module: compile time (passes, codegen, llvm; no compile cache), kernels
(fusions + unfused non-trivial instructions after -O2), peak bytes (the temp arena buffer
assignment packs), run time (median of --repeat runs after one untimed run, on --seed's random
arguments) and a checksum per output (a hash for exact types; sum and absolute sum for floats,
which compare within --checksum-rtol, so a baseline made on one CPU holds on another).

\b
Verdicts: a time is a regression when it grew by more than --threshold and by more than
--noise-floor ms; a suspect is measured again (--retries) and the best median counts. Kernels
and peak bytes compare exactly (more: regressed; fewer: improved). An output that differs, a
module that fails (and did not in the baseline), or one the baseline has but the run lacks fails
the gate; a module the
baseline lacks is new. $GITHUB_STEP_SUMMARY, when set, gets the markdown summary too.

\b
Exit status: 0 ok, 1 a regression (or a module that fails when there is no baseline),
2 bad usage (including an unreadable baseline), 70 internal error.
"""


def _parse_threshold(ctx: click.Context, param: click.Parameter, value: str) -> float:
    text = value.strip()
    try:
        number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise click.BadParameter(f"expected a percentage such as 10% (or a ratio such as 0.1), got '{value}'") from None
    if number < 0:
        raise click.BadParameter(f"a threshold is not negative, got '{value}'")
    return number


def _load_baseline(path: str) -> dict[str, dict[str, Any]]:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise usage_error(f"--baseline {path}: cannot read: {e.strerror or e}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise usage_error(f"--baseline {path}: not JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("modules"), list):
        raise usage_error(f"--baseline {path}: not an hlo-bench file (written by hlo-bench --save)")
    return {m["key"]: m for m in doc["modules"] if isinstance(m, dict) and "key" in m}


def measure_all(inputs: list[BenchInput], repeat: int, seed: int, jobs: int, quiet: bool,
                timeout: float | None = None, what: str = "measuring") -> list[dict[str, Any]]:
    """Every module's measurement, in input order: in this process, or in worker processes
    (bench_workers.py) for --jobs above 1 or a --timeout."""
    with Progress(what, total=len(inputs), quiet=quiet) as progress:
        if timeout is None and (jobs <= 1 or len(inputs) <= 1):
            warm_up()
            out = []
            for item in inputs:
                progress.update(description=f"{what} {item.key}")
                out.append(measure(item, repeat, seed))
                progress.advance()
            return out
        from hlotools.cli.bench_workers import measure_in_workers
        return measure_in_workers(inputs, repeat, seed, jobs, timeout,
                                  lambda k: progress.advance(description=f"{what} {inputs[k].key}"))


def _verdicts(inputs: list[BenchInput], measured: list[dict[str, Any]], baseline: dict[str, dict[str, Any]],
              th: Thresholds, retries: int, repeat: int, seed: int, jobs: int, quiet: bool,
              timeout: float | None) -> list[Verdict]:
    """Compare; measure suspected time regressions again (up to `retries` times, best median
    kept) before calling them regressions. Updates `measured` in place."""
    by_key = {m["key"]: k for k, m in enumerate(measured)}
    verdicts = {m["key"]: compare(baseline.get(m["key"]), m, th) for m in measured}
    for _ in range(retries):
        suspects = [i for i in inputs if verdicts[i.key].time_only]
        if not suspects:
            break
        again = measure_all(suspects, repeat, seed, jobs, quiet, timeout, "measuring again")
        for item, doc in zip(suspects, again):
            k = by_key[item.key]
            measured[k] = merge_min(measured[k], doc)
            verdicts[item.key] = compare(baseline.get(item.key), measured[k], th)
    out = [verdicts[m["key"]] for m in measured]
    out += [compare(base, None, th) for key, base in baseline.items() if key not in verdicts]
    return out


def _write_markdown(path: str, text: str) -> None:
    if path == "-":
        click.echo(text, nl=False)
        return
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        from hlotools.errors import HloError
        raise HloError(f"cannot write: {e.strerror or e}", filename=path) from None


def _document(measured: list[dict[str, Any]], repeat: int, seed: int) -> dict[str, Any]:
    """The --save file: the figures and where they were measured (times hold for that host only;
    kernels, bytes and checksums for every host)."""
    from hlotools.backend.llvm.native.cache import environment
    host = {"machine": platform.machine(), "cpu": environment()["cpu"], "python": platform.python_version()}
    return {"format": FORMAT, "hlotools": __version__, "host": host, "repeat": repeat, "seed": seed,
            "modules": [{k: v for k, v in m.items() if k != "traceback"} for m in measured]}


@click.command(cls=HloCommand, context_settings=CONTEXT_SETTINGS, epilog=EPILOG)
@click.argument("paths", metavar="FILES|DIR...", nargs=-1, required=True)
@click.option("--save", default=None, metavar="FILE", help="Write the figures to FILE (JSON), a baseline for --baseline.")
@click.option("--baseline", default=None, metavar="FILE", help="Compare with FILE (from --save); exit 1 on a regression.")
@click.option("--threshold", default="10%", show_default=True, callback=_parse_threshold, metavar="PCT",
              help="How much slower a time may get (10% or 0.1).")
@click.option("--noise-floor", type=click.FloatRange(min=0), default=1.0, show_default=True, metavar="MS",
              help="Time differences below MS milliseconds are noise, whatever the ratio.")
@click.option("--checksum-rtol", type=click.FloatRange(min=0), default=1e-3, show_default=True, metavar="R",
              help="Float outputs match when sum and absolute sum agree within R times the absolute sum.")
@click.option("--repeat", type=click.IntRange(min=1), default=5, show_default=True, metavar="N",
              help="Timed runs per module (the median counts).")
@click.option("--retries", type=click.IntRange(min=0), default=2, show_default=True, metavar="N",
              help="Measure a module that looks slower again, up to N times (the best median counts).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, metavar="SEED",
              help="Random arguments from SEED.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Measure modules in N worker processes (faster, noisier times).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="S",
              help="Stop a module's measurement after S seconds (in a worker process, whose start counts): "
                   "it fails as timed out, and the sweep goes on.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of the table (errors too).")
@click.option("--markdown", default=None, metavar="FILE",
              help="Append a markdown summary to FILE ('-': standard output), e.g. $GITHUB_STEP_SUMMARY.")
@click.option("-q", "--quiet", is_flag=True, help="No progress line on a terminal.")
@version_option
@semantics_option
@debug_option
@click.pass_context
def main(ctx: click.Context, paths: tuple[str, ...], save: str | None, baseline: str | None, threshold: float,
         noise_floor: float, checksum_rtol: float, repeat: int, retries: int, seed: int, jobs: int,
         timeout: float | None, as_json: bool, markdown: str | None, quiet: bool, debug: bool) -> None:
    """Measure modules (files, folders of .hlo/.mlir files, XLA dump folders) and record the
    figures (--save) or compare them with a baseline (--baseline)."""
    from hlotools.cli.stoppable import run_stoppable  # Ctrl-C stops a module's native run at once
    run_stoppable(lambda: _bench(ctx, paths, save, baseline, threshold, noise_floor, checksum_rtol, repeat,
                                 retries, seed, jobs, timeout, as_json, markdown, quiet), quiet=True)


def _bench(ctx: click.Context, paths: tuple[str, ...], save: str | None, baseline: str | None, threshold: float,
           noise_floor: float, checksum_rtol: float, repeat: int, retries: int, seed: int, jobs: int,
           timeout: float | None, as_json: bool, markdown: str | None, quiet: bool) -> None:
    if as_json and markdown == "-":
        raise usage_error("--json and --markdown - both write to standard output: give --markdown a file")
    base = _load_baseline(baseline) if baseline else None
    inputs = collect_inputs(paths)
    measured = measure_all(inputs, repeat, seed, jobs, quiet, timeout)
    th = Thresholds(threshold, noise_floor, checksum_rtol)
    if base is not None:
        verdicts = _verdicts(inputs, measured, base, th, retries, repeat, seed, jobs, quiet, timeout)
    else:
        verdicts = [compare(None, m, th) for m in measured]
        for v in verdicts:
            if v.status == "new":
                v.status = v.cells["verdict"] = "measured"
    summary = summary_line(verdicts, base is not None)
    if save:
        _save(save, _document(measured, repeat, seed))
    _report(verdicts, measured, summary, as_json, markdown, base is not None)
    if any(v.failed for v in verdicts):
        ctx.exit(EXIT_REGRESSION)


def _save(path: str, doc: dict[str, Any]) -> None:
    from hlotools.cli.common import write_output
    write_output(path, json.dumps(doc, indent=1, allow_nan=False) + "\n")


def _report(verdicts: list[Verdict], measured: list[dict[str, Any]], summary: str, as_json: bool,
            markdown_path: str | None, compared: bool) -> None:
    from hlotools.cli.bench_report import markdown, print_table
    if as_json:
        doc: dict[str, Any] = {"summary": summary, "failed": any(v.failed for v in verdicts),
                               "modules": [{k: v for k, v in m.items() if k != "traceback"} for m in measured]}
        if compared:
            doc["comparison"] = [v.to_json() for v in verdicts]
        click.echo(json.dumps(doc, indent=1, allow_nan=False))
    else:
        print_table(verdicts, summary)
    text = markdown(verdicts, summary)
    for target in dict.fromkeys(p for p in (markdown_path, os.environ.get("GITHUB_STEP_SUMMARY")) if p):
        _write_markdown(target, text)


if __name__ == "__main__":
    main()
