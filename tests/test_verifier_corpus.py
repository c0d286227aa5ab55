"""Corpus sweeps: shape inference agrees with every declared shape, and the verifier accepts
every valid module and rejects exactly the modules listed in testdata/verifier_known_invalid.tsv
(each with its listed message), so neither the list nor the verifier can drift."""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

import hlotools
from hlotools.errors import HloError
from hlotools.ir.module import Module
from hlotools.ir.shape_inference import infer_shape
from hlotools.ir.shape_inference_common import same_dims_type
from hlotools.ir.verifier import verify

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
XLA = SHARED / "corpus" / "xla"
JAX = SHARED / "corpus" / "jax"
KNOWN_INVALID = ROOT / "testdata" / "verifier_known_invalid.tsv"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (XLA / "MANIFEST.tsv").exists(), reason="shared corpus absent")]


def known_invalid() -> dict[str, str]:
    """file -> message substring the verifier must report."""
    rows = KNOWN_INVALID.read_text().splitlines()[1:]
    return {r.split("\t")[0]: r.split("\t")[2] for r in rows if r.strip()}


@cache
def xla_modules() -> dict[str, Module]:
    """Every MANIFEST parse_ok file, parsed once (unverified)."""
    out = {}
    for line in (XLA / "MANIFEST.tsv").read_text().splitlines()[1:]:
        f = line.split("\t")
        if f[3] == "parse_ok":
            out[f[0]] = hlotools.parse_module((XLA / f[0]).read_text(), f[0], verify=False)
    return out


@cache
def jax_modules() -> dict[str, Module]:
    return {p.name: hlotools.parse_module(p.read_text(), p.name, verify=False)
            for p in sorted(JAX.glob("*.hlo"))}


def shape_disagreements(module: Module) -> list[str]:
    """Instructions whose declared shape differs from the inferred one (layouts ignored)."""
    bad = []
    for comp in module.computations:
        for inst in comp.instructions:
            try:
                if not same_dims_type(infer_shape(inst), inst.shape):
                    bad.append(inst.name)
            except HloError as e:
                bad.append(f"{inst.name}: {e.message}")
    return bad


def verify_message(module: Module) -> str | None:
    try:
        verify(module)
    except HloError as e:
        return e.message
    return None


def test_jax_corpus_shapes_and_verifier() -> None:
    modules = jax_modules()
    assert len(modules) == 147
    counted = sum(len(c.instructions) for m in modules.values() for c in m.computations)
    assert counted > 10000
    bad = {name: shape_disagreements(m) for name, m in modules.items()}
    assert {k: v for k, v in bad.items() if v} == {}
    assert {name: msg for name, m in modules.items() if (msg := verify_message(m))} == {}


def test_xla_corpus_shape_inference_agrees_outside_known_invalid() -> None:
    invalid = known_invalid()
    bad = {f: d for f, m in xla_modules().items() if f not in invalid and (d := shape_disagreements(m))}
    assert bad == {}


def test_xla_corpus_verifier_rejects_exactly_the_known_invalid() -> None:
    invalid = known_invalid()
    rejected = {f: msg for f, m in xla_modules().items() if (msg := verify_message(m))}
    assert sorted(set(rejected) - set(invalid)) == [], json.dumps(
        {f: rejected[f] for f in set(rejected) - set(invalid)}, indent=1)
    assert sorted(set(invalid) - set(rejected)) == []
    wrong = {f: (invalid[f], rejected[f]) for f in invalid if invalid[f] not in rejected[f]}
    assert wrong == {}


def test_known_invalid_list_is_well_formed() -> None:
    rows = [r.split("\t") for r in KNOWN_INVALID.read_text().splitlines()]
    assert rows[0] == ["file", "xla", "message", "reason"]
    assert all(len(r) == 4 and r[3] for r in rows[1:])
    files = [r[0] for r in rows[1:]]
    assert len(files) == len(set(files))
    manifest = {line.split("\t")[0]: line.split("\t")[3]
                for line in (XLA / "MANIFEST.tsv").read_text().splitlines()[1:]}
    assert all(manifest.get(f) == "parse_ok" for f in files)
