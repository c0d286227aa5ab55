"""Complex values ({re, im} literal structs): construction, parts, the elementwise functions,
comparisons and conversions (real -> complex; complex -> complex).

The functions are hlotools/ir/complex_math.py's formulas (XLA CPU's), emitted through
IrOps: the interpreter (interpreter/complex_ops.NumpyOps) evaluates the very same float operations on numpy arrays, so the two
backends differ only where libm and numpy round a call (exp, sin, atan2, ...) differently."""
from __future__ import annotations

from typing import TypeAlias

import llvmlite.ir as ir
import numpy as np

from hlotools.backend.llvm.llvm_ir import math_ops, types
from hlotools.errors import HloUnsupportedError
from hlotools.ir import complex_math as CM
from hlotools.ir.types import ElementType

B: TypeAlias = ir.IRBuilder


def parts(b: B, z: ir.Value) -> tuple[ir.Value, ir.Value]:
    return b.extract_value(z, 0), b.extract_value(z, 1)


def make(b: B, re: ir.Value, im: ir.Value, et: ElementType) -> ir.Value:
    ty = types.value_type(et)
    z = b.insert_value(ir.Constant(ty, ir.Undefined), re, 0)
    return b.insert_value(z, im, 1)


class IrOps:
    """complex_math.RealOps emitted as LLVM IR on one component type (float or double)."""

    _CMP = {"==": "==", "<": "<", "<=": "<=", ">": ">", ">=": ">="}

    def __init__(self, b: B, ty: ir.Type) -> None:
        self.b, self.ty = b, ty

    def c(self, v: float) -> ir.Constant:
        # f32 constants are the f32 rounding of the double (as numpy's asarray(v, float32)).
        return ir.Constant(self.ty, float(np.float32(v)) if self.ty == types.F32 else v)

    def add(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fadd(x, y)

    def sub(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fsub(x, y)

    def mul(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fmul(x, y)

    def div(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fdiv(x, y)

    def neg(self, x: ir.Value) -> ir.Value:
        return self.b.fneg(x)

    def _intrinsic(self, name: str, *args: ir.Value) -> ir.Value:
        full = f"llvm.{name}.{'f32' if self.ty == types.F32 else 'f64'}"
        fn = self.b.module.globals.get(full) or ir.Function(
            self.b.module, ir.FunctionType(self.ty, [self.ty] * len(args)), full)
        return self.b.call(fn, list(args))

    def fabs(self, x: ir.Value) -> ir.Value:
        return self._intrinsic("fabs", x)

    def copysign(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self._intrinsic("copysign", x, y)

    def sqrt(self, x: ir.Value) -> ir.Value:
        return self._intrinsic("sqrt", x)

    def maximum(self, x: ir.Value, y: ir.Value) -> ir.Value:
        """HLO maximum's one select form (NaN operand quieted, x's when both): llvm.maximum's
        NaN bits are the target's choice (x86 lowers it one way with AVX-512, another without)."""
        from hlotools.backend.llvm.llvm_ir.arith import float_max_min  # it imports this module
        return float_max_min(self.b, x, y, True)

    def minimum(self, x: ir.Value, y: ir.Value) -> ir.Value:
        from hlotools.backend.llvm.llvm_ir.arith import float_max_min
        return float_max_min(self.b, x, y, False)

    def fma(self, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
        """x * y + z rounded once on every target (llvm.fma: fmaf/fma where the CPU has no FMA)."""
        return self._intrinsic("fma", x, y, z)

    def call(self, name: str, *args: ir.Value) -> ir.Value:
        return math_ops.libm(self.b, name, list(args))

    def cmp(self, op: str, x: ir.Value, y: ir.Value) -> ir.Value:
        if op == "uno":
            return self.b.fcmp_unordered("uno", x, y)
        if op == "one":
            return self.b.fcmp_ordered("!=", x, y)
        return self.b.fcmp_ordered(self._CMP[op], x, y)

    def and_(self, p: ir.Value, q: ir.Value) -> ir.Value:
        return self.b.and_(p, q)

    def or_(self, p: ir.Value, q: ir.Value) -> ir.Value:
        return self.b.or_(p, q)

    def not_(self, p: ir.Value) -> ir.Value:
        return self.b.not_(p)

    def select(self, p: ir.Value, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.select(p, x, y)


def _component_bits(et: ElementType) -> int:
    return 64 if et.bits == 128 else 32


def unary(b: B, opcode: str, z: ir.Value, et: ElementType) -> ir.Value:
    """The complex unary opcodes with the interpreter's formulas (ir/complex_math.py,
    XLA's); real/imag extract a part. Opcodes XLA has no complex form of are refused."""
    re, im = parts(b, z)
    if opcode == "real":
        return re
    if opcode == "imag":
        return im
    o = IrOps(b, re.type)
    if opcode == "abs":
        return CM.abs_(o, (re, im))
    formula = CM.UNARY.get(opcode)
    if formula is None:
        raise HloUnsupportedError(f"{opcode} of complex values ({UNSUPPORTED_COMPLEX.get(opcode, 'not defined')})")
    return make(b, *formula(o, (re, im), _component_bits(et)), et)


# Complex unary opcodes the LLVM backend refuses, with the reason (tests/backend/llvm/test_opcodes.py
# checks every other (opcode, element type) the interpreter runs compiles here).
UNSUPPORTED_COMPLEX = {
    **{op: "XLA refuses complex operands at verification" for op in CM.NOT_COMPLEX},
    **{op: "XLA does not implement it for complex (UNIMPLEMENTED: unary complex op); the interpreter "
           "runs numpy's" for op in ("acos", "asin", "acosh", "asinh", "atanh")},
}


def binary(b: B, opcode: str, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
    formula = CM.BINARY.get(opcode)
    if formula is None:
        raise HloUnsupportedError(f"{opcode} of complex values")
    xr, xi = parts(b, x)
    o = IrOps(b, xr.type)
    return make(b, *formula(o, (xr, xi), parts(b, y)), et)


def compare(b: B, direction: str, x: ir.Value, y: ir.Value) -> ir.Value:
    a, c = parts(b, x)
    bb, d = parts(b, y)
    if direction == "EQ":
        return b.and_(b.fcmp_ordered("==", a, bb), b.fcmp_ordered("==", c, d))
    if direction == "NE":
        return b.or_(b.fcmp_unordered("!=", a, bb), b.fcmp_unordered("!=", c, d))
    raise HloUnsupportedError(f"compare {direction} of complex values")


def convert(b: B, x: ir.Value, src: ElementType, dst: ElementType) -> ir.Value:
    from hlotools.backend.llvm.llvm_ir.arith import convert_value
    from hlotools.ir.types import ELEMENT_TYPES
    if src.kind == "complex" and dst.kind == "complex":
        re, im = parts(b, x)
        ft = ELEMENT_TYPES["f64" if dst.bits == 128 else "f32"]
        fs = ELEMENT_TYPES["f64" if src.bits == 128 else "f32"]
        return make(b, convert_value(b, re, fs, ft), convert_value(b, im, fs, ft), dst)
    if dst.kind == "complex":
        ft = ELEMENT_TYPES["f64" if dst.bits == 128 else "f32"]
        re = convert_value(b, x, src, ft)
        return make(b, re, ir.Constant(re.type, 0.0), dst)
    raise HloUnsupportedError(f"convert from {src} to {dst} (complex to real; use real)")
