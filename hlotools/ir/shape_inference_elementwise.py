"""Shape rules of elementwise opcodes (unary, binary, compare, select, clamp, converts).

XLA's rules (shape_inference.cc InferUnaryOpShape / InferBinaryOpShape / InferTernaryOpShape):
operands have identical dims (HLO has no implicit broadcasting), identical element types
(mixed precision is off by default), and each opcode accepts a family of element types.
"""
from __future__ import annotations

from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.shape import Shape
from hlotools.ir.shape_inference_common import (
    ELEMENT_TYPES,
    PRED,
    ElementType,
    array_operand,
    attr,
    declared,
    fail,
    make,
    operand_shape,
    rule,
    shape_text,
    strip_layout,
)

# XLA's verifier: the comparison `type` must fit the operands' element type.
_COMPARE_TYPES = {"float": ("FLOAT", "TOTALORDER"), "complex": ("FLOAT", "TOTALORDER"),
                  "signed": ("SIGNED",), "unsigned": ("UNSIGNED",), "pred": ("UNSIGNED",)}
_COMPLEX_OF = {"f32": "c64", "f64": "c128"}
_REAL_OF = {"c64": "f32", "c128": "f64"}


def _kind_ok(et: ElementType, allowed: str) -> bool:
    if allowed == "float":
        return et.is_float
    if allowed == "float_or_complex":
        return et.is_float or et.is_complex
    if allowed == "integral":
        return et.is_integer
    if allowed == "int_or_pred":
        return et.is_integer or et.kind == "pred"
    if allowed == "numeric":
        return et.kind != "pred"
    if allowed == "signed":  # ShapeUtil::ElementIsSigned (floats included) or complex
        return et.kind in ("signed", "float", "complex")
    return True


def _check_kind(inst: Instruction, shape: Shape, allowed: str) -> None:
    assert shape.element_type is not None
    if not _kind_ok(shape.element_type, allowed):
        want = {"float": "floating point", "float_or_complex": "floating point or complex",
                "integral": "integral", "int_or_pred": "integral or pred",
                "numeric": "numeric (not pred)",
                "signed": "signed, floating point or complex"}[allowed]
        raise fail(inst, f"expected a {want} element type, got {shape_text(shape)}")


def _with_type(shape: Shape, et: ElementType) -> Shape:
    return make(et, shape.dims, shape.dynamic)


@rule(*(n for n, i in OPCODES.items() if i.category == "unary" and n not in ("copy",)))
def infer_unary(inst: Instruction) -> Shape:
    """Unary elementwise ops keep the operand's dims; the table's operand_types decides which
    element types are allowed (float-only, integral-only, ...); the result type may change
    (abs of complex)."""
    x = array_operand(inst, 0)
    op = inst.opcode
    et = x.element_type
    assert et is not None
    allowed = OPCODES[op].operand_types
    if allowed:
        _check_kind(inst, x, allowed)
    if op == "reduce-precision":
        for a in ("exponent_bits", "mantissa_bits"):
            bits = attr(inst, a)
            if a == "exponent_bits" and bits < 1 or bits < 0:
                raise fail(inst, f"{a}={bits} is out of range")
    if op == "is-finite":
        return _with_type(x, PRED)
    if op in ("abs", "real", "imag"):
        if et.is_complex:
            return _with_type(x, ELEMENT_TYPES[_REAL_OF[et.name]])
        if op != "abs" and not et.is_float:
            raise fail(inst, f"expected a floating point or complex operand, got {shape_text(x)}")
        if op == "abs":
            _check_kind(inst, x, "signed")
    return _with_type(x, et)


@rule("copy", "opt-barrier")
def infer_identity(inst: Instruction) -> Shape:
    """copy and opt-barrier return their operand's shape (tuples included)."""
    return strip_layout(operand_shape(inst, 0))


def _same_operands(inst: Instruction, shapes: list[Shape]) -> None:
    first = shapes[0]
    for i, s in enumerate(shapes[1:], 1):
        if s.dims != first.dims:
            raise fail(inst, f"operand shapes differ: {shape_text(first)} vs {shape_text(s)} "
                             f"(operand {i}); HLO has no implicit broadcasting")
        if s.element_type != first.element_type:
            raise fail(inst, f"operands have different element types: {shape_text(first)} vs "
                             f"{shape_text(s)}")


def _merge_dynamic(a: Shape, b: Shape) -> tuple[bool, ...]:
    if not a.dynamic and not b.dynamic:
        return ()
    da = a.dynamic or (False,) * a.rank
    db = b.dynamic or (False,) * b.rank
    return tuple(x or y for x, y in zip(da, db))


@rule(*(n for n, i in OPCODES.items() if i.category == "binary"))
def infer_binary(inst: Instruction) -> Shape:
    lhs, rhs = array_operand(inst, 0, "lhs"), array_operand(inst, 1, "rhs")
    _same_operands(inst, [lhs, rhs])
    op = inst.opcode
    et = lhs.element_type
    assert et is not None
    dyn = _merge_dynamic(lhs, rhs)
    if op == "complex":
        if et.name not in _COMPLEX_OF:
            raise fail(inst, f"expected f32 or f64 operands, got {shape_text(lhs)}")
        return make(ELEMENT_TYPES[_COMPLEX_OF[et.name]], lhs.dims, dyn)
    allowed = OPCODES[op].operand_types
    if allowed:
        _check_kind(inst, lhs, allowed)
    return make(et, lhs.dims, dyn)


