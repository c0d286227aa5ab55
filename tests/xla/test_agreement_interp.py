"""Modules real XLA runs that hlotools refused or got wrong, found by running random modules on
XLA CPU (/work/shared/tools/xla_ref.py): clamp with scalar bounds, zero-sized arrays in every
opcode family, erf, integer maps at the extremes.

Each case is an HLO module, inputs made by `_inputs` (deterministic, no RNG) and the outputs
XLA gave for them, recorded here; the interpreter (as parsed and after -O2 with the verifier
after each pass) and the LLVM backend (as parsed and after -O2) must give them bit for bit
(NaNs as NaNs). `test_recorded_values_are_xlas` re-runs every case on XLA when its venv is
installed, so the table cannot drift from what XLA does."""
from __future__ import annotations

import math
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.ir.module import Module
from hlotools.passes.manager import ManagerOptions, run_pipeline
from hlotools.passes.pipeline import parse_pipeline, preset_spec
from tests.support.xla_batch import AVAILABLE, run_in_xla

# Leaf = (element type, dims, row-major values): a list, or for longer arrays the hex of the
# little-endian bytes.
Leaf = tuple[str, tuple[int, ...], list | str]
NAN, INF = math.nan, math.inf
MODES = ("interp", "interp-O2", "llvm-none", "llvm-O2")
_DTYPES = {"pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
           "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "f16": np.float16,
           "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64, "c64": np.complex64,
           "c128": np.complex128, "f8e4m3fn": ml_dtypes.float8_e4m3fn}


ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"


def _module(body: str, comps: str = "") -> str:
    return f"HloModule m\n{comps}\nENTRY e {{\n{body}\n}}\n"


def _dtype(et: str) -> np.dtype:
    return np.dtype(_DTYPES[et])


def _inputs(module: Module, given: list[list] | None) -> list[np.ndarray]:
    """Parameter values: `given` (flat lists) if any, else ramps with negatives, fractions and
    zeros for floats, small signed values for integers, alternating preds."""
    assert module.entry is not None
    out = []
    for k, p in enumerate(module.entry.parameters):
        et = p.shape.element_type
        assert et is not None
        dims = tuple(p.shape.dims)
        n = math.prod(dims)
        if given is not None:
            out.append(np.asarray(given[k], _dtype(et.name)).reshape(dims))
            continue
        i = np.arange(n, dtype=np.int64) + 3 * k  # parameters start at different values
        if et.name == "pred":
            v: np.ndarray = (i % 2) == 0
        elif et.kind in ("signed", "unsigned"):
            v = (i % 9) - (0 if et.kind == "unsigned" else 4)
        elif et.kind == "complex":
            v = ((i % 7) - 3) * 0.5 + 0.25j * (i % 3)
        else:
            v = ((i % 11) - 5) * 0.375
        out.append(np.asarray(v).astype(_dtype(et.name)).reshape(dims))
    return out


def _leaves(value: object) -> list[np.ndarray]:
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [np.asarray(value)]


def _run(name: str, mode: str) -> list[np.ndarray]:
    module = hlotools.parse_module(CASES[name], name)
    args = _inputs(module, INPUTS.get(name))
    if mode.startswith("interp"):
        if mode == "interp-O2":
            module = module.clone()
            run_pipeline(module, parse_pipeline(preset_spec("O2")), ManagerOptions(verify_each=True))
        with np.errstate(all="ignore"):
            return _leaves(evaluate(module, list(args)))
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
    compiled = compile_cached(module, CompileOptions(preset=mode.split("-")[1]), compile_cache=None)
    return _leaves(compiled(list(args)))


def _same(got: np.ndarray, leaf: Leaf, where: str) -> None:
    et, dims, values = leaf
    if isinstance(values, str):
        want = np.frombuffer(bytes.fromhex(values), _dtype(et)).reshape(dims)
    else:
        want = np.asarray(values, _dtype(et)).reshape(dims)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{where}: {got.dtype}{list(got.shape)}, XLA gives {want.dtype}{list(want.shape)}"
    if got.dtype.kind in "fcV" or got.dtype == ml_dtypes.bfloat16:
        g, w = got.astype(np.complex128).ravel(), want.astype(np.complex128).ravel()
        nan = np.isnan(g) & np.isnan(w)
        bits_g = np.where(nan, 0, got.ravel().view(f"u{got.itemsize}")) if got.dtype.kind != "c" else None
        bits_w = np.where(nan, 0, want.ravel().view(f"u{want.itemsize}")) if got.dtype.kind != "c" else None
        same = (g == w) | nan
        if bits_g is not None:
            same &= (bits_g == bits_w) | nan
        else:
            same &= (np.signbit(g.real) == np.signbit(w.real)) & (np.signbit(g.imag) == np.signbit(w.imag)) | nan
    else:
        same = got.ravel() == want.ravel()
    bad = np.flatnonzero(~same)
    assert not bad.size, (f"{where}: {bad.size} of {got.size} differ from XLA, first at flat index "
                          f"{bad[0]}: {got.ravel()[bad[0]]!r}, XLA {want.ravel()[bad[0]]!r}")


def check(name: str, mode: str) -> None:
    if mode.startswith("llvm") and name in NO_LLVM:
        pytest.skip("the LLVM backend does not implement an opcode of this module")
    got = _run(name, mode)
    expected = XLA_OUTPUTS[name]
    assert len(got) == len(expected), f"{len(got)} result leaves, XLA gives {len(expected)}"
    for i, (g, leaf) in enumerate(zip(got, expected)):
        _same(g, leaf, f"{name} {mode} out{i}")


# ------------------------------------------------------------------ 1. clamp with scalar bounds
# XLA's InferClampShape lets min and max each be a scalar or have the operand's shape (its
# shape_inference_test ClampMinScalar/ClampMaxScalar; ClampOperandScalar and the matrix-bound
# mixes are errors). The HLO verifier's implicit-broadcast check covers unary/binary ops only.

CASES: dict[str, str] = {}
INPUTS: dict[str, list[list]] = {}  # cases whose inputs are given (flat, one list per parameter)
NO_LLVM: set[str] = set()


def _case(name: str, body: str, comps: str = "", inputs: list[list] | None = None) -> None:
    assert name not in CASES, name
    CASES[name] = _module(body, comps)
    if inputs is not None:
        INPUTS[name] = inputs


for _t in ("f32", "s32", "f16", "bf16", "u8", "f64", "s64"):
    _float = _t[0] in "fb"
    _case(f"clamp_scalar_bounds_{_t}", f"  lo = {_t}[] parameter(0)\n  x = {_t}[3,4] parameter(1)\n"
          f"  hi = {_t}[] parameter(2)\n  ROOT c = {_t}[3,4] clamp(lo, x, hi)",
          inputs=[[-1.25 if _float else 3 if _t == "u8" else -2], [(i - 6) * (0.375 if _float else 1) + 6 * (_t == "u8")
                                                               for i in range(12)], [1.5 if _float else 8 if _t == "u8" else 3]])
_case("clamp_scalar_lo_full_hi", "  lo = f32[] parameter(0)\n  x = f32[3,4] parameter(1)\n"
      "  hi = f32[3,4] parameter(2)\n  ROOT c = f32[3,4] clamp(lo, x, hi)",
      inputs=[[-0.5], [(i - 6) * 0.25 for i in range(12)], [(i % 3) * 0.5 - 0.25 for i in range(12)]])
_case("clamp_full_lo_scalar_hi", "  lo = s32[3,4] parameter(0)\n  x = s32[3,4] parameter(1)\n"
      "  hi = s32[] parameter(2)\n  ROOT c = s32[3,4] clamp(lo, x, hi)",
      inputs=[[(i % 4) - 3 for i in range(12)], [i - 5 for i in range(12)], [2]])
_case("clamp_scalar_everything", "  lo = f32[] parameter(0)\n  x = f32[] parameter(1)\n"
      "  hi = f32[] parameter(2)\n  ROOT c = f32[] clamp(lo, x, hi)", inputs=[[-1], [3], [2]])
_case("clamp_constant_bounds", "  lo = f32[] constant(-0.5)\n  x = f32[3,4] parameter(0)\n"
      "  hi = f32[] constant(0.5)\n  ROOT c = f32[3,4] clamp(lo, x, hi)")
_case("clamp_folded", "  lo = s32[] constant(-2)\n  x = s32[2,3] constant({{-5, 0, 7}, {1, -2, 3}})\n"
      "  hi = s32[] constant(2)\n  ROOT c = s32[2,3] clamp(lo, x, hi)")
_case("clamp_nan_bound", "  lo = f32[] constant(nan)\n  x = f32[4] parameter(0)\n"
      "  hi = f32[] constant(1)\n  ROOT r = f32[4] clamp(lo, x, hi)")
_case("clamp_inverted_bounds", "  lo = f32[] constant(1)\n  x = f32[4] parameter(0)\n"
      "  hi = f32[] constant(-1)\n  ROOT r = f32[4] clamp(lo, x, hi)")
_case("clamp_pred", "  lo = pred[] parameter(0)\n  x = pred[4] parameter(1)\n  hi = pred[] parameter(2)\n"
      "  ROOT r = pred[4] clamp(lo, x, hi)", inputs=[[False], [True, False, True, False], [True]])
_case("clamp_between_transposes", "  lo = f32[] parameter(0)\n  x = f32[4,3] parameter(1)\n"
      "  hi = f32[] parameter(2)\n  t = f32[3,4] transpose(x), dimensions={1,0}\n"
      "  c = f32[3,4] clamp(lo, t, hi)\n  ROOT r = f32[4,3] transpose(c), dimensions={1,0}")
_case("clamp_between_reshapes", "  lo = f32[] parameter(0)\n  x = f32[12] parameter(1)\n"
      "  hi = f32[] parameter(2)\n  t = f32[3,4] reshape(x)\n  c = f32[3,4] clamp(lo, t, hi)\n"
      "  ROOT r = f32[12] reshape(c)")
_case("clamp_then_slice", "  lo = f32[] parameter(0)\n  x = f32[6,4] parameter(1)\n  hi = f32[] parameter(2)\n"
      "  c = f32[6,4] clamp(lo, x, hi)\n  ROOT r = f32[2,4] slice(c), slice={[1:5:2], [0:4]}")
_case("clamp_then_reduce", "  lo = f32[] parameter(0)\n  x = f32[6,4] parameter(1)\n  hi = f32[] parameter(2)\n"
      "  c = f32[6,4] clamp(lo, x, hi)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[6] reduce(c, z), dimensions={1}, to_apply=add", ADD)
_case("clamp_of_clamp", "  lo = f32[] parameter(0)\n  x = f32[5] parameter(1)\n  hi = f32[] parameter(2)\n"
      "  c = f32[5] clamp(lo, x, hi)\n  ROOT r = f32[5] clamp(lo, c, hi)")
_case("clamp_of_broadcast", "  lo = f32[] parameter(0)\n  s = f32[] parameter(1)\n  hi = f32[] parameter(2)\n"
      "  x = f32[3,2] broadcast(s), dimensions={}\n  ROOT r = f32[3,2] clamp(lo, x, hi)", inputs=[[-1], [5], [2]])
_case("clamp_in_multi_output_fusion", "  lo = f32[] parameter(0)\n  x = f32[16] parameter(1)\n"
      "  hi = f32[] parameter(2)\n  e1 = f32[16] negate(x)\n  c = f32[16] clamp(lo, e1, hi)\n"
      "  n = f32[16] multiply(c, x)\n  ROOT t = (f32[16], f32[16]) tuple(c, n)")
_case("clamp_wide_loop", "  lo = f32[] parameter(0)\n  x = f32[8,33] parameter(1)\n  hi = f32[] parameter(2)\n"
      "  a = f32[8,33] add(x, x)\n  c = f32[8,33] clamp(lo, a, hi)\n  ROOT m = f32[8,33] multiply(c, a)")
_case("clamp_gemm_epilogue", "  a = f32[8,16] parameter(0)\n  b = f32[16,8] parameter(1)\n  lo = f32[] parameter(2)\n"
      "  hi = f32[] parameter(3)\n  d = f32[8,8] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  ROOT c = f32[8,8] clamp(lo, d, hi)",
      inputs=[[(i % 5) - 2 for i in range(128)], [(i % 3) - 1 for i in range(128)], [-3], [4]])
_case("clamp_then_dynamic_update_slice", "  lo = f32[] parameter(0)\n  x = f32[8] parameter(1)\n"
      "  hi = f32[] parameter(2)\n  u = f32[2] parameter(3)\n  i = s32[] constant(3)\n"
      "  c = f32[8] clamp(lo, x, hi)\n  ROOT r = f32[8] dynamic-update-slice(c, u, i)")


# ------------------------------------------------------------------- 2. zero-sized arrays
# One module per opcode family with a zero dim somewhere (operand, result, reduced or kept
# dim, batch, features, spatial, sort dim, k, fft length, ...). XLA runs them all; it refuses
# all-gather of a zero-sized dim and crashes (SIGFPE) on lapack getrf/potrf of 0x0 and 3x0
# matrices, so those are not here.
MAXF = "mx {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] maximum(a, b)\n}\n"
IADD = "iadd {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\n"
LT = "lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=LT\n}\n"
LT2 = ("lt2 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n"
       "  d = s32[] parameter(3)\n  ROOT r = pred[] compare(a, b), direction=LT\n}\n")
VAR = ("argmax {\n  a = f32[] parameter(0)\n  ai = s32[] parameter(1)\n  b = f32[] parameter(2)\n"
       "  bi = s32[] parameter(3)\n  g = pred[] compare(a, b), direction=GE\n  v = f32[] select(g, a, b)\n"
       "  i = s32[] select(g, ai, bi)\n  ROOT t = (f32[], s32[]) tuple(v, i)\n}\n")
GE = "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n"
SC = ADD.replace("add {", "sadd {")
NO_LLVM.update({"zero_gdsize0", "zero_ragged_dot0", "zero_geqrf30", "zero_geqrf03"})


def _zero(name: str, body: str, comps: str = "") -> None:
    _case(f"zero_{name}", body, comps)


for op in ["negate", "exponential", "abs", "sqrt", "erf", "tanh", "floor", "sign", "is-finite", "cbrt"]:
    out = "pred" if op == "is-finite" else "f32"
    _zero(f"un_{op}", f"  x = f32[0,3] parameter(0)\n  ROOT r = {out}[0,3] {op}(x)")
_zero("un_popcnt", "  x = s32[2,0] parameter(0)\n  ROOT r = s32[2,0] popcnt(x)")
_zero("un_not", "  x = pred[0] parameter(0)\n  ROOT r = pred[0] not(x)")
for op in ["add", "divide", "remainder", "power", "atan2", "maximum", "subtract"]:
    _zero(f"bin_{op}", f"  x = f32[3,0,2] parameter(0)\n  y = f32[3,0,2] parameter(1)\n  ROOT r = f32[3,0,2] {op}(x, y)")
for op in ["divide", "remainder", "shift-left", "shift-right-arithmetic", "and"]:
    _zero(f"ibin_{op}", f"  x = s32[0] parameter(0)\n  y = s32[0] parameter(1)\n  ROOT r = s32[0] {op}(x, y)")
_zero("complex", "  x = f32[0] parameter(0)\n  y = f32[0] parameter(1)\n  ROOT r = c64[0] complex(x, y)")
_zero("real", "  x = c64[0,2] parameter(0)\n  ROOT r = f32[0,2] real(x)")
_zero("cexp", "  x = c64[0,2] parameter(0)\n  ROOT r = c64[0,2] exponential(x)")
_zero("compare", "  x = f32[0,4] parameter(0)\n  y = f32[0,4] parameter(1)\n  ROOT r = pred[0,4] compare(x, y), direction=LT")
_zero("compare_total", "  x = f32[0,4] parameter(0)\n  y = f32[0,4] parameter(1)\n  ROOT r = pred[0,4] compare(x, y), direction=LT, type=TOTALORDER")
_zero("select", "  p = pred[0,4] parameter(0)\n  x = f32[0,4] parameter(1)\n  y = f32[0,4] parameter(2)\n  ROOT r = f32[0,4] select(p, x, y)")
_zero("clamp", "  lo = f32[] parameter(0)\n  x = f32[0,4] parameter(1)\n  hi = f32[] parameter(2)\n  ROOT r = f32[0,4] clamp(lo, x, hi)")
_zero("clamp_full", "  lo = f32[0,4] parameter(0)\n  x = f32[0,4] parameter(1)\n  hi = f32[0,4] parameter(2)\n  ROOT r = f32[0,4] clamp(lo, x, hi)")
_zero("convert", "  x = f32[0,4] parameter(0)\n  ROOT r = s8[0,4] convert(x)")
_zero("convert_bf16", "  x = f32[0,4] parameter(0)\n  ROOT r = bf16[0,4] convert(x)")
_zero("bitcast_convert", "  x = f32[0,4] parameter(0)\n  ROOT r = s32[0,4] bitcast-convert(x)")
_zero("bitcast_convert_narrow", "  x = f32[0] parameter(0)\n  ROOT r = u8[0,4] bitcast-convert(x)")
_zero("bitcast_convert_wide", "  x = u8[0,4] parameter(0)\n  ROOT r = f32[0] bitcast-convert(x)")
_zero("reduce_precision", "  x = f32[0,4] parameter(0)\n  ROOT r = f32[0,4] reduce-precision(x), exponent_bits=5, mantissa_bits=10")
# reductions
_zero("reduce_all", "  x = f32[0,4] parameter(0)\n  z = f32[] constant(1.5)\n  ROOT r = f32[] reduce(x, z), dimensions={0,1}, to_apply=add", ADD)
_zero("reduce_zero_dim", "  x = f32[0,4] parameter(0)\n  z = f32[] constant(1.5)\n  ROOT r = f32[4] reduce(x, z), dimensions={0}, to_apply=add", ADD)
_zero("reduce_keep_zero", "  x = f32[0,4] parameter(0)\n  z = f32[] constant(1.5)\n  ROOT r = f32[0] reduce(x, z), dimensions={1}, to_apply=add", ADD)
_zero("reduce_max", "  x = f32[3,0] parameter(0)\n  z = f32[] constant(-inf)\n  ROOT r = f32[3] reduce(x, z), dimensions={1}, to_apply=mx", MAXF)
_zero("reduce_var", "  x = f32[3,0] parameter(0)\n  i = s32[3,0] parameter(1)\n  z = f32[] constant(-inf)\n  zi = s32[] constant(-1)\n  ROOT r = (f32[3], s32[3]) reduce(x, i, z, zi), dimensions={1}, to_apply=argmax", VAR)
_zero("reduce_var_keep0", "  x = f32[0,5] parameter(0)\n  i = s32[0,5] parameter(1)\n  z = f32[] constant(-inf)\n  zi = s32[] constant(-1)\n  ROOT r = (f32[0], s32[0]) reduce(x, i, z, zi), dimensions={1}, to_apply=argmax", VAR)
_zero("reduce_var_all0", "  x = f32[0,5] parameter(0)\n  i = s32[0,5] parameter(1)\n  z = f32[] constant(-inf)\n  zi = s32[] constant(-1)\n  ROOT r = (f32[5], s32[5]) reduce(x, i, z, zi), dimensions={0}, to_apply=argmax", VAR)
_zero("reduce_window", "  x = f32[0,4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[0,3] reduce-window(x, z), window={size=1x2}, to_apply=add", ADD)
_zero("reduce_window_pad", "  x = f32[0,4] parameter(0)\n  z = f32[] constant(2)\n  ROOT r = f32[2,3] reduce-window(x, z), window={size=1x2 pad=1_1x0_0}, to_apply=add", ADD)
_zero("reduce_window_empty_out", "  x = f32[3,4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[0,3] reduce-window(x, z), window={size=4x2}, to_apply=add", ADD)
_zero("reduce_window_var", "  x = f32[0,4] parameter(0)\n  i = s32[0,4] parameter(1)\n  z = f32[] constant(0)\n  zi = s32[] constant(0)\n  ROOT r = (f32[0,3], s32[0,3]) reduce-window(x, i, z, zi), window={size=1x2}, to_apply=argmax", VAR)
_zero("select_and_scatter", "  x = f32[0,4] parameter(0)\n  s = f32[0,2] parameter(1)\n  z = f32[] constant(0)\n  ROOT r = f32[0,4] select-and-scatter(x, s, z), window={size=1x2 stride=1x2}, select=ge, scatter=add",
  ADD + GE)
