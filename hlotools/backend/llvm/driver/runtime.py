"""The Python side of the LLVM backend: compile a module once, then run it on numpy
arrays by calling the entry function through ctypes.

Arguments and results are flattened array leaves exactly as for
`hlotools.interpreter.evaluate` (logical row-major numpy arrays; tokens are None on input
and a 0-d bool on output). Leaves are converted to their physical layout and storage
(sub-byte integers one per byte) on the way in and back on the way out (abi.py). The
temp arena is allocated once per compiled module (64-byte aligned) and reused by every call.

The compiler and the JIT (llvmlite) are imported when a module is compiled or loaded into
the JIT, not with this file: a warm start that loads a shared library from the compile cache
(`from_shared_library`, native/shared_library.py) needs neither.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hlotools.backend.llvm.abi import ENTRY_NAME, CompileStats, EntryCaller
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    import llvmlite.ir as ir
    import numpy as np

    from hlotools.backend.llvm.native import jit
    from hlotools.backend.llvm.native.cache import CompileCache
    from hlotools.backend.llvm.native.shared_library import SharedLibrary


@dataclass
class Timings:
    codegen_s: float = 0.0
    llvm_s: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)


class CompiledModule(EntryCaller):
    """A module compiled to native code; call it with flattened argument leaves. JIT code
    calls the process's runtime library (kernels/library.py) for the parallel runtime and
    the GEMM kernels: `runtime_groups` names the groups it needs."""

    runtime_groups: list[str]
    llvm_level: int | None = None  # the LLVM level it was compiled at (llvm_level); None: loaded
    kernel_ir: list[str] = []  # the kernels' modules this compile emitted (codegen/kernels.py)
    _jobs: list[tuple[str, int, bool]] = []  # (IR text, LLVM level, SLP) per LLVM module compiled

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR of the module, as llvmlite printed it: its entry's module, then the
        modules of the kernels this compile emitted ("" for a module loaded from the compile
        cache). For reading: several modules, one after the other (optimised_ir links them)."""
        return "\n".join([self.entry_ir, *self.kernel_ir]) if self.kernel_ir else self.entry_ir

    @llvm_ir.setter
    def llvm_ir(self, text: str) -> None:
        self.entry_ir, self.kernel_ir = text, []

    def __init__(self, module: Module, *, opt_level: int = 3, implicit_fusion: bool = True,
                 keep_object: bool = False, runtime_cache: CompileCache | None = None,
                 kernel_fields: dict[str, Any] | None = None) -> None:
        """`runtime_cache`: where the runtime library's objects are kept between processes
        (None: built in this process when it has not loaded them yet). Groups this process has
        loaded already are not copied into it here: compile_cached has its background worker do
        that (CompileCache.link_later), as only a later process reads them. With
        `kernel_fields` (what besides a kernel's structure its code depends on: the compile
        options) kernels' objects are looked up in and stored into `runtime_cache` one by one."""
        from hlotools.backend.llvm.native import load_clock
        with load_clock.loading():  # the backend's modules and llvmlite: hlo-run's "load" phase
            from hlotools.backend.llvm import lower
            from hlotools.backend.llvm.codegen import module as codegen
            from hlotools.backend.llvm.driver.compile import collector_paused
            from hlotools.backend.llvm.kernels import library as runtime_library
            from hlotools.backend.llvm.lower.gemm import blas_enabled
            from hlotools.backend.llvm.native import jit
            from hlotools.backend.llvm.native.objfile import pack
            lower.load()
        t0 = time.perf_counter()
        store = KernelStore(runtime_cache if kernel_fields is not None else None, kernel_fields or {})
        kernel_jobs: dict[str, tuple[str, int, bool]] = {}
        with jit.ObjectPool(compile_threads()) as pool:
            def start_llvm(kernel: Any) -> None:  # LLVM compiles it while the next ones are emitted
                job = kernel_jobs[kernel.key] = (str(kernel.module), *kernel_level(kernel.module, opt_level))
                pool.submit(kernel.key, *job)

            # JIT only: AOT objects never call BLAS, and define the runtime library's functions.
            # The collector stays off meanwhile, as for the passes (compile.py collector_paused):
            # the emitters allocate ~10^5 llvmlite objects, and every ~70k allocations the
            # collector walked the HLO module and the IR built so far again (~12% of codegen's CPU)
            with blas_enabled(bool(jit.blas_symbols())), runtime_library.external_runtime(), collector_paused():
                mc = codegen.ModuleCompiler(module, implicit_fusion=implicit_fusion, kernels=kernels_enabled(),
                                            kernel_cached=store.lookup, kernel_emitted=start_llvm)
                ir_module = mc.compile()
                stats = mc.stats
            from hlotools.passes.fusion_stats import kernel_count
            stats.kernel_count = kernel_count(module)
            emitted = mc.kernel_modules()
            self.llvm_ir = str(ir_module)
            self.kernel_ir = [kernel_jobs[k.key][0] for k in emitted]
            groups = set(runtime_library.groups_needed(ir_module))
            for k in emitted:
                assert k.module is not None
                groups.update(runtime_library.groups_needed(k.module))
            groups.update(store.groups)
            self.runtime_groups = sorted(groups)
            t1 = time.perf_counter()
            loading = [g for g in self.runtime_groups if runtime_library.get(g) is None]
            # before the JIT resolves symbols; once per process, as XLA's runtime comes with its library
            with load_clock.loading():
                runtime_s = runtime_library.ensure(self.runtime_groups, runtime_cache if loading else None)
            t2 = time.perf_counter()
            entry_job = (self.entry_ir, llvm_level(ir_module, opt_level), True)
            pool.submit("", *entry_job)
            jobs = [entry_job, *(kernel_jobs[k.key] for k in emitted)]
            self.llvm_level = max(level for _, level, _ in jobs)  # its loops' (the entry's is often 0)
            self._jobs = jobs
            done = pool.results()
        objects = [done[""], *(done[k.key] for k in emitted)]
        self._unsaved_kernels: tuple[KernelStore, list[Any], list[bytes]] | None = (store, emitted, objects[1:])
        payload = pack([objects[0], *objects[1:], *(store.objects[k.key] for k in mc.kernel_table.values()
                                                    if k.module is None)])
        jit_module = jit.load_object(payload)
        t3 = time.perf_counter()
        self.object_code: bytes | None = payload if keep_object else None
        entry = module.entry
        assert entry is not None and entry.root is not None
        self._bind(jit_module, stats, [leaf for p in entry.parameters for leaf in p.shape.leaves()],
                   entry.root.shape.leaves(), Timings(t1 - t0, t3 - t2, {"runtime_library": runtime_s,
                                                                         "kernels": float(stats.kernels),
                                                                         "kernels_compiled": float(len(emitted))}))

    @classmethod
    def from_object(cls, object_code: bytes, stats: CompileStats, param_leaves: list[Shape],
                    result_leaves: list[Shape], runtime_groups: list[str] | None = None,
                    runtime_cache: CompileCache | None = None) -> CompiledModule:
        """A module compiled earlier (cache.py stores the object and these facts): loads the
        object into the JIT without codegen or LLVM's optimiser, after the runtime library
        groups it calls (`runtime_groups`, else read from the object's undefined symbols)."""
        from hlotools.backend.llvm.kernels import library as runtime_library
        from hlotools.backend.llvm.native import jit
        t0 = time.perf_counter()
        self = cls.__new__(cls)
        if runtime_groups is None:
            from hlotools.backend.llvm.native.objfile import read_objects
            runtime_groups = runtime_library.groups_of_symbols(read_objects(object_code).undefined)
        self.runtime_groups = list(runtime_groups)
        runtime_library.ensure(self.runtime_groups, runtime_cache)
        jit_module = jit.load_object(object_code)
        self.llvm_ir = ""  # not kept in the cache
        self.object_code = object_code
        self._bind(jit_module, stats, param_leaves, result_leaves,
                   Timings(extra={"load_object": time.perf_counter() - t0}))
        return self

    @classmethod
    def from_shared_library(cls, library: SharedLibrary, stats: CompileStats, param_leaves: list[Shape],
                            result_leaves: list[Shape], seconds: float) -> CompiledModule:
        """A module compiled earlier and linked into a shared library (native/shared_library.py), already
        loaded with dlopen: neither llvmlite nor the compiler is involved."""
        self = cls.__new__(cls)
        self.llvm_ir = ""
        self.object_code = None
        self._jit = library  # type: ignore[assignment]  # keeps the library open while the module lives
        self.runtime_groups = []  # linked into the library
        self.timings = Timings(extra={"dlopen": seconds})
        library.set_threads()
        self.bind_entry(library.address(ENTRY_NAME), stats, param_leaves, result_leaves)
        return self

    def _bind(self, jit_module: jit.JitModule, stats: CompileStats, param_leaves: list[Shape],
              result_leaves: list[Shape], timings: Timings) -> None:
        """Everything a call needs, from a fresh compile or a cached object alike."""
        from hlotools.backend.llvm.kernels import library as runtime_library
        from hlotools.backend.llvm.kernels.parallel_for import join_at_release
        self._jit = jit_module
        self.timings = timings
        runtime = runtime_library.get(runtime_library.PARALLEL) if runtime_library.PARALLEL in self.runtime_groups else None
        # helper threads run this code: join them before it is freed
        join_at_release(self, jit_module, runtime.jit_module if runtime is not None else None)
        self.bind_entry(jit_module.address(ENTRY_NAME), stats, param_leaves, result_leaves)

    def save_kernels(self) -> None:
        """Store the objects of the kernels this compile emitted in the compile cache (one
        entry each), for the next module sharing them."""
        unsaved = getattr(self, "_unsaved_kernels", None)
        if unsaved is not None:
            self._unsaved_kernels = None
            unsaved[0].save(unsaved[1], unsaved[2])

    def optimised_ir(self) -> str:
        """The LLVM IR the machine code was generated from ("" for a module loaded from the
        compile cache), optimised again from llvm_ir as it was for the JIT (the same target
        machine and level): the optimised module itself is not kept, ~18 kB of LLVM memory
        per live module of tests/backend/llvm/driver/test_runtime_memory.py (a quarter of what one costs) for this
        one question."""
        from hlotools.backend.llvm.native import jit
        if not self.entry_ir:
            return ""
        parts = [jit.optimised_ir(text, level, slp=slp) for text, level, slp in self._jobs]
        return parts[0] if len(parts) == 1 else jit.link_texts(parts)


