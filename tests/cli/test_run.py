"""hlo-run: binding inputs, results as summaries/literals/npz/JSON, --expected, error exits."""
from __future__ import annotations

import json
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from click.testing import CliRunner, Result

from hlotools.cli import backends
from hlotools.cli.run import main
from tests.support.paths import ROOT

MODELS = ROOT / "testdata" / "models"
MLP = MODELS / "mlp2_relu.hlo"
MLP_IN = MODELS / "mlp2_relu.inputs.npz"
MLP_OUT = MODELS / "mlp2_relu.expected.npz"

# A tuple parameter (two leaves) and a bf16 parameter; the result has three leaves.
TUPLE = """HloModule tup

ENTRY main {
  p = (f32[2], s32[]) parameter(0)
  q = bf16[2] parameter(1)
  a = f32[2] get-tuple-element(p), index=0
  b = s32[] get-tuple-element(p), index=1
  qc = f32[2] convert(q)
  s = f32[2] add(a, qc)
  ROOT t = (f32[2], s32[], bf16[2]) tuple(s, b, q)
}
"""
NEG = """HloModule neg

ENTRY main {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
"""
ELIDED = """HloModule elided

ENTRY main {
  p = f32[3] parameter(0)
  c = f32[3] constant({...})
  ROOT r = f32[3] add(p, c)
}
"""
CUSTOM = """HloModule cc

ENTRY main {
  p = f32[3] parameter(0)
  ROOT r = f32[3] custom-call(p), custom_call_target="no_such_target"
}
"""


PLAIN = {"FORCE_COLOR": None, "TTY_COMPATIBLE": None}  # rich's switches to terminal output


def invoke(args: list[str], input: str | None = None, env: dict | None = None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], input=input, env=env or PLAIN)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_mlp_matches_expected() -> None:
    r = invoke([MLP, "--inputs", MLP_IN, "--expected", MLP_OUT])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("out0: f32[32,64] [")
    assert "out0: match (2048 elements, rtol=0.0001, atol=1e-05" in r.stdout


def test_mismatch_exits_3_and_names_the_worst_element(tmp_path: Path) -> None:
    want = np.load(MLP_OUT)["out0"].copy()
    want[3, 7] += 0.5
    want[10, 1] += 0.01
    np.savez(tmp_path / "e.npz", out0=want)
    r = invoke([MLP, "--inputs", MLP_IN, "--expected", tmp_path / "e.npz"])
    assert r.exit_code == 3
    line = next(x for x in r.stdout.splitlines() if "MISMATCH" in x)
    assert line.startswith("out0: MISMATCH: 2 of 2048 elements differ (rtol=0.0001, atol=1e-05); worst at [3,7]")
    abs_error = float(line.split("abs error ", 1)[1].split(",")[0])
    assert abs(abs_error - 0.5) < 1e-5  # the expected value moved by 0.5, within the run's rounding
    assert invoke([MLP, "--inputs", MLP_IN, "--expected", tmp_path / "e.npz", "--atol", "1"]).exit_code == 0


def test_npy_inputs_per_leaf_in_either_argument_order(tmp_path: Path) -> None:
    model = write(tmp_path, "tup.hlo", TUPLE)
    files = []
    for i, a in enumerate([np.array([1, 2], np.float32), np.int32(7), np.array([0.5, 4], ml_dtypes.bfloat16)]):
        np.save(tmp_path / f"a{i}.npy", a)
        files.append(tmp_path / f"a{i}.npy")
    expected = "f32[2]{0} {1.5, 6}\ns32[] 7\nbf16[2]{0} {0.5, 4}\n"
    r = invoke([model, "--inputs", *files, "--print-literals"])
    assert r.exit_code == 0, r.output
    assert r.stdout == expected
    r = invoke(["--inputs", *files, model, "--print-literals"])  # MODEL after the input files
    assert r.exit_code == 0, r.output
    assert r.stdout == expected


def test_npz_keys_by_parameter_name(tmp_path: Path) -> None:
    model = write(tmp_path, "tup.hlo", TUPLE)
    np.savez(tmp_path / "in.npz", **{"p{0}": np.array([1, 2], np.float32), "p{1}": np.int32(3),
                                     "q": np.array([1, 1], ml_dtypes.bfloat16)})
    r = invoke([model, "--inputs", tmp_path / "in.npz", "--print-literals"])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == "f32[2]{0} {2, 3}"


