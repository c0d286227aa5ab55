"""Collectives on a single device (1 replica, 1 partition), and the ops that need a host.

With one participant an all-reduce/all-gather/reduce-scatter/all-to-all/broadcast returns
its operands, replica-id and partition-id are 0, and collective-permute delivers the
operand only when the pair 0->0 is listed (otherwise the output is zeros, as XLA fills
buffers nobody sends to). Host transfers (infeed/outfeed/send/recv) have no host here.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from hlotools.interpreter.numeric import zeros_of
from hlotools.interpreter.registry import kernel, unsupported
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape


def _as_shape(inst: Instruction, values: list[Any]) -> Any:
    """The operands packed the way the result shape asks: one value or a tuple of them;
    a start op whose shape is (operands, results) gets the operands twice."""
    shape = inst.shape
    if not shape.is_tuple:
        return values[0]
    n = len(shape.tuple_shapes or ())
    if n == len(values):
        return tuple(values)
    if n == 2 and len(values) >= 1:
        packed = values[0] if len(values) == 1 else tuple(values)
        return (packed, packed)
    return tuple(values) + tuple(zeros_of(s) for s in (shape.tuple_shapes or ())[len(values):])


@kernel("all-reduce", "all-reduce-start", "all-gather", "all-gather-start", "reduce-scatter",
        "all-to-all", "collective-broadcast")
def single_participant(inst: Instruction, args: list, ev: Any) -> Any:
    return _as_shape(inst, list(args))


@kernel("all-reduce-done", "all-gather-done")
def collective_done(inst: Instruction, args: list, ev: Any) -> Any:
    v = args[0]
    if isinstance(v, tuple) and not inst.shape.is_tuple and len(v) == 2:
        return v[1]
    return v


def _pairs(inst: Instruction) -> list[tuple[int, int]]:
    text = str(inst.attrs.get("source_target_pairs", ""))
    return [(int(a), int(b)) for a, b in re.findall(r"\{\s*(\d+)\s*,\s*(\d+)\s*\}", text)]


def _permuted(inst: Instruction, x: Any, shape: Shape) -> Any:
    if (0, 0) in _pairs(inst):
        return x
    return zeros_of(shape)


@kernel("collective-permute")
def collective_permute(inst: Instruction, args: list, ev: Any) -> Any:
    return _permuted(inst, args[0], inst.shape)


@kernel("collective-permute-start")
def collective_permute_start(inst: Instruction, args: list, ev: Any) -> Any:
    shapes = inst.shape.tuple_shapes or ()
    if not inst.shape.is_tuple or len(shapes) < 2:
        return _permuted(inst, args[0], inst.shape)
    result = _permuted(inst, args[0], shapes[1])
    return (args[0], result) + tuple(zeros_of(s) for s in shapes[2:])


@kernel("collective-permute-done")
def collective_permute_done(inst: Instruction, args: list, ev: Any) -> Any:
    v = args[0]
    return v[1] if isinstance(v, tuple) and not inst.shape.is_tuple else v


@kernel("replica-id", "partition-id")
def device_id(inst: Instruction, args: list, ev: Any) -> np.ndarray:
    return np.zeros((), inst.shape.dtype)


unsupported("needs a host to transfer data to or from (no host in the interpreter)",
            "infeed", "outfeed", "send", "send-done", "recv", "recv-done")
unsupported("ragged all-to-all offsets/sizes are not modelled for a single device", "ragged-all-to-all")
