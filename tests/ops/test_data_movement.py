"""Data-movement kernels: expected values worked out by hand."""
from __future__ import annotations

import numpy as np
import pytest

from hlotools.errors import HloRuntimeError
from tests.support.runner import opcode, run, run1, run_both, same_bits


def _module(body: str, params: str) -> str:
    return f"HloModule t\nENTRY e {{\n{params}\n{body}\n}}"


@opcode("dynamic-slice")
def test_dynamic_slice_clamps_start_indices(backend: str) -> None:
    text = _module("  ROOT r = s32[2,2] dynamic-slice(a, i, j), dynamic_slice_sizes={2,2}",
                   "  a = s32[3,4] parameter(0)\n  i = s32[] parameter(1)\n  j = s32[] parameter(2)")
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert run1(text, a, np.int32(5), np.int32(-3), backend=backend).tolist() == [[4, 5], [8, 9]]  # starts clamp to (1, 0)
    assert run1(text, a, np.int32(0), np.int32(3), backend=backend).tolist() == [[2, 3], [6, 7]]  # column clamps to 2


@opcode("dynamic-slice")
def test_dynamic_slice_unsigned_index(backend: str) -> None:
    text = _module("  ROOT r = f32[2] dynamic-slice(a, i), dynamic_slice_sizes={2}",
                   "  a = f32[5] parameter(0)\n  i = u32[] parameter(1)")
    a = np.arange(5, dtype=np.float32)
    assert run1(text, a, np.uint32(2**32 - 1), backend=backend).tolist() == [3.0, 4.0]


@opcode("dynamic-slice", "dynamic-update-slice")
def test_u64_indices_of_2_to_the_63_and_more_clamp_high(backend: str) -> None:
    """Negative when read as s64, they must still clamp to the top, as gather's do."""
    ds = _module("  ROOT r = f32[2] dynamic-slice(a, i), dynamic_slice_sizes={2}",
                 "  a = f32[5] parameter(0)\n  i = u64[] parameter(1)")
    a = np.arange(5, dtype=np.float32)
    for i in (2**63, 2**64 - 1):
        assert run1(ds, a, np.uint64(i), backend=backend).tolist() == [3.0, 4.0]
    dus = _module("  ROOT r = s32[4] dynamic-update-slice(a, u, i)",
                  "  a = s32[4] parameter(0)\n  u = s32[2] parameter(1)\n  i = u64[] parameter(2)")
    got = run1(dus, np.zeros(4, np.int32), np.array([7, 8], np.int32), np.uint64(2**64 - 1), backend=backend)
    assert got.tolist() == [0, 0, 7, 8]


@opcode("dynamic-update-slice")
def test_dynamic_update_slice_clamps_and_copies(backend: str) -> None:
    text = _module("  ROOT r = s32[4] dynamic-update-slice(a, u, i)",
                   "  a = s32[4] parameter(0)\n  u = s32[2] parameter(1)\n  i = s32[] parameter(2)")
    a = np.zeros(4, np.int32)
    got = run1(text, a, np.array([7, 8], np.int32), np.int32(10), backend=backend)
    assert got.tolist() == [0, 0, 7, 8] and a.tolist() == [0, 0, 0, 0]


@opcode("pad")
def test_pad_with_negative_and_interior_padding(backend: str) -> None:
    text = _module("  ROOT r = s32[6] pad(a, z), padding=-1_2_1",
                   "  a = s32[3] parameter(0)\n  z = s32[] parameter(1)")
    # interior 1: [1,9,2,9,3]; low -1 crops the first: [9,2,9,3]; high 2 appends [9,9]
    assert run1(text, np.array([1, 2, 3], np.int32), np.int32(9), backend=backend).tolist() == [9, 2, 9, 3, 9, 9]
    text = _module("  ROOT r = f32[2,5] pad(a, z), padding=0_0x1_1_1",
                   "  a = f32[2,2] parameter(0)\n  z = f32[] parameter(1)")
    got = run1(text, np.array([[1, 2], [3, 4]], np.float32), np.float32(0), backend=backend)
    assert got.tolist() == [[0, 1, 0, 2, 0], [0, 3, 0, 4, 0]]


@opcode("broadcast", "transpose", "reverse", "slice", "concatenate")
def test_broadcast_transpose_reverse_slice_concat(backend: str) -> None:
    text = _module("""  b = s32[2,3,2] broadcast(a), dimensions={1}
  t = s32[2,2,3] transpose(b), dimensions={0,2,1}
  rv = s32[2,2,3] reverse(t), dimensions={2}
  s = s32[1,2,2] slice(rv), slice={[1:2], [0:2], [0:3:2]}
  ROOT c = s32[1,2,4] concatenate(s, s), dimensions={2}""", "  a = s32[3] parameter(0)")
    got = run1(text, np.array([1, 2, 3], np.int32), backend=backend)
    assert got.tolist() == [[[3, 1, 3, 1], [3, 1, 3, 1]]]


