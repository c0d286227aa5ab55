"""The fixed-width tables bench/run.py prints: run times, compile times, ratios to XLA and their
geometric means, and how compile time grows with a model's depth."""
from __future__ import annotations

import math
import re
from typing import Any

RUN_HEAD = (f"{'module':22} {'instr':>6} | {'ours ms':>8} {'min':>8} | {'XLA ms':>8} {'min':>8} | {'ratio':>6} | "
            f"{'1T ours':>8} {'min':>8} | {'1T XLA':>8} {'min':>8} | {'ratio':>6} | agree")
COMPILE_HEAD = (f"{'module':22} | {'cold s':>7} {'load':>6} {'passes':>7} {'codegen':>7} {'llvm':>7} {'other':>6} | "
                f"{'XLA s':>7} | {'ratio':>6} {'+load':>6} | {'warm ms':>7} | {'1T cold':>7} | {'peak MB':>7} "
                f"{'XLA MB':>7}")
# The minima's ratios too: on a shared machine the fastest of the repeats is the figure least
# moved by other processes (the medians' ratios swing with the load).
RATIOS = (("run", "run"), ("run_st", "run, single thread"), ("run_min", "run (minima)"),
          ("run_st_min", "run, single thread (minima)"), ("compile", "cold compile (without the library loads)"),
          ("compile_load", "cold compile with the library loads (a fresh process's first compile)"))


def _get(row: dict[str, Any], *path: str) -> Any:
    for p in path:
        row = row.get(p) if isinstance(row, dict) else None  # type: ignore[assignment]
    return row


def _fig(row: dict[str, Any], side: str, mode: str, key: str) -> Any:
    """A figure of one measurement; None when that measurement failed (its text says why)."""
    fig = _get(row, side, mode)
    return None if not isinstance(fig, dict) or fig.get("error") else fig.get(key)


def _cell(value: Any, width: int, fmt: str, scale: float = 1.0, fail: str = "") -> str:
    if isinstance(value, (int, float)):
        return f"{format(value * scale, fmt):>{width}}"
    return f"{(fail or '-')[:width]:>{width}}"


def _fail(row: dict[str, Any], side: str, mode: str) -> str:
    err = _get(row, side, mode, "error")
    return "timeout" if err == "timeout" else ("skipped" if err and err.startswith("skipped") else
                                              "error" if err else "")


def _ms(row: dict[str, Any], side: str, mode: str, key: str) -> str:
    return _cell(_fig(row, side, mode, key), 8, ".3f", 1e3, _fail(row, side, mode))


def _ratio(v: Any) -> str:
    return f"{v:>5.2f}x" if isinstance(v, (int, float)) else f"{'':>6}"


def _agree(row: dict[str, Any]) -> str:
    a = row.get("agree")
    if not a:
        return "-"
    return f"ok {a['max_diff']:.0e}" if a["ok"] else "DIFFERS"


def run_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["Run time (median and min of the repeats, ms; 1T: one thread on one CPU)", RUN_HEAD]
    for r in rows:
        lines.append(f"{r['module'][:22]:22} {r['instructions']:>6} | {_ms(r, 'ours', 'mt', 'run_s_median')} "
                     f"{_ms(r, 'ours', 'mt', 'run_s_min')} | {_ms(r, 'xla', 'mt', 'run_s_median')} "
                     f"{_ms(r, 'xla', 'mt', 'run_s_min')} | {_ratio(_get(r, 'ratios', 'run'))} | "
                     f"{_ms(r, 'ours', 'st', 'run_s_median')} {_ms(r, 'ours', 'st', 'run_s_min')} | "
                     f"{_ms(r, 'xla', 'st', 'run_s_median')} {_ms(r, 'xla', 'st', 'run_s_min')} | "
                     f"{_ratio(_get(r, 'ratios', 'run_st'))} | {_agree(r)}")
    return lines


