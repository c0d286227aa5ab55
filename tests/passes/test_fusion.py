"""The fusion pass beyond its goldens: fuel, decisions, XLA CPU's limits, kernel counts, and
random elementwise/broadcast/reduce graphs that must compute the same after fusion."""
from __future__ import annotations

import logging
import random

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.passes.base import PassContext
from hlotools.passes.fusion import InstructionFusion
from hlotools.passes.fusion_stats import kernel_count, kernel_counts
from hlotools.passes.manager import ManagerOptions, PassManager
from hlotools.passes.pipeline import PRESETS, parse_pipeline
from tests.support.paths import SHARED

JAX = SHARED / "corpus" / "jax"

CHAIN = """HloModule m
ENTRY main {
  p0 = f32[64] parameter(0)
  p1 = f32[64] parameter(1)
  a = f32[64] add(p0, p1)
  b = f32[64] multiply(a, p1)
  c = f32[64] negate(b)
  d = f32[64,64] dot(c, p0), lhs_contracting_dims={}, rhs_contracting_dims={}
  e = f32[64] abs(p0)
  f = f32[64] sine(e)
  ROOT t = (f32[64,64], f32[64]) tuple(d, f)
}"""


def _fuse(text: str, **options: object) -> hlotools.ir.module.Module:  # type: ignore[name-defined]
    module = hlotools.parse_module(text)
    InstructionFusion(**options).run(module, PassContext(pass_name="fusion"))  # type: ignore[arg-type]
    hlotools.verify_module(module)
    return module


def test_kernel_counts_before_and_after() -> None:
    module = hlotools.parse_module(CHAIN)
    assert kernel_counts(module).total == 6  # add multiply negate dot abs sine
    _fuse_in_place = InstructionFusion(multi_output=False)
    _fuse_in_place.run(module, PassContext())
    counts = kernel_counts(module)
    assert (counts.fusions, counts.unfused, counts.by_opcode) == (2, 1, (("dot", 1),))


def test_fuel_limits_fusion_decisions() -> None:
    module = hlotools.parse_module(CHAIN)
    InstructionFusion(multi_output=False).run(module, PassContext(fuel=1, pass_name="fusion"))
    # One rewrite: the first consumer visited (sine) takes its producer (abs); the rest stay.
    assert kernel_count(module) == 5
    body = next(c for c in module.computations if c.is_fusion_computation)
    assert sorted(i.opcode for i in body.instructions) == ["abs", "parameter", "sine"]


def test_decisions_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="hlotools.passes"):
        _fuse(CHAIN, multi_output=False)
    text = caplog.text
    assert "fusion: fused e into abs_sine_fusion" in text
    assert "not fused: p0 into" in text and "parameter is not loop-fusible" in text


def test_may_duplicate_false_keeps_shared_producers() -> None:
    text = """HloModule m
ENTRY main {
  p = f32[16] parameter(0)
  n = f32[16] negate(p)
  a = f32[16] abs(n)
  s = f32[16] sine(n)
  d = f32[16,16] dot(a, s), lhs_contracting_dims={}, rhs_contracting_dims={}
  ROOT t = (f32[16,16]) tuple(d)
}"""
    dup = _fuse(text, multi_output=False)
    nodup = _fuse(text, multi_output=False, may_duplicate=False)
    assert "negate(p)" not in hlotools.print_module(dup)  # cloned into both fusions
    assert "n = f32[16]{0} negate(p)" in hlotools.print_module(nodup)


def _residual_chain(depth: int) -> str:
    """A training step's residual-stream gradient in miniature: g_k = g_{k+1} + c_k, each g_k
    also read by a layer's own consumer (a dot, which never fuses)."""
    lines = ["HloModule m", "ENTRY main {", "  g0 = f32[8,8] parameter(0)"]
    outs = []
    for k in range(depth):
        lines += [f"  c{k} = f32[8,8] parameter({k + 1})",
                  f"  g{k + 1} = f32[8,8] add(g{k}, c{k})",
                  f"  t{k} = f32[8,8] tanh(g{k + 1})",
                  f"  d{k} = f32[8,8] dot(t{k}, c{k}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}"]
        outs.append(f"d{k}")
    lines += [f"  ROOT out = ({', '.join(['f32[8,8]'] * depth)}) tuple({', '.join(outs)})", "}"]
    return "\n".join(lines)


