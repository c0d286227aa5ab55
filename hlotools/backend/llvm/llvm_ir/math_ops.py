"""Transcendental functions.

exp and tanh of f32 (the hot ones: softmax, GELU, logistic) are inline polynomial
approximations, branch-free so the loop vectoriser can widen them (the same
approximations as Eigen's pexp/ptanh that XLA CPU uses, within a few ulp); erf of f32 is
XLA's own interpolant, bit for bit (fused multiply-adds, so the same bits on every host). Everything else
calls the C math library (expf, logf, ...): jit.py checks that each such symbol resolves in
the process before the module is finalised, so a missing one is a compile error, never an
abort. f64 always uses libm (correctly rounded or nearly).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

import llvmlite.ir as ir

from hlotools.backend.llvm.llvm_ir import denormals, types

B: TypeAlias = ir.IRBuilder


def libm(b: B, name: str, args: list[ir.Value]) -> ir.Value:
    """Call the C library's `name` (f32: `namef`) on float arguments. Under XLA CPU's
    FTZ/DAZ (denormals.py) the operands and the result are flushed in code: libm tests a
    value's bits itself, so it computes log(1e-40) exactly where XLA's kernels see log(0)."""
    if denormals.flushing(b) and args[0].type == types.F32:  # f64: XLA calls libm too, which sees the bits
        return denormals.flush(b, _libm_call(b, name, [denormals.flush(b, a) for a in args]))
    return _libm_call(b, name, args)


def _libm_call(b: B, name: str, args: list[ir.Value]) -> ir.Value:
    ty = args[0].type
    full = name + ("f" if ty == types.F32 else "")
    fn = b.module.globals.get(full)
    if fn is None:
        fn = ir.Function(b.module, ir.FunctionType(ty, [a.type for a in args]), full)
        fn.attributes.add("nounwind")
    return b.call(fn, args)


def _intr(b: B, name: str, x: ir.Value) -> ir.Value:
    full = f"{name}.{'f32' if x.type == types.F32 else 'f64'}"
    fn = b.module.globals.get(full) or ir.Function(b.module, ir.FunctionType(x.type, [x.type]), full)
    return b.call(fn, [x])


def _f(v: float) -> ir.Constant:
    return ir.Constant(types.F32, v)


def _clamp(b: B, x: ir.Value, lo: float, hi: float) -> ir.Value:
    """Clamp keeping NaN (ordered compares are false for NaN)."""
    x = b.select(b.fcmp_ordered("<", x, _f(lo)), _f(lo), x)
    return b.select(b.fcmp_ordered(">", x, _f(hi)), _f(hi), x)


def _ldexp(b: B, y: ir.Value, m: ir.Value) -> ir.Value:
    """y * 2^m for integer m in [-150, 130], as two in-range power-of-two factors."""
    half = b.ashr(m, ir.Constant(types.I32, 1))
    rest = b.sub(m, half)

    def pow2(e: ir.Value) -> ir.Value:
        return b.bitcast(b.shl(b.add(e, ir.Constant(types.I32, 127)), ir.Constant(types.I32, 23)), types.F32)
    return b.fmul(b.fmul(y, pow2(half)), pow2(rest))


def exp(b: B, x: ir.Value) -> ir.Value:
    if x.type != types.F32:
        return libm(b, "exp", [x])
    x = _clamp(b, x, -104.0, 88.8)
    fx = _intr(b, "llvm.floor", b.fadd(b.fmul(x, _f(1.44269504088896341)), _f(0.5)))
    r = b.fsub(b.fsub(x, b.fmul(fx, _f(0.693359375))), b.fmul(fx, _f(-2.12194440e-4)))
    y = _f(1.9875691500e-4)
    for c in (1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1):
        y = b.fadd(b.fmul(y, r), _f(c))
    y = b.fadd(b.fadd(b.fmul(b.fmul(y, r), r), r), _f(1.0))
    # fx is in [-150, 129] after the clamp, so a plain fptosi is exact once NaN is replaced
    # (y carries the NaN); fptosi.sat has no vector lowering on x86: 16 scalar conversions
    # per vector made exp the hot spot of vectorised loops.
    fx_int = b.fptosi(b.select(b.fcmp_unordered("uno", fx, fx), _f(0.0), fx), types.I32)
    return _ldexp(b, y, fx_int)


_TANH_ALPHA = (4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05, 5.12229709037114e-08,
               -8.60467152213735e-11, 2.00018790482477e-13, -2.76076847742355e-16)
_TANH_BETA = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04, 1.19825839466702e-06)


def tanh(b: B, x: ir.Value) -> ir.Value:
    if x.type != types.F32:
        return libm(b, "tanh", [x])
    c = _clamp(b, x, -7.90531110763549805, 7.90531110763549805)
    x2 = b.fmul(c, c)
    p = _f(_TANH_ALPHA[-1])
    for a in reversed(_TANH_ALPHA[:-1]):
        p = b.fadd(b.fmul(p, x2), _f(a))
    p = b.fmul(p, c)
    q = _f(_TANH_BETA[-1])
    for bb in reversed(_TANH_BETA[:-1]):
        q = b.fadd(b.fmul(q, x2), _f(bb))
    small = b.fcmp_ordered("<", _intr(b, "llvm.fabs", x), _f(0.0004))
    return b.select(small, x, b.fdiv(p, q))


def pow(b: B, x: ir.Value, y: ir.Value) -> ir.Value:  # noqa: A001 - the HLO name
    return libm(b, "pow", [x, y])


def atan2(b: B, x: ir.Value, y: ir.Value) -> ir.Value:
    return libm(b, "atan2", [x, y])


# XLA's erf intrinsic (xla/codegen/intrinsic/erf.cc): f32 is Eigen's rational interpolant,
# its polynomials in x^2 evaluated with llvm.fma (fused on every host: LLVM calls fmaf where the
# CPU has no FMA); f64 calls the C library's erf. The interpreter replays both (special.py).
_ERF_ALPHA = (1.128379143519084, 0.18520832239976145, 0.050955695062380861, 0.0034082910107109506,
              0.00022905065861350646)
_ERF_BETA = (1.0, 0.49746925110067538, 0.11098505178285362, 0.014070470171167667, 0.0010179625278914885,
             0.000023547966471313185, -1.1791602954361697e-7)


def _fma(b: B, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
    fn = b.module.globals.get("llvm.fma.f32") or ir.Function(
        b.module, ir.FunctionType(types.F32, [types.F32] * 3), "llvm.fma.f32")
    return b.call(fn, [x, y, z])


def erf(b: B, x: ir.Value) -> ir.Value:
    if x.type != types.F32:
        return libm(b, "erf", [x])
    x2 = b.fmul(x, x)
    p = _fma(b, x2, _f(_ERF_ALPHA[4]), _f(_ERF_ALPHA[3]))
    for a in reversed(_ERF_ALPHA[:3]):
        p = _fma(b, x2, p, _f(a))
    p = b.fmul(x, p)
    q = _fma(b, x2, _f(_ERF_BETA[6]), _f(_ERF_BETA[5]))
    for c in reversed(_ERF_BETA[:5]):
        q = _fma(b, x2, q, _f(c))
    one = b.fcmp_ordered("<=", _f(3.832506856900711), _intr(b, "llvm.fabs", x))
    sign = b.and_(b.bitcast(x, types.I32), ir.Constant(types.I32, 0x80000000))
    unit = b.bitcast(b.or_(sign, ir.Constant(types.I32, 0x3F800000)), types.F32)  # copysign(1, x)
    return b.select(one, unit, b.fdiv(p, q))


def _lib(name: str) -> Callable[[B, ir.Value], ir.Value]:
    return lambda b, x: libm(b, name, [x])


TRANSCENDENTAL = {
    "exponential": exp, "tanh": tanh,
    "exponential-minus-one": _lib("expm1"), "log": _lib("log"), "log-plus-one": _lib("log1p"),
    "cbrt": _lib("cbrt"), "sine": _lib("sin"), "cosine": _lib("cos"), "tan": _lib("tan"),
    "sinh": _lib("sinh"), "cosh": _lib("cosh"), "acos": _lib("acos"), "asin": _lib("asin"),
    "acosh": _lib("acosh"), "asinh": _lib("asinh"), "atanh": _lib("atanh"), "erf": erf,
}
