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

import hlotools
from hlotools import evaluate
from hlotools.passes.manager import ManagerOptions, run_pipeline
from hlotools.passes.pipeline import parse_pipeline, preset_spec
from tests.support.paths import SHARED
from tests.support.xla_batch import AVAILABLE, run_in_xla

Leaf = tuple[str, tuple[int, ...], str]
MODES = ("interp", "interp-O2", "llvm-none", "llvm-O2")
_DTYPES = {"pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
           "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f16": np.float16,
           "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64, "c64": np.complex64,
           "c128": np.complex128}
CASES: dict[str, tuple[str, list[Leaf], list[Leaf]]] = {}
# XLA's answer comes from an algsimp rewrite, which the interpreter replays (algsimp-inexact)
# and the LLVM backend's -O2 runs: not llvm-none (the module as written).
NEEDS_PASSES: set[str] = set()


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
            module = module.clone()
            run_pipeline(module, parse_pipeline(preset_spec("O2")), ManagerOptions(verify_each=True))
        with np.errstate(all="ignore"):
            return _leaves(evaluate(module, args))
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
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


# ------------------------------------------------------------------ 4. A / Const
# XLA's algsimp (HandleDivide) rewrites every float or complex A / Const, Const a constant or a
# broadcast of one and A not a constant, into A * (1/Const) with 1/Const rounded to the type:
# x / 3 is x * 0.333333343 (an ulp from the quotient for a third of all x), an array divisor
# is inverted elementwise, f16 x / 2^-24 is x * inf. xla-cpu's algsimp does the same (hlotools'
# took only exact reciprocals); llvm-none runs the module as written, which divides.
_case('div_by_constant', 'HloModule m\nENTRY main {\n  x = f32[16] parameter(0)\n  h = f16[4] parameter(1)\n  z = c64[4] parameter(2)\n  d = f64[4] parameter(3)\n  w = bf16[4] parameter(4)\n  c3 = f32[] constant(3)\n  b3 = f32[16] broadcast(c3), dimensions={}\n  q = f32[16] divide(x, b3)\n  k = f32[16] constant({3, 7, 10, 0.1, -3, 1e-3, 255, 6, 3, 7, 10, 0.1, -3, 1e-3, 255, 6})\n  r = f32[16] divide(x, k)\n  ct = f16[] constant(5.9604644775390625e-08)\n  bt = f16[4] broadcast(ct), dimensions={}\n  s = f16[4] divide(h, bt)\n  cz = c64[] constant((2, 1))\n  bz = c64[4] broadcast(cz), dimensions={}\n  t = c64[4] divide(z, bz)\n  cd = f64[] constant(10)\n  bd = f64[4] broadcast(cd), dimensions={}\n  u = f64[4] divide(d, bd)\n  cw = bf16[] constant(3)\n  bw = bf16[4] broadcast(cw), dimensions={}\n  v = bf16[4] divide(w, bw)\n  ROOT o = (f32[16], f32[16], f16[4], c64[4], f64[4], bf16[4]) tuple(q, r, s, t, u, v)\n}\n',
      [('f32', (16,), '0000803f00000040000080400000a0400000e040000020410000304100005041cdcccc3d333333bfcaf24971e65523010000c8426f12833a9a99993e00001041'), ('f16', (4,), '1914003c00c00000'), ('c64', (4,), '0000803f0000803f00004040000000c00000003f0000e040ec78ade00000803f'), ('f64', (4,), '000000000000f03f00000000000008400000000000001c40333333333333d33f'), ('bf16', (4,), '803f0040a040e040')],
      [('f32', (16,), 'abaaaa3eabaa2a3fabaaaa3f5655d53f5655154056555540abaa6a40abaa8a408988083defee6ebedca1867000000000565505423fc3ae39cecccc3d00004040'), ('f32', (16,), 'abaaaa3e2549923ecdcccc3e00004842565515c0ff3f1c46b1b0303dabaa0a408988083dcdccccbd088fa16f602bcc02565505c20000803fce339a3a0000c03f'), ('f16', (4,), '007c007c00fc00fe'), ('c64', (4,), '9a99193fcdcc4c3ecdcc4c3f3433b3bfcdcccc3fcdcc2c4023c70ae023c78a5f'), ('f64', (4,), '9a9999999999b93f343333333333d33f676666666666e63fb81e85eb51b89e3f'), ('bf16', (4,), 'ab3e2b3fd53f1540')])
NEEDS_PASSES.add("div_by_constant")


