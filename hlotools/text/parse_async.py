"""Async ops: `async-start/-update/-done` checks and the `<op>-start/-update/-done` sugar.

XLA's parser turns `custom-call-start(...)` into an `async-start` whose `calls` computation
wraps one `custom-call` (parameters for its operands, the wrapped op as root); `-update` and
`-done` become `async-update` / `async-done` inheriting that computation from the producer.
Attributes written on the sugared `-start` belong to the wrapped op, except the async ones.
The shape and producer checks follow hlo_parser.cc, with its messages.

Late binding (XLA 2026-08): a sugared start may bind fewer operands, or less of the output,
than the wrapped op has, writing `()` for what is still unbound; each sugared -update /
-done then rewrites the shared wrapped computation to the shapes it declares
(CreateAsyncWrappedComputation / UpdateAsyncWrappedComputation in hlo_parser.cc): a
parameter whose shape is incompatible takes the declared one, parameters past the end are
added (and appended to the wrapped op's operands), and an incompatible root takes the
declared result. A wrapped op of fixed arity starts with f32[1] placeholders for operands not
yet bound, and a wrapped call or fusion takes its callee's signature. The verifier then
judges the result (verifier_async.py): mismatches the text leaves are errors there.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODES, VARIADIC
from hlotools.ir.shape import Shape
from hlotools.ir.shape_inference_common import same_dims_type
from hlotools.ir.types import ELEMENT_TYPES

if TYPE_CHECKING:
    from hlotools.text.parse_resolve import Resolver

# The sugar's suffix -> the async op it stands for ("-start" -> "async-start", ...).
_KINDS = {i.async_suffix: n for n, i in OPCODES.items() if i.async_suffix}
ASYNC_OPS = frozenset(_KINDS.values())
ASYNC_ATTRS = frozenset(["async_execution_thread", "output_to_operand_aliasing"])
_SHAPE_FORM = ("AsyncStart and AsyncUpdate expect the shape to be in the form of ((operand0_shape, "
               "operand1_shape, ...), output_shape, ...).")
# XLA's stand-in for an operand of a fixed-arity wrapped op that is not bound yet.
PLACEHOLDER = Shape.array(ELEMENT_TYPES["f32"], (1,)).with_default_layout()
# Wrapped ops whose callee fixes the wrapped computation's signature.
CALLEE_KEY = {"call": "to_apply", "fusion": "calls"}


def async_sugar(opcode: str) -> tuple[str, str] | None:
    """(wrapped opcode, async opcode) when `opcode` is the sugared form, else None."""
    for suffix, kind in _KINDS.items():
        if opcode.endswith(suffix):
            base = opcode[: -len(suffix)]
            info = OPCODES.get(base)  # `all-reduce-start` is an opcode of its own (native async)
            if info is not None and not info.native_async and info.category != "async":
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
        comp = _wrap(b, wrapped, shape.tuple_shapes[1], shape.tuple_shapes[0].tuple_shapes,
                     wrapped_attrs, kept.get("async_execution_thread"), pos)
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
            if wrapped is not None:
                rebind(calls, *late_bound_shapes(kind, shape, producer))
    elif wrapped is not None and "calls" not in out:
        # No producer to inherit from: rebuild the wrapped computation from the operand's shape.
        ts = prev.shape.tuple_shapes
        if ts is None or len(ts) < 2 or ts[0].tuple_shapes is None:
            raise b.error(pos, _SHAPE_FORM)
        result = shape if kind == "async-done" else ts[1]
        out["calls"] = _wrap(b, wrapped, result, ts[0].tuple_shapes, {}, None, pos)
    return out


def late_bound_shapes(kind: str, shape: Shape, producer: Instruction) -> tuple[Shape, Sequence[Shape]]:
    """(result, operand shapes) a sugared -update/-done binds: an update its own declared
    ones; a done its shape and the operands its chain's async-start bound (as XLA does)."""
    if kind == "async-update":
        assert shape.tuple_shapes is not None and shape.tuple_shapes[0].tuple_shapes is not None
        return shape.tuple_shapes[1], shape.tuple_shapes[0].tuple_shapes
    start = chain_start(producer)
    ts = start.shape.tuple_shapes
    bound = ts[0].tuple_shapes if ts and ts[0].tuple_shapes is not None else ()
    return shape, bound


