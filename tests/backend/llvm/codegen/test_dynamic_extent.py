"""Loops and GEMMs to the run-time size of a bounded dynamic dim (codegen/dynamic_extent.py).

Oracles: the interpreter on the dynamic padder's static module (the whole bound), and the
static module M[s] at that size on the LLVM backend; inputs' padding is poisoned (NaN, or a
large int), ints compare bit for bit. That loops really stop at the size is seen in the
result buffers: allocated pre-filled with a sentinel, the elements past the size keep it.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hlotools
from hlotools.backend.llvm import abi
from hlotools.backend.llvm.driver.runtime import PaddedModule, compile_module
from hlotools.ir import runtime_sizes
from hlotools.ir.dynamic_arrays import pad_arguments, unpad_results
from tests.passes.test_dynamic_padder_property import chains

ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\n"
MAX = "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] maximum(a, b)\n}\n"
IADD = "iadd {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT r = s32[] add(a, b)\n}\n"
DOT = "lhs_contracting_dims={1}, rhs_contracting_dims={0}"

# batch through dot + bias + ReLU and a second dot: dynamic major dims only
MLP = f"""HloModule mlp
ENTRY e {{
  x = f32[SEQ,20] parameter(0)
  w1 = f32[20,40] parameter(1)
  b1 = f32[40] parameter(2)
  w2 = f32[40,12] parameter(3)
  h = f32[SEQ,40] dot(x, w1), {DOT}
  bb = f32[SEQ,40] broadcast(b1), dimensions={{1}}
  hb = f32[SEQ,40] add(h, bb)
  z = f32[] constant(0)
  zb = f32[SEQ,40] broadcast(z), dimensions={{}}
  r = f32[SEQ,40] maximum(hb, zb)
  ROOT o = f32[SEQ,12] dot(r, w2), {DOT}
}}
"""
# attention: scores [seq, seq], softmax over the dynamic key dim, contraction over it
ATTENTION = f"""HloModule attention
{ADD}{MAX}
ENTRY e {{
  q = f32[SEQ,24] parameter(0)
  k = f32[SEQ,24] parameter(1)
  v = f32[SEQ,24] parameter(2)
  s = f32[SEQ,SEQ] dot(q, k), lhs_contracting_dims={{1}}, rhs_contracting_dims={{1}}
  ninf = f32[] constant(-inf)
  m = f32[SEQ] reduce(s, ninf), dimensions={{1}}, to_apply=max
  mb = f32[SEQ,SEQ] broadcast(m), dimensions={{0}}
  ex = f32[SEQ,SEQ] exponential(f32[SEQ,SEQ] subtract(s, mb))
  zero = f32[] constant(0)
  den = f32[SEQ] reduce(ex, zero), dimensions={{1}}, to_apply=add
  denb = f32[SEQ,SEQ] broadcast(den), dimensions={{0}}
  p = f32[SEQ,SEQ] divide(ex, denb)
  a = f32[SEQ,24] dot(p, v), {DOT}
  ROOT out = f32[SEQ,24] add(q, a)
}}
"""
# s32: a contraction over the dynamic dim (static result), row sums, a transpose
INTS = f"""HloModule ints
{IADD}
ENTRY e {{
  x = s32[SEQ,6] parameter(0)
  g = s32[6,6] dot(x, x), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}
  z = s32[] constant(0)
  rows = s32[SEQ] reduce(x, z), dimensions={{1}}, to_apply=iadd
  cols = s32[6] reduce(x, z), dimensions={{0}}, to_apply=iadd
  t = s32[6,SEQ] transpose(x), dimensions={{1,0}}
  c1 = s32[] constant(1)
  one = s32[6,SEQ] broadcast(c1), dimensions={{}}
  ROOT out = (s32[6,6], s32[SEQ], s32[6], s32[6,SEQ]) tuple(g, rows, cols, s32[6,SEQ] add(t, one))
}}
"""
# a dynamic N with few rows (B read in place, its last partial panel from a tail copy) and a
# dynamic batch of matrix products
WIDE = f"""HloModule wide
ENTRY e {{
  x = f32[5,16] parameter(0)
  y = f32[16,SEQ] parameter(1)
  a = f32[3,SEQ,7] parameter(2)
  w = f32[3,7,9] parameter(3)
  b = f32[SEQ,4,7] parameter(4)
  v = f32[SEQ,7,9] parameter(5)
  d = f32[5,SEQ] dot(x, y), {DOT}
  bd = f32[3,SEQ,9] dot(a, w), lhs_batch_dims={{0}}, rhs_batch_dims={{0}}, lhs_contracting_dims={{2}}, rhs_contracting_dims={{1}}
  bb = f32[SEQ,4,9] dot(b, v), lhs_batch_dims={{0}}, rhs_batch_dims={{0}}, lhs_contracting_dims={{2}}, rhs_contracting_dims={{1}}
  ROOT t = (f32[5,SEQ], f32[3,SEQ,9], f32[SEQ,4,9]) tuple(d, bd, bb)
}}
"""
# a dynamic batch of images through convolutions: one small enough for the direct loop nest,
# one whose GEMM tasks fill their own rows of A, one with a kernel too big for that (im2col),
# an NCHW one (conv_columns' form: the columns of the first batch elements only)
CONV = """HloModule conv
ENTRY e {
  x = f32[SEQ,10,10,8] parameter(0)
  k1 = f32[3,3,8,2] parameter(1)
  k2 = f32[3,3,8,32] parameter(2)
  y = f32[SEQ,6,6,128] parameter(3)
  k3 = f32[3,3,128,256] parameter(4)
  c1 = f32[SEQ,8,8,2] convolution(x, k1), window={size=3x3}, dim_labels=b01f_01io->b01f
  c2 = f32[SEQ,10,10,32] convolution(x, k2), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  c3 = f32[SEQ,4,4,256] convolution(y, k3), window={size=3x3}, dim_labels=b01f_01io->b01f
  xn = f32[SEQ,8,10,10] parameter(5)
  k4 = f32[32,8,3,3] parameter(6)
  c4 = f32[SEQ,32,10,10] convolution(xn, k4), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  ROOT t = (f32[SEQ,8,8,2], f32[SEQ,10,10,32], f32[SEQ,4,4,256], f32[SEQ,32,10,10]) tuple(c1, c2, c3, c4)
}
"""
# the dynamic dim minor in the layout: its loop is the inner one
LAYOUT = f"""HloModule layout
{ADD}
ENTRY e {{
  x = f32[SEQ,20]{{0,1}} parameter(0)
  e = f32[SEQ,20]{{0,1}} exponential(x)
  z = f32[] constant(0)
  r = f32[20]{{0}} reduce(e, z), dimensions={{0}}, to_apply=add
  ROOT t = (f32[SEQ,20]{{0,1}}, f32[20]{{0}}) tuple(e, r)
}}
"""
BOUND = 37


def _text(template: str, seq: str) -> str:
    return template.replace("SEQ", seq)


def _args(name: str, s: int, rng: np.random.Generator) -> list[np.ndarray]:
    f = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    if name == "mlp":
        return [f(s, 20), f(20, 40), f(40), f(40, 12)]
    if name == "attention":
        return [f(s, 24), f(s, 24), f(s, 24)]
    if name == "layout":
        return [f(s, 20)]
    if name == "wide":
        return [f(5, 16), f(16, s), f(3, s, 7), f(3, 7, 9), f(s, 4, 7), f(s, 7, 9)]
    if name == "conv":
        return [f(s, 10, 10, 8), f(3, 3, 8, 2), f(3, 3, 8, 32), f(s, 6, 6, 128), f(3, 3, 128, 256) / 30,
                f(s, 8, 10, 10), f(32, 8, 3, 3)]
    return [rng.integers(-9, 9, (s, 6)).astype(np.int32)]


def _poison(dtype: np.dtype) -> float:
    """What the padding holds: NaN, or an int far from the data."""
    return float("nan") if dtype.kind == "f" else 77_777


def _llvm(compiled: PaddedModule, args: list[np.ndarray]) -> list[np.ndarray]:
    padded = pad_arguments(compiled.module, compiled.signature, args, fill=_poison(args[0].dtype))
    return unpad_results(compiled.signature, compiled.compiled(padded))


def _interpreted(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    padded_module, sig = hlotools.pad_dynamic(hlotools.parse_module(text))
    module = hlotools.parse_module(text)
    padded = pad_arguments(module, sig, args, fill=_poison(args[0].dtype))
    return unpad_results(sig, hlotools.evaluate(padded_module, padded))


def _same(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)
        else:
            assert np.array_equal(g, w)


@pytest.mark.parametrize("name,template", [("mlp", MLP), ("attention", ATTENTION), ("ints", INTS), ("wide", WIDE),
                                           ("conv", CONV), ("layout", LAYOUT)])
def test_runtime_sizes_agree_with_padded_and_static_modules(name: str, template: str) -> None:
    rng = np.random.default_rng(14)
    text = _text(template, f"<={BOUND if name != 'conv' else 5}")
    compiled = compile_module(hlotools.parse_module(text))
    assert isinstance(compiled, PaddedModule)
    bound = BOUND if name != "conv" else 5
    for s in (0, 1, bound, int(rng.integers(2, bound))):
        args = _args(name, s, rng)
        got = _llvm(compiled, args)
        _same(got, _interpreted(text, args))
        if s:  # (a static module of size 0 has no GEMM to compare)
            _same(got, list(compile_module(hlotools.parse_module(_text(template, str(s))))(args)))


@pytest.fixture
def sentinel_outputs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Result buffers arrive filled with -12345 instead of uninitialised."""
    def filled(leaf: abi.Leaf) -> np.ndarray | None:
        return None if leaf.storage is None else np.full(leaf.physical_dims, -12345, leaf.storage)
    monkeypatch.setattr(abi, "alloc_physical", filled)


