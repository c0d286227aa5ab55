"""Bad StableHLO input yields one located error (FILE:LINE:COL, a caret), never a traceback:
syntax errors, unsupported ops (named with their dialect), MLIR bytecode, and mutated texts."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlotools.errors import HloError
from hlotools.text.stablehlo import looks_like_stablehlo, parse_stablehlo
from tests.support.paths import TESTDATA

DATA = TESTDATA / "stablehlo"
GOOD = ("module @m {\n  func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        "    %0 = stablehlo.negate %a : tensor<2xf32>\n    return %0 : tensor<2xf32>\n  }\n}\n")


def error_of(text: str) -> HloError:
    with pytest.raises(HloError) as info:
        parse_stablehlo(text, "x.mlir")
    return info.value


@pytest.mark.parametrize("bad,where,message", [
    (GOOD.replace("stablehlo.negate", "stablehlo.frobnicate"), (3, 10),
     "unsupported op 'stablehlo.frobnicate' (dialect 'stablehlo')"),
    (GOOD.replace("stablehlo.negate", "chlo.frobnicate"), (3, 10), "unsupported op 'chlo.frobnicate' (dialect 'chlo')"),
    (GOOD.replace("negate %a", "negate %b"), (3, 27), "use of undefined value '%b'"),
    (GOOD.replace("tensor<2xf32> {", "tensor<2xq7> {"), (2, 57), "unsupported element type 'q7'"),
    (GOOD.replace("%0 = stablehlo.negate %a : tensor<2xf32>", "%0 = stablehlo.negate %a : tensor<3xf32>"), (4, 5),
     "'@main' returns (f32[3]), but its signature says (f32[2])"),
    (GOOD.replace("%0 = stablehlo.negate %a : tensor<2xf32>", "%b = stablehlo.negate %a : tensor<3xf32>\n"
                  "    %0 = stablehlo.slice %b [0:2] : (tensor<3xf32>) -> tensor<2xf32>"), (3, 10),
     "(in the HLO translation of this op)"),
    (GOOD.replace("-> tensor<2xf32> {", "-> tensor<?xf32> {"), (2, 55), "needs a bound"),
    (GOOD[:-3], (5, 4), "expected"),
    (GOOD.replace("return %0", "return %0)"), (4, 14), "found ')'"),
    (GOOD + "// -----\n" + GOOD, (8, 1), "a second module"),
    (GOOD.replace("    return %0", "    func.func private @g(%b: tensor<2xf32>) -> tensor<2xf32> {\n      return %b : "
                  "tensor<2xf32>\n    }\n    return %0"), (4, 5), "a func.func inside a region"),
])
def test_located_errors(bad: str, where: tuple[int, int], message: str) -> None:
    e = error_of(bad)
    assert message in e.message, e.message
    assert (e.line, e.column) == where, e.format()
    text = e.format()
    assert text.startswith(f"x.mlir:{where[0]}:{where[1]}: error: ") and "^" in text


def test_bytecode_and_sniffing_through_the_cli(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from hlotools.cli.opt import main
    code = tmp_path / "m.mlirbc"
    code.write_bytes(b"ML\xefR\x00\x01rest")
    result = CliRunner().invoke(main, [str(code)])
    assert result.exit_code == 1 and "MLIR bytecode" in result.output and "re-export as text" in result.output
    text = tmp_path / "m.txt"  # no .mlir suffix: found by its content
    text.write_text(GOOD)
    result = CliRunner().invoke(main, [str(text)])
    assert result.exit_code == 0 and "negate(" in result.output
    result = CliRunner().invoke(main, ["--input-format=hlo", str(text)])
    assert result.exit_code == 1 and "m.txt:1:" in result.output
    bad = tmp_path / "bad.mlir"
    bad.write_text(GOOD.replace("stablehlo.negate", "stablehlo.frobnicate"))
    result = CliRunner().invoke(main, [str(bad)])
    assert result.exit_code == 1 and "bad.mlir:3:10: error: unsupported op" in result.output
    assert "Traceback" not in result.output


def test_sniffing_never_takes_hlo_for_stablehlo() -> None:
    assert looks_like_stablehlo(GOOD) and looks_like_stablehlo('"builtin.module"() ({\n})')
    assert not looks_like_stablehlo("HloModule m\nENTRY e { ROOT p = f32[] parameter(0) }")
    assert not looks_like_stablehlo("module {\n  p = f32[] parameter(0)\n}")  # an HLO computation named module


def _programs() -> list[str]:
    return [(DATA / n).read_text() for n in ("softmax.mlir", "cond_switch.generic.mlir", "x_topk_case.mlir",
                                              "x_ops_misc.loc.mlir", "x_sdy_mesh.mlir", "x_composite.mlir",
                                              "x_ragged_dot.mlir", "x_chlo_zeta.mlir")]


def _check(text: str) -> None:
    try:
        parse_stablehlo(text, "m.mlir")
    except HloError as e:
        assert e.line is not None and e.line >= 1, e.format()
        e.format()


def test_every_truncation_is_a_located_error() -> None:
    for text in _programs()[:2]:
        step = max(1, len(text) // 120)
        for cut in range(0, len(text) - 2, step):
            _check(text[:cut])


_TOKENS = ["%0", "%arg0", "(", ")", "{", "}", "[", "]", ",", ":", "=", "->", "tensor<2xf32>", "dense<1.0>",
           "stablehlo.add", "stablehlo.return", "func.func", "^bb0", "@main", "loc(#loc1)", "\n", '"', "<", ">",
           "tensor<?xf32>", "#stablehlo.gather<>", "0x7F", "-1", "array<i64: 1>", "cond", "do", '{"x"}', "@mesh",
           '#sdy.sharding<@mesh, [{}]>', '<["x"=3]>', "sdy.mesh", "chlo.broadcast_add", "composite_attributes",
           "{broadcast_dimensions = array<i64: 5>}"]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_mutations_only_yield_located_errors(data: st.DataObject) -> None:
    programs = _programs()
    text = programs[data.draw(st.integers(0, len(programs) - 1))]
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1)))
    pieces = text.split(" ")
    for _ in range(data.draw(st.integers(1, 4))):
        k = rng.randrange(len(pieces))
        action = rng.randrange(3)
        if action == 0:
            pieces[k] = rng.choice(_TOKENS)
        elif action == 1:
            j = rng.randrange(len(pieces))
            pieces[k], pieces[j] = pieces[j], pieces[k]
        else:
            del pieces[k]
    _check(" ".join(pieces))


def test_glog_prefixed_stablehlo_and_protobuf_text_through_the_cli(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from hlotools.cli.opt import main
    logged = tmp_path / "log.txt"
    logged.write_text("".join(f"I0521 12:04:45.883483    1509 dump.cc:186] {line}\n" for line in GOOD.splitlines()))
    result = CliRunner().invoke(main, [str(logged)])
    assert result.exit_code == 0, result.output
    assert " negate(" in result.output
    pbtxt = tmp_path / "m.txt"
    pbtxt.write_text('name: "jit_f"\nentry_computation_name: "main"\ncomputations {\n}\n')
    result = CliRunner().invoke(main, [str(pbtxt)])
    assert result.exit_code == 1 and f"{pbtxt}:1:1: error: this looks like an HloModuleProto in protobuf text" \
        in result.output
