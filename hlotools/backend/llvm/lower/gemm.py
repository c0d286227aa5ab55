"""dot as a GEMM: XLA's DotDecomposer idea done at codegen time. Every dot is read as a
batch of matrix products C[b, m, n] = sum_k A[b, m, k] * B[b, k, n], where m collapses the
lhs free dims, n the rhs free dims and k the contracting dims (collapsing is free when the
dims are contiguous in the buffer's layout: a strided *view*; otherwise the operand is
*packed* into scratch first, converting narrow floats to f32 on the way).

Two kernels, chosen per dot:

* generated (the default): kernels/gemm.py's register-blocked micro-kernel with explicit
  LLVM vectors, one function per compute type shared by every dot of the module (for the JIT
  a group of the runtime library, compiled once per machine: kernels/library.py). B is read
  in place when its columns are contiguous (few rows) or packed panel-major (many rows, or
  any other layout/type); tasks (batch x panel x row chunk) are split across threads by
  kernels/parallel_for.py when the product is big.
* BLAS (opt-in: HLOTOOLS_BLAS=1; JIT only; f32/f64; m*n*k >= BLAS_MIN_WORK): cblas_sgemm /
  cblas_dgemm of the OpenBLAS that numpy ships, registered with the JIT by jit.py under
  stable names, as XLA CPU calls Eigen. Transposed operands become BLAS transpose flags; a
  column-major result computes C^T = B^T A^T. Never for AOT objects (`blas_enabled` is set
  by the JIT runtime only) and off when the library or the symbol is missing.
  Why opt-in, by measurement on the 2-core shared machine: single-threaded, OpenBLAS and
  the generated kernel are equal (big_mlp_1024: 6.5 vs 6.4 ms CPU; big_attention_256:
  10.3 vs 9.8 ms before other fixes), while OpenBLAS's own threads spin-wait and collapse
  when the cores are shared (transformer_block 105 ms instead of 0.26 ms; big_mlp_1024
  median 184 ms), and they change numpy's threading process-wide if tamed.

Every NaN of the result is the canonical one (gemm_kernel.canonical_nan): the kernel makes
it so before its stores, BLAS's result and a narrow type's conversion get one pass after.

Dots this file does not take (complex, pred, sub-byte integers, empty contracting dims) go
to emit_dot's loop nest.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import cache

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import layout_of
from hlotools.backend.llvm.codegen import dynamic_extent, outline
from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.registry import EMITTERS, SCRATCH, TASK_WORK
from hlotools.backend.llvm.kernels import gemm as gemm_kernel
from hlotools.backend.llvm.kernels import parallel_for
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.arith import convert_value
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range, strides
from hlotools.backend.llvm.lower import dot
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.types import ELEMENT_TYPES, ElementType

BLAS_SYMBOLS = {"f32": "hlotools_blas_sgemm", "f64": "hlotools_blas_dgemm"}
PANEL_PACK_MIN_M = 64  # rows from which packing B into panels pays for itself (measured)
TASK_PACK_MAX_BYTES = 1 << 19  # a panel (K x NV) up to this size is packed by the tasks (Plan.task_pack)
PANELS_INNER_MIN_A = 1 << 20  # bytes of A (per batch element) from which ... (panels_per_task)
PANELS_INNER_MAX_B = 1 << 17  # ... a B of at most this many bytes is run panel after panel per row block
FILL_BYTES = 1 << 16  # bytes of A a GEMM task with a fill produces and then multiplies at a time (fill_blocks)
BLAS_MIN_WORK = 1 << 15  # m*n*k below which the generated kernel wins (call overhead)
_BLAS = ContextVar("hlotools_llvm_blas", default=False)
_FORCE_GENERATED = ContextVar("hlotools_llvm_generated_gemm", default=False)
CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS = 101, 111, 112
Extents = tuple[ir.Value | int, ir.Value | int, ir.Value | int]  # run-time (M, N, K)


@contextmanager
def blas_enabled(on: bool = True) -> Iterator[None]:
    """Let dots call the JIT-linked BLAS while compiling inside this context (the JIT
    runtime only: AOT objects must not depend on it)."""
    tok = _BLAS.set(on and os.environ.get("HLOTOOLS_BLAS", "") == "1")
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
    if types.is_small_float(out):
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
    b: View  # generated kernel: columns contiguous (cs == 1), packed rows padded to `npad`
    c: View
    npad: int  # row length of a packed B (generated kernel: N rounded up to whole panels)
    tail: bool  # generated kernel, B in place, N not a whole number of panels
    scratch: tuple[int, ...]  # bytes: [A pack], [B pack or B tail], [C stage] in that order when used
    # C^T = B^T A^T: the kernel's A is the dot's rhs and its B the lhs (`dims` and the views
    # are the kernel's; C is the result read transposed): see _swaps
    swapped: bool = False
    # B in place, each panel packed by the task that runs it while its first row block reads
    # it (kernels/gemm.py D_PACK); the tasks' buffers follow B's tail in `scratch`
    task_pack: bool = False


@cache
def _host_features() -> str:
    from hlotools.backend.llvm.native import jit
    return jit.target_description().features


def blocking(ct: ElementType, n: int | None) -> gemm_kernel.Blocking:
    """The kernel's register block for `ct` and a kernel N of `n` columns (None: the table's
    block, for any N) on the target being compiled for."""
    return gemm_kernel.blocking_for(ct, _host_features(), n)


def panel_width(ct: ElementType, n: int | None) -> int:
    """NV: the columns of one panel of B (packed B and the tail copy are laid out by it)."""
    return blocking(ct, n).nv


_PLANS: dict[tuple, Plan | None] = {}  # plan_key -> plan (Plans are immutable)
_MAX_PLANS = 4096


def plan(inst: Instruction) -> Plan | None:
    """How the GEMM kernel runs dot `inst` (None: not a GEMM here), memoised by everything it
    reads: codegen asks per dot three times (scratch, task work, emission), and the dots of
    identical layers share one plan."""
    key = plan_key(inst)
    got = _PLANS.get(key, _PLANS)
    if got is _PLANS:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        got = _PLANS[key] = _plan(inst)
    return got  # type: ignore[return-value]


def plan_key(inst: Instruction) -> tuple:
    """What _plan reads of `inst` and the context: the shapes (with layouts), the dot
    dimensions, the run-time size records (frontend attributes), the BLAS switches, the target's
    features (the register block), the thread count (the task split) and the tunables."""
    a = inst.attrs
    return (inst.shape, tuple(o.shape for o in inst.operands),
            tuple(tuple(a.get(k, ())) for k in _DOT_DIM_ATTRS), str(a.get("frontend_attributes") or ""),
            _BLAS.get(), _FORCE_GENERATED.get(), _host_features(), parallel_for.host_threads(),
            PANEL_PACK_MIN_M, TASK_PACK_MAX_BYTES, BLAS_MIN_WORK)


_DOT_DIM_ATTRS = ("lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims", "rhs_contracting_dims")


def _plan(inst: Instruction) -> Plan | None:
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
    b = _view(rhs.shape, dd.rb, dd.rc, dd.rfree, ct, dd.k, dd.n)
    c = _view(out, ob, om, on, ct, dd.m, dd.n)
    use_blas = (ct.name in BLAS_SYMBOLS and _BLAS.get() and not _FORCE_GENERATED.get()
                and dd.m * dd.n * dd.k >= BLAS_MIN_WORK)
    swapped = not use_blas and _swaps(inst, dd, b, ct, ob, om, on)
    if swapped:
        dd = Dims(dd.rb, dd.lb, dd.rfree, dd.lfree, dd.rc, dd.lc, dd.batch, dd.n, dd.m, dd.k)
        lhs, rhs, om, on = rhs, lhs, on, om
        a = _view(lhs.shape, dd.lb, dd.lfree, dd.lc, ct, dd.m, dd.k)
        b = _view(rhs.shape, dd.rb, dd.rc, dd.rfree, ct, dd.k, dd.n)
        c = _view(out, ob, om, on, ct, dd.m, dd.n)
    nbatch = _prod(dd.batch)
    tail = task_pack = False
    npad = dd.n
    if use_blas:
        a = _blasable(a, dd.m, dd.k, lhs.shape, dd.lb, ct)
        b = _blasable(b, dd.k, dd.n, rhs.shape, dd.rb, ct)
        if not (c.packed or _blas_ld(c.rs, c.cs, dd.m, dd.n) or _blas_ld(c.cs, c.rs, dd.n, dd.m)):
            c = View(True, _canon_batch(dd.batch, dd.m * dd.n), dd.n, 1)
        b_elems = dd.k * dd.n
    else:
        nv = panel_width(ct, dd.n)
        in_place = not b.packed and (b.cs == 1 or dd.n == 1)
        task_pack = in_place and _packs_in_tasks(Plan(dd, ct, False, a, b, c, dd.n, False, (), swapped, True))
        if not task_pack and (not in_place or dd.m >= PANEL_PACK_MIN_M):
            npad = -(-dd.n // nv) * nv  # panel-major [batch][n / nv][k][nv], zero padded
            b = View(True, _canon_batch(dd.batch, dd.k * npad), nv, 1)
            b_elems = dd.k * npad
        else:
            b = View(False, b.batch_strides, b.rs, 1)
            tail = dd.n % nv != 0
            b_elems = dd.k * nv if tail else 0
    sizes = [nbatch * dd.m * dd.k * esize] if a.packed else []
    if b.packed or tail:
        sizes.append(nbatch * b_elems * esize)
    p = Plan(dd, ct, use_blas, a, b, c, npad, tail, (), swapped, task_pack)
    if p.task_pack:
        sizes.append(tasks(p).count * dd.k * panel_width(ct, dd.n) * esize)
    if c.packed:
        sizes.append(nbatch * dd.m * dd.n * esize)
    return replace(p, scratch=tuple(sizes))


def _packs_in_tasks(p: Plan) -> bool:
    """Whether plan `p`'s in-place B is packed panel by panel by the tasks (Plan.task_pack):
    when a task has several row blocks to reuse a panel for, the panel fits
    TASK_PACK_MAX_BYTES, the tiles do not run row block outer (_panels_inner), and the
    tasks' buffers take no more than packing all of B would (or TASK_PACK_MAX_BYTES: many
    threads, few panels). Instead of the serial strided copy of all of B before the kernel,
    measured on Zen 4 (AVX-512, one thread, CPU time), f32 64x2048x512: 2.0 -> 1.3 ms."""
    dd, ct = p.dims, p.ct
    blk = blocking(ct, dd.n)
    panels = -(-dd.n // blk.nv)
    panel_bytes = dd.k * blk.nv * (ct.bits // 8)
    if dd.m <= blk.rows or panel_bytes > TASK_PACK_MAX_BYTES or _panels_inner(dd, ct, panels):
        return False
    return tasks(p).count * panel_bytes <= max(_prod(dd.batch) * panels * panel_bytes, TASK_PACK_MAX_BYTES)


def _swaps(inst: Instruction, dd: Dims, b: View, ct: ElementType, ob: tuple[int, ...], om: tuple[int, ...],
           on: tuple[int, ...]) -> bool:
    """Run the dot as C^T = B^T A^T? When B's contracting dims are its contiguous ones (a
    weight used as x @ W.T, torch's Linear) B would be packed by a strided scalar copy of all
    K x N elements every call; B^T is then a row-major A read in place and only A (M <= N
    rows) is packed. The kernel writes C through its strides (column stride N). Measured,
    f32 x[64,512] . W[2048,512]^T, AVX-512: 2.45 -> 0.57 ms. Not with fewer than a panel of
    rows (they become the kernel's columns) or for a bounded dynamic dot (its run-time
    extents are the dot's own). The result's columns are then the kernel's rows: its tiles
    are stored column by column (kernels/gemm.py _store_by_columns; rows outer, MR passes
    over NV lines N elements apart, cost f32 x[512,256] . W[1024,256]^T 4.1 -> 3.0 ms on
    Zen 4, one thread, CPU time)."""
    if b.packed or b.cs == 1 or dd.n <= 1 or not panel_width(ct, None) <= dd.m <= dd.n:
        return False
    from hlotools.ir import runtime_sizes
    if runtime_sizes.result_sizes(inst) is not None or runtime_sizes.read_sizes(inst) is not None:
        return False
    a2 = _view(inst.operands[1].shape, dd.rb, dd.rfree, dd.rc, ct, dd.n, dd.k)
    c2 = _view(inst.shape, ob, on, om, ct, dd.n, dd.m)
    return not a2.packed and a2.cs == 1 and not c2.packed


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
        dot.emit_dot(fe, inst)
        return
    gemm_into(fe, p, inst, inst, list(inst.operands))


def gemm_into(fe: FunctionEmitter, p: Plan, inst: Instruction, owner: Instruction, operands: list[Instruction],
              epilogue: ir.Value | None = None) -> None:
    """The dot `inst` by plan `p` into the buffer of `owner` (inst itself, or the kOutput
    fusion holding it: lower/output_fusion.py), with `owner`'s scratch; `operands` are the
    materialised values standing for inst's operands (the fusion's operands). `epilogue`: the
    address of an epilogue block (gemm_epilogue.py) the kernel applies before its stores
    (generated kernel, result not staged)."""
    lhs, rhs = operands[::-1] if p.swapped else operands
    dd = p.dims
    scratch = iter(fe.scratch_ptrs(owner))
    a_ptr = next(scratch) if p.a.packed else fe.leaf_ptrs(lhs)[0]
    b_ptr = fe.leaf_ptrs(rhs)[0] if not p.b.packed else None
    b_extra = next(scratch) if p.b.packed or p.tail else None
    pack_buf = next(scratch) if p.task_pack else None
    c_ptr = next(scratch) if p.c.packed else fe.leaf_ptrs(owner)[0]
    assert epilogue is None or not (p.blas or p.c.packed), "an epilogue needs the generated kernel writing C"
    extents = _extents(fe, p, inst, owner)
    if p.a.packed:
        _pack(fe, lhs, dd.lb, dd.lfree, dd.lc, a_ptr, p.ct, p.a, dd.k, None, extents.lhs if extents else None)
    if p.b.packed:
        assert b_extra is not None
        b_ptr = b_extra
        _pack(fe, rhs, dd.rb, dd.rc, dd.rfree, b_ptr, p.ct, p.b, p.npad, None if p.blas else panel_width(p.ct, p.dims.n),
              extents.rhs if extents else None)
    assert b_ptr is not None
    if p.blas:
        _emit_blas(fe, p, a_ptr, b_ptr, c_ptr)
        if not p.c.packed:  # (a staged C gets them in _unstage)
            _canonical_nans(fe, c_ptr, p.ct, _prod(dd.batch) * dd.m * dd.n)
    else:
        tail = b_extra if p.tail else None
        if tail is not None:
            _pack_tail(fe, p, b_ptr, tail)
        _emit_generated(fe, p, a_ptr, b_ptr, c_ptr, tail, epilogue, extents=extents, pack=pack_buf)
    if p.c.packed:
        _unstage(fe, owner, c_ptr, p)


def _extents(fe: FunctionEmitter, p: Plan, inst: Instruction, owner: Instruction
             ) -> dynamic_extent.GemmExtents | None:
    """The run-time sizes of a dot of the dynamic padder's module (codegen/dynamic_extent.py),
    or None (the bounds). Not for BLAS (its own sizes) and never N for an in-place B with a
    tail copy: a panel that only the run-time N makes partial would read the tail's columns."""
    dd = p.dims
    if p.blas:
        return None
    got = dynamic_extent.gemm_extents(fe, inst, owner, (dd.lfree, dd.rfree, dd.lc, dd.rc, dd.lb, dd.rb),
                                      dd.m, dd.n, dd.k)
    assert got is None or not p.swapped, "a swapped plan is static (_swaps)"
    if got is not None and p.tail and not p.b.packed:
        got.n = dd.n
        got.rhs = {d: v for d, v in got.rhs.items() if d not in dd.rfree}
    return got


