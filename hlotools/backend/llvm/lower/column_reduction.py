"""Column reductions (`sum(dim=0)` of a row-major [rows, cols]: bias and norm-weight
gradients) as one pass over the rows. The elemental loop folds each output element's
column at the row stride, a cache miss per element once rows are KiBs apart; here a tile
of TILE_WIDTH adjacent outputs keeps its accumulators in an array and every step of the
fold adds a row's contiguous slice (lower/reduction.py's fold_reduced with a Tile). Each
output element folds its inputs in the same order as the elemental loop (its lanes, tree,
leftovers, first-NaN pass), so the bits are the same; only the outputs are interleaved.

Taken for a single-input f32/f64 add/multiply/maximum/minimum reduce (the lanes' reducers)
whose operand's layout-minor dim is kept and is the result's minor dim too, standalone or
the root of a fusion (its fused producers are read per column as before). Variadic and
other reduces keep the elemental loop.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import layout_of
from hlotools.backend.llvm.codegen import dynamic_extent
from hlotools.backend.llvm.codegen.elemental import ElementalGen
from hlotools.backend.llvm.codegen.function import KERNEL_LOOPS, FunctionEmitter
from hlotools.backend.llvm.codegen.outline import result_loop
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range
from hlotools.backend.llvm.lower.control import fused_gen
from hlotools.backend.llvm.lower.reduction import (
    TILE_WIDTH,
    Tile,
    alloc,
    at,
    extra_inits_apply,
    fold_reduced,
    lane_count,
)
from hlotools.ir import semantics
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.xla_reduce import keeps_elements

_ENABLED: ContextVar[bool] = ContextVar("hlotools_llvm_column_reduction", default=True)


@contextmanager
def column_tiles(enabled: bool) -> Iterator[None]:
    """Compile inside with the tiled column path on or off (tests, A/B measurements)."""
    tok = _ENABLED.set(enabled)
    try:
        yield
    finally:
        _ENABLED.reset(tok)


@dataclass
class Plan:
    reduce: Instruction
    dim: int  # the operand's minor dim (kept)
    out_dim: int  # the same dim in the result


def plan(inst: Instruction) -> Plan | None:
    """The tiled path for `inst` (a reduce, or a fusion whose root is one), or None."""
    red = inst.attrs["calls"].root if inst.opcode == "fusion" else inst
    if red is None or red.opcode != "reduce" or len(red.operands) != 2:
        return None
    comp = red.attrs["to_apply"]
    src = red.operands[0].shape
    reduced = sorted(red.attrs.get("dimensions", ()))
    if not reduced or not lane_count(red, comp) or any(src.dims[d] == 0 for d in reduced):
        return None
    minor = layout_of(src)[0]
    kept = [d for d in range(len(src.dims)) if d not in reduced]
    if minor in reduced or layout_of(red.shape)[0] != kept.index(minor):
        return None
    if semantics.xla_cpu() and (keeps_elements(src.dims, reduced) or extra_inits_apply(red, comp)):
        return None
    return Plan(red, minor, kept.index(minor))


def emit(fe: FunctionEmitter, inst: Instruction) -> bool:
    """The tiled loop for `inst` when plan() takes it; False leaves it to the elemental loop."""
    p = plan(inst) if _ENABLED.get() else None
    out = inst.shape
    if p is None or not out.is_array:
        return False
    cols = out.dims[p.out_dim]
    assert out.element_type is not None
    tiles = Shape.array(out.element_type, [(cols + TILE_WIDTH - 1) // TILE_WIDTH if d == p.out_dim else n
                                           for d, n in enumerate(out.dims)], out.layout)
    if dynamic_extent.stopped_dims(fe, inst, tiles):
        return False
    rows = p.reduce.operands[0].shape.size // max(1, out.size)

    def body(index: list[ir.Value]) -> None:
        gen = fe.gen if inst is p.reduce else fused_gen(fe.gen, inst)
        with gen.region():
            _tile(fe, gen, inst, p, index, cols)
    result_loop(fe, inst, tiles, body, rows * TILE_WIDTH)
    return True


def _tile(fe: FunctionEmitter, gen: ElementalGen, inst: Instruction, p: Plan, index: list[ir.Value], cols: int) -> None:
    """The outputs of one tile: accumulators from init, the fold, then the stores."""
    b = fe.b
    red = p.reduce
    start = b.mul(index[p.out_dim], c64(TILE_WIDTH), flags=["nsw"])
    left = b.sub(c64(cols), start, flags=["nsw"])
    width = b.select(b.icmp_signed("<", left, c64(TILE_WIDTH)), left, c64(TILE_WIDTH))
    tile = Tile(p.dim, start, width)
    reduced = set(red.attrs.get("dimensions", ()))
    kept = [d for d in range(len(red.operands[0].shape.dims)) if d not in reduced]
    src: list[ir.Value] = [c64(0)] * len(red.operands[0].shape.dims)
    for d, i in zip(kept, index):
        src[d] = i
    init = gen.value_at(red.operands[1], [])
    slot = alloc(gen, init.type, tile)
    with for_range(b, 0, width, name="ri") as j:
        b.store(init, b.gep(slot, [c64(0), j], inbounds=True))
    fold_reduced(gen, red, src, [slot], [init], dynamic_extent.read_stops(fe, red), tile)
    with for_range(b, 0, width, name="rs") as j:
        tile.column = j
        at_out = list(index)
        at_out[p.out_dim] = b.add(start, j, flags=["nsw"])
        fe.store_element(b.load(at(b, slot, tile), typ=init.type), fe.leaf_ptrs(inst)[0], inst.shape, at_out)


for _op in ("reduce", "fusion"):
    KERNEL_LOOPS.setdefault(_op, []).append(emit)
