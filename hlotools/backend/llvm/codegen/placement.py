"""Where each instruction's value lives, decided before any code is written: which ops
alias an operand's buffers (tuple, get-tuple-element, free reshapes and bitcasts), which may
update an operand in place (dynamic-update-slice and the fusions rooted at one), which read
each operand element once (so the operand may be generated inside the consumer's loop:
implicit fusion) and which loops can run flat. FunctionEmitter.classify asks these per
instruction; buffers.py gets alias_leaves and in_place_operand through its Classifier.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from hlotools.backend.llvm.abi import layout_of, leaf_bytes
from hlotools.backend.llvm.codegen import buffers
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODES, opcode_info
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    from hlotools.backend.llvm.codegen.function import FunctionEmitter

INDEX_ONLY = frozenset({"broadcast", "iota", "reshape", "bitcast", "transpose", "slice", "reverse", "constant",
                        "get-tuple-element"})


def reads_in_place(fe: FunctionEmitter, inst: Instruction, loop_shape: Shape) -> bool:
    """Whether every array `inst` reads per element (through elementwise ops, fusions,
    broadcasts of scalars) has the loop's dims and layout, so element k of the result only
    needs element k of each: then one flat loop does (LLVM's O3 spends ~40% less on it than
    on the per-dimension nest, and the code is the same vector loop)."""
    layout = tuple(layout_of(loop_shape))
    dims = loop_shape.dims
    seen: set[tuple[int, int]] = set()
    Params = dict[int, tuple[Instruction, object]]

    def visit(x: Instruction, params: Params | None, top: bool) -> bool:
        key = (id(x), id(params))
        if key in seen:
            return True
        seen.add(key)
        if params is not None and x.opcode == "parameter":
            outer, ctx = params[id(x)]
            return visit(outer, ctx, False)  # type: ignore[arg-type]
        if x.opcode == "constant" and not x.shape.is_tuple and not x.shape.dims:
            return True
        if not top and params is None and fe.is_materialised(x):
            return all(s.dims == dims and tuple(layout_of(s)) == layout for s in x.shape.leaves())
        if x.opcode == "broadcast" and x.operands and not x.operands[0].shape.dims:
            return visit(x.operands[0], params, False)
        if any(s.dims != dims for s in x.shape.leaves()):
            return False
        if x.opcode == "fusion":
            comp = x.attrs.get("calls")
            if comp is None or comp.root is None:
                return False
            inner: Params = {id(p): (o, params) for p, o in zip(comp.parameters, x.operands)}
            return visit(comp.root, inner, False)
        info = opcode_info(x.opcode)
        if info is None or not info.is_elementwise:
            return False
        return all(visit(o, params, False) for o in x.operands)
    return visit(inst, None, True)


def concatenate_cuts(inst: Instruction, loop_shape: Shape) -> list[int]:
    """Where the innermost loop over `loop_shape` (inst's result) enters another piece of a
    concatenate in `inst` (itself, or inside its fusion), when the loop's innermost dim has
    the size of a run of the concatenate's minor dims that holds its concatenated dim (the
    same elements through bitcasts): cut there, each loop reads one piece (known_range), not
    every piece at clamped indices with a select chain (RoPE's cat of two halves along
    head_dim; the q/k/v gradients concatenated along heads, then viewed as [tokens, 3*d])."""
    live = [d for d in layout_of(loop_shape) if loop_shape.dims[d] > 1]
    if not live:
        return []
    size = loop_shape.dims[live[0]]
    comp = inst.attrs.get("calls") if inst.opcode == "fusion" else None
    cuts: set[int] = set()
    for x in (comp.instructions if isinstance(comp, Computation) else [inst]):
        if x.opcode != "concatenate":
            continue
        dim = int(x.attrs["dimensions"][0])
        run, stride, product = [], 1, 1
        for d in (d for d in layout_of(x.shape) if x.shape.dims[d] > 1):
            if product >= size:
                break
            run.append(d)
            stride = product if d == dim else stride
            product *= x.shape.dims[d]
        if product == size and dim in run:
            at = 0
            for o in x.operands[:-1]:
                at += o.shape.dims[dim]
                cuts.add(at * stride)
    return sorted(cuts)


def in_place_operand(inst: Instruction) -> int | None:
    """The operand whose buffer `inst` may update in place: a dynamic-update-slice's operand 0,
    and for a fusion whose root is a dynamic-update-slice of one of its parameters (the scan's
    `ys = dynamic_update_slice(ys, y, i)`, XLA's in-place DUS fusion) the operand bound to it."""
    if inst.opcode == "dynamic-update-slice":
        return 0
    if inst.opcode == "fusion":
        comp = inst.attrs.get("calls")
        n = fused_update_parameter(comp) if isinstance(comp, Computation) else None
        if n is not None and n < len(inst.operands) and inst.operands[n].shape == inst.shape:
            return n
    return None


def alias_leaves(inst: Instruction, operand_leaves: list[list[buffers.Leaf]]) -> list[buffers.Leaf]:
    op = inst.opcode
    if op == "tuple":
        return [lf for ls in operand_leaves for lf in ls]
    if op == "get-tuple-element":
        src = inst.operands[0].shape.tuple_shapes or ()
        k = int(inst.attrs.get("index", 0))
        start = sum(len(s.leaves()) for s in src[:k])
        return operand_leaves[0][start:start + len(src[k].leaves())]
    return list(operand_leaves[0])  # bitcast, free reshape, opt-barrier, copy of a token, ...


def alias_slice(inst: Instruction, items: list) -> list:
    """The part of the operands' leaves (any per-leaf items) an alias instruction stands for."""
    if inst.opcode == "get-tuple-element":
        src = inst.operands[0].shape.tuple_shapes or ()
        k = int(inst.attrs.get("index", 0))
        start = sum(len(s.leaves()) for s in src[:k])
        return items[start:start + len(src[k].leaves())]
    if inst.opcode == "tuple":
        return items
    return items[:len(inst.operands[0].shape.leaves())]


def alias_layouts_agree(inst: Instruction) -> bool:
    if not inst.operands:
        return True
    sources = alias_slice(inst, [s for op in inst.operands for s in op.shape.leaves()])
    return all(a.is_tuple or b.is_tuple or not a.dims or layout_of(a) == layout_of(b)
               for a, b in zip(inst.shape.leaves(), sources))


def is_free_reshape(inst: Instruction) -> bool:
    """A reshape/bitcast is a pointer alias when both sides are dense row-major-ordered."""
    a, r = inst.operands[0].shape, inst.shape
    if a.is_tuple or r.is_tuple or a.element_type != r.element_type:
        return False
    if inst.opcode == "bitcast" and leaf_bytes(a) == leaf_bytes(r):
        return True
    return (layout_of(a) == tuple(range(len(a.dims) - 1, -1, -1))
            and layout_of(r) == tuple(range(len(r.dims) - 1, -1, -1)))


def reads_per_element(user: Instruction, operand: Instruction) -> float:
    """How many times `user` reads each element of `operand` (to decide whether inlining
    the operand would recompute it)."""
    size_u = max(1, user.shape.leaves()[0].size)
    size_o = max(1, operand.shape.size)
    op = user.opcode
    if op in ("broadcast", "gather", "dynamic-slice", "pad", "concatenate", "slice", "reverse", "transpose",
              "reshape", "bitcast", "iota", "select", "dot", "reduce-window", "convolution", "fusion",
              "dynamic-update-slice", "scatter", "sort"):
        if OPCODES[op].reuses_operand_elements or op in ("fusion", "scatter", "sort", "dynamic-update-slice"):
            return 2.0  # several reads per element or unknown: never inline expensive work there
        return size_u / size_o if size_u > size_o else 1.0
    return 1.0


def _elements(shape: Shape) -> int:
    n = 1
    for d in shape.dims:
        n *= d
    return n


def fused_update_parameter(comp: Computation) -> int | None:
    """n when the root of `comp` is a dynamic-update-slice whose operand 0 is parameter(n)
    and that parameter has no other use (so nothing else reads what the update overwrites)."""
    root = comp.root
    if root is None or root.opcode != "dynamic-update-slice" or root.shape.is_tuple:
        return None
    op = root.operands[0]
    if op.opcode != "parameter" or op.parameter_number is None or any(u is not root for u in op.users):
        return None
    if sum(1 for o in root.operands if o is op) != 1 or op.shape != root.shape:
        return None
    return op.parameter_number


def fused_update_donation(comp: Computation) -> dict[int, int]:
    """{result leaf 0: the updated parameter's leaf} for such a fusion computation: its
    function then updates in place when the caller passes the parameter's memory as the
    output (and copies first when it does not: memcpy_if_distinct)."""
    n = fused_update_parameter(comp)
    if n is None:
        return {}
    params = sorted(comp.parameters, key=lambda p: p.parameter_number or 0)
    if n >= len(params):
        return {}
    return {0: sum(len(p.shape.leaves()) for p in params[:n])}


def needs_relayout(a: Shape, b: Shape) -> bool:
    return (not a.is_tuple and not b.is_tuple and a.dims == b.dims and len(a.dims) > 1
            and leaf_bytes(a) > 0 and layout_of(a) != layout_of(b))
