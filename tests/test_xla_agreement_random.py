"""Modules found by tools/random_modules.py's differential campaign against XLA CPU
(/work/shared/tools/xla_ref.py, jaxlib 0.10.2), each reduced to the instruction that differed.

A case is HLO text, its inputs and the outputs XLA gave for them, each leaf as (element type,
dims, hex of the little-endian bytes). The interpreter (as parsed, and after -O2 with the
verifier after each pass) and the LLVM backend (as parsed, and after -O2) must give XLA's
bits, NaN payloads too. `test_recorded_values_are_xlas` re-runs every case on XLA when its venv is installed."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from test_xla_agreement_interp import XLA_PYTHON, XLA_REF, _xla_results

import hlotools
from hlotools.interpreter import evaluate
from hlotools.passes.manager import ManagerOptions, run_pipeline
from hlotools.passes.pipeline import parse_pipeline, preset_spec
from hlotools.text.reparse import reparsed_copy

Leaf = tuple[str, tuple[int, ...], str]
MODES = ("interp", "interp-O2", "llvm-none", "llvm-O2")
_DTYPES = {"pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
           "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f16": np.float16,
           "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64, "c64": np.complex64,
           "c128": np.complex128}
CASES: dict[str, tuple[str, list[Leaf], list[Leaf]]] = {}


def _case(name: str, text: str, inputs: list[Leaf], outputs: list[Leaf]) -> None:
    assert name not in CASES, name
    CASES[name] = (text, inputs, outputs)


def _array(leaf: Leaf) -> np.ndarray:
    et, dims, data = leaf
    return np.frombuffer(bytes.fromhex(data), np.dtype(_DTYPES[et])).reshape(dims).copy()


def _leaves(value: object) -> list[np.ndarray]:
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [np.asarray(value)]


def _run(name: str, mode: str) -> list[np.ndarray]:
    text, inputs, _ = CASES[name]
    module = hlotools.parse_module(text, name)
    args = [_array(leaf) for leaf in inputs]
    if mode.startswith("interp"):
        if mode == "interp-O2":
            module = reparsed_copy(module)
            run_pipeline(module, parse_pipeline(preset_spec("O2")), ManagerOptions(verify_each=True))
        with np.errstate(all="ignore"):
            return _leaves(evaluate(module, args))
    from hlotools.backend.llvm.cache import CompileOptions, compile_cached
    compiled = compile_cached(module, CompileOptions(preset=mode.split("-")[1]), compile_cache=None)
    return _leaves(compiled(args))


def _same(got: np.ndarray, leaf: Leaf, where: str) -> None:
    """Bit for bit, NaN signs and payloads too."""
    want = _array(leaf)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{where}: {got.dtype}{list(got.shape)}, XLA gives {want.dtype}{list(want.shape)}"
    g, w = np.ascontiguousarray(got).ravel(), want.ravel()
    if g.dtype.kind == "c":
        g, w = g.view(g.real.dtype), w.view(w.real.dtype)
    same = g.view(f"u{g.itemsize}") == w.view(f"u{w.itemsize}")
    bad = np.flatnonzero(~same)
    assert not bad.size, (f"{where}: {bad.size} of {g.size} differ from XLA, first at flat index "
                          f"{bad[0]}: {g[bad[0]]!r}, XLA {w[bad[0]]!r}")


# ------------------------------------------------------------------ 1. `-0` in a float literal
# XLA's lexer reads `-0` (and `-000`) as the integer token 0, so a float constant spelled so is
# +0; `-0.0` and `-0e0` are floats and keep the sign. The reduce's init `-0` is +0 too: the sum
# of four -0.0 is +0. (XLA's printer spells -0.0 `-0`; hlotools prints `-0.0`, which both read
# back as -0.0.) The big literal takes the parser's numpy fast path.
_case('negzero', 'HloModule m\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT r = f32[] add(x, y)\n}\nENTRY main {\n  p = f32[4] parameter(0)\n  a = f32[] constant(-0)\n  b = f32[] constant(-0.0)\n  c = f16[] constant(-0)\n  d = f32[2] constant({-0, -0.0})\n  e = c64[] constant((-0, -0.0))\n  f = bf16[] constant(-0e0)\n  g = f64[] constant(-000)\n  z = f32[] constant(-0)\n  s = f32[] reduce(p, z), dimensions={0}, to_apply=add\n  ROOT t = (f32[], f32[], f16[], f32[2], c64[], bf16[], f64[], f32[]) tuple(a, b, c, d, e, f, g, s)\n}\n',
      [('f32', (4,), '00000080000000800000008000000080')],
      [('f32', (), '00000000'), ('f32', (), '00000080'), ('f16', (), '0000'), ('f32', (2,), '0000000000000080'), ('c64', (), '0000000000000080'), ('bf16', (), '0080'), ('f64', (), '0000000000000000'), ('f32', (), '00000000')])
_case('negzero_big', 'HloModule m\nENTRY main {\n  c = f32[128] constant({-0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00, -0, -0.0, 1.5, -00})\n  p = f32[128] parameter(0)\n  ROOT a = f32[128] add(c, p)\n}\n',
      [('f32', (128,), '0000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080000000800000008000000080')],
      [('f32', (128,), '00000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f0000000000000000000000800000c03f00000000')])


# ------------------------------------------------------------------ 2. rank-0 complex operands
# The interpreter's complex formulas split a c64[] value into parts with np.ascontiguousarray,
# which makes a rank-0 array rank 1: every scalar complex unary/binary op failed ("negate
# kernel returned complex64[1], expected c64[]"). The second case has inf, -0 and a denormal.
_case('scalar_c64', 'HloModule m\nENTRY main {\n  p0 = c64[] parameter(0)\n  p1 = c64[] parameter(1)\n  n = c64[] negate(p0)\n  s = c64[] sine(p0)\n  g = c64[] sign(p0)\n  e = c64[] exponential(p0)\n  q = c64[] sqrt(p1)\n  t = c64[] cosine(p1)\n  l = c64[] log(p1)\n  a = f32[] abs(p0)\n  d = c64[] divide(p0, p1)\n  m = c64[] multiply(p0, p1)\n  ROOT r = (c64[], c64[], c64[], c64[], c64[], c64[], c64[], f32[], c64[], c64[]) tuple(n, s, g, e, q, t, l, a, d, m)\n}\n',
      [('c64', (), '0000c03f000080be'), ('c64', (), '000000c000004040')],
      [('c64', (), '0000c0bf0000803e'), ('c64', (), 'aeb0833f326292bc'), ('c64', (), '51847c3f365828be'), ('c64', (), 'a6f48a40c1ec8dbf'), ('c64', (), 'c75e653f864ad63f'), ('c64', (), '6a1186c065bf1141'), ('c64', (), '2228a43fc3290a40'), ('f32', (), 'fda5c23f'), ('c64', (), '3bb193bed9899dbe'), ('c64', (), '000010c00000a040')])
_case('scalar_c64_special', 'HloModule m\nENTRY main {\n  p0 = c64[] parameter(0)\n  p1 = c64[] parameter(1)\n  n = c64[] negate(p0)\n  s = c64[] sine(p0)\n  g = c64[] sign(p0)\n  e = c64[] exponential(p0)\n  q = c64[] sqrt(p1)\n  t = c64[] cosine(p1)\n  l = c64[] log(p1)\n  a = f32[] abs(p0)\n  d = c64[] divide(p0, p1)\n  m = c64[] multiply(p0, p1)\n  ROOT r = (c64[], c64[], c64[], c64[], c64[], c64[], c64[], f32[], c64[], c64[]) tuple(n, s, g, e, q, t, l, a, d, m)\n}\n',
      [('c64', (), '000000800000807f'), ('c64', (), 'c216010000000040')],
      [('c64', (), '00000000000080ff'), ('c64', (), '0000c0ff0000807f'), ('c64', (), '000000800000c0ff'), ('c64', (), '0000c0ff0000c0ff'), ('c64', (), '0000803f0000803f'), ('c64', (), 'd1c7704000000080'), ('c64', (), '1872313fdb0fc93f'), ('f32', (), '0000807f'), ('c64', (), '0000807f0000c0ff'), ('c64', (), '000080ff0000c0ff')])


# ------------------------------------------------------------------ 3. NaN parts of complex literals
# XLA's parser (SetValueInLiteralHelper, hlo_parser.cc) gives the imaginary part the real
# part's NaN handling: a NaN real part, with its sign and payload, is copied into the
# imaginary part ((nan, 1) is (nan, nan)); a NaN imaginary part of a number is the lexer's
# double NaN cast to the part's type (top payload bits kept, quiet bit set). Found as
# `constant((nan, 5.877e-39))`, which XLA runs as (nan, nan).
_case('complex_nan_literal', 'HloModule m\nENTRY main {\n  a = c64[] constant((nan, 5.877471754111438e-39))\n  b = c64[] constant((nan, 1))\n  c = c64[] constant((1, 5.877471754111438e-39))\n  d = c64[] constant((nan, 0))\n  e = c64[] constant((1, nan))\n  f = c64[2] constant({(nan, 2), (3, -inf)})\n  g = c128[] constant((nan, 1))\n  h = c64[] constant((-nan, 1))\n  ROOT t = (c64[], c64[], c64[], c64[], c64[], c64[2], c128[], c64[]) tuple(a, b, c, d, e, f, g, h)\n}\n',
      [],
      [('c64', (), '0000c07f0000c07f'), ('c64', (), '0000c07f0000c07f'), ('c64', (), '0000803f00004000'), ('c64', (), '0000c07f0000c07f'), ('c64', (), '0000803f0000c07f'), ('c64', (2,), '0000c07f0000c07f00004040000080ff'), ('c128', (), '000000000000f87f000000000000f87f'), ('c64', (), '0000c0ff0000c0ff')])
_case('complex_nan_payload_literal', 'HloModule m\nENTRY main {\n  a = c64[] constant((1, nan(0x5)))\n  b = c64[] constant((nan(0x5), 1))\n  c = c64[] constant((1, -nan))\n  d = c128[] constant((1, nan(0x5)))\n  e = c64[] constant((1, nan(0x7fffffffff)))\n  f = c64[] constant((-nan(0x3), nan(0x7)))\n  g = c128[] constant((-nan(0x3), 2))\n  ROOT t = (c64[], c64[], c64[], c128[], c64[], c64[], c128[]) tuple(a, b, c, d, e, f, g)\n}\n',
      [],
      [('c64', (), '0000803f0000c07f'), ('c64', (), '0500807f0500807f'), ('c64', (), '0000803f0000c0ff'), ('c128', (), '000000000000f03f050000000000f07f'), ('c64', (), '0000803fff03c07f'), ('c64', (), '030080ff030080ff'), ('c128', (), '030000000000f0ff030000000000f0ff')])


@pytest.mark.parametrize("name,mode", [(n, m) for n in sorted(CASES) for m in MODES])
def test_agrees_with_xla(name: str, mode: str) -> None:
    got = _run(name, mode)
    expected = CASES[name][2]
    assert len(got) == len(expected), f"{len(got)} result leaves, XLA gives {len(expected)}"
    for i, (g, leaf) in enumerate(zip(got, expected)):
        _same(g, leaf, f"{name} {mode} out{i}")


def test_negative_zero_prints_so_that_it_reads_back() -> None:
    text = CASES["negzero"][0]
    again = hlotools.parse_module(hlotools.print_module(hlotools.parse_module(text)))
    got = _leaves(evaluate(again, [_array(CASES["negzero"][1][0])]))
    for i, (g, leaf) in enumerate(zip(got, CASES["negzero"][2])):
        _same(g, leaf, f"printed and parsed out{i}")


# ------------------------------------------------------------------ the table is XLA's
@pytest.mark.slow
@pytest.mark.skipif(not (XLA_PYTHON.exists() and XLA_REF.exists()), reason="no XLA reference venv")
def test_recorded_values_are_xlas(tmp_path: Path) -> None:
    """Every recorded output is what XLA gives today."""
    names = sorted(CASES)
    for name in names:
        text, inputs, _ = CASES[name]
        (tmp_path / f"{name}.hlo").write_text(text)
        arrays: dict[str, Any] = {f"in{i}": _array(leaf) for i, leaf in enumerate(inputs)}
        np.savez(tmp_path / f"{name}.in.npz", **arrays)
    results = _xla_results([tmp_path / f"{n}.hlo" for n in names])
    bad = [f"{n}: XLA gives {str(r)[:300]}" for n, r in zip(names, results)
           if not isinstance(r, list) or [data for _, data in r] != [leaf[2] for leaf in CASES[n][2]]]
    assert not bad, "\n".join(bad)
