"""Independent kernels of one computation run at the same time: the independent groups the
scheduler finds run on several threads.

kernels/parallel_for.py splits ONE big kernel over threads; a kernel below its thresholds runs serially,
and two such kernels that do not depend on each other (the two dots of an LSTM step,
f32[16,128]x[128,1024] and f32[16,256]x[256,1024]) still ran one after the other. Here such
kernels run as one `parallel_for` (`emit_set`): each member's own emitter produces its
parallel loop (GEMM tasks, the outer loop of an elemental nest), and one merged worker
`par.tasks.N(ctx, begin, end)` maps the task index onto the members' index ranges. Every
chunk computes exactly what the serial code computes (bit-identical results) and writes only
its own member's buffers; one thread creation per set instead of one per kernel.

Which kernels (`task_work`): materialised (`define`) dots and elemental loops (elemental
ops with the default loop emitter, elemental fusions) that would run serially by
themselves (below kernels/parallel_for.py's MIN_PARALLEL_GEMM / MIN_PARALLEL_WORK) and are big enough
to be worth a loop of their own (`MIN_TASK_WORK`), in sets worth a parallel_for
(`MIN_SET_WORK`). Everything else stays where the schedule put it:
cheap instructions, kernels that split themselves over threads, control flow (while,
conditional, call), custom-calls, collectives, rng, infeed/outfeed and anything with side
effects (these keep their relative order: `pinned`), non-elemental fusions (they call a
function that shares the callee arena with every other call of the caller), BLAS dots.

Which kernels go together (`plan_concurrency`): the scheduler's ASAP levels
(passes/scheduling.py, `groups_for`) count every instruction as one step, so in the LSTM
step the dynamic-slice feeding one dot puts the two dots on different levels. Here the
levels are weighted: only task kernels count as a step, every other instruction adds 0
(level(i) = max over its operands, control predecessors and previous pinned instruction p
of level(p) + [p is a task kernel]). Task kernels of one level never depend on each other
(a path between them passes through one of them, which adds 1), and merging each level's
kernels into one node keeps the graph acyclic (levels never decrease along an edge and rise
after a merged node), so a stable topological sort (by first position) places every set
contiguously; besides the members only what waits for a set moves. Pinned instructions keep
their order (each depends on the previous one). Fusion computations are not planned (their
instructions are parts of one kernel), nor is anything compiled while a set is emitted.

Emitting a set: its members are emitted under `parallel.forced()` (worth_parallel answers
True), so each member's emitter takes its parallel path, and the parallel_for
call that ends a member is taken out into the merged call. Inside a worker nothing may call
parallel_for (kernels/parallel_for.py: no nesting; a worker that joins its sibling threads can
deadlock): the members' workers are their loop bodies, which never ask for threads, and
`_check_no_nesting` asserts it of each.
"""
from __future__ import annotations

import heapq
import os
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import PARALLEL_FOR
from hlotools.backend.llvm.codegen import outline
from hlotools.backend.llvm.codegen.registry import ELEMENTAL, EMITTERS, TASK_WORK
from hlotools.backend.llvm.kernels import parallel_for
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64
from hlotools.errors import HloUnsupportedError
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import opcode_info

if TYPE_CHECKING:
    from hlotools.backend.llvm.codegen.function import FunctionEmitter

