"""The shared corpora for the sweep tests: where they are, what their manifests list, and every
file parsed at most once per test process.

Parsing the 1,838 corpus files is most of what the parse, round-trip, verifier and fast-path
sweeps cost; they all start from the same unverified module, so `parsed()` memoises it. The
modules it returns are shared: a test may read, print, verify or evaluate them, never mutate them.
"""
from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import hlotools
from hlotools.ir.module import Module
from tests.support.paths import SHARED

JAX = SHARED / "corpus" / "jax"
XLA = SHARED / "corpus" / "xla"
HAVE_JAX = JAX.is_dir()
HAVE_XLA = (XLA / "MANIFEST.tsv").is_file()


@cache
def manifest() -> tuple[dict[str, str], ...]:
    """MANIFEST.tsv's rows (file, ..., expected, notes); empty without the corpus."""
    if not HAVE_XLA:
        return ()
    with open(XLA / "MANIFEST.tsv", newline="") as f:
        return tuple(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def xla_files(expected: str = "parse_ok") -> list[str]:
    """Paths relative to corpus/xla of the files MANIFEST.tsv marks `expected`."""
    return [r["file"] for r in manifest() if r["expected"] == expected]


def jax_files() -> list[Path]:
    """All 147 JAX corpus texts (49 modules x NAME.hlo, NAME.dump.hlo, NAME.xla_opt.hlo)."""
    return sorted(JAX.glob("*.hlo")) if HAVE_JAX else []


def jax_style(path: Path) -> str:
    """The style XLA printed the file in: NAME.hlo is jax's as_text (short), the others dumps (long)."""
    return "long" if path.name.endswith((".dump.hlo", ".xla_opt.hlo")) else "short"


@cache
def parsed(path: Path) -> Module:
    """The file parsed without verification (raises HloError like parse_module); shared, read-only."""
    return hlotools.parse_module(path.read_text(), str(path), verify=False)
