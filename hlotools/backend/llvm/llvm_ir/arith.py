"""Elementwise arithmetic generators: unary, binary, compare, select, clamp, convert and
bitcast-convert, with the integer corner cases of XLA (and of the interpreter): x/0 = -1
(all ones), x%0 = x, INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0, shifts by >= the bit width shift
everything out, float -> int conversion saturates and maps NaN to 0. Narrow floats compute in
f32 and round after every op. Transcendentals come from llvm_ir/math_ops.py.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

import llvmlite.ir as ir

from hlotools.backend.llvm.llvm_ir import complex_ops, denormals, math_ops, types
from hlotools.errors import HloUnsupportedError
from hlotools.ir import semantics
from hlotools.ir.types import ElementType

B: TypeAlias = ir.IRBuilder


def intr(b: B, name: str, args: list[ir.Value], ret: ir.Type | None = None) -> ir.Value:
    """Call an LLVM intrinsic `name` overloaded on the first argument's type."""
    ty = args[0].type
    suffix = {types.F32: "f32", types.F64: "f64"}.get(ty) or f"i{ty.width}"
    full = f"{name}.{suffix}"
    fn = b.module.globals.get(full)
    if fn is None:
        fn = ir.Function(b.module, ir.FunctionType(ret or ty, [a.type for a in args]), full)
    return b.call(fn, args)


def _ones(ty: ir.IntType) -> ir.Constant:
    return ir.Constant(ty, (1 << ty.width) - 1)


def zero_of(ty: ir.Type) -> ir.Constant:
    return ir.Constant(ty, 0 if isinstance(ty, ir.IntType) else 0.0)


def _fconst(ty: ir.Type, v: float) -> ir.Constant:
    return ir.Constant(ty, v)


# ------------------------------------------------------------------------- unary

def _abs(b: B, x: ir.Value, et: ElementType) -> ir.Value:
    if et.kind == "signed":
        return b.select(b.icmp_signed("<", x, zero_of(x.type)), b.neg(x), x)
    if et.kind in ("unsigned", "pred"):
        return x
    return intr(b, "llvm.fabs", [x])


def _negate(b: B, x: ir.Value, et: ElementType) -> ir.Value:
    if et.kind == "pred":
        return x
    if et.is_integer:
        return b.neg(x)
    return b.fneg(x)


def _not(b: B, x: ir.Value, et: ElementType) -> ir.Value:
    if et.kind == "float":
        raise HloUnsupportedError(f"not of {et}")
    return b.xor(x, _ones(x.type))


def _sign(b: B, x: ir.Value, et: ElementType) -> ir.Value:
    if et.kind == "signed":
        pos = b.zext(b.icmp_signed(">", x, zero_of(x.type)), x.type)
        neg = b.zext(b.icmp_signed("<", x, zero_of(x.type)), x.type)
        return b.sub(pos, neg)
    if et.kind in ("unsigned", "pred"):
        return b.zext(b.icmp_unsigned("!=", x, zero_of(x.type)), x.type) if et.kind == "unsigned" else x
    one = b.uitofp(b.fcmp_unordered("!=", x, zero_of(x.type)), x.type)  # NaN -> 1, then copysign keeps NaN below
    s = intr(b, "llvm.copysign", [one, x])
    return b.select(b.fcmp_unordered("uno", x, x), x, s)


def _round_afz(b: B, x: ir.Value, et: ElementType) -> ir.Value:
    return x if et.is_integer else intr(b, "llvm.round", [x])


def _round_even(b: B, x: ir.Value, et: ElementType) -> ir.Value:
    return x if et.is_integer else intr(b, "llvm.roundeven", [x])


def _float_only(name: str) -> Callable[[B, ir.Value, ElementType], ir.Value]:
    def apply(b: B, x: ir.Value, et: ElementType) -> ir.Value:
        if et.kind != "float":
            raise HloUnsupportedError(f"{name[5:]} of {et}")
        return intr(b, name, [x])
    return apply


def _popcnt(b: B, x: ir.Value, et: ElementType) -> ir.Value:
    return intr(b, "llvm.ctpop", [x])


def _clz(b: B, x: ir.Value, et: ElementType) -> ir.Value:
    return intr(b, "llvm.ctlz", [x, ir.Constant(types.I1, 0)])


def _is_finite(b: B, x: ir.Value, et: ElementType) -> ir.Value:
    return b.fcmp_ordered("<", intr(b, "llvm.fabs", [x]), _fconst(x.type, float("inf")))


