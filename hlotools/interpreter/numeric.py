"""Element-type helpers shared by the kernels: the numpy type a kernel computes in, and the
rounding/wrapping back to the HLO element type.

XLA CPU computes f16/bf16/f8 elementwise arithmetic in f32 and rounds the result to the
storage type after each op; sub-byte integers (s2/s4/u2/u4) live in ml_dtypes types that
numpy cannot do arithmetic on, so they are computed in int8/uint8 and wrapped to their width.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from hlotools.ir.shape import Shape
from hlotools.ir.types import ElementType

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
C64 = np.dtype(np.complex64)
C128 = np.dtype(np.complex128)


def compute_dtype(et: ElementType) -> np.dtype:
    """The numpy dtype kernels do arithmetic in for values of element type `et`."""
    if et.kind == "float":
        return F64 if et.bits == 64 else F32
    if et.kind == "complex":
        return C128 if et.bits == 128 else C64
    if et.kind in ("signed", "unsigned") and et.bits < 8:
        return np.dtype(np.int8 if et.kind == "signed" else np.uint8)
    assert et.dtype is not None, et
    return et.dtype


def to_compute(x: np.ndarray, et: ElementType) -> np.ndarray:
    dt = compute_dtype(et)
    return x if x.dtype == dt else float_cast(x, dt)


_IEEE = {2: (np.uint16, 10), 4: (np.uint32, 23), 8: (np.uint64, 52)}  # numpy's f16/f32/f64: bits, mantissa


def float_cast(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """x.astype(dt), with a NaN converted between f16, f32 and f64 as x86 does it (F16C's
    vcvtps2ph/vcvtph2ps, cvtss2sd/cvtsd2ss; XLA CPU and the LLVM backend): sign kept, quiet bit
    set, payload truncated from the top or widened at the top. numpy keeps a signaling NaN
    signaling and, to f16, turns an empty payload into 1."""
    r = x.astype(dt)
    src, dst = _IEEE.get(x.dtype.itemsize), _IEEE.get(np.dtype(dt).itemsize)
    if x.dtype.kind != "f" or np.dtype(dt).kind != "f" or src is None or dst is None or src == dst:
        return r
    nan = np.isnan(x)
    if not np.any(nan):
        return r
    (su, sm), (du, dm) = src, dst
    u = np.ascontiguousarray(x).view(su).astype(np.uint64)
    sbits, dbits = 8 * x.dtype.itemsize, 8 * np.dtype(dt).itemsize
    sign = (u >> np.uint64(sbits - 1)) << np.uint64(dbits - 1)
    mant = u & np.uint64((1 << sm) - 1)
    payload = mant >> np.uint64(sm - dm) if sm > dm else mant << np.uint64(dm - sm)
    exp_all = np.uint64(((1 << (dbits - 1 - dm)) - 1) << dm)
    code = sign | exp_all | np.uint64(1 << (dm - 1)) | payload
    return np.where(nan, code.astype(du).view(dt).reshape(r.shape), r)  # ascontiguousarray makes rank 0 rank 1


def wrap_int(x: np.ndarray, et: ElementType) -> np.ndarray:
    """Two's-complement wrap of integer values to the width of `et` (any input int dtype)."""
    bits = et.bits
    if bits >= 64:
        return x
    mask = (1 << bits) - 1
    v = x.astype(np.int64) & mask
    if et.kind == "signed":
        v = v - ((v >> (bits - 1)) & 1) * (1 << bits)
    return v


def finish(x: Any, et: ElementType) -> np.ndarray:
    """Round/wrap a computed value to element type `et` (returns an ndarray of et.dtype)."""
    x = np.asarray(x)
    dt = et.dtype
    assert dt is not None
    if x.dtype == dt:
        return x
    if et.kind in ("signed", "unsigned") and et.bits < 8 and x.dtype.kind in "iub":
        return wrap_int(x, et).astype(dt)
    return float_cast(x, dt)


