"""Three interpreter bugs found while lowering collectives and stochastic-convert to LLVM,
pinned against hand-worked answers on both backends (the LLVM backend's as written and after
the -O2 pipeline hlo-run uses, bit for bit):

1. stochastic-convert follows XLA's StochasticConvertDecomposer: fraction x 2^bits (in the
   operand's type) is truncated to the random type before the comparison, u64 random bits
   are compared as integers, and only signed targets are converted (others refused, located).
2. The combined -start shapes ((a, b), (a', b')) of all-gather / collective-permute.
3. The in-place collective-permute sending 0 -> 0 writes the received slices into the
   output buffer at the output offsets (clamped into bounds)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools.backend.llvm import compile_module
from hlotools.backend.llvm.driver.pipeline import optimise_module
from hlotools.errors import HloUnsupportedError
from hlotools.ir.types import ELEMENT_TYPES
from tests.support.paths import SHARED
from tests.support.runner import opcode, run


def check(text: str, args: list[np.ndarray], backend: str) -> list[np.ndarray]:
    """Run `text` on `backend`; on LLVM also after the -O2 pipeline, which must agree bit for bit."""
    with np.errstate(all="ignore"):
        got = [np.asarray(r) for r in run(text, *args, backend=backend)]
    if backend == "llvm":
        optimised = compile_module(optimise_module(hlotools.parse_module(text, verify=False), "O2"))(args)
        assert len(optimised) == len(got)
        for o, g in zip(optimised, got):
            o = np.asarray(o)
            assert o.shape == g.shape and o.dtype == g.dtype and np.array_equal(o, g), f"O2: {o} != {g}"
    return got


# ------------------------------------------------------------------ stochastic-convert

def sc_module(src: str, bits: str, dst: str, n: int) -> str:
    return (f"HloModule m\nENTRY e {{\n  x = {src}[{n}] parameter(0)\n  r = {bits}[{n}] parameter(1)\n"
            f"  ROOT y = {dst}[{n}] stochastic-convert(x, r)\n}}\n")


@opcode("stochastic-convert")
def test_the_scaled_fraction_is_truncated_before_the_comparison(backend: str) -> None:
    """1e-10 * 2^32 = 0.43 converts to u32 0, and 0 < 0 is false: no rounding up (the old
    kernel compared with the exact 0.43 and gave 1, -1)."""
    text = sc_module("f32", "u32", "s32", 3)
    args = [np.array([1e-10, -1e-10, 0.75], np.float32), np.array([0, 0, 3 << 30], np.uint32)]
    assert check(text, args, backend)[0].tolist() == [0, 0, 0]


@opcode("stochastic-convert")
def test_u64_random_bits_are_compared_as_integers(backend: str) -> None:
    """0.5 * 2^64 = 2^63: 2^63 - 1 < 2^63 rounds up, 2^63 does not (through float64 both
    bit patterns were 2^63, and neither rounded up)."""
    text = sc_module("f64", "u64", "s64", 3)
    args = [np.array([0.5, 0.5, -2.5], np.float64), np.array([2**63 - 1, 2**63, 2**63 - 1], np.uint64)]
    assert check(text, args, backend)[0].tolist() == [1, 0, -3]


def decomposer(x: np.ndarray, r: np.ndarray, dst: np.dtype, bounds: tuple[int, int] | None = None) -> np.ndarray:
    """numpy model of StochasticConvertDecomposer for types whose range holds 2^bits and
    the target's bounds: trunc(|x|) + (r < trunc(fraction * 2^bits)), signed, saturated."""
    bits = r.dtype.itemsize * 8
    lo, hi = bounds or (int(np.iinfo(dst).min), int(np.iinfo(dst).max))
    xf = x.astype(np.float64)
    with np.errstate(all="ignore"):
        whole = np.floor(np.abs(xf))
        fixed = np.nan_to_num((np.abs(xf) - whole) * 2.0 ** bits, nan=0.0)
        up = r.astype(np.uint64) < np.floor(fixed).astype(np.uint64)
        res = np.where(xf < 0, -1, 1) * (whole + up)
        res = np.where((xf > lo) & (xf < hi), res, 0).astype(dst)
    return np.where(xf >= hi, hi, np.where(xf <= lo, lo, res)).astype(dst)


