"""Which answer the backends give where XLA CPU and the HLO specification part ways.

`xla-cpu` (the default) reproduces what XLA's CPU backend computes, bit for bit where it is
deterministic: denormal f32/f64/bf16 values flushed to zero (XLA runs its kernels with the
x86 FTZ/DAZ bits set), NaN bit patterns as XLA produces them, f16/bf16 elementwise chains
computed in f32 and rounded where XLA rounds, XLA's integer power. `spec` follows the
operation semantics document where XLA's CPU answer is an artefact of its implementation
(gradual underflow, per-op rounding of f16/bf16, ...). README.md lists every difference.

The choice lives in the environment variable HLOTOOLS_SEMANTICS, which every process
inherits and which the compile cache keys on like every HLOTOOLS_ variable, so a cached
object compiled under one choice is never run under the other. `--semantics` on the command
lines and `using()` in Python set it.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from hlotools.errors import HloError

ENV = "HLOTOOLS_SEMANTICS"
CHOICES = ("xla-cpu", "spec")
DEFAULT = "xla-cpu"


def current() -> str:
    value = os.environ.get(ENV, "").strip() or DEFAULT
    if value not in CHOICES:
        raise HloError(f"{ENV}={value!r}: expected one of {', '.join(CHOICES)}")
    return value


def xla_cpu() -> bool:
    """True where the backends reproduce XLA CPU rather than the specification."""
    return current() == "xla-cpu"


@contextmanager
def using(choice: str) -> Iterator[None]:
    """Run a block (compiles and evaluations) under `choice`; the previous one comes back after."""
    if choice not in CHOICES:
        raise HloError(f"semantics {choice!r}: expected one of {', '.join(CHOICES)}")
    old = os.environ.get(ENV)
    os.environ[ENV] = choice
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = old


_LOCAL = threading.local()


def flush_denormals() -> bool:
    """Whether f32/f64 (and bf16, computed in f32) arithmetic flushes denormal operands and
    results to zero of the same sign, as XLA CPU's kernels run (x86 MXCSR DAZ + FTZ, set by
    its thread pools: tsl::port::ScopedFlushDenormal). Moves, select, negate, abs, bitcasts
    and the bf16/f16 conversions keep the bits, as the hardware does."""
    return xla_cpu() and not getattr(_LOCAL, "gradual", False)


@contextmanager
def gradual_underflow() -> Iterator[None]:
    """Evaluate a block with IEEE gradual underflow whatever the semantics: XLA's constant
    folding runs its HloEvaluator without the flush, so folded constants keep denormals."""
    old = getattr(_LOCAL, "gradual", False)
    _LOCAL.gradual = True
    try:
        yield
    finally:
        _LOCAL.gradual = old
