"""The backend's tests build ModuleCompilers directly (codegen only reads the dispatch tables, which
the driver has lower.load() fill): load the lowerings once for them, as the driver does."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _lowerings_loaded() -> None:
    from hlotools.backend.llvm import load_emitters
    load_emitters()
