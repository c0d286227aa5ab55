"""Async syntax sugar: `<op>-start` / `<op>-update` / `<op>-done` for ops without native async forms.

XLA's parser turns `custom-call-start(...)` into an `async-start` whose `calls` computation
wraps one `custom-call` (parameters for its operands, the wrapped op as root); the `-update`
and `-done` forms become `async-update` / `async-done` sharing that computation. Attributes
written on `-start` belong to the wrapped op, except the async ones kept on the start.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    from hlotools.text.parse_build import Builder

# Opcodes that have native start/done forms: `all-reduce-start` is an opcode of its own.
_NATIVE_ASYNC = frozenset(["all-gather", "all-reduce", "collective-permute", "copy", "recv", "send"])
_KINDS = {"-start": "async-start", "-update": "async-update", "-done": "async-done"}
_ASYNC_ATTRS = frozenset(["async_execution_thread", "output_to_operand_aliasing"])


def async_sugar(opcode: str) -> tuple[str, str] | None:
    """(wrapped opcode, async opcode) when `opcode` is the sugared form, else None."""
    for suffix, kind in _KINDS.items():
        if opcode.endswith(suffix):
            base = opcode[: -len(suffix)]
            if base in OPCODES and base not in _NATIVE_ASYNC and OPCODES[base].category != "async":
                return base, kind
    return None


def desugar(builder: Builder, sugar: tuple[str, str], shape: Shape | None, operands: list[Instruction],
            attrs: dict[str, Any], pos: int) -> tuple[str, dict[str, Any]]:
    base, kind = sugar
    if shape is None:
        raise builder.error(pos, f"{base}{kind[5:]} requires an explicit shape")
    if kind != "async-start":
        prev = operands[0] if operands else None
        calls = prev.attrs.get("calls") if prev is not None and prev.opcode in ("async-start", "async-update") \
            else None
        if calls is None:  # XLA rebuilds the wrapped computation from the operand's async shape
            if prev is None:
                raise builder.error(pos, f"{kind} expects one operand")
            calls = _wrap(builder, base, prev.shape, list(_operand_shapes(builder, prev.shape, pos)), {}, None)
        wrapped = calls.root
        if wrapped is None or wrapped.opcode != base:
            raise builder.error(pos, f"expect the wrapped opcode of {kind} to be {base}")
        out = dict(attrs)
        out["calls"] = calls
        return kind, out
    tuple_shapes = shape.tuple_shapes
    if tuple_shapes is None or len(tuple_shapes) < 2:
        raise builder.error(pos, "async-start shape must be a tuple (operands, result, context...)")
    wrapped_attrs = {k: v for k, v in attrs.items() if k not in _ASYNC_ATTRS}
    kept = {k: v for k, v in attrs.items() if k in _ASYNC_ATTRS}
    comp = _wrap(builder, base, shape, [op.shape for op in operands], wrapped_attrs,
                 kept.get("async_execution_thread"))
    out: dict[str, Any] = {"calls": comp}
    out.update(kept)
    return "async-start", out


def _operand_shapes(builder: Builder, shape: Shape, pos: int) -> tuple[Shape, ...]:
    ts = shape.tuple_shapes
    if ts is None or len(ts) < 2 or ts[0].tuple_shapes is None:
        raise builder.error(pos, "expects an async operand whose shape is ((operands...), result, context...)")
    return ts[0].tuple_shapes


def _wrap(builder: Builder, base: str, shape: Shape, operand_shapes: list[Shape], attrs: dict[str, Any],
          thread: str | None) -> Computation:
    assert shape.tuple_shapes is not None
    comp = Computation(f"async_wrapped_{base}")
    params = []
    for i, s in enumerate(operand_shapes):
        param = Instruction(f"param_{i}", "parameter", s, parameter_number=i)
        comp.add_instruction(param)
        params.append(param)
    root = Instruction(base, base, shape.tuple_shapes[1], params, attrs)
    comp.add_instruction(root)
    comp.root = root
    if thread is not None:
        comp.execution_thread = thread
    builder.register(comp)
    return comp
