"""Random numbers: Threefry-2x32 / Philox-4x32 known-answer vectors (Random123's kat_vectors),
rng-bit-generator against values XLA:CPU produced (the JAX corpus module rng_bit_generator),
the output layout rules for other shapes and widths, rng-get-and-update-state, rng's
refusal on the interpreter and, on the LLVM backend, rng's ranges and moments."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from hlotools.errors import HloUnsupportedError
from hlotools.interpreter import Evaluator
from hlotools.interpreter.random import philox4x32, threefry2x32
from tests.support.runner import opcode, run, run_both, same_bits

U32 = np.uint32


# Interpreter only: the known-answer vectors call the interpreter's Threefry and Philox
# directly; the rng-bit-generator cases below check both backends' streams.
@opcode("rng-bit-generator")
@pytest.mark.parametrize("ctr,key,expected", [
    ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x243F6A88, 0x85A308D3), (0x13198A2E, 0x03707344), (0xC4923A9C, 0x483DF7A0)),
])
def test_threefry2x32_20_known_answers(ctr: tuple, key: tuple, expected: tuple) -> None:
    x0, x1 = threefry2x32(np.array([ctr[0]], U32), np.array([ctr[1]], U32), key[0], key[1])
    assert (int(x0[0]), int(x1[0])) == expected


@opcode("rng-bit-generator")
@pytest.mark.parametrize("ctr,key,expected", [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
])
def test_philox4x32_10_known_answers(ctr: tuple, key: tuple, expected: tuple) -> None:
    out = philox4x32([np.array([c], U32) for c in ctr], key[0], key[1])
    assert tuple(int(v[0]) for v in out) == expected


def rbg(algorithm: str, dims: str, etype: str = "u32", state_n: int = 2) -> str:
    return f"""HloModule t
ENTRY e {{
  s = u64[{state_n}] parameter(0)
  ROOT r = (u64[{state_n}], {etype}[{dims}]) rng-bit-generator(s), algorithm={algorithm}
}}
"""


# The corpus key u32[4] bitcast to u64[2] (little-endian pairs), and XLA:CPU's outputs.
KEY = np.array([1996971247, 1110824154, 596101121, 1259591360], U32).view(np.uint64)


@opcode("rng-bit-generator")
def test_three_fry_matches_xla_cpu(backend: str) -> None:
    state, bits = run(rbg("rng_three_fry", "4,8"), KEY, backend=backend)
    assert bits[0, :4].tolist() == [172939527, 289420409, 2236401798, 2868672216]
    # new state: key kept, counter advanced by the 16 Threefry blocks a 4x8 u32 draw uses
    assert state.view(U32).tolist() == [1996971247, 1110824154, 596101137, 1259591360]


@opcode("rng-bit-generator")
def test_philox_matches_xla_cpu(backend: str) -> None:
    state, bits = run(rbg("rng_philox", "16"), KEY, backend=backend)
    assert bits[:4].tolist() == [1418217082, 1132902371, 7359599, 485128976]
    # 16 u32 values = 4 Philox blocks; only the low counter word is carried in a u64[2] state
    assert state.view(U32).tolist() == [1996971247, 1110824154, 596101125, 1259591360]


@opcode("rng-bit-generator")
def test_rng_default_is_philox_on_cpu(backend: str) -> None:
    a = run(rbg("rng_default", "16"), KEY, backend=backend)
    b = run(rbg("rng_philox", "16"), KEY, backend=backend)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


@opcode("rng-bit-generator")
def test_three_fry_pairs_fill_neighbours_along_the_split_dim(backend: str) -> None:
    # u32[3]: no even dim, so the (only) dim is split: blocks (c, c+1) -> [x0(c), x1(c), x0(c+1)]
    key = np.array([0x0000000500000007, 0x10], np.uint64)
    _, bits = run(rbg("rng_three_fry", "3"), key, backend=backend)
    x0, x1 = threefry2x32(np.array([0x10, 0x11], U32), np.array([0, 0], U32), 7, 5)
    assert bits.tolist() == [int(x0[0]), int(x1[0]), int(x0[1])]


@opcode("rng-bit-generator")
def test_u64_and_narrow_outputs_reuse_the_32_bit_streams(backend: str) -> None:
    key = np.array([0x0000000500000007, 0x10], np.uint64)
    _, wide = run(rbg("rng_three_fry", "2", "u64"), key, backend=backend)
    x0, x1 = threefry2x32(np.array([0x10, 0x11], U32), np.array([0, 0], U32), 7, 5)
    assert wide.tolist() == [int(x0[i]) | int(x1[i]) << 32 for i in range(2)]
    _, narrow = run(rbg("rng_philox", "6", "u16"), key, backend=backend)
    _, full = run(rbg("rng_philox", "6", "u32"), key, backend=backend)
    assert narrow.dtype == np.uint16 and narrow.tolist() == (full & 0xFFFF).tolist()


@opcode("rng-bit-generator")
def test_philox_three_word_state_carries_into_the_high_word(backend: str) -> None:
    state = np.array([3, 0xFFFFFFFFFFFFFFFF, 7], np.uint64)
    new, _ = run(rbg("rng_philox", "8", state_n=3), state, backend=backend)
    assert new.tolist() == [3, 1, 8]  # 8 u32 values = 2 blocks: low wraps 2^64 - 1 -> 1, high 7 -> 8


@opcode("rng-get-and-update-state")
def test_rng_get_and_update_state_starts_at_xla_cpu_seed(backend: str) -> None:
    """The state lives as long as the compiled module (the Evaluator): a second call sees it advanced."""
    module = hlotools.parse_module("""HloModule t
