"""dot: a correct loop nest that the vectoriser can work on (a faster cache-tiled kernel
can replace `emit_dot` through the EMITTERS table).

Result dims are batch..., lhs free..., rhs free... (XLA's order). When the last result
dim is an rhs free dim and the result accumulates in its own type (f32, f64, integers),
the nest is (outer dims, contracting dims, last dim): the innermost loop streams a result
row and an rhs row (contiguous in row-major layouts) with a loop-invariant lhs element.
Otherwise (narrow floats, which accumulate in f32 and round once; matrix-vector shapes)
each result element is a register accumulation over the contracting dims.

A NaN result element is stored as the canonical NaN (gemm_kernel.canonical_nan: which
payload a chain of multiply-adds keeps depends on the target's instruction forms): when the
element is final, after its sum (the row form: one pass over the finished row).
"""
from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ir

from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.registry import emitter
from hlotools.backend.llvm.kernels.gemm import canonical_nan
from hlotools.backend.llvm.llvm_ir import complex_ops, types
from hlotools.backend.llvm.llvm_ir.arith import convert_value
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range, nested_loops
from hlotools.errors import HloUnsupportedError
from hlotools.ir.instruction import Instruction
from hlotools.ir.types import ELEMENT_TYPES, ElementType


def _mul_add(b: ir.IRBuilder, acc: ir.Value, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
    if et.kind == "complex":
        return complex_ops.binary(b, "add", acc, complex_ops.binary(b, "multiply", x, y, et), et)
    if et.kind == "pred":
        return b.or_(acc, b.and_(x, y))
    if et.is_integer:
        return b.add(acc, b.mul(x, y))
    return b.fadd(acc, b.fmul(x, y))


def _zero(et: ElementType) -> ir.Value:
    return types.constant(et, 0)


@emitter("dot")
def emit_dot(fe: FunctionEmitter, inst: Instruction) -> None:
    a = inst.attrs
    lhs, rhs = inst.operands
    lb, rb = tuple(a.get("lhs_batch_dims", ())), tuple(a.get("rhs_batch_dims", ()))
    lc, rc = tuple(a.get("lhs_contracting_dims", ())), tuple(a.get("rhs_contracting_dims", ()))
    lfree = [d for d in range(len(lhs.shape.dims)) if d not in lb and d not in lc]
    rfree = [d for d in range(len(rhs.shape.dims)) if d not in rb and d not in rc]
    out_et = inst.shape.element_type
    assert out_et is not None
    acc_et = ELEMENT_TYPES["f32"] if types.is_small_float(out_et) else out_et
    if len(inst.shape.dims) != len(lb) + len(lfree) + len(rfree):
        raise HloUnsupportedError("dot result rank does not match its dimension numbers")
    out_ptr = fe.leaf_ptrs(inst)[0]
    b = fe.b
    gen = fe.gen
    out_dims = inst.shape.dims
    kdims = [lhs.shape.dims[d] for d in lc]
    if any(n == 0 for n in out_dims):
        return
    lhs_et, rhs_et = lhs.shape.element_type, rhs.shape.element_type
    assert lhs_et is not None and rhs_et is not None

    def indices(out_idx: list[ir.Value], k_idx: list[ir.Value]) -> tuple[list[ir.Value], list[ir.Value]]:
        li: list[ir.Value] = [c64(0)] * len(lhs.shape.dims)
        ri: list[ir.Value] = [c64(0)] * len(rhs.shape.dims)
        nb = len(lb)
        for j, (dl, dr) in enumerate(zip(lb, rb)):
            li[dl] = ri[dr] = out_idx[j]
        for j, d in enumerate(lfree):
            li[d] = out_idx[nb + j]
        for j, d in enumerate(rfree):
            ri[d] = out_idx[nb + len(lfree) + j]
        for j, (dl, dr) in enumerate(zip(lc, rc)):
            li[dl] = ri[dr] = k_idx[j]
        return li, ri

    def lhs_at(out_idx: list[ir.Value], k_idx: list[ir.Value]) -> ir.Value:
        return convert_value(b, gen.value_at(lhs, indices(out_idx, k_idx)[0]), lhs_et, acc_et)

    def rhs_at(out_idx: list[ir.Value], k_idx: list[ir.Value]) -> ir.Value:
        return convert_value(b, gen.value_at(rhs, indices(out_idx, k_idx)[1]), rhs_et, acc_et)

    row_form = bool(rfree) and acc_et is out_et and not any(n == 0 for n in kdims)
    n_outer = len(out_dims) - (1 if row_form else 0)
    idx: list[ir.Value] = [c64(0)] * len(out_dims)
    kidx: list[ir.Value] = [c64(0)] * len(kdims)

    def k_loops(body: Callable[[], None]) -> None:
        with nested_loops(b, kdims, range(len(kdims)), kidx, name="k"):
            body()

    def element() -> None:
        if row_form:
            last = len(out_dims) - 1
            with fe.gen.region(), for_range(b, 0, out_dims[last], name="n0") as n:
                idx[last] = n
                fe.store_element(_zero(out_et), out_ptr, inst.shape, list(idx))

            def row() -> None:
                idx[last] = c64(0)
                with fe.gen.region():
                    # the lhs element does not depend on the last (rhs free) dim: load it once
                    xv = lhs_at(list(idx), list(kidx))
                    with for_range(b, 0, out_dims[last], name="n") as n:
                        idx[last] = n
                        with fe.gen.region():
                            yv = rhs_at(list(idx), list(kidx))
                            acc = fe.load_element(out_ptr, inst.shape, list(idx))
                            fe.store_element(_mul_add(b, acc, xv, yv, acc_et), out_ptr, inst.shape, list(idx))
            k_loops(row)
            if out_et.kind in ("float", "complex"):
                with fe.gen.region(), for_range(b, 0, out_dims[last], name="nc") as n:
                    idx[last] = n  # the row is final: NaNs to the canonical one (gemm_kernel.canonical_nan)
                    done = fe.load_element(out_ptr, inst.shape, list(idx))
                    fe.store_element(canonical_nan(b, done), out_ptr, inst.shape, list(idx))
            return
        slot = fe.in_entry().alloca(types.value_type(acc_et))
        b.store(_zero(acc_et), slot)

        def accumulate() -> None:
            with fe.gen.region():
                xv, yv = lhs_at(list(idx), list(kidx)), rhs_at(list(idx), list(kidx))
                b.store(_mul_add(b, b.load(slot, typ=slot.allocated_type), xv, yv, acc_et), slot)
        k_loops(accumulate)
        v = convert_value(b, b.load(slot, typ=slot.allocated_type), acc_et, out_et)
        fe.store_element(canonical_nan(b, v), out_ptr, inst.shape, list(idx))

    with nested_loops(b, out_dims, range(n_outer), idx, name="o"), fe.gen.region():
        element()
