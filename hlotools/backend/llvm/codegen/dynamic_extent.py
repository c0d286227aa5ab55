"""Loops that stop at the run-time size of a bounded dynamic dim (issue 14), beyond XLA, which
computes the whole bound.

The dynamic padder's static module records on its entry instructions which dims run to the
value of which s32 size parameter (ir/runtime_sizes.py: the elements past it are padding no
reader depends on). Here an emitter asks for the run-time extent of one dim of what it
writes: the s32 loaded from that parameter's buffer at the point of use (a kernel reaches it
through a slot of its own: `locations`), clamped into 0..bound so no value can make a loop
run past its buffer. Only records of the entry computation and of the computations fused
into its instructions count (parameter numbers are the entry's). Anything not recorded runs
to its bound, which is always correct: the padded module stays the oracle.

Taken here: the dims of an elemental loop (elementwise and loop fusions, reductions' kept
dims; a dynamic major dim's valid data is a row-major prefix, so its loop is one shorter flat
loop whose parallel split covers the prefix only; a dynamic minor dim, the keys of attention
scores [seq, seq], stops its inner loop), a reduce's loops over its reduced dims
(lower/reduction.py), a GEMM's batch, M, N and K and its operands' packing (lower/gemm.py)
and a convolution's batch (lower/conv_gemm.py).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import llvmlite.ir as ir

from hlotools.backend.llvm.llvm_ir import types
from hlotools.ir import runtime_sizes
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.types import S32

if TYPE_CHECKING:
    from hlotools.backend.llvm.codegen.function import FunctionEmitter

Record = runtime_sizes.Record


def _in_entry(fe: FunctionEmitter) -> bool:
    return fe.comp is fe.mc.module.entry


def parameter_leaf(fe: FunctionEmitter, number: int) -> int | None:
    """The entry's leaf index of s32[] parameter `number` (None: no such parameter)."""
    base = 0
    for p in sorted(fe.comp.parameters, key=lambda q: q.parameter_number or 0):
        if p.parameter_number == number:
            s = p.shape
            return base if s.is_array and s.rank == 0 and s.element_type == S32 else None
        base += len(p.shape.leaves())
    return None


def result_record(fe: FunctionEmitter, inst: Instruction) -> Record | None:
    """What `inst` of the entry (a fusion: its fused root; a tuple root: what all its
    elements share) records of its result's dims, or None."""
    if not _in_entry(fe) or inst.parent is not fe.comp:
        return None
    target = inst
    if inst.opcode == "fusion" and isinstance(inst.attrs.get("calls"), Computation):
        target = inst.attrs["calls"].root
    if target is None:
        return None
    if target.opcode == "tuple" and inst.shape.is_tuple:
        recs = [runtime_sizes.result_sizes(o) for o in target.operands]
        if not recs or any(r is None for r in recs) or len({len(r) for r in recs if r is not None}) != 1:
            return None
        first = recs[0]
        assert first is not None
        return tuple(p if all(r is not None and r[d] == p for r in recs) else None for d, p in enumerate(first))
    return runtime_sizes.result_sizes(target)


def stopped_dims(fe: FunctionEmitter, inst: Instruction, shape: Shape) -> dict[int, int]:
    """dim -> entry parameter leaf, for the dims of a loop over `shape` (inst's result) that
    may stop at a run-time size."""
    rec = result_record(fe, inst)
    if rec is None or len(rec) != shape.rank:
        return {}
    out: dict[int, int] = {}
    for d, number in enumerate(rec):
        leaf = parameter_leaf(fe, number) if number is not None and shape.dims[d] > 1 else None
        if leaf is not None:
            out[d] = leaf
    return out


def load_size(fe: FunctionEmitter, leaf: int, bound: int) -> ir.Value:
    """The i64 value of s32 parameter leaf `leaf`, clamped into 0..bound."""
    b = fe.b
    raw = b.load(fe.param_ptr(leaf), typ=types.I32)
    v = b.sext(raw, types.I64)
    lo = ir.Constant(types.I64, 0)
    hi = ir.Constant(types.I64, bound)
    v = b.select(b.icmp_signed("<", v, lo), lo, v)
    return b.select(b.icmp_signed(">", v, hi), hi, v)


def loop_stops(fe: FunctionEmitter, inst: Instruction, shape: Shape) -> Callable[[], dict[int, ir.Value]] | None:
    """None when no loop over `shape` (inst's result) may stop early; else what emits, where
    it is called (the caller or a parallel worker: fe is retargeted there), the loads of the
    run-time stops: dim -> i64."""
    dims = stopped_dims(fe, inst, shape)
    if not dims:
        return None
    return lambda: {d: load_size(fe, leaf, shape.dims[d]) for d, leaf in dims.items()}


def read_stops(fe: FunctionEmitter, inst: Instruction) -> dict[int, ir.Value]:
    """Where inst's read across dims of operand 0 may stop (a reduce of the entry or fused
    into one of its instructions): operand dim -> i64, loaded here."""
    rec = runtime_sizes.read_sizes(inst) if _in_entry(fe) else None
    if rec is None:
        return {}
    bounds = inst.operands[0].shape.dims
    out: dict[int, ir.Value] = {}
    for d, number in enumerate(rec):
        leaf = parameter_leaf(fe, number) if number is not None else None
        if leaf is not None:
            out[d] = load_size(fe, leaf, bounds[d])
    return out


