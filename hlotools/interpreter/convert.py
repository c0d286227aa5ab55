"""Element-type conversions: convert, bitcast-convert, reduce-precision, stochastic-convert.

convert follows XLA CPU's lowering (fptosi.sat / fptoui.sat): float -> int truncates toward
zero, saturates at the destination's range and maps NaN to 0; int -> int wraps; anything ->
pred is `x != 0`; float -> float rounds to nearest even.
"""
from __future__ import annotations

import numpy as np

from hlotools.errors import HloRuntimeError, HloUnsupportedError
from hlotools.interpreter.numeric import (
    contiguous,
    finfo,
    finish,
    float_cast,
    unsigned_view,
    wrap_int,
)
from hlotools.interpreter.registry import kernel
from hlotools.ir.instruction import Instruction
from hlotools.ir.types import ElementType, as_type, int_limits

Array = np.ndarray


def convert_array(x: Array, src: ElementType, dst: ElementType) -> Array:
    """Convert values of element type `src` to `dst` with XLA's semantics."""
    dt = dst.dtype
    assert dt is not None
    if src.name == dst.name:
        return x
    if dst.kind == "pred":
        return np.asarray(x != 0) if src.kind != "pred" else x
    if src.kind == "complex" and dst.kind != "complex":
        raise HloUnsupportedError(f"convert from {src} to {dst} (complex to real; use real)")
    with np.errstate(all="ignore"):
        if src.kind == "float" and dst.kind in ("signed", "unsigned"):
            return _float_to_int(x, dst)
        if src.kind in ("signed", "unsigned") and src.bits < 8:
            x = x.astype(np.int8 if src.kind == "signed" else np.uint8)
        if dst.kind in ("signed", "unsigned"):
            if src.kind == "pred":
                return x.astype(np.uint8).astype(dt)
            if dst.bits < 8:
                return wrap_int(x.astype(np.int64), dst).astype(dt)
            return x.astype(dt)
        if dst.kind == "float" and src.kind in ("signed", "unsigned", "pred") and dst.bits < 32:
            # int -> f64 is exact below 2^53; then one rounding to the narrow type.
            return x.astype(np.float64).astype(dt)
        return float_cast(x, dt)


def _float_to_int(x: Array, dst: ElementType) -> Array:
    lo, hi = int_limits(dst)
    t = np.trunc(np.asarray(x).astype(np.float64))
    big = t >= float(hi)
    small = t <= float(lo)
    nan = np.isnan(t)
    safe = np.where(big | small | nan, 0.0, t)
    wide = np.int64 if dst.kind == "signed" else np.uint64
    r = safe.astype(wide)
    r = np.where(big, wide(hi), np.where(small, wide(lo), r)).astype(wide)
    if dst.bits < 8:
        return r.astype(np.int8 if dst.kind == "signed" else np.uint8).astype(dst.dtype)
    return r.astype(dst.dtype)


@kernel("convert")
def convert(inst: Instruction, args: list, ev: object) -> Array:
    src = inst.operands[0].shape.element_type
    dst = inst.shape.element_type
    assert src is not None and dst is not None
    return np.asarray(convert_array(np.asarray(args[0]), src, dst))


def _bits(x: Array, et: ElementType) -> Array:
    """The bit pattern of each element as uint64 (sub-byte types masked to their width)."""
    if et.bits < 8:
        return (x.astype(np.int8).astype(np.int64) & ((1 << et.bits) - 1)).astype(np.uint64)
    return contiguous(x).view(np.dtype(f"u{et.byte_size}")).astype(np.uint64)


def _from_bits(u: Array, et: ElementType) -> Array:
    assert et.dtype is not None
    if et.bits < 8:
        v = u.astype(np.int64)
        if et.kind == "signed":
            v = np.where(v >= (1 << (et.bits - 1)), v - (1 << et.bits), v)
        return v.astype(np.int8 if et.kind == "signed" else np.uint8).astype(et.dtype)
    return contiguous(u.astype(np.dtype(f"u{et.byte_size}"))).view(et.dtype)


@kernel("bitcast-convert")
def bitcast_convert(inst: Instruction, args: list, ev: object) -> Array:
    """Reinterpret bits (little-endian: minor index 0 holds the lowest bits): a narrower
    result gains a minor dim of size ratio, a wider result drops it."""
    src = inst.operands[0].shape.element_type
    dst = inst.shape.element_type
    assert src is not None and dst is not None and dst.dtype is not None
    x = np.asarray(args[0])
    if src.bits == dst.bits:
        if src.bits >= 8:
            return contiguous(x).view(dst.dtype)
        return _from_bits(_bits(x, src), dst)
    u = _bits(x, src)
    if src.bits > dst.bits:
        r = src.bits // dst.bits
        mask = np.uint64((1 << dst.bits) - 1)
        parts = [(u >> np.uint64(j * dst.bits)) & mask for j in range(r)]
        return _from_bits(np.stack(parts, axis=-1), dst).reshape(inst.shape.dims)
    r = dst.bits // src.bits
    total = np.zeros(u.shape[:-1], np.uint64)
    for j in range(r):
        total |= u[..., j] << np.uint64(j * src.bits)
    return _from_bits(total, dst).reshape(inst.shape.dims)


# ------------------------------------------------------------------ reduce-precision



def _float_bits(et: ElementType) -> tuple[int, int]:
    """(exponent bits, mantissa bits) of a storage float type."""
    if et.dtype is None:
        raise HloRuntimeError(f"reduce-precision of {et}")
    fi = finfo(et.dtype)
    return int(fi.nexp), int(fi.nmant)


