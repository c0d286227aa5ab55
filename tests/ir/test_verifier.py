"""The verifier: one test per check, on text (through the parser, unverified) and on
hand-built IR for structures the parser cannot produce."""
from __future__ import annotations

import re

import pytest

import hlotools
from hlotools.errors import HloVerifyError
from hlotools.ir.attributes import Enum
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.verifier import verify
from hlotools.text.parse_attrs import decode_attr
from tests.support.helpers import scalar_computation
from tests.support.irbuild import S, computation, entry_with, inst, module_of, param

ADD = "\n" + scalar_computation("add", "add")


def module(body: str, header: str = "HloModule m") -> Module:
    return hlotools.parse_module(f"{header}\n{body}", "t.hlo", verify=False)


def rejects(body: str, needle: str, header: str = "HloModule m") -> HloVerifyError:
    with pytest.raises(HloVerifyError) as e:
        verify(module(body, header))
    assert needle in e.value.message, e.value.message
    return e.value


def accepts(body: str, header: str = "HloModule m") -> None:
    verify(module(body, header))


def fails_verify(m: Module, match: str) -> None:
    """verify(m) raises HloVerifyError with a message that `match` (a regex) finds."""
    with pytest.raises(HloVerifyError, match=match):
        verify(m)


def test_valid_module_passes() -> None:
    accepts(ADD + """
ENTRY e {
  p = f32[4,3] parameter(0)
  z = f32[] constant(0)
  r = f32[3] reduce(p, z), dimensions={0}, to_apply=add
  ROOT t = (f32[3], f32[4,3]) tuple(r, p)
}""")


def test_add_with_wrong_declared_shape_names_instruction_computation_and_place() -> None:
    err = rejects("""ENTRY e {
  p = f32[2] parameter(0)
  ROOT a = f32[3] add(f32[2] p, p)
}""", "declared shape f32[3] does not match the inferred shape f32[2]")
    assert err.message.startswith("%a (add) in computation %e: ")
    assert (err.line, err.column) == (4, 8)
    assert err.with_place("t.hlo").format().startswith("t.hlo:4:8: error: %a (add)")


def test_parse_module_verifies_by_default() -> None:
    with pytest.raises(HloVerifyError):
        hlotools.parse_module("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
                              "  ROOT a = f32[3] add(p, p)\n}\n")


def test_layouts_are_ignored_when_comparing_shapes() -> None:
    accepts("""ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  ROOT n = f32[2,3]{1,0} negate(p)
}""")


def test_dot_may_declare_a_wider_result_type() -> None:
    accepts("""ENTRY e {
  a = bf16[2,3] parameter(0)
  b = bf16[3,4] parameter(1)
  ROOT d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}""")


def test_dynamic_dims_compared_only_for_shape_equal_opcodes() -> None:
    # negate is compared with ShapeUtil::Compatible (dynamic-ness ignored) ...
    accepts("""ENTRY e {
  p = f32[3] parameter(0)
  ROOT n = f32[<=3] negate(p)
}""")
    # ... get-tuple-element with Shape::Equal.
    rejects("""ENTRY e {
  p = (f32[3]) parameter(0)
  ROOT g = f32[<=3] get-tuple-element(p), index=0
}""", "does not match the inferred shape f32[3]")


def test_element_type_mismatch_is_rejected() -> None:
    rejects("""ENTRY e {
  p = f32[3] parameter(0)
  ROOT n = f16[3] negate(p)
}""", "declared shape f16[3]")


def test_missing_required_attribute() -> None:
    p = param("f32[2,3]")
    comp = entry_with([p, inst("transpose", [p], "f32[3,2]")])
    fails_verify(module_of(comp), "missing required attribute 'dimensions'")


def test_reduce_to_apply_signature() -> None:
    rejects("""
mul3 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=mul3
}""", "to_apply %mul3 must take (f32[], f32[])")


WHILE = """
cond {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = %COND_ROOT
}
body {
  s = (s32[], f32[3]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[3] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = %BODY_ROOT
}
ENTRY e {
  i0 = s32[] constant(0)
  x0 = f32[3] parameter(0)
  init = (s32[], f32[3]) tuple(i0, x0)
  ROOT w = (s32[], f32[3]) while(init), condition=cond, body=body
}"""
GOOD_COND = "pred[] compare(i, n), direction=LT"
GOOD_BODY = "(s32[], f32[3]) tuple(j, x)"


def test_while_signatures() -> None:
    accepts(WHILE.replace("%COND_ROOT", GOOD_COND).replace("%BODY_ROOT", GOOD_BODY))
    rejects(WHILE.replace("%COND_ROOT", "s32[] add(i, n)").replace("%BODY_ROOT", GOOD_BODY),
            "condition %cond must return pred[]")
    rejects(WHILE.replace("%COND_ROOT", GOOD_COND).replace("%BODY_ROOT", "(s32[]) tuple(j)"),
            "body %body must return (s32[], f32[3])")


