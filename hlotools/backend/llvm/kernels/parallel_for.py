"""Multithreading for generated code: a `parallel_for` emitted in LLVM IR itself, on top of
libc's pthread_create/pthread_join, which runs a worker function on chunks of a loop.

Why in IR and not a Python thread pool: the same code then works in AOT objects (which
only need libc) and a call costs a few thread creations (~10-30 us), never the GIL.

    void hlo.parallel_for(ptr fn, ptr ctx, i64 n)
        fn(ctx, begin, end) is called on disjoint chunks [begin, end) covering [0, n),
        claimed by the calling thread and detached helper threads through an atomic
        counter; the caller returns once every chunk is done (seq_cst counters: every
        write of a chunk happens before parallel_for returns).

Outlining a loop nest of the current function into a worker (`outlined`, `run_parallel`,
`parallel_loop_nest`) is code generation: codegen/outline.py.

The functions that do not depend on the module (parallel_for, its chunks, trampoline and
join, the pending-thread list and `hlotools_num_threads`) are the runtime library's group
"parallel" (kernels/library.py): while the JIT compiles (`runtime_library.external()`), a module
only declares `hlo.parallel_for` and the process-wide runtime, compiled once per machine,
defines it; AOT objects define everything inside (internal, weak exports), self-contained.

Safety: a failed pthread_create or malloc leaves the chunks to the calling thread (the
result never depends on threads); the number of threads is min(n, MAX_THREADS, threads()) where
threads() is the exported global `hlotools_num_threads` if the runtime set it (> 0), else
sysconf(_SC_NPROCESSORS_ONLN) (Linux), read once. Chunks write disjoint parts of the
result and only read operands, so there are no data races; work below a threshold stays
serial (`worth_parallel`). Workers never call parallel_for themselves (no nesting).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import JOIN_SYMBOL, PARALLEL_FOR
from hlotools.backend.llvm.kernels import library as runtime_library
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range
from hlotools.backend.llvm.native import targets
from hlotools.backend.llvm.native.host import MAX_THREADS, THREADS_GLOBAL, host_threads

# Below this many "element operations" (elements times the work per element) a kernel
# runs serially: thread creation and joining cost ~10-30 us per call.
MIN_PARALLEL_WORK = 1 << 18
# A GEMM's work unit is one multiply-add (~1/32 cycle vectorised): 16 Mi of them are
# ~200 us on one core, worth two thread creations even on a busy machine.
MIN_PARALLEL_GEMM = 1 << 24
WORKER_TYPE = ir.FunctionType(ir.VoidType(), [types.PTR, types.I64, types.I64])
PARALLEL_FOR_TYPE = ir.FunctionType(ir.VoidType(), [types.PTR, types.PTR, types.I64])


def enabled() -> bool:
    """HLOTOOLS_NUM_THREADS=1 turns generated multithreading off at compile time."""
    return os.environ.get("HLOTOOLS_NUM_THREADS", "") != "1"


_FORCED: ContextVar[bool] = ContextVar("hlotools_llvm_parallel_forced", default=False)


def worth_parallel(work: int, threshold: int = MIN_PARALLEL_WORK) -> bool:
    """Whether a kernel of `work` takes its parallel path: threads are enabled and the work is
    big enough — or a caller `forced()` it (emit_concurrent: every member of a concurrent set
    ends in its own parallel_for, which the set then merges into one)."""
    return enabled() and (work >= threshold or _FORCED.get())


@contextmanager
def forced() -> Iterator[None]:
    """While active, worth_parallel answers True whenever threads are enabled."""
    tok = _FORCED.set(True)
    try:
        yield
    finally:
        _FORCED.reset(tok)


def declare(module: ir.Module, name: str, fnty: ir.FunctionType) -> ir.Function:
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, fnty, name)
    return fn


def _threads_global(module: ir.Module, export: bool = False) -> ir.GlobalVariable:
    g = module.globals.get(THREADS_GLOBAL)
    if g is None:
        g = ir.GlobalVariable(module, types.I32, THREADS_GLOBAL)
        # several AOT objects in one program share it (no duplicate symbol); the runtime
        # library's is the only one of its process (or shared library)
        g.linkage = "" if export else "weak"
        g.initializer = ir.Constant(types.I32, 0)
        g.align = 4
    return g


# The shared state of one parallel_for call, on the heap (malloc) so that a thread the OS
# starts late can still read it after the caller returned: i64 slots.
S_FN, S_CTX, S_N, S_CHUNKS, S_NEXT, S_DONE, S_REFS = range(7)
STATE_BYTES = 8 * 8  # one cache line


PENDING = 4 * MAX_THREADS


def _pending_globals(module: ir.Module) -> tuple[ir.GlobalVariable, ir.GlobalVariable, ir.GlobalVariable]:
    def glob(name: str, ty: ir.Type, init: ir.Constant) -> ir.GlobalVariable:
        g = module.globals.get(name)
        if g is None:
            g = ir.GlobalVariable(module, ty, name)
            g.linkage = "internal"
            g.initializer = init
        return g
    arr = ir.ArrayType(types.I64, PENDING)
    return (glob("hlo.par.pending", arr, ir.Constant(arr, [0] * PENDING)),
            glob("hlo.par.npending", types.I64, ir.Constant(types.I64, 0)),
            glob("hlo.par.lock", types.I32, ir.Constant(types.I32, 0)))


def _join_functions(module: ir.Module, export: bool = False) -> tuple[ir.Function, ir.Function]:
    """(add_pending(tid), join_pending()) under a spin lock, and the exported
    `hlotools_parallel_join` the JIT runtime calls before it frees the code: helper threads
    are joined late (at the next parallel_for or then), never waited for at the end of a
    call, but they run code of this module, which must outlive them."""
    existing = module.globals.get("hlo.par.join_pending")
    if existing is not None:
        return module.globals["hlo.par.add_pending"], existing
    pending, npending, lock = _pending_globals(module)
    join = declare(module, "pthread_join", ir.FunctionType(types.I32, [types.I64, types.PTR]))
    yield_ = declare(module, "sched_yield", ir.FunctionType(types.I32, []))

    own = _owner_function(module, npending, lock, yield_)

    def locked(fn: ir.Function, body: Callable[[ir.IRBuilder], None]) -> None:
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        b.call(own, [])
        spin = fn.append_basic_block("spin")
        wait = fn.append_basic_block("wait")
        got = fn.append_basic_block("locked")
        b.branch(spin)
        b.position_at_end(spin)
        pair = b.cmpxchg(lock, ir.Constant(types.I32, 0), ir.Constant(types.I32, 1), "acquire", "monotonic")
        b.cbranch(b.extract_value(pair, 1), got, wait)
        b.position_at_end(wait)
        b.call(yield_, [])
        b.branch(spin)
        b.position_at_end(got)
        body(b)
        b.store_atomic(ir.Constant(types.I32, 0), lock, "release", 4)
        b.ret_void()

    def slot(b: ir.IRBuilder, i: ir.Value) -> ir.Value:
        return b.gep(b.bitcast(pending, types.I64.as_pointer()), [i])

    jp = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "hlo.par.join_pending")
    jp.linkage = "internal"

    def join_all(b: ir.IRBuilder) -> None:
        n = b.load(npending, typ=types.I64)
        with for_range(b, 0, n, name="j") as i:
            b.call(join, [b.load(slot(b, i), typ=types.I64), ir.Constant(types.PTR, None)])
        b.store(c64(0), npending)
    locked(jp, join_all)

    ap = ir.Function(module, ir.FunctionType(ir.VoidType(), [types.I64]), "hlo.par.add_pending")
    ap.linkage = "internal"

    def add(b: ir.IRBuilder) -> None:
        n = b.load(npending, typ=types.I64)
        with b.if_else(b.icmp_signed("<", n, c64(PENDING))) as (then, other):
            with then:
                b.store(ap.args[0], slot(b, n))
                b.store(b.add(n, c64(1)), npending)
            with other:  # full (concurrent callers): join this one now
                b.call(join, [ap.args[0], ir.Constant(types.PTR, None)])
    locked(ap, add)

    ex = ir.Function(module, ir.FunctionType(ir.VoidType(), []), JOIN_SYMBOL)
    # AOT objects linked together: any one will do (their code never unmaps)
    ex.linkage = "" if export else "weak"
    b = ir.IRBuilder(ex.append_basic_block("entry"))
    b.call(jp, [])
    b.ret_void()
    return ap, jp


def _owner_function(module: ir.Module, npending: ir.GlobalVariable, lock: ir.GlobalVariable,
                    yield_: ir.Function) -> ir.Function:
    """`hlo.par.own()`, run before the pending list's lock is taken: the list belongs to the
    process whose getpid() is in `hlo.par.pid`. A child made by fork() (multiprocessing's
    default on Linux) inherits the parent's list of helper threads that do not exist in it, and
    pthread_join on them crashed the child at its first threaded call; so another process
    first forgets the list (and a lock some parent thread held at the fork). The first caller
    of a process claims it (pid -1 while it resets; 0: never used, nothing to forget)."""
    pid = ir.GlobalVariable(module, types.I32, "hlo.par.pid")
    pid.linkage = "internal"
    pid.initializer = ir.Constant(types.I32, 0)
    getpid = declare(module, "getpid", ir.FunctionType(types.I32, []))
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), []), "hlo.par.own")
    fn.linkage = "internal"
    entry, check, other, claim, busy, forget, forked, publish, done = (fn.append_basic_block(n) for n in (
        "entry", "check", "other", "claim", "busy", "forget", "forked", "publish", "done"))
    b = ir.IRBuilder(entry)
    me = b.call(getpid, [])
    b.branch(check)
    b.position_at_end(check)
    cur = b.load_atomic(pid, "acquire", 4, typ=types.I32)
    b.cbranch(b.icmp_signed("==", cur, me), done, other)
    resetting = ir.Constant(types.I32, -1)
    b.position_at_end(other)
    b.cbranch(b.icmp_signed("==", cur, resetting), busy, claim)
    b.position_at_end(claim)
    pair = b.cmpxchg(pid, cur, resetting, "acq_rel", "acquire")
    b.cbranch(b.extract_value(pair, 1), forget, busy)
    b.position_at_end(busy)  # another thread of this process is claiming it
    b.call(yield_, [])
    b.branch(check)
    b.position_at_end(forget)
    b.cbranch(b.icmp_signed("!=", cur, ir.Constant(types.I32, 0)), forked, publish)
    b.position_at_end(forked)  # the parent's threads: none of them is ours to join
    b.store(c64(0), npending)
    b.store_atomic(ir.Constant(types.I32, 0), lock, "release", 4)
    b.branch(publish)
    b.position_at_end(publish)
    b.store_atomic(me, pid, "release", 4)
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()
    return fn


def join_at_release(owner: object, jit_module: object, runtime: object | None = None) -> None:
    """Call `hlotools_parallel_join` when `owner` is collected, keeping the JIT engine (the
    code helper threads run) alive until then, for a module defining its own parallel_for.
    A module calling the runtime library's (`runtime`: the JitModule of its group
    "parallel", kept for the process's life) needs no join: the pool's workers run a
    module's code only while one of its calls runs, and joining would stop the pool every
    other module shares. Either way the runtime that runs the module learns host_threads()."""
    import ctypes
    import weakref
    engine = getattr(jit_module, "engine", None)
    addr = _join_address(engine)
    if not addr and runtime is not None:
        _set_threads(getattr(runtime, "engine", None))
        return
    _set_threads(engine)
    if not addr:
        return
    fn = ctypes.CFUNCTYPE(None)(addr)
    weakref.finalize(owner, _join_then_release, fn, jit_module)


def _join_address(engine: object) -> int:
    try:
        return int(engine.get_function_address(JOIN_SYMBOL) or 0) if engine is not None else 0  # type: ignore[attr-defined]
    except RuntimeError:  # llvmlite: the engine is closed (a missing symbol is address 0)
        return 0


def _set_threads(engine: object) -> None:
    """Tell the module's parallel_for how many threads to use (host_threads(): the CPUs
    this process may run on, or $HLOTOOLS_NUM_THREADS) instead of sysconf's online CPUs."""
    import ctypes
    try:
        addr = engine.get_global_value_address(THREADS_GLOBAL) if engine is not None else 0  # type: ignore[attr-defined]
    except RuntimeError:  # llvmlite: the engine is closed (no parallel loops: address 0)
        addr = 0
    if addr:
        ctypes.c_int32.from_address(addr).value = host_threads()


