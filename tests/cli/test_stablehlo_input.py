"""Every CLI tool reads StableHLO: by the .mlir suffix, by content, or with --input-format."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from click.testing import CliRunner

from tests.support.paths import TESTDATA

SOFTMAX = TESTDATA / "stablehlo" / "softmax.mlir"
GOOD = ("module @m {\n  func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
        "    %0 = stablehlo.exponential %a : tensor<3xf32>\n    return %0 : tensor<3xf32>\n  }\n}\n")


def test_hlo_opt_prints_hlo_for_mlir() -> None:
    from hlotools.cli.opt import main
    result = CliRunner().invoke(main, [str(SOFTMAX), "--passes=cse,dce"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("HloModule jit_softmax, entry_computation_layout=")
    assert "to_apply=log_softmax" in result.output


def test_hlo_run_checks_a_mlir_file_against_expected(tmp_path: Path) -> None:
    from hlotools.cli.run import main
    x = np.array([0.0, 1.0, -2.0], np.float32)
    np.save(tmp_path / "x.npy", x)
    np.savez(tmp_path / "want.npz", out0=np.exp(x))
    path = tmp_path / "exp.stablehlo"
    path.write_text(GOOD)
    result = CliRunner().invoke(main, [str(path), "--backend=interp", "--inputs", str(tmp_path / "x.npy"),
                                       "--expected", str(tmp_path / "want.npz")])
    assert result.exit_code == 0, result.output
    np.savez(tmp_path / "wrong.npz", out0=np.exp(x) + 1)
    result = CliRunner().invoke(main, [str(path), "--backend=interp", "--inputs", str(tmp_path / "x.npy"),
                                       "--expected", str(tmp_path / "wrong.npz")])
    assert result.exit_code == 3


def test_hlo_translate_reads_stdin_by_content_and_obeys_input_format() -> None:
    from hlotools.cli.translate import main
    result = CliRunner().invoke(main, ["--emit=hlo", "-"], input=GOOD)
    assert result.exit_code == 0 and "exponential(" in result.output, result.output
    result = CliRunner().invoke(main, ["--emit=hlo", "--input-format=stablehlo", "-"],
                                input=GOOD.replace("module @m ", "module "))
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["--emit=hlo", "--input-format=stablehlo", "-"], input="HloModule m\n")
    assert result.exit_code == 1 and "<stdin>:1:1: error:" in result.output


def test_hlo_diff_compares_pretty_and_generic_forms(tmp_path: Path) -> None:
    from hlotools.cli.diff import main
    generic = TESTDATA / "stablehlo" / "softmax.generic.mlir"
    result = CliRunner().invoke(main, [str(SOFTMAX), str(generic)])
    assert result.exit_code == 0 and "summary: same structure" in result.output, result.output
    changed = tmp_path / "changed.mlir"
    changed.write_text(GOOD.replace("exponential", "negate"))
    same = tmp_path / "same.mlir"
    same.write_text(GOOD)
    result = CliRunner().invoke(main, [str(same), str(changed)])
    assert "same structure" not in result.output and "negate" in result.output, result.output
