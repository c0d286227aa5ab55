"""cholesky (real and complex) and triangular-solve (real types) as scalar loop nests in f64
scratch memory (complex: (re, im) pairs), per matrix of the batch, with the interpreter's
(XLA's expanders') semantics:

* cholesky reads only the `lower` (or upper) triangle, writes zeros in the other one, and a
  matrix that is not positive definite (a pivot <= 0 or NaN) becomes all NaN.
* triangular-solve solves op(a) x = b (left_side) or x op(a) = b reading a's triangle (unit
  diagonal: ones), by substitution; singular systems give inf/NaN, never a trap.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import llvmlite.ir as ir

from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.registry import SCRATCH, emitter
from hlotools.backend.llvm.llvm_ir import complex_ops, math_ops, types
from hlotools.backend.llvm.llvm_ir.arith import convert_value
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range, loop_nest
from hlotools.errors import HloUnsupportedError
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.types import ELEMENT_TYPES, ElementType

F64 = ELEMENT_TYPES["f64"]


def _real(inst: Instruction) -> None:
    for s in [inst.shape] + [o.shape for o in inst.operands]:
        if s.element_type is None or s.element_type.kind != "float":
            raise HloUnsupportedError(f"{inst.opcode} of {s.element_type} values (real floats only)")


class Mat:
    """An f64 scratch matrix rows x cols."""

    def __init__(self, fe: FunctionEmitter, ptr: ir.Value, cols: int) -> None:
        self.fe, self.ptr, self.cols = fe, ptr, cols

    def _at(self, i: ir.Value, j: ir.Value) -> ir.Value:
        b = self.fe.b
        return b.gep(self.ptr, [b.add(b.mul(i, c64(self.cols)), j)], source_etype=types.F64)

    def get(self, i: ir.Value, j: ir.Value) -> ir.Value:
        return self.fe.b.load(self._at(i, j), typ=types.F64)

    def set(self, i: ir.Value, j: ir.Value, v: ir.Value) -> None:
        self.fe.b.store(v, self._at(i, j))


def batch_shape(shape: Shape, trailing: int) -> Shape:
    assert shape.element_type is not None
    return Shape.array(shape.element_type, shape.dims[:len(shape.dims) - trailing])


def new_slot(fe: FunctionEmitter, v: ir.Value) -> ir.AllocaInstr:
    slot = fe.in_entry().alloca(v.type)
    fe.b.store(v, slot)
    return slot


@emitter("cholesky")
def emit_cholesky(fe: FunctionEmitter, inst: Instruction) -> None:
    et = inst.shape.element_type
    if et is not None and et.kind == "complex" and inst.operands[0].shape.element_type == et:
        cholesky_complex(fe, inst, inst.operands[0], fe.leaf_ptrs(inst)[0], inst.shape,
                         bool(inst.attrs.get("lower", False)))
        return
    _real(inst)
    cholesky_core(fe, inst, inst.operands[0], fe.leaf_ptrs(inst)[0], inst.shape,
                  bool(inst.attrs.get("lower", False)))


def cholesky_core(fe: FunctionEmitter, inst: Instruction, a: Instruction, out: ir.Value, out_shape: Shape,
                  lower: bool, keep_other: bool = False, info: tuple[ir.Value, Shape] | None = None) -> None:
    """Per matrix: the factor in the `lower`/upper triangle; the other triangle is zero (or,
    keep_other, a's own elements, as LAPACK's potrf); a matrix that is not positive definite
    gets NaN in the factor's place and, in `info`, the order of its first non-PD minor."""
    n = a.shape.dims[-1]
    b = fe.b
    et = a.shape.element_type
    out_et = out_shape.element_type
    assert et is not None and out_et is not None
    src = fe.leaf_ptrs(a)[0]
    mat = Mat(fe, fe.scratch_ptrs(inst)[0], n)
    if n == 0:
        return

    def matrix(bidx: list[ir.Value]) -> None:
        def read(i: ir.Value, j: ir.Value) -> ir.Value:  # the symmetric matrix from one triangle
            lo, hi = (i, j) if lower else (j, i)  # lower: a[i, j] with j <= i
            return convert_value(b, fe.load_element(src, a.shape, bidx + [lo, hi]), et, F64)
        ok = new_slot(fe, ir.Constant(types.I1, 1))
        first_bad = new_slot(fe, ir.Constant(types.I32, 0))
        with for_range(b, 0, n, name="cj") as j:
            acc = new_slot(fe, read(j, j))
            with for_range(b, 0, j, name="ck") as k:
                ljk = mat.get(j, k)
                b.store(b.fsub(b.load(acc, typ=types.F64), b.fmul(ljk, ljk)), acc)
            s = b.load(acc, typ=types.F64)
            bad = b.fcmp_unordered("ule", s, ir.Constant(types.F64, 0.0))  # <= 0 or NaN
            was_ok = b.load(ok, typ=types.I1)
            b.store(b.select(b.and_(was_ok, bad), b.add(b.trunc(j, types.I32), ir.Constant(types.I32, 1)),
                             b.load(first_bad, typ=types.I32)), first_bad)
            b.store(b.and_(was_ok, b.not_(bad)), ok)
            d = math_ops.libm(b, "sqrt", [s])
            mat.set(j, j, d)
            with for_range(b, b.add(j, c64(1)), n, name="ci") as i:
                acc2 = new_slot(fe, read(i, j))
                with for_range(b, 0, j, name="ck2") as k:
                    b.store(b.fsub(b.load(acc2, typ=types.F64), b.fmul(mat.get(i, k), mat.get(j, k))), acc2)
                mat.set(i, j, b.fdiv(b.load(acc2, typ=types.F64), d))
        good = b.load(ok, typ=types.I1)
        with for_range(b, 0, n, name="wi") as i:
            with for_range(b, 0, n, name="wj") as j:
                r, c = (i, j) if lower else (j, i)  # factor element L[r, c] (upper: U = L^T)
                inside = b.icmp_signed("<=", c, r)
                v = mat.get(b.select(inside, r, c), b.select(inside, c, r))
                v = b.select(good, v, ir.Constant(types.F64, float("nan")))
                if keep_other:
                    other = convert_value(b, fe.load_element(src, a.shape, bidx + [i, j]), et, F64)
                else:  # XLA's expander: zeros, or NaN everywhere for a matrix that is not PD
                    other = b.select(good, ir.Constant(types.F64, 0.0), ir.Constant(types.F64, float("nan")))
                v = b.select(inside, v, other)
                fe.store_element(convert_value(b, v, F64, out_et), out, out_shape, bidx + [i, j])
        if info is not None:
            fe.store_element(b.load(first_bad, typ=types.I32), info[0], info[1], bidx)
    loop_nest(b, batch_shape(a.shape, 2), matrix)


