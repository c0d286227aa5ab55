"""GEMM micro-benchmark: our generated dot kernel against torch.matmul (MKL) and numpy
(OpenBLAS), in the same child process, on the shapes the models run.

Per (target, threads) a child process of its own (`--child`): HLOTOOLS_TARGET_CPU for our code
(host, x86-64-v3, ...), HLOTOOLS_NUM_THREADS / torch.set_num_threads / OPENBLAS_NUM_THREADS for
the threads. Per shape it compiles a one-dot HLO module (the dot as the HLO of that model has
it: `x @ W.T` contracts W's minor dim, a weight gradient contracts both operands' major dim),
warms every side up, then alternates rounds of calls of ours, torch and numpy and keeps each
side's fastest round (per call: on one thread the calling thread's CPU time, as every side
computes on it and the machine is shared; on more, wall time over 4x the rounds, each 1/4 as
long). GFLOP/s are 2*M*N*K per call
(times the batch); "peak" is the measured throughput of independent vector FMAs at the
target's register width on as many threads (a JIT loop here, not a datasheet figure).
Never asserts on time.

Usage:
    python bench/gemm.py [--targets host,x86-64-v3] [--threads 1,2] [--only mlp,tr]
                         [--rounds 7] [--min-ms 20] [--json OUT.json]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's hlotools (A/B runs)


@dataclass(frozen=True)
class Shape:
    """One dot: lhs and rhs dims, their contracting and batch dims (HLO's attributes)."""

    name: str
    lhs: tuple[int, ...]
    rhs: tuple[int, ...]
    lc: int
    rc: int
    batch: int = 0  # leading batch dims of both operands (0 or 1 here)

    def hlo(self) -> str:
        bd = "lhs_batch_dims={0}, rhs_batch_dims={0}, " if self.batch else ""
        out = self.out_dims()
        f = lambda d: f"f32[{','.join(map(str, d))}]"  # noqa: E731
        return (f"HloModule gemm\n\nENTRY main {{\n  a = {f(self.lhs)} parameter(0)\n"
                f"  b = {f(self.rhs)} parameter(1)\n  ROOT d = {f(out)} dot(a, b), "
                f"{bd}lhs_contracting_dims={{{self.lc}}}, rhs_contracting_dims={{{self.rc}}}\n}}\n")

    def out_dims(self) -> tuple[int, ...]:
        nb = self.batch
        lf = [d for i, d in enumerate(self.lhs) if i >= nb and i != self.lc]
        rf = [d for i, d in enumerate(self.rhs) if i >= nb and i != self.rc]
        return (*self.lhs[:nb], *lf, *rf)

    def flops(self) -> int:
        k = self.lhs[self.lc]
        n = 1
        for d in self.out_dims():
            n *= d
        return 2 * n * k

    def mnk(self) -> str:
        out = self.out_dims()
        b = f"{out[0]}x" if self.batch else ""
        return f"{b}{out[-2]}x{out[-1]}x{self.lhs[self.lc]}"


def _linear(name: str, rows: int, fin: int, fout: int) -> Shape:
    """x[rows, fin] @ W[fout, fin].T: nn.Linear's forward."""
    return Shape(name, (rows, fin), (fout, fin), 1, 1)


def _grad_x(name: str, rows: int, fin: int, fout: int) -> Shape:
    """g[rows, fout] @ W[fout, fin]: nn.Linear's input gradient."""
    return Shape(name, (rows, fout), (fout, fin), 1, 0)


def _grad_w(name: str, rows: int, fin: int, fout: int) -> Shape:
    """g[rows, fout].T @ x[rows, fin]: nn.Linear's weight gradient."""
    return Shape(name, (rows, fout), (rows, fin), 0, 0)


SHAPES = (
    _linear("mlp.fc1", 64, 512, 2048), _linear("mlp.fc2", 64, 2048, 512),
    _grad_x("mlp.fc2.dx", 64, 2048, 512), _grad_w("mlp.fc2.dw", 64, 2048, 512),
    _grad_x("mlp.fc1.dx", 64, 512, 2048), _grad_w("mlp.fc1.dw", 64, 512, 2048),
    Shape("big_mlp_1024", (128, 1024), (1024, 1024), 1, 0),
    _linear("tr.qkv", 512, 256, 768), _linear("tr.out", 512, 256, 256),
    _linear("tr.ff1", 512, 256, 1024), _linear("tr.ff2", 512, 1024, 256),
    Shape("tr.scores", (16, 128, 64), (16, 128, 64), 2, 2, 1), Shape("tr.pv", (16, 128, 128), (16, 128, 64), 2, 1, 1),
    _grad_w("tr.ff1.dw", 512, 256, 1024),
    Shape("sq.512x256x2048", (512, 2048), (2048, 256), 1, 0), Shape("sq.512x1024x512", (512, 512), (512, 1024), 1, 0),
)


# -- the child ---------------------------------------------------------------------------------

PEAK_IR = """
define float @peak(i64 %n) {{
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
{phis}
{fmas}
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %out
out:
{sums}
  %e = extractelement <{L} x float> %s{last}, i32 0
  ret float %e
}}
declare <{L} x float> @llvm.fma.v{L}f32(<{L} x float>, <{L} x float>, <{L} x float>)
"""


def _peak_ir(lanes: int, chains: int = 12) -> str:
    ty = f"<{lanes} x float>"
    one = ", ".join(["float 1.0"] * lanes)
    mul = ", ".join(["float 0x3FEFFFFFE0000000"] * lanes)
    phis = "\n".join(f"  %a{j} = phi {ty} [<{one}>, %entry], [%b{j}, %loop]" for j in range(chains))
    fmas = "\n".join(f"  %b{j} = call {ty} @llvm.fma.v{lanes}f32({ty} %a{j}, {ty} <{mul}>, {ty} <{one}>)"
                     for j in range(chains))
    sums = [f"  %s0 = fadd {ty} %b0, %b1"] + [f"  %s{j - 1} = fadd {ty} %s{j - 2}, %b{j}" for j in range(2, chains)]
    return PEAK_IR.format(phis=phis, fmas=fmas, sums="\n".join(sums), L=lanes, last=chains - 2)


def peak_gflops(threads: int) -> tuple[float, int]:
    """(GFLOP/s of independent f32 FMAs at the target's widest vectors, times `threads`, the
    lanes): what no GEMM can beat on this machine and ISA level. Timed in thread CPU time
    (the machine is shared), so `threads` cores are taken to be `threads` times one."""
    import ctypes

    from hlotools.backend.llvm.kernels.gemm import vector_bytes
    from hlotools.backend.llvm.native import jit
    lanes = vector_bytes(jit.target_description().features) // 4
    jm, _ = jit.compile_ir(_peak_ir(lanes))
    fn = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_int64)(jm.address("peak"))
    iters = 1 << 21
    best = min(_round(lambda: fn(iters), 1, time.thread_time) for _ in range(7))
    return threads * iters * 12 * lanes * 2 / best / 1e9, lanes


