"""rng (rng_uniform / rng_normal) and rng-get-and-update-state: a real generator, as XLA
builds it (RngExpander + xla/hlo/builder/lib/prng.cc), with one documented difference.

HLO leaves rng's values unspecified: XLA keys each rng instruction with a seed drawn from a
process-global std::mt19937_64 (GetRngSeed), so its values cannot be reproduced and the
interpreter refuses the op. Here the generator is the same, keyed reproducibly:

* state: a 128-bit counter per compiled module (XLA:CPU's rng_state global), starting at
  0x7012395; every execution of an rng (or rng-get-and-update-state) takes the current value
  and advances it by the op's number of 32-bit units (`delta`), atomically, so repeated
  calls of one compiled module draw new numbers, as repeated executions of one XLA
  executable do. rng-get-and-update-state returns (low, high) of the old value, as the
  interpreter does for the first call of a fresh evaluator.
* key: RngExpander's (seed ^ ((op id * 0x9E3779B97F4A7C15) >> 32)), with seed 0 and the
  op id a CRC-32 of the instruction's name (XLA: a per-process random seed and unique_id).
* bits: Philox-4x32-10 from the counter (PhiloxRngBit32 / PhiloxRngBit64, lower/random.py).
* rng_uniform of s32/u32/s64/u64 in [a, b): a + (bits % (b - a)) in unsigned arithmetic
  (ConvertRandomBitsToUniformInt; b == a gives a + bits, XLA's x % 0 = x);
  of f32/f64 in [a, b): the top mantissa-width bits as a fraction in [0, 1), times (b - a)
  plus a. f16/bf16 draw f32 and round (ConvertSmallFpRngToF32Rng).
* rng_normal of f32/f64 (f16/bf16 via f32): mu + sigma * Box-Muller (prng.cc's
  BoxMullerTransform, the first uniform clamped to >= 1e-7) on uniforms paired in row-major
  order (2k, 2k+1) -> (sin, cos): prng.cc pairs the two halves of the shape instead.
"""
from __future__ import annotations

import math
import zlib

import llvmlite.ir as ir

from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.registry import emitter
from hlotools.backend.llvm.llvm_ir import math_ops, types
from hlotools.backend.llvm.llvm_ir.arith import convert_value
from hlotools.backend.llvm.llvm_ir.loops import c64, loop_nest
from hlotools.backend.llvm.lower.random import philox_bits
from hlotools.errors import HloUnsupportedError
from hlotools.ir.instruction import Instruction
from hlotools.ir.types import ELEMENT_TYPES, ElementType

INITIAL_RNG_STATE = 0x7012395  # XLA:CPU's rng_state global starts here (as interpreter/random.py)
STATE_GLOBAL = "hlotools.rng_state"
_GOLDEN = 0x9E3779B97F4A7C15
_M64 = (1 << 64) - 1


def _fail(inst: Instruction, message: str) -> HloUnsupportedError:
    return HloUnsupportedError(f"{inst.opcode} %{inst.name}: {message}", inst.line or None, inst.column or None)


def take_state(fe: FunctionEmitter, delta: int) -> tuple[ir.Value, ir.Value]:
    """(low, high) of the module's 128-bit rng state, advanced by `delta` (atomic adds: the
    low word, then its carry into the high word)."""
    m = fe.mc.ir
    g = m.globals.get(STATE_GLOBAL)
    if g is None:
        ty = ir.ArrayType(types.I64, 2)
        g = ir.GlobalVariable(m, ty, STATE_GLOBAL)
        g.linkage = "internal"
        g.align = 16
        g.initializer = ir.Constant(ty, [INITIAL_RNG_STATE, 0])
    b = fe.b
    zero = ir.Constant(types.I32, 0)
    lo_ptr = b.gep(g, [zero, zero], inbounds=True, source_etype=g.value_type)
    hi_ptr = b.gep(g, [zero, ir.Constant(types.I32, 1)], inbounds=True, source_etype=g.value_type)
    lo = b.atomic_rmw("add", lo_ptr, c64(delta), "seq_cst")
    carry = b.zext(b.icmp_unsigned("<", b.add(lo, c64(delta)), lo), types.I64)
    hi = b.atomic_rmw("add", hi_ptr, carry, "seq_cst")
    return lo, hi


@emitter("rng-get-and-update-state")
def emit_rng_get_and_update_state(fe: FunctionEmitter, inst: Instruction) -> None:
    shape = inst.shape
    if shape.is_tuple or shape.element_type != ELEMENT_TYPES["u64"] or shape.dims != (2,):
        raise _fail(inst, f"the state is u64[2], not {shape}")
    lo, hi = take_state(fe, int(inst.attrs.get("delta", 0)) & _M64)
    out = fe.leaf_ptrs(inst)[0]
    for k, v in enumerate((lo, hi)):
        fe.b.store(v, fe.b.gep(out, [c64(k)], source_etype=types.I64))


