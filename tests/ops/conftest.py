"""tests/ops/: per-opcode semantics, each family in one file. A case that takes the `backend`
fixture runs on the interpreter and on the LLVM backend, against the same expected values."""
from __future__ import annotations

import pytest

from tests.support.runner import BACKENDS


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)