# Work is counted in GEMM multiply-adds (0.033 ns each here: f32[16,256]x[256,1024], 4 Mi of
# them, 139 us). One element operation of an elemental loop (kernels/parallel_for.py's unit: elements times
# work_per_element) is worth ELEMENT_COST of them: measured 0.25 ns for an f32[512,256] add,
# 0.5 ns for exponential, 0.06 ns per element of a row reduction (vectorised), 2.9 ns of a
# column reduction (strided); 8 is the typical elementwise kernel.
ELEMENT_COST = 8
# A member smaller than this (~9 us) is not worth a loop of its own in the merged worker.
MIN_TASK_WORK = 1 << 18
# A set must be worth one parallel_for. With the persistent pool (kernels/thread_pool.py) a call costs
# ~1 us of wall time and ~25 us of CPU (the workers' spin): a set of two tiny kernels 21.3 ->
# 21.8 us (median of 2000 calls, quiet machine; 21 -> 45 us with a thread per call). 1 Mi
# (~35 us on one core) is where sets start to pay: reductions.hlo's two reduce-windows 0.53 ->
# 0.41 ms, mlp_bf16_mixed's 1-2 Mi dot pairs 0.154 -> 0.157 ms (even); the LSTM step's dots
# (2 Mi + 4 Mi) 232 -> 156 us, big_scan_lstm (64 steps) 12.9 -> 7.6 ms.
MIN_SET_WORK = 1 << 20
# Off: compile without concurrent sets (tests and the A/B benchmark); so do HLOTOOLS_CONCURRENT=0
# and HLOTOOLS_NUM_THREADS=1 (parallel.enabled() False). HLOTOOLS_* variables are part of the
# compile cache's key.
CONCURRENT: ContextVar[bool] = ContextVar("hlotools_llvm_concurrent", default=True)
ENV = "HLOTOOLS_CONCURRENT"
_MODE: ContextVar[str] = ContextVar("hlotools_llvm_task_mode", default="")  # "force" while a set is emitted
WORKER_PREFIX = "tasks"  # the merged worker functions are named par.tasks.N


@dataclass
class ConcurrentPlan:
    """The emission order of one computation and its concurrent sets (each contiguous in
    `order`, largest task first)."""

    order: list[Instruction]
    sets: list[list[Instruction]] = field(default_factory=list)
    work: dict[int, int] = field(default_factory=dict)  # id(member) -> estimated work


def enabled() -> bool:
    return CONCURRENT.get() and os.environ.get(ENV, "") != "0" and parallel_for.enabled()


def in_task() -> bool:
    return _MODE.get() != ""


# -- which kernels ------------------------------------------------------------------------------

def pinned(inst: Instruction) -> bool:
    """Side effects, control flow, calls, collectives and token plumbing keep their relative
    order (facts from the opcode table)."""
    info = opcode_info(inst.opcode)
    if info is None or info.side_effect or info.category in ("control", "collective", "async"):
        return True
    return any(leaf.is_token for shape in (inst.shape, *(o.shape for o in inst.operands)) for leaf in shape.leaves())


def task_work(fe: FunctionEmitter, inst: Instruction) -> int | None:
    """Estimated work (GEMM multiply-adds) of `inst` as a task, or None when it is not one."""
    if fe.kinds.get(id(inst)) != "define" or inst.parent is not fe.comp or pinned(inst):
        return None
    if inst.opcode in TASK_WORK:
        work = TASK_WORK[inst.opcode](inst)
        if work is None or work >= parallel_for.MIN_PARALLEL_GEMM:
            return None
    elif _elemental_loop(inst):
        elems = inst.shape.leaves()[0].size
        per = elems * max(1, outline.work_per_element(inst))
        if per >= parallel_for.MIN_PARALLEL_WORK:
            return None
        work = per * ELEMENT_COST
    else:
        return None
    return work if work >= MIN_TASK_WORK else None


def _elemental_loop(inst: Instruction) -> bool:
    """Emitted by compiler.emit_elemental_loop (whose threading parallel_loop_nest decides)?"""
    from hlotools.backend.llvm.codegen.elemental import fusion_is_elemental
    if inst.shape.is_tuple and any(s.dims != inst.shape.leaves()[0].dims for s in inst.shape.leaves()):
        return False
    if inst.opcode == "fusion":
        comp = inst.attrs.get("calls")
        return (fusion_is_elemental(inst) and comp is not None
                and not any(pinned(i) for i in comp.instructions))
    return inst.opcode in ELEMENTAL and inst.opcode not in EMITTERS


# -- which kernels go together -------------------------------------------------------------------

def plan_concurrency(fe: FunctionEmitter) -> ConcurrentPlan:
    order = list(fe.order)
    if not enabled() or in_task() or fe.comp.is_fusion_computation:
        return ConcurrentPlan(order)
    work = {id(i): w for i in order if (w := task_work(fe, i)) is not None}
    if len(work) < 2:
        return ConcurrentPlan(order)
    deps = _dependences(order)
    levels: dict[int, int] = {}
    for inst in order:
        levels[id(inst)] = max((levels[id(d)] + (id(d) in work) for d in deps[id(inst)]), default=0)
    by_level: dict[int, list[Instruction]] = {}
    for inst in order:
        if id(inst) in work:
            by_level.setdefault(levels[id(inst)], []).append(inst)
    sets = [sorted(g, key=lambda i: -work[id(i)]) for g in by_level.values()
            if len(g) >= 2 and sum(work[id(i)] for i in g) >= MIN_SET_WORK]
    if not sets:
        return ConcurrentPlan(order)
    new_order = _merged_order(order, deps, sets)
    if new_order is None:  # cannot happen (see the module docstring); stay serial if it does
        return ConcurrentPlan(order)
    return ConcurrentPlan(new_order, sets, {id(i): work[id(i)] for s in sets for i in s})


