"""Shapes and layouts.

A Shape is immutable and hashable: the parser memoises shape strings, so thousands of
instructions share one Shape object. `Layout.extras` keeps the text after ':' in a layout
(tiles, element size, memory space, ...) verbatim, so it prints back exactly; the parts
hlotools reasons about are decoded from it on demand.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from hlotools.errors import ShapeError
from hlotools.ir.types import ElementType


@dataclass(frozen=True)
class Layout:
    """minor_to_major plus XLA's layout extras (tiles, memory space, ...) as text."""
    minor_to_major: tuple[int, ...]
    extras: str = ""  # e.g. "T(8,128)(2,1)S(1)" — text after ':' (without the ':')

    def __str__(self) -> str:
        body = ",".join(map(str, self.minor_to_major))
        return "{" + body + (":" + self.extras if self.extras else "") + "}"

    @property
    def memory_space(self) -> int:
        m = re.search(r"(?<![A-Z])S\((\d+)\)", self.extras)
        return int(m.group(1)) if m else 0

    @property
    def tiles(self) -> tuple[tuple[int, ...], ...]:
        m = re.match(r"T((?:\([^)]*\))+)", self.extras)
        if not m:
            return ()
        groups = re.findall(r"\(([^)]*)\)", m.group(1))
        return tuple(tuple(-1 if d.strip() == "*" else int(d) for d in g.split(",")) for g in groups)

    @property
    def element_size_bits(self) -> int:
        m = re.search(r"E\((\d+)\)", self.extras)
        return int(m.group(1)) if m else 0

    @staticmethod
    def default(rank: int) -> Layout:
        return _DEFAULT_LAYOUTS[rank] if rank < len(_DEFAULT_LAYOUTS) else Layout(tuple(range(rank - 1, -1, -1)))

    @property
    def is_default(self) -> bool:
        n = len(self.minor_to_major)
        return not self.extras and self.minor_to_major == tuple(range(n - 1, -1, -1))


_DEFAULT_LAYOUTS = [Layout(tuple(range(r - 1, -1, -1))) for r in range(16)]


