"""Runs pipelines: verify-each, XLA-style dumps, timing, bisection, print-after/changed.

Pass applications are numbered from 1 in execution order (fixed-point iterations included);
`bisect_limit=N` runs only the first N of them and `bisect_rewrites=M` gives the N-th
application fuel for M rewrites — together a binary search pins a miscompile to one rewrite.

Dumps follow XLA's names (xla/service/dump.cc), the application number as the step:
`module_0000.NAME.before_optimizations.txt`,
`module_0000.NAME.0003.transforms_pipeline.after_algsimp.txt` (only passes that changed the
module unless dump_all), `module_0000.NAME.after_optimizations.txt`, and index.txt/index.json
(module_NNNN.index.* for modules after the first of a split input), so the tools that read
XLA's dump folders read ours too.
As in XLA's HloPassPipeline, verify-each re-runs the verifier after each pass that reports a
change; the module text (for reproducers, diffs and dumps) is printed again only then too.
"""
from __future__ import annotations

import contextlib
import gc
import logging
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TextIO

from hlotools.errors import HloError, HloVerifyError
from hlotools.ir.module import Module
from hlotools.log import TRACE
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.pipeline import FixedPoint, PassStep, Step

log = logging.getLogger("hlotools.passes")


@dataclass
class ManagerOptions:
    """How the pass manager runs a pipeline: verification, dumps, printing, bisection."""
    verify_each: bool = False
    dump_dir: Path | None = None
    dump_all: bool = False  # also dump passes that changed nothing
    dump_style: str = "long"
    print_after_all: bool = False
    print_changed: str | None = None  # 'diff' | 'full'
    bisect_limit: int | None = None  # run only the first N pass applications
    bisect_rewrites: int | None = None  # fuel for the N-th application
    stderr: TextIO | None = None
    module_id: int = 0  # the NNNN of module_NNNN in dump names (the module's place in the input)
    pipeline_name: str = "transforms_pipeline"  # the PIPELINE of per-pass dump names (XLA hlo-opt's)
    reproducer_dir: Path | None = None  # where a verify failure's reproducer goes (default: dump_dir or TMPDIR)
    # Told of the module before the first pass (record None) and after each pass application
    # that ran (hlo-opt --report measures kernels and memory there; not counted in pass times).
    observer: Callable[[Module, PassRecord | None], None] | None = None
    # told of each pass application before it runs: (application number, pass name, instructions)
    on_pass: Callable[[int, str, int], None] | None = None


@dataclass
class PassRecord:
    """One pass application: whether it changed the module, how long it took, sizes before and after."""
    index: int
    name: str
    changed: bool
    seconds: float
    instructions_before: int
    instructions_after: int
    rewrites: int
    ran: bool = True
    options: str = ""  # the pass's non-default options, '{k=v,...}'
    rewrite_log: list[str] = field(default_factory=list)  # what each rewrite did, when fuel was limited


@dataclass
class PipelineReport:
    """The records of one pipeline run and the files it dumped."""
    records: list[PassRecord] = field(default_factory=list)
    dumps: list[str] = field(default_factory=list)
    module: str = ""
    reproducer: str | None = None  # set when a verify failure wrote one

    @property
    def total_seconds(self) -> float:
        return sum(r.seconds for r in self.records)

    @property
    def changed(self) -> bool:
        return any(r.changed for r in self.records)

    @property
    def applications(self) -> int:
        """Pass applications reached, run or not (the N of --bisect-limit counts these)."""
        return len(self.records)

    def to_json(self) -> dict:
        return {"total_ms": round(self.total_seconds * 1e3, 3),
                "passes": [asdict(r) | {"ms": round(r.seconds * 1e3, 3)} for r in self.records]}


class PassFailure(RuntimeError):
    """A pass raised something other than HloError: a bug in the pass, named with its application."""


class _FuelContext(PassContext):
    """PassContext that also remembers what each rewrite did while fuel is limited, so bisection
    can name the culprit rewrite."""

    def __init__(self, fuel: int | None, pass_name: str) -> None:
        super().__init__(fuel=fuel, pass_name=pass_name)
        self.rewrite_log: list[str] = []

    def consume_fuel(self, what: str = "") -> bool:
        ok = super().consume_fuel(what)
        if ok and self.fuel is not None:
            self.rewrite_log.append(what)
        return ok


