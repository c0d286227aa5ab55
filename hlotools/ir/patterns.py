"""Recognising tiny called computations by shape: reducers and scatter combiners, sort comparators.

These are IR facts: the interpreter and the LLVM backend both swap a per-element computation call
for one vectorised operation when a computation is one of these, and reductions, reduce-windows,
algsimp and the denormal model all specialise on the reducer's opcode. Anything not recognised
takes the general path that runs the computation itself.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction


def binary_reducer_opcode(comp: object) -> str | None:
    """The opcode of a reducer computation `f(a, b) = op(a, b)` (either operand order) of its
    two parameters, else None: what reductions, reduce-windows and their kernels specialise on."""
    if not isinstance(comp, Computation) or comp.root is None or len(comp.parameters) != 2:
        return None
    root = comp.root
    if len(root.operands) != 2 or {id(o) for o in root.operands} != {id(p) for p in comp.parameters}:
        return None
    return root.opcode


def binary_combiner(comp: Any) -> str | None:
    """binary_reducer_opcode for `f(a, b) = op(a, b)`, 'replace' for `f(a, b) = b`, 'keep' for
    `f(a, b) = a` (scatter's combiners); None for anything else."""
    if not isinstance(comp, Computation) or len(comp.parameters) != 2 or comp.root is None:
        return None
    if comp.root.opcode == "parameter":
        return "replace" if comp.root.parameter_number == 1 else "keep"
    return binary_reducer_opcode(comp)


def _param_index(inst: Instruction) -> int | None:
    return inst.parameter_number if inst.opcode == "parameter" else None


@dataclass(frozen=True)
class SimpleComparator:
    """`compare(p[2i], p[2i+1])` (or swapped): sort by operand `operand`, `descending` or not."""

    operand: int
    descending: bool
    total_order: bool


def simple_comparator(comp: Any) -> SimpleComparator | None:
    if comp is None or comp.root is None or comp.root.opcode != "compare":
        return None
    root = comp.root
    if len(root.operands) != 2:
        return None
    a, b = (_param_index(o) for o in root.operands)
    if a is None or b is None or a // 2 != b // 2 or a == b:
        return None
    direction = str(root.attrs.get("direction", ""))
    if direction not in ("LT", "GT"):
        return None
    swapped = a % 2 == 1  # compare(rhs, lhs)
    descending = (direction == "GT") != swapped
    ctype = str(root.attrs.get("type", ""))
    return SimpleComparator(a // 2, descending, ctype == "TOTALORDER")


@dataclass(frozen=True)
class KeyComparator:
    """`compare(f(lhs operands), f(rhs operands))`: sort by the key f(operands) computed once.

    `key` is a new computation taking the N sort operands (one scalar each) and returning
    f; `descending` and `total_order` describe the compare at the root."""

    key: Any
    descending: bool
    total_order: bool


def key_comparator(comp: Any) -> KeyComparator | None:
    """Recognise comparators whose two compare operands are the same expression, one of the
    lhs parameters (0, 2, 4, ...) and one of the matching rhs parameters (1, 3, 5, ...),
    e.g. JAX's float comparator (canonicalise -0 and NaN, then a TOTALORDER LT)."""
    if comp is None or comp.root is None or comp.root.opcode != "compare" or len(comp.root.operands) != 2:
        return None
    direction = str(comp.root.attrs.get("direction", ""))
    if direction not in ("LT", "GT"):
        return None
    left, right = comp.root.operands
    swapped = False
    if not _same_expression(left, right, {}):
        if not _same_expression(right, left, {}):
            return None
        left, swapped = right, True
    if len(comp.parameters) % 2 or any(p is None for p in comp.parameters):
        return None
    key = _clone_as_key(left, comp)
    return KeyComparator(key, (direction == "GT") != swapped, str(comp.root.attrs.get("type", "")) == "TOTALORDER")


def _same_expression(a: Instruction, b: Instruction, memo: dict[tuple[int, int], bool]) -> bool:
    """a computes from lhs parameters (2k) what b computes from rhs parameters (2k+1)."""
    pair = (id(a), id(b))
    if pair in memo:
        return memo[pair]
    memo[pair] = False
    if a.opcode == "parameter" or b.opcode == "parameter":
        ok = (a.opcode == b.opcode == "parameter" and a.parameter_number is not None
              and a.parameter_number % 2 == 0 and b.parameter_number == a.parameter_number + 1)
    elif a.opcode != b.opcode or a.shape != b.shape or len(a.operands) != len(b.operands) or \
            _semantic_attrs(a) != _semantic_attrs(b):
        ok = False
    elif a.opcode == "constant":
        ok = a.literal is not None and b.literal is not None and a.literal.key() == b.literal.key()
    elif a.called_computations() or a.info.side_effect:
        ok = False
    else:
        ok = all(_same_expression(x, y, memo) for x, y in zip(a.operands, b.operands))
    memo[pair] = ok
    return ok


_ANNOTATIONS = frozenset({"metadata", "frontend_attributes", "sharding", "statistics", "origin"})


def _semantic_attrs(inst: Instruction) -> dict[str, Any]:
    return {k: v for k, v in inst.attrs.items() if k not in _ANNOTATIONS}


def _clone_as_key(root: Instruction, comp: Any) -> Any:
    """A computation of the N lhs operands (parameter k = old parameter 2k) returning `root`."""
    key = Computation(f"{comp.name}.sort_key")
    clones: dict[int, Instruction] = {}
    for k in range(len(comp.parameters) // 2):
        old = comp.parameters[2 * k]
        clones[id(old)] = key.add_instruction(Instruction(f"p{k}", "parameter", old.shape, parameter_number=k))
    order: list[Instruction] = []
    seen: set[int] = set()

    def visit(inst: Instruction) -> None:
        if id(inst) in seen or id(inst) in clones:
            return
        seen.add(id(inst))
        for op in inst.operands:
            visit(op)
        order.append(inst)

    visit(root)
    for inst in order:
        clones[id(inst)] = key.add_instruction(Instruction(
            inst.name, inst.opcode, inst.shape, [clones[id(o)] for o in inst.operands], dict(inst.attrs),
            inst.literal, inst.parameter_number, inst.line, inst.column))
    key.root = clones[id(root)]
    return key
