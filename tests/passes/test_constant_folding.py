"""constant-folding: corpus semantics (alone and in XLA's simplification fixed point with
algsimp), fixed point after one run, fuel, and the limits (huge broadcasts are never
materialised, elided constants are never computed with)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlotools
from hlotools import evaluate
from hlotools.ir import semantics
from hlotools.passes.base import PassContext
from hlotools.passes.constant_folding import HloConstantFolding, _Folder
from hlotools.passes.manager import ManagerOptions, PassManager
from hlotools.passes.pipeline import parse_pipeline
from tests.corpus.test_algsimp import JAX, NAMES, check_pass_on_corpus, load_inputs
from tests.passes.test_algsimp import _chain
from tests.support.helpers import scalar_computation
from tests.support.paths import TESTDATA

GOLDENS = TESTDATA / "passes" / "constant-folding"


def _fold(text: str, **options: object) -> tuple[bool, str]:
    module = hlotools.parse_module(text)
    changed = HloConstantFolding(**options).run(module, PassContext(pass_name="constant-folding"))  # type: ignore[arg-type]
    hlotools.verify_module(module)
    return changed, hlotools.print_module(module)


def _sum_of_broadcast(value: str, dims: tuple[int, ...]) -> str:
    """HLO text: the f32 sum over every dimension of `value` broadcast to `dims`."""
    shape, every = ",".join(map(str, dims)), ",".join(map(str, range(len(dims))))
    return "HloModule m\n" + scalar_computation("add_f32", "add") + f"""ENTRY main {{
  c = f32[] constant({value})
  b = f32[{shape}] broadcast(c), dimensions={{}}
  z = f32[] constant(0)
  ROOT r = f32[] reduce(b, z), dimensions={{{every}}}, to_apply=add_f32
}}
"""


@pytest.mark.slow
@pytest.mark.skipif(not NAMES, reason="shared/corpus/jax is absent")
@pytest.mark.parametrize("name", NAMES)
def test_constant_folding_keeps_corpus_results(name: str) -> None:
    """Under spec: run alone, folding makes a constant of the A in A / Const that XLA's algsimp,
    running first, rewrites as a non-constant (xla-cpu values; tests/corpus/test_pass_semantics.py)."""
    with semantics.using("spec"):
        check_pass_on_corpus(name, "constant-folding")


@pytest.mark.slow
@pytest.mark.skipif(not NAMES, reason="shared/corpus/jax is absent")
def test_simplification_fixed_point_keeps_corpus_results() -> None:
    """fixed-point(algsimp,constant-folding,dce) — the heart of XLA's -O1 — on the whole corpus:
    values equal (exactly: folding evaluates with the same interpreter), and the modules shrink.
    Under spec semantics: xla-cpu's algsimp takes XLA's A / Const => A * (1/Const), which
    rounds twice as XLA does."""
    with semantics.using("spec"):
        _fixed_point_keeps_corpus_results()


def _fixed_point_keeps_corpus_results() -> None:
    before_total = after_total = 0
    for name in NAMES:
        module = hlotools.parse_module((JAX / f"{name}.hlo").read_text(), name)
        args = load_inputs(module, name)
        before = evaluate(module, args)
        before_total += module.instruction_count()
        steps = parse_pipeline("fixed-point(algsimp,constant-folding,dce)")
        PassManager(ManagerOptions(verify_each=True)).run(module, steps)
        after_total += module.instruction_count()
        for i, (b, a) in enumerate(zip(before, evaluate(module, args))):
            b, a = np.asarray(b), np.asarray(a)
            floaty = b.dtype.kind in "fcV"
            if floaty:
                b, a = b.astype(np.complex128), a.astype(np.complex128)
            assert np.array_equal(b, a, equal_nan=floaty), f"{name} out{i} changed"
    assert after_total < 0.95 * before_total, (before_total, after_total)


def test_every_golden_is_a_fixed_point() -> None:
    for path in sorted(GOLDENS.glob("*.hlo")):
        spec = path.read_text().splitlines()[0].split("--passes=", 1)[1]
        module = hlotools.parse_module(path.read_text(), str(path))
        PassManager(ManagerOptions(verify_each=True)).run(module, parse_pipeline(spec))
        again = hlotools.parse_module(hlotools.print_module(module))
        records = PassManager().run(again, parse_pipeline(spec)).records
        assert not any(r.changed for r in records), f"{path.name}: a second run changed the module"


def test_nothing_to_do_reports_unchanged() -> None:
    changed, _ = _fold((GOLDENS / "nothing_to_do.hlo").read_text())
    assert changed is False


def test_fuel_bounds_the_folds() -> None:
    text = """HloModule m
