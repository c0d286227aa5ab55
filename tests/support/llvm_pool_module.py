"""A small LLVM module around one parallel_for (the pool's or kernels/parallel_for.py's, for A/B), for
tests/backend/llvm/kernels/test_thread_pool.py and tests/support/llvm_pool_bench.py: workers that count which indices they
ran, a nested call, an empty worker (per-call overhead) and an f32 elementwise loop.

Exported (all void unless said):
    run_count(ptr counts, i64 n)             counts[i] += 1 (atomic) for every i run
    run_nested(ptr ctx, i64 n)               ctx = {ptr outer, ptr inner, i64 m}: outer[i] += 1,
                                             then parallel_for(count, inner, m) from inside a chunk
    run_empty(i64 n, i64 reps)               `reps` parallel_for calls of an empty worker
    run_scale(ptr ctx, i64 rows, i64 reps)   ctx = {ptr x, ptr y, i64 cols}: y = exp(x) * 0.5 + x,
                                             rows split across threads, `reps` times
    run_stamp(ptr ctx, i64 n)                ctx = {ptr out, i64 busy_ns, i64 t_call, i64 caller}:
                                             t_call = now, caller = pthread_self(),
                                             then index i stores (now, pthread_self()) at out[2i],
                                             out[2i + 1] and keeps its thread busy for busy_ns
                                             (when a sleeping or spinning worker joins in)
    hlotools_parallel_join(), globals hlotools_num_threads (i32), hlotools_pool_spin_ns (i64)
"""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import JOIN_SYMBOL
from hlotools.backend.llvm.kernels.parallel_for import THREADS_GLOBAL, WORKER_TYPE
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range
from hlotools.backend.llvm.native import jit

SPIN_GLOBAL = "hlotools_pool_spin_ns"


def _worker(module: ir.Module, name: str) -> tuple[ir.Function, ir.IRBuilder]:
    fn = ir.Function(module, WORKER_TYPE, name)
    fn.linkage = "internal"
    return fn, ir.IRBuilder(fn.append_basic_block("entry"))


def _field(b: ir.IRBuilder, ctx: ir.Value, k: int, ty: ir.Type) -> ir.Value:
    return b.load(b.gep(ctx, [c64(k)], source_etype=ty), typ=ty)


def _count(module: ir.Module) -> ir.Function:
    fn, b = _worker(module, "count")
    counts, lo, hi = fn.args
    with for_range(b, lo, hi) as i:
        b.atomic_rmw("add", b.gep(counts, [i], source_etype=types.I64), c64(1), "monotonic")
    b.ret_void()
    return fn


def _export(module: ir.Module, name: str, args: list[ir.Type]) -> tuple[ir.Function, ir.IRBuilder]:
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), args), name)
    return fn, ir.IRBuilder(fn.append_basic_block("entry"))


def build_ir(impl: str = "pool") -> str:
    """The module's IR text; impl 'pool' (parallel_pool) or 'spawn' (kernels/parallel_for.py)."""
    module = ir.Module("pool_test")
    if impl == "pool":
        from hlotools.backend.llvm.kernels.thread_pool import pool_parallel_for_function
        pf = pool_parallel_for_function(module)
    else:
        from hlotools.backend.llvm.kernels import parallel_for
        make = getattr(parallel_for, "define_spawning_parallel_for", None)
        pf = make(module, export=False) if make is not None else parallel_for.parallel_for_function(module)
    if SPIN_GLOBAL not in module.globals:  # kernels/parallel_for.py has no spin: a dummy for the same API
        g = ir.GlobalVariable(module, types.I64, SPIN_GLOBAL)
        g.initializer = ir.Constant(types.I64, 0)
    count = _count(module)

    fn, b = _export(module, "run_count", [types.PTR, types.I64])
    b.call(pf, [count, fn.args[0], fn.args[1]])
    b.ret_void()

    nested, b = _worker(module, "nested")
    ctx, lo, hi = nested.args
    outer, inner, m = _field(b, ctx, 0, types.PTR), _field(b, ctx, 1, types.PTR), _field(b, ctx, 2, types.I64)
    with for_range(b, lo, hi) as i:
        b.atomic_rmw("add", b.gep(outer, [i], source_etype=types.I64), c64(1), "monotonic")
        b.call(pf, [count, inner, m])
    b.ret_void()
    fn, b = _export(module, "run_nested", [types.PTR, types.I64])
    b.call(pf, [nested, fn.args[0], fn.args[1]])
    b.ret_void()

    empty, b = _worker(module, "empty")
    b.ret_void()
    fn, b = _export(module, "run_empty", [types.I64, types.I64])
    with for_range(b, 0, fn.args[1], name="rep"):
        b.call(pf, [empty, ir.Constant(types.PTR, None), fn.args[0]])
    b.ret_void()

    _scale(module, pf)
    _stamp(module, pf)
    return str(module)


