"""A persistent worker pool behind generated code's `parallel_for`, emitted in LLVM IR on
top of libc only (pthread_create/pthread_join, syscall(SYS_futex), clock_gettime, getpid,
sched_yield, usleep, sysconf, uname).

parallel.parallel_for_function starts fresh threads on every call (~10-30 us each), which
made small kernels slower on two threads than on one and kept per-step kernels of while
loops serial. Here the threads stay: between calls they watch a futex word for a bounded
time (the exported `hlotools_pool_spin_ns`, DEFAULT_SPIN_NS; yielding the CPU while they
watch), then sleep on it (FUTEX_WAIT_PRIVATE), so an idle pool costs no CPU beyond the spin.

    void <name>(ptr fn, ptr ctx, i64 n)      the same contract as kernels/parallel_for.py's:
        fn(ctx, begin, end) runs on disjoint chunks covering [0, n) (4 per thread), claimed
        through an atomic counter by the caller and the pool's workers; the thread count is
        min(n, MAX_THREADS, threads()) with threads() the exported `hlotools_num_threads` if
        > 0, else sysconf(_SC_NPROCESSORS_ONLN); every write of a chunk happens before the
        call returns.
    void hlotools_parallel_join()            stop and join every worker (before the module's
        code is freed); the pool is started again on next use.

One call at a time owns the pool (a try-lock); a concurrent call from another thread, or a
nested call from inside a chunk, runs its whole range serially instead of waiting. The job
is published as one 64-bit word, nactive << 32 | chunks << 16 | claimed: a thread claims
chunk `claimed` by a compare-and-swap of that word (so it only ever claims a chunk of the job
that is current at that instant, whatever it saw before) and reads fn, ctx and n after the
claim (the job cannot end, so they cannot change, while one of its chunks is unfinished).
Workers numbered above `nactive` sit a job out (the thread count went down, or n is small).
The caller never waits for a worker to wake up: it claims chunks itself and then waits only
for chunks other threads have claimed. A failed pthread_create means fewer workers (and no
retry until the next join); after fork() the child sees another pid than the one that made
the pool, forgets the parent's workers and starts its own. On x86 the owner's MXCSR goes with
the job (workers load it before their chunks), so XLA CPU's FTZ/DAZ reach every thread. SYS_futex comes from the module's
triple, or from uname() at run time when the module has none yet (the JIT's; AOT's, whose
triple aot.py sets after codegen); no known number means no workers (calls run serially).
"""
from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import JOIN_SYMBOL
from hlotools.backend.llvm.kernels.parallel_for import MAX_THREADS, THREADS_GLOBAL, as_worker, thread_count
from hlotools.backend.llvm.kernels.pool_libc import (
    FUTEX_WAIT_PRIVATE,
    FUTEX_WAKE_PRIVATE,
    UNAME_MACHINES,
    UTSNAME_BYTES,
    UTSNAME_MACHINE,
    _blocks,
    _i32,
    _internal,
    _Libc,
    _libc,
    _lock_blocking,
    _now_ns,
    _pause,
    futex_syscall_number,
    target_arch,
)
from hlotools.backend.llvm.llvm_ir import denormals, types
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range
from hlotools.errors import HloUnsupportedError

SPIN_GLOBAL = "hlotools_pool_spin_ns"
# How long an idle worker watches for the next job before it sleeps. Measured on the 2-core
# test machine: a sleeping worker starts its first chunk 10-40 us after the caller's
# FUTEX_WAKE, a watching one within 2 us; spinning up to about the cost of sleeping (the
# usual spin-then-block rule) keeps back-to-back kernels (a while loop's steps) on awake
# workers while an idle pool burns at most this much CPU after a call.
DEFAULT_SPIN_NS = 50_000
# The watch loop calls sched_yield rather than a pause hint: on a loaded machine a watcher
# otherwise holds the CPU a caller that shares it needs (load ~5 on 2 cores, medians of 80,
# pause -> yield: big_layernorm_softmax 0.76 -> 0.69 ms, big_scan_lstm 15.6 -> 12.9 ms, and
# less CPU); awake workers still see a job within ~1 us.
WATCH_WITH_YIELD = True
INT_MAX = 0x7FFFFFFF
CHUNKS_PER_THREAD = 4
# Polls of the done counter with a pause hint before the caller yields its CPU instead.
WAIT_PAUSES = 256


