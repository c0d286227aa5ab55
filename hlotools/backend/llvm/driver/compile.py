"""Compiling through the persistent compile cache (native/cache.py stores the entries and makes
the keys): `compile_cached` looks the module up by its source text's key, then by the optimised
module's key, loads a hit (the shared library with dlopen, else the object into MCJIT), and on a
miss runs the passes, compiles, stores the object and leaves its shared library's link to the
background worker (`link_later`, native/background_link.py).

Driver code: it runs the pass pipeline (pipeline.py) and builds CompiledModules (runtime.py),
which is why it is not in native/, the storage layer below the code generator.
"""
from __future__ import annotations

import contextlib
import gc
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from hlotools.backend.llvm.native import load_clock, shared_library
from hlotools.backend.llvm.native.cache import CompileCache, Entry, Rejected, make_key, module_key_text
from hlotools.errors import HloError, ShapeError
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape


@dataclass(frozen=True)
class CompileOptions:
    """What besides the module changes the machine code (all of it goes into the key)."""

    preset: str = "O2"  # the pass pipeline run before codegen ('none': the module as given)
    opt_level: int = 3
    implicit_fusion: bool = True

    def key_fields(self) -> dict[str, Any]:
        # Which passes a preset runs depends on the registered passes, which the source
        # fingerprint of environment() covers (importing the registry to ask would cost a
        # warm start more than everything else together). HLOTOOLS_* variables may steer
        # codegen (HLOTOOLS_NUM_THREADS=1 turns generated threading off), so they count too.
        fields = asdict(self)
        fields["env"] = {k: v for k, v in sorted(os.environ.items())
                         if k.startswith("HLOTOOLS_") and k not in _NOT_CODEGEN_ENV}
        return fields


_NOT_CODEGEN_ENV = frozenset({"HLOTOOLS_CACHE_DIR", "HLOTOOLS_CACHE_MAX_MB", "HLOTOOLS_LOG",
                              "HLOTOOLS_CACHE_DLOPEN"})


def compile_cached(module: Module, options: CompileOptions = CompileOptions(), *,
                   compile_cache: CompileCache | None = None, source_text: str | None = None) -> Any:
    """A CompiledModule for `module`: from the cache when it has one, else compiled (passes,
    codegen, LLVM) and stored. `source_text` is the text `module` was parsed from (its key
    finds the optimised module's key without running the passes); without it the module is
    printed for that key. With `compile_cache` None nothing is read or written."""
    from hlotools.backend.llvm.driver.runtime import CompiledModule
    if compile_cache is None:
        optimised = optimise(module, options.preset)
        return CompiledModule(optimised, opt_level=options.opt_level, implicit_fusion=options.implicit_fusion)
    t0 = time.perf_counter()
    fields = options.key_fields()
    if source_text is None:  # hlo-run has the text: a warm start does not import the printer
        from hlotools.text.printer import print_module
        source_text = print_module(module)
    source_key = make_key("source", source_text, fields)
    alias = compile_cache.get(source_key, "alias")
    if alias is not None:
        found = _load(compile_cache, str(alias.meta.get("target", "")), module, t0, f"source key {source_key[:12]}")
        if found is not None:
            return found
    t1 = time.perf_counter()
    # One pause of the collector for the passes, the key and codegen (each pauses it too):
    # between two pauses it scanned the optimised module and its garbage as young objects,
    # and again as the next generation's after codegen (a 24-layer training step: 4
    # collections, 0.2 s of its cold compile); after this one, one young collection.
    with collector_paused():
        loaded = load_clock.seconds()
        optimised = optimise(module, options.preset)
        t2 = time.perf_counter()
        passes_load = load_clock.seconds() - loaded  # the passes' imports: the "load" phase's
        module_key = make_key("module", module_key_text(optimised), fields)
        found = _load(compile_cache, module_key, module, t0, "optimised module key")
        if found is not None:
            compile_cache.put(Entry(source_key, "alias", {"target": module_key}, b""))
            return found
        compiled = CompiledModule(optimised, opt_level=options.opt_level, implicit_fusion=options.implicit_fusion,
                                  keep_object=True, runtime_cache=compile_cache, kernel_fields=fields)
    compiled.timings.extra.update({"passes": t2 - t1 - passes_load, "cache_lookup": t1 - t0})
    stats = compiled.stats
    spent = (f"passes {1e3 * (t2 - t1 - passes_load):.0f} ms, codegen {1e3 * compiled.timings.codegen_s:.0f} ms, "
             f"LLVM {1e3 * compiled.timings.llvm_s:.0f} ms; {stats.kernels} kernels for {stats.kernel_calls} "
             f"instructions, {stats.kernels - stats.kernels_emitted} of them from the cache")
    # Code that embeds addresses of this process (a callback, a Python object) must never be
    # reused by another one: the runtime marks such a module `cacheable = False`.
    if compiled.object_code is None or not getattr(compiled, "cacheable", True):
        compile_cache.say(f"compile cache: compiled ({spent}); not cacheable, nothing stored")
        return compiled
    compiled.save_kernels()
    meta = _meta(compiled, module.name)
    if compile_cache.put(Entry(module_key, "object", meta, compiled.object_code)):
        compile_cache.put(Entry(source_key, "alias", {"target": module_key}, b""))
        # a warm start dlopens the library instead of loading the object into MCJIT; linking
        # it (cc, 15-25 ms) is nobody's wait: a thread does it ("link" is what starting it cost)
        t3 = time.perf_counter()
        linking = link_later(compile_cache, module_key, compiled.object_code, list(compiled.runtime_groups))
        if linking:
            compiled.timings.extra["link"] = time.perf_counter() - t3
        compile_cache.say(f"compile cache: compiled ({spent}) and stored {module_key[:12]} in "
                          f"{compile_cache.directory}" + ("; its shared library is linked in the background"
                                                          if linking else ""))
    return compiled


