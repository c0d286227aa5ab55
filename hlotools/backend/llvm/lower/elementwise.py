"""Elementwise ops as elemental generators: unary, binary, compare, select, clamp, convert,
reduce-precision, bitcast-convert, map and batch-norm-inference. Each reads its operands'
values at the index and applies the scalar code of llvm_ir/arith.py (XLA's integer corner
cases, saturating float -> int conversion, narrow floats rounded after every op), the same
scalar code the runtime library's GEMM epilogues run.
"""
from __future__ import annotations

import llvmlite.ir as ir

from hlotools.backend.llvm.codegen.elemental import ElementalGen, Index
from hlotools.backend.llvm.codegen.registry import elemental
from hlotools.backend.llvm.llvm_ir import complex_ops, types
from hlotools.backend.llvm.llvm_ir.arith import (
    BINARY,
    SIGNED_COMPARE,
    UNARY,
    bits_of,
    compare_values,
    convert_value,
    from_bits,
    intr,
    max_min,
    zero_of,
)
from hlotools.errors import HloUnsupportedError
from hlotools.ir.instruction import Instruction


@elemental(*UNARY, "real", "imag")
def _unary(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    et, out = inst.operand_element_type(), inst.element_type
    x = gen.operand(inst, 0, index)
    b = gen.b
    if et.kind == "complex":
        return complex_ops.unary(b, inst.opcode, x, et)
    if inst.opcode == "real":
        return x
    if inst.opcode == "imag":
        return zero_of(x.type)
    r = UNARY[inst.opcode](b, x, et)
    return types.round_to(b, r, out) if out.kind == "float" else r


@elemental(*BINARY, "complex")
def _binary(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    et, out = inst.operand_element_type(), inst.element_type
    x = gen.operand(inst, 0, index)
    y = gen.operand(inst, 1, index)
    b = gen.b
    if inst.opcode == "complex":
        return complex_ops.make(b, x, y, out)
    if et.kind == "complex":
        return complex_ops.binary(b, inst.opcode, x, y, et)
    r = BINARY[inst.opcode](b, x, y, et)
    return types.round_to(b, r, out) if out.kind == "float" else r


@elemental("compare")
def _compare(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    et = inst.operand_element_type()
    x = gen.operand(inst, 0, index)
    y = gen.operand(inst, 1, index)
    direction = str(inst.attrs.get("direction", ""))
    if direction not in SIGNED_COMPARE:
        raise HloUnsupportedError(f"compare without a valid direction ('{direction}')")
    return compare_values(gen.b, direction, x, y, et, str(inst.attrs.get("type", "") or ""))


@elemental("select")
def _select(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    p = gen.operand(inst, 0, index if inst.operands[0].shape.dims else [])
    x = gen.operand(inst, 1, index)
    y = gen.operand(inst, 2, index)
    if isinstance(x, list):
        return [gen.b.select(p, a, c) for a, c in zip(x, y)]
    return gen.b.select(p, x, y)


@elemental("clamp")
def _clamp(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    et = inst.operand_element_type(1)
    if et.kind == "complex":
        raise HloUnsupportedError("clamp of complex values")
    lo = gen.operand(inst, 0, index if inst.operands[0].shape.dims else [])
    x = gen.operand(inst, 1, index)
    hi = gen.operand(inst, 2, index if inst.operands[2].shape.dims else [])
    b = gen.b
    return max_min(False)(b, max_min(True)(b, x, lo, et), hi, et)


@elemental("convert")
def _convert(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    return convert_value(gen.b, gen.operand(inst, 0, index), inst.operand_element_type(), inst.element_type)


@elemental("reduce-precision")
def _reduce_precision(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    """XLA's EmitReducePrecisionIR: round the mantissa to nearest even, then flush exponents
    out of the reduced range to signed infinity / zero; NaN stays NaN."""
    et = inst.element_type
    b = gen.b
    x = gen.operand(inst, 0, index)
    small = et.name in types.SMALL_FLOATS and et.bits == 16  # f16/bf16: on their own bit pattern, as XLA
    wide = x.type == types.F64
    if small:
        fmt = types.SMALL_FLOATS[et.name]
        ity, mbits_src, ebits_src = ir.IntType(16), fmt.mbits, fmt.ebits
    else:
        ity, mbits_src, ebits_src = (types.I64, 52, 11) if wide else (types.I32, 23, 8)
    mbits = int(inst.attrs.get("mantissa_bits", mbits_src))
    ebits = int(inst.attrs.get("exponent_bits", ebits_src))

    def c(v: int) -> ir.Constant:
        return ir.Constant(ity, v & ((1 << ity.width) - 1))
    bits = raw_bits(gen, inst.operands[0], index) if small else b.bitcast(x, ity)
    if mbits < mbits_src:
        last = 1 << (mbits_src - mbits)
        odd = b.lshr(b.and_(bits, c(last)), c(mbits_src - mbits))
        bits = b.and_(b.add(bits, b.add(odd, c((last >> 1) - 1))), c(~(last - 1)))
    if ebits < ebits_src:
        bias = (1 << (ebits_src - 1)) - 1
        reduced = (1 << (ebits - 1)) - 1
        exp_mask = ((1 << ebits_src) - 1) << mbits_src
        e = b.and_(bits, c(exp_mask))
        overflow = b.icmp_unsigned(">", e, c((bias + reduced) << mbits_src))
        underflow = b.icmp_unsigned("<=", e, c((bias - reduced) << mbits_src))
        zero = b.and_(bits, c(1 << (ity.width - 1)))
        inf = b.or_(zero, c(exp_mask))
        bits = b.select(overflow, inf, b.select(underflow, zero, bits))
    r = types.from_storage(b, bits, et) if small else b.bitcast(bits, x.type)
    r = b.select(b.fcmp_unordered("uno", x, x), x, r)
    return r if small else types.round_to(b, r, et)


def raw_bits(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    """The bit pattern of `inst` at `index` as an integer of its element's bit width, read
    from memory when materialised and passed through chains of bitcast-converts, so NaN
    payloads survive (a decode to f32 and re-encode would make them canonical)."""
    et = inst.element_type
    b = gen.b
    ity = ir.IntType(bits_of(et))
    if gen.fe.is_materialised(inst) and not gen.bindings and not inst.shape.is_tuple:
        ptr = gen.fe.element_ptr(gen.fe.leaf_ptrs(inst)[0], inst.shape, index)
        raw = b.load(ptr, typ=types.storage_type(et))
    elif inst.opcode == "bitcast-convert" and bits_of(inst.operand_element_type()) == bits_of(et):
        raw = raw_bits(gen, inst.operands[0], index)
    else:
        raw = types.to_storage(b, gen.value_at(inst, index), et)
    if not isinstance(raw.type, ir.IntType):
        raw = b.bitcast(raw, _int_of(raw.type))
    return b.trunc(raw, ity) if raw.type.width > ity.width else raw


@elemental("bitcast-convert")
def _bitcast_convert(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    """Same width: reinterpret the bits. Wide -> narrow: the result has a new minor dim
    holding the pieces, least significant first (little-endian memory order); narrow ->
    wide: the operand's minor dim is combined the same way."""
    src, dst = inst.operand_element_type(), inst.element_type
    b = gen.b
    if src.kind == "complex" or dst.kind == "complex":
        raise HloUnsupportedError("bitcast-convert of complex values")
    sbits, dbits = bits_of(src), bits_of(dst)
    operand = inst.operands[0]
    if sbits == dbits:
        return from_bits(b, raw_bits(gen, operand, index), dst)
    sty, dty = ir.IntType(sbits), ir.IntType(dbits)
    if sbits > dbits:
        raw = raw_bits(gen, operand, index[:-1])
        shift = b.mul(b.trunc(index[-1], sty) if sbits < 64 else index[-1], ir.Constant(sty, dbits))
        return from_bits(b, b.trunc(b.lshr(raw, shift), dty), dst)
    acc: ir.Value = ir.Constant(dty, 0)
    for k in range(dbits // sbits):
        raw = raw_bits(gen, operand, list(index) + [ir.Constant(types.I64, k)])
        acc = b.or_(acc, b.shl(b.zext(raw, dty), ir.Constant(dty, k * sbits)))
    return from_bits(b, acc, dst)


@elemental("map")
def _map(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    """map: the scalar computation applied to the operands' elements at the index."""
    return gen.apply(inst.attrs["to_apply"], [gen.operand(inst, k, index) for k in range(len(inst.operands))])


@elemental("batch-norm-inference")
def _batch_norm_inference(gen: ElementalGen, inst: Instruction, index: Index) -> ir.Value:
    """(x - mean) / sqrt(var + epsilon) * scale + offset, per feature, in f32 (f64 for f64)."""
    et = inst.element_type
    if et.kind != "float":
        raise HloUnsupportedError(f"batch-norm-inference of {et}")
    from hlotools.ir.types import ELEMENT_TYPES
    work = ELEMENT_TYPES["f64" if et.name == "f64" else "f32"]
    b = gen.b
    fi = int(inst.attrs.get("feature_index", 0))
    eps = float(inst.attrs.get("epsilon", 0.0))
    x = convert_value(b, gen.operand(inst, 0, index), et, work)
    scale, offset, mean, var = (convert_value(b, gen.operand(inst, k, [index[fi]]), inst.operand_element_type(k), work)
                                for k in (1, 2, 3, 4))
    ty = x.type
    inv = b.fdiv(ir.Constant(ty, 1.0), intr(b, "llvm.sqrt", [b.fadd(var, ir.Constant(ty, eps))]))
    r = b.fadd(b.fmul(b.fmul(b.fsub(x, mean), inv), scale), offset)
    return convert_value(b, r, work, et)


def _int_of(ty: ir.Type) -> ir.IntType:
    return types.I32 if ty == types.F32 else types.I64