@dataclass(frozen=True)
class _Pool:
    """The IR globals of one pool (internal to its module: its workers run this module's code)."""

    lock: ir.GlobalVariable      # i32: 1 while a call owns the pool
    pid: ir.GlobalVariable       # i32: the process the state belongs to (0: never used, -pid: resetting)
    workers: ir.GlobalVariable   # i64: workers started (indices 1..workers), under the lock
    limit: ir.GlobalVariable     # i64: most workers to start (lowered when pthread_create fails)
    stop: ir.GlobalVariable      # i32: 1 while join stops the workers
    wake: ir.GlobalVariable      # i32: the futex word, bumped for every job and for stop
    sleepers: ir.GlobalVariable  # i32: workers in (or about to enter) FUTEX_WAIT
    word: ir.GlobalVariable      # i64: nactive << 32 | chunks << 16 | claimed
    done: ir.GlobalVariable      # i64: chunks finished in the current job
    fn: ir.GlobalVariable        # ptr: the current job (written before `word` is published)
    ctx: ir.GlobalVariable       # ptr
    n: ir.GlobalVariable         # i64
    tids: ir.GlobalVariable      # [MAX_THREADS x i64]: pthread_t of worker i + 1 at i
    spin: ir.GlobalVariable      # i64: exported spin time in ns
    sysno: ir.GlobalVariable     # i64: SYS_futex (-1: ask uname() when the pool starts; 0: none)
    mxcsr: ir.GlobalVariable | None  # i32: the owner's MXCSR, adopted by the workers (x86 only)


def pool_parallel_for_function(module: ir.Module, name: str = "hlo.parallel_for",
                               export: bool = False) -> ir.Function:
    """`name(ptr fn, ptr ctx, i64 n)` backed by a persistent pool, plus the exported
    `hlotools_parallel_join`; built once per (module, name). `export`: for a runtime library
    (one per process): `name`, the join and the globals get external linkage; otherwise
    `name` is internal and the exports weak (AOT objects linked together). For an
    architecture without a known futex number, kernels/parallel_for.py's thread-per-call version (same
    contract) instead.

    Workers touch a module's code only while one of its calls runs, so with one pool in a
    runtime library a module's code may be freed without a join once its calls returned."""
    existing = module.globals.get(name)
    if existing is not None:
        assert isinstance(existing, ir.Function)
        return existing
    futex = futex_syscall_number(module)
    if futex is None:
        if name == "hlo.parallel_for":
            from hlotools.backend.llvm.kernels.parallel_for import define_spawning_parallel_for
            return define_spawning_parallel_for(module, export)
        raise HloUnsupportedError(f"parallel_for pool: no futex syscall number for target {module.triple!r}")
    pool = _globals(module, name, export, futex)
    libc = _libc(module, target_arch(module))
    own = _own_function(module, name, pool, libc)
    chunks = _chunks_function(module, name, pool)
    worker = _worker_function(module, name, pool, libc, chunks)
    grow = _grow_function(module, name, pool, libc, worker)
    _export_join(module, _join_function(module, name, pool, libc, own), export)
    gthreads = _exported_global(module, THREADS_GLOBAL, types.I32, 0, export)
    pf = _parallel_for(module, name, pool, libc, own, chunks, grow, gthreads)
    pf.linkage = "" if export else "internal"
    return pf


# ----------------------------------------------------------------------------- declarations

def _globals(module: ir.Module, name: str, export: bool, futex: int) -> _Pool:
    def glob(field: str, ty: ir.Type, init: object, align: int = 8) -> ir.GlobalVariable:
        g = ir.GlobalVariable(module, ty, f"{name}.pool.{field}")
        g.linkage = "internal"
        g.initializer = ir.Constant(ty, init)
        g.align = align
        return g
    i32, i64 = types.I32, types.I64
    tids = ir.ArrayType(i64, MAX_THREADS)
    return _Pool(lock=glob("lock", i32, 0, 64), pid=glob("pid", i32, 0, 4), workers=glob("workers", i64, 0),
                 limit=glob("limit", i64, MAX_THREADS - 1), stop=glob("stop", i32, 0, 4),
                 wake=glob("wake", i32, 0, 64), sleepers=glob("sleepers", i32, 0, 4),
                 word=glob("word", i64, 0, 64), done=glob("done", i64, 0, 64),
                 fn=glob("fn", types.PTR, None, 64), ctx=glob("ctx", types.PTR, None), n=glob("n", i64, 0),
                 tids=glob("tids", tids, [0] * MAX_THREADS, 64),
                 spin=_spin_global(module, export), sysno=glob("sysno", i64, futex),
                 mxcsr=glob("mxcsr", i32, 0x1F80, 4) if denormals.is_x86(module, assume_host=False) else None)


