"""reduce-precision of f16/bf16 works on the type's own bit pattern (XLA's
EmitReducePrecisionIR: f16 denormals round in their own mantissa), and a bf16 NaN comes back
canonical (XLA upcasts bf16 to f32 first); values recorded from XLA CPU (jaxlib 0.10.2)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver.runtime import CompiledModule

TEXT = """HloModule rp
ENTRY e {
  x = f16[6] parameter(0)
  a = f16[6] reduce-precision(x), exponent_bits=8, mantissa_bits=2
  b = f16[6] reduce-precision(x), exponent_bits=3, mantissa_bits=7
  y = bf16[6] parameter(1)
  c = bf16[6] reduce-precision(y), exponent_bits=5, mantissa_bits=3
  ROOT t = (f16[6], f16[6], bf16[6]) tuple(a, b, c)
}
"""
X = np.array([0x0007, 0x0001, 0x03FF, 0x3C01, 0x8005, 0x7E01], np.uint16).view(np.float16)
Y = np.array([0x0007, 0x3F81, 0x4049, 0x0101, 0x8005, 0x7FC1], np.uint16).view(ml_dtypes.bfloat16)
XLA = [[0x0, 0x0, 0x400, 0x3C00, 0x8000, 0x7E01], [0x0, 0x0, 0x0, 0x3C00, 0x8000, 0x7E01],
       [0x0, 0x3F80, 0x4050, 0x0, 0x8000, 0x7FC0]]


@pytest.mark.parametrize("backend", ["interpreter", "llvm"])
def test_reduce_precision_of_16_bit_floats_is_xlas(backend: str) -> None:
    m = hlotools.parse_module(TEXT)
    outs = evaluate(m, [X, Y]) if backend == "interpreter" else CompiledModule(m)([X, Y])
    assert [np.asarray(o).view(np.uint16).tolist() for o in outs] == XLA
