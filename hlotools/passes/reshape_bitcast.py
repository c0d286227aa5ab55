"""When a reshape is a bitcast (XLA's ShapeUtil::ReshapeIsBitcast).

A `reshape` is logical (element k of the operand in row-major order is element k of the
result in row-major order); a `bitcast` is physical (the bytes stay, the shape and layout
change). A pass may replace the first by the second only when, under the two layouts, every
element keeps its physical position. XLA checks that on the unit indices (one dimension 1,
the others 0) in both directions, which it proves sufficient; so do we.

Tiled layouts (`T(...)`), sub-byte element sizes (`E(...)`) and differing memory spaces are
refused unless the two shapes are identical: a tile pads and reorders the bytes in a way
the minor_to_major walk does not see (f32[16,8,8]{1,2,0:T(8,128)} pads every 8x8 tile row to
128 elements), and a bitcast never moves data between memory spaces.
"""
from __future__ import annotations

from math import prod

from hlotools.ir.shape import Layout, Shape


def reshape_is_bitcast(src: Shape, dst: Shape, ignore_element_type: bool = False) -> bool:
    """True when reshape(src -> dst) moves no byte, so it may become a bitcast."""
    if not (src.is_array and dst.is_array) or src.dynamic or dst.dynamic:
        return False
    if not ignore_element_type and src.element_type != dst.element_type:
        return False
    if prod(src.dims) != prod(dst.dims):
        return False
    src_layout, dst_layout = _layout(src), _layout(dst)
    if src_layout.extras or dst_layout.extras:
        # Identical shapes are trivially the same bytes; anything else under tiles is refused.
        return src.dims == dst.dims and src_layout == dst_layout and \
            (ignore_element_type or src.element_type == dst.element_type)
    if prod(src.dims) == 0:
        return True
    return _unit_indices_stay(src.dims, src_layout, dst.dims, dst_layout) and \
        _unit_indices_stay(dst.dims, dst_layout, src.dims, src_layout)


def _layout(shape: Shape) -> Layout:
    layout = shape.layout
    if layout is None or len(layout.minor_to_major) != len(shape.dims):
        return Layout.default(len(shape.dims))
    return layout


def _unit_indices_stay(a_dims: tuple[int, ...], a_layout: Layout,
                       b_dims: tuple[int, ...], b_layout: Layout) -> bool:
    """Every unit index of `a` and the index of `b` with the same logical (row-major) linear
    index have the same physical linear index."""
    for dim, size in enumerate(a_dims):
        if size <= 1:
            continue
        unit = [0] * len(a_dims)
        unit[dim] = 1
        logical = _linear(unit, a_dims, tuple(range(len(a_dims) - 1, -1, -1)))
        b_index = _delinear(logical, b_dims)
        if _linear(unit, a_dims, a_layout.minor_to_major) != _linear(b_index, b_dims, b_layout.minor_to_major):
            return False
    return True


def _linear(index: list[int], dims: tuple[int, ...], minor_to_major: tuple[int, ...]) -> int:
    """Linear position of `index` when the dims are laid out minor_to_major."""
    linear, stride = 0, 1
    for d in minor_to_major:
        linear += index[d] * stride
        stride *= dims[d]
    return linear


def _delinear(linear: int, dims: tuple[int, ...]) -> list[int]:
    """Row-major multi-index of a linear position."""
    index = [0] * len(dims)
    for d in range(len(dims) - 1, -1, -1):
        if dims[d]:
            index[d] = linear % dims[d]
            linear //= dims[d]
    return index
