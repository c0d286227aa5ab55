"""Denormals as XLA CPU computes them (its kernels run with x86's FTZ and DAZ bits set): the
default xla-cpu semantics flush f32/f64/bf16 arithmetic operands and results to zero of the
same sign on both backends, while moves, select, negate/abs, bitcasts and the bf16
conversions keep the bits. The patterns below were measured on real XLA CPU (jaxlib 0.10.2,
../shared/tools/xla_ref.py); HLOTOOLS_SEMANTICS=spec gives IEEE gradual underflow."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver.pipeline import optimise_module
from hlotools.backend.llvm.driver.runtime import CompiledModule
from hlotools.ir import semantics

X = np.array([1e-45, -1e-45, 1e-39, -3e-39, 1e-30, 2.0, 0.0, -0.0], np.float32)
Y = np.array([1e-10, 1e-10, 0.0, 1.0, 1e-10, 1e-39, 1e-39, -1e-39], np.float32)
D = np.array([5e-324, -1e-310, 1e-300, 2.0], np.float64)
BINARY = ("add", "multiply", "maximum", "minimum", "divide")
UNARY = ("negate", "abs", "ceil", "sqrt", "sign", "tanh", "log")
XLA = {
    "add": [0x2edbe6ff, 0x2edbe6ff, 0x0, 0x3f800000, 0x2edbe6ff, 0x40000000, 0x0, 0x80000000],
    "multiply": [0x0, 0x80000000, 0x0, 0x80000000, 0x0, 0x0, 0x0, 0x0],
    "maximum": [0x2edbe6ff, 0x2edbe6ff, 0x0, 0x3f800000, 0x2edbe6ff, 0x40000000, 0x0, 0x80000000],
    "minimum": [0x0, 0x80000000, 0x0, 0x80000000, 0xda24260, 0x0, 0x0, 0x80000000],
    "divide": [0x0, 0x80000000, 0xffc00000, 0x80000000, 0x1e3ce508, 0x7f800000, 0xffc00000, 0xffc00000],
    "negate": [0x80000001, 0x1, 0x800ae398, 0x20aac8, 0x8da24260, 0xc0000000, 0x80000000, 0x0],
    "abs": [0x1, 0x1, 0xae398, 0x20aac8, 0xda24260, 0x40000000, 0x0, 0x0],
    "ceil": [0x0, 0x80000000, 0x0, 0x80000000, 0x3f800000, 0x40000000, 0x0, 0x80000000],
    "sqrt": [0x0, 0x80000000, 0x0, 0x80000000, 0x26901d7d, 0x3fb504f3, 0x0, 0x80000000],
    "sign": [0x0, 0x80000000, 0x0, 0x80000000, 0x3f800000, 0x3f800000, 0x0, 0x80000000],
    "tanh": [0x1, 0x80000001, 0xae398, 0x8020aac8, 0xda24260, 0x3f76ca83, 0x0, 0x80000000],
    "log": [0xff800000, 0xff800000, 0xff800000, 0xff800000, 0xc28a27b5, 0x3f317218, 0xff800000, 0xff800000],
    "gt": [0, 0, 0, 0, 0, 1, 0, 0],
    "eq0": [1, 1, 1, 1, 0, 0, 1, 1],
    "select": [0x2edbe6ff, 0x2edbe6ff, 0x0, 0x3f800000, 0x2edbe6ff, 0x40000000, 0xae398, 0x800ae398],
    "to_f64": [0x0, 1 << 63, 0x0, 1 << 63, 0x39b4484c00000000, 0x4000000000000000, 0x0, 1 << 63],
    "to_bf16": [0x0, 0x8000, 0xb, 0x8021, 0xda2, 0x4000, 0x0, 0x8000],
    "bf16_back": [0x0, 0x80000000, 0xb0000, 0x80210000, 0xda20000, 0x40000000, 0x0, 0x80000000],
    "clamp": [0x2edbe6ff, 0x2edbe6ff, 0x0, 0x3f800000, 0x2edbe6ff, 0x0, 0x0, 0x80000000],
    "f64_square": [0x0, 0x0, 0x0, 0x4010000000000000],
    "f64_negate": [0x8000000000000001, 0x12688b70e62b, 0x81a56e1fc2f8f359, 0xc000000000000000],
    "f64_to_f32": [0x0, 0x80000000, 0x0, 0x40000000],
}
NAMES = list(BINARY) + list(UNARY) + ["gt", "eq0", "select", "to_f64", "to_bf16", "bf16_back", "clamp",
                                        "f64_square", "f64_negate", "f64_to_f32"]
SHAPES = ["f32[8]"] * (len(BINARY) + len(UNARY)) + ["pred[8]", "pred[8]", "f32[8]", "f64[8]", "bf16[8]",
                                                    "f32[8]", "f32[8]", "f64[4]", "f64[4]", "f32[4]"]
TEXT = "\n".join([
    "HloModule ftz", "ENTRY e {", "  x = f32[8] parameter(0)", "  y = f32[8] parameter(1)",
    "  d = f64[4] parameter(2)", "  z = f32[8] constant({0, 0, 0, 0, 0, 0, 0, 0})",
    *[f"  {op} = f32[8] {op}(x, y)" for op in BINARY], *[f"  {op} = f32[8] {op}(x)" for op in UNARY],
    "  gt = pred[8] compare(x, y), direction=GT", "  eq0 = pred[8] compare(x, z), direction=EQ",
    "  select = f32[8] select(gt, x, y)", "  to_f64 = f64[8] convert(x)", "  to_bf16 = bf16[8] convert(x)",
    "  bf16_back = f32[8] convert(to_bf16)", "  clamp = f32[8] clamp(y, x, y)",
    "  f64_square = f64[4] multiply(d, d)", "  f64_negate = f64[4] negate(d)", "  f64_to_f32 = f32[4] convert(d)",
    f"  ROOT t = ({', '.join(SHAPES)}) tuple({', '.join(NAMES)})", "}", ""])


def _bits(a: np.ndarray) -> list[int]:
    a = np.ascontiguousarray(a)
    return [int(v) for v in a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])]


def _runs() -> dict[str, list[list[int]]]:
    text = TEXT
    interp = evaluate(hlotools.parse_module(text), [X, Y, D])
    llvm = CompiledModule(optimise_module(hlotools.parse_module(text)))([X, Y, D])
    return {"interpreter": [_bits(o) for o in interp], "llvm": [_bits(o) for o in llvm]}


@pytest.mark.parametrize("backend", ["interpreter", "llvm"])
def test_both_backends_flush_as_xla_cpu(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(semantics.ENV, "xla-cpu")
    outs = _runs()[backend]
    wrong = {n: [hex(v) for v in got] for n, got in zip(NAMES, outs) if got != XLA[n]}
    assert not wrong, wrong


def test_spec_semantics_keep_gradual_underflow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(semantics.ENV, "spec")
    runs = _runs()
    assert runs["interpreter"] == runs["llvm"]
    out = dict(zip(NAMES, runs["llvm"]))
    assert out["multiply"][3] == np.float32(-3e-39).view(np.uint32)  # -3e-39 * 1: kept
    assert out["ceil"][0] == 0x3F800000  # ceil(1e-45) = 1 (XLA CPU: 0)
    assert out["to_f64"][0] == np.float64(np.float32(1e-45)).view(np.uint64)


def test_constant_folding_keeps_denormals_as_xla_does() -> None:
    """XLA folds constants with its evaluator (no flush): 1e-30 * 1e-10 of two constants is
    1e-40 in its output; of a parameter it is 0."""
    text = """HloModule cf
