"""hlo-run --backend=llvm and --compare (LLVM against the interpreter)."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from hlotools.cli.run import main

MODULE = "HloModule m\nENTRY e {\n  x = f32[300] parameter(0)\n  ROOT y = f32[300] tanh(x)\n}\n"


def test_llvm_backend_and_compare(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(MODULE)
    r = CliRunner().invoke(main, [str(path), "--random", "3", "--backend=llvm", "--compare", "--json", "--no-cache"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc["backend"] == "llvm"
    (cmp,) = doc["comparisons"]
    assert cmp["ok"] and "llvm vs interp" in cmp["name"] and cmp["abs_error"] < 1e-6