def _dependences(order: list[Instruction]) -> dict[int, list[Instruction]]:
    """Operands and control predecessors in the computation, and for a pinned instruction the
    pinned one before it."""
    local = {id(i) for i in order}
    deps: dict[int, list[Instruction]] = {}
    last_pinned: Instruction | None = None
    for inst in order:
        ds = [d for d in list(inst.operands) + list(inst.control_predecessors) if id(d) in local]
        if pinned(inst):
            if last_pinned is not None:
                ds.append(last_pinned)
            last_pinned = inst
        deps[id(inst)] = ds
    return deps


def _merged_order(order: list[Instruction], deps: dict[int, list[Instruction]],
                  sets: list[list[Instruction]]) -> list[Instruction] | None:
    """A topological order in which each set is one node (its members contiguous): Kahn's
    algorithm taking the ready node of smallest first position, so without sets it is `order`."""
    pos = {id(i): n for n, i in enumerate(order)}
    node_of = {id(i): pos[id(i)] for i in order}
    members: dict[int, list[Instruction]] = {n: [i] for n, i in enumerate(order)}
    for s in sets:
        head = min(pos[id(i)] for i in s)
        for i in s:
            if pos[id(i)] != head:
                del members[pos[id(i)]]
            node_of[id(i)] = head
        members[head] = sorted(s, key=lambda i: pos[id(i)])
    preds: dict[int, set[int]] = {n: set() for n in members}
    succs: dict[int, list[int]] = {n: [] for n in members}
    for n, ms in members.items():
        for i in ms:
            for d in deps[id(i)]:
                m = node_of[id(d)]
                if m != n and m not in preds[n]:
                    preds[n].add(m)
                    succs[m].append(n)
    waiting = {n: len(p) for n, p in preds.items()}
    ready = [n for n, w in waiting.items() if w == 0]
    heapq.heapify(ready)
    out: list[Instruction] = []
    while ready:
        n = heapq.heappop(ready)
        out.extend(members[n])
        for nxt in succs[n]:
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                heapq.heappush(ready, nxt)
    return out if len(out) == len(order) else None


# -- emission ------------------------------------------------------------------------------------

@dataclass
class _Part:
    """One member's deferred parallel loop: worker(ctx, begin, end) over [0, n)."""

    worker: ir.Value
    ctx: ir.Value
    n: ir.Value


def emit_set(fe: FunctionEmitter, members: list[Instruction], emit_one: Callable[[Instruction], None]) -> None:
    """The members' kernels as ONE parallel_for over all their chunks.

    Each member is emitted by its own emitter with parallel.worth_parallel forced on, so a dot
    or an elemental loop ends in `parallel_for(worker, ctx, n)` after its serial prologue
    (packing, descriptors). That last call is taken out and the members' loops run as the index
    ranges of one merged worker (`par.tasks.N`): the chunks of every member are claimed by all
    threads from one counter (a helper thread the OS runs late or preempts holds at most one
    chunk, and a 2:1 pair of dots still splits evenly). A parallel_for that is not its member's
    last instruction (something reads its result afterwards) becomes a plain serial call
    worker(ctx, 0, n), as does everything when fewer than two loops are left."""
    tok = _MODE.set("force")
    parts: list[_Part] = []
    try:
        with parallel_for.forced():
            for inst in members:
                block, done, nblocks = fe.b.block, len(fe.b.block.instructions), len(fe.fn.blocks)
                emit_one(inst)
                # what the member emitted: the rest of the block it started in, and new blocks
                new = block.instructions[done:] + [i for blk in fe.fn.blocks[nblocks:] for i in blk.instructions]
                calls = [c for c in new if _is_parallel_call(c)]
                last = fe.b.block.instructions[-1] if fe.b.block.instructions else None
                for call in calls:
                    worker, ctx, n = call.args[:3]
                    if isinstance(worker, ir.Function):
                        _check_no_nesting(worker)
                    if call is last:
                        parts.append(_Part(worker, ctx, n))
                        _remove(call)
                    else:
                        _make_serial(call, worker, ctx, n)
    finally:
        _MODE.reset(tok)
    if len(parts) < 2:
        for p in parts:
            fe.b.call(p.worker, [p.ctx, c64(0), p.n])
        return
    worker, ctx, total = _merged_worker(fe, parts)
    outline.call_parallel_for(fe, worker, ctx, total)


