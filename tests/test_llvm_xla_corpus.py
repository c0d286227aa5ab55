"""Differential: the LLVM backend reproduces XLA's reference outputs for every runnable
module of ../shared/corpus/xla (GROUND_TRUTH.tsv has_reference), with the interpreter's
tolerances, skips and strict xfails (the same unspecified behaviours), plus the cases below.
A module that needs an op the backend refuses xfails naming it (HloUnsupportedError)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_interpreter_corpus import XLA, XLA_SKIP, XLA_XFAIL, _leaf_dtypes, _load, _xla_rows, assert_matches, op_class

_TIES = ("unstable sort with equal keys: the backend sorts stably, XLA (and the interpreter, which replays "
         "libstdc++'s std::sort) leave ties in introsort order")
LLVM_XFAIL: dict[str, str] = {
    "parser_test/parser_test_0121.hlo": _TIES,
    "parser_test/parser_test_0122.hlo": _TIES,
    "hlo_files/hlofile_0560.hlo": _TIES,
}


def _cases() -> list:
    out = []
    for row in _xla_rows():
        f = row["file"]
        marks = []
        reason = XLA_XFAIL.get(f) or LLVM_XFAIL.get(f)
        if reason:
            marks.append(pytest.mark.xfail(reason=reason, strict=True))
        if f in XLA_SKIP:
            marks.append(pytest.mark.skip(reason=XLA_SKIP[f]))
        out.append(pytest.param(f, marks=marks, id=f))
    return out


@pytest.mark.slow
@pytest.mark.skipif(not XLA.is_dir(), reason="shared/corpus/xla is absent")
@pytest.mark.parametrize("file", _cases())
def test_llvm_xla_corpus(file: str) -> None:
    import hlotools
    from hlotools.backend.llvm import compile_module
    from hlotools.backend.llvm.registry import UNSUPPORTED
    from hlotools.errors import HloUnsupportedError

    path = XLA / file
    stem = XLA / "expected" / file[:-4]
    module = hlotools.parse_module(path.read_text(), str(path), verify=False)
    in_dt, out_dt = _leaf_dtypes(module)
    with np.load(Path(f"{stem}.inputs.npz")) as f:
        args = _load(f, "in", in_dt)
    with np.load(Path(f"{stem}.expected.npz")) as f:
        want = _load(f, "out", out_dt)
    try:
        compiled = compile_module(module)
    except HloUnsupportedError as e:
        refused = [op for op in UNSUPPORTED if f"{op} %" in str(e)]
        if refused:
            pytest.xfail(f"needs {refused[0]}: {UNSUPPORTED[refused[0]]}")
        raise
    got = compiled(args)
    klass = op_class({i.opcode for c in module.computations for i in c.instructions})
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert_matches(np.asarray(g), w, klass, f"{file} out{i}")