def _scale(module: ir.Module, pf: ir.Function) -> None:
    scale, b = _worker(module, "scale")
    ctx, lo, hi = scale.args
    x, y, cols = _field(b, ctx, 0, types.PTR), _field(b, ctx, 1, types.PTR), _field(b, ctx, 2, types.I64)
    exp = module.declare_intrinsic("llvm.exp", [types.F32])
    with for_range(b, lo, hi, name="r") as r, for_range(b, 0, cols, name="c") as c:
        k = b.add(b.mul(r, cols), c)
        v = b.load(b.gep(x, [k], source_etype=types.F32), typ=types.F32)
        out = b.fadd(b.fmul(b.call(exp, [v]), ir.Constant(types.F32, 0.5)), v)
        b.store(out, b.gep(y, [k], source_etype=types.F32))
    b.ret_void()
    fn, b = _export(module, "run_scale", [types.PTR, types.I64, types.I64])
    with for_range(b, 0, fn.args[2], name="rep"):
        b.call(pf, [scale, fn.args[0], fn.args[1]])
    b.ret_void()


def _now(b: ir.IRBuilder, module: ir.Module, ts: ir.Value) -> ir.Value:
    clock = module.globals.get("clock_gettime") or ir.Function(
        module, ir.FunctionType(types.I32, [types.I32, types.PTR]), "clock_gettime")
    b.call(clock, [ir.Constant(types.I32, 1), ts])  # CLOCK_MONOTONIC
    sec = b.load(b.gep(ts, [c64(0)], source_etype=types.I64), typ=types.I64)
    nsec = b.load(b.gep(ts, [c64(1)], source_etype=types.I64), typ=types.I64)
    return b.add(b.mul(sec, c64(1_000_000_000)), nsec)


def _stamp(module: ir.Module, pf: ir.Function) -> None:
    self_ = ir.Function(module, ir.FunctionType(types.I64, []), "pthread_self")
    stamp, b = _worker(module, "stamp")
    ctx, lo, hi = stamp.args
    ts = b.alloca(ir.ArrayType(types.I64, 2))
    out, busy = _field(b, ctx, 0, types.PTR), _field(b, ctx, 1, types.I64)
    with for_range(b, lo, hi) as i:
        t0 = _now(b, module, ts)
        b.store(t0, b.gep(out, [b.mul(i, c64(2))], source_etype=types.I64))
        b.store(b.call(self_, []), b.gep(out, [b.add(b.mul(i, c64(2)), c64(1))], source_etype=types.I64))
        spin = stamp.append_basic_block("busy")
        done = stamp.append_basic_block("busy.done")
        b.branch(spin)
        b.position_at_end(spin)
        b.cbranch(b.icmp_signed("<", b.sub(_now(b, module, ts), t0), busy), spin, done)
        b.position_at_end(done)
    b.ret_void()
    fn, b = _export(module, "run_stamp", [types.PTR, types.I64])
    ts = b.alloca(ir.ArrayType(types.I64, 2))
    b.store(_now(b, module, ts), b.gep(fn.args[0], [c64(2)], source_etype=types.I64))
    b.store(b.call(self_, []), b.gep(fn.args[0], [c64(3)], source_etype=types.I64))
    b.call(pf, [stamp, fn.args[0], fn.args[1]])
    b.ret_void()


@dataclass
class PoolModule:
    """The compiled module and ctypes entry points (keep it alive while calling)."""

    jit_module: Any
    run_count: Any
    run_nested: Any
    run_empty: Any
    run_scale: Any
    run_stamp: Any
    join: Any
    threads: ctypes.c_int32
    spin_ns: ctypes.c_int64


def compile_module(impl: str = "pool", edit: tuple[str, str] | None = None) -> PoolModule:
    """Compiled through hlotools' JIT; `edit`: (old, new) text replaced in the IR first."""
    text = build_ir(impl)
    if edit is not None:
        assert edit[0] in text, edit
        text = text.replace(*edit)
    jm, _ = jit.compile_ir(text)
    engine = jm.engine
    vp, i64 = ctypes.c_void_p, ctypes.c_int64

    def fn(name: str, *args: Any) -> Any:
        return ctypes.CFUNCTYPE(None, *args)(engine.get_function_address(name))
    return PoolModule(jm, fn("run_count", vp, i64), fn("run_nested", vp, i64), fn("run_empty", i64, i64),
                      fn("run_scale", vp, i64, i64), fn("run_stamp", vp, i64), fn(JOIN_SYMBOL),
                      ctypes.c_int32.from_address(engine.get_global_value_address(THREADS_GLOBAL)),
                      ctypes.c_int64.from_address(engine.get_global_value_address(SPIN_GLOBAL)))
