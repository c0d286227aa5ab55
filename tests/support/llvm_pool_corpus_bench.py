"""The LLVM backend on JAX corpus modules with three parallel_for variants in one process
(run by hand, never part of the test run):

    HLOTOOLS_NUM_THREADS=2 .venv/bin/python -m tests.support.llvm_pool_corpus_bench [NAMES] [VARIANTS] [REPEATS]

NAMES: comma-separated corpus names (default: the six big_* modules); VARIANTS among
    serial   no parallel loops at all (as HLOTOOLS_NUM_THREADS=1 compiles)
    spawn    kernels/parallel_for.py's thread-per-call parallel_for
    pool     kernels/thread_pool.py's persistent pool (spin: DEFAULT_SPIN_NS)
    poolN    the pool with its spin set to N us (pool0: sleep at once)
Every variant defines parallel_for inside its module (the runtime library is bypassed, so all
of them coexist); calls alternate between variants, medians and minimums of wall time and the
median CPU time (every thread of the process) are printed. The machine is shared: the minimum
shows what the code can do, the median what a busy machine made of it.
"""
from __future__ import annotations

import ctypes
import statistics
import sys
import time
from typing import Any

import numpy as np

from tests.support.paths import ROOT

JAX = ROOT.parent / "shared" / "corpus" / "jax"
BIG = ["big_layernorm_softmax", "big_scan_lstm", "big_elementwise", "big_mlp_1024", "big_attention_256", "big_conv"]


def compile_variant(text: str, variant: str) -> Any:
    """`text` compiled with parallel_for as `variant` says (module-level patches, restored)."""
    import hlotools
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
    from hlotools.backend.llvm.kernels import library as runtime_library
    from hlotools.backend.llvm.kernels import parallel_for, thread_pool
    saved = {k: getattr(parallel_for, k) for k in ("enabled", "worth_parallel", "parallel_for_function",
                                               "_define_parallel_for") if hasattr(parallel_for, k)}
    saved_external = runtime_library.external
    runtime_library.external = lambda: False  # type: ignore[assignment]  # define parallel_for in the module
    try:
        if variant == "serial":
            parallel_for.enabled = lambda: False  # type: ignore[assignment]
            parallel_for.worth_parallel = lambda work, threshold=0: False  # type: ignore[assignment,misc]
        elif variant == "spawn":  # the thread-per-call reference
            parallel_for._define_parallel_for = parallel_for.define_spawning_parallel_for  # type: ignore[attr-defined]
        elif variant.startswith("pool"):
            parallel_for._define_parallel_for = (  # type: ignore[attr-defined]
                lambda module, export: thread_pool.pool_parallel_for_function(module, export=export))
        compiled = compile_cached(hlotools.parse_module(text), CompileOptions(), compile_cache=None)
    finally:
        runtime_library.external = saved_external  # type: ignore[assignment]
        for k, v in saved.items():
            setattr(parallel_for, k, v)
    if variant.startswith("pool") and variant != "pool":
        addr = compiled._jit.engine.get_global_value_address(thread_pool.SPIN_GLOBAL)
        ctypes.c_int64.from_address(addr).value = int(variant[4:]) * 1000
    return compiled


def run(name: str, variants: list[str], repeats: int) -> None:
    import hlotools
    from hlotools.io.arrays import parameter_leaves, reinterpret
    text = (JAX / f"{name}.hlo").read_text()
    module = hlotools.parse_module(text)
    with np.load(JAX / f"{name}.inputs.npz") as data:
        inputs = [reinterpret(data[f"in{i}"], leaf.shape) for i, leaf in enumerate(parameter_leaves(module))]
    with np.load(JAX / f"{name}.expected.npz") as data:
        want = np.asarray(data["out0"])
    compiled = {v: compile_variant(text, v) for v in variants}
    for v, cm in compiled.items():
        got = np.asarray(cm(inputs)[0])
        assert got.shape == want.shape and np.allclose(got, want, rtol=2e-3, atol=2e-3), (name, v)
    wall: dict[str, list[float]] = {v: [] for v in variants}
    cpu: dict[str, list[float]] = {v: [] for v in variants}
    for _ in range(repeats):
        for v, cm in compiled.items():
            t0, c0 = time.perf_counter(), time.process_time()
            cm(inputs)
            wall[v].append(time.perf_counter() - t0)
            cpu[v].append(time.process_time() - c0)
    print(name, flush=True)
    for v in variants:
        print(f"   {v:8s} wall median {statistics.median(wall[v]) * 1e3:8.3f} ms  min {min(wall[v]) * 1e3:8.3f} ms"
              f"   cpu median {statistics.median(cpu[v]) * 1e3:8.3f} ms", flush=True)


def main(argv: list[str]) -> None:
    names = argv[0].split(",") if argv else BIG
    variants = argv[1].split(",") if len(argv) > 1 else ["serial", "spawn", "pool"]
    repeats = int(argv[2]) if len(argv) > 2 else 60
    for name in names:
        run(name, variants, repeats)


if __name__ == "__main__":
    main(sys.argv[1:])
