"""rng-bit-generator (bit-exact with XLA), rng-get-and-update-state, and why not rng.

rng-bit-generator follows XLA's RngBitGeneratorExpander + xla/hlo/builder/lib/prng.cc:
state[0] is the key; ThreeFry-2x32 (20 rounds) counts from state[1]; Philox-4x32 (10 rounds)
counts from a 128-bit counter (state[1], state[2]) — or, for a 2-element state, from
(low=state[1], high=state[0]). `rng_default` is Philox, the algorithm XLA:CPU (and GPU)
expand it to. The output state is (key, counter advanced by the number of blocks used).

rng-get-and-update-state returns the 128-bit state XLA:CPU keeps in a per-module global,
initialised to 0x7012395, and advances it by `delta` (kept on the Evaluator, so repeated
runs of one Evaluator continue the sequence like repeated executions of one executable).

`rng` (rng_uniform / rng_normal) is refused: XLA's RngExpander keys it with a value drawn
from a process-global std::mt19937_64, so its result depends on what ran earlier in the
process and cannot be reproduced.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from hlotools.errors import HloRuntimeError
from hlotools.interpreter.registry import kernel, unsupported
from hlotools.ir.instruction import Instruction

U32 = np.uint32
U64 = np.uint64
_M32 = np.uint64(0xFFFFFFFF)

unsupported("XLA keys rng (rng_uniform/rng_normal) with a process-global std::mt19937_64 draw "
            "(RngExpander), so its values are not reproducible; use rng-bit-generator", "rng")


def _fail(inst: Instruction, message: str) -> HloRuntimeError:
    return HloRuntimeError(f"{inst.opcode} %{inst.name}: {message}", inst.line or None, inst.column or None)


def _split64(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, U64)
    return (x & _M32).astype(U32), (x >> U64(32)).astype(U32)


def _join64(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return lo.astype(U64) | (hi.astype(U64) << U64(32))


def _rotl(v: np.ndarray, d: int) -> np.ndarray:
    return (v << U32(d)) | (v >> U32(32 - d))


def threefry2x32(x0: np.ndarray, x1: np.ndarray, k0: Any, k1: Any) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32 with 20 rounds (Salmon et al. 2011), as in XLA's prng.cc."""
    rotations = (13, 15, 26, 6, 17, 29, 16, 24)
    k0, k1 = U32(k0), U32(k1)
    k2 = U32(0x1BD11BDA) ^ k0 ^ k1
    ks = (k0, k1, k2)
    x0 = (np.asarray(x0, U32) + k0).astype(U32)
    x1 = (np.asarray(x1, U32) + k1).astype(U32)
    with np.errstate(over="ignore"):
        for block in range(5):
            for r in rotations[:4] if block % 2 == 0 else rotations[4:]:
                x0 = x0 + x1
                x1 = _rotl(x1, r) ^ x0
            x0 = x0 + ks[(block + 1) % 3]
            x1 = x1 + ks[(block + 2) % 3] + U32(block + 1)
    return x0, x1


def philox4x32(x: list[np.ndarray], k0: Any, k1: Any) -> list[np.ndarray]:
    """Philox-4x32 with 10 rounds, as in XLA's prng.cc."""
    ma, mb = U64(0xD2511F53), U64(0xCD9E8D57)
    x0, x1, x2, x3 = (np.asarray(v, U32) for v in x)
    k0, k1 = U32(k0), U32(k1)
    with np.errstate(over="ignore"):
        for _ in range(10):
            p0 = x0.astype(U64) * ma
            p1 = x2.astype(U64) * mb
            hi0, lo0 = (p0 >> U64(32)).astype(U32), (p0 & _M32).astype(U32)
            hi1, lo1 = (p1 >> U64(32)).astype(U32), (p1 & _M32).astype(U32)
            x0, x1, x2, x3 = hi1 ^ x1 ^ k0, lo1, hi0 ^ x3 ^ k1, lo0
            k0 = k0 + U32(0x9E3779B9)
            k1 = k1 + U32(0xBB67AE85)
    return [x0, x1, x2, x3]


def _split_dim(dims: tuple[int, ...]) -> int:
    """SplitShapeIntoHalves: the first even dim, else the (first) largest."""
    for i, d in enumerate(dims):
        if d % 2 == 0:
            return i
    return max(range(len(dims)), key=lambda i: (dims[i], -i))


