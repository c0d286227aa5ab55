"""transpose-folding beyond its goldens: where it sits in the pipelines, and that folding changes
no output: the interpreter and the LLVM backend give the same values before and after, on
hand-written dots (a PyTorch MLP's x @ w.T, batched, integer, bf16) and on the JAX corpus
modules where it folds something."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver.pipeline import backend_pipeline, optimise_module
from hlotools.ir.module import Module
from hlotools.passes.manager import run_pipeline
from hlotools.passes.pipeline import PRESETS, parse_pipeline
from hlotools.passes.transpose_folding import foldable_operands
from tests.support.paths import SHARED
from tests.support.runner import same_bits

JAX = SHARED / "corpus" / "jax"
WITHOUT = backend_pipeline("O2").replace("transpose-folding,", "")

MLP = """HloModule mlp
ENTRY main {
  x = f32[64,96] parameter(0)
  w1 = f32[80,96] parameter(1)
  b1 = f32[80] parameter(2)
  w2 = f32[48,80] parameter(3)
  w1t = f32[96,80] transpose(w1), dimensions={1,0}
  h = f32[64,80] dot(x, w1t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[64,80] broadcast(b1), dimensions={1}
  z = f32[] constant(0)
  zb = f32[64,80] broadcast(z), dimensions={}
  r = f32[64,80] maximum(add(h, bb), zb)
  w2t = f32[80,48] transpose(w2), dimensions={1,0}
  ROOT o = f32[64,48] dot(r, w2t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}"""
BATCHED = """HloModule batched
ENTRY main {
  a = f32[3,20,12] parameter(0)
  b = f32[3,36,12] parameter(1)
  at = f32[3,12,20] transpose(a), dimensions={0,2,1}
  bt = f32[3,12,36] transpose(b), dimensions={0,2,1}
  d = f32[3,20,36] dot(at, bt), lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT n = f32[3,20,36] negate(d)
}"""
LHS_ONLY = """HloModule lhs
ENTRY main {
  a = f64[70,5] parameter(0)
  b = f64[70,9] parameter(1)
  at = f64[5,70] transpose(a), dimensions={1,0}
  ROOT d = f64[5,9] dot(at, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}"""
INTEGER = """HloModule integer
ENTRY main {
  i = s32[17,17] parameter(0)
  it = s32[17,17] transpose(i), dimensions={1,0}
  ROOT d = s32[17,17] dot(i, it), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}"""
BF16 = """HloModule narrow
ENTRY main {
  x = bf16[8,24] parameter(0)
  w = bf16[40,24] parameter(1)
  wt = bf16[24,40] transpose(w), dimensions={1,0}
  ROOT d = bf16[8,40] dot(x, wt), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}"""
CASES = {"mlp": MLP, "batched": BATCHED, "lhs_only": LHS_ONLY, "integer": INTEGER, "bf16": BF16}


def _args(module: Module, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    assert module.entry is not None
    out = []
    for p in module.entry.parameters:
        dt = p.shape.element_type.dtype  # type: ignore[union-attr]
        if np.dtype(dt).kind in "iu":
            out.append(rng.integers(-9, 10, p.shape.dims).astype(dt))
        else:
            out.append((rng.standard_normal(p.shape.dims) * 0.5).astype(dt))
    return out


def _transposes_read_by_dots(module: Module) -> int:
    return sum(1 for c in module.computations if not c.is_fusion_computation
               for i in c.instructions if foldable_operands(i))


def _check_folding_keeps_outputs(module: Module, args: list[np.ndarray]) -> None:
    from hlotools.backend.llvm import compile_module
    before, after = optimise_module(module, WITHOUT), module.clone()
    report = run_pipeline(after, parse_pipeline(backend_pipeline("O2")))
    assert [r.changed for r in report.records if r.name == "transpose-folding"] == [True], \
        "nothing folded: the case tests nothing"
    assert _transposes_read_by_dots(after) == 0
    want = evaluate(module, args)
    same_bits(evaluate(after, args), want)
    same_bits(evaluate(before, args), want)
    got_before, got_after = compile_module(before)(args), compile_module(after)(args)
    same_bits(list(got_after), list(got_before))  # the GEMM sums k in the same order either way
    for g, w in zip(got_after, want):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=2e-2, atol=1e-5)


@pytest.mark.parametrize("name", CASES)
def test_folding_keeps_the_outputs_of_both_backends(name: str) -> None:
    module = hlotools.parse_module(CASES[name])
    _check_folding_keeps_outputs(module, _args(module))


def test_the_mlp_keeps_no_transpose() -> None:
    """x @ w.T twice: after -O2 no transpose is left to copy the weights on each call."""
    m = optimise_module(hlotools.parse_module(MLP), "O2")
    assert not [i for c in m.computations for i in c.instructions if i.opcode == "transpose"]
    dots = [i for c in m.computations for i in c.instructions if i.opcode == "dot"]
    assert [tuple(d.attrs["rhs_contracting_dims"]) for d in dots] == [(1,), (1,)]


def test_it_runs_after_simplification_in_both_pipelines() -> None:
    for spec in (PRESETS["O2"], backend_pipeline("O2")):
        after_group = spec.split("),", 1)[1]
        assert after_group.startswith("transpose-folding,float-normalization-bf16,"), spec
    assert "transpose-folding" not in PRESETS["O1"]


def _corpus_cases() -> list[str]:
    names = ("remat_grad", "cond_switch", "linalg_custom_calls")
    return [n for n in names if (JAX / f"{n}.hlo").is_file()]


@pytest.mark.skipif(not JAX.is_dir(), reason="shared/corpus/jax is absent")
@pytest.mark.parametrize("name", _corpus_cases())
def test_jax_corpus_modules_keep_their_outputs(name: str) -> None:
    from tests.corpus.test_interpreter import _leaf_dtypes, _load
    module = hlotools.parse_module((JAX / f"{name}.hlo").read_text(), name, verify=False)
    in_dt, _ = _leaf_dtypes(module)
    with np.load(JAX / f"{name}.inputs.npz") as f:
        args = _load(f, "in", in_dt)
    _check_folding_keeps_outputs(module, args)
