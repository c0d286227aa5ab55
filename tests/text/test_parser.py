"""Parser unit tests: each HLO text feature lands in the IR the way XLA's parser builds it."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools.errors import HloParseError
from hlotools.ir.attributes import (
    Alias,
    ConvDimLabels,
    Enum,
    InputOutputAlias,
    PaddingConfig,
    Raw,
    SliceRange,
    Window,
)
from hlotools.text.parser import parse

SHORT = """HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[2]{0} parameter(0)
  c = f32[] constant(0)
  r = f32[] reduce(p, c), dimensions={0}, to_apply=add
  ROOT o = f32[2]{0} broadcast(r), dimensions={}
}
"""

LONG = """HloModule m, is_scheduled=true

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, f32[] %b)
}

ENTRY %main (p: f32[2]) -> f32[2] {
  %p = f32[2]{0} parameter(0)
  ROOT %n = f32[2]{0} negate(f32[2]{0} %p)
}
"""


def test_short_module_structure() -> None:
    m = parse(SHORT)
    assert m.name == "m" and m.source_style == "short"
    assert [c.name for c in m.computations] == ["add", "main"]
    entry = m.entry
    assert entry is not None and entry.is_entry and entry.name == "main"
    assert entry.root is not None and entry.root.name == "o"
    r = entry.instruction_by_name("r")
    assert r is not None and r.attrs["dimensions"] == (0,) and r.attrs["to_apply"] is m.computations[0]
    assert [o.name for o in r.operands] == ["p", "c"]
    p = entry.instruction_by_name("p")
    assert p is not None and p.users == [r] and p.parameter_number == 0
    assert r.line == 12 and r.column == 3


def test_long_style_and_signatures() -> None:
    m = parse(LONG)
    assert m.source_style == "long"
    assert m.attrs["is_scheduled"] is True
    add = m.computations[0]
    assert add.signature_text == "(a: f32[], b: f32[]) -> f32[]"
    assert m.entry is not None and m.entry.root is not None and m.entry.root.opcode == "negate"


def test_headerless_module_is_named_after_entry() -> None:
    m = parse("ENTRY e {\n  ROOT c = s32[] constant(7)\n}\n")
    assert m.name == "module_e"
    m2 = parse("f {\n  ROOT c = s32[] constant(1)\n}\ng {\n  ROOT d = s32[] constant(2)\n}\n")
    assert m2.entry is not None and m2.entry.name == "g"  # no ENTRY: the last computation


def test_missing_layouts_get_the_default_one() -> None:
    m = parse("ENTRY e {\n  ROOT p = f32[2,3] parameter(0)\n}\n")
    assert m.entry is not None and m.entry.root is not None
    layout = m.entry.root.shape.layout
    assert layout is not None and layout.minor_to_major == (1, 0)


def test_layout_extras_dynamic_dims_tuples_and_tokens() -> None:
    text = """ENTRY e {
  p = (f32[8,128]{1,0:T(8,128)S(1)}, s32[<=4,?]{1,0}, token[], s4[8]{0:E(4)}) parameter(0)
  ROOT g = f32[8,128]{1,0:T(8,128)S(1)} get-tuple-element(p), index=0
}
"""
    m = parse(text)
    assert m.entry is not None
    p = m.entry.parameters[0]
    a, b, t, s4 = p.shape.tuple_shapes  # type: ignore[misc]
    assert a.layout is not None and a.layout.extras == "T(8,128)S(1)" and a.layout.memory_space == 1
    assert a.layout.tiles == ((8, 128),)
    assert b.dims == (4, -1) and b.dynamic == (True, True) and b.dims_text() == "<=4,?"
    assert t.is_token
    assert s4.layout is not None and s4.layout.element_size_bits == 4


def test_shapes_are_memoised() -> None:
    m = parse("ENTRY e {\n  a = f32[4]{0} parameter(0)\n  ROOT b = f32[4]{0} negate(a)\n}\n")
    assert m.entry is not None
    a, b = m.entry.instructions
    assert a.shape is b.shape


def test_literals() -> None:
    text = """ENTRY e {
  a = f32[2,3]{1,0} constant({ { 1, 2, 3 }, { 4.5, inf, -inf } })
  b = bf16[2]{0} constant({nan, -nan})
  c = c64[2]{0} constant({(1, 2), (3, -4)})
  d = pred[3]{0} constant({true, false, 1})
  e = (s32[], f32[2]{0}) constant((5, {1, 2}))
  f = f32[100]{0} constant({...})
  g = u64[] constant(-1)
  h = s4[2]{0} constant({-8, 7})
  i = f32[0]{0} constant({})
  ROOT t = (f32[2,3]{1,0}) tuple(a)
}
"""
    m = parse(text)
    assert m.entry is not None
    lit = {i.name: i.literal for i in m.entry.instructions if i.literal is not None}
    np.testing.assert_array_equal(lit["a"].array, np.array([[1, 2, 3], [4.5, np.inf, -np.inf]], np.float32))
    assert np.isnan(lit["b"].array.astype(np.float32)).all()
    assert lit["c"].array.tolist() == [1 + 2j, 3 - 4j]
    assert lit["d"].array.tolist() == [True, False, True]
    assert lit["e"].elements is not None and int(lit["e"].elements[0].array) == 5
    assert lit["f"].elided and lit["f"].array is None
    assert int(lit["g"].array) == 2**64 - 1
    assert lit["h"].array.astype(int).tolist() == [-8, 7]
    assert lit["i"].array.shape == (0,)


def test_nan_payload_sets_the_mantissa() -> None:
    m = parse("ENTRY e {\n  ROOT c = f32[] constant(nan(0x1))\n}\n")
    assert m.entry is not None and m.entry.root is not None
    assert int(m.entry.root.literal.array.view(np.uint32)) == 0x7F800001


@pytest.mark.parametrize("text, message", [
    ("f16[] constant(70000)", "out of range for literal's primitive type F16"),
    ("u4[] constant(16)", "out of range for literal's primitive type U4"),
    ("f32[2]{0} constant({1, 2, 3})", "index is out of range"),
    ("f32[2,2]{1,0} constant({{1, 2}, {3}})", "expects 2 elements in the [1]th element, but sees 1"),
    ("c64[] constant(1)", "complex"),
])
def test_literal_errors(text: str, message: str) -> None:
    with pytest.raises(HloParseError, match=None) as exc:
        parse(f"ENTRY e {{\n  ROOT c = {text}\n}}\n")
    assert message in exc.value.message
    assert exc.value.line == 2


def test_typed_attribute_values() -> None:
    text = """add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[1,8,8,3]{3,2,1,0} parameter(0)
  k = f32[3,3,3,4]{3,2,1,0} parameter(1)
  conv = f32[1,4,4,4]{3,2,1,0} convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  sl = f32[1,4,4,2]{3,2,1,0} slice(conv), slice={[0:1], [0:4], [0:4], [0:4:2]}
  z = f32[] constant(0)
  pd = f32[1,6,6,2]{3,2,1,0} pad(sl, z), padding=0_0x1_1x1_1x0_0
  cmp = pred[1,6,6,2]{3,2,1,0} compare(pd, pd), direction=LT, metadata={op_name="x" source_line=3}
  ROOT rw = f32[1,3,3,2]{3,2,1,0} reduce-window(pd, z), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=add, backend_config={"k": {"v": 1}}
}
"""
    m = parse(text)
    assert m.entry is not None
    get = m.entry.instruction_by_name
    conv = get("conv")
    assert conv is not None
    w = conv.attrs["window"]
    assert isinstance(w, Window) and [d.stride for d in w.dims] == [2, 2]
    assert (w.dims[0].padding_low, w.dims[0].padding_high) == (1, 1)
    dl = conv.attrs["dim_labels"]
    assert isinstance(dl, ConvDimLabels) and dl.input_feature == 3 and dl.kernel_output_feature == 3
    assert dl.input_spatial == (1, 2)
    sl = get("sl")
    assert sl is not None and sl.attrs["slice"][3] == SliceRange(0, 4, 2)
    pd = get("pd")
    assert pd is not None and isinstance(pd.attrs["padding"], PaddingConfig)
    assert pd.attrs["padding"].dims[1] == (1, 1, 0)
    cmp = get("cmp")
    assert cmp is not None and cmp.attrs["direction"] == "LT" and isinstance(cmp.attrs["direction"], Enum)
    assert isinstance(cmp.attrs["metadata"], Raw)
    rw = get("rw")
    assert rw is not None and rw.attrs["backend_config"] == '{"k": {"v": 1}}'


def test_compact_gte_is_synthesised_once() -> None:
    text = """ENTRY e {
  t = (f32[], (s32[], f32[2]{0})) parameter(0)
  a = f32[] negate(t#0)
  b = f32[] add(t#0, t#0)
  ROOT c = f32[2]{0} negate(t#1#1)
}
"""
    m = parse(text)
    assert m.entry is not None
    gtes = [i for i in m.entry.instructions if i.opcode == "get-tuple-element"]
    assert [(g.name, g.attrs["index"]) for g in gtes] == [("t_0", 0), ("t_1", 1), ("t_1_1", 1)]
    b = m.entry.instruction_by_name("b")
    assert b is not None and b.operands[0] is b.operands[1] is gtes[0]
    assert gtes[0].users == [m.entry.instruction_by_name("a"), b]


def test_nested_operands_and_inline_computations() -> None:
    text = """ENTRY e {
  x = f32[4]{0} parameter(0)
  ROOT r = f32[] reduce(f32[4]{0} negate(x), f32[] constant(0)), dimensions={0}, to_apply={
    a = f32[] parameter(0)
    b = f32[] parameter(1)
    ROOT s = f32[] add(a, b)
  }
}
"""
    m = parse(text)
    assert m.entry is not None
    names = [i.name for i in m.entry.instructions]
    assert names == ["x", "negate.anon", "constant.anon", "r"]
    inline = m.entry.root.attrs["to_apply"]  # type: ignore[union-attr]
    assert inline in m.computations and inline.name.startswith("_") and inline.root.opcode == "add"


def test_control_predecessors_and_comments() -> None:
    text = """// a comment
ENTRY e { /* block
 comment */
  a = f32[] parameter(0)
  b = f32[] negate(a)
  ROOT c = f32[] negate(a), control-predecessors={b} // trailing
}
"""
    m = parse(text)
    assert m.entry is not None and m.entry.root is not None
    assert [p.name for p in m.entry.root.control_predecessors] == ["b"]
    assert "control-predecessors" not in m.entry.root.attrs


def test_single_instruction_operands_become_parameters() -> None:
    m = parse("%m = f32[2,4]{1,0} multiply(f32[2,4]{1,0} %a, f32[2,4]{1,0} %b)")
    assert m.entry is not None
    params = m.entry.parameters
    assert [(p.name, p.parameter_number) for p in params] == [("a", 0), ("b", 1)]
    m2 = parse("f32[2] add(f32[2], f32[2])")
    assert m2.entry is not None and [p.name for p in m2.entry.parameters] == ["_0", "_1"]


def test_async_sugar_builds_a_wrapped_computation() -> None:
    text = """HloModule m
ENTRY e {
  p = f32[10]{0} parameter(0)
  s = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-start(p), custom_call_target="foo"
  u = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-update(s)
  ROOT d = f32[20]{0} custom-call-done(u)
}
"""
    m = parse(text)
    assert m.entry is not None
    s, u, d = (m.entry.instruction_by_name(n) for n in "sud")
    assert s is not None and u is not None and d is not None
    assert (s.opcode, u.opcode, d.opcode) == ("async-start", "async-update", "async-done")
    wrapped = s.attrs["calls"]
    assert u.attrs["calls"] is wrapped and d.attrs["calls"] is wrapped
    assert wrapped.root.opcode == "custom-call" and wrapped.root.attrs["custom_call_target"] == "foo"
    assert "custom_call_target" not in s.attrs


def test_stack_frames_are_kept_verbatim() -> None:
    frames = ('FileNames\n1 "a.py"\n\nFunctionNames\n1 "f"\n\nFileLocations\n'
              '1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}\n\n'
              'StackFrames\n1 {file_location_id=1 parent_frame_id=1}')
    m = parse(f"HloModule m\n\n{frames}\n\n\nENTRY e {{\n  ROOT c = f32[] constant(1)\n}}\n")
    assert m.stack_frames_text == frames


def test_module_header_attributes() -> None:
    m = parse("HloModule m, replica_count=2, num_partitions=4, input_output_alias={ {0}: (0, {}, may-alias) }\n"
              "ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n")
    assert m.attrs["replica_count"] == 2 and m.attrs["num_partitions"] == 4
    alias = m.attrs["input_output_alias"]
    assert alias == InputOutputAlias((Alias((0,), 0, (), "may-alias"),), "{ {0}: (0, {}, may-alias) }")


def test_omitted_result_shape_is_inferred() -> None:
    pytest.importorskip("hlotools.ir.shape_inference")
    m = parse("ENTRY e {\n  a = f32[2,3]{1,0} parameter(0)\n  ROOT t = transpose(a), dimensions={1,0}\n}\n")
    assert m.entry is not None and m.entry.root is not None
    assert m.entry.root.shape.dims == (3, 2)


@pytest.mark.parametrize("body, message", [
    ("  a = f32[] parameter(0)\n  a = f32[] parameter(1)", "instruction already exists: a"),
    ("  ROOT a = f32[] parameter(0)\n  ROOT b = f32[] parameter(1)", "only one ROOT"),
    ("  ROOT a = f32[] negate(b)", "instruction does not exist: b"),
    ("  %f32 = f32[] parameter(0)", "illegal instruction name: f32; suggest renaming to: f32_"),
    ("  %__x = f32[] parameter(0)", "illegal instruction name: __x"),
    ("  a = f32[] parameter(0)\n  ROOT b = f32[] negate(a), dimensions={0}", 'unexpected attribute "dimensions"'),
    ("  a = f32[2]{0} parameter(0)\n  ROOT b = f32[2]{0} transpose(a)", "attribute dimensions is expected"),
    ("  a = f32[] parameter(0)\n  ROOT b = f32[] negate(a), metadata={}, metadata={}", "already exists"),
    ("  a = f32[] parameter(0)\n  ROOT b = f32[] add(a)", "expects 2 operands, but has 1 operands"),
    ("  a = f32[] parameter(0)\n  ROOT b = f32[] negate(f32[3]{0} a)", "is not compatible"),
    ("  ROOT c = f32[] call(), to_apply=nowhere", "computation does not exist: nowhere"),
    ("  ROOT c = f32[] frobnicate()", "Unknown opcode: frobnicate"),
    ("  ROOT c = reshape(f32[] constant(1))", "cannot infer shape for opcode: reshape"),
])
def test_name_and_attribute_checks(body: str, message: str) -> None:
    with pytest.raises(HloParseError) as exc:
        parse(f"HloModule m\nENTRY e {{\n{body}\n}}\n")
    assert message in exc.value.message
    assert exc.value.line is not None and exc.value.line >= 3


def test_two_entries_and_duplicate_computations() -> None:
    with pytest.raises(HloParseError, match="expects only one ENTRY"):
        parse("ENTRY a {\n ROOT x = f32[] constant(1)\n}\nENTRY b {\n ROOT y = f32[] constant(1)\n}\n")
    with pytest.raises(HloParseError, match="computation already exists: a"):
        parse("a {\n ROOT x = f32[] constant(1)\n}\na {\n ROOT y = f32[] constant(1)\n}\n")


def test_syntax_errors_are_located_and_in_hlo_terms() -> None:
    with pytest.raises(HloParseError) as exc:
        parse("ENTRY e {\n  a = f32[] parameter(0)\n  ROOT b = f32[] add(a a)\n}\n")
    e = exc.value
    assert e.message.startswith("expected ',' or ')' after operand")
    assert (e.line, e.column) == (3, 24)
    assert "Token" not in e.message and "Lark" not in e.message


def test_error_format_points_at_the_place() -> None:
    with pytest.raises(HloParseError) as exc:
        parse("ENTRY e {\n  ROOT a = f32[] nonsense()\n}\n", "x.hlo")
    text = exc.value.format()
    assert text.splitlines()[0].startswith("x.hlo:2:18: error:")
    assert text.splitlines()[2] == " " * 17 + "^"


def test_line_endings_and_old_style_header() -> None:
    text = "HloModule foo:\r\n\r\nENTRY e {\r\n  a = f32[] parameter(0) // c\r\n  ROOT b = f32[] negate(a)\r\n}\r\n"
    m = parse(text)
    assert m.name == "foo"
    assert m.entry is not None and m.entry.root is not None and m.entry.root.line == 5
    with pytest.raises(HloParseError) as exc:
        parse("ENTRY e {\r  a = f32[] parameter(0)\r  ROOT b = f32[] negate(c)\r}\r")
    assert exc.value.line == 3


def test_keywords_and_types_are_not_bare_names() -> None:
    for name in ("token", "true", "f32"):
        with pytest.raises(HloParseError):
            parse(f"ENTRY e {{\n  {name} = f32[] parameter(0)\n}}\n")


def test_execution_thread_and_entry_layout_with_comments() -> None:
    text = ("HloModule m, entry_computation_layout={(f32[2]{0}, /*index=1*/f32[]{:S(5)})->f32[2]{0}}\n"
            "ENTRY e {\n  a = f32[2]{0} parameter(0)\n  b = f32[]{:S(5)} parameter(1)\n"
            "  ROOT c = f32[2]{0} copy(a)\n}, execution_thread=\"main\"\n")
    m = parse(text)
    assert m.entry is not None and m.entry.execution_thread == "main"
    b = m.entry.parameters[1]
    assert b.shape.layout is not None and b.shape.layout.memory_space == 5


_ALL_REDUCE = """HloModule m, replica_count=4
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(p), replica_groups=%s, to_apply=add
}
"""


@pytest.mark.parametrize("groups", ["{{0,1},{2,3}}", "{}", "[2,2]<=[4]", "[2,2]<=[2,2]T(1,0)",
                                    "mesh['x'=2,'y'=2] {'y'}"])
def test_replica_groups_in_all_three_forms_print_back(groups: str) -> None:
    """Explicit lists, the iota form and the mesh form (hlo-syntax.md 4.12) are kept verbatim."""
    printed = hlotools.print_module(hlotools.parse_module(_ALL_REDUCE % groups))
    assert f"all-reduce(p), replica_groups={groups}, to_apply=add" in printed


@pytest.mark.parametrize("groups, message", [
    ("[2,2]<=[5]", "iota size 5 does not match the tile assignment dimensions product 4"),
    ("[2,2]<=[2,2]T(1)", "iota_transpose_perm T(1) must be a permutation of the 2 iota_reshape_dims"),
    ("[2,2]<=[2,2]T(1,1)", "iota_transpose_perm T(1,1) must be a permutation"),
    ("[2,2]<=[2,2]T(0,2)", "Out of range iota minor_to_major value 2"),
    ("{{0,1}{2,3}}", "expects a list to end with }"),
    ("mesh['x'=2] {'z'}", "axis 'z' is not a valid axis name or index in mesh"),
])
def test_malformed_replica_groups_are_located_errors(groups: str, message: str) -> None:
    with pytest.raises(HloParseError) as exc:
        parse(_ALL_REDUCE % groups)
    assert message in exc.value.message and exc.value.line == 9
