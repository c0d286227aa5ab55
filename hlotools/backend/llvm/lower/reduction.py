"""Reductions as elemental generators: the value of reduce / reduce-window at an output
index is an inner loop nest over the reduced dimensions (or the window) that folds the
inputs with the inlined reducer computation. Accumulators live in allocas of the entry
block, which LLVM's SROA turns into loop-carried registers. fold_reduced also folds a Tile
of adjacent outputs at once, each in the same order (lower/column_reduction.py).

Variadic reduces (several inputs, a tuple of accumulators) return a list of values.
reduce-window skips window positions that fall into padding or between dilated base
elements (XLA's evaluator: only real elements are combined with the init value).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import llvmlite.ir as ir
import numpy as np

from hlotools.backend.llvm.abi import layout_of
from hlotools.backend.llvm.codegen import dynamic_extent
from hlotools.backend.llvm.codegen.elemental import ElementalGen, Index, Value
from hlotools.backend.llvm.codegen.registry import EMITTERS, NO_INLINE, elemental
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.arith import QUIET_BIT, float_max_min
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range
from hlotools.backend.llvm.lower.data_movement import clamp_index
from hlotools.ir import semantics
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import REDUCERS, reducer_identity
from hlotools.ir.patterns import binary_reducer_opcode
from hlotools.ir.xla_reduce import init_applications, keeps_elements, reduce_stages, window_keeps_operand


def _accumulators(gen: ElementalGen, inits: list[ir.Value]) -> list[ir.Value]:
    eb = gen.fe.in_entry()
    slots = [eb.alloca(v.type) for v in inits]
    for s, v in zip(slots, inits):
        gen.b.store(v, s)
    return slots


def _as_list(v: Value) -> list[ir.Value]:
    return v if isinstance(v, list) else [v]


@elemental("reduce")
def _reduce(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    n = len(inst.operands) // 2
    inputs, inits = inst.operands[:n], inst.operands[n:]
    comp = inst.attrs["to_apply"]
    reduced = set(inst.attrs.get("dimensions", ()))
    src_shape = inputs[0].shape
    rank = len(src_shape.dims)
    init_vals = [gen.value_at(i, []) for i in inits]
    b = gen.b
    kept = [d for d in range(rank) if d not in reduced]
    src: list[ir.Value] = [c64(0)] * rank
    for d, i in zip(kept, index):
        src[d] = i
    if any(src_shape.dims[d] == 0 for d in reduced):
        return init_vals if n > 1 else init_vals[0]
    xla = semantics.xla_cpu()
    if xla and keeps_elements(src_shape.dims, sorted(reduced)):  # algsimp: a reshape, init unused
        with gen.region():
            vals = [gen.value_at(x, list(src)) for x in inputs]
        return vals if n > 1 else vals[0]
    if xla and n == 1 and _xla_order(inst, comp):
        return _xla_tree(gen, inst, comp, src, init_vals[0])
    slots = _accumulators(gen, init_vals)
    fold_reduced(gen, inst, src, slots, init_vals, dynamic_extent.read_stops(gen.fe, inst))
    if xla and n == 1:
        _extra_inits(gen, inst, comp, slots[0], init_vals[0])
    result = [b.load(s, typ=v.type) for s, v in zip(slots, init_vals)]
    return result if n > 1 else result[0]


@dataclass
class Tile:
    """Adjacent output elements folded in one pass (lower/column_reduction.py): operand dim
    `dim` (kept) runs over [start, start + width); accumulators are arrays of WIDTH there,
    and every step of the fold is a loop over the tile's columns (`column`, its variable)."""

    dim: int
    start: ir.Value
    width: ir.Value
    column: ir.Value | None = None


TILE_WIDTH = 64  # columns per pass: 16 f32 (or 8 f64) lanes x 64 columns = 4 KiB of accumulators


def alloc(gen: ElementalGen, ty: ir.Type, tile: Tile | None) -> ir.Value:
    """An accumulator in the entry block: one value, or one per column of the tile."""
    return gen.fe.in_entry().alloca(ty if tile is None else ir.ArrayType(ty, TILE_WIDTH))


def at(b: ir.IRBuilder, slot: ir.Value, tile: Tile | None) -> ir.Value:
    """The accumulator of the current column (inside `columns`)."""
    if tile is None:
        return slot
    assert tile.column is not None
    return b.gep(slot, [c64(0), tile.column], inbounds=True)


