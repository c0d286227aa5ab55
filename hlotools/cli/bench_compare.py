"""hlo-bench's verdicts: one module's figures against its baseline.

Times (compile total, run median) compare as ratios: a regression is slower by more than the
threshold AND by more than a noise floor in milliseconds (a 30 us run twice as slow under a
loaded machine is not a finding). Kernel count and peak bytes compare exactly (more is a
regression, fewer an improvement to record with --save). An output whose checksum does not
match (io/checksum.py: hashes for exact types, sums within a tolerance for floats) is a failure,
and so is a module that no longer compiles and runs (one that failed in the baseline too is not
news), or that the baseline has and the run lacks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hlotools.io.checksum import DEFAULT_RTOL, mismatch

TIME_METRICS = ("compile", "run")
EXACT_METRICS = (("kernels", "kernels"), ("peak_bytes", "peak bytes"))
COLUMNS = ("module", "compile ms", "run ms", "kernels", "peak bytes", "outputs", "verdict")


@dataclass(frozen=True)
class Thresholds:
    """When a difference is a finding."""
    time: float = 0.10  # relative: 0.10 is 10% slower
    floor_ms: float = 1.0  # absolute: smaller time differences are noise
    checksum_rtol: float = DEFAULT_RTOL


@dataclass
class Verdict:
    """One module's comparison: its status, table cells and the reasons behind the status."""
    key: str
    status: str  # ok | regressed | improved | new | missing | error
    cells: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    improvements: list[str] = field(default_factory=list)
    time_only: bool = False  # every problem is a time (worth measuring again)

    @property
    def failed(self) -> bool:
        return self.status in ("regressed", "missing", "error")

    def to_json(self) -> dict[str, Any]:
        return {"module": self.key, "status": self.status, "problems": self.problems,
                "improvements": self.improvements}


def time_ms(doc: dict[str, Any], metric: str) -> float | None:
    if metric == "compile":
        return doc.get("compile_ms", {}).get("total")
    return doc.get("run_ms")


def merge_min(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The better of two measurements of one module, time by time (min of medians)."""
    if "error" in a or "error" in b:
        return a if "error" in b else b
    out = dict(a)
    out["run_ms"] = min(a["run_ms"], b["run_ms"])
    out["run_min_ms"] = min(a["run_min_ms"], b["run_min_ms"])
    if "compile_ms" in a and "compile_ms" in b:
        # whole measurement's phases, not a mix: the one with the lower total
        out["compile_ms"] = min(a["compile_ms"], b["compile_ms"], key=lambda c: c.get("total", 0.0))
    return out


def compare(base: dict[str, Any] | None, cur: dict[str, Any] | None, th: Thresholds) -> Verdict:
    key = (cur or base or {}).get("key", "?")
    if cur is None:
        return Verdict(key, "missing", {"verdict": "missing"}, ["in the baseline, not measured now"])
    if "error" in cur:
        if base is not None and "error" in base:  # a known failure the baseline records: no news
            return Verdict(key, "ok", {"verdict": "fails as in the baseline"})
        return Verdict(key, "error", {"verdict": "error"}, [cur["error"]])
    v = Verdict(key, "ok", measurement_cells(cur))
    if base is None:
        v.status = v.cells["verdict"] = "new"
        return v
    if "error" in base:
        v.improvements.append(f"the baseline failed ({base['error']}); it runs now")
    else:
        _compare_times(base, cur, th, v)
        _compare_exact(base, cur, v)
        _compare_outputs(base, cur, th, v)
    time_problems = [p for p in v.problems if p.startswith(TIME_METRICS)]
    v.time_only = bool(v.problems) and len(time_problems) == len(v.problems)
    v.status = "regressed" if v.problems else "improved" if v.improvements else "ok"
    v.cells["verdict"] = v.status
    return v


def _compare_times(base: dict[str, Any], cur: dict[str, Any], th: Thresholds, v: Verdict) -> None:
    for metric in TIME_METRICS:
        was, now = time_ms(base, metric), time_ms(cur, metric)
        if was is None or now is None:
            continue
        ratio = now / was if was > 0 else float("inf") if now > 0 else 1.0
        v.cells[f"{metric} ms"] = f"{was:.3g} -> {now:.3g} ({_percent(ratio)})"
        if ratio > 1 + th.time and now - was > th.floor_ms:
            v.problems.append(f"{metric} {_percent(ratio)} ({was:.3g} -> {now:.3g} ms)")
        elif ratio < 1 / (1 + th.time) and was - now > th.floor_ms:
            v.improvements.append(f"{metric} {_percent(ratio)}")


def _compare_exact(base: dict[str, Any], cur: dict[str, Any], v: Verdict) -> None:
    for field_name, label in EXACT_METRICS:
        was, now = base.get(field_name), cur.get(field_name)
        if was is None or now is None:
            continue
        if was != now:
            v.cells[label] = f"{was} -> {now}"
            (v.problems if now > was else v.improvements).append(f"{label} {was} -> {now}")
    if base.get("backend") != cur.get("backend"):
        v.problems.append(f"backend {base.get('backend')} -> {cur.get('backend')}")


def _compare_outputs(base: dict[str, Any], cur: dict[str, Any], th: Thresholds, v: Verdict) -> None:
    want, got = base.get("outputs", []), cur.get("outputs", [])
    if len(want) != len(got):
        v.problems.append(f"outputs: {len(want)} -> {len(got)}")
        v.cells["outputs"] = "DIFFER"
        return
    bad = [(w["name"], why) for w, g in zip(want, got) if (why := mismatch(w, g, th.checksum_rtol)) is not None]
    for name, why in bad:
        v.problems.append(f"output {name}: {why}")
    v.cells["outputs"] = f"{len(bad)} of {len(want)} DIFFER" if bad else f"{len(want)} match"


def measurement_cells(doc: dict[str, Any]) -> dict[str, str]:
    """A measurement's own figures as table cells (no baseline)."""
    compile_ms = time_ms(doc, "compile")
    return {"compile ms": "-" if compile_ms is None else f"{compile_ms:.3g}",
            "run ms": f"{doc['run_ms']:.3g}",
            "kernels": str(doc.get("kernels", "-")), "peak bytes": str(doc.get("peak_bytes", "-")),
            "outputs": str(len(doc.get("outputs", []))), "verdict": "measured"}


def _percent(ratio: float) -> str:
    return f"{(ratio - 1) * 100:+.1f}%" if ratio != float("inf") else "+inf%"


def summary_line(verdicts: list[Verdict], compared: bool) -> str:
    n = len(verdicts)
    counts = {s: sum(v.status == s for v in verdicts) for s in ("regressed", "missing", "error", "improved", "new")}
    shown = ", ".join(f"{c} {s}" for s, c in counts.items() if c)
    head = f"{n} module{'s' if n != 1 else ''}"
    if not compared:
        return head + " measured" + (f" ({shown})" if shown else "")
    failed = sum(v.failed for v in verdicts)
    return f"{head}: " + (f"FAIL ({shown})" if failed else f"ok ({shown or 'no changes beyond the thresholds'})")
