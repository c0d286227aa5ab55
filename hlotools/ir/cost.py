"""A per-instruction cost estimate in XLA's HloCostAnalysis vocabulary: flops and bytes accessed.

The graph views colour instructions by it; it is a model for people looking at a graph, not a
promise about run time. As in HloCostAnalysis: an elementwise op is one flop per output element,
a dot two per multiply-add (2 * output elements * contracted size), a convolution two per
multiply-add of its kernel window, a reduction one per input element combined. Bytes accessed
are the operands read plus the result written; instructions that define no new data (tuple,
get-tuple-element, bitcast, parameter, ...) access none. A fusion or control-flow instruction
costs what its called computations cost (a while body counted once: the trip count is unknown),
except that a fusion's bytes are its own operands and result: the fused intermediates stay in
registers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hlotools.ir.attributes import ConvDimLabels, Window
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    from hlotools.ir.computation import Computation

_NO_DATA = frozenset({"parameter", "tuple", "get-tuple-element", "bitcast", "after-all", "add-dependency",
                      "opt-barrier", "domain"})


@dataclass(frozen=True)
class Cost:
    flops: int = 0
    bytes_accessed: int = 0


def _bytes(shape: Shape) -> int:
    return sum(leaf.byte_size() for leaf in shape.leaves())


def _elements(shape: Shape) -> int:
    return sum(leaf.size for leaf in shape.leaves() if leaf.is_array)


def _own_flops(inst: Instruction) -> int:
    info = inst.info
    op = inst.opcode
    if info.is_elementwise:
        return _elements(inst.shape)
    if op == "dot" and inst.operands:
        lhs = inst.operands[0].shape
        contracted = math.prod(lhs.dims[d] for d in inst.attrs.get("lhs_contracting_dims") or () if d < lhs.rank)
        return 2 * _elements(inst.shape) * contracted
    if op == "convolution" and len(inst.operands) == 2:
        kernel = inst.operands[1].shape
        labels = inst.attrs.get("dim_labels")
        out_features = kernel.dims[labels.kernel_output_feature] if isinstance(labels, ConvDimLabels) else 1
        return 2 * _elements(inst.shape) * (kernel.size // max(out_features, 1))
    if op == "reduce":  # inputs, then as many init values
        return sum(_elements(o.shape) for o in inst.operands[: max(1, len(inst.operands) // 2)])
    if op in ("all-reduce", "reduce-scatter"):
        return sum(_elements(o.shape) for o in inst.operands)
    if op == "reduce-window":
        window = inst.attrs.get("window")
        size = math.prod(d.size for d in window.dims) if isinstance(window, Window) else 1
        return _elements(inst.shape) * size
    return 0


def instruction_cost(inst: Instruction, memo: dict[int, Cost] | None = None) -> Cost:
    """Flops and bytes of one instruction, its called computations included (memoised by
    computation in `memo`, so a module is costed in linear time)."""
    memo = {} if memo is None else memo
    flops = _own_flops(inst)
    inner_bytes = 0
    for comp in inst.called_computations():
        c = computation_cost(comp, memo)
        flops += c.flops
        inner_bytes += c.bytes_accessed
    if inst.opcode in _NO_DATA:
        return Cost(flops, 0)
    if inst.opcode == "fusion" or not inst.called_computations():
        read = sum(_bytes(o.shape) for o in inst.operands)
        return Cost(flops, read + _bytes(inst.shape))
    return Cost(flops, inner_bytes)


def computation_cost(comp: Computation, memo: dict[int, Cost] | None = None) -> Cost:
    """The sum over a computation's instructions."""
    memo = {} if memo is None else memo
    key = id(comp)
    if key not in memo:
        memo[key] = Cost()  # a (malformed) recursive call graph costs nothing more
        costs = [instruction_cost(i, memo) for i in comp.instructions]
        memo[key] = Cost(sum(c.flops for c in costs), sum(c.bytes_accessed for c in costs))
    return memo[key]
