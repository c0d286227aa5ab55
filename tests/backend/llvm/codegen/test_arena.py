"""The temp arena is not cleared (abi.new_arena): generated code must write every arena byte
before reading it. Checked by running every JAX corpus module on an arena filled with garbage
(0xFF: NaN in every float type, -1 in every integer; then 0x41: finite floats, positive ints)
and comparing with XLA's outputs, as tests/corpus/test_llvm.py does on a fresh arena, both without
passes and after the backend's O2. (The XLA corpus sweep, tests/corpus/test_llvm_xla.py, passed on
arenas filled with 0xFF and with 0x41 too, run by hand through a sitecustomize that poisons
abi.new_arena in its sandbox workers.)"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from hlotools.backend.llvm import abi
from tests.corpus.test_interpreter import JAX, _leaf_dtypes, _load, assert_matches, op_class


def test_new_arena_is_aligned_and_big_enough() -> None:
    for size in (0, 1, 63, 64, 1000, 3 << 20):
        raw, address = abi.new_arena(size)
        assert address % abi.ARENA_ALIGN == 0
        start = raw.ctypes.data
        assert start <= address and address + size <= start + raw.nbytes


def test_the_arena_is_not_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    """Binding a module never clears its arena (that memset was most of a cold compile's bind)."""
    cleared: list[int] = []
    real_zeros = np.zeros

    def recording_zeros(shape: Any, *args: Any, **kw: Any) -> np.ndarray:
        cleared.append(int(np.prod(shape)))
        return real_zeros(shape, *args, **kw)
    monkeypatch.setattr(abi.np, "zeros", recording_zeros)
    caller = abi.EntryCaller()
    caller.bind_entry(1, abi.CompileStats(arena_bytes=8 << 20), [], [])
    assert caller._arena_ptr % abi.ARENA_ALIGN == 0
    assert not [n for n in cleared if n >= 8 << 20]


def _names() -> list[str]:
    if not JAX.is_dir():
        return []
    return sorted(p.name[:-4] for p in JAX.glob("*.hlo") if p.name.count(".") == 1)


@pytest.mark.slow
@pytest.mark.skipif(not JAX.is_dir(), reason="shared/corpus/jax is absent")
@pytest.mark.parametrize("preset", ["none", "O2"])
@pytest.mark.parametrize("name", _names())
def test_jax_corpus_on_a_poisoned_arena(name: str, preset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unoptimised (the compiler's implicit fusion) and after the backend's O2 (hlo-run's and
    the benchmark's: kOutput epilogues and in-place fusions, layouts, the scheduler's order)."""
    import hlotools
    from hlotools.backend.llvm import compile_module
    from hlotools.backend.llvm.driver.pipeline import optimise_module

    real = abi.new_arena

    def poisoned(size: int) -> tuple[np.ndarray, int]:
        raw, address = real(size)
        raw[:] = 0xFF
        return raw, address
    monkeypatch.setattr(abi, "new_arena", poisoned)
    module = hlotools.parse_module((JAX / f"{name}.hlo").read_text(), f"{name}.hlo", verify=False)
    in_dt, out_dt = _leaf_dtypes(module)
    with np.load(JAX / f"{name}.inputs.npz") as f:
        args = _load(f, "in", in_dt)
    with np.load(JAX / f"{name}.expected.npz") as f:
        want = _load(f, "out", out_dt)
    compiled = compile_module(module if preset == "none" else optimise_module(module, preset))
    klass = op_class({i.opcode for c in module.computations for i in c.instructions})
    arena = compiled._arena
    assert arena.ctypes.data <= compiled._arena_ptr <= arena.ctypes.data + abi.ARENA_ALIGN
    for poison in (0xFF, 0x41):
        arena[:] = poison  # the whole arena, slack included
        got = compiled(args)
        assert len(got) == len(want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_matches(np.asarray(g), w, klass, f"{name} out{i} (arena filled with {poison:#x})")
