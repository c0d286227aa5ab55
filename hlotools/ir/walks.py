"""Walks over the instruction graph that passes and the backend share (IR queries, not passes).

`post_order_from` is XLA's MakeInstructionPostOrder for one root; `elementwise_flow` asks
whether a value reaches a root through elementwise ops only, which both epilogue fusion (a
pass) and the LLVM backend's in-place output fusion decide on.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.shape import Shape


def is_elementwise(inst: Instruction) -> bool:
    """The opcode table's elementwise flag, without side effects (rng is not elementwise data flow)."""
    known = _ELEMENTWISE.get(inst.opcode)  # asked per operand edge: one dict lookup per opcode
    if known is None:
        info = OPCODES.get(inst.opcode)
        known = _ELEMENTWISE[inst.opcode] = info is not None and info.is_elementwise and not info.side_effect
    return known


_ELEMENTWISE: dict[str, bool] = {}


def post_order_from(root: Instruction, stop: dict[int, object] | None = None) -> list[Instruction]:
    """Operands before users, from `root` (XLA's MakeInstructionPostOrder for one root);
    with `stop`, instructions in it are not entered."""
    order: list[Instruction] = []
    seen: set[int] = set()
    stack: list[tuple[Instruction, int]] = [(root, 0)]
    seen.add(id(root))
    while stack:
        inst, i = stack.pop()
        if i < len(inst.operands):
            stack.append((inst, i + 1))
            op = inst.operands[i]
            if id(op) not in seen and (stop is None or id(op) not in stop):
                seen.add(id(op))
                stack.append((op, 0))
        else:
            order.append(inst)
    return order


def elementwise_flow(order: Iterable[Instruction], start: set[int],
                     keeps: Callable[[Shape], bool]) -> set[int] | None:
    """The ids of `start` and of every instruction of `order` (a post order) that depends on
    them, when each of those is elementwise with a shape `keeps` accepts (the value at an
    index then needs `start`'s values only at that index: kOutput epilogues); else None."""
    flow = set(start)
    for inst in order:
        if id(inst) in flow or not any(id(o) in flow for o in inst.operands):
            continue
        if not is_elementwise(inst) or not keeps(inst.shape):
            return None
        flow.add(id(inst))
    return flow
