"""hlo-opt: canonical printing, stdin, -o, --split-input-file, error messages and exit codes."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from hlotools import parse_module
from hlotools.cli import opt
from hlotools.cli.opt import main
from tests.support.paths import ROOT

MLP = ROOT / "testdata" / "models" / "mlp2_relu.hlo"

GOOD = """HloModule good

ENTRY main {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
"""
BAD = """HloModule bad

ENTRY main {
  p = f32[2] parameter(0)
  ROOT r = f32[2] add(p, q)
}
"""
# Parses, but the verifier rejects it: add of f32[2] and f32[3].
ILL_TYPED = """HloModule ill

ENTRY main {
  p = f32[2] parameter(0)
  q = f32[3] parameter(1)
  ROOT r = f32[2] add(p, q)
}
"""


def invoke(args: list[str], input: str | None = None) -> Result:
    return CliRunner().invoke(main, args, input=input)


def test_prints_canonical_module_that_parses_back() -> None:
    r = invoke([str(MLP)])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith("HloModule jit_mlp2_relu")
    again = parse_module(r.stdout)
    assert again.entry is not None and again.entry.root is not None
    assert again.entry.root.opcode == "add"
    assert invoke(["-"], input=r.stdout).stdout == r.stdout  # canonical text is a fixed point


def test_style_long_and_short() -> None:
    long = invoke([str(MLP), "--style=long"]).stdout
    short = invoke([str(MLP), "--style=short"]).stdout
    assert "ENTRY %main.2 (" in long and "%x.1 = f32[32,128]{1,0} parameter(0)" in long
    assert "ENTRY main.2 {" in short and "%" not in short.split("ENTRY", 1)[1]
    # Default: the input's own style (mlp2_relu.hlo is jax's short form).
    assert invoke([str(MLP)]).stdout == short
    assert invoke(["-"], input=long).stdout == long


def test_stdin_and_output_file(tmp_path: Path) -> None:
    out = tmp_path / "o.hlo"
    r = invoke(["-", "-o", str(out)], input=GOOD)
    assert r.exit_code == 0 and r.stdout == ""
    assert "ROOT n = f32[2]{0} negate(p)" in out.read_text()


def test_malformed_hlo_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.hlo"
    path.write_text(BAD)
    r = invoke([str(path)])
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"{path}:5:26: error: ")
    assert "q" in lines[0]
    assert lines[1] == "  ROOT r = f32[2] add(p, q)"
    assert lines[2] == " " * 25 + "^"
    assert "Traceback" not in r.output


def test_stdin_errors_are_named_stdin() -> None:
    r = invoke(["-"], input=BAD)
    assert r.exit_code == 1 and r.stderr.startswith("<stdin>:5:26: error: ")


def test_verifier_errors_and_no_verify() -> None:
    r = invoke(["-"], input=ILL_TYPED)
    assert r.exit_code == 1 and r.stderr.startswith("<stdin>:6:")
    assert "Traceback" not in r.output
    r = invoke(["-", "--no-verify"], input=ILL_TYPED)
    assert r.exit_code == 0 and "add(p, q)" in r.stdout


def test_missing_file_is_one_line_exit_1(tmp_path: Path) -> None:
    r = invoke([str(tmp_path / "nope.hlo")])
    assert r.exit_code == 1
    assert r.stderr == f"{tmp_path / 'nope.hlo'}: error: no such file or directory\n"


def test_not_utf8_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "bin.hlo"
    path.write_bytes(b"HloModule m\n\xff\xfe")
    r = invoke([str(path)])
    assert r.exit_code == 1 and r.stderr.startswith(f"{path}:2:1: error: the input is not UTF-8")


def test_usage_error_exits_2() -> None:
    r = invoke(["--style=medium", str(MLP)])
    assert r.exit_code == 2 and "Invalid value for '--style'" in r.stderr


def test_split_input_file_reports_bad_chunk_at_its_line_in_the_whole_file(tmp_path: Path) -> None:
    text = GOOD + "\n// -----\n\n" + BAD + "// -----\n" + GOOD.replace("good", "good2")
    path = tmp_path / "split.hlo"
    path.write_text(text)
    r = invoke([str(path), "--split-input-file"])
    assert r.exit_code == 1
    bad_line = text.splitlines().index("  ROOT r = f32[2] add(p, q)") + 1
    assert bad_line == 14
    assert r.stderr.startswith(f"{path}:{bad_line}:26: error: ")
    assert r.stderr.splitlines()[1] == "  ROOT r = f32[2] add(p, q)"
    modules = r.stdout.split("\n// -----\n")
    # The header may carry attributes after the name (entry_computation_layout=...).
    assert [m.strip().splitlines()[0].split(",")[0] for m in modules] == ["HloModule good", "HloModule good2"]


def test_split_input_file_output_splits_again(tmp_path: Path) -> None:
    first = invoke(["-", "--split-input-file"], input=GOOD + "// -----\n" + GOOD.replace("good", "g2"))
    assert first.exit_code == 0
    second = invoke(["-", "--split-input-file"], input=first.stdout)
    assert second.exit_code == 0 and second.stdout == first.stdout


def test_separator_without_split_flag_and_near_separator() -> None:
    r = invoke(["-"], input=GOOD + "// -----\n" + GOOD)
    assert r.exit_code == 1
    assert r.stderr.startswith("<stdin>:7:1: error: '// -----' separator found, but --split-input-file")
    r = invoke(["-", "--split-input-file"], input=GOOD + "// ---\n" + GOOD)
    assert r.exit_code == 1 and r.stderr.startswith("<stdin>:7:1: error: unexpected separator")


def test_internal_error_is_one_line_exit_70_and_debug_shows_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> str:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(opt, "process_module", broken)
    r = invoke(["-"], input=GOOD)
    assert r.exit_code == 70
    assert r.stderr == ("internal error: ZeroDivisionError: division by zero "
                        "(run with --debug for a traceback)\n")
    r = invoke(["-", "--debug"], input=GOOD)
    assert r.exit_code == 70 and "Traceback (most recent call last)" in r.stderr


def test_help_teaches_with_examples() -> None:
    r = invoke(["--help"])
    assert r.exit_code == 0
    assert "Examples:" in r.stdout and "--split-input-file" in r.stdout
    assert "hlo-opt model.hlo --style=long" in r.stdout


DEAD = """HloModule d

ENTRY main {
  p = f32[2] parameter(0)
  dead = f32[2] negate(p)
  one = f32[] constant(1)
  b = f32[2] broadcast(one), dimensions={}
  m = f32[2] multiply(p, b)
  ROOT a = f32[2] add(m, m)
}
"""


def test_passes_run_in_order_before_printing() -> None:
    r = invoke(["-", "--passes=dce"], input=DEAD)
    assert r.exit_code == 0, r.output
    assert "negate" not in r.stdout and "multiply(p, b)" in r.stdout
    r = invoke(["-", "--passes=fixed-point(algsimp,cse,dce)"], input=DEAD)
    assert r.exit_code == 0, r.output
    body = r.stdout.split("ENTRY main {", 1)[1]
    assert [x.strip() for x in body.strip().splitlines()] == ["p = f32[2]{0} parameter(0)", "ROOT a = f32[2]{0} add(p, p)", "}"]


def test_unknown_pass_is_a_usage_error_and_list_passes_names_them() -> None:
    r = invoke(["-", "--passes=dce,no-such-pass"], input=DEAD)
    assert r.exit_code == 2 and "unknown pass 'no-such-pass'" in r.stderr
    r = invoke(["--list-passes"])
    assert r.exit_code == 0
    names = [line.split()[0] for line in r.stdout.splitlines()]  # each line: name, description
    assert names == sorted(names) and {"dce", "cse", "algsimp"} <= set(names)


def test_passes_keep_results(tmp_path: Path) -> None:
    from hlotools.cli.run import main as run_main

    optimized = invoke([str(MLP), "--passes=fixed-point(call-inliner,algsimp,cse,dce)"])
    assert optimized.exit_code == 0, optimized.output
    assert "call(" not in optimized.stdout  # the relu call was inlined
    models = ROOT / "testdata" / "models"
    r = CliRunner().invoke(run_main, ["-", "--inputs", str(models / "mlp2_relu.inputs.npz"),
                                      "--expected", str(models / "mlp2_relu.expected.npz")],
                           input=optimized.stdout)
    assert r.exit_code == 0, r.output


def test_failure_while_parsing_options_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(spec: str) -> list:
        raise ImportError("cannot import a pass")

    monkeypatch.setattr(opt, "parse_pipeline", broken)
    r = invoke(["-", "--passes=dce"], input=GOOD)
    assert r.exit_code == 70
    assert r.stderr == "internal error: ImportError: cannot import a pass (run with --debug for a traceback)\n"
