"""convolution as im2col + the generated GEMM kernel (XLA CPU runs convolutions as Eigen
GEMM contractions too), for the common case: one feature group and one batch group, an
f32/f64 result, big enough to pay for the copy. Anything else goes to emit_conv's direct
loop nest (any dim_labels, groups, dilations, reversal, narrow and integer types).

The product, per batch element b:  C[b][m][o] = sum_kk A[b][m][kk] * W[kk][o]
* m runs over the output's spatial positions in the output's physical order, so C is a
  strided view of the result itself (row stride = the stride of the minor spatial dim,
  column stride = that of the output feature dim): NHWC and NCHW results alike;
* kk runs over the kernel's (spatial..., input feature) dims in the kernel's physical
  order, so the im2col row is filled with the input read along its own minor dims;
* A (scratch, [batch][M][K]) holds the padded, dilated input window of every output
  position, zeros where the window reads padding or the holes of a base dilation;
* W is packed into the kernel's panel-major layout once (it is small).
The generated im2col fill runs on several threads when big (outline.run_parallel). The
runtime one (below) is done inside the GEMM's tasks when the packed kernel is small
(fills_in_tasks): each task writes FILL_BYTES of A's rows into its own buffer and
multiplies them at once, so A never goes to memory (big_conv's first convolution: a 19 MB
A written, then read, before; single thread 6.6 -> 3.8 ms on Zen 4). The rows, and each
element's k loop, are the same: the same bits.

The im2col and the packing of W are kernels/conv.py's generic functions (for the JIT in the
runtime library, compiled once per machine) whenever both operands are in memory in the
compute type and there are at most conv_kernel.MAX_SPATIAL spatial dims: the module then only
fills their descriptors (LLVM time: big_conv's ~61 ms of per-module im2col and packing code).
Otherwise (an operand computed inline, a narrow float operand, more spatial dims) the loop
nests below are generated for the convolution, with the same element order: A and B, hence
the result, are the same bit for bit either way.

The GEMM multiplies A's padding zeros by the kernel: the spec's answer, and XLA CPU's on its
Eigen path. Where ir/xla_conv.py says XLA skips padding and holes, a non-finite kernel
element must not meet them: unless the kernel is a constant known finite, a check of the
kernel picks at run time between the GEMM and emit_conv's direct loop nest (which skips
them); fused_plan then says None, so a kOutput fusion calls its computation, whose
convolution comes here.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

import llvmlite.ir as ir
import numpy as np

from hlotools.backend.llvm.abi import layout_of
from hlotools.backend.llvm.codegen import dynamic_extent, outline
from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.registry import EMITTERS, SCRATCH
from hlotools.backend.llvm.kernels import conv as conv_kernel
from hlotools.backend.llvm.kernels import parallel_for
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.arith import convert_value
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range, strides
from hlotools.backend.llvm.lower import conv_columns, convolution
from hlotools.backend.llvm.lower import gemm as lower_gemm
from hlotools.ir.attributes import ConvDimLabels, Window
from hlotools.ir.instruction import Instruction
from hlotools.ir.xla_conv import convolution_numerics

MIN_WORK = 1 << 15  # m*n*k below which the direct loop nest is as good (and compiles faster)
# Bytes of packed kernel up to which the GEMM's tasks fill A themselves (fills_in_tasks): a
# task then reads all of B per row block, from L2 while B fits there (measured on Zen 4, one
# thread, CPU: 3x3x128->128 on 8x32x32, B 590 KB, 25.8 -> 23.7 ms; big_conv's B: 18, 37 KB).
FILL_MAX_B = 1 << 20
_GENERATED = ContextVar("hlotools_llvm_generated_im2col", default=False)
_NO_BATCH_ROWS = ContextVar("hlotools_llvm_conv_no_batch_rows", default=False)


@contextmanager
def batch_rows_disabled(on: bool = True) -> Iterator[None]:
    """One GEMM per batch element, never batch_as_rows (tests and A/B measurements)."""
    tok = _NO_BATCH_ROWS.set(on)
    try:
        yield
    finally:
        _NO_BATCH_ROWS.reset(tok)


@contextmanager
def generated_im2col(on: bool = True) -> Iterator[None]:
    """Generate the im2col and packing loop nests per convolution instead of calling
    conv_kernel's functions (tests and A/B measurements of the two)."""
    tok = _GENERATED.set(on)
    try:
        yield
    finally:
        _GENERATED.reset(tok)