class _ComplexMat:
    """A complex128 scratch matrix rows x cols as (re, im) f64 pairs."""

    def __init__(self, fe: FunctionEmitter, ptr: ir.Value, cols: int) -> None:
        self.fe, self.ptr, self.cols = fe, ptr, cols

    def _at(self, i: ir.Value, j: ir.Value, part: int) -> ir.Value:
        b = self.fe.b
        k = b.add(b.mul(b.add(b.mul(i, c64(self.cols)), j), c64(2)), c64(part))
        return b.gep(self.ptr, [k], source_etype=types.F64)

    def get(self, i: ir.Value, j: ir.Value) -> tuple[ir.Value, ir.Value]:
        b = self.fe.b
        return b.load(self._at(i, j, 0), typ=types.F64), b.load(self._at(i, j, 1), typ=types.F64)

    def set(self, i: ir.Value, j: ir.Value, re: ir.Value, im: ir.Value) -> None:
        self.fe.b.store(re, self._at(i, j, 0))
        self.fe.b.store(im, self._at(i, j, 1))


def cholesky_complex(fe: FunctionEmitter, inst: Instruction, a: Instruction, out: ir.Value, out_shape: Shape,
                     lower: bool) -> None:
    """c64/c128: per matrix L L^H = A for the Hermitian A given by one triangle (only the
    diagonal's real part is read), in complex128; `lower` false gives U = L^H. The other
    triangle is zero; a matrix that is not positive definite is NaN (imaginary parts +0),
    as XLA's expander and the interpreter."""
    n = a.shape.dims[-1]
    b = fe.b
    et = a.shape.element_type
    out_et = out_shape.element_type
    assert et is not None and out_et is not None
    part_in = ELEMENT_TYPES["f64" if et.bits == 128 else "f32"]
    part_out = ELEMENT_TYPES["f64" if out_et.bits == 128 else "f32"]
    src = fe.leaf_ptrs(a)[0]
    mat = _ComplexMat(fe, fe.scratch_ptrs(inst)[0], n)
    zero, nan = ir.Constant(types.F64, 0.0), ir.Constant(types.F64, float("nan"))
    if n == 0:
        return

    def matrix(bidx: list[ir.Value]) -> None:
        def read(i: ir.Value, j: ir.Value) -> tuple[ir.Value, ir.Value]:  # A[i, j], j <= i
            re, im = complex_ops.parts(b, fe.load_element(src, a.shape, bidx + ([i, j] if lower else [j, i])))
            re, im = convert_value(b, re, part_in, F64), convert_value(b, im, part_in, F64)
            return re, (im if lower else b.fneg(im))
        ok = new_slot(fe, ir.Constant(types.I1, 1))
        with for_range(b, 0, n, name="cj") as j:
            acc = new_slot(fe, read(j, j)[0])
            with for_range(b, 0, j, name="ck") as k:
                re, im = mat.get(j, k)
                b.store(b.fsub(b.load(acc, typ=types.F64), b.fadd(b.fmul(re, re), b.fmul(im, im))), acc)
            s = b.load(acc, typ=types.F64)
            bad = b.fcmp_unordered("ule", s, zero)  # <= 0 or NaN
            b.store(b.and_(b.load(ok, typ=types.I1), b.not_(bad)), ok)
            d = math_ops.libm(b, "sqrt", [s])
            mat.set(j, j, d, zero)
            with for_range(b, b.add(j, c64(1)), n, name="ci") as i:
                a_re, a_im = read(i, j)
                acc_re, acc_im = new_slot(fe, a_re), new_slot(fe, a_im)
                with for_range(b, 0, j, name="ck2") as k:
                    p, q = mat.get(i, k)
                    r, t = mat.get(j, k)  # L[i,k] * conj(L[j,k]) = (pr + qt) + (qr - pt) i
                    b.store(b.fsub(b.load(acc_re, typ=types.F64), b.fadd(b.fmul(p, r), b.fmul(q, t))), acc_re)
                    b.store(b.fsub(b.load(acc_im, typ=types.F64), b.fsub(b.fmul(q, r), b.fmul(p, t))), acc_im)
                mat.set(i, j, b.fdiv(b.load(acc_re, typ=types.F64), d), b.fdiv(b.load(acc_im, typ=types.F64), d))
        good = b.load(ok, typ=types.I1)
        with for_range(b, 0, n, name="wi") as i:
            with for_range(b, 0, n, name="wj") as j:
                r, c = (i, j) if lower else (j, i)  # factor element L[r, c] (upper: U = conj(L^T))
                inside = b.icmp_signed("<=", c, r)
                re, im = mat.get(b.select(inside, r, c), b.select(inside, c, r))
                if not lower:
                    im = b.fneg(im)
                re = b.select(inside, b.select(good, re, nan), b.select(good, zero, nan))
                im = b.select(b.and_(inside, good), im, zero)
                z = complex_ops.make(b, convert_value(b, re, F64, part_out), convert_value(b, im, F64, part_out), out_et)
                fe.store_element(z, out, out_shape, bidx + [i, j])
    loop_nest(b, batch_shape(a.shape, 2), matrix)


