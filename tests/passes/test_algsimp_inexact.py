"""XLA CPU's float-changing algsimp rewrites (algsimp_inexact.py, algsimp_arith.div_float_constant)
against XLA's own numbers: the values jaxlib 0.10's XLA CPU computed for a module of one
pattern per output (`xla_ref.py run`, inputs and outputs recorded below), the constants its
algsimp printed (`xla_ref.py opt`), and the JAX corpus's dtype_converts (out9 is u8 x / 255)
bit for bit on the interpreter (which runs algsimp-inexact on a copy, evaluator.py) and on
the LLVM backend's O2 pipeline. Under spec semantics nothing of this fires."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.ir import semantics
from hlotools.ir.types import ELEMENT_TYPES
from hlotools.passes.algsimp_core import reciprocal
from hlotools.passes.manager import run_pipeline
from hlotools.passes.pipeline import parse_pipeline
from tests.support.paths import SHARED

JAX = SHARED / "corpus" / "jax"

MODULE = """HloModule inexact_values

ENTRY main {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  p2 = f32[8] parameter(2)
  h0 = f16[8] parameter(3)
  g0 = bf16[8] parameter(4)
  z0 = c64[8] parameter(5)
  s0 = f32[] parameter(6)
  c3 = f32[] constant(3)
  b3 = f32[8] broadcast(c3), dimensions={}
  c7 = f32[] constant(7)
  b7 = f32[8] broadcast(c7), dimensions={}
  c255 = f32[] constant(255)
  b255 = f32[8] broadcast(c255), dimensions={}
  o0 = f32[8] divide(p0, b255)
  d3 = f32[8] divide(p0, b3)
  o1 = f32[8] divide(d3, b7)
  d01 = f32[8] divide(p0, p1)
  o2 = f32[8] divide(d01, p2)
  d12 = f32[8] divide(p1, p2)
  o3 = f32[8] divide(p0, d12)
  e0 = f32[8] exponential(p0)
  e1 = f32[8] exponential(p1)
  o4 = f32[8] divide(e0, e1)
  o5 = f32[8] multiply(e0, e1)
  sq = f32[8] sqrt(p1)
  o6 = f32[8] divide(p0, sq)
  bs = f32[8] broadcast(s0), dimensions={}
  o7 = f32[8] divide(p0, bs)
  c01 = f32[] constant(0.1)
  b01 = f32[8] broadcast(c01), dimensions={}
  c07 = f32[] constant(0.7)
  b07 = f32[8] broadcast(c07), dimensions={}
  a1 = f32[8] add(p0, b01)
  o8 = f32[8] add(a1, b07)
  m1 = f32[8] multiply(p0, b01)
  o9 = f32[8] multiply(m1, b07)
  l0 = f32[8] log(e0)
  o10 = f32[8] add(l0, p2)
  c3p = f32[] constant(3)
  b3p = f32[8] broadcast(c3p), dimensions={}
  o11 = f32[8] power(p1, b3p)
  pw = f32[8] power(p1, p2)
  o12 = f32[8] log(pw)
  ms = f32[8] multiply(p2, p2)
  o13 = f32[8] sqrt(ms)
  sx1 = f32[8] subtract(p0, b01)
  o14 = f32[8] add(sx1, b07)
  hc = f16[] constant(3)
  hb = f16[8] broadcast(hc), dimensions={}
  o15 = f16[8] divide(h0, hb)
  gc = bf16[] constant(3)
  gb = bf16[8] broadcast(gc), dimensions={}
  o16 = bf16[8] divide(g0, gb)
  zc = c64[] constant((3, 1))
  zb = c64[8] broadcast(zc), dimensions={}
  o17 = c64[8] divide(z0, zb)
  gd = bf16[8] divide(g0, gb)
  o18 = f32[8] convert(gd)
  hd = f16[8] divide(h0, hb)
  one = f16[] constant(1)
  oneb = f16[8] broadcast(one), dimensions={}
  o19 = f16[8] add(hd, oneb)
  ROOT t = (f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f32[8], f16[8], bf16[8], c64[8], f32[8], f16[8]) tuple(o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11, o12, o13, o14, o15, o16, o17, o18, o19)
}
"""
# (dtype, dims, raw bytes) of the inputs; the outputs' raw bytes as XLA CPU computed them.
INPUTS = [
    ('float32', (8,), 'c069fa42817e3343d23f1b4320b735425f8871421fc62e436f74c63fc7552443'),
    ('float32', (8,), 'c4578041e7fe19419d17cd40d2bcbd40e309af4022dd1241476b2541f1b03441'),
    ('float32', (8,), '1f5a9f40b02482400830534007699e408f04bc3f3a489c3f52695040079f323f'),
    ('float16', (8,), '9e477456d855bc59e05771563a563c52'),
    ('bfloat16', (8,), '37401c420b43224294429f3f2643fb41'),
    ('complex64', (8,), '88bc14c0e72c9f3d9f6973403ea86d400b84c83dfe94b1bf192d5e40e9597b3f85d6b23f1b0a8dc0c1bb1a40d0d48fbfaeb882c07383e2bf08a8d23e47df5fc0'),
    ('float32', (), 'cdcc6c40'),
]
# out6 (A / sqrt(B) => A * rsqrt(B)) and out12 (log(pow)) also take XLA's form, but its rsqrt and
# log round differently from the interpreter's kernels (1-2 ulp, not algsimp's): left out.
XLA_OUTPUTS = {
    0: '2665fb3eb432343faedb1b3f8e6d363edb7a723e95752f3fab3bc73bc2fa243f',
    1: '7bcabe40e9c108410592ec4025730a40620638403d2905412534973d556afa40',
    2: '969bc83fafbc9240a1e7ea40fb1bc63fde7cf040b184794197a03c3d07d8a641',
    3: '3e751b423ab1974204dd9f426ab61742a2b881416bfbb9417e08fa3ed5732241',
    4: '0000807f0000807f0000807f567dfd5b376615670000807fd4eb1f390000807f',
    5: '0000807f0000807f0000807f10a188645688006f0000807f3b420e480000807f',
    7: 'c15b0742380c42424ad62742f2724441e78e8241dcf13c42b68bd63ed7a83142',
    8: '5a03fc424e4b34439f0c1c4353ea384292bb7442ec922f436b6d164094222543',
    9: '383b0c419108494114e12d416c854b40214287402dbf4341f744de3d270e3841',
    10: 'b12f0243a68f3743928c1e434184494283687742affe2f43c5d1994066082543',
    11: '01088145dce55e4448a2834336745043d8a9234357574144cc228a446109b444',
    13: '1f5a9f40b02482400830534007699e408f04bc3f3a489c3f52695040079f323f',
    14: 'f39cfb421b1834436cd91b43861d3842c5ee7342b95f2f439ea0094061ef2443',
    15: '14414d50ca4fa55340514b502650284c',
    16: '743f504139425841c541d43e5d422741',
    17: '7a7e30bf65ed823e3994c13fd8d23b3ffbf9dfbd7e1cdabe8edf913f167157bdf7ebb0bc9521bbbff2e91c3f313114bf5d84b3bfcca5fabd3ccd67bef8968bbf',
    18: '0000743f0000504156553942000058415655c5410000d43e56555d4256552741',
    19: '14436d500550c55360516b504650684c',
}


def _inputs() -> list[np.ndarray]:
    out = []
    for name, dims, raw in INPUTS:
        dtype = np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)
        out.append(np.frombuffer(bytes.fromhex(raw), dtype).reshape(dims).copy())
    return out


def _mismatches(got: list[np.ndarray]) -> list[int]:
    return [i for i, raw in XLA_OUTPUTS.items() if np.asarray(got[i]).tobytes().hex() != raw]


def test_interpreter_gives_xla_values_for_the_unoptimised_module() -> None:
    module = hlotools.parse_module(MODULE)
    assert _mismatches(evaluate(module, _inputs())) == []


def test_interpreter_after_algsimp_gives_the_same_values() -> None:
    module = hlotools.parse_module(MODULE)
    run_pipeline(module, parse_pipeline("algsimp"))
    assert _mismatches(evaluate(module, _inputs())) == []


def test_spec_semantics_keep_the_quotients() -> None:
    """Under spec the interpreter divides (per-op rounding): most outputs are not XLA's."""
    module = hlotools.parse_module(MODULE)
    with semantics.using("spec"):
        wrong = _mismatches(evaluate(module, _inputs()))
        assert len(wrong) >= 12, wrong
        run_pipeline(module, parse_pipeline("algsimp"))
    assert "divide(p0, b255)" in hlotools.print_module(module, "short").replace("b255.", "b255")


