"""hlo-opt DIR --module M --xla-passes: XLA's passes one by one, from its per-pass dump files, and
ours beside each one we implement.

Consecutive dump files of a module (before_optimizations, the NNNN.PIPELINE.after_PASS files,
after_optimizations) differ by what the pass named in the later file did (XLA writes no file for
a pass that changed nothing). For each such pair: the structural diff of XLA's two files; and
where the pass is one of ours (by XLA's name or an alias), our pass run on the earlier file, its
diff, and the diff from our result to XLA's: what XLA did that ours did not, or the reverse.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from hlotools import parse_module
from hlotools.cli.common import read_input, usage_error
from hlotools.cli.diff import render, use_colour
from hlotools.diff import ModuleDiff, diff_modules
from hlotools.errors import HloError
from hlotools.io.xla_dump import DumpFile, find_module, read_dump_folder
from hlotools.ir.module import Module

SHOWN_LINES = 12  # per diff in the text report; --json has everything


@dataclass
class Step:
    """One XLA pass between two dump files, and ours on the same input."""
    file: DumpFile
    label: str  # 'NNNN PIPELINE: PASS'
    pass_name: str
    xla: ModuleDiff | None = None
    ours_name: str | None = None
    ours: ModuleDiff | None = None
    against_xla: ModuleDiff | None = None  # our result -> XLA's result
    error: str | None = None
    module: Module | None = None  # XLA's module after the pass (the next step's input)


def _load(f: DumpFile) -> Module:
    return parse_module(*read_input(str(f.path)))


def _run_ours(name: str, module: Module) -> Module:
    from hlotools.passes.manager import run_pipeline
    from hlotools.passes.pipeline import parse_pipeline
    copy = module.clone()
    run_pipeline(copy, parse_pipeline(name))
    return copy


def _ours_for(pass_name: str) -> str | None:
    from hlotools.passes.registry import PASSES, canonical_name
    name = canonical_name(pass_name)
    return name if name in PASSES else None


def _step(prev: Module, f: DumpFile, label: str, pass_name: str) -> Step:
    step = Step(f, label, pass_name)
    try:
        cur = _load(f)
    except HloError as e:
        step.error = e.format().splitlines()[0]
        return step
    step.module = cur
    step.xla = diff_modules(prev, cur)
    step.ours_name = _ours_for(pass_name)
    if step.ours_name is not None and not step.xla.same:
        try:
            ours = _run_ours(step.ours_name, prev)
        except HloError as e:
            step.error = f"ours ({step.ours_name}) failed: {e.message}"
            return step
        step.ours, step.against_xla = diff_modules(prev, ours), diff_modules(ours, cur)
    step.module = cur
    return step


def collect(folder: str, module_name: str | None) -> tuple[str, list[Step]]:
    """(module title, the steps) of a dump folder's module."""
    module = find_module(read_dump_folder(Path(folder)), module_name, folder)
    files = [*filter(None, [module.stage("before")]), *module.pass_files, *filter(None, [module.stage("after")])]
    if len(files) < 2:
        raise HloError(f"module {module.id:04d} {module.name} has {len(files)} HLO dump file(s): nothing to "
                       "compare (dump with XLA_FLAGS=--xla_dump_hlo_pass_re=.*)", filename=folder)
    steps: list[Step] = []
    prev = _load(files[0])
    for f in files[1:]:
        if f.kind == "pass":
            label, pass_name = f"{f.step:04d} {f.pipeline}: {f.pass_name}", f.pass_name
        else:
            label, pass_name = "after optimizations (passes after the last per-pass dump)", ""
        step = _step(prev, f, label, pass_name)
        steps.append(step)
        prev = step.module or prev
    return f"module {module.id:04d} {module.name}", steps


def xla_passes_report(folder: str, module_name: str | None, as_json: bool) -> str:
    if not Path(folder).is_dir():
        raise usage_error(f"--xla-passes reads an XLA dump folder; '{folder}' is not one")
    title, steps = collect(folder, module_name)
    return _json(folder, title, steps) if as_json else _text(folder, title, steps)


def _text(folder: str, title: str, steps: list[Step]) -> str:
    colour = use_colour()
    changed = [s for s in steps if s.error or (s.xla is not None and not s.xla.same)]
    lines = [f"{folder}: {title}: {len(steps)} steps, {len(changed)} changed the module"]
    for s in changed:
        lines.append(f"{s.label}: {s.error or s.xla.summary()}" if s.xla else f"{s.label}: {s.error}")
        if s.xla is not None:
            lines.append(render(s.xla, colour, SHOWN_LINES, "    "))
        if s.ours is not None and s.against_xla is not None:
            gap = "is the same as XLA's" if s.against_xla.same else f"differs from XLA's: {s.against_xla.summary()}"
            lines.append(f"  ours ({s.ours_name}): {s.ours.summary()}; its result {gap}")
            if not s.against_xla.same:
                lines.append(render(s.against_xla, colour, SHOWN_LINES, "    "))
    quiet = len(steps) - len(changed)
    if quiet:
        lines.append(f"({quiet} steps left the module as it was: pipeline starts and ends)")
    ours = [s for s in steps if s.against_xla is not None]
    if ours:
        differ = [s.pass_name for s in ours if s.against_xla is not None and not s.against_xla.same]
        lines.append(f"passes we implement: {len(ours) - len(differ)} of {len(ours)} give XLA's result"
                     + (f" ({', '.join(differ)} differ{'s' if len(differ) == 1 else ''})" if differ else ""))
    return "\n".join(x for x in lines if x)


def _json(folder: str, title: str, steps: list[Step]) -> str:
    def step_json(s: Step) -> dict:
        return {"label": s.label, "file": s.file.path.name, "step": s.file.step, "pipeline": s.file.pipeline,
                "pass": s.pass_name, "error": s.error, "xla": s.xla.to_json() if s.xla else None,
                "ours": None if s.ours is None else {
                    "pass": s.ours_name, "diff": s.ours.to_json(),
                    "against_xla": s.against_xla.to_json() if s.against_xla else None}}
    return json.dumps({"folder": folder, "module": title, "steps": [step_json(s) for s in steps]}, indent=1)
