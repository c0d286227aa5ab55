"""hlo-run against XLA's own results: every JAX corpus module, with its inputs and expected
outputs, must match through the command line (binding, raw bf16 bytes, tolerances, exit 0).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from hlotools.cli.run import main as run_main
from tests.support.paths import SHARED

JAX = SHARED / "corpus" / "jax"
NAMES = sorted(m["name"] for m in json.loads((JAX / "manifest.json").read_text())["modules"]) \
    if (JAX / "manifest.json").exists() else []
# Mixed dtypes (bf16 and f16 raw bytes, ints, preds, complex) in a few fast modules.
QUICK = ["mlp_bf16_mixed", "dtype_converts", "int_bitops", "fft_complex", "embedding_lookup"]

pytestmark = pytest.mark.skipif(not NAMES, reason="../shared/corpus/jax is not present")


def _run(name: str, variant: str = "hlo") -> tuple[int, dict]:
    args = [str(JAX / f"{name}.{variant}"), "--inputs", str(JAX / f"{name}.inputs.npz"),
            "--expected", str(JAX / f"{name}.expected.npz"), "--json"]
    r = CliRunner().invoke(run_main, args)
    return r.exit_code, (json.loads(r.stdout) if r.stdout.startswith("{") else {"error": r.output})


@pytest.mark.parametrize("name", QUICK)
def test_mixed_dtype_modules_match(name: str) -> None:
    code, doc = _run(name)
    assert code == 0, doc
    expected = np.load(JAX / f"{name}.expected.npz")
    assert [o["name"] for o in doc["outputs"]] == sorted(expected.files, key=lambda k: int(k[3:]))
    assert doc["match"] is True


@pytest.mark.slow
def test_every_jax_module_matches_through_hlo_run() -> None:
    failures = {}
    for name in NAMES:
        code, doc = _run(name)
        if code != 0:
            failures[name] = [c for c in doc.get("comparisons", []) if not c["ok"]] or doc
    assert not failures, failures
    assert len(NAMES) == 49
