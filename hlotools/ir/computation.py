"""Computations: an ordered list of instructions (textual order is a topological order)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hlotools.ir.instruction import CALLING_ATTRS, Instruction

if TYPE_CHECKING:
    from hlotools.ir.module import Module
    from hlotools.ir.shape import Shape


class Computation:
    __slots__ = ("name", "instructions", "root", "parameters", "is_entry", "parent",
                 "execution_thread", "is_fusion_computation", "line", "column", "signature_text",
                 "__weakref__")

    def __init__(self, name: str) -> None:
        self.name = name
        self.instructions: list[Instruction] = []
        self.root: Instruction | None = None
        self.parameters: list[Instruction] = []  # indexed by parameter_number
        self.is_entry = False
        self.parent: Module | None = None
        self.execution_thread: str | None = None
        self.is_fusion_computation = False
        self.line = 0
        self.column = 0
        self.signature_text: str | None = None

    def add_instruction(self, inst: Instruction) -> Instruction:
        inst.parent = self
        self.instructions.append(inst)
        if inst.opcode == "parameter":
            n = inst.parameter_number or 0
            while len(self.parameters) <= n:
                self.parameters.append(None)  # type: ignore[arg-type]
            self.parameters[n] = inst
        return inst

    @property
    def parameter_shapes(self) -> list:
        return [p.shape for p in self.parameters]

    @property
    def result_shape(self) -> Shape:
        assert self.root is not None
        return self.root.shape

    def instruction_by_name(self, name: str) -> Instruction | None:
        for inst in self.instructions:
            if inst.name == name:
                return inst
        return None

    def post_order(self) -> list[Instruction]:
        """Operands (and control predecessors) before users; stable w.r.t. textual order."""
        fast = self._textual_post_order()
        if fast is not None:
            return fast
        seen: set[int] = set()
        order: list[Instruction] = []
        for start in self.instructions:
            if id(start) in seen:
                continue
            stack: list[tuple[Instruction, int]] = [(start, 0)]
            while stack:
                inst, i = stack.pop()
                deps = inst.operands + inst.control_predecessors
                if i == 0 and id(inst) in seen:
                    continue
                if i < len(deps):
                    stack.append((inst, i + 1))
                    d = deps[i]
                    if id(d) not in seen and d.parent is self:
                        stack.append((d, 0))
                    continue
                if id(inst) not in seen:
                    seen.add(id(inst))
                    order.append(inst)
        return order

    def definition_order(self) -> list[Instruction]:
        """The canonical order the printer writes and Module.clone() copies: the computation's
        own order when every operand and control predecessor comes before its users (always,
        for parsed text), otherwise post_order() (the parser wants definitions first)."""
        insts = self.instructions
        seen: set[int] = set()
        add = seen.add
        for inst in insts:
            for op in inst.operands:
                if id(op) not in seen:
                    return self.post_order()
            if inst.control_predecessors and any(id(p) not in seen for p in inst.control_predecessors):
                return self.post_order()
            add(id(inst))
        return insts

    def clone(self, name: str | None = None, *,
              attrs: Callable[[Instruction], dict[str, Any]] | None = None,
              rename: Callable[[str], str] | None = None) -> Computation:
        """A detached copy (in no module) in definition_order over fresh operand, user and control
        edges, with this computation's thread and fusion flag. `attrs(inst)` gives each copy's
        attributes (default: a copy of inst's; point calls at cloned callees there), `rename`
        its name (default: kept)."""
        new = Computation(self.name if name is None else name)
        new.execution_thread = self.execution_thread
        new.is_fusion_computation = self.is_fusion_computation
        made: dict[int, Instruction] = {}
        for inst in self.definition_order():
            copy = inst.clone([made[id(o)] for o in inst.operands], attrs=None if attrs is None else attrs(inst))
            if rename is not None:
                copy.name = rename(inst.name)
            if inst.control_predecessors:
                copy.control_predecessors = [made[id(p)] for p in inst.control_predecessors if id(p) in made]
            made[id(inst)] = new.add_instruction(copy)
        root = self.root if self.root is not None else (self.instructions[-1] if self.instructions else None)
        new.root = made[id(root)] if root is not None else None
        return new

    def callees(self) -> list[Computation]:
        """The computations this one's instructions call, in call order (repeats kept)."""
        out: list[Computation] = []
        for inst in self.instructions:
            # most instructions call nothing: the attribute test inline, not a call per instruction
            # (module walks ask this of every instruction: ~140,000 calls in a training step's -O2)
            if not inst.attrs.keys().isdisjoint(CALLING_ATTRS):
                out.extend(inst.called_computations())
        return out

    def _textual_post_order(self) -> list[Instruction] | None:
        """The textual order when it already is a post-order (every operand and control
        predecessor of this computation comes earlier, no duplicates) — what the depth-first
        walk below returns then, without its stack; None when the walk is needed."""
        seen: set[int] = set()
        add = seen.add
        for inst in self.instructions:
            for d in inst.operands:
                if id(d) not in seen and d.parent is self:
                    return None
            if inst.control_predecessors:
                for d in inst.control_predecessors:
                    if id(d) not in seen and d.parent is self:
                        return None
            if id(inst) in seen:
                return None
            add(id(inst))
        return list(self.instructions)

    def __repr__(self) -> str:
        return f"<computation {self.name}: {len(self.instructions)} instructions>"
