"""Helpers and the rule registry shared by the shape_inference_* modules.

Every rule takes the instruction (opcode, operands and attrs set; its own `.shape` may be
None) and returns the shape XLA's ShapeInference would compute, without a layout; the
public `infer_shape` fills in the default layout. Rules raise HloVerifyError with a message
that names the opcode and what is wrong.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hlotools.errors import HloVerifyError
from hlotools.ir.dispatch import Table
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.types import ELEMENT_TYPES, PRED, S32, TOKEN, U32, ElementType

Rule = Callable[[Instruction], Shape]
RULES: Table[Rule] = Table("shape rule")
rule = RULES.register  # @rule("opcode", ...): the shape rule of each opcode

TOKEN_SHAPE = Shape.array(TOKEN, ())
U32_SCALAR = Shape.array(U32, ())
S32_SCALAR = Shape.array(S32, ())
PRED_SCALAR = Shape.array(PRED, ())

__all__ = ["RULES", "rule", "fail", "attr", "opt_attr", "array_operand", "operand_shape",
           "declared", "check_dims_in_range", "check_unique", "dims_str", "same_dims_type",
           "make", "shape_text", "scalar_of", "ELEMENT_TYPES", "PRED", "S32", "U32", "TOKEN",
           "TOKEN_SHAPE", "U32_SCALAR", "S32_SCALAR", "PRED_SCALAR", "ElementType",
           "strip_layout"]


def fail(inst: Instruction, message: str) -> HloVerifyError:
    """An error naming the opcode (and the instruction's place, when known)."""
    return HloVerifyError(f"{inst.opcode}: {message}", inst.line or None, inst.column or None)


def shape_text(shape: Shape | None) -> str:
    return "<none>" if shape is None else shape.to_text(with_layout=False)


def attr(inst: Instruction, name: str) -> Any:
    """A required attribute (error naming it when absent)."""
    value = inst.attrs.get(name)
    if value is None:
        raise fail(inst, f"missing required attribute '{name}'")
    return value


def opt_attr(inst: Instruction, name: str, default: Any) -> Any:
    value = inst.attrs.get(name)
    return default if value is None else value


def operand_shape(inst: Instruction, i: int) -> Shape:
    if i >= len(inst.operands):
        raise fail(inst, f"expects at least {i + 1} operands, got {len(inst.operands)}")
    shape = inst.operands[i].shape
    if shape is None:
        raise fail(inst, f"operand {i} (%{inst.operands[i].name}) has no shape")
    return shape


def array_operand(inst: Instruction, i: int, what: str = "") -> Shape:
    """Operand i's shape, which must be an array (not a tuple or token)."""
    shape = operand_shape(inst, i)
    if not shape.is_array:
        name = what or f"operand {i}"
        raise fail(inst, f"expected an array for {name}, got {shape_text(shape)}")
    return shape


def declared(inst: Instruction, what: str = "") -> Shape:
    """The result shape written in the text (opcodes whose result cannot be inferred)."""
    if inst.shape is None:
        raise fail(inst, f"the result shape must be given{(' (' + what + ')') if what else ''}")
    return strip_layout(inst.shape)


def strip_layout(shape: Shape) -> Shape:
    return shape.without_layout() if (shape.layout is not None or shape.is_tuple) else shape


def make(element_type: ElementType | None, dims: Sequence[int],
         dynamic: Sequence[bool] = ()) -> Shape:
    assert element_type is not None
    return Shape.array(element_type, tuple(dims), None, tuple(dynamic))


def scalar_of(shape: Shape) -> Shape:
    assert shape.element_type is not None
    return make(shape.element_type, ())


def dims_str(dims: Sequence[int]) -> str:
    return "{" + ",".join(map(str, dims)) + "}"


def check_dims_in_range(inst: Instruction, dims: Sequence[int], rank: int, what: str) -> None:
    for d in dims:
        if not 0 <= d < rank:
            raise fail(inst, f"{what} {dims_str(dims)} has dimension {d} out of range for rank {rank}")


def check_unique(inst: Instruction, dims: Sequence[int], what: str) -> None:
    if len(set(dims)) != len(dims):
        raise fail(inst, f"{what} {dims_str(dims)} has duplicate entries")


def same_dims_type(a: Shape, b: Shape) -> bool:
    """Same element type and dims (layout and dynamic-ness ignored): ShapeUtil::Compatible."""
    if a.is_tuple or b.is_tuple:
        if not (a.is_tuple and b.is_tuple):
            return False
        assert a.tuple_shapes is not None and b.tuple_shapes is not None
        return len(a.tuple_shapes) == len(b.tuple_shapes) and all(
            same_dims_type(x, y) for x, y in zip(a.tuple_shapes, b.tuple_shapes))
    return a.element_type == b.element_type and a.dims == b.dims
