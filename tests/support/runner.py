"""Run a tiny HLO module on numpy arrays, on either backend: the per-opcode tests of tests/ops/
state a case once and check it on the interpreter and on the LLVM backend (`backend` fixture)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pytest

import hlotools
from hlotools import evaluate

BACKENDS = ("interp", "llvm")
F = TypeVar("F", bound=Callable[..., Any])


def run(text: str, *args: Any, backend: str = "interp") -> list[np.ndarray]:
    """Parse `text` (an HLO module) and run its entry on `args` (flattened leaves) on `backend`."""
    module = hlotools.parse_module(text, verify=False)
    arrays = [np.asarray(a) for a in args]
    if backend == "llvm":
        from hlotools.backend.llvm import compile_module
        return list(compile_module(module)(arrays))
    assert backend == "interp", backend
    return evaluate(module, arrays)


def run1(text: str, *args: Any, backend: str = "interp") -> np.ndarray:
    (out,) = run(text, *args, backend=backend)
    return out


def binary(op: str, ty: str, x: Any, y: Any, out_ty: str | None = None, extra: str = "", *,
           backend: str = "interp") -> np.ndarray:
    """Evaluate `op` on two parameters of type `ty` (dims taken from x)."""
    x = np.asarray(x)
    dims = ",".join(map(str, x.shape))
    out = f"{out_ty or ty}[{dims}]"
    text = f"""HloModule t
ENTRY e {{
  a = {ty}[{dims}] parameter(0)
  b = {ty}[{dims}] parameter(1)
  ROOT r = {out} {op}(a, b){extra}
}}"""
    return run1(text, x, np.asarray(y), backend=backend)


def unary(op: str, ty: str, x: Any, out_ty: str | None = None, extra: str = "", *,
          backend: str = "interp") -> np.ndarray:
    x = np.asarray(x)
    dims = ",".join(map(str, x.shape))
    text = f"""HloModule t
ENTRY e {{
  a = {ty}[{dims}] parameter(0)
  ROOT r = {out_ty or ty}[{dims}] {op}(a){extra}
}}"""
    return run1(text, x, backend=backend)


def run_both(text: str, args: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(LLVM backend outputs, interpreter outputs) of `text` on `args`: for the sweeps whose
    reference is the interpreter."""
    from hlotools.backend.llvm import compile_module
    m = hlotools.parse_module(text)
    got = compile_module(m)(args)
    with np.errstate(all="ignore"):
        want = evaluate(m, args)
    return got, want


def same_bits(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    """Equal shapes, dtypes and values (any NaN matches any NaN for floats)."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        if w.dtype.kind == "f" or w.dtype.kind == "V" or w.dtype.name.startswith(("float", "bfloat")):
            gf, wf = g.astype(np.float64), w.astype(np.float64)
            ok = (gf == wf) | (np.isnan(gf) & np.isnan(wf))
            assert ok.all(), f"{g[~ok][:5]} != {w[~ok][:5]}"
        else:
            assert np.array_equal(g, w, equal_nan=w.dtype.kind == "c"), f"{g} != {w}"


def unary_module(op: str, et: str, n: int, out_et: str | None = None) -> str:
    return (f"HloModule m\nENTRY e {{\n  x = {et}[{n}] parameter(0)\n"
            f"  ROOT y = {out_et or et}[{n}] {op}(x)\n}}\n")


def binary_module(op: str, et: str, n: int, out_et: str | None = None, extra: str = "") -> str:
    return (f"HloModule m\nENTRY e {{\n  x = {et}[{n}] parameter(0)\n  y = {et}[{n}] parameter(1)\n"
            f"  ROOT z = {out_et or et}[{n}] {op}(x, y){extra}\n}}\n")


def opcode(*names: str) -> Callable[[F], F]:
    """Mark a case with the opcodes it is about, so `pytest -m "opcode(name='divide')"` selects
    it (tests/ops/test_opcode_marks.py checks every ops case has one and each name is an opcode)."""
    def mark(fn: F) -> F:
        for name in names:
            fn = pytest.mark.opcode(name=name)(fn)
        return fn
    return mark
