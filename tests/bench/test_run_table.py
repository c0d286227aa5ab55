"""bench/run.py end to end on one tiny module, without the reference venv: the XLA columns are
skipped with a note, and the tables still have their columns and the module's row (figures are
never checked: they depend on the machine)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

RUN = Path(__file__).resolve().parents[2] / "bench" / "run.py"
ADD = """HloModule add4

ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT c = f32[4] add(a, b)
}
"""


def test_dry_run_without_xla_prints_both_tables(tmp_path: Path) -> None:
    hlo = tmp_path / "tiny_add.hlo"
    hlo.write_text(ADD)
    np.savez(tmp_path / "tiny_add.inputs.npz", in0=np.arange(4, dtype=np.float32), in1=np.ones(4, np.float32))
    report = tmp_path / "report.json"
    env = {"XLA_REF_VENV": str(tmp_path / "no-venv"), "PATH": "/usr/bin:/bin",
           "HLOTOOLS_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, str(RUN), "--dry", "--corpus", "none", "--models", "none",
                        "--file", str(hlo), "--json", str(report)],
                       capture_output=True, text=True, env=env, timeout=240)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("host CPU: ") and "CPUs usable" in lines[0]
    assert any(line.startswith("note: no reference venv at ") and "XLA columns skipped" in line for line in lines)
    for head in ("module", "instr", "ours ms", "XLA ms", "ratio", "1T ours", "1T XLA", "agree",
                 "cold s", "passes", "codegen", "llvm", "warm ms", "peak MB"):
        assert any(head in line and line.startswith("module ") for line in lines), head
    rows = [line for line in lines if line.startswith("tiny_add ")]
    assert len(rows) == 2, r.stdout  # one in each table
    run_cells = [c.strip() for c in rows[0].split("|")]
    assert float(run_cells[1].split()[0]) > 0  # our median run time
    assert run_cells[2].split() == ["-", "-"]  # no XLA
    assert lines[-1].startswith("total time of this run: ")
    doc = json.loads(report.read_text())
    (row,) = doc["rows"]
    assert row["module"] == "tiny_add" and row["instructions"] == 3 and row["xla"] == {}
    assert row["ours"]["cold"]["compile_s"] > 0 and set(row["ours"]["cold"]["phases_s"]) >= {"passes", "llvm"}
    assert row["ours"]["mt"]["warm_s"] > 0 and row["ratios"] == {}


X86_V3 = {"avx2", "fma"} <= set((Path("/proc/cpuinfo").read_text().split("flags")[1:] or [""])[0].split()) \
    if Path("/proc/cpuinfo").is_file() else False


def _fake_xla_venv(tmp_path: Path) -> tuple[Path, Path]:
    """A 'reference venv' whose python records the XLA_FLAGS it was given and prints figures
    as xla_ref.py does (one JSON line)."""
    log = tmp_path / "xla_flags.log"
    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\necho "XLA_FLAGS=$XLA_FLAGS" >> {log}\n'
                      'echo \'{"compile_s": 0.1, "run_s_median": 0.001, "run_s_min": 0.001, "repeat": 1}\'\n')
    python.chmod(0o755)
    return python.parent.parent, log


def _dry(tmp_path: Path, *extra: str, venv: Path | None = None) -> subprocess.CompletedProcess[str]:
    hlo = tmp_path / "tiny_add.hlo"
    hlo.write_text(ADD)
    np.savez(tmp_path / "tiny_add.inputs.npz", in0=np.arange(4, dtype=np.float32), in1=np.ones(4, np.float32))
    env = {"XLA_REF_VENV": str(venv or tmp_path / "no-venv"), "PATH": "/usr/bin:/bin",
           "HLOTOOLS_CACHE_DIR": str(tmp_path / "cache"), "XLA_FLAGS": "--xla_cpu_enable_fast_math=false"}
    return subprocess.run([sys.executable, str(RUN), "--dry", "--corpus", "none", "--models", "none",
                           "--file", str(hlo), "--json", str(tmp_path / "report.json"), *extra],
                          capture_output=True, text=True, env=env, timeout=240)


@pytest.mark.skipif(not X86_V3, reason="x86-64-v3 needs an AVX2 + FMA host")
def test_target_cpu_reaches_both_sides(tmp_path: Path) -> None:
    venv, log = _fake_xla_venv(tmp_path)
    r = _dry(tmp_path, "--target-cpu", "x86-64-v3", venv=venv)
    assert r.returncode == 0, r.stderr
    head = r.stdout.splitlines()[0]
    assert head.startswith("host CPU: ") and "; target: x86-64-v3 (hlotools: x86-64-v3, AVX2, FMA; " \
        "XLA: XLA_FLAGS=--xla_cpu_max_isa=AVX2)" in head, head
    # XLA's children: the cap after the flags they were given
    assert log.read_text().splitlines() == ["XLA_FLAGS=--xla_cpu_enable_fast_math=false --xla_cpu_max_isa=AVX2"]
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["target"]["cpu"] == "x86-64-v3" and doc["target"]["xla_max_isa"] == "AVX2"
    assert "+avx2" in doc["target"]["features"].split(",") and "+avx512f" not in doc["target"]["features"]
    (row,) = doc["rows"]
    assert row["ours"]["cold"]["target_cpu"] == row["ours"]["mt"]["target_cpu"] == "x86-64-v3"  # hlo-run's own word
    assert row["xla"]["mt"]["run_s_median"] == 0.001 and row["ratios"]["run"] > 0
    assert row["ratios"]["run_min"] == row["ours"]["mt"]["run_s_min"] / 0.001  # the minima's ratio too
    assert any(line.startswith("geometric mean hlotools/XLA, run (minima): ") for line in r.stdout.splitlines())


def test_host_target_passes_no_cap(tmp_path: Path) -> None:
    venv, log = _fake_xla_venv(tmp_path)
    r = _dry(tmp_path, venv=venv)
    assert r.returncode == 0, r.stderr
    assert "; target: host (hlotools: " in r.stdout.splitlines()[0]
    assert log.read_text().splitlines() == ["XLA_FLAGS=--xla_cpu_enable_fast_math=false"]
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["target"]["cpu"] == "host" and doc["target"]["xla_max_isa"] is None
    assert doc["rows"][0]["ours"]["cold"]["target_cpu"] == doc["target"]["llvm_cpu"] != "x86-64-v3"


def test_compile_ratio_leaves_out_both_library_loads(tmp_path: Path) -> None:
    """XLA's compile_s is without its jax import, so the ratio is ours without our "load"
    phase; --dry measures no XLA load, so there is no '+load' ratio."""
    venv, _ = _fake_xla_venv(tmp_path)
    r = _dry(tmp_path, venv=venv)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "report.json").read_text())
    cold = doc["rows"][0]["ours"]["cold"]
    assert cold["phases_s"]["load"] == cold["load_s"] > 0  # llvmlite's import, at least
    assert cold["compile_without_load_s"] == cold["compile_s"] - cold["load_s"]
    assert doc["rows"][0]["ratios"]["compile"] == cold["compile_without_load_s"] / 0.1
    assert "compile_load" not in doc["rows"][0]["ratios"] and doc["xla_load_s"] is None
    assert any("+load" in line and line.startswith("module ") for line in r.stdout.splitlines())


def test_unknown_target_is_one_line_usage_error(tmp_path: Path) -> None:
    r = _dry(tmp_path, "--target-cpu", "no-such-cpu")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().splitlines() == [r.stderr.strip()]
    assert r.stderr.startswith("bench/run.py: --target-cpu no-such-cpu: HLOTOOLS_TARGET_CPU=no-such-cpu: ")


def test_plus_load_ratio_adds_xla_load_to_its_compile() -> None:
    sys.path.insert(0, str(RUN.parent))
    try:
        from run import _ratios  # bench/run.py
    finally:
        sys.path.remove(str(RUN.parent))
    row = {"ours": {"cold": {"compile_s": 0.3, "load_s": 0.1, "compile_without_load_s": 0.2}},
           "xla": {"mt": {"compile_s": 0.05}}}
    got = _ratios(row, 0.45)
    assert got["compile"] == 0.2 / 0.05 and got["compile_load"] == 0.3 / 0.5
