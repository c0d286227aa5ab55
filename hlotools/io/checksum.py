"""Output checksums a regression gate can keep in a file and compare on another machine.

An integer, boolean or otherwise exact output compares by the SHA-256 of its bytes. A floating
point output keeps its hash too (to say "bit-identical" when it is), but compares by its sum
and absolute sum within a tolerance scaled by the absolute sum: a reassociated reduction or a
different libm changes the last bits, not the answer. Shape, dtype and the counts of NaN and
infinite elements always compare exactly.
"""
from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

DEFAULT_RTOL = 1e-3


def _is_float(array: np.ndarray) -> bool:
    kind = array.dtype.kind
    if kind in "fc":
        return True
    # bfloat16 and the f8 types of ml_dtypes are kind 'V'; they convert to float32 exactly
    return kind == "V" and array.dtype.itemsize <= 2 and array.dtype.names is None


def checksum(array: np.ndarray) -> dict[str, Any]:
    """A small JSON-able summary of one output: dtype, shape, SHA-256 of the bytes, and for
    floats the sum, absolute sum and NaN/inf counts (as float64)."""
    a = np.ascontiguousarray(array)
    doc: dict[str, Any] = {"dtype": str(a.dtype), "shape": list(a.shape),
                           "sha256": hashlib.sha256(a.tobytes()).hexdigest()[:32]}
    if _is_float(a):
        wide = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64).reshape(-1)
        parts = [wide.real, wide.imag] if a.dtype.kind == "c" else [wide]
        finite = [p[np.isfinite(p)] for p in parts]
        doc["sum"] = [float(f.sum()) for f in finite]
        doc["abs_sum"] = [float(np.abs(f).sum()) for f in finite]
        doc["nan"] = int(sum(np.isnan(p).sum() for p in parts))
        doc["inf"] = int(sum(np.isinf(p).sum() for p in parts))
    return doc


def mismatch(want: dict[str, Any], got: dict[str, Any], rtol: float = DEFAULT_RTOL) -> str | None:
    """Why `got` is not the output `want` summarised, or None when it matches."""
    for key in ("dtype", "shape"):
        if want.get(key) != got.get(key):
            return f"{key} {want.get(key)} -> {got.get(key)}"
    if want.get("sha256") == got.get("sha256"):
        return None
    if "sum" not in want or "sum" not in got:
        return "different values (exact type: the hashes differ)"
    for key in ("nan", "inf"):
        if want[key] != got[key]:
            return f"{key} count {want[key]} -> {got[key]}"
    for w_sum, g_sum, w_abs, g_abs in zip(want["sum"], got["sum"], want["abs_sum"], got["abs_sum"]):
        scale = max(w_abs, g_abs, math.ulp(1.0))
        if abs(w_abs - g_abs) > rtol * scale or abs(w_sum - g_sum) > rtol * scale:
            return f"sum {w_sum:.7g} -> {g_sum:.7g}, abs sum {w_abs:.7g} -> {g_abs:.7g} (rtol {rtol:g})"
    return None