def fused_plan(inst: Instruction) -> tuple[lower_gemm.Plan, tuple[int, ...], tuple[int, ...]] | None:
    """conv_plan when the GEMM alone computes `inst` (no run-time check of the kernel needed),
    as a kOutput fusion's epilogue or in-place path needs."""
    found = conv_plan(inst)
    return None if found is None or needs_kernel_check(inst) else found


def needs_kernel_check(inst: Instruction) -> bool:
    """Whether XLA CPU's answer skips padding or lhs-dilation holes that the GEMM multiplies,
    and the kernel may hold an inf or NaN (it is not a constant known finite)."""
    window = inst.attrs.get("window") or Window(())
    if not any(w.padding_low > 0 or w.padding_high > 0 or w.base_dilation > 1 for w in window.dims):
        return False
    if not convolution_numerics(inst).skips_padding:
        return False
    rhs = inst.operands[1]
    if rhs.opcode == "constant" and rhs.literal is not None:
        with np.errstate(all="ignore"):
            return not bool(np.isfinite(np.asarray(rhs.literal.value(), np.float64)).all())
    return True


def conv_plan(inst: Instruction) -> tuple[lower_gemm.Plan, tuple[int, ...], tuple[int, ...]] | None:
    """(GEMM plan, output spatial dims in physical order, kernel K dims in physical order)."""
    labels = inst.attrs.get("dim_labels")
    window = inst.attrs.get("window") or Window(())
    if not isinstance(labels, ConvDimLabels) or len(inst.operands) != 2 or inst.shape.is_tuple:
        return None
    if int(inst.attrs.get("feature_group_count", 1)) != 1 or int(inst.attrs.get("batch_group_count", 1)) != 1:
        return None
    out = inst.shape
    et = out.element_type
    lhs, rhs = inst.operands
    if et is None or et.name not in ("f32", "f64") or len(window.dims) != len(labels.input_spatial):
        return None
    for op in (lhs, rhs):
        ot = op.shape.element_type
        if ot is None or ot.kind not in ("float",) or op.shape.is_tuple:
            return None
    if any(n == 0 for n in out.dims) or any(n == 0 for n in lhs.shape.dims) or any(n == 0 for n in rhs.shape.dims):
        return None
    sp_order = tuple(d for d in reversed(layout_of(out)) if d in labels.output_spatial)
    rs = lower_gemm.collapse(out, sp_order)
    if rs is None:
        return None
    k_order = tuple(d for d in reversed(layout_of(rhs.shape)) if d != labels.kernel_output_feature)
    nbatch = out.dims[labels.output_batch]
    m = lower_gemm._prod(out.dims[d] for d in sp_order)
    n = out.dims[labels.output_feature]
    k = lower_gemm._prod(rhs.shape.dims[d] for d in k_order)
    if m * n * k < MIN_WORK:
        return None
    cols_nv = lower_gemm.panel_width(et, m)  # the columns form's kernel N is the positions
    if conv_columns.wanted(inst, sp_order, m, cols_nv):
        return conv_columns.plan(inst, nbatch, m, n, k, cols_nv), sp_order, k_order
    nv = lower_gemm.panel_width(et, n)
    ost = strides(out)
    npad = -(-n // nv) * nv
    dims = lower_gemm.Dims((), (), (), (), (), (), (nbatch,), m, n, k)
    a = lower_gemm.View(True, (m * k,), k, 1)
    b = lower_gemm.View(True, (0,), nv, 1)
    c = lower_gemm.View(False, (ost[labels.output_batch],), rs, ost[labels.output_feature])
    esize = et.bits // 8
    p = lower_gemm.Plan(dims, et, False, a, b, c, npad, False, (nbatch * m * k * esize, k * npad * esize))
    if fills_in_tasks(p) and not _blocks_saved(p):  # A's scratch also holds the tasks' buffers (the larger)
        split = lower_gemm.tasks(p, True)
        a_bytes = max(nbatch * m * k, split.count * split.fill_rows * k) * esize
        p = replace(p, scratch=(a_bytes, k * npad * esize, conv_kernel.TABLES_SLOTS * 8))
    return p, sp_order, k_order


def _scratch(inst: Instruction) -> list[int]:
    found = conv_plan(inst)
    return list(found[0].scratch) if found is not None else []


def emit_conv_gemm(fe: FunctionEmitter, inst: Instruction) -> None:
    found = conv_plan(inst)
    if found is None:
        convolution.emit_convolution(fe, inst)
        return
    if not needs_kernel_check(inst):
        conv_into(fe, found, inst, inst, list(inst.operands))
        return
    bad = convolution.any_non_finite(fe, inst.operands[1])
    with fe.b.if_else(bad, likely=False) as (skipping, gemm):
        with skipping, fe.gen.region():
            convolution.emit_convolution(fe, inst)  # skips padding and holes, as XLA's path does
        with gemm, fe.gen.region():
            conv_into(fe, found, inst, inst, list(inst.operands))


def conv_into(fe: FunctionEmitter, found: tuple[lower_gemm.Plan, tuple[int, ...], tuple[int, ...]], inst: Instruction,
              owner: Instruction, operands: list[Instruction], epilogue: ir.Value | None = None) -> None:
    """The convolution `inst` by its conv_plan `found` into the buffer of `owner` (inst, or
    the kOutput fusion holding it), with owner's scratch; `operands` stand for inst's
    operands; `epilogue` as emit_gemm.gemm_into's (C is the result)."""
    p, sp_order, k_order = found
    labels: ConvDimLabels = inst.attrs["dim_labels"]
    rhs = operands[1]
    a_ptr, b_ptr, *t_ptr = fe.scratch_ptrs(owner)
    batch = dynamic_extent.conv_batch(fe, inst, owner, labels.output_batch)  # a bounded dynamic batch
    extents = dynamic_extent.GemmExtents(p.dims.m, p.dims.n, p.dims.k, batch=batch) if batch is not None else None
    if p.swapped:  # conv_columns' form: A the kernel, B the input's columns
        conv_columns.emit(fe, inst, owner, p, sp_order, k_order, operands, batch)
        lower_gemm._emit_generated(fe, p, a_ptr, b_ptr, fe.leaf_ptrs(owner)[0], None, epilogue, extents=extents)
        return
    if _runtime_ok(fe, inst, p, sp_order, k_order, operands):
        fill = _call_runtime(fe, inst, p, sp_order, k_order, a_ptr, b_ptr, t_ptr[0] if t_ptr else None, operands,
                             batch)
        g = p if fill is not None or epilogue is not None or extents is not None else batch_as_rows(p)
        lower_gemm._emit_generated(fe, g, a_ptr, b_ptr, fe.leaf_ptrs(owner)[0], None, epilogue, fill, extents)
        return
    lower_gemm._pack(fe, rhs, (), k_order, (labels.kernel_output_feature,), b_ptr, p.ct, lower_gemm.View(True, (), 0, 1),
            p.npad, lower_gemm.panel_width(p.ct, p.dims.n))
    _im2col(fe, inst, p, sp_order, k_order, owner, operands[0], batch)
    g = p if extents is not None or epilogue is not None else batch_as_rows(p)
    lower_gemm._emit_generated(fe, g, a_ptr, b_ptr, fe.leaf_ptrs(owner)[0], None, epilogue, extents=extents)


def _blocks_saved(p: lower_gemm.Plan) -> bool:
    """Does batch_as_rows save at least a quarter of the kernel's row blocks? Then it pays for
    a whole im2col instead of the tasks' fills (which keep A out of memory: big_conv's)."""
    g = batch_as_rows(p)
    if g is p:
        return False
    mr = lower_gemm.blocking(p.ct, p.dims.n).rows
    before = p.dims.batch[0] * -(-p.dims.m // mr)
    return 4 * -(-g.dims.m // mr) <= 3 * before


def batch_as_rows(p: lower_gemm.Plan) -> lower_gemm.Plan:
    """The rows form's GEMM as one product of nbatch * M rows when the result's rows of
    consecutive batch elements follow each other (a weight gradient: the batch is the input
    feature, just outside the kernel positions): A is [batch][M][K] already, B is shared.
    Few positions per batch element (9 for a 3x3 kernel) otherwise leave most of each
    batch's last block of MR rows empty; each element's k loop is unchanged (same bits).
    Worth a whole im2col instead of the tasks' fills (_blocks_saved): one thread, Zen 4, CNN
    weight gradients 8x3x64x64 -> 16x3x3x3 2.36 -> 2.01 ms, 8x16x32x32 -> 32x16x3x3 2.17
    (filled in tasks) -> 1.55 ms."""
    dd = p.dims
    if _NO_BATCH_ROWS.get() or len(dd.batch) != 1 or dd.batch[0] == 1 or p.c.batch_strides[0] != dd.m * p.c.rs:
        return p
    rows = dd.batch[0] * dd.m
    return replace(p, dims=replace(dd, batch=(1,), m=rows), a=replace(p.a, batch_strides=(rows * dd.k,)),
                   c=replace(p.c, batch_strides=(rows * p.c.rs,)))


def _im2col(fe: FunctionEmitter, inst: Instruction, p: lower_gemm.Plan, sp_order: tuple[int, ...],
            k_order: tuple[int, ...], owner: Instruction, lhs: Instruction, batch: ir.Value | None = None) -> None:
    """A's rows; `batch`: how many batch elements run (a bounded dynamic batch), else all."""
    labels: ConvDimLabels = inst.attrs["dim_labels"]
    out = inst.shape.dims
    nbatch, m, k = p.dims.batch[0], p.dims.m, p.dims.k
    # the outermost parallel loop: (batch, first output spatial dim in physical order)
    s0 = out[sp_order[0]] if sp_order else 1
    total: ir.Value | int = nbatch * s0 if batch is None else fe.b.mul(batch, c64(s0))

    def chunk(begin: ir.Value, end: ir.Value) -> None:
        b = fe.b
        with for_range(b, begin, end, name="ic") as t:
            bi = b.udiv(t, c64(s0))
            o_idx: dict[int, ir.Value] = {labels.output_batch: bi}
            if sp_order:
                o_idx[sp_order[0]] = b.urem(t, c64(s0))
            a_here = fe.scratch_ptrs(owner)[0]  # asked here: a parallel chunk is emitted in a worker function
            _positions(fe, 1, sp_order, out, o_idx, lambda: _row(fe, inst, p, sp_order, k_order, o_idx, a_here, lhs))

    if parallel_for.worth_parallel(nbatch * m * k) and nbatch * s0 > 1:
        outline.run_parallel(fe, "im2col", total, chunk)
    else:
        chunk(c64(0), c64(total) if isinstance(total, int) else total)


def _positions(fe: FunctionEmitter, j: int, sp_order: tuple[int, ...], out: tuple[int, ...],
               o_idx: dict[int, ir.Value], body: Callable[[], None]) -> None:
    """Loops over the output spatial dims sp_order[j:] (physical order), then body()."""
    if j >= len(sp_order):
        body()
        return
    d = sp_order[j]
    with for_range(fe.b, 0, out[d], name=f"os{d}") as iv:
        o_idx[d] = iv
        _positions(fe, j + 1, sp_order, out, o_idx, body)


def _row(fe: FunctionEmitter, inst: Instruction, p: lower_gemm.Plan, sp_order: tuple[int, ...], k_order: tuple[int, ...],
         o_idx: dict[int, ir.Value], a_ptr: ir.Value, lhs: Instruction) -> None:
    """Fill A[b][m][:] for the output position in o_idx (`lhs` stands for inst's input)."""
    b = fe.b
    labels: ConvDimLabels = inst.attrs["dim_labels"]
    window: Window = inst.attrs.get("window") or Window(())
    rhs = inst.operands[1]
    out, ld, rd = inst.shape.dims, lhs.shape.dims, rhs.shape.dims
    lhs_et = lhs.shape.element_type
    assert lhs_et is not None
    sty = types.value_type(p.ct)
    # m: row-major over sp_order
    mi: ir.Value = c64(0)
    for d in sp_order:
        mi = b.add(b.mul(mi, c64(out[d])), o_idx[d])
    row = b.gep(a_ptr, [b.add(b.mul(o_idx[labels.output_batch], c64(p.dims.m * p.dims.k)),
                              b.mul(mi, c64(p.dims.k)))], source_etype=sty)
    kidx: dict[int, ir.Value] = {}

    def level(j: int, col: ir.Value) -> None:
        if j == len(k_order):
            idx: list[ir.Value] = [c64(0)] * len(ld)
            idx[labels.input_batch] = o_idx[labels.output_batch]
            idx[labels.input_feature] = kidx[labels.kernel_input_feature]
            inside: ir.Value = ir.Constant(types.I1, 1)
            for i, w in enumerate(window.dims):
                kr = kidx[labels.kernel_spatial[i]]
                kp = b.sub(c64(w.size - 1), kr) if w.window_reversal else kr
                idx[labels.input_spatial[i]], inside = convolution.input_position(
                    b, w, o_idx[labels.output_spatial[i]], kp, ld[labels.input_spatial[i]], inside)
            with fe.gen.region():
                v = convert_value(b, fe.gen.value_at(lhs, idx), lhs_et, p.ct)
            b.store(b.select(inside, v, types.constant(p.ct, 0)), b.gep(row, [col], source_etype=sty))
            return
        d = k_order[j]
        with for_range(b, 0, rd[d], name=f"kk{d}") as iv:
            kidx[d] = iv
            level(j + 1, b.add(b.mul(col, c64(rd[d])), iv))
    level(0, c64(0))


def _runtime_ok(fe: FunctionEmitter, inst: Instruction, p: lower_gemm.Plan, sp_order: tuple[int, ...],
                k_order: tuple[int, ...], operands: list[Instruction]) -> bool:
    """Can conv_kernel's generic functions do the im2col and the packing of W?"""
    if _GENERATED.get() or len(sp_order) > conv_kernel.MAX_SPATIAL:
        return False
    labels: ConvDimLabels = inst.attrs["dim_labels"]
    window: Window = inst.attrs.get("window") or Window(())
    rd = inst.operands[1].shape.dims
    if any(w.size != rd[labels.kernel_spatial[i]] for i, w in enumerate(window.dims)):
        return False
    return all(op.shape.element_type == p.ct and fe.is_materialised(op) for op in operands)


def fills_in_tasks(p: lower_gemm.Plan) -> bool:
    """Whether the GEMM's tasks fill their own rows of A (kernels/gemm.py's D_FILL): when
    every task can run all panels, B at most FILL_MAX_B."""
    return p.dims.k * p.npad * (p.ct.bits // 8) <= FILL_MAX_B


def _call_runtime(fe: FunctionEmitter, inst: Instruction, p: lower_gemm.Plan, sp_order: tuple[int, ...],
                  k_order: tuple[int, ...], a_ptr: ir.Value, b_ptr: ir.Value, t_ptr: ir.Value | None,
                  operands: list[Instruction], batch: ir.Value | None = None) -> tuple[ir.Value, ir.Value] | None:
    """Fill the descriptors of conv_kernel's functions and pack the kernel; then either (with
    `t_ptr`, the tables' scratch: fills_in_tasks) the position tables, returning the GEMM's
    fill (conv_kernel's rows and its descriptor: the GEMM's tasks then write A chunk by chunk
    just before they read it), or the whole im2col (on several threads when big, as the
    generated one; of the first `batch` batch elements when given), returning None."""
    lhs, rhs = operands

    def fn(name: str) -> ir.Function:
        return conv_kernel.function(fe.mc.ir, p.ct, name)
    b = fe.b
    nv = lower_gemm.panel_width(p.ct, p.dims.n)
    pd = _descriptor(fe, "conv.pack", pack_fields(inst, p, k_order), fe.leaf_ptrs(rhs)[0], b_ptr)
    b.call(fn(conv_kernel.pack_name(p.ct)), [pd, c64(0), c64(p.npad // nv)])
    fields = im2col_fields(inst, p, sp_order, k_order)
    desc = _descriptor(fe, "conv.im2col", fields, fe.leaf_ptrs(lhs)[0], a_ptr, t_ptr)
    if t_ptr is not None:
        b.call(fn(conv_kernel.tables_name(p.ct)), [desc])
        return fn(conv_kernel.rows_name(p.ct)), desc
    im2col = fn(conv_kernel.im2col_name(p.ct))
    nbatch, m, k = p.dims.batch[0], p.dims.m, p.dims.k
    total = nbatch * fields[conv_kernel.I_S0]
    run = c64(total) if batch is None else b.mul(batch, c64(fields[conv_kernel.I_S0]))
    if parallel_for.worth_parallel(nbatch * m * k) and total > 1:
        outline.call_parallel_for(fe, im2col, desc, run)
    else:
        b.call(im2col, [desc, c64(0), run])
    return None


def pack_fields(inst: Instruction, p: lower_gemm.Plan, k_order: tuple[int, ...]) -> list[int]:
    """conv_kernel's pack descriptor for the kernel of `inst` (pointer slots 0)."""
    labels: ConvDimLabels = inst.attrs["dim_labels"]
    rhs = inst.operands[1]
    rd, rst = rhs.shape.dims, strides(rhs.shape)
    lev = [(1, 0)] * (conv_kernel.LEVELS - len(k_order)) + [(rd[d], rst[d]) for d in k_order]
    vals = [0, 0, p.dims.k, p.dims.n, lower_gemm.panel_width(p.ct, p.dims.n), rst[labels.kernel_output_feature],
            *(x for lv in lev for x in lv)]
    assert len(vals) == conv_kernel.PACK_FIELDS
    return vals


def im2col_fields(inst: Instruction, p: lower_gemm.Plan, sp_order: tuple[int, ...], k_order: tuple[int, ...]) -> list[int]:
    """conv_kernel's im2col descriptor for `inst` (pointer slots 0)."""
    labels: ConvDimLabels = inst.attrs["dim_labels"]
    window: Window = inst.attrs.get("window") or Window(())
    lhs, rhs = inst.operands
    out, ld, rd = inst.shape.dims, lhs.shape.dims, rhs.shape.dims
    lst = strides(lhs.shape)
    s0 = out[sp_order[0]] if sp_order else 1
    pos: list[tuple[int, ...]] = []
    for d in sp_order:
        w = window.dims[labels.output_spatial.index(d)]
        pos.append((out[d], w.stride, w.padding_low))
    pos += [(1, 0, 0)] * (conv_kernel.MAX_SPATIAL - len(pos))
    dummy = (1, conv_kernel.MAX_SPATIAL, 1, 1, 1, 0, 0)  # L_SIZE, L_LINK, L_WDIL, L_BDIL, L_IN_SIZE, L_IN_STRIDE, L_REV
    levels: list[tuple[int, ...]] = [dummy] * (conv_kernel.LEVELS - len(k_order))
    for d in k_order:
        if d == labels.kernel_input_feature:
            f = labels.input_feature
            levels.append((rd[d], conv_kernel.MAX_SPATIAL, 1, 1, ld[f], lst[f], 0))
            continue
        i = labels.kernel_spatial.index(d)
        w = window.dims[i]
        levels.append((rd[d], sp_order.index(labels.output_spatial[i]), w.window_dilation, w.base_dilation,
                       ld[labels.input_spatial[i]], lst[labels.input_spatial[i]], int(bool(w.window_reversal))))
    mode = _im2col_mode(levels, k_order[-1] == labels.kernel_input_feature)
    vals = [0, 0, p.dims.m, p.dims.k, s0, lst[labels.input_batch], mode, *(x for q in pos for x in q),
            *(x for lv in levels for x in lv)]
    assert len(vals) == conv_kernel.IM2COL_FIELDS
    return vals


def _im2col_mode(levels: list[tuple[int, ...]], feature_last: bool) -> int:
    """conv_kernel's I_MODE for the kernel levels (L_* fields)."""
    def simple(lv: tuple[int, ...]) -> bool:
        return lv[conv_kernel.L_WDIL] == 1 and lv[conv_kernel.L_BDIL] == 1 and lv[conv_kernel.L_REV] == 0
    last, prev = levels[-1], levels[-2]
    if not simple(last):
        return conv_kernel.MODE_GENERAL
    if feature_last and simple(prev) and last[conv_kernel.L_IN_STRIDE] == 1 and prev[conv_kernel.L_IN_STRIDE] == last[conv_kernel.L_SIZE]:
        return conv_kernel.MODE_SPAN
    return conv_kernel.MODE_FEATURE if feature_last else conv_kernel.MODE_SIMPLE


def _descriptor(fe: FunctionEmitter, name: str, fields: list[int], src: ir.Value, dst: ir.Value,
                tables: ir.Value | None = None) -> ir.Value:
    """conv_kernel's descriptor: `fields` as a constant of the module, and the pointers, in
    the entry block's frame (three or four stores here)."""
    ty = ir.ArrayType(types.I64, len(fields))
    g = ir.GlobalVariable(fe.mc.ir, ty, fe.mc.unique_name(name + ".fields"))
    g.global_constant = True
    g.linkage = "private"
    g.initializer = ir.Constant(ty, fields)
    desc = fe.in_entry().alloca(types.PTR, size=c64(conv_kernel.DESC_SLOTS), name=name + ".desc")
    slots = [(conv_kernel.D_STATIC, g), (conv_kernel.D_SRC, src), (conv_kernel.D_DST, dst)]
    for j, v in slots + ([(conv_kernel.D_TABLES, tables)] if tables is not None else []):
        fe.b.store(fe.b.bitcast(v, types.PTR), fe.b.gep(desc, [c64(j)], source_etype=types.PTR))
    return fe.b.bitcast(desc, types.PTR)


EMITTERS.replace("convolution", emit_conv_gemm)  # emit_conv's direct loop nest stays the fallback
SCRATCH["convolution"] = _scratch
