"""Run time per JAX corpus module: hlotools' backends next to XLA's own (manifest.json).

XLA's figures (`xla.run_s_median`) were measured by ../shared/tools/xla_ref.py on a machine
like this one; ours are measured here, in this run. Prints a table with ratios (ours / XLA);
never asserts on time. Usage: python bench/run.py [--repeat R] [--only SUBSTR] [--json]
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hlotools  # noqa: E402
from hlotools.interpreter import evaluate  # noqa: E402
from hlotools.io.arrays import parameter_leaves, reinterpret  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
JAX = SHARED / "corpus" / "jax"


def load_inputs(module: hlotools.ir.module.Module, path: Path) -> list[np.ndarray]:
    data = np.load(path)
    leaves = parameter_leaves(module)
    return [reinterpret(data[f"in{i}"], leaf.shape) for i, leaf in enumerate(leaves)]


def time_call(fn, repeat: int, budget_s: float = 5.0) -> tuple[float, float]:  # noqa: ANN001
    """(median, min) seconds over up to `repeat` runs, fewer if a run is slow."""
    times: list[float] = []
    start = time.perf_counter()
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget_s:
            break
    return statistics.median(times), min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not JAX.is_dir():
        print(f"no corpus at {JAX}; nothing to measure")
        return 0
    manifest = json.loads((JAX / "manifest.json").read_text())
    rows = []
    for entry in manifest["modules"]:
        name = entry["name"]
        if args.only and args.only not in name:
            continue
        text = (JAX / f"{name}.hlo").read_text()
        t0 = time.perf_counter()
        module = hlotools.parse_module(text, f"{name}.hlo")
        parse_s = time.perf_counter() - t0
        inputs = load_inputs(module, JAX / f"{name}.inputs.npz")
        try:
            interp_s, _ = time_call(lambda m=module, a=inputs: evaluate(m, a), args.repeat)
        except hlotools.HloError as e:
            rows.append({"module": name, "error": e.message})
            continue
        xla_s = entry["xla"]["run_s_median"]
        rows.append({"module": name, "parse_ms": parse_s * 1e3, "interp_ms": interp_s * 1e3,
                     "xla_ms": xla_s * 1e3, "interp_over_xla": interp_s / xla_s})
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"{'module':28} {'parse ms':>9} {'interp ms':>10} {'XLA ms':>9} {'interp/XLA':>11}")
    ratios = []
    for r in rows:
        if "error" in r:
            print(f"{r['module']:28} error: {r['error']}")
            continue
        ratios.append(r["interp_over_xla"])
        print(f"{r['module']:28} {r['parse_ms']:9.2f} {r['interp_ms']:10.2f} {r['xla_ms']:9.3f} "
              f"{r['interp_over_xla']:10.1f}x")
    if ratios:
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f"geometric mean interp/XLA: {geo:.1f}x over {len(ratios)} modules "
              f"(min {min(ratios):.1f}x, max {max(ratios):.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
