"""hlo-opt --report=html: what one compile did, collected while the pipeline runs.

Per module: each pass application (from the pass manager's records, the same as --time-passes)
with the instruction count, the kernel count (passes/fusion_stats.py) and the entry's peak live
bytes (the scheduler's memory model, passes/scheduling.py) after it; the pass decisions passes
log at debug level (fusion's "fused X into Y" / "not fused: ... : reason", as -vv shows them);
and the LLVM backend's buffer assignment of the result (its temp arena), when the backend can
compile the module. graph/report.py draws the page from this plain data.
"""
from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field

from hlotools.errors import HloError
from hlotools.ir.module import Module
from hlotools.passes.fusion_stats import kernel_count
from hlotools.passes.manager import PassRecord
from hlotools.passes.scheduling import peak_bytes

PASS_LOGGER = "hlotools.passes"
MAX_DECISIONS = 20_000  # per module: a page stays loadable on a huge model


@dataclass
class _ModuleLog:
    name: str
    file: str
    points: list[dict] = field(default_factory=list)
    decisions: list[dict] = field(default_factory=list)
    dropped_decisions: int = 0
    buffers: dict = field(default_factory=dict)


def module_counts(module: Module) -> dict:
    """What the passes decide of a compile's size: instructions, kernels (fusions + unfused
    non-trivial instructions) and the entry's peak live bytes in its order (the scheduling
    pass's memory model). hlo-opt --json reports the same (cli/opt.py module_metrics)."""
    entry = module.entry
    return {"instructions": module.instruction_count(), "kernels": kernel_count(module),
            "peak_bytes": peak_bytes(entry, entry.instructions) if entry is not None else 0}


class _DecisionHandler(logging.Handler):
    """Keeps the debug-level decisions of the running pass application."""

    def __init__(self, collector: ReportCollector) -> None:
        super().__init__(logging.DEBUG)
        self.collector = collector

    def emit(self, record: logging.LogRecord) -> None:
        current = self.collector.current
        if current is None or record.levelno != logging.DEBUG:
            return
        text = record.getMessage()
        name, sep, rest = text.partition(": ")
        if not sep or name.startswith("HLO pass") or name.startswith("fixed-point"):
            return
        if len(current.decisions) >= MAX_DECISIONS:
            current.dropped_decisions += 1
            return
        current.decisions.append({"index": len(current.points), "pass": name, "text": rest})


class ReportCollector:
    """The observer given to the pass manager (ManagerOptions.observer) and the decision log."""

    def __init__(self) -> None:
        self.modules: list[_ModuleLog] = []
        self.current: _ModuleLog | None = None
        self.file = ""

    def observe(self, module: Module, record: PassRecord | None) -> None:
        if record is None:
            self.current = _ModuleLog(module.name, self.file)
            self.modules.append(self.current)
            self.current.points.append({"index": 0, "pass": "(input)", "ms": 0.0, "changed": False,
                                        **module_counts(module)})
            return
        assert self.current is not None
        self.current.points.append({"index": record.index, "pass": record.name + record.options,
                                    "ms": round(record.seconds * 1e3, 4), "changed": record.changed,
                                    **module_counts(module)})

    def finish(self, module: Module) -> None:
        """After the pipeline: the backend's buffer assignment of the result, if it compiles."""
        if self.current is not None and self.current.name == module.name:
            self.current.buffers = buffer_assignment(module)
        self.current = None

    @contextlib.contextmanager
    def capturing(self) -> Iterator[None]:
        """Passes log their decisions at debug level while this is active (the stderr handler
        keeps its own level, so -v output does not change)."""
        logger = logging.getLogger(PASS_LOGGER)
        handler = _DecisionHandler(self)
        saved = logger.level
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
        try:
            yield
        finally:
            logger.removeHandler(handler)
            logger.setLevel(saved)

    def data(self) -> dict:
        return {"modules": [{"module": m.name, "file": m.file, "points": m.points, "decisions": m.decisions,
                             "dropped_decisions": m.dropped_decisions, "buffers": m.buffers}
                            for m in self.modules]}


def buffer_assignment(module: Module) -> dict:
    """The LLVM backend's temp arena for `module` (peak bytes of its buffer assignment, per
    computation), or why there is none."""
    try:
        from hlotools.backend.llvm import lower
        from hlotools.backend.llvm.codegen.module import compile_module
    except ImportError as e:  # llvmlite missing
        return {"error": f"the LLVM backend is not available ({e})"}
    try:
        lower.load()
        _, stats = compile_module(module.clone())
    except HloError as e:
        return {"error": f"the LLVM backend cannot compile this module: {e.message}"}
    except Exception as e:  # noqa: BLE001 - an add-on of the report: say what failed, keep the page
        return {"error": f"the LLVM backend failed on this module ({type(e).__name__}: {e}); run hlo-run on it "
                         "for the details"}
    biggest = sorted(stats.peak_by_computation.items(), key=lambda kv: -kv[1])[:12]
    return {"arena_bytes": stats.arena_bytes, "by_computation": [[n, b] for n, b in biggest]}
