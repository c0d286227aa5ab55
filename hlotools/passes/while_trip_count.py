"""Proving small trip counts of while loops (the part of XLA's ComputeWhileLoopTripCount the
while-loop simplifier needs: is it 0, 1, or "unknown / more").

The loop state elements the condition reads are closed under the body's dependencies; if all
of them start as constants, the condition and those parts of the body are evaluated on numpy
scalars, at most twice. Anything outside a small, exact scalar op set (integer/pred arithmetic
and comparisons, float compares and conversions that cannot round differently) gives up, so a
returned count is a proof, not a guess.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction, reachable
from hlotools.ir.opcodes import REDUCERS

# Integer/pred binary ops numpy computes exactly: the reducers exact on integers, and subtract.
_BINARY = {op: getattr(np, r.ufunc) for op, r in REDUCERS.items() if r.exact_for_ints} | {"subtract": np.subtract}
_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
            "GT": np.greater, "GE": np.greater_equal}
_INT_KINDS = ("signed", "unsigned", "pred")


class Unknown(Exception):
    """The value cannot be computed exactly by this evaluator."""


WHOLE = -1  # the state key of a loop whose state is not a tuple (the parameter itself)


def parameter_indices(comp: Computation, roots: list[Instruction]) -> set[int] | None:
    """Tuple indices of `comp`'s parameter 0 that `roots` depend on (None: a tuple parameter
    used other than by get-tuple-element); {WHOLE} for a non-tuple parameter."""
    param = comp.parameters[0] if comp.parameters else None

    def reads_param(inst: Instruction) -> bool:
        return inst is param or (inst.opcode == "get-tuple-element" and inst.operands[0] is param)

    out: set[int] = set()
    for inst in reachable(roots, lambda i: () if reads_param(i) else i.operands):
        if inst is param:
            if param.shape.is_tuple:
                return None
            out.add(WHOLE)
        elif reads_param(inst):
            out.add(int(inst.attrs["index"]))
    return out


def evaluate(inst: Instruction, state: dict[int, Any], memo: dict[int, Any] | None = None) -> Any:
    """The value of `inst`, reading parameter-0 tuple elements from `state` (index -> value)."""
    memo = {} if memo is None else memo
    stack = [(inst, False)]
    while stack:  # iterative post-order: conditions can be long chains
        cur, done = stack.pop()
        if id(cur) in memo:
            continue
        if done:
            memo[id(cur)] = _eval_one(cur, state, memo)
            continue
        stack.append((cur, True))
        if not _reads_parameter(cur):
            stack.extend((o, False) for o in cur.operands)
    return memo[id(inst)]


def _reads_parameter(inst: Instruction) -> bool:
    return inst.opcode == "parameter" or (inst.opcode == "get-tuple-element" and inst.operands[0].opcode == "parameter")


def _eval_one(inst: Instruction, state: dict[int, Any], memo: dict[int, Any]) -> Any:
    op = inst.opcode
    if _reads_parameter(inst):
        index = WHOLE if op == "parameter" else int(inst.attrs["index"])
        if index not in state:
            raise Unknown(inst.name)
        return state[index]
    shape = inst.shape
    if shape.is_tuple or shape.dims or shape.element_type is None or shape.element_type.dtype is None:
        raise Unknown(inst.name)
    kind = shape.element_type.kind
    dtype = shape.element_type.dtype
    args = [memo[id(o)] for o in inst.operands]
    with np.errstate(all="ignore"):
        if op == "constant":
            if inst.literal is None or inst.literal.elided or inst.literal.array is None:
                raise Unknown(inst.name)
            return np.asarray(inst.literal.array, dtype=dtype).reshape(())
        if op in ("copy", "bitcast") or (op == "reshape" and not inst.operands[0].shape.dims):
            return args[0]
        if op in _BINARY and kind in _INT_KINDS:
            return np.asarray(_BINARY[op](args[0], args[1]), dtype=dtype)
        if op == "compare":
            return _compare(inst, args)
        if op == "not" and kind in _INT_KINDS:
            return np.asarray(np.logical_not(args[0]) if kind == "pred" else np.invert(args[0]), dtype=dtype)
        if op == "negate" and kind in ("signed", "unsigned"):
            return np.asarray(np.negative(args[0]), dtype=dtype)
        if op == "select":
            return np.asarray(args[1] if bool(args[0]) else args[2], dtype=dtype)
        if op == "convert":
            return _convert(inst, args[0])
    raise Unknown(inst.name)


def _compare(inst: Instruction, args: list[Any]) -> Any:
    direction = str(inst.attrs.get("direction", ""))
    fn = _COMPARE.get(direction)
    source = inst.operands[0].shape.element_type
    if fn is None or source is None:
        raise Unknown(inst.name)
    if source.kind == "float" and str(inst.attrs.get("type", "FLOAT")) not in ("FLOAT", "PARTIALORDER"):
        raise Unknown(inst.name)  # total order differs on NaN and -0: not worth modelling here
    return np.asarray(fn(args[0], args[1]), dtype=np.bool_)


def _convert(inst: Instruction, value: Any) -> Any:
    src = inst.operands[0].shape.element_type
    dst = inst.shape.element_type
    assert src is not None and dst is not None and dst.dtype is not None
    if dst.kind == "pred":
        return np.asarray(value != 0, dtype=np.bool_)
    if src.kind in _INT_KINDS and dst.kind in _INT_KINDS:
        return np.asarray(value).astype(dst.dtype)  # two's-complement wrap, as XLA
    if src.kind in _INT_KINDS and dst.kind == "float":
        out = np.asarray(value).astype(dst.dtype)
        if int(out.astype(np.float64)) == int(value):  # exactly representable: no rounding mode involved
            return out
    raise Unknown(inst.name)


def init_values(init: Instruction, indices: set[int]) -> dict[int, Any] | None:
    """Constant values of the init tuple's elements `indices` (None when not all constant)."""
    values: dict[int, Any] = {}
    for index in indices:
        if index == WHOLE:
            if not _constant_expression(init):
                return None
            try:
                values[index] = evaluate(init, {})
            except Unknown:
                return None
        elif init.opcode == "tuple":
            element = init.operands[index]
            try:
                values[index] = evaluate(element, {}) if _constant_expression(element) else None
            except Unknown:
                return None
            if values[index] is None:
                return None
        elif init.opcode == "constant" and init.literal is not None and init.literal.elements is not None:
            lit = init.literal.elements[index]
            if lit.elided or lit.array is None or lit.shape.dims:
                return None
            values[index] = np.asarray(lit.array).reshape(())
        else:
            return None
    return values


