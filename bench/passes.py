"""Pass speed: every registered pass and the -O1/-O2 presets, on the JAX corpus and on
generated JAX-like modules of 1k, 10k and 100k instructions (bench/gen_modules.py).

Prints, per pass: total time over the corpus, time per generated size, and the scaling
exponent per 10x size (log10 of the time ratio; 1.0 is linear), for 1k->10k and 10k->100k.
Each timing is the best of --repeat runs on a freshly parsed module (parsing is not timed),
in CPU time of this process (the machine is shared: wall time mostly measures the
neighbours, and made linear passes look quadratic). Never asserts on time (machines differ). Usage:
  python bench/passes.py [--sizes 1000,10000,100000] [--repeat 3] [--passes dce,cse] [--json]
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_modules import generate  # noqa: E402

import hlotools  # noqa: E402
from hlotools.passes.manager import PassManager  # noqa: E402
from hlotools.passes.pipeline import PRESETS, parse_pipeline  # noqa: E402
from hlotools.passes.registry import PASSES  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
JAX = SHARED / "corpus" / "jax"


def _available(spec: str) -> bool:
    names = {n for n in spec.replace("fixed-point(", ",").replace(")", ",").split(",") if n}
    return names <= set(PASSES)


def time_spec(text: str, spec: str, repeat: int) -> tuple[float, int, int]:
    """Best wall time of running `spec` on a fresh parse of `text`; instruction counts."""
    best = math.inf
    before = after = 0
    for _ in range(repeat):
        module = hlotools.parse_module(text, "bench", verify=False)
        before = module.instruction_count()
        steps = parse_pipeline(spec)
        gc.collect()  # start each run with the same heap
        t = time.process_time()
        PassManager().run(module, steps)
        best = min(best, time.process_time() - t)
        after = module.instruction_count()
    return best, before, after


def corpus_texts() -> list[str]:
    if not JAX.is_dir():
        return []
    return [p.read_text() for p in sorted(JAX.glob("*.hlo")) if p.name.count(".") == 1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--passes", default=None, help="comma-separated pass names (default: all + presets)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    specs = args.passes.split(",") if args.passes else sorted(PASSES) + [f"-{p}" for p in ("O1", "O2")]
    texts = {n: generate(n) for n in sizes}
    corpus = corpus_texts()
    rows = []
    for spec in specs:
        pipeline = PRESETS[spec[1:]] if spec.startswith("-") else spec
        if not _available(pipeline):
            continue
        corpus_s = sum(time_spec(t, pipeline, 1)[0] for t in corpus)
        times, counts = [], []
        for n in sizes:
            seconds, before, after = time_spec(texts[n], pipeline, args.repeat if n < 50000 else 1)
            times.append(seconds)
            counts.append((before, after))
        exps = [math.log10(max(times[i + 1], 1e-9) / max(times[i], 1e-9)) / math.log10(sizes[i + 1] / sizes[i])
                for i in range(len(sizes) - 1)]
        rows.append({"pass": spec, "corpus_ms": corpus_s * 1e3, "ms": [t * 1e3 for t in times],
                     "instructions": counts, "exponents": exps})
        if not args.json:
            _print_row(rows[-1], sizes, header=len(rows) == 1)
    if args.json:
        print(json.dumps({"sizes": sizes, "corpus_modules": len(corpus), "rows": rows}, indent=1))


def _print_row(row: dict, sizes: list[int], header: bool) -> None:
    if header:
        cols = "".join(f"{f'{n // 1000}k ms':>11}" for n in sizes)
        exps = "".join(f"{f'exp {a // 1000}k-{b // 1000}k':>14}" for a, b in zip(sizes, sizes[1:]))
        print(f"{'pass':24}{'corpus ms':>11}{cols}{exps}   instructions at {sizes[-1] // 1000}k (before -> after)")
    ms = "".join(f"{t:11.1f}" for t in row["ms"])
    ex = "".join(f"{e:14.2f}" for e in row["exponents"])
    before, after = row["instructions"][-1]
    print(f"{row['pass']:24}{row['corpus_ms']:11.1f}{ms}{ex}   {before} -> {after}", flush=True)


if __name__ == "__main__":
    main()
