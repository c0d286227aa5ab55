"""Layout assignment (XLA's LayoutAssignment with CpuLayoutAssignment's constraints; pass
`layout-assignment`).

After the pass every array shape in the module has a layout, and on CPU that is row-major
(`{n-1,...,0}`) almost everywhere — XLA CPU constrains every operand to row-major (dots and
convolutions run as row-major library calls). What keeps its layout:
  * the entry computation's parameters and result, as `entry_computation_layout` gives them
    (else as the entry's parameters and root are written, which is what XLA's parser derives);
  * bitcasts and their operands: a bitcast reinterprets bytes, so its meaning depends on both
    layouts (changing either would change the values);
  * copies present in the input (a layout-changing copy is the point of the copy), custom-calls
    with `operand_layout_constraints` and their operands, layouts with tiles or memory spaces.

Transposes become layout changes where that saves a copy, as XLA CPU does:
  * a transpose of a value laid out so that the row-major transpose is the same bytes (an entry
    parameter given column-major, say) is free: it reads that value directly, where XLA's
    operand constraint would otherwise have copied the value to row-major first;
  * an entry root transpose whose required result layout is the operand's layout permuted is
    given that layout: no data moves, instead of a transpose plus a copy to the result layout.
Other consumers of a non-row-major entry parameter read one row-major `copy` of it (fusions
read it as it is: their loops index any layout), and a root
whose layout differs from the entry result layout gets a `copy` to it (XLA's copy insertion).
Reshapes between row-major shapes are bitcasts (XLA's ReshapeIsBitcast): same bytes, and in
row-major order the same logical values, so the interpreter's results do not change.
"""
from __future__ import annotations

from dataclasses import dataclass

from hlotools.ir.attributes import ComputationLayout
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.shape import Layout, Shape
from hlotools.passes.base import HloPass, PassContext


@dataclass
class LayoutAssignment(HloPass):
    """XLA's LayoutAssignment for the CPU (see the module docstring)."""
    name = "layout-assignment"
    description = "row-major layouts everywhere (CPU), entry layout honoured; free transposes, copies, bitcasts"

    reshape_to_bitcast: bool = True

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        entry = module.entry
        params, result = entry_layout(module)
        if entry is not None and entry.root is not None and "entry_computation_layout" not in module.attrs:
            # XLA's parser derives the entry layout from the entry's shapes as written (the
            # printer prints that derivation): honour the written layouts the same way.
            params, result = [p.shape for p in entry.parameters if p is not None], entry.root.shape
        pinned = _pinned(module)
        if entry is not None and params is not None:
            for p, want in zip(entry.parameters, params):
                if p is not None and want.compatible(p.shape):
                    rw.set_shape(p, want.with_default_layout())
        result = result.with_default_layout() if result is not None and entry is not None and \
            entry.root is not None and result.compatible(entry.root.shape) else None
        wants = _result_layout_candidates(entry, result)
        late = {id(entry.root)} if result is not None and entry.root.opcode == "tuple" else set()  # type: ignore[union-attr]
        for comp in module.computations:
            for inst in comp.instructions:
                if id(inst) in pinned or id(inst) in late or (inst.opcode == "parameter" and
                                                               (comp is entry or comp.is_fusion_computation)):
                    continue
                planned = wants.get(id(inst))
                if planned is not None and (planned[1] or bitcast_layout(inst) == planned[0].layout):
                    want = planned[0]
                    rw.set_shape(inst, want)  # its operand is final already (textual order)
                    ctx.decision("%s produces the entry result layout %s itself", inst.name, want.layout)
                elif inst.opcode == "fusion" and _body_root(inst) is not None:
                    rw.set_shape(inst, _body_root(inst).shape)  # type: ignore[union-attr]
                else:
                    rw.set_shape(inst, row_major(inst.shape))
        _fusion_parameters_follow_operands(rw, module)
        if entry is not None:
            _entry_parameter_copies(rw, entry, ctx)
            if result is not None:
                _entry_result(rw, entry, result, ctx)
        if self.reshape_to_bitcast:
            for comp in module.computations:
                _reshapes_to_bitcasts(rw, comp, ctx)
        return rw.changed