class PassManager:
    def __init__(self, options: ManagerOptions | None = None,
                 printer: Callable[[Module, str], str] | None = None) -> None:
        self.options = options or ManagerOptions()
        self._print = printer or _default_printer
        self.report = PipelineReport()
        self._applications = 0
        self._text: str | None = None  # cache of the current module text (see _text_of)
        # Fixed points re-run passes on a module nothing changed since: `_generation` counts the
        # applications that changed the module, `_clean_at[id(step)]` is the generation at which
        # that step last ran and changed nothing (a pass is a function of the module, so it
        # would change nothing again; see _unchanged_since_clean_run).
        self._generation = 0
        self._clean_at: dict[int, int] = {}

    @property
    def _err(self) -> TextIO:
        return self.options.stderr or sys.stderr

    def run(self, module: Module, steps: list[Step]) -> PipelineReport:
        self.report.module = module.name
        self._text = None
        self._clean_at = {}
        if log.isEnabledFor(logging.INFO):
            log.info("running pipeline on module %s: %s", module.name, ",".join(s.text() for s in steps))
        self._dump(module, "before_optimizations", force=True)
        if self.options.observer is not None:
            self.options.observer(module, None)
        try:
            with _quiet_gc():
                self._run_steps(module, steps)
            self._dump(module, "after_optimizations", force=True)
        finally:  # a failing pass still leaves the index of what ran before it
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
            self.report.records.append(PassRecord(n, p.name, False, 0.0, 0, 0, 0, ran=False,
                                                  options=p.options_text()))
            return False
        if opts.bisect_limit is not None:
            log.info("BISECT: running pass (%d) %s", n, p.name)
        fuel = opts.bisect_rewrites if opts.bisect_limit is not None and n == opts.bisect_limit else None
        if fuel is None and self._unchanged_since_clean_run(step):
            count = module.instruction_count()
            self.report.records.append(PassRecord(n, p.name, False, 0.0, count, count, 0,
                                                  options=p.options_text()))
            log.info("HLO pass (%d) %s: no change (the module is as this pass left it without "
                     "changes in its last application; not re-run)", n, p.name)
            self._observe(module)
            return False
        ctx = _FuelContext(fuel, p.name)
        before_text = self._text_of(module) if (opts.verify_each or opts.print_changed) else None
        count_before = module.instruction_count()
        if opts.on_pass is not None:
            opts.on_pass(n, p.name, count_before)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("HLO pass (%d) %s%s on %d instructions", n, p.name, p.options_text(), count_before)
        t0 = time.perf_counter()
        try:
            changed = bool(p.run(module, ctx))
        except HloError:
            raise
        except Exception as e:  # a bug in the pass: say which application, keep the cause chained
            self.report.records.append(PassRecord(n, p.name, True, time.perf_counter() - t0, count_before,
                                                  module.instruction_count(), ctx.rewrites,
                                                  options=p.options_text(), rewrite_log=ctx.rewrite_log))
            where = self._write_reproducer(module.name, p.name, before_text)
            raise PassFailure(f"pass '{p.name}' (application {n}) crashed: {type(e).__name__}: {e}"
                              f"{where}") from e
        seconds = time.perf_counter() - t0
        record = PassRecord(n, p.name, changed, seconds, count_before, module.instruction_count(),
                            ctx.rewrites, options=p.options_text(), rewrite_log=ctx.rewrite_log)
        self.report.records.append(record)
        self._observe(module)
        log.info("HLO pass (%d) %s: %s in %.3f ms (%d -> %d instructions)", n, p.name,
                 "changed" if changed else "no change", seconds * 1e3, count_before, record.instructions_after)
        if changed:
            self._text = None
            self._generation += 1
            self._clean_at.pop(id(step), None)
        else:
            self._clean_at[id(step)] = self._generation
        if opts.verify_each and changed:  # like XLA's pipeline: re-verify after passes that changed it
            self._verify_after(module, p.name, before_text)
        self._dump(module, f"{n:04d}.{_safe(opts.pipeline_name)}.after_{p.name}", force=opts.dump_all or changed)
        if opts.print_after_all:
            self._err.write(f"// -----// after {p.name} (application {n})\n{self._text_of(module)}\n")
        if opts.print_changed and changed and before_text is not None:
            self._print_changed(module, p.name, n, before_text)
        if log.isEnabledFor(TRACE):
            log.log(TRACE, "module after %s:\n%s", p.name, self._text_of(module))
        return changed

    def _observe(self, module: Module) -> None:
        if self.options.observer is not None:
            self.options.observer(module, self.report.records[-1])

    def _unchanged_since_clean_run(self, step: PassStep) -> bool:
        """True when `step` last ran without changing the module and no application changed it
        since, so running it again would change nothing either (fixed-point iterations after
        the last change). Never when the run is observed per application (dump_all,
        print_after_all), which shows each application's own output."""
        opts = self.options
        if opts.dump_all or opts.print_after_all:
            return False
        return self._clean_at.get(id(step)) == self._generation

    def _text_of(self, module: Module) -> str:
        """The module's text in the dump style, printed again only after a pass changed it
        (a pass reporting no change left the text as it was)."""
        if self._text is None:
            self._text = self._print(module, self.options.dump_style)
        return self._text

    def _print_changed(self, module: Module, pass_name: str, n: int, before_text: str) -> None:
        after_text = self._text_of(module)
        if self.options.print_changed == "diff":
            import difflib
            diff = difflib.unified_diff(before_text.splitlines(True), after_text.splitlines(True),
                                        f"before {pass_name} ({n})", f"after {pass_name} ({n})")
            self._err.write("".join(diff))
        else:
            self._err.write(f"// -----// after {pass_name} (application {n}, changed)\n{after_text}\n")

    def _verify_after(self, module: Module, pass_name: str, before_text: str | None) -> None:
        from hlotools.ir.verifier import verify
        try:
            verify(module)
        except HloError as e:
            earlier = [f"({r.index}) {r.name}" for r in self.report.records[:-1] if r.ran]
            where = self._write_reproducer(module.name, pass_name, before_text)
            raise HloVerifyError(f"verifier failed after pass ({self._applications}) '{pass_name}' "
                                 f"(passes before it: {', '.join(earlier) or 'none'}): {e.message}{where}"
                                 ) from None

    def _write_reproducer(self, module_name: str, pass_name: str, before_text: str | None) -> str:
        """Write the module as it was before the failing pass; the message tail naming the file."""
        if before_text is None:
            return ""
        import tempfile
        d = self.options.reproducer_dir or self.options.dump_dir or Path(tempfile.gettempdir())
        path = Path(d) / f"module_{self.options.module_id:04d}.{_safe(module_name)}.before_{pass_name}.reproducer.hlo"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(before_text)
        except OSError as e:
            return f"; could not write the reproducer {path}: {e.strerror or e}"
        self.report.reproducer = str(path)
        return (f"; reproducer (the module before {pass_name}) written to {path} "
                f"(rerun: hlo-opt {path} --passes={pass_name} --verify-each)")

    # -- dumps ----------------------------------------------------------------------------
    def _dump(self, module: Module, suffix: str, force: bool) -> None:
        """module_NNNN.NAME.SUFFIX.txt; per-pass suffixes carry the application number."""
        d = self.options.dump_dir
        if d is None or not force:
            return
        d.mkdir(parents=True, exist_ok=True)
        name = f"module_{self.options.module_id:04d}.{_safe(module.name)}.{suffix}.txt"
        (d / name).write_text(self._text_of(module))
        if name not in self.report.dumps:
            self.report.dumps.append(name)

    def _write_index(self, module: Module) -> None:
        d = self.options.dump_dir
        if d is None:
            return
        d.mkdir(parents=True, exist_ok=True)
        rows = self.report.records
        lines = ["#\tpass\tchanged\tms\tinstructions_before\tinstructions_after\trewrites"]
        lines += [f"{r.index}\t{r.name}\t{str(r.changed).lower() if r.ran else 'not-run'}\t{r.seconds * 1e3:.3f}\t"
                  f"{r.instructions_before}\t{r.instructions_after}\t{r.rewrites}" for r in rows]
        prefix = f"module_{self.options.module_id:04d}." if self.options.module_id else ""
        (d / f"{prefix}index.txt").write_text("\n".join(lines) + "\n")
        import json
        (d / f"{prefix}index.json").write_text(json.dumps({"module": module.name, "dumps": self.report.dumps}
                                                 | self.report.to_json(), indent=1) + "\n")