def _pack(fe: FunctionEmitter, op: Instruction, bdims: tuple[int, ...], rows: tuple[int, ...],
          cols: tuple[int, ...], dst: ir.Value, ct: ElementType, view: View, row_len: int,
          panel: int | None, stops: dict[int, ir.Value] | None = None) -> None:
    """Copy an operand into canonical [batch, rows, cols] with rows `row_len` long (zero
    padded past cols), or with `panel`, into panel-major [batch][row_len / panel][rows]
    [panel], in the compute type, looping in the operand's physical order so the reads are
    sequential. Values come through value_at (any operand kind). `stops`: operand dims whose
    loop stops at a run-time size (what the kernel reads of a bounded dynamic dot)."""
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
    if row_len != ncols:  # zero the padding (the whole buffer: simple, and small next to the product)
        total = _prod(shape.dims[d] for d in bdims) * nrows * row_len
        zero = types.constant(ct, 0)
        with for_range(b, 0, total, name="pz") as i:
            b.store(zero, b.gep(dst, [i], source_etype=types.value_type(ct)))
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
            off = b.add(boff, b.add(b.mul(r, c64(row_len)), cidx))
        else:
            blk = b.lshr(cidx, c64(panel.bit_length() - 1))
            lane = b.and_(cidx, c64(panel - 1))
            off = b.add(boff, b.add(b.mul(blk, c64(nrows * panel)), b.add(b.mul(r, c64(panel)), lane)))
        with fe.gen.region():
            v = convert_value(b, fe.gen.value_at(op, list(index)), et, ct)
        b.store(v, b.gep(dst, [off], source_etype=types.value_type(ct)))

    def level(k: int) -> None:
        if k == len(order):
            body()
            return
        d = order[k]
        if shape.dims[d] == 1:
            level(k + 1)
            return
        with for_range(b, 0, (stops or {}).get(d, shape.dims[d]), name=f"pk{d}") as iv:
            index[d] = iv
            level(k + 1)
    level(0)