def _cholesky_scratch(inst: Instruction) -> list[int]:
    et = inst.operands[0].shape.element_type
    per_element = 16 if et is not None and et.kind == "complex" else 8
    return [per_element * inst.operands[0].shape.dims[-1] ** 2]


SCRATCH["cholesky"] = _cholesky_scratch


@emitter("triangular-solve")
def emit_triangular_solve(fe: FunctionEmitter, inst: Instruction) -> None:
    _real(inst)
    at = inst.attrs
    trans = str(at.get("transpose_a", "NO_TRANSPOSE")).upper() in ("TRANSPOSE", "ADJOINT")
    solve_triangular(fe, inst, inst.operands[0], inst.operands[1], fe.leaf_ptrs(inst)[0], inst.shape,
                     bool(at.get("left_side", False)), bool(at.get("lower", False)),
                     bool(at.get("unit_diagonal", False)), trans)


def solve_triangular(fe: FunctionEmitter, inst: Instruction, a_op: Instruction, b_op: Instruction,
                     out: ir.Value, out_shape: Shape, left: bool, lower: bool, unit: bool, trans: bool,
                     alpha: Instruction | None = None) -> None:
    """op(a) x = alpha b (left) or x op(a) = alpha b, per matrix of the batch; scratch 0/1 of
    `inst` hold t (n x n) and x (n x rhs) in f64."""
    n = a_op.shape.dims[-1]
    rows, cols = b_op.shape.dims[-2], b_op.shape.dims[-1]
    m = cols if left else rows  # right-hand sides
    b = fe.b
    a_et, b_et, out_et = a_op.shape.element_type, b_op.shape.element_type, out_shape.element_type
    assert a_et is not None and b_et is not None and out_et is not None
    a_ptr, b_ptr = fe.leaf_ptrs(a_op)[0], fe.leaf_ptrs(b_op)[0]
    t_ptr, x_ptr = fe.scratch_ptrs(inst)[:2]
    t, x = Mat(fe, t_ptr, n), Mat(fe, x_ptr, max(1, m))
    # the effective system t y = r with t lower or upper triangular
    eff_lower = lower != trans
    if not left:
        eff_lower = not eff_lower
    if n == 0 or m == 0:
        return

    def matrix(bidx: list[ir.Value]) -> None:
        with for_range(b, 0, n, name="ti") as i:
            with for_range(b, 0, n, name="tj") as j:
                # t = op(a) (transposed if trans), then transposed again for the right side
                r, c = (j, i) if trans != (not left) else (i, j)  # element of a feeding t[i, j]
                in_tri = b.icmp_signed("<=", c, r) if lower else b.icmp_signed(">=", c, r)
                v = convert_value(b, fe.load_element(a_ptr, a_op.shape, bidx + [r, c]), a_et, F64)
                v = b.select(in_tri, v, ir.Constant(types.F64, 0.0))
                if unit:
                    v = b.select(b.icmp_signed("==", i, j), ir.Constant(types.F64, 1.0), v)
                t.set(i, j, v)
        with for_range(b, 0, n, name="xi") as i:
            with for_range(b, 0, m, name="xc") as c:
                x.set(i, c, ir.Constant(types.F64, 0.0))
        scale = None
        if alpha is not None:
            aet = alpha.shape.element_type
            assert aet is not None
            scale = convert_value(b, fe.load_element(fe.leaf_ptrs(alpha)[0], alpha.shape, []), aet, F64)

        def solve_row(i: ir.Value) -> None:
            with for_range(b, 0, m, name="sc") as c:
                bi = bidx + ([i, c] if left else [c, i])
                rhs = convert_value(b, fe.load_element(b_ptr, b_op.shape, bi), b_et, F64)
                acc = new_slot(fe, rhs)
                with for_range(b, 0, n, name="sj") as j:
                    b.store(b.fsub(b.load(acc, typ=types.F64), b.fmul(t.get(i, j), x.get(j, c))), acc)
                x.set(i, c, b.fdiv(b.load(acc, typ=types.F64), t.get(i, i)))
        with for_range(b, 0, n, name="si") as step:
            solve_row(step if eff_lower else b.sub(c64(n - 1), step))
        with for_range(b, 0, n, name="oi") as i:
            with for_range(b, 0, m, name="oc") as c:
                v = x.get(i, c)
                if scale is not None:
                    v = b.fmul(v, scale)
                fe.store_element(convert_value(b, v, F64, out_et), out, out_shape, bidx + ([i, c] if left else [c, i]))
    loop_nest(b, batch_shape(b_op.shape, 2), matrix)


