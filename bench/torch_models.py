"""PyTorch models through torch.compile: eager, inductor (torch's default backend) and hlotools,
measured in one run on this machine.

Per model (inference, and one training step: forward, loss.backward(), SGD step):
- run time per call (median and min of --repeat calls after --warmup), eager / inductor / hlotools;
- the first call, which compiles: cold (a fresh process with empty compile caches: inductor's
  TORCHINDUCTOR_CACHE_DIR, hlotools' HLOTOOLS_CACHE_DIR) and warm (a second process on those
  filled caches), for inductor and hlotools;
- the largest difference from eager's outputs (and gradients, for training).
Every figure comes from a child process of its own (`--child`), each with a time budget. Ratios:
hlotools / eager and hlotools / inductor per model, their geometric means, first calls as ratios
to inductor's. Never asserts on time.

Usage:
    python bench/torch_models.py [--only mlp,cnn,..] [--modes infer,train] [--threads 1]
                                 [--repeat 20] [--warmup 3] [--timeout 600] [--json OUT.json]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MODELS = ("mlp", "cnn", "transformer", "llama")
BACKENDS = ("eager", "inductor", "hlotools")


# -- the models (built in the child; torch is imported there only) --------------------------

def build(name: str) -> tuple[Any, tuple[Any, ...], Any]:
    """(model, example inputs, loss(output) for training) at the sizes of issue 13's benchmark."""
    import torch
    from torch import nn
    torch.manual_seed(0)
    if name == "mlp":  # 512-2048-512, batch 64
        model = nn.Sequential(nn.Linear(512, 2048), nn.ReLU(), nn.Linear(2048, 512))
        return model, (torch.randn(64, 512),), lambda out: out.square().mean()
    if name == "cnn":  # conv-bn-relu-pool x2 + linear on 8x3x64x64
        model = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(32 * 16 * 16, 10))
        target = torch.randint(0, 10, (8,))
        return model, (torch.randn(8, 3, 64, 64),), lambda out: nn.functional.cross_entropy(out, target)
    if name == "transformer":  # d=256, seq 128, batch 4
        model = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
        return model, (torch.randn(4, 128, 256),), lambda out: out.square().mean()
    if name == "llama":  # one LLaMA-style block, d=256, 4 heads, seq 128, batch 4
        return _Llama(256, 4, 128), (torch.randn(4, 128, 256),), lambda out: out.square().mean()
    raise SystemExit(f"torch_models.py: unknown model {name!r} (known: {', '.join(MODELS)})")


def _Llama(d: int, heads: int, seq: int) -> Any:
    import torch
    from torch import nn

    class RMSNorm(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.n1, self.n2 = RMSNorm(), RMSNorm()
            self.qkv = nn.Linear(d, 3 * d, bias=False)
            self.o = nn.Linear(d, d, bias=False)
            self.gate, self.up = nn.Linear(d, 4 * d, bias=False), nn.Linear(d, 4 * d, bias=False)
            self.down = nn.Linear(4 * d, d, bias=False)
            hd = d // heads
            inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
            ang = torch.outer(torch.arange(seq).float(), inv)
            self.register_buffer("cos", ang.cos(), persistent=False)
            self.register_buffer("sin", ang.sin(), persistent=False)

        def rotary(self, x: torch.Tensor) -> torch.Tensor:
            x1, x2 = x[..., 0::2], x[..., 1::2]  # (batch, seq, heads, head_dim / 2)
            cos, sin = self.cos[:, None, :], self.sin[:, None, :]  # (seq, 1, head_dim / 2)
            return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            b, s, _ = x.shape
            q, k, v = self.qkv(self.n1(x)).view(b, s, 3, heads, d // heads).unbind(2)
            q, k, v = (t.transpose(1, 2) for t in (self.rotary(q), self.rotary(k), v))
            a = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.o(a.transpose(1, 2).reshape(b, s, d))
            h = self.n2(x)
            return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))

    return Block()


# -- one child: one model, mode and backend --------------------------------------------------

def child(name: str, mode: str, backend: str, repeat: int, warmup: int, threads: int) -> dict[str, Any]:
    import torch
    torch.set_num_threads(threads)
    model, inputs, loss_of = build(name)
    train = mode == "train"
    model.train(train)
    reference = _step(model, inputs, loss_of, train, None)  # eager, on a copy of the weights
    compiled = model if backend == "eager" else torch.compile(model, backend=backend)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3) if train else None
    t0 = time.perf_counter()
    first = _step(compiled, inputs, loss_of, train, None)
    first_s = time.perf_counter() - t0
    diff = max(float((a - b).abs().max()) if a.numel() else 0.0 for a, b in zip(first, reference))
    for _ in range(warmup):
        _step(compiled, inputs, loss_of, train, opt)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        _step(compiled, inputs, loss_of, train, opt)
        times.append(time.perf_counter() - t0)
    return {"first_s": first_s, "run_ms_median": 1e3 * statistics.median(times),
            "run_ms_min": 1e3 * min(times), "max_diff": diff}


def _step(model: Any, inputs: tuple[Any, ...], loss_of: Any, train: bool, opt: Any) -> list[Any]:
    """Outputs (and gradients, for training) of one call; `opt` given: an SGD step after."""
    import torch
    if not train:
        with torch.no_grad():
            return [model(*inputs).detach().clone()]
    model.zero_grad(set_to_none=True)
    out = model(*inputs)
    loss_of(out).backward()
    got = [out.detach().clone()] + [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]
    if opt is not None:
        opt.step()
    return got


