"""What the backend knows per architecture, one frozen row each: the names a target triple
gives it, its ELF machine (objfile.py reads it, AOT checks its objects with it), the Linux
futex system call the worker pool sleeps on (kernels/pool_libc.py), the spin-wait hint, the
sysconf number of online CPUs and the widths of pthread_t and pointers the parallel runtime
declares (kernels/parallel_for.py), and whether it has x86's MXCSR (llvm_ir/denormals.py).

Adding a target is one row; AOT's --target-triple picks it by the triple's first component
(`by_triple`). A field left at None is a fact the backend does without on that target: no
futex pool (calls run serially), no spin hint, no machine check of AOT objects.
"""
from __future__ import annotations

import platform
from dataclasses import dataclass
from functools import cache

# glibc's sysconf(_SC_NPROCESSORS_ONLN): the asm-generic number, the same on every Linux target.
_GLIBC_NPROCESSORS_ONLN = 84


@dataclass(frozen=True)
class Target:
    """One architecture."""

    name: str  # the kernel's name for it (uname -m), also LLVM's triple component where they agree
    triple_archs: tuple[str, ...]  # triple first components (lower case) that mean this target
    elf_machine: int  # e_machine (elf.h)
    elf_name: str  # objfile.ObjectInfo.machine for that e_machine
    futex_syscall: int | None = None  # SYS_futex; None: the worker pool is not built for it
    spin_hint: str | None = None  # the intrinsic a spin-wait loop calls
    spin_hint_args: tuple[int, ...] = ()  # its i32 arguments
    sc_nprocessors_onln: int = _GLIBC_NPROCESSORS_ONLN
    pointer_bits: int = 64
    pthread_t_bits: int = 64  # unsigned long on Linux: the pointer width
    mxcsr: bool = False  # x86: FTZ/DAZ live in MXCSR (llvm_ir/denormals.py sets them)


TARGETS: tuple[Target, ...] = (
    Target("x86_64", ("x86_64", "amd64"), 62, "x86_64", futex_syscall=202, spin_hint="llvm.x86.sse2.pause",
           mxcsr=True),
    Target("aarch64", ("aarch64", "arm64"), 183, "aarch64", futex_syscall=98, spin_hint="llvm.aarch64.hint",
           spin_hint_args=(1,)),  # hint #1: YIELD
    Target("riscv64", ("riscv64",), 243, "riscv", futex_syscall=98),
    Target("ppc64le", ("ppc64le", "ppc64"), 21, "ppc64"),
    Target("s390x", ("s390x",), 22, "s390"),
    Target("i686", ("i386", "i686", "i486", "i586", "x86"), 3, "x86", pointer_bits=32, pthread_t_bits=32,
           mxcsr=True),
    Target("armv7l", ("armv7", "arm"), 40, "arm", pointer_bits=32, pthread_t_bits=32),
    # ELF machines objfile.py names, without triple names of their own (AOT does not check them)
    Target("mips", (), 8, "mips", pointer_bits=32, pthread_t_bits=32),
    Target("ppc", (), 20, "ppc", pointer_bits=32, pthread_t_bits=32),
    Target("loongarch64", (), 258, "loongarch"),
)
# A Linux target the table does not know (the host of last resort): glibc's common facts only.
GENERIC = Target("generic", (), 0, "generic")


@cache
def _by_arch() -> dict[str, Target]:
    table: dict[str, Target] = {}
    for t in TARGETS:
        for arch in t.triple_archs:
            assert arch not in table, f"two targets for {arch}"
            table[arch] = t
    return table


def by_arch(arch: str) -> Target | None:
    """The row whose triple names include `arch` (a triple's first component or uname -m)."""
    return _by_arch().get(arch.lower())


def by_triple(triple: str) -> Target | None:
    """The row of a target triple (by its first component); None for one the table does not know."""
    return by_arch(triple.split("-")[0]) if triple else None


def by_elf_machine(machine: int) -> Target | None:
    return next((t for t in TARGETS if t.elf_machine == machine), None)


def host() -> Target:
    """This machine's row (GENERIC when the table does not know it)."""
    return by_arch(platform.machine()) or GENERIC


def futex_machines() -> dict[str, int]:
    """uname -m -> SYS_futex for the rows with a futex pool (asked at run time by code whose
    target is not known while it is emitted)."""
    return {t.name: t.futex_syscall for t in TARGETS if t.futex_syscall is not None}
