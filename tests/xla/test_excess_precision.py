"""Where XLA CPU rounds f16/bf16 results, on both backends, against XLA's recorded outputs.

What XLA does (jaxlib 0.10.2, measured with shared/tools/xla_ref.py and the shared corpus):
* bf16: FloatNormalization computes every bf16 op in f32 and rounds after each one, except
  that a convert(bf16 -> f32) user of an op reads its f32 value unrounded
  (xla_allow_excess_precision, default true); the f32->bf16->f32 pairs between two bf16 ops
  stay (no simplify-fp-conversions outside oneDNN). Recorded below from XLA on this machine.
* f16: XLA keeps f16 ops in the HLO; LLVM computes them one rounding at a time, but contracts
  a multiply used once into its add/subtract (FPOpFusion::Fast) where the host has f16 FMA
  (AVX512-FP16). The JAX corpus was computed on such a host: dtype_converts' (h*h + 1) is
  fma(h, h, 1). Recorded below from that corpus (XLA on this machine, without AVX512-FP16,
  rounds h*h first; tests cannot run XLA).
"""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver.compile import compile_cached
from tests.support.paths import SHARED

BF16 = np.dtype(ml_dtypes.bfloat16)
CORPUS = SHARED / "corpus" / "jax"


def run_both(text: str, args: list[np.ndarray]) -> list[list[np.ndarray]]:
    """The interpreter's and the LLVM backend's results (through its pass pipeline, as hlo-run)."""
    module = hlotools.parse_module(text)
    return [list(evaluate(module, args)), list(compile_cached(module, compile_cache=None)(args))]


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def from_hex(text: str, dtype: np.dtype) -> np.ndarray:
    raw = np.array([int(w, 16) for w in text.split()], {2: np.uint16, 4: np.uint32}[dtype.itemsize])
    return raw.view(dtype)


# ----------------------------------------------------------------------------------- bf16

BF16_MODULE = """HloModule bf16_excess_precision
ENTRY main {
  x = bf16[16] parameter(0)
  y = bf16[16] parameter(1)
  m = bf16[16] multiply(x, y)
  mf = f32[16] convert(m)
  one = bf16[] constant(1)
  ones = bf16[16] broadcast(one), dimensions={}
  ay = bf16[16] abs(y)
  den = bf16[16] add(ay, ones)
  d = bf16[16] divide(x, den)
  df = f32[16] convert(d)
  dd = bf16[16] add(d, x)
  e = bf16[16] exponential(x)
  ef = f32[16] convert(e)
  s = bf16[16] subtract(x, y)
  sd = f64[16] convert(s)
  t = bf16[16] multiply(m, x)
  tf = f32[16] convert(t)
  ROOT r = (f32[16], f32[16], bf16[16], f32[16], f64[16], f32[16], bf16[16]) tuple(mf, df, dd, ef, sd, tf, m)
}
"""
BF16_X = "4003 c024 3ed6 bf11 bee8 be5d c001 be6d bf5d 4055 3e67 beb5 be90 bf2b bf87 bec8"
BF16_Y = "3ef7 be74 3f75 be4d 3cc7 3fc6 3f0c bf01 be3b 3f0a 3ff8 be8a be79 3f80 bf63 be95"
# XLA's outputs (xla_ref run, default flags). The f32 ones are the ops' values before rounding:
# with --xla_allow_excess_precision=false XLA gives them rounded to bf16 (checked below).
BF16_XLA = {
    0: "3f7cca00 3f1c5000 3eccce00 3de83a00 bc345800 beaaee00 bf8d1800 3deeda00 3e216f00 3fe5a400 "
       "3edfc800 3dc32400 3d8c1000 bf2b0000 3f6f6a00 3de8d000",
    1: "3fb08159 c004dc5b 3e5b22d1 bef109f9 bee2afe1 bdad8bc7 bfa6c9b2 be1e0000 bf3b5677 400a655c "
       "3d9d46cf be8f0329 be67d95c beab0000 bf0ecf57 be9b26ca",
    2: "405c c094 3f22 bf85 bf66 be9a c054 bec6 bfcc 40b0 3e9b bf22 bf02 bf80 bfce bf32",
    3: "40f7cc19 3d9decc0 3fc26a70 3f114bb5 3f22b937 3f4e4e28 3e086f4f 3f4b1b5a 3ed7f301 41df168a "
       "3fa0642a 3f33c45d 3f413d2b 3f034385 3eb2548b 3f2d37e0",
    5: "40017700 bfc7e000 3e2b5e00 bd836800 3ba32000 3d939f00 400e1a00 bcdd4300 be0afd00 40bf5e00 "
       "3dca2000 bd09df00 bc9d8000 3ee47200 bf7c1200 bd360800",
    6: "3f7d 3f1c 3ecd 3de8 bc34 beab bf8d 3def 3e21 3fe6 3ee0 3dc3 3d8c bf2b 3f6f 3de9",
}
# sd = convert(x - y) to f64 is not bypassed (only converts to f32 are): rounded as bf16.
BF16_XLA_F64 = ("3ff9000000000000 c002a00000000000 bfe1400000000000 bfd7800000000000 bfde800000000000 "
                "bffc400000000000 c004800000000000 3fd1800000000000 bfe5c00000000000 4006400000000000 "
                "bffb600000000000 bfb5800000000000 bfa3800000000000 bffac00000000000 bfc5800000000000 "
                "bfb9800000000000")


