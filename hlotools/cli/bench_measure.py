"""hlo-bench's inputs and its measurement of one module.

A module is measured as hlo-run measures it (run.execute): parsed, compiled once from scratch
(no compile cache, so the compile phases are real), run once untimed and `repeat` times timed on
random arguments from a fixed seed (reproducible on every machine). What comes back is plain
JSON-able data, so a measurement made in a worker process crosses back unchanged.
"""
from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hlotools.errors import HloError

# Files of a plain folder that hlo-bench reads (an XLA dump folder is read by its file names).
MODULE_SUFFIXES = (".hlo", ".mlir", ".stablehlo", ".pb")
WARM_UP = """HloModule warm_up

ENTRY main {
  a = f32[64] parameter(0)
  ROOT b = f32[64] exponential(a)
}
"""


@dataclass(frozen=True)
class BenchInput:
    """One module to measure: its key in the baseline and the file it is read from."""
    key: str
    path: str


def collect_inputs(paths: tuple[str, ...]) -> list[BenchInput]:
    """The modules named by FILES and DIRs: a file is itself; an XLA dump folder gives each
    module's before_optimizations file (its after_optimizations one when that is all there is);
    another folder its .hlo, .mlir, .stablehlo and .pb files, sorted."""
    out: list[BenchInput] = []
    for path in paths:
        p = Path(path)
        if not p.is_dir():
            out.append(BenchInput(path, path))
            continue
        out.extend(_folder_inputs(p, path))
    keys = [i.key for i in out]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise HloError(f"named twice: {', '.join(twice)}", filename=twice[0])
    return out


def _folder_inputs(folder: Path, shown: str) -> list[BenchInput]:
    from hlotools.io.xla_dump import read_dump_folder
    try:
        modules = read_dump_folder(folder)
    except HloError:
        files = sorted(f for f in folder.iterdir() if f.is_file() and f.name.endswith(MODULE_SUFFIXES))
        if not files:
            raise HloError("a folder with neither XLA dump files nor .hlo/.mlir files in it",
                           filename=shown) from None
        return [BenchInput(str(Path(shown) / f.name), str(f)) for f in files]
    out = []
    for m in modules:
        chosen = m.stage("before") or m.stage("after")
        if chosen is not None:
            out.append(BenchInput(f"{shown.rstrip('/')}/{m.id:04d}.{m.name}", str(chosen.path)))
    if not out:
        raise HloError("an XLA dump folder without before/after_optimizations files", filename=shown)
    return out


def warm_up() -> None:
    """Compile and run a tiny module once, so that the first measured module of a process does
    not pay for the backend's imports and the lowerings' registration in its compile time."""
    from hlotools import parse_module
    from hlotools.cli.backends import BACKENDS, CompileRequest
    backend = BACKENDS["llvm"]
    assert backend.compile_with is not None
    module = parse_module(WARM_UP, "warm_up")
    compiled = backend.compile_with(module, CompileRequest(use_cache=False))
    import numpy as np
    compiled([np.zeros(64, np.float32)])  # type: ignore[operator]


def measure(item: BenchInput, repeat: int, seed: int) -> dict[str, Any]:
    """One module's figures: compile phases (ms), kernels, peak bytes, run time (median and
    min of `repeat` runs, ms) and output checksums; or why it could not be measured."""
    doc: dict[str, Any] = {"key": item.key, "file": item.path}
    try:
        doc |= _measure(item, repeat, seed)
    except HloError as e:
        doc["error"] = e.format().splitlines()[0]
    except Exception as e:  # noqa: BLE001 - one module's bug must not end the sweep; it is reported
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        doc["error"] = f"internal error: {type(e).__name__}" + (f": {first}" if first else "")
        doc["traceback"] = traceback.format_exc(limit=-3)
    return doc


def _measure(item: BenchInput, repeat: int, seed: int) -> dict[str, Any]:
    from hlotools.cli.backends import BACKENDS, CompileRequest
    from hlotools.cli.common import read_input
    from hlotools.cli.run import data_outputs, execute
    from hlotools.io.checksum import checksum
    text, name = read_input(item.path)
    result = execute(text, name, BACKENDS["llvm"], (), seed, repeat,
                     CompileRequest(source_text=text, use_cache=False), fallback=BACKENDS["interp"], warmup=1,
                     timed=True)
    doc: dict[str, Any] = {"module": result.module.name, "backend": result.backend.name}
    if result.refusal is not None:
        doc["fallback"] = result.refusal.format().splitlines()[0]
    if result.backend.compiles and result.compiled is not None:
        doc |= result.compiled.metrics()
        doc["compile_ms"]["total"] = round(sum(result.compiled.phases.values()) * 1e3, 4)
    run = next(t for t in result.timings if t.phase == "run")
    doc["run_ms"] = round(run.median * 1e3, 4)
    doc["run_min_ms"] = round(run.minimum * 1e3, 4)
    doc["runs"] = len(run.seconds)
    doc["outputs"] = [{"name": spec.name} | checksum(array) for spec, array in data_outputs(result)]
    return doc