def _round(fn: Any, calls: int, clock: Any) -> float:
    t0 = clock()
    for _ in range(calls):
        fn()
    return (clock() - t0) / calls


def _sides(s: Shape, rng: Any) -> dict[str, Any]:
    """Callables of one shape: ours (compiled once), torch.matmul, numpy's matmul."""
    import numpy as np
    import torch

    import hlotools
    from hlotools.backend.llvm import compile_module
    a = rng.standard_normal(s.lhs).astype(np.float32)
    b = rng.standard_normal(s.rhs).astype(np.float32)
    ours = compile_module(hlotools.parse_module(s.hlo()))
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)

    # matmul's operands: the lhs contracting its last dim, the rhs its second last (views)
    na, nb_ = np.moveaxis(a, s.lc, -1), np.moveaxis(b, s.rc, -2)
    xa, xb = torch.movedim(ta, s.lc, -1), torch.movedim(tb, s.rc, -2)
    got, want = ours([a, b])[0], np.matmul(na, nb_)
    err = float(np.abs(got - want).max() / (np.abs(want).max() + 1))
    return {"ours": lambda: ours([a, b]), "torch": lambda: torch.matmul(xa, xb),
            "numpy": lambda: np.matmul(na, nb_), "err": err}


def child(args: argparse.Namespace) -> None:
    import numpy as np
    import torch
    threads = int(os.environ["HLOTOOLS_NUM_THREADS"])
    # one thread: the calling thread's CPU time (every side computes on it); more: wall time
    clock = time.thread_time if threads == 1 else time.perf_counter
    if threads > 1:  # shorter rounds, more of them: the fastest finds moments the cores were free
        args.rounds, args.min_ms = 4 * args.rounds, args.min_ms / 4
    torch.set_num_threads(threads)
    peak, lanes = peak_gflops(threads)
    from hlotools.backend.llvm.lower.gemm import blocking
    from hlotools.ir.types import ELEMENT_TYPES
    blk = blocking(ELEMENT_TYPES["f32"])
    rng = np.random.default_rng(0)
    rows = []
    for s in SHAPES:
        if args.only and not any(s.name.startswith(p) for p in args.only.split(",")):
            continue
        sides = _sides(s, rng)
        err = sides.pop("err")
        per = {}
        for name, fn in sides.items():  # warm up; calls per round from the first timing
            fn()
            per[name] = max(1, int(args.min_ms / 1e3 / max(_round(fn, 2, clock), 1e-6)))
        best = {name: float("inf") for name in sides}
        for _ in range(args.rounds):
            for name, fn in sides.items():
                best[name] = min(best[name], _round(fn, per[name], clock))
        rows.append({"shape": s.name, "mnk": s.mnk(), "flops": s.flops(), "err": err,
                     **{f"{k}_ms": v * 1e3 for k, v in best.items()}})
    print(json.dumps({"peak_gflops": peak, "lanes": lanes, "block": f"{blk.rows}x{blk.vecs}x{blk.lanes}",
                      "rows": rows}))