def _spin_global(module: ir.Module, export: bool) -> ir.GlobalVariable:
    """`hlotools_pool_spin_ns`: weak in a module (benchmarks and tests tune it through the
    engine); internal in a runtime library, whose exports stay kernels/parallel_for.py's three
    (parallel_for, the join, hlotools_num_threads)."""
    g = _exported_global(module, SPIN_GLOBAL, types.I64, DEFAULT_SPIN_NS, False)
    if export:
        g.linkage = "internal"
    return g


def _exported_global(module: ir.Module, name: str, ty: ir.IntType, init: int, export: bool) -> ir.GlobalVariable:
    """A global the runtime sets (hlotools_num_threads): weak unless
    `export` (several AOT objects in one program share it; a runtime library has the one
    of its process). The same name and type as kernels/parallel_for.py's, so either may create it."""
    g = module.globals.get(name)
    if g is None:
        g = ir.GlobalVariable(module, ty, name)
        g.linkage = "" if export else "weak"
        g.initializer = ir.Constant(ty, init)
        g.align = ty.width // 8
    assert isinstance(g, ir.GlobalVariable)
    return g


def _futex(b: ir.IRBuilder, libc: _Libc, pool: _Pool, op: int, val: ir.Value) -> None:
    """syscall(SYS_futex, &wake, op, val, NULL, NULL, 0), every argument a full register
    (syscall() is variadic: an i32 would leave the upper half undefined). Only reached with
    workers, so `sysno` is known (> 0)."""
    null = ir.Constant(types.PTR, None)
    sysno = b.load_atomic(pool.sysno, "monotonic", 8, typ=types.I64)
    b.call(libc.syscall, [sysno, pool.wake, c64(op), val, null, null, c64(0)])


# ----------------------------------------------------------------------------- pieces

def _own_function(module: ir.Module, name: str, pool: _Pool, libc: _Libc) -> ir.Function:
    """`own()`, run before the lock is touched: the state belongs to the process whose pid is
    in `pid`. A child made by fork() has none of the parent's workers (and may have copied a
    lock some parent thread held), so another process first resets the pool; the first caller
    of a process claims it (0: never used, nothing to forget). While a thread resets, `pid`
    is minus its process's pid: other threads of that process wait, while a child forked in
    that instant sees another process's mark and claims the pool for itself."""
    fn = _internal(module, f"{name}.pool.own", ir.VoidType(), [])
    entry, check, other, claim, busy, forget, forked, publish, done = _blocks(
        fn, "entry", "check", "other", "claim", "busy", "forget", "forked", "publish", "done")
    b = ir.IRBuilder(entry)
    me = b.call(libc.getpid, [])
    mark = b.neg(me)
    b.branch(check)
    b.position_at_end(check)
    cur = b.load_atomic(pool.pid, "acquire", 4, typ=types.I32)
    b.cbranch(b.icmp_signed("==", cur, me), done, other)
    b.position_at_end(other)
    b.cbranch(b.icmp_signed("==", cur, mark), busy, claim)
    b.position_at_end(claim)
    pair = b.cmpxchg(pool.pid, cur, mark, "acq_rel", "acquire")
    b.cbranch(b.extract_value(pair, 1), forget, busy)
    b.position_at_end(busy)  # another thread of this process is claiming it
    b.call(libc.yield_, [])
    b.branch(check)
    b.position_at_end(forget)
    b.cbranch(b.icmp_signed("!=", cur, _i32(0)), forked, publish)
    b.position_at_end(forked)  # the parent's workers do not exist here
    for g, v in ((pool.workers, c64(0)), (pool.limit, c64(MAX_THREADS - 1)), (pool.word, c64(0)),
                 (pool.done, c64(0))):
        b.store_atomic(v, g, "monotonic", 8)
    for g32 in (pool.stop, pool.sleepers, pool.lock):
        b.store_atomic(_i32(0), g32, "monotonic", 4)
    b.branch(publish)
    b.position_at_end(publish)
    b.store_atomic(me, pool.pid, "release", 4)
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()
    return fn


