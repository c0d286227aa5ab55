"""A few numbers that tell what an output looks like without printing all of it.

NaNs are counted, not averaged; for complex outputs min and max are magnitudes (|z|) and
the mean is complex.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hlotools.io.compare import _json_scalar, format_scalar

PREVIEW = 6


@dataclass
class Summary:
    """What hlo-run shows of one result leaf: shape, first values, statistics."""
    name: str
    shape: str  # f32[32,64]
    dtype: str  # numpy/ml_dtypes name: float32, bfloat16, ...
    size: int
    first: list[object] = field(default_factory=list)
    min: object = None
    max: object = None
    mean: object = None
    nan_count: int = 0

    def values_text(self) -> str:
        if self.dtype == "token":
            return ""
        more = ", ..." if self.size > len(self.first) else ""
        return "[" + ", ".join(_fmt(v) for v in self.first) + more + "]"

    def stat_cells(self) -> list[str]:
        """min, max, mean, NaN count as text ('' when the output is empty or all NaN)."""
        if self.min is None:
            return ["", "", "", str(self.nan_count) if self.nan_count else ""]
        return [_fmt(self.min), _fmt(self.max), _fmt(self.mean), str(self.nan_count)]

    def stats_text(self) -> str:
        if self.min is None:
            return f"nan {self.nan_count}" if self.nan_count else ""
        lo, hi, mean, nan = self.stat_cells()
        return f"min {lo}  max {hi}  mean {mean}  nan {nan}"

    def to_json(self) -> dict:
        return {"name": self.name, "shape": self.shape, "dtype": self.dtype, "size": self.size,
                "first": [_json_scalar(v) for v in self.first], "min": _json_scalar(self.min),
                "max": _json_scalar(self.max), "mean": _json_scalar(self.mean), "nan_count": self.nan_count}


def _fmt(v: object) -> str:
    return format_scalar(v, 6)


def _scalar(x: np.generic) -> object:
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.complexfloating):
        return complex(x)
    return float(x)


def summarize(name: str, array: np.ndarray, shape_text: str) -> Summary:
    """Shape, first values and min/max/mean/NaN count (NaNs left out of the statistics)."""
    flat = array.reshape(-1)
    s = Summary(name, shape_text, str(array.dtype), int(flat.size),
                [_scalar(v) for v in flat[:PREVIEW]])
    if flat.size == 0:
        return s
    if array.dtype == np.bool_:
        s.min, s.max, s.mean = bool(flat.min()), bool(flat.max()), float(flat.mean())
        return s
    if np.issubdtype(array.dtype, np.integer):
        s.min, s.max, s.mean = int(flat.min()), int(flat.max()), float(flat.mean(dtype=np.float64))
        return s
    with np.errstate(all="ignore"):  # inf - inf in the mean is a NaN, not a warning
        _float_stats(s, flat.astype(np.complex128 if np.iscomplexobj(flat) else np.float64))
    return s


def _float_stats(s: Summary, wide: np.ndarray) -> None:
    nan = np.isnan(wide)
    s.nan_count = int(nan.sum())
    rest = wide[~nan]
    if rest.size == 0:
        return
    if np.iscomplexobj(rest):
        mags = np.abs(rest)
        s.min, s.max, s.mean = float(mags.min()), float(mags.max()), complex(rest.mean())
    else:
        s.min, s.max, s.mean = float(rest.min()), float(rest.max()), float(rest.mean())