EDGES = [0.0, -0.0, 0.5, -0.5, 1.25, -1.75, 2.5, 126.9, 127.5, -128.5, 1000.0, -1000.0, 1e-10, -3e-8,
         np.inf, -np.inf, np.nan]


@opcode("stochastic-convert")
@pytest.mark.parametrize("src, bits, dst", [("f32", "u32", "s8"), ("f32", "u32", "s32"), ("f16", "u16", "s16"),
                                            ("bf16", "u16", "s8"), ("f64", "u64", "s64"), ("f64", "u64", "s16"),
                                            ("f64", "u64", "s4")])
def test_stochastic_convert_is_the_decomposer(src: str, bits: str, dst: str, backend: str) -> None:
    sdt, bdt, ddt = (np.dtype(ELEMENT_TYPES[t].dtype) for t in (src, bits, dst))
    rng = np.random.default_rng(1)
    x = np.concatenate([np.array(EDGES), rng.uniform(-300, 300, 100), rng.uniform(-1, 1, 100)]).astype(sdt)
    top = (1 << (bdt.itemsize * 8)) - 1
    r = rng.integers(0, top, len(x), dtype=np.uint64, endpoint=True).astype(bdt)
    r[:4] = [0, top, 1 << (bdt.itemsize * 8 - 1), 1]
    text = sc_module(src, bits, dst, len(x))
    got = check(text, [x, r], backend)[0]
    if dst == "s4":  # computed in s8 with s4's bounds
        assert np.array_equal(got.astype(np.int8), decomposer(x, r, np.dtype(np.int8), (-8, 7)))
    else:
        assert np.array_equal(got, decomposer(x, r, ddt))


@opcode("stochastic-convert")
@pytest.mark.parametrize("src, x, r, want", [
    # 2^8 overflows f8e4m3 (max 240) to inf: fraction * inf = inf converts to u8 255
    ("f8e4m3", [0.5, 0.5, 0.0], [254, 255, 0], [1, 0, 0]),
    # ... and f8e4m3fnuz (max 240) to NaN: the fixed fraction is 0, nothing rounds up
    ("f8e4m3fnuz", [0.5, 1.5, -2.5], [0, 0, 0], [0, 1, -2]),
    # f4e2m1fn saturates: 2^4 is 6, 0.5 * 6 = 3; the bounds 127 and -128 are 6 and -6
    ("f4e2m1fn", [0.5, 0.5, 6.0, -6.0, 4.0], [2, 3, 0, 0, 0], [1, 0, 127, -128, 4]),
])
def test_narrow_operand_types_overflow_as_in_the_decomposer(src: str, x: list[float], r: list[int],
                                                            want: list[int], backend: str) -> None:
    et = ELEMENT_TYPES[src]
    bits = ELEMENT_TYPES[f"u{et.bits}"].dtype
    text = sc_module(src, f"u{et.bits}", "s8", len(x))
    args = [np.array(x, np.float64).astype(et.dtype), np.array(r, np.uint8).astype(bits)]
    assert check(text, args, backend)[0].tolist() == want


@opcode("stochastic-convert")
@pytest.mark.parametrize("dst", ["u32", "u8", "f16", "pred"])
def test_targets_other_than_signed_integers_are_refused_at_the_instruction(dst: str, backend: str) -> None:
    text = sc_module("f32", "u32", dst, 2)
    with pytest.raises(HloUnsupportedError, match=r"stochastic-convert %y[: ]") as info:
        run(text, np.zeros(2, np.float32), np.zeros(2, np.uint32), backend=backend)
    assert info.value.line == 5 and "\n" not in str(info.value)


