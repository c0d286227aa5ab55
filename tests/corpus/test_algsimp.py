"""algsimp on every JAX corpus module (NAME.hlo): the result verifies, the interpreter gives
the same outputs before and after, and a second run changes nothing.

Outputs are compared exactly (NaN equal to NaN, -0 equal to +0), under --semantics=spec: no
algsimp rule reassociates floats or otherwise rounds differently there — the float rules are
the exact ones (x*1, x/2^k, pow(x, 2) = x*x, ...), so any difference is a bug, not rounding.
(xla-cpu adds XLA's A / Const => A * (1/Const), which rounds twice as XLA does:
tests/xla/test_agreement_random.py checks those values against XLA's.) The same checker
serves constant-folding (tests/passes/test_constant_folding.py).
"""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.ir import semantics
from hlotools.ir.module import Module
from hlotools.passes.base import PassContext
from hlotools.passes.registry import pass_class
from tests.support.paths import SHARED

JAX = SHARED / "corpus" / "jax"
NAMES = sorted(p.name[:-4] for p in JAX.glob("*.hlo") if p.name.count(".") == 1) if JAX.is_dir() else []


def load_inputs(module: Module, name: str) -> list[np.ndarray]:
    """The corpus inputs, with ml_dtypes arrays (stored as void) viewed as their dtype."""
    assert module.entry is not None
    leaves = [leaf for p in module.entry.parameters for leaf in p.shape.leaves()]
    with np.load(JAX / f"{name}.inputs.npz") as f:
        arrays = [f[f"in{i}"] for i in range(len(leaves))]
    return [a.view(leaf.dtype) if a.dtype.kind == "V" else a for a, leaf in zip(arrays, leaves)]


def run_pass(module: Module, pass_name: str) -> bool:
    return pass_class(pass_name)().run(module, PassContext(pass_name=pass_name))


def check_pass_on_corpus(name: str, pass_name: str) -> bool:
    """Run `pass_name` on corpus module `name` and check verify / same values / fixed point.
    Returns whether the pass changed the module."""
    text = (JAX / f"{name}.hlo").read_text()
    module = hlotools.parse_module(text, name)
    args = load_inputs(module, name)
    before = evaluate(module, args)
    changed = run_pass(module, pass_name)
    hlotools.verify_module(module)
    printed = hlotools.print_module(module)
    after = evaluate(hlotools.parse_module(printed, name), args)
    assert len(before) == len(after)
    for i, (b, a) in enumerate(zip(before, after)):
        b, a = np.asarray(b), np.asarray(a)
        assert b.dtype == a.dtype and b.shape == a.shape, f"{name} out{i}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        nan = b.dtype.kind in "fc" or b.dtype.name.startswith(("bfloat", "float"))
        bb, aa = (b.astype(np.complex128 if b.dtype.kind == "c" else np.float64), a.astype(
            np.complex128 if a.dtype.kind == "c" else np.float64)) if nan else (b, a)
        assert np.array_equal(bb, aa, equal_nan=nan), f"{name} out{i}: values changed by {pass_name}"
    again = hlotools.parse_module(printed, name)
    assert not run_pass(again, pass_name), f"{name}: a second {pass_name} run changed the module"
    return changed


@pytest.mark.slow
@pytest.mark.skipif(not NAMES, reason="shared/corpus/jax is absent")
@pytest.mark.parametrize("name", NAMES)
def test_algsimp_keeps_corpus_results(name: str) -> None:
    with semantics.using("spec"):
        check_pass_on_corpus(name, "algsimp")


@pytest.mark.skipif(not NAMES, reason="shared/corpus/jax is absent")
def test_algsimp_simplifies_most_of_the_corpus() -> None:
    """Guards against the rules silently matching nothing (e.g. an attribute renamed)."""
    changed = 0
    removed = 0
    for name in NAMES:
        module = hlotools.parse_module((JAX / f"{name}.hlo").read_text(), name)
        before = module.instruction_count()
        changed += run_pass(module, "algsimp")
        removed += before - module.instruction_count()
    assert changed >= len(NAMES) // 2, changed
    assert removed >= 200, removed
