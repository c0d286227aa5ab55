"""Where the tests find the repository, its test data and the shared corpora, wherever a test file
sits in the tree (a moved test keeps its paths, and no file counts `parents[...]` itself)."""
from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
TESTDATA = ROOT / "testdata"
SHARED = ROOT.parent / "shared"
