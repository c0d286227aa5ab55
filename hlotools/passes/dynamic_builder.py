"""The small HLO the dynamic padder writes: s32 size arithmetic, iota masks, relayouts.

Everything is inserted before one anchor instruction of one computation (the instruction being
rewritten), deferred so a computation's insertions are placed in one sweep (Rewriter.flush_deferred).
Sizes are s32[] values; a static dim's size is the constant bound.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hlotools.ir.attributes import Enum
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.literal import Literal
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.shape import Shape
from hlotools.ir.types import PRED, S32, ElementType

Size = Instruction | None  # None: the dim is static (its size is its bound)


class Builder:
    """Makes instructions before `anchor` in `comp`."""

    def __init__(self, rw: Rewriter, comp: Computation, anchor: Instruction | None,
                 masks: list[tuple[Instruction, Instruction, list[Size]]] | None = None) -> None:
        self.rw, self.comp, self.anchor = rw, comp, anchor  # anchor None: append (after the walk)
        self.masks = masks  # where mask() notes (mask, operand, masked sizes) for the walk

    def _add(self, inst: Instruction) -> Instruction:
        name = f"dyn.{inst.opcode}"
        if self.anchor is None:
            return self.rw.add_instruction(self.comp, inst, name=name)
        return self.rw.add_instruction_deferred(self.comp, inst, self.anchor, name=name)

    def op(self, opcode: str, shape: Shape, *operands: Instruction, **attrs: object) -> Instruction:
        return self._add(Instruction(opcode, opcode, shape, list(operands), dict(attrs) or None))

    def constant(self, value: float | int | bool, et: ElementType = S32) -> Instruction:
        scalar = Shape.array(et, ())
        lit = Literal.from_array(scalar, np.asarray(value))
        return self._add(Instruction("constant", "constant", scalar, [], None, lit))

    # -- s32 scalar arithmetic ------------------------------------------------------------
    def value(self, size: Size, bound: int) -> Instruction:
        return size if size is not None else self.constant(bound)

    def arith(self, opcode: str, a: Instruction, b: Instruction | int) -> Instruction:
        rhs = b if isinstance(b, Instruction) else self.constant(b)
        return self.op(opcode, Shape.array(S32, ()), a, rhs)

    def clamp(self, lo: int, x: Instruction, hi: int) -> Instruction:
        return self.op("clamp", Shape.array(S32, ()), self.constant(lo), x, self.constant(hi))

    def ceil_div(self, x: Instruction, d: int) -> Instruction:
        """ceil(x / d) for x >= 0."""
        return x if d == 1 else self.arith("divide", self.arith("add", x, d - 1), d)

    def nonnegative(self, x: Instruction) -> Instruction:
        return self.arith("maximum", x, 0)

    def product(self, values: Sequence[Instruction]) -> Instruction:
        out = values[0] if values else self.constant(1)
        for v in values[1:]:
            out = self.arith("multiply", out, v)
        return out

    # -- arrays -------------------------------------------------------------------------------
    def broadcast(self, scalar: Instruction, dims: tuple[int, ...]) -> Instruction:
        et = scalar.shape.element_type
        assert et is not None
        return self.op("broadcast", Shape.array(et, dims), scalar, dimensions=())

    def iota(self, dims: tuple[int, ...], d: int) -> Instruction:
        return self.op("iota", Shape.array(S32, dims), iota_dimension=d)

    def valid(self, dims: tuple[int, ...], sizes: Sequence[Size]) -> Instruction | None:
        """pred[dims]: true where every index with a size is below it (None: all valid)."""
        pred: Instruction | None = None
        for d, size in enumerate(sizes):
            if size is None:
                continue
            lt = self.op("compare", Shape.array(PRED, dims), self.iota(dims, d), self.broadcast(size, dims),
                         direction=Enum("LT"))
            pred = lt if pred is None else self.op("and", Shape.array(PRED, dims), pred, lt)
        return pred

    def mask(self, x: Instruction, sizes: Sequence[Size], fill: Instruction) -> Instruction:
        """select(iota < size, x, fill) over the dims given a size (XLA's DynamicPadder masks)."""
        pred = self.valid(x.shape.dims, sizes)
        if pred is None:
            return x
        out = self.op("select", x.shape, pred, x, self.broadcast(fill, x.shape.dims))
        if self.masks is not None:
            self.masks.append((out, x, list(sizes)))
        return out

    def zero(self, et: ElementType) -> Instruction:
        return self.constant(False if et == PRED else 0, et)

    def gather_flat(self, x: Instruction, positions: Instruction) -> Instruction:
        """out[o] = flat(x)[positions[o]]: x's elements (row-major over its bounds) moved to
        where `positions` (s32, the result's dims) says; indices out of range clamp (gather)."""
        et = x.shape.element_type
        assert et is not None
        total = int(np.prod(x.shape.dims, dtype=np.int64))
        flat = self.op("reshape", Shape.array(et, (total,)), x)
        dims = positions.shape.dims
        idx = self.op("reshape", Shape.array(S32, dims + (1,)), positions)
        return self.op("gather", Shape.array(et, dims), flat, idx, offset_dims=(), collapsed_slice_dims=(0,),
                       start_index_map=(0,), index_vector_dim=len(dims), slice_sizes=(1,))

    def linear(self, index: Sequence[Instruction], extents: Sequence[Instruction | int],
               dims: tuple[int, ...]) -> Instruction:
        """sum index[k] * stride[k], row-major strides over `extents` (s32 arrays of `dims`)."""
        out: Instruction | None = None
        stride: Instruction | int = 1
        for k in range(len(index) - 1, -1, -1):
            term = index[k] if isinstance(stride, int) and stride == 1 else \
                self.op("multiply", Shape.array(S32, dims), index[k], self._splat(stride, dims))
            out = term if out is None else self.op("add", Shape.array(S32, dims), out, term)
            e = extents[k]
            stride = e * stride if isinstance(e, int) and isinstance(stride, int) else \
                self.arith("multiply", self._scalar(e), self._scalar(stride))
        return out if out is not None else self.op("broadcast", Shape.array(S32, dims), self.constant(0),
                                                   dimensions=())

    def unravel(self, flat: Instruction, extents: Sequence[Instruction], dims: tuple[int, ...]) -> list[Instruction]:
        """The row-major multi-index of linear positions `flat` over runtime `extents`."""
        out: list[Instruction] = []
        rest = flat
        for k in range(len(extents) - 1, -1, -1):
            e = self._splat(self.arith("maximum", extents[k], 1), dims)  # never divide by a zero size
            out.append(self.op("remainder", Shape.array(S32, dims), rest, e) if k else rest)
            if k:
                rest = self.op("divide", Shape.array(S32, dims), rest, e)
        return out[::-1]

    def _scalar(self, v: Instruction | int) -> Instruction:
        return v if isinstance(v, Instruction) else self.constant(v)

    def _splat(self, v: Instruction | int, dims: tuple[int, ...]) -> Instruction:
        return self.broadcast(self._scalar(v), dims)
