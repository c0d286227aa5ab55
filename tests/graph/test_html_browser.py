"""The HTML graph view in a real headless browser (Debian chromium over the DevTools pipe): it loads
from file:// with no network and no console errors, draws fusions as clusters (seen in the
screenshot's pixels), answers clicks, search and expansion, and renders a 10,000-instruction
module within seconds. Skipped when chromium is absent; .ci/run installs it."""
from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from hlotools import parse_module
from hlotools.graph.html import module_to_html
from tests.graph.generated import lattice_module
from tests.support.chromium import Browser, png_pixels, require_chromium
from tests.support.paths import SHARED

ATTENTION = SHARED / "corpus" / "jax" / "big_attention_256.xla_opt.hlo"
FUSION_FILL = (0xF4, 0xEC, 0xFC)  # viewer.js CLUSTER.fusion background
WHILE = """HloModule w

cond {
  c = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(c), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  b = (s32[], f32[8]) parameter(0)
  i = s32[] get-tuple-element(b), index=0
  x = f32[8] get-tuple-element(b), index=1
  one = s32[] constant(1)
  s = s32[] add(i, one)
  e = f32[8] exponential(x)
  ROOT t = (s32[], f32[8]) tuple(s, e)
}

ENTRY main {
  z = s32[] constant(0)
  p = f32[8] parameter(0)
  t = (s32[], f32[8]) tuple(z, p)
  ROOT w = (s32[], f32[8]) while(t), condition=cond, body=body
}
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    require_chromium()
    with Browser(width=1400, height=900) as b:
        yield b


def _page(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / f"{name}.html"
    path.write_text(module_to_html(parse_module(text, name)))
    return path


def _clean_load(browser: Browser, path: Path) -> float:
    browser.events.clear()
    seconds = browser.open(path)
    assert browser.errors() == []
    assert browser.requests() == [path.resolve().as_uri()]  # the page itself, nothing else
    return seconds


def _index(browser: Browser, name: str) -> int:
    return browser.evaluate(f"hloView.model.instructions.findIndex(r => r.n === {name!r})")


def test_real_module_clusters_in_the_screenshot(browser: Browser, tmp_path: Path) -> None:
    if not ATTENTION.exists():
        pytest.skip(f"{ATTENTION} is not here")
    _clean_load(browser, _page(tmp_path, ATTENTION.read_text(), "attention"))
    # a small module starts with its fusions expanded in place
    boxes = browser.evaluate("hloView.scene.clusters.map(b => [b.w, b.h])")
    assert len(boxes) == browser.evaluate("hloView.model.instructions.filter(r => r.op === 'fusion').length") > 5
    assert all(w > 0 and h > 0 for w, h in boxes)
    browser.evaluate("hloView.fit(); hloView.draw(); 0")
    pixels = png_pixels(browser.screenshot())
    cluster = np.all(pixels == np.array(FUSION_FILL, dtype=np.uint8), axis=-1).sum()
    assert cluster > 2000, f"only {cluster} pixels of the cluster colour"
    assert browser.errors() == []


def test_click_selects_and_the_panel_shows_the_instruction(browser: Browser, tmp_path: Path) -> None:
    from tests.graph.test_html import MLP

    _clean_load(browser, _page(tmp_path, MLP.read_text(), "mlp"))
    k = _index(browser, "dot_general.2")
    browser.evaluate(f"hloView.centreOn({k}, 1); hloView.draw(); 0")
    box = browser.evaluate(f"hloView.screenBox({k})")
    browser.click(box["x"] + box["w"] / 2, box["y"] + box["h"] / 2)
    assert browser.evaluate("hloView.state.selected") == k
    panel = browser.evaluate("document.getElementById('panel').innerText")
    assert browser.evaluate("getComputedStyle(document.getElementById('panel')).display") == "block"
    for text in ("dot_general.2", "f32[32,256]{1,0}", "jit(mlp2_relu)/dot_general", "lhs_contracting_dims",
                 "operands (2)", "x.1", "users (1)", "flops"):
        assert text in panel, text
    assert browser.errors() == []


def test_search_reveals_and_called_computations_open(browser: Browser, tmp_path: Path) -> None:
    _clean_load(browser, _page(tmp_path, WHILE, "while"))
    assert browser.evaluate("hloView.search('exponential')") == 1
    assert "e exponential" in browser.evaluate("document.getElementById('results').innerText")
    # typing and Enter reveal the hit: the while around it is expanded in place
    e = _index(browser, "e")
    browser.evaluate("document.getElementById('search').value = ''; hloView.search(''); 0")
    browser.type_text("#search", "exponential", enter=True)
    w = _index(browser, "w")
    assert browser.evaluate(f"hloView.state.expanded.has({w})")
    frames = browser.evaluate("hloView.scene.frames.map(f => f.role)")
    assert sorted(frames) == ["body", "condition"]
    assert browser.evaluate("hloView.state.selected") == e and browser.evaluate(f"hloView.screenBox({e}) !== null")
    # double-clicking the while's cluster collapses it; opening the body shows it alone
    browser.evaluate(f"hloView.centreOn({w}, 1); hloView.draw(); 0")
    box = browser.evaluate(f"hloView.screenBox({w})")
    for count in (1, 2):
        browser.click(box["x"] + 20, box["y"] + 8, count)
    assert not browser.evaluate(f"hloView.state.expanded.has({w})")
    assert browser.evaluate("hloView.scene.clusters.length") == 0
    body = browser.evaluate("hloView.model.computations.findIndex(c => c.name === 'body')")
    browser.evaluate(f"hloView.setRoot({body}); 0")
    assert browser.evaluate("hloView.scene.nodes.length") == 7
    browser.evaluate("hloView.setColour('flops'); 0")
    assert "flops" in browser.evaluate("document.getElementById('legend').innerText")
    assert browser.errors() == []


def test_wheel_zooms_and_drag_pans(browser: Browser, tmp_path: Path) -> None:
    from tests.graph.test_html import MLP

    _clean_load(browser, _page(tmp_path, MLP.read_text(), "mlp"))
    before = browser.evaluate("[hloView.state.scale, hloView.state.tx, hloView.state.ty]")
    browser.wheel(600, 400, -300)  # zoom in around the pointer
    after = browser.evaluate("[hloView.state.scale, hloView.state.tx, hloView.state.ty]")
    assert after[0] > before[0] * 1.3
    browser.drag(600, 400, 500, 300)
    moved = browser.evaluate("[hloView.state.scale, hloView.state.tx, hloView.state.ty]")
    assert moved[0] == after[0] and moved[1] == after[1] - 100 and moved[2] == after[2] - 100
    assert browser.errors() == []


def test_ten_thousand_instructions_render_within_seconds(browser: Browser, tmp_path: Path) -> None:
    text = lattice_module(10, 111)  # 10 x 111 blocks of 9 instructions
    module = parse_module(text, "lattice")
    assert module.instruction_count() >= 10_000
    t0 = time.monotonic()
    path = tmp_path / "lattice.html"
    page = module_to_html(module)
    path.write_text(page)
    written = time.monotonic() - t0
    assert not re.search(r"https?://", page)
    seconds = _clean_load(browser, path)
    assert written < 5 and seconds < 5, (written, seconds)
    # a big module starts collapsed: the entry's 3,341 instructions, fusions as single nodes
    assert browser.evaluate("hloView.scene.nodes.length") == 3341
    assert browser.evaluate("hloView.scene.clusters.length") == 0
    drawn = browser.evaluate("hloView.drawn.nodes")
    assert 0 < drawn < 3341  # only what is in view is drawn
    t0 = time.monotonic()
    browser.evaluate("document.getElementById('expand').click(); hloView.fit(); hloView.draw(); 0")
    assert time.monotonic() - t0 < 5
    assert browser.evaluate("hloView.scene.clusters.length") == 1110
    assert browser.evaluate("hloView.drawn.nodes") == 3341 - 1110 + 6 * 1110  # all in view when fitted
    hits = browser.evaluate("hloView.search('dot')")
    assert hits == 1110
    assert browser.errors() == []


def test_compile_report_page_loads_and_draws(browser: Browser, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from hlotools.cli.opt import main as opt_main
    from tests.graph.test_html import MLP

    page = tmp_path / "report.html"
    r = CliRunner().invoke(opt_main, [str(MLP), "-O2", "--report=html", "--report-file", str(page), "-o", "/dev/null"])
    assert r.exit_code == 0, r.output
    _clean_load(browser, page)
    text = browser.evaluate("document.body.innerText")
    for part in ("jit_mlp2_relu", "pass timeline", "compile time", "kernels", "fusion decisions", "temp arena"):
        assert part in text, part
    rows = browser.evaluate("document.querySelectorAll('section.module table tr.changed').length")
    assert rows > 3
    # the charts are drawn: some of their pixels are not the background
    inked = browser.evaluate("[...document.querySelectorAll('canvas.chart')].map(c => { const d = c.getContext('2d')"
                             ".getImageData(0, 0, c.width, c.height).data; let n = 0; for (let i = 3; i < d.length; i += 4)"
                             " if (d[i]) n++; return n; })")
    assert len(inked) == 2 and min(inked) > 500
    assert browser.errors() == []


SHARED_REDUCER = """HloModule r

