"""hlo-opt --report=html: one page per compile with the pass timeline, counts after each pass,
the fusion decisions and peak memory (the page itself is loaded in tests/graph/test_html_browser.py)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner, Result

from hlotools.cli.opt import main
from tests.support.paths import ROOT

MLP = ROOT / "testdata" / "models" / "mlp2_relu.hlo"
FUSABLE = """HloModule fusable

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[64] parameter(0)
  q = f32[64] parameter(1)
  a = f32[64] add(p, q)
  e = f32[64] exponential(a)
  z = f32[] constant(0)
  r = f32[] reduce(e, z), dimensions={0}, to_apply=sum
  ROOT t = (f32[64], f32[]) tuple(e, r)
}
"""


def invoke(args: list, input: str | None = None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def report_data(page: str) -> dict:
    m = re.search(r'<script id="hlo-report" type="application/json">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))


def test_report_file_holds_every_pass_application_with_counts(tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    timing = tmp_path / "t.json"
    r = invoke([MLP, "-O2", "--report=html", "--report-file", page, "--time-passes=json"])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("HloModule jit_mlp2_relu")  # the module still goes to stdout
    timing.write_text(r.stderr)
    text = page.read_text()
    assert not re.search(r"https?://", text) and "default-src 'none'" in text  # self-contained
    data = report_data(text)
    assert data["pipeline"].startswith("fixed-point(") and len(data["modules"]) == 1
    m = data["modules"][0]
    assert m["module"] == "jit_mlp2_relu" and m["file"].endswith("mlp2_relu.hlo")
    apps = json.loads(timing.read_text())["modules"][0]["applications"]
    points = m["points"]
    assert points[0]["pass"] == "(input)" and [p["pass"] for p in points[1:]] == [a["pass"] for a in apps]
    assert [p["instructions"] for p in points[1:]] == [a["instructions_after"] for a in apps]
    assert points[0]["instructions"] == apps[0]["instructions_before"]
    # the fusion pass lowers the kernel count; the schedule model's peak is positive
    fusion = next(p for p in points if p["pass"].startswith("fusion"))
    before = points[points.index(fusion) - 1]
    assert fusion["kernels"] < before["kernels"] and all(p["peak_bytes"] > 0 for p in points)
    assert m["buffers"]["arena_bytes"] >= 0 and m["buffers"]["by_computation"]


def test_fusion_decisions_and_their_reasons(tmp_path: Path) -> None:
    r = invoke(["-", "-O2", "--report"], input=FUSABLE)
    assert r.exit_code == 0, r.output
    assert r.stderr == ""  # collecting the decisions prints nothing
    data = report_data(r.stdout)  # no --report-file, no -o: the page is standard output
    decisions = data["modules"][0]["decisions"]
    fusion = [d for d in decisions if d["pass"] == "fusion"]
    assert any(d["text"].startswith("fused ") for d in fusion)
    index = {p["index"]: p["pass"] for p in data["modules"][0]["points"]}
    assert all(index[d["index"]].startswith(d["pass"]) for d in fusion)  # tagged with their application


def test_page_and_module_to_separate_files(tmp_path: Path) -> None:
    r = invoke([MLP, MLP, "-O1", "--report", "-o", tmp_path / "m.hlo"])
    assert r.exit_code == 0, r.output
    assert len(report_data(r.stdout)["modules"]) == 2  # one section per module of the compile
    assert (tmp_path / "m.hlo").read_text().count("HloModule jit_mlp2_relu") == 2


def test_report_usage_errors(tmp_path: Path) -> None:
    r = invoke([MLP, "--report"])
    assert r.exit_code == 2 and "--report describes a compile" in r.stderr
    r = invoke([MLP, "-O2", "--report-file", tmp_path / "r.html"])
    assert r.exit_code == 2 and "--report-file goes with --report=html" in r.stderr
    r = invoke([MLP, "-O2", "--report=pdf"])
    assert r.exit_code == 2
