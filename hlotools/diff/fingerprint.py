"""Structural value numbers of HLO instructions, shared by two modules so equal numbers mean
equal computations.

An instruction's number covers its opcode, shape (with layout), attributes (metadata left out:
passes move it around without changing what is computed), constant value and its operands'
numbers. Fusion is looked through: a fusion's number is its fused root's, with the fused
computation's parameters standing for the fusion's operands, and get-tuple-element of a tuple
is the element. So an expression and the fusion XLA made of it number the same, which is how
hlo-diff tells "fused" from "removed".
"""
from __future__ import annotations

from typing import Any

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import COMPUTATION_ATTRS, COMPUTATION_LIST_ATTRS

CALLED = frozenset(COMPUTATION_ATTRS + COMPUTATION_LIST_ATTRS)
IGNORED_ATTRS = frozenset({"metadata"})


def value_text(value: Any) -> str:
    """An attribute value as text, for keys and for people (close to the printer's forms)."""
    if isinstance(value, Computation):
        return "%" + value.name
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "{" + ",".join(value_text(v) for v in value) + "}"
    to_text = getattr(value, "to_text", None)
    if callable(to_text):
        return str(to_text())
    text = getattr(value, "text", None)
    return text if isinstance(text, str) else str(value)


def attribute_texts(inst: Instruction, with_metadata: bool = False) -> dict[str, str]:
    """The attributes a diff compares, as text (called computations are compared apart)."""
    return {k: value_text(v) for k, v in inst.attrs.items()
            if k not in CALLED and (with_metadata or k not in IGNORED_ATTRS)}


def literal_key(inst: Instruction) -> object:
    lit = inst.literal
    if lit is None:
        return None
    if lit.array is not None:
        return (lit.array.dtype.str, lit.array.shape, lit.array.tobytes())
    return ("elided", lit.text) if lit.elided else ("tuple", lit.text)


class Numbering:
    """Value numbers for the instructions of any modules numbered with one instance."""

    def __init__(self) -> None:
        self._ids: dict[object, int] = {}
        self._memo: dict[int, int] = {}
        self._callers: dict[int, Instruction] = {}  # id(fused computation) -> its fusion

    def add_module(self, module: Module) -> None:
        for comp in module.computations:
            for inst in comp.instructions:
                if inst.opcode == "fusion":
                    for callee in inst.called_computations():
                        self._callers[id(callee)] = inst

    def number(self, inst: Instruction) -> int:
        """The instruction's value number (iterative: chains thousands deep stay off the C stack)."""
        stack = [inst]
        while stack:
            top = stack[-1]
            if id(top) in self._memo:
                stack.pop()
                continue
            missing = [d for d in self._inputs(top) if id(d) not in self._memo]
            if missing:
                stack.extend(missing)
                continue
            self._memo[id(top)] = self._intern(self._key(top))
            stack.pop()
        return self._memo[id(inst)]

    def _forward(self, inst: Instruction) -> Instruction | None:
        """The instruction `inst` stands for, when it is a pure alias of another one."""
        if inst.opcode == "parameter" and inst.parent is not None:
            caller = self._callers.get(id(inst.parent))
            n = inst.parameter_number
            if caller is not None and n is not None and n < len(caller.operands):
                return caller.operands[n]
        if inst.opcode == "fusion":
            called = inst.called_computations()
            if called and called[0].root is not None:
                return called[0].root
        if inst.opcode == "get-tuple-element" and inst.operands:
            source = self._resolve(inst.operands[0])
            index = inst.attrs.get("index")
            if source.opcode == "tuple" and isinstance(index, int) and index < len(source.operands):
                return source.operands[index]
        return None

    def _resolve(self, inst: Instruction) -> Instruction:
        seen = 0
        while seen < 64 and inst.opcode in ("fusion", "parameter"):
            nxt = self._forward(inst)
            if nxt is None:
                break
            inst, seen = nxt, seen + 1
        return inst

    def _inputs(self, inst: Instruction) -> list[Instruction]:
        forward = self._forward(inst)
        if forward is not None:
            return [forward]
        roots = [c.root for c in inst.called_computations() if c.root is not None and not c.is_fusion_computation]
        return list(inst.operands) + roots

    def _key(self, inst: Instruction) -> object:
        forward = self._forward(inst)
        if forward is not None:
            return ("=", self._memo[id(forward)])
        if inst.opcode == "parameter":
            return ("parameter", inst.parameter_number, str(inst.shape))
        called = tuple(self._memo[id(c.root)] for c in inst.called_computations()
                       if c.root is not None and not c.is_fusion_computation)
        attrs = tuple(sorted(attribute_texts(inst).items()))
        return (inst.opcode, str(inst.shape), attrs, literal_key(inst),
                tuple(self._memo[id(o)] for o in inst.operands), called)

    def _intern(self, key: object) -> int:
        if isinstance(key, tuple) and key and key[0] == "=":
            return int(key[1])  # type: ignore[call-overload]
        return self._ids.setdefault(key, len(self._ids))