# data movement
_zero("broadcast_from0", "  x = f32[0] parameter(0)\n  ROOT r = f32[3,0] broadcast(x), dimensions={1}")
_zero("broadcast_to0", "  x = f32[3] parameter(0)\n  ROOT r = f32[3,0] broadcast(x), dimensions={0}")
_zero("broadcast_scalar0", "  x = f32[] parameter(0)\n  ROOT r = f32[0,2] broadcast(x), dimensions={}")
_zero("transpose", "  x = f32[0,3,2] parameter(0)\n  ROOT r = f32[2,0,3] transpose(x), dimensions={2,0,1}")
_zero("reverse", "  x = f32[0,3] parameter(0)\n  ROOT r = f32[0,3] reverse(x), dimensions={0,1}")
_zero("reshape", "  x = f32[0,3] parameter(0)\n  ROOT r = f32[3,0,5] reshape(x)")
_zero("reshape2", "  x = f32[4,0] parameter(0)\n  ROOT r = f32[0] reshape(x)")
_zero("bitcast", "  x = f32[4,0] parameter(0)\n  ROOT r = f32[0,4] bitcast(x)")
_zero("copy", "  x = f32[4,0] parameter(0)\n  ROOT r = f32[4,0] copy(x)")
_zero("slice_empty", "  x = f32[4,3] parameter(0)\n  ROOT r = f32[0,3] slice(x), slice={[2:2], [0:3]}")
_zero("slice_of_empty", "  x = f32[0,3] parameter(0)\n  ROOT r = f32[0,2] slice(x), slice={[0:0], [1:3]}")
_zero("slice_strided_empty", "  x = f32[4,3] parameter(0)\n  ROOT r = f32[4,0] slice(x), slice={[0:4], [3:3:2]}")
_zero("dynamic_slice0", "  x = f32[4,3] parameter(0)\n  i = s32[] parameter(1)\n  j = s32[] parameter(2)\n  ROOT r = f32[0,3] dynamic-slice(x, i, j), dynamic_slice_sizes={0,3}")
_zero("dynamic_slice_of0", "  x = f32[0,3] parameter(0)\n  i = s32[] parameter(1)\n  j = s32[] parameter(2)\n  ROOT r = f32[0,2] dynamic-slice(x, i, j), dynamic_slice_sizes={0,2}")
_zero("dus0", "  x = f32[4,3] parameter(0)\n  u = f32[0,3] parameter(1)\n  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  ROOT r = f32[4,3] dynamic-update-slice(x, u, i, j)")
_zero("dus_of0", "  x = f32[0,3] parameter(0)\n  u = f32[0,2] parameter(1)\n  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  ROOT r = f32[0,3] dynamic-update-slice(x, u, i, j)")
_zero("concat0", "  x = f32[2,3] parameter(0)\n  y = f32[0,3] parameter(1)\n  z = f32[1,3] parameter(2)\n  ROOT r = f32[3,3] concatenate(x, y, z), dimensions={0}")
_zero("concat_all0", "  x = f32[0,3] parameter(0)\n  y = f32[0,3] parameter(1)\n  ROOT r = f32[0,3] concatenate(x, y), dimensions={0}")
_zero("concat_other0", "  x = f32[2,0] parameter(0)\n  y = f32[3,0] parameter(1)\n  ROOT r = f32[5,0] concatenate(x, y), dimensions={0}")
_zero("pad_of0", "  x = f32[0,3] parameter(0)\n  v = f32[] parameter(1)\n  ROOT r = f32[2,5] pad(x, v), padding=1_1x1_1")
_zero("pad_interior0", "  x = f32[0,3] parameter(0)\n  v = f32[] parameter(1)\n  ROOT r = f32[2,7] pad(x, v), padding=1_1_2x0_0_2")
_zero("pad_to0", "  x = f32[2,3] parameter(0)\n  v = f32[] parameter(1)\n  ROOT r = f32[0,3] pad(x, v), padding=-1_-1x0_0")
_zero("iota0", "  ROOT r = s32[0,4] iota(), iota_dimension=1")
_zero("iota0b", "  ROOT r = f32[3,0] iota(), iota_dimension=0")
_zero("gather_zero_idx", "  x = f32[5,3] parameter(0)\n  i = s32[0,1] parameter(1)\n  ROOT r = f32[0,3] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}")
_zero("gather_zero_slice", "  x = f32[5,3] parameter(0)\n  i = s32[2,1] parameter(1)\n  ROOT r = f32[2,0] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,0}")
_zero("gather_of0", "  x = f32[5,0] parameter(0)\n  i = s32[2,1] parameter(1)\n  ROOT r = f32[2,0] gather(x, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,0}")
_zero("scatter_zero_upd", "  x = f32[5,3] parameter(0)\n  i = s32[0,1] parameter(1)\n  u = f32[0,3] parameter(2)\n  ROOT r = f32[5,3] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=sadd", SC)
_zero("scatter_of0", "  x = f32[5,0] parameter(0)\n  i = s32[2,1] parameter(1)\n  u = f32[2,0] parameter(2)\n  ROOT r = f32[5,0] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=sadd", SC)
_zero("sort1d", "  x = f32[0] parameter(0)\n  ROOT r = f32[0] sort(x), dimensions={0}, to_apply=lt", LT)
_zero("sort2d_sortdim0", "  x = f32[3,0] parameter(0)\n  ROOT r = f32[3,0] sort(x), dimensions={1}, to_apply=lt", LT)
_zero("sort2d_otherdim0", "  x = f32[0,3] parameter(0)\n  ROOT r = f32[0,3] sort(x), dimensions={1}, to_apply=lt", LT)
_zero("sort_var", "  x = f32[2,0] parameter(0)\n  y = s32[2,0] parameter(1)\n  ROOT r = (f32[2,0], s32[2,0]) sort(x, y), dimensions={1}, to_apply=lt2", LT2)
_zero("sort_var_stable", "  x = f32[0,4] parameter(0)\n  y = s32[0,4] parameter(1)\n  ROOT r = (f32[0,4], s32[0,4]) sort(x, y), dimensions={1}, is_stable=true, to_apply=lt2", LT2)
_zero("topk0", "  x = f32[0,5] parameter(0)\n  ROOT r = (f32[0,2], s32[0,2]) topk(x), k=2, largest=true")
_zero("topk_k0", "  x = f32[3,5] parameter(0)\n  ROOT r = (f32[3,0], s32[3,0]) topk(x), k=0, largest=true")
# linalg
_zero("dot_k0", "  x = f32[3,0] parameter(0)\n  y = f32[0,4] parameter(1)\n  ROOT r = f32[3,4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}")
_zero("dot_m0", "  x = f32[0,5] parameter(0)\n  y = f32[5,4] parameter(1)\n  ROOT r = f32[0,4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}")
_zero("dot_batch0", "  x = f32[0,2,5] parameter(0)\n  y = f32[0,5,4] parameter(1)\n  ROOT r = f32[0,2,4] dot(x, y), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}")
_zero("dot_k0_int", "  x = s32[3,0] parameter(0)\n  y = s32[0,4] parameter(1)\n  ROOT r = s32[3,4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}")
_zero("dot_vec0", "  x = f32[0] parameter(0)\n  y = f32[0] parameter(1)\n  ROOT r = f32[] dot(x, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}")
_zero("dot_k0_c64", "  x = c64[3,0] parameter(0)\n  y = c64[0,4] parameter(1)\n  ROOT r = c64[3,4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}")
_zero("conv_batch0", "  x = f32[0,5,5,2] parameter(0)\n  k = f32[3,3,2,4] parameter(1)\n  ROOT r = f32[0,3,3,4] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f")
_zero("conv_infeat0", "  x = f32[1,5,5,0] parameter(0)\n  k = f32[3,3,0,4] parameter(1)\n  ROOT r = f32[1,3,3,4] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f")
_zero("conv_outfeat0", "  x = f32[1,5,5,2] parameter(0)\n  k = f32[3,3,2,0] parameter(1)\n  ROOT r = f32[1,3,3,0] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f")
_zero("conv_spatial0", "  x = f32[1,0,5,2] parameter(0)\n  k = f32[1,3,2,4] parameter(1)\n  ROOT r = f32[1,0,3,4] convolution(x, k), window={size=1x3}, dim_labels=b01f_01io->b01f")
_zero("conv_spatial_pad", "  x = f32[1,0,5,2] parameter(0)\n  k = f32[1,3,2,4] parameter(1)\n  ROOT r = f32[1,2,3,4] convolution(x, k), window={size=1x3 pad=1_1x0_0}, dim_labels=b01f_01io->b01f")
_zero("conv_out_spatial0", "  x = f32[1,2,5,2] parameter(0)\n  k = f32[3,3,2,4] parameter(1)\n  ROOT r = f32[1,0,3,4] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f")
_zero("conv_grouped0", "  x = f32[1,5,0] parameter(0)\n  k = f32[3,0,4] parameter(1)\n  ROOT r = f32[1,3,4] convolution(x, k), window={size=3}, dim_labels=b0f_0io->b0f, feature_group_count=2")
_zero("conv_1d_batch0", "  x = f32[0,2,8] parameter(0)\n  k = f32[3,2,3] parameter(1)\n  ROOT r = f32[0,3,6] convolution(x, k), window={size=3}, dim_labels=bf0_oi0->bf0")
_zero("fft0", "  x = c64[0,4] parameter(0)\n  ROOT r = c64[0,4] fft(x), fft_type=FFT, fft_length={4}")
_zero("fft_len0", "  x = c64[3,0] parameter(0)\n  ROOT r = c64[3,0] fft(x), fft_type=FFT, fft_length={0}")
_zero("rfft0", "  x = f32[0,8] parameter(0)\n  ROOT r = c64[0,5] fft(x), fft_type=RFFT, fft_length={8}")
_zero("cholesky0", "  x = f32[0,3,3] parameter(0)\n  ROOT r = f32[0,3,3] cholesky(x), lower=true")
_zero("cholesky00", "  x = f32[0,0] parameter(0)\n  ROOT r = f32[0,0] cholesky(x), lower=true")
_zero("trsv0", "  a = f32[3,3] parameter(0)\n  b = f32[3,0] parameter(1)\n  ROOT r = f32[3,0] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE")
_zero("trsv00", "  a = f32[0,0] parameter(0)\n  b = f32[0,4] parameter(1)\n  ROOT r = f32[0,4] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE")
_zero("bn_inf0", "  x = f32[0,3] parameter(0)\n  s = f32[3] parameter(1)\n  o = f32[3] parameter(2)\n  mu = f32[3] parameter(3)\n  v = f32[3] parameter(4)\n  ROOT r = f32[0,3] batch-norm-inference(x, s, o, mu, v), epsilon=0.001, feature_index=1")
_zero("bn_train_feat0", "  x = f32[2,0] parameter(0)\n  s = f32[0] parameter(1)\n  o = f32[0] parameter(2)\n  ROOT r = (f32[2,0], f32[0], f32[0]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1")
_zero("bn_train_batch0", "  x = f32[0,3] parameter(0)\n  s = f32[3] parameter(1)\n  o = f32[3] parameter(2)\n  ROOT r = (f32[0,3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1")
# control
_zero("map0", "  x = f32[0,3] parameter(0)\n  y = f32[0,3] parameter(1)\n  ROOT r = f32[0,3] map(x, y), dimensions={0,1}, to_apply=add", ADD)
_zero("while0", "  x = f32[0,3] parameter(0)\n  c = s32[] constant(0)\n  t = (s32[], f32[0,3]) tuple(c, x)\n  w = (s32[], f32[0,3]) while(t), condition=cond, body=body\n  ROOT r = f32[0,3] get-tuple-element(w), index=1",
  """cond {
  p = (s32[], f32[0,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[0,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[0,3] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[0,3] negate(x)
  ROOT t = (s32[], f32[0,3]) tuple(j, y)
}
""")
_zero("cond0", "  p = pred[] parameter(0)\n  x = f32[0,3] parameter(1)\n  ROOT r = f32[0,3] conditional(p, x, x), true_computation=t, false_computation=f",
  """t {
  a = f32[0,3] parameter(0)
  ROOT n = f32[0,3] negate(a)
}
f {
  a = f32[0,3] parameter(0)
  ROOT n = f32[0,3] abs(a)
}
""")
_zero("call0", "  x = f32[0,3] parameter(0)\n  ROOT r = f32[0,3] call(x), to_apply=c", "c {\n  a = f32[0,3] parameter(0)\n  ROOT n = f32[0,3] negate(a)\n}\n")
_zero("rbg0", "  s = u64[2] parameter(0)\n  ROOT r = (u64[2], u32[0,4]) rng-bit-generator(s), algorithm=rng_default")
_zero("all_reduce0", "  x = f32[0,3] parameter(0)\n  ROOT r = f32[0,3] all-reduce(x), replica_groups={}, to_apply=add", ADD)
_zero("constant0", "  ROOT r = f32[0,3] constant({})")
_zero("tuple0", "  x = f32[0] parameter(0)\n  y = s32[2,0] parameter(1)\n  ROOT r = (f32[0], s32[2,0]) tuple(x, y)")
_zero("gdsize0", "  x = f32[0,3] parameter(0)\n  ROOT r = s32[] get-dimension-size(x), dimensions={0}")
_zero("cumsum_rw", "  x = f32[0] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[0] reduce-window(x, z), window={size=4 pad=3_0}, to_apply=add", ADD)
_zero("big_chain", "  x = f32[0,3] parameter(0)\n  y = f32[3,4] parameter(1)\n  d = f32[0,4] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n  e = f32[0,4] exponential(d)\n  z = f32[] constant(0)\n  s = f32[4] reduce(e, z), dimensions={0}, to_apply=add\n  ROOT t = (f32[0,4], f32[4]) tuple(e, s)", ADD)
_zero("sort_multi_out_fused", "  x = f32[0,3] parameter(0)\n  n = f32[0,3] negate(x)\n  s = f32[0,3] sort(n), dimensions={0}, to_apply=lt\n  ROOT r = f32[0,3] add(s, n)", LT)
_zero("cf_negate", "  c = f32[0,3] constant({})\n  ROOT r = f32[0,3] negate(c)")
_zero("cf_reduce", "  c = f32[0,3] constant({})\n  z = f32[] constant(2)\n  ROOT r = f32[3] reduce(c, z), dimensions={0}, to_apply=add", ADD)
_zero("cf_sort", "  c = f32[2,0] constant({ {}, {} })\n  ROOT r = f32[2,0] sort(c), dimensions={1}, to_apply=lt", LT)
_zero("cf_concat", "  c = f32[0,3] constant({})\n  p = f32[2,3] parameter(0)\n  ROOT r = f32[2,3] concatenate(c, p), dimensions={0}")
_zero("cf_dot", "  c = f32[2,0] constant({ {}, {} })\n  d = f32[0,3] constant({})\n  ROOT r = f32[2,3] dot(c, d), lhs_contracting_dims={1}, rhs_contracting_dims={0}")
_zero("cf_conv", "  c = f32[0,4,2] constant({})\n  k = f32[3,2,2] constant({ { {1,2},{3,4} }, { {1,2},{3,4} }, { {1,2},{3,4} } })\n  ROOT r = f32[0,2,2] convolution(c, k), window={size=3}, dim_labels=b0f_0io->b0f")
_zero("cf_pad", "  c = f32[0] constant({})\n  v = f32[] constant(7)\n  ROOT r = f32[3] pad(c, v), padding=1_2")
_zero("cf_broadcast", "  c = f32[0] constant({})\n  ROOT r = f32[2,0] broadcast(c), dimensions={1}")
_zero("cf_reduce_var", "  c = f32[3,0] constant({ {}, {}, {} })\n  ci = s32[3,0] constant({ {}, {}, {} })\n  z = f32[] constant(-inf)\n  zi = s32[] constant(-1)\n  ROOT r = (f32[3], s32[3]) reduce(c, ci, z, zi), dimensions={1}, to_apply=am",
  "am {\n  a = f32[] parameter(0)\n  ai = s32[] parameter(1)\n  b = f32[] parameter(2)\n  bi = s32[] parameter(3)\n  g = pred[] compare(a, b), direction=GE\n  v = f32[] select(g, a, b)\n  i = s32[] select(g, ai, bi)\n  ROOT t = (f32[], s32[]) tuple(v, i)\n}\n")
_zero("potrf_b0", "  x = f32[0,3,3] parameter(0)\n  ROOT r = (f32[0,3,3], s32[0]) custom-call(x), custom_call_target=\"lapack_spotrf_ffi\", operand_layout_constraints={f32[0,3,3]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}")
_zero("trsm_b0", "  a = f32[4,4] parameter(0)\n  b = f32[4,0] parameter(1)\n  ROOT r = f32[4,0] custom-call(a, b), custom_call_target=\"lapack_strsm_ffi\", operand_layout_constraints={f32[4,4]{0,1}, f32[4,0]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}")
_zero("geqrf30", "  x = f32[3,0] parameter(0)\n  ROOT r = (f32[3,0], f32[0]) custom-call(x), custom_call_target=\"lapack_sgeqrf_ffi\", operand_layout_constraints={f32[3,0]{0,1}}, api_version=API_VERSION_TYPED_FFI")
_zero("geqrf03", "  x = f32[0,3] parameter(0)\n  ROOT r = (f32[0,3], f32[0]) custom-call(x), custom_call_target=\"lapack_sgeqrf_ffi\", operand_layout_constraints={f32[0,3]{0,1}}, api_version=API_VERSION_TYPED_FFI")
_zero("trsv_right0", "  a = f32[3,3] parameter(0)\n  b = f32[0,3] parameter(1)\n  ROOT r = f32[0,3] triangular-solve(a, b), left_side=false, lower=true, transpose_a=TRANSPOSE")
_zero("trsv_batch0", "  a = f32[0,3,3] parameter(0)\n  b = f32[0,3,2] parameter(1)\n  ROOT r = f32[0,3,2] triangular-solve(a, b), left_side=true, lower=false, transpose_a=NO_TRANSPOSE, unit_diagonal=true")
_zero("sort3d_mid0", "  x = f32[2,0,3] parameter(0)\n  ROOT r = f32[2,0,3] sort(x), dimensions={2}, to_apply=lt", LT)
_zero("sort3d_mid0_sortdim", "  x = f32[2,0,3] parameter(0)\n  ROOT r = f32[2,0,3] sort(x), dimensions={1}, to_apply=lt", LT)
_zero("sort_nonsimple0", "  x = f32[0,3] parameter(0)\n  ROOT r = f32[0,3] sort(x), dimensions={1}, to_apply=cmp",
  "cmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  aa = f32[] abs(a)\n  bb = f32[] abs(b)\n  ROOT c = pred[] compare(aa, bb), direction=LT\n}\n")
_zero("sort_nonsimple_dim0", "  x = f32[3,0] parameter(0)\n  ROOT r = f32[3,0] sort(x), dimensions={1}, to_apply=cmp",
  "cmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  aa = f32[] abs(a)\n  bb = f32[] abs(b)\n  ROOT c = pred[] compare(aa, bb), direction=LT\n}\n")
_zero("sort_int_keyed", "  x = s32[3,0] parameter(0)\n  y = f32[3,0] parameter(1)\n  ROOT r = (s32[3,0], f32[3,0]) sort(x, y), dimensions={1}, to_apply=cmp",
  "cmp {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  c = f32[] parameter(2)\n  d = f32[] parameter(3)\n  ROOT r = pred[] compare(a, b), direction=GT\n}\n")
_zero("reduce_int0", "  x = s32[0,3] parameter(0)\n  z = s32[] constant(5)\n  ROOT r = s32[3] reduce(x, z), dimensions={0}, to_apply=iadd", IADD)
_zero("reduce_bf16_0", "  x = bf16[4,0] parameter(0)\n  z = bf16[] constant(1)\n  ROOT r = bf16[4] reduce(x, z), dimensions={1}, to_apply=badd", "badd {\n  a = bf16[] parameter(0)\n  b = bf16[] parameter(1)\n  ROOT s = bf16[] add(a, b)\n}\n")
_zero("reduce_nonsimple0", "  x = f32[4,0] parameter(0)\n  z = f32[] constant(1)\n  ROOT r = f32[4] reduce(x, z), dimensions={1}, to_apply=f", "f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] multiply(a, b)\n  ROOT s = f32[] add(c, b)\n}\n")
_zero("reduce_nonsimple_keep0", "  x = f32[0,4] parameter(0)\n  z = f32[] constant(1)\n  ROOT r = f32[0] reduce(x, z), dimensions={1}, to_apply=f", "f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] multiply(a, b)\n  ROOT s = f32[] add(c, b)\n}\n")
_zero("rw_nonsimple0", "  x = f32[0,4] parameter(0)\n  z = f32[] constant(1)\n  ROOT r = f32[0,2] reduce-window(x, z), window={size=1x3}, to_apply=f", "f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] multiply(a, b)\n  ROOT s = f32[] add(c, b)\n}\n")
_zero("rw_nonsimple_pad0", "  x = f32[0,4] parameter(0)\n  z = f32[] constant(1)\n  ROOT r = f32[3,2] reduce-window(x, z), window={size=1x3 pad=2_1x0_0}, to_apply=f", "f {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = f32[] multiply(a, b)\n  ROOT s = f32[] add(c, b)\n}\n")
_zero("rw_base_dil0", "  x = f32[0,4] parameter(0)\n  z = f32[] constant(0)\n  ROOT r = f32[1,4] reduce-window(x, z), window={size=1x1 pad=1_0x0_0 lhs_dilate=2x1}, to_apply=add", ADD)
_zero("sas_zero_src", "  x = f32[4,0] parameter(0)\n  s = f32[2,0] parameter(1)\n  z = f32[] constant(3)\n  ROOT r = f32[4,0] select-and-scatter(x, s, z), window={size=2x1 stride=2x1}, select=ge, scatter=add",
  ADD + "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n")
_zero("sas_padded_empty_windows", "  x = f32[2] parameter(0)\n  s = f32[0] parameter(1)\n  z = f32[] constant(3)\n  ROOT r = f32[2] select-and-scatter(x, s, z), window={size=3 stride=1}, select=ge, scatter=add",
  ADD + "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n")