def chain_start(producer: Instruction) -> Instruction:
    """The async-start an -update chain began with (the head of the chain if none)."""
    start = producer
    while start.opcode == "async-update" and start.operands \
            and start.operands[0].opcode in ("async-start", "async-update"):
        start = start.operands[0]
    return start


def _thread(producer: Instruction) -> str:
    return chain_start(producer).attrs.get("async_execution_thread", "main")


def _wrap(b: Resolver, base: str, result: Shape, operand_shapes: Sequence[Shape], attrs: dict[str, Any],
          thread: str | None, pos: int) -> Computation:
    """The wrapped computation XLA's parser synthesises for a sugared async op, located at
    the async op, so the verifier's errors inside it point at the text that made it."""
    line, col = b.lines.locate(pos)
    comp = Computation(f"async_wrapped_{base}")
    comp.line, comp.column = line, col
    param_shapes, root_shape = initial_signature(base, result, operand_shapes, attrs)
    params = []
    for i, s in enumerate(param_shapes):
        param = Instruction(f"param_{i}", "parameter", s, parameter_number=i, line=line, column=col)
        comp.add_instruction(param)
        params.append(param)
    root = Instruction(base, base, root_shape, params, attrs, line=line, column=col)
    comp.add_instruction(root)
    comp.root = root
    if thread is not None:
        comp.execution_thread = thread
    b.register(comp)
    return comp


Signature = tuple[list[Shape], Shape]


def initial_signature(base: str, result: Shape, operand_shapes: Sequence[Shape],
                      attrs: dict[str, Any]) -> Signature:
    """(parameter shapes, root shape) of a new wrapped computation: the bound operands, then
    placeholders up to a fixed arity, the declared result; a call's or fusion's callee then
    rebinds it to its own signature."""
    arity = OPCODES[base].arity
    count = max(arity if arity != VARIADIC else 0, len(operand_shapes))
    params = [operand_shapes[i] if i < len(operand_shapes) else PLACEHOLDER for i in range(count)]
    callee = attrs.get(CALLEE_KEY.get(base, ""))
    if isinstance(callee, Computation) and callee.root is not None:
        return rebound((params, result), callee.root.shape, [p.shape for p in callee.parameters])
    return params, result


def rebound(signature: Signature, result: Shape, operand_shapes: Sequence[Shape]) -> Signature:
    """UpdateAsyncWrappedComputation on a signature: parameters and root take the given shapes
    where theirs are incompatible; operands past the last parameter are appended."""
    params = list(signature[0])
    for i, s in enumerate(operand_shapes):
        if i >= len(params):
            params.append(s)
        elif not same_dims_type(params[i], s):
            params[i] = s
    root = signature[1]
    return params, (root if same_dims_type(root, result) else result)


def rebind(comp: Computation, result: Shape, operand_shapes: Sequence[Shape]) -> None:
    """Apply `rebound` to the wrapped computation itself: new parameters come before the root
    (definition order) and are appended to its operands."""
    root = comp.root
    assert root is not None
    params, root.shape = rebound(([p.shape for p in comp.parameters], root.shape), result, operand_shapes)
    for i, s in enumerate(params):
        if i < len(comp.parameters):
            comp.parameters[i].shape = s
            continue
        param = Instruction(f"param_{i}", "parameter", s, parameter_number=i, line=root.line,
                            column=root.column)
        comp.add_instruction(param)
        comp.instructions.remove(param)
        comp.instructions.insert(comp.instructions.index(root), param)
        root.append_operand(param)
