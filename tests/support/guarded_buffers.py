"""Guard pages around every buffer generated code touches, to catch out-of-bounds accesses.

`install(mode)` patches the ctypes call path (hlotools.backend.llvm.abi) of this process
so that each argument, each result and the temp arena of every compiled module live in their
own anonymous mapping, with a PROT_NONE page right after the buffer's last byte (mode "end":
an overrun faults at once) or right before its first byte (mode "start": an underrun faults).
The arena keeps its 64-byte alignment, so in mode "end" an overrun of up to 63 bytes past
the rounded-up arena size goes unseen; argument and result buffers end exactly at the guard.
Results and arena are filled with 0xFF (NaN for floats) rather than zeros, so code that reads
memory it never wrote shows up as a difference.

Meant for a child process (a fault kills it; tests/backend/llvm/driver/test_crash_safety.py runs it that way):
the mappings are never unmapped, since results handed back to the caller may be views of them.
"""
from __future__ import annotations

import ctypes
import mmap
from typing import Any

import numpy as np

_LIBC = ctypes.CDLL(None, use_errno=True)
_LIBC.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_PAGE = mmap.PAGESIZE
_KEEP: list[Any] = []  # mappings and their buffer exports, alive until the process exits


def _round_up(n: int, m: int) -> int:
    return (n + m - 1) // m * m


def guarded(nbytes: int, mode: str, align: int, fill: int | None = 0xFF) -> tuple[np.ndarray, int]:
    """(uint8 array of `nbytes`, its address) with a guard page at its end or its start."""
    body = _round_up(max(1, nbytes), _PAGE)
    mm = mmap.mmap(-1, body + 2 * _PAGE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    raw = (ctypes.c_char * len(mm)).from_buffer(mm)
    base = ctypes.addressof(raw)
    for guard in (base, base + _PAGE + body):
        if _LIBC.mprotect(guard, _PAGE, 0) != 0:
            raise OSError(ctypes.get_errno(), "mprotect failed")
    if mode == "end":
        offset = _PAGE + body - _round_up(nbytes, align)
    elif mode == "start":
        offset = _PAGE
    else:
        raise ValueError(f"mode {mode!r}")
    _KEEP.append((mm, raw))
    array = np.frombuffer(mm, np.uint8, count=nbytes, offset=offset)
    if fill is not None:
        array[:] = fill
    return array, base + offset


def _like(a: np.ndarray, mode: str, fill: int | None) -> np.ndarray:
    """A C-contiguous copy of `a` (or, for fill, an uninitialised one) in guarded memory."""
    buf, _ = guarded(a.nbytes, mode, a.dtype.itemsize, fill)
    out = buf.view(a.dtype).reshape(a.shape) if a.nbytes else np.empty(a.shape, a.dtype)
    if fill is None:
        out[...] = a
    return out


def install(mode: str) -> None:
    """Patch abi.py's buffers (arguments, results, arena) into guarded memory."""
    from hlotools.backend.llvm import abi

    to_physical, alloc_physical, bind_entry = abi.to_physical, abi.alloc_physical, \
        abi.EntryCaller.bind_entry

    def guarded_to_physical(arg: Any, shape: Any, i: int) -> np.ndarray | None:
        a = to_physical(arg, shape, i)
        return None if a is None else _like(a, mode, None)

    def guarded_alloc_physical(shape: Any) -> np.ndarray | None:
        a = alloc_physical(shape)
        return None if a is None else _like(a, mode, 0xFF)

    def guarded_bind_entry(self: Any, *args: Any, **kw: Any) -> None:
        bind_entry(self, *args, **kw)
        self._arena, self._arena_ptr = guarded(self.arena_bytes, mode, 64)

    abi.to_physical = guarded_to_physical
    abi.alloc_physical = guarded_alloc_physical
    abi.EntryCaller.bind_entry = guarded_bind_entry  # type: ignore[method-assign]
