"""hlo-translate: --emit=hlo (canonical text), --emit=dot (Graphviz), unknown forms refused."""
from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner, Result

from hlotools.cli.translate import main
from tests.support.paths import ROOT

MLP = ROOT / "testdata" / "models" / "mlp2_relu.hlo"


def invoke(args: list[str], input: str | None = None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def test_emit_hlo_is_the_canonical_print() -> None:
    from click.testing import CliRunner as Runner

    from hlotools.cli.opt import main as opt_main

    r = invoke([MLP, "--emit=hlo", "--style=long"])
    assert r.exit_code == 0
    assert r.stdout == Runner().invoke(opt_main, [str(MLP), "--style=long"]).stdout


def test_emit_dot_has_clusters_nodes_and_edges(tmp_path: Path) -> None:
    r = invoke([MLP, "--emit=dot", "-o", tmp_path / "m.dot"])
    assert r.exit_code == 0 and r.stdout == ""
    dot = (tmp_path / "m.dot").read_text()
    assert dot.startswith('digraph "jit_mlp2_relu" {') and dot.rstrip().endswith("}")
    assert 'label="ENTRY main.2";' in dot and 'label="relu.1";' in dot
    assert dot.count("subgraph cluster_") == 2
    nodes = dict(re.findall(r'^\s+(n\d+) \[label="([^"]*)"', dot, re.M))
    assert len(nodes) == 4 + 18  # relu.1 has 4 instructions, main.2 has 18
    by_name = {label.split("\\n")[0]: nid for nid, label in nodes.items()}
    assert nodes[by_name["dot_general.2"]] == "dot_general.2\\ndot\\nf32[32,256]"
    assert nodes[by_name["x.1"]] == "x.1\\nparameter 0\\nf32[32,128]"
    edge = f'{by_name["x.1"]} -> {by_name["dot_general.2"]} [label="0"];'
    assert edge in dot
    # The call's callee root feeds the call (dashed).
    assert f'{by_name["max.3"]} -> {by_name["jit_relu_.1"]} [style=dashed, color="#666666", label="to_apply"];' in dot


def test_dot_names_called_computations_and_tuple_indices() -> None:
    text = """HloModule w

cond {
  c = (s32[]) parameter(0)
  i = s32[] get-tuple-element(c), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  b = (s32[]) parameter(0)
  i = s32[] get-tuple-element(b), index=0
  one = s32[] constant(1)
  s = s32[] add(i, one)
  ROOT t = (s32[]) tuple(s)
}

ENTRY main {
  z = s32[] constant(0)
  t = (s32[]) tuple(z)
  ROOT w = (s32[]) while(t), condition=cond, body=body
}
"""
    r = invoke(["-", "--emit=dot"], input=text)
    assert r.exit_code == 0, r.output
    dot = r.stdout
    assert 'label="condition"' in dot and 'label="body"' in dot
    assert 'label="i\\nget-tuple-element 0\\ns32[]"' in dot
    assert 'label="one\\nconstant 1\\ns32[]"' in dot


def test_unknown_form_is_a_usage_error() -> None:
    # (the LLVM forms are tested in tests/cli/test_translate_llvm.py)
    r = invoke([MLP, "--emit=png"])
    assert r.exit_code == 2 and "'png' is not a known form" in r.stderr


def test_stdin_and_bad_input() -> None:
    r = invoke(["-", "--emit=dot"], input="HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n")
    assert r.exit_code == 0 and 'label="p\\nparameter 0\\nf32[]"' in r.stdout
    r = invoke(["-", "--emit=dot"], input="HloModule m\n\nENTRY e {\n  ROOT p = f32[] bogus(\n}\n")
    assert r.exit_code == 1 and r.stderr.startswith("<stdin>:")


def test_emit_html_to_a_file_and_to_stdout(tmp_path: Path) -> None:
    r = invoke([MLP, "--emit=html", "-o", tmp_path / "g.html"])
    assert r.exit_code == 0 and r.stdout == ""
    page = (tmp_path / "g.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and '"module":"jit_mlp2_relu"' in page
    r = invoke([MLP, "--emit=html"])
    assert r.exit_code == 0 and r.stdout == page


def test_dot_size_options() -> None:
    r = invoke([MLP, "--emit=dot", "--node", "dot_general.2", "--radius", "1"])
    assert r.exit_code == 0, r.output
    names = {label.split("\\n")[0] for label in re.findall(r'^\s+n\d+ \[label="([^"]*)"', r.stdout, re.M)}
    assert names == {"dot_general.2", "x.1", "w1.1", "add.11"}
    r = invoke([MLP, "--emit=dot", "--max-nodes", "5"])
    assert r.exit_code == 0 and "more instructions not drawn (--max-nodes 5)" in r.stdout
    r = invoke([MLP, "--emit=dot", "--node", "nope"])
    assert r.exit_code == 2 and "no instruction named 'nope'" in r.stderr
    r = invoke([MLP, "--emit=hlo", "--collapse-fusions"])
    assert r.exit_code == 2 and "apply to dot, not --emit=hlo" in r.stderr
    r = invoke([MLP, "--emit=dot", "--radius", "2"])
    assert r.exit_code == 2 and "--radius goes with --node" in r.stderr
