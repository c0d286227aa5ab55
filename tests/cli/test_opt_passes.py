"""hlo-opt's pass-manager command line: pipelines, -O levels, --print-pipeline, --verify-each,
dumps, print-after/changed, --time-passes, logging."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import hlotools
from hlotools.cli.opt import main
from hlotools.ir.module import Module
from hlotools.passes.base import PassContext
from hlotools.passes.pipeline import parse_pipeline, pass_names, pipeline_text, preset_spec
from hlotools.passes.registry import PASSES, pass_class
from tests.support.helpers import DEAD, RootBreaker, registered_passes
from tests.support.paths import ROOT

MLP = ROOT / "testdata" / "models" / "mlp2_relu.hlo"


@pytest.fixture(autouse=True)
def _breaker() -> Iterator[None]:
    with registered_passes(RootBreaker):
        yield


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HLOTOOLS_LOG", raising=False)
    monkeypatch.setenv("HLOTOOLS_VERIFY_EACH", "1")  # every pass these tests run is verified


def invoke(args: list[str], input: str | None = DEAD, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, args, input=input, env=env)


def body(stdout: str) -> list[str]:
    return [x.strip() for x in stdout.split("ENTRY main {", 1)[1].strip().splitlines()]


# -- pipelines ------------------------------------------------------------------------------
def test_passes_run_in_order() -> None:
    r = invoke(["-", "--passes=algsimp,dce"])
    assert r.exit_code == 0, r.output
    assert body(r.stdout) == ["p = f32[2]{0} parameter(0)", "ROOT m = f32[2]{0} multiply(p, p)", "}"]
    r = invoke(["-", "--passes=dce"])  # dce alone keeps the add of zero
    assert "add(p, z)" in r.stdout and "negate" not in r.stdout


def test_list_passes_gives_every_pass_a_one_line_description() -> None:
    r = invoke(["--list-passes"], input=None)
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert [x.split()[0] for x in lines] == sorted(PASSES)
    for line in lines:
        name, description = line.split(None, 1)
        assert description.startswith(pass_class(name).description) and len(description) > 10
    assert "(XLA: constant_folding)" in next(x for x in lines if x.startswith("constant-folding "))


def test_xla_spellings_of_pass_names_are_aliases() -> None:
    r = invoke(["-", "--passes=constant_folding,simplify-while-loops,hlo-memory-scheduler", "--print-pipeline"])
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == "constant-folding,while-loop-simplifier,scheduling"


def test_unknown_pass_is_a_usage_error_with_close_matches() -> None:
    r = invoke(["-", "--passes=algsimp,dec"])
    assert r.exit_code == 2
    assert "unknown pass 'dec'; did you mean dce" in r.stderr and "--list-passes" in r.stderr
    r = invoke(["-", "--passes=tuple-simplifer"])
    assert r.exit_code == 2 and "did you mean tuple-simplifier" in r.stderr


def test_llvm_style_pass_options() -> None:
    r = invoke(["-", "--passes=cse{is-layout-sensitive=true},dce{remove-unreachable-computations=false}"])
    assert r.exit_code == 0, r.output
    r = invoke(["-", "--passes=cse{no-such=1}"])
    assert r.exit_code == 2 and "pass 'cse' has no option 'no-such' (options: is-layout-sensitive" in r.stderr
    r = invoke(["-", "--passes=cse{is-layout-sensitive=maybe}"])
    assert r.exit_code == 2 and "expects bool, got 'maybe'" in r.stderr
    r = invoke(["-", "--passes=cse{is-layout-sensitive"])
    assert r.exit_code == 2 and "pipeline 'cse{is-layout-sensitive'" in r.stderr


def test_fusion_options_when_fusion_is_registered() -> None:
    if "fusion" not in PASSES:
        pytest.skip("fusion is not registered yet")
    r = invoke([str(MLP), "--passes=fusion{max-fused-instructions=16}", "--print-pipeline"], input=None)
    assert r.exit_code == 0 and r.stdout.strip() == "fusion{max-fused-instructions=16}"
    r = invoke([str(MLP), "--passes=fusion{max-fused-instructions=16}", "--verify-each"], input=None)
    assert r.exit_code == 0, r.output
    assert "fusion(" in r.stdout


def test_optimization_levels() -> None:
    o0 = invoke(["-", "-O0"])
    plain = invoke(["-"])
    assert o0.exit_code == 0 and o0.stdout == plain.stdout  # -O0 runs nothing
    o1 = invoke(["-", "-O1"])
    assert o1.exit_code == 0, o1.output
    assert "negate" not in o1.stdout and "add(" not in o1.stdout
    o2 = invoke(["-", "-O2", "--verify-each"])
    bare = invoke(["-", "-O"])
    assert o2.exit_code == 0 and bare.exit_code == 0 and o2.stdout == bare.stdout
    r = invoke(["-", "-O2", "--passes=dce"])
    assert r.exit_code == 2 and "give -O2 or --passes, not both" in r.stderr
    r = invoke(["-", "-O3"])
    assert r.exit_code == 2


def test_print_pipeline_shows_the_expanded_preset_and_round_trips() -> None:
    r = invoke(["-O2", "--print-pipeline"], input=None)
    assert r.exit_code == 0, r.output
    text = r.stdout.strip()
    assert text == preset_spec("O2") and text.startswith("fixed-point(call-inliner,algsimp,")
    assert pipeline_text(parse_pipeline(text)) == text
    assert set(pass_names(parse_pipeline(text))) <= set(PASSES)
    # Presets inside a spec expand too; bare -O is -O2; -v adds a tree on stderr.
    r = invoke(["--passes=O1,dce", "--print-pipeline", "-v"], input=None)
    assert r.stdout.strip() == preset_spec("O1") + ",dce"
    assert "fixed-point(max-iterations=25)\n  call-inliner" in r.stderr
    assert invoke(["-O", "--print-pipeline"], input=None).stdout.strip() == text
    assert invoke(["-O0", "--print-pipeline"], input=None).stdout == "\n"


def test_o2_keeps_results_of_the_mlp(tmp_path: Path) -> None:
    from hlotools.cli.run import main as run_main
    r = invoke([str(MLP), "-O2", "--verify-each"], input=None)
    assert r.exit_code == 0, r.output
    models = ROOT / "testdata" / "models"
    run = CliRunner().invoke(run_main, ["-", "--inputs", str(models / "mlp2_relu.inputs.npz"),
                                        "--expected", str(models / "mlp2_relu.expected.npz")], input=r.stdout)
    assert run.exit_code == 0, run.output


# -- verify-each ----------------------------------------------------------------------------
def test_verify_each_names_the_pass_and_writes_a_reproducer(tmp_path: Path) -> None:
    dump = tmp_path / "d"
    r = invoke(["-", "--passes=algsimp,dce,test-root-breaker,cse", "--verify-each", "--dump-dir", str(dump)])
    assert r.exit_code == 1, r.output
    first = r.stderr.splitlines()[0]
    assert first.startswith("<stdin>: error: verifier failed after pass (3) 'test-root-breaker' "
                            "(passes before it: (1) algsimp, (2) dce): ")
    repro = dump / "module_0000.dead.before_test-root-breaker.reproducer.hlo"
    assert f"written to {repro}" in first
    text = repro.read_text()
    assert "negate" not in text and "multiply(%p, %p)" in text  # the module after algsimp and dce
    again = invoke([str(repro), "--passes=test-root-breaker", "--verify-each", "--dump-dir", str(dump)],
                   input=None)
    assert again.exit_code == 1 and "verifier failed after pass (1) 'test-root-breaker'" in again.stderr
    assert invoke(["-", "--passes=algsimp,dce,test-root-breaker,cse", "--no-verify-each"]).exit_code == 0
    assert invoke(["-", "--passes=algsimp,dce,test-root-breaker,cse"], env={"HLOTOOLS_VERIFY_EACH": "0"}
                  ).exit_code == 0  # the CLI's default is off


def test_a_crashing_pass_is_an_internal_error_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(self: RootBreaker, module: Module, ctx: PassContext) -> bool:
        raise IndexError("list index out of range")

    monkeypatch.setattr(RootBreaker, "run", crash)
    r = invoke(["-", "--passes=dce,test-root-breaker"])
    assert r.exit_code == 70
    assert r.stderr.startswith("internal error: PassFailure: pass 'test-root-breaker' (application 2) "
                               "crashed: IndexError: list index out of range")


# -- dumps and printing ---------------------------------------------------------------------
def test_dump_dir_writes_numbered_files_for_changing_passes_and_an_index(tmp_path: Path) -> None:
    r = invoke(["-", "--passes=cse,algsimp,dce", "--dump-dir", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([
        "index.json", "index.txt", "module_0000.dead.before_optimizations.txt",
        "module_0000.dead.0002.transforms_pipeline.after_algsimp.txt",
        "module_0000.dead.0003.transforms_pipeline.after_dce.txt", "module_0000.dead.after_optimizations.txt"])
    index = json.loads((tmp_path / "index.json").read_text())
    assert [(p["index"], p["name"], p["changed"]) for p in index["passes"]] == [
        (1, "cse", False), (2, "algsimp", True), (3, "dce", True)]
    assert all(p["instructions_before"] >= p["instructions_after"] for p in index["passes"])
    final = (tmp_path / "module_0000.dead.after_optimizations.txt").read_text()
    assert hlotools.print_module(hlotools.parse_module(final), "short") == r.stdout


def test_dump_all_and_split_input_file_number_the_modules(tmp_path: Path) -> None:
    text = DEAD + "\n// -----\n" + DEAD.replace("HloModule dead", "HloModule other")
    r = invoke(["-", "--passes=cse,dce", "--split-input-file", "--dump-dir", str(tmp_path), "--dump-all"],
               input=text)
    assert r.exit_code == 0, r.output
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "module_0000.dead.0001.transforms_pipeline.after_cse.txt" in names and "module_0001.other.0002.transforms_pipeline.after_dce.txt" in names
    assert "index.txt" in names and "module_0001.index.txt" in names


def test_print_after_all_and_print_changed_go_to_stderr() -> None:
    r = invoke(["-", "--passes=cse,dce", "--print-after-all", "--dump-style=short"])
    assert r.exit_code == 0
    assert r.stderr.count("// -----// after ") == 2 and "HloModule dead" in r.stderr
    r = invoke(["-", "--passes=cse,dce,algsimp", "--print-changed"])  # bare flag: a diff
    assert r.exit_code == 0
    lines = r.stderr.splitlines()
    assert "--- before dce (2)" in lines and "--- before algsimp (3)" in lines
    assert "--- before cse (1)" not in lines  # cse changed nothing
    assert [x for x in lines if x.startswith("-  %n = f32[2]{0} negate(")]
    r = invoke(["-", "--passes=dce", "--print-changed=full", "--dump-style=short"])
    assert r.stderr.startswith("// -----// after dce (application 1, changed)\nHloModule dead")


def test_bare_optional_value_flags_leave_file_positional(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(DEAD)
    r = invoke(["--passes=dce", "--time-passes", str(path)], input=None)
    assert r.exit_code == 0, r.output
    assert "HloModule dead" in r.stdout and "=== pass execution timing report ===" in r.stderr
    r = invoke(["--passes=dce", "--print-changed", str(path)], input=None)
    assert r.exit_code == 0 and "--- before dce (1)" in r.stderr


# -- timing ----------------------------------------------------------------------------------
def test_time_passes_table() -> None:
    r = invoke(["-", "--passes=fixed-point(algsimp,dce),cse", "--time-passes"])
    assert r.exit_code == 0, r.output
    table = r.stderr.splitlines()
    assert table[0] == "=== pass execution timing report ==="
    assert table[1].split() == ["pass", "runs", "wall", "ms", "%", "instructions", "changed"]
    rows = {line.split()[0]: line.split() for line in table[3:-2]}
    assert set(rows) == {"algsimp", "dce", "cse"}
    assert rows["algsimp"][1] == "2" and rows["algsimp"][-1] == "1/2"  # the group ran twice
    assert rows["algsimp"][4:7] == ["5", "->", "2"]
    assert table[-1].startswith("total (compile time)") and table[-1].split()[3] == "5"
    percents = [float(v[3]) for v in rows.values()]
    assert sum(percents) == pytest.approx(100, abs=0.5)


def test_time_passes_json_is_valid_and_sums_to_compile_time() -> None:
    r = invoke(["-", "-O2", "--time-passes=json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stderr)
    assert doc["compile_ms"] == pytest.approx(sum(p["ms"] for p in doc["passes"]), abs=0.01)
    assert doc["applications"] == sum(p["runs"] for p in doc["passes"])
    assert {p["pass"] for p in doc["passes"]} == set(pass_names(parse_pipeline("O2")))
    (module,) = doc["modules"]
    assert module["module"] == "dead" and module["applications"][0]["index"] == 1
    assert all(set(p) >= {"pass", "runs", "ms", "percent", "instructions_before", "instructions_after",
                          "changed_runs"} for p in doc["passes"])


def test_time_passes_reports_even_when_a_pass_fails() -> None:
    r = invoke(["-", "--passes=dce,test-root-breaker", "--verify-each", "--time-passes=json"])
    assert r.exit_code == 1
    doc, end = json.JSONDecoder().raw_decode(r.stderr)  # the report, then the error
    assert "verifier failed after pass (2) 'test-root-breaker'" in r.stderr[end:]
    assert [a["pass"] for a in doc["modules"][0]["applications"]] == ["dce", "test-root-breaker"]


# -- logging ---------------------------------------------------------------------------------
def test_verbosity_levels() -> None:
    quiet = invoke(["-", "--passes=dce"])
    assert quiet.stderr == ""
    info = invoke(["-", "--passes=dce", "-v"])
    assert "info: HLO pass (1) dce: changed in " in info.stderr and "debug:" not in info.stderr
    debug = invoke(["-", "--passes=dce", "-vv"])
    assert "debug: dce: removed 1 dead instructions from main" in debug.stderr
    assert "trace:" not in debug.stderr
    trace = invoke(["-", "--passes=dce", "-vvv"])
    assert "trace: module after dce:" in trace.stderr


def test_hlotools_log_env() -> None:
    r = invoke(["-", "--passes=dce"], env={"HLOTOOLS_LOG": "debug"})
    assert "debug: dce: removed 1 dead instructions from main" in r.stderr
    r = invoke(["-", "--passes=dce"], env={"HLOTOOLS_LOG": "shouty"})
    assert r.exit_code == 2 and "HLOTOOLS_LOG='shouty': expected one of" in r.stderr


def test_fusion_decisions_show_with_vv() -> None:
    if "fusion" not in PASSES:
        pytest.skip("fusion is not registered yet")
    text = """HloModule f

ENTRY main {
  p = f32[8] parameter(0)
  e = f32[8] exponential(p)
  ROOT n = f32[8] negate(e)
}
"""
    r = invoke(["-", "--passes=fusion", "-vv"], input=text)
    assert r.exit_code == 0, r.output
    assert "debug: fusion: fused " in r.stderr
