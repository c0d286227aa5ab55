"""Async chains with late binding (XLA 2026-08): the parser's rewriting of the wrapped
computation, the verifier's CheckAsyncOp rules, the producer trace, the async-computation
exemptions, error locations inside synthesised computations, and the round trip."""
from __future__ import annotations

import pytest

import hlotools
from hlotools.errors import HloVerifyError
from hlotools.ir.module import Module
from hlotools.ir.shape_inference_async import is_shape_prefix
from hlotools.ir.shape_text import parse_shape_text
from hlotools.ir.verifier import verify
from hlotools.text.printer import print_module

ADD2 = """{
    p0 = f32[] parameter(0)
    p1 = f32[] parameter(1)
    ROOT add = f32[] add(p0, p1)
  }"""


def module(text: str) -> Module:
    return hlotools.parse_module("HloModule m\n" + text, "t.hlo", verify=False)


def rejects(text: str, needle: str) -> HloVerifyError:
    with pytest.raises(HloVerifyError) as e:
        verify(module(text))
    assert needle in e.value.message, e.value.message
    return e.value


def round_trips_and_verifies(text: str) -> str:
    """print(parse(x)) parses, verifies and prints the same."""
    m = module(text)
    verify(m)
    once = print_module(m)
    again = hlotools.parse_module(once, "rt.hlo", verify=False)
    verify(again)
    assert print_module(again) == once
    return once


def shape(text: str):  # type: ignore[no-untyped-def]
    return parse_shape_text(text)[0]


CALL_LATE = f"""
ENTRY main {{
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  call-start = ((), (), s32[]) call-start(), to_apply={ADD2}
  call-update = ((f32[], f32[]), f32[], s32[]) call-update(call-start, p0, p1)
  ROOT call-done = f32[] call-done(call-update)
}}"""


def test_call_start_binds_operands_and_output_late() -> None:
    m = module(CALL_LATE)
    done = m.entry.root
    wrapped = done.attrs["calls"]
    # XLA's parser takes the callee's signature for the wrapped call (2 parameters, f32[]).
    assert [p.shape.to_text(False) for p in wrapped.parameters] == ["f32[]", "f32[]"]
    assert wrapped.root.opcode == "call" and len(wrapped.root.operands) == 2
    assert wrapped.root.shape.to_text(False) == "f32[]"
    round_trips_and_verifies(CALL_LATE)


def test_custom_call_output_and_operands_bound_by_update() -> None:
    text = """
ENTRY main {
  p0 = s32[1024] parameter(0)
  p1 = s32[] parameter(1)
  cc-start = ((), (), s32[]) custom-call-start(), custom_call_target="foo"
  cc-update = ((s32[1024], s32[]), s32[1024], s32[]) custom-call-update(cc-start, p0, p1)
  ROOT cc-done = s32[1024] custom-call-done(cc-update)
}"""
    wrapped = module(text).entry.root.attrs["calls"]
    # The update appends two parameters to the wrapped custom-call and binds its result.
    assert [p.name for p in wrapped.instructions] == ["param_0", "param_1", "custom-call"]
    assert wrapped.root.operands == wrapped.parameters
    assert wrapped.root.shape.to_text(False) == "s32[1024]"
    round_trips_and_verifies(text)


def test_updates_bind_one_operand_each_and_start_may_bind_a_prefix() -> None:
    round_trips_and_verifies(f"""
ENTRY main {{
  p0 = f32[] parameter(0)
  p1 = f32[] parameter(1)
  s = ((f32[]), (), s32[]) call-start(p0), to_apply={ADD2}
  u = ((f32[], f32[]), (), ()) call-update(s, p1)
  ROOT d = f32[] call-done(u)
}}""")


def test_incomplete_chain_ending_at_the_start_verifies() -> None:
    round_trips_and_verifies(f"""
ENTRY main {{
  p0 = f32[] parameter(0)
  ROOT s = ((), (), s32[]) fusion-start(), kind=kLoop, calls={ADD2}
}}""")


def test_done_needs_every_operand_bound() -> None:
    rejects(f"""
ENTRY main {{
  p0 = f32[] parameter(0)
  s = ((), (), s32[]) call-start(), to_apply={ADD2}
  u = ((f32[]), (), s32[]) call-update(s, p0)
  ROOT d = f32[] call-done(u)
}}""", "expects the operands of the previous async instruction to be fully bound")


