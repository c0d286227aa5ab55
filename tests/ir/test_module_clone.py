"""Module.clone() builds what parse(print(module)) builds: compared field by field (names, flags,
computation and instruction order, attribute order and values, shapes, literals, operand, user
and control edges) and as printed text over the corpora, with the round trip as the reference.
Positions (line/column) are the one deliberate difference: the copy keeps the original text's.
Changing the copy leaves the original as it was."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hlotools
from hlotools.errors import HloError
from hlotools.ir.attributes import ComputationLayout
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.text.literal_format import format_literal
from hlotools.text.parse_async import ASYNC_OPS
from hlotools.text.printer import HloPrinter, print_module
from tests.support.paths import SHARED

JAX = SHARED / "corpus" / "jax"
XLA = SHARED / "corpus" / "xla"


def _value(v: Any) -> Any:
    if isinstance(v, Computation):
        return ("computation", v.name)
    if isinstance(v, (tuple, list)) and v and isinstance(v[0], Computation):
        return (type(v).__name__, tuple(c.name for c in v))
    if isinstance(v, ComputationLayout):  # derived (text None) or read back: the same text and shapes
        return ("layout", HloPrinter().value(v), v.params, v.result)
    return (type(v).__name__, v)


def _attrs(i: Instruction) -> list[tuple[str, Any]]:
    """In order; for async ops as a set: the parser rebuilds them from the printed sugar with
    `calls` first (6 files of the XLA corpus). Async ops have side effects: CSE never merges them,
    and computation fingerprints compare copies made the same way."""
    pairs = [(k, _value(v)) for k, v in i.attrs.items()]
    return sorted(pairs, key=lambda kv: kv[0]) if i.opcode in ASYNC_OPS else pairs


def _instruction(i: Instruction) -> tuple:
    lit = i.literal
    return (i.name, i.opcode, i.shape, i.parameter_number, [o.name for o in i.operands],
            [u.name for u in i.users], _attrs(i),
            [p.name for p in i.control_predecessors], i.parent.name if i.parent is not None else None,
            None if lit is None else (type(lit).__name__, lit.elided, format_literal(lit)))


def _computation(c: Computation) -> tuple:
    return (c.name, c.is_entry, c.execution_thread, c.is_fusion_computation,
            c.root.name if c.root is not None else None, [p.name if p is not None else None for p in c.parameters],
            [_instruction(i) for i in c.instructions], c.parent.name if c.parent is not None else None)


def describe(m: Module) -> tuple:
    return (m.name, [(k, _value(v)) for k, v in m.attrs.items()], m.stack_frames_text,
            m.entry.name if m.entry is not None else None, [_computation(c) for c in m.computations])


def check(module: Module) -> Module:
    """Asserts the clone is the round trip (and leaves `module` unchanged); returns the clone."""
    before = print_module(module, "long")
    printed = print_module(module)
    reference = hlotools.parse_module(printed, module.name, verify=False)
    copy = module.clone()
    assert print_module(copy) == print_module(reference) == printed
    assert print_module(copy, "long") == print_module(reference, "long")
    assert describe(copy) == describe(reference)
    assert print_module(module, "long") == before
    return copy


def _corpus(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.hlo")) if folder.is_dir() else []


SMALL = """HloModule t
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[2,3] parameter(0)
  z = f32[] constant(0)
  r = f32[2] reduce(a, z), dimensions={1}, to_apply=add
  k = f32[2,2,1] parameter(1)
  x = f32[1,2,3] parameter(2)
  c = f32[1,2,3] convolution(x, k), feature_group_count=1, dim_labels=bf0_oi0->bf0, window={size=1}
  ROOT t = (f32[2], f32[1,2,3]) tuple(r, c)
}"""


def test_clone_is_the_round_trip_on_a_small_module() -> None:
    m = hlotools.parse_module(SMALL)
    copy = check(m)
    assert copy.entry is not None and copy.entry is not m.entry
    conv = copy.entry.instruction_by_name("c")
    assert conv is not None and "feature_group_count" not in conv.attrs  # the default is not printed
    assert list(conv.attrs) == ["window", "dim_labels"]  # XLA's order, not the text's
    layout = copy.attrs["entry_computation_layout"]  # derived, as printed
    assert isinstance(layout, ComputationLayout) and HloPrinter().value(layout).startswith("{(f32[2,3]{1,0}")
    red = copy.entry.instruction_by_name("r")
    assert red is not None and red.attrs["to_apply"] is copy.computations[0]  # the copy's own callee
    assert m.entry is not None and red.line == m.entry.instructions[2].line  # the original text's position
    assert red.operands[0].users == [red] and red.operands[0] is not m.entry.instructions[0]


def test_canonical_orders() -> None:
    """Computations callees first, instructions definitions first, as the printer writes them."""
    m = hlotools.parse_module(SMALL)
    entry, add = m.computations[1], m.computations[0]
    m.computations = [entry, add]  # as a pass appending `add` would leave it
    assert entry.instructions[0].name == "a"
    entry.instructions.append(entry.instructions.pop(0))  # parameter a after its user r
    copy = check(m)
    assert [c.name for c in copy.computations] == ["add", "e"]
    assert copy.entry is not None and [i.name for i in copy.entry.instructions][:3] == ["z", "a", "r"]  # post order


def test_changing_the_clone_leaves_the_original() -> None:
    m = hlotools.parse_module(SMALL)
    before = describe(m), print_module(m, "long")
    copy = m.clone()
    assert copy.entry is not None and copy.entry.root is not None
    red = copy.entry.instruction_by_name("r")
    assert red is not None
    copy.entry.root.attrs["sharding"] = "{replicated}"
    copy.attrs["replica_count"] = 2
    copy.computations[0].name = "renamed"
    copy.computations[0].instructions[0].operands.append(copy.computations[0].instructions[1])
    red.users.clear()
    assert (describe(m), print_module(m, "long")) == before


def test_the_callers_module_is_untouched_by_the_passes_on_the_copy() -> None:
    from hlotools.backend.llvm.driver.pipeline import optimise_module
    text = (JAX / "llama_block.hlo").read_text() if JAX.is_dir() else None
    if text is None:
        pytest.skip("no JAX corpus")
    m = hlotools.parse_module(text, "llama")
    before = print_module(m, "long")
    optimised = optimise_module(m)
    assert print_module(m, "long") == before
    assert print_module(optimised) != before


@pytest.mark.skipif(not JAX.is_dir(), reason="no shared JAX corpus")
def test_jax_corpus() -> None:
    files = _corpus(JAX)
    for path in files:
        check(hlotools.parse_module(path.read_text(), path.name))
    assert len(files) > 10


@pytest.mark.skipif(not XLA.is_dir(), reason="no shared XLA corpus")
def test_xla_corpus_sample() -> None:
    checked = 0
    for path in _corpus(XLA)[::7]:
        if "bad" in path.parts:
            continue
        try:
            module = hlotools.parse_module(path.read_text(), path.name, verify=False)
        except HloError:
            continue  # not a module this parser accepts: nothing to copy
        check(module)
        checked += 1
    assert checked > 150


@pytest.mark.slow
@pytest.mark.skipif(not XLA.is_dir(), reason="no shared XLA corpus")
def test_xla_corpus() -> None:
    checked = 0
    for path in _corpus(XLA):
        if "bad" in path.parts:
            continue
        try:
            module = hlotools.parse_module(path.read_text(), path.name, verify=False)
        except HloError:
            continue
        check(module)
        checked += 1
    assert checked > 1000
