"""hlo-bench: figures recorded with --save, verdicts against --baseline, output forms, exit codes."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result

from hlotools.cli.bench import main
from hlotools.io.checksum import checksum, mismatch
from tests.support.paths import ROOT

MLP = ROOT / "testdata" / "models" / "mlp2_relu.hlo"
DUMP = ROOT / "testdata" / "xla_dump_step"
INT = """HloModule ints

ENTRY main {
  a = s32[8] parameter(0)
  b = s32[8] multiply(a, a)
  ROOT c = s32[8] add(b, a)
}
"""
PLAIN = {"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "GITHUB_STEP_SUMMARY": None}


def _bench(*args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(main, [*args, "--repeat", "2"], env={**PLAIN, **(env or {})})


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A folder of two modules and its baseline."""
    folder = tmp_path_factory.mktemp("bench") / "models"
    folder.mkdir()
    (folder / "mlp.hlo").write_text(MLP.read_text())
    (folder / "ints.hlo").write_text(INT)
    (folder / "notes.md").write_text("not a module")
    baseline = folder.parent / "baseline.json"
    r = _bench(str(folder), "--save", str(baseline))
    assert r.exit_code == 0, r.output
    return folder, baseline


def _edited(baseline: Path, tmp_path: Path, key_end: str, **changes: object) -> Path:
    doc = json.loads(baseline.read_text())
    for m in doc["modules"]:
        if m["key"].endswith(key_end):
            for k, v in changes.items():
                if k == "outputs":
                    m["outputs"][0].update(v)  # type: ignore[arg-type]
                else:
                    m[k] = v
    out = tmp_path / "edited.json"
    out.write_text(json.dumps(doc))
    return out


def test_save_records_each_module_of_a_folder(corpus: tuple[Path, Path]) -> None:
    folder, baseline = corpus
    doc = json.loads(baseline.read_text())
    assert doc["format"] == "hlo-bench/1"
    by_name = {Path(m["key"]).name: m for m in doc["modules"]}
    assert sorted(by_name) == ["ints.hlo", "mlp.hlo"]  # notes.md is not a module
    mlp = by_name["mlp.hlo"]
    assert mlp["kernels"] == 2 and mlp["peak_bytes"] > 0 and mlp["backend"] == "llvm"
    assert {"passes", "codegen", "llvm", "total"} <= set(mlp["compile_ms"])
    assert mlp["runs"] == 2 and mlp["run_ms"] >= mlp["run_min_ms"] > 0
    (out,) = mlp["outputs"]
    assert out["dtype"] == "float32" and out["shape"] == [32, 64] and len(out["sum"]) == 1
    ints = by_name["ints.hlo"]["outputs"][0]
    assert ints["dtype"] == "int32" and "sum" not in ints  # exact: compared by hash only


def test_the_same_code_against_its_baseline_passes(corpus: tuple[Path, Path]) -> None:
    folder, baseline = corpus
    r = _bench(str(folder), "--baseline", str(baseline), "--threshold", "1000%")
    assert r.exit_code == 0, r.output
    assert "2 modules: ok" in r.output
    assert "match" in r.output


def test_one_more_kernel_is_a_regression_and_one_fewer_an_improvement(corpus: tuple[Path, Path],
                                                                       tmp_path: Path) -> None:
    folder, baseline = corpus
    r = _bench(str(folder), "--baseline", str(_edited(baseline, tmp_path, "mlp.hlo", kernels=1)),
               "--threshold", "1000%", "--json")
    assert r.exit_code == 1, r.output
    doc = json.loads(r.output)
    verdict = {Path(v["module"]).name: v for v in doc["comparison"]}["mlp.hlo"]
    assert verdict["status"] == "regressed" and verdict["problems"] == ["kernels 1 -> 2"]
    r = _bench(str(folder), "--baseline", str(_edited(baseline, tmp_path, "mlp.hlo", kernels=3)),
               "--threshold", "1000%")
    assert r.exit_code == 0, r.output
    assert "improved" in r.output


