"""hlo-bench's worker processes: --jobs N measures N modules at once, and --timeout S ends a
module's measurement after S seconds (a module that hangs fails the gate instead of hanging CI).

A native call cannot be interrupted, so a module over its time is stopped by ending its worker:
the pool is terminated, the module recorded as timed out, and the modules that were running
beside it start again in a fresh pool. Workers are spawned, not forked (the JIT's threads make
fork unsafe), and warm up once (bench_measure.warm_up) before their first module.
"""
from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable
from typing import Any

from hlotools.cli.bench_measure import BenchInput, measure, warm_up

POLL_S = 0.02


class _Restart(Exception):
    """A module ran out of time: the pool is ended and started again for the rest."""


def measure_in_workers(inputs: list[BenchInput], repeat: int, seed: int, jobs: int, timeout: float | None,
                       done: Callable[[int], None]) -> list[dict[str, Any]]:
    """Every module's measurement in input order; `done(k)` after module k is measured."""
    results: dict[int, dict[str, Any]] = {}
    queue = list(range(len(inputs)))
    while queue:
        pool = multiprocessing.get_context("spawn").Pool(min(jobs, len(queue)), initializer=warm_up)
        try:
            _run_pool(pool, inputs, queue, results, repeat, seed, jobs, timeout, done)
        except _Restart:
            pass
        finally:
            pool.terminate()
            pool.join()
    return [results[k] for k in range(len(inputs))]


def _run_pool(pool: Any, inputs: list[BenchInput], queue: list[int], results: dict[int, dict[str, Any]],
              repeat: int, seed: int, jobs: int, timeout: float | None, done: Callable[[int], None]) -> None:
    running: dict[int, tuple[Any, float]] = {}
    while queue or running:
        while queue and len(running) < jobs:  # a job starts when a worker is free: its clock too
            k = queue.pop(0)
            running[k] = (pool.apply_async(measure, (inputs[k], repeat, seed)), time.monotonic())
        time.sleep(POLL_S)
        for k, (job, start) in list(running.items()):
            if job.ready():
                results[k] = job.get()
                del running[k]
                done(k)
            elif timeout is not None and time.monotonic() - start > timeout:
                item = inputs[k]
                results[k] = {"key": item.key, "file": item.path,
                              "error": f"{item.path}: error: timed out after {timeout:g} s (--timeout)"}
                del running[k]
                done(k)
                queue[:0] = sorted(running)  # measured again from the start in the next pool
                raise _Restart
