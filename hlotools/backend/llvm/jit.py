"""The one file that talks to llvmlite.binding: LLVM initialisation, the host target
machine, the optimisation pipeline (LLVM's new pass manager with loop and SLP
vectorisation), the JIT engine, symbol checks and object/assembly emission for AOT.

Everything above this file builds `llvmlite.ir` modules only, so the IR builder code never
depends on the binding layer (and the compile cache can key on `target_description()`).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

import llvmlite
import llvmlite.binding as llvm

from hlotools.errors import HloUnsupportedError

_LOCK = threading.Lock()


@cache
def _initialise() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()
    # The C math library (expf, logf, ...) that generated code calls: make its symbols
    # visible to the JIT's resolver (they are in the process, but not necessarily exported
    # through the handle llvmlite searches).
    # glibc's sonames first: dlopen finds them itself, while ctypes.util.find_library runs
    # ldconfig (~8 ms, a third of a warm cached start).
    for name in ("m", "c"):
        try:
            llvm.load_library_permanently(f"lib{name}.so.6")
            continue
        except RuntimeError:
            pass
        path = ctypes.util.find_library(name)
        if path:
            try:
                llvm.load_library_permanently(path)
            except RuntimeError:
                pass
    _register_blas()


# Stable names generated code calls for GEMM (emit_gemm.py), bound to numpy's OpenBLAS
# (ILP64 CBLAS: 64-bit integer arguments) when the process has it.
_BLAS_CANDIDATES = {"hlotools_blas_sgemm": ("scipy_cblas_sgemm64_", "cblas_sgemm64_"),
                    "hlotools_blas_dgemm": ("scipy_cblas_dgemm64_", "cblas_dgemm64_")}
_BLAS_FOUND: dict[str, int] = {}


def _register_blas() -> None:
    """Find numpy's bundled OpenBLAS (numpy.libs / numpy/.libs) and add its ILP64
    cblas_?gemm under the names of _BLAS_CANDIDATES. Nothing found: blas_symbols() is
    empty and dots use the generated kernel."""
    import glob
    import os

    import numpy
    root = os.path.dirname(numpy.__file__)
    paths = sorted(glob.glob(os.path.join(root, ".libs", "*openblas*.so*"))
                   + glob.glob(os.path.join(os.path.dirname(root), "numpy.libs", "*openblas*.so*")))
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for stable, names in _BLAS_CANDIDATES.items():
            for n in names:
                fn = getattr(lib, n, None)
                if fn is not None and stable not in _BLAS_FOUND:
                    _BLAS_FOUND[stable] = ctypes.cast(fn, ctypes.c_void_p).value or 0
                    llvm.add_symbol(stable, _BLAS_FOUND[stable])


def blas_symbols() -> frozenset[str]:
    """The GEMM entry points the JIT resolves (for emit_gemm's choice)."""
    _initialise()
    return frozenset(k for k, v in _BLAS_FOUND.items() if v)


@dataclass(frozen=True)
class TargetInfo:
    triple: str
    cpu: str
    features: str
    llvm_version: str
    llvmlite_version: str


@cache
def host_target_machine(opt: int = 3) -> llvm.TargetMachine:
    """The host's target machine with its CPU name and features (cached: creating one costs
    milliseconds and every compile needs it). Never hand it to an execution engine."""
    return _new_host_target_machine(opt)


def _new_host_target_machine(opt: int = 3) -> llvm.TargetMachine:
    triple, cpu, features = _host()
    return llvm.Target.from_triple(triple).create_target_machine(cpu=cpu, features=features, opt=opt, reloc="pic",
                                                                 codemodel="jitdefault")


@cache
def _host() -> tuple[str, str, str]:
    """The process triple, host CPU name and features (asked once: the features alone cost
    LLVM 0.15 ms, and every engine needs a target machine of its own)."""
    _initialise()
    return llvm.get_process_triple(), llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


def target_machine_for(triple: str | None = None, cpu: str | None = None, features: str = "",
                       opt: int = 3) -> llvm.TargetMachine:
    """A target machine for cross compilation (AOT); the host's when no triple is given."""
    if triple is None and cpu is None:
        return host_target_machine(opt)
    _initialise()
    if triple is not None and triple != llvm.get_process_triple():
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple(triple or llvm.get_process_triple())
    return target.create_target_machine(cpu=cpu or "", features=features, opt=opt, reloc="pic",
                                        codemodel="default")


def target_machine_checked(triple: str, cpu: str, features: str, opt: int = 3) -> llvm.TargetMachine:
    """target_machine_for, refusing what LLVM would only warn about on stderr: an unknown
    triple, CPU or feature (an unknown CPU later aborts code generation for some targets,
    e.g. "64-bit code requested on a subtarget that doesn't support it"). The warnings are
    caught on file descriptor 2 while the target machine is made. Raises ValueError."""
    import os
    import sys
    import tempfile
    try:
        target_machine_for(triple, None, "", opt)  # initialises the targets; unknown triple -> RuntimeError
    except RuntimeError as e:
        raise ValueError(str(e).strip()) from None
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as log:
        os.dup2(log.fileno(), 2)
        try:
            tm = target_machine_for(triple, cpu, features, opt)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        log.seek(0)
        complaints = sorted({line.strip() for line in log.read().decode("utf-8", "replace").splitlines()
                             if "not a recognized" in line})
    if complaints:
        raise ValueError("; ".join(complaints))
    return tm


def target_description() -> TargetInfo:
    """What the compiled code depends on (for cache keys and reports)."""
    triple, cpu, features = _host()
    return TargetInfo(triple, cpu, features, ".".join(map(str, llvm.llvm_version_info)), llvmlite.__version__)


def parse_ir(text: str) -> llvm.ModuleRef:
    _initialise()
    mod = llvm.parse_assembly(text)
    mod.verify()
    return mod


def optimise(mod: llvm.ModuleRef, tm: llvm.TargetMachine, level: int = 3) -> None:
    """Run LLVM's default O`level` pipeline (new pass manager) with loop and SLP
    vectorisation and loop interleaving (see _pass_builder)."""
    with _LOCK:
        pb = _pass_builder(tm, level)
        pb.getModulePassManager().run(mod, pb)


_BUILDERS: dict[tuple[int, int], tuple[llvm.TargetMachine, llvm.PipelineTuningOptions, llvm.PassBuilder]] = {}


def _pass_builder(tm: llvm.TargetMachine, level: int) -> llvm.PassBuilder:
    """One PassBuilder per (target machine, level), kept alive with its tuning options and
    target machine: creating a second builder after the first was collected crashed in
    llvmlite 0.50 (the builder disposes what it was given).

    Loop unrolling stays off: full unrolling of the many short constant-trip loops of HLO
    (small arrays, windows, contracting dims) followed by SLP made O3 take minutes on some
    modules (elementwise_math: 148 s -> 1 s), while the vectoriser's interleaving already
    unrolls the inner loops that matter."""
    key = (id(tm), level)
    hit = _BUILDERS.get(key)
    if hit is None:
        pto = llvm.PipelineTuningOptions(speed_level=level)
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        pto.loop_interleaving = True
        pto.loop_unrolling = False
        hit = (tm, pto, llvm.PassBuilder(tm, pto))
        _BUILDERS[key] = hit
    return hit[2]


@dataclass
class JitModule:
    """A finalised module in an execution engine: keeps the engine alive with the code."""

    engine: llvm.ExecutionEngine
    module: llvm.ModuleRef

    def address(self, name: str) -> int:
        addr = self.engine.get_function_address(name)
        if not addr:
            raise HloUnsupportedError(f"internal: function {name} not found in the compiled module")
        return addr


def jit(mod: llvm.ModuleRef, on_object: Callable[[bytes], None] | None = None, level: int = 3) -> JitModule:
    """Generate code for an optimised module and load it into an engine of its own. The host
    target machine writes a relocatable object (`on_object` receives it: the compile cache
    stores it, native.py links it into a shared library) and `load_object` maps it, as a warm
    start from the cache does: one code path for both, and cheaper than handing the module
    to MCJIT, which needs a target machine of its own to generate the same bytes (0.5-0.7 ms
    less per module; the objects are identical). load_object's check of the object's
    undefined symbols is also the exact one: it sees the libm calls intrinsics became. Level 0
    generates code without optimising it (fast instruction selection and register
    allocation, as clang -O0); any other level as O3."""
    tm = host_target_machine(0 if level == 0 else 3)
    with _LOCK:
        data = tm.emit_object(mod)
    if on_object is not None:
        on_object(data)
    return load_object(data)


def export_symbols(jm: JitModule, names: Iterable[str]) -> dict[str, int]:
    """The addresses of `names` (functions or globals defined in `jm`), each registered with
    LLVM's process-wide symbol table (llvm.add_symbol), so that every module finalised or
    object loaded later resolves those names to this code (runtime_library.py)."""
    found: dict[str, int] = {}
    for name in names:
        addr = jm.engine.get_function_address(name) or jm.engine.get_global_value_address(name)
        if not addr:
            raise HloUnsupportedError(f"internal: symbol {name} not found in the runtime library's object")
        found[name] = int(addr)
    for name, addr in found.items():
        llvm.add_symbol(name, addr)
    return found


def compile_ir(text: str, level: int = 3,
               on_object: Callable[[bytes], None] | None = None) -> tuple[JitModule, llvm.ModuleRef]:
    """Parse, verify, optimise and JIT LLVM IR text for the host; also the optimised module.
    Level 0 neither optimises nor generates optimised code."""
    mod = parse_ir(text)
    if level > 0:
        optimise(mod, host_target_machine(), level)
    return jit(mod, on_object, level), mod


def optimised_ir(text: str, level: int = 3, tm: llvm.TargetMachine | None = None) -> str:
    mod = parse_ir(text)
    optimise(mod, tm or host_target_machine(), level)
    return str(mod)


def emit_object(text: str, tm: llvm.TargetMachine | None = None, level: int = 3) -> bytes:
    """A relocatable object file of the optimised module (for AOT)."""
    tm = tm or host_target_machine()
    mod = parse_ir(text)
    mod.triple = tm.triple
    optimise(mod, tm, level)
    return tm.emit_object(mod)


def emit_assembly(text: str, tm: llvm.TargetMachine | None = None, level: int = 3) -> str:
    tm = tm or host_target_machine()
    mod = parse_ir(text)
    mod.triple = tm.triple
    optimise(mod, tm, level)
    return tm.emit_assembly(mod)


def host_data_layout() -> str:
    return str(host_target_machine().target_data)


def host_triple() -> str:
    _initialise()
    return llvm.get_process_triple()


CFUNC_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def load_object(data: bytes, tm: llvm.TargetMachine | None = None) -> JitModule:
    """An engine running a relocatable object made for this host (by `jit`, or read from the
    compile cache): no IR parsing, no optimisation, no code generation. Every undefined
    symbol of the object must resolve in the process first, since MCJIT aborts the process
    on a missing one."""
    from hlotools.backend.llvm.objfile import read_object

    _initialise()
    info = read_object(data)
    missing = [s for s in info.undefined if s not in _LINKER_DEFINED and llvm.address_of_symbol(s) is None]
    if missing:
        raise HloUnsupportedError(f"generated code needs symbols the process cannot resolve: {', '.join(sorted(missing))}")
    with _LOCK:
        empty = llvm.parse_assembly("")
        engine = llvm.create_mcjit_compiler(empty, tm or _new_host_target_machine())  # engines own their TM
        # MCJIT wants a module to be created with, and finalize_object would then run the code
        # generator on it (0.5 ms for nothing): taken out again, kept alive by the JitModule
        engine.remove_module(empty)
        engine.add_object_file(llvm.ObjectFileRef.from_data(data))
        engine.finalize_object()
    return JitModule(engine, empty)


_LINKER_DEFINED = frozenset({"_GLOBAL_OFFSET_TABLE_"})  # provided by the (JIT) linker itself