def test_peak_bytes_compare_exactly(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    folder, baseline = corpus
    doc = json.loads(baseline.read_text())
    peak = next(m["peak_bytes"] for m in doc["modules"] if m["key"].endswith("mlp.hlo"))
    r = _bench(str(folder), "--baseline", str(_edited(baseline, tmp_path, "mlp.hlo", peak_bytes=peak - 1)),
               "--threshold", "1000%")
    assert r.exit_code == 1
    assert f"regressed: peak bytes {peak - 1} -> {peak}" in r.output


def test_a_changed_output_fails_the_gate(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    folder, baseline = corpus
    edited = _edited(baseline, tmp_path, "ints.hlo", outputs={"sha256": "0" * 32})
    r = _bench(str(folder), "--baseline", str(edited), "--threshold", "1000%")
    assert r.exit_code == 1
    assert "output out0: different values" in r.output
    doc = json.loads(baseline.read_text())
    mlp = next(m for m in doc["modules"] if m["key"].endswith("mlp.hlo"))["outputs"][0]
    moved = [s + 0.5 * a for s, a in zip(mlp["sum"], mlp["abs_sum"])]
    r = _bench(str(folder), "--baseline", str(_edited(baseline, tmp_path, "mlp.hlo",
                                                      outputs={"sha256": "0" * 32, "sum": moved})),
               "--threshold", "1000%")
    assert r.exit_code == 1 and "output out0: sum" in r.output


def test_a_slower_run_is_measured_again_then_fails(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    folder, baseline = corpus
    edited = _edited(baseline, tmp_path, "mlp.hlo", run_ms=1e-6, compile_ms={"total": 1e9})
    r = _bench(str(folder), "--baseline", str(edited), "--noise-floor", "0", "--retries", "1", "--json")
    assert r.exit_code == 1
    doc = json.loads(r.output)
    verdict = {Path(v["module"]).name: v for v in doc["comparison"]}["mlp.hlo"]
    assert verdict["status"] == "regressed" and verdict["problems"][0].startswith("run +")
    # the same slowdown under the noise floor is no finding
    r = _bench(str(folder), "--baseline", str(edited), "--noise-floor", "1000", "--threshold", "1000%")
    assert r.exit_code == 0, r.output


def test_a_module_the_run_lacks_fails_and_a_new_one_does_not(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    folder, baseline = corpus
    r = _bench(str(folder / "mlp.hlo"), "--baseline", str(baseline), "--threshold", "1000%")
    assert r.exit_code == 1
    assert "ints.hlo: missing\n  missing: in the baseline, not measured now" in r.output
    assert "2 modules: FAIL (1 missing)" in r.output
    other = tmp_path / "ints2.hlo"
    other.write_text(INT)
    r = _bench(str(folder), str(other), "--baseline", str(baseline), "--threshold", "1000%")
    assert r.exit_code == 0, r.output
    assert "ints2.hlo: " in r.output and "3 modules: ok (1 new)" in r.output


def test_markdown_summary_goes_to_a_file_and_to_the_github_step_summary(corpus: tuple[Path, Path],
                                                                        tmp_path: Path) -> None:
    folder, baseline = corpus
    md, gh = tmp_path / "summary.md", tmp_path / "gh.md"
    r = _bench(str(folder), "--baseline", str(baseline), "--threshold", "1000%", "--markdown", str(md),
               env={"GITHUB_STEP_SUMMARY": str(gh)})
    assert r.exit_code == 0, r.output
    text = md.read_text()
    assert text.startswith("### hlo-bench") and "| module | compile ms |" in text and "ints.hlo" in text
    assert gh.read_text() == text


def test_dump_folder_modules_and_parallel_jobs(tmp_path: Path) -> None:
    r = _bench(str(DUMP), "--json", "--jobs", "2")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    keys = [m["key"] for m in doc["modules"]]
    assert keys == [f"{DUMP}/0000.jit_convert_element_type", f"{DUMP}/0008.jit_step"]
    assert all(m["file"].endswith("before_optimizations.txt") for m in doc["modules"])
    assert doc["modules"][1]["kernels"] >= 1


def test_usage_and_input_errors(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    folder, _ = corpus
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    r = _bench(str(folder), "--baseline", str(bad))
    assert r.exit_code == 2 and "not JSON" in r.output
    r = _bench(str(folder), "--baseline", str(tmp_path / "none.json"))
    assert r.exit_code == 2 and "cannot read" in r.output
    r = _bench(str(folder), "--json", "--markdown", "-")
    assert r.exit_code == 2 and "standard output" in r.output
    r = _bench(str(folder), "--threshold", "ten")
    assert r.exit_code == 2 and "percentage" in r.output
    broken = tmp_path / "broken.hlo"
    broken.write_text("HloModule m\nENTRY e { ROOT x = f32[] bogus() }\n")
    r = _bench(str(broken), "--json")
    assert r.exit_code == 1
    assert "broken.hlo:" in json.loads(r.output)["modules"][0]["error"]
    r = _bench(str(tmp_path / "empty_dir_that_is_missing"), "--json")
    assert r.exit_code == 1
    # a module that failed in the baseline and fails now is no news; one that starts failing is
    saved = tmp_path / "broken.json"
    assert _bench(str(broken), "--save", str(saved)).exit_code == 1
    r = _bench(str(broken), "--baseline", str(saved))
    assert r.exit_code == 0 and "fails as in the baseline" in r.output
    doc = json.loads(saved.read_text())
    doc["modules"][0] = {"key": str(broken), "file": str(broken), "run_ms": 1.0, "run_min_ms": 1.0, "outputs": []}
    saved.write_text(json.dumps(doc))
    r = _bench(str(broken), "--baseline", str(saved))
    assert r.exit_code == 1 and "error: " in r.output and "FAIL (1 error)" in r.output


def test_a_terminal_gets_a_rich_table(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    folder, baseline = corpus
    edited = _edited(baseline, tmp_path, "mlp.hlo", kernels=1)
    r = _bench(str(folder), "--baseline", str(edited), "--threshold", "1000%", env={"TTY_COMPATIBLE": "1",
                                                                                    "COLUMNS": "200"})
    assert r.exit_code == 1
    assert "┏" in r.output and "module" in r.output.splitlines()[2]  # rich's table
    assert "mlp.hlo: regressed: kernels 1 -> 2" in r.output and "FAIL (1 regressed)" in r.output


def test_help_and_version() -> None:
    r = CliRunner().invoke(main, ["--help"])
    assert r.exit_code == 0 and "--baseline baseline.json" in r.output and "Exit status" in r.output
    r = CliRunner().invoke(main, ["--version"], prog_name="hlo-bench")  # click keeps the first prog name
    assert r.exit_code == 0 and r.output.startswith("hlo-bench (hlotools) ")


def test_checksums_hash_exact_types_and_sum_floats() -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    want = checksum(a)
    assert mismatch(want, checksum(a.copy())) is None
    nudged = a + np.float32(1e-7) * a  # last-bit differences: within the tolerance
    assert mismatch(want, checksum(nudged)) is None
    assert "sum" in (mismatch(want, checksum(a * 1.01)) or "")
    assert "shape" in (mismatch(want, checksum(a.reshape(4, 3))) or "")
    nan = a.copy()
    nan[0, 0] = np.nan
    assert "nan count" in (mismatch(want, checksum(nan)) or "")
    i = np.arange(6, dtype=np.int64)
    j = i.copy()
    j[5] += 1
    assert mismatch(checksum(i), checksum(i.copy())) is None
    assert "hashes differ" in (mismatch(checksum(i), checksum(j)) or "")


def test_a_baseline_from_this_cpu_holds_for_code_made_for_another(corpus: tuple[Path, Path], tmp_path: Path) -> None:
    """Outputs must not depend on the CPU the code is generated for: the same modules compiled
    for baseline x86-64 (no AVX) match the checksums recorded with the host's code."""
    import os
    import platform
    import subprocess
    import sys
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("x86-64 target levels")
    folder, baseline = corpus
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "GITHUB_STEP_SUMMARY")}
    env |= {"HLOTOOLS_TARGET_CPU": "x86-64", "HLOTOOLS_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-c", "from hlotools.cli.bench import main; main()", str(folder),
                        "--baseline", str(baseline), "--threshold", "1000%", "--repeat", "1", "--json"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert not doc["failed"] and len(doc["comparison"]) == 2
    assert all(v["status"] in ("ok", "improved") and not v["problems"] for v in doc["comparison"])


def test_a_module_over_its_timeout_fails_and_the_sweep_goes_on(tmp_path: Path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "a_long.hlo").write_text((ROOT / "testdata" / "run" / "long_while.hlo").read_text())
    (folder / "b_mlp.hlo").write_text(MLP.read_text())
    r = _bench(str(folder), "--timeout", "3", "--json")
    assert r.exit_code == 1
    long, mlp = json.loads(r.output)["modules"]
    assert long["error"] == f"{folder / 'a_long.hlo'}: error: timed out after 3 s (--timeout)"
    assert "error" not in mlp and mlp["kernels"] == 2