@contextmanager
def columns(gen: ElementalGen, tile: Tile | None, src: list[ir.Value]) -> Iterator[None]:
    """The body once (no tile) or once per column of the tile, src at that column; values
    built inside stay inside."""
    if tile is None:
        with gen.region():
            yield
        return
    with for_range(gen.b, 0, tile.width, name="rc") as j:
        tile.column = j
        src[tile.dim] = gen.b.add(tile.start, j, flags=["nsw"])
        with gen.region():
            yield
        tile.column = None


def fold_reduced(gen: ElementalGen, inst: Instruction, src: list[ir.Value], slots: list[ir.Value],
                 init_vals: list[ir.Value], stops: dict[int, ir.Value], tile: Tile | None = None) -> None:
    """slots = the fold of the reduced dims into them (src: the kept dims' index), in the
    order every path keeps: the reduced dims major to minor, the innermost in fixed lanes
    (lane_fold) or, below the lanes' size and under an outer reduced dim, as a partial row.
    With a tile the same fold runs for each of its columns, interleaved: the same bits."""
    n = len(inst.operands) // 2
    inputs = inst.operands[:n]
    comp = inst.attrs["to_apply"]
    reduced = set(inst.attrs.get("dimensions", ()))
    src_shape = inputs[0].shape
    b = gen.b
    order = [d for d in reversed(layout_of(src_shape)) if d in reduced]  # major -> minor

    def fold(into: list[ir.Value], vals: list[ir.Value]) -> None:
        accs = [b.load(at(b, s, tile), typ=v.type) for s, v in zip(into, init_vals)]
        out = _as_list(gen.apply(comp, accs + vals))
        for s, v in zip(into, out):
            b.store(v, at(b, s, tile))

    big = [d for d in order if src_shape.dims[d] > 1]
    lanes = lane_count(inst, comp) if order else 0
    inner = order[-1] if order else -1

    def level(k: int) -> None:
        if k == len(order):
            with columns(gen, tile, src):
                fold(slots, [gen.value_at(x, list(src)) for x in inputs])
            return
        d = order[k]
        if d == inner and lanes and src_shape.dims[d] >= 2 * lanes:
            lane_fold(gen, inst, comp, d, src, slots[0], lanes, stops.get(d), tile)
            return
        if len(big) >= 2 and d == big[-1] and n == 1:  # variadic: XLA's one sequential fold
            partial_row(d)
            return
        if src_shape.dims[d] == 1:
            src[d] = c64(0)
            level(k + 1)
            return
        with for_range(b, 0, stops.get(d, src_shape.dims[d]), name=f"r{d}") as iv:
            src[d] = iv
            level(k + 1)

    def partial_row(d: int) -> None:
        """The innermost reduced dim of a multi-dim reduction folds into a partial result
        that starts from its first element and is then folded into the accumulator: a
        two-level tree, so long f32 sums do not stall (XLA's order is a tree too; the
        reducer is associative as far as HLO promises)."""
        part = [alloc(gen, v.type, tile) for v in init_vals]
        with columns(gen, tile, src):
            src[d] = c64(0)
            for p, v in zip(part, [gen.value_at(x, list(src)) for x in inputs]):
                b.store(v, at(b, p, tile))
        with for_range(b, 1, src_shape.dims[d], name=f"rp{d}") as iv:
            src[d] = iv
            with columns(gen, tile, src):
                fold(part, [gen.value_at(x, list(src)) for x in inputs])
        with columns(gen, tile, src):
            fold(slots, [b.load(at(b, p, tile), typ=v.type) for p, v in zip(part, init_vals)])

    with gen.region():
        level(0)


# -- XLA CPU's order (ir/xla_reduce.py) ----------------------------------------------------

def _xla_order(inst: Instruction, comp: object) -> bool:
    """Whether a single-input reduce takes XLA CPU's exact tree: floats narrower than 32 bits
    (each step rounds, so the order shows: a running f16 sum of 5,000 ones stops at 2048) and
    reducers that are not a plain add/multiply/maximum/minimum/and/or/xor."""
    et = inst.operands[0].shape.element_type  # the result may be a 1-tuple (a reducer returning one)
    assert et is not None
    narrow = et.kind == "float" and et.bits < 32
    return narrow or binary_reducer_opcode(comp) not in REDUCERS  # type: ignore[arg-type]


