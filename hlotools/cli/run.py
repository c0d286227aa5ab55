"""hlo-run: execute a module's entry computation on arrays from files or a random seed.

Arguments are the entry parameters' array leaves (tuple parameters flattened depth-first);
results are the root's leaves, named out0, out1, ... everywhere (summaries, .npz files,
comparisons, JSON); summaries and JSON also show the name a StableHLO import kept for each
result (JAX's jax.result_info), e.g. `out0 (result[0])`.
"""
from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import click
import numpy as np

from hlotools import pad_dynamic, parse_module
from hlotools.cli.backends import (
    BACKENDS,
    KNOWN,
    Backend,
    Compiled,
    CompileRequest,
    best_available,
    fallback_for,
    not_available_message,
)
from hlotools.cli.common import (
    CONTEXT_SETTINGS,
    EXIT_MISMATCH,
    VariadicCommand,
    debug_option,
    err,
    input_argument,
    read_input,
    semantics_option,
    usage_error,
    version_option,
)
from hlotools.cli.dump_folder import dump_options, pick_input
from hlotools.cli.report import Reporter, Timing
from hlotools.cli.stoppable import timeout_option
from hlotools.errors import HloError, HloUnsupportedError
from hlotools.io.arrays import LeafSpec, check_array_sizes, parameter_leaves, result_leaves, shape_text
from hlotools.io.summary import Summary, summarize
from hlotools.ir.dynamic import PaddedSignature, has_dynamic_shapes
from hlotools.ir.module import Module
from hlotools.log import cli_logging

if TYPE_CHECKING:
    from hlotools.cli.difference import Difference
    from hlotools.io.compare import Comparison

# Imported where they are used, not here: a cached run on random inputs that prints a summary
# (a warm start) needs none of hlotools.io.npz (zipfile), literal_text,
# random_inputs (numpy.random), compare or difference.

T = TypeVar("T")

EPILOG = """\b
Examples:
  hlo-run model.hlo --random 0                    run on random inputs (seed 0)
  hlo-run model.hlo --inputs x.npy w.npy          one .npy per parameter, in order
  hlo-run model.hlo --inputs in.npz -o out.npz    keys in0, in1, ... or parameter names
  hlo-run model.hlo --inputs params.npz x.npy     weights by name, then x for the parameter left
  hlo-run model.hlo --inputs in.npz --expected want.npz --rtol 1e-5
  hlo-run model.hlo --random 0 --print-literals   results as HLO literals
  hlo-run model.hlo --inputs args.txt             HLO literals, one per line: f32[2] {1, 2}
  hlo-run model.hlo --random 0 --repeat 20 --json timings (median, min) as JSON
  hlo-opt model.hlo | hlo-run - --random 0        read the module from standard input
  hlo-run model.hlo --random 0 -v                 say whether the compile cache hit (--no-cache: skip it)
  hlo-run model.hlo --random 0 --compare          LLVM against the interpreter, largest difference per output
  hlo-run model.hlo --random 0 --backend=interp   the reference interpreter only

\b
Tuple parameters take one array per leaf, depth-first. bf16/f8 arrays stored in .npz files
(raw bytes, dtype |V2 or |V1) take their type from the module. Without --rtol/--atol the
tolerance depends on the type (f32: rtol 1e-4, atol 1e-5; f16/bf16 looser; integers exact).

\b
Backends: llvm (the default) compiles the module after the -O2 passes to native code; a warm
compile cache skips passes, codegen and LLVM. What the LLVM backend refuses at compile time runs
on the interpreter (one note on stderr; -v says why) unless --backend=llvm or --compare was given,
which report the refusal (exit 1). --compare runs both and shows, per output, the largest
absolute and relative difference with its index.

\b
Exit status: 0 ok (and results match --expected), 1 bad input or a runtime refusal,
2 bad usage, 3 results differ from --expected or between backends (--compare),
70 internal error (add --debug), 124 --timeout expired, 130 stopped with Ctrl-C.
"""


