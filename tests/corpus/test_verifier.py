"""Corpus sweeps: shape inference agrees with every declared shape, and the verifier accepts
every valid module and rejects exactly the modules listed in testdata/verifier_known_invalid.tsv
(each with its listed message), so neither the list nor the verifier can drift."""
from __future__ import annotations

import json
from collections.abc import Iterable

import pytest

from hlotools.errors import HloError
from hlotools.ir.module import Module
from hlotools.ir.shape_inference import infer_shape
from hlotools.ir.shape_inference_common import same_dims_type
from hlotools.ir.verifier import verify
from tests.support.corpus import HAVE_JAX, HAVE_XLA, XLA, jax_files, manifest, parsed, xla_files
from tests.support.paths import ROOT

KNOWN_INVALID = ROOT / "testdata" / "verifier_known_invalid.tsv"

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not HAVE_XLA, reason="shared corpus absent")]


def known_invalid() -> dict[str, str]:
    """file -> message substring the verifier must report."""
    rows = KNOWN_INVALID.read_text().splitlines()[1:]
    return {r.split("\t")[0]: r.split("\t")[2] for r in rows if r.strip()}


def xla_modules() -> dict[str, Module]:
    """Every MANIFEST parse_ok file, parsed once per session (unverified)."""
    return {f: parsed(XLA / f) for f in xla_files("parse_ok")}


def jax_modules() -> dict[str, Module]:
    return {p.name: parsed(p) for p in jax_files()}


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


def instruction_count(modules: Iterable[Module]) -> int:
    return sum(len(c.instructions) for m in modules for c in m.computations)


def verify_message(module: Module) -> str | None:
    try:
        verify(module)
    except HloError as e:
        return e.message
    return None


@pytest.mark.skipif(not HAVE_JAX, reason="shared JAX corpus absent")
def test_jax_corpus_shapes_and_verifier() -> None:
    modules = jax_modules()
    assert len(modules) == 147
    assert instruction_count(modules.values()) == 16127  # every declared shape below is checked
    bad = {name: shape_disagreements(m) for name, m in modules.items()}
    assert {k: v for k, v in bad.items() if v} == {}
    assert {name: msg for name, m in modules.items() if (msg := verify_message(m))} == {}


def test_xla_corpus_shape_inference_agrees_outside_known_invalid() -> None:
    invalid = known_invalid()
    valid = {f: m for f, m in xla_modules().items() if f not in invalid}
    assert (len(valid), len(invalid), instruction_count(valid.values())) == (1691 - 59, 59, 55093)
    bad = {f: d for f, m in valid.items() if (d := shape_disagreements(m))}
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
    verdicts = {r["file"]: r["expected"] for r in manifest()}
    assert all(verdicts.get(f) == "parse_ok" for f in files)