def _chunks_function(module: ir.Module, name: str, pool: _Pool) -> ir.Function:
    """`chunks(i64 me)`: claim and run chunks of the current job until none is left (or `me`,
    a worker's index, is above the job's nactive; the caller is 0)."""
    fn = _internal(module, f"{name}.pool.chunks", ir.VoidType(), [types.I64])
    me = fn.args[0]
    entry, loop, try_, run, out = _blocks(fn, "entry", "loop", "try", "run", "out")
    b = ir.IRBuilder(entry)
    b.branch(loop)
    b.position_at_end(loop)
    w = b.load_atomic(pool.word, "monotonic", 8, typ=types.I64)
    claimed = b.and_(w, c64(0xFFFF))
    chunks = b.and_(b.lshr(w, c64(16)), c64(0xFFFF))
    nactive = b.lshr(w, c64(32))
    ok = b.and_(b.icmp_unsigned("<", claimed, chunks), b.icmp_unsigned("<=", me, nactive))
    b.cbranch(ok, try_, out)
    b.position_at_end(try_)
    pair = b.cmpxchg(pool.word, w, b.add(w, c64(1)), "acq_rel", "monotonic")
    b.cbranch(b.extract_value(pair, 1), run, loop)
    b.position_at_end(run)  # chunk `claimed` is ours: the job stays until we finish it
    f = b.load(pool.fn, typ=types.PTR)
    ctx = b.load(pool.ctx, typ=types.PTR)
    n = b.load(pool.n, typ=types.I64)
    if pool.mxcsr is not None:  # the caller's rounding and FTZ/DAZ bits (denormals.py) for its chunks
        denormals.write_mxcsr(b, pool.mxcsr)
    lo = b.udiv(b.mul(claimed, n), chunks)
    hi = b.udiv(b.mul(b.add(claimed, c64(1)), n), chunks)
    b.call(as_worker(b, f), [ctx, lo, hi])
    b.atomic_rmw("add", pool.done, c64(1), "release")
    b.branch(loop)
    b.position_at_end(out)
    b.ret_void()
    return fn


def _worker_function(module: ir.Module, name: str, pool: _Pool, libc: _Libc, chunks: ir.Function) -> ir.Function:
    """A worker thread's main(ptr index): run the current job's chunks, then watch the futex
    word for the next job for `spin` ns and sleep on it after that; leave when `stop` is set.
    The word is read before the claims, so a job published meanwhile is never missed."""
    fn = _internal(module, f"{name}.pool.worker", types.PTR, [types.PTR])
    entry, top, wait, spin, check_time, sleep, do_wait, woke, leave = _blocks(
        fn, "entry", "top", "wait", "spin", "time", "sleep", "futex", "woke", "leave")
    b = ir.IRBuilder(entry)
    me = b.ptrtoint(fn.args[0], types.I64)
    ts = b.alloca(ir.ArrayType(types.I64, 2), name="ts")
    b.branch(top)
    b.position_at_end(top)
    seen = b.load_atomic(pool.wake, "acquire", 4, typ=types.I32)
    b.call(chunks, [me])
    t0 = _now_ns(b, libc, ts)
    b.branch(wait)
    b.position_at_end(wait)
    stopping = b.load_atomic(pool.stop, "acquire", 4, typ=types.I32)
    b.cbranch(b.icmp_signed("!=", stopping, _i32(0)), leave, spin)
    b.position_at_end(spin)
    now_word = b.load_atomic(pool.wake, "acquire", 4, typ=types.I32)
    b.cbranch(b.icmp_signed("!=", now_word, seen), top, check_time)
    b.position_at_end(check_time)
    if WATCH_WITH_YIELD:
        b.call(libc.yield_, [])  # polite: a caller sharing this CPU gets it back at once
    else:
        _pause(b, libc)
    limit = b.load_atomic(pool.spin, "monotonic", 8, typ=types.I64)
    b.cbranch(b.icmp_signed("<", b.sub(_now_ns(b, libc, ts), t0), limit), wait, sleep)
    b.position_at_end(sleep)  # announce, then check again (the publisher bumps wake, then reads sleepers)
    b.atomic_rmw("add", pool.sleepers, _i32(1), "seq_cst")
    again = b.load_atomic(pool.wake, "seq_cst", 4, typ=types.I32)
    stopping = b.load_atomic(pool.stop, "seq_cst", 4, typ=types.I32)
    quiet = b.and_(b.icmp_signed("==", again, seen), b.icmp_signed("==", stopping, _i32(0)))
    b.cbranch(quiet, do_wait, woke)
    b.position_at_end(do_wait)  # the kernel sleeps only while wake still equals `seen`
    _futex(b, libc, pool, FUTEX_WAIT_PRIVATE, b.zext(seen, types.I64))
    b.branch(woke)
    b.position_at_end(woke)
    b.atomic_rmw("sub", pool.sleepers, _i32(1), "seq_cst")
    b.branch(wait)
    b.position_at_end(leave)
    b.ret(ir.Constant(types.PTR, None))
    return fn


