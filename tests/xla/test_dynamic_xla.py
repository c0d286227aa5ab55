"""Bounded dynamic shapes against real XLA CPU (xla_ref.py's venv; skipped without it).

XLA refuses arguments smaller than a bound, so each module takes full-bound arrays plus s32
sizes and applies set-dimension-size itself. XLA returns a dynamic result compacted: its first
prod(runtime dims) elements, row-major, in the bound-sized buffer; ours comes back trimmed.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hlotools
from tests.support.xla_batch import AVAILABLE, run_in_xla

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="no XLA reference venv")

ADD = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n"
CASES = {
    "rows_exp_sum": ("HloModule m\n" + ADD + """ENTRY e {
  x = f32[16,8] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=16,8] set-dimension-size(x, n), dimensions={0}
  e = f32[<=16,8] exponential(d)
  z = f32[] constant(0)
  r = f32[8] reduce(e, z), dimensions={0}, to_apply=add
  ROOT t = (f32[8], f32[<=16,8]) tuple(r, e)
}""", [(16, 8)], [5], np.float32),
    "softmax_minor": ("HloModule m\n" + ADD + """ENTRY e {
  x = f32[4,8] parameter(0)
  n = s32[] parameter(1)
  d = f32[4,<=8] set-dimension-size(x, n), dimensions={1}
  e = f32[4,<=8] exponential(d)
  z = f32[] constant(0)
  s = f32[4] reduce(e, z), dimensions={1}, to_apply=add
  sb = f32[4,<=8] broadcast(s), dimensions={0}
  ROOT r = f32[4,<=8] divide(e, sb)
}""", [(4, 8)], [3], np.float32),
    "batch_dot_relu": ("""HloModule m
ENTRY e {
  x = f32[8,16] parameter(0)
  n = s32[] parameter(1)
  w = f32[16,4] parameter(2)
  d = f32[<=8,16] set-dimension-size(x, n), dimensions={0}
  y = f32[<=8,4] dot(d, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  zb = f32[<=8,4] broadcast(z), dimensions={}
  ROOT r = f32[<=8,4] maximum(y, zb)
}""", [(8, 16), (16, 4)], [6], np.float32),
    "reshape_merge_minor": ("""HloModule m
ENTRY e {
  x = s32[3,4] parameter(0)
  n = s32[] parameter(1)
  d = s32[3,<=4] set-dimension-size(x, n), dimensions={1}
  ROOT r = s32[<=12] reshape(d)
}""", [(3, 4)], [2], np.int32),
    "concatenate": ("""HloModule m
ENTRY e {
  x = s32[4] parameter(0)
  n = s32[] parameter(1)
  y = s32[3] parameter(2)
  m = s32[] parameter(3)
  a = s32[<=4] set-dimension-size(x, n), dimensions={0}
  b = s32[<=3] set-dimension-size(y, m), dimensions={0}
  ROOT c = s32[<=7] concatenate(a, b), dimensions={0}
}""", [(4,), (3,)], [2, 1], np.int32),
    "sort_reverse_pad": ("""HloModule m
less {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = s32[2,7] parameter(0)
  n = s32[] parameter(1)
  d = s32[2,<=7] set-dimension-size(x, n), dimensions={1}
  s = s32[2,<=7] sort(d), dimensions={1}, to_apply=less
  r = s32[2,<=7] reverse(d), dimensions={1}
  z = s32[] constant(-1)
  p = s32[2,<=16] pad(d, z), padding=0_0x1_2_1
  ROOT t = (s32[2,<=7], s32[2,<=7], s32[2,<=16]) tuple(s, r, p)
}""", [(2, 7)], [4], np.int32),
}


def _inputs(shapes: list[tuple[int, ...]], sizes: list[int], dtype: type) -> list[np.ndarray]:
    """Each array is followed by its size, in parameter order (the cases are written so)."""
    rng = np.random.default_rng(3)
    args: list[np.ndarray] = []
    for k, shape in enumerate(shapes):
        a = rng.integers(-50, 50, shape).astype(dtype) if dtype == np.int32 else rng.standard_normal(shape).astype(dtype)
        args.append(a)
        if k < len(sizes):
            args.append(np.asarray(sizes[k], np.int32))
    return args


def test_dynamic_results_agree_with_xla(tmp_path: Path) -> None:
    names = sorted(CASES)
    ours = {}
    for name in names:
        text, shapes, sizes, dtype = CASES[name]
        args = _inputs(shapes, sizes, dtype)
        (tmp_path / f"{name}.hlo").write_text(text)
        np.savez(tmp_path / f"{name}.in.npz", **{f"in{i}": a for i, a in enumerate(args)})
        ours[name] = hlotools.evaluate(hlotools.parse_module(text, name), args)
    results = run_in_xla([tmp_path / f"{n}.hlo" for n in names])
    for name, result in zip(names, results):
        assert not isinstance(result, str), f"{name}: XLA: {result}"
        for i, (got, (dtype, _, data)) in enumerate(zip(ours[name], result)):
            theirs = np.frombuffer(bytes.fromhex(data), dtype)[:got.size].reshape(got.shape)  # compacted
            if got.dtype.kind == "i":
                assert np.array_equal(got, theirs), f"{name} out{i}: {got} != {theirs}"
            else:
                np.testing.assert_allclose(got, theirs, rtol=1e-5, atol=1e-6, err_msg=f"{name} out{i}")