@dataclass
class RunResult:
    """One backend's run of a module: outputs, timings and how it was compiled."""
    module: Module
    backend: Backend
    outputs: list[np.ndarray]
    timings: list[Timing] = field(default_factory=list)
    compiled: Compiled | None = None  # how the backend compiled (phases, compile cache)
    refusal: HloError | None = None  # why the default backend refused the module (we fell back)


def _timed(fn: Callable[[], T], repeat: int) -> tuple[T, list[float]]:
    """(the last call's value, seconds per call) of `repeat` (at least 1) calls of `fn`."""
    seconds: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        seconds.append(time.perf_counter() - start)
    assert seconds, "repeat is at least 1 (click.IntRange)"
    return value, seconds


def _select_backend(name: str | None) -> Backend:
    if name is None:
        return best_available()
    if name not in BACKENDS:
        raise usage_error(not_available_message(name))
    return BACKENDS[name]


def _with_tokens(specs: list[LeafSpec], arrays: list[np.ndarray]) -> list[np.ndarray | None]:
    """Argument leaves in parameter order, None where a parameter leaf is a token."""
    it = iter(arrays)
    return [None if s.is_token else next(it) for s in specs]


def _arguments(module: Module, inputs: tuple[str, ...], seed: int | None) -> list[np.ndarray | None]:
    specs = parameter_leaves(module)
    wanted = [s for s in specs if not s.is_token]
    if inputs:
        from hlotools.io.npz import bind, read_arrays
        arrays = read_arrays(list(inputs))
        return _with_tokens(specs, bind(arrays, specs))
    if seed is not None:
        from hlotools.io.random_inputs import random_inputs
        return _with_tokens(specs, random_inputs(module, seed))
    if wanted:
        params = ", ".join(f"{s.name}: {shape_text(s.shape)}" for s in wanted)
        raise usage_error(f"the entry computation takes {len(wanted)} input(s) ({params}); "
                          "give --inputs FILE... or --random SEED")
    return _with_tokens(specs, [])


@dataclass
class _Padding:
    """How a module with bounded dynamic dims runs: its padded static form is what compiles
    (so the compile cache keys on the bounds, never on a run's sizes), and the runner pads the
    arguments and trims the results around it."""
    module: Module
    request: CompileRequest
    signature: PaddedSignature | None = None

    def wrap(self, compiled: Compiled) -> Compiled:
        sig = self.signature
        if sig is None:
            return compiled
        from hlotools.ir.dynamic_arrays import pad_arguments, unpad_results
        inner, module = compiled.run, self.module

        def run(args: list[np.ndarray | None]) -> list[np.ndarray]:
            return unpad_results(sig, inner(pad_arguments(module, sig, args)))
        return dataclasses.replace(compiled, run=run)


def _runnable(module: Module, request: CompileRequest) -> tuple[Module, _Padding]:
    if not has_dynamic_shapes(module):
        return module, _Padding(module, request)
    padded, sig = pad_dynamic(module)
    # The padded module's own text is the cache key (the source text names the dynamic form).
    return padded, _Padding(module, dataclasses.replace(request, source_text=None), sig)


def _compile(backend: Backend, module: Module, request: CompileRequest) -> Compiled:
    """Compile once (a process compiles a module once; --repeat repeats parse and run only)."""
    start = time.perf_counter()
    made = backend.compile_with(module, request) if backend.compile_with is not None else backend.compile(module)
    if isinstance(made, Compiled):
        return made
    return Compiled(made, {"compile": time.perf_counter() - start} if backend.compiles else {})


def _settle_background_work() -> None:
    """A cold compile links its shared library in the background (a cc child and a thread,
    which the process waits for at exit anyway): timed runs wait for it first, so they do not
    share the CPU with it. On one CPU (taskset, HLOTOOLS_NUM_THREADS=1) it doubled run times."""
    import sys
    link = sys.modules.get("hlotools.backend.llvm.native.background_link")  # a warm start never imports it
    if link is not None:
        link.wait_all(120)