_gc_depth = 0


@contextlib.contextmanager
def _quiet_gc() -> Iterator[None]:
    """Keep the cyclic garbage collector from re-scanning the module while passes run.

    A module is a big graph of long-lived objects (instructions, users lists, attribute dicts)
    and passes allocate millions of short-lived ones: with the default thresholds the
    collector walks the whole module again every ~70k allocations, which was half of -O2's
    time on 100k instructions (fusion alone 9 s -> 4.5 s CPU). So the collector is off while
    the outermost pipeline runs (passes make few cycles: refcounting frees the rest; peak
    memory measured the same, chains of 100 to 20,000 instructions) and on again after, with
    its generations as they were. It used to gc.freeze() instead: that moved everything alive
    at the start, the previous module's garbage too, into the oldest generation and reset the
    young generation's count, so a process compiling small modules one after another never
    collected at all (~41 kB of cycles per module kept)."""
    global _gc_depth
    if _gc_depth or not gc.isenabled():
        yield
        return
    _gc_depth += 1
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        _gc_depth -= 1


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)[:200]


def _default_printer(module: Module, style: str) -> str:
    from hlotools.text.printer import print_module
    return print_module(module, style)


def run_pipeline(module: Module, steps: list[Step], options: ManagerOptions | None = None) -> PipelineReport:
    return PassManager(options).run(module, steps)
