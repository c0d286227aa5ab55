"""Matching numpy arrays to the shapes a module declares.

An entry computation's parameters may be tuples; hlo-run takes one array per array *leaf*,
in depth-first order (the order `Shape.leaves()` gives). Arrays of ml_dtypes types (bf16,
f8*, int4, ...) come back from .npz files as raw void bytes (`|V2`, `|V1`) because numpy
cannot name them; the module knows the real type, so the bytes are reinterpreted here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hlotools.errors import HloRuntimeError
from hlotools.ir.computation import Computation
from hlotools.ir.dynamic import fits
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape
from hlotools.ir.types import array_bytes_error, from_dtype
from hlotools.text.stablehlo.entry_attrs import result_labels


@dataclass(frozen=True)
class LeafSpec:
    """One array an entry computation consumes (or produces)."""

    index: int  # position among all leaves (in0, in1, ... / out0, out1, ...)
    name: str  # parameter name, with a ShapeIndex suffix for tuple leaves: p{1,0}
    shape: Shape
    parameter_number: int | None = None
    label: str | None = None  # a result's name from the front end (JAX's jax.result_info), if kept

    @property
    def is_token(self) -> bool:
        return self.shape.is_token

    def describe(self) -> str:
        if self.parameter_number is None:
            return f"output {self.index}"
        return f"parameter {self.index} '{self.name}'"


def _leaves_with_index(shape: Shape, prefix: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], Shape]]:
    if shape.tuple_shapes is None:
        return [(prefix, shape)]
    out: list[tuple[tuple[int, ...], Shape]] = []
    for i, s in enumerate(shape.tuple_shapes):
        out.extend(_leaves_with_index(s, prefix + (i,)))
    return out


def _leaf_name(base: str, index: tuple[int, ...]) -> str:
    return base if not index else base + "{" + ",".join(map(str, index)) + "}"


def parameter_leaves(module: Module) -> list[LeafSpec]:
    """Every array/token leaf of the entry parameters, in parameter then depth-first order."""
    entry = _entry(module)
    specs: list[LeafSpec] = []
    for param in entry.parameters:
        for idx, shape in _leaves_with_index(param.shape):
            specs.append(LeafSpec(len(specs), _leaf_name(param.name, idx), shape, param.parameter_number))
    return specs


def result_leaves(module: Module) -> list[LeafSpec]:
    """The entry result's leaves: out0, out1, ... (the names .npz outputs are saved under)."""
    entry = _entry(module)
    assert entry.root is not None
    leaves = _leaves_with_index(entry.root.shape)
    labels = result_labels(module)
    if labels is None or len(labels) != len(leaves):
        labels = [""] * len(leaves)
    return [LeafSpec(i, f"out{i}", shape, label=label or None) for i, ((_, shape), label) in enumerate(zip(leaves, labels))]


def _entry(module: Module) -> Computation:
    if module.entry is None:
        raise HloRuntimeError(f"module '{module.name}' has no entry computation")
    return module.entry


def shape_text(shape: Shape) -> str:
    """`f32[2,3]`: the shape without its layout (layouts do not matter for host arrays)."""
    return shape.to_text(with_layout=False)


def array_text(array: np.ndarray) -> str:
    """How a given numpy array reads in messages: XLA type name when there is one."""
    try:
        name = from_dtype(array.dtype).name
    except KeyError:
        name = str(array.dtype)
    return f"{name}[{','.join(map(str, array.shape))}]"


def is_raw_bytes(array: np.ndarray) -> bool:
    """Plain `|V<n>` elements (ml_dtypes types also have kind 'V', but their own scalar type)."""
    return array.dtype.type is np.void and array.dtype.fields is None


def reinterpret(array: np.ndarray, shape: Shape) -> np.ndarray:
    """View void bytes of the right width as the shape's element type; other arrays unchanged."""
    if not is_raw_bytes(array) or shape.element_type is None or shape.element_type.dtype is None:
        return array
    dtype = shape.element_type.dtype
    if array.dtype.itemsize != dtype.itemsize:
        return array
    return _contiguous(array).view(dtype)


def dims_match(shape: Shape, dims: tuple[int, ...]) -> bool:
    """Static dims must be equal; a bounded dynamic dim (`<=N`) takes any size up to N."""
    return fits(shape, dims)


def coerce(array: np.ndarray, spec: LeafSpec, source: str) -> np.ndarray:
    """The array as the leaf's type, or an error naming the leaf, what it expects and what it got."""
    shape = spec.shape
    array = reinterpret(np.asarray(array), shape)
    if shape.element_type is None or shape.element_type.dtype is None:
        raise HloRuntimeError(f"{spec.describe()} has type {shape_text(shape)}, which takes no array",
                              filename=source)
    want = shape.element_type.dtype
    if array.dtype != want or not dims_match(shape, tuple(array.shape)):
        given = array_text(array) if not is_raw_bytes(array) else f"{array.dtype.itemsize}-byte raw " \
            f"elements [{','.join(map(str, array.shape))}]"
        raise HloRuntimeError(f"{spec.describe()} expects {shape_text(shape)}, given {given}",
                              filename=source)
    return _contiguous(array)


def storable(array: np.ndarray) -> np.ndarray:
    """What np.savez can write: ml_dtypes arrays go out as raw bytes of their own width."""
    if is_raw_bytes(array) or array.dtype.isbuiltin == 1:
        return array
    return _contiguous(array).view(f"V{array.dtype.itemsize}")


def _contiguous(array: np.ndarray) -> np.ndarray:
    """C-contiguous, keeping 0-d arrays 0-d (np.ascontiguousarray makes them 1-d)."""
    return array if array.flags.c_contiguous else array.copy(order="C")


def leaf_bytes(shape: Shape) -> int:
    """Bytes of one array leaf at its largest (a bounded dynamic dim at its bound; `?` as 0)."""
    assert shape.element_type is not None
    count = 1
    for d in shape.dims:
        count *= max(d, 0)
    return (count * shape.element_type.bits + 7) // 8


def check_array_sizes(module: Module) -> None:
    """Refuse, before anything is allocated, a module with an array larger than a run may
    allocate (ir.types.max_array_bytes): `f32[1000000,1000000] iota()` or parameter would
    otherwise end in a MemoryError, or in swapping, somewhere in the backend."""
    seen: set[Shape] = set()
    for comp in module.computations:
        for inst in comp.instructions:
            for leaf in inst.shape.leaves():
                if leaf in seen or leaf.element_type is None or not leaf.element_type.is_array:
                    continue
                seen.add(leaf)
                why = array_bytes_error(f"{inst.opcode} {inst.name} ({shape_text(leaf)})", leaf_bytes(leaf))
                if why is not None:
                    raise HloRuntimeError(why, inst.line or None, inst.column or None)
