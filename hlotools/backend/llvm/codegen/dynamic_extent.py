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

Taken here: the outermost (most major) dim of an elemental loop (elementwise and loop
fusions, reductions' kept dims: the valid data of a dynamic major dim is a row-major prefix,
so the loop is shorter and its parallel split covers the prefix only) and a GEMM's M, N and
K (lower/gemm.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import layout_of
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


def outer_dim(shape: Shape) -> int | None:
    """The most major dim of size > 1 (the one a loop nest's outermost loop walks)."""
    order = [d for d in reversed(layout_of(shape)) if shape.dims[d] > 1]
    return order[0] if order else None


def outer_parameter(fe: FunctionEmitter, inst: Instruction, shape: Shape) -> tuple[int, int] | None:
    """(dim, entry parameter leaf) when the outermost loop over `shape` (inst's result) may
    stop at a run-time size."""
    rec = result_record(fe, inst)
    d = outer_dim(shape)
    if rec is None or d is None or len(rec) != shape.rank or rec[d] is None:
        return None
    leaf = parameter_leaf(fe, rec[d])
    return None if leaf is None else (d, leaf)


def load_size(fe: FunctionEmitter, leaf: int, bound: int) -> ir.Value:
    """The i64 value of s32 parameter leaf `leaf`, clamped into 0..bound."""
    b = fe.b
    raw = b.load(fe.param_ptr(leaf), typ=types.I32)
    v = b.sext(raw, types.I64)
    lo = ir.Constant(types.I64, 0)
    hi = ir.Constant(types.I64, bound)
    v = b.select(b.icmp_signed("<", v, lo), lo, v)
    return b.select(b.icmp_signed(">", v, hi), hi, v)


def outer_extent(fe: FunctionEmitter, inst: Instruction, shape: Shape) -> tuple[int, ir.Value] | None:
    """(dim, its run-time extent as i64) for the outermost loop over `shape`, or None."""
    got = outer_parameter(fe, inst, shape)
    if got is None:
        return None
    d, leaf = got
    return d, load_size(fe, leaf, shape.dims[d])


def locations(fe: FunctionEmitter, inst: Instruction) -> list[int]:
    """The entry parameter leaves inst's code may load a size from (its kernel's slots)."""
    if not _in_entry(fe):
        return []
    numbers: set[int] = set()
    rec = result_record(fe, inst)
    numbers.update(p for p in rec or () if p is not None)
    comp = inst.attrs.get("calls") if inst.opcode == "fusion" else None
    for i in ([inst] + (list(comp.instructions) if isinstance(comp, Computation) else [])):
        if i.opcode == "dot":
            numbers.update(p for p in runtime_sizes.result_sizes(i) or () if p is not None)
            numbers.update(p for p in runtime_sizes.read_sizes(i) or () if p is not None)
    leaves = [parameter_leaf(fe, n) for n in sorted(numbers)]
    return [leaf for leaf in leaves if leaf is not None]


def _group_extent(fe: FunctionEmitter, rec: Record | None, dims: tuple[int, ...], sizes: tuple[int, ...],
                  total: int) -> ir.Value | None:
    """The run-time extent of a GEMM dim that collapses `dims` (row-major, the first slowest;
    `sizes` their bounds): a prefix when only the first of them has a run-time size."""
    if rec is None or not dims or rec[dims[0]] is None or any(rec[d] is not None for d in dims[1:]):
        return None
    leaf = parameter_leaf(fe, rec[dims[0]])
    if leaf is None:
        return None
    n = load_size(fe, leaf, sizes[0])
    rest = total // sizes[0] if sizes[0] else 0
    return n if rest == 1 else fe.b.mul(n, ir.Constant(types.I64, rest), flags=["nsw"])


def gemm_extents(fe: FunctionEmitter, dot: Instruction, owner: Instruction, m_dims: tuple[int, ...],
                 n_dims: tuple[int, ...], k_dims: tuple[int, ...], m: int, n: int, k: int
                 ) -> tuple[ir.Value | int, ir.Value | int, ir.Value | int] | None:
    """Run-time (M, N, K) of `dot` (written into `owner`'s buffer: itself or its kOutput
    fusion in the entry) as a GEMM whose M collapses result dims `m_dims`, N result dims
    `n_dims` and K lhs dims `k_dims`; each an int (the bound) where nothing is recorded; None
    when nothing is. A run-time K of 0 runs the bound instead: the padder's zero masks make
    that contraction exact too, and the kernel's k loop runs at least once."""
    if not _in_entry(fe) or owner.parent is not fe.comp:
        return None
    out, reads = runtime_sizes.result_sizes(dot), runtime_sizes.read_sizes(dot)
    dims = dot.shape.dims
    lhs = dot.operands[0].shape.dims
    rm = _group_extent(fe, out, m_dims, tuple(dims[d] for d in m_dims), m)
    rn = _group_extent(fe, out, n_dims, tuple(dims[d] for d in n_dims), n)
    rk = _group_extent(fe, reads, k_dims, tuple(lhs[d] for d in k_dims), k)
    if rm is None and rn is None and rk is None:
        return None
    if rk is not None:
        b = fe.b
        rk = b.select(b.icmp_signed("==", rk, ir.Constant(types.I64, 0)), ir.Constant(types.I64, k), rk)
    return (m if rm is None else rm, n if rn is None else rn, k if rk is None else rk)