def kernels_enabled() -> bool:
    """Kernels in LLVM modules of their own (codegen/kernels.py); HLOTOOLS_KERNELS=0: the whole
    module as one LLVM module, as AOT compiles it."""
    import os
    return os.environ.get("HLOTOOLS_KERNELS", "1") != "0"


def compile_threads() -> int:
    """How many threads compile a module's LLVM modules (HLOTOOLS_COMPILE_THREADS, else the
    CPUs this process may run on)."""
    import os
    want = os.environ.get("HLOTOOLS_COMPILE_THREADS", "")
    if want.isdigit() and int(want) > 0:
        return int(want)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class KernelStore:
    """Kernels' objects in the compile cache, one entry each (kind "kernel"), keyed by the
    kernel's structural key and the compile's fields: a module sharing kernels with one
    compiled before compiles only its new ones."""

    KIND = "kernel"  # native/cache.py KERNEL_KIND

    def __init__(self, cache: CompileCache | None, fields: dict[str, Any]) -> None:
        self.cache = cache
        self.fields = fields
        self.objects: dict[str, bytes] = {}
        self.groups: set[str] = set()

    def _key(self, kernel_key: str) -> str:
        from hlotools.backend.llvm.native.cache import make_key
        return make_key(self.KIND, kernel_key, self.fields)

    def lookup(self, kernel: Any) -> bool:
        if self.cache is None:
            return False
        from hlotools.backend.llvm.native.cache import Rejected
        try:
            entry = self.cache.read(self._key(kernel.key), self.KIND)
        except Rejected:
            return False
        groups = entry.meta.get("runtime", [])
        if entry.meta.get("symbol") != kernel.name or not isinstance(groups, list):
            return False
        self.objects[kernel.key] = entry.payload
        self.groups.update(str(g) for g in groups)
        return True

    def save(self, kernels: list[Any], objects: list[bytes]) -> None:
        if self.cache is None:
            return
        from hlotools.backend.llvm.kernels import library as runtime_library
        from hlotools.backend.llvm.native.cache import Entry
        for k, data in zip(kernels, objects):
            meta = {"symbol": k.name, "runtime": runtime_library.groups_needed(k.module)}
            self.cache.put(Entry(self._key(k.key), self.KIND, meta, data))