def execute(text: str, name: str, backend: Backend, inputs: tuple[str, ...], seed: int | None,
             repeat: int, request: CompileRequest | None = None, fallback: Backend | None = None,
             warmup: int = 0, timed: bool = False) -> RunResult:
    """Parse `repeat` times, compile once, run `warmup` times untimed and `repeat` times timed.
    With `fallback`, a module that `backend` refuses at compile time (HloUnsupportedError)
    runs on `fallback` instead. `timed`: the timings are reported, so the runs wait for the
    compile's background work first."""
    module, parse_s = _timed(lambda: parse_module(text, name), repeat)
    assert module is not None
    try:
        check_array_sizes(module)
    except HloError as e:
        raise e.with_place(name, text) from None
    args = _arguments(module, inputs, seed)
    refusal: HloError | None = None
    try:
        request = request or CompileRequest(source_text=text)
        runnable, padding = _runnable(module, request)
        try:
            compiled = _compile(backend, runnable, padding.request)
        except HloUnsupportedError as e:
            if fallback is None:
                raise
            refusal, backend = e.with_place(name, text), fallback
            compiled = _compile(backend, runnable, padding.request)
        compiled = padding.wrap(compiled)
        if timed:
            _settle_background_work()
        with np.errstate(all="ignore"):  # XLA computes inf/NaN silently; so do we
            for _ in range(warmup):
                compiled(args)
            outputs, run_s = _timed(lambda: compiled(args), repeat)
    except HloError as e:
        raise e.with_place(name, text) from None
    if outputs is None or len(outputs) != len(result_leaves(module)):
        raise RuntimeError(f"{backend.name} returned {len(outputs or [])} result leaves for "
                           f"{len(result_leaves(module))}")
    timings = ([Timing("parse", parse_s)] + [Timing(p, [s]) for p, s in compiled.phases.items()]
               + [Timing("run", run_s)])
    return RunResult(module, backend, list(outputs), timings, compiled, refusal)


def _fallback_note(result: RunResult, verbose: int) -> str:
    """One line on stderr when the default backend refused the module; -v adds why."""
    assert result.refusal is not None
    why = result.refusal.format().splitlines()[0] if verbose else "-v says why"
    return f"note: the LLVM backend cannot compile this module; ran it on the interpreter ({why})"


def data_outputs(result: RunResult) -> list[tuple[LeafSpec, np.ndarray]]:
    """(leaf, array) for every result leaf that carries data (tokens carry none)."""
    return [(s, np.asarray(result.outputs[s.index])) for s in result_leaves(result.module) if not s.is_token]


def _summaries(result: RunResult) -> list[Summary]:
    """One per result leaf; a token leaf shows as just its type."""
    out = []
    for s in result_leaves(result.module):
        name = s.name if s.label is None else f"{s.name} ({s.label})"  # the name JAX gave the result
        if s.is_token:
            out.append(Summary(name, shape_text(s.shape), "token", 0))
        else:
            array = np.asarray(result.outputs[s.index])
            out.append(summarize(name, array, _runtime_shape_text(s, array)))
    return out


def _runtime_shape_text(leaf: LeafSpec, array: np.ndarray) -> str:
    """A dynamic leaf at the size it came back with (f32[4,5] for f32[4,<=8])."""
    if leaf.shape.is_static or leaf.shape.element_type is None:
        return shape_text(leaf.shape)
    return f"{leaf.shape.element_type.name}[{','.join(map(str, array.shape))}]"


def _compare_all(result: RunResult, expected_path: str, rtol: float | None,
                 atol: float | None) -> list[Comparison]:
    from hlotools.io.compare import compare
    from hlotools.io.npz import bind, read_arrays
    expected = bind(read_arrays([expected_path]), result_leaves(result.module), what="result")
    out = []
    for (spec, actual), want in zip(data_outputs(result), expected):
        assert spec.shape.element_type is not None
        out.append(compare(spec.name, actual, want, spec.shape.element_type.name, rtol, atol))
    return out