def _rsqrt(b: B, x: ir.Value, et: ElementType) -> ir.Value:
    return b.fdiv(_fconst(x.type, 1.0), intr(b, "llvm.sqrt", [x]))


def _logistic(b: B, x: ir.Value, et: ElementType) -> ir.Value:
    """1 / (1 + exp(-x)); f16 rounds after each step as XLA CPU expands it (the interpreter's
    _logistic says why)."""
    one = _fconst(x.type, 1.0)
    if et.name == "f16":
        return b.fdiv(one, types.round_to(b, b.fadd(one, types.round_to(b, math_ops.exp(b, b.fneg(x)), et)), et))
    return b.fdiv(one, b.fadd(one, math_ops.exp(b, b.fneg(x))))


UNARY: dict[str, Callable[[B, ir.Value, ElementType], ir.Value]] = {
    "abs": _abs, "negate": _negate, "not": _not, "sign": _sign,
    "round-nearest-afz": _round_afz, "round-nearest-even": _round_even,
    "ceil": _float_only("llvm.ceil"), "floor": _float_only("llvm.floor"), "sqrt": _float_only("llvm.sqrt"),
    "popcnt": _popcnt, "count-leading-zeros": _clz, "is-finite": _is_finite, "rsqrt": _rsqrt,
    "logistic": _logistic,
}
UNARY.update({op: (lambda f: (lambda b, x, et: f(b, x)))(fn) for op, fn in math_ops.TRANSCENDENTAL.items()})


def _xla_log(name: str, domain: float) -> Callable[[B, ir.Value, ElementType], ir.Value]:
    """log / log1p with XLA CPU's invalid results: computed in f32 (f32, bf16, f16 but f16's
    log; XLA's own polynomial, Eigen's plog) every NaN or out-of-domain operand gives the
    all-ones pattern 0xFFFFFFFF; at f64 (libm) a NaN passes quieted and x < domain gives +NaN
    (glibc's is -NaN). Measured with xla_ref.py (jaxlib 0.10.2)."""
    def apply(b: B, x: ir.Value, et: ElementType) -> ir.Value:
        if x.type == types.F64 and denormals.flushing(b):  # M.libm flushes f32 itself; XLA's f64 log
            x = denormals.flush(b, x)  # sees a denormal as 0 too (-inf), unlike its f64 sin
        r = math_ops.libm(b, name, [x])
        if name == "log" and et.name == "f16":
            return r  # XLA CPU's f16 log is libm's (NaN passes, x < 0 gives -NaN); its log1p is not
        below = b.fcmp_ordered("<", x, _fconst(x.type, domain))
        if x.type == types.F32:
            bad = b.or_(below, b.fcmp_unordered("uno", x, x))
            return b.select(bad, b.bitcast(ir.Constant(types.I32, 0xFFFFFFFF), types.F32), r)
        return b.select(below, _fconst(x.type, float("nan")), r)
    return apply


UNARY["log"] = _xla_log("log", 0.0)
UNARY["log-plus-one"] = _xla_log("log1p", -1.0)


# ------------------------------------------------------------------------ binary

