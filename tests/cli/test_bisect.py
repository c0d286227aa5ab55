"""--bisect-limit and --bisect-against: a deliberately broken pass, registered only here, must be
found at the right pass application and the right rewrite inside it."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from click.testing import CliRunner, Result

import hlotools
from hlotools.cli.bisect import Bisector, load_arguments
from hlotools.cli.opt import main
from hlotools.ir.module import Module
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.manager import ManagerOptions, PassManager
from hlotools.passes.pipeline import parse_pipeline
from hlotools.passes.registry import register, unregister
from tests.support.paths import SHARED


@dataclass
class BrokenAdd(HloPass):
    """Rewrites the `k`-th add (1-based, in instruction order) of the entry into a subtract.

    Every add it looks at costs one unit of fuel (a "rewrite" for bisection), so with fuel
    F < k it stops before the broken rewrite, exactly like a fuel-gated pass in XLA.
    """

    name: ClassVar[str] = "broken-add"
    description: ClassVar[str] = "test only: turns the k-th add into a subtract"
    k: int = 2

    def run(self, module: Module, ctx: PassContext) -> bool:
        assert module.entry is not None
        seen = 0
        for inst in module.entry.instructions:
            if inst.opcode != "add":
                continue
            if not ctx.consume_fuel(f"visit %{inst.name}"):
                return False
            seen += 1
            if seen == self.k:
                inst.opcode = "subtract"
                ctx.decision("turned %s into a subtract", inst.name)
                return True
        return False


@dataclass
class Renamer(HloPass):
    """A harmless pass that always changes the module (renames the entry's root once)."""

    name: ClassVar[str] = "test-renamer"
    description: ClassVar[str] = "test only: appends .r to the root's name"

    def run(self, module: Module, ctx: PassContext) -> bool:
        assert module.entry is not None and module.entry.root is not None
        root = module.entry.root
        if root.name.endswith(".r") or not ctx.consume_fuel(f"rename %{root.name}"):
            return False
        root.name += ".r"
        return True


@pytest.fixture(autouse=True)
def _test_passes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("HLOTOOLS_VERIFY_EACH", "1")
    register("broken-add", f"{__name__}:BrokenAdd")
    register("test-renamer", f"{__name__}:Renamer")
    yield
    unregister("broken-add")
    unregister("test-renamer")


# Four adds in a chain; the third one's operands make a subtract observable.
ADDS = """HloModule adds

ENTRY main {
  p = s32[3] parameter(0)
  q = s32[3] parameter(1)
  a1 = s32[3] add(p, q)
  a2 = s32[3] add(a1, q)
  a3 = s32[3] add(a2, q)
  a4 = s32[3] add(a3, p)
  ROOT t = (s32[3], s32[3]) tuple(a4, a1)
}
"""
# cse, dce and the renamer make 3 harmless applications before the broken one; the pipeline
# is dce,test-renamer,dce,broken-add{k=3},dce -> the culprit is application (4), rewrite (3).
SPEC = "dce,test-renamer,dce,broken-add{k=3},dce"


def invoke(args: list[str], input: str | None = None) -> Result:
    return CliRunner().invoke(main, args, input=input)


@pytest.fixture
def adds(tmp_path: Path) -> Path:
    path = tmp_path / "adds.hlo"
    path.write_text(ADDS)
    return path


def test_the_broken_pass_really_changes_results() -> None:
    module = hlotools.parse_module(ADDS)
    PassManager(ManagerOptions(verify_each=True)).run(module, parse_pipeline(SPEC))
    from hlotools import evaluate
    p, q = np.array([1, 2, 3], np.int32), np.array([10, 20, 30], np.int32)
    out = evaluate(module, [p, q])
    assert out[0].tolist() == [12, 24, 36]  # a3 = a2 - q: (p+2q) - q + p = 2p + q
    assert out[1].tolist() == [11, 22, 33]


def test_bisect_limit_runs_only_the_first_n_applications_and_logs_them(adds: Path) -> None:
    r = invoke([str(adds), f"--passes={SPEC}", "--bisect-limit=3"])
    assert r.exit_code == 0, r.output
    assert "subtract" not in r.stdout and "t.r = " in r.stdout
    bisect = [line for line in r.stderr.splitlines() if "BISECT" in line]
    assert bisect == ["info: BISECT: running pass (1) dce", "info: BISECT: running pass (2) test-renamer",
                      "info: BISECT: running pass (3) dce", "info: BISECT: NOT running pass (4) broken-add",
                      "info: BISECT: NOT running pass (5) dce"]


def test_bisect_limit_with_fuel_limits_the_rewrites_of_the_last_application(adds: Path) -> None:
    r = invoke([str(adds), f"--passes={SPEC}", "--bisect-limit=4:2"])
    assert r.exit_code == 0, r.output
    assert "subtract" not in r.stdout
    assert "info: BISECT: running rewrite (2) of broken-add visit %a2" in r.stderr
    assert "NOT running rewrite (3) visit %a3" in r.stderr
    r = invoke([str(adds), f"--passes={SPEC}", "--bisect-limit=4:3"])
    assert r.exit_code == 0 and "a3 = s32[3]{0} subtract(a2, q)" in r.stdout


def test_bisect_limit_rejects_bad_values(adds: Path) -> None:
    for bad in ("x", "3:", "-1", "1:2:3"):
        r = invoke([str(adds), "--passes=dce", f"--bisect-limit={bad}"])
        assert r.exit_code == 2 and "expected N or N:M" in r.stderr, (bad, r.output)


def test_bisect_against_finds_the_application_and_the_rewrite(adds: Path) -> None:
    r = invoke([str(adds), f"--passes={SPEC}", "--bisect-against=interp", "--random", "0"])
    assert r.exit_code == 3, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == ("bisect: 5 pass application(s); the outputs change after application (4) "
                        "broken-add{k=3}")
    assert lines[1] == "bisect: first culprit rewrite: (3) of 3 in broken-add: visit %a3"
    assert lines[2].startswith("bisect: out0: MISMATCH: 3 of 3 elements differ (exact)")
    assert "--bisect-limit=4:3" in lines[3]
    # The diff shows exactly the culprit rewrite.
    minus = [x for x in lines if x.startswith("-  ")]
    plus = [x for x in lines if x.startswith("+  ")]
    assert minus == ["-  a3 = s32[3]{0} add(a2, q)"] and plus == ["+  a3 = s32[3]{0} subtract(a2, q)"]


def test_bisect_against_with_inputs_and_another_culprit(adds: Path, tmp_path: Path) -> None:
    npz = tmp_path / "in.npz"
    np.savez(npz, in0=np.array([1, 2, 3], np.int32), in1=np.array([4, 5, 6], np.int32))
    spec = "test-renamer,broken-add{k=1},dce"  # breaks a1: both outputs change
    r = invoke([str(adds), f"--passes={spec}", "--bisect-against=interp", "--inputs", str(npz)])
    assert r.exit_code == 3, r.output
    assert "after application (2) broken-add{k=1}" in r.stdout
    assert "first culprit rewrite: (1) of 1 in broken-add: visit %a1" in r.stdout
    assert "out0: MISMATCH" in r.stdout and "out1: MISMATCH" in r.stdout


def test_bisect_against_inside_a_fixed_point_group(adds: Path) -> None:
    # Iteration 1: dce (1) renamer (2, changes) broken-add (3, changes); iteration 2: dce (4) ...
    r = invoke([str(adds), "--passes=fixed-point(dce,test-renamer,broken-add{k=4})",
                "--bisect-against=interp", "--random", "1"])
    assert r.exit_code == 3, r.output
    assert "after application (3) broken-add{k=4}" in r.stdout
    assert "first culprit rewrite: (4) of 4 in broken-add: visit %a4" in r.stdout


def test_bisect_against_exits_0_when_no_pass_changes_the_outputs(adds: Path) -> None:
    r = invoke([str(adds), "--passes=fixed-point(algsimp,cse,dce),test-renamer", "--bisect-against=interp",
                "--random", "0"])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("bisect: no pass application changes the outputs: ")


def test_bisect_against_float_tolerance() -> None:
    """Floats compare within a tolerance (default by type, or --rtol/--atol); ints exactly."""
    text = """HloModule f

ENTRY main {
  p = f32[2] parameter(0)
  q = f32[2] parameter(1)
  ROOT a = f32[2] add(p, q)
}
"""
    # add -> subtract moves out0[0] from 1+3e-5 to 1-3e-5: 6e-5 < atol 1e-5 + rtol 1e-4 * 1.
    args = [np.array([1.0, 2.0], np.float32), np.array([3e-5, 0.0], np.float32)]
    loose = Bisector(text, "f.hlo", "broken-add{k=1}", list(args)).run()
    assert not loose.found and loose.applications == 1
    exact = Bisector(text, "f.hlo", "broken-add{k=1}", list(args), rtol=0.0, atol=0.0).run()
    assert exact.found and exact.application is not None and exact.application.name == "broken-add"
    assert exact.rewrite == 1


@dataclass
class IllTyped(HloPass):
    """Turns the k-th add into a negate with two operands: the verifier must reject it."""

    name: ClassVar[str] = "test-ill-typed"
    description: ClassVar[str] = "test only: makes the module fail the verifier"

    def run(self, module: Module, ctx: PassContext) -> bool:
        assert module.entry is not None
        adds = [i for i in module.entry.instructions if i.opcode == "add"]
        if not adds or not ctx.consume_fuel(f"break %{adds[-1].name}"):
            return False
        adds[-1].opcode = "negate"
        return True


def test_a_probe_that_fails_the_verifier_counts_as_a_change(adds: Path) -> None:
    register("test-ill-typed", f"{__name__}:IllTyped")
    try:
        bisector = Bisector(ADDS, "adds.hlo", "dce,test-renamer,test-ill-typed,dce",
                            [np.arange(3, dtype=np.int32)] * 2)
        result = bisector.run()
    finally:
        unregister("test-ill-typed")
    assert result.found and result.application is not None
    assert (result.application.index, result.application.name) == (3, "test-ill-typed")
    assert result.rewrite == 1
    assert result.reason.startswith("the probe failed: verifier failed after pass (3) 'test-ill-typed'")


def test_binary_search_takes_logarithmic_probes(adds: Path) -> None:
    spec = ",".join(["test-renamer"] + ["dce"] * 30 + ["broken-add{k=2}"] + ["dce"] * 30)
    result = Bisector(ADDS, "adds.hlo", spec, [np.arange(3, dtype=np.int32)] * 2).run()
    assert result.found and result.application is not None and result.application.index == 32
    assert result.rewrite == 2
    # full run + ~6 over 62 applications + re-probe + fuel 0, fuel 2, ~1 over 2 rewrites + diff probe
    assert result.probes <= 14, result.probes


def test_bisect_against_usage_errors(adds: Path) -> None:
    r = invoke([str(adds), "--bisect-against=interp", "--random", "0"])
    assert r.exit_code == 2 and "needs a pipeline" in r.stderr
    r = invoke([str(adds), "--passes=dce", "--bisect-against=interp"])
    assert r.exit_code == 1 and "give --inputs FILE... or --random SEED" in r.stderr
    r = invoke([str(adds), "--passes=dce", "--random", "0"])
    assert r.exit_code == 2 and "go with --bisect-against" in r.stderr


JAX = SHARED / "corpus" / "jax"


@pytest.mark.skipif(not JAX.is_dir(), reason="the shared JAX corpus is absent")
@pytest.mark.parametrize("name", ["mlp2_relu", "softmax", "while_newton"])
def test_o2_changes_no_outputs_on_corpus_modules_bit_exactly(name: str) -> None:
    """The registered part of -O2 keeps JAX modules' results exact; one probe settles it."""
    text = (JAX / f"{name}.hlo").read_text()
    args = load_arguments(hlotools.parse_module(text), [str(JAX / f"{name}.inputs.npz")], None)
    result = Bisector(text, name, "O2", args, rtol=0.0, atol=0.0).run()
    assert not result.found, result.reason
    assert result.probes == 1 and result.applications >= 9


@dataclass
class CrashOnSecondRun(HloPass):
    """Crashes (a bug, not an HloError) the second time it runs in a pipeline."""

    name: ClassVar[str] = "test-crash-second"
    description: ClassVar[str] = "test only"
    runs: ClassVar[dict[int, int]] = {}

    def run(self, module: Module, ctx: PassContext) -> bool:
        count = self.runs.get(id(module), 0) + 1
        self.runs[id(module)] = count
        if count == 2:
            raise ZeroDivisionError("division by zero")
        return False


def test_a_crashing_application_is_found_as_the_culprit(adds: Path) -> None:
    register("test-crash-second", f"{__name__}:CrashOnSecondRun")
    try:
        r = invoke([str(adds), "--passes=dce,test-crash-second,test-renamer,test-crash-second,dce",
                    "--bisect-against=interp", "--random", "0"])
    finally:
        unregister("test-crash-second")
    assert r.exit_code == 3, r.output
    assert "the outputs change after application (4) test-crash-second" in r.stdout
    assert ("bisect: the probe failed: pass 'test-crash-second' (application 4) crashed: "
            "ZeroDivisionError: division by zero") in r.stdout