def _constant_expression(inst: Instruction) -> bool:
    stack, seen = [inst], set()
    while stack:
        cur = stack.pop()
        if id(cur) in seen:
            continue
        seen.add(id(cur))
        if cur.opcode in ("parameter", "get-tuple-element") or cur.shape.is_tuple:
            return False
        stack.extend(cur.operands)
    return True


def small_trip_count(while_op: Instruction) -> int | None:
    """0 or 1 when provable, else None (unknown or at least 2)."""
    cond, body = while_op.attrs.get("condition"), while_op.attrs.get("body")
    if not isinstance(cond, Computation) or not isinstance(body, Computation):
        return None
    if cond.root is None or body.root is None:
        return None
    tuple_state = while_op.shape.is_tuple
    if tuple_state and body.root.opcode != "tuple":
        return None

    body_root: Instruction = body.root

    def next_value(i: int) -> Instruction:
        return body_root.operands[i] if tuple_state else body_root

    indices = parameter_indices(cond, [cond.root])
    if indices is None:
        return None
    while True:  # close the state under the body's dependencies
        needed = parameter_indices(body, [next_value(i) for i in indices])
        if needed is None:
            return None
        if needed <= indices:
            break
        indices |= needed
    state = init_values(while_op.operands[0], indices)
    if state is None:
        return None
    try:
        if not bool(evaluate(cond.root, state)):
            return 0
        memo: dict[int, Any] = {}
        state = {i: evaluate(next_value(i), state, memo) for i in indices}
        if not bool(evaluate(cond.root, state)):
            return 1
    except Unknown:
        return None
    return None
