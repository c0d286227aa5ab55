"""HLO -> StableHLO (hlo-translate --emit=stablehlo) -> HLO computes the same bits, and what the
exporter cannot write yet is refused with the instruction's name."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from hlotools import evaluate
from hlotools.errors import HloError
from hlotools.text.parser import parse
from hlotools.text.stablehlo import parse_stablehlo
from hlotools.text.stablehlo.export import export_stablehlo
from tests.corpus.test_interpreter import _leaf_dtypes, _load
from tests.text.stablehlo.test_corpus import DATA, _data

ROUND_TRIP = ["softmax", "mlp2_relu", "fori_power_iter", "reductions", "shape_ops", "int_bitops", "dtype_converts",
              "conv_variants", "scatter_ops", "sort_topk", "rng_bit_generator", "x_chlo_special", "cond_switch",
              "x_topk_case", "linalg_custom_calls", "train_step_cnn", "sharding_1dev"]


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_round_trip_keeps_the_bits(name: str) -> None:
    files = _data(name)
    if files is None:
        pytest.skip("inputs are in shared/corpus/jax, which is absent")
    module = parse((DATA / f"{name}.hlo").read_text())
    text = export_stablehlo(module)
    assert text.startswith(f"module @{module.name} {{") and "func.func public @main(" in text
    back = parse_stablehlo(text, f"{name}.mlir")
    in_dt, _ = _leaf_dtypes(module)
    with np.load(files[0]) as f:
        args = _load(f, "in", in_dt)
    for a, b in zip(evaluate(module, args), evaluate(back, args)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_what_has_no_form_yet_is_refused_by_name() -> None:
    module = parse("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT r = f32[4] rng(a, a), "
                   "distribution=rng_uniform\n}\n")
    with pytest.raises(HloError, match="r: rng has no StableHLO form"):
        export_stablehlo(module)


def test_hlo_translate_emits_stablehlo() -> None:
    from hlotools.cli.translate import main
    result = CliRunner().invoke(main, ["--emit=stablehlo", str(DATA / "softmax.hlo")])
    assert result.exit_code == 0, result.output
    assert '"stablehlo.reduce"' in result.output and "func.call" in result.output
    assert parse_stablehlo(result.output).entry is not None


def test_round_trip_keeps_shardings_result_names_and_partitions() -> None:
    from hlotools.io.arrays import result_leaves
    first = parse_stablehlo((DATA / "x_sdy_mesh.mlir").read_text())
    text = export_stablehlo(first)
    assert text.startswith("module @jit_x_sdy_mesh attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1")
    assert 'jax.result_info = "result[\'act\']"' in text
    back = parse_stablehlo(text)
    for a, b in zip(first.entry.parameters, back.entry.parameters):
        assert str(a.attrs["sharding"]) == str(b.attrs["sharding"])
    assert str(back.entry.root.attrs["sharding"]) == str(first.entry.root.attrs["sharding"])
    assert [s.label for s in result_leaves(back)] == ["result['act']", "result['total']"]
    assert back.attrs.get("num_partitions") == first.attrs.get("num_partitions")
