"""rng-bit-generator, bit-exact with XLA (and the interpreter's random.py, which documents
the algorithms): state[0] is the key; ThreeFry-2x32 (20 rounds) counts from state[1], each
block filling two neighbours along the first even dimension; Philox-4x32 (10 rounds, also
rng_default) counts from the 128-bit counter (state[1], state[2]) — for a 2-element state
(low=state[1], high=state[0]) — in round robin. Every output element computes its own block
(branch-free, so the loop vectorises); the state output advances the counter.

stochastic-convert (float -> signed integer, rounding by caller-given random bits) is here
too: XLA's StochasticConvertDecomposer, generated element by element.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

import llvmlite.ir as ir

from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.registry import elemental, emitter
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64, loop_nest
from hlotools.errors import HloUnsupportedError
from hlotools.ir.instruction import Instruction

if TYPE_CHECKING:
    from hlotools.backend.llvm.codegen.elemental import ElementalGen, Index

B: TypeAlias = ir.IRBuilder


def _c32(v: int) -> ir.Constant:
    return ir.Constant(types.I32, v & 0xFFFFFFFF)


def _split(b: B, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    return b.trunc(x, types.I32), b.trunc(b.lshr(x, c64(32)), types.I32)


def _join(b: B, lo: ir.Value, hi: ir.Value) -> ir.Value:
    return b.or_(b.zext(lo, types.I64), b.shl(b.zext(hi, types.I64), c64(32)))


def _rotl(b: B, v: ir.Value, d: int) -> ir.Value:
    return b.or_(b.shl(v, _c32(d)), b.lshr(v, _c32(32 - d)))


def threefry2x32(b: B, x0: ir.Value, x1: ir.Value, k0: ir.Value, k1: ir.Value) -> tuple[ir.Value, ir.Value]:
    rotations = (13, 15, 26, 6, 17, 29, 16, 24)
    ks = (k0, k1, b.xor(b.xor(_c32(0x1BD11BDA), k0), k1))
    x0, x1 = b.add(x0, k0), b.add(x1, k1)
    for block in range(5):
        for r in rotations[:4] if block % 2 == 0 else rotations[4:]:
            x0 = b.add(x0, x1)
            x1 = b.xor(_rotl(b, x1, r), x0)
        x0 = b.add(x0, ks[(block + 1) % 3])
        x1 = b.add(b.add(x1, ks[(block + 2) % 3]), _c32(block + 1))
    return x0, x1


def philox4x32(b: B, x: list[ir.Value], k0: ir.Value, k1: ir.Value) -> list[ir.Value]:
    x0, x1, x2, x3 = x
    for _ in range(10):
        p0 = b.mul(b.zext(x0, types.I64), c64(0xD2511F53))
        p1 = b.mul(b.zext(x2, types.I64), c64(0xCD9E8D57))
        lo0, hi0 = _split(b, p0)
        lo1, hi1 = _split(b, p1)
        x0, x1, x2, x3 = b.xor(b.xor(hi1, x1), k0), lo1, b.xor(b.xor(hi0, x3), k1), lo0
        k0 = b.add(k0, _c32(0x9E3779B9))
        k1 = b.add(k1, _c32(0xBB67AE85))
    return [x0, x1, x2, x3]


def philox_bits(b: B, lo: ir.Value, hi: ir.Value, k0: ir.Value, k1: ir.Value, e: ir.Value,
                width: int) -> ir.Value:
    """Element `e` (row-major) of prng.cc's PhiloxRngBit32 (width <= 32: lane e % 4 of block
    e / 4) or PhiloxRngBit64 (half e % 2 of block e / 2), counting from the 128-bit counter
    (lo, hi) with key (k0, k1)."""
    block = b.udiv(e, c64(2)) if width == 64 else b.udiv(e, c64(4))
    low = b.add(lo, block)
    high = b.add(hi, b.zext(b.icmp_unsigned("<", low, lo), types.I64))
    out = philox4x32(b, [*_split(b, low), *_split(b, high)], k0, k1)
    if width == 64:
        first = b.icmp_unsigned("==", b.urem(e, c64(2)), c64(0))
        return b.select(first, _join(b, out[0], out[1]), _join(b, out[2], out[3]))
    return _pick(b, out, b.urem(e, c64(4)))


def _split_dim(dims: tuple[int, ...]) -> int:
    for i, d in enumerate(dims):
        if d % 2 == 0:
            return i
    return max(range(len(dims)), key=lambda i: (dims[i], -i))


def _pick(b: B, vals: list[ir.Value], lane: ir.Value) -> ir.Value:
    out = vals[-1]
    for k in range(len(vals) - 2, -1, -1):
        out = b.select(b.icmp_unsigned("==", lane, c64(k)), vals[k], out)
    return out


@emitter("rng-bit-generator")
def emit_rng_bit_generator(fe: FunctionEmitter, inst: Instruction) -> None:
    b = fe.b
    state_in = fe.leaf_ptrs(inst.operands[0])[0]
    state_shape = inst.operands[0].shape
    state_out, bits_out = fe.leaf_ptrs(inst)
    s_out_shape, bits_shape = inst.shape.leaves()
    size = state_shape.dims[0] if state_shape.dims else 1
    et = bits_shape.element_type
    assert et is not None
    width = et.bits
    if size < 2 or width > 64 or et.kind in ("pred", "complex"):
        raise HloUnsupportedError(f"rng-bit-generator cannot produce {et} values from a u64[{size}] state")
    algorithm = str(inst.attrs.get("algorithm", "rng_default")).lower()
    state = [b.load(b.gep(state_in, [c64(i)], source_etype=types.I64), typ=types.I64) for i in range(size)]
    k0, k1 = _split(b, state[0])
    dims = bits_shape.dims
    n = 1
    for d in dims:
        n *= d
    new_state = list(state)
    if algorithm == "rng_three_fry":
        s = _split_dim(dims) if dims else -1
        half = tuple((d + 1) // 2 if i == s else d for i, d in enumerate(dims))
        # A scalar output takes one block; an empty one none (the counter stays, as XLA's).
        blocks = n if width == 64 or not dims else _prod(half)
        new_state[1] = b.add(state[1], c64(blocks))
    elif algorithm in ("rng_philox", "rng_default"):
        lo, hi = (state[1], state[2]) if size >= 3 else (state[1], state[0])
        blocks = (2 * n + 3) // 4 if width == 64 else (n + 3) // 4
        nlo = b.add(lo, c64(blocks))
        new_state[1] = nlo
        if size >= 3:
            new_state[2] = b.add(hi, b.zext(b.icmp_unsigned("<", nlo, lo), types.I64))
    else:
        raise HloUnsupportedError(f"unknown rng algorithm {algorithm}")

    def element(index: list[ir.Value]) -> None:
        e: ir.Value = c64(0)
        for d, i in enumerate(index):
            e = b.add(b.mul(e, c64(dims[d])), i)
        if algorithm == "rng_three_fry":
            if width == 64:
                x0, x1 = threefry2x32(b, *_split(b, b.add(state[1], e)), k0, k1)
                bits = _join(b, x0, x1)
            elif not dims:
                bits, _ = threefry2x32(b, *_split(b, state[1]), k0, k1)
            else:
                h: ir.Value = c64(0)
                for d, i in enumerate(index):
                    hi_ = b.udiv(i, c64(2)) if d == s else i
                    h = b.add(b.mul(h, c64(half[d])), hi_)
                x0, x1 = threefry2x32(b, *_split(b, b.add(state[1], h)), k0, k1)
                bits = b.select(b.icmp_unsigned("==", b.urem(index[s], c64(2)), c64(0)), x0, x1)
        else:
            lo, hi = (state[1], state[2]) if size >= 3 else (state[1], state[0])
            bits = philox_bits(b, lo, hi, k0, k1, e, width)
        fe.store_element(_as_value(b, bits, et), bits_out, bits_shape, index)
    if n:
        loop_nest(b, bits_shape, element)
    for i, v in enumerate(new_state):
        b.store(v, b.gep(state_out, [c64(i)], source_etype=types.I64))
    _ = s_out_shape


def _as_value(b: B, bits: ir.Value, et: object) -> ir.Value:
    """Low `width` bits reinterpreted as the element type (as the interpreter's _as_result)."""
    from hlotools.ir.types import ElementType
    assert isinstance(et, ElementType)
    st = types.storage_type(et)
    width = et.bits
    raw = b.trunc(bits, ir.IntType(width)) if bits.type.width > width else bits
    if width < 8:
        raw = b.sext(raw, types.I8) if et.kind == "signed" else b.zext(raw, types.I8)
    elif raw.type != st:
        raw = b.bitcast(raw, st)
    return types.from_storage(b, raw, et)


def _prod(dims: tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


# ------------------------------------------------------------------ stochastic-convert

def _f64_intrinsic(b: B, name: str, x: ir.Value) -> ir.Value:
    fn = b.module.globals.get(name) or ir.Function(b.module, ir.FunctionType(types.F64, [types.F64]), name)
    return b.call(fn, [x])


@elemental("stochastic-convert")
def _stochastic_convert(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    """XLA's StochasticConvertDecomposer, as the interpreter (interpreter/convert.py) runs
    it: t = convert(floor|x|) (saturating, NaN -> 0), plus one (wrapping) when the random
    bits r are below the fixed-point fraction r < convert(fraction * 2^bits(r)) (the
    product truncated to the random type), negated for x < 0; x <= convert(min) gives
    min and x >= convert(max) gives max, with those bounds converted to the operand's type
    at compile time as XLA's MakeScalarLike does. fraction = |x| - floor|x| and its
    scaling by 2^bits are exact in f64, and equal the operand type's values whenever
    2^bits fits that type (f32 for f16); where it does not (f8e4m3 and f8e3m4: inf, the
    fnuz types: NaN, f4/f6: saturated) the product is rounded to the operand's type as
    XLA does. XLA decomposes only conversions to signed integers."""
    from hlotools.backend.llvm.llvm_ir.arith import convert_value
    from hlotools.ir.types import ELEMENT_TYPES, as_type, int_limits
    src = inst.operands[0].shape.element_type
    bits_et = inst.operands[1].shape.element_type
    dst = inst.shape.element_type
    assert src is not None and bits_et is not None and dst is not None
    if dst.kind != "signed" or src.kind != "float" or bits_et.kind != "unsigned" or bits_et.bits > 64:
        raise HloUnsupportedError(f"stochastic-convert %{inst.name} from {src.name} (random {bits_et.name}) to "
                                  f"{dst.name}: XLA converts floats to signed integers only",
                                  inst.line or None, inst.column or None)
    b = gen.b
    f64 = ELEMENT_TYPES["f64"]
    work = ELEMENT_TYPES["f32"] if src.name == "f16" else src
    scale = float(as_type(2.0 ** bits_et.bits, work))
    x = convert_value(b, gen.operand(inst, 0, index), src, f64)
    r = gen.operand(inst, 1, index)
    r64 = b.zext(r, types.I64) if r.type.width < 64 else r
    magnitude = _f64_intrinsic(b, "llvm.fabs.f64", x)
    whole = _f64_intrinsic(b, "llvm.floor.f64", magnitude)
    fixed = b.fmul(b.fsub(magnitude, whole), ir.Constant(types.F64, scale))
    if scale != 2.0 ** bits_et.bits:  # 2^bits overflows the operand's type: round like XLA
        fixed = convert_value(b, convert_value(b, fixed, f64, work), work, f64)
    fixed_bits = convert_value(b, fixed, f64, ELEMENT_TYPES[f"u{bits_et.bits}"])  # saturating; NaN gives 0
    fixed64 = b.zext(fixed_bits, types.I64) if fixed_bits.type.width < 64 else fixed_bits
    up = b.icmp_unsigned("<", r64, fixed64)
    truncated = convert_value(b, whole, f64, dst)  # saturating; NaN gives 0
    one = ir.Constant(truncated.type, 1)
    rounded = b.select(up, b.add(truncated, one), truncated)
    negative = b.fcmp_ordered("<", x, ir.Constant(types.F64, 0.0))
    result = b.select(negative, b.neg(rounded), rounded)
    lo, hi = int_limits(dst)
    lo_x, hi_x = float(as_type(float(lo), src)), float(as_type(float(hi), src))
    result = b.select(b.fcmp_ordered("<=", x, ir.Constant(types.F64, lo_x)), ir.Constant(result.type, lo), result)
    return b.select(b.fcmp_ordered(">=", x, ir.Constant(types.F64, hi_x)), ir.Constant(result.type, hi), result)