def locations(fe: FunctionEmitter, inst: Instruction) -> list[int]:
    """The entry parameter leaves inst's code may load a size from (its kernel's slots)."""
    if not _in_entry(fe) or not fe.mc.size_records:
        return []
    numbers: set[int] = set()
    rec = result_record(fe, inst)
    numbers.update(p for p in rec or () if p is not None)
    comp = inst.attrs.get("calls") if inst.opcode == "fusion" else None
    for i in ([inst] + (list(comp.instructions) if isinstance(comp, Computation) else [])):
        if i.opcode == "reduce":
            numbers.update(p for p in runtime_sizes.read_sizes(i) or () if p is not None)
        if i.opcode in ("dot", "convolution"):
            numbers.update(p for p in runtime_sizes.result_sizes(i) or () if p is not None)
            numbers.update(p for p in runtime_sizes.read_sizes(i) or () if p is not None)
    leaves = [parameter_leaf(fe, n) for n in sorted(numbers)]
    return [leaf for leaf in leaves if leaf is not None]


@dataclass
class GemmExtents:
    """A dot's run-time GEMM sizes (each an int, the bound, where nothing is recorded) and
    where packing its operands may stop: operand dim -> i64 (lhs, rhs)."""

    m: ir.Value | int
    n: ir.Value | int
    k: ir.Value | int
    lhs: dict[int, ir.Value] = field(default_factory=dict)
    rhs: dict[int, ir.Value] = field(default_factory=dict)
    batch: ir.Value | None = None  # how many of the flat batch index's values run (a prefix)


def _first_dim(fe: FunctionEmitter, rec: Record | None, dims: tuple[int, ...], bounds: tuple[int, ...]
               ) -> ir.Value | None:
    """The run-time size of the first of `dims` (a GEMM dim collapsing them row-major, the
    first slowest, so a size of the first alone is a prefix), or None (none, or one of the
    others has one)."""
    number = rec[dims[0]] if rec is not None and dims else None
    if rec is None or number is None or any(rec[d] is not None for d in dims[1:]):
        return None
    leaf = parameter_leaf(fe, number)
    return None if leaf is None else load_size(fe, leaf, bounds[0])


def _times(fe: FunctionEmitter, v: ir.Value, factor: int) -> ir.Value:
    return v if factor == 1 else fe.b.mul(v, ir.Constant(types.I64, factor), flags=["nsw"])


def gemm_extents(fe: FunctionEmitter, dot: Instruction, owner: Instruction, groups: tuple[tuple[int, ...], ...],
                 m: int, n: int, k: int) -> GemmExtents | None:
    """Run-time sizes of `dot` (written into `owner`'s buffer: itself or its kOutput fusion
    in the entry) as a GEMM; `groups`: (lhs free, rhs free, lhs contracting, rhs contracting,
    lhs batch, rhs batch) operand dims in the dot's order. None when nothing is recorded. A
    run-time K of 0 runs the bound instead: the padder's zero masks make that contraction
    exact too, and the kernel's k loop runs at least once."""
    if not _in_entry(fe) or owner.parent is not fe.comp:
        return None
    lhs, rhs = (o.shape.dims for o in dot.operands)
    lfree, rfree, lc, rc, lb, rb = groups
    out = runtime_sizes.result_sizes(dot)
    nb = len(lb)  # batch dims lead the result
    om = tuple(range(nb, nb + len(lfree)))
    on = tuple(range(nb + len(lfree), nb + len(lfree) + len(rfree)))
    dims = dot.shape.dims
    sb = _first_dim(fe, out, tuple(range(nb)), dims[:nb])
    sm = _first_dim(fe, out, om, tuple(dims[d] for d in om))
    sn = _first_dim(fe, out, on, tuple(dims[d] for d in on))
    sk = _first_dim(fe, runtime_sizes.read_sizes(dot), lc, tuple(lhs[d] for d in lc))
    if sb is None and sm is None and sn is None and sk is None:
        return None
    got = GemmExtents(m, n, k)
    if sb is not None:
        rest = 1
        for d in dims[1:nb]:
            rest *= d
        got.batch, got.lhs[lb[0]], got.rhs[rb[0]] = _times(fe, sb, rest), sb, sb
    if sm is not None:
        got.m, got.lhs[lfree[0]] = _times(fe, sm, m // lhs[lfree[0]]), sm
    if sn is not None:
        got.n, got.rhs[rfree[0]] = _times(fe, sn, n // rhs[rfree[0]]), sn
    if sk is not None:
        b = fe.b
        sk = b.select(b.icmp_signed("==", sk, ir.Constant(types.I64, 0)), ir.Constant(types.I64, lhs[lc[0]]), sk)
        got.k, got.lhs[lc[0]], got.rhs[rc[0]] = _times(fe, sk, k // lhs[lc[0]]), sk, sk
    return got


def conv_batch(fe: FunctionEmitter, conv: Instruction, owner: Instruction, batch_dim: int) -> ir.Value | None:
    """The run-time size of a convolution's output batch dim (written into `owner`'s buffer:
    itself or its kOutput fusion in the entry), or None: its GEMM's batch is a prefix."""
    if not _in_entry(fe) or owner.parent is not fe.comp:
        return None
    rec = runtime_sizes.result_sizes(conv)
    number = rec[batch_dim] if rec is not None else None
    leaf = parameter_leaf(fe, number) if number is not None else None
    return None if leaf is None else load_size(fe, leaf, conv.shape.dims[batch_dim])