@pytest.mark.slow
def test_llvm_backend_o2_gives_xla_values() -> None:
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
    compiled = compile_cached(hlotools.parse_module(MODULE), CompileOptions())
    assert _mismatches(list(compiled(_inputs()))) == []


# XLA CPU's printed reciprocal constants (`xla_ref.py opt` of x / constant({...})).
RECIPROCALS = [
    ("f32", [1e-39, 3e-39, 1e38, -1e38, 3e38, 3.0, 0.0, -0.0], [np.inf, np.inf, 0.0, -0.0, 0.0, 0.333333343, np.inf, -np.inf]),
    ("f16", [6e-8, 3e-5, 65504, 7], [np.inf, 33344, 1.5259e-05, 0.14282]),
    ("f64", [3e-310, 1e308, 3, -1e-320], [np.inf, 0, 0.33333333333333331, -np.inf]),
    ("c64", [3 + 1j, 1e30 + 3e30j, 2.5 - 7.25j], [0.3 - 0.100000009j, 1.0000001e-31 - 3.00000029e-31j,
                                                 0.0425079688 + 0.123273112j]),
    ("c128", [3 + 1j, 1e300 + 3e300j, 2.5 - 7.25j], [0.3 - 0.099999999999999992j, 9.9999999999999986e-302 - 3e-301j,
                                                    0.04250797024442083 + 0.12327311370882039j]),
]


