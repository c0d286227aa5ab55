"""Shardings and names on the entry signature: Shardy (`sdy.mesh`, `#sdy.sharding<...>`) converted
to HLO shardings exactly as XLA's Shardy export writes them (checked against XLA's own HLO form
of the same lowering), mhlo.sharding strings kept, argument and result attributes kept, and
result names (jax.result_info) shown by hlo-run."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from hlotools.errors import HloError
from hlotools.text.parser import parse
from hlotools.text.stablehlo import parse_stablehlo, stablehlo_to_hlo
from tests.support.paths import TESTDATA

DATA = TESTDATA / "stablehlo"


def _shardings(module) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """opcode/parameter number -> sharding text of the entry's sharded instructions."""
    out = {}
    for inst in module.entry.instructions:
        if "sharding" in inst.attrs:
            key = f"parameter{inst.parameter_number}" if inst.opcode == "parameter" else inst.opcode
            if inst is module.entry.root:
                key = "root"
            if inst.opcode == "custom-call" and "FuncResultSharding" in str(inst.attrs.get("custom_call_target")):
                continue
            out[key] = str(inst.attrs["sharding"])
    return out


@pytest.mark.parametrize("name", ["x_sdy_mesh", "sharding_1dev"])
def test_shardy_shardings_are_xlas(name: str) -> None:
    ours = parse_stablehlo((DATA / f"{name}.mlir").read_text())
    theirs = parse((DATA / f"{name}.hlo").read_text())
    assert _shardings(ours) == {k: v for k, v in _shardings(theirs).items() if k != "reshape"}
    assert _shardings(ours)  # the comparison saw shardings
    mesh = str(theirs.attrs["frontend_attributes"]).strip("{}")
    assert mesh in str(ours.attrs["frontend_attributes"])


def _module(args: str, results: str, body: str, mesh: str = '<["x"=2, "y"=2]>') -> str:
    return (f"module @m {{\n  sdy.mesh @mesh = {mesh}\n  func.func public @main({args}) -> ({results}) {{\n{body}\n"
            "  }\n}\n")


def test_mesh_with_device_ids_maximal_meshes_and_per_value_op_shardings() -> None:
    t = "tensor<4x4xf32>"
    text = _module(f'%a: {t} {{sdy.sharding = #sdy.sharding<@mesh, [{{"y"}}, {{}}]>}}',
                   f'{t} {{sdy.sharding = #sdy.sharding<@mesh, [{{"x", ?}}p0, {{"y"}}]>}}',
                   f'    %0 = stablehlo.negate %a {{sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{{}}, {{"x"}}]>]>}}'
                   f" : {t}\n    return %0 : {t}", '<["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>')
    hlo = stablehlo_to_hlo(text)
    assert "parameter(0), sharding={devices=[2,1,2]3,1,2,0 last_tile_dim_replicate}" in hlo
    negate = next(line for line in hlo.splitlines() if " negate(" in line)
    assert negate.endswith("sharding={devices=[1,2,2]3,2,1,0 last_tile_dim_replicate}")
    # the negate has a sharding of its own: the result's goes on a copy
    assert "ROOT" in hlo and " copy(" in hlo.split("ROOT")[1] and "sharding={devices=[2,2]3,2,1,0}" in hlo
    maximal = _module(f"%a: {t} {{sdy.sharding = #sdy.sharding<@mesh, [{{}}, {{}}]>}}", t,
                      f"    return %a : {t}", "<[], device_ids=[5]>")
    assert "sharding={maximal device=5}" in stablehlo_to_hlo(maximal)


def test_mhlo_shardings_arg_info_and_frontend_attributes_are_kept() -> None:
    t = "tensor<2xf32>"
    text = ("module @m {\n  func.func public @main(%a: tensor<2xf32> {jax.arg_info = \"params['w']\", "
            'mhlo.frontend_attributes = {k = "v"}, mhlo.sharding = "{devices=[2]0,1}"}, %b: tensor<2xf32>) -> '
            '(tensor<2xf32> {jax.result_info = "out", mhlo.sharding = "{replicated}"}, tensor<2xf32> '
            '{jax.result_info = "[1]"}) {\n'
            f"    %0 = stablehlo.add %a, %b : {t}\n    return %0, %a : {t}, {t}\n  }}\n}}\n")
    hlo = stablehlo_to_hlo(text)
    assert 'parameter(0), sharding={devices=[2]0,1}, frontend_attributes={k="v", jax.arg_info="params[\'w\']"}' in hlo
    assert "sharding={{replicated}, {replicated}}" in hlo
    assert 'jax.result_info="[\\"out\\", \\"[1]\\"]"' in hlo
    one = text.replace(", tensor<2xf32> {jax.result_info = \"[1]\"}", "").replace("return %0, %a : {t}, {t}", "")
    one = one.replace(f"return %0, %a : {t}, {t}", f"return %a : {t}")
    hlo = stablehlo_to_hlo(one)  # a parameter returned with its own sharding: the result's goes on a copy
    assert "ROOT" in hlo and " copy(" in hlo.split("ROOT", 1)[1] and "sharding={replicated}" in hlo.split("ROOT")[1]


def test_hlo_run_labels_results_with_their_jax_names(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from hlotools.cli.run import main
    result = CliRunner().invoke(main, [str(DATA / "x_sdy_mesh.mlir"), "--backend=interp", "--inputs",
                                       str(DATA / "x_sdy_mesh.inputs.npz"), "--expected",
                                       str(DATA / "x_sdy_mesh.expected.npz")])
    assert result.exit_code == 0, result.output
    assert "out0 (result['act']): f32[8,8]" in result.output and "out1 (result['total']): f32[]" in result.output
    result = CliRunner().invoke(main, [str(DATA / "x_sdy_mesh.mlir"), "--backend=interp", "--random", "0", "--json"])
    assert '"result_info": "result[\'total\']"' in result.output


@pytest.mark.parametrize("sharding,message", [
    ('#sdy.sharding<@other, [{}, {}]>', "names mesh '@other', which no sdy.mesh defines"),
    ('#sdy.sharding<@mesh, [{"z"}, {}]>', "axis 'z' is not in the mesh"),
    ('#sdy.sharding<@mesh, [{"x":(1)2}, {}]>', "sub-axis sharding"),
    ('#sdy.sharding<@mesh, [{}]>', "gives 1 dims for a rank-2 value"),
])
def test_bad_shardings_are_located_errors(sharding: str, message: str) -> None:
    t = "tensor<4x4xf32>"
    text = _module(f"%a: {t} {{sdy.sharding = {sharding}}}", t, f"    return %a : {t}", '<["x"=4, "y"=2]>')
    with pytest.raises(HloError) as info:
        parse_stablehlo(text, "s.mlir")
    assert message in info.value.message and info.value.line == 3, info.value.format()