def _unstage(fe: FunctionEmitter, inst: Instruction, src: ir.Value, p: Plan) -> None:
    """Canonical [batch, m, n] compute-type result -> the real output (layout, type)."""
    from hlotools.backend.llvm.llvm_ir.loops import loop_nest
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
        v = b.load(b.gep(src, [off], source_etype=types.value_type(p.ct)), typ=types.value_type(p.ct))
        v = convert_value(b, v, p.ct, et)
        # the kernel's NaNs are canonical already; BLAS's, and a narrow type's overflow, not
        fe.store_element(gemm_kernel.canonical_nan(b, v) if p.blas or et != p.ct else v, dst, out, index)
    loop_nest(b, out, body)


def _canonical_nans(fe: FunctionEmitter, ptr: ir.Value, ct: ElementType, count: int) -> None:
    """The NaNs among `count` dense elements of compute type `ct` at `ptr` made the
    canonical one (gemm_kernel.canonical_nan): OpenBLAS's result, whose payloads are its
    kernels' (chosen per CPU)."""
    b = fe.b
    sty = types.value_type(ct)
    with for_range(b, 0, count, name="cn") as i:
        at = b.gep(ptr, [i], source_etype=sty)
        b.store(gemm_kernel.canonical_nan(b, b.load(at, typ=sty)), at)


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
    ty = types.value_type(p.ct)
    mod = fe.mc.ir
    name = BLAS_SYMBOLS[p.ct.name]
    fn = mod.globals.get(name)
    if fn is None:
        fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [types.I32, types.I32, types.I32, types.I64, types.I64, types.I64, ty, types.PTR,
                                                              types.I64, types.PTR, types.I64, ty, types.PTR, types.I64]), name)
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
    i32 = lambda v: ir.Constant(types.I32, v)  # noqa: E731
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


