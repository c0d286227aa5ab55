"""The README's Python API section runs as written: its python blocks, in order, in one
namespace, from the repository's root (a changed API breaks this test, not a reader)."""
from __future__ import annotations

import re

import pytest

from tests.support.paths import ROOT

SECTION = re.compile(r"^## Python API\n(.*?)^## ", re.S | re.M)
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks() -> list[str]:
    found = SECTION.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert found, "README.md has no '## Python API' section"
    return BLOCK.findall(found.group(1))


def test_the_section_shows_the_api() -> None:
    code = "\n".join(_blocks())
    for name in ("parse_module", "print_module", "evaluate", "run_pipeline", "compile", "Rewriter", "HloError"):
        assert f"hlotools.{name}" in code, name


def test_the_python_blocks_run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {"__name__": "readme"}
    blocks = _blocks()
    assert len(blocks) >= 4
    for k, block in enumerate(blocks):
        exec(compile(block, f"README.md python block {k + 1}", "exec"), namespace)  # noqa: S102
    out = capsys.readouterr().out
    assert "HloModule" in out and "bad.hlo:3:" in out and "kernels," in out and "fusion" in out
