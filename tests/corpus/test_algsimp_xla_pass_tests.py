"""algsimp and constant-folding on XLA's own pass-test modules (corpus/xla/pass_tests: the
algsimp_test_* and constant_folding_test_* inputs of algebraic_simplifier_test.cc and
hlo_constant_folding_test.cc). These are adversarial inputs written to poke at rewrites: the
passes must not crash, must leave a verifying module that prints and parses back, and — for
modules small enough to interpret quickly — must keep the interpreter's results (random
inputs, exact comparison: no rule rounds differently)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.errors import HloError
from hlotools.io.random_inputs import random_inputs
from hlotools.passes.base import PassContext
from hlotools.passes.registry import pass_class
from tests.support.paths import SHARED

PASS_TESTS = SHARED / "corpus" / "xla" / "pass_tests"
CASES = [(p, "algsimp") for p in sorted(PASS_TESTS.glob("algsimp_test_*.hlo"))] + \
        [(p, "constant-folding") for p in sorted(PASS_TESTS.glob("constant_folding_test_*.hlo"))] \
    if PASS_TESTS.is_dir() else []
MAX_ELEMENTS = 20_000  # interpret only modules whose every value is this small
SLOW_OPS = {"while", "convolution", "custom-call", "rng", "rng-bit-generator", "sort", "fft"}


def _small(module: hlotools.ir.module.Module) -> bool:  # type: ignore[name-defined]
    for comp in module.computations:
        for inst in comp.instructions:
            if inst.opcode in SLOW_OPS or any(leaf.size > MAX_ELEMENTS or not leaf.is_static
                                              for leaf in inst.shape.leaves() if leaf.is_array):
                return False
    return True


def _same(before: list[np.ndarray], after: list[np.ndarray]) -> bool:
    for b, a in zip(before, after):
        b, a = np.asarray(b), np.asarray(a)
        if b.dtype != a.dtype or b.shape != a.shape:
            return False
        floaty = b.dtype.kind in "fcV"
        if floaty:
            b, a = b.astype(np.complex128), a.astype(np.complex128)
        if not np.array_equal(b, a, equal_nan=floaty):
            return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not CASES, reason="shared/corpus/xla is absent")
@pytest.mark.parametrize("path,pass_name", CASES, ids=[f"{n}:{p.stem}" for p, n in CASES])
def test_pass_on_xla_pass_test_input(path: Path, pass_name: str) -> None:
    try:
        module = hlotools.parse_module(path.read_text(), str(path))
    except HloError:
        pytest.skip("input not accepted by the parser/verifier")
    check_values = _small(module)
    if check_values:
        args = random_inputs(module, 0)
        try:
            before = evaluate(module, args)
        except HloError:
            check_values = False
    pass_class(pass_name)().run(module, PassContext(pass_name=pass_name))
    hlotools.verify_module(module)
    reparsed = hlotools.parse_module(hlotools.print_module(module), str(path))
    if check_values:
        assert _same(before, evaluate(reparsed, args)), f"{path.name}: {pass_name} changed the results"
