"""The one file that talks to llvmlite.binding: LLVM initialisation, the JIT's target
machine (the host's CPU and features, or the target host.py resolves from
$HLOTOOLS_TARGET_CPU / $HLOTOOLS_TARGET_FEATURES), the optimisation pipeline (LLVM's new pass manager with loop and SLP
vectorisation), the JIT engine, symbol checks and object/assembly emission for AOT.

Everything above this file builds `llvmlite.ir` modules only, so the IR builder code never
depends on the binding layer (and the compile cache can key on `target_description()`).
"""
from __future__ import annotations

import ctypes
import threading
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache

from hlotools.backend.llvm.native.load_clock import loading
from hlotools.errors import HloUnsupportedError

with loading():  # LLVM's shared library: hlo-run's "load" phase
    import llvmlite
    import llvmlite.binding as llvm

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
    # ldconfig (~8 ms, a third of a warm cached start). ctypes.util is imported only then:
    # it imports subprocess (~2 ms of every cold compile, for a branch glibc never takes).
    for name in ("m", "c"):
        try:
            llvm.load_library_permanently(f"lib{name}.so.6")
            continue
        except RuntimeError:
            pass
        import ctypes.util
        path = ctypes.util.find_library(name)
        if path:
            try:
                llvm.load_library_permanently(path)
            except RuntimeError:
                pass
    _register_blas()


# Stable names generated code calls for GEMM (lower/gemm.py), bound to numpy's OpenBLAS
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
    """The JIT target's machine (the host's CPU and features unless $HLOTOOLS_TARGET_CPU
    chose another: jit_target), cached: creating one costs milliseconds and every compile
    needs it. Never hand it to an execution engine."""
    return _new_host_target_machine(opt)


def _new_host_target_machine(opt: int = 3) -> llvm.TargetMachine:
    triple, cpu, features = jit_target()
    return llvm.Target.from_triple(triple).create_target_machine(cpu=cpu, features=features, opt=opt, reloc="pic",
                                                                 codemodel="jitdefault")


@cache
def _host() -> tuple[str, str, str]:
    """The process triple, host CPU name and features (asked once: the features alone cost
    LLVM 0.15 ms, and every engine needs a target machine of its own)."""
    _initialise()
    return llvm.get_process_triple(), llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


@cache
def jit_target() -> tuple[str, str, str]:
    """(triple, CPU name, features) the JIT generates code for: the host's, or what
    $HLOTOOLS_TARGET_CPU and $HLOTOOLS_TARGET_FEATURES ask for (host.resolve_target; a
    target this host cannot run raises host.TargetError). Read once per process."""
    from hlotools.backend.llvm.native.host import resolve_target, target_request
    triple, cpu, features = _host()
    request = target_request()
    if request is None:
        return triple, cpu, features
    return (triple, *resolve_target(request, triple, cpu, features))


