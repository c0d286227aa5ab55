"""Independent kernels run as one parallel_for (backend/llvm/codegen/concurrent.py): results
identical to the interpreter and to the serial code, the IR has the merged worker only when
there is a set, members never share memory, while bodies, side effects keep their order."""
from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import llvmlite.ir as ir
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import load_emitters
from hlotools.backend.llvm.codegen import concurrent as concurrent_sets
from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.module import CompiledFunction, ModuleCompiler
from hlotools.backend.llvm.codegen.registry import TASK_WORK
from hlotools.backend.llvm.driver.runtime import CompiledModule
from hlotools.backend.llvm.llvm_ir import types
from hlotools.ir.module import Module

# Two dots of 2 Mi and 4 Mi multiply-adds (the LSTM step's), independent of each other.
TWO_DOTS = """HloModule two_dots
ENTRY e {
  x = f32[16,128] parameter(0)
  w = f32[128,1024] parameter(1)
  h = f32[16,256] parameter(2)
  u = f32[256,1024] parameter(3)
  d1 = f32[16,1024] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[16,1024] dot(h, u), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[16,1024] add(d1, d2)
}
"""

ONE_DOT = """HloModule one_dot
ENTRY e {
  h = f32[16,256] parameter(0)
  u = f32[256,1024] parameter(1)
  d = f32[16,1024] dot(h, u), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[16,1024] negate(d)
}
"""

# Three independent reductions (elemental loops, 128 Ki element operations each: under
# parallel.MIN_PARALLEL_WORK, so each alone stays serial) and a dot, all on one level.
REDUCES_AND_DOT = """HloModule reduces
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  p = f32[64,2048] parameter(0)
  q = f32[64,2048] parameter(1)
  x = f32[16,256] parameter(2)
  u = f32[256,1024] parameter(3)
  z = f32[] constant(0)
  lo = f32[] constant(-inf)
  r1 = f32[64] reduce(p, z), dimensions={1}, to_apply=add
  eq = f32[64,2048] exponential(q)
  r2 = f32[64] reduce(eq, lo), dimensions={1}, to_apply=max
  r3 = f32[2048] reduce(p, z), dimensions={0}, to_apply=add
  d = f32[16,1024] dot(x, u), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[64], f32[64], f32[2048], f32[16,1024]) tuple(r1, r2, r3, d)
}
"""

# An LSTM-like scan: per step two independent dots, one of them on a dynamic slice.
WHILE_DOTS = """HloModule scan
cond {
  s = (s32[], f32[16,256], f32[8,16,128], f32[128,1024], f32[256,1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[16,256], f32[8,16,128], f32[128,1024], f32[256,1024]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[16,256] get-tuple-element(s), index=1
  xs = f32[8,16,128] get-tuple-element(s), index=2
  w = f32[128,1024] get-tuple-element(s), index=3
  u = f32[256,1024] get-tuple-element(s), index=4
  zero = s32[] constant(0)
  xt = f32[1,16,128] dynamic-slice(xs, i, zero, zero), dynamic_slice_sizes={1,16,128}
  x = f32[16,128] reshape(xt)
  d1 = f32[16,1024] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[16,1024] dot(h, u), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  g = f32[16,1024] add(d1, d2)
  gs = f32[16,256] slice(g), slice={[0:16], [0:256]}
  hn = f32[16,256] tanh(gs)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT r = (s32[], f32[16,256], f32[8,16,128], f32[128,1024], f32[256,1024]) tuple(i1, hn, xs, w, u)
}
ENTRY e {
  h0 = f32[16,256] parameter(0)
  xs = f32[8,16,128] parameter(1)
  w = f32[128,1024] parameter(2)
  u = f32[256,1024] parameter(3)
  z = s32[] constant(0)
  t = (s32[], f32[16,256], f32[8,16,128], f32[128,1024], f32[256,1024]) tuple(z, h0, xs, w, u)
  l = (s32[], f32[16,256], f32[8,16,128], f32[128,1024], f32[256,1024]) while(t), condition=cond, body=body
  ROOT hl = f32[16,256] get-tuple-element(l), index=1
}
"""


def _ints(shape: tuple[int, ...], seed: int, lo: int = -3, hi: int = 4) -> np.ndarray:
    """Small integers as f32: every sum and product is exact, so any summation order gives
    the interpreter's bits."""
    return np.random.default_rng(seed).integers(lo, hi, size=shape).astype(np.float32)


