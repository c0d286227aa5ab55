"""HLO element types in LLVM: storage types (what a buffer holds), value types (what the
generated code computes in), loads, stores and conversions.

Narrow floats (f16, bf16, f8*, f6*, f4*) are stored as their bit patterns (i16/i8) and
computed in f32, rounded back after every operation (XLA CPU's FloatNormalization does the
same, and so does the interpreter). Encoding and decoding are integer bit manipulation
emitted inline: never `fptrunc ... to half` or calls to compiler-rt helpers such as
__truncsfhf2/__truncsfbf2, which may be unresolved in the JIT and abort the process.
Sub-byte integers (s1/s2/s4, u1/u2/u4) are stored one per byte (as ml_dtypes does) and
computed as iN of their exact width, so arithmetic wraps at the right width.
"""
from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ir

from hlotools.errors import HloUnsupportedError
from hlotools.ir.types import ElementType

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
F32 = ir.FloatType()
F64 = ir.DoubleType()
PTR = ir.PointerType()
C64 = ir.LiteralStructType([F32, F32])
C128 = ir.LiteralStructType([F64, F64])


@dataclass(frozen=True)
class SmallFloat:
    """A narrow float format: exponent/mantissa bits, bias and how it spells specials.
    style: 'ieee' (inf and NaN), 'fn' (no inf; NaN = all ones), 'fnuz' (no inf, no -0;
    NaN = 0x80), 'nonan' (neither: overflow saturates)."""

    bits: int
    ebits: int
    mbits: int
    bias: int
    style: str


SMALL_FLOATS: dict[str, SmallFloat] = {
    "f16": SmallFloat(16, 5, 10, 15, "ieee"),
    "bf16": SmallFloat(16, 8, 7, 127, "ieee"),
    "f8e5m2": SmallFloat(8, 5, 2, 15, "ieee"),
    "f8e4m3": SmallFloat(8, 4, 3, 7, "ieee"),
    "f8e3m4": SmallFloat(8, 3, 4, 3, "ieee"),
    "f8e4m3fn": SmallFloat(8, 4, 3, 7, "fn"),
    "f8e4m3fnuz": SmallFloat(8, 4, 3, 8, "fnuz"),
    "f8e5m2fnuz": SmallFloat(8, 5, 2, 16, "fnuz"),
    "f8e4m3b11fnuz": SmallFloat(8, 4, 3, 11, "fnuz"),
    "f4e2m1fn": SmallFloat(4, 2, 1, 1, "nonan"),
    "f6e3m2fn": SmallFloat(6, 3, 2, 3, "nonan"),
    "f6e2m3fn": SmallFloat(6, 2, 3, 1, "nonan"),
}
UNSUPPORTED_TYPES = {"f8e8m0fnu": "exponent-only scale type: no arithmetic lowering yet",
                     "token": "tokens carry no data", "opaque": "opaque values carry no data"}


def is_small_float(et: ElementType) -> bool:
    return et.name in SMALL_FLOATS


def check_supported(et: ElementType, where: str) -> None:
    if et.name in UNSUPPORTED_TYPES and et.name not in ("token",):
        raise HloUnsupportedError(f"{where}: element type {et.name} is not supported by the LLVM backend: "
                                  f"{UNSUPPORTED_TYPES[et.name]}")


def storage_type(et: ElementType) -> ir.Type:
    """The LLVM type of one element in memory (the numpy/ml_dtypes storage layout)."""
    if et.kind == "pred":
        return I8
    if et.kind in ("signed", "unsigned"):
        return ir.IntType(max(8, et.bits))
    if et.kind == "float":
        if et.name == "f32":
            return F32
        if et.name == "f64":
            return F64
        return ir.IntType(max(8, et.bits))
    if et.kind == "complex":
        return C64 if et.bits == 64 else C128
    raise HloUnsupportedError(f"element type {et.name} has no storage in the LLVM backend")


def value_type(et: ElementType) -> ir.Type:
    """The LLVM type generated code computes values of `et` in."""
    if et.kind == "pred":
        return I1
    if et.kind in ("signed", "unsigned"):
        return ir.IntType(et.bits)
    if et.kind == "float":
        return F64 if et.name == "f64" else F32
    if et.kind == "complex":
        return C64 if et.bits == 64 else C128
    raise HloUnsupportedError(f"element type {et.name} has no value type in the LLVM backend")


def float_of(et: ElementType) -> ir.Type:
    """The real component type (complex) or compute type (float)."""
    if et.kind == "complex":
        return F64 if et.bits == 128 else F32
    return F64 if et.name == "f64" else F32


