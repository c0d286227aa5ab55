"""Collectives on one device in the LLVM backend (lower/collective.py) vs the interpreter
(interpreter/collective.py): every lowered opcode, array and tuple (variadic, combined)
forms, the in-place collective-permute, layouts that differ between operand and result, the -start/-done pairs, permutes
that deliver and that do not (zeros), and collectives generated inside a consumer's loop.
Each module runs as written and after the -O2 pipeline hlo-run uses; copies are exact."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from hlotools.backend.llvm.driver.pipeline import optimise_module
from hlotools.errors import HloUnsupportedError

ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
ADD_S32 = "add_s32 {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\n"


def module(body: str, params: str) -> str:
    return f"HloModule m\n{ADD}{ADD_S32}ENTRY e {{\n{params}{body}}}\n"


def inputs(m: hlotools.Module, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    assert m.entry is not None
    out = []
    for p in m.entry.parameters:
        s = p.shape
        dt = s.dtype
        if np.dtype(dt).kind == "f":
            out.append(rng.standard_normal(s.dims).astype(dt))
        else:
            out.append(rng.integers(0, 15, s.dims).astype(dt))
    return out


@pytest.fixture(params=["as-written", "O2"])
def preset(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def run_llvm(text: str, preset: str, verify: bool = True) -> list[np.ndarray]:
    m = hlotools.parse_module(text, verify=verify)
    compiled = m if preset == "as-written" else optimise_module(m, "O2")
    return [np.asarray(g) for g in compile_module(compiled)(inputs(m))]


def assert_same(text: str, preset: str, verify: bool = True) -> list[np.ndarray]:
    m = hlotools.parse_module(text, verify=verify)
    want = [np.asarray(w) for w in evaluate(m, inputs(m))]
    got = run_llvm(text, preset, verify)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape and g.dtype == w.dtype, f"out{k}: {g.shape} {g.dtype} vs {w.shape} {w.dtype}"
        assert np.array_equal(g, w), f"out{k}: {g} != {w}"
    return got


P_8 = "  x = f32[8] parameter(0)\n"
P_2D = "  x = f32[4,6]{0,1} parameter(0)\n  y = s32[3,2] parameter(1)\n"


@pytest.mark.parametrize("op", [
    "all-reduce(x), replica_groups={}, to_apply=add",
    "all-reduce(x), channel_id=1, replica_groups={{0}}, to_apply=add",
    "all-gather(x), replica_groups={{0}}, dimensions={0}",
    "reduce-scatter(x), replica_groups={{0}}, dimensions={0}, to_apply=add",
    "all-to-all(x), replica_groups={{0}}, dimensions={0}",
    "collective-broadcast(x), replica_groups={{0}}",
    "collective-permute(x), source_target_pairs={{0,0}}",
])
def test_one_participant_is_the_operand(op: str, preset: str) -> None:
    got = assert_same(module(f"  ROOT r = f32[8] {op}\n", P_8), preset)
    m = hlotools.parse_module(module("  ROOT r = f32[8] copy(x)\n", P_8))
    assert np.array_equal(got[0], inputs(m)[0])


@pytest.mark.parametrize("pairs", ["{}", "{{0,1}}", "{{1,0},{0,1}}"])
def test_collective_permute_nobody_sends_here_gives_zeros(pairs: str, preset: str) -> None:
    text = module(f"  ROOT r = f32[8] collective-permute(x), source_target_pairs={pairs}\n", P_8)
    got = assert_same(text, preset)
    assert not got[0].any()


def test_collective_permute_of_u4_with_element_size_layout(preset: str) -> None:
    text = ("HloModule m\nENTRY e {\n  a = u4[18]{0:E(4)} parameter(0)\n"
            "  b = u4[18]{0:E(4)} collective-permute(a), source_target_pairs={{0,0}}\n"
            "  c = u4[18]{0:E(4)} collective-permute(a), source_target_pairs={}\n"
            "  ROOT t = (u4[18]{0:E(4)}, u4[18]{0:E(4)}) tuple(b, c)\n}\n")
    got = assert_same(text, preset)
    assert got[0].any() and not got[1].any()


def test_variadic_all_reduce_with_other_layouts(preset: str) -> None:
    """A tuple result whose leaves have other dims and layouts than each other and than
    their operands (layout_assignment_test_0026's shape)."""
    params = "  x = f32[4,6]{0,1} parameter(0)\n  y = f32[3,2] parameter(1)\n"
    body = ("  r = (f32[4,6]{1,0}, f32[3,2]{0,1}) all-reduce(x, y), replica_groups={}, to_apply=add\n"
            "  a = f32[4,6] get-tuple-element(r), index=0\n  b = f32[3,2] get-tuple-element(r), index=1\n"
            "  ROOT t = (f32[4,6], f32[3,2]) tuple(a, b)\n")
    assert_same(module(body, params), preset)


def test_variadic_all_to_all_and_all_gather(preset: str) -> None:
    body = ("  a2a = (f32[4,6], s32[3,2]) all-to-all(x, y), replica_groups={{0}}\n"
            "  ag = (f32[4,6], s32[3,2]) all-gather(x, y), replica_groups={{0}}, dimensions={1}\n"
            "  ROOT t = ((f32[4,6], s32[3,2]), (f32[4,6], s32[3,2])) tuple(a2a, ag)\n")
    assert_same(module(body, P_2D), preset)


@pytest.mark.parametrize("start", [
    "f32[8] all-reduce-start(x), replica_groups={}, to_apply=add",
    # the older (operand, result) form (hlofile_0502), which today's verifier rejects
    "(f32[8], f32[8]) all-reduce-start(x), replica_groups={}, to_apply=add",
])
def test_all_reduce_start_done(start: str, preset: str) -> None:
    body = f"  s = {start}\n  ROOT d = f32[8] all-reduce-done(s)\n"
    assert_same(module(body, P_8), preset, verify=start.startswith("f32"))


def test_all_gather_start_done(preset: str) -> None:
    body = ("  s = (f32[4,6]{0,1}, f32[4,6]{1,0}) all-gather-start(x), replica_groups={{0}}, dimensions={0}\n"
            "  ROOT d = f32[4,6]{1,0} all-gather-done(s)\n")
    assert_same(module(body, P_2D), preset)


def _operands(text: str) -> list[np.ndarray]:
    return inputs(hlotools.parse_module(text))


def test_combined_all_gather_start_done(preset: str) -> None:
    """((operands), (results)): both parts are the operands."""
    body = ("  s = ((f32[4,6], s32[3,2]), (f32[4,6], s32[3,2])) all-gather-start(x, y), "
            "replica_groups={{0}}, dimensions={0}\n"
            "  d = (f32[4,6], s32[3,2]) all-gather-done(s)\n"
            "  ROOT t = ((f32[4,6], s32[3,2]), ((f32[4,6], s32[3,2]), (f32[4,6], s32[3,2]))) tuple(d, s)\n")
    text = module(body, P_2D)
    x, y = _operands(text)
    got = assert_same(text, preset)
    for g, w in zip(got, [x, y] * 3):
        assert np.array_equal(g, w)


@pytest.mark.parametrize("pairs", ["{{0,0}}", "{{0,1},{1,2}}"])
def test_collective_permute_start_done(pairs: str, preset: str) -> None:
    body = (f"  s = (f32[4,6]{{0,1}}, f32[4,6]{{1,0}}, u32[], u32[]) collective-permute-start(x), "
            f"source_target_pairs={pairs}\n"
            "  ROOT d = f32[4,6] collective-permute-done(s)\n")
    got = assert_same(module(body, P_2D), preset)
    assert got[0].any() == (pairs == "{{0,0}}")


@pytest.mark.parametrize("pairs", ["{{0,0}}", "{{0,1}}"])
def test_combined_collective_permute_start_done(pairs: str, preset: str) -> None:
    """((operands), (results)) (parser_test_0163's shape): the results are the operands
    or zeros."""
    body = ("  s = ((f32[4,6], s32[3,2]), (f32[4,6], s32[3,2])) collective-permute-start(x, y), "
            f"source_target_pairs={pairs}\n"
            "  ROOT d = (f32[4,6], s32[3,2]) collective-permute-done(s)\n")
    text = module(body, P_2D)
    got = assert_same(text, preset)
    for g, w in zip(got, _operands(text)):
        assert np.array_equal(g, w if pairs == "{{0,0}}" else np.zeros_like(w))


def test_collective_inside_a_consumer_loop_and_ids(preset: str) -> None:
    """An array collective is elemental: generated inside its consumer's loop (implicit
    fusion) and in a fusion; replica-id and partition-id are 0."""
    body = ("  ar = f32[8] all-reduce(x), replica_groups={}, to_apply=add\n"
            "  cp = f32[8] collective-permute(ar), source_target_pairs={{0,0}}\n"
            "  sum = f32[8] add(cp, x)\n"
            "  id = u32[] replica-id()\n  pid = u32[] partition-id()\n"
            "  ROOT t = (f32[8], u32[], u32[]) tuple(sum, id, pid)\n")
    got = assert_same(module(body, P_8), preset)
    assert got[1] == 0 and got[2] == 0


def test_collective_in_a_while_body(preset: str) -> None:
    text = ("HloModule m\n" + ADD +
            "body {\n  p = (s32[], f32[8]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
            "  v = f32[8] get-tuple-element(p), index=1\n"
            "  ar = f32[8] all-reduce(v), replica_groups={}, to_apply=add\n"
            "  w = f32[8] add(ar, v)\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n"
            "  ROOT t = (s32[], f32[8]) tuple(j, w)\n}\n"
            "cond {\n  p = (s32[], f32[8]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
            "  n = s32[] constant(3)\n  ROOT c = pred[] compare(i, n), direction=LT\n}\n"
            "ENTRY e {\n  x = f32[8] parameter(0)\n  z = s32[] constant(0)\n"
            "  t = (s32[], f32[8]) tuple(z, x)\n"
            "  ROOT w = (s32[], f32[8]) while(t), condition=cond, body=body\n}\n")
    assert_same(text, preset)


@pytest.mark.parametrize("body, message", [
    ("  ROOT r = f32[16] all-gather(x), replica_groups={{0,1}}, dimensions={0}\n", r"all-gather %r: .*participant"),
    ("  ROOT r = f32[4] reduce-scatter(x), replica_groups={{0,1}}, dimensions={0}, to_apply=add\n",
     r"reduce-scatter %r: .*participant"),
])
def test_more_than_one_participant_is_refused_naming_the_instruction(body: str, message: str) -> None:
    m = hlotools.parse_module(module(body, P_8), verify=False)
    with pytest.raises(HloUnsupportedError, match=message):
        compile_module(m)


def in_place_permute(pairs: str, start: bool) -> str:
    head = ("HloModule m\nENTRY e {\n  x = f32[4,2] parameter(0)\n  o = f32[4,4] parameter(1)\n"
            "  z = s32[] constant(0)\n  t = (s32[], s32[]) tuple(z, z)\n")
    if start:
        return head + ("  s = (f32[4,2], f32[4,4], u32[], u32[]) collective-permute-start(x, o, t, t), "
                       f"source_target_pairs={pairs}, slice_sizes={{{{4,2}}}}\n"
                       "  d = f32[4,4] collective-permute-done(s)\n"
                       "  ROOT r = (f32[4,4], (f32[4,2], f32[4,4], u32[], u32[])) tuple(d, s)\n}\n")
    return head + (f"  ROOT r = f32[4,4] collective-permute(x, o, t, t), source_target_pairs={pairs}, "
                   "slice_sizes={{4,2}}\n}\n")


@pytest.mark.parametrize("start", [False, True])
def test_in_place_collective_permute_nobody_sends_here_gives_zeros(start: bool, preset: str) -> None:
    text = in_place_permute("{{0,1},{1,2}}", start)
    got = assert_same(text, preset, verify=False)
    assert not got[0].any()
    if start:
        assert np.array_equal(got[1], _operands(text)[0])


@pytest.mark.parametrize("start", [False, True])
def test_in_place_collective_permute_to_itself(start: bool, preset: str) -> None:
    """0 -> 0 writes the input (a 4x2 slice at offset (0, 0)) over the output buffer;
    the rest of the buffer stays (tests/ops/test_collective.py has offsets)."""
    text = in_place_permute("{{0,0}}", start)
    got = assert_same(text, preset, verify=False)
    x, o = _operands_unverified(text)
    want = o.copy()
    want[:, :2] = x
    assert np.array_equal(got[0], want)


def test_collective_broadcast_with_a_dynamic_root(preset: str) -> None:
    text = ("HloModule m\nENTRY e {\n  x = f32[4,6]{0,1} parameter(0)\n  root = f32[1] parameter(1)\n"
            "  ROOT cb = f32[4,6]{0,1} collective-broadcast(x, root), replica_groups={{0}}, has_dynamic_root=true\n}\n")
    got = assert_same(text, preset, verify=False)
    assert np.array_equal(got[0], _operands_unverified(text)[0])


def _operands_unverified(text: str) -> list[np.ndarray]:
    return inputs(hlotools.parse_module(text, verify=False))


# ------------------------------------------------------------------ asynchronous wrappers

ASYNC_AR = ("wrapped {\n  p = f32[4,6] parameter(0)\n"
            "  ROOT ar = f32[4,6] all-reduce(p), replica_groups={}, to_apply=add\n}\n")


def test_async_start_update_done_around_an_all_reduce(preset: str) -> None:
    text = (f"HloModule m\n{ADD}{ASYNC_AR}ENTRY e {{\n  x = f32[4,6]{{0,1}} parameter(0)\n"
            "  s = ((f32[4,6]{0,1}), f32[4,6], s32[]) async-start(x), calls=wrapped\n"
            "  u = ((f32[4,6]{0,1}), f32[4,6], s32[]) async-update(s)\n"
            "  d = f32[4,6] async-done(u)\n"
            "  ROOT t = (f32[4,6], ((f32[4,6]{0,1}), f32[4,6], s32[])) tuple(d, u)\n}\n")
    got = assert_same(text, preset)
    x = _operands(text)[0]
    assert np.array_equal(got[0], x) and np.array_equal(got[1], x) and got[3] == 0


def test_async_start_of_a_computation_that_computes(preset: str) -> None:
    text = ("HloModule m\n" + ADD + "sq {\n  p = f32[8] parameter(0)\n  q = f32[8] parameter(1)\n"
            "  ROOT m = f32[8] multiply(p, q)\n}\n"
            "pair {\n  p = f32[8] parameter(0)\n  q = f32[8] parameter(1)\n"
            "  ROOT r = (f32[8], f32[8]) all-reduce(p, q), replica_groups={}, to_apply=add\n}\n"
            "ENTRY e {\n  x = f32[8] parameter(0)\n  y = f32[8] parameter(1)\n"
            "  s = ((f32[8], f32[8]), f32[8], u32[]) async-start(x, y), calls=sq\n"
            "  d = f32[8] async-done(s)\n"
            "  st = ((f32[8], f32[8]), (f32[8], f32[8])) async-start(d, y), calls=pair\n"
            "  ROOT d2 = (f32[8], f32[8]) async-done(st)\n}\n")
    got = assert_same(text, preset)
    x, y = _operands(text)
    assert np.array_equal(got[0], x * y) and np.array_equal(got[1], y)


def test_copy_start_done_with_another_layout(preset: str) -> None:
    text = ("HloModule m\nENTRY e {\n  x = f32[4,6]{0,1} parameter(0)\n"
            "  s = (f32[4,6]{1,0}, f32[4,6]{0,1}, u32[]) copy-start(x)\n"
            "  d = f32[4,6]{1,0} copy-done(s)\n  n = f32[4,6]{1,0} negate(d)\n"
            "  ROOT t = (f32[4,6]{1,0}, (f32[4,6]{1,0}, f32[4,6]{0,1}, u32[])) tuple(n, s)\n}\n")
    got = assert_same(text, preset)
    x = _operands(text)[0]
    assert np.array_equal(got[0], -x) and np.array_equal(got[1], x) and got[3] == 0
