"""ir/instruction.py's graph helpers (unique, reachable) and element-type accessors, which
replaced per-pass copies (while-loop-simplifier, while trip counts, fusion, scheduling) and
the backend's and interpreter's private `_et` helpers."""
from __future__ import annotations

import pytest

import hlotools
from hlotools.ir.instruction import Instruction, reachable, unique
from hlotools.ir.types import F32, S32

_TEXT = """HloModule m
ENTRY e {
  p = (f32[4], s32[]) parameter(0)
  x = f32[4] get-tuple-element(p), index=0
  y = f32[4] add(x, x)
  z = f32[4] multiply(y, x)
  ROOT c = s32[4] convert(z)
}
"""


def _insts() -> dict[str, Instruction]:
    m = hlotools.parse_module(_TEXT)
    assert m.entry is not None
    return {i.name: i for i in m.entry.instructions}


def test_unique_keeps_first_occurrences_by_identity() -> None:
    i = _insts()
    y, z = i["y"], i["z"]
    assert unique(y.operands) == [i["x"]]  # add(x, x) reads one value
    assert unique([z, y, z, y]) == [z, y]


def test_reachable_visits_each_once_and_its_successors_decide() -> None:
    i = _insts()
    order = [inst.name for inst in reachable([i["c"]], lambda inst: inst.operands)]
    assert sorted(order) == ["c", "p", "x", "y", "z"] and len(order) == 5
    # a successor function that stops at x: the parameter is never reached
    assert "p" not in {inst.name for inst in reachable([i["c"]], lambda inst: () if inst.name == "x" else inst.operands)}
    forward = [inst.name for inst in reachable([i["x"]], lambda inst: inst.users)]
    assert sorted(forward) == ["c", "x", "y", "z"]


def test_element_type_accessors_and_their_tuple_assertion() -> None:
    i = _insts()
    assert i["c"].element_type is S32 and i["c"].operand_element_type() is F32
    assert i["z"].operand_element_type(1) is F32
    with pytest.raises(AssertionError, match="operand 0 of %x has a tuple shape"):
        i["x"].operand_element_type()
    with pytest.raises(AssertionError, match="%p has a tuple shape"):
        _ = i["p"].element_type