def test_conditional_branch_signatures() -> None:
    text = """
b0 {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
b1 {
  y = %B1_PARAM parameter(0)
  ROOT c = f32[2] constant({1, 2})
}
ENTRY e {
  k = s32[] parameter(0)
  a = f32[2] parameter(1)
  b = s32[] parameter(2)
  ROOT r = f32[2] conditional(k, a, b), branch_computations={b0, b1}
}"""
    accepts(text.replace("%B1_PARAM", "s32[]"))
    rejects(text.replace("%B1_PARAM", "f32[]"), "branch 1 %b1 must take (s32[])")


def test_call_and_fusion_parameters() -> None:
    text = """
f {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
ENTRY e {
  a = %TYPE parameter(0)
  ROOT r = f32[2] %OP(a), %ATTR=f%KIND
}"""
    accepts(text.replace("%TYPE", "f32[2]").replace("%OP", "call").replace("%ATTR", "to_apply")
            .replace("%KIND", ""))
    rejects(text.replace("%TYPE", "s32[2]").replace("%OP", "call").replace("%ATTR", "to_apply")
            .replace("%KIND", ""), "shape mismatch between parameter number 0 (f32[2]) of %f")
    rejects(text.replace("%TYPE", "f32[3]").replace("%OP", "fusion").replace("%ATTR", "calls")
            .replace("%KIND", ", kind=kLoop"), "and its operand (f32[3])")


def test_fused_instructions_need_users() -> None:
    rejects("""
f {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  ROOT n = f32[2] negate(x)
}
ENTRY e {
  a = f32[2] parameter(0)
  ROOT r = f32[2] fusion(a, a), kind=kLoop, calls=f
}""", "non-root instruction %y in fused computation %f must have users")


# ADD (f32[] (f32[], f32[])) called where the caller needs another signature.
@pytest.mark.parametrize("needle,entry", [
    pytest.param("to_apply %add must take (f32[], f32[], f32[], f32[])", """
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  z = f32[] constant(0)
  ROOT r = (f32[], f32[]) reduce(p, q, z, z), dimensions={0}, to_apply=add""", id="variadic-reduce"),
    pytest.param("must take (f32[], bf16[])", """
  p = bf16[8] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce-window(p, z), window={size=2 stride=2}, to_apply=add""",
                 id="reduce-window-mixed-precision"),
    pytest.param("comparator to_apply %add must return pred[]", """
  p = f32[4] parameter(0)
  ROOT s = f32[4] sort(p), dimensions={0}, to_apply=add""", id="sort-comparator-returns-pred"),
    pytest.param("to_apply %add must take (s32[], s32[])", """
  p = s32[4] parameter(0)
  ROOT m = f32[4] map(p, p), dimensions={0}, to_apply=add""", id="map-parameters"),
    pytest.param("to_apply %add must take (s32[], s32[])", """
  o = s32[10] parameter(0)
  i = s32[2,1] parameter(1)
  u = s32[2] parameter(2)
  ROOT s = s32[10] scatter(o, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add""", id="scatter-combiner"),
    pytest.param("select %add must return pred[]", """
  o = f32[4] parameter(0)
  s = f32[2] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[4] select-and-scatter(o, s, z), window={size=2 stride=2}, select=add, scatter=add""",
                 id="select-and-scatter-select-returns-pred"),
    pytest.param("to_apply %add must take (s32[], s32[])", """
  p = s32[4] parameter(0)
  ROOT r = s32[4] all-reduce(p), to_apply=add""", id="all-reduce-reducer"),
])
def test_a_call_of_add_with_the_wrong_signature(needle: str, entry: str) -> None:
    rejects(ADD + "\nENTRY e {" + entry + "\n}", needle)


def test_async_computation_holds_only_root_and_parameters() -> None:
    rejects("""
wrapped {
  x = f32[2] parameter(0)
  c = f32[2] copy(x)
  ROOT n = f32[2] negate(c)
}
ENTRY e {
  a = f32[2] parameter(0)
  s = ((f32[2]), f32[2], s32[]) async-start(a), calls=wrapped
  ROOT d = f32[2] async-done(s)
}""", "asynchronous computation %wrapped expected to contain only the root and parameter")


def test_async_done_takes_the_wrapped_result() -> None:
    rejects("""
wrapped {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
ENTRY e {
  a = f32[2] parameter(0)
  s = ((f32[2]), f32[2], s32[]) async-start(a), calls=wrapped
  ROOT d = (f32[2]) async-done(s)
}""", "declared shape (f32[2]) does not match the inferred shape f32[2]")


