"""graph/model.py and graph/html.py: the data the HTML view draws, and the page being one
self-contained file (the browser tests in test_html_browser.py load it)."""
from __future__ import annotations

import json
import re

from hlotools import parse_module
from hlotools.graph.html import module_to_html
from hlotools.graph.model import metadata_fields, module_model
from tests.graph.test_dot import FUSED
from tests.support.paths import ROOT

MLP = ROOT / "testdata" / "models" / "mlp2_relu.hlo"


def _embedded_model(html: str) -> dict:
    m = re.search(r'<script id="hlo-model" type="application/json">(.*?)</script>', html, re.S)
    assert m is not None
    return json.loads(m.group(1))


def test_model_numbers_instructions_and_records_what_the_panel_shows() -> None:
    model = module_model(parse_module(MLP.read_text(), MLP.name))
    comps = {c["name"]: c for c in model["computations"]}
    assert model["computations"][model["entry"]]["name"] == "main.2"
    assert comps["main.2"]["kind"] == "entry" and comps["relu.1"]["kind"] == "called"
    insts = model["instructions"]
    by = {r["n"]: r for r in insts}
    dot = by["dot_general.2"]
    assert dot["op"] == "dot" and dot["c"] == "linalg" and dot["s"] == "f32[32,256]{1,0}"
    assert [insts[k]["n"] for k in dot["o"]] == ["x.1", "w1.1"]
    assert ["lhs_contracting_dims", "{1}"] in dot["a"] and all(n != "metadata" for n, _ in dot["a"])
    assert dot["m"]["op_name"] == "jit(mlp2_relu)/dot_general"
    assert dot["f"] == 2 * 32 * 256 * 128 and dot["b"] == 4 * (32 * 128 + 128 * 256 + 32 * 256)
    call = next(r for r in insts if r.get("calls"))
    assert call["calls"] == [["to_apply", model["computations"].index(comps["relu.1"])]]
    assert by["x.1"]["v"] == "0"  # the parameter number beside the opcode


def test_metadata_fields() -> None:
    assert metadata_fields('{op_name="jit(f)/a\\"b" source_file="/x/f.py" source_line=12}') == {
        "op_name": 'jit(f)/a\\"b', "source_file": "/x/f.py", "source_line": "12"}


def test_page_is_self_contained_and_script_safe() -> None:
    text = FUSED.replace("ENTRY main {", 'ENTRY main {\n  q = f32[4] parameter(2), metadata={op_name="</script><b>"}')
    text = text.replace("ROOT n = f32[4] negate(f)", "ROOT n = f32[4] add(f, q)")
    html = module_to_html(parse_module(text, "f"))
    assert html.startswith("<!DOCTYPE html>") and "__MODEL__" not in html and "__SCRIPT__" not in html
    assert not re.search(r"https?://", html)  # nothing to fetch
    assert "default-src 'none'" in html  # and the page may not fetch anything
    assert not re.search(r"<(script|link|img|iframe)[^>]*\bsrc=", html)
    assert html.count("</script>") == 2  # the model's "</script>" text is escaped
    model = _embedded_model(html)
    assert any(r.get("m", {}).get("op_name") == "</script><b>" for r in model["instructions"])
    assert {c["kind"] for c in model["computations"]} == {"entry", "fusion"}