_zero("map_int0", "  x = s32[0] parameter(0)\n  y = s32[0] parameter(1)\n  ROOT r = s32[0] map(x, y), dimensions={0}, to_apply=iadd", IADD)
_zero("convert_f8", "  x = f32[0,2] parameter(0)\n  ROOT r = f8e4m3fn[0,2] convert(x)")
_zero("dot_bf16_0", "  x = bf16[3,0] parameter(0)\n  y = bf16[0,2] parameter(1)\n  ROOT r = f32[3,2] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}")
_zero("dot_s8_0", "  x = s8[3,0] parameter(0)\n  y = s8[0,2] parameter(1)\n  ROOT r = s32[3,2] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}")
_zero("conv_lhs_dil0", "  x = f32[1,0,2] parameter(0)\n  k = f32[2,2,3] parameter(1)\n  ROOT r = f32[1,3,3] convolution(x, k), window={size=2 pad=2_2 lhs_dilate=2}, dim_labels=b0f_0io->b0f")
_zero("conv_batch_group0", "  x = f32[0,5,2] parameter(0)\n  k = f32[3,2,4] parameter(1)\n  ROOT r = f32[0,3,4] convolution(x, k), window={size=3}, dim_labels=b0f_0io->b0f, batch_group_count=2")
_zero("conv_kernel_reversal0", "  x = f32[0,5,2] parameter(0)\n  k = f32[3,2,4] parameter(1)\n  ROOT r = f32[0,3,4] convolution(x, k), window={size=3 rhs_reversal=1}, dim_labels=b0f_0io->b0f")
_zero("conv_2d_c0_int", "  x = s32[1,4,4,0] parameter(0)\n  k = s32[2,2,0,3] parameter(1)\n  ROOT r = s32[1,3,3,3] convolution(x, k), window={size=2x2}, dim_labels=b01f_01io->b01f")
_zero("conv_f16_batch0", "  x = f16[0,4,2] parameter(0)\n  k = f16[2,2,3] parameter(1)\n  ROOT r = f16[0,3,3] convolution(x, k), window={size=2}, dim_labels=b0f_0io->b0f")
_zero("scatter_window0", "  x = f32[4,0] parameter(0)\n  i = s32[2,1] parameter(1)\n  u = f32[2,0] parameter(2)\n  ROOT r = f32[4,0] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add", ADD)
_zero("scatter_var0", "  x = f32[4] parameter(0)\n  y = s32[4] parameter(1)\n  i = s32[0,1] parameter(2)\n  u = f32[0] parameter(3)\n  v = s32[0] parameter(4)\n  ROOT r = (f32[4], s32[4]) scatter(x, y, i, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=f",
  "f {\n  a = f32[] parameter(0)\n  b = s32[] parameter(1)\n  c = f32[] parameter(2)\n  d = s32[] parameter(3)\n  s = f32[] add(a, c)\n  t = s32[] add(b, d)\n  ROOT r = (f32[], s32[]) tuple(s, t)\n}\n")
_zero("ragged_dot0", "  x = f32[0,4] parameter(0)\n  y = f32[2,4,3] parameter(1)\n  g = s32[2] constant({0, 0})\n  ROOT r = f32[0,3] ragged-dot(x, y, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}")
_zero("reduce_scatter0", "  x = f32[0,4] parameter(0)\n  ROOT r = f32[0,4] reduce-scatter(x), dimensions={1}, replica_groups={}, to_apply=add", ADD)
_zero("cperm0", "  x = f32[0,4] parameter(0)\n  ROOT r = f32[0,4] collective-permute(x), source_target_pairs={{0,0}}")
_zero("while_trip0", "  x = f32[0,3] parameter(0)\n  c = s32[] constant(5)\n  t = (s32[], f32[0,3]) tuple(c, x)\n  w = (s32[], f32[0,3]) while(t), condition=cond, body=body\n  ROOT r = s32[] get-tuple-element(w), index=0",
  "cond {\n  p = (s32[], f32[0,3]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  n = s32[] constant(3)\n  ROOT c = pred[] compare(i, n), direction=LT\n}\nbody {\n  p = (s32[], f32[0,3]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n  x = f32[0,3] get-tuple-element(p), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  ROOT t = (s32[], f32[0,3]) tuple(j, x)\n}\n")
_zero("dyn_slice_idx_oob0", "  x = f32[0,3] parameter(0)\n  i = s32[] constant(5)\n  j = s32[] constant(-4)\n  ROOT r = f32[0,1] dynamic-slice(x, i, j), dynamic_slice_sizes={0,1}")
_zero("iota_reshape0", "  i = s32[0] iota(), iota_dimension=0\n  ROOT r = s32[0,5] reshape(i)")
_zero("fused_reduce_of0", "  x = f32[0,4] parameter(0)\n  e = f32[0,4] exponential(x)\n  z = f32[] constant(0)\n  s = f32[4] reduce(e, z), dimensions={0}, to_apply=add\n  ROOT r = f32[4] sqrt(s)", ADD)
_zero("slice_reverse0", "  x = f32[5,2] parameter(0)\n  s = f32[0,2] slice(x), slice={[3:3], [0:2]}\n  ROOT r = f32[0,2] reverse(s), dimensions={0}")
_zero("transpose_dot0", "  x = f32[4,0] parameter(0)\n  t = f32[0,4] transpose(x), dimensions={1,0}\n  y = f32[4,2] parameter(1)\n  ROOT r = f32[0,2] dot(t, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}")
_zero("bn_grad0", "  x = f32[0,3] parameter(0)\n  s = f32[3] parameter(1)\n  mu = f32[3] parameter(2)\n  v = f32[3] parameter(3)\n  g = f32[0,3] parameter(4)\n  ROOT r = (f32[0,3], f32[3], f32[3]) batch-norm-grad(x, s, mu, v, g), epsilon=0.001, feature_index=1")
_zero("rbg_philox0", "  s = u64[3] parameter(0)\n  ROOT r = (u64[3], u32[0]) rng-bit-generator(s), algorithm=rng_philox")
_zero("clz0", "  x = u8[0] parameter(0)\n  ROOT r = u8[0] count-leading-zeros(x)")

for op in ["acos", "acosh", "asin", "asinh", "atanh", "ceil", "cosh", "cosine", "exponential-minus-one", "log",
           "log-plus-one", "logistic", "round-nearest-afz", "round-nearest-even", "rsqrt", "sine", "sinh", "tan"]:
    _zero(f"un2_{op}", f"  x = f32[2,0] parameter(0)\n  ROOT r = f32[2,0] {op}(x)")
_zero("imag", "  x = c64[0,3] parameter(0)\n  ROOT r = f32[0,3] imag(x)")
for op in ["minimum", "or", "xor", "shift-right-logical"]:
    t = "f32" if op == "minimum" else "u32"
    _zero(f"bin2_{op}", f"  x = {t}[0,2] parameter(0)\n  y = {t}[0,2] parameter(1)\n  ROOT r = {t}[0,2] {op}(x, y)")
_zero("opt_barrier", "  x = f32[0,2] parameter(0)\n  y = s32[3] parameter(1)\n  t = (f32[0,2], s32[3]) tuple(x, y)\n  o = (f32[0,2], s32[3]) opt-barrier(t)\n  ROOT r = f32[0,2] get-tuple-element(o), index=0")
_zero("copy_start", "  x = f32[0,3] parameter(0)\n  s = (f32[0,3], f32[0,3], u32[]) copy-start(x)\n  ROOT d = f32[0,3] copy-done(s)")
_zero("all_gather_other0", "  x = f32[2,0] parameter(0)\n  ROOT r = f32[2,0] all-gather(x), dimensions={0}, replica_groups={}")
_zero("stochastic_convert", "  x = f32[0,3] parameter(0)\n  u = u32[0,3] parameter(1)\n  ROOT r = s8[0,3] stochastic-convert(x, u)")
_zero("domain0", "  x = f32[0,3] parameter(0)\n  ROOT r = f32[0,3] domain(x), domain={kind=\"sharding\", entry={maximal device=0}, exit={maximal device=0}}")

# Opcodes the sweep leaves out, and why (test_zero_sweep_covers_every_opcode keeps this honest).
_ASYNC = "async form: xla_ref's HLO->StableHLO import refuses it; the sync form is swept"
ZERO_EXCLUDED = {
    "add-dependency": "token plumbing", "after-all": "token plumbing",
    "all-gather-start": _ASYNC, "all-gather-done": _ASYNC, "all-reduce-start": _ASYNC, "all-reduce-done": _ASYNC,
    "collective-permute-start": _ASYNC, "collective-permute-done": _ASYNC, "async-start": _ASYNC,
    "async-update": _ASYNC, "async-done": _ASYNC,
    "all-to-all": "XLA refuses the array form without replica groups and crashes (SIGSEGV) on the tuple form",
    "collective-broadcast": "XLA CPU does not implement it",
    "dynamic-reshape": "the interpreter does not run dynamic shapes",
    "set-dimension-size": "the interpreter does not run dynamic shapes",
    "fusion": "XLA's verifier rejects the module xla_ref imports for a zero-sized fusion",
    "infeed": "host transfer", "outfeed": "host transfer", "send": "host transfer", "send-done": "host transfer",
    "recv": "host transfer", "recv-done": "host transfer",
    "mulhi": "xla_ref's HLO->StableHLO import has no mapping for it",
    "scaled-dot": "xla_ref's HLO->StableHLO import has no mapping for it",
    "partition-id": "a scalar result", "replica-id": "a scalar result", "rng-get-and-update-state": "a u64[2] result",
    "rng": "the interpreter refuses rng (XLA's values are not reproducible)",
    "ragged-all-to-all": "the interpreter does not model it",
    "scan": "XLA's verifier rejects a zero-length scan (it slices one element per step)",
}


# ----------------------------------------------------------------------------------- 3. erf
# XLA CPU's erf: f32 (f16/bf16 via f32) is Eigen's rational interpolant with fused multiply-
# adds, f64 calls glibc's erf (fdlibm's, whose tail calls glibc's FMA exp). Inputs cover every
# range boundary of both (0.84375, 1.25, 1/0.35, 6, erf's +-1 from 3.8325 in f32), ties of the
# high-word tests, tiny values, +-0, +-inf and NaN; subnormal inputs are left out (XLA CPU
# flushes them, a separate matter).
def _erf_inputs(n: int) -> list[float]:
    edges = [0.0, -0.0, 1e-300, -3e-9, 2.0 ** -28, 3.7e-9, 0.5, 0.84375, -0.84375, 0.8437499999999999, 1.0,
             1.25, -1.2499999999999998, 2.857142857142857, 2.8571428571428577, 3.832506856900711, 3.9, 5.999999,
             6.0, -6.0, 27.9, 28.0, math.inf, -math.inf, math.nan]
    ramp = [((i * 7919) % 1000 - 500) / 71.0 for i in range(n - len(edges))]
    return edges + ramp


for _t, _n in (("f64", 160), ("f32", 160), ("f16", 64), ("bf16", 64)):
    _case(f"erf_{_t}", f"  x = {_t}[{_n}] parameter(0)\n  ROOT r = {_t}[{_n}] erf(x)", inputs=[_erf_inputs(_n)])
_case("erf_gelu_f32", "  x = f32[8,24] parameter(0)\n  h = f32[] constant(0.5)\n  hb = f32[8,24] broadcast(h), dimensions={}\n"
      "  s = f32[] constant(0.70710678)\n  sb = f32[8,24] broadcast(s), dimensions={}\n  xs = f32[8,24] multiply(x, sb)\n"
      "  e = f32[8,24] erf(xs)\n  one = f32[] constant(1)\n  ob = f32[8,24] broadcast(one), dimensions={}\n"
      "  a = f32[8,24] add(e, ob)\n  m = f32[8,24] multiply(x, a)\n  ROOT r = f32[8,24] multiply(m, hb)",
      inputs=[[((i * 37) % 97 - 48) / 9.0 for i in range(192)]])
_case("erf_of_map_f64", "  x = f64[40] parameter(0)\n  ROOT r = f64[40] map(x), dimensions={0}, to_apply=f",
      "f {\n  a = f64[] parameter(0)\n  e = f64[] erf(a)\n  ROOT n = f64[] negate(e)\n}\n", inputs=[_erf_inputs(40)])


# -------------------------------------------------- 4. integer maps at INT_MIN / INT_MAX
# XLA's integer rules (ElementalIrEmitter): x / 0 = -1 (unsigned: all ones), x % 0 = x,
# INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0; shifts by >= the width give 0 (arithmetic right:
# the sign); abs(INT_MIN) = INT_MIN. Integer power (EmitIntegerPow) squares six times: only
# the exponent's low 6 bits count, and an exponent whose top bit is set (unsigned too) gives
# 1 for base 1, +-1 for base -1 (all ones) by parity, 0 otherwise. (XLA's constant folder
# uses the whole exponent instead: power(2, 64) of constants folds to 0, at run time it is 1.)
_INT_TYPES = {"s8": np.int8, "s32": np.int32, "s64": np.int64, "u8": np.uint8, "u32": np.uint32, "u64": np.uint64}
_INT_BINARY = ("divide", "remainder", "shift-left", "shift-right-arithmetic", "shift-right-logical",
               "multiply", "add", "subtract", "power")
_INT_UNARY = ("abs", "negate", "sign", "popcnt", "count-leading-zeros", "not")
# The LLVM backend's integer power (emit_arith._int_pow) still uses every exponent bit.
LLVM_XFAIL: dict[str, str] = {}


def _extremes(dt: type) -> list[int]:
    info = np.iinfo(dt)
    bits = info.bits
    vals = {info.min, info.min + 1, -1, 0, 1, 2, 3, -2, 7, 64, 65, 127, info.max, info.max - 1,
            bits - 1, bits, bits + 1, -bits}
    return sorted(v for v in vals if info.min <= v <= info.max)


def _int_maps(t: str, ops: tuple[str, ...], arity: int) -> None:
    """One module: a map per op over every pair (arity 2) or value of the extremes."""
    vals = _extremes(_INT_TYPES[t])
    xs = [a for a in vals for _ in vals] if arity == 2 else vals
    ys = [b for _ in vals for b in vals]
    n = len(xs)
    comps, body, roots = "", [f"  x = {t}[{n}] parameter(0)"], []
    if arity == 2:
        body.append(f"  y = {t}[{n}] parameter(1)")
    for k, op in enumerate(ops):
        params = "".join(f"  p{i} = {t}[] parameter({i})\n" for i in range(arity))
        args = ", ".join(f"p{i}" for i in range(arity))
        comps += f"f{k} {{\n{params}  ROOT r = {t}[] {op}({args})\n}}\n"
        body.append(f"  m{k} = {t}[{n}] map({'x, y' if arity == 2 else 'x'}), dimensions={{0}}, to_apply=f{k}")
        roots.append(f"m{k}")
    body.append(f"  ROOT t = ({', '.join([f'{t}[{n}]'] * len(ops))}) tuple({', '.join(roots)})")
    _case(f"int_map_{'binary' if arity == 2 else 'unary'}_{t}", "\n".join(body), comps,
          inputs=[xs, ys] if arity == 2 else [xs])


for _t in _INT_TYPES:
    _int_maps(_t, _INT_BINARY, 2)
    _int_maps(_t, _INT_UNARY if _t[0] == "s" else tuple(o for o in _INT_UNARY if o not in ("abs", "sign")), 1)
for _t, _dt in (("s16", np.int16), ("u16", np.uint16)):
    _v = _extremes(_dt)
    _case(f"int_power_{_t}", f"  x = {_t}[{len(_v) ** 2}] parameter(0)\n  y = {_t}[{len(_v) ** 2}] parameter(1)\n"
          f"  ROOT r = {_t}[{len(_v) ** 2}] power(x, y)", inputs=[[a for a in _v for _ in _v], [b for _ in _v for b in _v]])
_v = [-2147483648, -2147483647, -1, 0, 1, 2, -2, 2147483647]
_case("int_map_chain_s32", "  x = s32[64] parameter(0)\n  y = s32[64] parameter(1)\n"
      "  ROOT r = s32[64] map(x, y), dimensions={0}, to_apply=f",
      "f {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  q = s32[] divide(a, b)\n"
      "  r = s32[] remainder(a, b)\n  m = s32[] multiply(q, b)\n  s = s32[] add(m, r)\n  c = s32[] constant(31)\n"
      "  sh = s32[] shift-left(s, c)\n  ab = s32[] abs(q)\n  n = s32[] negate(ab)\n  t1 = s32[] xor(sh, n)\n"
      "  ROOT o = s32[] subtract(t1, a)\n}\n", inputs=[[a for a in _v for _ in _v], [b for _ in _v for b in _v]])