@opcode("stochastic-convert")
def test_float8_operand_values_survive(backend: str) -> None:
    x = np.array([1.75, -3.5], ml_dtypes.float8_e4m3fn)
    r = np.array([0, 255], np.uint8)
    text = sc_module("f8e4m3fn", "u8", "s16", 2)
    assert check(text, [x, r], backend)[0].tolist() == [2, -3]


# ------------------------------------------------------------------ combined -start shapes

P_2D = "  x = f32[4,6] parameter(0)\n  y = s32[3,2] parameter(1)\n"
XY = [np.arange(24, dtype=np.float32).reshape(4, 6) - 5, np.arange(6, dtype=np.int32).reshape(3, 2) + 1]


def module(body: str, params: str = P_2D) -> str:
    return f"HloModule m\nENTRY e {{\n{params}{body}}}\n"


@opcode("all-gather-start", "all-gather-done")
def test_combined_all_gather_start_done(backend: str) -> None:
    body = ("  s = ((f32[4,6], s32[3,2]), (f32[4,6], s32[3,2])) all-gather-start(x, y), "
            "replica_groups={{0}}, dimensions={0}\n"
            "  d = (f32[4,6], s32[3,2]) all-gather-done(s)\n"
            "  ROOT t = ((f32[4,6], s32[3,2]), ((f32[4,6], s32[3,2]), (f32[4,6], s32[3,2]))) tuple(d, s)\n")
    got = check(module(body), XY, backend)
    for g, w in zip(got, XY * 3):
        assert np.array_equal(g, w)


@opcode("collective-permute-start", "collective-permute-done")
@pytest.mark.parametrize("pairs", ["{{0,0}}", "{{0,1},{1,0}}"])
def test_combined_collective_permute_start_done(pairs: str, backend: str) -> None:
    body = ("  s = ((f32[4,6], s32[3,2]), (f32[4,6], s32[3,2])) collective-permute-start(x, y), "
            f"source_target_pairs={pairs}\n"
            "  d = (f32[4,6], s32[3,2]) collective-permute-done(s)\n"
            "  ROOT t = ((f32[4,6], s32[3,2]), ((f32[4,6], s32[3,2]), (f32[4,6], s32[3,2]))) tuple(d, s)\n")
    got = check(module(body), XY, backend)
    received = XY if pairs == "{{0,0}}" else [np.zeros_like(v) for v in XY]
    for g, w in zip(got, received + XY + received):
        assert np.array_equal(g, w)


@opcode("collective-permute-start", "collective-permute-done")
def test_parser_test_0163_runs() -> None:
    path = SHARED / "corpus" / "xla" / "parser_test" / "parser_test_0163.hlo"
    if not path.exists():
        pytest.skip("shared corpus not present")
    args = [np.ones((128, 32), np.float32), np.full((128, 32), 2, np.float32)]
    # Interpreter only: a 128x32 module from the corpus, the permute's semantics are the cases above.
    got = run(path.read_text(), *args)
    assert [g.shape for g in got] == [(128, 32), (128, 32)]
    assert not any(g.any() for g in got)  # pairs 0->1, 1->2, 2->3: nobody sends to device 0


# ------------------------------------------------------------------ in-place collective-permute

HEAD = ("HloModule m\nENTRY e {\n  x = f32[4,2] parameter(0)\n  o = f32[4,4] parameter(1)\n"
        "  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  z = s32[] constant(0)\n"
        "  t0 = (s32[], s32[]) tuple(z, z)\n  tij = (s32[], s32[]) tuple(i, j)\n")
X = np.arange(1, 9, dtype=np.float32).reshape(4, 2)
OUT = np.full((4, 4), -1, np.float32)


def args_at(i: int, j: int) -> list[np.ndarray]:
    return [X, OUT, np.array(i, np.int32), np.array(j, np.int32)]


