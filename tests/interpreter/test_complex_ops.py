"""interpreter/complex_ops.py: the numpy RealOps that evaluates ir/complex_math's formulas.
It sits below elementwise.py (which dispatches complex opcodes to it), so it must not import
elementwise back; its maximum and minimum are HLO's (numeric.float_maximum/float_minimum)."""
from __future__ import annotations

import ast

import numpy as np
import pytest

from hlotools.interpreter import complex_ops, numeric
from hlotools.interpreter.complex_ops import NumpyOps
from tests.support import paths


def _imports(module: str) -> set[str]:
    path = paths.ROOT.joinpath("hlotools", *module.split(".")).with_suffix(".py")
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


@pytest.mark.parametrize("module", ["interpreter.complex_ops", "interpreter.numeric", "ir.complex_math"])
def test_no_cycle_through_elementwise(module: str) -> None:
    assert "hlotools.interpreter.elementwise" not in _imports(module)


def _bits(x: np.ndarray) -> list[int]:
    return np.asarray(x).view(np.uint32 if x.dtype == np.float32 else np.uint64).tolist()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_maximum_and_minimum_are_hlos(dtype: type) -> None:
    """The first NaN operand wins, quieted; -0 is below +0; otherwise numpy's max/min."""
    uint = np.uint32 if dtype == np.float32 else np.uint64
    snan = np.array(0x7F800001 if dtype == np.float32 else 0x7FF0000000000001, uint).view(dtype)
    x = np.array([snan, 1.0, np.nan, -0.0, 0.0, 2.0], dtype)
    y = np.array([-np.nan, snan, 3.0, 0.0, -0.0, -5.0], dtype)
    ops: NumpyOps[np.ndarray] = NumpyOps(np.dtype(dtype), flush=False)
    quiet = numeric.quiet_nan(snan[None])[0]
    want_max = np.array([quiet, quiet, np.nan, 0.0, 0.0, 2.0], dtype)
    want_min = np.array([quiet, quiet, np.nan, -0.0, -0.0, -5.0], dtype)
    assert _bits(ops.maximum(x, y)) == _bits(want_max)
    assert _bits(ops.minimum(x, y)) == _bits(want_min)
    assert _bits(numeric.float_maximum(x, y)) == _bits(want_max)


def test_the_formulas_run_on_numpy() -> None:
    """numpy_binary/numpy_unary evaluate ir/complex_math's formulas: XLA's division keeps the
    C99 infinity cases (1 / 0 = inf + nan i here, numpy gives nan + nan i)."""
    with np.errstate(all="ignore"):
        z = complex_ops.numpy_binary("divide", np.array([1 + 0j], np.complex64), np.array([0j], np.complex64))
    assert np.isinf(z.real[0]) and np.isnan(z.imag[0])
    assert complex_ops.numpy_unary("abs", np.array([3 + 4j])).tolist() == [5.0]
    with pytest.raises(Exception, match="cbrt of complex"):
        complex_ops.numpy_unary("cbrt", np.array([1j]))
