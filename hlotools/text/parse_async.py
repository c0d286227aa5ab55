"""Async ops: `async-start/-update/-done` checks and the `<op>-start/-update/-done` sugar.

XLA's parser turns `custom-call-start(...)` into an `async-start` whose `calls` computation
wraps one `custom-call` (parameters for its operands, the wrapped op as root); `-update` and
`-done` become `async-update` / `async-done` inheriting that computation from the producer.
Attributes written on the sugared `-start` belong to the wrapped op, except the async ones.
The shape and producer checks follow hlo_parser.cc, with its messages.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    from hlotools.text.parse_resolve import Resolver

# Opcodes that have native start/done forms: `all-reduce-start` is an opcode of its own.
_NATIVE_ASYNC = frozenset(["all-gather", "all-reduce", "collective-permute", "copy", "recv", "send"])
_KINDS = {"-start": "async-start", "-update": "async-update", "-done": "async-done"}
ASYNC_OPS = frozenset(_KINDS.values())
ASYNC_ATTRS = frozenset(["async_execution_thread", "output_to_operand_aliasing"])
_SHAPE_FORM = ("AsyncStart and AsyncUpdate expect the shape to be in the form of ((operand0_shape, "
               "operand1_shape, ...), output_shape, ...).")


def async_sugar(opcode: str) -> tuple[str, str] | None:
    """(wrapped opcode, async opcode) when `opcode` is the sugared form, else None."""
    for suffix, kind in _KINDS.items():
        if opcode.endswith(suffix):
            base = opcode[: -len(suffix)]
            if base in OPCODES and base not in _NATIVE_ASYNC and OPCODES[base].category != "async":
                return base, kind
    return None


def resolve(b: Resolver, kind: str, wrapped: str | None, shape: Shape, operands: list[Instruction],
            attrs: dict[str, Any], pos: int) -> dict[str, Any]:
    """Check an async op and return its final attributes (with `calls` filled in)."""
    if kind != "async-done":
        ts = shape.tuple_shapes
        if ts is None or len(ts) < 2 or ts[0].tuple_shapes is None:
            raise b.error(pos, _SHAPE_FORM)
    if kind == "async-start":
        if wrapped is None:
            return attrs
        wrapped_attrs = {k: v for k, v in attrs.items() if k not in ASYNC_ATTRS}
        kept = {k: v for k, v in attrs.items() if k in ASYNC_ATTRS}
        assert shape.tuple_shapes is not None and shape.tuple_shapes[0].tuple_shapes is not None
        comp = _wrap(b, wrapped, shape.tuple_shapes[1], list(shape.tuple_shapes[0].tuple_shapes),
                     wrapped_attrs, kept.get("async_execution_thread"))
        return {"calls": comp, **kept}
    if not operands:
        raise b.error(pos, "No operand found for AsyncUpdate and AsyncDone")
    prev = operands[0]
    if prev.opcode == "async-done":
        raise b.error(pos, "AsyncUpdate and AsyncDone cannot have AsyncDone as operand.")
    out = dict(attrs)
    producer = prev if prev.opcode in ("async-start", "async-update") else None
    if producer is not None:
        calls = producer.attrs.get("calls")
        root = calls.root if calls is not None else None
        if wrapped is not None and root is not None and root.opcode != wrapped:
            raise b.error(pos, f"Expect async wrapped opcode to be {root.opcode}, but got {wrapped}")
        thread = attrs.get("async_execution_thread")
        have = _thread(producer)
        if thread is not None and thread != have:
            raise b.error(pos, f"Expect async_execution_thread to be {have}, but got {thread}")
        given = attrs.get("calls")
        if given is not None and calls is not None and given is not calls:
            raise b.error(pos, f"Expect async_wrapped_computation to be {calls.name}, but got {given.name}")
        if calls is not None:
            out["calls"] = calls
    elif wrapped is not None and "calls" not in out:
        # No producer to inherit from: rebuild the wrapped computation from the operand's shape.
        ts = prev.shape.tuple_shapes
        if ts is None or len(ts) < 2 or ts[0].tuple_shapes is None:
            raise b.error(pos, _SHAPE_FORM)
        result = shape if kind == "async-done" else ts[1]
        out["calls"] = _wrap(b, wrapped, result, list(ts[0].tuple_shapes), {}, None)
    return out


def _thread(producer: Instruction) -> str:
    start = producer
    while start.opcode == "async-update" and start.operands:
        start = start.operands[0]
    return start.attrs.get("async_execution_thread", "main")


def _wrap(b: Resolver, base: str, result: Shape, operand_shapes: list[Shape], attrs: dict[str, Any],
          thread: str | None) -> Computation:
    comp = Computation(f"async_wrapped_{base}")
    params = []
    for i, s in enumerate(operand_shapes):
        param = Instruction(f"param_{i}", "parameter", s, parameter_number=i)
        comp.add_instruction(param)
        params.append(param)
    root = Instruction(base, base, result, params, attrs)
    comp.add_instruction(root)
    comp.root = root
    if thread is not None:
        comp.execution_thread = thread
    b.register(comp)
    return comp