@opcode("collective-permute")
def test_in_place_permute_to_itself_writes_the_slice_at_the_output_offset(backend: str) -> None:
    text = HEAD + ("  ROOT r = f32[4,4] collective-permute(x, o, t0, tij), source_target_pairs={{0,0}}, "
                   "slice_sizes={{3,2}}\n}\n")
    want = OUT.copy()
    want[1:4, 1:3] = X[0:3, 0:2]
    assert np.array_equal(check(text, args_at(1, 1), backend)[0], want)
    # an offset that would leave the buffer is clamped: (5, 3) -> (1, 2)
    want = OUT.copy()
    want[1:4, 2:4] = X[0:3, 0:2]
    assert np.array_equal(check(text, args_at(5, 3), backend)[0], want)
    want = OUT.copy()
    want[0:3, 0:2] = X[0:3, 0:2]  # (-2, 0) clamps to (0, 0)
    assert np.array_equal(check(text, args_at(-2, 0), backend)[0], want)


@opcode("collective-permute")
def test_in_place_permute_reads_the_input_at_the_input_offset(backend: str) -> None:
    text = HEAD + ("  ROOT r = f32[4,4] collective-permute(x, o, tij, t0), source_target_pairs={{0,0}}, "
                   "slice_sizes={{2,1}}\n}\n")
    want = OUT.copy()
    want[0:2, 0:1] = X[2:4, 1:2]
    assert np.array_equal(check(text, args_at(2, 1), backend)[0], want)


@opcode("collective-permute")
def test_in_place_permute_with_two_slices_and_two_arrays(backend: str) -> None:
    two = ("  tt = ((s32[], s32[]), (s32[], s32[])) tuple(t0, tij)\n"
           "  uu = ((s32[], s32[]), (s32[], s32[])) tuple(tij, t0)\n")
    text = HEAD + two + ("  ROOT r = f32[4,4] collective-permute(x, o, tt, uu), source_target_pairs={{0,0}}, "
                         "slice_sizes={{2,2},{1,1}}\n}\n")
    want = OUT.copy()
    want[2:4, 1:3] = X[0:2, 0:2]  # slice 0: input (0,0) -> output (2,1)
    want[0:1, 0:1] = X[2:3, 1:2]  # slice 1: input (2,1) -> output (0,0)
    assert np.array_equal(check(text, args_at(2, 1), backend)[0], want)
    tuples = HEAD + two + ("  xs = (f32[4,2], f32[4,2]) tuple(x, x)\n  os = (f32[4,4], f32[4,4]) tuple(o, o)\n"
                           "  ROOT r = (f32[4,4], f32[4,4]) collective-permute(xs, os, tt, uu), "
                           "source_target_pairs={{0,0}}, slice_sizes={{2,2},{4,1}}\n}\n")
    first, second = OUT.copy(), OUT.copy()
    first[2:4, 1:3] = X[0:2, 0:2]  # array 0 gets slice 0
    second[0:4, 0:1] = X[0:4, 1:2]  # array 1 gets slice 1: input (2,1) clamped to (0,1)
    got = check(tuples, args_at(2, 1), backend)
    assert np.array_equal(got[0], first) and np.array_equal(got[1], second)


@opcode("collective-permute-start", "collective-permute-done")
def test_in_place_permute_start_done(backend: str) -> None:
    text = HEAD + ("  s = (f32[4,2], f32[4,4], u32[], u32[]) collective-permute-start(x, o, t0, tij), "
                   "source_target_pairs={{0,0}}, slice_sizes={{4,2}}\n"
                   "  d = f32[4,4] collective-permute-done(s)\n"
                   "  ROOT r = (f32[4,4], (f32[4,2], f32[4,4], u32[], u32[])) tuple(d, s)\n}\n")
    want = OUT.copy()
    want[:, 2:4] = X
    got = check(text, args_at(0, 2), backend)
    assert np.array_equal(got[0], want) and np.array_equal(got[1], X) and np.array_equal(got[2], want)
    assert got[3] == 0 and got[4] == 0


@opcode("collective-permute")
def test_in_place_permute_nobody_sends_gives_zeros(backend: str) -> None:
    text = HEAD + ("  ROOT r = f32[4,4] collective-permute(x, o, t0, tij), source_target_pairs={{0,1},{1,0}}, "
                   "slice_sizes={{3,2}}\n}\n")
    assert not check(text, args_at(1, 1), backend)[0].any()