def _is_parallel_call(instr: ir.Instruction) -> bool:
    return isinstance(instr, ir.CallInstr) and getattr(instr.callee, "name", "") == PARALLEL_FOR


def _parallel_calls(fn: ir.Function) -> list[ir.CallInstr]:
    return [instr for block in fn.blocks for instr in block.instructions if _is_parallel_call(instr)]


def _remove(call: ir.CallInstr) -> None:
    call.parent.instructions.remove(call)


def _make_serial(call: ir.CallInstr, worker: ir.Value, ctx: ir.Value, n: ir.Value) -> None:
    b = ir.IRBuilder(call.parent)
    b.position_before(call)
    b.call(worker, [ctx, c64(0), n])  # parallel_for on one thread does exactly this
    _remove(call)


def _merged_worker(fe: FunctionEmitter, parts: list[_Part]) -> tuple[ir.Function, ir.Value, ir.Value | int]:
    """worker(ctxs, begin, end): part j owns the indices [offset_j, offset_j + n_j) and runs
    worker_j(ctxs[j], lo - offset_j, hi - offset_j) on its share of [begin, end). A part's n
    may be a run-time value (a loop stopping at a bounded dynamic dim's size,
    codegen/dynamic_extent.py): then the offsets are summed at run time and passed after the
    contexts, ctxs[len(parts) + j]."""
    mc = fe.mc
    fn = ir.Function(mc.ir, parallel_for.WORKER_TYPE, mc.unique_name(f"par.{WORKER_PREFIX}"))
    fn.linkage = "internal"
    ctxs_arg, begin, end = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    known = all(isinstance(p.n, ir.Constant) for p in parts)
    slots = len(parts) if known else 2 * len(parts) + 1
    ctxs = fe.in_entry().alloca(types.PTR, size=c64(slots), name="tasks.ctx")
    offset: ir.Value | int = 0

    def store_offset(k: int, v: ir.Value | int) -> None:
        fe.b.store(c64(v) if isinstance(v, int) else v, fe.b.gep(ctxs, [c64(len(parts) + k)], source_etype=types.I64))

    def load_offset(k: int) -> ir.Value:
        return b.load(b.gep(ctxs_arg, [c64(len(parts) + k)], source_etype=types.I64), typ=types.I64)
    for j, part in enumerate(parts):
        fe.b.store(part.ctx, fe.b.gep(ctxs, [c64(j)], source_etype=types.PTR))
        if known:
            n = part.n.constant  # type: ignore[attr-defined]
            lo_j, hi_j = c64(offset), c64(offset + n)  # type: ignore[operator]
            offset += n  # type: ignore[operator]
        else:
            store_offset(j, offset)
            offset = fe.b.add(c64(offset) if isinstance(offset, int) else offset, part.n)
            store_offset(j + 1, offset)
            lo_j, hi_j = load_offset(j), load_offset(j + 1)
        lo = b.select(b.icmp_signed(">", begin, lo_j), begin, lo_j)
        hi = b.select(b.icmp_signed("<", end, hi_j), end, hi_j)
        with b.if_then(b.icmp_signed("<", lo, hi)):
            ctx = b.load(b.gep(ctxs_arg, [c64(j)], source_etype=types.PTR), typ=types.PTR)
            b.call(part.worker, [ctx, b.sub(lo, lo_j), b.sub(hi, lo_j)])
    b.ret_void()
    return fn, ctxs, offset


def _check_no_nesting(worker: ir.Function) -> None:
    """No parallel_for inside a worker (kernels/parallel_for.py: no nesting)."""
    if _parallel_calls(worker):
        raise HloUnsupportedError(f"internal: {worker.name} calls parallel_for inside a task")
