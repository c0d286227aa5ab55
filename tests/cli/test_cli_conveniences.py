"""--version, LLVM's single-dash spellings, several inputs, empty input, --save-inputs, JSON errors."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from hlotools.cli.bench import main as bench_main
from hlotools.cli.diff import main as diff_main
from hlotools.cli.opt import main as opt_main
from hlotools.cli.run import main as run_main
from hlotools.cli.translate import main as translate_main
from tests.support.helpers import DEAD

NEG = "HloModule neg\nENTRY e {\n  p = f32[3] parameter(0)\n  ROOT n = f32[3] negate(p)\n}\n"


@pytest.mark.parametrize("main, prog", [(opt_main, "hlo-opt"), (run_main, "hlo-run"),
                                        (translate_main, "hlo-translate"), (diff_main, "hlo-diff"),
                                        (bench_main, "hlo-bench")])
def test_every_tool_has_version(main: object, prog: str) -> None:
    r = CliRunner().invoke(main, ["--version"], prog_name=prog)  # type: ignore[arg-type]
    assert r.exit_code == 0
    assert r.stdout.startswith(f"{prog} (hlotools) ") and r.stdout.strip().split()[-1][0].isdigit()


def test_llvm_single_dash_long_options() -> None:
    r = CliRunner().invoke(opt_main, ["-", "-passes=dce", "-time-passes", "-print-after-all"], input=DEAD)
    assert r.exit_code == 0, r.output
    assert "pass execution timing report" in r.stderr and "// -----// after dce" in r.stderr
    r = CliRunner().invoke(opt_main, ["-", "-print-after-al"], input=DEAD)
    assert r.exit_code == 2 and "no such option: -print-after-al; did you mean --print-after-all?" in r.stderr
    r = CliRunner().invoke(opt_main, ["-", "-vv", "-O1", "-o", "-"], input=DEAD)  # short options still work
    assert r.exit_code == 0 and "HloModule dead" in r.stdout


def test_several_input_files(tmp_path: Path) -> None:
    a, b, bad = tmp_path / "a.hlo", tmp_path / "b.hlo", tmp_path / "bad.hlo"
    a.write_text(DEAD)
    b.write_text(NEG)
    bad.write_text("HloModule x\nENTRY e {\n")
    r = CliRunner().invoke(opt_main, [str(a), str(b), "--passes=dce", "--dump-dir", str(tmp_path / "d")])
    assert r.exit_code == 0, r.output
    first, second = r.stdout.split("\n// -----\n")
    assert "HloModule dead" in first and "HloModule neg" in second
    names = {p.name for p in (tmp_path / "d").iterdir()}
    assert "module_0000.dead.after_optimizations.txt" in names and "module_0001.neg.after_optimizations.txt" in names
    r = CliRunner().invoke(opt_main, [str(bad), str(b)])
    assert r.exit_code == 1 and "HloModule neg" in r.stdout and r.stderr.startswith(f"{bad}:")


def test_an_empty_file_says_empty_input(tmp_path: Path) -> None:
    empty = tmp_path / "empty.hlo"
    empty.write_text("\n  \n")
    for main in (opt_main, run_main, translate_main):
        r = CliRunner().invoke(main, [str(empty)])
        assert r.exit_code == 1
        assert r.stderr == f"{empty}: error: empty input (no HLO module in it)\n"


def test_save_inputs_saves_the_random_arguments_as_inputs_reads_them(tmp_path: Path) -> None:
    module = tmp_path / "m.hlo"
    module.write_text("HloModule m\nENTRY e {\n  x = f32[3] parameter(0)\n  y = s32[2] parameter(1)\n"
                      "  n = f32[3] negate(x)\n  ROOT t = (f32[3], s32[2]) tuple(n, y)\n}\n")
    saved = tmp_path / "in.npz"
    first = CliRunner().invoke(run_main, [str(module), "--random", "3", "--save-inputs", str(saved), "--json",
                                          "--backend=interp", "-o", str(tmp_path / "out.npz")])
    assert first.exit_code == 0, first.output
    with np.load(saved) as z:
        assert sorted(z.files) == ["in0", "in1"] and z["in0"].dtype == np.float32 and z["in1"].dtype == np.int32
        with np.load(tmp_path / "out.npz") as out:
            np.testing.assert_array_equal(out["out0"], -z["in0"])
            np.testing.assert_array_equal(out["out1"], z["in1"])
    again = CliRunner().invoke(run_main, [str(module), "--inputs", str(saved), "--json", "--backend=interp"])
    assert json.loads(again.stdout)["outputs"] == json.loads(first.stdout)["outputs"]


def test_errors_are_json_under_json(tmp_path: Path) -> None:
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\nENTRY e {\n  ROOT x = f32[2] negate(q)\n}\n")
    r = CliRunner().invoke(run_main, [str(bad), "--random", "0", "--json"])
    assert r.exit_code == 1
    doc = json.loads(r.stdout)["error"]
    assert doc["file"] == str(bad) and doc["line"] == 3 and "q" in doc["message"]
    r = CliRunner().invoke(run_main, [str(bad), "--random", "0", "--inputs", "x.npy", "--json"])
    assert r.exit_code == 2 and json.loads(r.stdout)["error"]["exit_code"] == 2


def test_save_inputs_keys_leaves_by_position_past_a_token(tmp_path: Path) -> None:
    module = tmp_path / "t.hlo"
    module.write_text("HloModule t\nENTRY e {\n  tk = token[] parameter(0)\n  x = f32[2] parameter(1)\n"
                      "  ROOT n = f32[2] negate(x)\n}\n")
    saved = tmp_path / "in.npz"
    r = CliRunner().invoke(run_main, [str(module), "--random", "1", "--save-inputs", str(saved), "--backend=interp"])
    assert r.exit_code == 0, r.output
    with np.load(saved) as z:
        assert z.files == ["in1"]
    again = CliRunner().invoke(run_main, [str(module), "--inputs", str(saved), "--backend=interp"])
    assert again.exit_code == 0 and again.stdout == r.stdout
