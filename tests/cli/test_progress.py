"""Progress lines on a terminal (a pseudo-terminal here), and none when piped or with -q:
hlo-opt's passes over a large module, hlo-run's wait (with LLVM's kernels), hlo-bench's sweep."""
from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.paths import ROOT

LONG = ROOT / "testdata" / "run" / "long_while.hlo"
MLP = ROOT / "testdata" / "models" / "mlp2_relu.hlo"
TOOLS = {"hlo-opt": "hlotools.cli.opt", "hlo-run": "hlotools.cli.run", "hlo-bench": "hlotools.cli.bench"}


def _command(tool: str, *args: str) -> list[str]:
    return [sys.executable, "-c", f"from {TOOLS[tool]} import main; main()", *args]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")}
    return env | {"TERM": "xterm", "COLUMNS": "150", "HLOTOOLS_CACHE_DIR": str(tmp_path / "cache")}


def _on_a_terminal(cmd: list[str], env: dict[str, str]) -> tuple[int, str]:
    """(exit code, everything written to the pseudo-terminal) of `cmd` run on one."""
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    out = b""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1)
        if not ready:
            if p.poll() is not None:
                break
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(timeout=60), out.decode("utf-8", "replace")


def _chain(tmp_path: Path, n: int = 1200) -> Path:
    lines = ["HloModule chain", "", "ENTRY main {", "  x0 = f32[16] parameter(0)"]
    lines += [f"  x{i} = f32[16] {'add' if i % 2 else 'multiply'}(x{i - 1}, x0)" for i in range(1, n)]
    lines += [f"  ROOT r = f32[16] negate(x{n - 1})", "}"]
    path = tmp_path / "chain.hlo"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_hlo_opt_shows_the_pass_running_on_a_large_module(tmp_path: Path) -> None:
    chain = _chain(tmp_path)
    code, seen = _on_a_terminal(_command("hlo-opt", str(chain), "-O2", "-o", str(tmp_path / "o.hlo")),
                                _env(tmp_path))
    assert code == 0, seen
    assert "chain: pass " in seen and " instructions)" in seen  # which passes: as refreshes fall
    code, seen = _on_a_terminal(_command("hlo-opt", str(chain), "-O2", "-q", "-o", str(tmp_path / "o.hlo")),
                                _env(tmp_path))
    assert code == 0 and seen == ""
    piped = subprocess.run(_command("hlo-opt", str(chain), "-O2", "-o", str(tmp_path / "o.hlo")),
                           capture_output=True, text=True, env=_env(tmp_path), timeout=120)
    assert piped.returncode == 0 and piped.stderr == ""


def test_hlo_opt_counts_the_files_of_a_sweep(tmp_path: Path) -> None:
    files = []
    for k in range(12):
        files.append(tmp_path / f"m{k}.hlo")
        files[-1].write_text(MLP.read_text())
    code, seen = _on_a_terminal(_command("hlo-opt", *map(str, files), "-O2", "-o", str(tmp_path / "o.hlo")),
                                _env(tmp_path))
    assert code == 0, seen
    assert "hlo-opt " in seen and "/12" in seen
    code, seen = _on_a_terminal(_command("hlo-opt", *map(str, files[:3]), "-O2", "-o", str(tmp_path / "o.hlo")),
                                _env(tmp_path))
    assert code == 0 and seen == ""  # three files: over before a line is worth drawing


def test_hlo_opt_shows_no_progress_for_a_small_module(tmp_path: Path) -> None:
    code, seen = _on_a_terminal(_command("hlo-opt", str(MLP), "-O2", "-o", str(tmp_path / "o.hlo")),
                                _env(tmp_path))
    assert code == 0 and seen == ""


def test_hlo_run_shows_a_spinner_while_it_works_and_none_when_piped(tmp_path: Path) -> None:
    code, seen = _on_a_terminal(_command("hlo-run", str(LONG), "--random", "0", "--timeout", "2"), _env(tmp_path))
    assert code == 124
    assert f"running {LONG}" in seen and "0:00:0" in seen  # the spinner's text and elapsed time
    piped = subprocess.run(_command("hlo-run", str(LONG), "--random", "0", "--timeout", "2"),
                           capture_output=True, text=True, env=_env(tmp_path), timeout=60)
    assert piped.returncode == 124
    assert piped.stderr.splitlines() == [f"error: timed out after 2 s (--timeout) while running {LONG}"]


@pytest.mark.parametrize("quiet", [False, True])
def test_hlo_bench_counts_the_modules_of_a_sweep(tmp_path: Path, quiet: bool) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    for name in ("a", "b", "c"):
        (folder / f"{name}.hlo").write_text(MLP.read_text())
    args = [str(folder), "--repeat", "1", "--json", *(["-q"] if quiet else [])]
    code, seen = _on_a_terminal(_command("hlo-bench", *args), _env(tmp_path))
    assert code == 0, seen
    assert ("/3" in seen and "measuring" in seen) is not quiet  # "2/3" next to the bar
    if quiet:
        return
    piped = subprocess.run(_command("hlo-bench", *args), capture_output=True, text=True, env=_env(tmp_path),
                           timeout=120)
    assert piped.returncode == 0 and piped.stderr == ""
