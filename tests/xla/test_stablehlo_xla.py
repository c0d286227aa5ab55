"""Our StableHLO import, run by real XLA CPU (xla_ref.py's venv; skipped without it): the HLO text
the front end writes for JAX's programs (all of testdata/stablehlo) parses in XLA, compiles, and computes the outputs JAX
got from XLA for the StableHLO itself (chlo decompositions, Shardy shardings, composites:
in XLA's forms, so XLA's backends compile them)."""
from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.corpus.test_interpreter import assert_matches, op_class
from tests.support.paths import TESTDATA
from tests.support.xla_batch import AVAILABLE, run_in_xla
from tests.text.stablehlo.test_corpus import PROGRAMS as ALL_PROGRAMS
from tests.text.stablehlo.test_corpus import _data

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="no XLA reference venv")

DATA = TESTDATA / "stablehlo"
# Every program but x_ragged_dot: its ragged-dot (what XLA's own translator makes of it too) is
# refused by XLA:CPU.
PROGRAMS = [n for n in ALL_PROGRAMS if n != "x_ragged_dot"]


def test_imported_programs_run_in_xla_to_jaxs_outputs(tmp_path: Path) -> None:
    from hlotools.text.stablehlo import parse_stablehlo, stablehlo_to_hlo
    names = [n for n in PROGRAMS if _data(n) is not None]
    assert len(names) >= 50
    for name in names:
        (tmp_path / f"{name}.hlo").write_text(stablehlo_to_hlo((DATA / f"{name}.mlir").read_text()))
        shutil.copy(_data(name)[0], tmp_path / f"{name}.in.npz")  # type: ignore[index]
    results = run_in_xla([tmp_path / f"{n}.hlo" for n in names])
    for name, result in zip(names, results):
        assert not isinstance(result, str), f"{name}: XLA: {result}"
        module = parse_stablehlo((DATA / f"{name}.mlir").read_text())
        klass = op_class({i.opcode for c in module.computations for i in c.instructions})
        with np.load(_data(name)[1]) as f:  # type: ignore[index]
            want = [f[f"out{i}"] for i in range(len(f.files))]
        assert len(result) == len(want), name
        for i, ((dtype, _, data), w) in enumerate(zip(result, want)):
            got = np.frombuffer(bytes.fromhex(data), dtype).reshape(w.shape)
            w = w.view(got.dtype) if w.dtype.kind == "V" else w  # bf16 and f8 come back from .npz as bytes
            assert_matches(got.astype(w.dtype) if dtype == "bool" else got, w, klass, f"{name} out{i}")