def threefry_bits32(key: int, counter: int, dims: tuple[int, ...]) -> tuple[np.ndarray, int]:
    """ThreeFryRngBit32: each 2x32 block fills two neighbours along the split dimension."""
    k0, k1 = _split64(np.asarray(key, U64))
    if not dims:
        x0, _ = threefry2x32(*_split64(np.asarray([counter], U64)), k0, k1)
        return x0.reshape(()), counter + 1
    s = _split_dim(dims)
    half = dims[:s] + ((dims[s] + 1) // 2,) + dims[s + 1:]
    n = int(np.prod(half))
    with np.errstate(over="ignore"):
        ctr = U64(counter) + np.arange(n, dtype=U64)
    x0, x1 = threefry2x32(*_split64(ctr), k0, k1)
    x0, x1 = x0.reshape(half), x1.reshape(half)
    both = np.stack([x0, x1], axis=s + 1)  # (..., ceil(d/2), 2, ...)
    merged = both.reshape(dims[:s] + (half[s] * 2,) + dims[s + 1:])
    return np.take(merged, np.arange(dims[s]), axis=s), counter + n


def threefry_bits64(key: int, counter: int, dims: tuple[int, ...]) -> tuple[np.ndarray, int]:
    k0, k1 = _split64(np.asarray(key, U64))
    n = int(np.prod(dims))
    with np.errstate(over="ignore"):
        ctr = U64(counter) + np.arange(n, dtype=U64)
    x0, x1 = threefry2x32(*_split64(ctr), k0, k1)
    return _join64(x0, x1).reshape(dims), counter + n


def philox_blocks(key: int, lo: int, hi: int, blocks: int) -> tuple[list[np.ndarray], int, int]:
    """Philox outputs for counters (hi:lo) + 0..blocks-1 and the advanced 128-bit counter."""
    k0, k1 = _split64(np.asarray(key, U64))
    with np.errstate(over="ignore"):
        low = U64(lo) + np.arange(blocks, dtype=U64)
    high = np.where(low < U64(lo), U64((hi + 1) & 0xFFFFFFFFFFFFFFFF), U64(hi)).astype(U64)
    c0, c1 = _split64(low)
    c2, c3 = _split64(high)
    out = philox4x32([c0, c1, c2, c3], k0, k1)
    new_lo = (lo + blocks) & 0xFFFFFFFFFFFFFFFF
    new_hi = (hi + (1 if new_lo < lo else 0)) & 0xFFFFFFFFFFFFFFFF
    return out, new_lo, new_hi


def philox_bits32(key: int, lo: int, hi: int, dims: tuple[int, ...]) -> tuple[np.ndarray, int, int]:
    n = int(np.prod(dims))
    out, nlo, nhi = philox_blocks(key, lo, hi, (n + 3) // 4)
    numbers = np.stack(out, axis=1).reshape(-1)[:n]  # round robin: block i -> 4i..4i+3
    return numbers.reshape(dims), nlo, nhi


def philox_bits64(key: int, lo: int, hi: int, dims: tuple[int, ...]) -> tuple[np.ndarray, int, int]:
    n = int(np.prod(dims))
    out, nlo, nhi = philox_blocks(key, lo, hi, (2 * n + 3) // 4)
    pair = np.stack([_join64(out[0], out[1]), _join64(out[2], out[3])], axis=1)
    return pair.reshape(-1)[:n].reshape(dims), nlo, nhi


def _as_result(bits: np.ndarray, dtype: np.dtype, width: int) -> np.ndarray:
    """Narrow types take the low `width` bits of 32-bit draws (ConvertElementType to the
    unsigned type of that width), then the bits are reinterpreted as the declared type."""
    if width < 8:
        low = (bits & U32((1 << width) - 1)).astype(np.uint8)
        if dtype.name.startswith("int"):  # sign-extend the stored two's complement nibble
            return np.where(low >= (1 << (width - 1)), low.astype(np.int16) - (1 << width), low).astype(dtype)
        return low.astype(dtype) if not dtype.name.startswith("float") else low.view(dtype)
    unsigned = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    return bits.astype(unsigned).view(dtype) if bits.dtype != dtype else bits


@kernel("rng-bit-generator")
def rng_bit_generator(inst: Instruction, args: list[Any], ev: Any) -> tuple:
    state = np.asarray(args[0]).astype(U64).reshape(-1)
    shapes = inst.shape.tuple_shapes
    if not inst.shape.is_tuple or shapes is None or len(shapes) != 2 or state.size < 2:
        raise _fail(inst, "expected a u64[>=2] state and a (state, bits) tuple result")
    dims = tuple(shapes[1].dims)
    dtype = shapes[1].dtype
    etype = shapes[1].element_type
    width = etype.bits if etype is not None else dtype.itemsize * 8
    if width > 64 or dtype.kind == "b" or dtype.kind == "c":
        raise _fail(inst, f"rng-bit-generator cannot produce {shapes[1].element_type} values")
    algorithm = str(inst.attrs.get("algorithm", "rng_default")).lower()
    key = int(state[0])
    new_state = state.copy()
    if algorithm == "rng_three_fry":
        gen = threefry_bits64 if width == 64 else threefry_bits32
        bits, counter = gen(key, int(state[1]), dims)
        new_state[1] = U64(counter & 0xFFFFFFFFFFFFFFFF)
    elif algorithm in ("rng_philox", "rng_default"):
        lo, hi = (int(state[1]), int(state[2])) if state.size >= 3 else (int(state[1]), int(state[0]))
        gen64 = philox_bits64 if width == 64 else philox_bits32
        bits, nlo, nhi = gen64(key, lo, hi, dims)
        new_state[1] = U64(nlo)
        if state.size >= 3:
            new_state[2] = U64(nhi)
    else:
        raise _fail(inst, f"unknown rng algorithm {algorithm}")
    state_out = new_state.reshape(np.shape(args[0])).astype(shapes[0].dtype)
    return state_out, _as_result(bits, dtype, width)


# XLA:CPU's rng_state global starts at this value (llvm_ir::GetOrCreateVariableForRngState).
INITIAL_RNG_STATE = 0x7012395


@kernel("rng-get-and-update-state")
def rng_get_and_update_state(inst: Instruction, args: list[Any], ev: Any) -> np.ndarray:
    delta = int(inst.attrs.get("delta", 0))
    old = getattr(ev, "rng_state", INITIAL_RNG_STATE)
    try:
        ev.rng_state = (old + delta) % (1 << 128)
    except AttributeError:  # an Evaluator with __slots__: state cannot persist between calls
        pass
    return np.array([old & 0xFFFFFFFFFFFFFFFF, old >> 64], dtype=U64)
