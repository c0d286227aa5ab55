"""XLA dump folders as input: listings, --module/--stage, --xla-passes, and our own --dump-dir."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

import hlotools
from hlotools.cli.opt import main as opt_main
from hlotools.cli.run import main as run_main
from hlotools.cli.translate import main as translate_main
from tests.support.paths import ROOT

STEP = ROOT / "testdata" / "xla_dump_step"  # jax 0.10.2, a training step, --xla_dump_hlo_pass_re=.*
ONE = ROOT / "testdata" / "xla_dump"  # one module (jit_f)
FUSION_FILE = "module_0008.jit_step.0017.HLO_passes_after_layout_assignment.after_fusion.before_fusion-wrapper.txt"


def opt(*args: str) -> Result:
    return CliRunner().invoke(opt_main, list(args))


def test_a_dump_folder_lists_its_modules_and_their_files() -> None:
    r = opt(str(STEP))
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == f"{STEP}: XLA dump folder, 2 modules"
    assert lines[1].startswith("  0000  jit_convert_element_type: before, after, 1 per-pass file")
    assert lines[2].startswith("  0008  jit_step: before, after, 24 per-pass files (algsimp, constant_folding,")
    assert "reports: buffer-assignment-values, buffer-assignment, live-range, memory-usage-report" in lines[2]


def test_the_listing_as_json_and_one_modules_files() -> None:
    doc = json.loads(opt(str(STEP), "--json").stdout)
    assert [(m["id"], m["name"]) for m in doc["modules"]] == [(0, "jit_convert_element_type"), (8, "jit_step")]
    step = doc["modules"][1]
    assert {f["kind"] for f in step["files"]} == {"before", "after", "pass", "report"}
    fusion = next(f for f in step["files"] if f.get("pass") == "fusion")
    assert fusion == {"kind": "pass", "file": FUSION_FILE, "step": 17, "pipeline": "HLO_passes_after_layout_assignment",
                      "pass": "fusion", "next": "fusion-wrapper"}
    r = opt(str(STEP), "--module", "jit_step")
    assert r.exit_code == 0 and "  0017    HLO_passes_after_layout_assignment: after fusion  " + FUSION_FILE in r.stdout


def test_module_and_stage_pick_one_file_by_name_step_or_alias() -> None:
    want = hlotools.print_module(hlotools.parse_module((STEP / FUSION_FILE).read_text()), "long")
    for module, stage in [("jit_step", "fusion"), ("8", "17"), ("0008", "after_fusion"),
                          ("jit_step", "HLO_passes_after_layout_assignment.fusion")]:
        r = opt(str(STEP), "--module", module, "--stage", stage)
        assert r.exit_code == 0, r.output
        assert r.stdout == want
    folded = opt(str(STEP), "--module", "8", "--stage", "constant-folding")  # our name for constant_folding
    assert folded.exit_code == 0 and "constant(0.333333343)" in folded.stdout


def test_a_single_module_folder_needs_no_module() -> None:
    r = opt(str(ONE), "--stage", "after")
    assert r.exit_code == 0, r.output
    assert "kind=kLoop, calls=%fused_computation" in r.stdout


def test_hlo_run_and_hlo_translate_read_dump_files(tmp_path: Path) -> None:
    saved = tmp_path / "in.npz"
    before = CliRunner().invoke(run_main, [str(STEP), "--module", "jit_step", "--stage", "before", "--random", "0",
                                           "--backend=interp", "--save-inputs", str(saved), "--json"])
    after = CliRunner().invoke(run_main, [str(STEP), "--module", "jit_step", "--stage", "after", "--inputs",
                                          str(saved), "--backend=interp", "--json"])
    assert before.exit_code == 0 and after.exit_code == 0, before.output + after.output
    assert json.loads(before.stdout)["outputs"] == json.loads(after.stdout)["outputs"]
    r = CliRunner().invoke(translate_main, [str(STEP), "--module", "0", "--stage", "after", "--emit=dot"])
    assert r.exit_code == 0 and r.stdout.startswith("digraph")


def test_unknown_modules_and_ambiguous_stages_are_one_line_errors(tmp_path: Path) -> None:
    r = opt(str(STEP), "--module", "jit_nope", "--stage", "after")
    assert r.exit_code == 1
    assert r.stderr == (f"{STEP}: error: unknown module 'jit_nope'; the folder holds 0000 jit_convert_element_type, "
                        "0008 jit_step\n")
    r = opt(str(STEP), "--module", "jit_step", "--stage", "pipeline-start")
    assert r.exit_code == 1 and len(r.stderr.splitlines()) == 1
    assert "stage 'pipeline-start' is ambiguous in module 0008 jit_step: steps 0000 (async-collective)," in r.stderr
    r = opt(str(STEP), "--stage", "after")
    assert r.exit_code == 1 and "the folder holds 2 modules: give --module ID|NAME" in r.stderr
    r = opt(str(STEP), "--module", "8", "--stage", "no-such-pass")
    assert r.exit_code == 1 and "has no file for stage 'no-such-pass'" in r.stderr and "algsimp" in r.stderr
    assert opt(str(tmp_path)).exit_code == 1  # a folder without dump files
    assert opt(str(STEP / FUSION_FILE), "--stage", "after").exit_code == 2  # --stage needs a folder


def test_our_dump_dir_reads_back_as_a_dump_folder(tmp_path: Path) -> None:
    text = (STEP / "module_0008.jit_step.before_optimizations.txt").read_text()
    src = tmp_path / "m.hlo"
    src.write_text(text)
    out = opt(str(src), "-O1", "--dump-dir", str(tmp_path / "d"))
    assert out.exit_code == 0, out.output
    listing = json.loads(opt(str(tmp_path / "d"), "--json").stdout)
    (module,) = listing["modules"]
    assert module["name"] == "jit_step" and {"before", "after", "pass"} <= {f["kind"] for f in module["files"]}
    assert all(f["pipeline"] == "transforms_pipeline" for f in module["files"] if f["kind"] == "pass")
    again = opt(str(tmp_path / "d"), "--stage", "after")
    assert again.exit_code == 0 and again.stdout == out.stdout


def test_xla_passes_puts_ours_beside_each_xla_pass() -> None:
    r = opt(str(STEP), "--module", "jit_step", "--xla-passes")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == f"{STEP}: module 0008 jit_step: 25 steps, 4 changed the module"
    assert "0017 HLO_passes_after_layout_assignment: fusion: 2 fusions formed" in r.stdout
    assert "  ours (constant-folding): 1 added, 3 removed, 1 changed; its result is the same as XLA's" in r.stdout
    assert r.stdout.splitlines()[-1] == "passes we implement: 3 of 4 give XLA's result (algsimp differs)"
    doc = json.loads(opt(str(STEP), "--module", "8", "--xla-passes", "--json").stdout)
    by_pass = {s["pass"]: s for s in doc["steps"] if s["xla"] and not s["xla"]["same"]}
    assert sorted(by_pass) == ["algsimp", "constant_folding", "fusion", "layout-assignment"]
    assert by_pass["fusion"]["xla"]["counts"]["fusions_formed"] == 2
    assert by_pass["layout-assignment"]["ours"]["against_xla"]["same"] is True
    # XLA's algsimp turns transpose(dot) into one dot with swapped operands; ours leaves both
    gap = by_pass["algsimp"]["ours"]["against_xla"]
    assert not gap["same"] and {"dot_general.3", "transpose.1"} <= {r["name"] for r in gap["removed"]}
