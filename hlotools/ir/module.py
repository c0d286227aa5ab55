"""An HLO module: computations (callees before callers) and the header's attributes."""
from __future__ import annotations

from typing import Any

from hlotools.ir.attributes import ComputationLayout
from hlotools.ir.canonical import canonical_attrs, header_order
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import COMPUTATION_ATTRS, COMPUTATION_LIST_ATTRS


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
            new = comp.clone(attrs=lambda inst: _called(canonical_attrs(inst), mapping))
            new.line, new.column, new.signature_text = comp.line, comp.column, comp.signature_text
            new.execution_thread = comp.execution_thread if comp.execution_thread != "main" else None
            new.is_fusion_computation = False  # set below, as the parser does
            new.is_entry = comp is self.entry
            mapping[id(comp)] = copy.add_computation(new)
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


def _called(attrs: dict[str, Any], mapping: dict[int, Computation]) -> dict[str, Any]:
    """`attrs` with the called computations replaced by their copies in `mapping`."""
    if not attrs or _ANY_COMPUTATION_ATTR.isdisjoint(attrs):
        return attrs
    return {k: _retarget(v, mapping) for k, v in attrs.items()}


def _retarget(value: Any, mapping: dict[int, Computation]) -> Any:
    if isinstance(value, Computation):
        return mapping[id(value)]
    if isinstance(value, (tuple, list)) and value and isinstance(value[0], Computation):
        return type(value)(mapping[id(c)] for c in value)
    return value


_ANY_COMPUTATION_ATTR = frozenset(COMPUTATION_ATTRS) | frozenset(COMPUTATION_LIST_ATTRS)


def _derived_entry_layout(entry: Computation | None) -> ComputationLayout | None:
    """The layout XLA's module config takes from the entry when the header gives none: the
    entry's shapes, missing layouts filled with the default (as the parser reads them back)."""
    if entry is None or not entry.instructions:
        return None
    root = entry.root if entry.root is not None else entry.instructions[-1]
    params = tuple(p.shape.with_default_layout() for p in entry.parameters if p is not None)
    return ComputationLayout(params, root.shape.with_default_layout(), None)
