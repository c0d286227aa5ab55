"""The installed console scripts, run as real processes: entry points, pipes and exit codes."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.paths import ROOT

BIN = Path(sys.executable).parent  # .venv/bin: the scripts live next to the interpreter
MODELS = ROOT / "testdata" / "models"


def run(cmd: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, shell=True, cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}"})


def test_opt_piped_into_run_matches_expected(tmp_path: Path) -> None:
    m = MODELS / "mlp2_relu"
    p = run(f"'{BIN}/hlo-opt' '{m}.hlo' | '{BIN}/hlo-run' - --inputs '{m}.inputs.npz' "
            f"--expected '{m}.expected.npz' --json", tmp_path)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["match"] is True


def test_scripts_report_errors_without_tracebacks(tmp_path: Path) -> None:
    (tmp_path / "bad.hlo").write_text("HloModule m\n\nENTRY e {\n  ROOT r = f32[] add(a, b)\n}\n")
    p = run(f"'{BIN}/hlo-translate' bad.hlo --emit=dot", tmp_path)
    assert p.returncode == 1 and p.stderr.startswith("bad.hlo:4:")
    assert "Traceback" not in p.stderr
    p = run(f"'{BIN}/hlo-run' '{MODELS / 'mlp2_relu.hlo'}' --random 0 --expected missing.npz", tmp_path)
    assert p.returncode == 1 and p.stderr == "missing.npz: error: no such file or directory\n"


def test_reader_closing_the_pipe_is_not_an_error(tmp_path: Path) -> None:
    p = run(f"'{BIN}/hlo-opt' '{MODELS / 'mlp2_relu.hlo'}' --style=long | head -n 1", tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("HloModule jit_mlp2_relu")
    assert p.stderr == ""
