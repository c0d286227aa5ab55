"""entry_computation_layout, input_output_alias, buffer_donor and operand_layout_constraints are
decoded once, at parse time, into the typed values of ir/attributes.py (no consumer re-parses
their text), print back as written, and a malformed value fails the parse with a located error."""
from __future__ import annotations

import pytest

from hlotools.backend.llvm.codegen.module import entry_donation
from hlotools.errors import HloParseError, HloVerifyError
from hlotools.ir.attributes import Alias, BufferDonors, ComputationLayout, Raw, ShapeList, SourceTargetPairs
from hlotools.ir.verifier import verify
from hlotools.passes.layout_assignment import entry_layout
from hlotools.text.parser import parse
from hlotools.text.printer import print_module

TEXT = """HloModule m, input_output_alias={ {1}: (0, {}, may-alias), {0}: (1, {0}) }, buffer_donor={ (1, {0}) }, entry_computation_layout={(f32[2]{0} /*p0*/, (f32[3]{0}, s32[4]{0}))->(f32[3]{0}, f32[2]{0})}

ENTRY e {
  a = f32[2]{0} parameter(0)
  b = (f32[3]{0}, s32[4]{0}) parameter(1)
  g = f32[3]{0} get-tuple-element(b), index=0
  c = f32[2]{0} custom-call(a), custom_call_target="foo", operand_layout_constraints={ /*x*/ f32[2]{0}}
  ROOT t = (f32[3]{0}, f32[2]{0}) tuple(g, c)
}
"""


def test_values_are_typed_and_print_as_written() -> None:
    m = parse(TEXT)
    layout = m.attrs["entry_computation_layout"]
    assert isinstance(layout, ComputationLayout)
    assert [s.to_text(True) for s in layout.params] == ["f32[2]{0}", "(f32[3]{0}, s32[4]{0})"]
    assert layout.result.to_text(True) == "(f32[3]{0}, f32[2]{0})"
    assert m.attrs["input_output_alias"].aliases == (Alias((1,), 0, (), "may-alias"), Alias((0,), 1, (0,), None))
    assert m.attrs["buffer_donor"] == BufferDonors(((1, (0,)),), "{ (1, {0}) }")
    assert m.entry is not None and m.entry.root is not None
    constraints = m.entry.root.operands[1].attrs["operand_layout_constraints"]
    assert isinstance(constraints, ShapeList) and [s.to_text(True) for s in constraints.shapes] == ["f32[2]{0}"]
    assert print_module(m) == TEXT + "\n"
    verify(m)


def test_consumers_read_the_typed_values() -> None:
    m = parse(TEXT)
    params, result = entry_layout(m)
    assert params is not None and result is not None and len(params) == 2 and result.is_tuple
    # result leaf 1 (f32[2]) -> argument leaf 0 (a); result leaf 0 (f32[3]) -> leaf 1 (b's f32[3])
    assert entry_donation(m) == {1: 0, 0: 1}


def test_source_target_pairs_are_typed() -> None:
    m = parse("ENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT c = f32[2]{0} collective-permute(p), "
              "channel_id=1, source_target_pairs={{0,1}, {1,0}}\n}\n")
    assert m.entry is not None and m.entry.root is not None
    assert m.entry.root.attrs["source_target_pairs"] == SourceTargetPairs(((0, 1), (1, 0)), "{{0,1}, {1,0}}")
    assert "source_target_pairs={{0,1}, {1,0}}" in print_module(m)
    with pytest.raises(HloParseError, match="to be a list of pairs"):
        parse("ENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT c = f32[2]{0} collective-permute(p), "
              "channel_id=1, source_target_pairs={{0,1,2}}\n}\n")


def test_a_value_set_as_text_is_not_read() -> None:
    m = parse(TEXT)
    m.attrs["entry_computation_layout"] = Raw("{(f32[2]{0})->f32[2]{0}}")
    with pytest.raises(HloVerifyError, match="cannot read entry_computation_layout"):
        verify(m)
    m = parse(TEXT)
    m.attrs["input_output_alias"] = Raw("{ {5}: (0, {}) }")  # not decoded: neither checked nor used
    assert entry_donation(m) == {}


@pytest.mark.parametrize(("old", "new", "where", "message"), [
    ("{(f32[2]{0} /*p0*/, ", "{(f32[2]{0} /*p0*/ ", "1:", "Expects , between parameter shapes"),
    ("{ {1}: (0, {}, may-alias)", "{ {1}: (0, {}, sometimes)", "1:", "Unexpected aliasing kind"),
    ("buffer_donor={ (1, {0}) }", "buffer_donor={ (1 {0}) }", "1:", "Expected format: (<input_param>"),
    ("{ /*x*/ f32[2]{0}}", "{ /*x*/ f32[2]{0} f32[]}", "7:",
     "error parsing attribute operand_layout_constraints: expects ',' between shapes"),
])
def test_malformed_values_fail_the_parse(old: str, new: str, where: str, message: str) -> None:
    assert old in TEXT
    with pytest.raises(HloParseError) as e:
        parse(TEXT.replace(old, new))
    assert message in e.value.message and e.value.format().split(": error")[0].startswith("<input>:" + where)