def _sysno_function(module: ir.Module, name: str, pool: _Pool, libc: _Libc) -> ir.Function:
    """`sysno() -> i64`: SYS_futex, asked of uname() the first time when the module had no
    triple (0: a machine UNAME_MACHINES does not know, or uname failed: no workers)."""
    fn = _internal(module, f"{name}.pool.ask_sysno", types.I64, [])
    entry, ask, known = _blocks(fn, "entry", "ask", "known")
    b = ir.IRBuilder(entry)
    cur = b.load_atomic(pool.sysno, "monotonic", 8, typ=types.I64)
    b.cbranch(b.icmp_signed("<", cur, c64(0)), ask, known)
    b.position_at_end(known)
    b.ret(cur)
    b.position_at_end(ask)
    buf = b.alloca(ir.ArrayType(types.I8, UTSNAME_BYTES), name="utsname")
    buf.align = 8
    rc = b.call(libc.uname, [buf])
    machine = b.load(b.gep(buf, [c64(UTSNAME_MACHINE)], source_etype=types.I8), typ=types.I64)
    machine.align = 1
    got: ir.Value = c64(0)
    for text, number in UNAME_MACHINES.items():
        mask = (1 << (8 * len(text))) - 1
        same = b.icmp_unsigned("==", b.and_(machine, ir.Constant(types.I64, mask)),
                               ir.Constant(types.I64, int.from_bytes(text, "little")))
        got = b.select(same, c64(number), got)
    got = b.select(b.icmp_signed("==", rc, _i32(0)), got, c64(0))
    b.store_atomic(got, pool.sysno, "monotonic", 8)
    b.ret(got)
    return fn


def _grow_function(module: ir.Module, name: str, pool: _Pool, libc: _Libc, worker: ir.Function) -> ir.Function:
    """`grow(i64 want) -> i64` (under the lock): start workers until there are min(want,
    limit); returns how many there are. A failed pthread_create lowers the limit to what
    exists (no retry on every call; join resets it). No futex number: no workers."""
    sysno = _sysno_function(module, name, pool, libc)
    fn = _internal(module, f"{name}.pool.grow", types.I64, [types.I64])
    want = fn.args[0]
    entry, cond, spawn, ok, fail, out = _blocks(fn, "entry", "cond", "spawn", "ok", "fail", "out")
    b = ir.IRBuilder(entry)
    have = b.load(pool.workers, typ=types.I64)
    lim = b.load(pool.limit, typ=types.I64)
    target = b.select(b.icmp_signed("<", want, lim), want, lim)
    target = b.select(b.icmp_signed(">", b.call(sysno, []), c64(0)), target, c64(0))
    b.branch(cond)
    b.position_at_end(cond)
    i = b.phi(types.I64, name="i")
    i.add_incoming(have, entry)
    b.cbranch(b.icmp_signed("<", i, target), spawn, out)
    b.position_at_end(spawn)
    tid = b.gep(pool.tids, [c64(0), i], source_etype=pool.tids.value_type)
    index = b.inttoptr(b.add(i, c64(1)), types.PTR)
    rc = b.call(libc.create, [tid, ir.Constant(types.PTR, None), worker, index])
    b.cbranch(b.icmp_signed("==", rc, _i32(0)), ok, fail)
    b.position_at_end(ok)
    nxt = b.add(i, c64(1))
    b.store(nxt, pool.workers)
    i.add_incoming(nxt, ok)
    b.branch(cond)
    b.position_at_end(fail)
    b.store(i, pool.limit)
    b.branch(out)
    b.position_at_end(out)
    b.ret(b.load(pool.workers, typ=types.I64))
    return fn


