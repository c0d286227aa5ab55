"""Every registered pass, and the -O1/-O2 presets, keep the JAX corpus correct.

For each corpus/jax NAME.hlo and each pass in the registry (iterated, so passes join as they
are registered): the verifier accepts the module after the pass (the manager's verify-each),
the interpreter's outputs on NAME.inputs.npz equal the unoptimised module's, and running the
pass a second time changes nothing (where XLA's pass is idempotent; see NOT_IDEMPOTENT).

Equality is exact: integers and preds bit for bit, floats equal value for value with NaNs in
the same places. A pass that reassociates float arithmetic gets a tolerance in REASSOCIATES,
with its reason — the interpreter evaluates inlined, merged, fused or re-laid-out computations
with the same kernels in the same order, and XLA CPU's float-changing algsimp rewrites
(A / Const => A * (1/Const), ...) on a copy of every module it runs (algsimp-inexact), so
algsimp itself needs none. Two passes run alone, before algsimp, hide patterns XLA rewrites
first, so they change bits deliberately (XLA's order, the presets, does not).

Cost: each module's baseline is evaluated once (cached); the big_* modules run only through
-O2, not through each single pass nor -O1.
"""
from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.errors import HloError
from hlotools.passes.manager import ManagerOptions, PassManager
from hlotools.passes.pipeline import PRESETS, parse_pipeline
from hlotools.passes.registry import PASSES
from tests.support.paths import ROOT, SHARED

JAX = SHARED / "corpus" / "jax"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not JAX.is_dir(), reason="shared/corpus/jax is absent")]

# XLA runs these inside fixed-point groups: one application may expose new opportunities.
NOT_IDEMPOTENT: dict[str, str] = {
    "reshape-mover": "sinking a rearrange below one op makes the next op a candidate (XLA runs it to a "
                     "fixed point with algsimp)",
    "algsimp": "a rewrite can create a new pattern (XLA's pipelines run algsimp to a fixed point)",
}
# pass -> (rtol, atol relative to the largest magnitude, reason).
REASSOCIATES: dict[str, tuple[float, float, str]] = {}
# The same for a pass checked alone, out of XLA's order (the presets stay exact).
OUT_OF_ORDER: dict[str, tuple[float, float, str]] = {
    "constant-folding": (1e-5, 1e-6, "folds a constant-derived A of A / Const before algsimp sees a "
                                     "non-constant A (XLA's algsimp runs first: A * (1/Const))"),
    "fusion": (1e-5, 1e-6, "moves divides into fused computations, which algsimp does not visit "
                           "(XLA fuses only after simplifying)"),
}
# (pass, module) -> reason: known failures, strict (they must keep failing until fixed).
KNOWN_FAILURES: dict[tuple[str, str], str] = {}


def _names() -> list[str]:
    if not JAX.is_dir():
        return []
    return sorted(p.name[:-4] for p in JAX.glob("*.hlo") if p.name.count(".") == 1)


SMALL = [n for n in _names() if not n.startswith("big_")]
ALL = _names()