# A module whose machine code differs when a feature is turned off uses that feature: vector
# arithmetic of every width (SSE .. AVX-512 and their integer, half and bf16 forms), FMA, bit
# counts, byte swaps from memory, shifts, conversions and rounding. The 512-bit functions say
# they need 512-bit vectors (CPUs that prefer 256-bit ones would split them otherwise).
_PROBE_IR = """
define void @probe(ptr %p, ptr %q) #0 {
  %a = load <16 x float>, ptr %p
  %b = load <16 x float>, ptr %q
  %c = fmul <16 x float> %a, %b
  %d = call <16 x float> @llvm.fma.v16f32(<16 x float> %a, <16 x float> %b, <16 x float> %c)
  %e = call <16 x float> @llvm.floor.v16f32(<16 x float> %d)
  store <16 x float> %e, ptr %p
  %i = load <32 x i16>, ptr %q
  %j = mul <32 x i16> %i, %i
  store <32 x i16> %j, ptr %q
  %k = load <8 x i64>, ptr %p
  %l = mul <8 x i64> %k, %k
  %m = call <8 x i64> @llvm.ctpop.v8i64(<8 x i64> %l)
  store <8 x i64> %m, ptr %p
  %n = load <4 x i64>, ptr %q
  %o = mul <4 x i64> %n, %n
  store <4 x i64> %o, ptr %q
  %r = load <8 x i32>, ptr %p
  %s = shl <8 x i32> %r, %r
  store <8 x i32> %s, ptr %p
  %t = load <16 x i8>, ptr %q
  %u = shufflevector <16 x i8> %t, <16 x i8> poison, <16 x i32> <i32 3, i32 1, i32 7, i32 0, i32 9, i32 2, i32 15, i32 4, i32 8, i32 5, i32 14, i32 6, i32 10, i32 11, i32 12, i32 13>
  store <16 x i8> %u, ptr %q
  %h = load <32 x half>, ptr %p
  %h2 = fadd <32 x half> %h, %h
  store <32 x half> %h2, ptr %p
  %f = load <16 x float>, ptr %q
  %fh = fptrunc <16 x float> %f to <16 x half>
  store <16 x half> %fh, ptr %p
  %fb = fptrunc <16 x float> %f to <16 x bfloat>
  store <16 x bfloat> %fb, ptr %q
  %dd = load <8 x double>, ptr %p
  %di = fptosi <8 x double> %dd to <8 x i64>
  store <8 x i64> %di, ptr %q
  ret void
}

define i64 @scalar(ptr %p, i64 %x, i64 %y, double %z, double %w) #0 {
  %a = call i64 @llvm.ctpop.i64(i64 %x)
  %b = call i64 @llvm.ctlz.i64(i64 %y, i1 false)
  %c = call i64 @llvm.cttz.i64(i64 %x, i1 false)
  %m1 = sub i64 %x, 1
  %d = and i64 %x, %m1
  %e = shl i64 %y, %x
  %v = load i64, ptr %p
  %f = call i64 @llvm.bswap.i64(i64 %v)
  %g = call double @llvm.fma.f64(double %z, double %w, double %z)
  %r = call double @llvm.floor.f64(double %g)
  %ri = fptosi double %r to i64
  %s1 = add i64 %a, %b
  %s2 = add i64 %c, %d
  %s3 = add i64 %e, %f
  %s4 = add i64 %s1, %s2
  %s5 = add i64 %s3, %ri
  %s6 = add i64 %s4, %s5
  ret i64 %s6
}

declare <16 x float> @llvm.fma.v16f32(<16 x float>, <16 x float>, <16 x float>)
declare <16 x float> @llvm.floor.v16f32(<16 x float>)
declare <8 x i64> @llvm.ctpop.v8i64(<8 x i64>)
declare i64 @llvm.ctpop.i64(i64)
declare i64 @llvm.ctlz.i64(i64, i1)
declare i64 @llvm.cttz.i64(i64, i1)
declare i64 @llvm.bswap.i64(i64)
declare double @llvm.fma.f64(double, double, double)
declare double @llvm.floor.f64(double)

attributes #0 = { "min-legal-vector-width"="512" }
"""


@cache
def features_code_uses(triple: str, cpu: str, features: str, candidates: tuple[str, ...]) -> list[str]:
    """Which of `candidates` (features a host lacks) LLVM's code for `cpu` with `features`
    uses, judged on a probe module (_PROBE_IR): those whose turning off changes its
    assembly. ValueError for an unknown CPU or feature."""
    base = _probe_assembly(triple, cpu, features)
    off = ",".join(["-" + f for f in candidates] + ([features] if features else []))
    if _probe_assembly(triple, cpu, off) == base:
        return []
    return [f for f in candidates
            if _probe_assembly(triple, cpu, ",".join(["-" + f] + ([features] if features else []))) != base]


def _probe_assembly(triple: str, cpu: str, features: str) -> str:
    tm = target_machine_checked(triple, cpu, features, 3)
    mod = parse_ir(_PROBE_IR)
    mod.triple = triple
    with _LOCK:
        return tm.emit_assembly(mod)


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
    """What the JIT's code depends on (its target: jit_target; for reports and the emitters'
    vector widths)."""
    return TargetInfo(*jit_target(), ".".join(map(str, llvm.llvm_version_info)), llvmlite.__version__)


def host_description() -> TargetInfo:
    """The host's own CPU and features, whatever the JIT targets (host.py's file)."""
    return TargetInfo(*_host(), ".".join(map(str, llvm.llvm_version_info)), llvmlite.__version__)


def parse_ir(text: str) -> llvm.ModuleRef:
    _initialise()
    mod = llvm.parse_assembly(text)
    mod.verify()
    return mod


def optimise(mod: llvm.ModuleRef, tm: llvm.TargetMachine, level: int = 3, slp: bool = True) -> None:
    """Run LLVM's default O`level` pipeline (new pass manager) with loop and SLP
    vectorisation and loop interleaving (see _pass_builder)."""
    with _LOCK:
        _run_pipeline(mod, tm, level, slp, lambda mpm, pb: mpm.run(mod, pb))


