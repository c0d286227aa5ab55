"""Results as HLO literals (`f32[2]{0} {1, 2}`), the form XLA's tools print with
--print_literals. The values come from the printer's literal formatter, so a literal printed
here reads back with the parser exactly as a constant would.
"""
from __future__ import annotations

import numpy as np

from hlotools.ir.literal import Literal
from hlotools.ir.shape import Shape
from hlotools.text.literal_format import format_literal


def literal_text(array: np.ndarray | None, shape: Shape) -> str:
    """`SHAPE VALUES` for one array leaf (the shape with its layout, defaulted if absent)."""
    shape = shape.with_default_layout()
    if shape.is_token or array is None:
        return f"{shape} token"
    dims = tuple(array.shape)
    if shape.dynamic and dims != shape.dims:  # a bounded dynamic result: print its actual size
        shape = Shape.array(shape.element_type, dims, shape.layout)  # type: ignore[arg-type]
    return f"{shape} {format_literal(Literal.from_array(shape, array))}"
