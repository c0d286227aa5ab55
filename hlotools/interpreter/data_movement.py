"""Data-movement kernels: sources (parameter, constant, iota), shape manipulation
(broadcast, reshape, bitcast, transpose, slice, dynamic-slice, dynamic-update-slice,
concatenate, pad, reverse), tuples, identities (opt-barrier, domain) and tokens.

Values are logical row-major arrays; results may be numpy views (kernels never write into
their operands, so sharing is safe).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from hlotools.errors import HloRuntimeError, HloUnsupportedError
from hlotools.interpreter.numeric import contiguous
from hlotools.interpreter.registry import kernel
from hlotools.ir.instruction import Instruction
from hlotools.ir.literal import Literal
from hlotools.ir.shape import Shape

Array = np.ndarray


@kernel("parameter")
def parameter(inst: Instruction, args: list, ev: Any) -> Any:
    n = inst.parameter_number or 0
    params = ev.params
    if n >= len(params):
        raise HloRuntimeError(f"parameter({n}) has no argument ({len(params)} given)")
    return params[n]


def literal_value(lit: Literal) -> Any:
    """The runtime value of a literal (tuples recursively); elided literals refuse."""
    if lit.elements is not None:
        return tuple(literal_value(e) for e in lit.elements)
    if lit.shape.is_token:
        return None
    return lit.value()


@kernel("constant")
def constant(inst: Instruction, args: list, ev: Any) -> Any:
    if inst.literal is None:
        raise HloRuntimeError("constant has no literal")
    return literal_value(inst.literal)


@kernel("iota")
def iota(inst: Instruction, args: list, ev: Any) -> Array:
    dims = inst.shape.dims
    d = int(inst.attrs.get("iota_dimension", 0))
    shape = [1] * len(dims)
    shape[d] = dims[d]
    values = np.arange(dims[d], dtype=np.int64).reshape(shape)
    et = inst.shape.element_type
    assert et is not None
    if et.kind in ("signed", "unsigned") and et.bits < 8:
        values = values.astype(np.int8)
    elif et.kind == "float" and et.bits < 64:
        values = values.astype(np.float64)
    return np.broadcast_to(values.astype(inst.shape.dtype), dims)


@kernel("broadcast")
def broadcast(inst: Instruction, args: list, ev: Any) -> Array:
    """Operand dim i goes to output dim dimensions[i]."""
    x = np.asarray(args[0])
    out = inst.shape.dims
    dims = tuple(int(d) for d in inst.attrs.get("dimensions", ()))
    if len(dims) != x.ndim:
        raise HloRuntimeError(f"broadcast dimensions {list(dims)} do not match operand rank {x.ndim}")
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    if order != list(range(len(dims))):
        x = np.transpose(x, order)
    shape = [1] * len(out)
    for i, k in enumerate(order):
        shape[dims[k]] = x.shape[i]
    return np.broadcast_to(x.reshape(shape), out)


@kernel("reshape")
def reshape(inst: Instruction, args: list, ev: Any) -> Array:
    return np.reshape(args[0], inst.shape.dims)


def _major_to_minor(shape: Shape) -> tuple[int, ...]:
    layout = shape.layout
    if layout is None or len(layout.minor_to_major) != len(shape.dims):
        return tuple(range(len(shape.dims)))
    return tuple(reversed(layout.minor_to_major))


@kernel("bitcast")
def bitcast(inst: Instruction, args: list, ev: Any) -> Array:
    """Same bytes, new shape: the operand's elements in its physical (layout) order are the
    result's elements in the result's physical order. Values are logical arrays, so this
    transposes to physical order, reshapes, and transposes back; with default (or absent)
    layouts it is a row-major reshape."""
    x = np.asarray(args[0])
    src, dst = inst.operands[0].shape, inst.shape
    if src.dtype != dst.dtype:
        if src.dtype.itemsize != dst.dtype.itemsize:
            raise HloUnsupportedError(f"bitcast from {src} to {dst} changes the element width")
        x = contiguous(x).view(dst.dtype)
    if x.size != int(np.prod(dst.dims)):
        raise HloRuntimeError(f"bitcast from {src} to {dst} changes the element count")
    src_order, dst_order = _major_to_minor(src), _major_to_minor(dst)
    physical = np.transpose(x, src_order).reshape([dst.dims[d] for d in dst_order])
    return np.transpose(physical, np.argsort(dst_order))


@kernel("transpose")
def transpose(inst: Instruction, args: list, ev: Any) -> Array:
    """Output dim k = operand dim dimensions[k]."""
    return np.transpose(args[0], tuple(int(d) for d in inst.attrs.get("dimensions", ())))


@kernel("slice")
def slice_(inst: Instruction, args: list, ev: Any) -> Array:
    ranges = inst.attrs.get("slice", ())
    return np.asarray(args[0])[tuple(slice(r.start, r.limit, r.stride) for r in ranges)]


def _start_indices(operand_rank: int, index_args: list[Any]) -> list[int]:
    """Either one scalar per dim, or (old form) one rank-1 vector holding all starts; as Python
    ints, exact for every index type (a u64 of 2^63 or more must not wrap negative: it clamps high)."""
    if len(index_args) == 1 and np.ndim(index_args[0]) == 1 and operand_rank != 0:
        return [int(v) for v in np.asarray(index_args[0]).tolist()]
    if len(index_args) != operand_rank:
        raise HloRuntimeError(f"expected {operand_rank} start indices, got {len(index_args)}")
    return [int(np.asarray(v).reshape(()).item()) for v in index_args]


def clamp_starts(starts: list[int], dims: tuple[int, ...], sizes: tuple[int, ...]) -> list[int]:
    """XLA clamps each start to [0, dim - size] so the slice stays inside the operand."""
    return [min(max(s, 0), d - n) for s, d, n in zip(starts, dims, sizes)]


@kernel("dynamic-slice")
def dynamic_slice(inst: Instruction, args: list, ev: Any) -> Array:
    x = np.asarray(args[0])
    sizes = tuple(int(s) for s in inst.attrs.get("dynamic_slice_sizes", inst.shape.dims))
    starts = clamp_starts(_start_indices(x.ndim, args[1:]), x.shape, sizes)
    return x[tuple(slice(s, s + n) for s, n in zip(starts, sizes))]


@kernel("dynamic-update-slice")
def dynamic_update_slice(inst: Instruction, args: list, ev: Any) -> Array:
    x = np.asarray(args[0])
    update = np.asarray(args[1])
    starts = clamp_starts(_start_indices(x.ndim, args[2:]), x.shape, update.shape)
    out = np.array(x, copy=True)
    out[tuple(slice(s, s + n) for s, n in zip(starts, update.shape))] = update
    return out


@kernel("concatenate")
def concatenate(inst: Instruction, args: list, ev: Any) -> Array:
    dims = inst.attrs.get("dimensions", ())
    if len(dims) != 1:
        raise HloRuntimeError("concatenate needs exactly one dimension")
    return np.concatenate([np.asarray(a) for a in args], axis=int(dims[0]))


def pad_array(x: Array, fill: Any, config: list[tuple[int, int, int]]) -> Array:
    """Edge padding (negative = cropping) plus interior padding, with scalar `fill`."""
    out_dims = []
    src_index = []
    dst_index = []
    for n, (lo, hi, interior) in zip(x.shape, config):
        step = interior + 1
        full = lo + hi + (n + (n - 1) * interior if n > 0 else 0)
        size = max(full, 0)
        out_dims.append(size)
        # source element i lands at lo + i * step; keep those inside [0, size)
        first = 0 if lo >= 0 else (-lo + step - 1) // step
        last = n - 1
        if n > 0 and lo + last * step >= size:
            last = (size - 1 - lo) // step if size - 1 - lo >= 0 else -1
        if n == 0 or last < first:
            src_index.append(slice(0, 0))
            dst_index.append(slice(0, 0))
            continue
        src_index.append(slice(first, last + 1))
        dst_index.append(slice(lo + first * step, lo + last * step + 1, step))
    out = np.full(out_dims, fill, dtype=x.dtype)
    out[tuple(dst_index)] = x[tuple(src_index)]
    return out


@kernel("pad")
def pad(inst: Instruction, args: list, ev: Any) -> Array:
    config = inst.attrs.get("padding")
    x = np.asarray(args[0])
    dims = list(config.dims) if config is not None else [(0, 0, 0)] * x.ndim
    return pad_array(x, np.asarray(args[1]), dims)


@kernel("reverse")
def reverse(inst: Instruction, args: list, ev: Any) -> Array:
    dims = tuple(int(d) for d in inst.attrs.get("dimensions", ()))
    return np.flip(args[0], axis=dims) if dims else np.asarray(args[0])


@kernel("tuple")
def tuple_(inst: Instruction, args: list, ev: Any) -> tuple:
    return tuple(args)


@kernel("get-tuple-element")
def get_tuple_element(inst: Instruction, args: list, ev: Any) -> Any:
    t = args[0]
    i = int(inst.attrs.get("index", 0))
    if not isinstance(t, tuple) or not 0 <= i < len(t):
        raise HloRuntimeError(f"get-tuple-element index {i} out of range")
    return t[i]


@kernel("get-dimension-size")
def get_dimension_size(inst: Instruction, args: list, ev: Any) -> Array:
    d = int(inst.attrs.get("dimensions", (0,))[0])
    return np.asarray(np.shape(args[0])[d]).astype(inst.shape.dtype)


@kernel("opt-barrier", "domain")
def identity(inst: Instruction, args: list, ev: Any) -> Any:
    return args[0]


@kernel("after-all")
def after_all(inst: Instruction, args: list, ev: Any) -> None:
    return None  # tokens carry no data


@kernel("add-dependency")
def add_dependency(inst: Instruction, args: list, ev: Any) -> Any:
    return args[0]
