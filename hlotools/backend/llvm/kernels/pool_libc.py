"""What the worker pool (kernels/thread_pool.py) needs from the target and libc: the futex system
call number by architecture (or uname() at run time when the triple is not known while the
module is emitted), libc's declarations with the architecture's spin-wait hint, and small IR
helpers (monotonic clock, a sleeping lock). Only libc: no compiler-rt, no C compiler."""
from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ir

from hlotools.backend.llvm.kernels.parallel_for import declare
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64
from hlotools.backend.llvm.native import targets

# uname()'s machine field -> SYS_futex (native/targets.py), for modules whose triple is not known
# while they are emitted (the JIT's, and AOT's: aot.py sets the triple after codegen, so a
# cross-compiled object must not carry the host's number). First 8 bytes, little-endian, NUL included.
UNAME_MACHINES = {name.encode() + b"\0": number for name, number in targets.futex_machines().items()}
UTSNAME_BYTES = 6 * 65  # struct utsname on Linux: six char[65] fields
UTSNAME_MACHINE = 4 * 65
FUTEX_WAIT_PRIVATE = 0 | 128
FUTEX_WAKE_PRIVATE = 1 | 128
CLOCK_MONOTONIC = 1


@dataclass(frozen=True)
class _Libc:
    create: ir.Function
    join: ir.Function
    syscall: ir.Function
    clock: ir.Function
    getpid: ir.Function
    yield_: ir.Function
    usleep: ir.Function
    sysconf: ir.Function
    uname: ir.Function
    pause: ir.Function | None
    pause_args: tuple[ir.Value, ...]


def target_arch(module: ir.Module) -> str | None:
    """The architecture of the module's target triple; None while it has none."""
    triple = str(module.triple or "")
    if not triple or triple.startswith("unknown"):
        return None
    return triple.split("-")[0].lower()


def futex_syscall_number(module: ir.Module) -> int | None:
    """SYS_futex for the module's target triple (-1: no triple yet, the pool asks uname() at
    run time); None for an architecture this file does not know."""
    arch = target_arch(module)
    if arch is None:
        return -1 if targets.host().futex_syscall is not None else None
    target = targets.by_arch(arch)
    return target.futex_syscall if target is not None else None


def _libc(module: ir.Module, arch: str | None) -> _Libc:
    """libc's functions, and the spin-wait hint of `arch` (none while the target is not
    known: a target intrinsic of the wrong architecture would abort code generation)."""
    i32, i64, ptr = types.I32, types.I64, types.PTR
    pause: ir.Function | None = None
    pause_args: tuple[ir.Value, ...] = ()
    target = targets.by_arch(arch) if arch is not None else None
    if target is not None and target.spin_hint is not None:
        hint_args = target.spin_hint_args
        pause = declare(module, target.spin_hint, ir.FunctionType(ir.VoidType(), [i32] * len(hint_args)))
        pause_args = tuple(ir.Constant(i32, v) for v in hint_args)
    return _Libc(create=declare(module, "pthread_create", ir.FunctionType(i32, [ptr, ptr, ptr, ptr])),
                 join=declare(module, "pthread_join", ir.FunctionType(i32, [i64, ptr])),
                 syscall=declare(module, "syscall", ir.FunctionType(i64, [i64], var_arg=True)),
                 clock=declare(module, "clock_gettime", ir.FunctionType(i32, [i32, ptr])),
                 getpid=declare(module, "getpid", ir.FunctionType(i32, [])),
                 yield_=declare(module, "sched_yield", ir.FunctionType(i32, [])),
                 usleep=declare(module, "usleep", ir.FunctionType(i32, [i32])),
                 sysconf=declare(module, "sysconf", ir.FunctionType(i64, [i32])),
                 uname=declare(module, "uname", ir.FunctionType(i32, [ptr])),
                 pause=pause, pause_args=pause_args)


def _internal(module: ir.Module, name: str, ret: ir.Type, args: list[ir.Type]) -> ir.Function:
    fn = ir.Function(module, ir.FunctionType(ret, args), name)
    fn.linkage = "internal"
    return fn


def _blocks(fn: ir.Function, *names: str) -> list[ir.Block]:
    return [fn.append_basic_block(n) for n in names]


def _i32(v: int) -> ir.Constant:
    return ir.Constant(types.I32, v)


def _pause(b: ir.IRBuilder, libc: _Libc) -> None:
    if libc.pause is not None:
        b.call(libc.pause, list(libc.pause_args))


def _now_ns(b: ir.IRBuilder, libc: _Libc, ts: ir.Value) -> ir.Value:
    """clock_gettime(CLOCK_MONOTONIC) in ns (a vDSO call, ~20 ns); ts: a struct timespec."""
    b.call(libc.clock, [_i32(CLOCK_MONOTONIC), ts])
    sec = b.load(b.gep(ts, [c64(0)], source_etype=types.I64), typ=types.I64)
    nsec = b.load(b.gep(ts, [c64(1)], source_etype=types.I64), typ=types.I64)
    return b.add(b.mul(sec, c64(1_000_000_000)), nsec)


def _lock_blocking(b: ir.IRBuilder, fn: ir.Function, libc: _Libc, lock: ir.Value) -> None:
    """Take `lock` (0 -> 1), sleeping 50 us between tries (join waits for a running call,
    which may take milliseconds); b continues in the locked block."""
    spin, wait, got = _blocks(fn, "lock", "lock.wait", "locked")
    b.branch(spin)
    b.position_at_end(spin)
    pair = b.cmpxchg(lock, _i32(0), _i32(1), "acquire", "monotonic")
    b.cbranch(b.extract_value(pair, 1), got, wait)
    b.position_at_end(wait)
    b.call(libc.usleep, [_i32(50)])
    b.branch(spin)
    b.position_at_end(got)