ENTRY_BODY = """ENTRY e {
  p = f32[2] parameter(0)
  q = s32[] parameter(1)
  ROOT t = (f32[2], s32[]) tuple(p, q)
}"""


def test_entry_computation_layout() -> None:
    accepts(ENTRY_BODY, "HloModule m, entry_computation_layout={(f32[2]{0}, /*index=1*/s32[])"
                        "->(f32[2]{0}, s32[])}")
    rejects(ENTRY_BODY, "has 1 parameters but the entry computation has 2",
            "HloModule m, entry_computation_layout={(f32[2]{0})->(f32[2]{0}, s32[])}")
    rejects(ENTRY_BODY, "parameter 1 u32[] is not compatible",
            "HloModule m, entry_computation_layout={(f32[2]{0}, u32[])->(f32[2]{0}, s32[])}")
    rejects(ENTRY_BODY, "result (f32[2], s32[], s32[]) is not compatible",
            "HloModule m, entry_computation_layout={(f32[2]{0}, s32[])->(f32[2]{0}, s32[], s32[])}")


# -- structure (hand-built IR: the parser cannot produce these) -------------------------
def simple_module() -> tuple[Module, Computation, Instruction, Instruction]:
    p = param("f32[2]")
    n = inst("negate", [p], "f32[2]", "n")
    comp = entry_with([p, n])
    return module_of(comp), comp, p, n


def test_hand_built_module_passes() -> None:
    m, _, _, _ = simple_module()
    verify(m)


def test_no_entry() -> None:
    m, _, _, _ = simple_module()
    m.entry = None
    fails_verify(m, "no ENTRY computation")


def test_two_entries() -> None:
    m, _, _, _ = simple_module()
    other = computation("other", ["f32[]"], None)
    other.is_entry = True
    m.add_computation(other)
    fails_verify(m, "more than one ENTRY")


def test_duplicate_computation_names() -> None:
    m, _, _, _ = simple_module()
    m.computations.insert(0, computation("main", ["f32[]"], None))
    fails_verify(m, "computation name is not unique")


def test_no_root() -> None:
    m, comp, _, _ = simple_module()
    comp.root = None
    fails_verify(m, "has no ROOT")


def test_root_from_elsewhere() -> None:
    m, comp, _, _ = simple_module()
    comp.root = param("f32[2]", 0, "stray")
    fails_verify(m, "ROOT %stray is not an instruction of this")


@pytest.mark.parametrize("field,value,match", [
    ("name", "p0", "instruction name %p0 is not unique"),  # the parameter's name
    ("shape", None, "has no shape"),
    ("opcode", "frobnicate", "unknown opcode"),
])
def test_a_broken_instruction_field(field: str, value: object, match: str) -> None:
    m, _, _, n = simple_module()
    setattr(n, field, value)
    fails_verify(m, match)


def test_parameter_numbers_dense_and_unique() -> None:
    p0, p2 = param("f32[2]", 0), param("f32[2]", 2)
    comp = entry_with([p0, p2, inst("add", [p0, p2], "f32[2]")])
    fails_verify(module_of(comp), "parameter 1 is missing")
    q0, q1 = param("f32[2]", 0, "a"), param("f32[2]", 0, "b")
    comp = entry_with([q0, q1, inst("add", [q0, q1], "f32[2]")])
    fails_verify(module_of(comp), "parameter number 0 is already used by %a")


def test_use_before_definition() -> None:
    p = param("f32[2]")
    n = inst("negate", [p], "f32[2]", "n")
    comp = entry_with([n, p])
    comp.root = n
    fails_verify(module_of(comp), "operand %p0 is used before it is defined")


def test_operand_from_another_computation() -> None:
    stray = param("f32[2]", 0, "stray")
    p = param("f32[2]")
    comp = entry_with([p, inst("add", [p, stray], "f32[2]")])
    fails_verify(module_of(comp), "operand %stray is not an instruction of this")


def test_users_lists_are_consistent() -> None:
    m, _, p, n = simple_module()
    p.users.remove(n)
    fails_verify(m, "does not list it as a user")


def test_operand_count_from_the_table() -> None:
    p = param("f32[2]")
    comp = entry_with([p, inst("negate", [p, p], "f32[2]")])
    fails_verify(module_of(comp), "expects 1 operand, got 2")
    comp = entry_with([p2 := param("f32[]"), inst("reduce", [p2], "f32[]")])
    fails_verify(module_of(comp), "expects at least 2 operands, got 1")


