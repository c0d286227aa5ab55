"""Do hlotools' outputs agree with XLA's? Both processes saved theirs (out0, out1, ...); floats
compare with a tolerance scaled to each output's magnitude (a 24-layer training step sums in a
different order than XLA does), everything else bit for bit."""
from __future__ import annotations

from pathlib import Path

import numpy as np

RTOL = 1e-3
ATOL_OF_SCALE = 1e-4  # absolute tolerance per unit of the output's largest finite magnitude


def compare(ours: Path, xla: Path) -> dict[str, object]:
    """{'ok', 'max_diff' (relative to each output's scale, the worst), 'bad' (first failing key)}."""
    a, b = np.load(ours), np.load(xla)
    if sorted(a.files) != sorted(b.files):
        return {"ok": False, "bad": f"outputs {sorted(a.files)} vs {sorted(b.files)}"}
    worst, bad = 0.0, ""
    for key in sorted(b.files, key=lambda k: (len(k), k)):
        x, y = a[key], b[key]
        if x.shape != y.shape or x.dtype != y.dtype:
            bad = bad or f"{key}: {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}"
            continue
        if x.dtype.kind not in "fc":  # ints, preds, and bf16/f8 stored as raw bytes: exact
            if x.tobytes() != y.tobytes():
                bad = bad or f"{key}: {int(np.count_nonzero(x != y))} elements differ"
            continue
        xf, yf = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64), y.astype(
            np.complex128 if y.dtype.kind == "c" else np.float64)
        fin = np.isfinite(xf) & np.isfinite(yf)
        same_special = ~fin & ((xf == yf) | (np.isnan(xf) & np.isnan(yf)))
        scale = float(np.max(np.abs(yf[fin]))) if fin.any() else 0.0
        diff = np.abs(xf - yf)
        within = fin & (diff <= ATOL_OF_SCALE * max(scale, 1e-30) + RTOL * np.abs(yf))
        if scale:
            worst = max(worst, float(np.max(np.where(fin, diff, 0.0))) / scale)
        if not np.all(within | same_special):
            bad = bad or f"{key}: {int(np.count_nonzero(~(within | same_special)))} elements differ"
    return {"ok": not bad, "max_diff": worst, "bad": bad}
