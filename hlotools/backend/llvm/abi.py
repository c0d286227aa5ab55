"""How Python calls generated code, without LLVM: the entry function's name and signature,
the compile statistics a call needs (arena size, donated arguments) and the conversion of
numpy leaves to and from their physical layout and storage.

Kept free of llvmlite (and of the compiler) so that a warm start, which loads machine code
from the compile cache as a shared library (native/shared_library.py), imports none of it. runtime.py's
CompiledModule (MCJIT) and native/shared_library.py's loader both call through `EntryCaller`.
"""
from __future__ import annotations

import ctypes
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from hlotools.errors import HloRuntimeError
from hlotools.ir.shape import Layout, Shape

ENTRY_NAME = "hlo_entry"
ENTRY_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
# Exported by modules that start threads (kernels/parallel_for.py emits it): joins the helper threads that
# may still run the module's code; called before the code is freed.
JOIN_SYMBOL = "hlotools_parallel_join"
# The runtime's `void hlo.parallel_for(ptr fn, ptr ctx, i64 n)` (kernels/parallel_for.py).
PARALLEL_FOR = "hlo.parallel_for"


@dataclass
class CompileStats:
    """Sizes of one compiled module (functions, instructions, arena bytes) and its donated leaves."""
    functions: int = 0
    instructions: int = 0
    arena_bytes: int = 0
    peak_by_computation: dict[str, int] = field(default_factory=dict)
    # Entry result leaf -> flat argument leaf whose memory it may be written into
    # (input_output_alias); the caller may pass the argument's memory as that result.
    donated: dict[int, int] = field(default_factory=dict)
    kernels: int = 0  # distinct kernels (codegen/kernels.py), and how many of them this compile emitted
    kernels_emitted: int = 0
    kernel_calls: int = 0
    # XLA's kernel count of the optimised module: fusions + unfused non-trivial instructions
    # (passes/fusion_stats.kernel_count), what hlo-run --json and hlo-bench report
    kernel_count: int = 0


def layout_of(shape: Shape) -> tuple[int, ...]:
    """minor_to_major of an array shape (the default, row-major, when absent)."""
    lay = shape.layout
    if lay is None or len(lay.minor_to_major) != len(shape.dims):
        return Layout.default(len(shape.dims)).minor_to_major
    return lay.minor_to_major


class EntryCaller:
    """Calls `void hlo_entry(ptr arena, ptr params, ptr outs)` at `address` with numpy leaves.
    The temp arena is allocated once (64-byte aligned, not cleared: `new_arena`) and reused by
    every call; a lock keeps two Python threads from sharing it. What each leaf's conversion
    needs is worked out once here (`Leaf`): a small module's whole run is tens of
    microseconds, and reading dtypes, layouts and permutations from the Shapes on every call
    cost as much as the generated code (llama_block: 41 of 85 us a call)."""

    def bind_entry(self, address: int, stats: CompileStats, param_leaves: list[Shape],
                   result_leaves: list[Shape]) -> None:
        self._entry = ENTRY_TYPE(address)
        self.stats = stats
        self.param_leaves = param_leaves
        self.result_leaves = result_leaves
        self._params = [Leaf.of(s) for s in param_leaves]
        self._results = [Leaf.of(s) for s in result_leaves]
        self._in_type = pointer_array(max(1, len(param_leaves)))
        self._out_type = pointer_array(max(1, len(result_leaves)))
        self.arena_bytes = stats.arena_bytes
        self._arena, self._arena_ptr = new_arena(self.arena_bytes)
        self._lock = threading.Lock()

    def __call__(self, args: Sequence[Any]) -> list[np.ndarray]:
        if len(args) != len(self._params):
            raise HloRuntimeError(f"the entry computation takes {len(self._params)} argument leaves, "
                                  f"got {len(args)}")
        keep = [to_physical(a, leaf, i) for i, (a, leaf) in enumerate(zip(args, self._params))]
        outs = [alloc_physical(leaf) for leaf in self._results]
        for k, i in getattr(self.stats, "donated", {}).items():
            # input_output_alias: result k is computed in (a private copy of) argument i's memory
            src = keep[i]
            if src is not None and outs[k] is not None and src.shape == outs[k].shape:
                own = src.copy() if np.shares_memory(src, np.asarray(args[i])) else src
                keep[i] = outs[k] = own
        in_arr = self._in_type(*[_addr(k) for k in keep])
        out_arr = self._out_type(*[_addr(o) for o in outs])
        with self._lock:
            self._entry(self._arena_ptr, ctypes.addressof(in_arr), ctypes.addressof(out_arr))
        return [to_logical(o, leaf) for o, leaf in zip(outs, self._results)]


@lru_cache(maxsize=256)
def pointer_array(n: int) -> type[ctypes.Array[ctypes.c_void_p]]:
    """`ctypes.c_void_p * n`, made once: ctypes caches array types only while something else
    holds them, and a type is cyclic (its __mro__, its descriptors), so each one a call made
    was garbage for the collector, and the first call after a collection made a new one
    (~15 us)."""
    return ctypes.c_void_p * n