def _join_then_release(fn: Callable[[], None], jit_module: object) -> None:
    fn()
    del jit_module


def parallel_for_function(module: ir.Module) -> ir.Function:
    """`hlo.parallel_for` of this module: a declaration of the runtime library's while the JIT
    compiles (runtime_library.external()), else defined in the module (internal)."""
    existing = module.globals.get(PARALLEL_FOR)
    if existing is not None:
        return existing
    if runtime_library.external():
        return ir.Function(module, PARALLEL_FOR_TYPE, PARALLEL_FOR)
    return _define_parallel_for(module, export=False)


def define_runtime(module: ir.Module) -> list[str]:
    """The runtime library's group "parallel": everything parallel_for needs, defined in
    `module` with external linkage for what modules and the runtime call. Returns those
    symbols."""
    _define_parallel_for(module, export=True)
    return [PARALLEL_FOR, JOIN_SYMBOL, THREADS_GLOBAL]


def _define_parallel_for(module: ir.Module, export: bool) -> ir.Function:
    """`hlo.parallel_for`: the persistent worker pool of kernels/thread_pool.py (threads created
    once, ~0.2 us per call instead of ~40 us of thread creation; imported here because it
    imports this file). `_define_spawning_parallel_for` below is the earlier
    thread-per-call version, kept as the pool's reference in tests and benchmarks."""
    from hlotools.backend.llvm.kernels.thread_pool import pool_parallel_for_function
    return pool_parallel_for_function(module, export=export)


