"""hlo-opt and hlo-translate take --timeout as hlo-run does: past it one line and exit 124,
within it the output is byte for byte what the command writes without it."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.paths import ROOT

OPT = [sys.executable, "-c", "from hlotools.cli.opt import main; main()"]
TRANSLATE = [sys.executable, "-c", "from hlotools.cli.translate import main; main()"]
SMALL = ROOT / "testdata" / "models" / "mlp2_relu.hlo"


def _long_module(path: Path, n: int = 40000) -> Path:
    """A chain of n adds: seconds of parsing and passes, far more than the timeouts below."""
    lines = ["HloModule chain", "", "ENTRY main {", "  a0 = f32[8] parameter(0)"]
    lines += [f"  a{i} = f32[8] add(a{i - 1}, a0)" for i in range(1, n)]
    lines += [f"  ROOT r = f32[8] negate(a{n - 1})", "}"]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("command, extra, doing", [
    (OPT, ["-O2"], "optimizing"),
    (TRANSLATE, ["--emit=llvm"], "translating"),
])
def test_past_the_timeout_one_line_and_124(tmp_path: Path, command: list[str], extra: list[str], doing: str) -> None:
    module = _long_module(tmp_path / "chain.hlo")
    start = time.monotonic()
    r = subprocess.run([*command, str(module), *extra, "--timeout", "0.3"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 124, r.stderr
    assert time.monotonic() - start < 20
    assert r.stderr.strip().splitlines() == [f"error: timed out after 0.3 s (--timeout) while {doing} {module}"]
    assert r.stdout == ""


@pytest.mark.parametrize("command, extra", [
    (OPT, ["-O2"]),
    (OPT, ["-O2", "--json"]),
    (TRANSLATE, ["--emit=hlo", "--style=long"]),
])
def test_within_the_timeout_the_output_is_unchanged(command: list[str], extra: list[str]) -> None:
    plain = subprocess.run([*command, str(SMALL), *extra], capture_output=True, text=True, timeout=120)
    timed = subprocess.run([*command, str(SMALL), *extra, "--timeout", "60"], capture_output=True, text=True,
                           timeout=120)
    assert plain.returncode == timed.returncode == 0, timed.stderr
    if "--json" in extra:  # pass times differ from run to run; the rest does not
        import json
        a, b = json.loads(plain.stdout), json.loads(timed.stdout)
        assert a.keys() == b.keys()
    else:
        assert timed.stdout == plain.stdout


def test_bad_input_under_a_timeout_is_reported_as_without_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\nENTRY e {\n  ROOT x = f32[2] bogus()\n}\n")
    for command in (OPT, TRANSLATE):
        plain = subprocess.run([*command, str(bad)], capture_output=True, text=True, timeout=120)
        r = subprocess.run([*command, str(bad), "--timeout", "60"], capture_output=True, text=True, timeout=120)
        assert r.returncode == plain.returncode == 1, r.stderr
        assert r.stderr == plain.stderr and "Traceback" not in r.stderr
        assert r.stderr.startswith(f"{bad}:3:19: error:")


def test_timeout_must_be_positive() -> None:
    for command in (OPT, TRANSLATE):
        r = subprocess.run([*command, str(SMALL), "--timeout", "0"], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "--timeout" in r.stderr