def _compare_backends(result: RunResult, reference: RunResult, rtol: float | None,
                      atol: float | None) -> tuple[list[Comparison], dict[str, Difference]]:
    """Each output of `result` against the same output of another backend's run, and the
    largest absolute and relative difference of each (by comparison name)."""
    from hlotools.cli.difference import largest_difference
    from hlotools.io.compare import compare
    out, differences = [], {}
    for (spec, actual), (_, want) in zip(data_outputs(result), data_outputs(reference)):
        assert spec.shape.element_type is not None
        c = compare(f"{spec.name} ({result.backend.name} vs {reference.backend.name})", actual, want,
                    spec.shape.element_type.name, rtol, atol)
        out.append(c)
        differences[c.name] = largest_difference(actual, want)
    return out, differences


def _json_report(result: RunResult, comparisons: list[Comparison] | None, show_timings: bool,
                 literals: bool, differences: dict[str, Difference] | None = None) -> str:
    from hlotools.io.literal_text import literal_text
    outputs = []
    for spec, summary in zip(result_leaves(result.module), _summaries(result)):
        entry = summary.to_json()
        if spec.label is not None:
            entry["name"], entry["result_info"] = spec.name, spec.label
        if literals:
            entry["literal"] = literal_text(None if spec.is_token else result.outputs[spec.index], spec.shape)
        outputs.append(entry)
    doc: dict = {"module": result.module.name, "backend": result.backend.name, "outputs": outputs}
    if comparisons is not None:
        doc["match"] = all(c.ok for c in comparisons)
        doc["comparisons"] = [_comparison_json(c, differences or {}) for c in comparisons]
    if result.backend.compiles and result.compiled is not None:
        doc["metrics"] = result.compiled.metrics()  # kernels, peak bytes, compile phases (hlo-bench's)
    if show_timings:
        doc["timings"] = {t.phase: t.to_json() for t in result.timings}
        if result.backend.compiles and result.compiled is not None:
            from hlotools.backend.llvm.native.cache import environment  # the compile's keys (computed)
            env = environment()
            doc["compile"] = {"cache": result.compiled.cache, "cold": result.compiled.cache != "hit",
                              "loader": result.compiled.loader or None,
                              "target": {"cpu": env["cpu"], "features": env["features"]}}  # what the code is for
    if result.refusal is not None:
        doc["fallback"] = {"from": "llvm", "reason": result.refusal.format().splitlines()[0]}
    return json.dumps(doc, indent=2, allow_nan=False)


def _comparison_json(c: Comparison, differences: dict[str, Difference]) -> dict:
    doc = c.to_json()
    if c.name in differences:
        doc["largest_difference"] = differences[c.name].to_json()
    return doc


def _human_report(result: RunResult, comparisons: list[Comparison] | None, show_timings: bool,
                  literals: bool, differences: dict[str, Difference] | None = None) -> None:
    reporter = Reporter()
    if literals:
        from hlotools.io.literal_text import literal_text
        for spec in result_leaves(result.module):
            reporter.line(literal_text(None if spec.is_token else result.outputs[spec.index], spec.shape))
    else:
        reporter.summaries(_summaries(result))
    if comparisons is not None:
        reporter.comparisons(comparisons, {k: d.text() for k, d in (differences or {}).items()})
    if show_timings:
        if result.backend.compiles and result.compiled is not None:
            reporter.line(compile_line(result.compiled))
        reporter.timings(result.timings)


def _save_arguments(path: str, module: Module, inputs: tuple[str, ...], seed: int | None) -> None:
    """The arguments the run used, as an .npz that `--inputs` binds back (keys in<k>, k the
    parameter leaf's position among all leaves, as --inputs reads them; tokens carry no data)."""
    from hlotools.io.npz import save_npz
    args = _arguments(module, inputs, seed)
    save_npz(path, [(f"in{s.index}", a) for s, a in zip(parameter_leaves(module), args) if a is not None])


