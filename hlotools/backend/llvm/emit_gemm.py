"""dot as a GEMM: XLA's DotDecomposer idea done at codegen time. Every dot is read as a
batch of matrix products C[b, m, n] = sum_k A[b, m, k] * B[b, k, n], where m collapses the
lhs free dims, n the rhs free dims and k the contracting dims (collapsing is free when the
dims are contiguous in the buffer's layout: a strided *view*; otherwise the operand is
*packed* into scratch first, converting narrow floats to f32 on the way).

Two kernels, chosen per dot:

* BLAS (JIT only, f32/f64, big enough): `cblas_sgemm`/`cblas_dgemm` of the OpenBLAS that
  numpy ships, registered with the JIT by jit.py under stable names — as XLA CPU calls
  Eigen. Transposed operands become BLAS transpose flags; a column-major result computes
  C^T = B^T A^T. Off when the library or the symbol is missing, and always off for AOT
  objects (`blas_enabled` is a context set by the JIT runtime only), so objects never
  depend on it.
* generated (everything else: integers, AOT, small products): a register-blocked
  micro-kernel written with explicit LLVM vectors. B is packed into panels of NV = 2 vector
  widths (zero padded, contiguous: no 4 KiB-stride cache conflicts); each step of the k loop
  loads two B vectors, broadcasts MR lhs elements and does 2*MR multiply-adds into
  accumulators that stay in registers. Row blocks (over the whole batch) are split across
  threads with parallel.run_parallel.

Dots this file does not take (complex, pred, sub-byte integers, empty contracting dims) go
to emit_dot's loop nest.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache

import llvmlite.ir as ir

from hlotools.backend.llvm import emit_dot
from hlotools.backend.llvm import emit_types as T
from hlotools.backend.llvm import parallel as par
from hlotools.backend.llvm.compiler import FunctionEmitter
from hlotools.backend.llvm.emit_arith import convert_value
from hlotools.backend.llvm.emit_loops import c64, for_range, layout_of, strides
from hlotools.backend.llvm.registry import EMITTERS, SCRATCH
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.types import ELEMENT_TYPES, ElementType

BLAS_SYMBOLS = {"f32": "hlotools_blas_sgemm", "f64": "hlotools_blas_dgemm"}
BLAS_MIN_WORK = 1 << 15  # m*n*k below which the generated kernel wins (call overhead)
_BLAS = ContextVar("hlotools_llvm_blas", default=False)
_FORCE_GENERATED = ContextVar("hlotools_llvm_generated_gemm", default=False)
CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS = 101, 111, 112


@contextmanager
def blas_enabled(on: bool = True) -> Iterator[None]:
    """Let dots call the JIT-linked BLAS while compiling inside this context (the JIT
    runtime only: AOT objects must not depend on it)."""
    tok = _BLAS.set(on and os.environ.get("HLOTOOLS_NO_BLAS", "") != "1")
    try:
        yield
    finally:
        _BLAS.reset(tok)


@contextmanager
def generated_only() -> Iterator[None]:
    """Never call BLAS (tests of the generated kernel)."""
    tok = _FORCE_GENERATED.set(True)
    try:
        yield
    finally:
        _FORCE_GENERATED.reset(tok)


# ------------------------------------------------------------------ the canonical problem

@dataclass(frozen=True)
class Dims:
    """A dot as a batched GEMM: operand dims grouped (in the dot's own order)."""

    lb: tuple[int, ...]
    rb: tuple[int, ...]
    lfree: tuple[int, ...]
    rfree: tuple[int, ...]
    lc: tuple[int, ...]
    rc: tuple[int, ...]
    batch: tuple[int, ...]  # sizes
    m: int
    n: int
    k: int


def dot_dims(inst: Instruction) -> Dims:
    a = inst.attrs
    lhs, rhs = inst.operands
    lb, rb = tuple(a.get("lhs_batch_dims", ())), tuple(a.get("rhs_batch_dims", ()))
    lc, rc = tuple(a.get("lhs_contracting_dims", ())), tuple(a.get("rhs_contracting_dims", ()))
    lfree = tuple(d for d in range(len(lhs.shape.dims)) if d not in lb and d not in lc)
    rfree = tuple(d for d in range(len(rhs.shape.dims)) if d not in rb and d not in rc)
    ld = lhs.shape.dims
    return Dims(lb, rb, lfree, rfree, lc, rc, tuple(ld[d] for d in lb), _prod(ld[d] for d in lfree),
                _prod(rhs.shape.dims[d] for d in rfree), _prod(ld[d] for d in lc))


def _prod(xs: object) -> int:
    n = 1
    for x in xs:  # type: ignore[attr-defined]
        n *= x
    return n


def collapse(shape: Shape, dims: tuple[int, ...]) -> int | None:
    """The element stride of `dims` read as one row-major index (the last dim fastest), or
    None when they are not evenly spaced in the layout. Size-1 dims are free; all size 1
    gives stride 1."""
    st = strides(shape)
    live = [d for d in dims if shape.dims[d] != 1]
    if not live:
        return 1
    for a, b in zip(live, live[1:]):
        if st[a] != st[b] * shape.dims[b]:
            return None
    return st[live[-1]]


@dataclass(frozen=True)
class View:
    """How a kernel addresses one operand: element strides of the batch dims (in dot order),
    of its two matrix dims, and whether it is packed into scratch (in canonical row-major
    [batch, rows, cols] order, in the compute type)."""

    packed: bool
    batch_strides: tuple[int, ...]
    rs: int
    cs: int


def _view(shape: Shape, bdims: tuple[int, ...], rows: tuple[int, ...], cols: tuple[int, ...],
          want_type: ElementType, nrows: int, ncols: int) -> View:
    rs, cs = collapse(shape, rows), collapse(shape, cols)
    if rs is None or cs is None or shape.element_type != want_type:
        nb = len(bdims)
        bstr = []
        s = nrows * ncols
        sizes = [shape.dims[d] for d in bdims]
        for j in range(nb - 1, -1, -1):
            bstr.append(s)
            s *= sizes[j]
        return View(True, tuple(reversed(bstr)), ncols, 1)
    st = strides(shape)
    return View(False, tuple(st[d] for d in bdims), rs, cs)


def compute_type(inst: Instruction) -> ElementType | None:
    """The type the kernel multiplies and accumulates in, or None (not a GEMM here)."""
    out = inst.shape.element_type
    assert out is not None
    if T.is_small_float(out):
        return ELEMENT_TYPES["f32"]
    if out.name in ("f32", "f64") or (out.kind in ("signed", "unsigned") and out.bits >= 8):
        return out
    return None


@dataclass(frozen=True)
class Plan:
    dims: Dims
    ct: ElementType
    blas: bool
    a: View
    b: View  # for the generated kernel: always the panel packing (b.packed)
    c: View
    scratch: tuple[int, ...]  # bytes: [A pack], [B pack], [C stage] in that order when used


def _vector_bytes() -> int:
    feats = _host_features()
    if "+avx512f" in feats:
        return 64
    if "+avx" in feats:
        return 32
    return 16


@cache
def _host_features() -> str:
    from hlotools.backend.llvm import jit
    return jit.target_description().features


def lanes(ct: ElementType) -> int:
    return max(2, _vector_bytes() // (ct.bits // 8))


MR = 4  # rows per register block


def plan(inst: Instruction) -> Plan | None:
    ct = compute_type(inst)
    lhs, rhs = inst.operands
    if ct is None or len(inst.operands) != 2 or inst.shape.is_tuple:
        return None
    dd = dot_dims(inst)
    if dd.k == 0 or dd.m * dd.n * _prod(dd.batch) == 0:
        return None
    if len(inst.shape.dims) != len(dd.batch) + len(dd.lfree) + len(dd.rfree):
        return None
    out = inst.shape
    nb = len(dd.batch)
    ob = tuple(range(nb))
    om = tuple(range(nb, nb + len(dd.lfree)))
    on = tuple(range(nb + len(dd.lfree), len(out.dims)))
    esize = ct.bits // 8
    a = _view(lhs.shape, dd.lb, dd.lfree, dd.lc, ct, dd.m, dd.k)
    c = _view(out, ob, om, on, ct, dd.m, dd.n)
    use_blas = (ct.name in BLAS_SYMBOLS and _BLAS.get() and not _FORCE_GENERATED.get()
                and dd.m * dd.n * dd.k >= BLAS_MIN_WORK)
    nbatch = _prod(dd.batch)
    if use_blas:
        b = _view(rhs.shape, dd.rb, dd.rc, dd.rfree, ct, dd.k, dd.n)
        a = _blasable(a, dd.m, dd.k, lhs.shape, dd.lb, ct)
        b = _blasable(b, dd.k, dd.n, rhs.shape, dd.rb, ct)
        if not (c.packed or _blas_ld(c.rs, c.cs, dd.m, dd.n) or _blas_ld(c.cs, c.rs, dd.n, dd.m)):
            c = View(True, _canon_batch(dd.batch, dd.m * dd.n), dd.n, 1)
        b_elems = dd.k * dd.n
    else:
        nv = 2 * lanes(ct)
        b_elems = dd.k * (-(-dd.n // nv) * nv)
        b = View(True, _canon_batch(dd.batch, b_elems), nv, 1)  # panels [n/nv][k][nv]
    scratch = [nbatch * elems * esize for v, elems in ((a, dd.m * dd.k), (b, b_elems), (c, dd.m * dd.n))
               if v.packed]
    return Plan(dd, ct, use_blas, a, b, c, tuple(scratch))


def _canon_batch(batch: tuple[int, ...], per: int) -> tuple[int, ...]:
    out = []
    s = per
    for n in reversed(batch):
        out.append(s)
        s *= n
    return tuple(reversed(out))


def _blas_ld(rs: int, cs: int, rows: int, cols: int) -> int | None:
    """lda of a row-major (NoTrans) reading of a rows x cols view, or None."""
    if cols > 1 and cs != 1:
        return None
    if rows == 1:
        return max(1, cols)
    return rs if rs >= max(1, cols) else None


def _blasable(v: View, rows: int, cols: int, shape: Shape, bdims: tuple[int, ...], ct: ElementType) -> View:
    if v.packed or _blas_ld(v.rs, v.cs, rows, cols) or _blas_ld(v.cs, v.rs, cols, rows):
        return v
    return View(True, _canon_batch(tuple(shape.dims[d] for d in bdims), rows * cols), cols, 1)


def _scratch(inst: Instruction) -> list[int]:
    p = plan(inst)
    return list(p.scratch) if p is not None else []


# ------------------------------------------------------------------ emission

def emit_gemm(fe: FunctionEmitter, inst: Instruction) -> None:
    p = plan(inst)
    if p is None:
        emit_dot.emit_dot(fe, inst)
        return
    lhs, rhs = inst.operands
    dd = p.dims
    scratch = iter(fe.scratch_ptrs(inst))
    a_ptr = next(scratch) if p.a.packed else fe.leaf_ptrs(lhs)[0]
    b_ptr = next(scratch) if p.b.packed else fe.leaf_ptrs(rhs)[0]
    c_ptr = next(scratch) if p.c.packed else fe.leaf_ptrs(inst)[0]
    if p.a.packed:
        _pack(fe, lhs, dd.lb, dd.lfree, dd.lc, a_ptr, p.ct, p.a, None)
    if p.b.packed:
        _pack(fe, rhs, dd.rb, dd.rc, dd.rfree, b_ptr, p.ct, p.b, None if p.blas else 2 * lanes(p.ct))
    if p.blas:
        _emit_blas(fe, p, a_ptr, b_ptr, c_ptr)
    else:
        _emit_generated(fe, p, a_ptr, b_ptr, c_ptr)
    if p.c.packed:
        _unstage(fe, inst, c_ptr, p)


def _pack(fe: FunctionEmitter, op: Instruction, bdims: tuple[int, ...], rows: tuple[int, ...],
          cols: tuple[int, ...], dst: ir.Value, ct: ElementType, view: View, panel: int | None) -> None:
    """Copy an operand into canonical [batch, rows, cols] (or B panels [batch][cols/panel]
    [rows][panel], zero padded) in the compute type, looping in the operand's physical
    order so the reads are sequential. Values come through value_at (any operand kind)."""
    b = fe.b
    shape = op.shape
    et = shape.element_type
    assert et is not None
    nrows = _prod(shape.dims[d] for d in rows)
    ncols = _prod(shape.dims[d] for d in cols)
    # multipliers of each operand dim in the row / col / batch linear indices
    mult: dict[int, tuple[str, int]] = {}
    for group, name in ((rows, "r"), (cols, "c")):
        s = 1
        for d in reversed(group):
            mult[d] = (name, s)
            s *= shape.dims[d]
    for j, d in enumerate(bdims):
        mult[d] = ("b", view.batch_strides[j])
    if panel is not None:
        npad = -(-ncols // panel) * panel
        zero = T.constant(ct, 0)
        # zero the padding columns once (the whole buffer: simple and small)
        if npad != ncols:
            total = _prod(shape.dims[d] for d in bdims) * nrows * npad
            with for_range(b, 0, total, name="pz") as i:
                b.store(zero, b.gep(dst, [i], source_etype=T.value_type(ct)))
    order = [d for d in reversed(layout_of(shape))]
    index: list[ir.Value] = [c64(0)] * len(shape.dims)

    def body() -> None:
        r: ir.Value = c64(0)
        cidx: ir.Value = c64(0)
        boff: ir.Value = c64(0)
        for d, iv in enumerate(index):
            kind, m = mult[d]
            if shape.dims[d] == 1:
                continue
            term = iv if m == 1 else b.mul(iv, c64(m))
            if kind == "r":
                r = b.add(r, term)
            elif kind == "c":
                cidx = b.add(cidx, term)
            else:
                boff = b.add(boff, term)
        if panel is None:
            off = b.add(boff, b.add(b.mul(r, c64(ncols)), cidx))
        else:
            sh = panel.bit_length() - 1
            blk = b.lshr(cidx, c64(sh))
            lane = b.and_(cidx, c64(panel - 1))
            off = b.add(boff, b.add(b.mul(blk, c64(nrows * panel)), b.add(b.mul(r, c64(panel)), lane)))
        with fe.gen.region():
            v = convert_value(b, fe.gen.value_at(op, list(index)), et, ct)
        b.store(v, b.gep(dst, [off], source_etype=T.value_type(ct)))

    def level(k: int) -> None:
        if k == len(order):
            body()
            return
        d = order[k]
        if shape.dims[d] == 1:
            level(k + 1)
            return
        with for_range(b, 0, shape.dims[d], name=f"pk{d}") as iv:
            index[d] = iv
            level(k + 1)
    level(0)


def _unstage(fe: FunctionEmitter, inst: Instruction, src: ir.Value, p: Plan) -> None:
    """Canonical [batch, m, n] compute-type result -> the real output (layout, type)."""
    from hlotools.backend.llvm.emit_loops import loop_nest
    out = inst.shape
    et = out.element_type
    assert et is not None
    dd = p.dims
    nb = len(dd.batch)
    b = fe.b
    dst = fe.leaf_ptrs(inst)[0]
    m_dims = list(range(nb, nb + len(dd.lfree)))
    n_dims = list(range(nb + len(dd.lfree), len(out.dims)))

    def body(index: list[ir.Value]) -> None:
        off: ir.Value = c64(0)
        for j in range(nb):
            off = b.add(off, b.mul(index[j], c64(p.c.batch_strides[j])))
        for group, scale in ((m_dims, dd.n), (n_dims, 1)):
            s = scale
            for d in reversed(group):
                off = b.add(off, b.mul(index[d], c64(s)))
                s *= out.dims[d]
        v = b.load(b.gep(src, [off], source_etype=T.value_type(p.ct)), typ=T.value_type(p.ct))
        fe.store_element(convert_value(b, v, p.ct, et), dst, out, index)
    loop_nest(b, out, body)


def _batch_offsets(b: ir.IRBuilder, t: ir.Value, batch: tuple[int, ...],
                   views: list[View]) -> list[ir.Value]:
    """Element offsets of flat batch index t in each view (delinearised, last dim fastest)."""
    offs: list[ir.Value] = [c64(0)] * len(views)
    rest = t
    for j in range(len(batch) - 1, -1, -1):
        n = batch[j]
        if n == 1:
            continue
        i = b.urem(rest, c64(n)) if j else rest
        if j:
            rest = b.udiv(rest, c64(n))
        for v, view in enumerate(views):
            offs[v] = b.add(offs[v], b.mul(i, c64(view.batch_strides[j])))
    return offs


def _emit_blas(fe: FunctionEmitter, p: Plan, a_ptr: ir.Value, b_ptr: ir.Value, c_ptr: ir.Value) -> None:
    dd = p.dims
    ty = T.value_type(p.ct)
    mod = fe.mc.ir
    name = BLAS_SYMBOLS[p.ct.name]
    fn = mod.globals.get(name)
    if fn is None:
        fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [T.I32, T.I32, T.I32, T.I64, T.I64, T.I64, ty, T.PTR,
                                                              T.I64, T.PTR, T.I64, ty, T.PTR, T.I64]), name)
    m, n, k = dd.m, dd.n, dd.k
    A, B = (p.a.rs, p.a.cs), (p.b.rs, p.b.cs)
    C = (p.c.rs, p.c.cs)
    swap = _blas_ld(C[0], C[1], m, n) is None  # column-major result: C^T = B^T A^T
    if swap:
        m, n = n, m
        A, B = (B[1], B[0]), (A[1], A[0])
        C = (C[1], C[0])
    ops = []
    for (rs, cs), rows, cols in ((A, m, k), (B, k, n)):
        ld = _blas_ld(rs, cs, rows, cols)
        if ld is not None:
            ops.append((CBLAS_NO_TRANS, ld))
        else:
            ld = _blas_ld(cs, rs, cols, rows)
            assert ld is not None
            ops.append((CBLAS_TRANS, ld))
    ldc = _blas_ld(C[0], C[1], m, n)
    assert ldc is not None
    first, second = (b_ptr, a_ptr) if swap else (a_ptr, b_ptr)
    fv, sv = (p.b, p.a) if swap else (p.a, p.b)
    bld = fe.b
    i32 = lambda v: ir.Constant(T.I32, v)  # noqa: E731
    nbatch = _prod(dd.batch)

    def call(t: ir.Value) -> None:
        o1, o2, oc = _batch_offsets(bld, t, dd.batch, [fv, sv, p.c])
        bld.call(fn, [i32(CBLAS_ROW_MAJOR), i32(ops[0][0]), i32(ops[1][0]), c64(m), c64(n), c64(k),
                      ir.Constant(ty, 1.0), bld.gep(first, [o1], source_etype=ty), c64(ops[0][1]),
                      bld.gep(second, [o2], source_etype=ty), c64(ops[1][1]), ir.Constant(ty, 0.0),
                      bld.gep(c_ptr, [oc], source_etype=ty), c64(ldc)])
    if nbatch == 1:
        call(c64(0))
    else:
        with for_range(bld, 0, nbatch, name="bt") as t:
            call(t)


def _splat(b: ir.IRBuilder, x: ir.Value, vty: ir.VectorType) -> ir.Value:
    v = b.insert_element(ir.Constant(vty, ir.Undefined), x, ir.Constant(T.I32, 0))
    return b.shuffle_vector(v, ir.Constant(vty, ir.Undefined),
                            ir.Constant(ir.VectorType(T.I32, vty.count), [0] * vty.count))


def _fma(b: ir.IRBuilder, x: ir.Value, y: ir.Value, acc: ir.Value, ct: ElementType) -> ir.Value:
    if ct.kind == "float":
        ty = x.type
        name = f"llvm.fmuladd.v{ty.count}f{ct.bits}"
        fn = b.module.globals.get(name) or ir.Function(b.module, ir.FunctionType(ty, [ty, ty, ty]), name)
        return b.call(fn, [x, y, acc])
    return b.add(acc, b.mul(x, y))


def _emit_generated(fe: FunctionEmitter, p: Plan, a_ptr: ir.Value, b_ptr: ir.Value, c_ptr: ir.Value) -> None:
    """Row blocks of MR rows over all batches, split across threads when big."""
    dd = p.dims
    mblocks = -(-dd.m // MR)
    tasks = _prod(dd.batch) * mblocks
    work = _prod(dd.batch) * dd.m * dd.n * dd.k
    ptrs = (a_ptr, b_ptr, c_ptr)
    if par.worth_parallel(work) and tasks > 1:
        # the worker re-derives the three pointers from its ctx (they live in the caller)
        slots = fe.in_entry().alloca(T.PTR, size=c64(3), name="gemm.ptrs")
        for k, v in enumerate(ptrs):
            fe.b.store(v, fe.b.gep(slots, [c64(k)], source_etype=T.PTR))
        mc = fe.mc
        worker = ir.Function(mc.ir, par.WORKER_TYPE, mc.unique_name("par.gemm"))
        worker.linkage = "internal"
        wb = ir.IRBuilder(worker.append_basic_block("entry"))
        ctx, begin, end = worker.args
        stage = _tile_stage(wb, p)
        wp = [wb.load(wb.gep(ctx, [c64(k)], source_etype=T.PTR), typ=T.PTR) for k in range(3)]
        _row_blocks(wb, p, wp[0], wp[1], wp[2], begin, end, mblocks, stage)
        wb.ret_void()
        par.call_parallel_for(fe, worker, slots, tasks)
    else:
        _row_blocks(fe.b, p, a_ptr, b_ptr, c_ptr, c64(0), c64(tasks), mblocks, _tile_stage(fe.in_entry(), p))


def _tile_stage(b: ir.IRBuilder, p: Plan) -> ir.Value:
    """Stack room for one partial tile row (stored lane by lane at the n edge)."""
    return b.alloca(ir.VectorType(T.value_type(p.ct), lanes(p.ct)), size=c64(2), name="gemm.tile")


def _row_blocks(b: ir.IRBuilder, p: Plan, A: ir.Value, Bp: ir.Value, C: ir.Value, begin: ir.Value,
                end: ir.Value, mblocks: int, stage: ir.Value) -> None:
    dd = p.dims
    ct = p.ct
    sty = T.value_type(ct)
    L = lanes(ct)
    nv = 2 * L
    vty = ir.VectorType(sty, L)
    npanels = -(-dd.n // nv)
    zero_v = ir.Constant(vty, [0.0 if ct.kind == "float" else 0] * L)
    with for_range(b, begin, end, name="task") as t:
        bt = b.udiv(t, c64(mblocks))
        mb = b.urem(t, c64(mblocks))
        oa, ob, oc = _batch_offsets(b, bt, dd.batch, [p.a, p.b, p.c])
        m0 = b.mul(mb, c64(MR))
        rows = []  # clamped row indices (reads stay in bounds; stores are guarded)
        for r in range(MR):
            rr = b.add(m0, c64(r))
            rows.append(b.select(b.icmp_signed("<", rr, c64(dd.m)), rr, c64(dd.m - 1)))
        a_rows = [b.gep(A, [b.add(oa, b.mul(rr, c64(p.a.rs)))], source_etype=sty) for rr in rows]
        with for_range(b, 0, npanels, name="panel") as pj:
            panel = b.gep(Bp, [b.add(ob, b.mul(pj, c64(dd.k * nv)))], source_etype=sty)
            pre = b.block
            kb = b.append_basic_block("k.body")
            kx = b.append_basic_block("k.exit")
            b.branch(kb)
            b.position_at_end(kb)
            kv = b.phi(T.I64, name="k")
            kv.add_incoming(c64(0), pre)
            accs = []
            for _ in range(MR * 2):
                ph = b.phi(vty)
                ph.add_incoming(zero_v, pre)
                accs.append(ph)
            brow = b.gep(panel, [b.mul(kv, c64(nv))], source_etype=sty)
            bv = [b.load(b.gep(brow, [c64(j * L)], source_etype=sty), typ=vty, align=4) for j in range(2)]
            new = []
            for r in range(MR):
                av = b.load(b.gep(a_rows[r], [b.mul(kv, c64(p.a.cs))], source_etype=sty), typ=sty)
                sv = _splat(b, av, vty)
                for j in range(2):
                    new.append(_fma(b, sv, bv[j], accs[r * 2 + j], ct))
            kn = b.add(kv, c64(1), flags=["nsw"])
            kv.add_incoming(kn, b.block)
            for ph, v in zip(accs, new):
                ph.add_incoming(v, b.block)
            b.cbranch(b.icmp_signed("<", kn, c64(dd.k)), kb, kx)
            b.position_at_end(kx)
            n0 = b.mul(pj, c64(nv))
            full = b.icmp_signed("<=", b.add(n0, c64(nv)), c64(dd.n))
            for r in range(MR):
                rr = b.add(m0, c64(r))
                with b.if_then(b.icmp_signed("<", rr, c64(dd.m))):
                    crow = b.gep(C, [b.add(oc, b.add(b.mul(rr, c64(p.c.rs)), b.mul(n0, c64(p.c.cs))))],
                                 source_etype=sty)
                    if p.c.cs == 1:
                        with b.if_else(full) as (then, other):
                            with then:
                                for j in range(2):
                                    b.store(new[r * 2 + j], b.gep(crow, [c64(j)], source_etype=vty), align=4)
                            with other:
                                _store_partial(b, new[r * 2:r * 2 + 2], stage, crow, 1, b.sub(c64(dd.n), n0), L)
                    else:
                        count = b.select(full, c64(nv), b.sub(c64(dd.n), n0))
                        _store_partial(b, new[r * 2:r * 2 + 2], stage, crow, p.c.cs, count, L)


def _store_partial(b: ir.IRBuilder, vecs: list[ir.Value], stage: ir.Value, dst: ir.Value, stride: int,
                   count: ir.Value, L: int) -> None:
    """Store the first `count` lanes of two vectors to dst[j * stride]."""
    sty = vecs[0].type.element
    for j, v in enumerate(vecs):
        b.store(v, b.gep(stage, [c64(j)], source_etype=v.type), align=4)
    with for_range(b, 0, count, name="lane") as i:
        x = b.load(b.gep(stage, [i], source_etype=sty), typ=sty)
        b.store(x, b.gep(dst, [b.mul(i, c64(stride))], source_etype=sty))


EMITTERS["dot"] = emit_gemm  # replaces emit_dot's loop nest (which emit_gemm falls back to)
SCRATCH["dot"] = _scratch