# -- the parent --------------------------------------------------------------------------------

def run_child(target: str, threads: int, args: argparse.Namespace) -> dict[str, Any]:
    env = dict(os.environ, HLOTOOLS_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    env.pop("HLOTOOLS_TARGET_CPU", None)
    if target != "host":
        env["HLOTOOLS_TARGET_CPU"] = target
    cmd = [sys.executable, __file__, "--child", "--rounds", str(args.rounds), "--min-ms", str(args.min_ms)]
    if args.only:
        cmd += ["--only", args.only]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"bench/gemm.py: child {target} x{threads} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(target: str, threads: int, res: dict[str, Any]) -> list[str]:
    peak = res["peak_gflops"]
    lines = [f"\n{target}, {threads} thread(s): block {res['block']}, FMA peak {peak:.0f} GFLOP/s",
             "| shape | MxNxK | ours ms | torch ms | numpy ms | ours GF/s (% peak) | torch GF/s | numpy GF/s"
             " | ours/torch | ours/numpy | err |", "|---" * 11 + "|"]
    for r in res["rows"]:
        g = {k: r["flops"] / r[f"{k}_ms"] / 1e6 for k in ("ours", "torch", "numpy")}
        lines.append(f"| {r['shape']} | {r['mnk']} | {r['ours_ms']:.3f} | {r['torch_ms']:.3f} | {r['numpy_ms']:.3f} "
                     f"| {g['ours']:.0f} ({100 * g['ours'] / peak:.0f}%) | {g['torch']:.0f} | {g['numpy']:.0f} "
                     f"| {r['ours_ms'] / r['torch_ms']:.2f}x | {r['ours_ms'] / r['numpy_ms']:.2f}x | {r['err']:.0e} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default="host,x86-64-v3")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--only", default="", help="shape name prefixes, comma separated")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--min-ms", type=float, default=20.0, help="time of one round of calls")
    ap.add_argument("--json", default="")
    ap.add_argument("--child", action="store_true")
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load average {os.getloadavg()[0]:.1f}")
    results = {}
    for target in args.targets.split(","):
        for threads in (int(t) for t in args.threads.split(",")):
            res = results[f"{target}/{threads}"] = run_child(target, threads, args)
            print("\n".join(table(target, threads, res)), flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