def _work_type(inst: Instruction) -> tuple[str, ElementType]:
    """(distribution, the type the numbers are drawn in), or a refusal saying why."""
    et = inst.shape.element_type
    distribution = str(inst.attrs.get("distribution", "")).lower()
    if et is None or inst.shape.is_tuple:
        raise _fail(inst, "its result is not an array")
    work = ELEMENT_TYPES["f32"] if et.name in ("f16", "bf16") else et
    if distribution == "rng_uniform" and work.name in ("f32", "f64", "s32", "u32", "s64", "u64"):
        return distribution, work
    if distribution == "rng_normal" and work.name in ("f32", "f64"):
        return distribution, work
    raise _fail(inst, f"XLA's RngExpander draws {distribution or 'no distribution'} only for "
                      "f16/bf16/f32/f64 (and s32/u32/s64/u64 uniform) values, not " + et.name)


def _key(inst: Instruction) -> tuple[ir.Constant, ir.Constant]:
    op_id = zlib.crc32(inst.name.encode())
    key = ((op_id * _GOLDEN) & _M64) >> 32  # seed 0
    return ir.Constant(types.I32, key & 0xFFFFFFFF), ir.Constant(types.I32, key >> 32)


@emitter("rng")
def emit_rng(fe: FunctionEmitter, inst: Instruction) -> None:
    distribution, work = _work_type(inst)
    if len(inst.operands) < 2:
        raise _fail(inst, "rng takes (a, b) or (mu, sigma)")
    b = fe.b
    dims = inst.shape.dims
    n = 1
    for d in dims:
        n *= d
    width = work.bits
    lo, hi = take_state(fe, n * width // 32)
    k0, k1 = _key(inst)
    out = fe.leaf_ptrs(inst)[0]
    et = inst.shape.element_type
    assert et is not None

    def operand(k: int, index: list[ir.Value]) -> ir.Value:
        op = inst.operands[k]
        src = op.shape.element_type
        assert src is not None
        return convert_value(b, fe.gen.value_at(op, index if op.shape.dims else []), src, work)

    def uniform(e: ir.Value) -> ir.Value:
        """[0, 1) from the top mantissa-width bits of element e's draw."""
        mantissa = 52 if width == 64 else 23
        bits = b.lshr(philox_bits(b, lo, hi, k0, k1, e, width), ir.Constant(ir.IntType(width), width - mantissa))
        ty = types.value_type(work)
        return b.fmul(b.uitofp(bits, ty), ir.Constant(ty, math.ldexp(1.0, -mantissa)))

    def body(index: list[ir.Value]) -> None:
        with fe.gen.region():
            e: ir.Value = c64(0)
            for d, i in enumerate(index):
                e = b.add(b.mul(e, c64(dims[d])), i)
            a, s = operand(0, index), operand(1, index)
            if distribution == "rng_normal":
                v = b.fadd(a, b.fmul(s, _box_muller(b, work, uniform, e)))
            elif work.kind == "float":
                v = b.fadd(b.fmul(uniform(e), b.fsub(s, a)), a)
            else:
                v = _uniform_int(b, philox_bits(b, lo, hi, k0, k1, e, width), a, s)
            fe.store_element(convert_value(b, v, work, et), out, inst.shape, index)
    if n:
        loop_nest(b, inst.shape, body)


def _uniform_int(b: ir.IRBuilder, bits: ir.Value, a: ir.Value, top: ir.Value) -> ir.Value:
    """ConvertRandomBitsToUniformInt: a + dist / 2 + (dist - dist / 2), dist = bits % (b - a)
    unsigned (x % 0 = x, as XLA's remainder)."""
    ty = bits.type
    span = b.sub(top, a)
    empty = b.icmp_unsigned("==", span, ir.Constant(ty, 0))
    dist = b.select(empty, bits, b.urem(bits, b.select(empty, ir.Constant(ty, 1), span)))
    half = b.lshr(dist, ir.Constant(ty, 1))
    return b.add(b.add(a, half), b.sub(dist, half))


def _box_muller(b: ir.IRBuilder, work: ElementType, uniform: object, e: ir.Value) -> ir.Value:
    """A standard normal at element e from the uniforms of elements 2k and 2k+1 (k = e / 2):
    sin for even e, cos for odd e."""
    assert callable(uniform)
    ty = types.value_type(work)
    first = b.mul(b.udiv(e, c64(2)), c64(2))
    u0 = uniform(first)
    u1 = uniform(b.add(first, c64(1)))
    u0 = b.select(b.fcmp_ordered("<", u0, ir.Constant(ty, 1.0e-7)), ir.Constant(ty, 1.0e-7), u0)
    radius = math_ops.libm(b, "sqrt", [b.fmul(ir.Constant(ty, -2.0), math_ops.libm(b, "log", [u0]))])
    theta = b.fmul(ir.Constant(ty, 2.0 * math.pi), u1)
    even = b.icmp_unsigned("==", b.urem(e, c64(2)), c64(0))
    return b.fmul(b.select(even, math_ops.libm(b, "sin", [theta]), math_ops.libm(b, "cos", [theta])), radius)
