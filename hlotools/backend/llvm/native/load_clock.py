"""How long this process spent loading the LLVM backend: its Python modules and the passes',
llvmlite (which loads LLVM's shared library) and the runtime library's objects (GEMM,
convolution, worker pool: runtime.py binds them into the JIT). hlo-run reports it as the
compile's "load" phase apart from the compile proper, because it is paid once per process (a
second module compiled in the same process does not pay it), as XLA pays for loading its
library (its passes, LLVM and runtime inside) when jax is imported.

`loading()` times a block of imports; nested and repeated blocks count once."""
from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

_STATE = threading.local()
_SPENT = [0.0]  # seconds of every outermost block so far


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """Time the imports inside (only the outermost block of a thread counts)."""
    if getattr(_STATE, "depth", 0):
        yield
        return
    _STATE.depth = 1
    start = time.perf_counter()
    try:
        yield
    finally:
        _SPENT[0] += time.perf_counter() - start
        _STATE.depth = 0


def seconds() -> float:
    """The seconds every loading() block of this process took so far."""
    return _SPENT[0]