def _xla_tree(gen: ElementalGen, inst: Instruction, comp: object, src: list[ir.Value],
              init: ir.Value) -> ir.Value:
    """The output element as XLA CPU computes it: the final sequential fold (layout order,
    from init) over the last stage's elements, each of which is its window's row-major fold
    (from init, padding skipped) over the stage before, down to the operand."""
    b = gen.b
    x = inst.operands[0]
    reduced = sorted(inst.attrs.get("dimensions", ()))
    stages = reduce_stages(inst)
    eb = gen.fe.in_entry()

    def combine(slot: ir.Value, v: ir.Value) -> None:
        with gen.region():
            b.store(_as_list(gen.apply(comp, [b.load(slot, typ=init.type), v]))[0], slot)  # type: ignore[arg-type]

    def value(level: int, idx: list[ir.Value]) -> ir.Value:
        if level == 0:
            with gen.region():
                return gen.value_at(x, list(idx))
        st = stages[level - 1]
        slot = eb.alloca(init.type)
        b.store(init, slot)
        pos = list(idx)
        dims = [d for d in reduced if st.window[d] > 1]

        def loops(k: int, inside: ir.Value | None) -> None:
            if k == len(dims):
                if inside is None:
                    combine(slot, value(level - 1, pos))
                    return
                with b.if_then(inside):
                    combine(slot, value(level - 1, pos))
                return
            d = dims[k]
            with for_range(b, 0, st.window[d], name=f"tw{level}_{d}") as w:
                p = b.add(b.mul(idx[d], c64(st.window[d])), w)
                p = b.sub(p, c64(st.pad_low[d])) if st.pad_low[d] else p
                pos[d] = p
                ok = b.and_(b.icmp_signed(">=", p, c64(0)), b.icmp_signed("<", p, c64(st.dims[d])))
                padded = st.pad_low[d] or st.out[d] * st.window[d] != st.dims[d]
                loops(k + 1, (ok if inside is None else b.and_(inside, ok)) if padded else inside)
        loops(0, None)
        return b.load(slot, typ=init.type)

    last = stages[-1].out if stages else x.shape.dims
    order = [d for d in reversed(layout_of(x.shape)) if d in reduced]  # major -> minor
    slot = eb.alloca(init.type)
    b.store(init, slot)
    pos = list(src)

    def final(k: int) -> None:
        if k == len(order):
            combine(slot, value(len(stages), pos))
            return
        d = order[k]
        with for_range(b, 0, last[d], name=f"tf{d}") as iv:
            pos[d] = iv
            final(k + 1)
    for d in reduced:
        pos[d] = c64(0)
    final(0)
    return b.load(slot, typ=init.type)


def _extra_inits(gen: ElementalGen, inst: Instruction, comp: object, slot: ir.Value, init: ir.Value) -> None:
    """acc = op(acc, init) as many more times as XLA CPU's tree applies init (once per window
    of every stage; never where YNNPACK takes the reduce), for add/multiply/xor whose init
    is not a constant identity (and/or/maximum/minimum are idempotent)."""
    if not extra_inits_apply(inst, comp):
        return
    b = gen.b
    with for_range(b, 1, init_applications(inst), name="xi"):
        with gen.region():
            b.store(_as_list(gen.apply(comp, [b.load(slot, typ=init.type), init]))[0], slot)  # type: ignore[arg-type]


def extra_inits_apply(inst: Instruction, comp: object) -> bool:
    """Whether _extra_inits applies init again (XLA CPU's semantics only)."""
    op = binary_reducer_opcode(comp)  # type: ignore[arg-type]
    return (init_applications(inst) > 1 and op in REDUCERS and not REDUCERS[op].idempotent
            and not _is_identity(inst.operands[1], op))  # type: ignore[arg-type]


def _is_identity(init: Instruction, op: str) -> bool:
    """Whether init is a constant equal to op's identity (0 for add/xor, 1 for multiply; by value)."""
    et = init.shape.element_type
    if init.opcode != "constant" or init.literal is None or et is None:
        return False
    value = np.asarray(init.literal.value())
    return value.size == 1 and bool(value.reshape(()) == reducer_identity(op, et.kind, et.bits))


# -- fixed lanes: a float reduction that vectorises with the same bits on every CPU --------