ARENA_ALIGN = 64


def new_arena(size: int) -> tuple[np.ndarray, int]:
    """Memory for a module's temp arena of `size` bytes and its ARENA_ALIGN-aligned address,
    NOT cleared. The generated code writes every arena byte before it reads it: a logical
    buffer lives from the instruction that defines (writes) it to its last reader, scratch
    only within its instruction (buffers.py), and buffers of different live ranges share
    bytes, so each call already sees what earlier calls and other buffers left there (zeros
    were never something the code could count on; tests/backend/llvm/codegen/test_arena.py runs the corpus on
    a poisoned arena). Not clearing it is what keeps a cold compile's bind cheap: np.zeros of
    a big arena is a calloc, which glibc serves from the heap once its dynamic mmap threshold
    has grown past the arena size (after any such block was freed), and then clears with
    memset (big_conv's 23 MB: 2-30 ms, the same again in page faults if the pages are new);
    np.empty reuses the freed block as it is. A fresh anonymous mapping was tried and
    reverted: it only moved the page faults into the first call."""
    raw = np.empty(size + ARENA_ALIGN, np.uint8)
    return raw, (raw.ctypes.data + ARENA_ALIGN - 1) // ARENA_ALIGN * ARENA_ALIGN


def _storage_dtype(shape: Shape) -> np.dtype:
    et = shape.element_type
    assert et is not None and et.dtype is not None
    if et.kind in ("signed", "unsigned") and et.bits < 8:
        return np.dtype(np.int8 if et.kind == "signed" else np.uint8)
    return et.dtype


@dataclass(frozen=True)
class Leaf:
    """One entry parameter or result leaf as the calls see it, read from its Shape once.
    `dtype` is None for a leaf without memory (a token): it passes a null pointer.
    `perm` (major -> minor logical dims) is None when the layout is row-major, so a C-contiguous
    argument of the right dtype is passed as it is and a result is returned as it was written."""
    shape: Shape
    dtype: np.dtype | None
    storage: np.dtype | None
    perm: tuple[int, ...] | None
    physical_dims: tuple[int, ...]

    @staticmethod
    def of(shape: Shape) -> Leaf:
        if shape.is_token or shape.element_type is None or not shape.element_type.is_array:
            return Leaf(shape, None, None, None, ())
        perm = tuple(reversed(layout_of(shape)))
        row_major = len(shape.dims) < 2 or perm == tuple(range(len(shape.dims)))
        return Leaf(shape, shape.dtype, _storage_dtype(shape), None if row_major else perm,
                    tuple(shape.dims[d] for d in perm))


def _addr(a: np.ndarray | None) -> int | None:
    """The address of `a`'s first byte. Through ctypes' buffer protocol when `a` is writable
    and not empty (a fifth of the cost of `a.ctypes.data`, which builds an object per call)."""
    if a is None:
        return None
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(a))  # type: ignore[arg-type]
    except (TypeError, ValueError, BufferError):  # read-only, empty or not contiguous
        return int(a.ctypes.data)


def to_physical(arg: Any, leaf: Leaf, i: int) -> np.ndarray | None:
    dt, st = leaf.dtype, leaf.storage
    if dt is None or st is None:
        return None
    a = arg if type(arg) is np.ndarray else np.asarray(arg)
    if a.dtype != dt and a.dtype.kind == "V" and a.dtype.itemsize == dt.itemsize:
        a = a.view(dt)
    if a.dtype != dt:
        raise HloRuntimeError(f"argument {i}: expected {leaf.shape.to_text(False)}, got dtype {a.dtype}")
    if a.shape != leaf.shape.dims:
        raise HloRuntimeError(f"argument {i}: expected {leaf.shape.to_text(False)}, got dims {list(a.shape)}")
    if st != dt:
        a = a.astype(st)
    if leaf.perm is not None:
        a = np.transpose(a, leaf.perm)
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    return a if a.size else np.zeros(1, st)


def alloc_physical(leaf: Leaf) -> np.ndarray | None:
    return None if leaf.storage is None else np.empty(leaf.physical_dims, leaf.storage)


def to_logical(buf: np.ndarray | None, leaf: Leaf) -> np.ndarray:
    if buf is None:
        return np.zeros((), np.bool_)
    a = buf
    if leaf.perm is not None:
        a = np.transpose(a, np.argsort(leaf.perm))
    if a.dtype != leaf.dtype:
        a = a.astype(leaf.dtype)
    return a if a.flags.c_contiguous else a.copy()  # (ascontiguousarray turns 0-d into 1-d)


def leaf_bytes(shape: Shape) -> int:
    if shape.is_token or shape.element_type is None or not shape.element_type.is_array:
        return 0
    n = 1
    for d in shape.dims:
        n *= d
    return n * storage_bytes(shape)


def storage_bytes(shape: Shape) -> int:
    et = shape.element_type
    assert et is not None
    if et.kind == "complex":
        return et.bits // 8
    if et.kind == "pred":
        return 1
    return max(1, (max(8, et.bits) + 7) // 8)
