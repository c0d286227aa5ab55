"""bench/run.py end to end on one tiny module, without the reference venv: the XLA columns are
skipped with a note, and the tables still have their columns and the module's row (figures are
never checked: they depend on the machine)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

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