LANES = {32: 16, 64: 8}  # per float width: 64 bytes of accumulators, whatever the target's vectors (measured: 8 and 32 slower)


def lane_count(inst: Instruction, comp: object) -> int:
    """How many accumulators a single-input f32/f64 reduce with an add/multiply/maximum/minimum
    reducer folds its innermost reduced dim into (0: a plain sequential fold)."""
    et = inst.shape.element_type
    if len(inst.operands) != 2 or et is None or et.kind != "float" or et.bits not in LANES:
        return 0
    r = REDUCERS.get(binary_reducer_opcode(comp))  # type: ignore[arg-type]
    return LANES[et.bits] if r is not None and r.floating is not None else 0


def lane_fold(gen: ElementalGen, inst: Instruction, comp: object, d: int, src: list[ir.Value],
              slot: ir.Value, lanes: int, stop: ir.Value | None = None, tile: Tile | None = None) -> None:
    """acc = op(acc, fold of dim d), the fold in a fixed order that does not depend on the
    target: element i goes to accumulator i % lanes (each a sequential chain, never marked
    reassociable), the accumulators combine as a balanced tree (pairs of neighbours), then the
    leftover elements fold in sequence. The accumulators are an array and each step of the
    fold is a loop over it (`for j < lanes: acc[j] = op(acc[j], x[i + j])`, the element's code
    emitted once, not once per lane): its iterations are independent, so LLVM's loop
    vectoriser turns it into vector code of any width without reassociating anything (the
    same bits at x86-64-v2, -v3 and -v4), whether or not the SLP vectoriser runs; the tree
    is vector code too (neighbours by shuffles). Against unrolling the lanes for SLP: 1/16th
    of the IR and of LLVM's time on a fused row reduction, for the same machine code. Which
    NaN comes out is another matter: x86 returns the first operand's NaN and LLVM commutes
    operands as the target likes (SSE's two-operand forms), so a NaN result is replaced by the first NaN
    operand in sequence (a second pass that only runs then), as a sequential fold gives it;
    maximum/minimum are exact in any order otherwise. `stop`: a run-time length of dim d (at
    most its size: a bounded dynamic dim's), folded the same way. With a tile, each lane is
    a row of the tile's columns and the loop over the columns is the one that vectorises."""
    b = gen.b
    op = binary_reducer_opcode(comp)
    x = inst.operands[0]
    ty = types.value_type(inst.shape.element_type)  # type: ignore[arg-type]
    size: ir.Value | int = x.shape.dims[d] if stop is None else stop
    full: ir.Value | int = size - size % lanes if isinstance(size, int) else b.and_(size, c64(-lanes))
    identity = ir.Constant(ty, reducer_identity(op or "", "float", 32))
    lane_ty = ty if tile is None else ir.ArrayType(ty, TILE_WIDTH)
    aty = ir.ArrayType(lane_ty, lanes)
    acc = gen.fe.in_entry().alloca(aty)

    def lane(j: ir.Value | int) -> ir.Value:
        return at(b, b.gep(acc, [c64(0), j if isinstance(j, ir.Value) else c64(j)], inbounds=True), tile)
    if tile is None:
        b.store(ir.Constant(aty, [identity] * lanes), acc)
    else:
        for j in range(lanes):
            with columns(gen, tile, src):
                b.store(identity, lane(j))

    def combine(p: ir.Value, q: ir.Value) -> ir.Value:
        return _as_list(gen.apply(comp, [p, q]))[0]  # type: ignore[arg-type]
    step = _lane_step(b, comp, op, combine)

    with for_range(b, 0, full, step=lanes, name=f"rl{d}") as iv:
        with for_range(b, 0, lanes, name=f"rj{d}") as j:
            src[d] = b.add(iv, j, flags=["nsw"])
            with columns(gen, tile, src):
                ptr = lane(j)
                b.store(step(b.load(ptr, typ=ty), gen.value_at(x, list(src)), False), ptr)
    part = alloc(gen, ty, tile)
    if tile is None:
        b.store(_lane_tree(b, step, b.load(acc, typ=ir.VectorType(ty, lanes), align=8 if ty == types.F64 else 4)), part)
    else:  # the same tree per column, in place: lane k = step(lane 2k, lane 2k + 1)
        width = lanes
        while width > 1:
            width //= 2
            for k in range(width):
                with columns(gen, tile, src):
                    b.store(step(b.load(lane(2 * k), typ=ty), b.load(lane(2 * k + 1), typ=ty), True), lane(k))
        with columns(gen, tile, src):
            b.store(b.load(lane(0), typ=ty), at(b, part, tile))
    if not isinstance(full, int) or full < size:  # the leftovers in sequence (a loop: the element's code once, not size % lanes times)
        with for_range(b, full, size, name=f"rt{d}") as i:
            src[d] = i
            with columns(gen, tile, src):
                ptr = at(b, part, tile)
                b.store(combine(b.load(ptr, typ=ty), gen.value_at(x, list(src))), ptr)
    with columns(gen, tile, src):
        ptr = at(b, slot, tile)
        before = b.load(ptr, typ=ty)
        result = combine(before, b.load(at(b, part, tile), typ=ty))
        b.store(result, ptr)
        _first_nan_again(gen, x, d, src, ptr, before, result, ty, size)


