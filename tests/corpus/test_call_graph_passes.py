"""Call-graph passes on the whole JAX corpus (structure only, fast): after call-inliner no
`call` is left and names stay unique; after flatten-call-graph every computation has at most
one control-flow call site. (Results are checked in tests/corpus/test_pass_semantics.py.)"""
from __future__ import annotations

import pytest

import hlotools
from hlotools.passes.base import PassContext
from hlotools.passes.call_graph import CallGraph, call_context
from hlotools.passes.call_inliner import CallInliner
from hlotools.passes.flatten_call_graph import FlattenCallGraph
from tests.support.paths import SHARED

JAX = SHARED / "corpus" / "jax"
NAMES = sorted(p.name[:-4] for p in JAX.glob("*.hlo") if p.name.count(".") == 1) if JAX.is_dir() else []


def _load(name: str):
    return hlotools.parse_module((JAX / f"{name}.hlo").read_text(), name)


def _all_names(module) -> list[str]:
    return [i.name for c in module.computations for i in c.instructions] + [c.name for c in module.computations]


@pytest.mark.skipif(not JAX.is_dir(), reason="shared/corpus/jax is absent")
def test_call_inliner_leaves_no_calls_in_the_corpus() -> None:
    with_calls = 0
    for name in NAMES:
        m = _load(name)
        had = sum(i.opcode == "call" for c in m.computations for i in c.instructions)
        changed = CallInliner().run(m, PassContext())
        assert changed == bool(had), name
        with_calls += bool(had)
        assert not any(i.opcode == "call" for c in m.computations for i in c.instructions), name
        names = _all_names(m)
        assert len(names) == len(set(names)), f"{name}: duplicate names after inlining"
        hlotools.verify_module(m)
    assert with_calls >= 30, with_calls  # the corpus is full of jit-wrapped calls


@pytest.mark.skipif(not JAX.is_dir(), reason="shared/corpus/jax is absent")
def test_flatten_call_graph_gives_each_computation_one_control_flow_caller() -> None:
    cloned = 0
    for name in NAMES:
        m = _load(name)
        before = len(m.computations)
        FlattenCallGraph().run(m, PassContext())
        graph = CallGraph.build(m)
        for comp in m.computations:
            sites = [s for s in graph.call_sites(comp) if call_context(s) == "control-flow"]
            assert len(sites) <= 1, f"{name}: {comp.name} has {len(sites)} control-flow callers"
        cloned += len(m.computations) - before
        hlotools.verify_module(m)
        assert not FlattenCallGraph().run(m, PassContext()), name
    assert cloned > 0


def test_single_call_site_option_skips_shared_callees() -> None:
    m = hlotools.parse_module("""HloModule m
shared {
  x = f32[4] parameter(0)
  ROOT y = f32[4] negate(x)
}
once {
  x = f32[4] parameter(0)
  ROOT y = f32[4] abs(x)
}
ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] call(p), to_apply=shared
  b = f32[4] call(a), to_apply=shared
  ROOT c = f32[4] call(b), to_apply=once
}
""")
    assert CallInliner(single_call_site=True).run(m, PassContext())
    calls = [i.attrs["to_apply"].name for i in m.entry.instructions if i.opcode == "call"]
    assert calls == ["shared", "shared"]
    assert m.entry.root.opcode == "abs"