# ------------------------------------------------------------------ load / store

def load(b: ir.IRBuilder, ptr: ir.Value, et: ElementType) -> ir.Value:
    raw = b.load(ptr, typ=storage_type(et))
    return from_storage(b, raw, et)


def store(b: ir.IRBuilder, value: ir.Value, ptr: ir.Value, et: ElementType) -> None:
    b.store(to_storage(b, value, et), ptr)


def from_storage(b: ir.IRBuilder, raw: ir.Value, et: ElementType) -> ir.Value:
    check_supported(et, "loading an element")  # operands of such types reach here unchecked
    if et.kind == "pred":
        return b.icmp_unsigned("!=", raw, ir.Constant(I8, 0))
    if et.kind in ("signed", "unsigned") and et.bits < 8:
        return b.trunc(raw, ir.IntType(et.bits))
    if et.name in SMALL_FLOATS:
        return decode(b, raw, SMALL_FLOATS[et.name])
    return raw


def to_storage(b: ir.IRBuilder, value: ir.Value, et: ElementType) -> ir.Value:
    if et.kind == "pred":
        return b.zext(value, I8)
    if et.kind in ("signed", "unsigned") and et.bits < 8:
        return b.sext(value, I8) if et.kind == "signed" else b.zext(value, I8)
    if et.name in SMALL_FLOATS:
        fmt = SMALL_FLOATS[et.name]
        return b.trunc(encode(b, value, fmt), ir.IntType(max(8, fmt.bits)))
    return value


def round_to(b: ir.IRBuilder, value: ir.Value, et: ElementType) -> ir.Value:
    """Round an f32 value to the narrow float `et` (and back to f32); identity otherwise."""
    if et.name in SMALL_FLOATS:
        fmt = SMALL_FLOATS[et.name]
        return decode(b, encode(b, value, fmt), fmt)
    return value


# ---------------------------------------------------------- narrow float bit twiddling

def _c32(v: int) -> ir.Constant:
    return ir.Constant(I32, v & 0xFFFFFFFF)


def _intrinsic(b: ir.IRBuilder, name: str, ret: ir.Type, args: list[ir.Value]) -> ir.Value:
    mod = b.module
    fn = mod.globals.get(name)
    if fn is None:
        fn = ir.Function(mod, ir.FunctionType(ret, [a.type for a in args]), name)
    return b.call(fn, args)


def encode(b: ir.IRBuilder, x: ir.Value, fmt: SmallFloat) -> ir.Value:
    """f32 (or f64, rounded to f32 first) -> the format's bit pattern in an i32,
    round to nearest even; overflow gives inf (ieee), NaN (fn, fnuz) or the largest finite
    value (nonan), as ml_dtypes does."""
    if x.type == F64:
        x = b.fptrunc(x, F32)
    bits = b.bitcast(x, I32)
    sign = b.lshr(bits, _c32(31))
    a = b.and_(bits, _c32(0x7FFFFFFF))
    shift = 23 - fmt.mbits
    odd = b.and_(b.lshr(a, _c32(shift)), _c32(1))
    rounded = b.add(a, b.add(_c32((1 << (shift - 1)) - 1), odd))
    normal = b.sub(b.lshr(rounded, _c32(shift)), _c32((127 - fmt.bias) << fmt.mbits))
    code = normal
    if fmt.ebits < 8:  # the format's subnormals are f32 normals: scale and round to an integer
        emin = 1 - fmt.bias
        min_normal_bits = (emin + 127) << 23
        absx = b.bitcast(a, F32)
        scaled = b.fmul(absx, ir.Constant(F32, float(2.0 ** (fmt.mbits - emin))))
        sub = b.fptoui(_intrinsic(b, "llvm.roundeven.f32", F32, [scaled]), I32)
        code = b.select(b.icmp_unsigned("<", a, _c32(min_normal_bits)), sub, normal)
    all_e = (1 << fmt.ebits) - 1
    is_nan = b.icmp_unsigned(">", a, _c32(0x7F800000))
    sign_shift = fmt.bits - 1
    if fmt.style == "ieee":
        max_code, over, nan = (all_e << fmt.mbits) - 1, all_e << fmt.mbits, (all_e << fmt.mbits) | (1 << (fmt.mbits - 1))
    elif fmt.style == "fn":
        max_code, over, nan = (1 << sign_shift) - 2, (1 << sign_shift) - 1, (1 << sign_shift) - 1
    elif fmt.style == "fnuz":
        max_code, over, nan = (1 << sign_shift) - 1, -1, -1
    else:
        max_code, over, nan = (1 << sign_shift) - 1, (1 << sign_shift) - 1, 0
    overflow = b.icmp_unsigned(">", code, _c32(max_code))
    if fmt.style == "fnuz":
        # NaN and overflow -> 0x80 (no sign); zero never gets a sign bit (no -0).
        signed = b.select(b.icmp_unsigned("==", code, _c32(0)), code, b.or_(code, b.shl(sign, _c32(sign_shift))))
        special = b.or_(overflow, is_nan)
        return b.select(special, _c32(1 << sign_shift), signed)
    code = b.select(overflow, _c32(over), code)
    if fmt.style == "nonan":  # ml_dtypes turns NaN into a zero of the opposite sign
        sign = b.select(is_nan, b.xor(sign, _c32(1)), sign)
    if fmt.bits == 16 and fmt.ebits == 5:  # F16C's vcvtps2ph: quieted, the payload's top bits
        payload = b.lshr(b.and_(a, _c32(0x7FFFFF)), _c32(shift))
        nan_code: ir.Value = b.or_(_c32((all_e << fmt.mbits) | (1 << (fmt.mbits - 1))), payload)
    else:
        nan_code = _c32(nan)
    code = b.select(is_nan, nan_code, code)
    return b.or_(code, b.shl(sign, _c32(sign_shift)))