def _lane_tree(b: ir.IRBuilder, step: Callable[[ir.Value, ir.Value, bool], ir.Value], tree: ir.Value) -> ir.Value:
    """The lanes of a vector combined as a balanced tree (lanes 2k and 2k + 1 into lane k, by
    shuffles): lane 0 of the last step."""
    width = tree.type.count
    while width > 1:
        width //= 2
        even = b.shuffle_vector(tree, tree, ir.Constant(ir.VectorType(types.I32, width), list(range(0, 2 * width, 2))))
        odd = b.shuffle_vector(tree, tree, ir.Constant(ir.VectorType(types.I32, width), list(range(1, 2 * width, 2))))
        tree = step(even, odd, True)
    return b.extract_element(tree, ir.Constant(types.I32, 0))


def _lane_step(b: ir.IRBuilder, comp: object, op: str | None,
               combine: Callable[[ir.Value, ir.Value], ir.Value]) -> Callable[[ir.Value, ir.Value, bool], ir.Value]:
    """step(acc, v, v_is_acc): `combine` (the reducer) on an accumulator and a value (or
    another accumulator), for lane_fold's lanes and tree, in less code where that cannot
    change the fold's result. When the reducer's first operand is the accumulator
    (f(a, b) = a + b, not b + a), the bits of a NaN in the lanes never reach the result:
    lane_fold's last step `before + part` quiets `before` when it is NaN, and a NaN result
    from a `before` that is not is replaced by the first NaN in sequence (_first_nan_again),
    or it is x86's one default NaN when no element is NaN. So add and multiply are a plain
    fadd / fmul there (no first-operand select: the loop-carried chain is one instruction).
    maximum/minimum never flush an accumulator to zero: it is a flushed operand, -inf/+inf
    or a NaN, never a denormal."""
    assert isinstance(comp, Computation) and comp.root is not None
    acc_first = comp.root.operands[0] is comp.parameters[0]
    raw = {"add": "fadd", "multiply": "fmul"}.get(op or "") if acc_first else None
    is_max = op == "maximum"

    def step(p: ir.Value, q: ir.Value, q_is_acc: bool) -> ir.Value:
        if raw is not None:
            return getattr(b, raw)(p, q)  # type: ignore[no-any-return]
        if op not in ("maximum", "minimum"):
            return combine(p, q)
        x, y, flush_x, flush_y = (p, q, False, not q_is_acc) if acc_first else (q, p, not q_is_acc, False)
        return float_max_min(b, x, y, is_max, flush_x, flush_y)
    return step


def _first_nan_again(gen: ElementalGen, x: Instruction, d: int, src: list[ir.Value], slot: ir.Value,
                     before: ir.Value, result: ir.Value, ty: ir.Type, size: ir.Value | int) -> None:
    """If the lanes' result is NaN and the accumulator before was not: slot = the first NaN
    of dim d, quieted (what the sequential fold keeps), if there is one (inf - inf makes a
    NaN of no operand: x86's default NaN, the same everywhere)."""
    b = gen.b
    again = b.and_(b.fcmp_unordered("uno", result, result), b.fcmp_ordered("ord", before, before))
    with b.if_then(again, likely=False):
        found = gen.fe.in_entry().alloca(ty)
        b.store(ir.Constant(ty, 0.0), found)
        with for_range(b, 0, size, name=f"rn{d}") as iv:
            src[d] = iv
            with gen.region():
                v = gen.value_at(x, list(src))
                f = b.load(found, typ=ty)
                take = b.and_(b.fcmp_ordered("ord", f, f), b.fcmp_unordered("uno", v, v))
                b.store(b.select(take, v, f), found)
        ity = ir.IntType(64 if ty == types.F64 else 32)
        quiet = ir.Constant(ity, QUIET_BIT[ity.width])
        f = b.load(found, typ=ty)
        first = b.bitcast(b.or_(b.bitcast(f, ity), quiet), ty)
        b.store(b.select(b.fcmp_unordered("uno", f, f), first, result), slot)