def test_binding_more_operands_than_the_callee_takes_is_rejected() -> None:
    rejects("""
ENTRY main {
  p0 = f32[] parameter(0)
  s = ((), (), s32[]) call-start(), to_apply={
    x = f32[] parameter(0)
    ROOT n = f32[] negate(x)
  }
  u = ((f32[], f32[]), (), s32[]) call-update(s, p0, p0)
  ROOT d = f32[] call-done(u)
}""", "takes 1 parameters but the call has 2 operands")


def test_fixed_arity_op_starts_with_placeholder_parameters() -> None:
    # XLA gives a dot-start() two f32[1] parameters until updates bind the real operands.
    m = module("""
ENTRY main {
  ROOT s = ((), (), s32[]) dot-start()
}""")
    wrapped = m.entry.root.attrs["calls"]
    assert [p.shape.to_text(False) for p in wrapped.parameters] == ["f32[1]", "f32[1]"]
    with pytest.raises(HloVerifyError, match=r"declared shape \(\) does not match the inferred shape f32\[1,1\]"):
        verify(m)


EXPLICIT = """
wrapped {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  ROOT add = f32[2,3] add(a, b)
}

ENTRY main {
  p0 = f32[2,3] parameter(0)
  p1 = f32[2,3] parameter(1)
  s = ((), OUT, s32[]) async-start(), calls=wrapped
  u = ((f32[2,3], f32[2,3]), OUT, s32[]) async-update(s, p0, p1)
  ROOT d = f32[2,3] async-done(u)
}"""


def test_explicit_async_start_with_zero_operands() -> None:
    round_trips_and_verifies(EXPLICIT.replace("OUT", "f32[2,3]"))
    round_trips_and_verifies(EXPLICIT.replace("OUT", "()"))  # the output bound at the done


def test_async_output_must_be_a_prefix_of_the_wrapped_result() -> None:
    rejects(EXPLICIT.replace("OUT", "f32[3,2]"), "the async shape at index {1} f32[3,2] must be a prefix")


def test_async_update_operands_must_match_the_new_bound_shapes() -> None:
    rejects(EXPLICIT.replace("OUT", "()").replace("async-update(s, p0, p1)", "async-update(s, p0)"),
            "has 1 new operands, but the shape indicates 2 new bound parameters")
    rejects(EXPLICIT.replace("OUT", "()").replace("(f32[2,3], f32[2,3]), ()", "(f32[2,3], f32[3,2]), ()"),
            "must be a prefix of the parameters")


def test_async_update_may_not_unbind_what_its_operand_bound() -> None:
    rejects("""
wrapped {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}

ENTRY main {
  p0 = f32[2] parameter(0)
  s = ((f32[2]), f32[2], s32[]) async-start(p0), calls=wrapped
  u = ((f32[2]), (), s32[]) async-update(s)
  ROOT d = f32[2] async-done(u)
}""", "the result shape f32[2] of its operand must be a prefix of its own ()")


def test_done_of_a_plain_tuple_has_no_producer() -> None:
    rejects("""
ENTRY main {
  p0 = f32[2,3] parameter(0)
  p1 = u32[] parameter(1)
  t = ((f32[2,3]), f32[2,3], u32[]) tuple(p0, p0, p1)
  ROOT d = f32[2,3] custom-call-done(t)
}""", "expects its operand to trace to an async-start or async-update, found tuple")


def test_chain_through_a_while_loop_traces_to_its_start() -> None:
    state = "(f32[4], ((f32[4]), f32[4], s32[]))"
    round_trips_and_verifies(f"""
cond {{
  s = {state} parameter(0)
  ROOT t = pred[] constant(true)
}}

body {{
  s = {state} parameter(0)
  a = ((f32[4]), f32[4], s32[]) get-tuple-element(s), index=1
  d = f32[4] negate-done(a)
  n = ((f32[4]), f32[4], s32[]) negate-start(d)
  ROOT r = {state} tuple(d, n)
}}

ENTRY main {{
  p0 = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) negate-start(p0)
  i = {state} tuple(p0, s)
  w = {state} while(i), condition=cond, body=body
  a = ((f32[4]), f32[4], s32[]) get-tuple-element(w), index=1
  ROOT d = f32[4] negate-done(a)
}}""")