def test_invalid_layout_and_negative_dims() -> None:
    from hlotools.ir.shape import Layout, Shape
    from hlotools.ir.types import F32
    m, _, _, n = simple_module()
    n.shape = Shape(F32, (2,), Layout((1, 0)))
    fails_verify(m, "contains 2 elements, but the shape has 1 dimensions")
    n.shape = Shape(F32, (-2,), None)
    fails_verify(m, "negative dimension")


def test_called_computation_must_be_in_the_module() -> None:
    add = computation("add", ["f32[]", "f32[]"])
    p, z = param("f32[4]"), param("f32[]", 1)
    comp = entry_with([p, z, inst("reduce", [p, z], "f32[]", dimensions=(0,), to_apply=add)])
    fails_verify(module_of(comp), "called computation %add is not in the module")
    verify(module_of(comp, add))


def test_error_location_comes_from_the_instruction() -> None:
    m, _, _, n = simple_module()
    n.shape = S("f32[3]")
    n.line, n.column = 12, 5
    with pytest.raises(HloVerifyError) as e:
        verify(m)
    assert (e.value.line, e.value.column) == (12, 5)
    assert "%n (negate) in computation %main" in e.value.message


def test_compare_direction_enum() -> None:
    p = param("f32[2]")
    c = inst("compare", [p, p], "pred[2]", direction=Enum("GT"))
    verify(module_of(entry_with([p, c])))


def test_fusion_kind() -> None:
    f = computation("f", ["f32[2]"], "negate")
    p = param("f32[2]")
    comp = entry_with([p, inst("fusion", [p], "f32[2]", calls=f, kind=Enum("kFancy"))])
    fails_verify(module_of(comp, f), "unknown fusion kind kFancy")


def test_custom_call_operand_layout_constraints() -> None:
    text = """ENTRY e {
  a = f32[2,3] parameter(0)
  ROOT c = f32[3] custom-call(a), custom_call_target="x", operand_layout_constraints={%C}
}"""
    accepts(text.replace("%C", "f32[2,3]{0,1}"))
    p = param("f32[2,3]")
    for constraint, needle in (("{f32[3,2]{0,1}}", "shape 0 f32[3,2] is not compatible"),
                               ("{f32[2,3], f32[2]}", "has 2 shapes for 1 operands")):
        c = inst("custom-call", [p], "f32[3]", custom_call_target="x",
                 operand_layout_constraints=decode_attr("operand_layout_constraints", constraint))
        with pytest.raises(HloVerifyError, match=re.escape(needle)):
            verify(module_of(entry_with([p, c])))


ALIASED = """ENTRY e {
  p = (f32[2], s32[]) parameter(0)
  x = f32[2] get-tuple-element(p), index=0
  ROOT t = (f32[2], f32[2]) tuple(x, x)
}"""


def test_input_output_alias_indices() -> None:
    accepts(ALIASED, "HloModule m, input_output_alias={ {1}: (0, {0}, may-alias) }")
    rejects(ALIASED, "output index {2} is not valid",
            "HloModule m, input_output_alias={ {2}: (0, {0}) }")
    rejects(ALIASED, "index {3} is not valid for parameter 0",
            "HloModule m, input_output_alias={ {0}: (0, {3}) }")
    rejects(ALIASED, "names parameter 1, but the entry has 1",
            "HloModule m, input_output_alias={ {0}: (1, {}) }")
    rejects(ALIASED, "with a parameter buffer of another size",
            "HloModule m, input_output_alias={ {0}: (0, {1}) }")


def test_buffer_donor_indices() -> None:
    accepts(ALIASED, "HloModule m, buffer_donor={ (0, {0}), (0, {1}) }")
    rejects(ALIASED, "buffer_donor index {2} is not valid",
            "HloModule m, buffer_donor={ (0, {2}) }")


def test_called_computations_are_required() -> None:
    c0 = param("s32[]", 0, "c0")
    cond = entry_with([c0, inst("compare", [c0, c0], "pred[]", "lt", direction=Enum("LT"))], "cond")
    p = param("s32[]")
    w = inst("while", [p], "s32[]", condition=cond)
    fails_verify(module_of(entry_with([p, w]), cond), "missing required attribute 'body'")
    x, z = param("f32[4]"), param("f32[]", 1)
    r = inst("reduce", [x, z], "f32[]", dimensions=(0,))
    fails_verify(module_of(entry_with([x, z, r])), "missing required attribute 'to_apply'")


def test_recursive_computations_are_rejected() -> None:
    loop = Computation("loop")
    x = loop.add_instruction(param("f32[]", 0, "x"))
    c = loop.add_instruction(inst("call", [x], "f32[]", "again"))
    loop.root = c
    c.attrs["to_apply"] = loop
    p = param("f32[]")
    m = module_of(entry_with([p, inst("call", [p], "f32[]", "go", to_apply=loop)]), loop)
    fails_verify(m, "already on the call stack")