def _always_inside(w: object, out_size: int, src_size: int) -> bool:
    """Whether every window position of this dimension reads a real element (no padding,
    no base dilation holes) for every output index: then no inside test and no clamp."""
    if w.base_dilation != 1 or out_size == 0:  # type: ignore[attr-defined]
        return False
    low = -w.padding_low  # type: ignore[attr-defined]
    high = (out_size - 1) * w.stride + (w.size - 1) * w.window_dilation - w.padding_low  # type: ignore[attr-defined]
    return low >= 0 and high < src_size


def _window_position(b: ir.IRBuilder, out_index: ir.Value, wpos: ir.Value, w: object) -> ir.Value:
    """out_index * stride + wpos * window_dilation - padding_low (before base dilation),
    without the multiplications by one and additions of zero."""
    pos = out_index if w.stride == 1 else b.mul(out_index, c64(w.stride), flags=["nsw"])  # type: ignore[attr-defined]
    if not (isinstance(wpos, ir.Constant) and wpos.constant == 0):
        step = wpos if w.window_dilation == 1 else b.mul(wpos, c64(w.window_dilation), flags=["nsw"])  # type: ignore[attr-defined]
        pos = b.add(pos, step, flags=["nsw"])
    return pos if w.padding_low == 0 else b.sub(pos, c64(w.padding_low), flags=["nsw"])  # type: ignore[attr-defined]


