"""Running several HLO files through real XLA CPU in one process (xla_ref.py's venv): each
file NAME.hlo with its arguments in NAME.in.npz (in0, in1, ...); per file, each output's dtype,
dims and bytes, or XLA's error message. A file that kills XLA ends the child; another one then
starts on the files after it."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.paths import SHARED

XLA_PYTHON = Path.home() / ".cache/hlotools-xla-ref/venv/bin/python"
XLA_REF = SHARED / "tools" / "xla_ref.py"
AVAILABLE = XLA_PYTHON.exists() and XLA_REF.exists()

_DRIVER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import xla_ref as X
for path in sys.argv[2:]:
    try:
        module, _ = X.timed_parse(X.read_text(path), path, 1)
        z = np.load(path[:-4] + ".in.npz")
        args = X.check_inputs([z[f"in{i}"] for i in range(len(z.files))], X.entry_params(module))
        exe, _, _ = X.compile_module(module, path)
        outs, _ = X.execute(exe, args, 1, 0)
        print(json.dumps([[str(o.dtype), list(o.shape), o.tobytes().hex()] for o in outs]), flush=True)
    except Exception as e:
        print(json.dumps(str(e)), flush=True)
"""


def run_in_xla(paths: list[Path], timeout: int = 900) -> list[list[list] | str]:
    """One result per path: [[dtype, dims, hex bytes], ...] for its outputs, or XLA's error (a str)."""
    results: list[list[list] | str] = []
    while len(results) < len(paths):
        rest = [str(p) for p in paths[len(results):]]
        run = subprocess.run([str(XLA_PYTHON), "-c", _DRIVER, str(XLA_REF.parent), *rest],
                             capture_output=True, text=True, timeout=timeout)
        results += [json.loads(line) for line in run.stdout.splitlines() if line.strip().startswith(("[", '"'))]
        if len(results) < len(paths):  # the next file killed XLA
            results.append(f"XLA died (exit {run.returncode}): {run.stderr[-300:]}")
    return results
