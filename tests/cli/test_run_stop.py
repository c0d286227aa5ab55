"""hlo-run can be stopped: Ctrl-C inside generated code exits at once with 130, --timeout with
124 and one line (testdata/run/long_while.hlo runs a while loop of 10^10 iterations)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.paths import ROOT

LONG = ROOT / "testdata" / "run" / "long_while.hlo"
RUN = [sys.executable, "-c", "from hlotools.cli.run import main; main()"]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    env["HLOTOOLS_CACHE_DIR"] = str(tmp_path / "cache")
    return env


def test_ctrl_c_stops_a_long_jit_run_at_once(tmp_path: Path) -> None:
    p = subprocess.Popen([*RUN, str(LONG), "--random", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=_env(tmp_path))
    time.sleep(1.5)  # compiled by now (or still compiling: Ctrl-C stops that as well)
    assert p.poll() is None, p.communicate()
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0
    assert p.returncode == 130, err
    assert err.strip().splitlines()[-1] == "interrupted" and "Traceback" not in err
    assert out == ""


def test_timeout_stops_a_run_with_one_line_and_124(tmp_path: Path) -> None:
    start = time.monotonic()
    r = subprocess.run([*RUN, str(LONG), "--random", "0", "--timeout", "1"], capture_output=True, text=True,
                       env=_env(tmp_path), timeout=60)
    assert r.returncode == 124, r.stderr
    assert time.monotonic() - start < 10
    assert r.stderr.strip().splitlines() == [f"error: timed out after 1 s (--timeout) while running {LONG}"]
    assert r.stdout == ""


def test_a_run_within_its_timeout_is_unchanged(tmp_path: Path) -> None:
    r = subprocess.run([*RUN, str(ROOT / "testdata" / "models" / "mlp2_relu.hlo"), "--random", "0", "--timeout",
                        "60"], capture_output=True, text=True, env=_env(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("out0: f32[32,64]")


def test_timeout_must_be_positive() -> None:
    r = subprocess.run([*RUN, str(LONG), "--random", "0", "--timeout", "0"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "--timeout" in r.stderr