def _run_pipeline(mod: llvm.ModuleRef, tm: llvm.TargetMachine, level: int, slp: bool,
                  run: Callable[[llvm.ModulePassManager, llvm.PassBuilder], object]) -> None:
    """One run of the pipeline on `mod` through `run(mpm, pb)` (optimise's, or compile_object's
    call without llvmlite's lock), its pass manager and builder freed after."""
    pto, pb = _pass_builder(tm, level, slp)
    mpm = pb.getModulePassManager()
    try:
        run(mpm, pb)
    finally:
        _dispose_pass_manager(mpm)
    del pb, pto  # the builder first (it was given the options)


def _pass_builder(tm: llvm.TargetMachine, level: int, slp: bool = True) -> tuple[llvm.PipelineTuningOptions, llvm.PassBuilder]:
    """A new PassBuilder (with its tuning options) for one run of the pipeline. Not one per
    target machine for the process: llvmlite 0.50's run registers its instrumentation
    callbacks into the builder's callback list on every run (they point at the run's stack,
    and every later run calls them all), so a reused builder made each compile slower than
    the one before (an empty module's pipeline: 1 ms -> 5 ms after 3000 runs) and grew the
    process by ~30 kB per module. A new builder costs ~20 us; what llvmlite leaks of each
    (its callback list, never deleted) is ~1.4 kB. The caller keeps `tm` alive meanwhile.

    Loop unrolling stays off: full unrolling of the many short constant-trip loops of HLO
    (small arrays, windows, contracting dims) followed by SLP made O3 take minutes on some
    modules (elementwise_math: 148 s -> 1 s), while the vectoriser's interleaving already
    unrolls the inner loops that matter."""
    pto = llvm.PipelineTuningOptions(speed_level=level)
    pto.loop_vectorization = True
    pto.slp_vectorization = slp
    pto.loop_interleaving = True
    pto.loop_unrolling = False
    return pto, llvm.PassBuilder(tm, pto)


def _dispose_pass_manager(mpm: llvm.ModulePassManager) -> None:
    """Free a module pass manager (the whole pipeline's pass objects, 30-50 kB): llvmlite
    0.50's ModulePassManager never does, because ObjectRef's empty _dispose comes before
    NewPassManager's in its method order."""
    from llvmlite.binding.newpassmanagers import NewPassManager
    if not mpm.closed:
        NewPassManager._dispose(mpm)  # type: ignore[arg-type]
        mpm.detach()
    PASS_MANAGERS_FREED[0] += 1


PASS_MANAGERS_FREED = [0]  # how many optimiser runs freed their pass manager (tests)


@dataclass(eq=False)
class JitModule:
    """A finalised module in an execution engine: keeps the engine alive with the code. The
    engine (its code and data, its target machine) is freed with the last reference."""

    engine: llvm.ExecutionEngine
    module: llvm.ModuleRef
    parts: list[JitModule] = field(default_factory=list)  # the kernels its code calls

    def __post_init__(self) -> None:
        _LIVE.add(self)

    def address(self, name: str) -> int:
        addr = self.engine.get_function_address(name)
        if not addr:
            raise HloUnsupportedError(f"internal: function {name} not found in the compiled module")
        return addr


