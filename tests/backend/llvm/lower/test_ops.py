"""The LLVM backend's own machinery on small modules, checked bit for bit against the
interpreter: buffer reuse, in-place while state, donated (aliased) buffers, relayouts across
calls and tuples. The per-opcode cases are tests/ops/'s."""
from __future__ import annotations

import numpy as np

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from tests.support.runner import run_both, same_bits


def test_buffers_are_reused_between_values_not_alive_together() -> None:
    ops = "\n".join(f"  x{i + 1} = f32[1024] exponential(x{i})" for i in range(20))
    text = f"HloModule m\nENTRY e {{\n  x0 = f32[1024] parameter(0)\n{ops}\n  ROOT r = f32[1024] negate(x20)\n}}\n"
    m = hlotools.parse_module(text)
    from hlotools.backend.llvm.driver.runtime import CompiledModule
    c = CompiledModule(m, implicit_fusion=False)  # every op materialised
    assert c.arena_bytes <= 2 * 4096, c.arena_bytes  # two live buffers at a time, not twenty
    x = np.linspace(-1, 0, 1024).astype(np.float32) * 1e-3
    np.testing.assert_allclose(c([x])[0], evaluate(m, [x])[0], rtol=1e-5)


def test_while_state_is_updated_in_place() -> None:
    """A scan body (pass-through weights, dynamic-update-slice of the stacked outputs) gets
    its state leaves as outputs: no per-iteration copy of the big buffers."""
    text = """HloModule m
cond { p = (s32[], f32[64,256], f32[256]) parameter(0)  i = s32[] get-tuple-element(p), index=0
       n = s32[] constant(64)  ROOT lt = pred[] compare(i, n), direction=LT }
body { p = (s32[], f32[64,256], f32[256]) parameter(0)
       i = s32[] get-tuple-element(p), index=0  acc = f32[64,256] get-tuple-element(p), index=1
       w = f32[256] get-tuple-element(p), index=2
       f = f32[] convert(i)  fb = f32[256] broadcast(f), dimensions={}  row = f32[256] add(w, fb)
       r = f32[1,256] reshape(row)  z = s32[] constant(0)
       acc2 = f32[64,256] dynamic-update-slice(acc, r, i, z)
       one = s32[] constant(1)  i1 = s32[] add(i, one)
       ROOT t = (s32[], f32[64,256], f32[256]) tuple(i1, acc2, w) }
ENTRY e {
  w = f32[256] parameter(0)
  z = s32[] constant(0)  zf = f32[] constant(0)  acc = f32[64,256] broadcast(zf), dimensions={}
  init = (s32[], f32[64,256], f32[256]) tuple(z, acc, w)
  ROOT r = (s32[], f32[64,256], f32[256]) while(init), condition=cond, body=body
}"""
    from hlotools.backend.llvm.codegen.module import ModuleCompiler
    m = hlotools.parse_module(text)
    mc = ModuleCompiler(m)
    mc.compile()
    body = next(c for c in m.computations if c.name == "body")
    assert mc.functions[(id(body), True)].alias_safe == {1, 2}  # the counter is read after its update
    w = np.linspace(0, 1, 256).astype(np.float32)
    same_bits(*run_both(text, [w]))


def test_input_output_alias_updates_the_donated_buffer_in_place() -> None:
    text = """HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  cache = f32[64,32] parameter(0)
  row = f32[1,32] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT u = f32[64,32] dynamic-update-slice(cache, row, i, z)
}"""
    m = hlotools.parse_module(text)
    c = compile_module(m)
    assert c.stats.donated == {0: 0}
    assert c.arena_bytes == 0  # no temporary: the update happens in the donated buffer
    cache = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    before = cache.copy()
    row = -np.ones((1, 32), np.float32)
    for i in (0, 5, 63, 100):
        same_bits(c([cache, row, np.int32(i)]), evaluate(m, [cache, row, np.int32(i)]))
    assert np.array_equal(cache, before)  # the caller's array is never written


def test_aliased_function_is_correct_without_aliasing() -> None:
    """The generated code copies when the caller passes distinct memory for an aliased result."""
    text = """HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }
ENTRY e {
  a = f32[16] parameter(0)
  b = f32[16] parameter(1)
  i = s32[] parameter(2)
  s = f32[2] slice(b), slice={[0:2]}
  u = f32[16] dynamic-update-slice(a, s, i)
  ROOT t = (f32[16], f32[16]) tuple(u, b)
}"""
    m = hlotools.parse_module(text)
    c = compile_module(m)
    c.stats.donated = {}  # as if the caller did not alias
    a = np.arange(16, dtype=np.float32)
    b = -np.arange(16, dtype=np.float32)
    same_bits(c([a, b, np.int32(3)]), evaluate(m, [a, b, np.int32(3)]))


def test_call_across_different_layouts_relayouts() -> None:
    """Before layout assignment a call's operand and the callee's parameter may disagree on
    the layout; the callee still sees the right logical values."""
    text = """HloModule m
f { p = f32[3,4]{1,0} parameter(0)  ROOT n = f32[3,4]{0,1} negate(p) }
ENTRY e {
  x = f32[4,3]{1,0} parameter(0)
  t = f32[3,4]{0,1} transpose(x), dimensions={1,0}
  c = f32[3,4]{1,0} call(t), to_apply=f
  ROOT r = f32[3,4]{1,0} add(c, t)
}"""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    got, want = run_both(text, [x])
    same_bits(got, want)
    assert not np.any(got[0])  # -t + t


def test_get_tuple_element_with_another_layout_than_its_tuple() -> None:
    """After call inlining (before layout assignment) a get-tuple-element may declare another
    layout than the tuple element it reads: it is a relayout copy, not an alias."""
    text = """HloModule m
ENTRY e {
  x = f32[3,4]{1,0} parameter(0)
  n = f32[3,4]{0,1} negate(x)
  t = (f32[3,4]{0,1}, f32[3,4]{1,0}) tuple(n, x)
  g = f32[3,4]{1,0} get-tuple-element(t), index=0
  ROOT r = f32[3,4]{1,0} add(g, x)
}"""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got, want = run_both(text, [x])
    same_bits(got, want)
    assert not np.any(got[0])
