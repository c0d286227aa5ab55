"""Rewriter.unique_name: XLA's `stem.N` scheme (the stem is the name without a `.N` suffix of
decimal digits), counting per stem from the names the module already holds."""
from __future__ import annotations

import itertools
import re

import hlotools
from hlotools.ir.instruction import Instruction
from hlotools.ir.rewriter import Rewriter, _stem

MODULE = """HloModule m

ENTRY main {
  p = f32[2] parameter(0)
  add.3 = f32[2] add(p, p)
  ROOT add = f32[2] add(add.3, p)
}
"""


def test_unique_names_count_per_stem() -> None:
    rw = Rewriter(hlotools.parse_module(MODULE))
    assert rw.unique_name("mul") == "mul"
    assert rw.unique_name("mul") == "mul.1"
    assert rw.unique_name("add") == "add.1"
    assert rw.unique_name("add.3") == "add.2"  # add.3 is taken: the next free add.N
    assert rw.unique_name("add.1") == "add.4"
    assert rw.unique_name("p.x") == "p.x"
    assert rw.unique_name("p.x") == "p.x.1"


def test_stem_is_the_suffix_regular_expression() -> None:
    """_stem (a string split) answers what the pattern it replaced answered, on every name of
    up to five characters over dots, digits (a non-ASCII decimal digit too) and letters."""
    pattern = re.compile(r"^(.*?)(?:\.(\d+))?$")
    for n in range(1, 6):
        for chars in itertools.product("a.1\u0663_", repeat=n):
            name = "".join(chars)
            m = pattern.match(name)
            assert _stem(name) == ((m.group(1) if m else "") or name), name
    assert _stem("fusion.12") == "fusion" and _stem("a..5") == "a." and _stem(".5") == ".5"


def test_a_taken_name_is_kept_by_the_instruction_not_its_id() -> None:
    """take_name reserves the old instruction's name past its removal. That was recorded by
    id: once the removed instruction was freed, a new instruction at its address had its name
    kept reserved on removal too, so later unique names depended on the allocator. The
    Rewriter now holds the instruction, so its id cannot come back while the Rewriter lives."""
    module = hlotools.parse_module(MODULE)
    comp = module.entry
    assert comp is not None
    rw = Rewriter(module)
    old = comp.instruction_by_name("add.3")
    p = comp.instruction_by_name("p")
    assert old is not None and p is not None
    new = rw.add_instruction(comp, Instruction("mul", "multiply", p.shape, [p, p]), before=old)
    rw.take_name(new, old)
    rw.replace_all_uses_with(old, new)
    rw.remove_instructions(comp, [old])
    old_id = id(old)
    del old
    assert old_id in {id(i) for i in rw._name_taken.values()}  # alive: its id is not reused
    for _ in range(50):  # new instructions (one may land where a freed `old` would have been)
        x = rw.add_instruction(comp, Instruction("x", "negate", p.shape, [p]))
        name = x.name
        rw.remove_instructions(comp, [x])
        del x
        assert rw.unique_name(name) == name  # its name was released with it
