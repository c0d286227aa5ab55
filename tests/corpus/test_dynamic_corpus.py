"""XLA's own modules with bounded dynamic dims (corpus/xla: `f32[<=N]` shapes) parse, verify,
pad to a valid static module and run on both backends at sizes below their bounds, the two
agreeing (integers exactly); where GROUND_TRUTH.tsv has XLA's outputs, they match those."""
from __future__ import annotations

import csv
import re
from functools import cache

import numpy as np
import pytest

import hlotools
from hlotools.ir.module import Module
from tests.support.corpus import HAVE_XLA, XLA, parsed, xla_files
from tests.support.paths import ROOT

pytestmark = pytest.mark.skipif(not HAVE_XLA, reason="shared corpus absent")
DYNAMIC_DIM = re.compile(r"[\[,]\s*<=\d")


@cache
def dynamic_files() -> list[str]:
    return [f for f in xla_files("parse_ok") if DYNAMIC_DIM.search((XLA / f).read_text())]


@cache
def known_invalid() -> set[str]:
    rows = (ROOT / "testdata" / "verifier_known_invalid.tsv").read_text().splitlines()[1:]
    return {r.split("\t")[0] for r in rows if r.strip()}


@cache
def with_reference() -> set[str]:
    with open(XLA / "GROUND_TRUTH.tsv", newline="") as f:
        return {r["file"] for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
                if r["has_reference"] == "yes"}


def _arguments(module: Module, rng: np.random.Generator) -> list[np.ndarray]:
    """Dynamic dims at half their bound; s32 scalars 1 (they are sizes in these modules)."""
    assert module.entry is not None
    args = []
    for p in module.entry.parameters:
        for leaf in p.shape.leaves():
            dims = tuple((n + 1) // 2 if leaf.is_dynamic_dim(d) else n for d, n in enumerate(leaf.dims))
            if leaf.rank == 0 and leaf.dtype == np.int32:
                args.append(np.asarray(1, np.int32))
            elif leaf.dtype.kind in "iu":
                args.append(rng.integers(-8, 8, dims).astype(leaf.dtype))
            elif leaf.dtype.kind == "b":
                args.append(rng.integers(0, 2, dims).astype(bool))
            else:
                args.append(rng.standard_normal(dims).astype(leaf.dtype))
    return args


def test_the_corpus_has_its_dynamic_modules() -> None:
    assert len(dynamic_files()) >= 18, dynamic_files()


@pytest.mark.parametrize("name", dynamic_files())
def test_dynamic_module_pads_and_runs(name: str) -> None:
    from hlotools.backend.llvm import compile_module
    module = parsed(XLA / name)
    if name in known_invalid():
        pytest.skip("invalid for reasons of its own (testdata/verifier_known_invalid.tsv)")
    hlotools.verify_module(module)
    padded, _ = hlotools.pad_dynamic(module)
    hlotools.verify_module(padded)
    assert all(i.shape.is_static for c in padded.computations for i in c.instructions)
    args = _arguments(module, np.random.default_rng(0))
    with np.errstate(all="ignore"):
        want = hlotools.evaluate(module, args)
        got = compile_module(module)(args)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        assert np.array_equal(g, w, equal_nan=w.dtype.kind == "f"), name
    if name in with_reference():
        stem = XLA / "expected" / name.removesuffix(".hlo")
        ref = np.load(f"{stem}.inputs.npz")
        expected = np.load(f"{stem}.expected.npz")
        outs = hlotools.evaluate(module, [ref[k] for k in ref.files])
        for k, o in zip(expected.files, outs):
            np.testing.assert_allclose(o, expected[k], rtol=1e-5)