def define_spawning_parallel_for(module: ir.Module, export: bool) -> ir.Function:
    """`hlo.parallel_for` and its thread body, built once per LLVM module.

    Work is split into chunks (4 per thread) that threads *claim* with an atomic counter;
    the caller claims chunks too, then waits (sched_yield) only for chunks other threads
    are running. A thread the OS schedules late finds no chunk left and just leaves, so a
    busy machine costs at most the thread creations, never a wait for a thread that has
    not started (joining at the end made 2 threads slower than 1 under load): threads are
    joined at the start of the next call, or by `hlotools_parallel_join`. The state is
    reference counted; the last one out frees it."""
    # the host's row: the 32-bit targets' narrower pthread_t is not modelled (see native/targets.py)
    pthread_t = ir.IntType(targets.host().pthread_t_bits)
    i64p = types.I64.as_pointer()
    create = declare(module, "pthread_create", ir.FunctionType(types.I32, [types.PTR, types.PTR, types.PTR, types.PTR]))
    add_pending, join_pending = _join_functions(module, export)
    sysconf = declare(module, "sysconf", ir.FunctionType(types.I64, [types.I32]))
    malloc = declare(module, "malloc", ir.FunctionType(types.PTR, [types.I64]))
    free = declare(module, "free", ir.FunctionType(ir.VoidType(), [types.PTR]))
    yield_ = declare(module, "sched_yield", ir.FunctionType(types.I32, []))
    gthreads = _threads_global(module, export)

    def slot(b: ir.IRBuilder, st: ir.Value, k: int) -> ir.Value:
        return b.gep(st, [c64(k)], source_etype=types.I64)

    # run_chunks(state): claim and run chunks until none is left
    run = ir.Function(module, ir.FunctionType(ir.VoidType(), [i64p]), "hlo.parallel_chunks")
    run.linkage = "internal"
    st = run.args[0]
    b = ir.IRBuilder(run.append_basic_block("entry"))
    fn = b.inttoptr(b.load(slot(b, st, S_FN), typ=types.I64), types.PTR)
    ctx = b.inttoptr(b.load(slot(b, st, S_CTX), typ=types.I64), types.PTR)
    n = b.load(slot(b, st, S_N), typ=types.I64)
    chunks = b.load(slot(b, st, S_CHUNKS), typ=types.I64)
    loop = run.append_basic_block("claim")
    body = run.append_basic_block("run")
    out = run.append_basic_block("out")
    b.branch(loop)
    b.position_at_end(loop)
    c = b.atomic_rmw("add", slot(b, st, S_NEXT), c64(1), "seq_cst")
    b.cbranch(b.icmp_signed("<", c, chunks), body, out)
    b.position_at_end(body)
    lo = b.sdiv(b.mul(c, n), chunks)
    hi = b.sdiv(b.mul(b.add(c, c64(1)), n), chunks)
    b.call(as_worker(b, fn), [ctx, lo, hi])
    b.atomic_rmw("add", slot(b, st, S_DONE), c64(1), "seq_cst")
    b.branch(loop)
    b.position_at_end(out)
    b.ret_void()

    def release(b: ir.IRBuilder, st: ir.Value) -> None:
        old = b.atomic_rmw("sub", slot(b, st, S_REFS), c64(1), "seq_cst")
        with b.if_then(b.icmp_signed("==", old, c64(1))):
            b.call(free, [b.bitcast(st, types.PTR)])

    tramp = ir.Function(module, ir.FunctionType(types.PTR, [types.PTR]), "hlo.parallel_trampoline")
    tramp.linkage = "internal"
    b = ir.IRBuilder(tramp.append_basic_block("entry"))
    st = b.bitcast(tramp.args[0], i64p)
    b.call(run, [st])
    release(b, st)
    b.ret(ir.Constant(types.PTR, None))

    pf = ir.Function(module, PARALLEL_FOR_TYPE, PARALLEL_FOR)
    pf.linkage = "" if export else "internal"
    fn, ctx, n = pf.args
    entry = pf.append_basic_block("entry")
    b = ir.IRBuilder(entry)
    tid = b.alloca(pthread_t, name="tid")
    b.call(join_pending, [])  # the previous call's threads (long finished, normally)
    nt64 = thread_count(b, pf, sysconf, gthreads, n)
    serial = pf.append_basic_block("serial")
    try_par = pf.append_basic_block("alloc")
    par = pf.append_basic_block("parallel")
    b.cbranch(b.icmp_signed("<=", nt64, c64(1)), serial, try_par)
    b.position_at_end(serial)
    with b.if_then(b.icmp_signed(">", n, c64(0))):
        b.call(as_worker(b, fn), [ctx, c64(0), n])
    b.ret_void()
    b.position_at_end(try_par)
    raw = b.call(malloc, [c64(STATE_BYTES)])
    b.cbranch(b.icmp_unsigned("==", b.ptrtoint(raw, types.I64), c64(0)), serial, par)
    b.position_at_end(par)
    st = b.bitcast(raw, i64p)
    chunks = b.mul(nt64, c64(4))
    chunks = b.select(b.icmp_signed(">", chunks, n), n, chunks)
    for k, v in ((S_FN, b.ptrtoint(fn, types.I64)), (S_CTX, b.ptrtoint(ctx, types.I64)), (S_N, n), (S_CHUNKS, chunks),
                 (S_NEXT, c64(0)), (S_DONE, c64(0)), (S_REFS, nt64)):
        b.store(v, slot(b, st, k))
    spawn = pf.append_basic_block("spawn")
    spawned = pf.append_basic_block("spawned")
    b.branch(spawn)
    b.position_at_end(spawn)
    i = b.phi(types.I64)
    i.add_incoming(c64(1), par)
    rc = b.call(create, [tid, ir.Constant(types.PTR, None), tramp, raw])
    ok = b.icmp_signed("==", rc, ir.Constant(types.I32, 0))
    with b.if_else(ok) as (then, other):
        with then:
            b.call(add_pending, [b.load(tid, typ=pthread_t)])
        with other:  # no thread: one reference fewer (the caller runs its chunks)
            b.atomic_rmw("sub", slot(b, st, S_REFS), c64(1), "seq_cst")
    nxt = b.add(i, c64(1))
    i.add_incoming(nxt, b.block)
    b.cbranch(b.icmp_signed("<", nxt, nt64), spawn, spawned)
    b.position_at_end(spawned)
    b.call(run, [st])
    wait = pf.append_basic_block("wait")
    waited = pf.append_basic_block("waited")
    b.branch(wait)
    b.position_at_end(wait)
    done = b.load_atomic(slot(b, st, S_DONE), "seq_cst", 8, typ=types.I64)
    more = b.icmp_signed("<", done, chunks)
    spin = pf.append_basic_block("spin")
    b.cbranch(more, spin, waited)
    b.position_at_end(spin)
    b.call(yield_, [])
    b.branch(wait)
    b.position_at_end(waited)
    release(b, st)
    b.ret_void()
    return pf