def compile_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["Compile (cold: a fresh process and compile cache, all of it: load, the backend's and passes' imports, "
             "llvmlite's LLVM and the runtime library's binding, once per process; other: keys, cache lookup "
             "and store, the link's start; XLA s: its "
             "compile_and_load, its jax import apart; ratio: ours without load / XLA's; +load: ours / XLA's "
             "with its jax import; warm: a second process on the filled cache; peak: max RSS of the compiling "
             "process. Not in our figures: the shared library's link for the next process (cc, in the "
             "background after the compile; a cold hlo-run waits for it at exit))", COMPILE_HEAD]
    for r in rows:
        ph = _fig(r, "ours", "cold", "phases_s") or {}
        other = sum(v for k, v in ph.items() if k not in ("load", "passes", "codegen", "llvm")) if ph else None
        fail = _fail(r, "ours", "cold")
        lines.append(f"{r['module'][:22]:22} | {_cell(_fig(r, 'ours', 'cold', 'compile_s'), 7, '.3f', fail=fail)} "
                     f"{_cell(ph.get('load'), 6, '.3f')} "
                     f"{_cell(ph.get('passes'), 7, '.3f')} {_cell(ph.get('codegen'), 7, '.3f')} "
                     f"{_cell(ph.get('llvm'), 7, '.3f')} {_cell(other, 6, '.3f')} | "
                     f"{_cell(_fig(r, 'xla', 'mt', 'compile_s'), 7, '.3f', fail=_fail(r, 'xla', 'mt'))} | "
                     f"{_ratio(_get(r, 'ratios', 'compile'))} {_ratio(_get(r, 'ratios', 'compile_load'))} | "
                     f"{_cell(_fig(r, 'ours', 'mt', 'warm_s'), 7, '.1f', 1e3, _fail(r, 'ours', 'mt'))} | "
                     f"{_cell(_fig(r, 'ours', 'st', 'compile_s'), 7, '.3f', fail=_fail(r, 'ours', 'st'))} | "
                     f"{_cell(_fig(r, 'ours', 'cold', 'peak_mb'), 7, '.0f', fail=fail)} "
                     f"{_cell(_fig(r, 'xla', 'mt', 'peak_mb'), 7, '.0f', fail=_fail(r, 'xla', 'mt'))}")
    return lines


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def summary(rows: list[dict[str, Any]]) -> list[str]:
    """Geometric means of hlotools/XLA over the rows that have both figures, and the worst."""
    lines = []
    for key, label in RATIOS:
        got = [(row["ratios"][key], row["module"]) for row in rows if key in row.get("ratios", {})]
        if got:
            worst = max(got)
            lines.append(f"geometric mean hlotools/XLA, {label}: {geomean([v for v, _ in got]):.2f}x over "
                         f"{len(got)} modules (best {min(got)[0]:.2f}x, worst {worst[0]:.2f}x {worst[1]})")
    bad = [r["module"] for r in rows if r.get("agree") and not r["agree"]["ok"]]
    if bad:
        lines.append(f"outputs DIFFER from XLA's (beyond the tolerance): {', '.join(bad)}")
    return lines


_DEPTH = re.compile(r"^(.*)_L(\d+)$")


def depth_scaling(rows: list[dict[str, Any]]) -> list[str]:
    """Per model: cold compile (ours, XLA; both without their library loads) at each depth and
    the growth from the shallowest."""
    by_model: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for r in rows:
        m = _DEPTH.match(r["module"])
        if m and r.get("source") == "model":
            by_model.setdefault(m.group(1), []).append((int(m.group(2)), r))
    lines = []
    for name, got in sorted(by_model.items()):
        if len(got) < 2:
            continue
        got.sort(key=lambda t: t[0])
        parts = []
        for side, path in (("ours", ("ours", "cold", "compile_without_load_s")), ("XLA", ("xla", "mt", "compile_s"))):
            vals = [(d, _get(r, *path)) for d, r in got]
            text = " -> ".join(f"L{d} {v:.2f}" if isinstance(v, (int, float)) else f"L{d} -" for d, v in vals)
            first, last = vals[0][1], vals[-1][1]
            growth = f" ({last / first:.1f}x for {vals[-1][0] / vals[0][0]:.0f}x the depth)" \
                if isinstance(first, (int, float)) and isinstance(last, (int, float)) and first else ""
            parts.append(f"{side} {text} s{growth}")
        lines.append(f"{name}: cold compile without the library loads: " + "; ".join(parts))
    return lines


def errors(rows: list[dict[str, Any]]) -> list[str]:
    """'errors and timeouts:' and a line per failed measurement, or nothing."""
    out = []
    for r in rows:
        for side in ("ours", "xla"):
            for mode, fig in (r.get(side) or {}).items():
                if isinstance(fig, dict) and fig.get("error"):
                    out.append(f"  {r['module']}: {side} {mode}: {fig['error']}")
    return ["errors and timeouts:", *out] if out else []