ENTRY e {
  p = f32[2] parameter(0)
  c = f32[2] constant({1e-30, 3e-39})
  d = f32[2] constant({1e-10, 3})
  m = f32[2] multiply(c, d)
  q = f32[2] multiply(p, d)
  ROOT t = (f32[2], f32[2]) tuple(m, q)
}
"""
    p = np.array([1e-30, 3e-39], np.float32)
    want = ([0x116C2, np.float32(np.float32(3e-39) * np.float32(3)).view(np.uint32)], [0, 0])
    interp = evaluate(hlotools.parse_module(text), [p])
    llvm = CompiledModule(optimise_module(hlotools.parse_module(text)))([p])
    for outs in (interp, llvm):
        assert (_bits(outs[0]), _bits(outs[1])) == (list(want[0]), want[1])


def test_the_mxcsr_of_the_caller_is_restored() -> None:
    """Python and numpy around a call keep IEEE semantics: a denormal computed by numpy after
    running a module is still a denormal."""
    m = CompiledModule(hlotools.parse_module(TEXT))
    m([X, Y, D])
    assert np.float32(1e-39) * np.float32(1.0) != 0
    assert np.multiply(np.full(64, 1e-39, np.float32), np.float32(1.0)).min() > 0



SORT_LT = [0xc035009c, 0xc0239004, 0xbfd59556, 0x7fc12345, 0x7f800001, 0xffc00000, 0xbf75ab47, 0xbf5d7e9b, 0xbe955c5b, 0x116c2, 0x7fc00000, 0xbf870f2c, 0xbf2b0516, 0xbf0156ac, 0xbee7c1a6, 0xbec81711, 0xbeb48c06, 0xbe9004e8, 0xbe8a0bad, 0xbe796772, 0xbe4c98ee, 0xbe3b3a24, 0x80000000, 0x0, 0x3cc6bbff, 0x3dbb6d1c, 0x3e67349b, 0x3ed6110d, 0x3ef6c18c, 0x3f0a5fdb, 0x3f0b8c09, 0x3f1491d2, 0x3f2b8bf6, 0x3f61ee13, 0x3f752fad, 0x3f804bd0, 0x3f82ba2f, 0x3fc5dd75, 0x3ff7b0f7, 0x40029e6b]


def test_sort_compares_a_denormal_as_zero() -> None:
    """A float LT comparator sees a denormal as a zero (DAZ) on both backends, as XLA CPU's
    std::sort does; the values keep their bits (recorded from XLA: NaNs, zeros, 1e-40)."""
    x = np.random.default_rng(3).standard_normal(40).astype(np.float32)
    x.view(np.uint32)[[3, 9, 17, 30]] = [0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345]
    x[5], x[6], x[7] = 0.0, -0.0, 1e-40
    text = """HloModule s
