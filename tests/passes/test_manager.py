"""The pass manager as a library: application numbering, fixed points, verify-each and its
reproducer, dumps and their index, print-after/changed, bisection limits, timing, presets
and logging."""
from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

import hlotools
from hlotools.errors import HloError, HloVerifyError
from hlotools.ir.module import Module
from hlotools.log import TRACE, cli_logging, env_level, level_for
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.manager import ManagerOptions, PassFailure, PassManager, PipelineReport
from hlotools.passes.pipeline import (
    PRESET_LAYOUT,
    PRESETS,
    parse_pipeline,
    pass_names,
    pipeline_lines,
    pipeline_text,
    preset_spec,
)
from hlotools.passes.registry import PASSES
from hlotools.passes.timing import aggregate, compile_seconds, timing_json, timing_table
from tests.support.helpers import DEAD, RootBreaker, registered_passes


@dataclass
class Countdown(HloPass):
    """Changes the module (renames the root) `times` times in a row, then reports no change."""

    name: ClassVar[str] = "test-countdown"
    description: ClassVar[str] = "test only"
    times: int = 2

    def run(self, module: Module, ctx: PassContext) -> bool:
        root = module.entry.root  # type: ignore[union-attr]
        assert root is not None
        done = root.name.count(".c")
        if done >= self.times:
            return False
        root.name += ".c"
        return True


@dataclass
class Crasher(HloPass):
    name: ClassVar[str] = "test-crasher"
    description: ClassVar[str] = "test only"

    def run(self, module: Module, ctx: PassContext) -> bool:
        raise KeyError("oops")


@pytest.fixture(autouse=True)
def _test_passes() -> Iterator[None]:
    with registered_passes(Countdown, RootBreaker, Crasher):
        yield


def run(spec: str, text: str = DEAD, **options: object) -> tuple[Module, PipelineReport]:
    module = hlotools.parse_module(text)
    report = PassManager(ManagerOptions(**options)).run(module, parse_pipeline(spec))  # type: ignore[arg-type]
    return module, report


def test_applications_are_numbered_in_execution_order_with_fixed_point_iterations_unrolled() -> None:
    _, report = run("dce,fixed-point(test-countdown{times=2},dce),cse")
    got = [(r.index, r.name, r.changed) for r in report.records]
    # iteration 1 and 2 change (countdown), iteration 3 does not and ends the group.
    assert got == [(1, "dce", True), (2, "test-countdown", True), (3, "dce", False),
                   (4, "test-countdown", True), (5, "dce", False), (6, "test-countdown", False),
                   (7, "dce", False), (8, "cse", False)]
    assert report.changed and report.applications == 8


def test_fixed_point_stops_at_max_iterations_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="hlotools.passes"):
        _, report = run("fixed-point(test-countdown{times=10}){max-iterations=3}")
    assert [r.changed for r in report.records] == [True, True, True]
    assert "did not converge in 3 iterations" in caplog.text


def test_instruction_counts_and_rewrites_are_recorded() -> None:
    _, report = run("algsimp,dce")
    alg, dce = report.records
    assert (alg.instructions_before, dce.instructions_before, dce.instructions_after) == (5, 3, 2)
    assert alg.changed and alg.rewrites >= 1 and dce.rewrites >= 1
    assert report.total_seconds == pytest.approx(alg.seconds + dce.seconds)


def test_observer_sees_the_input_then_every_application_that_ran() -> None:
    seen: list[tuple[int | None, int]] = []
    observer = lambda m, r: seen.append((None if r is None else r.index, m.instruction_count()))  # noqa: E731
    _, report = run("dce,fixed-point(test-countdown{times=1},dce),cse", observer=observer, bisect_limit=5)
    # the input (5 instructions), dce leaves 4; applications past the bisect limit are not observed
    assert seen == [(None, 5), (1, 4), (2, 4), (3, 4), (4, 4), (5, 4)]
    assert [r.index for r in report.records if r.ran] == [1, 2, 3, 4, 5]