def decode(b: ir.IRBuilder, raw: ir.Value, fmt: SmallFloat) -> ir.Value:
    """The format's bit pattern (any integer width) -> f32, exactly."""
    code = b.zext(raw, I32) if raw.type.width < 32 else raw
    if fmt.bits < 8 or raw.type.width > fmt.bits:
        code = b.and_(code, _c32((1 << fmt.bits) - 1))
    if fmt.ebits == 8:  # bf16: the top half of an f32
        return b.bitcast(b.shl(code, _c32(16)), F32)
    sign_shift = fmt.bits - 1
    sign = b.shl(b.lshr(code, _c32(sign_shift)), _c32(31))
    e = b.and_(b.lshr(code, _c32(fmt.mbits)), _c32((1 << fmt.ebits) - 1))
    mant = b.and_(code, _c32((1 << fmt.mbits) - 1))
    normal = b.or_(b.shl(b.add(e, _c32(127 - fmt.bias)), _c32(23)), b.shl(mant, _c32(23 - fmt.mbits)))
    emin = 1 - fmt.bias
    sub_val = b.fmul(b.uitofp(mant, F32), ir.Constant(F32, float(2.0 ** (emin - fmt.mbits))))
    mag = b.select(b.icmp_unsigned("==", e, _c32(0)), b.bitcast(sub_val, I32), normal)
    all_e = (1 << fmt.ebits) - 1
    if fmt.style == "ieee":  # an f16 NaN comes out quieted (F16C's vcvtph2ps), infinities as they are
        wide = b.shl(mant, _c32(23 - fmt.mbits))
        if fmt.bits == 16:  # f8 formats as ml_dtypes converts them: the payload as it is
            wide = b.or_(wide, b.select(b.icmp_unsigned("==", mant, _c32(0)), _c32(0), _c32(0x400000)))
        special = b.or_(_c32(0x7F800000), wide)
        mag = b.select(b.icmp_unsigned("==", e, _c32(all_e)), special, mag)
    elif fmt.style == "fn":
        is_nan = b.icmp_unsigned("==", b.and_(code, _c32((1 << sign_shift) - 1)), _c32((1 << sign_shift) - 1))
        mag = b.select(is_nan, _c32(0x7FC00000), mag)
    out = b.or_(mag, sign)
    if fmt.style == "fnuz":
        out = b.select(b.icmp_unsigned("==", code, _c32(1 << sign_shift)), _c32(0x7FC00000), out)
    return b.bitcast(out, F32)


# -------------------------------------------------------------------- constants

def constant(et: ElementType, value: bool | int | float | complex) -> ir.Constant:
    """An LLVM constant of value type for a Python scalar (a numpy scalar's .item())."""
    vt = value_type(et)
    if et.kind == "pred":
        return ir.Constant(I1, int(bool(value)))
    if et.kind in ("signed", "unsigned"):
        assert not isinstance(value, complex), value
        return ir.Constant(vt, int(value) & ((1 << et.bits) - 1))
    if et.kind == "float":
        assert not isinstance(value, complex), value
        return ir.Constant(vt, float(value))
    if et.kind == "complex":
        c = complex(value)
        ft = float_of(et)
        return ir.Constant(vt, [ir.Constant(ft, c.real), ir.Constant(ft, c.imag)])
    raise HloUnsupportedError(f"constant of type {et.name}")
