"""Compiled modules are freed with their last reference: execution engines, LLVM's pass
managers and builders, dlopened libraries of the compile cache, and the IR the passes kept
annotations of. Counted (live engines, open libraries, weak references), plus one generous
bound on the growth of a child process's resident memory over many distinct modules (it grew
by ~80 kB per module while LLVM's pass manager of every compile leaked and every builder run
added instrumentation callbacks to one builder shared by the process)."""
from __future__ import annotations

import gc
import subprocess
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

import hlotools
from hlotools.backend.llvm.cache import CompileCache, CompileOptions, compile_cached


def module_text(k: int) -> str:
    """A small module, distinct per `k` (its size and its constant)."""
    n = 8 + k
    return (f"HloModule m{k}\nENTRY e {{\n  p = f32[{n}] parameter(0)\n  c = f32[] constant({k}.5)\n"
            f"  b = f32[{n}] broadcast(c), dimensions={{}}\n  a = f32[{n}] add(p, b)\n"
            f"  ROOT m = f32[{n}] multiply(a, p)\n}}\n")


def run_one(k: int, compile_cache: CompileCache | None = None) -> weakref.ref:
    compiled = compile_cached(hlotools.parse_module(module_text(k)), CompileOptions(), compile_cache=compile_cache)
    x = np.arange(8 + k, dtype=np.float32)
    np.testing.assert_array_equal(compiled([x])[0], (x + np.float32(k + 0.5)) * x)
    return weakref.ref(compiled)


def test_compiled_modules_and_their_engines_are_freed() -> None:
    from hlotools.backend.llvm import jit
    run_one(0)  # the runtime library's engines (kept for the process) are loaded by now
    gc.collect()
    before = jit.live_modules()
    refs = [run_one(k) for k in range(1, 21)]
    gc.collect()
    assert all(r() is None for r in refs)
    assert jit.live_modules() == before


def test_each_optimiser_run_frees_its_pass_manager_and_builder(monkeypatch: pytest.MonkeyPatch) -> None:
    """llvmlite 0.50 never frees a ModulePassManager (ObjectRef's empty _dispose comes first
    in its method order), and its run registers instrumentation callbacks into the builder's
    list each time: a builder shared by the process made every compile slower than the last."""
    import llvmlite.binding as llvm

    from hlotools.backend.llvm import jit
    managers: list[llvm.ModulePassManager] = []
    builders: list[weakref.ref] = []
    real = llvm.PassBuilder.getModulePassManager

    def recording(pb: llvm.PassBuilder) -> llvm.ModulePassManager:
        builders.append(weakref.ref(pb))
        mpm = real(pb)
        managers.append(mpm)
        return mpm

    monkeypatch.setattr(llvm.PassBuilder, "getModulePassManager", recording)
    text = "define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n"
    for _ in range(3):
        jit.optimise(jit.parse_ir(text), jit.host_target_machine(), 3)
    gc.collect()
    assert len(managers) == 3 and all(m.closed for m in managers)
    assert all(b() is None for b in builders)  # a builder of its own per run, gone with it


def test_dlopened_libraries_are_closed(tmp_path: Path) -> None:
    from hlotools.backend.llvm import native
    if not native.enabled() or native.c_compiler() is None:
        pytest.skip("no shared libraries here (no C compiler, or not Linux)")
    cache = CompileCache(tmp_path)
    for k in range(3):
        run_one(100 + k, cache)
    assert cache.wait_for_links(60)
    gc.collect()
    before = native.open_libraries()
    warm = [compile_cached(hlotools.parse_module(module_text(100 + k)), CompileOptions(), compile_cache=cache)
            for k in range(3)]  # dlopened from the cache
    assert native.open_libraries() == before + 3
    refs = [weakref.ref(c) for c in warm]
    del warm
    gc.collect()
    assert all(r() is None for r in refs)
    assert native.open_libraries() == before


_RSS_CHILD = """
import ctypes, gc, sys
sys.path.insert(0, {tests!r})
from test_llvm_memory import run_one
def rss():
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) * 1024
for k in range({warm}):
    run_one(1000 + k)
start = rss()
for k in range({count}):
    run_one(k)
print(rss() - start)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status and glibc's malloc_trim")
def test_resident_memory_stays_bounded_over_many_modules() -> None:
    """Measured: ~80 kB per module before, ~5 kB after (caches of shapes and constants by
    text); the bound is 30 kB per module."""
    count, warm = 120, 60
    code = _RSS_CHILD.format(tests=str(Path(__file__).resolve().parent), warm=warm, count=count)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    grown = int(done.stdout.split()[-1])
    assert grown < count * 30 * 1024, f"resident memory grew {grown / 1024:.0f} kB over {count} modules"
