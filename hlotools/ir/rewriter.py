"""The only way passes mutate the IR.

Every edit keeps the invariants the verifier checks: operand edges have matching user
entries, roots stay valid, instruction names stay unique in the module, textual order stays a
topological order. Removal is batched (`remove_instructions`) so DCE-like passes stay linear.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.literal import Literal
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape


def _stem(name: str) -> str:
    """`name` without a `.N` suffix (N decimal digits; a name that would be left empty stays
    whole): what the unique names count from. (rpartition, not a regular expression: fusion
    asks for ~40,000 names in a 24-layer training step)"""
    head, dot, tail = name.rpartition(".")
    return head if dot and head and tail.isdecimal() else name


class Rewriter:
    """Edits one module; create one per pass run (it caches the module's name set)."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self._names: set[str] | None = None
        self._counters: dict[str, int] = {}
        self._deferred: dict[int, dict[int, list[Instruction]]] = {}
        # Instructions whose name another took (take_name): their removal keeps the name reserved.
        # Held, not just their ids: a freed one's id comes back as a new instruction's, whose
        # removal then kept its name too (names, and so outputs, depended on the allocator).
        self._name_taken: dict[int, Instruction] = {}
        self.changed = False

    # -- names -----------------------------------------------------------------------
    def _name_set(self) -> set[str]:
        if self._names is None:
            self._names = {i.name for c in self.module.computations for i in c.instructions}
            self._names.update(c.name for c in self.module.computations)
        return self._names

    def unique_name(self, base: str) -> str:
        """`base` if free, else `stem.N` with the next free N (XLA's naming scheme)."""
        names = self._names if self._names is not None else self._name_set()
        if base not in names:
            names.add(base)
            return base
        stem = _stem(base)
        n = self._counters.get(stem, 0)
        while True:
            n += 1
            cand = f"{stem}.{n}"
            if cand not in names:
                self._counters[stem] = n
                names.add(cand)
                return cand

    # -- instructions ------------------------------------------------------------------
    def add_instruction(self, comp: Computation, inst: Instruction, before: Instruction | None = None,
                        name: str | None = None) -> Instruction:
        """Insert `inst` (operands already set) before `before`, or at the end of `comp`."""
        inst.name = self.unique_name(name or inst.name or inst.opcode)
        inst.parent = comp
        if before is None:
            comp.instructions.append(inst)
        else:
            comp.instructions.insert(comp.instructions.index(before), inst)
        self.changed = True
        return inst

    def add_instruction_deferred(self, comp: Computation, inst: Instruction, before: Instruction,
                                 name: str | None = None) -> Instruction:
        """Like add_instruction, but the list position is fixed up later by `flush_deferred(comp)`
        in one linear sweep, so a pass making many insertions stays linear (no list.index per
        insertion). Until the flush, `inst` is in the graph (operands/users) but not in
        `comp.instructions`; `before` may itself be a deferred instruction."""
        inst.name = self.unique_name(name or inst.name or inst.opcode)
        inst.parent = comp
        self._deferred.setdefault(id(comp), {}).setdefault(id(before), []).append(inst)
        self.changed = True
        return inst

    def flush_deferred(self, comp: Computation) -> None:
        """Place the deferred instructions of `comp` right before their anchors (in insertion order)."""
        pending = self._deferred.pop(id(comp), None)
        if not pending:
            return
        out: list[Instruction] = []

        def emit(inst: Instruction) -> None:
            stack: list[tuple[Instruction, int]] = [(inst, 0)]
            while stack:
                cur, i = stack.pop()
                before_cur = pending.get(id(cur), ())
                if i < len(before_cur):
                    stack.append((cur, i + 1))
                    stack.append((before_cur[i], 0))
                else:
                    out.append(cur)

        for inst in comp.instructions:
            if id(inst) in pending:
                emit(inst)
            else:  # nothing deferred before it (most instructions): no walk
                out.append(inst)
        comp.instructions = out

    def take_name(self, inst: Instruction, old: Instruction) -> None:
        """`inst` takes over the name of `old`, which the caller is removing: XLA's
        ReplaceInstruction keeps the old name when the opcodes match, so names stay stable
        across passes. The name stays reserved when `old` is removed."""
        if inst is old or inst.name == old.name:
            return
        names = self._name_set()
        names.discard(inst.name)
        inst.name = old.name
        self._name_taken[id(old)] = old
        self.changed = True

    def detach(self, inst: Instruction) -> None:
        """Drop the operand edges of an instruction that a later batched `remove_instructions`
        will delete, so users lists are exact in between (passes that count users need that)."""
        inst.detach()
        self.changed = True

    def new_instruction(self, comp: Computation, opcode: str, shape: Shape, operands: list[Instruction],
                        attrs: dict[str, Any] | None = None, before: Instruction | None = None,
                        name: str | None = None, literal: Literal | None = None,
                        parameter_number: int | None = None) -> Instruction:
        inst = Instruction(name or opcode, opcode, shape, operands, attrs, literal, parameter_number)
        return self.add_instruction(comp, inst, before=before, name=name or opcode)

    def replace_all_uses_with(self, old: Instruction, new: Instruction) -> None:
        """Point every user of `old` (and the computation root) at `new`."""
        if old is new:
            return
        for user in list(old.users):
            if user is new:
                continue
            user.operands = [new if o is old else o for o in user.operands]
            old.users.remove(user)
            if user not in new.users:
                new.users.append(user)
        comp = old.parent
        if comp is not None and comp.root is old:
            comp.root = new
        self.changed = True

    def replace_all_uses_batched(self, comp: Computation, replacements: dict[int, Instruction]) -> None:
        """`replace_all_uses_with` for many pairs at once (id(old) -> new), in one linear sweep.

        One RAUW costs O(users of new) (the duplicate-user check), so merging thousands of
        values into one representative (CSE of a constant used in every layer) is quadratic
        one by one. Chains (a -> b, b -> c) resolve to the end. Afterwards the olds are used
        only by other olds (whose operands are left alone: they are about to be removed together,
        and detaching them from a representative with thousands of users would be quadratic)."""
        if not replacements:
            return

        def resolve(inst: Instruction) -> Instruction:
            while id(inst) in replacements:
                inst = replacements[id(inst)]
            return inst

        user_ids: dict[int, set[int]] = {}
        olds: dict[int, Instruction] = {}
        for inst in comp.instructions:
            if id(inst) in replacements or not any(id(o) in replacements for o in inst.operands):
                continue
            for o in inst.operands:
                if id(o) in replacements:
                    olds[id(o)] = o
            inst.operands = [resolve(o) for o in inst.operands]
            for o in inst.operands:
                seen = user_ids.get(id(o))
                if seen is None:
                    seen = user_ids[id(o)] = {id(u) for u in o.users}
                if id(inst) not in seen:
                    seen.add(id(inst))
                    o.users.append(inst)
        for old in olds.values():
            old.users = [u for u in old.users if any(o is old for o in u.operands)]
        if comp.root is not None and id(comp.root) in replacements:
            comp.root = resolve(comp.root)
        self.changed = True

    def replace_operand(self, user: Instruction, index: int, new: Instruction) -> None:
        user.replace_operand(index, new)
        self.changed = True

    def remove_instructions(self, comp: Computation, dead: Iterable[Instruction]) -> int:
        """Remove instructions that have no users (other than each other) in one linear sweep."""
        dead_ids = {id(i) for i in dead}
        if not dead_ids:
            return 0
        for inst in comp.instructions:
            if id(inst) in dead_ids:
                assert inst is not comp.root, f"cannot remove the root {inst.name}"
                live_users = [u for u in inst.users if id(u) not in dead_ids]
                assert not live_users, f"{inst.name} still has users {[u.name for u in live_users]}"
        # Drop the dead from their operands' users lists: one filter per operand, not a
        # list.remove per edge (that is quadratic when many dead users share one operand).
        operands: dict[int, Instruction] = {}
        for inst in comp.instructions:
            if id(inst) in dead_ids:
                for op in inst.operands:
                    operands[id(op)] = op
                inst.operands = []
                inst.parent = None
                if self._names is not None and id(inst) not in self._name_taken:
                    self._names.discard(inst.name)
        for op in operands.values():
            op.users = [u for u in op.users if id(u) not in dead_ids]
        before = len(comp.instructions)
        comp.instructions = [i for i in comp.instructions if id(i) not in dead_ids]
        for inst in comp.instructions:
            if inst.control_predecessors:
                inst.control_predecessors = [p for p in inst.control_predecessors if id(p) not in dead_ids]
        self.changed = True
        return before - len(comp.instructions)

    def set_root(self, comp: Computation, inst: Instruction) -> None:
        comp.root = inst
        self.changed = True

    def set_instruction_order(self, comp: Computation, order: list[Instruction]) -> None:
        """Reorder `comp` to `order`, a permutation of its instructions with operands first
        (scheduling; passes that placed new instructions out of order)."""
        if len(order) != len(comp.instructions) or {id(i) for i in order} != {id(i) for i in comp.instructions}:
            raise AssertionError(f"new order of {comp.name} is not a permutation of its instructions")
        if any(a is not b for a, b in zip(order, comp.instructions)):
            comp.instructions = list(order)
            self.changed = True

    def set_shape(self, inst: Instruction, shape: Shape) -> None:
        """Give `inst` a new shape of the same dims and type (layout assignment)."""
        if inst.shape != shape:
            inst.shape = shape
            self.changed = True

    def set_module_attr(self, name: str, value: object) -> None:
        """Set a module header attribute (is_scheduled, entry_computation_layout, ...)."""
        if self.module.attrs.get(name) != value or name not in self.module.attrs:
            self.module.attrs[name] = value
            self.changed = True

    # -- computations --------------------------------------------------------------------
    def add_computation(self, comp: Computation, before: Computation | None = None) -> Computation:
        comp.name = self.unique_name(comp.name)
        comp.parent = self.module
        comps = self.module.computations
        comps.insert(comps.index(before) if before is not None else len(comps), comp)
        names = self._name_set()
        names.update(i.name for i in comp.instructions)
        self.changed = True
        return comp

    def remove_computations(self, dead: Iterable[Computation]) -> int:
        dead_ids = {id(c) for c in dead}
        assert self.module.entry is None or id(self.module.entry) not in dead_ids, "cannot remove the entry"
        before = len(self.module.computations)
        self.module.computations = [c for c in self.module.computations if id(c) not in dead_ids]
        if self._names is not None:
            self._names = None
        self.changed = before != len(self.module.computations) or self.changed
        return before - len(self.module.computations)

    def sort_computations(self) -> None:
        """Callees before callers (the order XLA prints), entry last."""
        order = self.module.computation_post_order(entry_last=True)
        if [id(c) for c in order] != [id(c) for c in self.module.computations]:
            self.module.computations = order
            self.changed = True


def reachable_computations(module: Module) -> list[Computation]:
    """Computations reachable from the entry, callees first."""
    if module.entry is None:
        return list(module.computations)
    seen: set[int] = {id(module.entry)}
    stack = [module.entry]
    while stack:
        c = stack.pop()
        for callee in c.callees():
            if id(callee) not in seen:
                seen.add(id(callee))
                stack.append(callee)
    return [c for c in module.computations if id(c) in seen]
