"""Trip-count proofs of the while-loop simplifier: 0 and 1 only when certain, None otherwise."""
from __future__ import annotations

import pytest

import hlotools
from hlotools.passes.base import PassContext
from hlotools.passes.while_loop_simplifier import WhileLoopSimplifier
from hlotools.passes.while_trip_count import small_trip_count


def loop_module(init: str, cond: str, step: str, ty: str = "s32") -> str:
    """A counter loop: state (ty[] i, f32[4] v); condition `cond` over i; body i = `step`."""
    return f"""HloModule m
cond {{
  s = ({ty}[], f32[4]) parameter(0)
  i = {ty}[] get-tuple-element(s), index=0
  {cond}
}}
body {{
  s = ({ty}[], f32[4]) parameter(0)
  i = {ty}[] get-tuple-element(s), index=0
  {step}
  v = f32[4] get-tuple-element(s), index=1
  v1 = f32[4] negate(v)
  ROOT t = ({ty}[], f32[4]) tuple(next, v1)
}}
ENTRY main {{
  p = f32[4] parameter(0)
  {init}
  init = ({ty}[], f32[4]) tuple(start, p)
  ROOT w = ({ty}[], f32[4]) while(init), condition=cond, body=body
}}
"""


def trips(text: str) -> int | None:
    m = hlotools.parse_module(text)
    loop = next(i for i in m.entry.instructions if i.opcode == "while")
    return small_trip_count(loop)


LT3 = "n = s32[] constant(3)\n  ROOT lt = pred[] compare(i, n), direction=LT"
INC = "one = s32[] constant(1)\n  next = s32[] add(i, one)"


@pytest.mark.parametrize("start,cond,step,expected", [
    ("5", LT3, INC, 0),
    ("2", LT3, INC, 1),
    ("0", LT3, INC, None),  # 3 trips: not simplified
    ("2", LT3, "one = s32[] constant(-1)\n  next = s32[] add(i, one)", None),  # counts away: never ends
    ("7", "n = s32[] constant(9)\n  ROOT gt = pred[] compare(i, n), direction=GE", INC, 0),
    ("2147483647", "z = s32[] constant(0)\n  ROOT gt = pred[] compare(i, z), direction=GT", INC, 1),  # s32 wraps
    ("1", "k = s32[] constant(1)\n  a = s32[] and(i, k)\n  z = s32[] constant(0)\n"
          "  ROOT ne = pred[] compare(a, z), direction=NE", INC, 1),  # odd start, one step to even
])
def test_counter_loops(start: str, cond: str, step: str, expected: int | None) -> None:
    text = loop_module(f"start = s32[] constant({start})", cond, step)
    assert trips(text) == expected


def test_unknown_start_or_float_arithmetic_gives_up() -> None:
    assert trips(loop_module("start = s32[] parameter(1)", LT3, INC)) is None
    f_cond = "n = f32[] constant(3)\n  ROOT lt = pred[] compare(i, n), direction=LT"
    f_step = "one = f32[] constant(0.1)\n  next = f32[] add(i, one)"
    assert trips(loop_module("start = f32[] constant(2.95)", f_cond, f_step, ty="f32")) is None
    assert trips(loop_module("start = f32[] constant(5)", f_cond, f_step, ty="f32")) == 0  # compares are exact


def test_condition_reading_state_the_body_computes_from_a_parameter() -> None:
    """i < 3 with i' = i + v[0]-ish data the evaluator cannot know: no proof of 1 trip."""
    text = loop_module("start = s32[] constant(2)", LT3,
                       "c = s32[] convert(v0)\n  next = s32[] add(i, c)").replace(
        "  i = s32[] get-tuple-element(s), index=0\n  c =",
        "  i = s32[] get-tuple-element(s), index=0\n  vv = f32[4] get-tuple-element(s), index=1\n"
        "  v0r = f32[1] slice(vv), slice={[0:1]}\n  v0 = f32[] reshape(v0r)\n  c =")
    assert trips(text) is None


def test_side_effecting_condition_blocks_removal() -> None:
    text = loop_module("start = s32[] constant(5)",
                       "n = s32[] constant(3)\n  lt = pred[] compare(i, n), direction=LT\n"
                       "  ROOT e = pred[] custom-call(lt), custom_call_target=\"log\", custom_call_has_side_effect=true",
                       INC)
    m = hlotools.parse_module(text)
    assert not WhileLoopSimplifier().run(m, PassContext())
