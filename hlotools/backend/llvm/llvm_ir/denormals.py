"""Denormals flushed to zero as XLA CPU computes: its kernels run with x86's MXCSR FTZ (results)
and DAZ (operands) bits set, so `ceil(1e-45)` is 0 and `1e-30 * 1e-10` is 0 there, while
moves, selects, negate/abs (bit operations) and the bf16/f16 conversions (integer code) keep
the bits. The generated entry function sets both bits for the duration of a call and puts the
caller's MXCSR back before it returns (Python and numpy around it keep IEEE semantics); the
worker pool's threads adopt the calling thread's MXCSR for each job (kernels/thread_pool.py), so the
runtime library's kernels (GEMM, convolution, reduce-window) flush too. x86 only: another
target's code keeps gradual underflow (its flag lives elsewhere: AArch64's FPCR.FZ).
Under HLOTOOLS_SEMANTICS=spec nothing is set and arithmetic is IEEE's.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import llvmlite.ir as ir

from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.native import targets
from hlotools.ir import semantics

FTZ_DAZ = 0x8040  # MXCSR bit 15 (flush to zero) | bit 6 (denormals are zero)


_TARGET = threading.local()


@contextmanager
def target_triple(triple: str) -> Iterator[None]:
    """Code generated in this block is for `triple` (AOT sets the module's triple after codegen)."""
    old = getattr(_TARGET, "triple", None)
    _TARGET.triple = triple
    try:
        yield
    finally:
        _TARGET.triple = old


def is_x86(module: ir.Module, assume_host: bool = True) -> bool:
    """The module's target (its triple, the target being generated for, or with `assume_host`
    the host: the JIT's) is x86. Without `assume_host` an unknown target is not x86 (the
    pool's code must suit whatever target a triple-less module is compiled for)."""
    triple = str(module.triple or "")
    if not triple or triple.startswith("unknown"):
        triple = str(getattr(_TARGET, "triple", None) or "")
    if not triple or triple.startswith("unknown"):
        return assume_host and targets.host().mxcsr
    target = targets.by_triple(triple.lower())
    return target is not None and target.mxcsr


def _intrinsic(module: ir.Module, name: str) -> ir.Function:
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [types.PTR]), name)
    return fn


def read_mxcsr(b: ir.IRBuilder, slot: ir.Value) -> None:
    b.call(_intrinsic(b.module, "llvm.x86.sse.stmxcsr"), [slot])


def write_mxcsr(b: ir.IRBuilder, slot: ir.Value) -> None:
    b.call(_intrinsic(b.module, "llvm.x86.sse.ldmxcsr"), [slot])


def entry_flushes(module: ir.Module) -> bool:
    """Whether the entry function runs with FTZ and DAZ set (x86, xla-cpu semantics)."""
    return semantics.flush_denormals() and is_x86(module)


def flush_during(fn: ir.Function) -> None:
    """Make the finished entry function run with FTZ and DAZ set, the caller's MXCSR put back
    at every return. In the entry block, before any of the function's code: x86's arithmetic
    instructions use MXCSR, so LLVM's machine code keeps them after the LDMXCSR (a separate
    noinline body would do too, but cost ~10 kB of LLVM memory per compiled module that is
    never given back)."""
    block = fn.entry_basic_block
    b = ir.IRBuilder(block)
    b.position_at_start(block)
    saved = b.alloca(types.I32, name="mxcsr.caller")
    ours = b.alloca(types.I32, name="mxcsr.flush")
    read_mxcsr(b, saved)
    b.store(b.or_(b.load(saved, typ=types.I32), ir.Constant(types.I32, FTZ_DAZ)), ours)
    write_mxcsr(b, ours)
    for blk in fn.blocks:
        term = blk.terminator
        if isinstance(term, ir.Ret):
            b.position_before(term)
            write_mxcsr(b, saved)


def flushing(b: ir.IRBuilder) -> bool:
    """Whether code emitted into b's module flushes denormals in code where the hardware's DAZ
    does not reach (a select's operand, libm's bit tests). Not in the runtime library: it is
    built once per machine for both semantics and relies on the MXCSR its caller runs with
    (its maximum/minimum may then pass a denormal operand's bits where the elemental path
    gives the zero)."""
    return semantics.flush_denormals() and is_x86(b.module) and not str(b.module.name).startswith("hlotools.runtime.")


_WIDTHS = {ir.FloatType: (32, 0x7F800000, 0x80000000), ir.DoubleType: (64, 0x7FF0000000000000, 1 << 63)}


def flush(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """x with a denormal replaced by a zero of its sign, in integer code (what DAZ does to an
    operand): for values that reach the result by a select (maximum, minimum) or go through
    libm, whose functions test the bits themselves. Scalars or vectors of f32/f64."""
    vec = isinstance(x.type, ir.VectorType)
    elem = x.type.element if vec else x.type
    spec = _WIDTHS.get(type(elem))
    if spec is None:
        return x
    width, exp_mask, sign_mask = spec
    ity: ir.Type = ir.IntType(width)
    if vec:
        ity = ir.VectorType(ity, x.type.count)

    def const(v: int) -> ir.Constant:
        return ir.Constant(ity, [ir.Constant(ity.element, v)] * ity.count) if vec else ir.Constant(ity, v)
    bits = b.bitcast(x, ity)
    tiny = b.icmp_unsigned("==", b.and_(bits, const(exp_mask)), const(0))
    return b.bitcast(b.select(tiny, b.and_(bits, const(sign_mask)), bits), x.type)
