"""Session-wide test setup: the LLVM compile cache lives in a fresh folder per test session, so no
test can hit an entry left by an earlier run (or by a user's own hlo-run)."""
from __future__ import annotations

import os
import tempfile

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_compile_cache() -> object:
    if "HLOTOOLS_CACHE_DIR" in os.environ and os.environ.get("HLOTOOLS_TESTS_KEEP_CACHE"):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="hlotools-test-cache-") as folder:
        old = os.environ.get("HLOTOOLS_CACHE_DIR")
        os.environ["HLOTOOLS_CACHE_DIR"] = folder
        yield folder
        if old is None:
            os.environ.pop("HLOTOOLS_CACHE_DIR", None)
        else:
            os.environ["HLOTOOLS_CACHE_DIR"] = old