def jit(mod: llvm.ModuleRef, on_object: Callable[[bytes], None] | None = None, level: int = 3) -> JitModule:
    """Generate code for an optimised module and load it into an engine of its own. The host
    target machine writes a relocatable object (`on_object` receives it: the compile cache
    stores it, native/shared_library.py links it into a shared library) and `load_object` maps it, as a warm
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


_LIVE: weakref.WeakSet[JitModule] = weakref.WeakSet()


def live_modules() -> int:
    """How many JitModules (execution engines) the process holds (tests: freed modules)."""
    return len(_LIVE)


def export_symbols(jm: JitModule, names: Iterable[str]) -> dict[str, int]:
    """The addresses of `names` (functions or globals defined in `jm`), each registered with
    LLVM's process-wide symbol table (llvm.add_symbol), so that every module finalised or
    object loaded later resolves those names to this code (kernels/library.py)."""
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


_THREAD = threading.local()


def _thread_target_machine(level: int) -> llvm.TargetMachine:
    """The host target machine of the calling thread (one per thread: LLVM's TargetMachine
    is not shared between threads that generate code at the same time)."""
    machines = getattr(_THREAD, "machines", None)
    if machines is None:
        machines = _THREAD.machines = {}
    tm = machines.get(level)
    if tm is None:
        tm = machines[level] = _new_host_target_machine(level)
    return tm


def compile_object(text: str, level: int = 3, slp: bool = True) -> bytes:
    """The host object of one LLVM module's IR text, made so that several threads compile
    modules at the same time: the module is parsed into an LLVM context of its own and
    compiled by this thread's own target machine and pass builder, and the three long calls
    (parsing, the optimiser, code generation) go to LLVM without llvmlite's lock. llvmlite
    serialises every call into LLVM with one process-wide lock (ffi._LLVMLock), which would
    make the threads take turns; LLVM itself compiles independent contexts concurrently (as
    ORC and ThinLTO do), and ctypes lets go of the GIL during the call. Level 0 generates code
    without optimising it; `slp` False leaves out the SLP vectoriser (half of O3's time on a
    big fused loop body, whose loop the loop vectoriser vectorises anyway)."""
    from ctypes import c_char_p, string_at

    from llvmlite.binding import ffi
    _initialise()
    context = llvm.create_context()
    with ffi.OutputString() as errmsg:
        mod = llvm.ModuleRef(_unlocked("LLVMPY_ParseAssembly")(context, c_char_p(text.encode()), errmsg), context)
        if errmsg:
            mod.close()
            context.close()
            raise RuntimeError(f"LLVM IR parsing error\n{errmsg}")
    try:
        mod.verify()
        tm = _thread_target_machine(0 if level == 0 else 3)
        if level > 0:
            run = _unlocked("LLVMPY_RunNewModulePassManager")
            _run_pipeline(mod, tm, level, slp, lambda mpm, pb: run(mpm, mod, pb))
        with ffi.OutputString() as outerr:
            buf = _unlocked("LLVMPY_TargetMachineEmitToMemory")(tm, mod, 1, outerr)
            if not buf:
                raise RuntimeError(str(outerr))
        try:
            return string_at(ffi.lib.LLVMPY_GetBufferStart(buf), ffi.lib.LLVMPY_GetBufferSize(buf))
        finally:
            ffi.lib.LLVMPY_DisposeMemoryBuffer(buf)
    finally:
        mod.close()
        context.close()


def _unlocked(name: str) -> Callable[..., object]:
    """llvmlite's ctypes function `name` without its lock (compile_object says when that is
    safe: objects of one thread's own context, target machine and pass builder)."""
    from llvmlite.binding import ffi
    fn = getattr(ffi.lib, name)
    return getattr(fn, "_cfn", fn)


def compile_objects(jobs: list[tuple[str, int, bool]], threads: int) -> list[bytes]:
    """compile_object of each (IR text, level, slp), on up to `threads` threads, in order."""
    if threads <= 1 or len(jobs) <= 1:
        return [compile_object(*job) for job in jobs]
    # the biggest first: the last to finish is then a small one
    order = sorted(range(len(jobs)), key=lambda k: -len(jobs[k][0]))
    out: list[bytes] = [b""] * len(jobs)
    with ObjectPool(threads) as pool:
        for k in order:
            pool.submit(k, *jobs[k])
        for key, data in pool.results().items():
            out[int(key)] = data  # type: ignore[call-overload]
    return out


class ObjectPool:
    """compile_object on worker threads while the caller goes on: the code generator hands
    each kernel's module over as soon as it is emitted, so LLVM compiles the first kernels
    while Python emits the next ones (the two overlap on two CPUs; compile_object runs LLVM
    without the GIL). One thread or fewer: each job is compiled when submitted."""

    def __init__(self, threads: int) -> None:
        self._pool = None
        if threads > 1:
            from concurrent.futures import ThreadPoolExecutor
            self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="hlotools-llvm")
        self._jobs: dict[object, object] = {}
        self.done = 0  # jobs compiled, of len(self._jobs) submitted (a progress line reads them)
        self._done_lock = threading.Lock()

    def submit(self, key: object, text: str, level: int, slp: bool) -> None:
        self._jobs[key] = (self._compile(text, level, slp) if self._pool is None
                           else self._pool.submit(self._compile, text, level, slp))

    def _compile(self, text: str, level: int, slp: bool) -> bytes:
        obj = compile_object(text, level, slp)
        with self._done_lock:  # counted before the job's result is seen
            self.done += 1
        return obj

    @property
    def submitted(self) -> int:
        return len(self._jobs)

    def results(self) -> dict[object, bytes]:
        """Every job's object, by key, in submission order (waits for them)."""
        return {k: (job if isinstance(job, bytes) else job.result())  # type: ignore[attr-defined]
                for k, job in self._jobs.items()}

    def __enter__(self) -> ObjectPool:
        ACTIVE_POOLS.add(self)
        return self

    def __exit__(self, *exc: object) -> None:
        ACTIVE_POOLS.discard(self)
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