@cache
def baseline(name: str) -> tuple[str, tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """(text, inputs, outputs of the unoptimised module), computed once per module."""
    path = JAX / f"{name}.hlo"
    text = path.read_text()
    module = hlotools.parse_module(text, str(path))
    assert module.entry is not None
    dtypes = [leaf.element_type.dtype for p in module.entry.parameters for leaf in p.shape.leaves()]
    args = []
    with np.load(JAX / f"{name}.inputs.npz") as f:
        for i, dt in enumerate(dtypes):
            a = f[f"in{i}"]
            if dt is not None and a.dtype != dt and a.dtype.kind == "V" and a.dtype.itemsize == np.dtype(dt).itemsize:
                a = a.view(dt)
            args.append(a)
    outputs = evaluate(module, args)
    return text, tuple(args), tuple(np.asarray(o) for o in outputs)


def _same(got: np.ndarray, want: np.ndarray, tol: tuple[float, float] | None) -> str | None:
    """None if equal (exactly, or within `tol` for floats), else what differs."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{list(got.shape)} instead of {want.dtype}{list(want.shape)}"
    kind = got.dtype.kind
    if kind not in "fc" and not got.dtype.name.startswith(("bfloat", "float")):
        bad = int(np.count_nonzero(got.reshape(-1) != want.reshape(-1)))
        return f"{bad} of {got.size} elements differ" if bad else None
    g, w = got.astype(np.complex128 if kind == "c" else np.float64), want.astype(np.complex128 if kind == "c" else np.float64)
    nan_g, nan_w = np.isnan(g), np.isnan(w)
    if (nan_g != nan_w).any():
        return f"NaN at {int((nan_g != nan_w).sum())} different positions"
    ok = ~nan_w
    if tol is None:
        bad = int(np.count_nonzero(g[ok] != w[ok]))
        return f"{bad} of {got.size} elements differ (max |diff| {np.max(np.abs(g[ok] - w[ok])):.3g})" if bad else None
    rtol, atol = tol
    with np.errstate(all="ignore"):
        scale = float(np.max(np.abs(w[ok]))) if ok.any() else 0.0
        err = np.abs(g[ok] - w[ok])
        bad = int(np.count_nonzero(err > atol * scale + rtol * np.abs(w[ok])))
    return f"{bad} of {got.size} elements off by more than rtol={rtol} atol={atol}" if bad else None


def check(name: str, spec: str, tol: tuple[float, float] | None, idempotent: bool) -> str | None:
    """Run `spec` on module `name`; None if it verifies, computes the same and is idempotent."""
    text, args, want = baseline(name)
    module = hlotools.parse_module(text, name)
    try:
        PassManager(ManagerOptions(verify_each=True)).run(module, parse_pipeline(spec))
    except HloError as e:
        return f"{type(e).__name__}: {e.message}"
    try:
        got = evaluate(module, list(args))
    except HloError as e:
        return f"interpreter failed after the pass: {e.message}"
    if len(got) != len(want):
        return f"{len(got)} result leaves instead of {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        diff = _same(np.asarray(g), w, tol)
        if diff:
            return f"out{i}: {diff}"
    if idempotent:
        again = PassManager(ManagerOptions(verify_each=True)).run(module, parse_pipeline(spec))
        if again.changed:
            changed = [r.name for r in again.records if r.changed]
            return f"not idempotent: a second run changed the module again ({', '.join(changed)})"
    return None


def _run_all(spec: str, key: str, names: list[str], tol: tuple[float, float] | None, idempotent: bool) -> None:
    failures, unexpected_passes = [], []
    for name in names:
        problem = check(name, spec, tol, idempotent)
        known = KNOWN_FAILURES.get((key, name))
        if problem and not known:
            failures.append(f"{name}: {problem}")
        elif known and not problem:
            unexpected_passes.append(name)
    assert not failures, f"{spec} breaks {len(failures)} of {len(names)} modules:\n" + "\n".join(failures)
    assert not unexpected_passes, f"{spec}: known failures now pass, update KNOWN_FAILURES: {unexpected_passes}"


@pytest.mark.parametrize("pass_name", sorted(PASSES))
def test_pass_keeps_results(pass_name: str) -> None:
    tol = REASSOCIATES.get(pass_name) or OUT_OF_ORDER.get(pass_name)
    _run_all(pass_name, pass_name, SMALL, tol[:2] if tol else None, pass_name not in NOT_IDEMPOTENT)


@pytest.mark.parametrize("preset", ["O1", "O2"])
def test_preset_keeps_results(preset: str) -> None:
    steps = PRESETS[preset]
    needed = {n for n in steps.replace("fixed-point(", ",").replace(")", ",").split(",") if n}
    tols = [REASSOCIATES[n][:2] for n in needed if n in REASSOCIATES]
    tol = (max(t[0] for t in tols), max(t[1] for t in tols)) if tols else None
    _run_all(steps, preset, ALL if preset == "O2" else SMALL, tol, idempotent=True)


def test_every_corpus_module_is_checked() -> None:
    assert len(ALL) >= 49 and len(SMALL) >= 40, (len(ALL), len(SMALL))
    text, args, outputs = baseline("nested_calls")
    assert outputs and all(o.size for o in outputs)


def test_the_check_can_fail() -> None:
    """The comparison is exact where it claims to be: one ulp or one integer off is caught."""
    assert _same(np.array([1.0, 2.0], np.float32), np.array([1.0, 2.0000002], np.float32), None)
    assert _same(np.array([1, 2], np.int32), np.array([1, 3], np.int32), None)
    assert _same(np.array([np.nan], np.float32), np.array([np.nan], np.float32), None) is None
    assert _same(np.array([1.0], np.float32), np.array([1.0 + 1e-6], np.float32), (1e-5, 0.0)) is None


# ------------------------------------------------------------------ XLA's own pass tests
XLA_PASS_TESTS = SHARED / "corpus" / "xla" / "pass_tests"
# The pass-test modules of the simplification passes (inputs written to exercise them).
XLA_GROUPS = ("hlo_dce_test", "hlo_cse_test", "tuple_simplifier_test", "reshape_mover_test",
              "while_loop_simplifier_test")
SIMPLIFIERS = ("dce", "cse", "call-inliner", "tuple-simplifier", "reshape-mover", "while-loop-simplifier",
               "flatten-call-graph")


@cache
def xla_baseline(path: Path) -> tuple[str, tuple[np.ndarray, ...], tuple[np.ndarray, ...] | None]:
    """(text, random inputs, outputs or None when the interpreter cannot run the module:
    infinite test loops, infeed, custom-call targets that only exist in XLA's tests)."""
    from hlotools.io.random_inputs import random_inputs
    text = path.read_text()
    module = hlotools.parse_module(text, str(path))
    args = tuple(random_inputs(module, 0))
    try:
        outputs = tuple(np.asarray(o) for o in evaluate(module, list(args), max_while_iterations=2000))
    except HloError:
        return text, args, None
    return text, args, outputs


def _xla_cases() -> list[Path]:
    if not XLA_PASS_TESTS.is_dir():
        return []
    return sorted(p for p in XLA_PASS_TESTS.glob("*.hlo") if p.name.startswith(XLA_GROUPS))


@pytest.mark.skipif(not XLA_PASS_TESTS.is_dir(), reason="shared/corpus/xla is absent")
@pytest.mark.parametrize("pass_name", [p for p in SIMPLIFIERS if p in PASSES])
def test_simplifier_on_xla_pass_tests(pass_name: str) -> None:
    """Each simplification pass on XLA's inputs for them: verifies, and computes the same
    wherever the interpreter can run the module (random inputs, seed 0)."""
    failures = []
    evaluated = 0
    for path in _xla_cases():
        text, args, want = xla_baseline(path)
        module = hlotools.parse_module(text, path.name)
        try:
            PassManager(ManagerOptions(verify_each=True)).run(module, parse_pipeline(pass_name))
        except HloError as e:
            failures.append(f"{path.name}: {e.message}")
            continue
        if want is None:
            continue
        evaluated += 1
        got = evaluate(module, list(args), max_while_iterations=2000)
        diffs = [_same(np.asarray(g), w, None) for g, w in zip(got, want)]
        if len(got) != len(want) or any(diffs):
            failures.append(f"{path.name}: {[d for d in diffs if d] or 'result count differs'}")
    assert not failures, "\n".join(failures)
    assert evaluated >= 50, f"only {evaluated} XLA pass-test modules could be evaluated"


# ---------------------------------------------------------- generated JAX-like modules
def _generated(size: int) -> str:
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen_modules", ROOT / "bench" / "gen_modules.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen.generate(size)


def test_presets_on_a_generated_module() -> None:
    """The benchmark's generated module (calls, shared callees, loops, dead code, duplicates,
    reshape round trips) through every single pass and -O1: same results, fewer instructions."""
    text = _generated(600)
    module = hlotools.parse_module(text, "generated")
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((8, 16)).astype(np.float32), (0.1 * rng.standard_normal((16, 16))).astype(np.float32)]
    want = evaluate(module, args)
    specs = sorted(PASSES) + [PRESETS["O1"]]
    for spec in specs:
        m = hlotools.parse_module(text, "generated")
        before = m.instruction_count()
        PassManager(ManagerOptions(verify_each=True)).run(m, parse_pipeline(spec))
        got = evaluate(m, args)
        assert _same(np.asarray(got[0]), np.asarray(want[0]), None) is None, spec
        if spec == PRESETS["O1"]:
            assert m.instruction_count() < 0.7 * before, (before, m.instruction_count())
