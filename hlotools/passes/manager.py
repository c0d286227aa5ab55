"""Runs pipelines: verify-each, XLA-style dumps, timing, bisection, print-after/changed.

Pass applications are numbered from 1 in execution order (fixed-point iterations included);
`bisect_limit=N` runs only the first N of them and `bisect_rewrites=M` gives the N-th
application fuel for M rewrites — together a binary search pins a miscompile to one rewrite.
"""
from __future__ import annotations

import difflib
import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from hlotools.errors import HloError, HloVerifyError
from hlotools.ir.module import Module
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.pipeline import FixedPoint, PassStep, Step

log = logging.getLogger("hlotools.passes")


@dataclass
class ManagerOptions:
    verify_each: bool = False
    dump_dir: Path | None = None
    dump_all: bool = False  # also dump passes that changed nothing
    dump_style: str = "long"
    print_after_all: bool = False
    print_changed: str | None = None  # 'diff' | 'full'
    bisect_limit: int | None = None  # run only the first N pass applications
    bisect_rewrites: int | None = None  # fuel for the N-th application
    stderr: TextIO | None = None


@dataclass
class PassRecord:
    index: int
    name: str
    changed: bool
    seconds: float
    instructions_before: int
    instructions_after: int
    rewrites: int
    ran: bool = True


@dataclass
class PipelineReport:
    records: list[PassRecord] = field(default_factory=list)
    dumps: list[str] = field(default_factory=list)

    @property
    def total_seconds(self) -> float:
        return sum(r.seconds for r in self.records)

    @property
    def changed(self) -> bool:
        return any(r.changed for r in self.records)

    def to_json(self) -> dict:
        return {"total_ms": round(self.total_seconds * 1e3, 3),
                "passes": [asdict(r) | {"ms": round(r.seconds * 1e3, 3)} for r in self.records]}


class PassManager:
    def __init__(self, options: ManagerOptions | None = None,
                 printer: Callable[[Module, str], str] | None = None) -> None:
        self.options = options or ManagerOptions()
        self._print = printer or _default_printer
        self.report = PipelineReport()
        self._applications = 0
        self._dump_step = 0

    @property
    def _err(self) -> TextIO:
        return self.options.stderr or sys.stderr

    def run(self, module: Module, steps: list[Step]) -> PipelineReport:
        self._dump(module, "before_optimizations", force=True)
        self._run_steps(module, steps)
        self._dump(module, "after_optimizations", force=True)
        self._write_index(module)
        return self.report

    # -- execution ----------------------------------------------------------------------
    def _run_steps(self, module: Module, steps: list[Step]) -> bool:
        changed = False
        for step in steps:
            if isinstance(step, FixedPoint):
                changed |= self._run_fixed_point(module, step)
            else:
                changed |= self._run_pass(module, step)
        return changed

    def _run_fixed_point(self, module: Module, group: FixedPoint) -> bool:
        changed = False
        for iteration in range(group.max_iterations):
            if not self._run_steps(module, group.steps):
                return changed
            changed = True
            log.debug("fixed-point iteration %d changed the module", iteration + 1)
        log.warning("fixed-point(%s) did not converge in %d iterations",
                    ",".join(s.text() for s in group.steps), group.max_iterations)
        return changed

    def _run_pass(self, module: Module, step: PassStep) -> bool:
        p: HloPass = step.hlo_pass
        self._applications += 1
        n = self._applications
        opts = self.options
        if opts.bisect_limit is not None and n > opts.bisect_limit:
            log.info("BISECT: NOT running pass (%d) %s", n, p.name)
            self.report.records.append(PassRecord(n, p.name, False, 0.0, 0, 0, 0, ran=False))
            return False
        if opts.bisect_limit is not None:
            log.info("BISECT: running pass (%d) %s", n, p.name)
        fuel = opts.bisect_rewrites if opts.bisect_limit is not None and n == opts.bisect_limit else None
        ctx = PassContext(fuel=fuel, pass_name=p.name)
        before_text = self._print(module, opts.dump_style) if (opts.verify_each or opts.print_changed) else None
        count_before = module.instruction_count()
        log.info("HLO pass %s", p.name)
        t0 = time.perf_counter()
        try:
            changed = bool(p.run(module, ctx))
        except HloError:
            raise
        seconds = time.perf_counter() - t0
        self.report.records.append(PassRecord(n, p.name, changed, seconds, count_before,
                                              module.instruction_count(), ctx.rewrites))
        log.info("HLO pass %s: %s in %.3f ms", p.name, "changed" if changed else "no change", seconds * 1e3)
        if opts.verify_each:
            self._verify_after(module, p.name, before_text)
        self._dump(module, f"after_{p.name}", force=opts.dump_all or changed)
        if opts.print_after_all:
            self._err.write(f"// -----// after {p.name} (application {n})\n{self._print(module, opts.dump_style)}\n")
        if opts.print_changed and changed and before_text is not None:
            after_text = self._print(module, opts.dump_style)
            if opts.print_changed == "diff":
                diff = difflib.unified_diff(before_text.splitlines(True), after_text.splitlines(True),
                                            f"before {p.name}", f"after {p.name}")
                self._err.write("".join(diff))
            else:
                self._err.write(f"// -----// after {p.name} (changed)\n{after_text}\n")
        return changed

    def _verify_after(self, module: Module, pass_name: str, before_text: str | None) -> None:
        from hlotools.ir.verifier import verify
        try:
            verify(module)
        except HloError as e:
            earlier = [r.name for r in self.report.records[:-1] if r.ran]
            where = ""
            if before_text is not None:
                path = Path(self.options.dump_dir or ".") / f"{_safe(module.name)}.before_{pass_name}.reproducer.hlo"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(before_text)
                where = f"; reproducer (the module before {pass_name}) written to {path}"
            raise HloVerifyError(f"verifier failed after pass '{pass_name}' (passes before it: "
                                 f"{', '.join(earlier) or 'none'}): {e.message}{where}") from None

    # -- dumps ----------------------------------------------------------------------------
    def _dump(self, module: Module, suffix: str, force: bool) -> None:
        d = self.options.dump_dir
        if d is None or not force:
            return
        d.mkdir(parents=True, exist_ok=True)
        if suffix in ("before_optimizations", "after_optimizations"):
            name = f"module_0000.{_safe(module.name)}.{suffix}.hlo"
        else:
            name = f"module_0000.{_safe(module.name)}.{self._dump_step:04d}.{suffix}.hlo"
        self._dump_step += 1
        (d / name).write_text(self._print(module, self.options.dump_style))
        self.report.dumps.append(name)

    def _write_index(self, module: Module) -> None:
        d = self.options.dump_dir
        if d is None:
            return
        rows = self.report.records
        lines = ["#\tpass\tchanged\tms\tinstructions_before\tinstructions_after\trewrites"]
        lines += [f"{r.index}\t{r.name}\t{str(r.changed).lower() if r.ran else 'not-run'}\t{r.seconds * 1e3:.3f}\t"
                  f"{r.instructions_before}\t{r.instructions_after}\t{r.rewrites}" for r in rows]
        (d / "index.txt").write_text("\n".join(lines) + "\n")
        (d / "index.json").write_text(json.dumps({"module": module.name, "dumps": self.report.dumps}
                                                 | self.report.to_json(), indent=1) + "\n")


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)[:200]


def _default_printer(module: Module, style: str) -> str:
    from hlotools.text.printer import print_module
    return print_module(module, style)


def run_pipeline(module: Module, steps: list[Step], options: ManagerOptions | None = None) -> PipelineReport:
    return PassManager(options).run(module, steps)
