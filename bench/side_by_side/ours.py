"""hlotools, measured as a user meets it: `hlo-run --backend=llvm --json` child processes, each
with its compile cache folder set ($HLOTOOLS_CACHE_DIR).

- cold: a folder holding only the runtime library (worker pool, GEMM, convolution and
  reduce-window kernels, built once per machine like XLA's runtime inside its binary), so the
  process pays passes, codegen and LLVM; hlo-run reports those phases, 'load' (importing the
  backend's and the passes' modules and llvmlite, which loads LLVM, and binding the runtime
  library: once per process, as XLA's jax import) and
  'cache' (keys, lookup, storing), and runs once. Its peak resident set is the compile's.
- warm: a second process on the filled folder (its 'cache-load' is the warm start), running
  the module WARMUP times untimed, then `repeat` times: the multi-threaded run time (XLA's
  side has the same two untimed runs: xla.py).
- every child (and the runtime library seed) compiles for --target-cpu (target.py).
- single thread: HLOTOOLS_NUM_THREADS=1 (generated code without threads: the variable is part
  of the compile key, so this process compiles again) on one CPU, as xla_ref --single-thread.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
from pathlib import Path

from .catalog import Case
from .children import Child, run_child
from .target import FEATURES_VAR, TARGET_VAR, Target

BIN = Path(sys.executable).parent
THREADS_VAR = "HLOTOOLS_NUM_THREADS"  # "1" turns generated threading off (kernels/parallel_for.py)
COMPILE_PHASES = ("load", "cache", "passes", "codegen", "llvm", "link")

# Load (or build, once per machine, into the user's compile cache) every runtime library group
# and copy them into the folder given: the seed of every cold compile's folder.
SEED = """
import sys, time
from pathlib import Path
from hlotools.backend.llvm.kernels import library
from hlotools.backend.llvm.native.cache import CompileCache
t0 = time.perf_counter()
library.prepare(CompileCache())
t1 = time.perf_counter()
library.prepare(CompileCache(Path(sys.argv[1])))
print(f"{t1 - t0:.3f} {','.join(sorted(library.loaded()))} "
      + ",".join(sorted({g.origin for g in library.loaded().values()})))
"""


def tool(name: str) -> str:
    """hlo-run / hlo-opt of the Python running the benchmark (its venv), else from PATH."""
    here = BIN / name
    found = str(here) if here.is_file() else shutil.which(name)
    if found is None:
        raise SystemExit(f"bench/run.py: no {name} next to {sys.executable} or on PATH (pip install -e .)")
    return found


def env(cache: Path | None, target: Target, single_thread: bool = False) -> dict[str, str]:
    """A child's variables: the compile cache folder, the target (--target-cpu), the threads."""
    e = {k: v for k, v in os.environ.items() if k not in (THREADS_VAR, TARGET_VAR, FEATURES_VAR)}
    e.update(target.ours_env())
    if cache is not None:
        e["HLOTOOLS_CACHE_DIR"] = str(cache)
    if single_thread:
        e[THREADS_VAR] = "1"
    return e


def seed(folder: Path, timeout: float, target: Target) -> str:
    """Fill `folder` with the runtime library built for `target` (its cache keys hold the
    target's CPU and features); returns a line saying what that cost."""
    child = run_child([sys.executable, "-c", SEED, str(folder)], timeout=timeout, env=env(None, target))
    if not child.ok:
        return f"runtime library: not prepared ({child.why()}); cold compiles below include building it"
    seconds, groups, origins = (child.stdout.split() + ["", "", ""])[:3]
    return (f"runtime library ({groups}): {'built' if 'built' in origins else 'loaded'} in {float(seconds):.2f} s "
            "(once per machine, outside the cold compiles below, as XLA's runtime is in its binary)")


def new_cache(seed_folder: Path | None, where: Path) -> Path:
    if seed_folder is not None and seed_folder.is_dir():
        shutil.copytree(seed_folder, where)
    else:
        where.mkdir(parents=True)
    return where