def _floats(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@contextmanager
def _concurrent(on: bool) -> Iterator[None]:
    tok = concurrent_sets.CONCURRENT.set(on)
    try:
        yield
    finally:
        concurrent_sets.CONCURRENT.reset(tok)


def _compile(text: str, on: bool = True) -> CompiledModule:
    with _concurrent(on):
        return CompiledModule(hlotools.parse_module(text))


def _functions(text: str) -> tuple[Module, list[CompiledFunction]]:
    m = hlotools.parse_module(text)
    mc = ModuleCompiler(m)
    mc.compile()
    return m, list(mc.functions.values())


def _sets(text: str) -> list[list[str]]:
    return [[i.name for i in s] for _, fs in [_functions(text)] for cf in fs for s in cf.concurrent]


def _same_bits(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype
        assert g.tobytes() == w.tobytes(), f"{g.reshape(-1)[:6]} != {w.reshape(-1)[:6]}"


# -- which kernels form a set ---------------------------------------------------------------------

def test_two_independent_dots_form_one_set() -> None:
    assert [sorted(s) for s in _sets(TWO_DOTS)] == [["d1", "d2"]]


def test_reductions_and_a_dot_form_one_set_largest_first() -> None:
    (s,) = _sets(REDUCES_AND_DOT)
    assert sorted(s) == ["d", "r1", "r2", "r3"]
    assert s[0] == "d"  # 4 Mi multiply-adds, more than each reduction's 128 Ki element operations


def test_a_single_kernel_and_dependent_kernels_form_no_set() -> None:
    assert _sets(ONE_DOT) == []
    chain = TWO_DOTS.replace("d2 = f32[16,1024] dot(h, u)", "hd = f32[16,256] slice(d1), slice={[0:16], [0:256]}\n"
                             "  d2 = f32[16,1024] dot(hd, u)")
    assert _sets(chain) == []


def test_kernels_that_split_themselves_or_are_tiny_stay_out() -> None:
    big = TWO_DOTS.replace("f32[16,", "f32[512,")  # 64 Mi and 128 Mi: each its own parallel_for
    assert _sets(big) == []
    tiny = TWO_DOTS.replace("1024", "64")  # 128 Ki and 256 Ki multiply-adds
    assert _sets(tiny) == []


def test_no_sets_with_one_thread_or_when_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    with _concurrent(False):
        assert _sets(TWO_DOTS) == []
    monkeypatch.setenv("HLOTOOLS_CONCURRENT", "0")
    assert _sets(TWO_DOTS) == []
    monkeypatch.delenv("HLOTOOLS_CONCURRENT")
    assert _sets(TWO_DOTS) != []
    monkeypatch.setenv("HLOTOOLS_NUM_THREADS", "1")
    assert _sets(TWO_DOTS) == []


def test_the_set_is_contiguous_and_the_order_topological() -> None:
    m = hlotools.parse_module(REDUCES_AND_DOT)
    plan = concurrent_sets.plan_concurrency(_emitter(m))
    assert m.entry is not None and len(plan.order) == len(m.entry.instructions)
    pos = {id(i): n for n, i in enumerate(plan.order)}
    (members,) = [sorted(pos[id(i)] for i in s) for s in plan.sets]
    assert members == list(range(members[0], members[0] + len(members)))
    for inst in plan.order:
        for op in inst.operands:
            assert pos[id(op)] < pos[id(inst)], f"%{op.name} after its user %{inst.name}"


def _emitter(m: Module) -> FunctionEmitter:
    """A FunctionEmitter of the entry with its instructions classified (what the planner reads)."""
    mc = ModuleCompiler(m)
    assert m.entry is not None
    fn = ir.Function(mc.ir, ir.FunctionType(ir.VoidType(), [types.PTR] * 3), "probe")
    fe = FunctionEmitter(mc, m.entry, CompiledFunction(m.entry, fn))
    fe.classify()
    return fe


# -- results --------------------------------------------------------------------------------------

def test_two_dots_match_the_interpreter_and_the_serial_code_bit_for_bit() -> None:
    ints = [_ints((16, 128), 0), _ints((128, 1024), 1), _ints((16, 256), 2), _ints((256, 1024), 3)]
    got = _compile(TWO_DOTS)(ints)
    _same_bits(got, evaluate(hlotools.parse_module(TWO_DOTS), ints))
    floats = [_floats((16, 128), 0), _floats((128, 1024), 1), _floats((16, 256), 2), _floats((256, 1024), 3)]
    _same_bits(_compile(TWO_DOTS)(floats), _compile(TWO_DOTS, on=False)(floats))


def test_reductions_match_the_interpreter_and_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    ints = [_ints((64, 2048), 4), _ints((64, 2048), 5, -20, 0), _ints((16, 256), 6), _ints((256, 1024), 7)]
    got = _compile(REDUCES_AND_DOT)(ints)
    want = evaluate(hlotools.parse_module(REDUCES_AND_DOT), ints)
    _same_bits([got[0], got[2], got[3]], [want[0], want[2], want[3]])  # exact sums of integers
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)  # exp: the backend's own approximation
    floats = [_floats((64, 2048), 4), _floats((64, 2048), 5), _floats((16, 256), 6), _floats((256, 1024), 7)]
    concurrent = _compile(REDUCES_AND_DOT)(floats)
    monkeypatch.setenv("HLOTOOLS_NUM_THREADS", "1")
    serial = _compile(REDUCES_AND_DOT)(floats)
    assert "par.tasks" not in _compile(REDUCES_AND_DOT).llvm_ir
    _same_bits(concurrent, serial)


def test_while_body_with_independent_dots(monkeypatch: pytest.MonkeyPatch) -> None:
    assert [sorted(s) for s in _sets(WHILE_DOTS)] == [["d1", "d2"]]
    h0, xs = _ints((16, 256), 8, -1, 2) / 8, _ints((8, 16, 128), 9, -1, 2) / 8
    w, u = _ints((128, 1024), 10, -1, 2) / 8, _ints((256, 1024), 11, -1, 2) / 8
    args = [h0, xs, w, u]
    concurrent = _compile(WHILE_DOTS)
    assert "par.tasks" in concurrent.llvm_ir
    got = concurrent(args)
    want = evaluate(hlotools.parse_module(WHILE_DOTS), args)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-4, atol=1e-5)  # tanh: the backend's approximation
    monkeypatch.setenv("HLOTOOLS_NUM_THREADS", "1")
    _same_bits(got, _compile(WHILE_DOTS)(args))
    for _ in range(20):  # back-to-back calls: the same bits every time
        _same_bits(concurrent(args), got)