sum {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[8,4] parameter(0)
  z = f32[] constant(0)
  r0 = f32[8] reduce(p, z), dimensions={1}, to_apply=sum
  r1 = f32[4] reduce(p, z), dimensions={0}, to_apply=sum
  ROOT t = (f32[8], f32[4]) tuple(r0, r1)
}
"""


def test_a_computation_called_twice_is_drawn_at_each_caller(browser: Browser, tmp_path: Path) -> None:
    _clean_load(browser, _page(tmp_path, SHARED_REDUCER, "shared"))
    browser.evaluate(f"hloView.toggle({_index(browser, 'r0')}); hloView.toggle({_index(browser, 'r1')}); 0")
    frames = browser.evaluate("hloView.scene.frames.map(f => [f.x, f.y, f.w, f.h])")
    assert len(frames) == 2
    s = _index(browser, "s")
    edges = browser.evaluate(f"hloView.scene.edges.filter(e => e.b === {s}).map(e => [e.pts[0], e.pts[e.pts.length - 1]])")
    assert len(edges) == 4  # x -> s and y -> s in each copy, each inside its own frame
    inside = [next(i for i, (x, y, w, h) in enumerate(frames)
                   if all(x <= px <= x + w and y <= py <= y + h for px, py in ends)) for ends in edges]
    assert sorted(inside) == [0, 0, 1, 1]
    assert browser.errors() == []


def test_the_address_names_the_selection_and_the_minimap_moves_the_view(browser: Browser, tmp_path: Path) -> None:
    from tests.graph.test_html import MLP

    page = _page(tmp_path, MLP.read_text(), "mlp")
    _clean_load(browser, page)
    k = _index(browser, "dot_general.2")
    browser.evaluate(f"hloView.select({k}); 0")
    assert browser.evaluate("location.hash") == "#dot_general.2"
    # opening page.html#NAME selects NAME and shows it
    browser.events.clear()
    browser.call("Page.navigate", {"url": "about:blank"})
    while browser.evaluate("location.href") != "about:blank":
        time.sleep(0.05)
    browser.call("Page.navigate", {"url": page.resolve().as_uri() + "#max.3"})
    deadline = time.monotonic() + 10
    while browser.evaluate("document.body && document.body.dataset.ready === '1' && hloView.state.selected") in (None, -1, False):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert browser.evaluate("hloView.state.selected") == _index(browser, "max.3")
    assert browser.evaluate(f"hloView.state.expanded.has({_index(browser, 'jit_relu_.1')})")  # its call opened
    # a click on the minimap's corner moves the view there
    before = browser.evaluate("[hloView.state.tx, hloView.state.ty]")
    box = browser.evaluate("(() => { const r = document.getElementById('minimap').getBoundingClientRect(); "
                           "return [r.left, r.top, r.width, r.height]; })()")
    browser.click(box[0] + 3, box[1] + 3)
    assert browser.evaluate("[hloView.state.tx, hloView.state.ty]") != before
    assert browser.errors() == []
