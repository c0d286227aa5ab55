"""Multithreading for generated code: a `parallel_for` emitted in LLVM IR itself, on top of
libc's pthread_create/pthread_join, and the helpers that outline a loop nest of the
current function into a worker that `parallel_for` runs on chunks of its outer loop.

Why in IR and not a Python thread pool: the same code then works in AOT objects (which
only need libc) and a call costs a few thread creations (~10-30 us), never the GIL.

    void hlo.parallel_for(ptr fn, ptr ctx, i64 n)
        fn(ctx, begin, end) is called on disjoint chunks [begin, end) covering [0, n),
        one chunk per thread; the calling thread runs the first chunk and then joins the
        others, so every write of the workers happens before parallel_for returns.

Safety: a failed pthread_create runs that chunk on the calling thread (so the result never
depends on thread creation); the number of threads is min(n, MAX_THREADS, threads()) where
threads() is the exported global `hlotools_num_threads` if the runtime set it (> 0), else
sysconf(_SC_NPROCESSORS_ONLN) (Linux), read once. Chunks write disjoint parts of the
result and only read operands, so there are no data races; work below a threshold stays
serial (`worth_parallel`). Workers never call parallel_for themselves (no nesting).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import llvmlite.ir as ir

from hlotools.backend.llvm import emit_types as T
from hlotools.backend.llvm.emit_loops import c64

if TYPE_CHECKING:
    from hlotools.backend.llvm.compiler import FunctionEmitter

MAX_THREADS = 64
THREADS_GLOBAL = "hlotools_num_threads"
_SC_NPROCESSORS_ONLN = 84  # glibc, x86_64 and aarch64
# Below this many "element operations" (elements times the work per element) a kernel
# runs serially: thread creation and joining cost ~10-30 us per call.
MIN_PARALLEL_WORK = 1 << 18
WORKER_TYPE = ir.FunctionType(ir.VoidType(), [T.PTR, T.I64, T.I64])


def enabled() -> bool:
    """HLOTOOLS_NUM_THREADS=1 turns generated multithreading off at compile time."""
    return os.environ.get("HLOTOOLS_NUM_THREADS", "") != "1"


def host_threads() -> int:
    """Threads the runtime tells generated code to use: $HLOTOOLS_NUM_THREADS, else the
    CPUs this process may run on."""
    env = os.environ.get("HLOTOOLS_NUM_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return min(MAX_THREADS, int(env))
    try:
        return max(1, min(MAX_THREADS, len(os.sched_getaffinity(0))))
    except (AttributeError, OSError):
        return max(1, min(MAX_THREADS, os.cpu_count() or 1))


def worth_parallel(work: int) -> bool:
    return enabled() and work >= MIN_PARALLEL_WORK


def _declare(module: ir.Module, name: str, fnty: ir.FunctionType) -> ir.Function:
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, fnty, name)
    return fn


def _threads_global(module: ir.Module) -> ir.GlobalVariable:
    g = module.globals.get(THREADS_GLOBAL)
    if g is None:
        g = ir.GlobalVariable(module, T.I32, THREADS_GLOBAL)
        g.initializer = ir.Constant(T.I32, 0)
        g.align = 4
    return g


def parallel_for_function(module: ir.Module) -> ir.Function:
    """`hlo.parallel_for` (and its thread trampoline), built once per LLVM module."""
    existing = module.globals.get("hlo.parallel_for")
    if existing is not None:
        return existing
    pthread_t = T.I64  # unsigned long on x86_64 and aarch64 Linux
    start_ty = ir.FunctionType(T.PTR, [T.PTR])
    create = _declare(module, "pthread_create", ir.FunctionType(T.I32, [T.PTR, T.PTR, T.PTR, T.PTR]))
    join = _declare(module, "pthread_join", ir.FunctionType(T.I32, [pthread_t, T.PTR]))
    sysconf = _declare(module, "sysconf", ir.FunctionType(T.I64, [T.I32]))
    gthreads = _threads_global(module)

    tramp = ir.Function(module, start_ty, "hlo.parallel_trampoline")
    tramp.linkage = "internal"
    b = ir.IRBuilder(tramp.append_basic_block("entry"))
    t = tramp.args[0]
    t = b.bitcast(t, T.I64.as_pointer())
    fields = [b.load(b.gep(t, [c64(k)], source_etype=T.I64), typ=T.I64) for k in range(4)]
    fields[0], fields[1] = b.inttoptr(fields[0], T.PTR), b.inttoptr(fields[1], T.PTR)
    b.call(_as_worker(b, fields[0]), fields[1:])
    b.ret(ir.Constant(T.PTR, None))

    pf = ir.Function(module, ir.FunctionType(ir.VoidType(), [T.PTR, T.PTR, T.I64]), "hlo.parallel_for")
    pf.linkage = "internal"
    fn, ctx, n = pf.args
    entry = pf.append_basic_block("entry")
    b = ir.IRBuilder(entry)
    # allocas give typed pointers in llvmlite: cast to opaque ones for mixed-type slots
    # task records {fn, ctx, begin, end} as four i64 each (pointers through ptrtoint)
    tasks = b.alloca(T.I64, size=c64(4 * MAX_THREADS), name="tasks")
    tids = b.alloca(pthread_t, size=c64(MAX_THREADS), name="tids")
    oks = b.alloca(T.I8, size=c64(MAX_THREADS), name="oks")
    # threads(): the global, else sysconf once (an atomic store: racing first calls agree)
    cur = b.load_atomic(gthreads, "monotonic", 4, typ=T.I32)
    ask = pf.append_basic_block("ask")
    have = pf.append_basic_block("have")
    b.cbranch(b.icmp_signed(">", cur, ir.Constant(T.I32, 0)), have, ask)
    b.position_at_end(ask)
    got = b.call(sysconf, [ir.Constant(T.I32, _SC_NPROCESSORS_ONLN)])
    got = b.select(b.icmp_signed("<", got, c64(1)), c64(1), got)
    got = b.select(b.icmp_signed(">", got, c64(MAX_THREADS)), c64(MAX_THREADS), got)
    got32 = b.trunc(got, T.I32)
    b.store_atomic(got32, gthreads, "monotonic", 4)
    b.branch(have)
    b.position_at_end(have)
    nt = b.phi(T.I32)
    nt.add_incoming(cur, entry)
    nt.add_incoming(got32, ask)
    nt64 = b.sext(nt, T.I64)
    nt64 = b.select(b.icmp_signed(">", nt64, c64(MAX_THREADS)), c64(MAX_THREADS), nt64)
    nt64 = b.select(b.icmp_signed(">", nt64, n), n, nt64)
    serial = pf.append_basic_block("serial")
    par = pf.append_basic_block("parallel")
    b.cbranch(b.icmp_signed("<=", nt64, c64(1)), serial, par)
    b.position_at_end(serial)
    with b.if_then(b.icmp_signed(">", n, c64(0))):
        b.call(_as_worker(b, fn), [ctx, c64(0), n])
    b.ret_void()

    b.position_at_end(par)

    def bound(i: ir.Value) -> ir.Value:  # i * n / nt without overflow for n < 2^40
        return b.sdiv(b.mul(i, n), nt64)

    # spawn chunks 1..nt-1
    loop = pf.append_basic_block("spawn")
    after = pf.append_basic_block("spawned")
    b.branch(loop)
    b.position_at_end(loop)
    i = b.phi(T.I64)
    i.add_incoming(c64(1), par)
    task = b.gep(tasks, [b.mul(i, c64(4))], source_etype=T.I64)
    for k, v in enumerate((b.ptrtoint(fn, T.I64), b.ptrtoint(ctx, T.I64), bound(i), bound(b.add(i, c64(1))))):
        b.store(v, b.gep(task, [c64(k)], source_etype=T.I64))
    rc = b.call(create, [b.gep(tids, [i], source_etype=pthread_t), ir.Constant(T.PTR, None), tramp, task])
    ok = b.icmp_signed("==", rc, ir.Constant(T.I32, 0))
    b.store(b.zext(ok, T.I8), b.gep(oks, [i], source_etype=T.I8))
    with b.if_then(b.not_(ok)):  # no thread: run the chunk here
        b.call(_as_worker(b, fn), [ctx, bound(i), bound(b.add(i, c64(1)))])
    nxt = b.add(i, c64(1))
    i.add_incoming(nxt, b.block)
    b.cbranch(b.icmp_signed("<", nxt, nt64), loop, after)
    b.position_at_end(after)
    b.call(_as_worker(b, fn), [ctx, c64(0), bound(c64(1))])
    jloop = pf.append_basic_block("join")
    done = pf.append_basic_block("done")
    b.branch(jloop)
    b.position_at_end(jloop)
    j = b.phi(T.I64)
    j.add_incoming(c64(1), after)
    okj = b.load(b.gep(oks, [j], source_etype=T.I8), typ=T.I8)
    with b.if_then(b.icmp_unsigned("!=", okj, ir.Constant(T.I8, 0))):
        b.call(join, [b.load(b.gep(tids, [j], source_etype=pthread_t), typ=pthread_t), ir.Constant(T.PTR, None)])
    jn = b.add(j, c64(1))
    j.add_incoming(jn, b.block)
    b.cbranch(b.icmp_signed("<", jn, nt64), jloop, done)
    b.position_at_end(done)
    b.ret_void()
    return pf


def _as_worker(b: ir.IRBuilder, fnptr: ir.Value) -> ir.Value:
    """An opaque pointer called as a worker (llvmlite calls through a typed callee)."""
    return _Callee(fnptr)


class _Callee:
    """Lets IRBuilder.call emit an indirect call through an opaque pointer."""

    function_type = WORKER_TYPE

    def __init__(self, ptr: ir.Value) -> None:
        self.ptr = ptr

    def __getattr__(self, name: str) -> object:
        return getattr(self.ptr, name)


def call_parallel_for(fe: FunctionEmitter, worker: ir.Function, ctx: ir.Value, n: int | ir.Value) -> None:
    pf = parallel_for_function(fe.mc.ir)
    fe.b.call(pf, [worker, ctx, c64(n) if isinstance(n, int) else n])


@contextmanager
def outlined(fe: FunctionEmitter, name: str) -> Iterator[tuple[ir.Value, ir.Value]]:
    """Emit code into a new worker function `void(ptr ctx, i64 begin, i64 end)` of the
    same module, with `fe` retargeted at it: its arena, params and outs come from ctx, so
    fe.leaf_ptrs and the elemental generator work unchanged inside. Yields (begin, end).
    After the block, `fe` emits into its own function again and `self.last_worker` /
    `self.last_ctx` hold the worker and the ctx pointer of the caller."""
    mc = fe.mc
    worker = ir.Function(mc.ir, WORKER_TYPE, mc.unique_name(f"par.{name}"))
    worker.linkage = "internal"
    saved = {k: getattr(fe, k) for k in ("fn", "entry_block", "body_block", "b", "arena", "params_arg",
                                         "outs_arg", "_ptr_cache", "cache_layers")}
    # the caller's ctx: {arena, params, outs}
    eb0 = fe.in_entry()
    ctx = eb0.bitcast(eb0.alloca(T.PTR, size=c64(3), name="par.ctx"), T.PTR)
    for k, v in enumerate((fe.arena, fe.params_arg, fe.outs_arg)):
        fe.b.store(v, fe.b.gep(ctx, [c64(k)], source_etype=T.PTR))
    wctx, begin, end = worker.args
    eb = worker.append_basic_block("entry")
    body = worker.append_basic_block("body")
    wb = ir.IRBuilder(eb)
    vals = [wb.load(wb.gep(wctx, [c64(k)], source_etype=T.PTR), typ=T.PTR) for k in range(3)]
    fe.fn, fe.entry_block, fe.body_block = worker, eb, body
    fe.b = ir.IRBuilder(body)
    fe.arena, fe.params_arg, fe.outs_arg = vals
    fe._ptr_cache = {}
    fe.cache_layers = [{}]  # type: ignore[attr-defined]
    try:
        yield begin, end
        fe.b.ret_void()
        ir.IRBuilder(eb).branch(body)  # after the hoisted setup code in_entry() appended
    finally:
        for k, v in saved.items():
            setattr(fe, k, v)
    fe.last_worker = worker  # type: ignore[attr-defined]
    fe.last_ctx = ctx  # type: ignore[attr-defined]


def run_parallel(fe: FunctionEmitter, name: str, n: int,
                 body: Callable[[ir.Value, ir.Value], None]) -> None:
    """Run body(begin, end) (emitted into a worker) over [0, n) on several threads."""
    with outlined(fe, name) as (begin, end):
        body(begin, end)
    call_parallel_for(fe, fe.last_worker, fe.last_ctx, n)  # type: ignore[attr-defined]


def parallel_loop_nest(fe: FunctionEmitter, shape: object, body: Callable[[list[ir.Value]], None],
                       work_per_element: int = 1, name: str = "d") -> bool:
    """loop_nest(fe.b, shape, body) with its outermost loop split across threads when the
    nest is big enough; returns False (emitting nothing) when it should stay serial."""
    from hlotools.backend.llvm.emit_loops import for_range, layout_of

    dims = shape.dims  # type: ignore[attr-defined]
    total = 1
    for d in dims:
        total *= d
    if total == 0 or not worth_parallel(total * max(1, work_per_element)):
        return False
    order = [d for d in reversed(layout_of(shape)) if dims[d] > 1]  # type: ignore[arg-type]
    if not order or dims[order[0]] < 2:
        return False
    outer = order[0]

    def chunk(begin: ir.Value, end: ir.Value) -> None:
        index: list[ir.Value] = [c64(0)] * len(dims)

        def level(k: int) -> None:
            if k == len(order):
                body(list(index))
                return
            d = order[k]
            lo, hi = (begin, end) if k == 0 else (0, dims[d])
            with for_range(fe.b, lo, hi, name=f"{name}{d}") as iv:
                index[d] = iv
                level(k + 1)
        level(0)
    run_parallel(fe, name, dims[outer], chunk)
    return True


def work_per_element(inst: object) -> int:
    """Rough work per result element of an elemental loop: the reduction size of the
    largest reduce / reduce-window inside (1 for elementwise chains)."""
    from hlotools.ir.instruction import Instruction
    assert isinstance(inst, Instruction)
    best = 1
    todo = [inst]
    seen: set[int] = set()
    while todo:
        i = todo.pop()
        if id(i) in seen:
            continue
        seen.add(id(i))
        if i.opcode == "reduce" and i.operands:
            out = max(1, _elements(i.shape.leaves()[0].dims))
            best = max(best, _elements(i.operands[0].shape.dims) // out)
        elif i.opcode == "reduce-window":
            w = i.attrs.get("window")
            size = 1
            for d in getattr(w, "dims", ()) or ():
                size *= max(1, int(getattr(d, "size", 1)))
            best = max(best, size)
        comp = i.attrs.get("calls") if i.opcode == "fusion" else None
        if comp is not None:
            todo.extend(comp.instructions)
    return best


def _elements(dims: tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n