# -- the IR ---------------------------------------------------------------------------------------

def _task_workers(ir_text: str) -> list[str]:
    return re.findall(r"define internal void @\"?(par\.tasks\.\d+)", ir_text)


def test_the_ir_has_one_merged_parallel_for_only_when_there_is_a_set() -> None:
    ir_text = _compile(TWO_DOTS).llvm_ir
    (worker,) = _task_workers(ir_text)
    # the set's code: the kernel it became (codegen/kernels.py), the function that calls the worker
    entry = next(f for f in re.findall(r"^define void @.*?^}$", ir_text, re.M | re.S) if worker in f)
    assert len(re.findall(r"call void @\"?hlo\.parallel_for\"?\(", entry)) == 1
    assert worker in entry
    body = ir_text[ir_text.index(f"@\"{worker}\"") if f"@\"{worker}\"" in ir_text else ir_text.index(f"@{worker}"):]
    body = body[:body.index("\n}\n")]
    assert "hlo.parallel_for" not in body  # no nesting
    assert _task_workers(_compile(ONE_DOT).llvm_ir) == []
    assert _task_workers(_compile(TWO_DOTS, on=False).llvm_ir) == []


def test_without_a_set_the_code_is_what_it_was() -> None:
    from hlotools.backend.llvm.codegen.module import compile_module
    m = hlotools.parse_module(ONE_DOT)
    with _concurrent(False):
        off = str(compile_module(m)[0])
    assert str(compile_module(m)[0]) == off


# -- buffer assignment ----------------------------------------------------------------------------

def _intervals(cf: CompiledFunction, inst_ids: set[int]) -> list[tuple[int, int, str]]:
    """(offset, end, what) of the arena bytes the given instructions' outputs and scratch occupy."""
    plan = cf.plan
    assert plan is not None
    out = []
    for b in plan.buffers:
        if id(b.inst) in inst_ids:
            loc = plan.location[b.id]
            if loc.kind == "arena":
                out.append((loc.offset, loc.offset + b.size, f"%{b.inst.name}.{b.leaf}"))
    for inst in cf.comp.instructions:
        if id(inst) in inst_ids:
            from hlotools.backend.llvm.codegen.registry import SCRATCH
            sizes = SCRATCH[inst.opcode](inst) if inst.opcode in SCRATCH else []
            for off, size in zip(plan.scratch.get(id(inst), []), sizes):
                out.append((off, off + size, f"scratch of %{inst.name}"))
    return out