def _pack_tail(fe: FunctionEmitter, p: Plan, src: ir.Value, dst: ir.Value) -> None:
    """The last, partial panel of an in-place B, zero padded to NV columns per row."""
    dd = p.dims
    b = fe.b
    sty = types.value_type(p.ct)
    nv = panel_width(p.ct, p.dims.n)
    n0 = dd.n // nv * nv
    rem = dd.n - n0
    tail_view = View(True, _canon_batch(dd.batch, dd.k * nv), nv, 1)
    with for_range(b, 0, _prod(dd.batch), name="tb") as bt:
        ob, ot = _batch_offsets(b, bt, dd.batch, [p.b, tail_view])
        with for_range(b, 0, dd.k, name="tk") as k:
            row = b.gep(src, [b.add(ob, b.add(b.mul(k, c64(p.b.rs)), c64(n0)))], source_etype=sty)
            out = b.gep(dst, [b.add(ot, b.mul(k, c64(nv)))], source_etype=sty)
            with for_range(b, 0, nv, name="tj") as j:
                inside = b.icmp_signed("<", j, c64(rem))
                x = b.load(b.gep(row, [b.select(inside, j, c64(0))], source_etype=sty), typ=sty)
                b.store(b.select(inside, x, types.constant(p.ct, 0)), b.gep(out, [j], source_etype=sty))