ENTRY e {
  ROOT s = u64[2] rng-get-and-update-state(), delta=5
}
""")
    if backend == "llvm":
        compiled = compile_module(module)
        first, second = (np.asarray(compiled([])[0]) for _ in range(2))
    else:
        ev = Evaluator(module)
        assert module.entry is not None
        first, second = (ev.call(module.entry, []) for _ in range(2))
    assert first.tolist() == [0x7012395, 0] and second.tolist() == [0x7012395 + 5, 0]


@opcode("rng")
def test_rng_is_refused_with_a_reason() -> None:
    # Interpreter only: the LLVM backend implements rng (XLA's RngExpander; test_rng_* below).
    module = hlotools.parse_module("""HloModule t
ENTRY e {
  a = f32[] constant(0)
  b = f32[] constant(1)
  ROOT r = f32[4] rng(a, b), distribution=rng_uniform
}
""")
    with pytest.raises(HloUnsupportedError, match="rng"):
        evaluate(module, [])


@opcode("rng-bit-generator")
def test_sub_byte_outputs_keep_the_low_bits(backend: str) -> None:
    key = np.array([0x0000000500000007, 0x10], np.uint64)
    _, full = run(rbg("rng_philox", "6", "u32"), key, backend=backend)
    _, nib = run(rbg("rng_philox", "6", "u4"), key, backend=backend)
    assert nib.astype(np.int64).tolist() == (full & 0xF).astype(np.int64).tolist()
    _, snib = run(rbg("rng_philox", "6", "s4"), key, backend=backend)
    assert snib.astype(np.int64).tolist() == [((int(v) & 0xF) ^ 8) - 8 for v in full]


# ------------------------------------------------------------------ rng
# LLVM only: the interpreter refuses rng (test_rng_is_refused_with_a_reason); the LLVM backend
# implements XLA's RngExpander with a real generator, so these check ranges and moments.
def llvm(text: str, args: list[np.ndarray] | None = None) -> list[np.ndarray]:
    return run(text, *(args or []), backend="llvm")


def rng_module(et: str, dims: str, a: str, b: str, distribution: str, count: int = 1) -> str:
    lines = [f"  r{k} = {et}[{dims}] rng(a, b), distribution={distribution}" for k in range(count)]
    root = f"  ROOT t = ({', '.join([f'{et}[{dims}]'] * count)}) tuple({', '.join(f'r{k}' for k in range(count))})"
    return (f"HloModule m\nENTRY e {{\n  a = {et}[] constant({a})\n  b = {et}[] constant({b})\n"
            + "\n".join(lines) + "\n" + root + "\n}\n")


@opcode("rng")
@pytest.mark.parametrize("et", ["s32", "u32", "s64", "u64"])
def test_rng_uniform_integers_cover_their_range(et: str) -> None:
    out = llvm(rng_module(et, "4096", "3", "10", "rng_uniform"))[0]
    assert out.min() >= 3 and out.max() < 10
    counts = np.bincount(out.astype(np.int64) - 3, minlength=7)
    assert (abs(counts - 4096 / 7) < 120).all(), counts


@opcode("rng")
def test_rng_uniform_of_an_empty_range_and_negative_bounds() -> None:
    assert not llvm(rng_module("u64", "", "0", "1", "rng_uniform"))[0]  # hlofile_0443: [0, 1)
    out = llvm(rng_module("s32", "1000", "-5", "-2", "rng_uniform"))[0]
    assert set(out.tolist()) == {-5, -4, -3}


@opcode("rng")
@pytest.mark.parametrize("et", ["f32", "f64", "f16", "bf16"])
def test_rng_uniform_floats_in_range_with_the_right_mean(et: str) -> None:
    out = llvm(rng_module(et, "64,128", "-2", "5", "rng_uniform"))[0].astype(np.float64)
    assert out.min() >= -2 and out.max() <= 5 and out.max() > 4.9 and out.min() < -1.9
    assert abs(out.mean() - 1.5) < 0.1 and abs(out.std() - 7 / np.sqrt(12)) < 0.1


@opcode("rng")
@pytest.mark.parametrize("et", ["f32", "f64", "f16", "bf16"])
def test_rng_normal_moments(et: str) -> None:
    out = llvm(rng_module(et, "16384", "1", "2", "rng_normal"))[0].astype(np.float64)
    assert np.isfinite(out).all()
    assert abs(out.mean() - 1) < 0.06 and abs(out.std() - 2) < 0.06
    assert abs(np.mean(np.abs(out - 1) < 2) - 0.6827) < 0.015  # one sigma


@opcode("rng")
def test_rng_draws_new_numbers_per_call_and_per_instruction() -> None:
    compiled = compile_module(hlotools.parse_module(rng_module("f32", "256", "0", "1", "rng_uniform", count=2)))
    first, second = [np.asarray(v) for v in compiled([])]
    again = np.asarray(compiled([])[0])
    assert not np.array_equal(first, second) and not np.array_equal(first, again)
    fresh = compile_module(hlotools.parse_module(rng_module("f32", "256", "0", "1", "rng_uniform", count=2)))
    assert np.array_equal(np.asarray(fresh([])[0]), first)  # reproducible per compiled module


@opcode("rng")
@pytest.mark.parametrize("et, distribution", [("s8", "rng_uniform"), ("s32", "rng_normal"), ("pred", "rng_uniform")])
def test_rng_of_types_xla_cannot_draw_is_refused(et: str, distribution: str) -> None:
    a, b = ("false", "true") if et == "pred" else ("0", "1")
    m = hlotools.parse_module(rng_module(et, "4", a, b, distribution), verify=False)
    with pytest.raises(HloUnsupportedError, match=r"rng %r0: XLA's RngExpander"):
        compile_module(m)


@opcode("rng")
def test_rng_bf16_rounds_from_f32() -> None:
    out = llvm(rng_module("bf16", "512", "0", "1", "rng_uniform"))[0]
    assert out.dtype == ml_dtypes.bfloat16
    assert np.array_equal(out.astype(np.float32).astype(ml_dtypes.bfloat16), out)


# ------------------------------------------------- LLVM backend vs interpreter, bit for bit
# Sweeps over types and edge values with the interpreter as the reference (run_both/same_bits):
# each case runs both backends itself, so it takes no `backend` fixture.


@opcode("rng-bit-generator")
@pytest.mark.parametrize("algorithm", ["rng_three_fry", "rng_philox", "rng_default"])
@pytest.mark.parametrize("out", ["u32[4,7]", "u64[5]", "u32[3]", "s8[2,3]", "u32[]", "f32[6]", "u4[5]"])
def test_rng_bit_generator_is_bit_exact(algorithm: str, out: str) -> None:
    for state in ("u64[2]", "u64[3]"):
        text = (f"HloModule m\nENTRY e {{\n  s = {state} parameter(0)\n"
                f"  ROOT r = ({state}, {out}) rng-bit-generator(s), algorithm={algorithm}\n}}\n")
        n = int(state[4])
        seed = np.array([0x123456789ABCDEF, 2**64 - 3, 42][:n], np.uint64)
        same_bits(*run_both(text, [seed]))
