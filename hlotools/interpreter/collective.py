"""Collectives on a single device (1 replica, 1 partition), and the ops that need a host.

With one participant an all-reduce/all-gather/reduce-scatter/all-to-all/broadcast returns
its operands, replica-id and partition-id are 0, and collective-permute delivers the
operand only when the pair 0->0 is listed (otherwise nobody sends to this device and the
result is zeros: XLA's CPU and GPU collective-permute runtimes zero the destination
buffer of a device without a source). Host transfers (infeed/outfeed/send/recv) have no
host here.

Values are built leaf by leaf, like the LLVM backend (backend/llvm/lower/collective.py):
the operands' arrays are poured into the result shape's structure in depth-first order,
so variadic forms `(a, b)`, the (operands, results) -start forms `(a, a')` and the
combined forms `((a, b), (a', b'))` (parser_test_0163) all come out of one rule.

The in-place collective-permute (input, output, input start indices, output start
indices; slice_sizes) writes what it receives into the output buffer: for slice k of
array a, output_a[out_k : out_k + size_k] = input_a[in_k : in_k + size_k], later slices
over earlier ones, the rest of the output buffer as given. The start indices are the
scalars of the index tuples in depth-first order (rank of the array per slice), the
slices are split evenly over the arrays in order (XLA's parser tests: one slice per
array, or several per array with nested tuples), and a start that would put the slice
out of bounds is clamped as dynamic-slice / dynamic-update-slice clamp theirs. Without a
0 -> 0 pair nothing is received and the result is zeros, as above.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from hlotools.errors import HloRuntimeError
from hlotools.interpreter.numeric import zeros_of
from hlotools.interpreter.registry import kernel, unsupported
from hlotools.ir.attributes import SourceTargetPairs
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape


def leaves_of(value: Any) -> list[Any]:
    """The arrays of a value, depth-first (a tuple value is a Python tuple)."""
    if isinstance(value, tuple):
        return [leaf for part in value for leaf in leaves_of(part)]
    return [value]


def build(shape: Shape, leaves: list[Any]) -> Any:
    """`leaves` (depth-first) packed into the structure of `shape`."""
    it = iter(leaves)

    def rec(s: Shape) -> Any:
        if s.is_tuple:
            return tuple(rec(p) for p in s.tuple_shapes or ())
        return next(it)
    return rec(shape)


def _same_leaves(a: Shape, b: Shape) -> bool:
    la, lb = a.leaves(), b.leaves()
    return len(la) == len(lb) and all(x.dims == y.dims and x.element_type == y.element_type
                                      for x, y in zip(la, lb))


def _fill(inst: Instruction, srcs: list[Any]) -> Any:
    """The result of `inst` from its first leaves `srcs`, the remaining leaves (u32
    contexts of a -start) zeros."""
    results = inst.shape.leaves()
    if len(srcs) > len(results):
        raise HloRuntimeError(f"{len(results)} result arrays for {len(srcs)} operand arrays "
                              "(one participant: the result is the operands)")
    return build(inst.shape, srcs + [zeros_of(s) for s in results[len(srcs):]])


def _as_shape(inst: Instruction, values: list[Any]) -> Any:
    """One participant: the result is the operands, packed the way the result shape asks
    (an array, a tuple of them, or (operands, results) for a -start that carries both)."""
    if not inst.shape.is_tuple:
        return values[0]
    leaves = leaves_of(tuple(values))
    n = len(inst.shape.leaves())
    return _fill(inst, leaves + leaves if n >= 2 * len(leaves) else leaves)


@kernel("all-reduce", "all-reduce-start", "all-gather", "all-gather-start", "reduce-scatter",
        "all-to-all", "collective-broadcast")
def single_participant(inst: Instruction, args: list, ev: Any) -> Any:
    return _as_shape(inst, list(args))


def _done(inst: Instruction, value: Any) -> Any:
    """A -done returns its -start's results: the whole value when the start has the
    result's shape, else the start's element 1 ((operands, results[, contexts...]))."""
    start = inst.operands[0].shape
    if _same_leaves(start, inst.shape):
        return value
    parts = start.tuple_shapes or ()
    if isinstance(value, tuple) and len(parts) >= 2 and _same_leaves(parts[1], inst.shape):
        return value[1]
    raise HloRuntimeError(f"its start has shape {start}, which holds no {inst.shape}")


@kernel("all-reduce-done", "all-gather-done", "collective-permute-done")
def collective_done(inst: Instruction, args: list, ev: Any) -> Any:
    return _done(inst, args[0])


def _receives(inst: Instruction) -> bool:
    """Does device 0 receive from itself (the only sender there is)?"""
    pairs = inst.attrs.get("source_target_pairs")
    return isinstance(pairs, SourceTargetPairs) and (0, 0) in pairs.pairs


def in_place(inst: Instruction) -> bool:
    """The in-place form (input, output, input start indices, output start indices)."""
    return len(inst.operands) == 4 and (inst.operands[2].shape.is_tuple or "slice_sizes" in inst.attrs)


def _slices(inst: Instruction, outputs: int) -> list[tuple[int, tuple[int, ...]]]:
    """(array, slice sizes) per slice, in order."""
    sizes = [tuple(int(d) for d in s) for s in inst.attrs.get("slice_sizes", ()) or ()]
    if not sizes or len(sizes) % outputs:
        raise HloRuntimeError(f"slice_sizes has {len(sizes)} slices for {outputs} output arrays")
    per = len(sizes) // outputs
    return [(k // per, s) for k, s in enumerate(sizes)]


def _starts(value: Any, count: int, what: str) -> list[int]:
    starts = [int(np.asarray(v).reshape(())) for v in leaves_of(value)]
    if len(starts) != count:
        raise HloRuntimeError(f"{what} start indices hold {len(starts)} scalars, slice_sizes needs {count}")
    return starts


def _window(starts: list[int], sizes: tuple[int, ...], dims: tuple[int, ...]) -> tuple[slice, ...]:
    """The slice at `starts` (clamped into bounds, as dynamic-slice does)."""
    if len(sizes) != len(dims) or any(s > d or s < 0 for s, d in zip(sizes, dims)):
        raise HloRuntimeError(f"slice of size {list(sizes)} does not fit an array of dims {list(dims)}")
    lo = [min(max(v, 0), d - s) for v, s, d in zip(starts, sizes, dims)]
    return tuple(slice(a, a + s) for a, s in zip(lo, sizes))


def in_place_results(inst: Instruction, args: list) -> list[Any]:
    """The result arrays of the in-place form (see the module docstring)."""
    inputs, outputs = leaves_of(args[0]), leaves_of(args[1])
    if not _receives(inst):
        return [np.zeros_like(o) for o in outputs]
    if len(inputs) != len(outputs):
        raise HloRuntimeError(f"{len(inputs)} input arrays for {len(outputs)} output arrays")
    slices = _slices(inst, len(outputs))
    count = sum(len(s) for _, s in slices)
    in_starts, out_starts = _starts(args[2], count, "input"), _starts(args[3], count, "output")
    results = [np.array(o, copy=True) for o in outputs]
    pos = 0
    for a, sizes in slices:
        src, dst = np.asarray(inputs[a]), results[a]
        piece = src[_window(in_starts[pos:pos + len(sizes)], sizes, src.shape)]
        dst[_window(out_starts[pos:pos + len(sizes)], sizes, dst.shape)] = piece
        pos += len(sizes)
    return results


@kernel("collective-permute")
def collective_permute(inst: Instruction, args: list, ev: Any) -> Any:
    if in_place(inst):
        return build(inst.shape, in_place_results(inst, args))
    leaves = leaves_of(tuple(args))
    if not _receives(inst):
        leaves = [np.zeros_like(v) for v in leaves]
    return build(inst.shape, leaves)


@kernel("collective-permute-start")
def collective_permute_start(inst: Instruction, args: list, ev: Any) -> Any:
    """The result's shape (as collective-permute), or (operands, results, u32 contexts...)
    where the in-place form carries its input as the operands part."""
    if in_place(inst):
        received = in_place_results(inst, args)
        if _same_leaves(inst.shape, inst.operands[1].shape):
            return build(inst.shape, received)
        return _fill(inst, leaves_of(args[0]) + received)
    leaves = leaves_of(tuple(args))
    received = leaves if _receives(inst) else [np.zeros_like(v) for v in leaves]
    if len(inst.shape.leaves()) == len(leaves):  # the result's shape
        return build(inst.shape, received)
    return _fill(inst, leaves + received)


@kernel("replica-id", "partition-id")
def device_id(inst: Instruction, args: list, ev: Any) -> np.ndarray:
    return np.zeros((), inst.shape.dtype)


unsupported("needs a host to transfer data to or from (no host in the interpreter)",
            "infeed", "outfeed", "send", "send-done", "recv", "recv-done")
unsupported("ragged all-to-all offsets/sizes are not modelled for a single device", "ragged-all-to-all")