BARRIER = """
comp {
  p = (f32[4], (f32[4], u32[])) parameter(0)
  g = f32[4] get-tuple-element(p), index=0
  ROOT r = f32[4] BODY
}

ENTRY main {
  x = f32[4] parameter(0)
  c = (f32[4], u32[]) custom-call(), custom_call_target="BarrierStart"
  t = (f32[4], (f32[4], u32[])) tuple(x, c)
  s = (((f32[4], (f32[4], u32[]))), f32[4], u32[]) async-start(t), calls=comp ATTRS
  ROOT d = f32[4] async-done(s)
}"""


def test_async_barrier_computation_may_hold_get_tuple_elements() -> None:
    round_trips_and_verifies(BARRIER.replace("BODY", "negate(g)").replace("ATTRS", ""))


def test_async_computation_with_other_instructions_is_rejected_on_the_main_thread_only() -> None:
    body = BARRIER.replace("BODY", "negate(e)").replace(
        "  ROOT r", "  e = f32[4] exponential(g)\n  ROOT r")
    rejects(body.replace("ATTRS", ""), "expected to contain only the root and parameter instructions")
    verify(module(body.replace("ATTRS", ', frontend_attributes={_collectives_group="0"}')))
    threaded = body.replace("ATTRS", ', async_execution_thread="side"').replace(
        "  ROOT r = f32[4] negate(e)\n}", '  ROOT r = f32[4] negate(e)\n}, execution_thread="side"')
    verify(module(threaded))


def test_errors_inside_a_synthesised_wrapped_computation_point_at_the_async_start() -> None:
    e = rejects("""
ENTRY main {
  p0 = f32[2] parameter(0)
  s = ((f32[2]), f32[3], s32[]) negate-start(p0)
  ROOT d = f32[3] negate-done(s)
}""", "in computation %async_wrapped_negate")
    assert (e.line, e.column) == (5, 33)  # the negate-start opcode


def test_errors_in_an_explicit_wrapped_computation_keep_their_own_line() -> None:
    e = rejects("""
wrapped {
  a = f32[2] parameter(0)
  ROOT n = f32[3] negate(a)
}

ENTRY main {
  p0 = f32[2] parameter(0)
  s = ((f32[2]), f32[3], s32[]) async-start(p0), calls=wrapped
  ROOT d = f32[3] async-done(s)
}""", "declared shape f32[3] does not match")
    assert e.line == 5  # ROOT n


@pytest.mark.parametrize("prefix,full,expected", [
    ("()", "(f32[2], s32[])", True),
    ("()", "f32[2]", True),
    ("(f32[2])", "(f32[2], s32[])", True),
    ("(f32[2]{0})", "(f32[2], s32[])", True),  # layouts ignored
    ("(f32[2], s32[])", "(f32[2])", False),
    ("(s32[])", "(f32[2], s32[])", False),
    ("(f32[2])", "f32[2]", False),
    ("f32[2]", "f32[2]", True),
    ("((f32[2]), ())", "((f32[2], u32[]), (s32[]))", True),
])
def test_is_shape_prefix(prefix: str, full: str, expected: bool) -> None:
    assert is_shape_prefix(shape(prefix), shape(full)) is expected


def test_late_bound_sugar_prints_as_sugar() -> None:
    out = round_trips_and_verifies(CALL_LATE)
    assert "call-start = ((), (), s32[]) call-start(), to_apply=" in out
    assert "call-update(call-start, p0, p1)" in out and "call-done(call-update)" in out
    assert "async_wrapped" not in out and "async-start" not in out


def test_sugar_only_when_reading_it_back_rebuilds_the_same_wrapped_computation() -> None:
    m = module(CALL_LATE)
    wrapped = m.entry.root.attrs["calls"]
    wrapped.parameters[1].shape = shape("s32[]")  # no longer what the chain's shapes rebuild
    out = print_module(m)
    assert "async-start()" in out and "calls=async_wrapped_call" in out
    again = hlotools.parse_module(out, "rt.hlo", verify=False)
    assert print_module(again) == out
    assert again.entry.root.attrs["calls"].parameters[1].shape.to_text(False) == "s32[]"
