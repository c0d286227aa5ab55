"""Control flow, calls, async wrappers, single-device collectives and the evaluator itself."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.errors import HloRuntimeError, HloUnsupportedError
from hlotools.interpreter import Evaluator
from tests.support.helpers import scalar_computation
from tests.support.runner import opcode, run, run1, run_both, same_bits

LOOP = """HloModule t
cond {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[] get-tuple-element(p), index=1
  one = s32[] constant(1)
  two = f32[] constant(2)
  i1 = s32[] add(i, one)
  x1 = f32[] multiply(x, two)
  ROOT t = (s32[], f32[]) tuple(i1, x1)
}
ENTRY e {
  x = f32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[]) tuple(zero, x)
  ROOT w = (s32[], f32[]) while(init), condition=cond, body=body
}"""

BRANCHES = """HloModule t
neg {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
dbl {
  a = f32[] parameter(0)
  ROOT d = f32[] add(a, a)
}
sq {
  a = f32[] parameter(0)
  ROOT s = f32[] multiply(a, a)
}
ENTRY e {
  i = s32[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(i, x, x, x), branch_computations={neg, dbl, sq}
}"""


@opcode("compare", "add", "multiply", "while")
def test_while_loop(backend: str) -> None:
    i, x = run(LOOP, np.float32(3), backend=backend)
    assert i.tolist() == 5 and x.tolist() == 96.0


@opcode("compare", "add", "multiply", "while")
def test_while_iteration_limit_is_a_clear_error() -> None:
    module = hlotools.parse_module(LOOP, verify=False)
    with pytest.raises(HloRuntimeError, match="more than 2 iterations"):
        evaluate(module, [np.float32(1)], max_while_iterations=2)


@opcode("negate", "add", "multiply", "conditional")
@pytest.mark.parametrize("index,want", [(0, -3.0), (1, 6.0), (2, 9.0), (3, 9.0), (-1, 9.0), (100, 9.0)])
def test_conditional_index_out_of_range_runs_last_branch(index: int, want: float, backend: str) -> None:
    assert run1(BRANCHES, np.int32(index), np.float32(3), backend=backend).tolist() == want


@opcode("negate", "conditional")
def test_conditional_pred_form(backend: str) -> None:
    text = """HloModule t
neg {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
id {
  ROOT a = f32[] parameter(0)
}
ENTRY e {
  p = pred[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(p, x, x), true_computation=neg, false_computation=id
}"""
    assert run1(text, np.bool_(True), np.float32(2), backend=backend).tolist() == -2.0
    assert run1(text, np.bool_(False), np.float32(2), backend=backend).tolist() == 2.0


@opcode("negate", "map", "call", "fusion")
def test_call_fusion_map(backend: str) -> None:
    text = "HloModule t\n" + scalar_computation("f", "maximum") + """fused {
  p0 = f32[3] parameter(0)
  ROOT n = f32[3] negate(p0)
}
ENTRY e {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  m = f32[3] map(x, y), dimensions={0}, to_apply=f
  c = f32[3] call(m), to_apply=fused
  ROOT r = f32[3] fusion(c), kind=kLoop, calls=fused
}"""
    got = run1(text, np.array([1, 5, -2], np.float32), np.array([3, 4, -7], np.float32), backend=backend)
    assert got.tolist() == [3, 5, -2]


@opcode("reshape", "concatenate", "reduce", "map")
def test_map_with_a_non_elementwise_body_runs_per_element() -> None:
    text = "HloModule t\n" + scalar_computation("g", "add") + """f {
  a = f32[] parameter(0)
  unused = f32[] parameter(1)
  b = f32[1] reshape(a)
  c = f32[2] concatenate(b, b), dimensions={0}
  z = f32[] constant(0)
  ROOT s = f32[] reduce(c, z), dimensions={0}, to_apply=g
}
ENTRY e {
  x = f32[3] parameter(0)
  ROOT m = f32[3] map(x, x), dimensions={0}, to_apply=f
}"""
    assert run1(text, np.array([1, 2, 3], np.float32)).tolist() == [2, 4, 6]


@opcode("negate", "async-start", "async-update", "async-done")
def test_async_call_runs_synchronously(backend: str) -> None:
    text = """HloModule t
callee {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}
ENTRY e {
  x = f32[2] parameter(0)
  s = ((f32[2]), f32[2], s32[]) async-start(x), calls=callee
  u = ((f32[2]), f32[2], s32[]) async-update(s), calls=callee
  ROOT d = f32[2] async-done(u), calls=callee
}"""
    assert run1(text, np.array([1, -2], np.float32), backend=backend).tolist() == [-1, 2]


@opcode("all-reduce", "collective-permute", "replica-id")
def test_single_device_collectives(backend: str) -> None:
    text = "HloModule t\n" + scalar_computation("add", "add") + """ENTRY e {
  x = f32[2] parameter(0)
  ar = f32[2] all-reduce(x), replica_groups={}, to_apply=add
  cp = f32[2] collective-permute(ar), source_target_pairs={{0,1}}
  rid = u32[] replica-id()
  ROOT t = (f32[2], f32[2], u32[]) tuple(ar, cp, rid)
}"""
    ar, cp, rid = run(text, np.array([1, 2], np.float32), backend=backend)
    assert ar.tolist() == [1, 2] and cp.tolist() == [0, 0] and rid.tolist() == 0


@opcode("after-all", "infeed")
def test_errors_name_the_instruction_and_place() -> None:
    module = hlotools.parse_module("""HloModule t
ENTRY e {
  t = token[] after-all()
  ROOT i = ((f32[2]), token[]) infeed(t)
}""", verify=False)
    with pytest.raises(HloUnsupportedError) as info:
        evaluate(module, [])
    err = info.value
    assert "infeed %i" in err.message and err.line == 4


@opcode("compare", "add", "multiply", "while")
def test_evaluator_call_is_reusable() -> None:
    module = hlotools.parse_module(LOOP, verify=False)
    ev = Evaluator(module)
    body = module.computation("body")
    assert body is not None
    out = ev.call(body, [(np.asarray(np.int32(1)), np.asarray(np.float32(4)))])
    assert out[0].tolist() == 2 and out[1].tolist() == 8.0
    out = ev.call(body, [out])
    assert out[0].tolist() == 3 and out[1].tolist() == 16.0


@opcode("concatenate")
def test_kernel_failure_on_unverified_input_is_an_hlo_error() -> None:
    # operand dims disagree with the declared shapes: the verifier would reject it
    module = hlotools.parse_module("""HloModule t
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[3] parameter(1)
  ROOT c = f32[6] concatenate(a, b), dimensions={1}
}""", verify=False)
    with pytest.raises(HloRuntimeError) as info:
        evaluate(module, [np.zeros(2, np.float32), np.zeros(3, np.float32)])
    assert "concatenate %c" in info.value.message and info.value.line == 5


@opcode("add", "scan")
def test_scan_forward_and_reverse(backend: str) -> None:
    text = """HloModule t
step {
  x = f32[] parameter(0)
  c = f32[] parameter(1)
  s = f32[] add(c, x)
  ROOT t = (f32[], f32[]) tuple(s, s)
}
ENTRY e {
  input = f32[4] parameter(0)
  init = f32[] constant(10)
  fwd = (f32[4], f32[]) scan(input, init), dimensions={0}, num_carries=1, to_apply=step
  rev = (f32[4], f32[]) scan(input, init), dimensions={0}, num_carries=1, is_reverse=true, to_apply=step
  ROOT r = ((f32[4], f32[]), (f32[4], f32[])) tuple(fwd, rev)
}"""
    fo, fc, ro, rc = run(text, np.array([1, 2, 3, 4], np.float32), backend=backend)
    assert fo.tolist() == [11, 13, 16, 20] and fc.tolist() == 20
    assert ro.tolist() == [20, 19, 17, 14] and rc.tolist() == 20


# ------------------------------------------------- LLVM backend vs interpreter, bit for bit
# Sweeps over types and edge values with the interpreter as the reference (run_both/same_bits):
# each case runs both backends itself, so it takes no `backend` fixture.


@opcode("while", "conditional", "call")
def test_while_conditional_call() -> None:
    text = """HloModule m
cond { p = (s32[], f32[3]) parameter(0)  i = s32[] get-tuple-element(p), index=0  n = s32[] constant(5)
       ROOT lt = pred[] compare(i, n), direction=LT }
body { p = (s32[], f32[3]) parameter(0)  i = s32[] get-tuple-element(p), index=0  x = f32[3] get-tuple-element(p), index=1
       one = s32[] constant(1)  i1 = s32[] add(i, one)  y = f32[3] add(x, x)  ROOT t = (s32[], f32[3]) tuple(i1, y) }
neg { a = f32[3] parameter(0)  ROOT n = f32[3] negate(a) }
same { a = f32[3] parameter(0)  ROOT c = f32[3] copy(a) }
ENTRY e {
  x = f32[3] parameter(0)
  k = s32[] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[3]) tuple(z, x)
  w = (s32[], f32[3]) while(init), condition=cond, body=body
  v = f32[3] get-tuple-element(w), index=1
  c = f32[3] conditional(k, v, v), branch_computations={neg, same}
  ROOT r = f32[3] call(c), to_apply=neg
}"""
    x = np.array([1, -2, 3], np.float32)
    for k in (0, 1, 7, -1):
        same_bits(*run_both(text, [x, np.int32(k)]))


@opcode("map", "batch-norm-inference")
def test_map_and_batch_norm_inference() -> None:
    text = """HloModule m
f { a = f32[] parameter(0)  b = f32[] parameter(1)  m = f32[] multiply(a, b)  ROOT s = f32[] subtract(m, a) }
ENTRY e {
  x = f32[2,3,4] parameter(0)
  y = f32[2,3,4] parameter(1)
  mp = f32[2,3,4] map(x, y), dimensions={0,1,2}, to_apply=f
  sc = f32[3] parameter(2)
  of = f32[3] parameter(3)
  mu = f32[3] parameter(4)
  va = f32[3] parameter(5)
  bn = f32[2,3,4] batch-norm-inference(mp, sc, of, mu, va), epsilon=0.001, feature_index=1
  ROOT t = (f32[2,3,4], f32[2,3,4]) tuple(mp, bn)
}"""
    rng = np.random.default_rng(9)
    args = [rng.standard_normal((2, 3, 4)).astype(np.float32) for _ in range(2)]
    args += [rng.standard_normal(3).astype(np.float32) for _ in range(3)] + [np.abs(rng.standard_normal(3)).astype(np.float32)]
    got, want = run_both(text, args)
    same_bits(got[:1], want[:1])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)


@opcode("scan")
@pytest.mark.parametrize("reverse", ["false", "true"])
def test_scan_cumulative_sum_with_carry(reverse: str) -> None:
    text = f"""HloModule m
step {{ x = f32[3] parameter(0)  c = f32[3] parameter(1)  s = f32[3] add(x, c)  ROOT t = (f32[3], f32[3]) tuple(s, s) }}
ENTRY e {{
  xs = f32[5,3] parameter(0)
  z = f32[] constant(0)
  init = f32[3] broadcast(z), dimensions={{}}
  ROOT r = (f32[5,3], f32[3]) scan(xs, init), dimensions={{0}}, num_carries=1, is_reverse={reverse}, to_apply=step
}}"""
    xs = np.arange(15, dtype=np.float32).reshape(5, 3)
    same_bits(*run_both(text, [xs]))
