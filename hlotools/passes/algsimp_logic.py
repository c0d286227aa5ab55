"""algsimp rules for logic, comparison and selection: and, or, xor, not, compare, select.

Comparisons of a value with itself fold only for integers and pred (a float NaN is not
equal to itself), as in XLA.
"""
from __future__ import annotations

from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import REDUCERS
from hlotools.passes.algsimp_core import (
    Builder,
    direction,
    drop_identity,
    is_all,
    is_all_false,
    is_all_true,
    is_all_zero,
    is_int,
    is_int_or_pred,
    is_pred,
    is_unsigned,
    keep_absorbing,
    rule,
)


# -- and / or / xor / not -------------------------------------------------------------------------
@rule("and")
def and_true(inst: Instruction, b: Builder) -> Instruction | None:
    """A && true => A (pred only: for integers `true` is not all ones)."""
    return drop_identity(inst, is_all_true) if is_pred(inst) else None


@rule("and")
def and_zero(inst: Instruction, b: Builder) -> Instruction | None:
    """A && false => false and A & 0 => 0."""
    return keep_absorbing(inst, is_all_zero)


@rule("and", "or")
def and_or_same(inst: Instruction, b: Builder) -> Instruction | None:
    """A && A => A, A || A => A (also bitwise)."""
    x, y = inst.operands
    return x if x is y else None


@rule("or")
def or_true(inst: Instruction, b: Builder) -> Instruction | None:
    """A || true => true (pred only)."""
    return keep_absorbing(inst, is_all_true) if is_pred(inst) else None


@rule("or")
def or_zero(inst: Instruction, b: Builder) -> Instruction | None:
    """A || false => A and A | 0 => A."""
    return drop_identity(inst, is_all_zero)


@rule("xor")
def xor_zero(inst: Instruction, b: Builder) -> Instruction | None:
    """A ^ 0 => A (A xor false => A)."""
    return drop_identity(inst, is_all_zero)


@rule("xor")
def xor_same(inst: Instruction, b: Builder) -> Instruction | None:
    """A ^ A => 0 (false for pred)."""
    x, y = inst.operands
    return b.filled(inst, 0) if x is y else None


@rule("not")
def not_not(inst: Instruction, b: Builder) -> Instruction | None:
    """not(not(A)) => A (logical for pred, bitwise for integers: both involutions)."""
    x = inst.operands[0]
    return x.operands[0] if x.opcode == "not" else None


# -- compare ----------------------------------------------------------------------------------------
_REFLEXIVE = {"EQ": True, "GE": True, "LE": True, "NE": False, "GT": False, "LT": False}


@rule("compare")
def compare_same_int(inst: Instruction, b: Builder) -> Instruction | None:
    """compare(A, A): EQ/GE/LE => true, NE/GT/LT => false, for integers and pred only."""
    x, y = inst.operands
    d = direction(inst)
    if x is y and is_int_or_pred(x) and d in _REFLEXIVE:
        return b.filled(inst, _REFLEXIVE[d])
    return None


@rule("compare")
def compare_unsigned_zero(inst: Instruction, b: Builder) -> Instruction | None:
    """Unsigned A < 0 => false, A >= 0 => true (and 0 > A, 0 <= A)."""
    x, y = inst.operands
    if not is_unsigned(x):
        return None
    d = direction(inst)
    if is_all(y, 0) and d in ("LT", "GE"):
        return b.filled(inst, d == "GE")
    if is_all(x, 0) and d in ("GT", "LE"):
        return b.filled(inst, d == "LE")
    return None


@rule("compare")
def compare_pred_identity(inst: Instruction, b: Builder) -> Instruction | None:
    """pred A == true => A and A != false => A."""
    x, y = inst.operands
    if not is_pred(x):
        return None
    d = direction(inst)
    for p, q in ((x, y), (y, x)):
        if (d == "EQ" and is_all_true(q)) or (d == "NE" and is_all_false(q)):
            return p
    return None


@rule("compare")
def compare_mask_idiom(inst: Instruction, b: Builder) -> Instruction | None:
    """compare(select(P, 1, 0), 0, NE) => P and compare(select(P, 1, 0), 1, EQ) => P."""
    x, y = inst.operands
    d = direction(inst)
    if x.opcode != "select" or d not in ("NE", "EQ") or not is_all(y, 0 if d == "NE" else 1):
        return None
    p, one, zero = x.operands
    if is_all(one, 1) and is_all(zero, 0) and p.shape.dims == inst.shape.dims:
        return p
    return None


# -- select -------------------------------------------------------------------------------------------
@rule("select")
def select_same_branches(inst: Instruction, b: Builder) -> Instruction | None:
    """select(P, A, A) => A."""
    p, x, y = inst.operands
    return x if x is y else None


@rule("select")
def select_constant_predicate(inst: Instruction, b: Builder) -> Instruction | None:
    """select(true, A, B) => A; select(false, A, B) => B."""
    p, x, y = inst.operands
    if is_all_true(p):
        return x
    if is_all_false(p):
        return y
    return None


@rule("select")
def select_not_predicate(inst: Instruction, b: Builder) -> Instruction | None:
    """select(not(P), A, B) => select(P, B, A)."""
    p, x, y = inst.operands
    if p.opcode == "not":
        return b.new("select", inst.shape, [p.operands[0], y, x])
    return None


@rule("select")
def select_pred_true_false(inst: Instruction, b: Builder) -> Instruction | None:
    """select(P, true, false) => P and select(P, false, true) => not(P)."""
    p, x, y = inst.operands
    if not is_pred(inst) or p.shape.dims != inst.shape.dims:
        return None
    if is_all_true(x) and is_all_false(y):
        return p
    if is_all_false(x) and is_all_true(y):
        return b.unary("not", p, inst.shape)
    return None


_TO_MINMAX = {"GT": "maximum", "GE": "maximum", "LT": "minimum", "LE": "minimum"}


@rule("select")
def select_compare_to_minmax_int(inst: Instruction, b: Builder) -> Instruction | None:
    """select(A > B, A, B) => max(A, B), select(A < B, A, B) => min(A, B) (GE/LE too, and the
    swapped branches give the other one), integers only (for floats NaN handling differs)."""
    p, x, y = inst.operands
    if not is_int(inst) or p.opcode != "compare" or direction(p) not in _TO_MINMAX:
        return None
    a, c = p.operands
    op = _TO_MINMAX[direction(p)]
    if x is a and y is c:
        return b.binary(op, a, c)
    if x is c and y is a:
        return b.binary(REDUCERS[op].dual, a, c)
    return None
