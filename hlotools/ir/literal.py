"""Constants: numpy-backed values with their Shape.

An elided literal (`{...}` in the text) has `elided=True` and no data: anything that would
compute with it must refuse (XLA silently computes with garbage). Tuple literals hold
`elements`. The parser fills `array`; the printer formats it (text/literal_format.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hlotools.ir.shape import Shape


@dataclass(eq=False)
class Literal:
    """A constant's value: a numpy array of the shape's type, tuple elements, or elided."""
    shape: Shape
    array: np.ndarray | None = None  # logical row-major values, dtype = shape.dtype
    elided: bool = False
    elements: list[Literal] | None = None  # tuple literals
    text: str | None = field(default=None, repr=False)  # source text, when parsed

    @staticmethod
    def from_array(shape: Shape, array: np.ndarray) -> Literal:
        return Literal(shape, np.ascontiguousarray(array, dtype=shape.dtype).reshape(shape.dims))

    def value(self) -> np.ndarray:
        from hlotools.errors import HloRuntimeError
        if self.elided or self.array is None:
            raise HloRuntimeError("constant value is elided ({...}) in the text; cannot compute with it")
        return self.array

    def key(self) -> tuple:
        """Hashable identity of the value (for CSE of equal constants)."""
        if self.elements is not None:
            return ("tuple", tuple(e.key() for e in self.elements))
        if self.elided or self.array is None:
            return ("elided", id(self))
        return (str(self.shape), self.array.tobytes())