WARMUP = 2  # untimed runs before the timed ones, as xla.py asks of xla_ref (--warmup 2)


def _cmd(case: Case, inputs: Path | None, repeat: int, out: Path | None = None, warmup: int = 0) -> list[str]:
    cmd = [tool("hlo-run"), str(case.hlo), "--backend=llvm", "--json", "--repeat", str(repeat), "--warmup", str(warmup)]
    cmd += ["--inputs", str(inputs)] if inputs is not None else ["--random", "0"]
    return cmd + (["-o", str(out)] if out is not None else [])


def cold(case: Case, inputs: Path | None, cache: Path, timeout: float, out: Path, target: Target) -> dict[str, object]:
    return _figures(run_child(_cmd(case, inputs, 1, out), timeout=timeout, env=env(cache, target)))


def run(case: Case, inputs: Path | None, cache: Path, repeat: int, timeout: float, target: Target,
        single_thread: bool = False, cpu: int = 0) -> dict[str, object]:
    return _figures(run_child(_cmd(case, inputs, repeat, warmup=WARMUP), timeout=timeout,
                              env=env(cache, target, single_thread),
                              cpus={cpu} if single_thread else None))


def _figures(child: Child) -> dict[str, object]:
    """Seconds: the compile phases (their sum is compile_s) or warm_s on a cache hit, run median
    and min; the process's wall time and peak memory."""
    got: dict[str, object] = {"process_s": child.wall_s, "peak_mb": child.peak_mb}
    if not child.ok:
        got["error"] = child.why()
        return got
    try:
        doc = json.loads(child.stdout)
    except ValueError:
        got["error"] = "hlo-run printed no JSON"
        return got
    t = {phase: v for phase, v in doc.get("timings", {}).items()}
    if "parse" in t:
        got["parse_s"] = t["parse"]["median_ms"] / 1e3
    if "cache-load" in t:
        got["warm_s"] = t["cache-load"]["median_ms"] / 1e3
    phases = {p: t[p]["median_ms"] / 1e3 for p in COMPILE_PHASES if p in t}
    if phases:
        got["phases_s"] = phases
        got["compile_s"] = sum(phases.values())  # what the process paid, its load included
        got["load_s"] = phases.get("load", 0.0)
        got["compile_without_load_s"] = got["compile_s"] - got["load_s"]  # XLA's compile_s is without its load
    if "run" in t:
        got.update(run_s_median=t["run"]["median_ms"] / 1e3, run_s_min=t["run"]["min_ms"] / 1e3,
                   repeat=t["run"]["runs"])
    got["cache"] = doc.get("compile", {}).get("cache")
    got["target_cpu"] = doc.get("compile", {}).get("target", {}).get("cpu")  # what hlo-run compiled for
    return got


def startup(folder: Path, repeat: int, timeout: float, target: Target) -> dict[str, float]:
    """Whole-process wall times (medians): `hlo-opt small.hlo`, `hlo-run small.hlo --random 0`
    on a warm compile cache, and `python -c "import numpy"` for scale."""
    small = folder / "small.hlo"
    small.write_text("HloModule small\n\nENTRY main {\n  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)\n"
                     "  ROOT c = f32[4] add(a, b)\n}\n")
    cache = folder / "cache"
    cmds = {"hlo_opt_s": [tool("hlo-opt"), str(small)],
            "hlo_run_warm_s": [tool("hlo-run"), str(small), "--random", "0"],
            "import_numpy_s": [sys.executable, "-c", "import numpy"]}
    run_child(cmds["hlo_run_warm_s"], timeout=timeout, env=env(cache, target))  # fills the cache
    got: dict[str, float] = {}
    for key, cmd in cmds.items():
        times = []
        for _ in range(repeat):
            child = run_child(cmd, timeout=timeout, env=env(cache, target))
            if child.ok:
                times.append(child.wall_s)
        if times:
            got[key] = statistics.median(times)
    return got
