"""Shape inference: one rule per opcode, as XLA's ShapeInference computes it.

`infer_shape(inst)` is used by the parser (when the text omits a result shape) and by the
verifier (to check declared shapes). The rules live in shape_inference_{elementwise,data,
linalg,control,async}.py and register themselves by opcode; this module only dispatches.
"""
from __future__ import annotations

from hlotools.errors import HloError, HloVerifyError
from hlotools.ir import (  # noqa: F401  (importing registers the rules)
    shape_inference_async,
    shape_inference_control,
    shape_inference_data,
    shape_inference_elementwise,
    shape_inference_linalg,
)
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.shape import Shape
from hlotools.ir.shape_inference_common import RULES, fail

__all__ = ["infer_shape", "infer_shape_without_layout", "has_rule"]


def has_rule(opcode: str) -> bool:
    return opcode in RULES


def infer_shape(inst: Instruction) -> Shape:
    """The result shape XLA infers for `inst`, with the default layout filled in.

    Raises HloError naming the opcode and what is wrong (operand types or dims, an attribute
    out of range, a missing attribute, ...). For opcodes whose result cannot be inferred
    (parameter, custom-call, iota, reshape's dims, convert's type, ...), the declared shape
    supplies what is missing and is checked against the operands.
    """
    shape = infer_shape_without_layout(inst)
    cached = _DEFAULT_LAYOUT_CACHE.get(shape)
    if cached is None:
        if len(_DEFAULT_LAYOUT_CACHE) > 50000:
            _DEFAULT_LAYOUT_CACHE.clear()
        cached = _DEFAULT_LAYOUT_CACHE[shape] = shape.with_default_layout()
    return cached


_DEFAULT_LAYOUT_CACHE: dict[Shape, Shape] = {}


def infer_shape_without_layout(inst: Instruction) -> Shape:
    """The inferred shape without layouts (what the verifier compares, layouts ignored)."""
    info = OPCODES.get(inst.opcode)
    if info is None:
        raise fail(inst, "unknown opcode")
    fn = RULES.get(inst.opcode)
    if fn is None:  # every table opcode has a rule (tests/ir/test_shape_inference.py checks)
        raise fail(inst, "no shape rule")
    try:
        shape = fn(inst)
    except HloError:
        raise
    except (AttributeError, TypeError, ValueError, IndexError, KeyError) as e:
        # A malformed attribute value (wrong type from a hand-built IR): still an HloError.
        raise HloVerifyError(f"{inst.opcode}: malformed attribute or operand ({e})",
                             inst.line or None, inst.column or None) from None
    return shape
