"""Differential: the LLVM backend reproduces XLA's outputs for every module of
../shared/corpus/jax (same tolerances as the interpreter's corpus test). Modules using an op
the backend does not lower yet are strict xfails naming the op, so progress shows."""
from __future__ import annotations

import numpy as np
import pytest

from tests.corpus.test_interpreter import JAX, _leaf_dtypes, _load, assert_matches, op_class

# module -> the construct it needs that the LLVM backend refuses (HloUnsupportedError).
MISSING: dict[str, str] = {}


def _cases() -> list:
    if not JAX.is_dir():
        return []
    names = sorted(p.name[:-4] for p in JAX.glob("*.hlo") if p.name.count(".") == 1)
    out = []
    for n in names:
        marks = [pytest.mark.xfail(reason=f"needs {MISSING[n]}", strict=True)] if n in MISSING else []
        for style in ("hlo", "dump.hlo"):
            out.append(pytest.param(n, style, marks=marks, id=f"{n}.{style}"))
    return out


@pytest.mark.slow
@pytest.mark.skipif(not JAX.is_dir(), reason="shared/corpus/jax is absent")
@pytest.mark.parametrize("name,style", _cases())
def test_llvm_jax_corpus(name: str, style: str) -> None:
    import hlotools
    from hlotools.backend.llvm import compile_module
    from hlotools.errors import HloUnsupportedError

    path = JAX / f"{name}.{style}"
    module = hlotools.parse_module(path.read_text(), str(path), verify=False)
    in_dt, out_dt = _leaf_dtypes(module)
    with np.load(JAX / f"{name}.inputs.npz") as f:
        args = _load(f, "in", in_dt)
    with np.load(JAX / f"{name}.expected.npz") as f:
        want = _load(f, "out", out_dt)
    try:
        compiled = compile_module(module)
    except HloUnsupportedError as e:
        if name in MISSING:
            assert MISSING[name] in str(e), f"expected the missing op {MISSING[name]} in: {e}"
        raise
    got = compiled(args)
    klass = op_class({i.opcode for c in module.computations for i in c.instructions})
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert_matches(np.asarray(g), w, klass, f"{name} out{i}")
