"""Modules real XLA runs that hlotools refused or got wrong, found by running random modules on
XLA CPU (/work/shared/tools/xla_ref.py): clamp with scalar bounds, zero-sized arrays in every
opcode family, erf, integer maps at the extremes.

Each case is an HLO module, inputs made by `_inputs` (deterministic, no RNG) and the outputs
XLA gave for them, recorded here; the interpreter (as parsed and after -O2 with the verifier
after each pass) and the LLVM backend (as parsed and after -O2) must give them bit for bit
(NaNs as NaNs). `test_recorded_values_are_xlas` re-runs every case on XLA when its venv is
installed, so the table cannot drift from what XLA does."""
from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools.interpreter import evaluate
from hlotools.ir.module import Module
from hlotools.passes.manager import ManagerOptions, run_pipeline
from hlotools.passes.pipeline import parse_pipeline, preset_spec
from hlotools.text.reparse import reparsed_copy

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
            module = reparsed_copy(module)
            run_pipeline(module, parse_pipeline(preset_spec("O2")), ManagerOptions(verify_each=True))
        with np.errstate(all="ignore"):
            return _leaves(evaluate(module, list(args)))
    from hlotools.backend.llvm.cache import CompileOptions, compile_cached
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
    "zero_all_reduce0": [("f32", (0, 3), [])],
    "zero_big_chain": [("f32", (0, 4), []), ("f32", (4,), [0.0, 0.0, 0.0, 0.0])],
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
    "zero_cperm0": [("f32", (0, 4), [])],
    "zero_cumsum_rw": [("f32", (0,), [])],
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
    "zero_iota0": [("s32", (0, 4), [])],
    "zero_iota0b": [("f32", (3, 0), [])],
    "zero_iota_reshape0": [("s32", (0, 5), [])],
    "zero_map0": [("f32", (0, 3), [])],
    "zero_map_int0": [("s32", (0,), [])],
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


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_agrees_with_xla(name: str, mode: str) -> None:
    check(name, mode)


def test_every_case_has_xlas_outputs() -> None:
    assert sorted(CASES) == sorted(XLA_OUTPUTS)


# ------------------------------------------------------------------ the table is XLA's
XLA_PYTHON = Path.home() / ".cache/hlotools-xla-ref/venv/bin/python"
XLA_REF = Path("/work/shared/tools/xla_ref.py")
# Runs in XLA's venv on case files (each with its NAME.in.npz): one JSON line per case, the
# outputs' bytes in hex or XLA's error. A case that kills XLA ends the child; the parent then
# starts another on the cases after it.
_XLA_DRIVER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import xla_ref as X
for path in sys.argv[2:]:
    try:
        module, _ = X.timed_parse(X.read_text(path), path, 1)
        z = np.load(path[:-4] + ".in.npz")
        args = X.check_inputs([z[f"in{i}"] for i in range(len(z.files))], X.entry_params(module))
        exe, _, _ = X.compile_module(module, path)
        outs, _ = X.execute(exe, args, 1, 0)
        print(json.dumps([[list(o.shape), o.tobytes().hex()] for o in outs]), flush=True)
    except Exception as e:
        print(json.dumps(str(e)), flush=True)
"""


def _xla_results(files: list[Path]) -> list[object]:
    results: list[object] = []
    while len(results) < len(files):
        rest = [str(f) for f in files[len(results):]]
        run = subprocess.run([str(XLA_PYTHON), "-c", _XLA_DRIVER, str(XLA_REF.parent), *rest],
                             capture_output=True, text=True, timeout=900)
        done = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
        results += done
        if len(results) < len(files):  # the next case killed XLA
            results.append(f"XLA died (exit {run.returncode})")
    return results


@pytest.mark.slow
@pytest.mark.skipif(not (XLA_PYTHON.exists() and XLA_REF.exists()), reason="no XLA reference venv")
def test_recorded_values_are_xlas(tmp_path: Path) -> None:
    """Every recorded output is what XLA gives today."""
    names = sorted(CASES)
    for name in names:
        (tmp_path / f"{name}.hlo").write_text(CASES[name])
        args = _inputs(hlotools.parse_module(CASES[name], name), INPUTS.get(name))
        np.savez(tmp_path / f"{name}.in.npz", **{f"in{i}": a for i, a in enumerate(args)})
    bad = []
    for name, result in zip(names, _xla_results([tmp_path / f"{n}.hlo" for n in names])):
        if isinstance(result, str) or len(result) != len(XLA_OUTPUTS[name]):  # type: ignore[arg-type]
            bad.append(f"{name}: XLA gives {str(result)[:200]}")
            continue
        for i, ((dims, data), leaf) in enumerate(zip(result, XLA_OUTPUTS[name])):  # type: ignore[arg-type]
            try:
                _same(np.frombuffer(bytes.fromhex(data), _dtype(leaf[0])).reshape(dims), leaf, f"{name} out{i}")
            except AssertionError as e:
                bad.append(str(e))
    assert not bad, "\n".join(bad)
