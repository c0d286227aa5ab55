"""The numpy side of the recognised computations (hlotools/ir/patterns.py): the ufunc a combiner
folds with, and the guard that turns numpy failures inside a kernel into located errors."""
from __future__ import annotations

import functools
from collections.abc import Callable
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