def test_bf16_outputs_saved_to_npz_load_back_as_expected(tmp_path: Path) -> None:
    model = write(tmp_path, "tup.hlo", TUPLE)
    r = invoke([model, "--random", "3", "-o", tmp_path / "out.npz"])
    assert r.exit_code == 0, r.output
    saved = np.load(tmp_path / "out.npz")
    assert sorted(saved.files) == ["out0", "out1", "out2"] and saved["out2"].dtype.str == "|V2"
    r = invoke([model, "--random", "3", "--expected", tmp_path / "out.npz"])
    assert r.exit_code == 0 and "out2: match" in r.stdout
    assert invoke([model, "--random", "4", "--expected", tmp_path / "out.npz"]).exit_code == 3


def test_random_inputs_are_reproducible(tmp_path: Path) -> None:
    a = invoke([MLP, "--random", "5", "--print-literals"]).stdout
    assert a == invoke([MLP, "--random", "5", "--print-literals"]).stdout
    assert a != invoke([MLP, "--random", "6", "--print-literals"]).stdout
    assert a.startswith("f32[32,64]{1,0} { {")


@pytest.mark.parametrize("arrays, message", [
    ([np.zeros(2, np.float32)], "expected 2 inputs, given 1 (x: f32[2], y: s32[3])"),
    ([np.zeros(2, np.float32), np.zeros(4, np.int32)], "parameter 1 'y' expects s32[3], given s32[4]"),
    ([np.zeros(2, np.float64), np.zeros(3, np.int32)], "parameter 0 'x' expects f32[2], given f64[2]"),
])
def test_wrong_inputs_are_one_line_exit_1(tmp_path: Path, arrays: list[np.ndarray], message: str) -> None:
    model = write(tmp_path, "m.hlo", "HloModule m\n\nENTRY main {\n  x = f32[2] parameter(0)\n"
                  "  y = s32[3] parameter(1)\n  ROOT t = (f32[2], s32[3]) tuple(x, y)\n}\n")
    np.savez(tmp_path / "in.npz", **{f"in{i}": a for i, a in enumerate(arrays)})
    r = invoke([model, "--inputs", tmp_path / "in.npz"])
    assert r.exit_code == 1
    assert r.stderr == f"{tmp_path / 'in.npz'}: error: {message}\n"


def test_elided_constant_is_refused_at_its_line(tmp_path: Path) -> None:
    model = write(tmp_path, "e.hlo", ELIDED)
    r = invoke([model, "--random", "0"])
    assert r.exit_code == 1
    first = r.stderr.splitlines()[0]
    assert first.startswith(f"{model}:5:") and "elided" in first
    assert "Traceback" not in r.output


def test_unknown_custom_call_is_refused(tmp_path: Path) -> None:
    model = write(tmp_path, "c.hlo", CUSTOM)
    r = invoke([model, "--random", "0"])
    assert r.exit_code == 1
    first = r.stderr.splitlines()[0]
    assert first.startswith(f"{model}:5:") and "no_such_target" in first


def test_usage_errors_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = write(tmp_path, "n.hlo", NEG)
    r = invoke([model])
    assert r.exit_code == 2 and "takes 1 input(s) (x: f32[2]); give --inputs FILE... or --random SEED" in r.stderr
    np.save(tmp_path / "x.npy", np.zeros(2, np.float32))
    r = invoke([model, "--inputs", tmp_path / "x.npy", "--random", "1"])
    assert r.exit_code == 2 and "exclude each other" in r.stderr
    with monkeypatch.context() as m:  # a backend that is not built in this install
        m.delitem(backends.BACKENDS, "llvm")
        r = invoke([model, "--random", "1", "--backend=llvm"])
        assert r.exit_code == 2 and "the llvm backend is not available yet" in r.stderr
    assert invoke([model, "--random", "1", "--backend=interp"]).exit_code == 0
    assert invoke([model, "--random", "1", "--repeat", "0"]).exit_code == 2


def test_missing_files_are_one_line_exit_1(tmp_path: Path) -> None:
    r = invoke([tmp_path / "none.hlo", "--random", "0"])
    assert (r.exit_code, r.stderr) == (1, f"{tmp_path / 'none.hlo'}: error: no such file or directory\n")
    r = invoke([MLP, "--inputs", tmp_path / "none.npz"])
    assert (r.exit_code, r.stderr) == (1, f"{tmp_path / 'none.npz'}: error: no such file or directory\n")