def link_later(compile_cache: CompileCache, key: str, object_code: bytes, runtime_groups: list[str]) -> bool:
    """Queue, for the background worker (background_link.py), what only a later process
    needs of object entry `key`: the runtime library groups its code calls copied into
    this folder, the link of KEY.so (with those groups' objects) recorded in the entry,
    and the folder's trim. Returns whether a library is linked. When none can be made
    here the trim is `trim_later`'s, one queued per folder: a process compiling many
    modules then scans the folder once per batch, not once per module."""
    from hlotools.backend.llvm.kernels import library as runtime_library
    from hlotools.backend.llvm.native import background_link
    runtime: list[bytes] = []
    link = shared_library.enabled() and shared_library.c_compiler() is not None
    if link:
        loaded = [runtime_library.get(g) for g in runtime_groups]  # the module was just bound to them
        try:
            runtime = ([got.object_code for got in loaded if got is not None] if all(loaded)
                       else runtime_library.objects(runtime_groups, compile_cache))
        except HloError as e:
            compile_cache.say(f"compile cache: no shared library ({e.message})")
            link = False
    if link or runtime_groups:
        background_link.submit(background_link.LinkJob(compile_cache.quiet(), key, object_code, runtime,
                                                       store_runtime=_store_runtime(compile_cache, runtime_groups),
                                                       link=link))
    if not link:
        compile_cache.trim_later()
    return link


def _store_runtime(compile_cache: CompileCache, runtime_groups: list[str]) -> Callable[[], object] | None:
    """What the background worker runs to copy the runtime library groups into the folder."""
    from hlotools.backend.llvm.kernels import library as runtime_library
    groups = list(runtime_groups)
    return (lambda: runtime_library.ensure(groups, compile_cache)) if groups else None


def optimise(module: Module, preset: str) -> Module:
    """pipeline.optimise_module(module, preset) (the module itself for preset "none"), run
    with the cyclic garbage collector paused (collector_paused): the pass manager then
    leaves the collector's generations alone, as it does for any caller that turned the
    collector off."""
    if preset == "none":
        return module
    from hlotools.backend.llvm.driver.pipeline import optimise_module
    with collector_paused():
        return optimise_module(module, preset)


