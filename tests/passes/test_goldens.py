"""Golden pass tests: testdata/passes/<pass>/<case>.hlo hold a `// RUN: hlo-opt %s --passes=...`
line and `// CHECK:` lines, checked in-process with the filecheck package. Every registered
pass has its own folder with a `nothing_to_do.hlo` case."""
from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from filecheck.matcher import Matcher
from filecheck.options import Options

import hlotools
from hlotools.ir import semantics
from hlotools.passes.manager import ManagerOptions, PassManager
from hlotools.passes.pipeline import parse_pipeline
from hlotools.passes.registry import PASSES
from tests.support.paths import TESTDATA

ROOT = TESTDATA / "passes"
CASES = sorted(ROOT.glob("*/*.hlo"))


def _run_line(text: str) -> list[str]:
    for line in text.splitlines():
        if line.startswith("// RUN:"):
            args = shlex.split(line[len("// RUN:"):].split("|")[0])
            assert args[0] == "hlo-opt" and args[1] == "%s", line
            return args[2:]
    raise AssertionError("no // RUN: line")


def run_hlo_opt_in_process(path: Path) -> str:
    text = path.read_text()
    args = _run_line(text)
    passes = next(a.split("=", 1)[1] for a in args if a.startswith("--passes="))
    style = next((a.split("=", 1)[1] for a in args if a.startswith("--style=")), None)
    choice = next((a.split("=", 1)[1] for a in args if a.startswith("--semantics=")), semantics.current())
    module = hlotools.parse_module(text, str(path))
    with semantics.using(choice):  # `--semantics=spec`: a golden of the spec answer
        PassManager(ManagerOptions(verify_each=True)).run(module, parse_pipeline(passes))
    return hlotools.print_module(module, style or module.source_style or "short")


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_golden(path: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.hlo"
    out.write_text(run_hlo_opt_in_process(path))
    opts = Options(match_filename=str(path), input_file=str(out))
    assert Matcher.from_opts(opts).run() == 0, f"FileCheck failed for {path.name}; output:\n{out.read_text()}"


def test_every_pass_has_goldens_with_a_nothing_to_do_case() -> None:
    for name in PASSES:
        folder = ROOT / name
        assert (folder / "nothing_to_do.hlo").is_file(), f"pass {name} lacks testdata/passes/{name}/nothing_to_do.hlo"
        assert len(list(folder.glob("*.hlo"))) >= 2, f"pass {name} has no golden besides nothing_to_do"
