"""native/targets.py: one row per architecture, and the places that read it (objfile's machine
names, AOT's object check, the worker pool's futex number and spin hint, MXCSR on x86)."""
from __future__ import annotations

import dataclasses

import llvmlite.ir as ir
import pytest

from hlotools.backend.llvm.kernels import pool_libc
from hlotools.backend.llvm.llvm_ir import denormals
from hlotools.backend.llvm.native import objfile, targets


def test_triple_names_select_one_row_each() -> None:
    names = [a for t in targets.TARGETS for a in t.triple_archs]
    assert len(names) == len(set(names))
    assert len({t.elf_machine for t in targets.TARGETS}) == len(targets.TARGETS)
    assert len({t.name for t in targets.TARGETS}) == len(targets.TARGETS)


@pytest.mark.parametrize(("triple", "name", "elf_name", "futex"), [
    ("x86_64-unknown-linux-gnu", "x86_64", "x86_64", 202),
    ("amd64-unknown-freebsd", "x86_64", "x86_64", 202),
    ("aarch64-unknown-linux-gnu", "aarch64", "aarch64", 98),
    ("arm64-apple-darwin", "aarch64", "aarch64", 98),
    ("riscv64-unknown-linux-gnu", "riscv64", "riscv", 98),
    ("ppc64le-unknown-linux-gnu", "ppc64le", "ppc64", None),
    ("i686-pc-linux-gnu", "i686", "x86", None),
    ("armv7-unknown-linux-gnueabihf", "armv7l", "arm", None),
])
def test_a_triple_picks_its_row(triple: str, name: str, elf_name: str, futex: int | None) -> None:
    row = targets.by_triple(triple)
    assert row is not None and (row.name, row.elf_name, row.futex_syscall) == (name, elf_name, futex)
    assert targets.by_elf_machine(row.elf_machine) is row
    assert objfile._machine_name(row.elf_machine) == elf_name


def test_unknown_targets() -> None:
    assert targets.by_triple("wasm32-unknown-unknown") is None and targets.by_triple("") is None
    assert objfile._machine_name(9999) == "machine-9999"


def test_the_facts_the_generated_code_used_before_the_table() -> None:
    """The numbers that were constants in pool_libc.py, kernels/parallel_for.py and denormals.py."""
    x86, arm = targets.by_arch("x86_64"), targets.by_arch("aarch64")
    assert x86 is not None and arm is not None
    assert (x86.spin_hint, x86.spin_hint_args, x86.mxcsr) == ("llvm.x86.sse2.pause", (), True)
    assert (arm.spin_hint, arm.spin_hint_args, arm.mxcsr) == ("llvm.aarch64.hint", (1,), False)
    assert all(t.sc_nprocessors_onln == 84 for t in targets.TARGETS)
    assert all(t.pthread_t_bits == t.pointer_bits for t in targets.TARGETS)
    assert pool_libc.UNAME_MACHINES == {b"x86_64\0": 202, b"aarch64\0": 98, b"riscv64\0": 98}
    assert [t.name for t in targets.TARGETS if t.mxcsr] == ["x86_64", "i686"]


def _module(triple: str) -> ir.Module:
    module = ir.Module("m")
    module.triple = triple
    return module


@pytest.mark.parametrize(("triple", "number", "hint"), [
    ("x86_64-unknown-linux-gnu", 202, "llvm.x86.sse2.pause"),
    ("aarch64-unknown-linux-gnu", 98, "llvm.aarch64.hint"),
    ("riscv64-unknown-linux-gnu", 98, None),
    ("s390x-unknown-linux-gnu", None, None),
])
def test_the_pool_reads_the_row_of_the_module_triple(triple: str, number: int | None, hint: str | None) -> None:
    module = _module(triple)
    assert pool_libc.futex_syscall_number(module) == number
    libc = pool_libc._libc(module, pool_libc.target_arch(module))
    assert (libc.pause.name if libc.pause is not None else None) == hint
    assert denormals.is_x86(module) == triple.startswith("x86_64")


def test_a_new_row_is_all_it_takes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A target added as one row is found by triple and ELF machine, and a clash of triple names fails."""
    row = targets.Target("loongarch64", ("loongarch64",), 258, "loongarch", futex_syscall=98)
    table = tuple(t for t in targets.TARGETS if t.elf_machine != 258) + (row,)
    monkeypatch.setattr(targets, "TARGETS", table)
    targets._by_arch.cache_clear()
    try:
        assert targets.by_triple("loongarch64-unknown-linux-gnu") is row
        assert pool_libc.futex_syscall_number(_module("loongarch64-unknown-linux-gnu")) == 98
        assert targets.futex_machines()["loongarch64"] == 98
        clash = dataclasses.replace(row, name="other", triple_archs=("x86_64",), elf_machine=1)
        monkeypatch.setattr(targets, "TARGETS", table + (clash,))
        targets._by_arch.cache_clear()
        with pytest.raises(AssertionError, match="two targets for x86_64"):
            targets.by_arch("x86_64")
    finally:
        monkeypatch.undo()
        targets._by_arch.cache_clear()