def test_stdin_model_and_literals() -> None:
    r = invoke(["-", "--random", "0", "--print-literals"], input=NEG)
    assert r.exit_code == 0
    (line,) = r.stdout.splitlines()
    assert line.startswith("f32[2]{0} {")


def test_json_report_with_timings_and_comparison() -> None:
    r = invoke([MLP, "--inputs", MLP_IN, "--expected", MLP_OUT, "--repeat", "3", "--json", "--backend=interp"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["module"] == "jit_mlp2_relu" and doc["backend"] == "interp" and doc["match"] is True
    (out,) = doc["outputs"]
    assert out["name"] == "out0" and out["shape"] == "f32[32,64]" and out["nan_count"] == 0
    want = np.load(MLP_OUT)["out0"]
    assert out["min"] == pytest.approx(float(want.min()), rel=1e-5)
    assert set(doc["timings"]) == {"parse", "run"}
    assert doc["timings"]["run"]["runs"] == 3 and doc["timings"]["run"]["min_ms"] > 0


def test_repeat_prints_a_timing_table() -> None:
    r = invoke([MLP, "--random", "0", "--repeat", "2", "--backend=interp"])
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[-2].startswith("time parse: median ") and lines[-2].endswith("(2 runs)")
    assert lines[-1].startswith("time run: median ")


def test_warmup_runs_untimed_before_the_timed_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = backends._interpreter

    def counting(module: object) -> object:
        run = real(module)  # type: ignore[arg-type]

        def counted(args: list[np.ndarray | None]) -> list[np.ndarray]:
            calls.append(1)
            return run(args)
        return counted
    monkeypatch.setitem(backends.BACKENDS, "interp", backends.Backend("interp", "counted", counting, compiles=False))
    r = invoke([MLP, "--random", "0", "--repeat", "3", "--warmup", "2", "--backend=interp", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["timings"]["run"]["runs"] == 3 and len(calls) == 5
    assert invoke([MLP, "--random", "0", "--warmup", "-1", "--backend=interp"]).exit_code == 2


def test_nan_outputs_are_counted_and_json_stays_valid(tmp_path: Path) -> None:
    model = write(tmp_path, "s.hlo", "HloModule s\n\nENTRY main {\n  x = f32[3] parameter(0)\n"
                  "  ROOT r = f32[3] sqrt(x)\n}\n")
    np.save(tmp_path / "x.npy", np.array([-1, 4, 9], np.float32))
    r = invoke([model, "--inputs", tmp_path / "x.npy"])
    assert r.stdout == "out0: f32[3] [nan, 2, 3]  min 2  max 3  mean 2.5  nan 1\n"
    doc = json.loads(invoke([model, "--inputs", tmp_path / "x.npy", "--json"]).stdout)
    assert doc["outputs"][0]["first"] == ["nan", 2.0, 3.0]
    np.savez(tmp_path / "e.npz", out0=np.array([np.nan, 2, 3], np.float32))
    assert invoke([model, "--inputs", tmp_path / "x.npy", "--expected", tmp_path / "e.npz"]).exit_code == 0


def test_internal_error_exits_70(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken_compile(module: object) -> object:
        raise KeyError("oops")

    broken = backends.Backend("interp", "broken", broken_compile, compiles=False)
    monkeypatch.setitem(backends.BACKENDS, "interp", broken)
    r = invoke(["-", "--random", "0", "--backend=interp"], input=NEG)
    assert r.exit_code == 70
    assert r.stderr.startswith("internal error: KeyError: 'oops'") and len(r.stderr.splitlines()) == 1


def test_unsupported_op_is_refused_with_its_reason(tmp_path: Path) -> None:
    model = write(tmp_path, "r.hlo", "HloModule r\n\nENTRY main {\n  a = f32[] constant(0)\n"
                  "  b = f32[] constant(1)\n  ROOT r = f32[4] rng(a, b), distribution=rng_uniform\n}\n")
    r = invoke([model, "--backend=interp"])  # the LLVM backend draws rng; the interpreter refuses it
    assert r.exit_code == 1
    first = r.stderr.splitlines()[0]
    assert first.startswith(f"{model}:6:") and "rng is not supported by the interpreter" in first


def test_token_results_show_as_their_type(tmp_path: Path) -> None:
    model = write(tmp_path, "t.hlo", "HloModule t\n\nENTRY main {\n  x = f32[2] parameter(0)\n"
                  "  a = token[] after-all()\n  ROOT t = (token[], f32[2]) tuple(a, x)\n}\n")
    np.save(tmp_path / "x.npy", np.array([1, 2], np.float32))
    r = invoke([model, "--inputs", tmp_path / "x.npy", "-o", tmp_path / "o.npz"])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == ["out0: token[]",
                                     "out1: f32[2] [1, 2]  min 1  max 2  mean 1.5  nan 0"]
    assert np.load(tmp_path / "o.npz").files == ["out1"]  # tokens carry no data
    r = invoke([model, "--inputs", tmp_path / "x.npy", "--expected", tmp_path / "o.npz"])
    assert r.exit_code == 0 and "out1: match" in r.stdout
    assert invoke([model, "--inputs", tmp_path / "x.npy", "-o", "-"]).exit_code == 2


@pytest.mark.parametrize("argv, want", [
    (["m.hlo", "--inputs", "a", "b"], ["m.hlo", "--inputs", "a", "--inputs", "b"]),
    (["--inputs", "a", "b", "m.hlo"], ["--inputs", "a", "--inputs", "b", "m.hlo"]),
    (["--inputs", "a", "m.hlo", "-o", "x"], ["--inputs", "a", "m.hlo", "-o", "x"]),
    (["-o", "x", "--inputs", "a", "b", "-"], ["-o", "x", "--inputs", "a", "--inputs", "b", "-"]),
    (["--inputs", "a", "-o", "x", "m.hlo"], ["--inputs", "a", "-o", "x", "m.hlo"]),
    (["--inputs=a", "m.hlo"], ["--inputs=a", "m.hlo"]),
])
def test_inputs_takes_a_run_of_files(argv: list[str], want: list[str]) -> None:
    from hlotools.cli.common import _value_options, expand_variadic

    assert expand_variadic(argv, "--inputs", _value_options(main) - {"--inputs"}) == want


def test_printed_literals_feed_expected_and_inputs(tmp_path: Path) -> None:
    model = write(tmp_path, "tup.hlo", TUPLE)
    printed = invoke([model, "--random", "9", "--print-literals"]).stdout
    (tmp_path / "out.txt").write_text(printed)
    assert invoke([model, "--random", "9", "--expected", tmp_path / "out.txt"]).exit_code == 0
    assert invoke([model, "--random", "8", "--expected", tmp_path / "out.txt"]).exit_code == 3
    (tmp_path / "in.txt").write_text("f32[2] {1, 2}\n(s32[], bf16[2]) (3, {1, 4})\n")
    r = invoke([model, "--inputs", tmp_path / "in.txt", "--print-literals"])
    assert r.stdout == "f32[2]{0} {2, 6}\ns32[] 3\nbf16[2]{0} {1, 4}\n"


def test_terminal_output_is_a_rich_table() -> None:
    r = invoke([MLP, "--inputs", MLP_IN, "--expected", MLP_OUT, "--repeat", "2"],
               env={"FORCE_COLOR": "1", "COLUMNS": "150"})
    assert r.exit_code == 0, r.output
    screen = re.sub(r"\x1b\[[0-9;]*m", "", r.stdout)  # drop colours
    assert "┃ output ┃ shape" in screen and "│ out0   │ f32[32,64]" in screen
    assert re.search(r"┃ phase +┃ runs ┃", screen) and re.search(r"│ run +│ +2 │", screen)
    assert "out0: match" in screen


def test_module_without_parameters_needs_no_inputs(tmp_path: Path) -> None:
    model = write(tmp_path, "c.hlo", "HloModule c\n\nENTRY main {\n  ROOT c = s32[2] constant({4, 5})\n}\n")
    r = invoke([model, "--print-literals"])
    assert (r.exit_code, r.stdout) == (0, "s32[2]{0} {4, 5}\n")


def test_expected_file_with_the_wrong_number_of_results(tmp_path: Path) -> None:
    np.savez(tmp_path / "e.npz", out0=np.zeros((32, 64), np.float32), out1=np.zeros(2, np.float32))
    r = invoke([MLP, "--inputs", MLP_IN, "--expected", tmp_path / "e.npz"])
    assert r.exit_code == 1
    assert r.stderr == f"{tmp_path / 'e.npz'}: error: expected 1 result, given 2 (out0: f32[32,64])\n"
    np.savez(tmp_path / "s.npz", out0=np.zeros((64, 32), np.float32))
    r = invoke([MLP, "--inputs", MLP_IN, "--expected", tmp_path / "s.npz"])
    assert r.exit_code == 1 and "output 0 expects f32[32,64], given f32[64,32]" in r.stderr
