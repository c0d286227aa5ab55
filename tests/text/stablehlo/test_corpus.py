"""Every StableHLO program in testdata/stablehlo (the JAX corpus programs and a few more, from
tools/gen_stablehlo.py) imports, runs to XLA's outputs, and has the instruction structure of
XLA's own HLO form of the same lowering (modulo names and the listed differences)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.corpus.test_interpreter import JAX, _leaf_dtypes, _load, assert_matches, op_class
from tests.support.paths import TESTDATA
from tests.text.stablehlo.structure import delta, normalized_counts, parse_differences

DATA = TESTDATA / "stablehlo"
PROGRAMS = sorted(p.name[:-5] for p in DATA.glob("*.mlir"))
# The LLVM backend on a few programs covering regions, calls, control flow, gather/scatter and chlo.
LLVM_SUBSET = ["softmax", "cond_switch.generic", "fori_power_iter", "x_scatter_gather", "x_topk_case",
               "x_ops_misc", "elementwise_math", "x_chlo_zeta", "x_chlo_edges"]


def _data(name: str) -> tuple[Path, Path] | None:
    base = name.split(".")[0]
    for folder in (DATA, JAX):
        if (folder / f"{base}.inputs.npz").is_file():
            return folder / f"{base}.inputs.npz", folder / f"{base}.expected.npz"
    return None


def _run(name: str, backend: str) -> None:
    from hlotools.text.stablehlo import parse_stablehlo
    files = _data(name)
    if files is None:
        pytest.skip("inputs are in shared/corpus/jax, which is absent")
    path = DATA / f"{name}.mlir"
    module = parse_stablehlo(path.read_text(), str(path))
    in_dt, out_dt = _leaf_dtypes(module)
    with np.load(files[0]) as f:
        args = _load(f, "in", in_dt)
    with np.load(files[1]) as f:
        want = _load(f, "out", out_dt)
    if backend == "interp":
        from hlotools import evaluate
        got = evaluate(module, args)
    else:
        from hlotools.backend.llvm import compile_module
        got = compile_module(module)(args)
    klass = op_class({i.opcode for c in module.computations for i in c.instructions})
    assert len(got) == len(want), f"{len(got)} result leaves, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert_matches(np.asarray(g), w, klass, f"{name} out{i}")


def test_the_corpus_is_there() -> None:
    assert len(PROGRAMS) >= 50, PROGRAMS
    assert all((DATA / f"{n.split('.')[0]}.hlo").is_file() for n in PROGRAMS)


@pytest.mark.parametrize("name", PROGRAMS)
def test_runs_to_xla_outputs_on_the_interpreter(name: str) -> None:
    _run(name, "interp")


@pytest.mark.parametrize("name", LLVM_SUBSET)
def test_runs_to_xla_outputs_on_llvm(name: str) -> None:
    _run(name, "llvm")


_DIFFERENCES = parse_differences((DATA / "structure_differences.txt").read_text())


@pytest.mark.parametrize("name", PROGRAMS)
def test_structure_matches_xla_hlo_form(name: str) -> None:
    from hlotools.text.parser import parse
    from hlotools.text.stablehlo import parse_stablehlo
    ours = normalized_counts(parse_stablehlo((DATA / f"{name}.mlir").read_text()))
    theirs = normalized_counts(parse((DATA / f"{name.split('.')[0]}.hlo").read_text()))
    expected, reason = _DIFFERENCES.get(name, ({}, ""))
    assert delta(ours, theirs) == expected, f"{name}: opcode counts (ours - XLA's) changed; listed: {expected}"
    assert not expected or reason, f"{name}: a listed difference needs its reason"


def test_every_listed_difference_names_a_program() -> None:
    assert set(_DIFFERENCES) <= set(PROGRAMS)


@pytest.mark.parametrize("name", ["softmax", "transformer_block", "x_ops_misc", "elementwise_math", "x_sdy_mesh",
                                  "train_step_mlp", "nested_calls"])
def test_the_lexer_fast_paths_read_as_the_general_path_does(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from hlotools.text.stablehlo import lexer_fast, stablehlo_to_hlo
    text = (DATA / f"{name}.mlir").read_text()
    fast = stablehlo_to_hlo(text)
    monkeypatch.setattr(lexer_fast, "fast_op", lambda text, pos: None)
    monkeypatch.setattr(lexer_fast, "fast_return", lambda text, pos: None)
    monkeypatch.setattr(lexer_fast, "fast_function", lambda text, pos: None)
    assert stablehlo_to_hlo(text) == fast


@pytest.mark.parametrize("name", ["x_composite", "x_composite.generic"])
def test_composites_are_calls_marked_as_xla_marks_them(name: str) -> None:
    from hlotools.text.parser import parse
    from hlotools.text.stablehlo import parse_stablehlo

    def marks(module) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
        return sorted((str(i.attrs.get("is_composite")), str(i.attrs.get("frontend_attributes")))
                      for i in module.entry.instructions if i.opcode == "call")
    ours = marks(parse_stablehlo((DATA / f"{name}.mlir").read_text()))
    assert ours == marks(parse((DATA / "x_composite.hlo").read_text())) and len(ours) == 2


def test_typed_ffi_custom_calls_keep_what_xla_keeps() -> None:
    """backend_config with its element types, the output/operand aliasing and the op's frontend
    attributes, as in XLA's HLO form (XLA's FFI handlers refuse untyped attributes)."""
    from hlotools.text.parser import parse
    from hlotools.text.stablehlo import parse_stablehlo

    def calls(module) -> list[tuple[str, ...]]:  # type: ignore[no-untyped-def]
        keys = ("custom_call_target", "backend_config", "output_to_operand_aliasing", "frontend_attributes")
        return sorted(tuple(str(i.attrs.get(k)).split(",xla.sdy")[0].rstrip("}") for k in keys)
                      for c in module.computations for i in c.instructions if i.opcode == "custom-call")
    ours = calls(parse_stablehlo((DATA / "linalg_custom_calls.mlir").read_text()))
    assert ours == calls(parse((DATA / "linalg_custom_calls.hlo").read_text())) and len(ours) >= 4