def unsigned_view(x: np.ndarray, et: ElementType) -> np.ndarray:
    """The bit pattern of integer values as uint64 (masked to et.bits)."""
    if et.bits < 8:
        v = x.astype(np.int8).astype(np.int64) & ((1 << et.bits) - 1)
        return v.astype(np.uint64)
    udt = np.dtype(f"u{max(et.bits // 8, 1)}")
    return contiguous(x).view(udt).astype(np.uint64)


def zeros_of(shape: Shape) -> Any:
    """A zero value of `shape` (tuples recursively, tokens as None)."""
    if shape.is_tuple:
        return tuple(zeros_of(s) for s in shape.tuple_shapes or ())
    if shape.is_token or shape.element_type is None or shape.element_type.dtype is None:
        return None
    return np.zeros(shape.dims, shape.dtype)


def contiguous(x: Any) -> np.ndarray:
    """C-contiguous array with the same dims (np.ascontiguousarray turns 0-d into 1-d)."""
    x = np.asarray(x)
    return x if x.flags.c_contiguous else np.array(x, order="C")


def merge_leading(x: np.ndarray, keep: int) -> np.ndarray:
    """`x` as (product of its leading dims, *its last `keep` dims): reshape(-1, ...) with the
    count spelled out, since numpy cannot infer a -1 when a kept dim is 0 (zero-sized arrays
    are valid HLO operands)."""
    lead = x.shape[:x.ndim - keep]
    return x.reshape((int(np.prod(lead, dtype=np.int64)),) + x.shape[x.ndim - keep:])


def merge_trailing(x: np.ndarray, keep: int) -> np.ndarray:
    """`x` as (*its first `keep` dims, product of the rest): see merge_leading."""
    return x.reshape(x.shape[:keep] + (int(np.prod(x.shape[keep:], dtype=np.int64)),))


def finfo(dtype: np.dtype) -> Any:
    """np.finfo that also knows the ml_dtypes float types (bf16, f8...)."""
    import ml_dtypes

    return ml_dtypes.finfo(dtype)


def quiet_nan(x: np.ndarray) -> np.ndarray:
    """x with the quiet bit of every NaN set (sign and payload kept)."""
    x = contiguous(np.asarray(x))
    if x.dtype.kind != "f" or x.dtype.itemsize not in (4, 8):
        return x
    uint = np.dtype(np.uint32 if x.dtype.itemsize == 4 else np.uint64)
    bits: np.ndarray = x.view(uint) | np.asarray(1 << (22 if x.dtype.itemsize == 4 else 51), uint)
    return np.where(np.isnan(x), bits.view(x.dtype), x)


def _signed_zeros(r: np.ndarray, x: np.ndarray, y: np.ndarray, negative_wins: bool) -> np.ndarray:
    """IEEE 754-2019 maximum/minimum order -0 below +0 (llvm.maximum/minimum, which XLA CPU
    emits); numpy returns whichever operand came second."""
    both = (x == 0) & (y == 0)
    if not np.any(both):
        return r
    sx, sy = np.signbit(x), np.signbit(y)
    neg = (sx | sy) if negative_wins else (sx & sy)
    zero = np.where(neg, -0.0, 0.0).astype(r.dtype)
    return np.where(both, zero, r)


def _first_nan(r: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """r where neither x nor y is NaN, else x's NaN (y's when x is not NaN), quieted: the
    LLVM backend's float_max_min, the same on every CPU (numpy's SIMD loops pick either)."""
    xn, yn = np.isnan(x), np.isnan(y)
    if not (np.any(xn) or np.any(yn)):
        return r
    return np.where(xn, quiet_nan(x), np.where(yn, quiet_nan(y), r))


def float_maximum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """HLO maximum of floats as both backends define it (llvm_ir/arith.float_max_min): the NaN
    operand quieted, x's when both are; -0 below +0. Here, below elementwise.py and
    complex_ops.py, which both use it (complex_ops.NumpyOps.maximum, for the formulas)."""
    return _first_nan(_signed_zeros(np.maximum(x, y), x, y, False), x, y)


def float_minimum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """HLO minimum of floats: float_maximum's rules, -0 below +0."""
    return _first_nan(_signed_zeros(np.minimum(x, y), x, y, True), x, y)
