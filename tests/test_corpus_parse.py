"""Corpus sweeps: every JAX module and every XLA `parse_ok` file parses (verify=False here;
the verifier has its own sweep). The `parse_error` files are in test_bad_corpus.py."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from hlotools import parse_module
from hlotools.errors import HloError

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
JAX = SHARED / "corpus" / "jax"
XLA = SHARED / "corpus" / "xla"


def _jax_files() -> list[Path]:
    if not JAX.is_dir():
        return []
    return sorted(JAX.glob("*.hlo"))


def _manifest(expected: str) -> list[str]:
    path = XLA / "MANIFEST.tsv"
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [r["file"] for r in rows if r["expected"] == expected]


needs_jax = pytest.mark.skipif(not JAX.is_dir(), reason="shared JAX corpus not present")
needs_xla = pytest.mark.skipif(not XLA.is_dir(), reason="shared XLA corpus not present")


@needs_jax
@pytest.mark.slow
def test_every_jax_module_parses() -> None:
    files = _jax_files()
    assert len(files) == 147  # 49 modules x 3 print styles
    failures = []
    for path in files:
        try:
            module = parse_module(path.read_text(), str(path), verify=False)
        except HloError as e:
            failures.append(e.format().splitlines()[0])
            continue
        assert module.entry is not None and module.entry.root is not None
    assert failures == []


@needs_jax
def test_jax_styles_are_detected() -> None:
    short = parse_module((JAX / "softmax.hlo").read_text(), verify=False)
    long = parse_module((JAX / "softmax.dump.hlo").read_text(), verify=False)
    assert short.source_style == "short"
    assert long.source_style == "long"
    assert short.stack_frames_text is not None and short.stack_frames_text.startswith("FileNames")
    assert short.stack_frames_text.rstrip().endswith("}")


@needs_xla
@pytest.mark.slow
def test_every_xla_parse_ok_file_parses() -> None:
    files = _manifest("parse_ok")
    assert len(files) == 1691
    failures = []
    for rel in files:
        path = XLA / rel
        try:
            parse_module(path.read_text(), rel, verify=False)
        except HloError as e:
            failures.append(e.format().splitlines()[0])
    assert failures == [], f"{len(failures)} of {len(files)} failed; first: {failures[:5]}"