lt { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT r = pred[] compare(a, b), direction=LT }
ENTRY e {
  x = f32[40] parameter(0)
  ROOT so = f32[40] sort(x), dimensions={0}, to_apply=lt
}
"""
    interp = evaluate(hlotools.parse_module(text), [x])[0]
    llvm = CompiledModule(optimise_module(hlotools.parse_module(text)))([x])[0]
    assert _bits(interp) == SORT_LT and _bits(llvm) == SORT_LT


@pytest.mark.parametrize("op", ["dot", "convolution"])
def test_the_interpreters_dot_and_convolution_flush_as_xla_cpu(op: str) -> None:
    """XLA CPU (jaxlib 0.10.2, xla_ref.py) computes [1e-39, 1] . [1e20, 0] as 0 (DAZ: the
    denormal operand reads as zero). The interpreter's dot and convolution kernels once escaped
    the flushing wrapper (a check for wrapped kernels skipped the guarded ones) and gave 1e-19."""
    if op == "dot":
        body = "ROOT r = f32[1,1] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"
    else:
        body = "ROOT r = f32[1,1] convolution(a, b), dim_labels=bf_io->bf"
    m = hlotools.parse_module(f"HloModule m\nENTRY e {{\n  a = f32[1,2] parameter(0)\n"
                              f"  b = f32[2,1] parameter(1)\n  {body}\n}}\n")
    args = [np.array([[1e-39, 1.0]], np.float32), np.array([[1e20], [0.0]], np.float32)]
    assert evaluate(m, args)[0].item() == 0.0
    with semantics.using("spec"):
        assert evaluate(m, args)[0].item() == pytest.approx(1e-19)
