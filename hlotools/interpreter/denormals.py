"""XLA CPU's flush of denormals (x86 MXCSR DAZ + FTZ, set while its kernels run), replayed:
under `semantics.flush_denormals()` the kernels of arithmetic opcodes see their f32/f64/bf16
operands with every denormal replaced by a zero of its sign, and their results flushed the
same way. Moves, select, negate/abs (bit operations on x86), bitcasts, the bf16/f16
conversions (integer code in XLA) and reducers that only select keep the bits, as the
hardware does; the LLVM backend gets the same from the MXCSR bits (backend/llvm/llvm_ir/denormals.py).
Partial results inside one kernel (a dot's running sums) are IEEE's here: numpy runs with
gradual underflow, so only a sum that passes through the denormal range on its way can differ.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from hlotools.interpreter.registry import KERNELS, Kernel
from hlotools.ir import semantics
from hlotools.ir.opcodes import REDUCERS
from hlotools.ir.patterns import binary_reducer_opcode

# By dtype name: bf16 is ml_dtypes' type, which f32 modules never import (ir/types.py says why).
_FLUSHED = {"float32": (np.uint32, 0x7F800000, 0x80000000),
            "float64": (np.uint64, 0x7FF0000000000000, 1 << 63),
            "bfloat16": (np.uint16, 0x7F80, 0x8000)}
ARITHMETIC = frozenset({
    "add", "subtract", "multiply", "divide", "remainder", "power", "atan2", "maximum", "minimum", "clamp",
    "compare", "exponential", "exponential-minus-one", "log", "log-plus-one", "sqrt", "rsqrt", "cbrt",
    "sine", "cosine", "tan", "sinh", "cosh", "acos", "acosh", "asin", "asinh", "atanh", "logistic", "erf",
    "ceil", "floor", "round-nearest-afz", "round-nearest-even", "sign", "is-finite",
    "dot", "convolution"})
_LIBM = frozenset({"exponential", "exponential-minus-one", "cbrt", "sine", "cosine", "tan",
                   "sinh", "cosh", "acos", "acosh", "asin", "asinh", "atanh", "erf", "power", "atan2", "tanh",
                   "logistic"})
_CONVERT_FLUSHES = frozenset({"f32", "f64"})  # cvtss2sd / cvtsd2ss; f16/bf16 go through integer code


def flush(x: Any) -> Any:
    """x (an array, or a tuple of them) with f32/f64/bf16 denormals made signed zeros."""
    if isinstance(x, tuple):
        return tuple(flush(v) for v in x)
    if isinstance(x, np.ndarray) and x.dtype.kind == "c":  # complex: each part
        out = np.empty_like(x)
        out.real, out.imag = flush(np.ascontiguousarray(x.real)), flush(np.ascontiguousarray(x.imag))
        return out
    if not isinstance(x, np.ndarray) or x.dtype.name not in _FLUSHED:
        return x
    uint, exp_mask, sign_mask = _FLUSHED[x.dtype.name]
    bits = np.ascontiguousarray(x).view(uint).reshape(-1) if x.size else np.ascontiguousarray(x).view(uint)
    if not _has_denormal(bits, uint, exp_mask, sign_mask):
        return x
    bits = bits.reshape(x.shape)
    tiny = (bits & uint(exp_mask)) == 0
    return np.where(tiny, bits & uint(sign_mask), bits).astype(uint).view(x.dtype).reshape(x.shape)


_NOT_CONSTANT = frozenset({"parameter", "rng", "rng-bit-generator", "rng-get-and-update-state", "infeed",
                           "recv", "custom-call", "partition-id", "replica-id"})
def constant_derived(inst: Any, memo: dict[int, tuple[Any, bool]]) -> bool:
    """Whether inst's value comes from constants alone: XLA's constant folding computes those
    at compile time with its evaluator, which keeps denormals (measured: 1e-30 * 1e-10 of two
    constants is 1e-40 in XLA's output, of a parameter 0). `memo` lives with the evaluator."""
    hit = memo.get(id(inst))
    if hit is not None and hit[0] is inst:
        return hit[1]
    stack, order = [inst], []
    while stack:  # iterative: deep graphs must not recurse
        x = stack.pop()
        h = memo.get(id(x))
        if h is not None and h[0] is x:
            continue
        order.append(x)
        stack.extend(x.operands)
    for x in reversed(order):
        h = memo.get(id(x))
        if h is not None and h[0] is x:
            continue
        value = x.opcode not in _NOT_CONSTANT and not x.info.side_effect and all(
            memo[id(o)][1] for o in x.operands)
        memo[id(x)] = (x, value)
    return memo[id(inst)][1]


def _memo(ev: Any) -> dict[int, tuple[Any, bool]]:
    memo = getattr(ev, "_constant_derived", None)
    if memo is None:
        memo = {}
        try:
            ev._constant_derived = memo
        except AttributeError:  # an evaluator without a __dict__: no memo across calls
            pass
    return memo


_CHUNK = 1 << 15  # elements per pass of the scan: its temporaries stay in the L2 cache


def _has_denormal(bits: np.ndarray, uint: Any, exp_mask: int, sign_mask: int) -> bool:
    """Whether any element is a denormal: 0 < |bits| < the smallest normal's (one unsigned
    compare after 0 - 1 wraps), scanned in chunks (a 4 MB array in one go costs ~4 passes
    through memory; most arrays have no denormal at all)."""
    limit, magnitude = uint((exp_mask & -exp_mask) - 1), uint(sign_mask - 1)
    n = bits.size
    buf = np.empty(min(n, _CHUNK), uint)
    for start in range(0, n, _CHUNK):
        part = bits[start:start + _CHUNK]
        view = buf[:part.size]
        np.bitwise_and(part, magnitude, out=view)
        np.subtract(view, uint(1), out=view)
        if np.any(view < limit):
            return True
    return False


def _flushes(inst: Any, ev: Any) -> bool:
    if constant_derived(inst, _memo(ev)):
        return False
    op = inst.opcode
    if op == "convert":  # cvtss2sd / cvtsd2ss, and a compare with 0 for pred
        src, dst = inst.operands[0].shape.element_type, inst.shape.element_type
        return (src is not None and dst is not None and src.name in _CONVERT_FLUSHES
                and (dst.name in _CONVERT_FLUSHES or dst.name == "pred"))
    if op in _LIBM and inst.operands and inst.operands[0].shape.element_type is not None \
            and inst.operands[0].shape.element_type.name == "f64":
        return False  # XLA's f64 sin/tan/... are libm's, which tests the bits itself: sin(1e-310) = 1e-310
        # (not log: XLA's f64 log(1e-310) is -inf)
    if op in ("reduce", "reduce-window"):
        r = REDUCERS.get(binary_reducer_opcode(inst.attrs.get("to_apply")))  # type: ignore[arg-type]
        return r is not None and r.floating is not None  # the float reducers; and/or/xor are bit operations
    return op in ARITHMETIC


def _flushing(fn: Kernel) -> Kernel:
    def kernel(inst: Any, args: list, ev: Any) -> Any:
        if not semantics.flush_denormals() or not _flushes(inst, ev):
            return fn(inst, args, ev)
        done = _flushed(ev)
        out = flush(fn(inst, [a if _known(done, a) else flush(a) for a in args], ev))
        _remember(done, out)
        return out
    kernel.__wrapped__ = fn  # type: ignore[attr-defined]
    return kernel


def _flushed(ev: Any) -> dict[int, Any]:
    """id -> array of the results this evaluator's flushing kernels returned (already flushed:
    the next op need not scan them again); the arrays are held, so an id is never reused."""
    done = getattr(ev, "_flushed_results", None)
    if done is None:
        done = {}
        try:
            ev._flushed_results = done
        except AttributeError:
            pass
    if len(done) > 4096:
        done.clear()
    return done


def _known(done: dict[int, Any], a: Any) -> bool:
    return done.get(id(a)) is a


def _remember(done: dict[int, Any], out: Any) -> None:
    for v in out if isinstance(out, tuple) else (out,):
        if isinstance(v, np.ndarray):
            done[id(v)] = v


_installed = False


def install() -> None:
    """Wrap the kernels that flush (once; the package's __init__ calls it after every kernel
    module has registered)."""
    global _installed
    if _installed:
        return
    _installed = True
    for op in sorted(ARITHMETIC | {"convert", "reduce", "reduce-window"}):
        fn = KERNELS.get(op)
        if fn is not None:
            KERNELS.replace(op, _flushing(fn))
