"""The interpreter's dispatch table: opcode -> kernel.

A kernel is `fn(inst, args, ev) -> value`, where `args` are the evaluated operands
(np.ndarray for arrays, tuple for tuples, None for tokens), `ev` is the Evaluator (to call
computations: `ev.call(computation, args)`), and the value follows the same convention.
Kernels are registered with @kernel("opcode", ...); UNSUPPORTED lists opcodes the
interpreter deliberately refuses, each with its reason.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

Kernel = Callable[..., Any]
KERNELS: dict[str, Kernel] = {}
UNSUPPORTED: dict[str, str] = {}


def kernel(*opcodes: str) -> Callable[[Kernel], Kernel]:
    def register(fn: Kernel) -> Kernel:
        for op in opcodes:
            assert op not in KERNELS, f"two kernels for {op}"
            KERNELS[op] = fn
        return fn
    return register


def unsupported(reason: str, *opcodes: str) -> None:
    for op in opcodes:
        UNSUPPORTED[op] = reason