def _bf16_args() -> list[np.ndarray]:
    return [from_hex(BF16_X, BF16), from_hex(BF16_Y, BF16)]


def _bf16_expected(strict: bool) -> dict[int, np.ndarray]:
    want = {k: from_hex(v, BF16 if k in (2, 6) else np.dtype(np.float32)) for k, v in BF16_XLA.items()}
    want[4] = np.array([int(w, 16) for w in BF16_XLA_F64.split()], np.uint64).view(np.float64)
    if strict:  # XLA with --xla_allow_excess_precision=false: every bf16 result rounded
        want = {k: v.astype(BF16).astype(v.dtype) for k, v in want.items()}
    return want


@pytest.mark.parametrize("strict", [False, True], ids=["excess-precision", "strict"])
def test_bf16_results_read_through_a_convert_to_f32_are_not_rounded(strict: bool,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    if strict:
        monkeypatch.setenv("HLOTOOLS_EXCESS_PRECISION", "0")
    want = _bf16_expected(strict)
    for got in run_both(BF16_MODULE, _bf16_args()):
        for k, w in want.items():
            assert got[k].dtype == w.dtype
            np.testing.assert_array_equal(bits(got[k]), bits(w), err_msg=f"out{k}")


def test_spec_semantics_round_every_bf16_op(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HLOTOOLS_SEMANTICS", "spec")
    want = _bf16_expected(strict=True)
    for got in run_both(BF16_MODULE, _bf16_args()):
        np.testing.assert_array_equal(bits(got[0]), bits(want[0]))


# ------------------------------------------------------------------------------------ f16

F16_SQUARE_PLUS_ONE = """HloModule f16_fma
ENTRY main {
  h = f16[14] parameter(0)
  m = f16[14] multiply(h, h)
  one = f16[] constant(1)
  ones = f16[14] broadcast(one), dimensions={}
  ROOT a = f16[14] add(m, ones)
}
"""
# The 14 elements of corpus/jax dtype_converts' out4 = (h*h + 1) where XLA's answer (on the
# AVX512-FP16 host that computed the corpus) is not h*h rounded, plus one, rounded.
F16_H = "3c8a b9dc 3f44 3c94 3c47 3d6b 39db 3cea 3d98 b5f8 3510 387f 3cb8 bc24"
F16_XLA = "4093 3e25 444d 409f 4049 41ab 3e25 4105 41e9 3c8f 3c67 3d43 40c9 4025"

# h*h - h/(|h| + 1) at h = -2.916: XLA 9.25 = fma(h, h, -q), per-op rounding 9.242188.
F16_CHAIN = """HloModule f16_chain
ENTRY main {
  h = f16[2] parameter(0)
  m = f16[2] multiply(h, h)
  ab = f16[2] abs(h)
  one = f16[] constant(1)
  ones = f16[2] broadcast(one), dimensions={}
  d = f16[2] add(ab, ones)
  q = f16[2] divide(h, d)
  ROOT r = f16[2] subtract(m, q)
}
"""


def test_f16_multiply_add_rounds_once_as_xla_on_the_corpus_host() -> None:
    h = from_hex(F16_H, np.dtype(np.float16))
    want = from_hex(F16_XLA, np.dtype(np.float16))
    per_op = ((h * h) + np.float16(1)).astype(np.float16)
    assert (per_op != want).all()  # every case here tells the two apart
    for (got,) in run_both(F16_SQUARE_PLUS_ONE, [h]):
        np.testing.assert_array_equal(bits(got), bits(want))


def test_f16_chain_of_the_report() -> None:
    h = np.array([-2.916, 3.162], np.float16)
    for (got,) in run_both(F16_CHAIN, [h]):
        assert got[0] == np.float16(9.25)
        assert got[1] == np.float16(9.2421875)  # 3.162: both roundings agree


def test_f16_strict_under_spec_semantics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HLOTOOLS_SEMANTICS", "spec")
    h = from_hex(F16_H, np.dtype(np.float16))
    f = h.astype(np.float32)
    per_op = ((f * f).astype(np.float16).astype(np.float32) + 1).astype(np.float16)
    for (got,) in run_both(F16_SQUARE_PLUS_ONE, [h]):
        np.testing.assert_array_equal(bits(got), bits(per_op))


FMA_FORMS = """HloModule fma_forms
ENTRY main {
  a = f16[@] parameter(0)
  b = f16[@] parameter(1)
  c = f16[@] parameter(2)
  p = f16[@] multiply(a, b)
  s = f16[@] add(c, p)
  p2 = f16[@] multiply(a, c)
  t = f16[@] subtract(p2, b)
  p3 = f16[@] multiply(b, c)
  u = f16[@] subtract(a, p3)
  ROOT r = (f16[@], f16[@], f16[@]) tuple(s, t, u)
}
"""


def _f16_triples(n: int) -> list[np.ndarray]:
    """Random f16 bit patterns (subnormals, huge values, infinities, NaNs included), plus
    products sitting exactly on a rounding boundary of the addend."""
    rng = np.random.default_rng(7)
    a, b, c = (rng.integers(0, 1 << 16, n, dtype=np.uint16).view(np.float16) for _ in range(3))
    tie = n // 4  # c = 1 and a*b just above/below half an ulp of 1: TwoSum's error decides
    a[:tie] = np.float16(2.0 ** -6) * (1 + rng.integers(0, 1024, tie) / 1024).astype(np.float16)
    b[:tie] = np.float16(2.0 ** -5) * (1 + rng.integers(0, 1024, tie) / 1024).astype(np.float16)
    c[:tie] = np.float16(1)
    return [a, b, c]


def test_f16_fma_is_the_exactly_rounded_multiply_add() -> None:
    """The f32 spelling of the fma gives round_f16(a*b + c) exactly (computed here in f64,
    where a*b is exact and the one rounding of the sum cannot move an f16 rounding)."""
    n = 4096
    a, b, c = _f16_triples(n)
    a64, b64, c64 = (x.astype(np.float64) for x in (a, b, c))
    with np.errstate(all="ignore"):
        want = [(c64 + a64 * b64).astype(np.float16), (a64 * c64 - b64).astype(np.float16),
                (a64 - b64 * c64).astype(np.float16)]
    for got in run_both(FMA_FORMS.replace("@", str(n)), [a, b, c]):
        for g, w in zip(got, want):
            nan = np.isnan(w)
            assert (np.isnan(g) == nan).all()
            np.testing.assert_array_equal(bits(g)[~nan], bits(w)[~nan])


@pytest.mark.skipif(not (CORPUS / "dtype_converts.hlo").exists(), reason="shared corpus not present")
def test_corpus_dtype_converts_bit_for_bit() -> None:
    module = hlotools.parse_module((CORPUS / "dtype_converts.hlo").read_text())
    inputs = np.load(CORPUS / "dtype_converts.inputs.npz")
    expected = np.load(CORPUS / "dtype_converts.expected.npz")
    entry = module.entry
    assert entry is not None
    dtypes = [leaf.element_type.dtype for p in entry.parameters for leaf in p.shape.leaves()]
    args = [inputs[f"in{i}"].view(dt) if inputs[f"in{i}"].dtype.kind == "V" else inputs[f"in{i}"]
            for i, dt in enumerate(dtypes)]
    for got in (evaluate(module, args), compile_cached(module, compile_cache=None)(args)):
        for k in (4, 5):  # (h*h + 1) in f16, b*b - b in bf16
            want = expected[f"out{k}"]
            np.testing.assert_array_equal(bits(np.asarray(got[k])), bits(want), err_msg=f"out{k}")


@pytest.mark.parametrize("backend", ["interp", "llvm"])
@pytest.mark.parametrize("flag", ["true", "false"])
def test_hlo_run_xla_allow_excess_precision_flag(backend: str, flag: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from hlotools.cli.run import main
    monkeypatch.setenv("HLOTOOLS_EXCESS_PRECISION", "1")  # the CLI sets it: restored after the test
    hlo, inputs, out = tmp_path / "m.hlo", tmp_path / "in.npz", tmp_path / "out.npz"
    hlo.write_text(BF16_MODULE)
    x, y = _bf16_args()
    np.savez(inputs, in0=x, in1=y)
    result = CliRunner().invoke(main, [str(hlo), "--inputs", str(inputs), "--backend", backend, "--no-cache",
                                       f"--xla-allow-excess-precision={flag}", "-o", str(out)])
    assert result.exit_code == 0, result.output
    got = np.load(out)["out0"]
    np.testing.assert_array_equal(bits(got), bits(_bf16_expected(strict=flag == "false")[0]))


def test_float_normalization_strict_changes_nothing() -> None:
    """allow-excess-precision=false is XLA's strict mode: the module stays as it is (every
    bf16 result rounded, which both backends do op by op)."""
    from hlotools.passes.manager import run_pipeline
    from hlotools.passes.pipeline import parse_pipeline
    module = hlotools.parse_module(BF16_MODULE)
    before = hlotools.print_module(module)
    run_pipeline(module, parse_pipeline("float-normalization-bf16{allow-excess-precision=false}"))
    assert hlotools.print_module(module) == before
    run_pipeline(module, parse_pipeline("float-normalization-bf16{allow-excess-precision=true}"))
    assert hlotools.print_module(module) != before


def test_f16_logistic_rounds_each_step_as_xla_expands_it() -> None:
    """XLA CPU expands logistic to 1 / (1 + exp(-x)) before f16 is upcast, so every step rounds
    to f16: its output for these 4096 values has CRC-32 0x12ce1963 (xla_ref.py, jaxlib 0.10.2);
    computed in f32 throughout, 1462 of them differed by an ulp."""
    import zlib

    import numpy as np

    import hlotools
    from hlotools import evaluate
    from hlotools.backend.llvm.driver.runtime import CompiledModule
    text = "HloModule lg\nENTRY e {\n  x = f16[4096] parameter(0)\n  ROOT l = f16[4096] logistic(x)\n}\n"
    x = (np.random.default_rng(0).standard_normal(4096) * 6).astype(np.float16)
    for out in (evaluate(hlotools.parse_module(text), [x])[0], CompiledModule(hlotools.parse_module(text))([x])[0]):
        assert zlib.crc32(np.ascontiguousarray(out).tobytes()) == 0x12CE1963
