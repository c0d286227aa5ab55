"""Compiled modules are freed with their last reference: execution engines, LLVM's pass
managers and builders, dlopened libraries of the compile cache, and the IR the passes kept
annotations of. Counted (live engines, open libraries, weak references), and over many
distinct modules in a child process: the cyclic garbage left uncollected (it piled up for
good while the pass manager's gc.freeze kept the collector from ever running: 374 objects
per module), the live objects and mappings, and, generously, resident memory (it grew by
~80 kB per module while LLVM's pass manager of every compile leaked and every builder run
added instrumentation callbacks to one builder shared by the process, then by 24-45 kB per
module and faster the more were compiled while the garbage piled up)."""
from __future__ import annotations

import gc
import json
import subprocess
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

import hlotools
from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
from hlotools.backend.llvm.native.cache import CompileCache
from tests.support.paths import ROOT


def module_text(k: int) -> str:
    """A small module, distinct per `k` (its size and its constant). At least 1024 elements:
    numpy keeps freed buffers under 1024 bytes for reuse, a few per size, which grew with
    each new size of the loop's own checks."""
    n = 1024 + k
    return (f"HloModule m{k}\nENTRY e {{\n  p = f32[{n}] parameter(0)\n  c = f32[] constant({k}.5)\n"
            f"  b = f32[{n}] broadcast(c), dimensions={{}}\n  a = f32[{n}] add(p, b)\n"
            f"  ROOT m = f32[{n}] multiply(a, p)\n}}\n")


def run_one(k: int, compile_cache: CompileCache | None = None) -> weakref.ref:
    compiled = compile_cached(hlotools.parse_module(module_text(k)), CompileOptions(), compile_cache=compile_cache)
    x = np.arange(1024 + k, dtype=np.float32)
    np.testing.assert_array_equal(compiled([x])[0], (x + np.float32(k + 0.5)) * x)
    return weakref.ref(compiled)


class _Cycle:
    """An object that refers to itself: only the cyclic garbage collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_a_compile_leaves_the_collector_s_young_garbage_young() -> None:
    """compile_cached runs the pass pipeline with the collector paused: the pass manager's
    freeze (of an enabled collector) moved every object alive at its start, garbage too, into
    the oldest generation uncounted and reset the allocation count, so a process compiling
    small modules never collected again."""
    run_one(1)
    garbage = _Cycle()
    dead = weakref.ref(garbage)
    del garbage
    run_one(2)
    gc.collect(1)  # the young generations only
    assert dead() is None
    assert gc.isenabled()


def test_calling_a_module_makes_no_cyclic_garbage() -> None:
    """Each call used to make a ctypes array type for its pointer arrays (cyclic)."""
    compiled = compile_cached(hlotools.parse_module(module_text(3)), CompileOptions(), compile_cache=None)
    x = np.arange(1024 + 3, dtype=np.float32)
    compiled([x])
    gc.collect()
    for _ in range(5):
        compiled([x])
    assert gc.collect() == 0


def test_the_shape_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from hlotools.ir import shape_text
    monkeypatch.setattr(shape_text, "CACHE_MAX", 8)
    monkeypatch.setattr(shape_text, "_CACHE", {})
    shapes = [shape_text.array_shape(f"f32[{n}]") for n in range(1, 40)]
    assert len(shape_text._CACHE) <= 8
    assert [s.dims for s in shapes] == [(n,) for n in range(1, 40)]
    assert shape_text.array_shape("f32[39]") is shapes[-1]  # still a cache


def test_compiled_modules_and_their_engines_are_freed() -> None:
    from hlotools.backend.llvm.native import jit
    run_one(0)  # the runtime library's engines (kept for the process) are loaded by now
    gc.collect()
    before = jit.live_modules()
    refs = [run_one(k) for k in range(1, 21)]
    gc.collect()
    assert all(r() is None for r in refs)
    assert jit.live_modules() == before


def test_a_live_compiled_module_keeps_no_llvm_module_but_its_engine_s() -> None:
    """The optimised llvmlite module is not kept for optimised_ir (it is made again on
    demand): ~18 kB of LLVM memory per live module."""
    import llvmlite.binding as llvm

    def modules() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, llvm.ModuleRef))

    run_one(4)
    before = modules()
    held = [compile_cached(hlotools.parse_module(module_text(k)), CompileOptions(), compile_cache=None)
            for k in (5, 6)]
    # each engine's own (empty) module: the entry's and one per kernel (native/jit.py load_object)
    assert modules() == before + sum(1 + len(h._jit.parts) for h in held)
    optimised = held[0].optimised_ir()
    assert held[0].llvm_level == 3 and "define" in optimised and optimised != held[0].llvm_ir


def test_each_optimiser_run_frees_its_pass_manager_and_builder(monkeypatch: pytest.MonkeyPatch) -> None:
    """llvmlite 0.50 never frees a ModulePassManager (ObjectRef's empty _dispose comes first
    in its method order), and its run registers instrumentation callbacks into the builder's
    list each time: a builder shared by the process made every compile slower than the last."""
    import llvmlite.binding as llvm

    from hlotools.backend.llvm.native import jit
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
    from hlotools.backend.llvm.native import shared_library
    if not shared_library.enabled() or shared_library.c_compiler() is None:
        pytest.skip("no shared libraries here (no C compiler, or not Linux)")
    cache = CompileCache(tmp_path)
    for k in range(3):
        run_one(100 + k, cache)
    assert cache.wait_for_links(60)
    gc.collect()
    before = shared_library.open_libraries()
    warm = [compile_cached(hlotools.parse_module(module_text(100 + k)), CompileOptions(), compile_cache=cache)
            for k in range(3)]  # dlopened from the cache
    assert shared_library.open_libraries() == before + 3
    refs = [weakref.ref(c) for c in warm]
    del warm
    gc.collect()
    assert all(r() is None for r in refs)
    assert shared_library.open_libraries() == before


_RSS_CHILD = """import ctypes, gc, json, sys
sys.path.insert(0, {root!r})
from {module} import run_one
from hlotools.backend.llvm.native import jit
from hlotools.backend.llvm.native import shared_library
def sample():
    garbage = gc.collect()  # what the process's own collector had left
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) * 1024
    with open("/proc/self/maps") as f:
        maps = sum(1 for _ in f)
    return {{"garbage": garbage, "objects": len(gc.get_objects()), "rss": rss, "maps": maps,
             "engines": jit.live_modules(), "libraries": shared_library.open_libraries()}}
