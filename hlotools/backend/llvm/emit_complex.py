"""Complex values ({re, im} literal structs): construction, parts, the arithmetic and
comparisons HLO defines, and conversions (real -> complex; complex -> complex)."""
from __future__ import annotations

from typing import TypeAlias

import llvmlite.ir as ir

from hlotools.backend.llvm import emit_math as M
from hlotools.backend.llvm import emit_types as T
from hlotools.errors import HloUnsupportedError
from hlotools.ir.types import ElementType

B: TypeAlias = ir.IRBuilder


def parts(b: B, z: ir.Value) -> tuple[ir.Value, ir.Value]:
    return b.extract_value(z, 0), b.extract_value(z, 1)


def make(b: B, re: ir.Value, im: ir.Value, et: ElementType) -> ir.Value:
    ty = T.value_type(et)
    z = b.insert_value(ir.Constant(ty, ir.Undefined), re, 0)
    return b.insert_value(z, im, 1)


def unary(b: B, opcode: str, z: ir.Value, et: ElementType) -> ir.Value:
    re, im = parts(b, z)
    if opcode == "real":
        return re
    if opcode == "imag":
        return im
    if opcode == "negate":
        return make(b, b.fneg(re), b.fneg(im), et)
    if opcode == "abs":
        return M.libm(b, "hypot", [re, im])
    if opcode == "exponential":
        return _exp(b, re, im, et)
    if opcode == "log":
        return make(b, M.libm(b, "log", [M.libm(b, "hypot", [re, im])]), M.libm(b, "atan2", [im, re]), et)
    if opcode == "sqrt":
        return _sqrt(b, re, im, et)
    raise HloUnsupportedError(f"{opcode} of complex values")


def _exp(b: B, re: ir.Value, im: ir.Value, et: ElementType) -> ir.Value:
    e = M.libm(b, "exp", [re])
    return make(b, b.fmul(e, M.libm(b, "cos", [im])), b.fmul(e, M.libm(b, "sin", [im])), et)


def _sqrt(b: B, re: ir.Value, im: ir.Value, et: ElementType) -> ir.Value:
    """The principal root (C99 csqrt): t = sqrt((|a| + |z|) / 2); a >= 0: (t, b / 2t),
    else (|b| / 2t, copysign(t, b)); sqrt(0 + bi) for b = 0 keeps the sign of b."""
    ty = re.type
    zero = ir.Constant(ty, 0.0)
    fabs = M.libm(b, "fabs", [re])
    t = M.libm(b, "sqrt", [b.fmul(b.fadd(fabs, M.libm(b, "hypot", [re, im])), ir.Constant(ty, 0.5))])
    two_t = b.fadd(t, t)
    pos = b.fcmp_ordered(">=", re, zero)
    r_re = b.select(pos, t, b.fdiv(M.libm(b, "fabs", [im]), two_t))
    r_im = b.select(pos, b.fdiv(im, two_t), M.libm(b, "copysign", [t, im]))
    is_zero = b.and_(b.fcmp_ordered("==", re, zero), b.fcmp_ordered("==", im, zero))
    return make(b, b.select(is_zero, zero, r_re), b.select(is_zero, im, r_im), et)


def binary(b: B, opcode: str, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
    a, c = parts(b, x)
    bb, d = parts(b, y)
    if opcode == "add":
        return make(b, b.fadd(a, bb), b.fadd(c, d), et)
    if opcode == "subtract":
        return make(b, b.fsub(a, bb), b.fsub(c, d), et)
    if opcode == "multiply":
        return make(b, b.fsub(b.fmul(a, bb), b.fmul(c, d)), b.fadd(b.fmul(a, d), b.fmul(c, bb)), et)
    if opcode == "power":  # exp(y * log(x))
        lre, lim = M.libm(b, "log", [M.libm(b, "hypot", [a, c])]), M.libm(b, "atan2", [c, a])
        pre = b.fsub(b.fmul(bb, lre), b.fmul(d, lim))
        pim = b.fadd(b.fmul(bb, lim), b.fmul(d, lre))
        return _exp(b, pre, pim, et)
    if opcode == "divide":
        den = b.fadd(b.fmul(bb, bb), b.fmul(d, d))
        re = b.fdiv(b.fadd(b.fmul(a, bb), b.fmul(c, d)), den)
        im = b.fdiv(b.fsub(b.fmul(c, bb), b.fmul(a, d)), den)
        return make(b, re, im, et)
    raise HloUnsupportedError(f"{opcode} of complex values")


def compare(b: B, direction: str, x: ir.Value, y: ir.Value) -> ir.Value:
    a, c = parts(b, x)
    bb, d = parts(b, y)
    if direction == "EQ":
        return b.and_(b.fcmp_ordered("==", a, bb), b.fcmp_ordered("==", c, d))
    if direction == "NE":
        return b.or_(b.fcmp_unordered("!=", a, bb), b.fcmp_unordered("!=", c, d))
    raise HloUnsupportedError(f"compare {direction} of complex values")


def convert(b: B, x: ir.Value, src: ElementType, dst: ElementType) -> ir.Value:
    from hlotools.backend.llvm.emit_arith import convert_value
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
