"""The runtime library: generated functions that do not depend on the module, compiled once
per machine and shared by every JIT-compiled module of the process, as XLA CPU links Eigen
and its runtime functions instead of generating them per module.

Groups (each one LLVM module, one object, one cache entry):

- "parallel": kernels/parallel_for.py's whole runtime (`hlo.parallel_for`, its chunks, trampoline and
  join, the pending-thread list, `hlotools_num_threads`, `hlotools_parallel_join`): ~35 ms of
  LLVM time that every module with a parallel loop used to spend;
- one per GEMM kernel variant, named by its symbol `gemm.<type>.x<L>.v<vectors>.r<MR>[.nofma]` (kernels/gemm.py):
  ~60 ms each. One group per variant, not one for all: a module needs one or two of the
  twelve types a host could use, and building all of them would cost ~0.7 s on a cold machine;
- one per convolution compute type, `conv.<type>` (kernels/conv.py): the generic im2col and
  kernel-packing functions of emit_conv_gemm's convolutions (`conv.im2col.<type>`,
  `conv.pack.<type>`, and `conv.tables.<type>`, `conv.rows.<type>` for an im2col done in the
  GEMM's tasks), which were ~60% of big_conv's LLVM time when generated per module;
- one per reduce-window element type, `reduce_window.<type>` (kernels/reduce_window.py): the
  descriptor-driven reduce-window of add/multiply/maximum/minimum reducers (pooling layers),
  instead of a JIT'd loop nest per reduce-window.

While `external()` is set (CompiledModule sets it around codegen), emitters only *declare*
these functions. `ensure(groups, cache)` then makes them resolvable: a group already loaded in
this process costs nothing; otherwise its object comes from the compile cache folder
(`llvm/runtime/KEY.entry`, cache.py's entry format, key over the format version, a fingerprint
of the sources that generate the runtime, llvmlite/LLVM versions, triple, CPU name and features
and the group) or is built and stored there; without a cache it is built in process. A loaded
group's object goes into an MCJIT engine kept for the life of the process and every symbol it
defines is registered with LLVM (jit.export_symbols), so fresh compiles and cached objects
loaded later resolve to it. Modules record the groups they need (`groups_needed`, or the
undefined symbols of their object), and shared libraries of the compile cache link the same
objects in (native/shared_library.py), so each .so stays self-contained.

AOT objects never set the flag: they define everything inside and need only libc and libm.
"""
from __future__ import annotations

import os
import platform
import re
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from hlotools.backend.llvm.abi import PARALLEL_FOR
from hlotools.errors import HloError

if TYPE_CHECKING:
    import llvmlite.ir as ir

    from hlotools.backend.llvm.native.cache import CompileCache

PARALLEL = "parallel"
KIND = "runtime"  # cache entry kind
_GEMM = re.compile(r"gemm\.(\w+)\.x(\d+)\.v(\d+)\.r(\d+)(\.nofma)?$")
_CONV_SYMBOL = re.compile(r"conv\.(?:im2col|pack|rows|tables)\.(f32|f64)$")
_CONV = re.compile(r"conv\.(f32|f64)$")
_REDUCE_WINDOW = re.compile(r"reduce_window\.(\w+)$")  # symbol and group alike
# The files whose code ends up in the runtime objects (paths under hlotools/): every module of
# the layers the runtime library is built from (kernels/ and llvm_ir/, walked: a new file there
# is covered without a list to keep), and the facts it reads from abi.py, native/ and ir/.
SOURCE_FOLDERS = ("backend/llvm/kernels", "backend/llvm/llvm_ir")
SOURCE_FILES = ("backend/llvm/abi.py", "backend/llvm/native/host.py", "backend/llvm/native/targets.py", "ir/types.py")
_EXTERNAL = ContextVar("hlotools_llvm_runtime_library", default=False)


@contextmanager
def external_runtime(on: bool = True) -> Iterator[None]:
    """Let emitters declare the runtime library's functions instead of defining them while
    compiling inside this context (the JIT only: AOT objects must be self-contained)."""
    tok = _EXTERNAL.set(on)
    try:
        yield
    finally:
        _EXTERNAL.reset(tok)


def external() -> bool:
    return _EXTERNAL.get()


def group_of(symbol: str) -> str | None:
    """The group defining `symbol`, or None for anything else."""
    if symbol == PARALLEL_FOR:
        return PARALLEL
    if _GEMM.match(symbol):
        return symbol
    m = _CONV_SYMBOL.match(symbol)
    if m:
        return f"conv.{m.group(1)}"
    if _REDUCE_WINDOW.match(symbol):
        return symbol
    return None