def test_verify_each_names_the_pass_the_passes_before_it_and_writes_a_reproducer(tmp_path: Path) -> None:
    module = hlotools.parse_module(DEAD)
    manager = PassManager(ManagerOptions(verify_each=True, reproducer_dir=tmp_path))
    with pytest.raises(HloVerifyError) as info:
        manager.run(module, parse_pipeline("dce,cse,test-root-breaker,algsimp"))
    msg = info.value.message
    assert msg.startswith("verifier failed after pass (3) 'test-root-breaker' (passes before it: (1) dce, (2) cse): ")
    path = tmp_path / "module_0000.dead.before_test-root-breaker.reproducer.hlo"
    assert f"written to {path}" in msg
    # The reproducer is the module after dce and cse, before the breaker, and reproduces the failure.
    again = hlotools.parse_module(path.read_text())
    assert "negate" not in path.read_text() and again.entry is not None
    with pytest.raises(HloVerifyError, match="after pass \\(1\\) 'test-root-breaker'"):
        PassManager(ManagerOptions(verify_each=True, reproducer_dir=tmp_path)).run(
            again, parse_pipeline("test-root-breaker"))


def test_without_verify_each_a_broken_pass_goes_unnoticed() -> None:
    _, report = run("test-root-breaker")
    assert report.records[0].changed and report.reproducer is None


def test_a_crashing_pass_is_named_with_its_application(tmp_path: Path) -> None:
    with pytest.raises(PassFailure) as info:
        run("dce,test-crasher", verify_each=True, reproducer_dir=tmp_path)
    assert str(info.value).startswith("pass 'test-crasher' (application 2) crashed: KeyError: 'oops'")
    assert isinstance(info.value.__cause__, KeyError)
    assert (tmp_path / "module_0000.dead.before_test-crasher.reproducer.hlo").is_file()


