"""The largest differences between two backends' results (hlo-run --compare).

io/compare.py decides match or mismatch and names the element furthest past its
tolerance; --compare also wants the plain extremes, because two backends that agree still
differ by rounding: the largest absolute difference and the largest relative difference of
each output, with their indices (NaN against NaN and equal infinities count as no difference).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Extreme:
    """A difference and the index where it occurs (the largest absolute or relative one)."""
    value: float
    index: tuple[int, ...]

    def text(self) -> str:
        return f"{self.value:.4g} at [{','.join(map(str, self.index))}]"

    def to_json(self) -> dict:
        v: object = self.value if np.isfinite(self.value) else ("inf" if self.value > 0 else "nan")
        return {"value": v, "index": list(self.index)}


@dataclass(frozen=True)
class Difference:
    """The largest absolute and relative differences of one output (None when it is empty)."""

    absolute: Extreme | None
    relative: Extreme | None

    def text(self) -> str:
        if self.absolute is None or self.relative is None:
            return "no elements"
        return f"largest difference: abs {self.absolute.text()}, rel {self.relative.text()}"

    def to_json(self) -> dict:
        return {"abs": self.absolute.to_json() if self.absolute else None,
                "rel": self.relative.to_json() if self.relative else None}


def _wide(a: np.ndarray) -> np.ndarray:
    if np.iscomplexobj(a):
        return a.astype(np.complex128)
    if a.dtype == np.bool_:
        return a.astype(np.int64).astype(np.float64)
    return a.astype(np.float64)  # integers beyond 2**53 lose low bits: fine for a report


def largest_difference(actual: np.ndarray, reference: np.ndarray) -> Difference:
    """Extremes of |a - r| and |a - r| / |r| over every element (relative: inf where r is 0
    and a is not)."""
    if actual.size == 0:
        return Difference(None, None)
    a, r = _wide(np.asarray(actual)), _wide(np.asarray(reference))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        same = (a == r) | (np.isnan(a) & np.isnan(r))
        diff = np.where(same, 0.0, np.abs(a - r))
        diff = np.where(np.isnan(diff), np.inf, diff)  # NaN against a number: as far apart as it gets
        mag = np.abs(r)
        rel = np.where(diff == 0, 0.0, np.where(mag > 0, diff / np.where(mag > 0, mag, 1.0), np.inf))
        rel = np.where(np.isnan(rel), np.inf, rel)
    return Difference(_extreme(diff), _extreme(rel))


def _extreme(values: np.ndarray) -> Extreme:
    flat = int(np.argmax(values))
    index = tuple(int(i) for i in np.unravel_index(flat, values.shape))
    return Extreme(float(values.reshape(-1)[flat]), index)
