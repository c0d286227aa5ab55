"""Figures for the parallel_for pool against kernels/parallel_for.py's thread-per-call version (run by
hand from the repository root: `.venv/bin/python -m tests.support.llvm_pool_bench`; never part of the test run).

Both versions are compiled into the same process and measured A/B back to back, repeated,
medians reported, wall and CPU time (time.process_time counts every thread of the process):
    overhead   an empty worker, n = 2 and n = 8, on 1 and 2 threads (10k calls inside the JIT)
    idle       CPU of the workers (the process's minus this thread's) over 1 s after a call
    kernel     y = exp(x) * 0.5 + x over f32[512,1024], rows split (one call per ctypes
               call, so Python's gap between calls is in it, and 50 calls inside the JIT)
    join       how soon a worker takes part in a call of 8 x 100 us chunks, for several spin
               times, back to back and 3 ms after the previous call (workers asleep)
"""
from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from tests.support.llvm_pool_module import PoolModule, compile_module

REPEATS = 7


def timed(fn: Callable[[], None], per: int) -> tuple[float, float]:
    """(wall us, cpu us) per unit of one run of fn."""
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    return (time.perf_counter() - t0) / per * 1e6, (time.process_time() - c0) / per * 1e6


def ab(mods: dict[str, PoolModule], run: Callable[[PoolModule], None], per: int) -> dict[str, tuple[float, float]]:
    got: dict[str, list[tuple[float, float]]] = {k: [] for k in mods}
    for _ in range(REPEATS):
        for k, pm in mods.items():
            got[k].append(timed(lambda pm=pm: run(pm), per))  # type: ignore[misc]
    return {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in got.items()}


def show(title: str, res: dict[str, tuple[float, float]]) -> None:
    cells = "   ".join(f"{k}: {w:8.2f} us wall {c:8.2f} us cpu" for k, (w, c) in res.items())
    print(f"{title:34s} {cells}")


def join_latency(pm: PoolModule, gap: float, calls: int = 40) -> tuple[float, float, float]:
    """Medians over `calls` calls of 8 chunks of 100 us each, `gap` s after the previous call:
    the call's wall time (800 us on one thread, 400 on two), when the first chunk started on
    another thread than the caller's (800: none did) and how many chunks the caller ran
    (8: alone; fewer than 4: a woken worker took the caller's CPU)."""
    n = 8
    wall, joined, mine = [], [], []
    for _ in range(calls):
        out = np.zeros(2 * n, np.int64)
        ctx = np.array([out.ctypes.data, 100_000, 0, 0], np.uint64)
        if gap:
            time.sleep(gap)
        pm.run_stamp(ctx.ctypes.data, n)
        t, who = (out[0::2] - int(ctx[2])) / 1000, out[1::2]
        others = t[who != np.int64(ctx[3])]
        wall.append(float(t.max()) + 100)
        joined.append(float(others.min()) if len(others) else 800.0)
        mine.append(float(n - len(others)))
    return statistics.median(wall), statistics.median(joined), statistics.median(mine)


def main() -> None:
    mods = {"pool": compile_module("pool"), "spawn": compile_module("spawn")}
    calls = 10_000
    for threads in (1, 2):
        for pm in mods.values():
            pm.threads.value = threads
        for n in (2, 8):
            show(f"empty n={n} threads={threads}", ab(mods, lambda pm, n=n: pm.run_empty(n, calls), calls))  # type: ignore[misc]

    pool = mods["pool"]
    pool.threads.value = 2
    for spin in (50_000, 0):
        pool.spin_ns.value = spin
        pool.run_empty(8, 1)
        time.sleep(0.01)
        c0, m0 = time.process_time(), time.thread_time()
        pool.run_empty(8, 1)
        time.sleep(1.0)
        workers = (time.process_time() - c0) - (time.thread_time() - m0)  # every thread but this one
        print(f"idle 1 s after a call, spin {spin // 1000} us: workers used {workers * 1e6:.0f} us cpu")
    pool.spin_ns.value = 50_000

    rows, cols = 512, 1024
    x = np.random.default_rng(0).standard_normal((rows, cols)).astype(np.float32)
    y = np.zeros_like(x)
    ctx = np.array([x.ctypes.data, y.ctypes.data, cols], np.uint64)
    for threads in (1, 2):
        for pm in mods.values():
            pm.threads.value = threads

        def one_per_call(pm: PoolModule) -> None:
            for _ in range(50):
                pm.run_scale(ctx.ctypes.data, rows, 1)
        show(f"f32[512,1024] kernel threads={threads}", ab(mods, lambda pm: pm.run_scale(ctx.ctypes.data, rows, 50), 50))
        show(f"  (one ctypes call each) threads={threads}", ab(mods, one_per_call, 50))
        want = np.exp(x) * np.float32(0.5) + x
        assert np.allclose(y, want, rtol=1e-5, atol=1e-5), "kernel result"

    for pm in mods.values():
        pm.threads.value = 2
    for spin in (0, 50_000, 1_000_000):
        pool.spin_ns.value = spin
        for gap in (0.0, 0.003):
            res = {k: join_latency(pm, gap) for k, pm in mods.items()}
            cells = "   ".join(f"{k}: call {w:5.0f} us, other thread from {j:5.1f} us, caller ran {m:.0f}/8"
                               for k, (w, j, m) in res.items())
            print(f"8x100 us, spin {spin // 1000:4d} us, {gap * 1000:.0f} ms apart: {cells}")
    for pm in mods.values():
        pm.join()


if __name__ == "__main__":
    main()