@pytest.mark.parametrize("text", [TWO_DOTS, REDUCES_AND_DOT, WHILE_DOTS])
def test_members_never_share_memory(text: str) -> None:
    _, fs = _functions(text)
    checked = 0
    for cf in fs:
        assert cf.plan is not None
        for s in cf.concurrent:
            members = {id(i) for i in s}
            operands = {id(op) for i in s for op in i.operands} - members
            mine = _intervals(cf, members)
            theirs = _intervals(cf, operands)
            for a in range(len(mine)):
                for b in range(a + 1, len(mine)):
                    lo1, hi1, n1 = mine[a]
                    lo2, hi2, n2 = mine[b]
                    assert hi1 <= lo2 or hi2 <= lo1, f"{n1} and {n2} overlap"
                for lo2, hi2, n2 in theirs:  # an operand another member still reads
                    lo1, hi1, n1 = mine[a]
                    assert hi1 <= lo2 or hi2 <= lo1, f"{n1} overlaps operand {n2}"
            locations = [(cf.plan.location[lf.index].kind, cf.plan.location[lf.index].offset)
                         for i in s for lf in cf.plan.leaves[id(i)] if lf.kind == "buffer"]
            outputs = [loc for loc in locations if loc[0] == "output"]
            assert len(outputs) == len(set(outputs))
            checked += 1
    assert checked


def test_a_set_occupies_one_schedule_position() -> None:
    from hlotools.backend.llvm.codegen.buffers import schedule_positions
    m = hlotools.parse_module(TWO_DOTS)
    assert m.entry is not None
    order = list(m.entry.instructions)
    by_name = {i.name: i for i in order}
    pos = schedule_positions(order, [[by_name["d2"], by_name["d1"]]])
    assert pos[id(by_name["d1"])] == pos[id(by_name["d2"])] == pos[id(by_name["u"])] + 1
    assert pos[id(by_name["s"])] == pos[id(by_name["d1"])] + 1
    with pytest.raises(ValueError, match="not contiguous"):
        schedule_positions(order, [[by_name["x"], by_name["d1"]]])


# -- what stays in place -------------------------------------------------------------------------

def test_side_effects_keep_their_order_and_stay_out_of_sets() -> None:
    text = TWO_DOTS.replace("  ROOT s = f32[16,1024] add(d1, d2)\n", """\
  tok = token[] after-all()
  o1 = token[] outfeed(d1, tok), outfeed_shape=f32[16,1024]
  o2 = token[] outfeed(d2, o1), outfeed_shape=f32[16,1024]
  ROOT s = f32[16,1024] add(d1, d2)
""")
    m = hlotools.parse_module(text)
    fe = _emitter(m)
    plan = concurrent_sets.plan_concurrency(fe)
    names = [i.name for i in plan.order]
    assert [n for n in names if n in ("tok", "o1", "o2")] == ["tok", "o1", "o2"]
    assert [sorted(i.name for i in s) for s in plan.sets] == [["d1", "d2"]]
    assert all(not concurrent_sets.pinned(i) for s in plan.sets for i in s)


def test_pinned_opcodes() -> None:
    m = hlotools.parse_module("""HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  r = f32[4] rng(p, p), distribution=rng_uniform
  c = f32[4] custom-call(p), custom_call_target="foo"
  ROOT n = f32[4] negate(p)
}
""", verify=False)
    assert m.entry is not None
    kinds = {i.name: concurrent_sets.pinned(i) for i in m.entry.instructions}
    assert kinds == {"p": False, "r": True, "c": True, "n": False}


# %xn dies at the dot; serially %r (defined after the dot, same size) would take its memory,
# which the dot still reads while %r's loop runs next to it.
REUSE = """HloModule reuse
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[16,256] parameter(0)
  u = f32[256,1024] parameter(1)
  p = f32[16,256,32] parameter(2)
  z = f32[] constant(0)
  xn = f32[16,256] negate(x)
  d = f32[16,1024] dot(xn, u), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = f32[16,256] reduce(p, z), dimensions={2}, to_apply=add
  rn = f32[16,256] negate(r)
  ROOT t = (f32[16,1024], f32[16,256]) tuple(d, rn)
}
"""


