"""reduce-window as a module-independent, descriptor-driven kernel of the runtime library
(compiled once per machine, as kernels/conv.py's im2col), so a module's pooling layer costs
it a descriptor (a constant of i64 fields) and a call instead of a JIT'd loop nest (~10 ms
of LLVM time per reduce-window: big_conv's maxpool loop).

    void reduce_window.<type>(ptr desc, i64 begin, i64 end)      (parallel.WORKER_TYPE)

computes the output rows [begin, end) of any reduce-window with one operand and one init
value whose reducer is add, multiply, maximum or minimum (F_OP), any rank up to MAX_RANK,
any window size, stride, padding (negative too), window and base dilation, any input and
output layout (element strides in the descriptor). `desc` points at {ptr fields, ptr src,
ptr dst, ptr init} (D_*): the init value is read at run time from its buffer.

Semantics, those of emit_reduce's elemental generator: per output element, acc = init,
then acc = op(acc, x) for every window position in row-major order of the logical window
dims, skipping positions in the padding or between base-dilated elements; float add and
multiply round at each step in that order (no reassociation, as in the elemental loop: bit
for bit the same, on every CPU),
float maximum/minimum are emit_arith.float_max_min (the accumulator's NaN wins, quieted;
-0 < +0; the same bits on every CPU), integer maximum/minimum compare signed or unsigned as
emit_arith's do, integer add and multiply wrap.

How it runs. A row is one index of every output dim but the innermost physical one (j);
rows are the tasks (an odometer walks them; divisions only at `begin`). The window's
element offsets relative to a position that sees no padding (`rel`, in window order) are
tabulated once per call; the descriptor holds, per output dim, the index range [lo, hi)
whose windows stay inside the base (no base dilation). For an interior row the j indices
in [lo_j, hi_j) then read base + rel[k]; a row with padding lists the offsets of its
window's real elements once (the `fill` function: same order, padding skipped), valid for
all of [lo_j, hi_j) since along j those windows stay inside; j outside [lo_j, hi_j) fill
their own list (`fold1`, one element at a time). When j has unit input and output steps
(channels of an NHWC pooling: window 1, stride 1) the j range runs as explicit vectors of
CHUNK_BYTES (the remainder as one masked vector), each accumulator in registers while it
folds the window list, so the per-element order is unchanged; interior rows of such a run
go PAIR at a time (independent dependency chains). Otherwise j runs one element at a time.
An init value that is op's identity (-inf for maximum, -0 for add, ...) is left out of the
fold, as LLVM folds op(x, identity) in the elemental loop: same bits.

Build: ~0.54 s per type on this host (znver4; four reducers, each one copy of the loops).

Windows of more than CAP elements are not handled (the caller keeps the JIT loop).
"""
from __future__ import annotations

import struct
from collections.abc import Callable

import llvmlite.ir as ir

from hlotools.backend.llvm.kernels import library as runtime_library
from hlotools.backend.llvm.kernels import parallel_for
from hlotools.backend.llvm.kernels.conv import undilated
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.arith import float_max_min
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range
from hlotools.ir.opcodes import reducer_identity
from hlotools.ir.types import ELEMENT_TYPES, ElementType