SCRATCH["triangular-solve"] = lambda inst: [
    8 * inst.operands[0].shape.dims[-1] ** 2,
    8 * inst.operands[0].shape.dims[-1] * max(1, inst.operands[1].shape.dims[-1 if inst.attrs.get("left_side")
                                                                             else -2])]


# ------------------------------------------------------------------------- batch norm
# As the interpreter (XLA's BatchNormExpander): statistics over every dim but
# feature_index, in f32 (f64 for f64); Var[X] = E[X^2] - E[X]^2.

@dataclass
class _BatchNorm:
    """What batch-norm-training and -grad share: the feature dim, epsilon, the operand's shape,
    the work type (f32, f64 for f64), elements per feature, two per-feature accumulators in
    scratch (zeroed), and the result leaves' pointers and shapes."""

    fi: int
    eps: float
    xs: Shape
    work: ElementType
    ty: ir.Type
    nf: int
    count: int
    acc: tuple[ir.Value, ir.Value]
    outs: list[ir.Value]
    shapes: list[Shape]
    et: ElementType


def _bn(fe: FunctionEmitter, inst: Instruction, name: str) -> _BatchNorm:
    x = inst.operands[0]
    et = x.shape.element_type
    if et is None or et.kind != "float":
        raise HloUnsupportedError(f"{inst.opcode} of {et} values")
    work = ELEMENT_TYPES["f64" if et.name == "f64" else "f32"]
    ty = types.value_type(work)
    fi = int(inst.attrs.get("feature_index", 0))
    nf = x.shape.dims[fi]
    s1, s2 = fe.scratch_ptrs(inst)
    with for_range(fe.b, 0, nf, name=name) as f:
        _vstore(fe, s1, ty, f, ir.Constant(ty, 0.0))
        _vstore(fe, s2, ty, f, ir.Constant(ty, 0.0))
    shapes = inst.shape.leaves()
    out_et = shapes[0].element_type
    assert out_et is not None
    return _BatchNorm(fi, float(inst.attrs.get("epsilon", 0.0)), x.shape, work, ty, nf,
                      math.prod(x.shape.dims) // max(nf, 1), (s1, s2), fe.leaf_ptrs(inst), shapes, out_et)


def _vload(fe: FunctionEmitter, ptr: ir.Value, ty: ir.Type, f: ir.Value) -> ir.Value:
    return fe.b.load(fe.b.gep(ptr, [f], source_etype=ty), typ=ty)


def _vstore(fe: FunctionEmitter, ptr: ir.Value, ty: ir.Type, f: ir.Value, v: ir.Value) -> None:
    fe.b.store(v, fe.b.gep(ptr, [f], source_etype=ty))


def _operand(fe: FunctionEmitter, inst: Instruction, k: int, index: list[ir.Value], work: ElementType) -> ir.Value:
    op = inst.operands[k]
    et = op.shape.element_type
    assert et is not None
    return convert_value(fe.b, fe.load_element(fe.leaf_ptrs(op)[0], op.shape, index), et, work)


@emitter("batch-norm-training")
def emit_batch_norm_training(fe: FunctionEmitter, inst: Instruction) -> None:
    bn = _bn(fe, inst, "bz")
    fi, eps, xs, work, ty, nf, count, et = bn.fi, bn.eps, bn.xs, bn.work, bn.ty, bn.nf, bn.count, bn.et
    b = fe.b
    s1, s2 = bn.acc
    out, mean_out, var_out = bn.outs
    o_shape, m_shape, v_shape = bn.shapes

    def stats(index: list[ir.Value]) -> None:
        v = _operand(fe, inst, 0, index, work)
        f = index[fi]
        _vstore(fe, s1, ty, f, b.fadd(_vload(fe, s1, ty, f), v))
        _vstore(fe, s2, ty, f, b.fadd(_vload(fe, s2, ty, f), b.fmul(v, v)))
    loop_nest(b, xs, stats)
    inv_n = ir.Constant(ty, 1.0 / count if count else math.inf)  # an empty batch: 0 * inf = NaN, as XLA
    with for_range(b, 0, nf, name="bm") as f:
        mean = b.fmul(_vload(fe, s1, ty, f), inv_n)
        var = b.fsub(b.fmul(_vload(fe, s2, ty, f), inv_n), b.fmul(mean, mean))
        _vstore(fe, s1, ty, f, mean)
        _vstore(fe, s2, ty, f, var)
        fe.store_element(convert_value(b, mean, work, et), mean_out, m_shape, [f])
        fe.store_element(convert_value(b, var, work, et), var_out, v_shape, [f])

    def normalise(index: list[ir.Value]) -> None:
        f = index[fi]
        v = _operand(fe, inst, 0, index, work)
        norm = b.fdiv(b.fsub(v, _vload(fe, s1, ty, f)),
                      math_ops.libm(b, "sqrt", [b.fadd(_vload(fe, s2, ty, f), ir.Constant(ty, eps))]))
        r = b.fadd(b.fmul(norm, _operand(fe, inst, 1, [f], work)), _operand(fe, inst, 2, [f], work))
        fe.store_element(convert_value(b, r, work, et), out, o_shape, index)
    loop_nest(b, xs, normalise)


@emitter("batch-norm-grad")
def emit_batch_norm_grad(fe: FunctionEmitter, inst: Instruction) -> None:
    bn = _bn(fe, inst, "gz")
    fi, eps, xs, work, ty, nf, count, et = bn.fi, bn.eps, bn.xs, bn.work, bn.ty, bn.nf, bn.count, bn.et
    b = fe.b
    sg, sgc = bn.acc
    dx_out, dscale_out, doffset_out = bn.outs
    dx_shape, ds_shape, do_shape = bn.shapes

    def centered(index: list[ir.Value]) -> ir.Value:
        return b.fsub(_operand(fe, inst, 0, index, work), _operand(fe, inst, 2, [index[fi]], work))

    def sums(index: list[ir.Value]) -> None:
        f = index[fi]
        g = _operand(fe, inst, 4, index, work)
        _vstore(fe, sg, ty, f, b.fadd(_vload(fe, sg, ty, f), g))
        _vstore(fe, sgc, ty, f, b.fadd(_vload(fe, sgc, ty, f), b.fmul(g, centered(index))))
    loop_nest(b, xs, sums)

    def inv(f: ir.Value) -> ir.Value:
        var = _operand(fe, inst, 3, [f], work)
        return b.fdiv(ir.Constant(ty, 1.0), math_ops.libm(b, "sqrt", [b.fadd(var, ir.Constant(ty, eps))]))
    with for_range(b, 0, nf, name="gs") as f:
        fe.store_element(convert_value(b, b.fmul(_vload(fe, sgc, ty, f), inv(f)), work, et), dscale_out,
                         ds_shape, [f])
        fe.store_element(convert_value(b, _vload(fe, sg, ty, f), work, et), doffset_out, do_shape, [f])

    def dx(index: list[ir.Value]) -> None:
        f = index[fi]
        g = _operand(fe, inst, 4, index, work)
        iv = inv(f)
        n = ir.Constant(ty, float(count))
        lead = b.fdiv(b.fmul(_operand(fe, inst, 1, [f], work), iv), n)
        inner = b.fsub(b.fsub(b.fmul(n, g), _vload(fe, sg, ty, f)),
                       b.fmul(centered(index), b.fmul(_vload(fe, sgc, ty, f), b.fmul(iv, iv))))
        fe.store_element(convert_value(b, b.fmul(lead, inner), work, et), dx_out, dx_shape, index)
    loop_nest(b, xs, dx)


SCRATCH["batch-norm-training"] = SCRATCH["batch-norm-grad"] = \
    lambda inst: [8 * max(1, inst.operands[0].shape.dims[int(inst.attrs.get("feature_index", 0))])] * 2