# ------------------------------------------------------------------- recorded XLA outputs
# Written by running every case through xla_ref (jaxlib 0.10's XLA CPU) on _inputs' values.
XLA_OUTPUTS: dict[str, list[Leaf]] = {
    "clamp_between_reshapes": [("f32", (12,), [-0.75, -0.375, 0.0, 0.375, 0.375, 0.375, 0.375, 0.375, -1.875, -1.5, -1.125, -0.75])],
    "clamp_between_transposes": [("f32", (4, 3), [-0.75, -0.375, 0.0, 0.375, 0.375, 0.375, 0.375, 0.375, -1.875, -1.5, -1.125, -0.75])],
    "clamp_constant_bounds": [("f32", (3, 4), [-0.5, -0.5, -0.5, -0.5, -0.375, 0.0, 0.375, 0.5, 0.5, 0.5, 0.5, -0.5])],
    "clamp_folded": [("s32", (2, 3), [-2, 0, 2, 1, -2, 2])],
    "clamp_full_lo_scalar_hi": [("s32", (3, 4), [-3, -2, -1, 0, -1, 0, 1, 2, 2, 2, 2, 2])],
    "clamp_gemm_epilogue": [("f32", (8, 8), "0000004000000000000000c00000004000000000000000c000000040000000000000803f00000000000080bf0000803f00000000000080bf0000803f000000000000000000000000000000000000000000000000000000000000000000000000000080bf000000000000803f000080bf000000000000803f000080bf00000000000000c00000000000000040000000c00000000000000040000000c0000000000000004000000000000000c00000004000000000000000c000000040000000000000803f00000000000080bf0000803f00000000000080bf0000803f000000000000000000000000000000000000000000000000000000000000000000000000")],
    "clamp_in_multi_output_fusion": [
        ("f32", (16,), [0.375, 0.375, -0.0, -0.375, -0.75, -1.125, -1.5, -1.875, 0.375, 0.375, 0.375, 0.375, 0.375, -0.0, -0.375, -0.75]),
        ("f32", (16,), [-0.28125, -0.140625, -0.0, -0.140625, -0.5625, -1.265625, -2.25, -3.515625, -0.703125, -0.5625, -0.421875, -0.28125, -0.140625, -0.0, -0.140625, -0.5625]),
    ],
    "clamp_inverted_bounds": [("f32", (4,), [-1.0, -1.0, -1.0, -1.0])],
    "clamp_nan_bound": [("f32", (4,), [NAN, NAN, NAN, NAN])],
    "clamp_of_broadcast": [("f32", (3, 2), [2.0, 2.0, 2.0, 2.0, 2.0, 2.0])],
    "clamp_of_clamp": [("f32", (5,), [-0.75, -0.375, 0.0, 0.375, 0.375])],
    "clamp_pred": [("pred", (4,), [True, False, True, False])],
    "clamp_scalar_bounds_bf16": [("bf16", (3, 4), [-1.25, -1.25, -1.25, -1.125, -0.75, -0.375, 0.0, 0.375, 0.75, 1.125, 1.5, 1.5])],
    "clamp_scalar_bounds_f16": [("f16", (3, 4), [-1.25, -1.25, -1.25, -1.125, -0.75, -0.375, 0.0, 0.375, 0.75, 1.125, 1.5, 1.5])],
    "clamp_scalar_bounds_f32": [("f32", (3, 4), [-1.25, -1.25, -1.25, -1.125, -0.75, -0.375, 0.0, 0.375, 0.75, 1.125, 1.5, 1.5])],
    "clamp_scalar_bounds_f64": [("f64", (3, 4), [-1.25, -1.25, -1.25, -1.125, -0.75, -0.375, 0.0, 0.375, 0.75, 1.125, 1.5, 1.5])],
    "clamp_scalar_bounds_s32": [("s32", (3, 4), [-2, -2, -2, -2, -2, -1, 0, 1, 2, 3, 3, 3])],
    "clamp_scalar_bounds_s64": [("s64", (3, 4), [-2, -2, -2, -2, -2, -1, 0, 1, 2, 3, 3, 3])],
    "clamp_scalar_bounds_u8": [("u8", (3, 4), [3, 3, 3, 3, 4, 5, 6, 7, 8, 8, 8, 8])],
    "clamp_scalar_everything": [("f32", (), [2.0])],
    "clamp_scalar_lo_full_hi": [("f32", (3, 4), [-0.5, -0.5, -0.5, -0.5, -0.5, -0.25, -0.25, 0.25, 0.5, -0.25, 0.25, 0.75])],
    "clamp_then_dynamic_update_slice": [("f32", (8,), [-0.75, -0.375, 0.0, 1.5, 1.875, 0.375, 0.375, 0.375])],
    "clamp_then_reduce": [("f32", (6,), [-0.75, 1.5, -5.25, 0.375, -0.75, -3.75])],
    "clamp_then_slice": [("f32", (2, 4), [0.375, 0.375, 0.375, 0.375, -0.375, 0.0, 0.375, 0.375])],
    "clamp_wide_loop": [("f32", (8, 33), "000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740000010400000103f000000000000903e0000103f0000583f0000903f0000b43f0000e1400000b44000008740")],
    "erf_bf16": [("bf16", (64,), "00000080000068b190318f31053f443f44bf443f583f6c3f6cbf803f803f803f803f803f803f80bf803f803f803f80bfc07f80bf803f803f803f803f713f613e52bf7fbf80bf80bf80bf80bf803f803f803f803f7c3f193f10bf7cbf80bf80bf80bf80bf803f803f803f803f7f3f563f32be6fbf80bf80bf80bf80bf80bf803f")],
    "erf_f16": [("f16", (64,), "0000008000000080000000002a38233a23ba233abe3a623b62bb003c003c003c003c003c003c00bc003c003c003c00bc007e00bc003c003c003cff3b883b07338bbaf9bb00bc00bc00bc00bc003c003c003c003ce33bc73881b8debb00bc00bc00bc00bc003c003c003c003cfb3bb23a8db177bbffbb00bc00bc00bc00bc003c")],
    "erf_f32": [("f32", (160,), "000000000000008000000000f79f68b1ba6e9031b7738f317b3f053fe668443fe66844bfe668443f3ebb573f2e436c3f2e436cbf83fc7f3f83fc7f3f0000803f0000803f0000803f0000803f000080bf0000803f0000803f0000803f000080bf0000c07f000080bf0000803f0000803ffbff7f3f26e27f3ffd08713f24eb603eac6651bf592e7fbfabff7fbf000080bf000080bf000080bf0000803f0000803f0000803fd4fc7f3fb7577c3f1de0183f760f10bf7db07bbfe9fb7fbf000080bf000080bf000080bf0000803f0000803f0000803fbfff7f3f7d537f3fa736563fc99731be2ee16ebfb3da7fbffaff7fbf000080bf000080bf000080bf0000803f0000803ffcff7f3f30e87f3fd1f5723f2bbb873e73304cbf11027fbf8dff7fbf000080bf000080bf000080bf0000803f0000803f0000803f8efd7f3f2ee87c3fc042213f9fd306bf96ef7abfc1fa7fbf000080bf000080bf000080bf0000803f0000803f0000803fd0ff7f3f84727f3f2fa45a3fd2a401be87796cbf8cd17fbff7ff7fbf000080bf000080bf000080bf0000803f0000803ffdff7f3f13ed7f3f66ac743f77899e3ea89046bf70cd7ebf6aff7fbf000080bf000080bf000080bf0000803f0000803f0000803f1dfe7f3f86647d3f7a35293fa860fabee2117abf45f97fbf000080bf000080bf000080bf0000803f0000803f0000803fdcff7f3f5a8c7f3f67b35e3fe578a2bd19cd69bf57c67fbff3ff7fbf000080bf000080bf000080bf0000803f0000803ffcff7f3f03f17f3f5231763f79ceb43e788440bf1f8f7ebf3bff7fbf000080bf000080bf000080bf0000803f0000803f0000803f8efe7f3f2dcf7d3f3fb7303f7654e6bef91379bf68f77fbf000080bf000080bf")],
    "erf_f64": [("f64", (160,), "000000000000000000000000000000803a1d71986d2ea8014b19a9fffe132dbe6d9b4250d70d323ecc0264d976ee313ed2ed185cefa7e03fe0a274d41c8de83fe0a274d41c8de8bfe0a274d41c8de83f8b0841a767f7ea3f00be8ad96588ed3f00be8ad96588edbf33b72b3290ffef3f33b72b3290ffef3f000000e0ffffef3f943052edffffef3f000000000000f03f000000000000f03f000000000000f0bf000000000000f03f000000000000f03f000000000000f03f000000000000f0bf000000000000f87f000000000000f0bfffffffffffffef3f09b5fdffffffef3fc680245bffffef3f18cf4dc844fcef3f002e917a1f21ee3f34c5db5f641dcc3f76987f85d52ceabfbcb92430cbe5efbfc1902357f5ffefbfc3e9a4ffffffefbfc3ffffffffffefbf000000000000f0bf000000000000f03f1cf5ffffffffef3fa284a1f8ffffef3f8bc869909affef3fa6c9cdd9f68aef3f36db8882031ce33f009df6c7ee01e2bffe543c920f76efbf8265842d7dffefbfdbce91f5ffffefbf0fefffffffffefbf000000000000f0bf000000000000f03fdaffffffffffef3fafb4c1ffffffef3f4811a1fef7ffef3fdfb1c77d6feaef3f4770bbfad4c6ea3fbd51502df932c6bf6b38d67e25dcedbf495ec96256fbefbff7ac151effffefbf5e8cfcffffffefbfffffffffffffefbf000000000000f0bf000000000000f03f767bfeffffffef3fc7201d88ffffef3f4757922206fdef3f5a8dbb19ba5eee3f171d1f6065f7d03f799674740e86e9bfa844591042e0efbf502ed1daf1ffefbfbb467bffffffefbf9effffffffffefbf000000000000f0bf000000000000f03f06f9ffffffffef3f03d5cffaffffef3faa9af59db1ffef3f9293ea8d059def3f7c01d7155828e43f2ff9860274dae0bf0eefa8f5f25defbf26f500da57ffefbfa4a049f1ffffefbfbde5ffffffffefbf000000000000f0bf000000000000f03fe8ffffffffffef3fa78bd5ffffffef3fa21e3502faffef3f34e5d65e50eeef3fd81074cf8554eb3f7413fa3b9a34c0bfd742d0ba308fedbf5ee3cb7f31faefbf10237bcbfeffefbf69d2faffffffefbffeffffffffffefbf000000000000f0bf000000000000f03fb5fffeffffffef3f56581ea9ffffef3f28c45065a2fdef3f2b9dace68c95ee3f3f0b9af62ed1d33fdcba840a15d2e8bfe3952714aed9efbfcef62c4bedffefbfb6473fffffffefbf63ffffffffffefbf000000000000f0bf000000000000f03f8cfbffffffffef3f2a285cfcffffef3fe67618a3c3ffef3f1c63e7a590acef3f1a1ba743af26e53f75628939154cdfbf9a7e6a533c42efbf7b61ed9b28ffefbf1adb51ebffffefbf70d7ffffffffefbf000000000000f0bf000000000000f03ff1ffffffffffef3fde2ae3ffffffef3fe6200588fbffef3fa7c015028bf1ef3fa70e26e26cd6eb3f18a3d0b31c4fb4bfc3b9522ea339edbf1afb26f3caf8efbf357a205cfeffefbf5942f8ffffffefbffdffffffffffefbf000000000000f0bf000000000000f03f8857ffffffffef3f3f3441c1ffffef3f51b0ea3a20feef3f41dd536e2ac6ee3ff8118b03cf99d63fda3ac51f8f10e8bf6743331ce4d1efbfe900b658e7ffefbf2823e9feffffefbf07ffffffffffefbf000000000000f0bf000000000000f03f2bfdffffffffef3f567d74fdffffef3ff93541acd1ffef3f00f22a89e5b9ef3fef40c0dae716e63f6ced98ae8ecadcbf1ce547007f22efbf0bb36c07edfeefbf372708e3ffffefbf91c1ffffffffefbf")],
    "erf_gelu_f32": [("f32", (8, 24), "00000080e7af0abe10883840c7999cb90f3b573ebb388e40ba19efbc18a8ea3f398e8ab6465e2cbea1615c40565006bbdbfe383ffeff9f40de1fa3bd444f1b4039ce56b85e6c4fbdedfd7f40ab5927bc7e26ab3f8ee350b5dd9e17bea6bd3f405645ecb9d4d5983e03c79140964c16bd0c2dfa3faaaaf2b6288e24be3d83634039023ebb5e62573f388ea3409ed9bebd45b022408e53a9b8000000008f8d834095f35dbcd82ebb3fc7714cb5867622bef1ec46401dc72fbab42aca3e46559540805e3abd40c30440aa2a46b7cb7015be49a36a4040b384bb118a763f711ca7400dd1dbbd52032a4000c004b914b0773d061c8740a74191bc5723cb3f0000b4b57b3d2abe50174e408e3181ba3326ff3e86e3984090e063bdb15a0c40398ea5b78e34fcbd38c27140c7fcb6bbca1b8b3fabaaaa404b11f9bd914a3140c7614db961c9053e68aa8a40109ebbbcddf8da3f000030b657e72dbee73d5540aa72bbba9ca21b3fc2719c40c05589bd19de1340565506b8b089bbbd58e07840aa16f9bb96199b3f00000080e7af0abe10883840c7999cb90f3b573ebb388e40ba19efbc18a8ea3f398e8ab6465e2cbea1615c40565006bbdbfe383ffeff9f40de1fa3bd444f1b4039ce56b85e6c4fbdedfd7f40ab5927bc7e26ab3f8ee350b5dd9e17bea6bd3f405645ecb9d4d5983e03c79140964c16bd0c2dfa3faaaaf2b6288e24be3d83634039023ebb5e62573f388ea3409ed9bebd45b022408e53a9b8000000008f8d834095f35dbcd82ebb3fc7714cb5867622bef1ec46401dc72fbab42aca3e46559540805e3abd40c30440aa2a46b7cb7015be49a36a4040b384bb118a763f711ca7400dd1dbbd52032a4000c004b914b0773d061c8740a74191bc5723cb3f0000b4b57b3d2abe50174e408e3181ba3326ff3e86e3984090e063bdb15a0c40398ea5b78e34fcbd38c27140c7fcb6bbca1b8b3fabaaaa404b11f9bd914a3140c7614db961c9053e68aa8a40109ebbbcddf8da3f000030b657e72dbee73d5540aa72bbba9ca21b3fc2719c40c05589bd19de1340565506b8b089bbbd58e07840")],
    "erf_of_map_f64": [("f64", (40,), "000000000000008000000000000000003a1d71986d2ea8814b19a9fffe132d3e6d9b4250d70d32becc0264d976ee31bed2ed185cefa7e0bfe0a274d41c8de8bfe0a274d41c8de83fe0a274d41c8de8bf8b0841a767f7eabf00be8ad96588edbf00be8ad96588ed3f33b72b3290ffefbf33b72b3290ffefbf000000e0ffffefbf943052edffffefbf000000000000f0bf000000000000f0bf000000000000f03f000000000000f0bf000000000000f0bf000000000000f0bf000000000000f03f000000000000f8ff000000000000f03fffffffffffffefbf09b5fdffffffefbfc680245bffffefbf18cf4dc844fcefbf002e917a1f21eebf34c5db5f641dccbf76987f85d52cea3fbcb92430cbe5ef3fc1902357f5ffef3fc3e9a4ffffffef3fc3ffffffffffef3f000000000000f03f000000000000f0bf1cf5ffffffffefbf")],
    "int_map_binary_s32": [
        ("s32", (324,), "0100000001000000000000040000004000000080ffffffff00000080000000c0565555d56edbb6edbef7defb000000fcc2071ffc000000fe7fe007fef8fbfdfeffffffffffffffff0000000001000000ffffff03ffffff3fffffff7fffffffff01000080010000c0565555d56edbb6edbef7defb010000fcc2071ffc010000fe7fe007fef8fbfdfeffffffffffffffff0000000000000000010000001000000020000000ffffffffe0fffffff0fffffff6fffffffcffffffffffffffffffffff0000000000000000000000000000000000000000000000000000000000000000000000000100000002000000fffffffffeffffffffffffff000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000ffffffffffffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffff010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fffffffffeffffffffffffff020000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fffffffffdffffffffffffff030000000100000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fdfffffff9ffffffffffffff070000000300000002000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000f1ffffffe1ffffffffffffff1f0000000f0000000a0000000400000001000000000000000000000000000000000000000000000000000000000000000000000000000000fffffffff0ffffffe0ffffffffffffff20000000100000000a0000000400000001000000010000000000000000000000000000000000000000000000000000000000000000000000fffffffff0ffffffdfffffffffffffff21000000100000000b0000000400000001000000010000000100000000000000000000000000000000000000000000000000000000000000feffffffe0ffffffc0ffffffffffffff4000000020000000150000000900000002000000020000000100000001000000000000000000000000000000000000000000000000000000feffffffe0ffffffbfffffffffffffff4100000020000000150000000900000002000000020000000100000001000000010000000000000000000000000000000000000000000000fdffffffc1ffffff81ffffffffffffff7f0000003f0000002a0000001200000004000000030000000300000001000000010000000100000000000000000000000000000000000000010000fc010000c002000080fffffffffeffff7fffffff3faaaaaa2a9224491242082104ffffff033ef8e003ffffff01811ff80108040201010000000000000000000000ffffffff010000fc010000c001000080ffffffffffffff7fffffff3faaaaaa2a9224491242082104ffffff033ef8e003ffffff01811ff801080402010100000001000000"),
        ("s32", (324,), "00000000ffffffff000000000000000000000000000000800000000000000000fefffffffefffffffeffffff00000000feffffff00000000c1fffffff8fffffffeffffffffffffff0100008000000000e1ffffffffffffff000000000100008000000000ffffffffffffffffffffffffffffffffe1ffffffffffffffc1ffffffc2fffffff9ffffffffffffff00000000e0ffffffe0ffffff000000000000000000000000e0ffffff0000000000000000fefffffffcffffffffffffff00000000e0ffffffe0ffffffe0ffffffe0ffffffe0ffffffe0fffffffefffffffefffffffeffffff0000000000000000feffffff0000000000000000fefffffffefffffffefffffffefffffffefffffffefffffffefffffffefffffffefffffffeffffffffffffffffffffffffffffffffffffff00000000ffffffff00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000001000000010000000100000000000000010000000000000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000200000002000000020000000000000000000000020000000000000000000000020000000200000002000000020000000200000002000000020000000200000002000000020000000300000003000000030000000100000000000000030000000000000001000000000000000300000003000000030000000300000003000000030000000300000003000000030000000700000007000000070000000100000000000000070000000000000001000000010000000000000007000000070000000700000007000000070000000700000007000000070000001f0000001f0000001f00000001000000000000001f00000000000000010000000100000003000000000000001f0000001f0000001f0000001f0000001f0000001f0000001f0000002000000020000000000000000000000000000000200000000000000000000000020000000400000001000000000000002000000020000000200000002000000020000000200000002100000021000000010000000100000000000000210000000000000001000000000000000500000002000000010000000000000021000000210000002100000021000000210000004000000040000000000000000000000000000000400000000000000000000000010000000100000002000000000000001f00000000000000400000004000000040000000400000004100000041000000010000000100000000000000410000000000000001000000020000000200000003000000010000002000000001000000000000004100000041000000410000007f0000007f0000001f00000001000000000000007f00000000000000010000000100000001000000030000001f0000001c0000003f0000003e000000000000007f0000007f000000feffff7ffeffff7f1e0000000000000000000000feffff7f00000000000000000000000000000000000000001e000000000000003e0000003d0000000600000000000000feffff7fffffff7f000000001f0000000100000000000000ffffff7f00000000010000000100000001000000010000001f000000010000003f0000003e000000070000000100000000000000"),
        ("s32", (324,), "0000000000000000000000000000000000000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000800200000004000000080000008000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e0ffffffc0ffffff80ffffff00ffffff00f0ffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fefffffffcfffffff8fffffff0ffffff00ffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fffffffffefffffffcfffffff8ffffff80ffffff0000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000020000000400000008000000800000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002000000040000000800000010000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003000000060000000c000000180000008001000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000070000000e0000001c0000003800000080030000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001f0000003e0000007c000000f8000000800f0000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002000000040000000800000000001000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002100000042000000840000000801000080100000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004000000080000000000100000002000000200000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004100000082000000040100000802000080200000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007f000000fe000000fc010000f8030000803f000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000feffff7ffcfffffff8fffffff0ffffff00ffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffff7ffefffffffcfffffff8ffffff80ffffff0000008000000000000000000000000000000000000000000000000000000000"),
        ("s32", (324,), "ffffffffffffffffffffffffffffffffffffffff00000080000000c0000000e0000000f0000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff01000080000000c0000000e0000000f0000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe0fffffff0fffffff8fffffffcfffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000300000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000700000003000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001f0000000f000000070000000300000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002000000010000000080000000400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002100000010000000080000000400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004000000020000000100000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004100000020000000100000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007f0000003f0000001f0000000f0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000feffff7fffffff3fffffff1fffffff0fffffff0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffff7fffffff3fffffff1fffffff0fffffff000000000000000000000000000000000000000000000000000000000000000000"),
        ("s32", (324,), "0000000000000000000000000000000000000000000000800000004000000020000000100000000101000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000800000004000000020000000100000000101000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e0fffffff0ffff7ff8ffff3ffcffff1fffffff0101000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000feffffffffffff7fffffff3fffffff1fffffff0101000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffff7fffffff3fffffff1fffffff01010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000300000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000700000003000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001f0000000f000000070000000300000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002000000010000000080000000400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000002100000010000000080000000400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004000000020000000100000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000004100000020000000100000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007f0000003f0000001f0000000f0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000feffff7fffffff3fffffff1fffffff0fffffff0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffff7fffffff3fffffff1fffffff0fffffff000000000000000000000000000000000000000000000000000000000000000000"),
        ("s32", (324,), "0000000000000080000000000000000000000080000000000000008000000000000000800000008000000080000000000000008000000000000000800000008000000000000000800000008001000000e0fffffffeffffffffffff7f00000000010000800200000003000080070000801f000080200000002100008040000000410000807f000080feffff7fffffffff00000000e0ffffff00040000400000002000000000000000e0ffffffc0ffffffa0ffffff20ffffff20fcffff00fcffffe0fbffff00f8ffffe0f7ffff20f0ffff400000002000000000000000feffffff40000000040000000200000000000000fefffffffcfffffffafffffff2ffffffc2ffffffc0ffffffbeffffff80ffffff7effffff02ffffff040000000200000000000080ffffff7f20000000020000000100000000000000fffffffffefffffffdfffffff9ffffffe1ffffffe0ffffffdfffffffc0ffffffbfffffff81ffffff02000080010000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000008001000080e0fffffffeffffffffffffff00000000010000000200000003000000070000001f000000200000002100000040000000410000007f000000feffff7fffffff7f0000000002000000c0fffffffcfffffffeffffff000000000200000004000000060000000e0000003e00000040000000420000008000000082000000fe000000fcfffffffeffffff0000008003000080a0fffffffafffffffdffffff00000000030000000600000009000000150000005d0000006000000063000000c0000000c30000007d010000faffff7ffdffff7f000000800700008020fffffff2fffffff9ffffff00000000070000000e0000001500000031000000d9000000e0000000e7000000c0010000c701000079030000f2ffff7ff9ffff7f000000801f00008020fcffffc2ffffffe1ffffff000000001f0000003e0000005d000000d9000000c1030000e0030000ff030000c0070000df070000610f0000c2ffff7fe1ffff7f000000002000000000fcffffc0ffffffe0ffffff00000000200000004000000060000000e0000000e003000000040000200400000008000020080000e00f0000c0ffffffe0ffffff0000008021000080e0fbffffbeffffffdfffffff00000000210000004200000063000000e7000000ff030000200400004104000040080000610800005f100000beffff7fdfffff7f000000004000000000f8ffff80ffffffc0ffffff000000004000000080000000c0000000c0010000c007000000080000400800000010000040100000c01f000080ffffffc0ffffff0000008041000080e0f7ffff7effffffbfffffff000000004100000082000000c3000000c7010000df070000200800006108000040100000811000003f2000007effff7fbfffff7f000000807f00008020f0ffff02ffffff81ffffff000000007f000000fe0000007d01000079030000610f0000e00f00005f100000c01f00003f200000013f000002ffff7f81ffff7f00000000feffff7f40000000040000000200008000000000feffff7ffcfffffffaffff7ff2ffff7fc2ffff7fc0ffffffbeffff7f80ffffff7effff7f02ffff7f040000000200008000000080ffffffff20000000020000000100008000000000ffffff7ffefffffffdffff7ff9ffff7fe1ffff7fe0ffffffdfffff7fc0ffffffbfffff7f81ffff7f0200008001000000"),
        ("s32", (324,), "0000000001000000e0ffff7ffeffff7fffffff7f00000080010000800200008003000080070000801f000080200000802100008040000080410000807f000080feffffffffffffff0100000002000000e1ffff7fffffff7f000000800100008002000080030000800400008008000080200000802100008022000080410000804200008080000080ffffffff00000000e0ffff7fe1ffff7fc0ffffffdeffffffdfffffffe0ffffffe1ffffffe2ffffffe3ffffffe7ffffffffffffff000000000100000020000000210000005f000000deffff7fdfffff7ffeffff7fffffff7fdefffffffcfffffffdfffffffeffffffffffffff0000000001000000050000001d0000001e0000001f0000003e0000003f0000007d000000fcffff7ffdffff7fffffff7f00000080dffffffffdfffffffeffffffffffffff000000000100000002000000060000001e0000001f000000200000003f000000400000007e000000fdffff7ffeffff7f0000008001000080e0fffffffeffffffffffffff00000000010000000200000003000000070000001f000000200000002100000040000000410000007f000000feffff7fffffff7f0100008002000080e1ffffffffffffff000000000100000002000000030000000400000008000000200000002100000022000000410000004200000080000000ffffff7f000000800200008003000080e2ffffff0000000001000000020000000300000004000000050000000900000021000000220000002300000042000000430000008100000000000080010000800300008004000080e3ffffff0100000002000000030000000400000005000000060000000a00000022000000230000002400000043000000440000008200000001000080020000800700008008000080e7ffffff05000000060000000700000008000000090000000a0000000e00000026000000270000002800000047000000480000008600000005000080060000801f00008020000080ffffffff1d0000001e0000001f000000200000002100000022000000260000003e0000003f000000400000005f000000600000009e0000001d0000801e0000802000008021000080000000001e0000001f00000020000000210000002200000023000000270000003f000000400000004100000060000000610000009f0000001e0000801f0000802100008022000080010000001f0000002000000021000000220000002300000024000000280000004000000041000000420000006100000062000000a00000001f000080200000804000008041000080200000003e0000003f00000040000000410000004200000043000000470000005f00000060000000610000008000000081000000bf0000003e0000803f0000804100008042000080210000003f0000004000000041000000420000004300000044000000480000006000000061000000620000008100000082000000c00000003f000080400000807f000080800000805f0000007d0000007e0000007f000000800000008100000082000000860000009e0000009f000000a0000000bf000000c0000000fe0000007d0000807e000080feffffffffffffffdeffff7ffcffff7ffdffff7ffeffff7fffffff7f0000008001000080050000801d0000801e0000801f0000803e0000803f0000807d000080fcfffffffdffffffffffffff00000000dfffff7ffdffff7ffeffff7fffffff7f000000800100008002000080060000801e0000801f000080200000803f000080400000807e000080fdfffffffeffffff"),
        ("s32", (324,), "00000000ffffffff20000080020000800100008000000080ffffff7ffeffff7ffdffff7ff9ffff7fe1ffff7fe0ffff7fdfffff7fc0ffff7fbfffff7f81ffff7f020000000100000001000000000000002100008003000080020000800100008000000080ffffff7ffeffff7ffaffff7fe2ffff7fe1ffff7fe0ffff7fc1ffff7fc0ffff7f82ffff7f0300000002000000e0ffff7fdfffff7f00000000e2ffffffe1ffffffe0ffffffdfffffffdeffffffddffffffd9ffffffc1ffffffc0ffffffbfffffffa0ffffff9fffffff61ffffffe2ffff7fe1ffff7ffeffff7ffdffff7f1e00000000000000fffffffffefffffffdfffffffcfffffffbfffffff7ffffffdfffffffdeffffffddffffffbeffffffbdffffff7fffffff00000080ffffff7fffffff7ffeffff7f1f0000000100000000000000fffffffffefffffffdfffffffcfffffff8ffffffe0ffffffdfffffffdeffffffbfffffffbeffffff80ffffff010000800000008000000080ffffff7f20000000020000000100000000000000fffffffffefffffffdfffffff9ffffffe1ffffffe0ffffffdfffffffc0ffffffbfffffff81ffffff020000800100008001000080000000802100000003000000020000000100000000000000fffffffffefffffffaffffffe2ffffffe1ffffffe0ffffffc1ffffffc0ffffff82ffffff03000080020000800200008001000080220000000400000003000000020000000100000000000000fffffffffbffffffe3ffffffe2ffffffe1ffffffc2ffffffc1ffffff83ffffff0400008003000080030000800200008023000000050000000400000003000000020000000100000000000000fcffffffe4ffffffe3ffffffe2ffffffc3ffffffc2ffffff84ffffff050000800400008007000080060000802700000009000000080000000700000006000000050000000400000000000000e8ffffffe7ffffffe6ffffffc7ffffffc6ffffff88ffffff09000080080000801f0000801e0000803f00000021000000200000001f0000001e0000001d0000001c0000001800000000000000fffffffffeffffffdfffffffdeffffffa0ffffff2100008020000080200000801f000080400000002200000021000000200000001f0000001e0000001d000000190000000100000000000000ffffffffe0ffffffdfffffffa1ffffff2200008021000080210000802000008041000000230000002200000021000000200000001f0000001e0000001a000000020000000100000000000000e1ffffffe0ffffffa2ffffff2300008022000080400000803f000080600000004200000041000000400000003f0000003e0000003d0000003900000021000000200000001f00000000000000ffffffffc1ffffff4200008041000080410000804000008061000000430000004200000041000000400000003f0000003e0000003a0000002200000021000000200000000100000000000000c2ffffff43000080420000807f0000807e0000809f00000081000000800000007f0000007e0000007d0000007c00000078000000600000005f0000005e0000003f0000003e000000000000008100008080000080fefffffffdffffff1e00008000000080ffffff7ffeffff7ffdffff7ffcffff7ffbffff7ff7ffff7fdfffff7fdeffff7fddffff7fbeffff7fbdffff7f7fffff7f00000000fffffffffffffffffeffffff1f0000800100008000000080ffffff7ffeffff7ffdffff7ffcffff7ff8ffff7fe0ffff7fdfffff7fdeffff7fbfffff7fbeffff7f80ffff7f0100000000000000"),
        ("s32", (324,), "000000000000000000000000000000000000000001000000000000800000000000000000000000000000000000000000000000000100000000000080000000000000000000000000000000000000000000000000000000000000000001000000010000800100000001000080010000800100008001000000010000800100000001000080010000800100000001000080000000000000000000000000000000000000000001000000e0ffffff000400000080ffff0000000000000000000000000000000001000000e0ffffff000000000000000000000000000000000000000000000000000000000000000001000000feffffff04000000f8ffffff80ffffff00000080000000000000000001000000feffffff00000000000000000000000001000000ffffffff0100000001000000ffffffff01000000ffffffff01000000ffffffffffffffffffffffff01000000ffffffff01000000ffffffffffffffff01000000ffffffff00000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000100000000000000000000000000000000000000000000000100000002000000040000000800000080000000000000800000000000000000010000000200000000000000000000000000000000000000000000000000000000000000000000000100000003000000090000001b0000008b0800002b6a5f4b813e1ee283bb5aa60100000003000000abe9d47d39a3f129abe9d47d000000000000000000000000000000000000000001000000070000003100000057010000f7900c00b79acb0f013b916e079df8050100000007000000b7c71a40d1aeba2db7c71a400000000000000000000000000000000000000000010000001f000000c10300005f740000df2ce167df3f308801bcd77d1fc41f3d010000001f000000df03617e41848ff3df03617e0000000000000000000000000000000000000000010000002000000000040000008000000000000000000000000000000000000001000000200000000000000000000000000000000000000000000000000000000000000000000000010000002100000041040000618c0000e1d441ece1c75e6501c43711214430380100000021000000e10bbed8c1934befe10bbed80000000000000000000000000000000000000000010000004000000000100000000004000000000000000000000000000000000001000000400000000000000000000000000000000000000000000000000000000000000000000000010000004100000081100000c1300400c1518d63c11759ef01089fc54108612d0100000041000000c11ff6fd813f66e4c11ff6fd0000000000000000000000000000000000000000010000007f000000013f00007f411f007fc35ad47fcf6ba101f07b147f107c29010000007f0000007fdff75101a158da7fdff751000000000000000000000000000000000000000001000000feffff7f04000000f8ffffff80ffffff00000080000000000000000001000000feffff7f000000000000000000000000000000000000000000000000000000000000000001000000ffffff7f01000000ffffff7fffffff7fffffff7f01000000ffffff7f01000000ffffff7fffffff7f01000000ffffff7f"),
    ],
    "int_map_binary_s64": [
        ("s64", (256,), "01000000000000000100000000000000000000000000000200000000000000400000000000000080ffffffffffffffff000000000000008000000000000000c056555555555555d5b76ddbb66ddbb6edf87ddff77ddff7fd00000000000000fe087ee0077ee007fe7fbfdfeff7fbfdfeffffffffffffffffffffffffffffffff00000000000000000100000000000000ffffffffffffff01ffffffffffffff3fffffffffffffff7fffffffffffffffff010000000000008001000000000000c056555555555555d5b76ddbb66ddbb6edf87ddff77ddff7fd01000000000000fe087ee0077ee007fe7fbfdfeff7fbfdfeffffffffffffffffffffffffffffffff00000000000000000000000000000000010000000000000020000000000000004000000000000000ffffffffffffffffc0ffffffffffffffe0ffffffffffffffebfffffffffffffff7ffffffffffffffffffffffffffffffffffffffffffffff000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000200000000000000fffffffffffffffffeffffffffffffffffffffffffffffff0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000ffffffffffffffffffffffffffffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffffffffffffffffffff0100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fffffffffffffffffeffffffffffffffffffffffffffffff0200000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fffffffffffffffffdffffffffffffffffffffffffffffff0300000000000000010000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fdfffffffffffffff9ffffffffffffffffffffffffffffff0700000000000000030000000000000002000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e1ffffffffffffffc1ffffffffffffffffffffffffffffff3f000000000000001f000000000000001500000000000000090000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffffe0ffffffffffffffc0ffffffffffffffffffffffffffffff400000000000000020000000000000001500000000000000090000000000000001000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffffe0ffffffffffffffbfffffffffffffffffffffffffffffff410000000000000020000000000000001500000000000000090000000000000001000000000000000100000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffffc1ffffffffffffff81ffffffffffffffffffffffffffffff7f000000000000003f000000000000002a0000000000000012000000000000000200000000000000010000000000000001000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000fe01000000000000c00200000000000080fffffffffffffffffeffffffffffff7fffffffffffffff3faaaaaaaaaaaaaa2a48922449922449120882200882200802ffffffffffffff01f8811ff8811ff8018040201008040201010000000000000000000000000000000000000000000000ffffffffffffffff01000000000000fe01000000000000c00100000000000080ffffffffffffffffffffffffffffff7fffffffffffffff3faaaaaaaaaaaaaa2a49922449922449120882200882200802ffffffffffffff01f8811ff8811ff801814020100804020101000000000000000100000000000000"),
        ("s64", (256,), "0000000000000000ffffffffffffffff000000000000000000000000000000000000000000000000000000000000008000000000000000000000000000000000fefffffffffffffffffffffffffffffff8ffffffffffffff0000000000000000f8fffffffffffffffffffffffffffffffeffffffffffffffffffffffffffffff01000000000000800000000000000000c1ffffffffffffffffffffffffffffff000000000000000001000000000000800000000000000000ffffffffffffffffffffffffffffffff0000000000000000f9ffffffffffffffc1fffffffffffffff9ffffffffffffff0000000000000000ffffffffffffffff0000000000000000c0ffffffffffffffc0ffffffffffffff000000000000000000000000000000000000000000000000c0ffffffffffffff00000000000000000000000000000000ffffffffffffffffffffffffffffffffffffffffffffffff0000000000000000c0ffffffffffffffc0ffffffffffffffc0ffffffffffffffc0fffffffffffffffefffffffffffffffefffffffffffffffeffffffffffffff00000000000000000000000000000000feffffffffffffff00000000000000000000000000000000fefffffffffffffffefffffffffffffffefffffffffffffffefffffffffffffffefffffffffffffffefffffffffffffffefffffffffffffffeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff0000000000000000ffffffffffffffff0000000000000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000100000000000000010000000000000001000000000000000000000000000000010000000000000000000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000200000000000000020000000000000002000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000002000000000000000200000000000000020000000000000002000000000000000200000000000000020000000000000002000000000000000200000000000000030000000000000003000000000000000300000000000000010000000000000000000000000000000300000000000000000000000000000001000000000000000000000000000000030000000000000003000000000000000300000000000000030000000000000003000000000000000300000000000000030000000000000007000000000000000700000000000000070000000000000001000000000000000000000000000000070000000000000000000000000000000100000000000000010000000000000000000000000000000700000000000000070000000000000007000000000000000700000000000000070000000000000007000000000000003f000000000000003f000000000000003f00000000000000010000000000000000000000000000003f00000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000003f000000000000003f000000000000003f000000000000003f000000000000003f00000000000000400000000000000040000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000000000000000000100000000000000010000000000000001000000000000000000000000000000400000000000000040000000000000004000000000000000400000000000000041000000000000004100000000000000010000000000000001000000000000000000000000000000410000000000000000000000000000000100000000000000020000000000000002000000000000000200000000000000010000000000000000000000000000004100000000000000410000000000000041000000000000007f000000000000007f000000000000003f00000000000000010000000000000000000000000000007f00000000000000000000000000000001000000000000000100000000000000010000000000000001000000000000003f000000000000003e0000000000000000000000000000007f000000000000007f00000000000000feffffffffffff7ffeffffffffffff7f3e0000000000000000000000000000000000000000000000feffffffffffff7f000000000000000000000000000000000000000000000000060000000000000006000000000000003e0000000000000006000000000000007e000000000000000000000000000000feffffffffffff7fffffffffffffff7f00000000000000003f0000000000000001000000000000000000000000000000ffffffffffffff7f000000000000000001000000000000000100000000000000000000000000000007000000000000003f000000000000000700000000000000000000000000000001000000000000000000000000000000"),
        ("s64", (256,), "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000080020000000000000004000000000000000800000000000000800000000000000000000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000c0ffffffffffffff80ffffffffffffff00ffffffffffffff00feffffffffffff00e0ffffffffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fefffffffffffffffcfffffffffffffff8fffffffffffffff0ffffffffffffff00ffffffffffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fffffffffffffffffefffffffffffffffcfffffffffffffff8ffffffffffffff80ffffffffffffff00000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000200000000000000040000000000000008000000000000008000000000000000000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000000000000040000000000000008000000000000001000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030000000000000006000000000000000c00000000000000180000000000000080010000000000000000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007000000000000000e000000000000001c0000000000000038000000000000008003000000000000000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003f000000000000007e00000000000000fc00000000000000f801000000000000801f00000000000000000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000400000000000000080000000000000000001000000000000000200000000000000200000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000041000000000000008200000000000000040100000000000008020000000000008020000000000000000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007f00000000000000fe00000000000000fc01000000000000f803000000000000803f00000000000000000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000feffffffffffff7ffcfffffffffffffff8fffffffffffffff0ffffffffffffff00ffffffffffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffff7ffefffffffffffffffcfffffffffffffff8ffffffffffffff80ffffffffffffff000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000"),
        ("s64", (256,), "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff000000000000008000000000000000c000000000000000e000000000000000f000000000000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff010000000000008000000000000000c000000000000000e000000000000000f000000000000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc0ffffffffffffffe0fffffffffffffff0fffffffffffffff8fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007000000000000000300000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003f000000000000001f000000000000000f000000000000000700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000400000000000000020000000000000001000000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000041000000000000002000000000000000100000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007f000000000000003f000000000000001f000000000000000f00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000feffffffffffff7fffffffffffffff3fffffffffffffff1fffffffffffffff0fffffffffffffff0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffff7fffffffffffffff3fffffffffffffff1fffffffffffffff0fffffffffffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"),
        ("s64", (256,), "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000800000000000000040000000000000002000000000000000100000000000000001010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000080000000000000004000000000000000200000000000000010000000000000000101000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000c0ffffffffffffffe0ffffffffffff7ff0ffffffffffff3ff8ffffffffffff1fffffffffffffff0101000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000feffffffffffffffffffffffffffff7fffffffffffffff3fffffffffffffff1fffffffffffffff0101000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffffffffffffffffff7fffffffffffffff3fffffffffffffff1fffffffffffffff0101000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007000000000000000300000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003f000000000000001f000000000000000f000000000000000700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000400000000000000020000000000000001000000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000041000000000000002000000000000000100000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007f000000000000003f000000000000001f000000000000000f00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000feffffffffffff7fffffffffffffff3fffffffffffffff1fffffffffffffff0fffffffffffffff0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffff7fffffffffffffff3fffffffffffffff1fffffffffffffff0fffffffffffffff00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"),
        ("s64", (256,), "000000000000000000000000000000800000000000000000000000000000000000000000000000800000000000000000000000000000008000000000000000000000000000000080000000000000008000000000000000800000000000000000000000000000008000000000000000800000000000000000000000000000008000000000000000800100000000000000c0fffffffffffffffeffffffffffffffffffffffffffff7f000000000000000001000000000000800200000000000000030000000000008007000000000000803f00000000000080400000000000000041000000000000807f00000000000080feffffffffffff7fffffffffffffffff0000000000000000c0ffffffffffffff0010000000000000800000000000000040000000000000000000000000000000c0ffffffffffffff80ffffffffffffff40ffffffffffffff40feffffffffffff40f0ffffffffffff00f0ffffffffffffc0efffffffffffff40e0ffffffffffff800000000000000040000000000000000000000000000000feffffffffffffff8000000000000000040000000000000002000000000000000000000000000000fefffffffffffffffcfffffffffffffffafffffffffffffff2ffffffffffffff82ffffffffffffff80ffffffffffffff7effffffffffffff02ffffffffffffff040000000000000002000000000000000000000000000080ffffffffffffff7f4000000000000000020000000000000001000000000000000000000000000000fffffffffffffffffefffffffffffffffdfffffffffffffff9ffffffffffffffc1ffffffffffffffc0ffffffffffffffbfffffffffffffff81ffffffffffffff02000000000000800100000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000800100000000000080c0fffffffffffffffeffffffffffffffffffffffffffffff000000000000000001000000000000000200000000000000030000000000000007000000000000003f00000000000000400000000000000041000000000000007f00000000000000feffffffffffff7fffffffffffffff7f0000000000000000020000000000000080fffffffffffffffcfffffffffffffffeffffffffffffff00000000000000000200000000000000040000000000000006000000000000000e000000000000007e0000000000000080000000000000008200000000000000fe00000000000000fcfffffffffffffffeffffffffffffff0000000000000080030000000000008040fffffffffffffffafffffffffffffffdffffffffffffff00000000000000000300000000000000060000000000000009000000000000001500000000000000bd00000000000000c000000000000000c3000000000000007d01000000000000faffffffffffff7ffdffffffffffff7f0000000000000080070000000000008040fefffffffffffff2fffffffffffffff9ffffffffffffff000000000000000007000000000000000e0000000000000015000000000000003100000000000000b901000000000000c001000000000000c7010000000000007903000000000000f2ffffffffffff7ff9ffffffffffff7f00000000000000803f0000000000008040f0ffffffffffff82ffffffffffffffc1ffffffffffffff00000000000000003f000000000000007e00000000000000bd00000000000000b901000000000000810f000000000000c00f000000000000ff0f000000000000411f00000000000082ffffffffffff7fc1ffffffffffff7f0000000000000000400000000000000000f0ffffffffffff80ffffffffffffffc0ffffffffffffff000000000000000040000000000000008000000000000000c000000000000000c001000000000000c00f00000000000000100000000000004010000000000000c01f00000000000080ffffffffffffffc0ffffffffffffff00000000000000804100000000000080c0efffffffffffff7effffffffffffffbfffffffffffffff000000000000000041000000000000008200000000000000c300000000000000c701000000000000ff0f000000000000401000000000000081100000000000003f200000000000007effffffffffff7fbfffffffffffff7f00000000000000807f0000000000008040e0ffffffffffff02ffffffffffffff81ffffffffffffff00000000000000007f00000000000000fe000000000000007d010000000000007903000000000000411f000000000000c01f0000000000003f20000000000000013f00000000000002ffffffffffff7f81ffffffffffff7f0000000000000000feffffffffffff7f8000000000000000040000000000000002000000000000800000000000000000feffffffffffff7ffcfffffffffffffffaffffffffffff7ff2ffffffffffff7f82ffffffffffff7f80ffffffffffffff7effffffffffff7f02ffffffffffff7f040000000000000002000000000000800000000000000080ffffffffffffffff4000000000000000020000000000000001000000000000800000000000000000ffffffffffffff7ffefffffffffffffffdffffffffffff7ff9ffffffffffff7fc1ffffffffffff7fc0ffffffffffffffbfffffffffffff7f81ffffffffffff7f02000000000000800100000000000000"),
        ("s64", (256,), "00000000000000000100000000000000c0ffffffffffff7ffeffffffffffff7fffffffffffffff7f000000000000008001000000000000800200000000000080030000000000008007000000000000803f00000000000080400000000000008041000000000000807f00000000000080feffffffffffffffffffffffffffffff01000000000000000200000000000000c1ffffffffffff7fffffffffffffff7f0000000000000080010000000000008002000000000000800300000000000080040000000000008008000000000000804000000000000080410000000000008042000000000000808000000000000080ffffffffffffffff0000000000000000c0ffffffffffff7fc1ffffffffffff7f80ffffffffffffffbeffffffffffffffbfffffffffffffffc0ffffffffffffffc1ffffffffffffffc2ffffffffffffffc3ffffffffffffffc7ffffffffffffffffffffffffffffff000000000000000001000000000000003f00000000000000beffffffffffff7fbfffffffffffff7ffeffffffffffff7fffffffffffffff7fbefffffffffffffffcfffffffffffffffdfffffffffffffffeffffffffffffffffffffffffffffff0000000000000000010000000000000005000000000000003d000000000000003e000000000000003f000000000000007d00000000000000fcffffffffffff7ffdffffffffffff7fffffffffffffff7f0000000000000080bffffffffffffffffdfffffffffffffffeffffffffffffffffffffffffffffff00000000000000000100000000000000020000000000000006000000000000003e000000000000003f0000000000000040000000000000007e00000000000000fdffffffffffff7ffeffffffffffff7f00000000000000800100000000000080c0fffffffffffffffeffffffffffffffffffffffffffffff000000000000000001000000000000000200000000000000030000000000000007000000000000003f00000000000000400000000000000041000000000000007f00000000000000feffffffffffff7fffffffffffffff7f01000000000000800200000000000080c1ffffffffffffffffffffffffffffff0000000000000000010000000000000002000000000000000300000000000000040000000000000008000000000000004000000000000000410000000000000042000000000000008000000000000000ffffffffffffff7f000000000000008002000000000000800300000000000080c2ffffffffffffff000000000000000001000000000000000200000000000000030000000000000004000000000000000500000000000000090000000000000041000000000000004200000000000000430000000000000081000000000000000000000000000080010000000000008003000000000000800400000000000080c3ffffffffffffff0100000000000000020000000000000003000000000000000400000000000000050000000000000006000000000000000a0000000000000042000000000000004300000000000000440000000000000082000000000000000100000000000080020000000000008007000000000000800800000000000080c7ffffffffffffff050000000000000006000000000000000700000000000000080000000000000009000000000000000a000000000000000e000000000000004600000000000000470000000000000048000000000000008600000000000000050000000000008006000000000000803f000000000000804000000000000080ffffffffffffffff3d000000000000003e000000000000003f0000000000000040000000000000004100000000000000420000000000000046000000000000007e000000000000007f000000000000008000000000000000be000000000000003d000000000000803e000000000000804000000000000080410000000000008000000000000000003e000000000000003f00000000000000400000000000000041000000000000004200000000000000430000000000000047000000000000007f0000000000000080000000000000008100000000000000bf000000000000003e000000000000803f000000000000804100000000000080420000000000008001000000000000003f00000000000000400000000000000041000000000000004200000000000000430000000000000044000000000000004800000000000000800000000000000081000000000000008200000000000000c0000000000000003f0000000000008040000000000000807f0000000000008080000000000000803f000000000000007d000000000000007e000000000000007f000000000000008000000000000000810000000000000082000000000000008600000000000000be00000000000000bf00000000000000c000000000000000fe000000000000007d000000000000807e00000000000080feffffffffffffffffffffffffffffffbeffffffffffff7ffcffffffffffff7ffdffffffffffff7ffeffffffffffff7fffffffffffffff7f0000000000000080010000000000008005000000000000803d000000000000803e000000000000803f000000000000807d00000000000080fcfffffffffffffffdffffffffffffffffffffffffffffff0000000000000000bfffffffffffff7ffdffffffffffff7ffeffffffffffff7fffffffffffffff7f00000000000000800100000000000080020000000000008006000000000000803e000000000000803f0000000000008040000000000000807e00000000000080fdfffffffffffffffeffffffffffffff"),
        ("s64", (256,), "0000000000000000ffffffffffffffff4000000000000080020000000000008001000000000000800000000000000080ffffffffffffff7ffeffffffffffff7ffdffffffffffff7ff9ffffffffffff7fc1ffffffffffff7fc0ffffffffffff7fbfffffffffffff7f81ffffffffffff7f020000000000000001000000000000000100000000000000000000000000000041000000000000800300000000000080020000000000008001000000000000800000000000000080ffffffffffffff7ffeffffffffffff7ffaffffffffffff7fc2ffffffffffff7fc1ffffffffffff7fc0ffffffffffff7f82ffffffffffff7f03000000000000000200000000000000c0ffffffffffff7fbfffffffffffff7f0000000000000000c2ffffffffffffffc1ffffffffffffffc0ffffffffffffffbfffffffffffffffbeffffffffffffffbdffffffffffffffb9ffffffffffffff81ffffffffffffff80ffffffffffffff7fffffffffffffff41ffffffffffffffc2ffffffffffff7fc1ffffffffffff7ffeffffffffffff7ffdffffffffffff7f3e000000000000000000000000000000fffffffffffffffffefffffffffffffffdfffffffffffffffcfffffffffffffffbfffffffffffffff7ffffffffffffffbfffffffffffffffbeffffffffffffffbdffffffffffffff7fffffffffffffff0000000000000080ffffffffffffff7fffffffffffffff7ffeffffffffffff7f3f0000000000000001000000000000000000000000000000fffffffffffffffffefffffffffffffffdfffffffffffffffcfffffffffffffff8ffffffffffffffc0ffffffffffffffbfffffffffffffffbeffffffffffffff80ffffffffffffff010000000000008000000000000000800000000000000080ffffffffffffff7f4000000000000000020000000000000001000000000000000000000000000000fffffffffffffffffefffffffffffffffdfffffffffffffff9ffffffffffffffc1ffffffffffffffc0ffffffffffffffbfffffffffffffff81ffffffffffffff020000000000008001000000000000800100000000000080000000000000008041000000000000000300000000000000020000000000000001000000000000000000000000000000fffffffffffffffffefffffffffffffffaffffffffffffffc2ffffffffffffffc1ffffffffffffffc0ffffffffffffff82ffffffffffffff0300000000000080020000000000008002000000000000800100000000000080420000000000000004000000000000000300000000000000020000000000000001000000000000000000000000000000fffffffffffffffffbffffffffffffffc3ffffffffffffffc2ffffffffffffffc1ffffffffffffff83ffffffffffffff04000000000000800300000000000080030000000000008002000000000000804300000000000000050000000000000004000000000000000300000000000000020000000000000001000000000000000000000000000000fcffffffffffffffc4ffffffffffffffc3ffffffffffffffc2ffffffffffffff84ffffffffffffff050000000000008004000000000000800700000000000080060000000000008047000000000000000900000000000000080000000000000007000000000000000600000000000000050000000000000004000000000000000000000000000000c8ffffffffffffffc7ffffffffffffffc6ffffffffffffff88ffffffffffffff090000000000008008000000000000803f000000000000803e000000000000807f00000000000000410000000000000040000000000000003f000000000000003e000000000000003d000000000000003c0000000000000038000000000000000000000000000000fffffffffffffffffeffffffffffffffc0ffffffffffffff4100000000000080400000000000008040000000000000803f0000000000008080000000000000004200000000000000410000000000000040000000000000003f000000000000003e000000000000003d00000000000000390000000000000001000000000000000000000000000000ffffffffffffffffc1ffffffffffffff4200000000000080410000000000008041000000000000804000000000000080810000000000000043000000000000004200000000000000410000000000000040000000000000003f000000000000003e000000000000003a00000000000000020000000000000001000000000000000000000000000000c2ffffffffffffff430000000000008042000000000000807f000000000000807e00000000000080bf00000000000000810000000000000080000000000000007f000000000000007e000000000000007d000000000000007c00000000000000780000000000000040000000000000003f000000000000003e00000000000000000000000000000081000000000000808000000000000080fefffffffffffffffdffffffffffffff3e000000000000800000000000000080ffffffffffffff7ffeffffffffffff7ffdffffffffffff7ffcffffffffffff7ffbffffffffffff7ff7ffffffffffff7fbfffffffffffff7fbeffffffffffff7fbdffffffffffff7f7fffffffffffff7f0000000000000000fffffffffffffffffffffffffffffffffeffffffffffffff3f0000000000008001000000000000800000000000000080ffffffffffffff7ffeffffffffffff7ffdffffffffffff7ffcffffffffffff7ff8ffffffffffff7fc0ffffffffffff7fbfffffffffffff7fbeffffffffffff7f80ffffffffffff7f01000000000000000000000000000000"),
        ("s64", (256,), "00000000000000000000000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000800000000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000100000000000080010000000000000001000000000000800100000000000080010000000000008001000000000000000100000000000080010000000000008001000000000000000100000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000c0ffffffffffffff00100000000000000000fcffffffffff0000000000fcffff00000000000000000100000000000000c0ffffffffffffff000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000feffffffffffffff0400000000000000f8ffffffffffffff80ffffffffffffff00000000000000800100000000000000feffffffffffffff0000000000000080000000000000004000000000000000800100000000000000ffffffffffffffff01000000000000000100000000000000ffffffffffffffff0100000000000000ffffffffffffffff0100000000000000ffffffffffffffffffffffffffffffffffffffffffffffff0100000000000000ffffffffffffffffffffffffffffffff0100000000000000ffffffffffffffff000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000200000000000000040000000000000008000000000000008000000000000000000000000000008001000000000000000200000000000000000000000000008000000000000000400000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000030000000000000009000000000000001b000000000000008b08000000000000abe9d47dd9b710d301000000000000000300000000000000abe9d47dd9b710d339a3f129f3e75a46abe9d47dd9b710d3000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000070000000000000031000000000000005701000000000000f7900c0000000000b7c71a4041ba392801000000000000000700000000000000b7c71a4041ba3928d1aeba2dc063512ab7c71a4041ba39280000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000003f00000000000000810f000000000000bfd0030000000000bfb18a1d95030000bfff015bf7bf1bbf01000000000000003f00000000000000bfff015bf7bf1bbf812086469ae65d58bfff015bf7bf1bbf000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000400000000000000000100000000000000000040000000000000000000004000000000000000000000100000000000000400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000000000041000000000000008110000000000000c130040000000000c1518d6375040000c11ff6fd445886be01000000000000004100000000000000c11ff6fd445886be813f66e44b05456dc11ff6fd445886be0000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000007f00000000000000013f0000000000007f411f00000000007fc35ad4a5e401007fdff7511eae66e201000000000000007f000000000000007fdff7511eae66e201a158da4ef995687fdff7511eae66e2000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000feffffffffffff7f0400000000000000f8ffffffffffffff80ffffffffffffff00000000000000800100000000000000feffffffffffff7f000000000000008000000000000000400000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000ffffffffffffff7f0100000000000000ffffffffffffff7fffffffffffffff7fffffffffffffff7f0100000000000000ffffffffffffff7fffffffffffffff7f0100000000000000ffffffffffffff7f"),
    ],
    "int_map_binary_s8": [
        ("s8", (256,), "0101104080ff80c0d6eef0f2feffffff00010f3f7fff81c1d6eef1f2ffffffff0000010408fff8fcfeffff00000000000000000102fffeff00000000000000000000000001ffff0000000000000000000000000000ff0000000000000000000000000000ffff01000000000000000000000000fffeff02010000000000000000000000fffdff03010100000000000000000000fdf9ff070302010000000000000000fffcf8ff080402010100000000000000fffcf7ff090403010101000000000000f8e0c0ff402015090807010000000000f8e0bfff412015090807010100000000f1c182ff7e3f2a120f0e0101010000fff1c181ff7f3f2a120f0e01010101"),
        ("s8", (256,), "00ff000000800000fefe00fe00c1feff8100f9ff008100fffffff9ffc1c2ff00f8f8000000f80000feff00f8f8f8f8f8fefefe0000fe0000fefefefefefefefeffffffff00ff00ffffffffffffffffff0000000000000000000000000000000001010101000100010101010101010101020202000002000002020202020202020303030100030001000303030303030307070701000700010100070707070707080800000008000002010008080808080909010100090001000201000909090940400000004000000101000100404040414101010041000102020102010041417e7e0600007e0000000006003e3d007e7f000701007f0001010107013f3e0100"),
        ("s8", (256,), "00000000008000000000000000000000000000000081020408800000000000000000000000f8f0e0c0000000000000000000000000fefcf8f0000000000000000000000000fffefcf880000000000000000000000000000000000000000000000000000000010204088000000000000000000000000204081000000000000000000000000003060c18800000000000000000000000070e1c38800000000000000000000000081020400000000000000000000000000912244880000000000000000000000040800000000000000000000000000000418204088000000000000000000000007efcf8f00000000000000000000000007ffefcf880000000000000"),
        ("s8", (256,), "ffffffffff80c0e0f0ffffffffffffffffffffffff81c0e0f0fffffffffffffffffffffffff8fcfefffffffffffffffffffffffffffeffffffffffffffffffffffffffffffffffffffffffffffffffff00000000000000000000000000000000000000000001000000000000000000000000000000020100000000000000000000000000000301000000000000000000000000000007030100000000000000000000000000080402010000000000000000000000000904020100000000000000000000000040201008000000000000000000000000412010080000000000000000000000007e3f1f0f0000000000000000000000007f3f1f0f00000000000000"),
        ("s8", (256,), "00000000008040201001000000000000000000000081402010010000000000000000000000f87c3e1f010000000000000000000000fe7f3f1f010000000000000000000000ff7f3f1f0100000000000000000000000000000000000000000000000000000001000000000000000000000000000000020100000000000000000000000000000301000000000000000000000000000007030100000000000000000000000000080402010000000000000000000000000904020100000000000000000000000040201008000000000000000000000000412010080000000000000000000000007e3f1f0f0000000000000000000000007f3f1f0f00000000000000"),
        ("s8", (256,), "008000008000800080800080008000808001f8fe7f0081028387088940c17eff00f840100800f8f0e8c8c0b800f8100800fe10040200fefcfaf2f0ee807e0402807f08020100fffefdf9f8f7c0bf8281000000000000000000000000000000008081f8feff0001020307080940417e7f0002f0fcfe000204060e10128082fcfe8083e8fafd0003060915181bc0c37a7d8087c8f2f900070e1531383fc0c772790008c0f0f8000810183840480008f0f88089b8eef70009121b3f485140496e7700400080c0004080c0c00040004080c080c1f87ebf004182c3c708494081fe3f007e100482007efc7a72f06e80fe048280ff080281007ffe7d79f877c03f8201"),
        ("s8", (256,), "0001787e7f80818283878889c0c1feff0102797f808182838488898ac1c2ff007879f0f6f7f8f9fafbff0001383976777e7ff6fcfdfeff00010506073e3f7c7d7f80f7fdfeff0001020607083f407d7e8081f8feff0001020307080940417e7f8182f9ff000102030408090a41427f808283fa000102030405090a0b424380818384fb0102030405060a0b0c434481828788ff05060708090a0e0f1047488586888900060708090a0b0f101148498687898a010708090a0b0c101112494a8788c0c1383e3f404142434748498081bebfc1c2393f404142434448494a8182bfc0feff767c7d7e7f8081858687bebffcfdff00777d7e7f808182868788bfc0fdfe"),
        ("s8", (256,), "00ff888281807f7e7d797877403f0201010089838281807f7e7a797841400302787700faf9f8f7f6f5f1f0efb8b77a797e7d0600fffefdfcfbf7f6f5bebd807f7f7e070100fffefdfcf8f7f6bfbe8180807f08020100fffefdf9f8f7c0bf828181800903020100fffefaf9f8c1c0838282810a0403020100fffbfaf9c2c1848383820b050403020100fcfbfac3c2858487860f09080706050400fffec7c689888887100a09080706050100ffc8c78a898988110b0a09080706020100c9c88b8ac0bf484241403f3e3d39383700ffc2c1c1c049434241403f3e3a39380100c3c2fefd86807f7e7d7c7b7776753e3d00fffffe8781807f7e7d7c7877763f3e0100"),
        ("s8", (256,), "0000000000018000000000000180000000000000000181018181018101810181000000000001f8400000000001f80000000000000001fe04f880000001fe000001ff0101ff01ff01ffff01ff01ff01ff00000000000100000000000001000000010101010101010101010101010101010000000000010204088000000102000000000000000103091b8ba1e3010339ab000000000001073157f7c1470107d1b7000000000001084000000000010800000000000000010951d97941490109b139000000000001400000000000014000000000000000014181c1c10141014181c10000000000017e04f8800000017e00000000000000017f017f7f017f017f017f"),
    ],
    "int_map_binary_u32": [
        ("u32", (169,), "ffffffff000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffff010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffff020000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffff030000000100000001000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffff070000000300000002000000010000000000000000000000000000000000000000000000000000000000000000000000ffffffff1f0000000f0000000a000000040000000100000000000000000000000000000000000000000000000000000000000000ffffffff20000000100000000a000000040000000100000001000000000000000000000000000000000000000000000000000000ffffffff21000000100000000b000000040000000100000001000000010000000000000000000000000000000000000000000000ffffffff400000002000000015000000090000000200000002000000010000000100000000000000000000000000000000000000ffffffff410000002000000015000000090000000200000002000000010000000100000001000000000000000000000000000000ffffffff7f0000003f0000002a000000120000000400000003000000030000000100000001000000010000000000000000000000fffffffffeffffffffffff7f545555552449922484104208ffffff077cf0c107ffffff03033ff003100804020100000000000000ffffffffffffffffffffff7f555555552449922484104208ffffff077cf0c107ffffff03033ff003100804020100000001000000"),
        ("u32", (169,), "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000000000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000200000000000000000000000200000002000000020000000200000002000000020000000200000002000000020000000200000003000000000000000100000000000000030000000300000003000000030000000300000003000000030000000300000003000000070000000000000001000000010000000000000007000000070000000700000007000000070000000700000007000000070000001f00000000000000010000000100000003000000000000001f0000001f0000001f0000001f0000001f0000001f0000001f0000002000000000000000000000000200000004000000010000000000000020000000200000002000000020000000200000002000000021000000000000000100000000000000050000000200000001000000000000002100000021000000210000002100000021000000400000000000000000000000010000000100000002000000000000001f0000000000000040000000400000004000000040000000410000000000000001000000020000000200000003000000010000002000000001000000000000004100000041000000410000007f00000000000000010000000100000001000000030000001f0000001c0000003f0000003e000000000000007f0000007f000000feffffff00000000000000000200000002000000020000001e000000020000003e0000003b0000000e00000000000000feffffffffffffff00000000010000000000000003000000030000001f000000030000003f0000003c0000000f0000000100000000000000"),
        ("u32", (169,), "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000200000004000000080000008000000000000080000000000000000000000000000000000000000000000000000000000200000004000000080000001000000000010000000000000000000000000000000000000000000000000000000000000000000003000000060000000c00000018000000800100000000008000000000000000000000000000000000000000000000000000000000070000000e0000001c000000380000008003000000000080000000000000000000000000000000000000000000000000000000001f0000003e0000007c000000f8000000800f00000000008000000000000000000000000000000000000000000000000000000000200000004000000080000000000100000010000000000000000000000000000000000000000000000000000000000000000000002100000042000000840000000801000080100000000000800000000000000000000000000000000000000000000000000000000040000000800000000001000000020000002000000000000000000000000000000000000000000000000000000000000000000000410000008200000004010000080200008020000000000080000000000000000000000000000000000000000000000000000000007f000000fe000000fc010000f8030000803f00000000008000000000000000000000000000000000000000000000000000000000fefffffffcfffffff8fffffff0ffffff00ffffff0000000000000000000000000000000000000000000000000000000000000000fffffffffefffffffcfffffff8ffffff80ffffff0000008000000000000000000000000000000000000000000000000000000000"),
        ("u32", (169,), "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000070000000300000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000001f0000000f0000000700000003000000000000000000000000000000000000000000000000000000000000000000000000000000200000001000000008000000040000000000000000000000000000000000000000000000000000000000000000000000000000002100000010000000080000000400000000000000000000000000000000000000000000000000000000000000000000000000000040000000200000001000000008000000000000000000000000000000000000000000000000000000000000000000000000000000410000002000000010000000080000000000000000000000000000000000000000000000000000000000000000000000000000007f0000003f0000001f0000000f000000000000000000000000000000000000000000000000000000000000000000000000000000feffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"),
        ("u32", (169,), "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000070000000300000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000001f0000000f0000000700000003000000000000000000000000000000000000000000000000000000000000000000000000000000200000001000000008000000040000000000000000000000000000000000000000000000000000000000000000000000000000002100000010000000080000000400000000000000000000000000000000000000000000000000000000000000000000000000000040000000200000001000000008000000000000000000000000000000000000000000000000000000000000000000000000000000410000002000000010000000080000000000000000000000000000000000000000000000000000000000000000000000000000007f0000003f0000001f0000000f000000000000000000000000000000000000000000000000000000000000000000000000000000feffffffffffff7fffffff3fffffff1fffffff010100000000000000000000000000000000000000000000000000000000000000ffffffffffffff7fffffff3fffffff1fffffff010100000000000000000000000000000000000000000000000000000000000000"),
        ("u32", (169,), "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000200000003000000070000001f000000200000002100000040000000410000007f000000feffffffffffffff000000000200000004000000060000000e0000003e00000040000000420000008000000082000000fe000000fcfffffffeffffff00000000030000000600000009000000150000005d0000006000000063000000c0000000c30000007d010000fafffffffdffffff00000000070000000e0000001500000031000000d9000000e0000000e7000000c0010000c701000079030000f2fffffff9ffffff000000001f0000003e0000005d000000d9000000c1030000e0030000ff030000c0070000df070000610f0000c2ffffffe1ffffff00000000200000004000000060000000e0000000e003000000040000200400000008000020080000e00f0000c0ffffffe0ffffff00000000210000004200000063000000e7000000ff030000200400004104000040080000610800005f100000beffffffdfffffff000000004000000080000000c0000000c0010000c007000000080000400800000010000040100000c01f000080ffffffc0ffffff000000004100000082000000c3000000c7010000df070000200800006108000040100000811000003f2000007effffffbfffffff000000007f000000fe0000007d01000079030000610f0000e00f00005f100000c01f00003f200000013f000002ffffff81ffffff00000000fefffffffcfffffffafffffff2ffffffc2ffffffc0ffffffbeffffff80ffffff7effffff02ffffff040000000200000000000000fffffffffefffffffdfffffff9ffffffe1ffffffe0ffffffdfffffffc0ffffffbfffffff81ffffff0200000001000000"),
        ("u32", (169,), "00000000010000000200000003000000070000001f000000200000002100000040000000410000007f000000feffffffffffffff0100000002000000030000000400000008000000200000002100000022000000410000004200000080000000ffffffff0000000002000000030000000400000005000000090000002100000022000000230000004200000043000000810000000000000001000000030000000400000005000000060000000a00000022000000230000002400000043000000440000008200000001000000020000000700000008000000090000000a0000000e00000026000000270000002800000047000000480000008600000005000000060000001f000000200000002100000022000000260000003e0000003f000000400000005f000000600000009e0000001d0000001e00000020000000210000002200000023000000270000003f000000400000004100000060000000610000009f0000001e0000001f00000021000000220000002300000024000000280000004000000041000000420000006100000062000000a00000001f0000002000000040000000410000004200000043000000470000005f00000060000000610000008000000081000000bf0000003e0000003f00000041000000420000004300000044000000480000006000000061000000620000008100000082000000c00000003f000000400000007f000000800000008100000082000000860000009e0000009f000000a0000000bf000000c0000000fe0000007d0000007e000000feffffffffffffff0000000001000000050000001d0000001e0000001f0000003e0000003f0000007d000000fcfffffffdffffffffffffff000000000100000002000000060000001e0000001f000000200000003f000000400000007e000000fdfffffffeffffff"),
        ("u32", (169,), "00000000fffffffffefffffffdfffffff9ffffffe1ffffffe0ffffffdfffffffc0ffffffbfffffff81ffffff02000000010000000100000000000000fffffffffefffffffaffffffe2ffffffe1ffffffe0ffffffc1ffffffc0ffffff82ffffff0300000002000000020000000100000000000000fffffffffbffffffe3ffffffe2ffffffe1ffffffc2ffffffc1ffffff83ffffff040000000300000003000000020000000100000000000000fcffffffe4ffffffe3ffffffe2ffffffc3ffffffc2ffffff84ffffff05000000040000000700000006000000050000000400000000000000e8ffffffe7ffffffe6ffffffc7ffffffc6ffffff88ffffff09000000080000001f0000001e0000001d0000001c0000001800000000000000fffffffffeffffffdfffffffdeffffffa0ffffff2100000020000000200000001f0000001e0000001d000000190000000100000000000000ffffffffe0ffffffdfffffffa1ffffff220000002100000021000000200000001f0000001e0000001a000000020000000100000000000000e1ffffffe0ffffffa2ffffff2300000022000000400000003f0000003e0000003d0000003900000021000000200000001f00000000000000ffffffffc1ffffff420000004100000041000000400000003f0000003e0000003a0000002200000021000000200000000100000000000000c2ffffff43000000420000007f0000007e0000007d0000007c00000078000000600000005f0000005e0000003f0000003e000000000000008100000080000000fefffffffdfffffffcfffffffbfffffff7ffffffdfffffffdeffffffddffffffbeffffffbdffffff7fffffff00000000fffffffffffffffffefffffffdfffffffcfffffff8ffffffe0ffffffdfffffffdeffffffbfffffffbeffffff80ffffff0100000000000000"),
        ("u32", (169,), "0100000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000100000001000000010000000200000004000000080000008000000000000080000000000000000001000000020000000000000000000000000000000100000003000000090000001b0000008b0800002b6a5f4b813e1ee283bb5aa60100000003000000abe9d47d000000000000000001000000070000003100000057010000f7900c00b79acb0f013b916e079df8050100000007000000b7c71a400000000000000000010000001f000000c10300005f740000df2ce167df3f308801bcd77d1fc41f3d010000001f000000df03617e000000000000000001000000200000000004000000800000000000000000000000000000000000000100000020000000000000000000000000000000010000002100000041040000618c0000e1d441ece1c75e6501c43711214430380100000021000000e10bbed8000000000000000001000000400000000010000000000400000000000000000000000000000000000100000040000000000000000000000000000000010000004100000081100000c1300400c1518d63c11759ef01089fc54108612d0100000041000000c11ff6fd0000000000000000010000007f000000013f00007f411f007fc35ad47fcf6ba101f07b147f107c29010000007f0000007fdff751000000000000000001000000feffffff04000000f8ffffff80ffffff00000080000000000000000001000000feffffff00000000000000000000000001000000ffffffff01000000ffffffffffffffffffffffff01000000ffffffff01000000ffffffffffffffff01000000ffffffff"),
    ],
    "int_map_binary_u64": [
        ("u64", (121,), "ffffffffffffffff0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffff0100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffff0200000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffff0300000000000000010000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffff0700000000000000030000000000000002000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffff3f000000000000001f0000000000000015000000000000000900000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffff4000000000000000200000000000000015000000000000000900000000000000010000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffff4100000000000000200000000000000015000000000000000900000000000000010000000000000001000000000000000100000000000000000000000000000000000000000000000000000000000000ffffffffffffffff7f000000000000003f000000000000002a000000000000001200000000000000020000000000000001000000000000000100000000000000010000000000000000000000000000000000000000000000fffffffffffffffffeffffffffffffffffffffffffffff7f545555555555555592244992244992241004411004411004ffffffffffffff03f0033ff0033ff003028140201008040201000000000000000000000000000000ffffffffffffffffffffffffffffffffffffffffffffff7f555555555555555592244992244992241004411004411004ffffffffffffff03f0033ff0033ff003028140201008040201000000000000000100000000000000"),
        ("u64", (121,), "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000200000000000000000000000000000000000000000000000200000000000000020000000000000002000000000000000200000000000000020000000000000002000000000000000200000000000000020000000000000003000000000000000000000000000000010000000000000000000000000000000300000000000000030000000000000003000000000000000300000000000000030000000000000003000000000000000300000000000000070000000000000000000000000000000100000000000000010000000000000000000000000000000700000000000000070000000000000007000000000000000700000000000000070000000000000007000000000000003f00000000000000000000000000000001000000000000000000000000000000000000000000000000000000000000003f000000000000003f000000000000003f000000000000003f000000000000003f0000000000000040000000000000000000000000000000000000000000000001000000000000000100000000000000010000000000000000000000000000004000000000000000400000000000000040000000000000004000000000000000410000000000000000000000000000000100000000000000020000000000000002000000000000000200000000000000010000000000000000000000000000004100000000000000410000000000000041000000000000007f00000000000000000000000000000001000000000000000100000000000000010000000000000001000000000000003f000000000000003e0000000000000000000000000000007f000000000000007f00000000000000feffffffffffffff00000000000000000000000000000000020000000000000000000000000000000e000000000000003e000000000000000e0000000000000000000000000000000000000000000000feffffffffffffffffffffffffffffff00000000000000000100000000000000000000000000000001000000000000000f000000000000003f000000000000000f00000000000000010000000000000001000000000000000000000000000000"),
        ("u64", (121,), "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000020000000000000004000000000000000800000000000000800000000000000000000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000002000000000000000400000000000000080000000000000010000000000000000001000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030000000000000006000000000000000c000000000000001800000000000000800100000000000000000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000007000000000000000e000000000000001c00000000000000380000000000000080030000000000000000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000003f000000000000007e00000000000000fc00000000000000f801000000000000801f00000000000000000000000000800000000000000000000000000000000000000000000000000000000000000000000000000000000040000000000000008000000000000000000100000000000000020000000000000020000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000410000000000000082000000000000000401000000000000080200000000000080200000000000000000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000007f00000000000000fe00000000000000fc01000000000000f803000000000000803f000000000000000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000fefffffffffffffffcfffffffffffffff8fffffffffffffff0ffffffffffffff00ffffffffffffff000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000fffffffffffffffffefffffffffffffffcfffffffffffffff8ffffffffffffff80ffffffffffffff000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000"),
        ("u64", (121,), "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000070000000000000003000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003f000000000000001f000000000000000f000000000000000700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000040000000000000002000000000000000100000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000410000000000000020000000000000001000000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007f000000000000003f000000000000001f000000000000000f000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000feffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"),
        ("u64", (121,), "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000200000000000000010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000070000000000000003000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000003f000000000000001f000000000000000f000000000000000700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000040000000000000002000000000000000100000000000000008000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000410000000000000020000000000000001000000000000000080000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000007f000000000000003f000000000000001f000000000000000f000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000feffffffffffffffffffffffffffff7fffffffffffffff3fffffffffffffff1fffffffffffffff01010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffffffffffffffffff7fffffffffffffff3fffffffffffffff1fffffffffffffff01010000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"),
        ("u64", (121,), "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000200000000000000030000000000000007000000000000003f00000000000000400000000000000041000000000000007f00000000000000feffffffffffffffffffffffffffffff00000000000000000200000000000000040000000000000006000000000000000e000000000000007e0000000000000080000000000000008200000000000000fe00000000000000fcfffffffffffffffeffffffffffffff00000000000000000300000000000000060000000000000009000000000000001500000000000000bd00000000000000c000000000000000c3000000000000007d01000000000000fafffffffffffffffdffffffffffffff000000000000000007000000000000000e0000000000000015000000000000003100000000000000b901000000000000c001000000000000c7010000000000007903000000000000f2fffffffffffffff9ffffffffffffff00000000000000003f000000000000007e00000000000000bd00000000000000b901000000000000810f000000000000c00f000000000000ff0f000000000000411f00000000000082ffffffffffffffc1ffffffffffffff000000000000000040000000000000008000000000000000c000000000000000c001000000000000c00f00000000000000100000000000004010000000000000c01f00000000000080ffffffffffffffc0ffffffffffffff000000000000000041000000000000008200000000000000c300000000000000c701000000000000ff0f000000000000401000000000000081100000000000003f200000000000007effffffffffffffbfffffffffffffff00000000000000007f00000000000000fe000000000000007d010000000000007903000000000000411f000000000000c01f0000000000003f20000000000000013f00000000000002ffffffffffffff81ffffffffffffff0000000000000000fefffffffffffffffcfffffffffffffffafffffffffffffff2ffffffffffffff82ffffffffffffff80ffffffffffffff7effffffffffffff02ffffffffffffff040000000000000002000000000000000000000000000000fffffffffffffffffefffffffffffffffdfffffffffffffff9ffffffffffffffc1ffffffffffffffc0ffffffffffffffbfffffffffffffff81ffffffffffffff02000000000000000100000000000000"),
        ("u64", (121,), "000000000000000001000000000000000200000000000000030000000000000007000000000000003f00000000000000400000000000000041000000000000007f00000000000000feffffffffffffffffffffffffffffff010000000000000002000000000000000300000000000000040000000000000008000000000000004000000000000000410000000000000042000000000000008000000000000000ffffffffffffffff00000000000000000200000000000000030000000000000004000000000000000500000000000000090000000000000041000000000000004200000000000000430000000000000081000000000000000000000000000000010000000000000003000000000000000400000000000000050000000000000006000000000000000a000000000000004200000000000000430000000000000044000000000000008200000000000000010000000000000002000000000000000700000000000000080000000000000009000000000000000a000000000000000e000000000000004600000000000000470000000000000048000000000000008600000000000000050000000000000006000000000000003f0000000000000040000000000000004100000000000000420000000000000046000000000000007e000000000000007f000000000000008000000000000000be000000000000003d000000000000003e00000000000000400000000000000041000000000000004200000000000000430000000000000047000000000000007f0000000000000080000000000000008100000000000000bf000000000000003e000000000000003f0000000000000041000000000000004200000000000000430000000000000044000000000000004800000000000000800000000000000081000000000000008200000000000000c0000000000000003f0000000000000040000000000000007f000000000000008000000000000000810000000000000082000000000000008600000000000000be00000000000000bf00000000000000c000000000000000fe000000000000007d000000000000007e00000000000000feffffffffffffffffffffffffffffff0000000000000000010000000000000005000000000000003d000000000000003e000000000000003f000000000000007d00000000000000fcfffffffffffffffdffffffffffffffffffffffffffffff00000000000000000100000000000000020000000000000006000000000000003e000000000000003f0000000000000040000000000000007e00000000000000fdfffffffffffffffeffffffffffffff"),
        ("u64", (121,), "0000000000000000fffffffffffffffffefffffffffffffffdfffffffffffffff9ffffffffffffffc1ffffffffffffffc0ffffffffffffffbfffffffffffffff81ffffffffffffff0200000000000000010000000000000001000000000000000000000000000000fffffffffffffffffefffffffffffffffaffffffffffffffc2ffffffffffffffc1ffffffffffffffc0ffffffffffffff82ffffffffffffff03000000000000000200000000000000020000000000000001000000000000000000000000000000fffffffffffffffffbffffffffffffffc3ffffffffffffffc2ffffffffffffffc1ffffffffffffff83ffffffffffffff040000000000000003000000000000000300000000000000020000000000000001000000000000000000000000000000fcffffffffffffffc4ffffffffffffffc3ffffffffffffffc2ffffffffffffff84ffffffffffffff0500000000000000040000000000000007000000000000000600000000000000050000000000000004000000000000000000000000000000c8ffffffffffffffc7ffffffffffffffc6ffffffffffffff88ffffffffffffff090000000000000008000000000000003f000000000000003e000000000000003d000000000000003c0000000000000038000000000000000000000000000000fffffffffffffffffeffffffffffffffc0ffffffffffffff4100000000000000400000000000000040000000000000003f000000000000003e000000000000003d00000000000000390000000000000001000000000000000000000000000000ffffffffffffffffc1ffffffffffffff42000000000000004100000000000000410000000000000040000000000000003f000000000000003e000000000000003a00000000000000020000000000000001000000000000000000000000000000c2ffffffffffffff430000000000000042000000000000007f000000000000007e000000000000007d000000000000007c00000000000000780000000000000040000000000000003f000000000000003e00000000000000000000000000000081000000000000008000000000000000fefffffffffffffffdfffffffffffffffcfffffffffffffffbfffffffffffffff7ffffffffffffffbfffffffffffffffbeffffffffffffffbdffffffffffffff7fffffffffffffff0000000000000000fffffffffffffffffffffffffffffffffefffffffffffffffdfffffffffffffffcfffffffffffffff8ffffffffffffffc0ffffffffffffffbfffffffffffffffbeffffffffffffff80ffffffffffffff01000000000000000000000000000000"),
        ("u64", (121,), "0100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000000000000000000001000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000001000000000000000100000000000000010000000000000002000000000000000400000000000000080000000000000080000000000000000000000000000080010000000000000002000000000000000000000000000080000000000000000000000000000000000100000000000000030000000000000009000000000000001b000000000000008b08000000000000abe9d47dd9b710d301000000000000000300000000000000abe9d47dd9b710d3000000000000000000000000000000000100000000000000070000000000000031000000000000005701000000000000f7900c0000000000b7c71a4041ba392801000000000000000700000000000000b7c71a4041ba39280000000000000000000000000000000001000000000000003f00000000000000810f000000000000bfd0030000000000bfb18a1d95030000bfff015bf7bf1bbf01000000000000003f00000000000000bfff015bf7bf1bbf0000000000000000000000000000000001000000000000004000000000000000001000000000000000000400000000000000000000040000000000000000000001000000000000004000000000000000000000000000000000000000000000000000000000000000010000000000000041000000000000008110000000000000c130040000000000c1518d6375040000c11ff6fd445886be01000000000000004100000000000000c11ff6fd445886be0000000000000000000000000000000001000000000000007f00000000000000013f0000000000007f411f00000000007fc35ad4a5e401007fdff7511eae66e201000000000000007f000000000000007fdff7511eae66e2000000000000000000000000000000000100000000000000feffffffffffffff0400000000000000f8ffffffffffffff80ffffffffffffff00000000000000800100000000000000feffffffffffffff0000000000000080000000000000000000000000000000000100000000000000ffffffffffffffff0100000000000000ffffffffffffffffffffffffffffffffffffffffffffffff0100000000000000ffffffffffffffffffffffffffffffff0100000000000000ffffffffffffffff"),
    ],
    "int_map_binary_u8": [
        ("u8", (144,), "ff0000000000000000000000ff0100000000000000000000ff0201000000000000000000ff0301010000000000000000ff0703020100000000000000ff0804020101000000000000ff0904030101010000000000ff4020150908070100000000ff4120150908070101000000ff7f3f2a120f0e0101010000fffe7f54241f1c0303020100ffff7f55241f1c0303020101"),
        ("u8", (144,), "0000000000000000000000000100010101010101010101010200000202020202020202020300010003030303030303030700010100070707070707070800000201000808080808080900010002010009090909094000000101000100404040404100010202010201004141417f0001010107013f3e007f7ffe0000020206023e3b0000feff0001000307033f3c010100"),
        ("u8", (144,), "00000000000000000000000001020408800000000000000002040810000000000000000003060c188000000000000000070e1c3880000000000000000810204000000000000000000912244880000000000000004080000000000000000000004182040880000000000000007ffefcf88000000000000000fefcf8f00000000000000000fffefcf88000000000000000"),
        ("u8", (144,), "0000000000000000000000000100000000000000000000000201000000000000000000000301000000000000000000000703010000000000000000000804020100000000000000000904020100000000000000004020100800000000000000004120100800000000000000007f3f1f0f0000000000000000feffffffffffffffffffffffffffffffffffffffffffffff"),
        ("u8", (144,), "0000000000000000000000000100000000000000000000000201000000000000000000000301000000000000000000000703010000000000000000000804020100000000000000000904020100000000000000004020100800000000000000004120100800000000000000007f3f1f0f0000000000000000fe7f3f1f0100000000000000ff7f3f1f0100000000000000"),
        ("u8", (144,), "0000000000000000000000000001020307080940417ffeff000204060e10128082fefcfe0003060915181bc0c37dfafd00070e1531383fc0c779f2f9000810183840480008f8f0f80009121b3f4851404977eef7004080c0c000400040c080c0004182c3c7084940813f7ebf007ffe7d79f877c03f01028100fefcfaf2f0ee807e02040200fffefdf9f8f7c0bf810201"),
        ("u8", (144,), "0001020307080940417ffeff0102030408090a414280ff0002030405090a0b4243810001030405060a0b0c43448201020708090a0e0f10474886050608090a0b0f10114849870607090a0b0c101112494a880708404142434748498081bf3e3f4142434448494a8182c03f407f808182868788bfc0fe7d7efeff00010506073e3f7dfcfdff0001020607083f407efdfe"),
        ("u8", (144,), "00fffefdf9f8f7c0bf8102010100fffefaf9f8c1c0820302020100fffbfaf9c2c183040303020100fcfbfac3c28405040706050400fffec7c6880908080706050100ffc8c7890a0909080706020100c9c88a0b0a403f3e3d39383700ffc1424141403f3e3a39380100c243427f7e7d7c7877763f3e008180fefdfcfbf7f6f5bebd7f00fffffefdfcf8f7f6bfbe800100"),
        ("u8", (144,), "0100000000000001000000000101010101010101010101010102040880000001020000000103091b8ba1e30103ab000001073157f7c1470107b70000010840000000000108000000010951d97941490109390000014000000000000140000000014181c1c101410141c10000017f017f7f017f017f7f000001fe04f880000001fe00000001ff01ffff01ff01ffff01ff"),
    ],
    "int_map_chain_s32": [("s32", (64,), "ffffff7fffffff7f00000000ffffff7f000000000000004000000040ffffff7ffffffffffeffffff00000080feffffff00000080000000c0000000c0feffffff0100008001000080000000800000008000000080010000800100008001000080000000000000000000000000ffffffff00000000000000000000000000000000ffffff7fffffff7ffeffff7ffeffff7ffeffff7fffffff7fffffff7fffffff7ffefffffffefffffffcfffffffdfffffffcfffffffdfffffffdfffffffeffffff02000000020000000000000001000000000000000100000001000000020000000100000000000000020000800000000002000080020000c0020000c000000000")],
    "int_map_unary_s32": [
        ("s32", (18,), "00000080ffffff7f20000000020000000100000000000000010000000200000003000000070000001f000000200000002100000040000000410000007f000000feffff7fffffff7f"),
        ("s32", (18,), "00000080ffffff7f20000000020000000100000000000000fffffffffefffffffdfffffff9ffffffe1ffffffe0ffffffdfffffffc0ffffffbfffffff81ffffff0200008001000080"),
        ("s32", (18,), "ffffffffffffffffffffffffffffffffffffffff00000000010000000100000001000000010000000100000001000000010000000100000001000000010000000100000001000000"),
        ("s32", (18,), "01000000020000001b0000001f0000002000000000000000010000000100000002000000030000000500000001000000020000000100000002000000070000001e0000001f000000"),
        ("s32", (18,), "0000000000000000000000000000000000000000200000001f0000001e0000001e0000001d0000001b0000001a0000001a0000001900000019000000190000000100000001000000"),
        ("s32", (18,), "ffffff7ffeffff7f1f0000000100000000000000fffffffffefffffffdfffffffcfffffff8ffffffe0ffffffdfffffffdeffffffbfffffffbeffffff80ffffff0100008000000080"),
    ],
    "int_map_unary_s64": [
        ("s64", (16,), [-9223372036854775808, 9223372036854775807, 64, 2, 1, 0, 1, 2, 3, 7, 63, 64, 65, 127, 9223372036854775806, 9223372036854775807]),
        ("s64", (16,), [-9223372036854775808, 9223372036854775807, 64, 2, 1, 0, -1, -2, -3, -7, -63, -64, -65, -127, -9223372036854775806, -9223372036854775807]),
        ("s64", (16,), [-1, -1, -1, -1, -1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        ("s64", (16,), [1, 2, 58, 63, 64, 0, 1, 1, 2, 3, 6, 1, 2, 7, 62, 63]),
        ("s64", (16,), [0, 0, 0, 0, 0, 64, 63, 62, 62, 61, 58, 57, 57, 57, 1, 1]),
        ("s64", (16,), [9223372036854775807, 9223372036854775806, 63, 1, 0, -1, -2, -3, -4, -8, -64, -65, -66, -128, -9223372036854775807, -9223372036854775808]),
    ],
    "int_map_unary_s8": [
        ("s8", (16,), [-128, 127, 8, 2, 1, 0, 1, 2, 3, 7, 8, 9, 64, 65, 126, 127]),
        ("s8", (16,), [-128, 127, 8, 2, 1, 0, -1, -2, -3, -7, -8, -9, -64, -65, -126, -127]),
        ("s8", (16,), [-1, -1, -1, -1, -1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        ("s8", (16,), [1, 2, 5, 7, 8, 0, 1, 1, 2, 3, 1, 2, 1, 2, 6, 7]),
        ("s8", (16,), [0, 0, 0, 0, 0, 8, 7, 6, 6, 5, 4, 4, 1, 1, 1, 1]),
        ("s8", (16,), [127, 126, 7, 1, 0, -1, -2, -3, -4, -8, -9, -10, -65, -66, -127, -128]),
    ],
    "int_map_unary_u32": [
        ("u32", (13,), [0, 4294967295, 4294967294, 4294967293, 4294967289, 4294967265, 4294967264, 4294967263, 4294967232, 4294967231, 4294967169, 2, 1]),
        ("u32", (13,), [0, 1, 1, 2, 3, 5, 1, 2, 1, 2, 7, 31, 32]),
        ("u32", (13,), [32, 31, 30, 30, 29, 27, 26, 26, 25, 25, 25, 0, 0]),
        ("u32", (13,), [4294967295, 4294967294, 4294967293, 4294967292, 4294967288, 4294967264, 4294967263, 4294967262, 4294967231, 4294967230, 4294967168, 1, 0]),
    ],
    "int_map_unary_u64": [
        ("u64", (11,), [0, 18446744073709551615, 18446744073709551614, 18446744073709551613, 18446744073709551609, 18446744073709551553, 18446744073709551552, 18446744073709551551, 18446744073709551489, 2, 1]),
        ("u64", (11,), [0, 1, 1, 2, 3, 6, 1, 2, 7, 63, 64]),
        ("u64", (11,), [64, 63, 62, 62, 61, 58, 57, 57, 57, 0, 0]),
        ("u64", (11,), [18446744073709551615, 18446744073709551614, 18446744073709551613, 18446744073709551612, 18446744073709551608, 18446744073709551552, 18446744073709551551, 18446744073709551550, 18446744073709551488, 1, 0]),
    ],
    "int_map_unary_u8": [
        ("u8", (12,), [0, 255, 254, 253, 249, 248, 247, 192, 191, 129, 2, 1]),
        ("u8", (12,), [0, 1, 1, 2, 3, 1, 2, 1, 2, 7, 7, 8]),
        ("u8", (12,), [8, 7, 6, 6, 5, 4, 4, 1, 1, 1, 0, 0]),
        ("u8", (12,), [255, 254, 253, 252, 248, 247, 246, 191, 190, 128, 1, 0]),
    ],
    "int_power_s16": [("s16", (324,), "000000000000000000000100008000000000000000000000000001000080000000000000000000000000000000000100018001000180018001800100018001000180018001000180000000000000000000000100f0ff000100f000000000000000000100f0ff000000000000000000000000000000000100feff0400f8ff80ff0080000000000100feff0000000000000100ffff01000100ffff0100ffff0100ffffffffffff0100ffff0100ffffffff0100ffff000000000000000000000100000000000000000000000000000001000000000000000000010001000100010001000100010001000100010001000100010001000100010001000100000000000000000000000100020004000800800000800000000001000200000000000000000000000000000000000100030009001b008b086bf241d7c38501000300abe939a3abe9000000000000000000000100070031005701f79037a4817d876e01000700b7c7d1aeb7c70000000000000000000001000f00e1002f0d6f1bef0701770ff901000f00ef52219fef520000000000000000000001001000000100100000000000000000010010000000000000000000000000000000000001001100210131137145f1d90179110901001100f194e126f19400000000000000000000010040000010000000000000000000000100400000000000000000000000000000000000010041008110c130c151c1930184418401004100c11f813fc11f0000000000000000000001007f00013f7f417fc37fc701f87f0801007f007fdf01a17fdf000000000000000000000100fe7f0400f8ff80ff0080000000000100fe7f000000000000000000000000000000000100ff7f0100ff7fff7fff7f0100ff7f0100ff7fff7f0100ff7f")],
    "int_power_u16": [("u16", (169,), "0100000000000000000000000000000001000000000000000000010001000100010001000100010001000100010001000100010001000200040008008000008000000000010002000000000000000100030009001b008b086bf241d7c38501000300abe9000000000100070031005701f79037a4817d876e01000700b7c70000000001000f00e1002f0d6f1bef0701770ff901000f00ef5200000000010010000001001000000000000000000100100000000000000001001100210131137145f1d90179110901001100f194000000000100400000100000000000000000000001004000000000000000010041008110c130c151c1930184418401004100c11f0000000001007f00013f7f417fc37fc701f87f0801007f007fdf000000000100feff0400f8ff80ff0080000000000100feff0000000000000100ffff0100ffffffffffff0100ffff0100ffffffff0100ffff")],
    "zero_all_gather_other0": [("f32", (2, 0), [])],
    "zero_all_reduce0": [("f32", (0, 3), [])],
    "zero_big_chain": [("f32", (0, 4), []), ("f32", (4,), [0.0, 0.0, 0.0, 0.0])],
    "zero_bin2_minimum": [("f32", (0, 2), [])],
    "zero_bin2_or": [("u32", (0, 2), [])],
    "zero_bin2_shift-right-logical": [("u32", (0, 2), [])],
    "zero_bin2_xor": [("u32", (0, 2), [])],
    "zero_bin_add": [("f32", (3, 0, 2), [])],
    "zero_bin_atan2": [("f32", (3, 0, 2), [])],
    "zero_bin_divide": [("f32", (3, 0, 2), [])],
    "zero_bin_maximum": [("f32", (3, 0, 2), [])],
    "zero_bin_power": [("f32", (3, 0, 2), [])],
    "zero_bin_remainder": [("f32", (3, 0, 2), [])],
    "zero_bin_subtract": [("f32", (3, 0, 2), [])],
    "zero_bitcast": [("f32", (0, 4), [])],
    "zero_bitcast_convert": [("s32", (0, 4), [])],
    "zero_bitcast_convert_narrow": [("u8", (0, 4), [])],
    "zero_bitcast_convert_wide": [("f32", (0,), [])],
    "zero_bn_grad0": [("f32", (0, 3), []), ("f32", (3,), [0.0, 0.0, NAN]), ("f32", (3,), [0.0, 0.0, 0.0])],
    "zero_bn_inf0": [("f32", (0, 3), [])],
    "zero_bn_train_batch0": [
        ("f32", (0, 3), []),
        ("f32", (3,), [NAN, NAN, NAN]),
        ("f32", (3,), [NAN, NAN, NAN]),
    ],
    "zero_bn_train_feat0": [("f32", (2, 0), []), ("f32", (0,), []), ("f32", (0,), [])],
    "zero_broadcast_from0": [("f32", (3, 0), [])],
    "zero_broadcast_scalar0": [("f32", (0, 2), [])],
    "zero_broadcast_to0": [("f32", (3, 0), [])],
    "zero_call0": [("f32", (0, 3), [])],
    "zero_cexp": [("c64", (0, 2), [])],
    "zero_cf_broadcast": [("f32", (2, 0), [])],
    "zero_cf_concat": [("f32", (2, 3), [-1.875, -1.5, -1.125, -0.75, -0.375, 0.0])],
    "zero_cf_conv": [("f32", (0, 2, 2), [])],
    "zero_cf_dot": [("f32", (2, 3), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
    "zero_cf_negate": [("f32", (0, 3), [])],
    "zero_cf_pad": [("f32", (3,), [7.0, 7.0, 7.0])],
    "zero_cf_reduce": [("f32", (3,), [2.0, 2.0, 2.0])],
    "zero_cf_reduce_var": [("f32", (3,), [-INF, -INF, -INF]), ("s32", (3,), [-1, -1, -1])],
    "zero_cf_sort": [("f32", (2, 0), [])],
    "zero_cholesky0": [("f32", (0, 3, 3), [])],
    "zero_cholesky00": [("f32", (0, 0), [])],
    "zero_clamp": [("f32", (0, 4), [])],
    "zero_clamp_full": [("f32", (0, 4), [])],
    "zero_clz0": [("u8", (0,), [])],
    "zero_compare": [("pred", (0, 4), [])],
    "zero_compare_total": [("pred", (0, 4), [])],
    "zero_complex": [("c64", (0,), [])],
    "zero_concat0": [("f32", (3, 3), [-1.875, -1.5, -1.125, -0.75, -0.375, 0.0, 0.375, 0.75, 1.125])],
    "zero_concat_all0": [("f32", (0, 3), [])],
    "zero_concat_other0": [("f32", (5, 0), [])],
    "zero_cond0": [("f32", (0, 3), [])],
    "zero_constant0": [("f32", (0, 3), [])],
    "zero_conv_1d_batch0": [("f32", (0, 3, 6), [])],
    "zero_conv_2d_c0_int": [("s32", (1, 3, 3, 3), "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000")],
    "zero_conv_batch0": [("f32", (0, 3, 3, 4), [])],
    "zero_conv_batch_group0": [("f32", (0, 3, 4), [])],
    "zero_conv_f16_batch0": [("f16", (0, 3, 3), [])],
    "zero_conv_grouped0": [("f32", (1, 3, 4), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
    "zero_conv_infeat0": [("f32", (1, 3, 3, 4), "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000")],
    "zero_conv_kernel_reversal0": [("f32", (0, 3, 4), [])],
    "zero_conv_lhs_dil0": [("f32", (1, 3, 3), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
    "zero_conv_out_spatial0": [("f32", (1, 0, 3, 4), [])],
    "zero_conv_outfeat0": [("f32", (1, 3, 3, 0), [])],
    "zero_conv_spatial0": [("f32", (1, 0, 3, 4), [])],
    "zero_conv_spatial_pad": [("f32", (1, 2, 3, 4), "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000")],
    "zero_convert": [("s8", (0, 4), [])],
    "zero_convert_bf16": [("bf16", (0, 4), [])],
    "zero_convert_f8": [("f8e4m3fn", (0, 2), [])],
    "zero_copy": [("f32", (4, 0), [])],
    "zero_copy_start": [("f32", (0, 3), [])],
    "zero_cperm0": [("f32", (0, 4), [])],
    "zero_cumsum_rw": [("f32", (0,), [])],
    "zero_domain0": [("f32", (0, 3), [])],
    "zero_dot_batch0": [("f32", (0, 2, 4), [])],
    "zero_dot_bf16_0": [("f32", (3, 2), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
    "zero_dot_k0": [("f32", (3, 4), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])],
    "zero_dot_k0_c64": [("c64", (3, 4), [complex(0.0, 0.0), complex(0.0, 0.0), complex(0.0, 0.0), complex(0.0, 0.0), complex(0.0, 0.0), complex(0.0, 0.0), complex(0.0, 0.0), complex(0.0, 0.0), complex(0.0, 0.0), complex(0.0, 0.0), complex(0.0, 0.0), complex(0.0, 0.0)])],
    "zero_dot_k0_int": [("s32", (3, 4), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])],
    "zero_dot_m0": [("f32", (0, 4), [])],
    "zero_dot_s8_0": [("s32", (3, 2), [0, 0, 0, 0, 0, 0])],
    "zero_dot_vec0": [("f32", (), [0.0])],
    "zero_dus0": [("f32", (4, 3), [-1.875, -1.5, -1.125, -0.75, -0.375, 0.0, 0.375, 0.75, 1.125, 1.5, 1.875, -1.875])],
    "zero_dus_of0": [("f32", (0, 3), [])],
    "zero_dyn_slice_idx_oob0": [("f32", (0, 1), [])],
    "zero_dynamic_slice0": [("f32", (0, 3), [])],
    "zero_dynamic_slice_of0": [("f32", (0, 2), [])],
    "zero_fft0": [("c64", (0, 4), [])],
    "zero_fft_len0": [("c64", (3, 0), [])],
    "zero_fused_reduce_of0": [("f32", (4,), [0.0, 0.0, 0.0, 0.0])],
    "zero_gather_of0": [("f32", (2, 0), [])],
    "zero_gather_zero_idx": [("f32", (0, 3), [])],
    "zero_gather_zero_slice": [("f32", (2, 0), [])],
    "zero_gdsize0": [("s32", (), [0])],
    "zero_geqrf03": [("f32", (0, 3), []), ("f32", (0,), [])],
    "zero_geqrf30": [("f32", (3, 0), []), ("f32", (0,), [])],
    "zero_ibin_and": [("s32", (0,), [])],
    "zero_ibin_divide": [("s32", (0,), [])],
    "zero_ibin_remainder": [("s32", (0,), [])],
    "zero_ibin_shift-left": [("s32", (0,), [])],
    "zero_ibin_shift-right-arithmetic": [("s32", (0,), [])],
    "zero_imag": [("f32", (0, 3), [])],
    "zero_iota0": [("s32", (0, 4), [])],
    "zero_iota0b": [("f32", (3, 0), [])],
    "zero_iota_reshape0": [("s32", (0, 5), [])],
    "zero_map0": [("f32", (0, 3), [])],
    "zero_map_int0": [("s32", (0,), [])],
    "zero_opt_barrier": [("f32", (0, 2), [])],
    "zero_pad_interior0": [("f32", (2, 7), [-0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75])],
    "zero_pad_of0": [("f32", (2, 5), [-0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75])],
    "zero_pad_to0": [("f32", (0, 3), [])],
    "zero_potrf_b0": [("f32", (0, 3, 3), []), ("s32", (0,), [])],
    "zero_ragged_dot0": [("f32", (0, 3), [])],
    "zero_rbg0": [("u64", (2,), [0, 1]), ("u32", (0, 4), [])],
    "zero_rbg_philox0": [("u64", (3,), [0, 1, 2]), ("u32", (0,), [])],
    "zero_real": [("f32", (0, 2), [])],
    "zero_reduce_all": [("f32", (), [1.5])],
    "zero_reduce_bf16_0": [("bf16", (4,), [1.0, 1.0, 1.0, 1.0])],
    "zero_reduce_int0": [("s32", (3,), [5, 5, 5])],
    "zero_reduce_keep_zero": [("f32", (0,), [])],
    "zero_reduce_max": [("f32", (3,), [-INF, -INF, -INF])],
    "zero_reduce_nonsimple0": [("f32", (4,), [1.0, 1.0, 1.0, 1.0])],
    "zero_reduce_nonsimple_keep0": [("f32", (0,), [])],
    "zero_reduce_precision": [("f32", (0, 4), [])],
    "zero_reduce_scatter0": [("f32", (0, 4), [])],
    "zero_reduce_var": [("f32", (3,), [-INF, -INF, -INF]), ("s32", (3,), [-1, -1, -1])],
    "zero_reduce_var_all0": [
        ("f32", (5,), [-INF, -INF, -INF, -INF, -INF]),
        ("s32", (5,), [-1, -1, -1, -1, -1]),
    ],
    "zero_reduce_var_keep0": [("f32", (0,), []), ("s32", (0,), [])],
    "zero_reduce_window": [("f32", (0, 3), [])],
    "zero_reduce_window_empty_out": [("f32", (0, 3), [])],
    "zero_reduce_window_pad": [("f32", (2, 3), [2.0, 2.0, 2.0, 2.0, 2.0, 2.0])],
    "zero_reduce_window_var": [("f32", (0, 3), []), ("s32", (0, 3), [])],
    "zero_reduce_zero_dim": [("f32", (4,), [1.5, 1.5, 1.5, 1.5])],
    "zero_reshape": [("f32", (3, 0, 5), [])],
    "zero_reshape2": [("f32", (0,), [])],
    "zero_reverse": [("f32", (0, 3), [])],
    "zero_rfft0": [("c64", (0, 5), [])],
    "zero_rw_base_dil0": [("f32", (1, 4), [0.0, 0.0, 0.0, 0.0])],
    "zero_rw_nonsimple0": [("f32", (0, 2), [])],
    "zero_rw_nonsimple_pad0": [("f32", (3, 2), [1.0, 1.0, 1.0, 1.0, 1.0, 1.0])],
    "zero_sas_padded_empty_windows": [("f32", (2,), [3.0, 3.0])],
    "zero_sas_zero_src": [("f32", (4, 0), [])],
    "zero_scatter_of0": [("f32", (5, 0), [])],
    "zero_scatter_var0": [("f32", (4,), [-1.875, -1.5, -1.125, -0.75]), ("s32", (4,), [-1, 0, 1, 2])],
    "zero_scatter_window0": [("f32", (4, 0), [])],
    "zero_scatter_zero_upd": [("f32", (5, 3), [-1.875, -1.5, -1.125, -0.75, -0.375, 0.0, 0.375, 0.75, 1.125, 1.5, 1.875, -1.875, -1.5, -1.125, -0.75])],
    "zero_select": [("f32", (0, 4), [])],
    "zero_select_and_scatter": [("f32", (0, 4), [])],
    "zero_slice_empty": [("f32", (0, 3), [])],
    "zero_slice_of_empty": [("f32", (0, 2), [])],
    "zero_slice_reverse0": [("f32", (0, 2), [])],
    "zero_slice_strided_empty": [("f32", (4, 0), [])],
    "zero_sort1d": [("f32", (0,), [])],
    "zero_sort2d_otherdim0": [("f32", (0, 3), [])],
    "zero_sort2d_sortdim0": [("f32", (3, 0), [])],
    "zero_sort3d_mid0": [("f32", (2, 0, 3), [])],
    "zero_sort3d_mid0_sortdim": [("f32", (2, 0, 3), [])],
    "zero_sort_int_keyed": [("s32", (3, 0), []), ("f32", (3, 0), [])],
    "zero_sort_multi_out_fused": [("f32", (0, 3), [])],
    "zero_sort_nonsimple0": [("f32", (0, 3), [])],
    "zero_sort_nonsimple_dim0": [("f32", (3, 0), [])],
    "zero_sort_var": [("f32", (2, 0), []), ("s32", (2, 0), [])],
    "zero_sort_var_stable": [("f32", (0, 4), []), ("s32", (0, 4), [])],
    "zero_stochastic_convert": [("s8", (0, 3), [])],
    "zero_topk0": [("f32", (0, 2), []), ("s32", (0, 2), [])],
    "zero_topk_k0": [("f32", (3, 0), []), ("s32", (3, 0), [])],
    "zero_transpose": [("f32", (2, 0, 3), [])],
    "zero_transpose_dot0": [("f32", (0, 2), [])],
    "zero_trsm_b0": [("f32", (4, 0), [])],
    "zero_trsv0": [("f32", (3, 0), [])],
    "zero_trsv00": [("f32", (0, 4), [])],
    "zero_trsv_batch0": [("f32", (0, 3, 2), [])],
    "zero_trsv_right0": [("f32", (0, 3), [])],
    "zero_tuple0": [("f32", (0,), []), ("s32", (2, 0), [])],
    "zero_un2_acos": [("f32", (2, 0), [])],
    "zero_un2_acosh": [("f32", (2, 0), [])],
    "zero_un2_asin": [("f32", (2, 0), [])],
    "zero_un2_asinh": [("f32", (2, 0), [])],
    "zero_un2_atanh": [("f32", (2, 0), [])],
    "zero_un2_ceil": [("f32", (2, 0), [])],
    "zero_un2_cosh": [("f32", (2, 0), [])],
    "zero_un2_cosine": [("f32", (2, 0), [])],
    "zero_un2_exponential-minus-one": [("f32", (2, 0), [])],
    "zero_un2_log": [("f32", (2, 0), [])],
    "zero_un2_log-plus-one": [("f32", (2, 0), [])],
    "zero_un2_logistic": [("f32", (2, 0), [])],
    "zero_un2_round-nearest-afz": [("f32", (2, 0), [])],
    "zero_un2_round-nearest-even": [("f32", (2, 0), [])],
    "zero_un2_rsqrt": [("f32", (2, 0), [])],
    "zero_un2_sine": [("f32", (2, 0), [])],
    "zero_un2_sinh": [("f32", (2, 0), [])],
    "zero_un2_tan": [("f32", (2, 0), [])],
    "zero_un_abs": [("f32", (0, 3), [])],
    "zero_un_cbrt": [("f32", (0, 3), [])],
    "zero_un_erf": [("f32", (0, 3), [])],
    "zero_un_exponential": [("f32", (0, 3), [])],
    "zero_un_floor": [("f32", (0, 3), [])],
    "zero_un_is-finite": [("pred", (0, 3), [])],
    "zero_un_negate": [("f32", (0, 3), [])],
    "zero_un_not": [("pred", (0,), [])],
    "zero_un_popcnt": [("s32", (2, 0), [])],
    "zero_un_sign": [("f32", (0, 3), [])],
    "zero_un_sqrt": [("f32", (0, 3), [])],
    "zero_un_tanh": [("f32", (0, 3), [])],
    "zero_while0": [("f32", (0, 3), [])],
    "zero_while_trip0": [("s32", (), [5])],
}
# END OF RECORDED OUTPUTS


def _params() -> list[object]:
    """Every (case, mode); known LLVM differences are strict xfails (fixing them must say so)."""
    return [pytest.param(n, m, marks=pytest.mark.xfail(strict=True, reason=LLVM_XFAIL[n]))
            if m.startswith("llvm") and n in LLVM_XFAIL else pytest.param(n, m)
            for n in sorted(CASES) for m in MODES]


@pytest.mark.parametrize("name,mode", _params())
def test_agrees_with_xla(name: str, mode: str) -> None:
    check(name, mode)


def test_every_case_has_xlas_outputs() -> None:
    assert sorted(CASES) == sorted(XLA_OUTPUTS)


# ------------------------------------------------------------------ the table is XLA's
@pytest.mark.slow
@pytest.mark.skipif(not AVAILABLE, reason="no XLA reference venv")
def test_recorded_values_are_xlas(tmp_path: Path) -> None:
    """Every recorded output is what XLA gives today."""
    names = sorted(CASES)
    for name in names:
        (tmp_path / f"{name}.hlo").write_text(CASES[name])
        args = _inputs(hlotools.parse_module(CASES[name], name), INPUTS.get(name))
        np.savez(tmp_path / f"{name}.in.npz", **{f"in{i}": a for i, a in enumerate(args)})
    bad = []
    for name, result in zip(names, run_in_xla([tmp_path / f"{n}.hlo" for n in names])):
        if isinstance(result, str) or len(result) != len(XLA_OUTPUTS[name]):  # type: ignore[arg-type]
            bad.append(f"{name}: XLA gives {str(result)[:200]}")
            continue
        for i, ((_, dims, data), leaf) in enumerate(zip(result, XLA_OUTPUTS[name])):  # type: ignore[arg-type]
            try:
                _same(np.frombuffer(bytes.fromhex(data), _dtype(leaf[0])).reshape(dims), leaf, f"{name} out{i}")
            except AssertionError as e:
                bad.append(str(e))
    assert not bad, "\n".join(bad)


def test_zero_sweep_covers_every_opcode() -> None:
    """Every opcode of the table has a zero-sized case or a reason in ZERO_EXCLUDED."""
    from hlotools.ir.opcodes import OPCODES
    covered = {i.opcode for n, t in CASES.items() if n.startswith("zero_")
               for c in hlotools.parse_module(t, n).computations for i in c.instructions}
    assert not covered & set(ZERO_EXCLUDED), covered & set(ZERO_EXCLUDED)
    assert set(OPCODES) - covered - set(ZERO_EXCLUDED) == set()
