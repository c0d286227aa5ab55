"""Copying instructions and computations (call inlining, loop rewrites, call-graph flattening).

A clone shares the immutable parts (shape, attribute values, literal) with the original and
gets fresh operand/user edges; names are made unique by the Rewriter when the clone is added.
"""
from __future__ import annotations

from collections.abc import Callable

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.shape import Shape


def clone_instruction(inst: Instruction, operands: list[Instruction], shape: Shape | None = None,
                      attrs: dict | None = None) -> Instruction:
    """A detached copy of `inst` over `operands` (not yet in any computation)."""
    return Instruction(inst.name, inst.opcode, shape if shape is not None else inst.shape, operands,
                       dict(inst.attrs) if attrs is None else attrs, literal=inst.literal,
                       parameter_number=inst.parameter_number, line=inst.line, column=inst.column)


def clone_computation(rw: Rewriter, comp: Computation, suffix: str = "clone",
                      retarget: Callable[[Instruction, dict], dict] | None = None,
                      before: Computation | None = None) -> Computation:
    """Add a copy of `comp` to the module (named `NAME.clone`, instructions too, as XLA's Clone).

    `retarget(original, attrs)` may rewrite the copied attributes (e.g. point a call at a
    cloned callee)."""
    new = Computation(f"{comp.name}.{suffix}" if suffix else comp.name)
    new.execution_thread = comp.execution_thread
    new.is_fusion_computation = comp.is_fusion_computation
    mapping: dict[int, Instruction] = {}
    for inst in comp.post_order():
        attrs = dict(inst.attrs)
        if retarget is not None:
            attrs = retarget(inst, attrs)
        copy = clone_instruction(inst, [mapping[id(o)] for o in inst.operands], attrs=attrs)
        copy.name = rw.unique_name(f"{inst.name}.{suffix}" if suffix else inst.name)
        copy.control_predecessors = [mapping[id(p)] for p in inst.control_predecessors if id(p) in mapping]
        mapping[id(inst)] = copy
        new.add_instruction(copy)
    assert comp.root is not None
    new.root = mapping[id(comp.root)]
    # Keep every parameter, even one post_order reached only as an unused instruction.
    for p in comp.parameters:
        if p is not None and id(p) not in mapping:  # pragma: no cover - post_order visits all
            raise AssertionError(f"parameter {p.name} not cloned")
    return rw.add_computation(new, before=before)


def retarget_called_computation(rw: Rewriter, inst: Instruction, old: Computation, new: Computation) -> None:
    """Point `inst`'s uses of computation `old` at `new` (XLA's ReplaceCalledComputations).

    The one in-place attribute edit the passes make: the instruction keeps its name and
    position, and attribute values stay immutable (a fresh tuple for computation lists).
    The Rewriter has no method for it yet; this marks it changed like its own edits."""
    for key, value in list(inst.attrs.items()):
        if value is old:
            inst.attrs[key] = new
        elif isinstance(value, tuple) and any(v is old for v in value):
            inst.attrs[key] = tuple(new if v is old else v for v in value)
    rw.changed = True