# -- the parent --------------------------------------------------------------------------------

def run_child(args: argparse.Namespace, name: str, mode: str, backend: str, caches: Path) -> dict[str, Any]:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(caches / "inductor"), HLOTOOLS_CACHE_DIR=str(caches / "hlotools"),
               OMP_NUM_THREADS=str(args.threads))
    if args.threads == 1:
        env["HLOTOOLS_NUM_THREADS"] = "1"
    cmd = [sys.executable, __file__, "--child", name, mode, backend, "--repeat", str(args.repeat),
           "--warmup", str(args.warmup), "--threads", str(args.threads)]
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {args.timeout:.0f} s"}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {done.returncode}: {last[:160]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(args: argparse.Namespace, name: str, mode: str) -> dict[str, Any]:
    row: dict[str, Any] = {"model": name, "mode": mode}
    with tempfile.TemporaryDirectory(prefix="hlotools-torch-bench-") as tmp:
        for backend in BACKENDS:
            caches = Path(tmp) / backend
            cold = run_child(args, name, mode, backend, caches)
            row[backend] = {"cold": cold}
            if backend != "eager" and "error" not in cold:
                row[backend]["warm"] = run_child(args, name, mode, backend, caches)
    return row


def _fig(row: dict[str, Any], backend: str, which: str, key: str) -> float | None:
    v = row.get(backend, {}).get(which, {}).get(key)
    return float(v) if isinstance(v, (int, float)) else None


def _run_ms(row: dict[str, Any], backend: str) -> float | None:
    """The run time of the warm process (the cold one for eager): it had the whole run to settle."""
    return _fig(row, backend, "cold" if backend == "eager" else "warm", "run_ms_median")


def report(rows: list[dict[str, Any]]) -> str:
    head = (f"{'model':18} | {'eager ms':>9} {'inductor':>9} {'hlotools':>9} | {'/eager':>7} {'/induct':>7} | "
            f"{'ind cold s':>10} {'ours cold':>9} {'ratio':>6} | {'ind warm s':>10} {'ours warm':>9} {'ratio':>6} | max diff")
    lines = [head, "-" * len(head)]
    ratios: dict[str, list[float]] = {"eager": [], "inductor": [], "cold": [], "warm": []}
    for r in rows:
        e, i, o = (_run_ms(r, b) for b in BACKENDS)
        ic, oc = _fig(r, "inductor", "cold", "first_s"), _fig(r, "hlotools", "cold", "first_s")
        iw, ow = _fig(r, "inductor", "warm", "first_s"), _fig(r, "hlotools", "warm", "first_s")
        for key, a, b in (("eager", o, e), ("inductor", o, i), ("cold", oc, ic), ("warm", ow, iw)):
            if a and b:
                ratios[key].append(a / b)

        def c(v: float | None, fmt: str, w: int) -> str:
            return f"{v:{w}{fmt}}" if v is not None else f"{'-':>{w}}"

        def q(a: float | None, b: float | None) -> str:
            return f"{a / b:6.2f}x" if a and b else f"{'-':>7}"
        errors = [f"{b}: {r[b]['cold']['error']}" for b in BACKENDS if "error" in r.get(b, {}).get("cold", {})]
        diff = _fig(r, "hlotools", "cold", "max_diff")
        lines.append(f"{r['model'] + ' ' + r['mode']:18} | {c(e, '.3f', 9)} {c(i, '.3f', 9)} {c(o, '.3f', 9)} | "
                     f"{q(o, e)} {q(o, i)} | {c(ic, '.2f', 10)} {c(oc, '.2f', 9)} {q(oc, ic)[:-1]:>6} | "
                     f"{c(iw, '.2f', 10)} {c(ow, '.2f', 9)} {q(ow, iw)[:-1]:>6} | "
                     + (f"{diff:.1e}" if diff is not None else "-") + ("  " + "; ".join(errors) if errors else ""))
    for key, label in (("eager", "run, hlotools / eager"), ("inductor", "run, hlotools / inductor"),
                       ("cold", "cold first call, hlotools / inductor"), ("warm", "warm first call, hlotools / inductor")):
        v = ratios[key]
        if v:
            lines.append(f"geometric mean {label}: {math.exp(sum(map(math.log, v)) / len(v)):.2f}x over {len(v)} "
                         f"(worst {max(v):.2f}x)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=3, metavar=("MODEL", "MODE", "BACKEND"), help=argparse.SUPPRESS)
    ap.add_argument("--only", default=",".join(MODELS))
    ap.add_argument("--modes", default="infer,train")
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads and hlotools' threads (1: none)")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per child process")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child, args.repeat, args.warmup, args.threads)))
        return 0
    try:
        import torch
    except ImportError:
        print("torch_models.py: torch is not installed (pip install torch==2.13.0; see README)", file=sys.stderr)
        return 1
    from side_by_side import host
    t0 = time.perf_counter()
    print(f"{host.describe(host.cpu())}; torch {torch.__version__}, {args.threads} thread(s)", flush=True)
    rows = []
    for name in [m for m in args.only.split(",") if m]:
        for mode in [m for m in args.modes.split(",") if m]:
            rows.append(measure(args, name, mode))
            print(f"  {name} {mode}: done", flush=True)
    print(report(rows))
    print(f"total time of this run: {time.perf_counter() - t0:.0f} s; load average at the end "
          f"{os.getloadavg()[0]:.2f} (a shared machine inflates every figure; ratios are within one run)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