@elemental("reduce-window")
def _reduce_window(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    """Small windows (pooling) are unrolled with the accumulators in registers: LLVM's loop
    unrolling is off, and a window loop inside the output loop kept the output loop from
    vectorising. Dimensions whose window never leaves the base (no padding, no base
    dilation; decided statically from the output size) get no inside test and no clamp,
    which leaves a max-pool as loads and maxima only."""
    n = len(inst.operands) // 2
    inputs, inits = inst.operands[:n], inst.operands[n:]
    comp = inst.attrs["to_apply"]
    window = inst.attrs["window"].dims if inst.attrs.get("window") is not None else ()
    src_dims = inputs[0].shape.dims
    rank = len(src_dims)
    init_vals = [gen.value_at(i, []) for i in inits]
    b = gen.b
    if any(d == 0 for d in src_dims):
        return init_vals if n > 1 else init_vals[0]
    if semantics.xla_cpu() and window_keeps_operand(rank):  # XLA: the operand, no init
        with gen.region():
            vals = [gen.value_at(x, []) for x in inputs]
        return vals if n > 1 else vals[0]
    out_dims = inst.shape.leaves()[0].dims
    exact = [_always_inside(window[d], out_dims[d], src_dims[d]) for d in range(rank)]
    window_size = 1
    for w in window:
        window_size *= w.size
    unroll = window_size <= 16
    slots = None if unroll else _accumulators(gen, init_vals)
    regs = list(init_vals)  # the accumulators of an unrolled window
    wpos: list[ir.Value] = [c64(0)] * rank

    def body() -> None:
        inside: ir.Value | None = None
        src = []
        for d in range(rank):
            w = window[d]
            pos = _window_position(b, index[d], wpos[d], w)
            if exact[d]:
                src.append(pos)
                continue
            tests = []
            if w.base_dilation > 1:
                tests.append(b.icmp_signed("==", b.srem(pos, c64(w.base_dilation)), c64(0)))
                pos = b.sdiv(pos, c64(w.base_dilation))
            tests += [b.icmp_signed(">=", pos, c64(0)), b.icmp_signed("<", pos, c64(src_dims[d]))]
            for t in tests:
                inside = t if inside is None else b.and_(inside, t)
            src.append(clamp_index(b, pos, 0, src_dims[d] - 1))
        with gen.region():
            vals = [gen.value_at(x, src) for x in inputs]
            accs = regs if slots is None else [b.load(s, typ=v.type) for s, v in zip(slots, init_vals)]
            out = _as_list(gen.apply(comp, accs + vals))
            new = out if inside is None else [b.select(inside, o, a) for o, a in zip(out, accs)]
            if slots is None:
                regs[:] = new
            else:
                for s, v in zip(slots, new):
                    b.store(v, s)

    def level(d: int) -> None:
        if d == rank:
            body()
            return
        if window[d].size == 1 or unroll:
            for k in range(window[d].size):
                wpos[d] = c64(k)
                level(d + 1)
            return
        with for_range(b, 0, window[d].size, name=f"w{d}") as iv:
            wpos[d] = iv
            level(d + 1)
    with gen.region():
        level(0)
    result = regs if slots is None else [b.load(s, typ=v.type) for s, v in zip(slots, init_vals)]
    return result if n > 1 else result[0]


NO_INLINE.update({"reduce", "reduce-window"})


def _emit_select_and_scatter(fe: object, inst: Instruction) -> None:
    """Per source position: pick the window element `select` prefers (the first valid one,
    replaced by a later e whenever select(current, e) is false), then combine the source
    value into the output there with `scatter`; padding positions are never selected and
    other positions keep init (XLA's semantics)."""
    from hlotools.backend.llvm.codegen.function import FunctionEmitter
    from hlotools.backend.llvm.llvm_ir import types
    from hlotools.backend.llvm.llvm_ir.loops import loop_nest
    assert isinstance(fe, FunctionEmitter)
    operand, source, init = inst.operands
    select, scatter = inst.attrs["select"], inst.attrs["scatter"]
    window = inst.attrs["window"].dims if inst.attrs.get("window") is not None else ()
    out = fe.leaf_ptrs(inst)[0]
    b = fe.b
    gen = fe.gen
    dims = operand.shape.dims
    rank = len(dims)

    def fill(index: list[ir.Value]) -> None:
        with gen.region():
            fe.store_element(gen.value_at(init, []), out, inst.shape, index)
    loop_nest(b, inst.shape, fill)
    et = operand.shape.element_type
    assert et is not None
    eb = fe.in_entry()
    best_val = eb.alloca(types.value_type(et))
    best_idx = [eb.alloca(types.I64) for _ in range(rank)]
    have = eb.alloca(types.I1)
    if any(d == 0 for d in dims):
        return

    def per_source(sidx: list[ir.Value]) -> None:
        b.store(ir.Constant(types.I1, 0), have)
        wpos: list[ir.Value] = [c64(0)] * rank

        def body() -> None:
            with gen.region():
                inside: ir.Value = ir.Constant(types.I1, 1)
                pos = []
                for d in range(rank):
                    w = window[d]
                    p = b.sub(b.add(b.mul(sidx[d], c64(w.stride)), wpos[d]), c64(w.padding_low))
                    inside = b.and_(inside, b.and_(b.icmp_signed(">=", p, c64(0)), b.icmp_signed("<", p, c64(dims[d]))))
                    pos.append(clamp_index(b, p, 0, dims[d] - 1))
                v = gen.value_at(operand, pos)
                had = b.load(have, typ=types.I1)
                cur = b.load(best_val, typ=best_val.allocated_type)
                keep = gen.apply(select, [cur, v])
                keep = keep[0] if isinstance(keep, list) else keep
                take = b.and_(inside, b.or_(b.not_(had), b.not_(keep)))
                b.store(b.select(take, v, cur), best_val)
                for d in range(rank):
                    old = b.load(best_idx[d], typ=types.I64)
                    b.store(b.select(take, pos[d], old), best_idx[d])
                b.store(b.or_(had, inside), have)

        def level(d: int) -> None:
            if d == rank:
                body()
                return
            with for_range(b, 0, window[d].size, name=f"sw{d}") as iv:
                wpos[d] = iv
                level(d + 1)
        level(0)
        with b.if_then(b.load(have, typ=types.I1)):
            with gen.region():
                idx = [b.load(p, typ=types.I64) for p in best_idx]
                old = fe.load_element(out, inst.shape, idx)
                r = gen.apply(scatter, [old, gen.value_at(source, sidx)])
                fe.store_element(r[0] if isinstance(r, list) else r, out, inst.shape, idx)
    loop_nest(b, source.shape, per_source)


EMITTERS.add("select-and-scatter", _emit_select_and_scatter)
