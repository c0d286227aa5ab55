"""`hlo-opt --bisect-against=interp`: find the pass application (and rewrite) that changes results.

The interpreter runs the original module once for the reference outputs. Then each probe
re-parses the original text, runs the pipeline with `--bisect-limit=N[:M]` and runs the
interpreter on the result. A binary search over N (pass applications, numbered in execution
order with fixed-point iterations unrolled) finds the first application after which the
outputs differ; a second search over M (the fuel that application gets, for passes that ask
`ctx.consume_fuel()` before each rewrite, like XLA's --xla_fuel) finds the first rewrite in it.
Like LLVM's opt-bisect this assumes the search is monotone: once the outputs differ, running
more passes does not bring them back. A probe whose pipeline or interpreter fails (verifier
error, pass crash, runtime refusal) counts as "differs", with that failure as its reason.
"""
from __future__ import annotations

import difflib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from hlotools import parse_module, print_module
from hlotools.errors import HloError
from hlotools.io.arrays import parameter_leaves, result_leaves, shape_text
from hlotools.io.compare import compare
from hlotools.io.npz import bind, read_arrays
from hlotools.io.random_inputs import random_inputs
from hlotools.ir.module import Module
from hlotools.passes.manager import ManagerOptions, PassFailure, PassManager, PassRecord
from hlotools.passes.pipeline import parse_pipeline

log = logging.getLogger("hlotools.bisect")


def load_arguments(module: Module, inputs: Sequence[str], seed: int | None) -> list[np.ndarray | None]:
    """The entry's argument leaves as hlo-run binds them: --inputs files, or --random SEED."""
    specs = parameter_leaves(module)
    wanted = [s for s in specs if not s.is_token]
    if inputs:
        arrays = bind(read_arrays(list(inputs)), specs)
    elif seed is not None:
        arrays = random_inputs(module, seed)
    elif wanted:
        params = ", ".join(f"{s.name}: {shape_text(s.shape)}" for s in wanted)
        raise HloError(f"--bisect-against needs the entry's {len(wanted)} input(s) ({params}): "
                       "give --inputs FILE... or --random SEED")
    else:
        arrays = []
    it = iter(arrays)
    return [None if s.is_token else next(it) for s in specs]


@dataclass
class Probe:
    """One run of the pipeline cut at application `limit` (with `rewrites` fuel for it)."""

    limit: int | None
    rewrites: int | None
    differs: bool
    reason: str  # how the outputs differ, or why the probe failed; "" when they agree
    records: list[PassRecord] = field(default_factory=list)
    text: str = ""  # the module after the probe's pipeline (for the culprit's diff)

    def record(self, n: int) -> PassRecord | None:
        return self.records[n - 1] if 0 < n <= len(self.records) else None


@dataclass
class BisectResult:
    """What --bisect-against found: the culprit pass application and rewrite, if any."""
    applications: int  # pass applications the whole pipeline makes
    probes: int
    application: PassRecord | None = None  # the first application that changes the outputs
    rewrite: int | None = None  # the first rewrite in it that does (1-based), if fuel found one
    rewrites: int = 0  # rewrites that application makes with unlimited fuel
    rewrite_what: str = ""
    reason: str = ""
    diff: str = ""  # the module before vs after the culprit

    @property
    def found(self) -> bool:
        return self.application is not None

    def limit_text(self) -> str:
        assert self.application is not None
        n = self.application.index
        return f"{n}:{self.rewrite}" if self.rewrite is not None else str(n)


