"""Child processes with a time budget, their wall time and their peak memory.

Every measurement of bench/run.py is a whole process (hlo-run, xla_ref.py): a compile that
hangs is killed at its budget and reported as a timeout instead of stopping the run, and
wait4's rusage gives the child's own peak resident set (getrusage(RUSAGE_CHILDREN) would give
the largest of all children so far)."""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass


@dataclass
class Child:
    """How one child process ended."""

    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    peak_mb: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def why(self) -> str:
        """One line saying why it failed: 'timeout', or its last line of stderr."""
        if self.timed_out:
            return "timeout"
        lines = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        return (lines[-1] if lines else f"exit {self.returncode}")[:120]


def run_child(cmd: list[str], *, timeout: float, env: dict[str, str] | None = None,
              cpus: set[int] | None = None) -> Child:
    """Run `cmd` (pinned to `cpus` if given) for at most `timeout` seconds; its process group is
    killed past that. Output goes through files, so a chatty child cannot block on a pipe."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, start_new_session=True,
                                stdin=subprocess.DEVNULL, preexec_fn=pin)
        deadline, pause, timed_out = start + timeout, 0.002, False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(pause)
            pause = min(0.05, pause * 2)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        if not timed_out:
            _kill_group(proc.pid)  # what the child left running (a background link) ends with it
        out.seek(0)
        err.seek(0)
        return Child(proc.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"),
                     wall, usage.ru_maxrss / 1024, timed_out)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
