"""Property tests (hypothesis) for integer elementwise semantics against exact Python ints."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.runner import binary, opcode

WIDTHS = {"s8": (np.int8, 8), "s16": (np.int16, 16), "s32": (np.int32, 32), "s64": (np.int64, 64)}


def _wrap(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def _c_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def _draw_operands(data: st.DataObject, ty: str) -> tuple[int, list[int], list[int], np.ndarray, np.ndarray]:
    """(bits, xs, ys, x, y): two lists of 1 to 16 values of `ty`, of one length, and their arrays."""
    dtype, bits = WIDTHS[ty]
    ints = st.integers(-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    xs = data.draw(st.lists(ints, min_size=1, max_size=16))
    ys = data.draw(st.lists(ints, min_size=len(xs), max_size=len(xs)))
    return bits, xs, ys, np.array(xs, dtype), np.array(ys, dtype)


@opcode("divide", "remainder")
@settings(max_examples=25, deadline=None)
@given(ty=st.sampled_from(sorted(WIDTHS)), data=st.data())
def test_signed_division_matches_c_semantics(ty: str, data: st.DataObject) -> None:
    bits, xs, ys, x, y = _draw_operands(data, ty)
    q = binary("divide", ty, x, y).tolist()
    r = binary("remainder", ty, x, y).tolist()
    for a, b, qq, rr in zip(xs, ys, q, r):
        if b == 0:
            assert qq == -1 and rr == a
        else:
            assert qq == _wrap(_c_div(a, b), bits)
            assert rr == _wrap(a - _c_div(a, b) * b, bits)


@opcode("shift-left", "shift-right-arithmetic", "add", "multiply")
@settings(max_examples=25, deadline=None)
@given(ty=st.sampled_from(sorted(WIDTHS)), data=st.data())
def test_add_multiply_shift_wrap_like_twos_complement(ty: str, data: st.DataObject) -> None:
    bits, xs, ys, x, y = _draw_operands(data, ty)
    assert binary("add", ty, x, y).tolist() == [_wrap(a + b, bits) for a, b in zip(xs, ys)]
    assert binary("multiply", ty, x, y).tolist() == [_wrap(a * b, bits) for a, b in zip(xs, ys)]
    shl = binary("shift-left", ty, x, y).tolist()
    sra = binary("shift-right-arithmetic", ty, x, y).tolist()
    for a, b, l_, r_ in zip(xs, ys, shl, sra):
        count = b & ((1 << bits) - 1)  # the count is read as unsigned
        assert l_ == (_wrap(a << count, bits) if count < bits else 0)
        assert r_ == (a >> count if count < bits else (-1 if a < 0 else 0))