def groups_of_symbols(symbols: Iterable[str]) -> list[str]:
    return sorted({g for g in map(group_of, symbols) if g is not None})


def groups_needed(module: ir.Module) -> list[str]:
    """The groups whose functions an LLVM module declares."""
    return groups_of_symbols(g.name for g in module.functions if g.is_declaration)


def gemm_group(type_name: str, n: int | None = None) -> str:
    """The group of the GEMM kernel the host uses for `type_name` and a dot of `n` columns
    (None: any width; emit_gemm's choice)."""
    from hlotools.backend.llvm.kernels import gemm as gemm_kernel
    from hlotools.backend.llvm.native import jit
    from hlotools.ir.types import ELEMENT_TYPES
    features = jit.target_description().features
    ct = ELEMENT_TYPES[type_name]
    return gemm_kernel.kernel_name(ct, gemm_kernel.blocking_for(ct, features, n))


def conv_group(type_name: str) -> str:
    """The group of the convolution functions of compute type `type_name` (f32, f64)."""
    return f"conv.{type_name}"


def reduce_window_group(type_name: str) -> str:
    """The group of the reduce-window kernel of element type `type_name`."""
    return f"reduce_window.{type_name}"


def build_ir(group: str) -> str:
    """The LLVM IR text of one group (HloError for a name that is no group)."""
    import llvmlite.ir as ir

    from hlotools.backend.llvm.kernels import conv as conv_kernel
    from hlotools.backend.llvm.kernels import gemm as gemm_kernel
    from hlotools.backend.llvm.kernels import parallel_for
    from hlotools.backend.llvm.kernels import reduce_window as reduce_window_kernel
    from hlotools.backend.llvm.llvm_ir import denormals
    from hlotools.ir.types import ELEMENT_TYPES
    module = ir.Module(name=f"hlotools.runtime.{group}")
    if group == PARALLEL:
        with denormals.target_triple(platform.machine()):  # the host's: the pool hands MXCSR on (x86)
            parallel_for.define_runtime(module)
        return str(module)
    conv = _CONV.match(group)
    if conv:
        conv_kernel.define_runtime(module, ELEMENT_TYPES[conv.group(1)])
        return str(module)
    rw = _REDUCE_WINDOW.match(group)
    if rw and reduce_window_kernel.supported_type(rw.group(1)):
        reduce_window_kernel.define_runtime(module, ELEMENT_TYPES[rw.group(1)])
        return str(module)
    m = _GEMM.match(group)
    ct = ELEMENT_TYPES.get(m.group(1)) if m else None
    blk = gemm_kernel.Blocking(int(m.group(2)), int(m.group(3)), int(m.group(4)), fused=not m.group(5)) if m else None
    if ct is None or blk is None or not 2 <= blk.lanes <= 64 or not 1 <= blk.vecs <= 8 or not 1 <= blk.rows <= 16:
        raise HloError(f"runtime library: no group {group!r}")
    gemm_kernel.define_runtime(module, ct, blk)
    return str(module)


@dataclass
class Loaded:
    """A group in this process: its object, the engine running it (never freed) and the
    addresses of the symbols it defines."""

    group: str
    object_code: bytes
    jit_module: Any  # jit.JitModule
    symbols: dict[str, int]
    origin: str  # 'built' | 'cache'
    seconds: float


_LOADED: dict[str, Loaded] = {}
_RETIRED: list[Loaded] = []  # forgotten groups: modules bound to them still run their code
_LOCK = threading.Lock()


def _after_fork_in_child() -> None:
    """A child forked while another thread of the parent held the lock (building a group)
    would wait for it forever: the child gets a fresh one (the registry's code is mapped in
    the child too)."""
    global _LOCK
    _LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def loaded() -> dict[str, Loaded]:
    """The process registry: which groups are loaded, and from where."""
    with _LOCK:
        return dict(_LOADED)


def get(group: str) -> Loaded | None:
    return _LOADED.get(group)


def ensure(groups: Iterable[str], compile_cache: CompileCache | None = None) -> float:
    """Load every group in `groups` that this process has not loaded yet (from the compile
    cache, else built and stored there); a group already loaded is copied into
    `compile_cache` if it has no entry there (so its next process finds it). Returns the
    seconds spent."""
    t0 = time.perf_counter()
    for group in groups:
        with _LOCK:
            got = _LOADED.get(group)
            if got is None:
                _LOADED[group] = _load_or_build(group, compile_cache)
            elif compile_cache is not None:
                _store(got, compile_cache, only_if_missing=True)
    return time.perf_counter() - t0


