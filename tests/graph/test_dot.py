"""graph/dot.py: fusions drawn in place as clusters (XLA's dot dumps), and the size options."""
from __future__ import annotations

import re

import pytest

from hlotools import parse_module
from hlotools.graph.dot import DotError, DotOptions, module_to_dot
from tests.graph.generated import lattice_module

FUSED = """HloModule f

fused_computation {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  m = f32[4] multiply(a, b)
  ROOT e = f32[4] exponential(m)
}

ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  f = f32[4] fusion(x, y), kind=kLoop, calls=fused_computation
  ROOT n = f32[4] negate(f)
}
"""


def _nodes(dot: str) -> dict[str, str]:
    """instruction name -> node id"""
    return {label.split("\\n")[0]: nid for nid, label in re.findall(r'^\s+(n\d+) \[label="([^"]*)"', dot, re.M)}


def test_fusion_is_a_cluster_in_place_wired_through_its_parameters_and_root() -> None:
    dot = module_to_dot(parse_module(FUSED, "f"))
    n = _nodes(dot)
    assert set(n) == {"x", "y", "a", "b", "m", "e", "n"}  # no node for the fusion itself
    # the fused computation's cluster sits inside the entry's, and is not drawn again on its own
    entry = dot.index('label="ENTRY main"')
    inner = dot.index('label="f (kLoop)"')
    assert entry < inner < dot.index(f"  {n['n']} [")
    assert dot.count("subgraph cluster_") == 2 and 'label="fused_computation"' not in dot
    assert f"{n['x']} -> {n['a']} [label=\"0\"];" in dot and f"{n['y']} -> {n['b']} [label=\"1\"];" in dot
    assert f"{n['e']} -> {n['n']};" in dot


def test_collapsed_fusions_are_one_node() -> None:
    dot = module_to_dot(parse_module(FUSED, "f"), DotOptions(fusions=False))
    n = _nodes(dot)
    assert set(n) == {"x", "y", "f", "n"}
    assert f"{n['f']} -> {n['n']};" in dot and dot.count("subgraph cluster_") == 1


def test_node_and_radius_draw_a_neighbourhood() -> None:
    module = parse_module(lattice_module(4, 10), "lattice")
    dot = module_to_dot(module, DotOptions(fusions=False, node="db5_1", radius=1))
    assert set(_nodes(dot)) == {"db5_1", "fb5_1", "nb5_1", "nb4_2"}
    # the rim (nodes with neighbours left out) is dashed
    assert dot.count("dashed\"") == 3
    wider = module_to_dot(module, DotOptions(fusions=False, node="db5_1", radius=3))
    assert len(_nodes(wider)) > 4
    with pytest.raises(DotError, match="no instruction named 'nope'"):
        module_to_dot(module, DotOptions(node="nope"))


def test_max_nodes_stops_and_says_how_much_is_left_out() -> None:
    module = parse_module(lattice_module(4, 10), "lattice")
    full = module_to_dot(module)
    assert "truncated" not in full
    dot = module_to_dot(module, DotOptions(max_nodes=50))
    assert len(re.findall(r'^\s+n\d+ \[label=', dot, re.M)) == 50
    total = module.instruction_count() - 40  # fusions drawn as clusters have no node
    assert f"{total - 50} more instructions not drawn (--max-nodes 50)" in dot
    assert 'label="ENTRY main"' in dot.split("subgraph")[1]  # the entry comes first


def test_collapsed_fusions_hide_the_computations_only_they_call() -> None:
    text = """HloModule r

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

fused {
  a = f32[8] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(a, z), dimensions={0}, to_apply=sum
}

ENTRY main {
  p = f32[8] parameter(0)
  ROOT f = f32[] fusion(p), kind=kInput, calls=fused
}
"""
    module = parse_module(text, "r")
    expanded = module_to_dot(module)
    assert 'label="sum"' in expanded and 'label="f (kInput)"' in expanded
    n = _nodes(expanded)
    assert f"{n['s']} -> {n['r']} [style=dashed" in expanded  # the reducer feeds the reduce in place
    collapsed = module_to_dot(module, DotOptions(fusions=False))
    assert 'label="sum"' not in collapsed and set(_nodes(collapsed)) == {"p", "f"}