def _join_function(module: ir.Module, name: str, pool: _Pool, libc: _Libc, own: ir.Function) -> ir.Function:
    """`join()`: take the lock (waiting for a running call), stop and join every worker, and
    leave a pool that starts again on next use. Idle or repeated joins find no workers."""
    fn = _internal(module, f"{name}.pool.join", ir.VoidType(), [])
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    b.call(own, [])
    _lock_blocking(b, fn, libc, pool.lock)
    k = b.load(pool.workers, typ=types.I64)
    with b.if_then(b.icmp_signed(">", k, c64(0))):
        b.store_atomic(_i32(1), pool.stop, "seq_cst", 4)
        b.atomic_rmw("add", pool.wake, _i32(1), "seq_cst")
        _futex(b, libc, pool, FUTEX_WAKE_PRIVATE, c64(INT_MAX))
        with for_range(b, 0, k, name="j") as j:
            tid = b.load(b.gep(pool.tids, [c64(0), j], source_etype=pool.tids.value_type), typ=types.I64)
            b.call(libc.join, [tid, ir.Constant(types.PTR, None)])
        b.store(c64(0), pool.workers)
        b.store_atomic(_i32(0), pool.stop, "monotonic", 4)
    b.store(c64(MAX_THREADS - 1), pool.limit)
    b.store_atomic(_i32(0), pool.lock, "release", 4)
    b.ret_void()
    return fn


def _export_join(module: ir.Module, join: ir.Function, export: bool) -> None:
    """`hlotools_parallel_join` calls `join` (weak: AOT objects linked together keep one; their
    code never unmaps). A module that already has one (kernels/parallel_for.py's, another pool's) gets
    the call added before each of its returns."""
    ex = module.globals.get(JOIN_SYMBOL)
    if ex is None:
        ex = ir.Function(module, ir.FunctionType(ir.VoidType(), []), JOIN_SYMBOL)
        ex.linkage = "" if export else "weak"
        b = ir.IRBuilder(ex.append_basic_block("entry"))
        b.call(join, [])
        b.ret_void()
        return
    assert isinstance(ex, ir.Function) and ex.blocks, f"{JOIN_SYMBOL} declared but not defined"
    for block in ex.blocks:
        term = block.terminator
        if isinstance(term, ir.Ret):
            b = ir.IRBuilder(block)
            b.position_before(term)
            b.call(join, [])


def _thread_count(b: ir.IRBuilder, fn: ir.Function, libc: _Libc, gthreads: ir.GlobalVariable,
                  n: ir.Value) -> ir.Value:
    """min(n, MAX_THREADS, threads()) exactly as kernels/parallel_for.py computes it."""
    return thread_count(b, fn, libc.sysconf, gthreads, n)


