"""The complex elementwise opcodes on numpy arrays: ir/complex_math's formulas (XLA CPU's)
evaluated through NumpyOps, the RealOps of the interpreter.

The LLVM backend emits the same formulas through llvm_ir/complex_ops.IrOps, so both backends
run the same sequence of float operations; NumpyOps rounds each one to the component type
and models XLA CPU's flush-to-zero, which is why it lives here with the other numpy kernels.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Generic

import numpy as np

from hlotools.errors import HloUnsupportedError
from hlotools.interpreter import denormals, special
from hlotools.interpreter.numeric import float_maximum, float_minimum
from hlotools.ir import semantics
from hlotools.ir.complex_math import BINARY, NOT_COMPLEX, UNARY, V, abs_

Array = np.ndarray


class NumpyOps(Generic[V]):
    """RealOps on float32/float64 arrays: each operation rounds to the component type.

    With `flush` (the default under XLA CPU's FTZ/DAZ, semantics.flush_denormals()) every
    arithmetic step and libm call sees its denormal operands as zeros of their sign and flushes
    its result, as the LLVM backend's code does under MXCSR FTZ|DAZ (and XLA's): a formula's
    intermediate values underflow inside one kernel, where flushing the kernel's operands and
    results alone cannot reach (Smith's c/d of -1 / 1.7e38 is 0 there, so inf * 0 is NaN).
    Moves, negate, fabs, copysign and select are bit operations and keep the bits."""

    _CALLS: dict[str, Callable[..., Array]] = {
        "exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "sin": np.sin,
        "cos": np.cos, "atan2": np.arctan2, "pow": np.power}
    _CMP: dict[str, Callable[[Array, Array], Array]] = {
        "==": np.equal, "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
        "one": lambda x, y: (x != y) & ~np.isnan(x) & ~np.isnan(y),
        "uno": lambda x, y: np.isnan(x) | np.isnan(y)}

    def __init__(self, dtype: np.dtype, flush: bool | None = None) -> None:
        self.dtype = np.dtype(dtype)
        self.flush = semantics.flush_denormals() if flush is None else flush

    def _z(self, x: Array) -> Array:
        """x with denormals flushed when this evaluation flushes (DAZ on an operand, FTZ on a result)."""
        return denormals.flush(np.asarray(x, self.dtype)) if self.flush else x

    def c(self, v: float) -> Array:
        return np.asarray(v, self.dtype)

    def add(self, x: Array, y: Array) -> Array:
        return self._z(np.add(self._z(x), self._z(y), dtype=self.dtype))

    def sub(self, x: Array, y: Array) -> Array:
        return self._z(np.subtract(self._z(x), self._z(y), dtype=self.dtype))

    def mul(self, x: Array, y: Array) -> Array:
        return self._z(np.multiply(self._z(x), self._z(y), dtype=self.dtype))

    def div(self, x: Array, y: Array) -> Array:
        return self._z(np.divide(self._z(x), self._z(y), dtype=self.dtype))

    def neg(self, x: Array) -> Array:
        return np.negative(x)

    def fabs(self, x: Array) -> Array:
        return np.abs(x)

    def copysign(self, x: Array, y: Array) -> Array:
        return np.copysign(x, y, dtype=self.dtype)

    def sqrt(self, x: Array) -> Array:
        return self._z(np.sqrt(self._z(x)))

    def maximum(self, x: Array, y: Array) -> Array:
        """HLO maximum as both backends define it (emit_arith.float_max_min): the NaN operand
        quieted, x's when both are; -0 below +0; never numpy's or the CPU's choice of NaN."""
        return np.asarray(float_maximum(self._z(x), self._z(y)), self.dtype)

    def minimum(self, x: Array, y: Array) -> Array:
        return np.asarray(float_minimum(self._z(x), self._z(y)), self.dtype)

    def fma(self, x: Array, y: Array, z: Array) -> Array:
        """x * y + z rounded once (special.fma32/fma64, exact emulations): llvm.fma's value."""
        fused = special.fma32 if self.dtype == np.float32 else _fma64
        return self._z(np.asarray(fused(self._z(x), self._z(y), self._z(z)), self.dtype))

    def call(self, name: str, *args: Array) -> Array:
        """f32 calls go through f64 and round once: the correctly rounded result that glibc's
        expf, sinf, atan2f, ... (the LLVM backend's) give, where numpy's f32 SIMD loops have
        errors of an ulp of 1 (cos near pi/2 would be off by hundreds of ulps). Operands and
        result flushed as emit_math.libm does under FTZ/DAZ."""
        args = tuple(self._z(a) for a in args)
        if self.dtype == np.float32:
            wide = [np.asarray(a, np.float64) for a in args]
            return self._z(np.asarray(self._CALLS[name](*wide), np.float32))
        return self._z(np.asarray(self._CALLS[name](*args), self.dtype))

    def cmp(self, op: str, x: Array, y: Array) -> Array:
        """DAZ reaches comparisons too (ucomiss/cmpss read their operands through it)."""
        return self._CMP[op](self._z(x), self._z(y))

    def and_(self, p: Array, q: Array) -> Array:
        return np.logical_and(p, q)

    def or_(self, p: Array, q: Array) -> Array:
        return np.logical_or(p, q)

    def not_(self, p: Array) -> Array:
        return np.logical_not(p)

    def select(self, p: Array, x: Array, y: Array) -> Array:
        return np.where(p, x, y).astype(self.dtype, copy=False)


_SPLIT_MAX = 2.0 ** 995  # special.fma64's Veltkamp split (x * (2^27 + 1)) overflows past this
_TINY = 2.0 ** -800  # below this its error terms fall into the denormals and lose bits


def _fma64(a: Array, b: Array, c: Array) -> Array:
    """special.fma64 (finite, nonzero operands of moderate size) made IEEE's fma everywhere.
    A product or addend that is zero or not finite needs no fusing (a * b + c rounds once: an
    infinite or NaN a or b, a zero product; c = 0 gives the rounded product), except a finite product with c infinite
    or NaN, which gives c (a product rounded to inf would make inf - inf = NaN). Huge operands
    (the bigger one and c scaled by 2^-128) and tiny ones (the smaller one and c by 2^128) are
    brought into range first and the result scaled back, which is exact or the same overflow or
    underflow the fma has; a sum or a scaled product that still overflows is inf, as a * b + c."""
    a, b, c = (np.asarray(v, np.float64) for v in np.broadcast_arrays(a, b, c))
    with np.errstate(all="ignore"):
        finite_ab = np.isfinite(a) & np.isfinite(b)
        plain = ~finite_ab | (a == 0) | (b == 0) | (c == 0)
        fused = ~plain & np.isfinite(c)
        huge = fused & ((np.abs(a) > _SPLIT_MAX) | (np.abs(b) > _SPLIT_MAX))
        tiny = fused & (np.abs(a * b) < _TINY) & (np.abs(c) < _TINY)
        scale = np.where(huge, 2.0 ** -128, np.where(tiny, 2.0 ** 128, 1.0))
        on_a = np.where(huge, np.abs(a) >= np.abs(b), np.abs(a) < np.abs(b))
        sa = np.where(fused, np.where(on_a, a * scale, a), 1.0)
        sb = np.where(fused, np.where(on_a, b, b * scale), 1.0)
        r = special.fma64(sa, sb, np.where(fused, c * scale, 0.0)) / scale
        r = np.where(fused & np.isfinite(sa * sb) & ~np.isnan(r), r, a * b + c)
        r = np.where(finite_ab & (c == 0) & (a != 0) & (b != 0), a * b, r)  # an underflow keeps ab's sign
        return np.asarray(np.where(~plain & ~np.isfinite(c), c, r))


def _parts(z: Array) -> tuple[Array, Array, np.dtype]:
    """The real and imaginary parts as contiguous arrays of z's dims (a rank-0 z too, which
    np.ascontiguousarray would make rank 1)."""
    real = np.float32 if z.dtype == np.complex64 else np.float64
    return np.array(z.real, real, order="C"), np.array(z.imag, real, order="C"), np.dtype(real)


def _compose(re: Array, im: Array, dtype: np.dtype) -> Array:
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, np.complex64 if dtype == np.float32 else np.complex128)
    out.real, out.imag = re, im  # not re + 1j*im: inf * 1j has a NaN real part
    return out


# What the interpreter evaluates here; acos, asin, acosh, asinh and atanh of complex, which XLA
# does not implement, stay numpy's.
NUMPY_UNARY = frozenset(UNARY) | {"abs"} | NOT_COMPLEX


def numpy_unary(opcode: str, z: Array) -> Array:
    if opcode in NOT_COMPLEX:
        raise HloUnsupportedError(f"{opcode} of complex values (XLA accepts floating point only)")
    re, im, dt = _parts(np.asarray(z))
    o: NumpyOps[Array] = NumpyOps(dt)
    if opcode == "abs":
        return abs_(o, (re, im))
    return _compose(*UNARY[opcode](o, (re, im), dt.itemsize * 8), dt)


def numpy_binary(opcode: str, x: Array, y: Array) -> Array:
    xr, xi, dt = _parts(np.asarray(x))
    yr, yi, _ = _parts(np.asarray(y))
    return _compose(*BINARY[opcode](NumpyOps(dt), (xr, xi), (yr, yi)), dt)
