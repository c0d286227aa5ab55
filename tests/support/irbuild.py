"""Tiny hand-built IR helpers for shape-inference and verifier tests (no parser needed)."""
from __future__ import annotations

from typing import Any

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape
from hlotools.ir.shape_text import parse_shape_text


def S(text: str) -> Shape:
    """A Shape from its text (default layouts filled in)."""
    return parse_shape_text(text)[0]


def param(shape: str, number: int = 0, name: str | None = None) -> Instruction:
    return Instruction(name or f"p{number}", "parameter", S(shape), parameter_number=number)


def inst(opcode: str, operands: list[Instruction], shape: str | None = None, name: str = "x",
         **attrs: Any) -> Instruction:
    return Instruction(name, opcode, S(shape) if shape else None, operands,  # type: ignore[arg-type]
                       dict(attrs))


def computation(name: str, param_shapes: list[str], root_opcode: str | None = "add",
                root_shape: str | None = None, **attrs: Any) -> Computation:
    """A computation of parameters and one root (`root_opcode` over the parameters), or the
    first parameter as root when root_opcode is None."""
    comp = Computation(name)
    params = [comp.add_instruction(param(s, i, f"{name}_p{i}")) for i, s in enumerate(param_shapes)]
    if root_opcode is None:
        comp.root = params[0]
        return comp
    shape = root_shape or param_shapes[0]
    root = comp.add_instruction(inst(root_opcode, params, shape, f"{name}_root", **attrs))
    comp.root = root
    return comp


def module_of(entry: Computation, *others: Computation) -> Module:
    m = Module("m")
    for c in others:
        m.add_computation(c)
    m.add_computation(entry)
    entry.is_entry = True
    m.entry = entry
    return m


def entry_with(instrs: list[Instruction], name: str = "main") -> Computation:
    """A computation holding `instrs` (operands first, in order); the last one is ROOT."""
    comp = Computation(name)
    for i in instrs:
        comp.add_instruction(i)
    comp.root = instrs[-1]
    return comp