@pytest.mark.parametrize("name,values,want", RECIPROCALS, ids=[r[0] for r in RECIPROCALS])
def test_reciprocal_is_xlas_inverted_constant(name: str, values: list, want: list) -> None:
    """Flushed like XLA's compile thread (FTZ|DAZ): f32 1/3e-39 is inf and 1/1e38 is 0."""
    t = ELEMENT_TYPES[name]
    got = reciprocal(np.array(values, t.dtype), t)
    expected = np.array(want, t.dtype)
    assert got.tobytes() == expected.tobytes(), (got, expected)


def test_complex_reciprocal_of_zero_is_inf_nan() -> None:
    """std::complex 1 / 0 (libgcc's Annex G case): inf + nan i with the sign bit set, as XLA prints (inf, -nan)."""
    got = reciprocal(np.array([0j], np.complex64), ELEMENT_TYPES["c64"])[0]
    assert got.real == np.inf and np.isnan(got.imag) and np.signbit(got.imag)


@pytest.mark.skipif(not (JAX / "dtype_converts.hlo").is_file(), reason="shared/corpus/jax is absent")
@pytest.mark.parametrize("style", ["hlo", "dump.hlo", "xla_opt.hlo"])
def test_dtype_converts_bit_for_bit_on_the_interpreter(style: str) -> None:
    args, want = _dtype_converts_io()
    got = evaluate(hlotools.parse_module((JAX / f"dtype_converts.{style}").read_text()), args)
    assert [i for i, (g, w) in enumerate(zip(got, want)) if np.asarray(g).tobytes() != w.tobytes()] == []


def _dtype_converts_io() -> tuple[list[np.ndarray], list[np.ndarray]]:
    with np.load(JAX / "dtype_converts.inputs.npz") as f:
        args = [f[f"in{i}"] for i in range(len(f.files))]
    with np.load(JAX / "dtype_converts.expected.npz") as f:
        want = [f[f"out{i}"] for i in range(len(f.files))]
    return args, want


@pytest.mark.slow
@pytest.mark.skipif(not (JAX / "dtype_converts.hlo").is_file(), reason="shared/corpus/jax is absent")
@pytest.mark.parametrize("style", ["hlo", "dump.hlo"])
def test_dtype_converts_bit_for_bit_on_the_llvm_backend(style: str) -> None:
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
    args, want = _dtype_converts_io()
    got = compile_cached(hlotools.parse_module((JAX / f"dtype_converts.{style}").read_text()), CompileOptions())(args)
    assert [i for i, (g, w) in enumerate(zip(got, want)) if np.asarray(g).tobytes() != w.tobytes()] == []
