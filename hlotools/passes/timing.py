"""--time-passes: per-pass wall time, runs and instruction counts, as a table or JSON.

Rows aggregate every application of a pass (a fixed-point group runs its passes many
times), like XLA's CompilationStats ("pass, num runs, time (ms)"), sorted by time. Compile
time is the sum of pass times — the verifier, dumps and printing are not counted, so the
figure measures the passes and nothing else (codegen adds its own line once it exists).
"""
from __future__ import annotations

from dataclasses import dataclass

from hlotools.passes.manager import PipelineReport


@dataclass
class PassTiming:
    """One pass's applications in a pipeline run added up, for --time-passes."""
    name: str
    runs: int = 0
    seconds: float = 0.0
    changed_runs: int = 0
    instructions_before: int = -1  # before its first run
    instructions_after: int = -1  # after its last run
    not_run: int = 0  # applications skipped by --bisect-limit

    def to_json(self, total: float) -> dict:
        return {"pass": self.name, "runs": self.runs, "ms": round(self.seconds * 1e3, 3),
                "percent": round(100 * self.seconds / total, 2) if total else 0.0,
                "instructions_before": self.instructions_before,
                "instructions_after": self.instructions_after,
                "changed_runs": self.changed_runs, "not_run": self.not_run}


def aggregate(reports: list[PipelineReport]) -> list[PassTiming]:
    """One row per pass name over all reports (modules), slowest first."""
    rows: dict[str, PassTiming] = {}
    for report in reports:
        for r in report.records:
            row = rows.setdefault(r.name, PassTiming(r.name))
            if not r.ran:
                row.not_run += 1
                continue
            row.runs += 1
            row.seconds += r.seconds
            row.changed_runs += int(r.changed)
            if row.instructions_before < 0:
                row.instructions_before = r.instructions_before
            row.instructions_after = r.instructions_after
    return sorted(rows.values(), key=lambda t: (-t.seconds, t.name))


def compile_seconds(reports: list[PipelineReport]) -> float:
    return sum(r.total_seconds for r in reports)


def timing_json(reports: list[PipelineReport]) -> str:
    """One JSON document: totals, per-pass rows, and per-module application records."""
    total = compile_seconds(reports)
    doc = {
        "compile_ms": round(total * 1e3, 3),
        "applications": sum(len(r.records) for r in reports),
        "passes": [t.to_json(total) for t in aggregate(reports)],
        "modules": [{"module": r.module, "compile_ms": round(r.total_seconds * 1e3, 3),
                     "applications": [{"index": x.index, "pass": x.name, "ran": x.ran, "changed": x.changed,
                                       "ms": round(x.seconds * 1e3, 3),
                                       "instructions_before": x.instructions_before,
                                       "instructions_after": x.instructions_after,
                                       "rewrites": x.rewrites} for x in r.records]}
                    for r in reports],
    }
    import json  # --time-passes=json only: hlo-opt does not pay for it at start-up

    return json.dumps(doc, indent=1, allow_nan=False)


def timing_table(reports: list[PipelineReport]) -> str:
    """The table people read: pass, runs, wall ms, % of total, instructions before -> after, changed."""
    total = compile_seconds(reports)
    rows = aggregate(reports)
    header = ("pass", "runs", "wall ms", "%", "instructions", "changed")
    body = [(t.name, str(t.runs) + (f" (+{t.not_run} not run)" if t.not_run else ""),
             f"{t.seconds * 1e3:.3f}", f"{100 * t.seconds / total:.1f}" if total else "0.0",
             f"{t.instructions_before} -> {t.instructions_after}" if t.runs else "-",
             f"{t.changed_runs}/{t.runs}") for t in rows]
    footer = ("total (compile time)", str(sum(t.runs for t in rows)), f"{total * 1e3:.3f}",
              "100.0" if total else "0.0", _module_counts(reports), "")
    widths = [max(len(r[i]) for r in [header, footer, *body]) for i in range(len(header))]

    def line(cells: tuple[str, ...]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:])]
        return "  ".join([first, *rest]).rstrip()

    rule = "-" * len(line(header))
    modules = f" ({len(reports)} modules)" if len(reports) > 1 else ""
    title = f"=== pass execution timing report{modules} ==="
    return "\n".join([title, line(header), rule, *map(line, body), rule, line(footer)]) + "\n"


def _module_counts(reports: list[PipelineReport]) -> str:
    """Instruction counts of the whole input before the first pass and after the last."""
    before = after = 0
    for r in reports:
        ran = [x for x in r.records if x.ran]
        if ran:
            before += ran[0].instructions_before
            after += ran[-1].instructions_after
    return f"{before} -> {after}" if any(x.ran for r in reports for x in r.records) else "-"
