"""Shape.from_text, beside Shape.to_text: what to_text prints reads back as the same shape
(the compile cache stores its signatures so), and it is the text parser's own shape reader
(ir/shape_text.py), not a second one."""
from __future__ import annotations

import pytest

from hlotools.errors import ShapeError
from hlotools.ir.shape import Layout, Shape
from hlotools.ir.types import ELEMENT_TYPES
from hlotools.text.parser import parse

F32, S8, TOKEN = ELEMENT_TYPES["f32"], ELEMENT_TYPES["s8"], ELEMENT_TYPES["token"]

SHAPES = [
    Shape.array(F32, (), Layout(())),
    Shape.array(F32, (2, 3), Layout((0, 1))),
    Shape.array(S8, (4, 1, 2), Layout((2, 1, 0), "T(8,128)(4,1)S(1)")),
    Shape.array(F32, (5, -1), Layout((1, 0)), (True, True)),
    Shape(F32, (3,), Layout((0,)), is_buffer=True),
    Shape(TOKEN),
    Shape.tuple_of([Shape.array(F32, (2,), Layout((0,))), Shape.tuple_of([]), Shape(TOKEN)]),
]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_to_text_reads_back_as_the_same_shape(shape: Shape) -> None:
    back = Shape.from_text(shape.to_text(True))
    assert back == shape and back.is_buffer == shape.is_buffer and back.to_text(True) == shape.to_text(True)


def test_a_missing_layout_is_the_default_one() -> None:
    assert Shape.from_text("f32[2,3]").layout == Layout((1, 0))


@pytest.mark.parametrize("text", ["f32[2] f32[3]", "f32[2]{0}x", "(f32[2]", "f32[2,", "q32[2]", ""])
def test_anything_but_one_whole_shape_is_a_shape_error(text: str) -> None:
    with pytest.raises(ShapeError):
        Shape.from_text(text)


def test_it_is_the_parsers_reader() -> None:
    """One reader and one memo: the parser's shape of a token is the very object from_text gives."""
    text = "f32[7,9]{0,1:T(2,128)}"
    module = parse(f"HloModule m\nENTRY e {{\n  ROOT p = {text} parameter(0)\n}}\n")
    assert module.entry is not None and module.entry.root is not None
    assert module.entry.root.shape is Shape.from_text(text)