def reduce_precision_array(x: Array, et: ElementType, exponent_bits: int, mantissa_bits: int) -> Array:
    """Round to `mantissa_bits` (nearest even) and clamp to the `exponent_bits` range
    (overflow -> inf, underflow/denormal -> signed zero); NaN is kept (XLA's
    EmitReducePrecisionIR). Works on the type's own bit pattern."""
    src_exp, src_mant = _float_bits(et)
    nbits = 1 + src_exp + src_mant
    assert et.dtype is not None  # _float_bits raised otherwise
    udt = np.dtype(f"u{et.dtype.itemsize}")
    u = contiguous(x).view(udt).astype(np.uint64)
    with np.errstate(all="ignore"):
        if mantissa_bits < src_mant:
            shift = src_mant - mantissa_bits
            last_bit = np.uint64(1 << shift)
            bias = np.uint64((1 << (shift - 1)) - 1)
            x_last = (u & last_bit) >> np.uint64(shift)
            u = (u + x_last + bias) & ~np.uint64((1 << shift) - 1)
            u = u & np.uint64((1 << nbits) - 1) if nbits < 64 else u
        if exponent_bits < src_exp:
            exp_mask = np.uint64(((1 << src_exp) - 1) << src_mant)
            sign_mask = np.uint64(1 << (nbits - 1))
            src_bias = (1 << (src_exp - 1)) - 1
            red_bias = (1 << (exponent_bits - 1)) - 1
            max_exp = np.uint64((src_bias + red_bias) << src_mant)
            min_exp = np.uint64((src_bias - red_bias) << src_mant)
            x_exp = u & exp_mask
            signed_zero = u & sign_mask
            signed_inf = signed_zero | exp_mask
            u = np.where(x_exp > max_exp, signed_inf, np.where(x_exp <= min_exp, signed_zero, u))
    r = u.astype(udt).view(x.dtype).reshape(np.shape(x))
    nan = np.isnan(np.asarray(x).astype(np.float32 if et.bits < 32 else et.dtype))
    if mantissa_bits > 0:
        # bf16 goes through f32 in XLA (float normalization): its NaN comes back canonical
        keep = np.asarray(x).astype(np.float32).astype(et.dtype) if et.name == "bf16" else x
        return np.where(nan, keep, r).astype(et.dtype)
    return r


@kernel("reduce-precision")
def reduce_precision(inst: Instruction, args: list, ev: object) -> Array:
    et = inst.shape.element_type
    assert et is not None
    e = int(inst.attrs.get("exponent_bits", 0))
    m = int(inst.attrs.get("mantissa_bits", 0))
    return reduce_precision_array(np.asarray(args[0]), et, e, m)


def stochastic_fixed_fraction(frac: Array, src: ElementType, bits: int) -> Array:
    """XLA's fixed-point fraction: convert(fraction * 2^bits, u<bits>) with the product
    taken in the operand's type (f32 for f16), as StochasticConvertDecomposer builds it.
    The product is exact whenever 2^bits fits that type; where it does not (f8e4m3,
    f8e3m4: inf; the fnuz types: NaN; f4/f6: saturated) the same overflow happens here
    (XLA's HloEvaluator scales in double instead and differs for those types only; the
    decomposer is what XLA's CPU compiler runs). The conversion to unsigned saturates and
    maps NaN to 0 (XLA CPU's fptoui.sat)."""
    from hlotools.ir.types import ELEMENT_TYPES
    work = ELEMENT_TYPES["f32"] if src.name == "f16" else src
    scale = as_type(2.0 ** bits, work)
    with np.errstate(all="ignore"):
        if float(scale) == 2.0 ** bits:  # exact: fraction < 1 keeps the product below 2^bits
            product = np.nan_to_num(frac * 2.0 ** bits, nan=0.0)
        else:
            product = (as_type(frac, work) * scale).astype(np.float64)
    return _float_to_int(product, ELEMENT_TYPES[f"u{bits}"]).astype(np.uint64)


@kernel("stochastic-convert")
def stochastic_convert(inst: Instruction, args: list, ev: object) -> Array:
    """XLA's StochasticConvertDecomposer, step by step: t = convert(floor|x|) (saturating,
    NaN -> 0), plus one when the random bits are below the fixed-point fraction (wrapping,
    as XLA's integer add), negated for x < 0; then x <= convert(min) gives min and x >=
    convert(max) gives max, those bounds converted to the operand's type as XLA's
    MakeScalarLike does. The random bits are compared as unsigned integers (no float
    rounding of u64 bits). XLA converts only to signed integers: the decomposer and the
    evaluator refuse any other target at run time (shape inference accepts it), so do we."""
    src = inst.operands[0].shape.element_type
    bits_et = inst.operands[1].shape.element_type
    dst = inst.shape.element_type
    assert src is not None and dst is not None and bits_et is not None
    if dst.kind != "signed" or src.kind != "float" or bits_et.kind != "unsigned":
        raise HloUnsupportedError(f"stochastically converting from {src.name} (random {bits_et.name}) to "
                                  f"{dst.name} is not implemented (XLA converts floats to signed integers only)")
    x = np.asarray(args[0]).astype(np.float64)
    rnd = unsigned_view(np.asarray(args[1]), bits_et)
    lo, hi = int_limits(dst)
    with np.errstate(all="ignore"):
        magnitude = np.abs(x)
        whole = np.floor(magnitude)
        up = rnd < stochastic_fixed_fraction(magnitude - whole, src, bits_et.bits)
        t = _float_to_int(whole, dst).astype(np.int64) + up.astype(np.int64)
        t = wrap_int(np.where(x < 0, -t, t), dst)
        t = np.where(x <= float(as_type(float(lo), src)), lo, t)
        t = np.where(x >= float(as_type(float(hi), src)), hi, t)
    return finish(np.asarray(t, np.int64), dst)
