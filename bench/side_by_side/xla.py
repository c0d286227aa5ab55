"""Real XLA, live: ../shared/tools/xla_ref.py run in the reference venv (setup-ref.sh) on the same
module file and inputs as hlotools, multi-threaded and with --single-thread (one CPU, Eigen's
threading off). Its compile_s is XLA's own compile (StableHLO to executable, the CPU client's
creation included): the jax import, XLA's parse and the HLO-to-StableHLO conversion are not in
it. The import (jax and jaxlib, which loads XLA and its LLVM) is measured apart, once per run
(`load`): a process pays it once, before its first compile, as hlotools' "load" phase."""
from __future__ import annotations

import json
import os
import statistics
from pathlib import Path

from .catalog import Case
from .children import Child, run_child
from .ours import WARMUP
from .target import Target

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
XLA_REF = SHARED / "tools" / "xla_ref.py"


def venv_python() -> tuple[Path | None, str]:
    """The reference venv's python, or None and why not ($XLA_REF_VENV, else the default)."""
    venv = Path(os.environ.get("XLA_REF_VENV") or Path.home() / ".cache" / "hlotools-xla-ref" / "venv")
    python = venv / "bin" / "python"
    if not python.is_file():
        return None, f"no reference venv at {venv} (../shared/tools/setup-ref.sh makes it)"
    if not XLA_REF.is_file():
        return None, f"no {XLA_REF}"
    return python, ""


# What xla_ref.py's _load_jax does before XLA's first parse, timed after numpy (which both sides'
# processes import before their compile).
LOAD = """
import time
import numpy
t0 = time.perf_counter()
import jax
jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_enable_x64", True)
from jaxlib import _hlo, _jax
try:
    from jaxlib import lapack
    lapack._lapack.initialize()
except Exception:
    pass
print(time.perf_counter() - t0)
"""


def load(python: Path, repeat: int, timeout: float, target: Target) -> float | None:
    """Seconds of XLA's library load in a fresh process (the median of `repeat` processes), or
    None when the reference venv cannot say."""
    times = []
    for _ in range(repeat):
        child = run_child([str(python), "-c", LOAD], timeout=timeout, env=target.xla_env(dict(os.environ)))
        try:
            times.append(float(child.stdout.strip().splitlines()[-1]))
        except (ValueError, IndexError):
            return None
    return statistics.median(times)


def random_inputs(python: Path, case: Case, out: Path, timeout: float, target: Target) -> Path | None:
    """Inputs for a module without NAME.inputs.npz, drawn by xla_ref (--random 0) and saved for
    hlotools to read: both sides then run on the same arrays."""
    child = run_child([str(python), str(XLA_REF), "run", str(case.hlo), "--random", "0",
                       "--save-inputs", str(out), "--repeat", "1", "--warmup", "0"], timeout=timeout,
                      env=target.xla_env(dict(os.environ)))
    return out if child.ok and out.is_file() else None


def measure(python: Path, case: Case, inputs: Path | None, repeat: int, timeout: float, target: Target,
            single_thread: bool, out: Path | None = None) -> dict[str, object]:
    """One xla_ref run, its ISA capped to `target`'s: its figures (seconds) and the process's
    wall time and peak memory."""
    cmd = [str(python), str(XLA_REF)] + (["--single-thread"] if single_thread else [])
    cmd += ["run", str(case.hlo), "--repeat", str(repeat), "--warmup", str(WARMUP)]
    cmd += ["--inputs-npz", str(inputs)] if inputs is not None else ["--random", "0"]
    cmd += ["--out", str(out)] if out is not None else []
    child = run_child(cmd, timeout=timeout, env=target.xla_env(dict(os.environ)))
    return _figures(child)


def _figures(child: Child) -> dict[str, object]:
    got: dict[str, object] = {"process_s": child.wall_s, "peak_mb": child.peak_mb}
    if not child.ok:
        got["error"] = child.why()
        return got
    try:
        info = json.loads(child.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        got["error"] = "xla_ref printed no JSON"
        return got
    for key in ("parse_s", "convert_s", "compile_s", "run_s_median", "run_s_min", "repeat"):
        got[key] = info.get(key)
    return got
