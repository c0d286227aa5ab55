"""The compile figures under --json (hlo-opt and hlo-run: kernels, peak bytes, phase times),
--time-passes-file beside -v logging, and errors as JSON on every tool that has --json."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hlotools.cli.bench import main as bench_main
from hlotools.cli.diff import main as diff_main
from hlotools.cli.opt import main as opt_main
from hlotools.cli.run import main as run_main
from tests.support.paths import ROOT

MLP = ROOT / "testdata" / "models" / "mlp2_relu.hlo"
PLAIN = {"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "HLOTOOLS_LOG": None}


def _invoke(main: object, *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args), env=PLAIN)  # type: ignore[arg-type]
    return r.exit_code, r.stdout, r.stderr


def test_hlo_opt_json_has_kernels_peak_bytes_and_pass_times() -> None:
    code, out, _ = _invoke(opt_main, str(MLP), "-O2", "--json")
    assert code == 0
    (doc,) = json.loads(out)["modules"]
    assert doc["module"] == "jit_mlp2_relu" and doc["file"] == str(MLP)
    assert doc["kernels"] >= 1 and doc["peak_live_bytes"] > 0
    assert doc["compile_ms"]["passes"] == pytest.approx(sum(p["ms"] for p in doc["passes"]), abs=0.05)
    assert [p["name"] for p in doc["passes"]][:2] == ["call-inliner", "algsimp"]
    assert doc["text"].startswith("HloModule jit_mlp2_relu")
    # without passes: the module as written (an unfused dot chain: more kernels)
    code, out, _ = _invoke(opt_main, str(MLP), "--json")
    plain = json.loads(out)["modules"][0]
    assert "passes" not in plain and plain["kernels"] > doc["kernels"]


def test_hlo_opt_json_with_an_output_file_keeps_the_text_there(tmp_path: Path) -> None:
    target = tmp_path / "o.hlo"
    code, out, _ = _invoke(opt_main, str(MLP), str(MLP), "-O1", "--json", "-o", str(target))
    assert code == 0
    docs = json.loads(out)["modules"]
    assert len(docs) == 2 and all("text" not in d for d in docs)
    assert target.read_text().count("HloModule jit_mlp2_relu") == 2


def test_hlo_run_json_has_the_same_figures() -> None:
    code, out, _ = _invoke(run_main, str(MLP), "--random", "0", "--json", "--no-cache")
    assert code == 0
    metrics = json.loads(out)["metrics"]
    assert metrics["kernels"] == 2 and metrics["peak_bytes"] > 0
    assert set(metrics["compile_ms"]) == {"passes", "codegen", "llvm"}
    code, out, _ = _invoke(run_main, str(MLP), "--random", "0", "--json", "--backend", "interp")
    assert "metrics" not in json.loads(out)  # nothing is compiled


def test_time_passes_file_is_json_whatever_is_logged(tmp_path: Path) -> None:
    target = tmp_path / "times.json"
    code, out, err = _invoke(opt_main, str(MLP), "-O2", "-vv", "--time-passes-file", str(target))
    assert code == 0 and out.startswith("HloModule")
    doc = json.loads(target.read_text())
    assert doc["applications"] >= 10 and doc["passes"]
    assert "compile_ms" not in err  # nothing of it on stderr, where -vv logs
    code, _, _ = _invoke(opt_main, str(MLP), "-O2", "--time-passes=table", "--time-passes-file", str(target))
    assert code == 0 and "pass" in target.read_text().splitlines()[0]


@pytest.mark.parametrize("main,args", [
    (opt_main, ["MISSING", "--json"]),
    (run_main, ["MISSING", "--random", "0", "--json"]),
    (diff_main, ["MISSING", str(MLP), "--json"]),
    (bench_main, ["MISSING", "--json"]),
])
def test_errors_are_json_under_json(main: object, args: list[str], tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.hlo")
    code, out, _ = _invoke(main, *[missing if a == "MISSING" else a for a in args])
    assert code == 1
    doc = json.loads(out)
    error = doc["error"] if "error" in doc else doc["modules"][0]  # hlo-bench: per module
    assert "missing.hlo" in json.dumps(error) and "no such file" in json.dumps(error)


def test_a_usage_error_is_json_too() -> None:
    code, out, _ = _invoke(bench_main, str(MLP), "--json", "--threshold", "x")
    assert code == 2 and json.loads(out)["error"]["exit_code"] == 2
