"""Kernel counts per JAX corpus module: before optimisation, after our -O2 (or --passes), and
XLA CPU's (NAME.xla_opt.hlo), counted the same way (hlotools/passes/fusion_stats.py: fusions
plus unfused non-trivial instructions in the control-flow computations). Also times fusion.
Usage: python bench/fusion.py [--passes SPEC] [--json]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hlotools  # noqa: E402
from hlotools.passes.fusion_stats import kernel_counts  # noqa: E402
from hlotools.passes.manager import PassManager  # noqa: E402
from hlotools.passes.pipeline import PRESETS, parse_pipeline  # noqa: E402
from hlotools.passes.registry import PASSES  # noqa: E402

JAX = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "jax"


def default_spec() -> str:
    """-O2 when every pass it names is registered, else the registered part of it."""
    spec = PRESETS["O2"]
    names = {n for n in spec.replace("fixed-point(", ",").replace(")", ",").split(",") if n}
    if names <= set(PASSES):
        return spec
    return ",".join(n for n in ("call-inliner", "algsimp", "cse", "dce", "fusion") if n in PASSES)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    spec = args.passes or default_spec()
    rows = []
    for path in sorted(JAX.glob("*.hlo")):
        if path.name.count(".") != 1:
            continue
        name = path.stem
        module = hlotools.parse_module(path.read_text(), str(path))
        before = kernel_counts(module)
        t = time.perf_counter()
        PassManager().run(module, parse_pipeline(spec))
        seconds = time.perf_counter() - t
        after = kernel_counts(module)
        xla_path = JAX / f"{name}.xla_opt.hlo"
        xla = kernel_counts(hlotools.parse_module(xla_path.read_text(), str(xla_path))) if xla_path.exists() else None
        rows.append({"module": name, "before": before.total, "after": after.total, "fusions": after.fusions,
                     "xla": xla.total if xla else None, "xla_fusions": xla.fusions if xla else None,
                     "seconds": round(seconds, 4)})
    if args.json:
        print(json.dumps({"spec": spec, "rows": rows}, indent=1))
        return
    print(f"pipeline: {spec}")
    print(f"{'module':<24}{'before':>8}{'ours':>8}{'(fus)':>7}{'xla':>8}{'(fus)':>7}{'ms':>9}")
    for r in rows:
        print(f"{r['module']:<24}{r['before']:>8}{r['after']:>8}{r['fusions']:>7}{r['xla']!s:>8}"
              f"{r['xla_fusions']!s:>7}{r['seconds'] * 1000:>9.1f}")
    tot = {k: sum(r[k] or 0 for r in rows) for k in ("before", "after", "xla")}
    print(f"{'total':<24}{tot['before']:>8}{tot['after']:>8}{'':>7}{tot['xla']:>8}")
    ratio = [r["after"] / r["xla"] for r in rows if r["xla"]]
    if ratio:
        print(f"ours/xla kernel ratio: median {sorted(ratio)[len(ratio) // 2]:.2f}, "
              f"ours <= xla in {sum(1 for r in rows if r['xla'] and r['after'] <= r['xla'])} of {len(ratio)}")


if __name__ == "__main__":
    main()
