"""Helpers for the interpreter's per-opcode tests: run a tiny HLO module on numpy arrays."""
from __future__ import annotations

from typing import Any

import numpy as np

import hlotools
from hlotools.interpreter import evaluate


def run(text: str, *args: Any) -> list[np.ndarray]:
    """Parse `text` (an HLO module) and evaluate its entry on `args` (flattened leaves)."""
    module = hlotools.parse_module(text, verify=False)
    return evaluate(module, [np.asarray(a) for a in args])


def run1(text: str, *args: Any) -> np.ndarray:
    (out,) = run(text, *args)
    return out


def binary(op: str, ty: str, x: Any, y: Any, out_ty: str | None = None, extra: str = "") -> np.ndarray:
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
    return run1(text, x, np.asarray(y))


def unary(op: str, ty: str, x: Any, out_ty: str | None = None, extra: str = "") -> np.ndarray:
    x = np.asarray(x)
    dims = ",".join(map(str, x.shape))
    text = f"""HloModule t
ENTRY e {{
  a = {ty}[{dims}] parameter(0)
  ROOT r = {out_ty or ty}[{dims}] {op}(a){extra}
}}"""
    return run1(text, x)
