"""Bounded dynamic shapes: one compile for `f32[<=BOUND,...]`, run at several sizes, against the
static module compiled for each exact size (issue 14's benchmark).

The module is a transformer block over a sequence of dynamic length (bound 512, d 256):
single-head attention (q, k, v projections, softmax over the dynamic key dim: the padder masks
it) and a ReLU MLP, with residuals. Per size: the dynamic module's run time (one PaddedModule,
compiled once, called at every size) next to the static module's compiled for that size, their
ratio (target: <= 1.3x at sizes >= bound/4), and that both give the same numbers. Also the
compile counts: 1 for the dynamic module, one per size for the static ones.

Usage:
    python bench/dynamic.py [--bound 512] [--sizes 64,128,256,512] [--repeat 30] [--d 256]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

import hlotools
from hlotools.backend.llvm.driver.runtime import compile_module

ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\n"
MAX = "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] maximum(a, b)\n}\n"


def block(seq: str, d: int) -> str:
    """The block's HLO text with `seq` as the sequence dim ('<=512' or '128')."""
    f = 4 * d
    x, ss, h = f"f32[{seq},{d}]", f"f32[{seq},{seq}]", f"f32[{seq},{f}]"
    dot = "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
    return f"""HloModule block
{ADD}{MAX}
ENTRY e {{
  x = {x} parameter(0)
  wq = f32[{d},{d}] parameter(1)
  wk = f32[{d},{d}] parameter(2)
  wv = f32[{d},{d}] parameter(3)
  w1 = f32[{d},{f}] parameter(4)
  w2 = f32[{f},{d}] parameter(5)
  q = {x} dot(x, wq), {dot}
  k = {x} dot(x, wk), {dot}
  v = {x} dot(x, wv), {dot}
  s = {ss} dot(q, k), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}
  scale = f32[] constant({1.0 / np.sqrt(d):.8f})
  scale_b = {ss} broadcast(scale), dimensions={{}}
  scaled = {ss} multiply(s, scale_b)
  ninf = f32[] constant(-inf)
  m = f32[{seq}] reduce(scaled, ninf), dimensions={{1}}, to_apply=max
  mb = {ss} broadcast(m), dimensions={{0}}
  c = {ss} subtract(scaled, mb)
  ex = {ss} exponential(c)
  zero = f32[] constant(0)
  den = f32[{seq}] reduce(ex, zero), dimensions={{1}}, to_apply=add
  denb = {ss} broadcast(den), dimensions={{0}}
  p = {ss} divide(ex, denb)
  att = {x} dot(p, v), {dot}
  h1 = {x} add(x, att)
  u = {h} dot(h1, w1), {dot}
  zb = {h} broadcast(zero), dimensions={{}}
  r = {h} maximum(u, zb)
  o = {x} dot(r, w2), {dot}
  ROOT out = {x} add(h1, o)
}}
"""


def timed(run, args: list[np.ndarray], repeat: int) -> tuple[float, float, list[np.ndarray]]:
    out = run(args)
    run(args)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run(args)
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times), 1e3 * min(times), out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bound", type=int, default=512)
    ap.add_argument("--sizes", default="64,128,256,512")
    ap.add_argument("--d", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=30)
    a = ap.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",")]
    if any(not 0 <= s <= a.bound for s in sizes):
        raise SystemExit(f"dynamic.py: sizes must lie in 0..{a.bound}")
    rng = np.random.default_rng(0)
    d = a.d
    weights = [(rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)
               for shape in ((d, d), (d, d), (d, d), (d, 4 * d), (4 * d, d))]
    t0 = time.perf_counter()
    dynamic = compile_module(hlotools.parse_module(block(f"<={a.bound}", d)))
    dyn_compile = time.perf_counter() - t0
    print(f"dynamic module f32[<={a.bound},{d}]: compiled once in {dyn_compile:.2f} s")
    head = f"{'size':>6} | {'dynamic ms':>10} {'min':>8} | {'static ms':>10} {'min':>8} | {'ratio':>6} {'min':>6} | {'static compile s':>16} | agree"
    print(head)
    print("-" * len(head))
    ratios = []
    for s in sizes:
        x = rng.standard_normal((s, d)).astype(np.float32)
        args = [x, *weights]
        dm, dmin, dout = timed(dynamic, args, a.repeat)
        t0 = time.perf_counter()
        static = compile_module(hlotools.parse_module(block(str(s), d)))
        st_compile = time.perf_counter() - t0
        sm, smin, sout = timed(static, args, a.repeat)
        worst = float(np.max(np.abs(np.asarray(dout[0]) - np.asarray(sout[0])))) if s else 0.0
        same = np.asarray(dout[0]).shape == np.asarray(sout[0]).shape and worst <= 1e-4
        ratios.append((s, dm / sm, dmin / smin))
        print(f"{s:6d} | {dm:10.3f} {dmin:8.3f} | {sm:10.3f} {smin:8.3f} | {dm / sm:5.2f}x {dmin / smin:5.2f}x | "
              f"{st_compile:16.2f} | {'ok' if same else 'DIFFER'} {worst:.1e}")
    quarter = [r for s, _, r in ratios if s >= a.bound / 4]
    if quarter:
        print(f"worst ratio of minima at sizes >= bound/4: {max(quarter):.2f}x (target <= 1.3x); "
              f"compiles: dynamic 1, static {len(sizes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
