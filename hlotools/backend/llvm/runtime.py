"""The Python side of the LLVM backend: compile a module once, then run it on numpy
arrays by calling the entry function through ctypes.

Arguments and results are flattened array leaves exactly as for
`hlotools.interpreter.evaluate` (logical row-major numpy arrays; tokens are None on input
and a 0-d bool on output). Leaves are converted to their physical layout and storage
(sub-byte integers one per byte) on the way in and back on the way out. The temp arena is
allocated once per compiled module (64-byte aligned) and reused by every call.
"""
from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hlotools.backend.llvm import compiler, jit
from hlotools.backend.llvm.emit_loops import layout_of
from hlotools.errors import HloRuntimeError
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape

_ENTRY_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


@dataclass
class Timings:
    codegen_s: float = 0.0
    llvm_s: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)


def _storage_dtype(shape: Shape) -> np.dtype:
    et = shape.element_type
    assert et is not None and et.dtype is not None
    if et.kind in ("signed", "unsigned") and et.bits < 8:
        return np.dtype(np.int8 if et.kind == "signed" else np.uint8)
    return et.dtype


def _perm(shape: Shape) -> list[int]:
    return list(reversed(layout_of(shape)))  # major -> minor logical dims


class CompiledModule:
    """A module compiled to native code; call it with flattened argument leaves."""

    def __init__(self, module: Module, *, opt_level: int = 3, implicit_fusion: bool = True,
                 keep_object: bool = False) -> None:
        t0 = time.perf_counter()
        from hlotools.backend.llvm.emit_gemm import blas_enabled
        with blas_enabled(bool(jit.blas_symbols())):  # JIT only: AOT objects never call BLAS
            ir_module, stats = compiler.compile_module(module, implicit_fusion=implicit_fusion)
        self.llvm_ir = str(ir_module)
        t1 = time.perf_counter()
        objects: list[bytes] = []  # keep_object: the machine code, for the compile cache
        jit_module, self._llmod = jit.compile_ir(self.llvm_ir, opt_level, objects.append if keep_object else None)
        t2 = time.perf_counter()
        self.object_code: bytes | None = objects[0] if objects else None
        entry = module.entry
        assert entry is not None and entry.root is not None
        self._bind(jit_module, stats, [leaf for p in entry.parameters for leaf in p.shape.leaves()],
                   entry.root.shape.leaves(), Timings(t1 - t0, t2 - t1))

    @classmethod
    def from_object(cls, object_code: bytes, stats: compiler.CompileStats, param_leaves: list[Shape],
                    result_leaves: list[Shape]) -> CompiledModule:
        """A module compiled earlier (cache.py stores the object and these facts): loads the
        object into the JIT without codegen or LLVM's optimiser."""
        t0 = time.perf_counter()
        self = cls.__new__(cls)
        jit_module = jit.load_object(object_code)
        self.llvm_ir = ""  # not kept in the cache
        self._llmod = jit_module.module
        self.object_code = object_code
        self._bind(jit_module, stats, param_leaves, result_leaves,
                   Timings(extra={"load_object": time.perf_counter() - t0}))
        return self

    def _bind(self, jit_module: jit.JitModule, stats: compiler.CompileStats, param_leaves: list[Shape],
              result_leaves: list[Shape], timings: Timings) -> None:
        """Everything a call needs, from a fresh compile or a cached object alike."""
        self._jit = jit_module
        self.stats = stats
        self.timings = timings
        self._entry = _ENTRY_TYPE(self._jit.address(compiler.ENTRY_NAME))
        from hlotools.backend.llvm.parallel import join_at_release
        join_at_release(self, jit_module)  # helper threads run this code: join them before it is freed
        self.param_leaves = param_leaves
        self.result_leaves = result_leaves
        self.arena_bytes = self.stats.arena_bytes
        self._arena = np.zeros(self.arena_bytes + 128, np.uint8)
        self._arena_ptr = (self._arena.ctypes.data + 63) // 64 * 64
        self._lock = threading.Lock()

    def optimised_ir(self) -> str:
        return str(self._llmod)

    def __call__(self, args: Sequence[Any]) -> list[np.ndarray]:
        if len(args) != len(self.param_leaves):
            raise HloRuntimeError(f"the entry computation takes {len(self.param_leaves)} argument leaves, "
                                  f"got {len(args)}")
        keep = [_to_physical(a, s, i) for i, (a, s) in enumerate(zip(args, self.param_leaves))]
        outs = [_alloc_physical(s) for s in self.result_leaves]
        for k, i in getattr(self.stats, "donated", {}).items():
            # input_output_alias: result k is computed in (a private copy of) argument i's memory
            src = keep[i]
            if src is not None and outs[k] is not None and src.shape == outs[k].shape:
                own = src.copy() if np.shares_memory(src, np.asarray(args[i])) else src
                keep[i] = outs[k] = own
        in_arr = (ctypes.c_void_p * max(1, len(keep)))(*[_addr(k) for k in keep])
        out_arr = (ctypes.c_void_p * max(1, len(outs)))(*[_addr(o) for o in outs])
        with self._lock:
            self._entry(self._arena_ptr, ctypes.addressof(in_arr), ctypes.addressof(out_arr))
        return [_to_logical(o, s) for o, s in zip(outs, self.result_leaves)]


def _addr(a: np.ndarray | None) -> int | None:
    return None if a is None else a.ctypes.data


def _to_physical(arg: Any, shape: Shape, i: int) -> np.ndarray | None:
    if shape.is_token or shape.element_type is None or not shape.element_type.is_array:
        return None
    a = np.asarray(arg)
    dt = shape.dtype
    if a.dtype != dt and a.dtype.kind == "V" and a.dtype.itemsize == dt.itemsize:
        a = a.view(dt)
    if a.dtype != dt:
        raise HloRuntimeError(f"argument {i}: expected {shape.to_text(False)}, got dtype {a.dtype}")
    if a.shape != shape.dims:
        raise HloRuntimeError(f"argument {i}: expected {shape.to_text(False)}, got dims {list(a.shape)}")
    st = _storage_dtype(shape)
    if st != dt:
        a = a.astype(st)
    if a.ndim > 1:
        a = np.transpose(a, _perm(shape))
    a = np.ascontiguousarray(a)
    return a if a.size else np.zeros(1, st)


def _alloc_physical(shape: Shape) -> np.ndarray | None:
    if shape.is_token or shape.element_type is None or not shape.element_type.is_array:
        return None
    dims = [shape.dims[d] for d in _perm(shape)]
    n = int(np.prod(dims)) if dims else 1
    return np.empty(max(1, n), _storage_dtype(shape))[:n].reshape(dims) if n else np.empty(dims, _storage_dtype(shape))


def _to_logical(buf: np.ndarray | None, shape: Shape) -> np.ndarray:
    if buf is None:
        return np.zeros((), np.bool_)
    a = buf
    if a.ndim > 1:
        inv = np.argsort(_perm(shape))
        a = np.transpose(a, inv)
    if a.dtype != shape.dtype:
        a = a.astype(shape.dtype)
    return a if a.flags.c_contiguous else a.copy()  # (ascontiguousarray turns 0-d into 1-d)


def compile_module(module: Module, **kw: Any) -> CompiledModule:
    return CompiledModule(module, **kw)