def prepare(compile_cache: CompileCache | None = None, types: Iterable[str] = ("f32", "f64")) -> float:
    """Load the parallel runtime, the GEMM kernels (the table's block and the narrow one of
    dots of one vector of columns), the convolution functions and the reduce-window kernels
    of `types` ahead of any module (the benchmark's one-time cost, like XLA's runtime in its
    binary). Returns the seconds spent."""
    gemms = sorted({gemm_group(t, n) for t in types for n in (None, 1)})
    return ensure([PARALLEL, *gemms, *(conv_group(t) for t in types), *(reduce_window_group(t) for t in types)],
                  compile_cache)


def objects(groups: Iterable[str], compile_cache: CompileCache | None = None) -> list[bytes]:
    """The object code of `groups` (loading them first), for linking into a shared library."""
    groups = list(groups)
    ensure(groups, compile_cache)
    return [_LOADED[g].object_code for g in groups]


def forget(group: str | None = None) -> None:
    """The next `ensure` loads `group` (all groups when None) again, from the cache or built
    (tests). Its code stays mapped: modules compiled against it still call it."""
    with _LOCK:
        for g in [group] if group is not None else list(_LOADED):
            old = _LOADED.pop(g, None)
            if old is not None:
                _RETIRED.append(old)


def key(group: str) -> str:
    from hlotools.backend.llvm.native.cache import make_key
    return make_key(KIND, group, {}, environment())


@cache
def environment() -> dict[str, str]:
    """What the runtime's machine code depends on: cache.environment() with the runtime's own
    sources in place of the whole backend (an edit of another emitter keeps the runtime), and
    without the BLAS the module dots may call."""
    import hlotools
    from hlotools.backend.llvm.native.cache import FORMAT_VERSION, default_cache_dir, files_fingerprint
    from hlotools.backend.llvm.native.host import llvm_environment
    llvm_env = {k: v for k, v in llvm_environment(default_cache_dir()).items() if k != "blas"}
    return {"format": str(FORMAT_VERSION), "hlotools": hlotools.__version__,
            "sources": files_fingerprint(sources()), **llvm_env}


@cache
def sources() -> tuple[str, ...]:
    """SOURCE_FOLDERS' modules and SOURCE_FILES, relative to the hlotools package."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    found = [os.path.join(folder, name) for folder in SOURCE_FOLDERS
             for name in sorted(os.listdir(os.path.join(root, folder))) if name.endswith(".py")]
    return tuple(found) + SOURCE_FILES


def _load_or_build(group: str, compile_cache: CompileCache | None) -> Loaded:
    from hlotools.backend.llvm.native import jit
    from hlotools.backend.llvm.native.objfile import read_object
    t0 = time.perf_counter()
    k = key(group) if compile_cache is not None else ""
    if compile_cache is not None:
        entry = compile_cache.get(k, KIND)
        if entry is not None:
            try:
                if entry.meta.get("group") != group:
                    raise HloError(f"the entry holds group {entry.meta.get('group')!r}")
                jm = jit.load_object(entry.payload)
                symbols = jit.export_symbols(jm, read_object(entry.payload).defined)
                return Loaded(group, entry.payload, jm, symbols, "cache", time.perf_counter() - t0)
            except HloError as e:
                compile_cache.say(f"compile cache: runtime {group} entry {k[:12]} ignored: {e}")
    text = build_ir(group)
    out: list[bytes] = []
    jm, _ = jit.compile_ir(text, 3, out.append)
    symbols = jit.export_symbols(jm, read_object(out[0]).defined)
    got = Loaded(group, out[0], jm, symbols, "built", time.perf_counter() - t0)
    if compile_cache is not None:
        _store(got, compile_cache, only_if_missing=False, key_=k)
        compile_cache.say(f"compile cache: runtime {group} built in {1e3 * got.seconds:.0f} ms and stored "
                          f"{k[:12]}")
    return got


def _store(got: Loaded, compile_cache: CompileCache, only_if_missing: bool, key_: str = "") -> None:
    from hlotools.backend.llvm.native.cache import Entry
    k = key_ or key(got.group)
    if only_if_missing and compile_cache.path(k, KIND).exists():
        return
    compile_cache.put(Entry(k, KIND, {"group": got.group, "symbols": sorted(got.symbols)}, got.object_code))