# ------------------------------------------------------------------ 5. printing c64 parts at FLT_MAX
# XLA range-checks a complex part as the double it parsed, before rounding it to float (a real
# f32 literal is rounded first), so `3.40282347e+38` (f32's round-trip spelling of FLT_MAX,
# above it as a double) is "out of range for C64" in XLA's parser and in hlotools': the
# printer spells such a part as its double, 3.4028234663852886e+38. Found by running
# hlotools' printed text of every campaign module on XLA.
_case('c64_max_parts', 'HloModule m\nENTRY main {\n  p = c64[3] parameter(0)\n  c = c64[3] constant({(3.4028234663852886e+38, -3.4028234663852886e+38), (1, 2), (-0.0, 3.4028232635611926e+38)})\n  ROOT a = c64[3] add(p, c)\n}\n',
      [('c64', (3,), '997696fe0000803f0000000000000000000000006f12833a')],
      [('c64', (3,), 'b2c4347fffff7fff0000803f0000004000000000feff7f7f')])


@pytest.mark.parametrize("name,mode", [(n, m) for n in sorted(CASES) for m in MODES
                                       if n not in NEEDS_PASSES or m != "llvm-none"])
def test_agrees_with_xla(name: str, mode: str) -> None:
    got = _run(name, mode)
    expected = CASES[name][2]
    assert len(got) == len(expected), f"{len(got)} result leaves, XLA gives {len(expected)}"
    for i, (g, leaf) in enumerate(zip(got, expected)):
        _same(g, leaf, f"{name} {mode} out{i}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_printed_text_reads_back_to_the_same_results(name: str) -> None:
    """hlotools' printed text of each case parses (XLA's parser reads it too: see
    test_recorded_values_are_xlas) and computes XLA's outputs: -0.0, complex NaN parts and
    FLT_MAX parts survive the printer."""
    text, inputs, outputs = CASES[name]
    printed = hlotools.print_module(hlotools.parse_module(text, name))
    module = hlotools.parse_module(printed, f"{name} (printed)")
    with np.errstate(all="ignore"):
        got = _leaves(evaluate(module, [_array(leaf) for leaf in inputs]))
    for i, (g, leaf) in enumerate(zip(got, outputs)):
        _same(g, leaf, f"{name} printed out{i}")


def test_divide_by_constant_stays_a_divide_under_spec() -> None:
    """--semantics=spec keeps the quotient: only exact scalar reciprocals (C = 2^k) multiply."""
    from hlotools.ir import semantics
    text = CASES["div_by_constant"][0]
    with semantics.using("spec"):
        module = hlotools.parse_module(text).clone()
        run_pipeline(module, parse_pipeline(preset_spec("O2")), ManagerOptions(verify_each=True))
    divides = [i for c in module.computations for i in c.instructions if i.opcode == "divide"]
    assert len(divides) == 6, hlotools.print_module(module)


JAX = SHARED / "corpus" / "jax"


@pytest.mark.skipif(not JAX.is_dir(), reason="shared/corpus/jax is absent")
@pytest.mark.parametrize("name,leaf", [("dtype_converts", 9), ("iota_masks", 6)])
def test_divide_by_constant_gives_xlas_bits_on_the_jax_corpus(name: str, leaf: int) -> None:
    """x / 255 (image bytes to [0, 1]) and a linspace step: after -O2 the interpreter gives
    every one of XLA's recorded bits (the quotient missed 70 of 128 and 1 of 11)."""
    from tests.corpus.test_algsimp import load_inputs
    module = hlotools.parse_module((JAX / f"{name}.hlo").read_text(), name)
    args = load_inputs(module, name)
    run_pipeline(module, parse_pipeline(preset_spec("O2")), ManagerOptions())
    got = np.asarray(_leaves(evaluate(module, args))[leaf])
    with np.load(JAX / f"{name}.expected.npz") as f:
        want = f[f"out{leaf}"]
    assert got.dtype == want.dtype and np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


# ------------------------------------------------------------------ the table is XLA's
@pytest.mark.slow
@pytest.mark.skipif(not AVAILABLE, reason="no XLA reference venv")
def test_recorded_values_are_xlas(tmp_path: Path) -> None:
    """Every recorded output is what XLA gives today, for the case's text and for hlotools'
    printed text of it."""
    names = sorted(CASES)
    files = []
    for name in names:
        text, inputs, _ = CASES[name]
        arrays: dict[str, Any] = {f"in{i}": _array(leaf) for i, leaf in enumerate(inputs)}
        for stem, body in ((name, text), (f"{name}.printed", hlotools.print_module(hlotools.parse_module(text)))):
            (tmp_path / f"{stem}.hlo").write_text(body)
            np.savez(tmp_path / f"{stem}.in.npz", **arrays)
            files.append((name, tmp_path / f"{stem}.hlo"))
    results = run_in_xla([f for _, f in files])
    bad = [f"{f.name}: XLA gives {str(r)[:300]}" for (n, f), r in zip(files, results)
           if not isinstance(r, list) or [data for _, _, data in r] != [leaf[2] for leaf in CASES[n][2]]]
    assert not bad, "\n".join(bad)
