"""EntryCaller's leaf conversions (abi.Leaf, worked out once per compiled module): every kind
of argument a caller may hand over gives the interpreter's answer, a row-major argument that
is already in place is passed without a copy, and bad arguments are one-line errors."""
from __future__ import annotations

import numpy as np
import pytest

from hlotools import parse_module
from hlotools.backend.llvm import abi
from hlotools.backend.llvm.driver.runtime import compile_module
from hlotools.errors import HloRuntimeError
from hlotools.interpreter import evaluate

TEXT = """HloModule leaves

ENTRY main {
  a = f32[3,4]{1,0} parameter(0)
  b = f32[3,4]{0,1} parameter(1)
  s = f32[] parameter(2)
  e = f32[0,4]{1,0} parameter(3)
  sb = f32[3,4]{1,0} broadcast(s), dimensions={}
  ab = f32[3,4]{1,0} add(a, b)
  r = f32[3,4]{1,0} multiply(ab, sb)
  t = f32[4,3]{0,1} transpose(r), dimensions={1,0}
  n = f32[4,0]{1,0} transpose(e), dimensions={1,0}
  ROOT out = (f32[3,4]{1,0}, f32[4,3]{0,1}, f32[], f32[4,0]{1,0}) tuple(r, t, s, n)
}
"""


@pytest.fixture(scope="module")
def compiled() -> abi.EntryCaller:
    return compile_module(parse_module(TEXT, "leaves.hlo"))


def _args(rng: np.random.Generator) -> list[np.ndarray]:
    return [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32),
            np.float32(1.5), np.zeros((0, 4), np.float32)]


def _check(compiled: abi.EntryCaller, args: list[object]) -> None:
    want = evaluate(parse_module(TEXT, "leaves.hlo"), [np.asarray(a) for a in args])
    got = compiled(args)
    assert len(got) == 4
    for g, w in zip(got, want):
        assert g.shape == np.asarray(w).shape and g.dtype == np.float32
        assert g.flags.c_contiguous
        np.testing.assert_array_equal(g, w)


def test_plain_arrays(compiled: abi.EntryCaller) -> None:
    _check(compiled, list(_args(np.random.default_rng(0))))


def test_read_only_strided_fortran_and_scalar_arguments(compiled: abi.EntryCaller) -> None:
    a, b, s, e = _args(np.random.default_rng(1))
    a.setflags(write=False)
    wide = np.zeros((3, 8), np.float32)
    wide[:, ::2] = b
    _check(compiled, [a, wide[:, ::2], np.float32(s), e])
    _check(compiled, [np.asfortranarray(a), np.asfortranarray(b), np.array(s), e[:, ::-1]])


def test_a_row_major_argument_in_place_is_not_copied(compiled: abi.EntryCaller) -> None:
    a, b, _, _ = _args(np.random.default_rng(2))
    leaf = abi.Leaf.of(compiled.param_leaves[0])
    assert leaf.perm is None and abi.to_physical(a, leaf, 0) is a
    column = abi.Leaf.of(compiled.param_leaves[1])
    assert column.perm == (1, 0) and column.physical_dims == (4, 3)
    np.testing.assert_array_equal(abi.to_physical(b, column, 1), b.T)


def test_addresses_of_every_kind_of_buffer() -> None:
    a = np.arange(6, dtype=np.float32)
    assert abi._addr(a) == a.ctypes.data
    a.setflags(write=False)
    assert abi._addr(a) == a.ctypes.data
    empty = np.empty((0, 4), np.float32)
    assert abi._addr(empty) == empty.ctypes.data
    scalar = np.array(2.0, np.float32)
    assert abi._addr(scalar) == scalar.ctypes.data
    assert abi._addr(None) is None


@pytest.mark.parametrize("bad, message", [
    (np.zeros((3, 4), np.float64), "argument 0: expected f32[3,4], got dtype float64"),
    (np.zeros((4, 3), np.float32), "argument 0: expected f32[3,4], got dims [4, 3]"),
])
def test_bad_arguments_are_one_line_errors(compiled: abi.EntryCaller, bad: np.ndarray, message: str) -> None:
    args: list[object] = list(_args(np.random.default_rng(3)))
    args[0] = bad
    with pytest.raises(HloRuntimeError) as info:
        compiled(args)
    assert str(info.value) == message