def panels_per_task(p: Plan, panels: int) -> int:
    """1 (a task is one panel of B and a chunk of row blocks: the panel stays in L1 while A
    streams past it, once per panel), or every panel when A is big and all of B small: then
    each row block of A is read once, from L1, for every panel in turn (B from L2), instead of
    once per panel from memory. Only the order of the tiles changes, never a k loop (the same
    bits). big_conv's convolutions (A of 18.9 and 9.4 MB, B of 18 and 37 KB) at x86-64-v3,
    where NV = 16 makes their N = 32 two panels."""
    return panels if _panels_inner(p.dims, p.ct, panels) else 1


def _panels_inner(dd: Dims, ct: ElementType, panels: int) -> bool:
    esize = ct.bits // 8
    a_bytes = dd.m * dd.k * esize
    b_bytes = dd.k * panels * blocking(ct, dd.n).nv * esize
    return a_bytes >= PANELS_INNER_MIN_A and b_bytes <= PANELS_INNER_MAX_B


@dataclass(frozen=True)
class Tasks:
    """How the generated kernel's tasks split a GEMM: `ppt` panels per task (every panel:
    one group), `rchunks` chunks of `rpc` row blocks per (batch element, panel group),
    `count` tasks; with a fill (kernels/gemm.py's D_FILL) `fill_blocks` row blocks filled at
    a time, into a buffer of `fill_rows` rows per task (else 0)."""

    ppt: int
    rchunks: int
    rpc: int
    count: int
    fill_blocks: int
    fill_rows: int


