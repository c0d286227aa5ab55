"""XLA dump folders as the input of hlo-opt, hlo-run and hlo-translate.

`TOOL DIR` lists the folder's modules, `TOOL DIR --module M` one module's files, and
`--stage before|after|STEP|PASS` picks the file the tool then reads as if named itself.
hlotools/io/xla_dump.py knows the file names; this module only talks to the person.
"""
from __future__ import annotations

import json
from pathlib import Path

import click

from hlotools.cli.common import F, usage_error
from hlotools.io.xla_dump import DumpFile, DumpModule, find_module, find_stage, read_dump_folder


def dump_options(f: F) -> F:
    f = click.option("--stage", default=None, metavar="STAGE",
                     help="With a dump folder: the file to read: before, after (optimizations), a "
                          "per-pass step number, or a pass name (XLA's or ours) or PIPELINE.PASS.")(f)
    return click.option("--module", "dump_module", default=None, metavar="ID|NAME",
                        help="With a dump folder: the module (its id or name); without --stage, "
                             "list its files.")(f)


def pick_input(path: str, module: str | None, stage: str | None, as_json: bool = False) -> str | None:
    """The file to read: `path` itself, or the dump folder's file that --module/--stage name.
    None when the folder (or a module's files) was listed instead: the command is done."""
    if path == "-" or not Path(path).is_dir():
        if module is not None or stage is not None:
            raise usage_error("--module and --stage pick a file of an XLA dump folder; "
                              f"'{path}' is not a folder")
        return path
    modules = read_dump_folder(Path(path))
    if stage is None:
        chosen = [find_module(modules, module, path)] if module is not None else modules
        click.echo(listing_json(path, chosen) if as_json else listing_text(path, chosen, module is not None))
        return None
    from hlotools.passes.registry import ALIASES
    return str(find_stage(find_module(modules, module, path), stage, ALIASES, path).path)


def _summary(m: DumpModule) -> str:
    parts = [k for k in ("before", "after") if m.stage(k) is not None]
    n = len(m.pass_files)
    if n:
        changed = [p for p in dict.fromkeys(f.pass_name for f in m.pass_files) if p != "pipeline-start"]
        parts.append(f"{n} per-pass file{'s' if n != 1 else ''}"
                     + (f" ({', '.join(changed[:6])}{', ...' if len(changed) > 6 else ''})" if changed else ""))
    if m.reports:
        parts.append("reports: " + ", ".join(f.report for f in m.reports))
    return ", ".join(parts) or "no HLO files"


def listing_text(folder: str, modules: list[DumpModule], files: bool) -> str:
    if not files:
        lines = [f"{folder}: XLA dump folder, {len(modules)} module{'s' if len(modules) != 1 else ''}"]
        lines += [f"  {m.id:04d}  {m.name}: {_summary(m)}" for m in modules]
        lines.append("pick one with --module ID|NAME --stage before|after|STEP|PASS "
                     "(--module alone lists its files)")
        return "\n".join(lines)
    m = modules[0]
    lines = [f"{folder}: module {m.id:04d} {m.name}"]
    ordered = [*filter(None, [m.stage("before")]), *m.pass_files, *filter(None, [m.stage("after")]), *m.reports]
    width = max(len(_stage_name(f)) for f in ordered) if ordered else 0
    lines += [f"  {_stage_name(f).ljust(width)}  {_what(f)}  {f.path.name}" for f in ordered]
    lines.append("pick one with --stage before|after|STEP|PASS")
    return "\n".join(lines)


def _stage_name(f: DumpFile) -> str:
    return f"{f.step:04d}" if f.kind == "pass" and f.step is not None else f.kind


def _what(f: DumpFile) -> str:
    if f.kind == "pass":
        return f"{f.pipeline}: after {f.pass_name}"
    return f.report if f.kind == "report" else f"{f.kind} optimizations"


def listing_json(folder: str, modules: list[DumpModule]) -> str:
    def file_json(f: DumpFile) -> dict:
        doc: dict = {"kind": f.kind, "file": f.path.name}
        if f.kind == "pass":
            doc |= {"step": f.step, "pipeline": f.pipeline, "pass": f.pass_name, "next": f.next_pass or None}
        if f.kind == "report":
            doc["report"] = f.report
        return doc
    return json.dumps({"folder": folder, "modules": [
        {"id": m.id, "name": m.name, "files": [file_json(f) for f in m.files]} for m in modules]}, indent=1)