@pytest.mark.parametrize("budget", [0, 1, 3])
def test_max_duplicated_bounds_copies_of_shared_producers(budget: int) -> None:
    """Unbounded (XLA CPU), layer k's fusion copies the whole chain g_1..g_k: fused code grows
    with the square of the depth. With max-duplicated=N each fusion copies at most N adds that
    other users still read, and the module computes the same."""
    depth = 8
    text = _residual_chain(depth)
    module = _fuse(text, multi_output=False, max_duplicated=budget)
    copies = [sum(i.opcode == "add" for i in c.instructions) for c in module.computations if c.is_fusion_computation]
    if budget == 0:
        assert max(copies) == depth  # the last layer's fusion holds the whole chain
    else:
        assert max(copies) <= budget + 1  # its own add, and at most `budget` shared ones
        assert sum(copies) < depth * (depth + 1) // 2
    rng = np.random.default_rng(0)
    args = [rng.standard_normal((8, 8)).astype(np.float32) for _ in range(depth + 1)]
    for got, want in zip(evaluate(module, args), evaluate(hlotools.parse_module(text), args)):
        np.testing.assert_array_equal(got, want)


def test_at_most_five_reductions_per_fusion() -> None:
    lines = ["HloModule m", "add {", "  l = f32[] parameter(0)", "  r = f32[] parameter(1)",
             "  ROOT s = f32[] add(l, r)", "}", "ENTRY main {", "  p = f32[8,8] parameter(0)",
             "  z = f32[] constant(0)"]
    acc = "p"
    for k in range(6):  # reduce -> broadcast -> add chains: six reductions in one expression
        lines += [f"  r{k} = f32[8] reduce({acc}, z), dimensions={{1}}, to_apply=add",
                  f"  b{k} = f32[8,8] broadcast(r{k}), dimensions={{0}}",
                  f"  a{k} = f32[8,8] add(p, b{k})"]
        acc = f"a{k}"
    lines += [f"  ROOT out = f32[8] reduce({acc}, z), dimensions={{1}}, to_apply=add", "}"]
    module = _fuse("\n".join(lines))
    for comp in module.computations:
        if comp.is_fusion_computation:
            assert sum(i.opcode == "reduce" for i in comp.instructions) <= 5


def test_wide_concatenates_stay_unfused() -> None:
    ops = ", ".join(f"n{k}" for k in range(9))
    body = "\n".join(f"  n{k} = f32[4] negate(p)" for k in range(9))
    module = _fuse(f"""HloModule m
ENTRY main {{
  p = f32[4] parameter(0)
{body}
  ROOT c = f32[36] concatenate({ops}), dimensions={{0}}
}}""", multi_output=False)
    assert module.entry.root.opcode == "concatenate"  # type: ignore[union-attr]


def test_idempotent_and_changed_flag() -> None:
    module = _fuse(CHAIN)
    text = hlotools.print_module(module)
    assert InstructionFusion().run(module, PassContext()) is False
    assert hlotools.print_module(module) == text


# -- random graphs ------------------------------------------------------------------------------
UNARY = ["negate", "abs", "exponential", "sine", "tanh", "floor"]
BINARY = ["add", "multiply", "subtract", "maximum", "minimum"]


def random_module(seed: int, size: int = 30) -> str:
    """A random DAG of f32[4,6] elementwise ops, row broadcasts, row reductions and slices."""
    rng = random.Random(seed)
    lines = ["HloModule r", "add {", "  l = f32[] parameter(0)", "  r = f32[] parameter(1)",
             "  ROOT s = f32[] add(l, r)", "}", "ENTRY main {",
             "  p0 = f32[4,6] parameter(0)", "  p1 = f32[4,6] parameter(1)", "  p2 = f32[6] parameter(2)",
             "  z = f32[] constant(0)", "  h = f32[] constant(0.5)"]
    full = ["p0", "p1"]
    for k in range(size):
        kind = rng.random()
        name = f"v{k}"
        if kind < 0.3:
            lines.append(f"  {name} = f32[4,6] {rng.choice(UNARY)}({rng.choice(full)})")
        elif kind < 0.65:
            lines.append(f"  {name} = f32[4,6] {rng.choice(BINARY)}({rng.choice(full)}, {rng.choice(full)})")
        elif kind < 0.75:
            lines.append(f"  {name} = f32[4,6] broadcast(p2), dimensions={{1}}")
        elif kind < 0.85:
            lines.append(f"  r{k} = f32[4] reduce({rng.choice(full)}, z), dimensions={{1}}, to_apply=add")
            lines.append(f"  {name} = f32[4,6] broadcast(r{k}), dimensions={{0}}")
        elif kind < 0.92:
            lines.append(f"  hb{k} = f32[4,6] broadcast(h), dimensions={{}}")
            lines.append(f"  {name} = f32[4,6] multiply({rng.choice(full)}, hb{k})")
        else:
            src = rng.choice(full)
            lines.append(f"  sl{k} = f32[4,3] slice({src}), slice={{[0:4], [0:3]}}")
            lines.append(f"  tl{k} = f32[4,3] slice({src}), slice={{[0:4], [3:6]}}")
            lines.append(f"  {name} = f32[4,6] concatenate(tl{k}, sl{k}), dimensions={{1}}")
        full.append(name)
    outs = rng.sample(full[2:], 3)
    lines.append(f"  ROOT out = (f32[4,6], f32[4,6], f32[4,6]) tuple({', '.join(outs)})")
    lines.append("}")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(40))