def row_major(shape: Shape) -> Shape:
    """`shape` with the descending layout on every array leaf (tiled/annotated ones kept)."""
    if shape.tuple_shapes is not None:
        leaves = tuple(row_major(s) for s in shape.tuple_shapes)
        return shape if leaves == shape.tuple_shapes else Shape.tuple_of(leaves)
    if shape.element_type is None or not shape.element_type.is_array:
        return shape
    if shape.layout is not None and shape.layout.extras:
        return shape
    want = Layout.default(len(shape.dims))
    return shape if shape.layout == want else shape.with_layout(want)


def entry_layout(module: Module) -> tuple[list[Shape] | None, Shape | None]:
    """Parameter and result shapes of `entry_computation_layout` (None when absent/unreadable)."""
    value = module.attrs.get("entry_computation_layout")
    if not isinstance(value, ComputationLayout):
        return None, None
    return list(value.params), value.result


def bitcast_layout(transpose: Instruction) -> Layout | None:
    """The result layout that makes `transpose` the same bytes as its operand."""
    src = transpose.operands[0].shape
    if src.layout is None or src.layout.extras or len(src.layout.minor_to_major) != src.rank:
        return None
    perm = tuple(transpose.attrs.get("dimensions", ()))
    inverse = {d: k for k, d in enumerate(perm)}
    return Layout(tuple(inverse[d] for d in src.layout.minor_to_major))


def is_free_transpose(inst: Instruction) -> bool:
    """A transpose that moves no data: its layout is its operand's, permuted."""
    return inst.opcode == "transpose" and inst.shape.layout is not None and \
        bitcast_layout(inst) == inst.shape.layout


def _pinned(module: Module) -> set[int]:
    """Instructions whose layouts carry meaning and stay as they are."""
    out: set[int] = set()
    for comp in module.computations:
        for inst in comp.instructions:
            if inst.opcode == "bitcast":
                out.add(id(inst))
                out.update(id(o) for o in inst.operands)
            elif inst.opcode == "copy":
                out.add(id(inst))
            elif inst.opcode == "custom-call" and "operand_layout_constraints" in inst.attrs:
                out.add(id(inst))
                out.update(id(o) for o in inst.operands)
    return out


def _fusion_parameters_follow_operands(rw: Rewriter, module: Module) -> None:
    """A fused computation's parameters have the layouts of the fusion's operands (a fusion
    reads its operands' buffers as they are)."""
    for comp in module.computations:
        for inst in comp.instructions:
            body = inst.attrs.get("calls") if inst.opcode == "fusion" else None
            if body is None or not hasattr(body, "parameters"):
                continue
            for p, o in zip(body.parameters, inst.operands):
                if p is not None and o.shape.compatible(p.shape):
                    rw.set_shape(p, o.shape)


def _entry_parameter_copies(rw: Rewriter, entry: Computation, ctx: PassContext) -> None:
    """Row-major consumers of a non-row-major parameter read one copy of it; transposes that
    the parameter's layout makes free read the parameter itself."""
    for p in entry.parameters:
        if p is None or not p.shape.is_array or row_major(p.shape) == p.shape:
            continue
        needy = [u for u in p.users if u.opcode not in ("bitcast", "copy", "fusion") and
                 not (u.opcode == "transpose" and bitcast_layout(u) == u.shape.layout)]
        if not needy:
            ctx.decision("parameter %s keeps layout %s: its users read it as it is", p.name, p.shape.layout)
            continue
        copy = Instruction(p.name + ".row_major", "copy", row_major(p.shape), [p])
        rw.add_instruction(entry, copy, before=_first_user(entry, needy), name=f"copy.{p.name}")
        for u in needy:
            for k, o in enumerate(u.operands):
                if o is p:
                    rw.replace_operand(u, k, copy)
        ctx.decision("copied parameter %s %s to row-major for %d users", p.name, p.shape.layout, len(needy))


def _first_user(comp: Computation, users: list[Instruction]) -> Instruction:
    ids = {id(u) for u in users}
    return next(i for i in comp.instructions if id(i) in ids)


