"""Corpus sweeps: every JAX module and every XLA `parse_ok` file parses (verify=False here;
the verifier has its own sweep)."""
from __future__ import annotations

import csv
import json
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


def _bad_cases() -> list[str]:
    return _manifest("parse_error")


@needs_xla
@pytest.mark.slow
def test_every_xla_bad_file_is_rejected_with_xla_message() -> None:
    expected = json.loads((XLA / "bad" / "EXPECTED_ERRORS.json").read_text())
    files = _bad_cases()
    assert len(files) == 110
    accepted, wrong = [], []
    for rel in files:
        text = (XLA / rel).read_text()
        try:
            parse_module(text, rel, verify=False)
        except HloError as e:
            assert e.line is not None, f"{rel}: error without a location: {e.message}"
            subs = expected.get(rel, [])
            if subs and not any(s in e.message for s in subs):
                wrong.append(f"{rel}: {e.message!r} lacks {subs!r}")
            continue
        accepted.append(rel)
    assert accepted == [] and wrong == []
