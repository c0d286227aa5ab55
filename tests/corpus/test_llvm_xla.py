"""Differential: the LLVM backend (after the -O2 pipeline hlo-run uses) reproduces XLA's
outputs for every module of ../shared/corpus/xla with reference data (GROUND_TRUTH.tsv
has_reference=yes), with the interpreter corpus test's loading and tolerances.

Each module runs in a sandboxed worker process (tests/support/llvm_sandbox.py): generated code
that crashes fails its own test, naming the signal, and the sweep goes on.

Cost: the sweep is dominated by LLVM compile time; measured at ~70 s for all 956 modules on
one core (the longest are two while loops of ~7 s each), so the whole sweep runs by default.
HLOTOOLS_FULL_SWEEP=0 runs a deterministic subset instead: every 8th module plus every
module that holds an opcode no earlier-chosen module has (`representative_subset`).

Expectations besides a pass, each with its reason:
* MISSING: the backend refuses the module with HloUnsupportedError naming the op (strict
  xfail; the message must name it, so the xfail cannot hide another failure).
* XLA_XFAIL of the interpreter test, for the same reasons (HLO leaves the result
  unspecified and XLA chose differently).
* Infinite loops are skipped as for the interpreter; the other long loops of the
  interpreter's skip list run here (native code finishes them in seconds).
"""
from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest

from tests.corpus.test_interpreter import _INFINITE, XLA, XLA_SKIP, XLA_XFAIL, _xla_rows
from tests.support.llvm_sandbox import run_in_sandbox

# module -> the op the LLVM backend refuses in it (HloUnsupportedError).
MISSING: dict[str, str] = {}

XFAIL: dict[str, str] = {
    **{f: r for f, r in XLA_XFAIL.items()},
}
SKIP: dict[str, str] = {f: r for f, r in XLA_SKIP.items() if r == _INFINITE or f.startswith("bad/")}
SUBSET_STRIDE = 8
TIMEOUT_S = 120.0


@cache
def _facts(file: str) -> tuple[frozenset[str], bool]:
    """The module's opcodes and whether its entry takes integer arguments (no opcodes when
    it does not parse: bad/ files, which the sweep skips)."""
    import hlotools
    from hlotools.errors import HloError
    path = XLA / file
    try:
        module = hlotools.parse_module(path.read_text(), str(path), verify=False)
    except HloError:
        return frozenset(), False
    ints = any(leaf.element_type is not None and leaf.element_type.kind in ("signed", "unsigned")
               for p in module.entry.parameters for leaf in p.shape.leaves())  # type: ignore[union-attr]
    return frozenset(i.opcode for c in module.computations for i in c.instructions), ints


def _opcodes(file: str) -> frozenset[str]:
    return _facts(file)[0]


def representative_subset(files: list[str], stride: int = SUBSET_STRIDE) -> list[str]:
    """Every `stride`-th file, then every file with an opcode none of the chosen ones has
    (deterministic: files in GROUND_TRUTH order)."""
    chosen = files[::stride]
    seen: set[str] = set()
    for f in chosen:
        seen |= _opcodes(f)
    for f in files:
        new = _opcodes(f) - seen
        if new and f not in chosen:
            chosen.append(f)
            seen |= new
    return sorted(chosen, key=files.index)


def _full_sweep() -> bool:
    return os.environ.get("HLOTOOLS_FULL_SWEEP", "1") != "0"


def _cases() -> list:
    files = [r["file"] for r in _xla_rows()]
    if not _full_sweep():
        files = representative_subset(files)
    out = []
    for file in files:
        marks = []
        if file in MISSING:
            marks.append(pytest.mark.xfail(reason=f"the LLVM backend refuses {MISSING[file]}", strict=True))
        elif file in XFAIL:
            marks.append(pytest.mark.xfail(reason=XFAIL[file], strict=True))
        if file in SKIP:
            marks.append(pytest.mark.skip(reason=SKIP[file]))
        out.append(pytest.param(file, marks=marks, id=file))
    return out


@pytest.mark.slow
@pytest.mark.skipif(not XLA.is_dir(), reason="shared/corpus/xla is absent")
@pytest.mark.parametrize("file", _cases())
def test_llvm_xla_corpus(file: str) -> None:
    from hlotools.errors import HloUnsupportedError
    stem = XLA / "expected" / file[:-4]
    request = {"fn": "check_reference", "file": str(XLA / file), "inputs": f"{stem}.inputs.npz",
               "expected": f"{stem}.expected.npz"}
    try:
        run_in_sandbox(request, file, timeout=TIMEOUT_S)
    except HloUnsupportedError as e:
        if file in MISSING:
            assert MISSING[file] in str(e), f"expected the refused op {MISSING[file]!r} in: {e}"
        raise


def _wild_cases() -> list:
    out = []
    for file in (r["file"] for r in _xla_rows()):
        if file in SKIP or not _facts(file)[1]:
            continue
        marks = []
        if file in MISSING:
            marks.append(pytest.mark.xfail(reason=f"the LLVM backend refuses {MISSING[file]}", strict=True))
        out.append(pytest.param(file, marks=marks, id=file))
    return out


@pytest.mark.slow
@pytest.mark.skipif(not XLA.is_dir(), reason="shared/corpus/xla is absent")
@pytest.mark.parametrize("file", _wild_cases())
def test_llvm_xla_corpus_wild_integers(file: str) -> None:
    """Safety: every reference module with integer arguments, fed integers over the whole
    range of their types (gather/scatter/dynamic-slice starts far out of bounds, huge shift
    counts, INT_MIN / -1), gives the interpreter's results (XLA's clamping) and never
    crashes. About 200 modules, ~15 s."""
    from hlotools.errors import HloUnsupportedError
    request = {"fn": "check_against_interpreter", "text": (XLA / file).read_text(), "filename": str(XLA / file),
               "preset": "O2", "wild_ints": True}
    try:
        run_in_sandbox(request, file, timeout=TIMEOUT_S)
    except HloUnsupportedError as e:
        if file in MISSING:
            assert MISSING[file] in str(e), f"expected the refused op {MISSING[file]!r} in: {e}"
        raise


@pytest.mark.skipif(not XLA.is_dir(), reason="shared/corpus/xla is absent")
def test_subset_covers_every_opcode() -> None:
    """The subset run with HLOTOOLS_FULL_SWEEP=0 holds every opcode of the full sweep."""
    files = [r["file"] for r in _xla_rows()]
    subset = representative_subset(files)
    assert len(files) // SUBSET_STRIDE <= len(subset) < len(files)
    everything: set[str] = set().union(*(_opcodes(f) for f in files))
    assert set().union(*(_opcodes(f) for f in subset)) == everything


def test_expectations_name_reference_modules() -> None:
    """Every expectation names a module that has reference data (no stale entries)."""
    if not XLA.is_dir():
        pytest.skip("shared/corpus/xla is absent")
    files = {r["file"] for r in _xla_rows()}
    for table in (MISSING, XFAIL, SKIP):
        stale = sorted(set(table) - files)
        assert not stale, f"not reference modules: {stale}"
    assert Path(XLA / "GROUND_TRUTH.tsv").is_file()