@opcode("iota", "reshape", "bitcast")
def test_iota_reshape_bitcast(backend: str) -> None:
    text = _module("""  i = f32[2,3] iota(), iota_dimension=1
  r = f32[3,2] reshape(i)
  ROOT b = f32[6] bitcast(r)""", "")
    assert run1(text, backend=backend).tolist() == [0, 1, 2, 0, 1, 2]


@opcode("tuple", "get-tuple-element")
def test_tuples_and_get_tuple_element(backend: str) -> None:
    text = _module("""  t = (s32[], (f32[2], s32[])) tuple(x, inner)
  ROOT g = (f32[2], s32[]) get-tuple-element(t), index=1""",
                   "  x = s32[] parameter(0)\n  y = f32[2] parameter(1)\n  inner = (f32[2], s32[]) tuple(y, x)")
    got = run(text, np.int32(4), np.array([1, 2], np.float32), backend=backend)
    assert [g.tolist() for g in got] == [[1.0, 2.0], 4]


@opcode("constant")
def test_elided_constant_refuses_to_run(backend: str) -> None:
    text = _module("  ROOT c = f32[3] constant({...})", "")
    with pytest.raises(HloRuntimeError, match="elided"):
        run(text, backend=backend)


@opcode("get-dimension-size", "opt-barrier")
def test_get_dimension_size_and_opt_barrier() -> None:
    text = _module("""  d = s32[] get-dimension-size(a), dimensions={1}
  ROOT o = (s32[], f32[2,7]) opt-barrier((s32[], f32[2,7]) tuple(d, a))""", "  a = f32[2,7] parameter(0)")
    got = run(text, np.zeros((2, 7), np.float32))
    assert got[0].tolist() == 7 and got[1].shape == (2, 7)


@opcode("negate")
def test_wrong_argument_is_reported(backend: str) -> None:
    text = _module("  ROOT n = f32[2] negate(a)", "  a = f32[2] parameter(0)")
    with pytest.raises(HloRuntimeError, match="expected f32\\[2\\]"):
        run(text, np.zeros(3, np.float32), backend=backend)
    with pytest.raises(HloRuntimeError, match="takes 1 argument"):
        run(text, backend=backend)


@opcode("bitcast")
def test_bitcast_reads_the_physical_layout(backend: str) -> None:
    text = _module("  ROOT b = f32[6]{0} bitcast(a)", "  a = f32[2,3]{0,1} parameter(0)")
    # column-major storage of [[0,1,2],[3,4,5]] is 0,3,1,4,2,5
    got = run1(text, np.arange(6, dtype=np.float32).reshape(2, 3), backend=backend)
    assert got.tolist() == [0, 3, 1, 4, 2, 5]
    text = _module("  ROOT b = f32[3,2]{0,1} bitcast(a)", "  a = f32[2,3]{1,0} parameter(0)")
    # row-major bytes 0..5 laid out column-major as [3,2]: element (i, j) is byte j*3 + i
    got = run1(text, np.arange(6, dtype=np.float32).reshape(2, 3), backend=backend)
    assert got.tolist() == [[0, 3], [1, 4], [2, 5]]
    text = _module("  ROOT b = s32[2] bitcast(a)", "  a = f32[2] parameter(0)")
    assert run1(text, np.array([1.0, -2.0], np.float32), backend=backend).tolist() == [0x3F800000, -0x40000000]


# ------------------------------------------------- LLVM backend vs interpreter, bit for bit
# Sweeps over types and edge values with the interpreter as the reference (run_both/same_bits):
# each case runs both backends itself, so it takes no `backend` fixture.


@opcode("transpose", "reshape", "reverse", "slice", "pad", "concatenate", "iota")
def test_data_movement() -> None:
    text = """HloModule m
ENTRY e {
  x = s32[3,4] parameter(0)
  t = s32[4,3] transpose(x), dimensions={1,0}
  r = s32[2,6] reshape(t)
  v = s32[2,6] reverse(r), dimensions={1}
  sl = s32[2,3] slice(v), slice={[0:2], [1:6:2]}
  z = s32[] constant(-7)
  p = s32[5,7] pad(sl, z), padding=1_2x2_0_1
  c = s32[5,14] concatenate(p, p), dimensions={1}
  i = s32[5,14] iota(), iota_dimension=1
  ROOT a = s32[5,14] add(c, i)
}"""
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    same_bits(*run_both(text, [x]))


@opcode("dynamic-slice", "dynamic-update-slice")
def test_dynamic_slice_and_update_clamp_like_xla() -> None:
    text = """HloModule m
ENTRY e {
  x = f32[5,6] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  u = f32[2,3] parameter(3)
  d = f32[2,3] dynamic-slice(x, i, j), dynamic_slice_sizes={2,3}
  w = f32[5,6] dynamic-update-slice(x, u, i, j)
  ROOT t = (f32[2,3], f32[5,6]) tuple(d, w)
}"""
    x = np.arange(30, dtype=np.float32).reshape(5, 6)
    u = -np.ones((2, 3), np.float32)
    for i, j in [(0, 0), (4, 5), (-3, 2), (100, -100), (2**31 - 1, 3)]:
        same_bits(*run_both(text, [x, np.int32(i), np.int32(j), u]))
