"""Regressions found by the LLVM differential sweeps (tests/corpus/test_llvm_xla.py,
tests/corpus/test_llvm_pass_goldens.py, and interpreter-vs-LLVM runs over corpus modules without
reference data): each is the smallest module that showed the bug, checked bit-exactly
against the interpreter."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module


def _both(text: str, args: list[np.ndarray], preset: str = "none") -> tuple[list[np.ndarray], list[np.ndarray]]:
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
    m = hlotools.parse_module(text, verify=False)
    got = compile_cached(m, CompileOptions(preset=preset), compile_cache=None)(args)
    with np.errstate(all="ignore"):
        want = evaluate(m, args)
    return [np.asarray(g) for g in got], [np.asarray(w) for w in want]


def _same_bits(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert g.tobytes() == w.tobytes(), f"{g.reshape(-1)[:6]} != {w.reshape(-1)[:6]}"


# pass_tests/algsimp_test_0321: a bitcast that changes the element type (f32 -> s32) fed an
# inlined negate; the emitter forwarded the f32 value, and LLVM rejected `sub float`.
_RETYPING_BITCAST = """HloModule m
ENTRY e {
  p0 = f32[10,20] parameter(0)
  b1 = s32[200] bitcast(p0)
  neg = s32[200] negate(b1)
  ROOT b2 = f32[20,10] bitcast(neg)
}
"""


@pytest.mark.parametrize("preset", ["none", "O2"])
def test_bitcast_changing_element_type_keeps_the_bits(preset: str) -> None:
    x = np.random.default_rng(0).standard_normal((10, 20)).astype(np.float32)
    got, want = _both(_RETYPING_BITCAST, [x], preset)
    _same_bits(got, want)
    assert np.array_equal(got[0].reshape(-1).view(np.int32), -x.reshape(-1).view(np.int32))


def test_bitcast_between_element_types_of_other_widths_is_refused() -> None:
    from hlotools.errors import HloUnsupportedError
    text = ("HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n  b = s16[8] bitcast(p)\n"
            "  ROOT n = s16[8] negate(b)\n}\n")
    with pytest.raises(HloUnsupportedError, match="bitcast from f32 to s16"):
        compile_module(hlotools.parse_module(text, verify=False))


# The XLA corpus sweep once died of SIGSEGV between two dot modules (algsimp_test_0146,
# hlofile_0030, ...): helper threads of a big GEMM were still running when the runtime freed
# the module's code. A child process compiles, runs and frees threaded modules in a row.
_THREADED_LIFETIME = r"""
import gc, sys
import numpy as np
import hlotools
from hlotools.backend.llvm import compile_module
text = ("HloModule m\nENTRY e {\n  a = f32[320,320] parameter(0)\n  b = f32[320,320] parameter(1)\n"
        "  ROOT d = f32[320,320] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n")
a = np.random.default_rng(0).standard_normal((320, 320)).astype(np.float32)
want = a.astype(np.float64) @ a.astype(np.float64)
for i in range(6):
    cm = compile_module(hlotools.parse_module(text))
    got = cm([a, a])[0]
    assert np.allclose(got, want, rtol=1e-3, atol=1e-3), i
    del cm, got
    gc.collect()
print("ok")
"""


@pytest.mark.slow
def test_threaded_modules_can_be_freed_right_after_a_run() -> None:
    import os
    import subprocess
    import sys
    env = dict(os.environ, HLOTOOLS_NUM_THREADS="2")
    r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", _THREADED_LIFETIME], capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", f"exit {r.returncode}\n{r.stderr[-2000:]}"


# parser_test_0075 after -O2: a tuple whose declared layout differs from its operand's is a
# relayout copy from the operands' buffers, but an operand it "read elementally" had been
# inlined (no buffer): "internal: %b has 0 buffers for 1 leaves".
_RELAYOUT_TUPLE = """HloModule m, entry_computation_layout={(f32[3,4]{0,1})->(f32[3,4]{0,1}, f32[2,3]{1,0})}
ENTRY e {
  p = f32[3,4]{0,1} parameter(0)
  c = f32[] constant(1)
  b = f32[2,3]{1,0} broadcast(c), dimensions={}
  ROOT t = (f32[3,4]{1,0}, f32[2,3]{1,0}) tuple(p, b)
}
"""


def test_relayout_tuple_of_an_inlinable_operand() -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got, want = _both(_RELAYOUT_TUPLE, [x])
    _same_bits(got, want)
    assert np.array_equal(got[0], x) and np.array_equal(got[1], np.ones((2, 3), np.float32))


# hlo_files/hlofile_0680 (random inputs): an f8e8m0fnu operand (no arithmetic lowering) of a
# convolution/convert was loaded as its raw i8 and compared as a float: LLVM rejected the IR.
# Only result types were checked; now loading any element of such a type is refused.
@pytest.mark.parametrize("root", ["pred[4] convert(p)", "f32[4] multiply(c, c)"])
def test_unsupported_operand_type_is_a_clear_error(root: str) -> None:
    from hlotools.errors import HloUnsupportedError
    text = (f"HloModule m\nENTRY e {{\n  p = f8e8m0fnu[4] parameter(0)\n  c = f32[4] convert(p)\n"
            f"  ROOT r = {root}\n}}\n")
    with pytest.raises(HloUnsupportedError, match="element type f8e8m0fnu is not supported"):
        compile_module(hlotools.parse_module(text, verify=False))


def test_tanh_of_complex_inside_a_fusion_compiles() -> None:
    """The reported refusal: tanh of c64 in a fusion ("fusion %fusion: tanh of complex values")."""
    text = ("HloModule m\nfused {\n  p = c64[3] parameter(0)\n  t = c64[3] tanh(p)\n  ROOT e = c64[3] exponential(t)\n}\n"
            "ENTRY e {\n  x = c64[3] parameter(0)\n  ROOT f = c64[3] fusion(x), kind=kLoop, calls=fused\n}\n")
    x = np.array([0.5 + 1j, -2 - 0.25j, 3j], np.complex64)
    m = hlotools.parse_module(text)
    got = compile_module(m)([x])[0]
    np.testing.assert_allclose(got, np.exp(np.tanh(x.astype(np.complex128))), rtol=1e-5)
