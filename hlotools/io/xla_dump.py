"""XLA dump folders (`--xla_dump_to=DIR`): which modules are in one, and which file is which.

XLA names every file `module_NNNN.NAME.SUFFIX.EXT` (xla/service/dump.cc). The suffixes read here:
`before_optimizations` / `[cpu_|gpu_]after_optimizations` (hlo-opt's are singular), their
`-buffer-assignment`, `-memory-usage-report`, ... reports, and the per-pass dumps of
`--xla_dump_hlo_pass_re`: `NNNN.PIPELINE.after_PASS[.before_NEXT]`, NNNN counting the module's
dumps. hlo-opt --dump-dir writes the same names, so one reader serves both.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from hlotools.errors import HloError

HLO_EXTENSIONS = (".txt", ".hlo.pb", ".hlo")
_MODULE = re.compile(r"^(?:\d+\.)?module_(?P<id>\d+)\.(?P<rest>.+)$")  # --xla_dump_include_timestamp
_PER_PASS = re.compile(r"^(?P<name>.+?)\.(?P<step>\d{4})\.(?P<pipeline>[^.]+)\.after_(?P<pass>[^.]+?)"
                       r"(?:\.before_(?P<next>[^.]+))?$")
_STAGE = re.compile(r"^(?P<name>.+?)\.(?:(?P<platform>[a-z]+)_)?(?P<stage>before|after)_optimizations?"
                    r"(?P<report>-[A-Za-z-]+)?$")


@dataclass(frozen=True)
class DumpFile:
    """One file of a module: a whole-compile stage, a per-pass dump or a report."""
    path: Path
    kind: str  # 'before' | 'after' | 'pass' | 'report'
    step: int | None = None  # per-pass dumps: XLA's dump counter (ours: the pass application)
    pipeline: str = ""
    pass_name: str = ""  # the pass just run ('pipeline-start' for a pipeline's first dump)
    next_pass: str = ""
    report: str = ""  # 'buffer-assignment', 'memory-usage-report', ...

    @property
    def label(self) -> str:
        if self.kind == "pass":
            return f"{self.step:04d} {self.pipeline}: after {self.pass_name}"
        return self.report or self.kind


@dataclass
class DumpModule:
    """The files of one module_NNNN.NAME of a dump folder."""
    id: int
    name: str
    files: list[DumpFile] = field(default_factory=list)

    def stage(self, kind: str) -> DumpFile | None:
        """The module's whole-compile 'before' or 'after' HLO file (text first, then proto)."""
        found = [f for f in self.files if f.kind == kind]
        return min(found, key=lambda f: _extension_rank(f.path)) if found else None

    @property
    def pass_files(self) -> list[DumpFile]:
        """Per-pass HLO dumps in dump order (one file per step: text before proto)."""
        by_step: dict[int, DumpFile] = {}
        for f in self.files:
            if f.kind == "pass" and f.step is not None:
                old = by_step.get(f.step)
                if old is None or _extension_rank(f.path) < _extension_rank(old.path):
                    by_step[f.step] = f
        return [by_step[s] for s in sorted(by_step)]

    @property
    def reports(self) -> list[DumpFile]:
        return [f for f in self.files if f.kind == "report"]


def _extension_rank(path: Path) -> int:
    for rank, ext in enumerate(HLO_EXTENSIONS):
        if path.name.endswith(ext):
            return rank
    return len(HLO_EXTENSIONS)


def _split_extension(name: str) -> tuple[str, str] | None:
    for ext in HLO_EXTENSIONS:
        if name.endswith(ext):
            return name[: -len(ext)], ext
    return None


def classify(path: Path) -> tuple[int, str, DumpFile] | None:
    """(module id, module name, file) for a dump file's name; None for files this reader skips
    (debug_options, LLVM IR, objects, folders)."""
    m = _MODULE.match(path.name)
    split = _split_extension(m.group("rest")) if m else None
    if m is None or split is None:
        return None
    module_id, rest = int(m.group("id")), split[0]
    p = _PER_PASS.match(rest)
    if p:
        return module_id, p.group("name"), DumpFile(path, "pass", int(p.group("step")), p.group("pipeline"),
                                                    p.group("pass"), p.group("next") or "")
    s = _STAGE.match(rest)
    if s is None:
        return None
    if s.group("report"):
        return module_id, s.group("name"), DumpFile(path, "report", report=s.group("report")[1:])
    return module_id, s.group("name"), DumpFile(path, s.group("stage"))


def read_dump_folder(folder: Path) -> list[DumpModule]:
    """The modules of an XLA (or hlo-opt --dump-dir) dump folder, by id; an error if it has none."""
    modules: dict[tuple[int, str], DumpModule] = {}
    for path in sorted(folder.iterdir()):
        if not path.is_file():
            continue
        found = classify(path)
        if found is None:
            continue
        module_id, name, dump_file = found
        modules.setdefault((module_id, name), DumpModule(module_id, name)).files.append(dump_file)
    if not modules:
        raise HloError("is a directory with no XLA dump files (module_NNNN.NAME....txt) in it",
                       filename=str(folder))
    return [modules[k] for k in sorted(modules)]


def find_module(modules: list[DumpModule], wanted: str | None, folder: str) -> DumpModule:
    """The module `wanted` names (its id, 3 or 0003, or its name); with one module, None is it."""
    if wanted is None:
        if len(modules) == 1:
            return modules[0]
        raise HloError(f"the folder holds {len(modules)} modules: give --module ID|NAME "
                       f"({_known(modules)})", filename=folder)
    hits = [m for m in modules if m.name == wanted or (wanted.isdigit() and m.id == int(wanted))]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise HloError(f"unknown module '{wanted}'; the folder holds {_known(modules)}", filename=folder)
    raise HloError(f"module '{wanted}' is ambiguous: {_known(hits)}; give its id", filename=folder)


def _known(modules: list[DumpModule]) -> str:
    return ", ".join(f"{m.id:04d} {m.name}" for m in modules)


def find_stage(module: DumpModule, stage: str, aliases: dict[str, str], folder: str) -> DumpFile:
    """The file `stage` names: before, after, a step number, or a pass (XLA's or our name of it)."""
    if stage in ("before", "after"):
        found = module.stage(stage)
        if found is None:
            raise HloError(f"module {module.id:04d} {module.name} has no {stage}_optimizations file",
                           filename=folder)
        return found
    passes = module.pass_files
    stage = stage.removeprefix("after_")
    if stage.isdigit():
        hits = [f for f in passes if f.step == int(stage)]
    else:
        names = {stage, aliases.get(stage, stage)} | {x for x, ours in aliases.items() if ours == stage}
        hits = [f for f in passes if f.pass_name in names or f"{f.pipeline}.{f.pass_name}" == stage]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        known = sorted({f.pass_name for f in passes})
        raise HloError(f"module {module.id:04d} {module.name} has no file for stage '{stage}' (before, after, "
                       f"a step number or one of: {', '.join(known) or 'no per-pass files'})", filename=folder)
    steps = ", ".join(f"{f.step:04d} ({f.pipeline})" for f in hits)
    raise HloError(f"stage '{stage}' is ambiguous in module {module.id:04d} {module.name}: steps {steps}; "
                   "give the step number or PIPELINE.PASS", filename=folder)
