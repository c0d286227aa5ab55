"""The LAPACK custom-calls JAX emits on the CPU (lapack_{s,d}{potrf,trsm,getrf}[_ffi]) for real
types, with the interpreter's semantics (hlotools/interpreter/custom_calls.py): flags come from
backend_config (`uplo = 76 : ui8` is 'L'), matrices in whatever layout the operands have.

* potrf: the Cholesky factor in the `uplo` triangle, the other triangle left as the input,
  info = order of the first minor that is not positive definite (0: success).
* trsm:  op(A) X = alpha B (side L) or X op(A) = alpha B, alpha an optional third operand.
* getrf: P A = L U with partial pivoting (first max |a|), 1-based pivots, info = first zero pivot.
"""
from __future__ import annotations

import llvmlite.ir as ir

from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.registry import CUSTOM_CALLS, SCRATCH
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.arith import convert_value
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range, loop_nest
from hlotools.backend.llvm.lower.linalg import (
    F64,
    Mat,
    batch_shape,
    cholesky_core,
    new_slot,
    solve_triangular,
)
from hlotools.errors import HloUnsupportedError
from hlotools.ir.custom_calls import backend_config_flag, lapack_targets
from hlotools.ir.instruction import Instruction


def _real(inst: Instruction) -> None:
    for s in inst.shape.leaves() + [o.shape for o in inst.operands]:
        if s.element_type is not None and s.element_type.kind == "complex":
            raise HloUnsupportedError(f"custom-call {inst.attrs.get('custom_call_target')} of complex values")


def _potrf(fe: FunctionEmitter, inst: Instruction) -> None:
    _real(inst)
    ptrs, shapes = fe.leaf_ptrs(inst), inst.shape.leaves()
    info = (ptrs[1], shapes[1]) if len(ptrs) > 1 else None
    cholesky_core(fe, inst, inst.operands[0], ptrs[0], shapes[0], backend_config_flag(inst, "uplo", "L") == "L",
                  keep_other=True, info=info)


def _trsm(fe: FunctionEmitter, inst: Instruction) -> None:
    _real(inst)
    a, b = inst.operands[0], inst.operands[1]
    alpha = inst.operands[2] if len(inst.operands) > 2 else None
    solve_triangular(fe, inst, a, b, fe.leaf_ptrs(inst)[0], inst.shape.leaves()[0],
                     backend_config_flag(inst, "side", "L") == "L", backend_config_flag(inst, "uplo", "L") == "L",
                     backend_config_flag(inst, "diag", "N") == "U", backend_config_flag(inst, "trans_x", "N") in ("T", "C"), alpha)


def _getrf(fe: FunctionEmitter, inst: Instruction) -> None:
    _real(inst)
    a = inst.operands[0]
    m, n = a.shape.dims[-2], a.shape.dims[-1]
    k = min(m, n)
    ptrs, shapes = fe.leaf_ptrs(inst), inst.shape.leaves()
    et = a.shape.element_type
    assert et is not None
    b = fe.b
    lu = Mat(fe, fe.scratch_ptrs(inst)[0], max(1, n))
    src = fe.leaf_ptrs(a)[0]
    if m == 0 or n == 0:
        return

    def matrix(bidx: list[ir.Value]) -> None:
        with for_range(b, 0, m, name="li") as i:
            with for_range(b, 0, n, name="lj") as j:
                lu.set(i, j, convert_value(b, fe.load_element(src, a.shape, bidx + [i, j]), et, F64))
        info = new_slot(fe, ir.Constant(types.I32, 0))
        fabs = "llvm.fabs.f64"
        fn = b.module.globals.get(fabs) or ir.Function(b.module, ir.FunctionType(types.F64, [types.F64]), fabs)
        with for_range(b, 0, k, name="pj") as j:
            p, best = new_slot(fe, j), new_slot(fe, b.call(fn, [lu.get(j, j)]))
            with for_range(b, b.add(j, c64(1)), m, name="pi") as i:
                v = b.call(fn, [lu.get(i, j)])
                better = b.fcmp_ordered(">", v, b.load(best, typ=types.F64))
                b.store(b.select(better, i, b.load(p, typ=types.I64)), p)
                b.store(b.select(better, v, b.load(best, typ=types.F64)), best)
            pv = b.load(p, typ=types.I64)
            if len(ptrs) > 1:
                fe.store_element(b.trunc(b.add(pv, c64(1)), types.I32), ptrs[1], shapes[1], bidx + [j])
            with for_range(b, 0, n, name="sw") as c:
                top, other = lu.get(j, c), lu.get(pv, c)
                lu.set(j, c, other)
                lu.set(pv, c, top)
            pivot = lu.get(j, j)
            zero = b.fcmp_ordered("==", pivot, ir.Constant(types.F64, 0.0))
            first = b.and_(zero, b.icmp_signed("==", b.load(info, typ=types.I32), ir.Constant(types.I32, 0)))
            b.store(b.select(first, b.add(b.trunc(j, types.I32), ir.Constant(types.I32, 1)), b.load(info, typ=types.I32)), info)
            with for_range(b, b.add(j, c64(1)), m, name="sc") as i:
                v = lu.get(i, j)
                lu.set(i, j, b.select(zero, v, b.fdiv(v, pivot)))
            with for_range(b, b.add(j, c64(1)), m, name="ui") as i:
                lij = lu.get(i, j)
                with for_range(b, b.add(j, c64(1)), n, name="ul") as col:
                    lu.set(i, col, b.fsub(lu.get(i, col), b.fmul(lij, lu.get(j, col))))
        out_et = shapes[0].element_type
        assert out_et is not None
        with for_range(b, 0, m, name="oi") as i:
            with for_range(b, 0, n, name="oj") as j:
                fe.store_element(convert_value(b, lu.get(i, j), F64, out_et), ptrs[0], shapes[0], bidx + [i, j])
        if len(ptrs) > 2:
            fe.store_element(b.load(info, typ=types.I32), ptrs[2], shapes[2], bidx)
    loop_nest(b, batch_shape(a.shape, 2), matrix)


CUSTOM_CALLS.register(*lapack_targets("potrf", types="sd"))(_potrf)
CUSTOM_CALLS.register(*lapack_targets("trsm", types="sd"))(_trsm)
CUSTOM_CALLS.register(*lapack_targets("getrf", types="sd"))(_getrf)


def _scratch(inst: Instruction) -> list[int]:
    target = str(inst.attrs.get("custom_call_target", ""))
    if target not in CUSTOM_CALLS or not inst.operands:
        return []
    a = inst.operands[0].shape
    if "trsm" in target:
        bs = inst.operands[1].shape
        left = backend_config_flag(inst, "side", "L") == "L"
        return [8 * a.dims[-1] ** 2, 8 * a.dims[-1] * max(1, bs.dims[-1] if left else bs.dims[-2])]
    return [8 * max(1, a.dims[-2] * a.dims[-1])]


SCRATCH["custom-call"] = _scratch