ENTRY main {
  a = s32[] constant(1)
  b = s32[] add(a, a)
  c = s32[] add(b, b)
  ROOT d = s32[] add(c, c)
}
"""
    module = hlotools.parse_module(text)
    ctx = PassContext(fuel=2, pass_name="constant-folding")
    assert HloConstantFolding().run(module, ctx)
    hlotools.verify_module(module)
    assert ctx.rewrites == 2
    root = module.entry.root  # type: ignore[union-attr]
    assert root.opcode == "add" and root.operands[0].opcode == "constant"
    assert int(root.operands[0].literal.value()) == 4  # type: ignore[union-attr]


def test_a_huge_broadcast_is_never_materialised() -> None:
    """reduce(broadcast(c)) over 10^9 elements: above the limit, so nothing is evaluated (this
    would need 4 GB); the pass returns at once."""
    text = _sum_of_broadcast("1", (1000, 1000, 1000))
    evaluated: list[str] = []
    real = _Folder._evaluate

    def spy(self: _Folder, inst: Any) -> Any:
        evaluated.append(inst.name)
        return real(self, inst)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_Folder, "_evaluate", spy)
        changed, out = _fold(text)
    assert not changed and "reduce(b, z)" in out
    assert evaluated == []  # the work done: nothing evaluated at all


def test_a_small_reduce_of_a_broadcast_folds() -> None:
    text = _sum_of_broadcast("0.5", (10, 10))
    changed, out = _fold(text)
    assert changed and "ROOT constant = f32[] constant(50)" in out


def test_an_elided_constant_in_a_called_computation_blocks_folding() -> None:
    text = """HloModule m
add_weird {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  k1 = f32[1] constant({...})
  k = f32[] reshape(k1)
  s = f32[] add(a, b)
  ROOT t = f32[] add(s, k)
}
ENTRY main {
  c = f32[4] constant({1, 2, 3, 4})
  z = f32[] constant(0)
  ROOT r = f32[] reduce(c, z), dimensions={0}, to_apply=add_weird
}
"""
    changed, out = _fold(text)
    assert not changed and "reduce(c, z)" in out


def test_folded_values_match_the_interpreter() -> None:
    """Each folded constant holds exactly what the interpreter computes for the original."""
    text = """HloModule m
ENTRY main {
  a = f32[5] constant({0.1, -2.5, 3, 1e-3, 7})
  e = f32[5] exponential(a)
  l = f32[5] log-plus-one(e)
  i = s32[5] iota(), iota_dimension=0
  f = f32[5] convert(i)
  ROOT t = (f32[5], f32[5]) tuple(l, f)
}
"""
    module = hlotools.parse_module(text)
    want = evaluate(module, [])
    changed, out = _fold(text)
    assert changed and "exponential" not in out and "convert" not in out
    got = evaluate(hlotools.parse_module(out), [])
    for w, g in zip(want, got):
        assert np.array_equal(w, g)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_chain(), st.integers(0, 2**32 - 1))
def test_random_constant_chains_fold_to_the_interpreters_values(case: tuple[str, str], seed: int) -> None:
    """The algsimp property generator's chains with constant inputs: everything but the
    broadcasts folds, and the folded constants hold exactly what the interpreter computed.
    Under spec semantics: under xla-cpu the interpreter replays XLA's inexact algsimp rewrites
    (A / exp(B) -> A * exp(-B), ...) on the module it is given, which XLA runs before constant
    folding, so the unfolded and the folded module differ in the last bit by design."""
    t, text = case
    with semantics.using("spec"):
        _check_chain_folds(t, text, seed)


def _check_chain_folds(t: str, text: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for i in range(2):
        values = rng.integers(-5, 6, 6) if t == "s32" else rng.choice([0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -2.5], 6)
        literal = "{" + ", ".join(str(int(v)) if t == "s32" else repr(float(v)) for v in values) + "}"
        text = text.replace(f"p{i} = {t}[6] parameter({i})", f"p{i} = {t}[6] constant({literal})")
    module = hlotools.parse_module(text)
    want = evaluate(module, [])
    changed, out = _fold(text)
    folded = hlotools.parse_module(out)
    live, stack = set(), [folded.entry.root]  # type: ignore[union-attr]
    while stack:  # dead code is DCE's business: the folder skips it
        inst = stack.pop()
        if id(inst) not in live:
            live.add(id(inst))
            stack.extend(inst.operands)
            assert inst.opcode in ("constant", "broadcast", "tuple"), out
    for w, g in zip(want, evaluate(folded, [])):
        assert np.array_equal(w, g, equal_nan=(t == "f32")), f"{text}\n{out}"


def test_an_endless_while_is_not_folded_even_when_folding_loops() -> None:
    text = """HloModule m
cond {
  p = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(p, one)
}
ENTRY main {
  zero = s32[] constant(0)
  ROOT w = s32[] while(zero), condition=cond, body=body
}
"""
    changed, out = _fold(text, fold_while=True, max_while_iterations=1000)
    assert not changed and "while(zero)" in out