MAX_RANK = 8
CAP = 1024  # window elements: the offset lists live on the stack (i64 each)
CHUNK_BYTES = 128  # the vector accumulator of a row (2 zmm / 4 ymm registers), the rest masked
PAIR = 2  # interior rows folded together (independent dependency chains)
TYPES = ("f32", "f64", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64")
OPS = ("add", "multiply", "maximum", "minimum")
(D_STATIC, D_SRC, D_DST, D_INIT) = range(4)
(F_OP, F_W, F_BASE0, F_UNIT) = range(4)
F_ROW = 4  # MAX_RANK row levels, the output dims in physical order (outer first; j last):
(R_SIZE, R_IN_STEP, R_OUT_STRIDE, R_LO, R_HI, R_SLOT) = range(6)
ROW_FIELDS = 6
F_WIN = F_ROW + ROW_FIELDS * MAX_RANK  # MAX_RANK window dims, in logical order (slots):
(W_SIZE, W_STRIDE, W_PADLO, W_WDIL, W_BDIL, W_IN_SIZE, W_IN_STRIDE) = range(7)
WIN_FIELDS = 7
FIELDS = F_WIN + WIN_FIELDS * MAX_RANK
JUNK_SLOT = MAX_RANK  # the output-index slot of padding row levels (never read)
DUMMY_ROW = (1, 0, 0, 0, 1, JUNK_SLOT)
DUMMY_WIN = (1, 0, 0, 0, 1, 1, 0)


def name(ct: ElementType) -> str:
    return f"reduce_window.{ct.name}"


def group_name(ct: ElementType) -> str:
    """The runtime library group defining the kernel of `ct` (one function)."""
    return name(ct)


def supported_type(type_name: str) -> bool:
    return type_name in TYPES


def function(module: ir.Module, ct: ElementType) -> ir.Function:
    """The kernel of `ct` in `module`: declared while the JIT compiles (the runtime library
    defines it once per process), else defined here (internal: AOT objects)."""
    fn = module.globals.get(name(ct))
    if fn is None:
        fn = ir.Function(module, parallel_for.WORKER_TYPE, name(ct))
        if not runtime_library.external():
            fn.linkage = "internal"
            _build(fn, ct)
    assert isinstance(fn, ir.Function)
    return fn


def define_runtime(module: ir.Module, ct: ElementType) -> list[str]:
    """The runtime library's group `reduce_window.<type>`: the kernel, exported."""
    _build(ir.Function(module, parallel_for.WORKER_TYPE, name(ct)), ct)
    return [name(ct)]


def element_type(type_name: str) -> ElementType:
    return ELEMENT_TYPES[type_name]


class _Fields:
    """Loads of the descriptor's static fields (in the entry block: once per call)."""

    def __init__(self, b: ir.IRBuilder, desc: ir.Value) -> None:
        self.b = b
        self.p = b.load(b.gep(desc, [c64(D_STATIC)], source_etype=types.PTR), typ=types.PTR)

    def __call__(self, k: int) -> ir.Value:
        return self.b.load(self.b.gep(self.p, [c64(k)], source_etype=types.I64), typ=types.I64)

    def rows(self) -> list[list[ir.Value]]:
        return [[self(F_ROW + ROW_FIELDS * q + f) for f in range(ROW_FIELDS)] for q in range(MAX_RANK)]

    def window(self) -> list[list[ir.Value]]:
        return [[self(F_WIN + WIN_FIELDS * q + f) for f in range(WIN_FIELDS)] for q in range(MAX_RANK)]


def _pointer(b: ir.IRBuilder, desc: ir.Value, k: int) -> ir.Value:
    return b.load(b.gep(desc, [c64(k)], source_etype=types.PTR), typ=types.PTR)


def internal_function(module: ir.Module, fnty: ir.FunctionType, fname: str, small: bool = False) -> ir.Function:
    g = ir.Function(module, fnty, fname)
    g.linkage = "internal"
    g.attributes.add("noinline")
    if small:
        g.attributes.add("optsize")
    return g


def _build(fn: ir.Function, ct: ElementType) -> None:
    """The worker: tabulate `rel`, read the init value, then the body of the reducer (one
    internal function per op, each a specialised copy of the loops)."""
    module = fn.module
    vty = types.value_type(ct)
    rel_fn = internal_function(module, ir.FunctionType(ir.VoidType(), [types.PTR, types.PTR]), f"{fn.name}.rel", small=True)
    fill_fn = internal_function(module, ir.FunctionType(types.I64, [types.PTR, types.PTR, types.PTR]), f"{fn.name}.fill", small=True)
    _build_window_walk(rel_fn, checked=False)
    _build_window_walk(fill_fn, checked=True)
    body_ty = ir.FunctionType(ir.VoidType(), [types.PTR, types.I64, types.I64, types.PTR, types.PTR, types.PTR, vty])
    bodies = []
    fold_ty = ir.FunctionType(vty, [types.PTR, types.I64, types.PTR, vty, types.I1])
    for op in OPS:
        body = internal_function(module, body_ty, f"{fn.name}.{op}")
        for a in body.args[3:5]:
            a.add_attribute("noalias")
        fold1 = internal_function(module, fold_ty, f"{fn.name}.{op}.fold1", small=True)
        _build_scalar_fold(fold1, ct, op)
        _build_body(body, ct, op, fill_fn, fold1)
        bodies.append(body)
    desc, begin, end = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    f = _Fields(b, desc)
    rel = b.alloca(types.I64, size=c64(CAP), name="rel")
    b.call(rel_fn, [desc, rel])
    init = types.load(b, _pointer(b, desc, D_INIT), ct)
    args = [desc, begin, end, _pointer(b, desc, D_SRC), _pointer(b, desc, D_DST), rel, init]
    done = fn.append_basic_block("done")
    sw = b.switch(f(F_OP), done)
    for k, body in enumerate(bodies):
        blk = fn.append_basic_block(OPS[k])
        sw.add_case(c64(k), blk)
        b.position_at_end(blk)
        b.call(body, args)
        b.branch(done)
    b.position_at_end(done)
    b.ret_void()


def _build_window_walk(fn: ir.Function, checked: bool) -> None:
    """The window positions in row-major order of the logical dims (slots 0..MAX_RANK-1).

    checked=False: `void rel(desc, out)`: out[k] = sum_q w_q * wdil_q * in_stride_q, the
    offset of position k from the window's first element when nothing is padding.
    checked=True: `i64 fill(desc, oidx, out)`: for the output index in oidx (slot order),
    the input offsets of the positions that read a real element (emit_reduce's test:
    pos = o * stride - padlo + w * wdil must divide by the base dilation, and the quotient
    lie in [0, in_size)); returns their count. A position outside in one dim skips the
    whole sub-window of the inner dims."""
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    desc = fn.args[0]
    oidx = fn.args[1] if checked else None
    out = fn.args[2] if checked else fn.args[1]
    f = _Fields(b, desc)
    win = f.window()
    count = b.alloca(types.I64, name="count")
    b.store(c64(0), count)
    bases = []
    if oidx is not None:
        for q in range(MAX_RANK):
            o = b.load(b.gep(oidx, [c64(q)], source_etype=types.I64), typ=types.I64)
            bases.append(b.sub(b.mul(o, win[q][W_STRIDE]), win[q][W_PADLO]))

    def level(q: int, off: ir.Value) -> None:
        if q == MAX_RANK:
            k = b.load(count, typ=types.I64)
            b.store(off, b.gep(out, [k], source_etype=types.I64))
            b.store(b.add(k, c64(1)), count)
            return
        size, _stride, _padlo, wdil, bdil, in_size, in_stride = win[q]
        with for_range(b, 0, size, name=f"w{q}") as w:
            if oidx is None:
                level(q + 1, b.add(off, b.mul(b.mul(w, wdil), in_stride)))
            else:
                ok, pos = undilated(b, b.add(bases[q], b.mul(w, wdil)), bdil)
                inside = b.and_(ok, b.and_(b.icmp_signed(">=", pos, c64(0)), b.icmp_signed("<", pos, in_size)))
                with b.if_then(inside):
                    level(q + 1, b.add(off, b.mul(pos, in_stride)))
    level(0, c64(0))
    if checked:
        b.ret(b.load(count, typ=types.I64))
    else:
        b.ret_void()


# -- the reducer on scalars and vectors -------------------------------------------------------

def combiner(b: ir.IRBuilder, ct: ElementType, op: str) -> Callable[[ir.Value, ir.Value], ir.Value]:
    """op(acc, x) on values of ct's value type or vectors of them."""
    if ct.kind == "float":
        if op == "add":
            return lambda x, y: b.fadd(x, y)
        if op == "multiply":
            return lambda x, y: b.fmul(x, y)
        is_max = op == "maximum"
        return lambda x, y: float_max_min(b, x, y, is_max)
    if op == "add":
        return lambda x, y: b.add(x, y)
    if op == "multiply":
        return lambda x, y: b.mul(x, y)
    cmp = b.icmp_signed if ct.kind == "signed" else b.icmp_unsigned
    rel = ">=" if op == "maximum" else "<="
    return lambda x, y: b.select(cmp(rel, x, y), x, y)


def _masked(b: ir.IRBuilder, what: str, vty: ir.VectorType, args: list[ir.Value]) -> ir.Value:
    """llvm.masked.load / llvm.masked.store of vector type vty (opaque pointers)."""
    el = vty.element
    suffix = f"v{vty.count}" + ("f64" if el == types.F64 else "f32" if el == types.F32 else f"i{el.width}")
    name = f"llvm.masked.{what}.{suffix}.p0"
    fn = b.module.globals.get(name)
    if fn is None:
        mty = ir.VectorType(types.I1, vty.count)
        fnty = (ir.FunctionType(vty, [types.PTR, types.I32, mty, vty]) if what == "load"
                else ir.FunctionType(ir.VoidType(), [vty, types.PTR, types.I32, mty]))
        fn = ir.Function(b.module, fnty, name)
    return b.call(fn, args)


def identity(ct: ElementType, op: str) -> int | float:
    """The value x with op(acc, x) == acc bit for bit for every acc that is not NaN (-0 for
    float add: +0 + -0 = +0): the opcode table's reducer identity."""
    value = reducer_identity(op, ct.kind, ct.bits)
    assert isinstance(value, (int, float)) and not isinstance(value, bool)  # TYPES: real numbers
    return value


def _is_identity(b: ir.IRBuilder, ct: ElementType, op: str, init: ir.Value) -> ir.Value:
    """Whether the init value is op's identity (compared bit for bit: -0 is not +0)."""
    value = identity(ct, op)
    if ct.kind != "float":
        return b.icmp_unsigned("==", init, ir.Constant(init.type, int(value) & ((1 << ct.bits) - 1)))
    fmt, ity = ("<d", types.I64) if ct.bits == 64 else ("<f", types.I32)
    bits = int.from_bytes(struct.pack(fmt, value), "little")
    return b.icmp_unsigned("==", b.bitcast(init, ity), ir.Constant(ity, bits))


# -- the body: rows, the j range, the window fold ----------------------------------------------

class _Body:
    """Emits one reducer's body: `void body(desc, begin, end, src, dst, rel, init)`."""

    def __init__(self, fn: ir.Function, ct: ElementType, op: str, fill: ir.Function, fold1: ir.Function) -> None:
        self.fn = fn
        self.ct = ct
        self.sty = types.value_type(ct)
        self.esize = max(1, ct.bits // 8)
        self.desc, self.begin, self.end, self.src, self.dst, self.rel, self.init = fn.args
        self.b = ir.IRBuilder(fn.append_basic_block("entry"))
        self.op = combiner(self.b, ct, op)
        self.fill_fn = fill
        self.fold1 = fold1
        f = _Fields(self.b, self.desc)
        self.W, self.base0, self.unit = f(F_W), f(F_BASE0), f(F_UNIT)
        self.rows = f.rows()
        b = self.b
        self.skip = _is_identity(b, ct, op, self.init)
        self.idx = b.alloca(types.I64, size=c64(MAX_RANK - 1), name="idx")
        self.oidx = b.alloca(types.I64, size=c64(MAX_RANK + 1), name="oidx")
        self.offs = b.alloca(types.I64, size=c64(CAP), name="offs")
        self.t = b.alloca(types.I64, name="task")
        self.i = b.alloca(types.I64, name="i")
        self.count = b.alloca(types.I64, name="count")
        self.big = max(1, CHUNK_BYTES // self.esize)
        self.acc_slot: dict[tuple[int, int], ir.Value] = {}  # per (vector width, row): SROA promotes them
        for lanes in (self.big,):
            ty = self.sty if lanes == 1 else ir.VectorType(self.sty, lanes)
            for r in range(PAIR):
                self.acc_slot[lanes, r] = b.alloca(ty, name=f"acc{lanes}.{r}")

    def slot_ptr(self, arr: ir.Value, k: ir.Value | int) -> ir.Value:
        return self.b.gep(arr, [c64(k) if isinstance(k, int) else k], source_etype=types.I64)

    def emit(self) -> None:
        """Rows [begin, end) in runs along the last task level (I = MAX_RANK - 2): the outer
        levels' part of a row's offsets and interior test once per run, then a few adds per
        row; an odometer over the outer levels between runs (divisions only for `begin`)."""
        b = self.b
        last = MAX_RANK - 2
        for q in range(MAX_RANK + 1):
            b.store(c64(0), self.slot_ptr(self.oidx, q))
        rest: ir.Value = self.begin
        for q in range(last, -1, -1):
            size = self.rows[q][R_SIZE]
            b.store(b.urem(rest, size), self.slot_ptr(self.idx, q))
            rest = b.udiv(rest, size)
        t = self.t
        b.store(self.begin, t)
        now, head, exit_ = self.while_below("run", t, self.end)
        rin, rout, inside = self.base0, c64(0), ir.Constant(types.I1, 1)
        for q in range(last):
            rin, rout, inside = self.level(q, b.load(self.slot_ptr(self.idx, q), typ=types.I64), rin, rout, inside)
        i0 = b.load(self.slot_ptr(self.idx, last), typ=types.I64)
        size = self.rows[last][R_SIZE]
        left = b.sub(size, i0)
        rows = b.sub(self.end, now)
        count = b.select(b.icmp_signed("<", left, rows), left, rows)
        self.run(i0, b.add(i0, count), rin, rout, inside)
        b.store(b.add(now, count), t)
        self.advance()
        b.branch(head)
        b.position_at_end(exit_)
        b.ret_void()

    def while_below(self, name: str, slot: ir.Value, stop: ir.Value) -> tuple[ir.Value, ir.Block, ir.Block]:
        """Open `while (*slot < stop)`: (*slot as loaded in the head, the head, the exit
        block), the builder in the body; the caller updates the slot and branches back."""
        b = self.b
        head = self.fn.append_basic_block(f"{name}.head")
        body = self.fn.append_basic_block(f"{name}.body")
        exit_ = self.fn.append_basic_block(f"{name}.exit")
        b.branch(head)
        b.position_at_end(head)
        now = b.load(slot, typ=types.I64)
        b.cbranch(b.icmp_signed("<", now, stop), body, exit_)
        b.position_at_end(body)
        return now, head, exit_

    def run(self, start: ir.Value, stop: ir.Value, rin: ir.Value, rout: ir.Value, inside: ir.Value) -> None:
        """Rows start..stop-1 of the last task level. Interior rows whose j range needs no
        edges and runs as vectors go PAIR at a time (independent chains: the fold of one
        row waits on its accumulator)."""
        b = self.b
        last = MAX_RANK - 2
        nj, _step, _ostride, lo_j, hi_j, _slot = self.rows[MAX_RANK - 1]
        _size, in_step, out_stride, lo, hi, _slot_i = self.rows[last]
        simple = b.and_(b.and_(inside, b.icmp_signed("!=", self.unit, c64(0))),
                        b.and_(b.icmp_signed("==", lo_j, c64(0)), b.icmp_signed("==", hi_j, nj)))
        # the pairs: i in [a, z) with every row interior along this level too
        a = b.select(b.icmp_signed(">", lo, start), lo, start)
        z = b.select(b.icmp_signed("<", hi, stop), hi, stop)
        npairs = b.select(b.and_(simple, b.icmp_signed("<", a, z)), b.sdiv(b.sub(z, a), c64(PAIR)), c64(0))
        a = b.select(b.icmp_signed(">", npairs, c64(0)), a, stop)
        z = b.add(a, b.mul(npairs, c64(PAIR)))
        # one loop: a row at a time outside [a, z), PAIR rows at a time inside
        i_slot = self.i
        b.store(start, i_slot)
        i, head, done = self.while_below("rows", i_slot, stop)
        paired = b.and_(b.icmp_signed(">=", i, a), b.icmp_signed("<", i, z))
        with b.if_else(paired) as (pair, single):
            with pair:
                self.pairs(i, rin, rout, in_step, out_stride, nj)
            with single:
                self.row(*self.level(last, i, rin, rout, inside))
        b.store(b.add(i, b.select(paired, c64(PAIR), c64(1))), i_slot)
        b.branch(head)
        b.position_at_end(done)

    def pairs(self, i: ir.Value, rin: ir.Value, rout: ir.Value, in_step: ir.Value, out_stride: ir.Value,
              m: ir.Value) -> None:
        """Rows i..i+PAIR-1 (interior, all of j as vectors) folded together."""
        b = self.b
        rows = []
        for r in range(PAIR):
            ir_ = b.add(i, c64(r))
            rows.append((b.gep(self.src, [b.add(rin, b.mul(ir_, in_step))], source_etype=self.sty),
                         b.gep(self.dst, [b.add(rout, b.mul(ir_, out_stride))], source_etype=self.sty)))
        self.chunks(self.rel, self.W, rows, m)

    def level(self, q: int, i: ir.Value, rin: ir.Value, rout: ir.Value, inside: ir.Value
              ) -> tuple[ir.Value, ir.Value, ir.Value]:
        """Task level q at index i: its part of the offsets and of the interior test."""
        b = self.b
        _size, in_step, out_stride, lo, hi, slot = self.rows[q]
        b.store(i, self.slot_ptr(self.oidx, slot))
        inside = b.and_(inside, b.and_(b.icmp_signed(">=", i, lo), b.icmp_signed("<", i, hi)))
        return b.add(rin, b.mul(i, in_step)), b.add(rout, b.mul(i, out_stride)), inside

    def row(self, rin: ir.Value, rout: ir.Value, inside: ir.Value) -> None:
        b = self.b
        nj, step, ostride, lo, hi, slot = self.rows[MAX_RANK - 1]
        self.edges(c64(0), lo, rout, ostride, slot)
        with b.if_then(b.icmp_signed("<", lo, hi)):
            # interior rows read rel from the row's base; others list their window once
            count = self.count
            b.store(self.W, count)
            with b.if_then(b.not_(inside)):
                b.store(lo, self.slot_ptr(self.oidx, slot))
                b.store(b.call(self.fill_fn, [self.desc, self.oidx, self.offs]), count)
            lst = b.select(inside, self.rel, self.offs)
            first = b.select(inside, b.add(rin, b.mul(lo, step)), c64(0))
            self.middle(lst, b.load(count, typ=types.I64), first, rout, lo, hi, step, ostride)
        self.edges(hi, nj, rout, ostride, slot)

    def advance(self) -> None:
        """After a run: the last task level restarts at 0 and the outer levels count on
        (an odometer, innermost first)."""
        b = self.b
        last = MAX_RANK - 2
        b.store(c64(0), self.slot_ptr(self.idx, last))
        done = self.fn.append_basic_block("adv.done")
        for q in range(last - 1, -1, -1):
            p = self.slot_ptr(self.idx, q)
            v = b.add(b.load(p, typ=types.I64), c64(1))
            carry = b.icmp_signed(">=", v, self.rows[q][R_SIZE])
            b.store(b.select(carry, c64(0), v), p)
            nxt = self.fn.append_basic_block(f"adv.{q}")
            b.cbranch(carry, nxt, done)
            b.position_at_end(nxt)
        b.branch(done)
        b.position_at_end(done)

    def edges(self, start: ir.Value, stop: ir.Value, rout: ir.Value, ostride: ir.Value, slot: ir.Value) -> None:
        """j in [start, stop): windows that may leave the base along j: one list each."""
        b = self.b
        with for_range(b, start, stop, name="edge") as j:
            b.store(j, self.slot_ptr(self.oidx, slot))
            n = b.call(self.fill_fn, [self.desc, self.oidx, self.offs])
            acc = b.call(self.fold1, [self.offs, n, self.src, self.init, self.skip])
            b.store(acc, b.gep(self.dst, [b.add(rout, b.mul(j, ostride))], source_etype=self.sty))

    def middle(self, lst: ir.Value, n: ir.Value, first: ir.Value, rout: ir.Value, lo: ir.Value, hi: ir.Value,
               step: ir.Value, ostride: ir.Value) -> None:
        """j in [lo, hi) (lo < hi): window k of j reads first + (j - lo) * step + lst[k]."""
        b = self.b
        out0 = b.add(rout, b.mul(lo, ostride))
        m = b.sub(hi, lo)
        with b.if_else(b.icmp_signed("!=", self.unit, c64(0))) as (vector, scalar):
            with vector:
                self.chunks(lst, n, [(b.gep(self.src, [first], source_etype=self.sty),
                                      b.gep(self.dst, [out0], source_etype=self.sty))], m)
            with scalar:
                with for_range(b, 0, m, name="mid") as jj:
                    src = b.gep(self.src, [b.add(first, b.mul(jj, step))], source_etype=self.sty)
                    acc = b.call(self.fold1, [lst, n, src, self.init, self.skip])
                    b.store(acc, b.gep(self.dst, [b.add(out0, b.mul(jj, ostride))], source_etype=self.sty))

    def chunks(self, lst: ir.Value, n: ir.Value, rows: list[tuple[ir.Value, ir.Value]], m: ir.Value) -> None:
        """Unit steps: m consecutive outputs of each row (src, dst) as vectors of `big`
        lanes, the rest as one masked vector (masked loads never touch memory past the
        row)."""
        b = self.b
        big = self.big
        full = b.mul(b.udiv(m, c64(big)), c64(big))
        with for_range(b, 0, full, step=big, name="chunk") as c:
            self.chunk(big, lst, n, rows, c)
        rest = b.sub(m, full)
        with b.if_then(b.icmp_signed(">", rest, c64(0))):
            vty = ir.VectorType(types.I64, big)
            lanes = ir.Constant(vty, list(range(big)))
            splat = b.shuffle_vector(b.insert_element(ir.Constant(vty, ir.Undefined), rest, ir.Constant(types.I32, 0)),
                                     ir.Constant(vty, ir.Undefined), ir.Constant(ir.VectorType(types.I32, big), None))
            self.chunk(big, lst, n, rows, full, b.icmp_signed("<", lanes, splat))

    def chunk(self, lanes: int, lst: ir.Value, n: ir.Value, rows: list[tuple[ir.Value, ir.Value]],
              c: ir.Value, mask: ir.Value | None = None) -> None:
        b = self.b
        accs = self.fold(lanes, lst, n, [b.gep(src, [c], source_etype=self.sty) for src, _ in rows], mask)
        for acc, (_, dst) in zip(accs, rows):
            ptr = b.gep(dst, [c], source_etype=self.sty)
            if mask is None:
                self.store(acc, ptr, lanes)
            else:
                _masked(b, "store", acc.type, [acc, ptr, ir.Constant(types.I32, self.esize), mask])

    def fold(self, lanes: int, lst: ir.Value, n: ir.Value, srcs: list[ir.Value],
             mask: ir.Value | None = None) -> list[ir.Value]:
        """Per row r: acc = init; acc = op(acc, srcs[r][lst[k]]) for k < n (`lanes`
        consecutive elements at once; several rows give independent chains)."""
        b = self.b
        ty = self.sty if lanes == 1 else ir.VectorType(self.sty, lanes)
        slots = [self.acc_slot[lanes, r] for r in range(len(srcs))]
        init: ir.Value = self.init
        if lanes > 1:
            init = b.insert_element(ir.Constant(ty, ir.Undefined), self.init, ir.Constant(types.I32, 0))
            init = b.shuffle_vector(init, ir.Constant(ty, ir.Undefined), ir.Constant(ir.VectorType(types.I32, lanes), None))
        for slot in slots:
            b.store(init, slot)
        first = b.and_(self.skip, b.icmp_signed(">", n, c64(0)))
        def load(ptr: ir.Value) -> ir.Value:
            if mask is None:
                return b.load(ptr, typ=ty, align=self.esize)
            return _masked(b, "load", ty, [ptr, ir.Constant(types.I32, self.esize), mask, init])
        with b.if_then(first):  # an identity init is left out, as LLVM folds op(x, identity)
            off = b.load(lst, typ=types.I64)
            for slot, src in zip(slots, srcs):
                b.store(load(b.gep(src, [off], source_etype=self.sty)), slot)
        with for_range(b, b.zext(first, types.I64), n, name=f"k{lanes}") as k:
            off = b.load(b.gep(lst, [k], source_etype=types.I64), typ=types.I64)
            for slot, src in zip(slots, srcs):
                x = load(b.gep(src, [off], source_etype=self.sty))
                b.store(self.op(b.load(slot, typ=ty), x), slot)
        return [b.load(slot, typ=ty) for slot in slots]

    def store(self, v: ir.Value, ptr: ir.Value, lanes: int) -> None:
        st = self.b.store(v, ptr)
        if lanes > 1:
            st.align = self.esize


def _build_body(fn: ir.Function, ct: ElementType, op: str, fill: ir.Function, fold1: ir.Function) -> None:
    _Body(fn, ct, op, fill, fold1).emit()


def _build_scalar_fold(fn: ir.Function, ct: ElementType, op: str) -> None:
    """`T fold1(lst, n, src, init, skip)`: one element's window in order (the edges and the
    rows whose j steps are not unit; optimised for size: LLVM would vectorise this loop
    with gathers, which costs the group's build time and gains nothing on short windows)."""
    lst, n, src, init, skip = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    sty = types.value_type(ct)
    esize = max(1, ct.bits // 8)
    op_fn = combiner(b, ct, op)
    acc = b.alloca(sty, name="acc")
    b.store(init, acc)
    first = b.and_(skip, b.icmp_signed(">", n, c64(0)))
    with b.if_then(first):
        b.store(b.load(b.gep(src, [b.load(lst, typ=types.I64)], source_etype=sty), typ=sty, align=esize), acc)
    with for_range(b, b.zext(first, types.I64), n, name="k") as k:
        off = b.load(b.gep(lst, [k], source_etype=types.I64), typ=types.I64)
        x = b.load(b.gep(src, [off], source_etype=sty), typ=sty, align=esize)
        b.store(op_fn(b.load(acc, typ=sty), x), acc)
    b.ret(b.load(acc, typ=sty))
