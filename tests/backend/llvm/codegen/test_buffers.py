"""In-place dynamic-update-slice fusions (buffers.py + placement.in_place_operand): a fusion whose
root updates one of its parameters writes into that operand's memory (XLA's in-place DUS
fusion), in a while body (the loop state is updated without a copy per step) and on a temp;
never when the updated parameter has another use or its buffer is also another operand."""
from __future__ import annotations

import numpy as np

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.codegen.module import CompiledFunction, ModuleCompiler
from hlotools.backend.llvm.codegen.placement import in_place_operand
from hlotools.backend.llvm.driver.runtime import CompiledModule

FUSED_DUS = """
fused_dus {
  p0 = f32[8,4,16] parameter(0)
  p1 = s32[] parameter(1)
  p2 = f32[4,16] parameter(2)
  b = f32[1,4,16] bitcast(p2)
  z = s32[] constant(0)
  ROOT d = f32[8,4,16] dynamic-update-slice(p0, b, p1, z, z)
}
"""

SCAN = """HloModule scan
""" + FUSED_DUS + """
cond {
  s = (s32[], f32[4,16], f32[8,4,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4,16], f32[8,4,16]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[4,16] get-tuple-element(s), index=1
  ys = f32[8,4,16] get-tuple-element(s), index=2
  two = f32[] constant(2)
  t = f32[4,16] broadcast(two), dimensions={}
  hn = f32[4,16] add(h, t)
  ys2 = f32[8,4,16] fusion(ys, i, hn), kind=kLoop, calls=fused_dus
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[4,16], f32[8,4,16]) tuple(i1, hn, ys2)
}
ENTRY e {
  h0 = f32[4,16] parameter(0)
  ys0 = f32[8,4,16] parameter(1)
  z = s32[] constant(0)
  t = (s32[], f32[4,16], f32[8,4,16]) tuple(z, h0, ys0)
  l = (s32[], f32[4,16], f32[8,4,16]) while(t), condition=cond, body=body
  ROOT ys = f32[8,4,16] get-tuple-element(l), index=2
}
"""

TEMP = """HloModule temp
""" + FUSED_DUS + """
ENTRY e {
  p = f32[8,4,16] parameter(0)
  u = f32[4,16] parameter(1)
  i = s32[] parameter(2)
  x = f32[8,4,16] negate(p)
  f = f32[8,4,16] fusion(x, i, u), kind=kLoop, calls=fused_dus
  ROOT n = f32[8,4,16] multiply(f, f)
}
"""


def _functions(text: str) -> dict[str, CompiledFunction]:
    mc = ModuleCompiler(hlotools.parse_module(text))
    mc.compile()
    return {cf.comp.name: cf for cf in mc.functions.values()}


def _same_as_interpreter(text: str, args: list[np.ndarray]) -> None:
    m = hlotools.parse_module(text)
    got = CompiledModule(m)(args)
    want = evaluate(m, args)
    for g, w in zip(got, want):
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes()


def _ints(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(-4, 5, size=shape).astype(np.float32)


def test_the_fused_update_is_in_place_in_a_while_body() -> None:
    fs = _functions(SCAN)
    assert 2 in fs["body"].alias_safe  # ys: the fusion updates the loop state in place
    body_plan = fs["body"].plan
    assert body_plan is not None
    fusion = next(i for i in fs["body"].comp.instructions if i.name == "ys2")
    assert id(fusion) in body_plan.in_place
    assert fs["fused_dus"].alias_safe == {0}  # its function skips the copy when out == param 0
    _same_as_interpreter(SCAN, [_ints((4, 16), 0), _ints((8, 4, 16), 1)])


def test_the_fused_update_shares_a_temp_buffer() -> None:
    fs = _functions(TEMP)
    plan = fs["e"].plan
    assert plan is not None
    by_name = {i.name: i for i in fs["e"].comp.instructions}
    assert id(by_name["f"]) in plan.in_place
    assert plan.buffer_location(by_name["f"]) == plan.buffer_location(by_name["x"])
    _same_as_interpreter(TEMP, [_ints((8, 4, 16), 2), _ints((4, 16), 3), np.array(5, np.int32)])
    _same_as_interpreter(TEMP, [_ints((8, 4, 16), 2), _ints((4, 16), 3), np.array(-3, np.int32)])  # clamped


def test_not_in_place_when_the_parameter_has_another_use() -> None:
    other_use = TEMP.replace("  ROOT d = f32[8,4,16] dynamic-update-slice(p0, b, p1, z, z)\n",
                             "  d = f32[8,4,16] dynamic-update-slice(p0, b, p1, z, z)\n"
                             "  ROOT a = f32[8,4,16] add(d, p0)\n")
    m = hlotools.parse_module(other_use)
    f = next(i for i in m.entry.instructions if i.name == "f")  # type: ignore[union-attr]
    assert in_place_operand(f) is None
    fs = _functions(other_use)
    assert fs["e"].plan is not None and not fs["e"].plan.in_place
    _same_as_interpreter(other_use, [_ints((8, 4, 16), 4), _ints((4, 16), 5), np.array(2, np.int32)])


SAME_BUFFER = """HloModule same
fused_dus {
  p0 = f32[1,4,16] parameter(0)
  p1 = s32[] parameter(1)
  p2 = f32[4,16] parameter(2)
  b = f32[1,4,16] bitcast(p2)
  z = s32[] constant(0)
  ROOT d = f32[1,4,16] dynamic-update-slice(p0, b, p1, z, z)
}
ENTRY e {
  p = f32[1,4,16] parameter(0)
  i = s32[] parameter(1)
  x = f32[1,4,16] negate(p)
  xs = f32[4,16] bitcast(x)
  f = f32[1,4,16] fusion(x, i, xs), kind=kLoop, calls=fused_dus
  ROOT n = f32[1,4,16] multiply(f, f)
}
"""


def test_not_in_place_when_the_update_is_the_same_buffer() -> None:
    fs = _functions(SAME_BUFFER)
    plan = fs["e"].plan
    assert plan is not None
    by_name = {i.name: i for i in fs["e"].comp.instructions}
    assert plan.leaves[id(by_name["xs"])] == plan.leaves[id(by_name["x"])]  # a bitcast: x's buffer
    assert id(by_name["f"]) not in plan.in_place
    _same_as_interpreter(SAME_BUFFER, [_ints((1, 4, 16), 6), np.array(0, np.int32)])
