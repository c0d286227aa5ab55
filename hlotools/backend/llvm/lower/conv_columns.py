"""A convolution whose result has its output feature dim outside all its spatial dims, and
the spatial dims one contiguous run (NCHW, torch's layout), as the GEMM the other way round:

    C[b][o][m] = sum_kk W[o][kk] * B[b][kk][m]

with the kernel's rows the output features and its columns the output positions, so each
tile row is stored as whole vectors along the result's contiguous spatial run. conv_gemm's
form (rows the positions, columns the features) stores such a result lane by lane, a column
stride of H*W apart, and pads a 16-feature N to a 32-wide panel at AVX-512. One thread, best
CPU of 40 calls, Zen 4: 8x3x64x64 -> 16 features 3x3 3.10 -> 0.41 ms (the same conv NHWC in
the rows form: 1.07 ms), 8x16x32x32 -> 32: 2.80 -> 0.92 ms, 8x32x32x32 -> 16: 4.32 -> 1.20 ms.

* A is the kernel packed as [o][kk] (small), kk over the kernel's (spatial..., input feature)
  dims in its physical order, as conv_gemm's k;
* B (scratch, [batch][kk][positions]) holds, for each kernel element kk, the input that every
  output position reads there, zeros for padding and base-dilation holes: its rows are
  filled by the copy of a shifted input row between two runs of zeros (the window's range is
  worked out per row, not tested per element) where the minor spatial dim has no base
  dilation, element by element otherwise. A row is padded to whole panels (zeros) and, when
  that length is a multiple of 4 KiB, by one more panel: the kernel reads one panel of every
  row per k step, and rows 4 KiB apart would share L1 sets (8x32x32x32 -> 16, rows of 1024
  f32: 1.85-2.0 -> 1.20-1.24 ms; 4096 positions: 0.42-0.43 -> 0.41 ms).
Each result element's k loop runs over the same kk in the same order, with the same fma:
the bits are conv_gemm's, hence the differential tests' expectations are unchanged.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import llvmlite.ir as ir

from hlotools.backend.llvm.codegen import outline
from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.kernels import parallel_for
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.arith import convert_value
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range, strides
from hlotools.backend.llvm.lower import convolution
from hlotools.backend.llvm.lower import gemm as lower_gemm
from hlotools.ir.attributes import ConvDimLabels, Window
from hlotools.ir.instruction import Instruction

_OFF = ContextVar("hlotools_llvm_conv_columns_off", default=False)


@contextmanager
def disabled(on: bool = True) -> Iterator[None]:
    """conv_gemm's form (rows the positions) for every convolution: tests and A/B measurements."""
    tok = _OFF.set(on)
    try:
        yield
    finally:
        _OFF.reset(tok)


def wanted(inst: Instruction, sp_order: tuple[int, ...], m: int, nv: int) -> bool:
    """Is the result's feature dim outside its spatial dims, which form one contiguous run of
    at least a panel of positions?"""
    labels: ConvDimLabels = inst.attrs["dim_labels"]
    out = inst.shape
    if _OFF.get() or m < nv or lower_gemm.collapse(out, sp_order) != 1:
        return False
    ost = strides(out)
    return out.dims[labels.output_feature] > 1 and ost[labels.output_feature] >= m


