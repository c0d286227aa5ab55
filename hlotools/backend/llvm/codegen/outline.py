"""Outlining part of the current function into a worker `void(ptr ctx, i64 begin, i64 end)`
that the runtime's `hlo.parallel_for` (kernels/parallel_for.py) runs on chunks of a loop: the
FunctionEmitter is retargeted at the worker, so leaf pointers and the elemental generator work
unchanged inside. `parallel_loop_nest` splits a loop nest's outermost loop across threads when
the work is big enough (`worth_parallel`); `work_per_element` is the estimate it is given.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import layout_of
from hlotools.backend.llvm.codegen import dynamic_extent
from hlotools.backend.llvm.kernels.parallel_for import WORKER_TYPE, parallel_for_function, worth_parallel
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import (
    c64,
    cut_nest,
    flat_loop,
    flat_stops,
    loop_nest,
    outer_offset,
    strides,
)
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    from hlotools.backend.llvm.codegen.function import FunctionEmitter


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
    ctx = eb0.bitcast(eb0.alloca(types.PTR, size=c64(3), name="par.ctx"), types.PTR)
    for k, v in enumerate((fe.arena, fe.params_arg, fe.outs_arg)):
        fe.b.store(v, fe.b.gep(ctx, [c64(k)], source_etype=types.PTR))
    wctx, begin, end = worker.args
    eb = worker.append_basic_block("entry")
    body = worker.append_basic_block("body")
    wb = ir.IRBuilder(eb)
    vals = [wb.load(wb.gep(wctx, [c64(k)], source_etype=types.PTR), typ=types.PTR) for k in range(3)]
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
        for attr, v in saved.items():
            setattr(fe, attr, v)
    fe.last_worker = worker  # type: ignore[attr-defined]
    fe.last_ctx = ctx  # type: ignore[attr-defined]


def run_parallel(fe: FunctionEmitter, name: str, n: int | ir.Value,
                 body: Callable[[ir.Value, ir.Value], None]) -> None:
    """Run body(begin, end) (emitted into a worker) over [0, n) on several threads."""
    with outlined(fe, name) as (begin, end):
        body(begin, end)
    call_parallel_for(fe, fe.last_worker, fe.last_ctx, n)  # type: ignore[attr-defined]


def parallel_loop_nest(fe: FunctionEmitter, shape: object, body: Callable[[list[ir.Value]], None],
                       work_per_element: int = 1, name: str = "d", flat: bool = False,
                       stops: Callable[[], dict[int, ir.Value]] | None = None, splits: Sequence[int] = ()) -> bool:
    """loop_nest(fe.b, shape, body) with its outermost loop split across threads when the
    nest is big enough; returns False (emitting nothing) when it should stay serial.
    `flat`: each thread's part is one flat_loop over its element offsets instead of a nest
    (for bodies whose reads all share the shape's layout); else `splits` cut each thread's
    innermost loop (loop_nest). `stops`: emits the loads of
    run-time stops (dim -> i64, at most the dim's size) where it is called, in the caller for
    the outermost loop (only its run-time range is split) and in the worker for the others."""
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
    outer_stop = stops().get(outer) if stops is not None else None

    def chunk(begin: ir.Value, end: ir.Value) -> None:
        inner = stops() if stops is not None else None
        if flat:
            step = c64(strides(shape)[outer])  # type: ignore[arg-type]
            flat_loop(fe.b, shape, body, fe.b.mul(begin, step, flags=["nsw"]),  # type: ignore[arg-type]
                      fe.b.mul(end, step, flags=["nsw"]), name=name)
            return
        cut_nest(fe.b, dims, order, body, name=name, first=(begin, end), stops=inner, cuts=splits)
    run_parallel(fe, name, dims[outer] if outer_stop is None else outer_stop, chunk)
    return True


def result_loop(fe: FunctionEmitter, inst: Instruction, shape: Shape, body: Callable[[list[ir.Value]], None],
                work_per_element: int = 1, flat: bool = False, splits: Sequence[int] = ()) -> None:
    """The loop over `shape`, inst's result: split across threads when big enough
    (parallel_loop_nest), else one flat loop (`flat`) or a nest; the dims inst records a
    run-time size of stop there (codegen/dynamic_extent.py; a flat loop only when the
    outermost is the only one). `splits`: where the nest's innermost loop is cut (loop_nest)."""
    stops = dynamic_extent.loop_stops(fe, inst, shape)
    flat = flat and (stops is None or flat_stops(shape, dynamic_extent.stopped_dims(fe, inst, shape)))
    if parallel_loop_nest(fe, shape, body, work_per_element, flat=flat, stops=stops, splits=splits):
        return
    at = stops() if stops is not None else None
    if flat:
        flat_loop(fe.b, shape, body, stop=outer_offset(fe.b, shape, at))
    else:
        loop_nest(fe.b, shape, body, stops=at, splits=splits)


def work_per_element(inst: object) -> int:
    """Rough work per result element of an elemental loop: the reduction size of the
    largest reduce / reduce-window inside (1 for elementwise chains)."""
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
            out = max(1, i.shape.leaves()[0].size)
            best = max(best, i.operands[0].shape.size // out)
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