def _int_div(b: B, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
    ty = x.type
    zero = b.icmp_unsigned("==", y, zero_of(ty))
    if et.kind == "unsigned":
        safe = b.select(zero, ir.Constant(ty, 1), y)
        return b.select(zero, _ones(ty), b.udiv(x, safe))
    int_min = ir.Constant(ty, 1 << (ty.width - 1))
    overflow = b.and_(b.icmp_unsigned("==", x, int_min), b.icmp_unsigned("==", y, _ones(ty)))
    safe = b.select(b.or_(zero, overflow), ir.Constant(ty, 1), y)
    q = b.select(overflow, x, b.sdiv(x, safe))
    return b.select(zero, _ones(ty), q)


def _int_rem(b: B, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
    ty = x.type
    zero = b.icmp_unsigned("==", y, zero_of(ty))
    if et.kind == "unsigned":
        return b.select(zero, x, b.urem(x, b.select(zero, ir.Constant(ty, 1), y)))
    int_min = ir.Constant(ty, 1 << (ty.width - 1))
    overflow = b.and_(b.icmp_unsigned("==", x, int_min), b.icmp_unsigned("==", y, _ones(ty)))
    r = b.srem(x, b.select(b.or_(zero, overflow), ir.Constant(ty, 1), y))
    return b.select(zero, x, b.select(overflow, zero_of(ty), r))


def _int_pow(b: B, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
    """Square-and-multiply (branch-free, wraps), as the interpreter's _int_power: under the
    xla-cpu semantics XLA CPU's EmitIntegerPow (six squarings: only the exponent's low 6 bits
    count; a top-bit-set exponent is negative for unsigned types too, giving 1 for base 1,
    +-1 for base -1 by parity, else 0), under spec every exponent bit (0 for a negative one,
    but base 1's)."""
    ty = x.type
    one = ir.Constant(ty, 1)
    xla = semantics.xla_cpu()
    steps = 6 if xla else (ty.width if et.kind == "unsigned" else ty.width - 1)
    acc: ir.Value = one
    base, e = x, (b.and_(y, ir.Constant(ty, 63)) if xla else y)
    for _ in range(steps):
        odd = b.icmp_unsigned("!=", b.and_(e, one), zero_of(ty))
        acc = b.select(odd, b.mul(acc, base), acc)
        base = b.mul(base, base)
        e = b.lshr(e, one)
    if et.kind == "signed" or xla:
        neg = b.icmp_signed("<", y, zero_of(ty))  # the top bit, for unsigned types too
        at_neg = b.zext(b.icmp_unsigned("==", x, one), ty)
        if xla:
            odd_exp = b.icmp_unsigned("!=", b.and_(y, one), zero_of(ty))
            minus_one = b.icmp_unsigned("==", x, _ones(ty))
            at_neg = b.select(minus_one, b.select(odd_exp, x, one), at_neg)
        acc = b.select(neg, at_neg, acc)
    return acc


def _shift(kind: str) -> Callable[[B, ir.Value, ir.Value, ElementType], ir.Value]:
    def apply(b: B, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
        ty = x.type
        big = b.icmp_unsigned(">=", y, ir.Constant(ty, ty.width))
        c = b.select(big, zero_of(ty), y)
        if kind == "left":
            return b.select(big, zero_of(ty), b.shl(x, c))
        if kind == "logical":
            return b.select(big, zero_of(ty), b.lshr(x, c))
        fill = b.select(b.icmp_signed("<", x, zero_of(ty)), _ones(ty), zero_of(ty))
        return b.select(big, fill, b.ashr(x, c))
    return apply


_FLOAT_BITS = {ir.HalfType: 16, ir.FloatType: 32, ir.DoubleType: 64}
QUIET_BIT = {16: 1 << 9, 32: 1 << 22, 64: 1 << 51}  # the mantissa's top bit: set in a quiet NaN


def float_max_min(b: B, x: ir.Value, y: ir.Value, is_max: bool, flush_x: bool = True,
                  flush_y: bool = True) -> ir.Value:
    """HLO maximum/minimum of floats (scalars or vectors), the same bits on every CPU.

    (x >= y || isnan(x)) ? x : y, so a NaN operand wins, x's when both are; the NaN comes out
    quieted (its quiet bit set, sign and payload kept: what x86 arithmetic does to a NaN
    operand). Equal operands give the AND (max) / OR (min) of their bits, which orders -0
    below +0 as IEEE 754-2019's maximum/minimum. Never llvm.maximum / llvm.minimum: LLVM leaves
    their NaN's bits open and x86 lowers them differently with and without AVX-512 (a sign-bit
    NaN came out positive on one CPU and negative on another). XLA CPU is host-dependent there
    (it emits those intrinsics); hlotools defines the answer once."""
    if denormals.flushing(b):  # DAZ: a denormal operand is a zero of its sign (XLA CPU's vmaxps)
        x = denormals.flush(b, x) if flush_x else x  # (not an operand known to be no denormal:
        y = denormals.flush(b, y) if flush_y else y  # an accumulator of lane_fold's)
    elem = x.type.element if isinstance(x.type, ir.VectorType) else x.type
    width = _FLOAT_BITS[type(elem)]
    ity: ir.Type = ir.IntType(width)
    if isinstance(x.type, ir.VectorType):
        ity = ir.VectorType(ity, x.type.count)
    x_nan = b.fcmp_unordered("uno", x, x)
    pick_x = b.or_(b.fcmp_ordered(">=" if is_max else "<=", x, y), x_nan)
    xb, yb = b.bitcast(x, ity), b.bitcast(y, ity)
    rb = b.select(pick_x, xb, yb)
    both = b.and_(xb, yb) if is_max else b.or_(xb, yb)
    rb = b.select(b.fcmp_ordered("==", x, y), both, rb)
    any_nan = b.fcmp_unordered("uno", x, y)
    quiet = b.or_(rb, _splat(ity, QUIET_BIT[width]))
    return b.bitcast(b.select(any_nan, quiet, rb), x.type)


def _splat(ty: ir.Type, value: int) -> ir.Constant:
    if isinstance(ty, ir.VectorType):
        return ir.Constant(ty, [ir.Constant(ty.element, value)] * ty.count)
    return ir.Constant(ty, value)


def max_min(is_max: bool) -> Callable[[B, ir.Value, ir.Value, ElementType], ir.Value]:
    def apply(b: B, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
        if et.kind == "float":
            return float_max_min(b, x, y, is_max)
        if et.kind == "signed":
            return b.select(b.icmp_signed(">=" if is_max else "<=", x, y), x, y)
        return b.select(b.icmp_unsigned(">=" if is_max else "<=", x, y), x, y)
    return apply


def _mulhi(b: B, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
    ty = x.type
    wide = ir.IntType(ty.width * 2)
    ext = b.sext if et.kind == "signed" else b.zext
    p = b.mul(ext(x, wide), ext(y, wide))
    return b.trunc(b.lshr(p, ir.Constant(wide, ty.width)), ty)


def _arith(int_op: str, float_op: str, pred_op: str) -> Callable[[B, ir.Value, ir.Value, ElementType], ir.Value]:
    def apply(b: B, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
        if et.kind == "pred":
            return getattr(b, pred_op)(x, y)
        if et.is_integer:
            return getattr(b, int_op)(x, y)
        return first_operand_nan(b, float_op, x, y)
    return apply


def first_operand_nan(b: B, op: str, x: ir.Value, y: ir.Value) -> ir.Value:
    """`x <op> y` (op: fadd, fsub, fmul, fdiv) with x86's answer when both are NaN on every
    feature level: the first operand's NaN, quieted. LLVM commutes add and multiply as the
    target likes (SSE's two-operand forms at x86-64-v2, not AVX's), so without this a
    NaN + NaN of two payloads had other bits at other feature levels. y is replaced by x when
    x is NaN: `x <op> x` is x quieted whichever operand the instruction takes (two
    instructions, against five for quieting x's bits by hand). Left out when at most one
    operand can be NaN: an operand is a constant that is not NaN, or both are one value."""
    fn = getattr(b, op)
    elem = x.type.element if isinstance(x.type, ir.VectorType) else x.type
    if not isinstance(elem, (ir.FloatType, ir.DoubleType)) or x is y or _not_nan(x) or _not_nan(y):
        return fn(x, y)
    return fn(x, b.select(b.fcmp_unordered("uno", x, x), x, y))


def _not_nan(v: ir.Value) -> bool:
    """v is a float constant other than NaN."""
    c = v.constant if isinstance(v, ir.Constant) else None
    return isinstance(c, (float, int)) and not isinstance(c, bool) and c == c


def _logic(op: str) -> Callable[[B, ir.Value, ir.Value, ElementType], ir.Value]:
    def apply(b: B, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
        if et.kind == "float":
            raise HloUnsupportedError(f"bitwise {op} of {et}")
        return getattr(b, op)(x, y)
    return apply


def _divide(b: B, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
    return _int_div(b, x, y, et) if et.is_integer else first_operand_nan(b, "fdiv", x, y)


def _remainder(b: B, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
    return _int_rem(b, x, y, et) if et.is_integer else b.frem(x, y)


def _power(b: B, x: ir.Value, y: ir.Value, et: ElementType) -> ir.Value:
    if et.kind == "pred":
        return b.or_(x, b.xor(y, ir.Constant(types.I1, 1)))
    if et.is_integer:
        return _int_pow(b, x, y, et)
    return math_ops.pow(b, x, y)


BINARY: dict[str, Callable[[B, ir.Value, ir.Value, ElementType], ir.Value]] = {
    "add": _arith("add", "fadd", "or_"), "subtract": _arith("sub", "fsub", "xor"),
    "multiply": _arith("mul", "fmul", "and_"), "divide": _divide, "remainder": _remainder,
    "power": _power, "maximum": max_min(True), "minimum": max_min(False),
    "and": _logic("and_"), "or": _logic("or_"), "xor": _logic("xor"),
    "shift-left": _shift("left"), "shift-right-logical": _shift("logical"),
    "shift-right-arithmetic": _shift("arithmetic"), "mulhi": _mulhi,
    "atan2": lambda b, x, y, et: math_ops.atan2(b, x, y),
}


# ------------------------------------------------------------- compare / select / clamp

SIGNED_COMPARE = {"EQ": "==", "NE": "!=", "LT": "<", "LE": "<=", "GT": ">", "GE": ">="}


def compare_values(b: B, direction: str, x: ir.Value, y: ir.Value, et: ElementType, ctype: str = "") -> ir.Value:
    op = SIGNED_COMPARE[direction]
    if et.kind == "complex":
        return complex_ops.compare(b, direction, x, y)
    if et.kind == "float":
        if ctype == "TOTALORDER":
            return b.icmp_signed(op, total_order_key(b, x), total_order_key(b, y))
        return b.fcmp_unordered(op, x, y) if direction == "NE" else b.fcmp_ordered(op, x, y)
    if et.kind == "signed":
        return b.icmp_signed(op, x, y)
    return b.icmp_unsigned(op, x, y)


def total_order_key(b: B, x: ir.Value) -> ir.Value:
    """Integers ordering floats as -NaN < -inf < ... < -0 < +0 < ... < inf < NaN."""
    ity = types.I64 if x.type == types.F64 else types.I32
    s = b.bitcast(x, ity)
    flip = ir.Constant(ity, (1 << (ity.width - 1)) - 1)
    return b.select(b.icmp_signed("<", s, zero_of(ity)), b.xor(s, flip), s)


# ------------------------------------------------------------------------- convert

def convert_value(b: B, x: ir.Value, src: ElementType, dst: ElementType) -> ir.Value:
    """Convert a value of `src` to `dst` with XLA's semantics (see the module docstring)."""
    if src.name == dst.name:
        return x
    if src.kind == "complex" or dst.kind == "complex":
        return complex_ops.convert(b, x, src, dst)
    if dst.kind == "pred":
        if src.kind == "float":
            return b.fcmp_unordered("!=", x, zero_of(x.type))
        return b.icmp_unsigned("!=", x, zero_of(x.type))
    dty = types.value_type(dst)
    if src.kind == "float":
        if dst.kind == "float":
            if x.type == types.F32 and dty == types.F64:
                return b.fpext(x, types.F64)
            if x.type == types.F64 and dty == types.F32 and dst.name != "f32":
                return types.decode(b, types.encode(b, x, types.SMALL_FLOATS[dst.name]), types.SMALL_FLOATS[dst.name])
            v = b.fptrunc(x, types.F32) if x.type == types.F64 else x
            return types.round_to(b, v, dst)
        name = "llvm.fptosi.sat" if dst.kind == "signed" else "llvm.fptoui.sat"
        fn_name = f"{name}.i{dty.width}.{'f64' if x.type == types.F64 else 'f32'}"
        fn = b.module.globals.get(fn_name) or ir.Function(b.module, ir.FunctionType(dty, [x.type]), fn_name)
        return b.call(fn, [x])
    # src is pred or integer
    if dst.kind == "float":
        wide = b.uitofp(x, types.F64) if src.kind in ("unsigned", "pred") else b.sitofp(x, types.F64)
        if dst.name == "f64":
            return wide
        if dst.name == "f32":
            return b.uitofp(x, types.F32) if src.kind in ("unsigned", "pred") else b.sitofp(x, types.F32)
        return types.decode(b, types.encode(b, wide, types.SMALL_FLOATS[dst.name]), types.SMALL_FLOATS[dst.name])
    sw, dw = x.type.width, dty.width
    if sw == dw:
        return x
    if sw > dw:
        return b.trunc(x, dty)
    return b.sext(x, dty) if src.kind == "signed" else b.zext(x, dty)


def bits_of(et: ElementType) -> int:
    return 8 if et.kind == "pred" else et.bits


def from_bits(b: B, bits: ir.Value, et: ElementType) -> ir.Value:
    st = types.storage_type(et)
    if isinstance(st, ir.IntType):
        raw = bits if st.width == bits.type.width else (
            b.sext(bits, st) if et.kind == "signed" else b.zext(bits, st))
    else:
        raw = b.bitcast(bits, st)
    return types.from_storage(b, raw, et)