# Straight-line code up to this many LLVM instructions is compiled at level 0 (llvm_level): with
# kernels (codegen/kernels.py) an entry is the calls of its kernels, and a 24-layer training
# step's (20,000 instructions) took LLVM 10 s at O3 against 0.3 s at level 0, for code that runs
# once per call (tens of microseconds either way).
STRAIGHT_LINE_MAX_INSTRUCTIONS = 200_000


def llvm_level(ir_module: ir.Module, opt_level: int) -> int:
    """The LLVM level a module is compiled at: `opt_level`, except 0 for a module without loops
    of at most STRAIGHT_LINE_MAX_INSTRUCTIONS instructions (codegen/module.py straight_line_instructions:
    code that runs each instruction at most once per call, such as an entry function that only
    fills descriptors and calls the runtime library's kernels). LLVM's O3 optimiser and code
    generator cost such a module 4-5 ms of fixed work (big_conv's entry: optimiser 1.9 ms, code
    generation 2.6 ms at O3 against 1.1 ms with fast instruction selection) for the same code
    give or take a few spills: at most a microsecond per call at this size, against the tens
    of microseconds a call from Python costs anyway."""
    from hlotools.backend.llvm.codegen.module import straight_line_instructions
    if opt_level == 0:
        return 0
    size = straight_line_instructions(ir_module)
    return 0 if size is not None and size <= STRAIGHT_LINE_MAX_INSTRUCTIONS else opt_level


