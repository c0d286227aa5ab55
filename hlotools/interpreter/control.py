"""Control flow and calls: while, conditional, call, fusion, map, and the async wrappers
(async-start/update/done, copy-start/done) which run synchronously.

custom-call is not here: its targets live with the other library-call kernels.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from hlotools.errors import HloRuntimeError
from hlotools.interpreter.numeric import zeros_of
from hlotools.interpreter.registry import kernel, unsupported
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction


def _computation(inst: Instruction, attr: str) -> Computation:
    comp = inst.attrs.get(attr)
    if not isinstance(comp, Computation):
        raise HloRuntimeError(f"{inst.opcode} needs a computation in '{attr}'")
    return comp


@kernel("while")
def while_(inst: Instruction, args: list, ev: Any) -> Any:
    cond = _computation(inst, "condition")
    body = _computation(inst, "body")
    state = args[0]
    limit = ev.max_while_iterations
    count = 0
    while bool(np.asarray(ev.call(cond, [state]))):
        if limit is not None and count >= limit:
            raise HloRuntimeError(f"while loop ran more than {limit} iterations")
        state = ev.call(body, [state])
        count += 1
    return state


@kernel("conditional")
def conditional(inst: Instruction, args: list, ev: Any) -> Any:
    """pred index: true -> true_computation (branch 0); s32 index out of [0, N) -> last branch."""
    index = np.asarray(args[0])
    branches = inst.attrs.get("branch_computations")
    if branches:
        n = len(branches)
        b = int(index.astype(np.int64))
        if not 0 <= b < n:
            b = n - 1
        comp = branches[b]
    else:
        b = 0 if bool(index) else 1
        comp = _computation(inst, "true_computation" if b == 0 else "false_computation")
    if 1 + b >= len(args):
        raise HloRuntimeError(f"conditional has no operand for branch {b}")
    return ev.call(comp, [args[1 + b]])


@kernel("call")
def call(inst: Instruction, args: list, ev: Any) -> Any:
    return ev.call(_computation(inst, "to_apply"), args)


@kernel("fusion")
def fusion(inst: Instruction, args: list, ev: Any) -> Any:
    """Semantically a call; the kind is a codegen hint."""
    return ev.call(_computation(inst, "calls"), args)


@kernel("map")
def map_(inst: Instruction, args: list, ev: Any) -> Any:
    comp = _computation(inst, "to_apply")
    out = ev.apply(comp, [np.asarray(a) for a in args])[0]
    return np.broadcast_to(out, inst.shape.dims)


@kernel("async-start")
def async_start(inst: Instruction, args: list, ev: Any) -> tuple:
    """Run the wrapped computation now; the value is ((operands...), result, context...)."""
    comp = _computation(inst, "calls")
    result = ev.call(comp, args)
    shapes = inst.shape.tuple_shapes or ()
    if not inst.shape.is_tuple or len(shapes) < 2:
        raise HloRuntimeError("async-start must have a ((operands), result, ...) tuple shape")
    context = tuple(zeros_of(s) for s in shapes[2:])
    return (tuple(args), result) + context


@kernel("async-update")
def async_update(inst: Instruction, args: list, ev: Any) -> Any:
    return args[0]


@kernel("async-done")
def async_done(inst: Instruction, args: list, ev: Any) -> Any:
    state = args[0]
    if not isinstance(state, tuple) or len(state) < 2:
        raise HloRuntimeError("async-done operand is not an async-start value")
    return state[1]


@kernel("copy-start")
def copy_start(inst: Instruction, args: list, ev: Any) -> tuple:
    """(destination, source, context): the copy has already happened."""
    shapes = inst.shape.tuple_shapes or ()
    context = tuple(zeros_of(s) for s in shapes[2:])
    return (args[0], args[0]) + context


@kernel("copy-done")
def copy_done(inst: Instruction, args: list, ev: Any) -> Any:
    return args[0][0]


@kernel("scan")
def scan(inst: Instruction, args: list, ev: Any) -> tuple:
    """Sequential scan along dimensions[0]: to_apply(input slices..., carries...) returns
    (output slices..., new carries...); the result is (stacked outputs..., final carries...).
    Checked against XLA CPU on the corpus scan modules (parameter order = operand order)."""
    comp = _computation(inst, "to_apply")
    num_carries = int(inst.attrs.get("num_carries", 0))
    n_in = len(args) - num_carries
    inputs = [np.asarray(a) for a in args[:n_in]]
    carries = list(args[n_in:])
    dim = int(inst.attrs.get("dimensions", (0,))[0])
    shapes = inst.shape.tuple_shapes or ()
    n_out = len(shapes) - num_carries
    length = inputs[0].shape[dim] if inputs else shapes[0].dims[dim]
    steps = range(length - 1, -1, -1) if inst.attrs.get("is_reverse") else range(length)
    outs = [np.zeros(s.dims, s.dtype) for s in shapes[:n_out]]
    for i in steps:
        r = ev.call(comp, [np.take(x, i, axis=dim) for x in inputs] + carries)
        values = list(r) if isinstance(r, tuple) else [r]
        for o, v in zip(outs, values[:n_out]):
            index: list[slice | int] = [slice(None)] * o.ndim
            index[dim] = i
            o[tuple(index)] = v
        carries = values[n_out:]
    return tuple(outs) + tuple(carries)


unsupported("dynamic (bounded) shapes run padded: hlotools.evaluate and hlo-run apply the dynamic padder first",
            "dynamic-reshape", "set-dimension-size")
