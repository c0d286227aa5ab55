"""hlo-diff: text and JSON, colour only on a terminal, exit 0 same / 3 different / 1 bad input."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from hlotools.cli import diff as diff_cli
from hlotools.cli.diff import main
from tests.support.paths import ROOT

STEP = ROOT / "testdata" / "xla_dump_step"
A = STEP / "module_0008.jit_step.0016.after_layout_assignment.after_pipeline-start.before_pipeline-end.txt"
B = STEP / "module_0008.jit_step.0017.HLO_passes_after_layout_assignment.after_fusion.before_fusion-wrapper.txt"
ALGSIMP_IN = STEP / "module_0008.jit_step.0005.simplification.after_pipeline-start.before_algsimp.txt"
ALGSIMP_OUT = STEP / "module_0008.jit_step.0006.simplification.after_algsimp.before_simplify-sorts.txt"


def run(*args: str | Path, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


def test_the_same_module_exits_0() -> None:
    r = run(A, A)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[-1] == "summary: same structure"


def test_fusions_formed_in_text_and_json_exit_3() -> None:
    r = run(A, B)
    assert r.exit_code == 3
    lines = r.stdout.splitlines()
    assert lines[0] == f"--- {A} (module jit_step)" and lines[-1] == "summary: 2 fusions formed"
    assert ("* fusion formed: multiply_subtract_fusion (kLoop, f32[4,3]{1,0}) from 4: sub.5, constant.4, "
            "broadcast.4, mul.7") in lines
    assert "\x1b[" not in r.stdout  # not a terminal: no colour
    doc = json.loads(run(A, B, "--json").stdout)
    assert doc["same"] is False and doc["counts"]["fusions_formed"] == 2 and doc["removed"] == []


def test_an_xla_algsimp_step() -> None:
    r = run(ALGSIMP_IN, ALGSIMP_OUT)
    assert r.exit_code == 3
    assert "- removed transpose.1 = transpose f32[4,3]{0,1}  (main.1)" in r.stdout
    assert "+ added   dot = dot f32[4,3]{0,1}  (main.1)" in r.stdout
    assert "~ changed mul.7 (multiply): operands: transpose.1, broadcast.4 -> dot, broadcast.4" in r.stdout


def test_colour_on_a_terminal_unless_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert diff_cli.use_colour()
    monkeypatch.setenv("NO_COLOR", "1")
    assert not diff_cli.use_colour()
    from hlotools import parse_module
    from hlotools.diff import diff_modules
    d = diff_modules(parse_module(A.read_text()), parse_module(B.read_text()))
    assert "\x1b[36m* fusion formed" in diff_cli.render(d, colour=True)
    assert "\x1b[" not in diff_cli.render(d, colour=False)


def test_bad_input_is_one_line_and_json_under_json(tmp_path: Path) -> None:
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\nENTRY e {\n  ROOT x = f32[2] nope()\n}\n")
    r = run(A, bad)
    assert r.exit_code == 1 and r.stderr.startswith(f"{bad}:3:")
    r = run(A, bad, "--json")
    assert r.exit_code == 1
    err = json.loads(r.stdout)["error"]
    assert err["file"] == str(bad) and err["line"] == 3 and err["exit_code"] == 1
