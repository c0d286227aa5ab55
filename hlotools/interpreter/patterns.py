"""Recognising tiny called computations (scatter combiners, sort comparators) by shape.

Kernels use these to swap a per-element computation call for one vectorised numpy call;
anything not recognised takes the general path that runs the computation itself.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from hlotools.errors import HloRuntimeError
from hlotools.ir.instruction import Instruction

# Combiner opcode -> the numpy ufunc that folds in the same way.
COMBINER_UFUNCS: dict[str, np.ufunc] = {
    "add": np.add, "multiply": np.multiply, "maximum": np.maximum, "minimum": np.minimum,
    "and": np.logical_and, "or": np.logical_or,
}


def combiner_ufunc(name: str, dtype: np.dtype) -> np.ufunc:
    """The ufunc for a recognised combiner on `dtype` (and/or are bitwise on integers)."""
    if name in ("and", "or") and np.dtype(dtype) != np.bool_:
        return np.bitwise_and if name == "and" else np.bitwise_or
    return COMBINER_UFUNCS[name]


def _param_index(inst: Instruction) -> int | None:
    return inst.parameter_number if inst.opcode == "parameter" else None


def binary_combiner(comp: Any) -> str | None:
    """'add'/'multiply'/... for `f(a, b) = op(a, b)`, 'replace' for `f(a, b) = b`,
    'keep' for `f(a, b) = a`; None for anything else."""
    if comp is None or len(comp.parameters) != 2 or comp.root is None:
        return None
    root = comp.root
    if root.opcode == "parameter":
        return "replace" if root.parameter_number == 1 else "keep"
    if root.opcode in COMBINER_UFUNCS and len(root.operands) == 2:
        numbers = {_param_index(o) for o in root.operands}
        if numbers == {0, 1}:
            return root.opcode
    return None


@dataclass(frozen=True)
class SimpleComparator:
    """`compare(p[2i], p[2i+1])` (or swapped): sort by operand `operand`, `descending` or not."""

    operand: int
    descending: bool
    total_order: bool


def simple_comparator(comp: Any) -> SimpleComparator | None:
    if comp is None or comp.root is None or comp.root.opcode != "compare":
        return None
    root = comp.root
    if len(root.operands) != 2:
        return None
    a, b = (_param_index(o) for o in root.operands)
    if a is None or b is None or a // 2 != b // 2 or a == b:
        return None
    direction = str(root.attrs.get("direction", ""))
    if direction not in ("LT", "GT"):
        return None
    swapped = a % 2 == 1  # compare(rhs, lhs)
    descending = (direction == "GT") != swapped
    ctype = str(root.attrs.get("type", ""))
    return SimpleComparator(a // 2, descending, ctype == "TOTALORDER")


def guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a numpy failure inside a kernel (operands that contradict the attributes in an
    unverified module) into an HloRuntimeError naming the instruction, not a traceback."""
    @functools.wraps(fn)
    def wrapped(inst: Instruction, args: list[Any], ev: Any) -> Any:
        try:
            return fn(inst, args, ev)
        except (ValueError, IndexError, TypeError, np.linalg.LinAlgError) as e:
            raise HloRuntimeError(f"{inst.opcode} %{inst.name}: operands do not fit the instruction ({e})",
                                  inst.line or None, inst.column or None) from None
    return wrapped