def test_dumps_only_changed_passes_with_xla_names_and_an_index(tmp_path: Path) -> None:
    _, report = run("cse,algsimp,dce,cse", dump_dir=tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(["index.json", "index.txt", "module_0000.dead.before_optimizations.txt",
                            "module_0000.dead.0002.transforms_pipeline.after_algsimp.txt",
                            "module_0000.dead.0003.transforms_pipeline.after_dce.txt",
                            "module_0000.dead.after_optimizations.txt"])
    before = (tmp_path / "module_0000.dead.before_optimizations.txt").read_text()
    assert "negate" in before and "%p = f32[2]{0} parameter(0)" in before  # long style by default
    after = (tmp_path / "module_0000.dead.after_optimizations.txt").read_text()
    assert "negate" not in after and hlotools.parse_module(after).instruction_count() == 2
    rows = (tmp_path / "index.txt").read_text().splitlines()
    assert rows[0].split("\t") == ["#", "pass", "changed", "ms", "instructions_before",
                                   "instructions_after", "rewrites"]
    assert [r.split("\t")[:3] for r in rows[1:]] == [["1", "cse", "false"], ["2", "algsimp", "true"],
                                                      ["3", "dce", "true"], ["4", "cse", "false"]]
    assert [r.split("\t")[4:6] for r in rows[1:]] == [["5", "5"], ["5", "3"], ["3", "2"], ["2", "2"]]
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["module"] == "dead" and index["dumps"] == report.dumps
    assert [p["name"] for p in index["passes"]] == ["cse", "algsimp", "dce", "cse"]
    assert index["total_ms"] == pytest.approx(sum(p["ms"] for p in index["passes"]), abs=0.01)


def test_dump_all_and_module_id_and_short_style(tmp_path: Path) -> None:
    run("cse,dce", dump_dir=tmp_path, dump_all=True, module_id=3, dump_style="short")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(["module_0003.dead.before_optimizations.txt",
                            "module_0003.dead.0001.transforms_pipeline.after_cse.txt",
                            "module_0003.dead.0002.transforms_pipeline.after_dce.txt",
                            "module_0003.dead.after_optimizations.txt", "module_0003.index.json",
                            "module_0003.index.txt"])
    assert "%" not in (tmp_path / "module_0003.dead.0001.transforms_pipeline.after_cse.txt").read_text()


def test_a_failing_pipeline_still_writes_the_index(tmp_path: Path) -> None:
    with pytest.raises(HloVerifyError):
        run("dce,test-root-breaker", dump_dir=tmp_path, verify_each=True)
    rows = (tmp_path / "index.txt").read_text().splitlines()
    assert [r.split("\t")[1] for r in rows[1:]] == ["dce", "test-root-breaker"]
    assert (tmp_path / "module_0000.dead.before_test-root-breaker.reproducer.hlo").is_file()


def test_print_after_all_and_print_changed() -> None:
    err = io.StringIO()
    run("cse,dce", print_after_all=True, stderr=err, dump_style="short")
    text = err.getvalue()
    assert text.count("// -----// after ") == 2 and "// -----// after dce (application 2)" in text
    err = io.StringIO()
    run("cse,dce", print_changed="diff", stderr=err, dump_style="short")
    diff = err.getvalue().splitlines()
    assert diff[:2] == ["--- before dce (2)", "+++ after dce (2)"]  # cse changed nothing: no diff
    assert "-  n = f32[2]{0} negate(p)" in diff and not [x for x in diff if x.startswith("+  ")]
    err = io.StringIO()
    run("dce", print_changed="full", stderr=err, dump_style="short")
    assert err.getvalue().startswith("// -----// after dce (application 1, changed)\nHloModule dead")


def test_bisect_limit_runs_the_first_n_applications(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="hlotools.passes"):
        module, report = run("algsimp,dce", bisect_limit=1)
    assert [(r.name, r.ran) for r in report.records] == [("algsimp", True), ("dce", False)]
    assert "negate" in hlotools.print_module(module)  # dce did not run
    bisect = [m for m in caplog.messages if m.startswith("BISECT")]
    assert bisect == ["BISECT: running pass (1) algsimp", "BISECT: NOT running pass (2) dce"]


def test_bisect_rewrites_is_fuel_for_the_last_application() -> None:
    module, report = run("dce", bisect_limit=1, bisect_rewrites=0)
    assert not report.records[0].changed and "negate" in hlotools.print_module(module)
    module, report = run("algsimp,dce", bisect_limit=2, bisect_rewrites=1)
    assert report.records[1].rewrites == 1 and len(report.records[1].rewrite_log) == 1
    _, unlimited = run("algsimp,dce")
    assert unlimited.records[1].rewrite_log == []  # descriptions are kept only under a fuel limit


def test_bisect_limit_zero_runs_nothing() -> None:
    module, report = run("fixed-point(algsimp,dce)", bisect_limit=0)
    assert [r.ran for r in report.records] == [False, False]  # the group sees no change and stops
    assert module.instruction_count() == 5


def test_timing_aggregates_runs_per_pass_and_sums_to_compile_time() -> None:
    _, r1 = run("fixed-point(test-countdown{times=2},dce)")
    _, r2 = run("dce,cse")
    rows = {t.name: t for t in aggregate([r1, r2])}
    assert rows["test-countdown"].runs == 3 and rows["test-countdown"].changed_runs == 2
    assert rows["dce"].runs == 4 and rows["dce"].changed_runs == 2
    assert compile_seconds([r1, r2]) == pytest.approx(sum(t.seconds for t in rows.values()))
    doc = json.loads(timing_json([r1, r2]))
    assert doc["applications"] == 8 and len(doc["modules"]) == 2
    assert doc["compile_ms"] == pytest.approx(sum(p["ms"] for p in doc["passes"]), abs=0.01)
    assert sum(p["percent"] for p in doc["passes"]) == pytest.approx(100, abs=0.1)
    table = timing_table([r1, r2]).splitlines()
    assert table[0] == "=== pass execution timing report (2 modules) ==="
    assert table[1].split() == ["pass", "runs", "wall", "ms", "%", "instructions", "changed"]
    assert table[-1].startswith("total (compile time)") and " 8 " in table[-1]
    dce_row = next(line for line in table if line.startswith("dce "))
    assert dce_row.split()[1] == "4" and dce_row.split()[-1] == "2/4"


def test_pipeline_text_round_trips_with_options_and_groups() -> None:
    spec = "cse{is-layout-sensitive=true},fixed-point(algsimp,dce){max-iterations=4},dce"
    steps = parse_pipeline(spec)
    assert pipeline_text(steps) == spec
    assert pipeline_text(parse_pipeline(pipeline_text(steps))) == spec
    assert list(pipeline_lines(steps)) == ["cse{is-layout-sensitive=true}", "fixed-point(max-iterations=4)",
                                           "  algsimp", "  dce", "dce"]
    assert pass_names(steps) == ["cse", "algsimp", "dce", "dce"]


def test_presets_name_registered_passes_in_xla_cpus_order() -> None:
    for level in PRESET_LAYOUT:
        names = pass_names(parse_pipeline(preset_spec(level)))
        assert set(names) <= set(PASSES)
        wanted = [n for n in PRESETS[level].replace("fixed-point(", ",").replace(")", ",").split(",") if n]
        assert names == wanted
    assert preset_spec("O0") == "" and parse_pipeline("O0") == []
    assert preset_spec("O1").startswith("fixed-point(call-inliner,algsimp,constant-folding")
    assert pass_names(parse_pipeline("O2"))[:8] == pass_names(parse_pipeline("O1"))
    assert preset_spec("O2").endswith(",fusion,layout-assignment,scheduling")


def test_preset_spec_inserts_after_a_top_level_pass_in_order() -> None:
    spec = preset_spec("O2", insert_after=(("b", "float-normalization-bf16"), ("a", "float-normalization-bf16"),
                                           ("z", "no-such-pass"), ("e", "layout-assignment")))
    assert spec.endswith("),transpose-folding,float-normalization-bf16,a,b,fusion,layout-assignment,e,scheduling,z")
    # not inside the fixed-point group, although algsimp is there
    assert preset_spec("O1", insert_after=(("x", "algsimp"),)) == preset_spec("O1") + ",x"
    with pytest.raises(HloError, match="unknown optimization level 'O9'"):
        preset_spec("O9")


def test_o2_runs_and_keeps_the_module_valid() -> None:
    module, report = run("O2", verify_each=True)
    assert report.records and module.instruction_count() <= 3
    hlotools.verify_module(module)


def test_log_levels_and_env() -> None:
    assert [level_for(v) for v in range(5)] == [logging.WARNING, logging.INFO, logging.DEBUG, TRACE, TRACE]
    assert env_level("debug") == logging.DEBUG and env_level("2") == logging.DEBUG and env_level(None) is None
    with pytest.raises(ValueError, match="HLOTOOLS_LOG='loud'"):
        env_level("loud")


def test_decisions_are_debug_and_bisect_lines_show_at_any_level(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HLOTOOLS_LOG", raising=False)
    out = io.StringIO()
    with cli_logging(2, out):
        run("dce")
    assert "debug: dce: removed 1 dead instructions from main" in out.getvalue()
    out = io.StringIO()
    with cli_logging(1, out):
        run("dce")
    assert "removed" not in out.getvalue() and "info: HLO pass (1) dce: changed" in out.getvalue()
    out = io.StringIO()
    with cli_logging(0, out, always_show=("BISECT:",)):
        run("dce,cse", bisect_limit=1)
    assert out.getvalue().splitlines() == ["info: BISECT: running pass (1) dce", "info: BISECT: NOT running pass (2) cse"]
    out = io.StringIO()
    monkeypatch.setenv("HLOTOOLS_LOG", "trace")
    with cli_logging(0, out):
        run("dce")
    assert "trace: module after dce:\nHloModule dead" in out.getvalue()
    # The CLI's handler does not outlive the command.
    assert not [h for h in logging.getLogger("hlotools").handlers if getattr(h, "_hlotools_cli_handler", False)]
