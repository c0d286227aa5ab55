"""Corpus sweeps: every JAX module and every XLA `parse_ok` file parses (verify=False here;
the verifier has its own sweep). The `parse_error` files are in tests/corpus/test_bad.py."""
from __future__ import annotations

import pytest

from hlotools import parse_module
from hlotools.errors import HloError
from tests.support.corpus import HAVE_JAX, HAVE_XLA, JAX, XLA, jax_files, manifest, parsed, xla_files

needs_jax = pytest.mark.skipif(not HAVE_JAX, reason="shared JAX corpus not present")
needs_xla = pytest.mark.skipif(not HAVE_XLA, reason="shared XLA corpus not present")


@needs_jax
@pytest.mark.slow
def test_every_jax_module_parses() -> None:
    files = jax_files()
    assert len(files) == 147  # 49 modules x 3 print styles
    failures = []
    for path in files:
        try:
            module = parsed(path)
        except HloError as e:
            failures.append(e.format().splitlines()[0])
            continue
        assert module.entry is not None and module.entry.root is not None
    assert failures == []


@needs_jax
def test_jax_styles_are_detected() -> None:
    short = parse_module((JAX / "softmax.hlo").read_text(), verify=False)
    long = parse_module((JAX / "softmax.dump.hlo").read_text(), verify=False)
    assert short.source_style == "short"
    assert long.source_style == "long"
    assert short.stack_frames_text is not None and short.stack_frames_text.startswith("FileNames")
    assert short.stack_frames_text.rstrip().endswith("}")


@needs_xla
@pytest.mark.slow
def test_every_xla_parse_ok_file_parses() -> None:
    files = xla_files("parse_ok")
    assert len(files) == 1691
    failures = []
    for rel in files:
        try:
            parsed(XLA / rel)
        except HloError as e:
            failures.append(e.format().splitlines()[0])
    assert failures == [], f"{len(failures)} of {len(files)} failed; first: {failures[:5]}"


@needs_xla
def test_manifest_verdicts_add_up() -> None:
    """Every MANIFEST row is one of the two verdicts, so no file escapes both sweeps."""
    assert len(xla_files("parse_ok")) + len(xla_files("parse_error")) == 1691 + 110
    assert {r["expected"] for r in manifest()} == {"parse_ok", "parse_error"}