for k in range({warm}):
    run_one(100000 + k)
samples = [sample()]
for k in range({count}):
    run_one(k)
samples.append(sample())
for k in range({count}, 3 * {count}):
    run_one(k)
samples.append(sample())
print(json.dumps(samples))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self and calls glibc's malloc_trim")
def test_memory_stays_bounded_over_many_modules() -> None:
    """N = 80 distinct modules after 40 warm-ups, then 2N more (no compile cache), in a child.
    Counted: the cyclic garbage the process's collector left (before the collector was
    paused for the pipeline: 374 objects per module, all of it, ~60k here; now CPython's own
    bound, under a quarter of the live objects plus the young generations: 1.7-4k measured),
    live objects (caches of shapes, attributes and constants by text, bounded: ~8 per
    module), mappings, engines and libraries. Generous on resident memory, which counts
    what the counts cannot (LLVM; llvmlite 0.50 leaks each PassBuilder's instrumentation
    callbacks, ~1.5 kB per compile): ~5.7 kB per module measured, 24-45 kB per module and
    superlinear before; the bound is 16 kB per module, and no more than 3x the first N's
    growth for the next 2N."""
    count, warm = 80, 40
    code = _RSS_CHILD.format(root=str(ROOT), module=__name__, warm=warm, count=count)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    start, mid, end = json.loads(done.stdout.splitlines()[-1])
    assert end["garbage"] < end["objects"] // 2, f"{end['garbage']} objects of uncollected cyclic garbage after {2 * count} modules"
    first, then = mid["objects"] - start["objects"], end["objects"] - mid["objects"]
    assert then <= 2 * count * 20 and then <= 3 * max(first, 100), f"live objects grew by {first}, then {then}"
    assert end["maps"] - start["maps"] <= 8
    assert (end["engines"], end["libraries"]) == (start["engines"], start["libraries"])
    grown, more = mid["rss"] - start["rss"], end["rss"] - mid["rss"]
    assert grown + more < 3 * count * 16 * 1024, f"resident memory grew {(grown + more) >> 10} kB over {3 * count} modules"
    assert more <= 3 * max(grown, 1 << 20), f"resident memory grew {grown >> 10} kB over {count} modules, then {more >> 10} kB"
