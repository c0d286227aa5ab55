"""hlotools next to real XLA, live, in one run on this machine: run time, compile time, start-up.

Every figure comes from child processes on the same module files and the same inputs: hlotools
through `hlo-run --backend=llvm` (side_by_side/ours.py says which processes and compile caches),
XLA through ../shared/tools/xla_ref.py in the reference venv ($XLA_REF_VENV, default
~/.cache/hlotools-xla-ref/venv, made by ../shared/tools/setup-ref.sh; without it the XLA columns
stay empty and a note says so). Per module: run median and min, multi-threaded and on one
thread (HLOTOOLS_NUM_THREADS=1 / xla_ref --single-thread, each on one CPU); hlotools' cold
compile and its phases, XLA's compile, the warm start (a second process on the filled compile
cache) and the compiling process's peak memory; whether the outputs agree with XLA's; ratios
hlotools/XLA and their geometric means. Once per run: the host CPU, the one-time runtime library,
XLA's library load (the jax import), the start-up of whole `hlo-opt` / `hlo-run` processes on a
small module, the run's own duration.

What each side's cold compile holds: XLA's compile_s is client.compile_and_load (StableHLO to an
executable, the CPU client's creation included); importing jax (which loads XLA and its LLVM),
XLA's parse and the HLO-to-StableHLO conversion are outside it. Ours is everything hlo-run's
LLVM backend spends from the parsed module to a callable one: "load" (importing the backend's
and the passes' modules and llvmlite, which loads LLVM, and binding the runtime library's
objects: native/load_clock.py), keys and the cache, passes, codegen, LLVM, the link's
start; the parse is outside it, and so is the link itself (cc makes the shared library a warm
start dlopens on a background thread; a cold hlo-run waits for it at exit). Both processes
import numpy first, outside both. So the compile ratio compares the two without their library loads (ours minus "load"), and "+load" compares
what a fresh process pays for its first compile: ours whole, XLA's with its jax import.

--target-cpu CPU compiles both sides for another CPU this host can run (side_by_side/target.py:
hlotools' HLOTOOLS_TARGET_CPU, XLA's --xla_cpu_max_isa), e.g. x86-64-v3 for an AVX2 + FMA host.

Modules: the JAX corpus' big and transformer modules (--corpus all: every one), real layered JAX
models (bench/models.py: --models, --depths; generated with the reference venv into --models-dir
when missing), and any --file. Every child process has a budget (--compile-timeout plus
--run-timeout); past it the row says "timeout". Never asserts on time.

Usage:
    python bench/run.py [--quick | --dry] [--only SUBSTR,..] [--corpus big|all|none]
                        [--models gpt_fwd,..|none] [--depths 2,8,24] [--file F.hlo ..]
                        [--repeat N] [--compile-timeout S] [--target-cpu host|x86-64-v3|..] [--no-single-thread] [--json OUT.json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from side_by_side import agree, catalog, host, ours, table, xla
from side_by_side.target import Target, resolve

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "jax"
STARTUP_LABELS = {"hlo_opt_s": "hlo-opt small.hlo", "hlo_run_warm_s": "hlo-run small.hlo --random 0 (warm cache)",
                  "import_numpy_s": "python -c 'import numpy'"}
MODELS_DIR = Path.home() / ".cache" / "hlotools-bench" / "models"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated substrings of the module names to keep")
    ap.add_argument("--corpus", choices=("big", "all", "none"), default="big")
    ap.add_argument("--models", default=",".join(catalog.MODELS), help="models of bench/models.py, or 'none'")
    ap.add_argument("--depths", default=None, help="model depths (default 2,8,24; --quick: 2)")
    ap.add_argument("--models-dir", type=Path, default=MODELS_DIR)
    ap.add_argument("--file", action="append", default=[], help="another module (NAME.inputs.npz beside it)")
    ap.add_argument("--repeat", type=int, default=None, help="runs per measurement (default 10; --quick 5)")
    ap.add_argument("--compile-timeout", type=float, default=600.0, help="seconds a process may compile")
    ap.add_argument("--run-timeout", type=float, default=120.0, help="seconds more for its runs")
    ap.add_argument("--target-cpu", default="host",
                    help="compile for this CPU on both sides: hlotools' HLOTOOLS_TARGET_CPU (host, x86-64-v2, "
                         "x86-64-v3, x86-64-v4 or an LLVM CPU name), XLA's --xla_cpu_max_isa of its widest ISA")
    ap.add_argument("--no-single-thread", action="store_true", help="skip the one-thread runs")
    ap.add_argument("--quick", action="store_true", help="depth 2 only, 5 repeats")
    ap.add_argument("--dry", action="store_true",
                    help="check the machinery: 1 repeat, no one-thread runs, no runtime library seeding, no start-up")
    ap.add_argument("--json", type=Path, default=None, help="write every figure to this file")
    args = ap.parse_args(argv)
    args.repeat = args.repeat or (1 if args.dry else 5 if args.quick else 10)
    args.depths = [int(d) for d in (args.depths or ("2" if args.quick or args.dry else "2,8,24")).split(",") if d]
    args.models = [] if args.models in ("", "none") else args.models.split(",")
    unknown = [m for m in args.models if m not in catalog.MODELS]
    if unknown:
        ap.error(f"unknown model {unknown[0]!r} (models: {', '.join(catalog.MODELS)})")
    return args


def measure(case: catalog.Case, args: argparse.Namespace, target: Target, python: Path | None,
            seed: Path | None, work: Path, say_err: Any, xla_load: float | None) -> dict[str, Any]:
    """Every figure of one module (a dict of dicts of seconds, the table's row)."""
    budget = args.compile_timeout + args.run_timeout
    row: dict[str, Any] = {"module": case.name, "source": case.source, "file": str(case.hlo),
                           "instructions": case.instructions(), "ours": {}, "xla": {}}
    folder = work / case.name
    folder.mkdir()
    inputs = case.inputs
    if inputs is None and python is not None:
        inputs = xla.random_inputs(python, case, folder / "inputs.npz", budget, target)
    row["inputs"] = str(inputs) if inputs else "random seed 0"
    cache = ours.new_cache(seed, folder / "cache")
    mine, theirs = folder / "ours.npz", folder / "xla.npz"
    row["ours"]["cold"] = ours.cold(case, inputs, cache, budget, mine, target)
    cold_failed = row["ours"]["cold"].get("error")
    skipped = {"error": f"skipped (cold compile: {cold_failed})"}
    row["ours"]["mt"] = skipped if cold_failed else ours.run(case, inputs, cache, args.repeat, budget, target)
    if not args.no_single_thread and not args.dry:
        row["ours"]["st"] = skipped if cold_failed else ours.run(case, inputs, cache, args.repeat, budget, target,
                                                                 single_thread=True, cpu=_first_cpu())
    if python is not None:
        row["xla"]["mt"] = xla.measure(python, case, inputs, args.repeat, budget, target, False, theirs)
        if "st" in row["ours"]:
            row["xla"]["st"] = xla.measure(python, case, inputs, args.repeat, budget, target, True)
    if mine.is_file() and theirs.is_file() and inputs is not None:
        row["agree"] = agree.compare(mine, theirs)
    row["ratios"] = _ratios(row, xla_load)
    say_err(f"  {case.name}: " + _progress(row))
    return row


def _first_cpu() -> int:
    return min(os.sched_getaffinity(0))


def _ratios(row: dict[str, Any], xla_load: float | None) -> dict[str, float]:
    """hlotools/XLA: run times, and the cold compile without both sides' library loads
    ("compile") and with them ("compile_load": what a fresh process pays)."""
    got = {}
    for key, mode, fig in (("run", "mt", "run_s_median"), ("run_st", "st", "run_s_median"),
                           ("run_min", "mt", "run_s_min"), ("run_st_min", "st", "run_s_min")):
        a = row["ours"].get(mode, {}).get(fig)
        b = row["xla"].get(mode, {}).get(fig)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b > 0:
            got[key] = a / b
    ours, theirs = row["ours"]["cold"].get("compile_s"), row["xla"].get("mt", {}).get("compile_s")
    if isinstance(ours, (int, float)) and isinstance(theirs, (int, float)) and theirs > 0:
        got["compile"] = row["ours"]["cold"]["compile_without_load_s"] / theirs
        if xla_load is not None:
            got["compile_load"] = ours / (theirs + xla_load)
    return got


def _progress(row: dict[str, Any]) -> str:
    cold = row["ours"]["cold"]
    parts = [f"cold {cold['compile_s']:.2f} s" if "compile_s" in cold else f"cold {cold.get('error')}"]
    parts += [f"{k} {v:.2f}x" for k, v in row["ratios"].items() if not k.endswith("_min")]
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    def say(line: str = "") -> None:
        print(line, flush=True)

    def say_err(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    cpu = host.cpu()
    target = resolve(args.target_cpu, dict(os.environ))
    say(host.describe(cpu) + "; " + target.describe())
    python, why_not = xla.venv_python()
    say(f"XLA: {python} {xla.XLA_REF}" if python else f"note: {why_not}: XLA columns skipped, ratios blank")
    only = [o for o in args.only.split(",") if o]

    def keep(name: str) -> bool:
        return not only or any(o in name for o in only)

    if args.corpus != "none" and not (CORPUS / "manifest.json").is_file():
        say(f"note: no corpus at {CORPUS}: its modules skipped")
    cases = (catalog.corpus(CORPUS, args.corpus)
             + catalog.models(args.models_dir, args.models, args.depths, python, args.compile_timeout, say, keep)
             + catalog.files(args.file))
    cases = [c for c in cases if keep(c.name)]
    report: dict[str, Any] = {"host": cpu, "target": {"cpu": target.cpu, "llvm_cpu": target.llvm_cpu,
                                                      "features": target.features, "xla_max_isa": target.xla_isa()},
                              "xla_ref": str(python) if python else None, "repeat": args.repeat,
                              "compile_timeout_s": args.compile_timeout, "rows": []}
    with tempfile.TemporaryDirectory(prefix="hlotools-bench-") as tmp:
        work = Path(tmp)
        seed = None
        if not args.dry:
            seed = work / "seed"
            seed.mkdir()
            line = ours.seed(seed, args.compile_timeout, target)
            report["runtime_library"] = line
            say(line)
        if not args.dry:
            start_up = ours.startup(_mkdir(work / "startup"), 5, args.run_timeout, target)
            report["startup"] = start_up
            say("start-up, whole processes (median of 5): " + ", ".join(
                f"{STARTUP_LABELS[k]} {v * 1e3:.0f} ms" for k, v in start_up.items()))
        xla_load = xla.load(python, 5, args.run_timeout, target) if python is not None and not args.dry else None
        report["xla_load_s"] = xla_load
        if xla_load is not None:
            say(f"XLA's library load (import jax and jaxlib after numpy; median of 5 processes): "
                f"{xla_load * 1e3:.0f} ms, once per process: outside its compile figures, in '+load'")
        say_err(f"measuring {len(cases)} modules (repeat {args.repeat}, budget "
                f"{args.compile_timeout + args.run_timeout:.0f} s a process)")
        for case in cases:
            report["rows"].append(measure(case, args, target, python, seed, work, say_err, xla_load))
    rows = report["rows"]
    say()
    for line in table.run_table(rows):
        say(line)
    say()
    for line in table.compile_table(rows):
        say(line)
    for block in (table.summary(rows) + table.depth_scaling(rows), table.errors(rows)):
        if block:
            say()
        for line in block:
            say(line)
    report["total_s"] = time.perf_counter() - started
    say(f"total time of this run: {report['total_s']:.0f} s ({len(rows)} modules)")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


def _mkdir(p: Path) -> Path:
    p.mkdir()
    return p


if __name__ == "__main__":
    raise SystemExit(main())