def _parallel_for(module: ir.Module, name: str, pool: _Pool, libc: _Libc, own: ir.Function,
                  chunks_fn: ir.Function, grow: ir.Function, gthreads: ir.GlobalVariable) -> ir.Function:
    """The entry point. Orderings: the owner writes fn, ctx and n (plain: no thread reads them
    outside a job) and done = 0, then publishes `word` (release) and bumps `wake` (seq_cst);
    a claim is an acq_rel compare-and-swap of `word`, which reads the owner's release (or a
    later claim continuing its release sequence), so the job's fields are visible; each
    finished chunk adds to `done` (release) and the owner's acquire load of done == chunks
    makes every chunk's writes visible before it returns. Sleeping: a worker adds itself to
    `sleepers` and then reads `wake`, the owner bumps `wake` and then reads `sleepers`, all
    seq_cst, so either the worker sees the new job or the owner sees the sleeper and wakes it
    (FUTEX_WAIT also rechecks `wake` in the kernel). The lock is acquire / release."""
    pf = ir.Function(module, ir.FunctionType(ir.VoidType(), [types.PTR, types.PTR, types.I64]), name)
    fn, ctx, n = pf.args
    entry, empty, count = _blocks(pf, "entry", "empty", "count")
    b = ir.IRBuilder(entry)
    b.cbranch(b.icmp_signed("<=", n, c64(0)), empty, count)
    b.position_at_end(empty)
    b.ret_void()
    b.position_at_end(count)
    nt = _thread_count(b, pf, libc, gthreads, n)
    try_pool, locked, publish, unlock_serial, serial = _blocks(pf, "pool", "locked", "publish", "unlock", "serial")
    b.cbranch(b.icmp_signed("<=", nt, c64(1)), serial, try_pool)
    b.position_at_end(try_pool)
    b.call(own, [])
    pair = b.cmpxchg(pool.lock, _i32(0), _i32(1), "acquire", "monotonic")
    b.cbranch(b.extract_value(pair, 1), locked, serial)  # busy (another call, or nested): alone
    b.position_at_end(locked)
    have = b.call(grow, [b.sub(nt, c64(1))])
    p = b.add(have, c64(1))
    p = b.select(b.icmp_signed("<", nt, p), nt, p)
    b.cbranch(b.icmp_signed("<=", p, c64(1)), unlock_serial, publish)
    b.position_at_end(publish)
    chunks = b.mul(p, c64(CHUNKS_PER_THREAD))
    chunks = b.select(b.icmp_signed(">", chunks, n), n, chunks)
    b.store(fn, pool.fn)
    b.store(ctx, pool.ctx)
    b.store(n, pool.n)
    if pool.mxcsr is not None:
        denormals.read_mxcsr(b, pool.mxcsr)
    b.store_atomic(c64(0), pool.done, "monotonic", 8)
    word = b.or_(b.shl(b.sub(p, c64(1)), c64(32)), b.shl(chunks, c64(16)))
    b.store_atomic(word, pool.word, "release", 8)
    b.atomic_rmw("add", pool.wake, _i32(1), "seq_cst")
    asleep = b.load_atomic(pool.sleepers, "seq_cst", 4, typ=types.I32)
    with b.if_then(b.icmp_signed(">", asleep, _i32(0)), likely=False):
        _futex(b, libc, pool, FUTEX_WAKE_PRIVATE, c64(INT_MAX))
    b.call(chunks_fn, [c64(0)])
    _wait_done(b, pf, libc, pool, chunks)
    b.store_atomic(_i32(0), pool.lock, "release", 4)
    b.ret_void()
    b.position_at_end(unlock_serial)
    b.store_atomic(_i32(0), pool.lock, "release", 4)
    b.branch(serial)
    b.position_at_end(serial)
    b.call(as_worker(b, fn), [ctx, c64(0), n])
    b.ret_void()
    return pf


def _wait_done(b: ir.IRBuilder, fn: ir.Function, libc: _Libc, pool: _Pool, chunks: ir.Value) -> None:
    """Wait until `done` reaches `chunks`: only chunks other threads have claimed (and are
    running) are left. Pause hints first, then sched_yield (a preempted worker needs the CPU)."""
    pre = b.block
    wait, poll, pause, yield_, out = _blocks(fn, "wait", "poll", "pause", "yield", "waited")
    b.branch(wait)
    b.position_at_end(wait)
    k = b.phi(types.I64, name="polls")
    k.add_incoming(c64(0), pre)
    d = b.load_atomic(pool.done, "acquire", 8, typ=types.I64)
    b.cbranch(b.icmp_signed("<", d, chunks), poll, out)
    b.position_at_end(poll)
    k1 = b.add(k, c64(1))
    b.cbranch(b.icmp_signed("<", k, c64(WAIT_PAUSES)), pause, yield_)
    b.position_at_end(pause)
    _pause(b, libc)
    k.add_incoming(k1, pause)
    b.branch(wait)
    b.position_at_end(yield_)
    b.call(libc.yield_, [])
    k.add_incoming(k1, yield_)
    b.branch(wait)
    b.position_at_end(out)