def test_random_graphs_compute_the_same(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # spec semantics: under xla-cpu the interpreter replays XLA's inexact algsimp rewrites
    # (x / c -> x * (1/c)) on the module it is given, and a fusion hides those patterns inside
    # fused computations, as in XLA (which rewrites before fusing): bits would differ by design
    monkeypatch.setenv("HLOTOOLS_SEMANTICS", "spec")
    text = random_module(seed)
    module = hlotools.parse_module(text)
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal((4, 6)).astype(np.float32),
            rng.standard_normal(6).astype(np.float32)]
    want = evaluate(module, args)
    before = kernel_count(module)
    PassManager(ManagerOptions(verify_each=True)).run(module, parse_pipeline("fusion"))
    got = evaluate(module, args)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert kernel_count(module) <= before
    again = PassManager().run(module, parse_pipeline("fusion"))
    assert not again.changed


@pytest.mark.slow
@pytest.mark.skipif(not JAX.is_dir(), reason="shared/corpus/jax is absent")
def test_o2_kernel_counts_against_xla() -> None:
    """Our -O2 needs no more kernels than the unoptimised module on every corpus module, and in
    total at most as many as XLA CPU's optimised modules (which run library fusions we lack)."""
    ours = xla = 0
    for path in sorted(JAX.glob("*.hlo")):
        if path.name.count(".") != 1:
            continue
        module = hlotools.parse_module(path.read_text(), str(path))
        before = kernel_count(module)
        PassManager().run(module, parse_pipeline(PRESETS["O2"]))
        after = kernel_count(module)
        assert after <= before, path.name
        ours += after
        xla += kernel_count(hlotools.parse_module((JAX / f"{path.stem}.xla_opt.hlo").read_text()))
    assert 0 < ours <= xla, (ours, xla)


def _wide_chain(n: int) -> str:
    """An add chain taking a new parameter and a shared exp at each step: one fusion that grows
    to n operands, re-tried after each producer it takes. The exp has another user, so it is
    refused as a duplicate of an expensive op at every step."""
    lines = ["HloModule wide", "ENTRY main {", "  p0 = f32[32] parameter(0)", "  e = f32[32] exponential(p0)"]
    acc = "p0"
    for k in range(1, n):
        lines += [f"  p{k} = f32[32] parameter({k})", f"  sum{k} = f32[32] add({acc}, p{k})",
                  f"  a{k} = f32[32] multiply(sum{k}, e)"]
        acc = f"a{k}"
    lines += [f"  ROOT t = (f32[32], f32[32]) tuple({acc}, e)", "}"]
    return "\n".join(lines)


def test_a_wide_fusion_asks_about_each_operand_refused_for_good_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fusion re-queued after each producer it takes used to re-try every operand: n^2/2
    refusals for the parameters alone (1.5M on a 24-layer training step)."""
    calls: list[str] = []
    original = InstructionFusion.refusal

    def counting(self, builder, producer, consumer, *rest):  # type: ignore[no-untyped-def]
        calls.append(producer.name)
        return original(self, builder, producer, consumer, *rest)

    monkeypatch.setattr(InstructionFusion, "refusal", counting)
    n = 60
    module = _fuse(_wide_chain(n), multi_output=False)
    fusions = [i for i in module.entry.instructions if i.opcode == "fusion"]  # type: ignore[union-attr]
    assert len(fusions) == 1 and len(fusions[0].operands) == n + 1  # the n parameters and e
    assert len(calls) <= 6 * n, len(calls)  # (the globally-unfusible analysis asks once per edge too)


@pytest.mark.parametrize("source", ["wide", "transformer_block", "big_layernorm_softmax"])
def test_the_fast_candidate_scan_decides_as_the_logged_one(source: str, caplog: pytest.LogCaptureFixture) -> None:
    """With -vv every candidate goes through refusal() (its reasons are logged); without, a
    wide fusion skips operands known to be refused: both must fuse the same."""
    if source == "wide":
        text = _wide_chain(40)
    elif (JAX / f"{source}.hlo").is_file():
        text = (JAX / f"{source}.hlo").read_text()
    else:
        pytest.skip("shared/corpus/jax is absent")
    fast = _fuse(text)
    with caplog.at_level(logging.DEBUG, logger="hlotools.passes"):
        logged = _fuse(text)
    assert "not fused:" in caplog.text
    assert hlotools.print_module(fast) == hlotools.print_module(logged)
