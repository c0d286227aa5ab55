"""Property tests: shape rules agree with what numpy computes (or a brute-force count) for the
same operation on random shapes."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hlotools.ir.attributes import PaddingConfig, SliceRange, Window, WindowDim
from hlotools.ir.shape_inference import infer_shape
from tests.support.irbuild import inst, param

DIMS = st.lists(st.integers(0, 4), min_size=0, max_size=4)
FAST = settings(max_examples=60, deadline=None)


def shape_text(dims: tuple[int, ...] | list[int], et: str = "f32") -> str:
    return f"{et}[{','.join(map(str, dims))}]"


def inferred_dims(opcode: str, operand_dims: list[list[int]], declared: str | None = None,
                  **attrs: object) -> tuple[int, ...]:
    ops = [param(shape_text(d), i) for i, d in enumerate(operand_dims)]
    return infer_shape(inst(opcode, ops, declared, **attrs)).dims


@FAST
@given(DIMS, st.randoms())
def test_transpose_matches_numpy(dims: list[int], rnd: object) -> None:
    perm = list(range(len(dims)))
    rnd.shuffle(perm)  # type: ignore[attr-defined]
    x = np.zeros(dims)
    assert inferred_dims("transpose", [dims], dimensions=tuple(perm)) == np.transpose(x, perm).shape


@FAST
@given(st.lists(st.tuples(st.integers(1, 6), st.integers(0, 6), st.integers(0, 6),
                          st.integers(1, 3)), min_size=1, max_size=3))
def test_slice_matches_numpy(spec: list[tuple[int, int, int, int]]) -> None:
    dims = [d for d, _, _, _ in spec]
    ranges = []
    for d, a, b, stride in spec:
        lo, hi = sorted((min(a, d), min(b, d)))
        ranges.append(SliceRange(lo, hi, stride))
    x = np.zeros(dims)
    want = x[tuple(slice(r.start, r.limit, r.stride) for r in ranges)].shape
    assert inferred_dims("slice", [dims], slice=tuple(ranges)) == want


def numpy_pad(x: np.ndarray, cfg: list[tuple[int, int, int]]) -> np.ndarray:
    """Interior padding by strided assignment, then edge padding (negative = cropping)."""
    for axis, (lo, hi, interior) in enumerate(cfg):
        n = x.shape[axis]
        size = n + max(n - 1, 0) * interior
        grown = np.zeros(x.shape[:axis] + (size,) + x.shape[axis + 1:])
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(0, size, interior + 1)
        grown[tuple(idx)] = x
        x = grown
        x = np.pad(x, [(max(lo, 0), max(hi, 0)) if a == axis else (0, 0) for a in range(x.ndim)])
        start, stop = max(-lo, 0), x.shape[axis] - max(-hi, 0)
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(start, max(stop, start))
        x = x[tuple(idx)]
    return x


@FAST
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(-2, 3), st.integers(-2, 3),
                          st.integers(0, 2)), min_size=1, max_size=3))
def test_pad_matches_numpy(spec: list[tuple[int, int, int, int]]) -> None:
    dims = [d for d, _, _, _ in spec]
    cfg = [(lo, hi, it) for _, lo, hi, it in spec]
    sizes = [d + lo + hi + max(d - 1, 0) * it for d, lo, hi, it in spec]
    if any(s < 0 for s in sizes):
        return  # a negative size is an error (tested in tests/ir/test_shape_inference.py)
    got = infer_shape(inst("pad", [param(shape_text(dims)), param("f32[]", 1)],
                           padding=PaddingConfig(tuple(cfg)))).dims
    assert got == numpy_pad(np.zeros(dims), cfg).shape


@FAST
@given(DIMS, st.data())
def test_reduce_matches_numpy(dims: list[int], data: st.DataObject) -> None:
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, max(len(dims) - 1, 0)), max_size=len(dims)))))
    axes = tuple(a for a in axes if a < len(dims))
    got = infer_shape(inst("reduce", [param(shape_text(dims)), param("f32[]", 1)],
                           dimensions=axes)).dims
    assert got == np.sum(np.zeros(dims), axis=axes).shape


@FAST
@given(st.integers(1, 3), st.lists(st.integers(0, 4), min_size=1, max_size=3), st.data())
def test_concatenate_matches_numpy(n: int, dims: list[int], data: st.DataObject) -> None:
    axis = data.draw(st.integers(0, len(dims) - 1))
    parts = []
    for _ in range(n):
        d = list(dims)
        d[axis] = data.draw(st.integers(0, 4))
        parts.append(d)
    got = inferred_dims("concatenate", parts, dimensions=(axis,))
    assert got == np.concatenate([np.zeros(p) for p in parts], axis=axis).shape


@FAST
@given(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2), st.lists(st.integers(1, 3), min_size=6, max_size=6))
def test_dot_general_matches_einsum(n_batch: int, n_contract: int, n_free: int,
                                    sizes: list[int]) -> None:
    """lhs = [batch..., lfree..., contract...], rhs = [contract..., batch..., rfree...]."""
    b, c = sizes[:n_batch], sizes[2:2 + n_contract]
    lf, rf = sizes[4:4 + n_free], sizes[5:5 + n_free][:1]
    lhs, rhs = b + lf + c, c + b + rf
    letters = iter("abcdefghijklmnop")
    bl, cl = [next(letters) for _ in b], [next(letters) for _ in c]
    lfl, rfl = [next(letters) for _ in lf], [next(letters) for _ in rf]
    spec = f"{''.join(bl + lfl + cl)},{''.join(cl + bl + rfl)}->{''.join(bl + lfl + rfl)}"
    want = np.einsum(spec, np.zeros(lhs), np.zeros(rhs)).shape
    got = inferred_dims("dot", [lhs, rhs],
                        lhs_batch_dims=tuple(range(len(b))),
                        rhs_batch_dims=tuple(range(len(c), len(c) + len(b))),
                        lhs_contracting_dims=tuple(range(len(b) + len(lf), len(lhs))),
                        rhs_contracting_dims=tuple(range(len(c))))
    assert got == want


def brute_force_windows(size: int, w: WindowDim) -> int:
    """Count window placements over the dilated, padded base (the definition)."""
    base = 0 if size == 0 else (size - 1) * w.base_dilation + 1
    padded = base + w.padding_low + w.padding_high
    extent = (w.size - 1) * w.window_dilation + 1
    return sum(1 for start in range(0, max(padded, 0), w.stride) if start + extent <= padded)


@FAST
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2),
                          st.integers(0, 2), st.integers(1, 2), st.integers(1, 2)),
                min_size=1, max_size=3))
def test_reduce_window_matches_brute_force(spec: list[tuple[int, ...]]) -> None:
    dims = [s[0] for s in spec]
    window = Window(tuple(WindowDim(size, stride, lo, hi, wd, bd)
                          for _, size, stride, lo, hi, wd, bd in spec))
    got = infer_shape(inst("reduce-window", [param(shape_text(dims)), param("f32[]", 1)],
                           window=window)).dims
    assert list(got) == [brute_force_windows(d, w) for d, w in zip(dims, window.dims)]


@FAST
@given(st.lists(st.integers(1, 4), min_size=0, max_size=3),
       st.sampled_from([("f32", "u8"), ("f32", "s16"), ("u8", "u8"), ("f64", "f32"), ("s16", "u8")]))
def test_bitcast_convert_narrowing_matches_numpy_view(dims: list[int], types: tuple[str, str]) -> None:
    src, dst = types
    np_types = {"f32": np.float32, "u8": np.uint8, "s16": np.int16, "f64": np.float64}
    x = np.zeros(dims, np_types[src])
    # numpy's view folds the ratio into the last dim; XLA appends a new minor dim instead.
    want = x[..., None].view(np_types[dst]).shape if x.itemsize != np.dtype(np_types[dst]).itemsize \
        else x.shape
    got = infer_shape(inst("bitcast-convert", [param(shape_text(dims, src))],
                           shape_text(dims, dst))).dims
    assert got == want
