"""Run time per JAX corpus module: hlotools' backends next to XLA's own (manifest.json).

XLA's figures (`xla.run_s_median`, `xla.compile_s`) were measured by
../shared/tools/xla_ref.py on a machine like this one; ours are measured here, in this run.
Per module: the interpreter's run time; the LLVM backend's cold compile (passes + codegen +
LLVM, no cache), warm start (the same module through a fresh compile cache: object load
only) and run time; ratios LLVM/XLA and interpreter/LLVM. Run times are medians of
`--repeat` calls (wall clock) with the CPU time of the calling process next to them: the
machine may be shared, and CPU time over wall time shows the threads that really ran.
The LLVM backend's runtime library (kernels/library.py: the parallel runtime and the GEMM
kernels, compiled once per machine and cached) is built once before the per-module loop, and
that one-time cost is printed first (built, then loaded from a compile cache as a later process
would), with the process's first compile of a tiny module (imports of the passes and emitters);
the per-module cold compile (a fresh module cache each time) then excludes both, as XLA's
compile_s excludes the runtime compiled into its binary (Eigen and its runtime functions).
Never asserts on time. Usage:
    python bench/run.py [--repeat R] [--only SUBSTR[,SUBSTR]] [--big] [--no-interp] [--no-llvm] [--json]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hlotools  # noqa: E402
from hlotools import evaluate  # noqa: E402
from hlotools.io.arrays import parameter_leaves, reinterpret  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
JAX = SHARED / "corpus" / "jax"


def load_inputs(module: hlotools.ir.module.Module, path: Path) -> list[np.ndarray]:
    data = np.load(path)
    leaves = parameter_leaves(module)
    return [reinterpret(data[f"in{i}"], leaf.shape) for i, leaf in enumerate(leaves)]


def time_call(fn, repeat: int, budget_s: float = 5.0) -> tuple[float, float, float]:
    """(median wall, min wall, median CPU) seconds over up to `repeat` runs, fewer if slow."""
    times: list[float] = []
    cpu: list[float] = []
    start = time.perf_counter()
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if time.perf_counter() - start > budget_s:
            break
    return statistics.median(times), min(times), statistics.median(cpu)


def llvm_row(module: hlotools.ir.module.Module, text: str, inputs: list[np.ndarray], repeat: int) -> dict:
    """Cold compile, warm (cached) start and run time of the LLVM backend."""
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
    from hlotools.backend.llvm.native.cache import CompileCache
    with tempfile.TemporaryDirectory() as tmp:
        cc = CompileCache(Path(tmp))
        t0, c0 = time.perf_counter(), time.process_time()
        compiled = compile_cached(module, CompileOptions(), compile_cache=cc, source_text=text)
        cold_s, cold_cpu = time.perf_counter() - t0, time.process_time() - c0
        cc.wait_for_links()  # the shared library is linked in the background; warm starts dlopen it
        warm: list[float] = []
        for _ in range(3):
            t0 = time.perf_counter()
            compile_cached(module, CompileOptions(), compile_cache=cc, source_text=text)
            warm.append(time.perf_counter() - t0)
    compiled(inputs)  # first call: page faults, arena
    run_s, run_min, run_cpu = time_call(lambda: compiled(inputs), repeat)
    return {"llvm_cold_s": cold_s, "llvm_cold_cpu_s": cold_cpu, "llvm_warm_s": min(warm),
            "llvm_ms": run_s * 1e3, "llvm_min_ms": run_min * 1e3, "llvm_cpu_ms": run_cpu * 1e3}


def runtime_library_cost() -> str:
    """Build the runtime library once (the parallel runtime, the f32/f64 GEMM kernels) into a
    compile cache of its own, then load it back from there as another process would: the
    one-time cost the per-module cold compiles below no longer pay."""
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
    from hlotools.backend.llvm.kernels import library as runtime_library
    from hlotools.backend.llvm.native.cache import CompileCache
    with tempfile.TemporaryDirectory() as tmp:
        cc = CompileCache(Path(tmp))
        t0, c0 = time.perf_counter(), time.process_time()
        runtime_library.prepare(cc)
        built_s, built_cpu = time.perf_counter() - t0, time.process_time() - c0
        runtime_library.forget()
        t0 = time.perf_counter()
        runtime_library.prepare(cc)
        load_s = time.perf_counter() - t0
        # the process's first compile imports the passes and the emitters: paid once, before
        # the first module, which would otherwise carry it alone
        warm_text = "HloModule warm\nENTRY e {\n  a = f32[8] parameter(0)\n  ROOT r = f32[8] add(a, a)\n}\n"
        t0 = time.perf_counter()
        compile_cached(hlotools.parse_module(warm_text), CompileOptions(), compile_cache=cc, source_text=warm_text)
        warm_s = time.perf_counter() - t0
        cc.wait_for_links()
    groups = ", ".join(sorted(runtime_library.loaded()))
    return (f"runtime library ({groups}): built once in {built_s * 1e3:.0f} ms (CPU {built_cpu * 1e3:.0f} ms, "
            f"incl. LLVM's initialisation), loaded from the compile cache in {load_s * 1e3:.1f} ms; "
            f"first compile of the process (imports of the passes and emitters) {warm_s * 1e3:.0f} ms; "
            "neither is in the cold compiles below")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated name substrings")
    ap.add_argument("--big", action="store_true", help="the targets: big_* and the transformer/llama blocks")
    ap.add_argument("--no-interp", action="store_true")
    ap.add_argument("--no-llvm", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not JAX.is_dir():
        print(f"no corpus at {JAX}; nothing to measure")
        return 0
    manifest = json.loads((JAX / "manifest.json").read_text())
    only = [o for o in args.only.split(",") if o]
    if not args.no_llvm:
        print(runtime_library_cost(), file=sys.stderr if args.json else sys.stdout)
    cases = []
    for entry in manifest["modules"]:
        name = entry["name"]
        if only and not any(o in name for o in only):
            continue
        if args.big and not (name.startswith("big_") or name in ("transformer_block", "llama_block")):
            continue
        text = (JAX / f"{name}.hlo").read_text()
        t0 = time.perf_counter()
        module = hlotools.parse_module(text, f"{name}.hlo")
        parse_s = time.perf_counter() - t0
        inputs = load_inputs(module, JAX / f"{name}.inputs.npz")
        xla = entry["xla"]
        row: dict = {"module": name, "parse_ms": parse_s * 1e3, "xla_ms": xla["run_s_median"] * 1e3,
                     "xla_compile_s": xla.get("compile_s")}
        cases.append((row, module, text, inputs))
    # Every LLVM measurement comes before any interpreter run: numpy's OpenBLAS threads spin
    # for a while after each matrix product the interpreter does, and on a 2-core machine they
    # take the core the generated code's worker would run on (LLVM rows then measure 1 thread).
    for row, module, text, inputs in cases if not args.no_llvm else []:
        try:
            row.update(llvm_row(module, text, inputs, args.repeat))
            row["llvm_over_xla"] = row["llvm_ms"] / row["xla_ms"]
        except hlotools.HloError as e:
            row["llvm_error"] = e.message.splitlines()[0][:100]
    for row, module, _text, inputs in cases if not args.no_interp else []:
        try:
            interp_s, _, interp_cpu = time_call(lambda m=module, a=inputs: evaluate(m, a), args.repeat)
            row.update(interp_ms=interp_s * 1e3, interp_cpu_ms=interp_cpu * 1e3,
                       interp_over_xla=interp_s / row["xla_ms"] * 1e3)
            if "llvm_ms" in row:
                row["interp_over_llvm"] = row["interp_ms"] / row["llvm_ms"]
        except hlotools.HloError as e:
            row["interp_error"] = e.message
    rows = [c[0] for c in cases]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print_table(rows)
    return 0


def _f(v: float | None, fmt: str) -> str:
    return format(v, fmt) if isinstance(v, (int, float)) else "-"


def _x(v: float | None, fmt: str) -> str:
    return f"{format(v, fmt) + 'x' if isinstance(v, (int, float)) else '-':>8}"


def print_table(rows: list[dict]) -> None:
    print(f"threads: HLOTOOLS_NUM_THREADS={os.environ.get('HLOTOOLS_NUM_THREADS', '(all CPUs)')}, "
          f"CPUs available: {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}")
    head = (f"{'module':24} {'interp ms':>10} {'llvm ms':>9} {'(cpu)':>8} {'XLA ms':>8} {'llvm/XLA':>8} "
            f"{'int/llvm':>8} {'cold s':>7} {'XLA cmp s':>9} {'warm ms':>8}")
    print(head)
    for r in rows:
        err = r.get("llvm_error") or ""
        print(f"{r['module']:24} {_f(r.get('interp_ms'), '10.2f'):>10} {_f(r.get('llvm_ms'), '9.3f'):>9} "
              f"{_f(r.get('llvm_cpu_ms'), '8.3f'):>8} {r['xla_ms']:8.3f} {_x(r.get('llvm_over_xla'), '.2f')} "
              f"{_x(r.get('interp_over_llvm'), '.1f')} {_f(r.get('llvm_cold_s'), '7.3f'):>7} "
              f"{_f(r.get('xla_compile_s'), '9.3f'):>9} "
              f"{_f(r.get('llvm_warm_s', 0) * 1e3 if 'llvm_warm_s' in r else None, '8.1f'):>8}"
              + (f"  llvm: {err}" if err else "") + (f"  interp: {r['interp_error']}" if r.get("interp_error") else ""))
    for label, key in (("llvm/XLA", "llvm_over_xla"), ("interp/XLA", "interp_over_xla"),
                       ("interp/llvm", "interp_over_llvm")):
        vals = [r[key] for r in rows if key in r]
        if vals:
            geo = math.exp(sum(math.log(x) for x in vals) / len(vals))
            print(f"geometric mean {label}: {geo:.2f}x over {len(vals)} modules "
                  f"(min {min(vals):.2f}x, max {max(vals):.2f}x)")
    cold = [(r["llvm_cold_s"], r["xla_compile_s"]) for r in rows if "llvm_cold_s" in r and r.get("xla_compile_s")]
    if cold:
        worse = sum(1 for a, b in cold if a > b)
        print(f"cold compile slower than XLA's on {worse} of {len(cold)} modules")


if __name__ == "__main__":
    raise SystemExit(main())