@dataclass(frozen=True)
class Shape:
    """An array shape (element_type + dims [+ layout]) or a tuple shape (tuple_shapes)."""

    element_type: ElementType | None
    dims: tuple[int, ...] = ()
    layout: Layout | None = None
    dynamic: tuple[bool, ...] = ()  # per dim: True for `<=N` (bounded) or `?` (unbounded, dim -1)
    tuple_shapes: tuple[Shape, ...] | None = None
    _hash: int = field(default=0, compare=False, repr=False)
    is_buffer: bool = False  # `b(f32[2]{0})`: a buffer holding the array (XLA's BUFFER shape kind)

    # -- construction -------------------------------------------------------------
    @staticmethod
    def array(element_type: ElementType, dims: tuple[int, ...] | list[int],
              layout: Layout | None = None, dynamic: tuple[bool, ...] = ()) -> Shape:
        return Shape(element_type, tuple(dims), layout, tuple(dynamic) if any(dynamic) else ())

    @staticmethod
    def tuple_of(shapes: tuple[Shape, ...] | list[Shape]) -> Shape:
        return Shape(None, (), None, (), tuple(shapes))

    # -- queries --------------------------------------------------------------------
    @cached_property
    def is_tuple(self) -> bool:
        return self.tuple_shapes is not None

    @cached_property
    def is_array(self) -> bool:
        """Kept (a shape never changes): passes ask it of every operand they look at."""
        return self.tuple_shapes is None and self.element_type is not None and self.element_type.is_array

    @property
    def is_token(self) -> bool:
        return self.element_type is not None and self.element_type.kind == "token"

    @property
    def rank(self) -> int:
        return len(self.dims)

    @cached_property
    def size(self) -> int:
        """Number of elements of an array shape."""
        return math.prod(self.dims)

    @cached_property
    def tuple_depth(self) -> int:
        """Tuple nesting: 0 for an array, 1 for a tuple of arrays. Cached, so asking it of each
        tuple as it is built (inner ones first, as parsers and shape inference do) never recurses
        deeply: ir.types.MAX_TUPLE_DEPTH bounds what the parser accepts."""
        if self.tuple_shapes is None:
            return 0
        return 1 + max((s.tuple_depth for s in self.tuple_shapes), default=0)

    @property
    def dtype(self) -> np.dtype:
        assert self.element_type is not None and self.element_type.dtype is not None, self
        return self.element_type.dtype

    def is_dynamic_dim(self, i: int) -> bool:
        return bool(self.dynamic) and self.dynamic[i]

    @property
    def is_static(self) -> bool:
        if self.tuple_shapes is not None:
            return all(s.is_static for s in self.tuple_shapes)
        return not any(self.dynamic)

    def leaves(self) -> list[Shape]:
        """Array/token leaves, depth-first (the order hlo-run flattens entry tuples in)."""
        if self.tuple_shapes is None:
            return [self]
        out: list[Shape] = []
        for s in self.tuple_shapes:
            out.extend(s.leaves())
        return out

    def with_layout(self, layout: Layout | None) -> Shape:
        return Shape(self.element_type, self.dims, layout, self.dynamic, self.tuple_shapes)

    def without_layout(self) -> Shape:
        if self.tuple_shapes is not None:
            return Shape.tuple_of([s.without_layout() for s in self.tuple_shapes])
        return Shape(self.element_type, self.dims, None, self.dynamic)

    def with_default_layout(self) -> Shape:
        """Fill a missing layout with the descending (row-major) one, as XLA's parser does."""
        if self.tuple_shapes is not None:
            return Shape.tuple_of([s.with_default_layout() for s in self.tuple_shapes])
        if self.layout is not None or self.element_type is None or not self.element_type.is_array:
            return self
        return Shape(self.element_type, self.dims, Layout.default(len(self.dims)), self.dynamic)

    def with_element_type(self, element_type: ElementType) -> Shape:
        return Shape(element_type, self.dims, self.layout, self.dynamic)

    def compatible(self, other: Shape) -> bool:
        """Same element types and dims (and tuple structure); layouts ignored."""
        if self is other:
            return True
        if (self.tuple_shapes is None) != (other.tuple_shapes is None):
            return False
        if self.tuple_shapes is not None:
            assert other.tuple_shapes is not None
            return len(self.tuple_shapes) == len(other.tuple_shapes) and all(
                a.compatible(b) for a, b in zip(self.tuple_shapes, other.tuple_shapes))
        return self.element_type == other.element_type and self.dims == other.dims and \
            (self.dynamic or (False,) * len(self.dims)) == (other.dynamic or (False,) * len(other.dims))

    def byte_size(self) -> int:
        if self.tuple_shapes is not None:
            return 8 * len(self.tuple_shapes)
        if self.element_type is None or not self.element_type.is_array:
            return 0
        return (self.size * self.element_type.bits + 7) // 8

    # -- text -----------------------------------------------------------------------
    def dims_text(self) -> str:
        if not self.dynamic:
            return ",".join(map(str, self.dims))
        return ",".join(("?" if d < 0 else f"<={d}") if dyn else str(d)
                        for d, dyn in zip(self.dims, self.dynamic))

    def to_text(self, with_layout: bool = True) -> str:
        return self.text if with_layout else self._to_text(False)

    @cached_property
    def text(self) -> str:
        """to_text(True), kept (a shape never changes): printers and codegen's kernel keys ask
        it of every instruction, and a training step's instructions share a few hundred shapes."""
        return self._to_text(True)

    def _to_text(self, with_layout: bool) -> str:
        if self.tuple_shapes is not None:
            return "(" + ", ".join(s.to_text(with_layout) for s in self.tuple_shapes) + ")"
        assert self.element_type is not None
        base = f"{self.element_type.name}[{self.dims_text()}]"
        if with_layout and self.layout is not None and (self.dims or self.layout.extras):
            base += str(self.layout)
        return f"b({base})" if self.is_buffer else base

    @staticmethod
    def from_text(text: str) -> Shape:
        """The shape `text` spells, all of it (what to_text prints, or any HLO shape text: a
        missing layout is the default one); ShapeError otherwise. ir/shape_text.py parses it,
        the parser's own shape grammar, so there is one reader of shape text."""
        from hlotools.ir.shape_text import parse_shape_text  # it imports this module
        shape, end = parse_shape_text(text)
        if end != len(text):
            raise ShapeError(f"unexpected text after the shape: {text[end:end + 40]!r}", end)
        return shape

    def __str__(self) -> str:
        return self.to_text(True)

    def __hash__(self) -> int:
        h = self._hash
        if not h:
            h = hash((self.element_type, self.dims, self.layout, self.dynamic, self.tuple_shapes,
                      self.is_buffer)) or 1
            object.__setattr__(self, "_hash", h)
        return h