def compile_line(compiled: Compiled) -> str:
    """Says whether the compile phases were cold or skipped because the compile cache hit."""
    if compiled.cache == "hit":
        how = " with dlopen" if compiled.loader == "shared-library" else " into the JIT"
        return f"compile: cached (compile cache hit, machine code loaded{how}; no passes, codegen or LLVM)"
    if compiled.cache == "miss":
        return "compile: cold (compile cache miss: passes, codegen and LLVM ran; the result is stored)"
    if compiled.cache == "off":
        return "compile: cold (--no-cache: passes, codegen and LLVM ran)"
    return "compile: cold"


def _set_target(cpu: str | None) -> None:
    """--target-cpu: the JIT reads $HLOTOOLS_TARGET_CPU at its first compile (and the compile
    cache keys on it), so setting it before anything compiles is all it takes."""
    if cpu is not None:
        import os
        os.environ["HLOTOOLS_TARGET_CPU"] = cpu


class RunCommand(VariadicCommand):
    variadic_options = ("--inputs",)  # --inputs a.npy b.npy ...


@click.command(cls=RunCommand, context_settings=CONTEXT_SETTINGS, epilog=EPILOG)
@input_argument
@click.option("--inputs", multiple=True, metavar="FILE...",
              help="Arguments: .npy files (one per parameter leaf), .npz files (keys in0.. or parameter "
                   "names) or text files of HLO literals (one per line), mixed as needed: .npz keys bind "
                   "first, the other arrays fill the parameters left, in order.")
@click.option("--random", "seed", type=click.IntRange(min=0), default=None, metavar="SEED",
              help="Random arguments from SEED (floats N(0,1), small ints, in-range indices).")
@click.option("-o", "--output", default=None, metavar="FILE",
              help="Save the results to FILE, an .npz with out0, out1, ...")
@click.option("--expected", default=None, metavar="FILE",
              help="Compare with the arrays in FILE (.npz out0.., .npy or literal text); exit 3 on a "
                   "mismatch.")
@click.option("--rtol", type=click.FloatRange(min=0), default=None, metavar="R",
              help="Relative tolerance: |a-e| <= atol + rtol*|e| (default: by element type).")
@click.option("--atol", type=click.FloatRange(min=0), default=None, metavar="A", help="Absolute tolerance.")
@click.option("--backend", type=click.Choice(list(KNOWN)), default=None,
              help="Where to run: llvm (native code; the default) or interp (the numpy reference "
                   "interpreter). Without --backend, a module the LLVM backend refuses at compile "
                   "time runs on the interpreter, with a note on stderr (-v says why); with "
                   "--backend=llvm that refusal is an error (exit 1).")
@click.option("--repeat", type=click.IntRange(min=1), default=None, metavar="N",
              help="Parse and run N times and report the times (median, min): parse, the compile "
                   "phases (load, cache, passes, codegen, llvm, link; measured once, or cache-load "
                   "when the compile cache hit, said explicitly) and run.")
@click.option("--warmup", type=click.IntRange(min=0), default=0, metavar="N",
              help="Run N more times first, untimed (with --repeat: the first calls of a process "
                   "fault in the arena and start the worker threads; xla_ref's --warmup alike).")
@click.option("--compare", "compare_backends", is_flag=True,
              help="Also run the other backend (llvm vs interp) on the same inputs and report the "
                   "largest difference per output; exit 3 if they disagree beyond the tolerance.")
@click.option("--print-literals", is_flag=True, help="Print results as HLO literals: f32[2]{0} {1, 2}.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of text (errors too).")
@click.option("--save-inputs", default=None, metavar="FILE",
              help="Save the arguments (--random's too) to FILE, an .npz keyed as --inputs reads it "
                   "(in0, in1, ... per parameter leaf).")