def thread_count(b: ir.IRBuilder, fn: ir.Function, sysconf: ir.Function, gthreads: ir.GlobalVariable,
                 n: ir.Value) -> ir.Value:
    """min(n, MAX_THREADS, threads()): the global `hlotools_num_threads` if > 0, else
    sysconf's online CPUs, stored back (an atomic store: racing first calls agree)."""
    entry = b.block
    cur = b.load_atomic(gthreads, "monotonic", 4, typ=types.I32)
    ask = fn.append_basic_block("ask")
    have = fn.append_basic_block("have")
    b.cbranch(b.icmp_signed(">", cur, ir.Constant(types.I32, 0)), have, ask)
    b.position_at_end(ask)
    got = b.call(sysconf, [ir.Constant(types.I32, targets.host().sc_nprocessors_onln)])
    got = b.select(b.icmp_signed("<", got, c64(1)), c64(1), got)
    got = b.select(b.icmp_signed(">", got, c64(MAX_THREADS)), c64(MAX_THREADS), got)
    got32 = b.trunc(got, types.I32)
    b.store_atomic(got32, gthreads, "monotonic", 4)
    b.branch(have)
    b.position_at_end(have)
    nt = b.phi(types.I32)
    nt.add_incoming(cur, entry)
    nt.add_incoming(got32, ask)
    nt64 = b.sext(nt, types.I64)
    nt64 = b.select(b.icmp_signed(">", nt64, c64(MAX_THREADS)), c64(MAX_THREADS), nt64)
    return b.select(b.icmp_signed(">", nt64, n), n, nt64)


def as_worker(b: ir.IRBuilder, fnptr: ir.Value) -> ir.Value:
    """An opaque pointer called as a worker (llvmlite calls through a typed callee)."""
    return _Callee(fnptr)


class _Callee:
    """Lets IRBuilder.call emit an indirect call through an opaque pointer."""

    function_type = WORKER_TYPE

    def __init__(self, ptr: ir.Value) -> None:
        self.ptr = ptr

    def __getattr__(self, name: str) -> object:
        return getattr(self.ptr, name)
