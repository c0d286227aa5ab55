"""Which modules a run measures: the JAX corpus' big and transformer modules, real layered JAX
models at several depths (bench/models.py, generated with the reference venv into a cache
folder when missing), and any module file given by hand."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .children import run_child

MODELS = ("gpt_fwd", "gpt_train", "cnn_train", "rnn_scan")
MODELS_PY = Path(__file__).resolve().parents[1] / "models.py"
_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%?[\w.\-]+\s*=\s", re.M)


@dataclass
class Case:
    """One module to measure: its file, its inputs (NAME.inputs.npz) or None for random ones."""

    name: str
    source: str  # corpus, model or file
    hlo: Path
    inputs: Path | None

    def instructions(self) -> int:
        return len(_INSTRUCTION.findall(self.hlo.read_text(encoding="utf-8", errors="replace")))


def _inputs_of(hlo: Path) -> Path | None:
    npz = hlo.with_name(hlo.name.removesuffix(".hlo") + ".inputs.npz")
    return npz if npz.is_file() else None


def corpus(folder: Path, which: str) -> list[Case]:
    """'big': the manifest's big modules and its attention blocks with dots (transformer_block,
    llama_block); 'all': every module; 'none': nothing."""
    manifest = folder / "manifest.json"
    if which == "none" or not manifest.is_file():
        return []
    cases = []
    for entry in json.loads(manifest.read_text())["modules"]:
        tags = set(entry.get("tags", ()))
        if which == "all" or entry.get("big") or {"attention", "dot"} <= tags:
            hlo = folder / f"{entry['name']}.hlo"
            cases.append(Case(entry["name"], "corpus", hlo, _inputs_of(hlo)))
    return cases


def models(folder: Path, names: list[str], depths: list[int], python: Path | None, timeout: float,
           say: Callable[[str], None], keep: Callable[[str], bool] = lambda name: True) -> list[Case]:
    """NAME_L{depth} for each model and depth that `keep` keeps, generated into `folder` by
    bench/models.py with the reference venv's `python` when missing (never regenerated: delete
    the folder for that)."""
    for name in names:
        missing = [d for d in depths if keep(f"{name}_L{d}") and not _complete(folder, f"{name}_L{d}")]
        if not missing:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        if python is None:
            say(f"note: {name} at depths {','.join(map(str, missing))} not in {folder} and no reference venv "
                "to generate them: skipped")
            continue
        child = run_child([str(python), str(MODELS_PY), str(folder), "--only", name,
                           "--depths", ",".join(map(str, missing))], timeout=timeout)
        if not child.ok:
            say(f"note: generating {name} failed ({child.why()}): skipped")
    return [Case(f"{n}_L{d}", "model", folder / f"{n}_L{d}.hlo", folder / f"{n}_L{d}.inputs.npz")
            for n in names for d in depths if keep(f"{n}_L{d}") and _complete(folder, f"{n}_L{d}")]


def _complete(folder: Path, stem: str) -> bool:
    return (folder / f"{stem}.hlo").is_file() and (folder / f"{stem}.inputs.npz").is_file()


def files(paths: list[str]) -> list[Case]:
    cases = []
    for p in paths:
        hlo = Path(p)
        if not hlo.is_file():
            raise SystemExit(f"bench/run.py: {p}: no such file")
        cases.append(Case(hlo.name.removesuffix(".hlo"), "file", hlo, _inputs_of(hlo)))
    return cases