# root -> (operand shapes, the root's line): operand 0 has the dynamic dim
ROOTS = {
    "elementwise": (["f32[<=64,48]"], "ROOT y = f32[<=64,48] exponential(x0)"),
    "minor": (["f32[48,<=64]"], "ROOT y = f32[48,<=64] exponential(x0)"),
    "dot": (["f32[<=64,48]", "f32[48,40]"], f"ROOT y = f32[<=64,40] dot(x0, x1), {DOT}"),
    "scores": (["f32[<=64,48]"], "ROOT y = f32[<=64,<=64] dot(x0, x0), lhs_contracting_dims={1}, rhs_contracting_dims={1}"),
    "reduce": (["f32[<=64,48]"], "ROOT y = f32[<=64] reduce(x0, z), dimensions={1}, to_apply=add"),
    "batched": (["f32[<=64,6,20]", "f32[<=64,20,8]"], "ROOT y = f32[<=64,6,8] dot(x0, x1), lhs_batch_dims={0}, "
                "rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}"),
    "conv_direct": (["f32[<=64,6,6,4]", "f32[3,3,4,16]"], "ROOT y = f32[<=64,6,6,16] convolution(x0, x1), "
                    "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
    "conv_fill": (["f32[<=64,10,10,8]", "f32[3,3,8,32]"], "ROOT y = f32[<=64,10,10,32] convolution(x0, x1), "
                  "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"),
    "conv_im2col": (["f32[<=64,6,6,128]", "f32[3,3,128,256]"], "ROOT y = f32[<=64,4,4,256] convolution(x0, x1), "
                    "window={size=3x3}, dim_labels=b01f_01io->b01f"),
}


@pytest.mark.parametrize("root", sorted(ROOTS))
def test_loops_stop_at_the_runtime_size(root: str, sentinel_outputs: None) -> None:
    """The padded module's result buffer: elements past the size (rows, batch elements, or
    for a dynamic minor dim columns) are never written, everything within is."""
    shapes, line = ROOTS[root]
    params = "\n  ".join(f"x{k} = {t} parameter({k})" for k, t in enumerate(shapes))
    text = f"HloModule m\n{ADD}ENTRY e {{\n  {params}\n  z = f32[] constant(0)\n  {line}\n}}\n"
    compiled = compile_module(hlotools.parse_module(text))
    assert isinstance(compiled, PaddedModule)
    rng = np.random.default_rng(0)
    minor = root == "minor"
    for s in (0, 5, 21):
        args = []
        for t in shapes:
            dims = [int(d.lstrip("<=")) for d in t[4:-1].split(",")]
            dims = [s if "<=" in d else n for d, n in zip(t[4:-1].split(","), dims)]
            args.append((rng.standard_normal(dims) / 10).astype(np.float32))
        padded = pad_arguments(compiled.module, compiled.signature, args)
        outs = compiled.compiled(padded)
        raw = np.asarray(outs[0])
        valid = {"scores": (slice(0, s), slice(0, s)), "minor": (slice(None), slice(0, s))}.get(root, (slice(0, s),))
        assert not np.any(raw[valid] == -12345)
        outside = np.ones(raw.shape, bool)
        outside[valid] = False
        assert np.all(raw[outside] == -12345), f"{root}: elements past size {s} were written"
        want = hlotools.evaluate(hlotools.parse_module(text), args)[0]
        np.testing.assert_allclose(unpad_results(compiled.signature, outs)[0], want, rtol=1e-4, atol=1e-4)
        assert minor or raw.shape[0] == 64


def test_a_bounded_and_an_unbounded_kernel_of_one_structure_stay_apart() -> None:
    """Two fusions alike but for the record: the static one must still write every row."""
    text = """HloModule twins
ENTRY e {
  x = f32[<=16,8] parameter(0)
  w = f32[16,8] parameter(1)
  y = f32[<=16,8] exponential(x)
  u = f32[16,8] exponential(w)
  ROOT t = (f32[<=16,8], f32[16,8]) tuple(y, u)
}
"""
    compiled = compile_module(hlotools.parse_module(text))
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((3, 8)).astype(np.float32), rng.standard_normal((16, 8)).astype(np.float32)
    y, u = compiled([x, w])
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(u, np.exp(w), rtol=1e-6)


def test_the_padder_records_sizes_masks_and_contractions() -> None:
    padded, _ = hlotools.pad_dynamic(hlotools.parse_module(_text(ATTENTION, "<=8")))
    entry = padded.entry
    assert entry is not None
    by_name = {i.name: i for i in entry.instructions}
    number = {p.name: p.parameter_number for p in entry.parameters}
    qs, ks = number["q.size0_0"], number["k.size0_0"]
    assert runtime_sizes.result_sizes(by_name["s"]) == (qs, ks)
    assert runtime_sizes.result_sizes(by_name["m"]) == (qs,)
    assert runtime_sizes.read_sizes(by_name["a"]) == (None, ks)  # the contraction over keys
    masks = [i for i in entry.instructions if i.opcode == "select"]  # masks keep their masked dim
    assert masks and all(runtime_sizes.result_sizes(i) in ((qs, None), None) for i in masks)
    text = hlotools.print_module(padded)
    assert re.search(r'_dynamic_sizes="\d+,\d+"', text)
    # any_records (codegen skips the per-instruction asks without one): the padded module
    # has some, the static form of it none
    assert runtime_sizes.any_records(padded.computations)
    static = hlotools.parse_module(_text(ATTENTION, "8"))
    assert not runtime_sizes.any_records(static.computations)


@settings(max_examples=8, deadline=None)
@given(chains(), st.integers(0, 2**31 - 1))
def test_random_chains_on_llvm_equal_the_static_chain(case: tuple[str, str, tuple[int, int]], seed: int) -> None:
    """The padder's property test's chains (elementwise, reduce, dot, reshape, concatenate,
    slice, transpose, reverse, pad, sort) compiled once and run with poisoned padding."""
    dynamic, static, sizes = case
    x = np.random.default_rng(seed).integers(-5, 5, sizes).astype(np.int32)
    want = hlotools.evaluate(hlotools.parse_module(static), [x])
    compiled = compile_module(hlotools.parse_module(dynamic))
    got = _llvm(compiled, [x]) if isinstance(compiled, PaddedModule) else compiled([x])
    assert got[0].shape == want[0].shape and np.array_equal(got[0], want[0]), (dynamic, static)


def test_a_concurrent_set_of_bounded_loops_splits_their_runtime_ranges() -> None:
    """Two independent dots with a dynamic batch (each under the size that splits itself over
    threads: codegen/concurrent.py makes them one set) run as one merged parallel_for whose
    parts' lengths are run-time values."""
    text = f"""HloModule two_dots
ENTRY e {{
  x = f32[<=16,128] parameter(0)
  w = f32[128,1024] parameter(1)
  h = f32[<=16,256] parameter(2)
  u = f32[256,1024] parameter(3)
  d1 = f32[<=16,1024] dot(x, w), {DOT}
  d2 = f32[<=16,1024] dot(h, u), {DOT}
  ROOT s = f32[<=16,1024] add(d1, d2)
}}
"""
    compiled = compile_module(hlotools.parse_module(text))
    assert isinstance(compiled, PaddedModule)
    assert re.search(r"define internal void @\"?par\.tasks\.\d+", compiled.compiled.llvm_ir)
    rng = np.random.default_rng(3)
    w, u = rng.standard_normal((128, 1024)).astype(np.float32), rng.standard_normal((256, 1024)).astype(np.float32)
    for s in (0, 1, 7, 16):
        args = [rng.standard_normal((s, 128)).astype(np.float32), w, rng.standard_normal((s, 256)).astype(np.float32), u]
        _same(_llvm(compiled, args), [args[0] @ w + args[2] @ u])