@dump_options
@version_option
@click.option("--no-cache", is_flag=True,
              help="Compile from scratch: neither read nor write the persistent compile cache "
                   "($HLOTOOLS_CACHE_DIR, default ~/.cache/hlotools).")
@click.option("-v", "--verbose", count=True,
              help="Say how the module was compiled: compile cache hit or miss (and why), passes run, "
                   "why the LLVM backend refused a module; -vv more.")
@click.option("--target-cpu", default=None, metavar="CPU", expose_value=False, callback=lambda _c, _p, v: _set_target(v),
              is_eager=True,
              help="LLVM backend: the CPU to generate code for, as $HLOTOOLS_TARGET_CPU: host (default), "
                   "x86-64, x86-64-v2, x86-64-v3, x86-64-v4 or an LLVM CPU name (one this host can run).")
@timeout_option("compiling or running")
@click.option("-q", "--quiet", is_flag=True, help="No progress line on a terminal.")
@semantics_option
@debug_option
@click.pass_context
def main(ctx: click.Context, timeout: float | None, quiet: bool, **options: Any) -> None:
    """Run an HLO module (FILE, or '-' for standard input, or one file of an XLA dump folder:
    --module/--stage) and show, save or check its results."""
    from hlotools.cli.stoppable import run_stoppable
    what = f"running {options['input_file']}" if options["input_file"] != "-" else "running"
    run_stoppable(lambda: _main(ctx, **options), timeout, quiet, what)


def _main(ctx: click.Context, input_file: str, inputs: tuple[str, ...], seed: int | None, output: str | None,
          expected: str | None, rtol: float | None, atol: float | None, backend: str | None,
          repeat: int | None, warmup: int, compare_backends: bool, print_literals: bool, as_json: bool,
          no_cache: bool, save_inputs: str | None, dump_module: str | None, stage: str | None, verbose: int,
          debug: bool) -> None:
    if inputs and seed is not None:
        raise usage_error("--inputs and --random exclude each other")
    if output == "-":
        raise usage_error("-o needs a file name: the results are written as an .npz archive")
    if save_inputs == "-":
        raise usage_error("--save-inputs needs a file name: the arguments are written as an .npz archive")
    picked = pick_input(input_file, dump_module, stage, as_json)
    if picked is None:
        return  # a dump folder was listed
    chosen = _select_backend(backend)
    text, name = read_input(picked)
    request = CompileRequest(source_text=text, use_cache=not no_cache)
    # Only the default falls back: --backend=llvm and --compare need LLVM's own answer.
    fallback = fallback_for(chosen) if backend is None and not compare_backends else None
    with cli_logging(verbose):  # -v: the compile cache's hits and misses (logger hlotools.cache)
        result = execute(text, name, chosen, inputs, seed, repeat or 1, request, fallback, warmup,
                         timed=repeat is not None)
    if result.refusal is not None:
        err(_fallback_note(result, verbose))
    if save_inputs:
        _save_arguments(save_inputs, result.module, inputs, seed)
    comparisons = _compare_all(result, expected, rtol, atol) if expected else None
    differences: dict[str, Difference] = {}
    if compare_backends:
        other = _select_backend("interp" if chosen.name != "interp" else "llvm")
        with cli_logging(verbose):
            reference = execute(text, name, other, inputs, seed, 1, request)
        between, differences = _compare_backends(result, reference, rtol, atol)
        comparisons = (comparisons or []) + between
    if output:
        from hlotools.io.npz import save_npz
        save_npz(output, [(s.name, a) for s, a in data_outputs(result)])
    from hlotools.cli.stoppable import end_progress
    end_progress()  # the results go where the progress line was
    if as_json:
        click.echo(_json_report(result, comparisons, repeat is not None, print_literals, differences))
    else:
        _human_report(result, comparisons, repeat is not None, print_literals, differences)
    if comparisons is not None and not all(c.ok for c in comparisons):
        ctx.exit(EXIT_MISMATCH)


if __name__ == "__main__":
    main()
