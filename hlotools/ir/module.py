"""An HLO module: computations (callees before callers) and the header's attributes."""
from __future__ import annotations

from typing import Any

from hlotools.ir.attributes import ComputationLayout
from hlotools.ir.canonical import canonical_attrs, header_order
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction


class Module:
    __slots__ = ("name", "computations", "entry", "attrs", "stack_frames_text", "source_style")

    def __init__(self, name: str) -> None:
        self.name = name
        self.computations: list[Computation] = []
        self.entry: Computation | None = None
        # Header attributes in text order (entry_computation_layout, is_scheduled, ...); typed
        # values as in hlotools/ir/attributes.py.
        self.attrs: dict[str, Any] = {}
        # FileNames/FunctionNames/FileLocations/StackFrames block, verbatim (None if absent).
        self.stack_frames_text: str | None = None
        self.source_style: str | None = None  # 'short' | 'long' as detected by the parser

    def add_computation(self, comp: Computation) -> Computation:
        comp.parent = self
        self.computations.append(comp)
        return comp

    def computation(self, name: str) -> Computation | None:
        for c in self.computations:
            if c.name == name:
                return c
        return None

    def computation_post_order(self, entry_last: bool = False) -> list[Computation]:
        """Every computation after the computations it calls (XLA's MakeComputationPostOrder),
        moving one only when a caller precedes it: the module's own order otherwise.

        This is the order the printer writes (XLA printed such an order, so keeping it
        reproduces XLA's bytes, while computations passes appended still print before their
        callers) and Module.clone() copies. `entry_last` starts the walk from the entry only
        after every other computation (call-graph passes visit the entry last)."""
        roots = self.computations
        if entry_last and self.entry is not None:
            roots = [c for c in roots if c is not self.entry] + [self.entry]
        seen: set[int] = set()
        order: list[Computation] = []
        for start in roots:
            if id(start) in seen:
                continue
            seen.add(id(start))
            stack = [(start, iter(start.callees()))]
            while stack:
                comp, pending = stack[-1]
                nxt = next(pending, None)
                if nxt is None:
                    stack.pop()
                    order.append(comp)
                elif id(nxt) not in seen:
                    seen.add(id(nxt))
                    stack.append((nxt, iter(nxt.callees())))
        return order

    def clone(self) -> Module:
        """A copy to change while this module stays as it is: what parse(print(self)) builds,
        without the text.

        The copy has the canonical orders (computation_post_order, definition_order, and
        ir/canonical.py's attribute order without defaults), fresh operand, user and control
        edges in that order, and shares the immutable parts (shapes, literals, attribute
        values). Names and positions are kept; like XLA's module config the copy always has an
        entry_computation_layout (the entry's signature when the header gave none, as the
        printer derives it), and fusion computations are flagged as the parser flags them
        (called by a fusion)."""
        copy = Module(self.name)
        copy.attrs = dict(self.attrs)
        frames = self.stack_frames_text
        copy.stack_frames_text = frames.strip("\n") if frames is not None else None
        copy.source_style = self.source_style
        mapping: dict[int, Computation] = {}
        for comp in self.computation_post_order():
            new = mapping[id(comp)] = copy.add_computation(_clone_computation(comp, mapping))
            new.is_entry = comp is self.entry
        if self.entry is not None:
            copy.entry = mapping[id(self.entry)]
        for comp in copy.computations:
            for inst in comp.instructions:
                if inst.opcode == "fusion":
                    for callee in inst.called_computations():
                        callee.is_fusion_computation = True
        if "entry_computation_layout" not in copy.attrs:
            derived = _derived_entry_layout(copy.entry)
            if derived is not None:
                copy.attrs["entry_computation_layout"] = derived
        copy.attrs = header_order(copy.attrs)
        return copy

    def instruction_count(self) -> int:
        return sum(len(c.instructions) for c in self.computations)

    def __repr__(self) -> str:
        return f"<module {self.name}: {len(self.computations)} computations>"


def _clone_computation(comp: Computation, mapping: dict[int, Computation]) -> Computation:
    """A copy of `comp` whose called computations are the copies in `mapping` (callees first)."""
    new = Computation(comp.name)
    new.line, new.column = comp.line, comp.column
    thread = comp.execution_thread
    new.execution_thread = thread if thread != "main" else None  # the parser's default is None
    new.signature_text = comp.signature_text
    made: dict[int, Instruction] = {}
    for inst in comp.definition_order():
        attrs = canonical_attrs(inst)
        if attrs and inst.called_computations():
            attrs = {k: _retarget(v, mapping) for k, v in attrs.items()}
        copy = Instruction(inst.name, inst.opcode, inst.shape, [made[id(o)] for o in inst.operands], attrs,
                           literal=inst.literal, parameter_number=inst.parameter_number,
                           line=inst.line, column=inst.column)
        if inst.control_predecessors:
            copy.control_predecessors = [made[id(p)] for p in inst.control_predecessors]
        made[id(inst)] = new.add_instruction(copy)
    root = comp.root if comp.root is not None else (comp.instructions[-1] if comp.instructions else None)
    new.root = made[id(root)] if root is not None else None
    return new


def _retarget(value: Any, mapping: dict[int, Computation]) -> Any:
    if isinstance(value, Computation):
        return mapping[id(value)]
    if isinstance(value, (tuple, list)) and value and isinstance(value[0], Computation):
        return type(value)(mapping[id(c)] for c in value)
    return value


def _derived_entry_layout(entry: Computation | None) -> ComputationLayout | None:
    """The layout XLA's module config takes from the entry when the header gives none: the
    entry's shapes, missing layouts filled with the default (as the parser reads them back)."""
    if entry is None or not entry.instructions:
        return None
    root = entry.root if entry.root is not None else entry.instructions[-1]
    params = tuple(p.shape.with_default_layout() for p in entry.parameters if p is not None)
    return ComputationLayout(params, root.shape.with_default_layout(), None)