# Kernels with more LLVM instructions than this are optimised without the SLP vectoriser.
SLP_MAX_INSTRUCTIONS = 1500


def kernel_level(ir_module: ir.Module, opt_level: int) -> tuple[int, bool]:
    """(LLVM level, SLP on?) for one kernel's module: llvm_level's choice (straight-line code at
    level 0), and no SLP vectoriser for a big kernel. A big kernel is a fused loop whose body
    the loop vectoriser vectorises; SLP then spends half of O3's time on that body (a
    94-instruction gradient fusion: 6,600 LLVM instructions, 1.0 s at O3, 0.65 s without SLP)
    to pack what the loop vectoriser already packed. Neither choice changes a result: the
    passes never reassociate (tests/backend/llvm/native/test_feature_levels.py)."""
    level = llvm_level(ir_module, opt_level)
    size = sum(len(b.instructions) for f in ir_module.functions for b in f.blocks)
    return level, size <= SLP_MAX_INSTRUCTIONS


def compile_module(module: Module, **kw: Any) -> CompiledModule | PaddedModule:
    """The module compiled; one with bounded dynamic dims compiles its padded static form once
    and runs at any size within the bounds (PaddedModule)."""
    from hlotools.ir.dynamic import has_dynamic_shapes
    if has_dynamic_shapes(module):
        return PaddedModule(module, **kw)
    return CompiledModule(module, **kw)


class PaddedModule:
    """The dynamic padder's static form of `module`, compiled: arguments at runtime sizes are
    padded to the bounds, results trimmed to the sizes the module computed."""

    def __init__(self, module: Module, **kw: Any) -> None:
        from hlotools.passes.dynamic_padder import pad_module
        self.module = module
        self.padded = module.clone()
        sig = pad_module(self.padded)
        assert sig is not None
        self.signature = sig
        self.compiled = CompiledModule(self.padded, **kw)

    def __call__(self, args: list[np.ndarray | None]) -> list[np.ndarray]:
        from hlotools.ir.dynamic_arrays import pad_arguments, unpad_results
        return unpad_results(self.signature, self.compiled(pad_arguments(self.module, self.signature, args)))