# The pools compiling now, for a progress line ("LLVM: 3/12 kernels"): compile_progress.
ACTIVE_POOLS: weakref.WeakSet[ObjectPool] = weakref.WeakSet()


def compile_progress() -> tuple[int, int] | None:
    """(objects compiled, objects submitted) of the compiles under way, or None when there is none."""
    pools = list(ACTIVE_POOLS)
    if not pools:
        return None
    return sum(p.done for p in pools), sum(p.submitted for p in pools)


def link_texts(texts: list[str]) -> str:
    """One LLVM module's text holding the modules of `texts` linked together (an entry and the
    kernels it calls, for reading and for optimised_ir)."""
    _initialise()
    context = llvm.create_context()
    main = llvm.parse_assembly(texts[0], context=context)
    try:
        for text in texts[1:]:
            main.link_in(llvm.parse_assembly(text, context=context))
        return str(main)
    finally:
        main.close()
        context.close()


def optimised_ir(text: str, level: int = 3, tm: llvm.TargetMachine | None = None, slp: bool = True) -> str:
    mod = parse_ir(text)
    if level > 0:
        optimise(mod, tm or host_target_machine(), level, slp)
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


def host_triple() -> str:
    _initialise()
    return llvm.get_process_triple()


CFUNC_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


def load_object(data: bytes, tm: llvm.TargetMachine | None = None) -> JitModule:
    """An engine running a relocatable object made for this host (by `jit`, or read from the
    compile cache): no IR parsing, no optimisation, no code generation. Every undefined
    symbol of the object must resolve in the process first, since MCJIT aborts the process
    on a missing one.

    A payload of several objects (objfile.pack: an entry, then its kernels) loads each object
    into an engine of its own, kernels first, and the entry's calls resolve to the kernels'
    addresses registered just before it is finalised (under the lock, so no other load sees
    them first; a later load of the same kernel name registers its own). Not one engine for
    all: with the JIT's code model (large, data through _GLOBAL_OFFSET_TABLE_) RuntimeDyld
    relocates the second object's constants against the first one's table (measured: a
    kernel read another kernel's constants)."""
    from hlotools.backend.llvm.native.objfile import read_object, unpack

    _initialise()
    objects = unpack(data)
    infos = [read_object(o) for o in objects]
    provided = {s for info in infos[1:] for s in info.defined}
    for info in infos:
        missing = [s for s in info.undefined
                   if s not in _LINKER_DEFINED and s not in provided and llvm.address_of_symbol(s) is None]
        if missing:
            raise HloUnsupportedError(f"generated code needs symbols the process cannot resolve: {', '.join(sorted(missing))}")
    with _LOCK:
        parts = [_engine_of(o, None) for o in objects[1:]]
        for part, info in zip(parts, infos[1:]):
            for name in info.defined:
                addr = part.engine.get_function_address(name) or part.engine.get_global_value_address(name)
                if addr:
                    llvm.add_symbol(name, int(addr))
        entry = _engine_of(objects[0], tm)
    entry.parts = parts
    return entry


def _engine_of(obj: bytes, tm: llvm.TargetMachine | None) -> JitModule:
    """One object in an engine of its own (the caller holds _LOCK)."""
    empty = llvm.parse_assembly("")
    engine = llvm.create_mcjit_compiler(empty, tm or _new_host_target_machine())  # engines own their TM
    # MCJIT wants a module to be created with, and finalize_object would then run the code
    # generator on it (0.5 ms for nothing): taken out again, kept alive by the JitModule
    engine.remove_module(empty)
    ref = llvm.ObjectFileRef.from_data(obj)
    engine.add_object_file(ref)
    engine.finalize_object()
    return JitModule(engine, empty)


_LINKER_DEFINED = frozenset({"_GLOBAL_OFFSET_TABLE_"})  # provided by the (JIT) linker itself