def row_length(m: int, nv: int, esize: int) -> int:
    """B's row stride in elements: whole panels, one more when that is a multiple of 4 KiB."""
    n = -(-m // nv) * nv
    return n + nv if (n * esize) % 4096 == 0 else n


def plan(inst: Instruction, nbatch: int, m: int, n: int, k: int, nv: int) -> lower_gemm.Plan:
    """The GEMM plan of the transposed form: kernel M = the features, N = the positions."""
    labels: ConvDimLabels = inst.attrs["dim_labels"]
    out = inst.shape
    et = out.element_type
    assert et is not None
    esize = et.bits // 8
    ost = strides(out)
    rs = row_length(m, nv, esize)
    dims = lower_gemm.Dims((), (), (), (), (), (), (nbatch,), n, m, k)
    a = lower_gemm.View(True, (0,), k, 1)
    b = lower_gemm.View(False, (k * rs,), rs, 1)
    c = lower_gemm.View(False, (ost[labels.output_batch],), ost[labels.output_feature], 1)
    return lower_gemm.Plan(dims, et, False, a, b, c, rs, False, (n * k * esize, nbatch * k * rs * esize), True)


def emit(fe: FunctionEmitter, inst: Instruction, owner: Instruction, p: lower_gemm.Plan, sp_order: tuple[int, ...],
         k_order: tuple[int, ...], operands: list[Instruction], batch: ir.Value | None) -> None:
    """Pack the kernel into A and fill B's rows (of the first `batch` batch elements when
    given, else all), in `owner`'s scratch."""
    a_ptr = fe.scratch_ptrs(owner)[0]
    labels: ConvDimLabels = inst.attrs["dim_labels"]
    rhs = operands[1]
    lower_gemm._pack(fe, rhs, (), (labels.kernel_output_feature,), k_order, a_ptr, p.ct,
                     lower_gemm.View(True, (), p.dims.k, 1), p.dims.k, None)
    k = p.dims.k
    nbatch = p.dims.batch[0]
    total: ir.Value | int = nbatch * k if batch is None else fe.b.mul(batch, c64(k))

    def chunk(begin: ir.Value, end: ir.Value) -> None:
        b_here = fe.scratch_ptrs(owner)[1]  # asked here: a parallel chunk is emitted in a worker
        with for_range(fe.b, begin, end, name="col") as t:
            _row(fe, inst, p, sp_order, k_order, t, operands[0], b_here)

    if parallel_for.worth_parallel(nbatch * p.dims.n * k) and nbatch * k > 1:
        outline.run_parallel(fe, "conv.columns", total, chunk)
    else:
        chunk(c64(0), c64(total) if isinstance(total, int) else total)


def _row(fe: FunctionEmitter, inst: Instruction, p: lower_gemm.Plan, sp_order: tuple[int, ...],
         k_order: tuple[int, ...], t: ir.Value, lhs: Instruction, b_ptr: ir.Value) -> None:
    """B's row t = (batch element, kernel element kk): every output position's input there."""
    b = fe.b
    labels: ConvDimLabels = inst.attrs["dim_labels"]
    window: Window = inst.attrs.get("window") or Window(())
    out, ld, rd = inst.shape.dims, lhs.shape.dims, inst.operands[1].shape.dims
    sty = types.value_type(p.ct)
    k, rs = p.dims.k, p.b.rs
    bi, kk = b.udiv(t, c64(k)), b.urem(t, c64(k))
    kidx: dict[int, ir.Value] = {}
    rest = kk
    for d in reversed(k_order):  # kk is row-major over k_order
        kidx[d] = b.urem(rest, c64(rd[d]))
        rest = b.udiv(rest, c64(rd[d]))
    row = b.gep(b_ptr, [b.mul(t, c64(rs))], source_etype=sty)
    idx: list[ir.Value] = [c64(0)] * len(ld)
    idx[labels.input_batch] = bi
    idx[labels.input_feature] = kidx[labels.kernel_input_feature]
    zero = types.constant(p.ct, 0)
    with for_range(b, p.dims.n, rs, name="pad") as j:  # the row's padding to whole panels
        b.store(zero, b.gep(row, [j], source_etype=sty))

    def window_of(d: int) -> tuple[int, ir.Value]:
        i = labels.output_spatial.index(d)
        w = window.dims[i]
        kr = kidx[labels.kernel_spatial[i]]
        return i, (b.sub(c64(w.size - 1), kr) if w.window_reversal else kr)

    def value(index: list[ir.Value]) -> ir.Value:
        lhs_et = lhs.shape.element_type
        assert lhs_et is not None
        with fe.gen.region():
            return convert_value(b, fe.gen.value_at(lhs, list(index)), lhs_et, p.ct)

    def level(j: int, pos: ir.Value, inside: ir.Value) -> None:
        d = sp_order[j]
        i, kp = window_of(d)
        w = window.dims[i]
        isz = ld[labels.input_spatial[i]]
        if j + 1 < len(sp_order):
            with for_range(b, 0, out[d], name=f"cs{d}") as o:
                idx[labels.input_spatial[i]], here = convolution.input_position(b, w, o, kp, isz, inside)
                level(j + 1, b.add(b.mul(pos, c64(out[d])), o), here)
            return
        base = b.mul(pos, c64(out[d]))
        if w.base_dilation > 1:  # holes: element by element
            with for_range(b, 0, out[d], name=f"ce{d}") as o:
                idx[labels.input_spatial[i]], here = convolution.input_position(b, w, o, kp, isz, inside)
                b.store(b.select(here, value(idx), zero), b.gep(row, [b.add(base, o)], source_etype=sty))
            return
        # o reads o*stride + off: inside for lo <= o < hi
        off = b.sub(b.mul(kp, c64(w.window_dilation)), c64(w.padding_low))
        lo = _clamp(b, _ceil_div(b, b.neg(off), w.stride), out[d])
        hi = _clamp(b, _ceil_div(b, b.sub(c64(isz), off), w.stride), out[d])
        hi = b.select(b.icmp_signed("<", hi, lo), lo, hi)
        lo = b.select(inside, lo, c64(0))
        hi = b.select(inside, hi, c64(0))
        with for_range(b, 0, lo, name=f"cz{d}") as o:
            b.store(zero, b.gep(row, [b.add(base, o)], source_etype=sty))
        with for_range(b, lo, hi, name=f"cc{d}") as o:
            idx[labels.input_spatial[i]] = b.add(b.mul(o, c64(w.stride)), off)
            b.store(value(idx), b.gep(row, [b.add(base, o)], source_etype=sty))
        with for_range(b, hi, out[d], name=f"cz{d}") as o:
            b.store(zero, b.gep(row, [b.add(base, o)], source_etype=sty))

    level(0, c64(0), ir.Constant(types.I1, 1))


def _ceil_div(b: ir.IRBuilder, x: ir.Value, d: int) -> ir.Value:
    """ceil(x / d) for a positive d, any sign of x."""
    if d == 1:
        return x
    q = b.sdiv(x, c64(d))
    up = b.and_(b.icmp_signed(">", x, c64(0)), b.icmp_signed("!=", b.srem(x, c64(d)), c64(0)))
    return b.add(q, b.zext(up, types.I64))


def _clamp(b: ir.IRBuilder, v: ir.Value, hi: int) -> ir.Value:
    v = b.select(b.icmp_signed("<", v, c64(0)), c64(0), v)
    return b.select(b.icmp_signed(">", v, c64(hi)), c64(hi), v)