class Bisector:
    """Runs probes of one pipeline on one module and compares them with the original's outputs."""

    def __init__(self, text: str, filename: str, spec: str, args: list[np.ndarray | None],
                 rtol: float | None = None, atol: float | None = None, verify_each: bool = True,
                 style: str = "short") -> None:
        self.text, self.filename, self.spec = text, filename, spec
        self.args = args
        self.rtol, self.atol = rtol, atol
        self.verify_each = verify_each
        self.style = style
        self.probes = 0
        self._cache: dict[tuple[int | None, int | None], Probe] = {}
        original = parse_module(text, filename)
        self.reference = self._evaluate(original)
        self.leaves = [s for s in result_leaves(original) if not s.is_token]
        self.original_text = print_module(original, style)

    def _evaluate(self, module: Module) -> list[np.ndarray]:
        from hlotools import evaluate
        return [np.asarray(v) for v in evaluate(module, list(self.args))]

    def probe(self, limit: int | None, rewrites: int | None = None) -> Probe:
        """The outputs after the first `limit` applications (None: all), the last with `rewrites` fuel."""
        key = (limit, rewrites)
        if key not in self._cache:
            self._cache[key] = self._probe(limit, rewrites)
        return self._cache[key]

    def _probe(self, limit: int | None, rewrites: int | None) -> Probe:
        self.probes += 1
        module = parse_module(self.text, self.filename, verify=False)
        manager = PassManager(ManagerOptions(verify_each=self.verify_each, bisect_limit=limit,
                                             bisect_rewrites=rewrites))
        try:
            manager.run(module, parse_pipeline(self.spec))
            got = self._evaluate(module)
        except (HloError, PassFailure) as e:
            message = e.message if isinstance(e, HloError) else str(e)
            p = Probe(limit, rewrites, True, f"the probe failed: {message}", manager.report.records)
        else:
            reason = self._difference(got)
            p = Probe(limit, rewrites, bool(reason), reason, manager.report.records,
                      print_module(module, self.style))
        what = "the whole pipeline" if limit is None else \
            f"--bisect-limit={limit}" + ("" if rewrites is None else f":{rewrites}")
        log.info("bisect: probe %d, %s: %s", self.probes, what, "outputs differ" if p.differs else "outputs agree")
        return p

    def _difference(self, got: list[np.ndarray]) -> str:
        problems = []
        for spec in self.leaves:
            a, e = got[spec.index], self.reference[spec.index]
            if a.shape != e.shape:
                problems.append(f"{spec.name}: shape {a.shape} instead of {e.shape}")
                continue
            assert spec.shape.element_type is not None
            c = compare(spec.name, a, e, spec.shape.element_type.name, self.rtol, self.atol)
            if not c.ok:
                problems.append(c.describe())
        return "; ".join(problems)

    # -- the searches -------------------------------------------------------------------
    def run(self) -> BisectResult:
        full = self.probe(None)
        total = len(full.records)
        if not full.differs:
            return BisectResult(total, self.probes)
        lo, hi, hi_probe = 0, total, full  # outputs agree after lo applications, differ after hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            p = self.probe(mid)
            if p.differs:
                hi, hi_probe = mid, p
            else:
                lo = mid
        if hi_probe.limit is None:  # re-probe with the limit so the culprit's fuel is accounted for
            hi_probe = self.probe(hi)
            if not hi_probe.differs:
                raise HloError(f"bisect: the outputs differ after the whole pipeline but not after its "
                               f"first {hi} of {total} pass applications; is a pass nondeterministic?")
        culprit = hi_probe.record(hi)
        result = BisectResult(total, self.probes, culprit, reason=hi_probe.reason,
                              rewrites=culprit.rewrites if culprit else 0)
        rewrite_probe = self._search_rewrites(result, hi)
        if rewrite_probe is not None and result.rewrite is not None:
            # The diff of the single culprit rewrite: fuel M-1 against fuel M.
            before_text, after_text = self.probe(hi, result.rewrite - 1).text, rewrite_probe.text
        else:
            before_text = self.probe(hi - 1).text if hi > 1 else self.original_text
            after_text = hi_probe.text
        result.probes = self.probes
        if before_text and after_text:
            result.diff = "".join(difflib.unified_diff(
                before_text.splitlines(True), after_text.splitlines(True),
                "before the culprit", "after the culprit"))
        return result

    def _search_rewrites(self, result: BisectResult, n: int) -> Probe | None:
        """Binary search over the fuel of application n; sets result.rewrite and returns the
        probe of the first differing fuel, or None when the change is not pinned to a rewrite."""
        if result.rewrites == 0:
            return None
        if self.probe(n, 0).differs:  # the pass changes the outputs outside fuel-gated rewrites
            return None
        top = self.probe(n, result.rewrites)
        if not top.differs:  # the pass behaves differently under a fuel limit: stop at the application
            return None
        lo, hi, hi_probe = 0, result.rewrites, top
        while hi - lo > 1:
            mid = (lo + hi) // 2
            p = self.probe(n, mid)
            if p.differs:
                hi, hi_probe = mid, p
            else:
                lo = mid
        record = hi_probe.record(n)
        result.rewrite = hi
        result.rewrite_what = record.rewrite_log[hi - 1] if record and len(record.rewrite_log) >= hi else ""
        result.reason = hi_probe.reason
        return hi_probe


def report_lines(result: BisectResult, filename: str, spec: str, rtol: float | None,
                 atol: float | None) -> list[str]:
    """What hlo-opt prints: the verdict, the culprit, how the outputs differ, how to reproduce."""
    tol = "" if rtol is None and atol is None else f" (rtol={rtol or 0:g}, atol={atol or 0:g})"
    if not result.found:
        return [f"bisect: no pass application changes the outputs{tol}: {result.applications} "
                f"application(s) checked in {result.probes} probe(s)"]
    app = result.application
    assert app is not None
    lines = [f"bisect: {result.applications} pass application(s); the outputs change{tol} after "
             f"application ({app.index}) {app.name}{app.options}"]
    if result.rewrite is not None:
        what = f": {result.rewrite_what}" if result.rewrite_what else ""
        lines.append(f"bisect: first culprit rewrite: ({result.rewrite}) of {result.rewrites} in "
                     f"{app.name}{what}")
    elif result.rewrites:
        lines.append(f"bisect: {app.name} made {result.rewrites} fuel-gated rewrite(s), but the change "
                     "is not pinned to one of them (it happens outside them or only with all of them)")
    lines.append(f"bisect: {result.reason}")
    quoted = spec.replace("'", "'\\''")
    lines.append(f"bisect: {result.probes} probe(s); reproduce with: hlo-opt {filename} "
                 f"--passes='{quoted}' --bisect-limit={result.limit_text()}")
    return lines
