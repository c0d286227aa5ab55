"""The interpreter's dispatch table: opcode -> kernel.

A kernel is `fn(inst, args, ev) -> value`, where `args` are the evaluated operands
(np.ndarray for arrays, tuple for tuples, None for tokens), `ev` is the Evaluator (to call
computations: `ev.call(computation, args)`), and the value follows the same convention.
Kernels are registered with @kernel("opcode", ...); UNSUPPORTED lists opcodes the
interpreter deliberately refuses, each with its reason.

Every kernel is registered guarded: a Python or numpy failure inside it (operands that
contradict the attributes in an unverified module) becomes an HloRuntimeError naming the
instruction, so each caller (the evaluator, constant folding) sees HloErrors only, and
anything else escaping a kernel is a bug of the interpreter.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Protocol

from hlotools.errors import HloRuntimeError
from hlotools.ir.dispatch import Table
from hlotools.ir.instruction import Instruction

if TYPE_CHECKING:
    from hlotools.interpreter.evaluator import Evaluator


class Kernel(Protocol):
    """fn(inst, args, ev) -> value (positional: kernels name their parameters freely)."""

    def __call__(self, inst: Instruction, args: list[Any], ev: Evaluator, /) -> Any: ...


# What bad operand data makes numpy and Python raise inside a kernel (LinAlgError is a
# ValueError). The set the evaluator always caught around every kernel call.
_BAD_DATA = (ValueError, TypeError, IndexError, KeyError, AttributeError, OverflowError)


def _guarded(fn: Kernel) -> Kernel:
    """`fn`, raising HloRuntimeError (the original chained, for --debug) where it raised one
    of _BAD_DATA."""
    @functools.wraps(fn)
    def guarded(inst: Instruction, args: list[Any], ev: Evaluator) -> Any:
        try:
            return fn(inst, args, ev)
        except _BAD_DATA as e:
            raise HloRuntimeError(f"{inst.opcode} %{inst.name}: cannot evaluate: {type(e).__name__}: {e}",
                                  inst.line or None, inst.column or None) from e
    return guarded


KERNELS: Table[Kernel] = Table("kernel", wrap=_guarded)
kernel = KERNELS.register
UNSUPPORTED: dict[str, str] = {}


def unsupported(reason: str, *opcodes: str) -> None:
    for op in opcodes:
        UNSUPPORTED[op] = reason
