"""reparsed_copy builds what parse(print(module)) builds: compared field by field (names, flags,
order, attribute order and values, shapes, literals, operand and user edges) over the corpora,
with the round trip itself as the reference. Positions (line/column) are the one deliberate
difference: the copy keeps the original text's."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hlotools
from hlotools.errors import HloError
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.text.printer import print_module
from hlotools.text.reparse import fast_copy, reparsed_copy

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
JAX = SHARED / "corpus" / "jax"
XLA = SHARED / "corpus" / "xla"


def _value(v: Any) -> Any:
    if isinstance(v, Computation):
        return ("computation", v.name)
    if isinstance(v, (tuple, list)) and v and isinstance(v[0], Computation):
        return (type(v).__name__, tuple(c.name for c in v))
    return (type(v).__name__, v)


def _instruction(i: Instruction) -> tuple:
    lit = i.literal
    return (i.name, i.opcode, i.shape, i.parameter_number, [o.name for o in i.operands],
            [u.name for u in i.users], [(k, _value(v)) for k, v in i.attrs.items()],
            [p.name for p in i.control_predecessors], i.parent.name if i.parent is not None else None,
            None if lit is None else (type(lit).__name__, lit.elided, hlotools.text.literal_format.format_literal(lit)))


def _computation(c: Computation) -> tuple:
    return (c.name, c.is_entry, c.execution_thread, c.is_fusion_computation, c.signature_text,
            c.root.name if c.root is not None else None, [p.name if p is not None else None for p in c.parameters],
            [_instruction(i) for i in c.instructions], c.parent.name if c.parent is not None else None)


def describe(m: Module) -> tuple:
    return (m.name, [(k, _value(v)) for k, v in m.attrs.items()], m.stack_frames_text, m.source_style,
            m.entry.name if m.entry is not None else None, [_computation(c) for c in m.computations])


def check(module: Module) -> bool:
    """Asserts the copies agree; True when the direct path was taken."""
    reference = hlotools.parse_module(print_module(module), module.name, verify=False)
    copy = fast_copy(module)
    if copy is None:
        assert describe(reparsed_copy(module)) == describe(reference)
        return False
    assert describe(copy) == describe(reference)
    assert print_module(copy, "long") == print_module(reference, "long")
    return True


def _corpus(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.hlo")) if folder.is_dir() else []


def test_copy_is_the_round_trip_on_a_small_module() -> None:
    m = hlotools.parse_module("""HloModule t
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
  c = f32[1,2,3] convolution(x, k), window={size=1}, dim_labels=bf0_oi0->bf0, feature_group_count=1
  ROOT t = (f32[2], f32[1,2,3]) tuple(r, c)
}""")
    assert check(m)
    copy = fast_copy(m)
    assert copy is not None and copy.entry is not None and copy.entry is not m.entry
    conv = copy.entry.instruction_by_name("c")
    assert conv is not None and "feature_group_count" not in conv.attrs  # the default is not printed
    assert copy.attrs["entry_computation_layout"].startswith("{(f32[2,3]{1,0}")  # derived, as printed
    red = copy.entry.instruction_by_name("r")
    assert red is not None and red.attrs["to_apply"] is copy.computations[0]  # the copy's own callee
    assert m.entry is not None and red.line == m.entry.instructions[2].line  # the original text's position


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


@pytest.mark.slow
@pytest.mark.skipif(not JAX.is_dir(), reason="no shared JAX corpus")
def test_jax_corpus() -> None:
    direct = 0
    files = _corpus(JAX)
    for path in files:
        direct += check(hlotools.parse_module(path.read_text(), path.name))
    assert direct >= len(files) * 0.9  # the direct path is the common one


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
            continue  # not a module this parser accepts: nothing to copy
        check(module)
        checked += 1
    assert checked > 1000
