"""ir/dynamic.py: the dynamic-dimension facts, and what the verifier checks about them."""
from __future__ import annotations

import re

import pytest

import hlotools
from hlotools.errors import HloError
from hlotools.ir.dynamic import DYNAMIC_OPCODES, DynamicDim, fits, leaf_dynamic_dims, static_shape
from hlotools.ir.shape import Shape


def test_facts_of_a_shape() -> None:
    s = Shape.from_text("(f32[<=8,4], s32[3,<=5,<=2])")
    assert leaf_dynamic_dims(s) == [DynamicDim(0, 0, 8), DynamicDim(1, 1, 5), DynamicDim(1, 2, 2)]
    assert static_shape(s).to_text(False) == "(f32[8,4], s32[3,5,2])" and static_shape(s).is_static
    leaf = Shape.from_text("f32[<=8,4]")
    assert fits(leaf, (0, 4)) and fits(leaf, (8, 4))
    assert not fits(leaf, (9, 4)) and not fits(leaf, (3, 3)) and not fits(leaf, (3,))


def test_the_opcode_table_names_the_size_opcodes() -> None:
    assert DYNAMIC_OPCODES == {"get-dimension-size", "set-dimension-size", "dynamic-reshape"}


@pytest.mark.parametrize("result,size,message", [
    ("f32[4,4]", "n", "set-dimension-size must make dimension 1 dynamic, but the result is f32[4,4]"),
    ("f32[4,<=4]", "c", "size 5 is outside dimension 1's bound 0..4"),
])
def test_verifier_checks_set_dimension_size(result: str, size: str, message: str) -> None:
    text = f"""HloModule m
ENTRY e {{
  x = f32[4,4] parameter(0)
  n = s32[] parameter(1)
  c = s32[] constant(5)
  ROOT s = {result} set-dimension-size(x, {size}), dimensions={{1}}
}}"""
    with pytest.raises(HloError, match=re.escape(message)):
        hlotools.parse_module(text)
    ok = text.replace(f"= {result}", "= f32[4,<=4]").replace("(x, c)", "(x, n)")
    hlotools.parse_module(ok)