def test_a_member_never_takes_memory_another_member_still_reads() -> None:
    from hlotools.backend.llvm.codegen import buffers
    m, fs = _functions(REUSE)
    (cf,) = fs
    assert [sorted(i.name for i in s) for s in cf.concurrent] == [["d", "r"]]
    by_name = {i.name: i for i in cf.comp.instructions}
    assert cf.plan is not None

    def span(plan: buffers.BufferPlan, name: str) -> tuple[int, int]:
        loc = plan.buffer_location(by_name[name])
        assert loc is not None and loc.kind == "arena"
        return loc.offset, loc.offset + 16 * 256 * 4
    (a0, a1), (b0, b1) = span(cf.plan, "xn"), span(cf.plan, "r")
    assert a1 <= b0 or b1 <= a0
    # the same order without the set model: %r reuses %xn's bytes (what the set prevents)
    fe = _emitter(m)
    fe.order = concurrent_sets.plan_concurrency(fe).order
    assert cf.comp.root is not None
    serial = buffers.assign(fe.order, cf.comp.root, fe._classifier())
    assert span(serial, "xn") == span(serial, "r")
    args = [_floats((16, 256), 1), _floats((256, 1024), 2), _floats((16, 256, 32), 3)]
    _same_bits(_compile(REUSE)(args), _compile(REUSE, on=False)(args))


# A scalar reduction has no loop to split: it runs serially in the caller, the dot's GEMM
# loop is then the only one left and is called directly (no merged worker, no threads).
SCALAR_REDUCE = """HloModule scalar
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[262143] parameter(0)
  x = f32[16,256] parameter(1)
  u = f32[256,1024] parameter(2)
  z = f32[] constant(0)
  r = f32[] reduce(p, z), dimensions={0}, to_apply=add
  d = f32[16,1024] dot(x, u), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[], f32[16,1024]) tuple(r, d)
}
"""


def test_a_set_with_one_parallel_loop_left_runs_it_directly() -> None:
    assert [sorted(s) for s in _sets(SCALAR_REDUCE)] == [["d", "r"]]
    compiled = _compile(SCALAR_REDUCE)
    assert _task_workers(compiled.llvm_ir) == []
    entry = compiled.llvm_ir[compiled.llvm_ir.index("define void @"):]
    assert "hlo.parallel_for" not in entry[:entry.index("\n}\n")]
    args = [_ints((262143,), 12), _ints((16, 256), 13), _ints((256, 1024), 14)]
    _same_bits(compiled(args), evaluate(hlotools.parse_module(SCALAR_REDUCE), args))


# A bf16 dot accumulates in f32 scratch and converts afterwards: its GEMM loop is not its last
# code, so it stays out of sets; forced in, it becomes a plain serial call (and the f32 dot's
# loop, alone, a direct call).
MIXED = TWO_DOTS.replace("h = f32[16,256]", "h = bf16[16,256]").replace("u = f32[256,1024]", "u = bf16[256,1024]") \
    .replace("d2 = f32[16,1024] dot(h, u)", "d2b = bf16[16,1024] dot(h, u)") \
    .replace("ROOT s = f32[16,1024] add(d1, d2)", "d2 = f32[16,1024] convert(d2b)\n  ROOT s = f32[16,1024] add(d1, d2)")


def test_a_loop_that_is_not_its_members_last_code_runs_serially(monkeypatch: pytest.MonkeyPatch) -> None:
    import ml_dtypes
    assert _sets(MIXED) == []
    load_emitters()  # lower/gemm.py registers the real hook first
    monkeypatch.setitem(TASK_WORK, "dot", lambda inst: 16 * 1024 * inst.operands[0].shape.dims[1])
    assert [sorted(s) for s in _sets(MIXED)] == [["d1", "d2b"]]
    compiled = _compile(MIXED)
    assert _task_workers(compiled.llvm_ir) == []
    entry = compiled.llvm_ir[compiled.llvm_ir.index("define void @"):]
    assert "hlo.parallel_for" not in entry[:entry.index("\n}\n")]
    args = [_ints((16, 128), 15), _ints((128, 1024), 16), _ints((16, 256), 17).astype(ml_dtypes.bfloat16),
            _ints((256, 1024), 18).astype(ml_dtypes.bfloat16)]
    _same_bits(compiled(args), _compile(MIXED, on=False)(args))
    _same_bits(compiled(args), evaluate(hlotools.parse_module(MIXED), args))