def tasks(p: Plan, fill: bool = False) -> Tasks:
    """The task split of plan `p`'s generated kernel (at least ~4 tasks per thread). With a
    fill, a task fills FILL_BYTES of A at a time (at least one row block, at most its own)."""
    blk = blocking(p.ct, p.dims.n)
    panels = -(-p.dims.n // blk.nv)
    mblocks = -(-p.dims.m // blk.rows)
    nbatch = _prod(p.dims.batch)
    target = max(8, 4 * parallel_for.host_threads())
    ppt = panels if fill else panels_per_task(p, panels)
    if p.task_pack:  # about `target` tasks, split by panels first: one panel buffer each
        ppt = -(-panels // max(1, min(panels, -(-target // nbatch))))
    groups = -(-panels // ppt)
    rchunks = 1 if nbatch * groups >= target else min(mblocks, -(-target // (nbatch * groups)))
    rpc = -(-mblocks // rchunks)
    rchunks = -(-mblocks // rpc)
    fb = min(rpc, max(1, FILL_BYTES // (blk.rows * p.dims.k * (p.ct.bits // 8)))) if fill else 0
    return Tasks(ppt, rchunks, rpc, nbatch * groups * rchunks, fb, fb * blk.rows)


def _emit_generated(fe: FunctionEmitter, p: Plan, a_ptr: ir.Value, b_ptr: ir.Value, c_ptr: ir.Value,
                    tail: ir.Value | None, epilogue: ir.Value | None = None,
                    fill: tuple[ir.Value, ir.Value] | None = None,
                    extents: dynamic_extent.GemmExtents | None = None, pack: ir.Value | None = None) -> None:
    """Fill the kernel's descriptor and run its tasks (on several threads when big);
    `epilogue`: the address of an epilogue block, or None; `fill`: (A's producer, its
    argument) as kernels/gemm.py's D_FILL, or None (A is ready). With a fill a task covers
    every panel (each row of A is filled once) and a_ptr holds the tasks' buffers
    (tasks(p, True): count * fill_rows rows). `extents`: run-time (M, N, K) at most the
    plan's (a bounded dynamic dot): the fields then live in the frame with those sizes, the
    panels and row chunks they need, and only those chunks' tasks run (the split's row
    chunk length stays the bound's). `pack`: the tasks' panel buffers (Plan.task_pack)."""
    dd = p.dims
    b = fe.b
    blk = blocking(p.ct, p.dims.n)
    nv = blk.nv
    nbatch = _prod(dd.batch)
    panels = -(-dd.n // nv)
    split = tasks(p, fill is not None)
    ppt, rchunks, rpc, count = split.ppt, split.rchunks, split.rpc, split.count
    live_batch = [j for j, n in enumerate(dd.batch) if n > 1]
    nfields = gemm_kernel.D_BATCH + gemm_kernel.BATCH_FIELDS * len(live_batch)
    eb = fe.in_entry()
    desc = eb.alloca(types.I64, size=c64(gemm_kernel.DESC_SLOTS), name="gemm.desc")
    vals: list[int] = [0] * nfields  # the constant part (K.D_FIELDS); slots below D_FIELDS unused
    for k, v in ((gemm_kernel.D_M, dd.m), (gemm_kernel.D_N, dd.n), (gemm_kernel.D_K, dd.k), (gemm_kernel.D_A_RS, p.a.rs), (gemm_kernel.D_A_CS, p.a.cs),
                 (gemm_kernel.D_B_RS, p.b.rs), (gemm_kernel.D_C_RS, p.c.rs), (gemm_kernel.D_C_CS, p.c.cs), (gemm_kernel.D_PANELS, panels),
                 (gemm_kernel.D_RCHUNKS, rchunks), (gemm_kernel.D_RPC, rpc), (gemm_kernel.D_NB, len(live_batch)),
                 (gemm_kernel.D_B_PS, dd.k * nv if p.b.packed else nv), (gemm_kernel.D_PPT, ppt),
                 (gemm_kernel.D_FILL_BLOCKS, split.fill_blocks)):
        vals[k] = v
    tail_strides = _canon_batch(dd.batch, dd.k * nv)
    for q, j in enumerate(live_batch):
        base = gemm_kernel.D_BATCH + gemm_kernel.BATCH_FIELDS * q
        for f, v in enumerate((dd.batch[j], p.a.batch_strides[j], p.b.batch_strides[j], p.c.batch_strides[j],
                               tail_strides[j])):
            vals[base + f] = v
    ty = ir.ArrayType(types.I64, nfields)
    g = ir.GlobalVariable(fe.mc.ir, ty, fe.mc.unique_name("gemm.fields"))
    g.global_constant = True
    g.linkage = "private"
    g.initializer = ir.Constant(ty, vals)
    count_v: ir.Value = c64(count)
    if extents is not None:
        g, count_v = _runtime_fields(fe, g, nfields, (extents.m, extents.n, extents.k),
                                     extents.batch if extents.batch is not None else c64(nbatch), ppt, rpc, blk)
    slots: list[tuple[int, ir.Value]] = [(gemm_kernel.D_A, b.ptrtoint(a_ptr, types.I64)), (gemm_kernel.D_B, b.ptrtoint(b_ptr, types.I64)),
                                         (gemm_kernel.D_C, b.ptrtoint(c_ptr, types.I64)),
                                         (gemm_kernel.D_TAIL, b.ptrtoint(tail, types.I64) if tail is not None else c64(0)),
                                         (gemm_kernel.D_FIELDS, b.ptrtoint(g, types.I64)),
                                         (gemm_kernel.D_EPI, b.ptrtoint(epilogue, types.I64) if epilogue is not None else c64(0)),
                                         (gemm_kernel.D_FILL, b.ptrtoint(fill[0], types.I64) if fill is not None else c64(0)),
                                         (gemm_kernel.D_FILL_ARG, b.ptrtoint(fill[1], types.I64) if fill is not None else c64(0)),
                                         (gemm_kernel.D_PACK, b.ptrtoint(pack, types.I64) if pack is not None else c64(0))]
    for k, v in slots:
        b.store(v, b.gep(desc, [c64(k)], source_etype=types.I64))
    kern = gemm_kernel.kernel_function(fe.mc.ir, p.ct, blk)
    dptr = b.bitcast(desc, types.PTR)
    if parallel_for.worth_parallel(nbatch * dd.m * dd.n * dd.k, parallel_for.MIN_PARALLEL_GEMM) and count > 1:
        outline.call_parallel_for(fe, kern, dptr, count_v)
    else:
        b.call(kern, [dptr, c64(0), count_v])


def _runtime_fields(fe: FunctionEmitter, fields: ir.GlobalVariable, nfields: int, extents: Extents,
                    nbatch: ir.Value, ppt: int, rpc: int, blk: gemm_kernel.Blocking) -> tuple[ir.Value, ir.Value]:
    """A copy of the constant fields in the frame with the run-time M, N, K and the panels
    and row chunks they cover; (the copy, the task count: the first `nbatch` batch elements'
    tasks, which come first)."""
    b = fe.b
    copy = fe.in_entry().alloca(types.I64, size=c64(nfields), name="gemm.fields.rt")
    fe.memcpy(copy, fields, 8 * nfields)
    m, n, k = (c64(v) if isinstance(v, int) else v for v in extents)
    panels = b.udiv(b.add(n, c64(blk.nv - 1)), c64(blk.nv))
    mblocks = b.udiv(b.add(m, c64(blk.rows - 1)), c64(blk.rows))
    rchunks = b.udiv(b.add(mblocks, c64(rpc - 1)), c64(rpc))
    groups = b.udiv(b.add(panels, c64(ppt - 1)), c64(ppt))
    for slot, v in ((gemm_kernel.D_M, m), (gemm_kernel.D_N, n), (gemm_kernel.D_K, k),
                    (gemm_kernel.D_PANELS, panels), (gemm_kernel.D_RCHUNKS, rchunks)):
        b.store(v, b.gep(copy, [c64(slot)], source_etype=types.I64))
    return copy, b.mul(nbatch, b.mul(groups, rchunks))


EMITTERS.replace("dot", emit_gemm)  # replaces emit_dot's loop nest (which emit_gemm falls back to)
SCRATCH["dot"] = _scratch


def _task_work(inst: Instruction) -> int | None:
    """registry.TASK_WORK for dot: its multiply-adds when it is a generated GEMM loop."""
    p = plan(inst)
    if p is None or p.blas or p.c.packed:
        # no GEMM loop (emit_dot's nest), OpenBLAS's own threads, or a result converted after
        # the loop (narrow floats): nothing that could join the merged parallel_for
        return None
    lhs = inst.operands[0]
    k = 1
    for d in inst.attrs.get("lhs_contracting_dims", ()):
        k *= lhs.shape.dims[d]
    return inst.shape.size * k


TASK_WORK["dot"] = _task_work
