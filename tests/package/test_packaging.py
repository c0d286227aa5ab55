"""The wheel must carry the grammar: a non-editable install has to work from any folder."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import ROOT


@pytest.mark.slow
def test_wheel_contains_grammar_and_entry_points(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                          "-q", "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True)
    if out.returncode != 0 and "No module named" in out.stderr:
        pytest.skip("pip wheel unavailable: " + out.stderr.splitlines()[-1])
    assert out.returncode == 0, out.stderr
    wheel = next(tmp_path.glob("hlotools-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "hlotools/grammar/hlo.lark" in names
    for page in ("viewer.html", "viewer.js", "report.html", "report.js"):  # the HTML views' templates
        assert f"hlotools/graph/{page}" in names
    assert "hlotools/text/parser.py" in names
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry).decode()
    for script in ("hlo-opt", "hlo-run", "hlo-translate"):
        assert script in text


def test_grammar_resource_is_importable() -> None:
    from importlib import resources

    text = resources.files("hlotools.grammar").joinpath("hlo.lark").read_text()
    assert "start" in text or "module" in text
