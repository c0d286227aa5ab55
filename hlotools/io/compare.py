"""Comparing results with expected arrays, element by element.

Floats (and complex numbers) match when |a - e| <= atol + rtol * |e|, NaN matches NaN at
the same position and an infinity matches the same infinity; integers and preds must be
equal. The report names the worst element: the one furthest past its tolerance.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hlotools.ir.types import ELEMENT_TYPES

# Per element type defaults when the user gives no --rtol/--atol: a few ulps of headroom,
# because the interpreter and XLA may sum in different orders.
DEFAULT_TOLERANCE: dict[str, tuple[float, float]] = {
    "f64": (1e-9, 1e-12), "c128": (1e-9, 1e-12),
    "f32": (1e-4, 1e-5), "c64": (1e-4, 1e-5),
    "f16": (1e-2, 1e-3), "bf16": (2e-2, 1e-2),
}
F8_TOLERANCE = (1.5e-1, 5e-2)  # f8/f6/f4 types


def default_tolerance(type_name: str) -> tuple[float, float]:
    """(rtol, atol) for an XLA element type name; (0, 0) for integers and preds."""
    if type_name in DEFAULT_TOLERANCE:
        return DEFAULT_TOLERANCE[type_name]
    if type_name[:2] in ("f8", "f6", "f4"):
        return F8_TOLERANCE
    return (0.0, 0.0)


@dataclass
class Comparison:
    """One output checked against its expected array, with what differed."""
    name: str
    ok: bool
    mismatches: int
    size: int
    rtol: float
    atol: float
    worst_index: tuple[int, ...] | None = None
    actual: object = None
    expected: object = None
    abs_error: float = 0.0
    rel_error: float = 0.0

    def describe(self) -> str:
        tol = f"rtol={self.rtol:g}, atol={self.atol:g}" if self.rtol or self.atol else "exact"
        if self.ok:
            tail = "" if self.worst_index is None or not self.abs_error else \
                f", worst error {format_scalar(self.abs_error)} at {_index(self.worst_index)}"
            return f"{self.name}: match ({_elements(self.size)}, {tol}{tail})"
        assert self.worst_index is not None
        return (f"{self.name}: MISMATCH: {self.mismatches} of {_elements(self.size)} differ ({tol}); "
                f"worst at {_index(self.worst_index)}: actual {format_scalar(self.actual)}, expected "
                f"{format_scalar(self.expected)}, abs error {format_scalar(self.abs_error)}, rel error {format_scalar(self.rel_error)}")

    def to_json(self) -> dict:
        return {"name": self.name, "ok": self.ok, "mismatches": self.mismatches, "size": self.size,
                "rtol": self.rtol, "atol": self.atol,
                "worst_index": list(self.worst_index) if self.worst_index is not None else None,
                "actual": _json_scalar(self.actual), "expected": _json_scalar(self.expected),
                "abs_error": _json_scalar(self.abs_error), "rel_error": _json_scalar(self.rel_error)}


def _elements(n: int) -> str:
    return f"{n} element" + ("" if n == 1 else "s")


def _index(index: tuple[int, ...]) -> str:
    return "[" + ",".join(map(str, index)) + "]"


def format_scalar(v: object, digits: int = 7) -> str:
    """A scalar for people: HLO's true/false, floats and complex parts to `digits` significant digits."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    if isinstance(v, complex):
        return f"({v.real:.{digits}g}{v.imag:+.{digits}g}j)"
    return str(v)



def _json_scalar(v: object) -> object:
    """JSON has no NaN/Infinity: spell them as strings; complex numbers as [re, im]."""
    if isinstance(v, complex):
        return [_json_scalar(v.real), _json_scalar(v.imag)]
    if isinstance(v, float) and not np.isfinite(v):
        return "nan" if np.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def _py(x: np.generic) -> object:
    if np.iscomplexobj(x):
        return complex(x)
    if isinstance(x, (np.bool_, bool)):
        return bool(x)
    if np.issubdtype(np.asarray(x).dtype, np.integer):
        return int(x)
    return float(x)


def _as_wide(a: np.ndarray) -> np.ndarray:
    """bf16/f8 and friends as float64 (numpy arithmetic on them is slow or missing)."""
    if np.iscomplexobj(a):
        return a.astype(np.complex128)
    return a.astype(np.float64)


def compare(name: str, actual: np.ndarray, expected: np.ndarray, type_name: str,
            rtol: float | None = None, atol: float | None = None) -> Comparison:
    """Compare one output; shapes must already agree."""
    d_rtol, d_atol = default_tolerance(type_name)
    rtol = d_rtol if rtol is None else rtol
    atol = d_atol if atol is None else atol
    et = ELEMENT_TYPES.get(type_name)
    if et is not None and et.kind in ("pred", "signed", "unsigned"):  # int4 & co. are not np.integer
        return _compare_exact(name, actual.astype(np.int64), expected.astype(np.int64))
    return _compare_float(name, actual, expected, rtol, atol)


def _compare_exact(name: str, actual: np.ndarray, expected: np.ndarray) -> Comparison:
    bad = actual != expected
    if not bad.any():
        return Comparison(name, True, 0, int(actual.size), 0.0, 0.0)
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    a, e = int(actual[idx]), int(expected[idx])
    err = float(abs(a - e))
    return Comparison(name, False, int(bad.sum()), int(actual.size), 0.0, 0.0, idx, _py(actual[idx]),
                      _py(expected[idx]), err, err / abs(e) if e else float("inf"))


def _compare_float(name: str, actual: np.ndarray, expected: np.ndarray, rtol: float,
                   atol: float) -> Comparison:
    size = int(actual.size)
    if size == 0:
        return Comparison(name, True, 0, 0, rtol, atol)
    a, e = _as_wide(actual), _as_wide(expected)
    nan_e = np.isnan(e)
    with np.errstate(invalid="ignore", over="ignore"):
        same = (a == e) | (np.isnan(a) & nan_e)  # equal infinities and NaN-for-NaN count as matches
        errs = np.where(same, 0.0, np.abs(a - e))
        errs = np.where(np.isnan(errs), np.inf, errs)
        # an infinite (or NaN) expected value is matched only exactly: inf * rtol is no tolerance
        tol = atol + rtol * np.abs(np.where(np.isfinite(e), e, 0.0))
        ratio = np.where(tol > 0, errs / np.maximum(tol, 1e-300), np.where(errs > 0, np.inf, 0.0))
    bad = ((errs > tol) | ~np.isfinite(e)) & ~same
    flat = int(np.argmax(np.where(bad, ratio, -1.0))) if bad.any() else int(np.argmax(ratio))
    idx = tuple(int(i) for i in np.unravel_index(flat, a.shape))
    ae, ee = float(errs[idx]), e[idx]
    rel = ae / abs(ee) if ee != 0 and np.isfinite(ee) else (0.0 if ae == 0 else float("inf"))
    return Comparison(name, not bad.any(), int(bad.sum()), size, rtol, atol, idx,
                      _py(actual[idx]), _py(expected[idx]), ae, float(rel))
