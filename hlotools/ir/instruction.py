"""HLO instructions.

Attributes live in `attrs`, an insertion-ordered dict from XLA's attribute name to a typed
value (see hlotools/ir/attributes.py for the value types). Called computations are attribute
values too, so `called_computations()` is derived, never stored twice.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from hlotools.ir.opcodes import COMPUTATION_ATTRS, COMPUTATION_LIST_ATTRS, OPCODES, OpcodeInfo
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    from hlotools.ir.computation import Computation
    from hlotools.ir.literal import Literal
    from hlotools.ir.types import ElementType

# The attributes that hold called computations (one set test tells most instructions call none).
CALLING_ATTRS = frozenset(COMPUTATION_ATTRS + COMPUTATION_LIST_ATTRS)


class Instruction:
    __slots__ = ("name", "opcode", "shape", "operands", "users", "attrs", "literal",
                 "parameter_number", "parent", "line", "column", "control_predecessors",
                 "__weakref__")

    def __init__(self, name: str, opcode: str, shape: Shape, operands: list[Instruction] | None = None,
                 attrs: dict[str, Any] | None = None, literal: Literal | None = None,
                 parameter_number: int | None = None, line: int = 0, column: int = 0) -> None:
        self.name = name
        self.opcode = opcode
        self.shape = shape
        self.operands: list[Instruction] = []
        self.users: list[Instruction] = []
        self.attrs: dict[str, Any] = attrs if attrs is not None else {}
        self.literal = literal
        self.parameter_number = parameter_number
        self.parent: Computation | None = None
        self.line = line
        self.column = column
        self.control_predecessors: list[Instruction] = []
        if operands:  # a new instruction is in no users list yet: only repeated operands matter
            ops = self.operands = list(operands)
            if len(ops) == 1:
                ops[0].users.append(self)
            else:
                added: set[int] = set()
                for op in ops:
                    if id(op) not in added:
                        added.add(id(op))
                        op.users.append(self)

    # -- graph edges (kept consistent: every operand edge has a matching user entry) --
    def append_operand(self, operand: Instruction) -> None:
        self.operands.append(operand)
        if self not in operand.users:
            operand.users.append(self)

    def replace_operand(self, index: int, new: Instruction) -> None:
        old = self.operands[index]
        self.operands[index] = new
        if old is not new and old not in self.operands:
            remove_user(old.users, self)
        if self not in new.users:
            new.users.append(self)

    def clone(self, operands: list[Instruction], shape: Shape | None = None,
              attrs: dict[str, Any] | None = None) -> Instruction:
        """A detached copy over `operands` (in no computation yet; no control edges), sharing the
        immutable parts (shape, attribute values, literal) and keeping name and position."""
        return Instruction(self.name, self.opcode, shape if shape is not None else self.shape, operands,
                           dict(self.attrs) if attrs is None else attrs, literal=self.literal,
                           parameter_number=self.parameter_number, line=self.line, column=self.column)

    def detach(self) -> None:
        """Drop all operand edges (before removing the instruction)."""
        for op in set(self.operands):
            remove_user(op.users, self)
        self.operands = []

    # -- table-driven facts ----------------------------------------------------------
    @property
    def info(self) -> OpcodeInfo:
        return OPCODES[self.opcode]

    def called_computations(self) -> list[Computation]:
        a = self.attrs
        if a.keys().isdisjoint(CALLING_ATTRS):  # most instructions: one C-level check
            return []
        out: list[Computation] = []
        for key in COMPUTATION_ATTRS:
            c = a.get(key)
            if c is not None and not isinstance(c, (str, tuple)):
                out.append(c)
        for key in COMPUTATION_LIST_ATTRS:
            cs = a.get(key)
            if cs:
                out.extend(cs)
        return out

    # -- element types (for array-shaped values: elementwise lowerings and kernels) ------
    @property
    def element_type(self) -> ElementType:
        """The result's element type; the result must not be a tuple."""
        et = self.shape.element_type
        assert et is not None, f"%{self.name} has a tuple shape"
        return et

    def operand_element_type(self, k: int = 0) -> ElementType:
        """Operand `k`'s element type; that operand must not be a tuple."""
        et = self.operands[k].shape.element_type
        assert et is not None, f"operand {k} of %{self.name} has a tuple shape"
        return et

    @property
    def is_root(self) -> bool:
        return self.parent is not None and self.parent.root is self

    def __repr__(self) -> str:
        return f"<{self.opcode} %{self.name}: {self.shape}>"


def remove_user(users: list[Instruction], inst: Instruction) -> None:
    """Remove `inst` from a users list, searching from the end: passes mostly detach recent
    users (users lists are in textual order, and rewrites walk backwards or append), so a
    widely shared operand (a constant with thousands of users) costs O(1), not O(users)."""
    for i in range(len(users) - 1, -1, -1):
        if users[i] is inst:
            del users[i]
            return


def unique(instructions: Iterable[Instruction]) -> list[Instruction]:
    """First occurrences, in order: an instruction used twice as an operand (add(x, x)) is
    one value. Instructions compare by identity, so this is one dict pass."""
    return list(dict.fromkeys(instructions))


def reachable(starts: Iterable[Instruction],
              successors: Callable[[Instruction], Iterable[Instruction]]) -> Iterator[Instruction]:
    """Each instruction reachable from `starts` through `successors` (operands, users, or a
    filter of them), once, depth-first. A worklist, not recursion: HLO chains run to
    thousands of instructions. `successors(inst)` is asked after `inst` is yielded, so the
    caller may stop the walk early by returning."""
    seen: set[int] = set()
    stack = list(starts)
    while stack:
        inst = stack.pop()
        if id(inst) in seen:
            continue
        seen.add(id(inst))
        yield inst
        stack.extend(successors(inst))