_PAUSE_LOCK = threading.Lock()
_PAUSED = [0, False]  # pipelines running with the collector paused; was it enabled before the first


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Turn the cyclic garbage collector off meanwhile (on again after the last of concurrent
    pauses, if it was on before the first).

    Why: the pass manager freezes an enabled collector while a pipeline runs (gc.freeze,
    then gc.unfreeze: passes/manager.py _quiet_gc). That moves every object alive at the
    start, garbage included, into the oldest generation without counting it towards the
    next full collection, and sets the youngest generation's allocation count back to 0. A
    process compiling many small modules then never collects at all: its allocation count
    never reaches 700 between two freezes, and each compile's parsed and optimised modules,
    llvmlite.ir module and emitter objects (cyclic: ~40 kB per module of
    tests/backend/llvm/driver/test_runtime_memory.py) piled up in the oldest generation for good, resident memory
    growing by 24 kB per module (480 modules: +11.5 MB) and faster the more had been
    compiled (the collections the test itself ran freed the garbage into pages that
    long-lived objects allocated meanwhile kept mapped). Paused, the collector skips the
    pipeline altogether (no rescans of the module, which the freeze was for), the
    allocations still count, and the collections they call for run once it is on again:
    the generations stay CPython's. The peak memory of a pipeline is the same (tracemalloc,
    chains of 100 to 20000 instructions: its young collections freed nothing that
    refcounting did not)."""
    with _PAUSE_LOCK:
        if _PAUSED[0] == 0:
            _PAUSED[1] = gc.isenabled()
            gc.disable()
        _PAUSED[0] += 1
    try:
        yield
    finally:
        with _PAUSE_LOCK:
            _PAUSED[0] -= 1
            if _PAUSED[0] == 0 and _PAUSED[1]:
                gc.enable()


def _meta(compiled: Any, name: str) -> dict[str, Any]:
    from hlotools.backend.llvm.abi import ENTRY_NAME
    return {"module": name, "entry": ENTRY_NAME, "runtime": list(compiled.runtime_groups),
            "params": [s.to_text(True) for s in compiled.param_leaves],
            "results": [s.to_text(True) for s in compiled.result_leaves], "stats": asdict(compiled.stats),
            "compile_seconds": {"codegen": compiled.timings.codegen_s, "llvm": compiled.timings.llvm_s}}


def _load(compile_cache: CompileCache, key: str, module: Module, t0: float, via: str) -> Any:
    """The cached module under `key`, or None (saying why) when there is none to trust."""
    from hlotools.backend.llvm.abi import ENTRY_NAME, CompileStats
    from hlotools.backend.llvm.driver.runtime import CompiledModule
    entry = compile_cache.get(key, "object") if key else None
    if entry is None:
        return None
    if "shared_library" not in entry.meta and compile_cache.wait_for_link(key):
        entry = compile_cache.get(key, "object") or entry  # now with its library's record
    try:
        if entry.meta.get("entry") != ENTRY_NAME:
            raise Rejected(f"entry symbol {entry.meta.get('entry')!r}")
        params = [Shape.from_text(t) for t in entry.meta["params"]]
        results = [Shape.from_text(t) for t in entry.meta["results"]]
        _check_leaves(module, params, results)
        stats = CompileStats(**entry.meta["stats"])
        stats.donated = {int(k): v for k, v in stats.donated.items()}  # JSON keys are strings
        groups = entry.meta.get("runtime", [])
        if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise Rejected(f"runtime groups {groups!r}")
        compiled = _from_library(compile_cache, key, entry, stats, params, results)
        how = "dlopen"
        if compiled is None:
            compiled = CompiledModule.from_object(entry.payload, stats, params, results, runtime_groups=groups,
                                                  runtime_cache=compile_cache)
            how = "MCJIT"
    except (Rejected, HloError, ShapeError, KeyError, TypeError, ValueError) as e:
        compile_cache.say(f"compile cache: miss, object entry {key[:12]} ignored: {e}")
        return None
    compiled.timings.extra["cache_total"] = time.perf_counter() - t0
    compile_cache.say(f"compile cache: hit {key[:12]} (via {via}, loaded with {how}) in "
                      f"{compile_cache.directory}, {1e3 * (time.perf_counter() - t0):.1f} ms")
    return compiled


def _from_library(compile_cache: CompileCache, key: str, entry: Entry, stats: Any, params: list[Shape],
                  results: list[Shape]) -> Any:
    """The entry's shared library, dlopened (native/shared_library.py), or None (saying why when the entry
    has one that cannot be used): then the object goes through MCJIT."""
    from hlotools.backend.llvm.driver.runtime import CompiledModule
    record = entry.meta.get("shared_library")
    if record is None or not shared_library.enabled():
        return None
    t0 = time.perf_counter()
    try:
        library = shared_library.load(shared_library.library_path(compile_cache.path(key)), record)
    except shared_library.Unusable as e:
        compile_cache.say(f"compile cache: shared library of {key[:12]} not used: {e}")
        return None
    return CompiledModule.from_shared_library(library, stats, params, results, time.perf_counter() - t0)


def _check_leaves(module: Module, params: list[Shape], results: list[Shape]) -> None:
    """The entry's leaves must be the cached code's (type and dims; layouts are the cached
    code's own, chosen by the passes)."""
    entry = module.entry
    assert entry is not None and entry.root is not None
    want_p = [s.to_text(False) for p in entry.parameters for s in p.shape.leaves()]
    want_r = [s.to_text(False) for s in entry.root.shape.leaves()]
    if want_p != [s.to_text(False) for s in params] or want_r != [s.to_text(False) for s in results]:
        raise Rejected("its parameter or result shapes differ from the module's")