@rule("compare")
def infer_compare(inst: Instruction) -> Shape:
    lhs, rhs = array_operand(inst, 0, "lhs"), array_operand(inst, 1, "rhs")
    _same_operands(inst, [lhs, rhs])
    direction = str(attr(inst, "direction"))
    if direction not in ("EQ", "NE", "GE", "GT", "LE", "LT"):
        raise fail(inst, f"unknown comparison direction {direction}")
    kind = inst.attrs.get("type")
    if kind is not None:
        assert lhs.element_type is not None
        allowed = _COMPARE_TYPES.get(lhs.element_type.kind, ())
        if str(kind).upper() not in allowed:
            raise fail(inst, f"comparison type {kind} does not fit {shape_text(lhs)} (expected "
                             f"{' or '.join(allowed)})")
    return make(PRED, lhs.dims, _merge_dynamic(lhs, rhs))


@rule("select")
def infer_select(inst: Instruction) -> Shape:
    pred = array_operand(inst, 0, "pred")
    on_true, on_false = array_operand(inst, 1, "on_true"), array_operand(inst, 2, "on_false")
    if pred.element_type != PRED:
        raise fail(inst, f"the predicate must be pred, got {shape_text(pred)}")
    _same_operands(inst, [on_true, on_false])
    if pred.dims != on_true.dims:
        # XLA's verifier: "Implicit broadcast is not allowed in HLO" (no scalar predicate).
        raise fail(inst, f"predicate {shape_text(pred)} and operands {shape_text(on_true)} "
                         "have different dimensions")
    return make(on_true.element_type, on_true.dims, _merge_dynamic(on_true, on_false))


@rule("clamp")
def infer_clamp(inst: Instruction) -> Shape:
    """XLA's InferClampShape: each bound is a scalar or has the operand's dims (the only implicit
    broadcast HLO allows; the operand itself is never broadcast to the bounds)."""
    lo, x, hi = (array_operand(inst, i, w) for i, w in enumerate(("min", "operand", "max")))
    for bound in (lo, hi):
        if bound.element_type != x.element_type:
            raise fail(inst, f"min/max {shape_text(bound)} and operand {shape_text(x)} have "
                             "different element types")
        if bound.dims and bound.dims != x.dims:
            raise fail(inst, f"min/max {shape_text(bound)} must have the operand's dimensions "
                             f"{shape_text(x)} or be a scalar")
    return make(x.element_type, x.dims, x.dynamic)


@rule("convert")
def infer_convert(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    out = declared(inst, "the target element type")
    assert x.element_type is not None and out.element_type is not None
    if not out.is_array:
        raise fail(inst, f"cannot convert to {shape_text(out)}")
    if x.element_type.is_complex and not out.element_type.is_complex:
        raise fail(inst, f"conversion from complex to real type {shape_text(x)} => "
                         f"{out.element_type.name} is not implemented")
    return _with_type(x, out.element_type)


@rule("bitcast-convert")
def infer_bitcast_convert(inst: Instruction) -> Shape:
    """Equal widths keep the dims; a narrower result adds a minor dim of size ratio, a wider
    result removes the operand's minor dim (which must equal the ratio)."""
    x = array_operand(inst, 0)
    out = declared(inst, "the target element type")
    src, dst = x.element_type, out.element_type
    assert src is not None and dst is not None
    if not out.is_array:
        raise fail(inst, f"cannot bitcast-convert {shape_text(x)} to {dst.name}")
    if src.is_complex != dst.is_complex:
        raise fail(inst, f"conversion between complex and real type {shape_text(x)} => {dst.name}")
    if src.bits == dst.bits:
        return _with_type(x, dst)
    if src.bits > dst.bits:
        if src.bits % dst.bits:
            raise fail(inst, f"cannot bitcast {src.name} to {dst.name}: widths do not divide")
        return make(dst, x.dims + (src.bits // dst.bits,))
    ratio = dst.bits // src.bits
    if dst.bits % src.bits or not x.dims or x.dims[-1] != ratio:
        raise fail(inst, f"bitcast-convert from {shape_text(x)} to wider {dst.name} needs a minor "
                         f"dimension of size {ratio}")
    return make(dst, x.dims[:-1])


@rule("stochastic-convert")
def infer_stochastic_convert(inst: Instruction) -> Shape:
    x, bits = array_operand(inst, 0), array_operand(inst, 1, "random bits")
    out = declared(inst, "the target element type")
    assert x.element_type is not None and bits.element_type is not None
    if not x.element_type.is_float:
        raise fail(inst, f"stochastic convert supports only floating point operands, got "
                         f"{shape_text(x)}")
    if bits.dims != x.dims:
        raise fail(inst, f"random bits {shape_text(bits)} must have the operand's dimensions")
    if bits.element_type.kind != "unsigned" or bits.element_type.bits != x.element_type.bits:
        raise fail(inst, f"random bits must be unsigned of the operand's width, got "
                         f"{shape_text(bits)}")
    assert out.element_type is not None
    return _with_type(x, out.element_type)