def _result_layout_candidates(entry: Computation | None, result: Shape | None) -> dict[int, tuple[Shape, bool]]:
    """Values that can produce the entry result layout themselves, with that layout: a root
    transpose (or one only the root tuple reads) takes it when that makes it free; a loop fusion
    writes any layout, so it (and its body's root) takes it unconditionally — no copy either way."""
    if entry is None or result is None or entry.root is None:
        return {}
    root = entry.root
    pairs: list[tuple[Instruction, Shape]] = []
    if result.is_array:
        pairs.append((root, result))
    elif root.opcode == "tuple" and result.tuple_shapes is not None:
        pairs.extend((op, leaf) for op, leaf in zip(root.operands, result.tuple_shapes)
                     if leaf.is_array and len(op.users) == 1 and root.operands.count(op) == 1)
    out: dict[int, tuple[Shape, bool]] = {}  # id -> (shape, unconditionally)
    for value, leaf in pairs:
        if value.opcode == "transpose":
            out[id(value)] = (leaf, False)
        elif _writes_any_layout(value) and not leaf.layout.extras:  # type: ignore[union-attr]
            out[id(value)] = (leaf, True)
            body_root = value.attrs["calls"].root
            out[id(body_root)] = (body_root.shape.with_layout(leaf.layout), True)
    return out


def _body_root(fusion: Instruction) -> Instruction | None:
    """The root of a fusion's body when the fusion's shape is its shape (layouts aside): the
    fusion's buffer is its root's (bodies are laid out first: callees precede callers)."""
    body = fusion.attrs.get("calls")
    root = getattr(body, "root", None)
    return root if root is not None and root.shape.compatible(fusion.shape) else None


def _writes_any_layout(inst: Instruction) -> bool:
    """A loop/input fusion computing one array: its loop can store in any order."""
    body = inst.attrs.get("calls") if inst.opcode == "fusion" else None
    return body is not None and inst.shape.is_array and str(inst.attrs.get("kind")) in ("kLoop", "kInput") \
        and body.root is not None and body.root.opcode not in ("parameter", "bitcast") and \
        len(body.root.users) == 0


def _entry_result(rw: Rewriter, entry: Computation, want: Shape, ctx: PassContext) -> None:
    """Give the root the entry result layout: a copy for each leaf that has another one."""
    root = entry.root
    assert root is not None
    if want.is_array:
        if root.shape != want:
            rw.set_root(entry, _copy_to(rw, entry, root, want, ctx, at_end=True))
    elif root.opcode == "tuple" and want.tuple_shapes is not None:
        for k, (op, leaf) in enumerate(zip(list(root.operands), want.tuple_shapes)):
            if leaf.is_array and op.shape.is_array and op.shape != leaf:
                rw.replace_operand(root, k, _copy_to(rw, entry, op, leaf, ctx, at_end=False))
        rw.set_shape(root, Shape.tuple_of([o.shape for o in root.operands]))


def _copy_to(rw: Rewriter, comp: Computation, value: Instruction, want: Shape, ctx: PassContext,
             at_end: bool) -> Instruction:
    copy = Instruction(value.name, "copy", want, [value])
    rw.add_instruction(comp, copy, before=None if at_end else comp.root, name=f"copy.{value.name}")
    ctx.decision("%s: copied to the entry result layout %s", value.name, want.layout)
    return copy


def _reshapes_to_bitcasts(rw: Rewriter, comp: Computation, ctx: PassContext) -> None:
    """A reshape between row-major arrays of one element type is a bitcast (it takes the
    reshape's name and place)."""
    old: list[Instruction] = []
    for inst in comp.instructions:
        if inst.opcode != "reshape":  # (pinned or not: the shape and layout stay the same)
            continue
        src = inst.operands[0].shape
        if not (src.is_array and inst.shape.is_array and src.element_type == inst.shape.element_type
                and src.is_static and inst.shape.is_static
                and _plain_row_major(src) and _plain_row_major(inst.shape)):
            continue
        attrs = {k: v for k, v in inst.attrs.items() if k != "inferred_dimension"}
        bitcast = Instruction(inst.name, "bitcast", inst.shape, [inst.operands[0]], attrs)
        rw.add_instruction_deferred(comp, bitcast, before=inst, name="bitcast")
        bitcast.name, inst.name = inst.name, rw.unique_name(inst.name + ".reshape")
        rw.replace_all_uses_with(inst, bitcast)
        rw.detach(inst)
        old.append(inst)
        ctx.decision("%s: a reshape between row-major shapes is a bitcast", bitcast.name)
    if old:
        rw.flush_deferred(comp)
        rw.remove_instructions(comp, old)


def _plain_row_major(shape: Shape) -> bool:
    """Descending layout without tiles or other annotations (a tiled layout is never the
    row-major order row_major() leaves it in)."""
    return shape.layout is None or shape.layout.is_default
