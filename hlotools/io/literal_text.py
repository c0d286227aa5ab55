"""Arrays as HLO literals (`f32[2]{0} {1, 2}`), the form XLA's tools print with
--print_literals. The values come from the printer's literal formatter and are read back with
the parser's literal reader, so a file of printed results can be fed to --inputs/--expected.
"""
from __future__ import annotations

import re

import numpy as np

from hlotools.errors import HloParseError, ShapeError
from hlotools.ir.literal import Literal
from hlotools.ir.shape import Shape
from hlotools.ir.shape_text import array_shape, parse_shape_text
from hlotools.text.literal_format import format_literal
from hlotools.text.parse_literal import LiteralError, parse_literal

_LINES = re.compile(r"\r\n|\n|\r")  # as HloError.format and the lexer count lines (not \f, U+2028)


def literal_text(array: np.ndarray | None, shape: Shape) -> str:
    """`SHAPE VALUES` for one array leaf (the shape with its layout, defaulted if absent)."""
    shape = shape.with_default_layout()
    if shape.is_token or array is None:
        return f"{shape} token"
    dims = tuple(array.shape)
    if shape.dynamic and dims != shape.dims:  # a bounded dynamic result: print its actual size
        assert shape.element_type is not None
        shape = Shape.array(shape.element_type, dims, shape.layout)
    return f"{shape} {format_literal(Literal.from_array(shape, array))}"


def _leaves(literal: Literal) -> list[np.ndarray]:
    if literal.elements is not None:
        return [a for e in literal.elements for a in _leaves(e)]
    if literal.shape.is_token:
        return []
    return [literal.value()]


_BARE_ARRAY_SHAPE = re.compile(r"\s*[a-z][a-z0-9_]*\[[^\]]*\]")


def _literal_shape(body: str, n: int, filename: str, text: str) -> tuple[Shape, int]:
    """The shape at the start of a literal line and where it ends. `f32[2] {1, 2}` has no
    layout: a brace group is the layout only when values still follow it."""
    start = len(body) - len(body.lstrip())
    try:
        shape, end = parse_shape_text(body, start)
        if body[end:].strip():
            return shape, end
    except ShapeError as e:
        error: ShapeError | None = e
    else:
        error = None
    m = _BARE_ARRAY_SHAPE.match(body)
    if m is not None:
        try:
            return array_shape(m.group(0).strip()), m.end()
        except ShapeError:
            pass
    if error is None:
        raise HloParseError("expected values after the shape", n, len(body) + 1, filename, text)
    raise HloParseError(f"expected a literal 'SHAPE VALUES': {error.message}", n, error.offset + 1,
                        filename, text)


def parse_literal_lines(text: str, filename: str) -> list[np.ndarray]:
    """Arrays from a file of HLO literals, one `SHAPE VALUES` per line (what --print-literals
    writes); a tuple literal contributes its leaves. Blank lines and `//` comments are skipped."""
    out: list[np.ndarray] = []
    for n, line in enumerate(_LINES.split(text), 1):  # the line breaks error messages count
        body = line.split("//", 1)[0].rstrip()
        if not body.strip():
            continue
        shape, end = _literal_shape(body, n, filename, text)
        try:
            literal = parse_literal(body[end:].strip(), shape.with_default_layout())
        except LiteralError as e:
            col = end + (len(body[end:]) - len(body[end:].lstrip())) + e.offset + 1
            raise HloParseError(e.message, n, col, filename, text) from None
        if literal.elided:
            raise HloParseError("an elided literal ({...}) has no values", n, end + 2, filename, text)
        out.extend(_leaves(literal))
    return out
