"""A copy of a module as parsing its printed text would build it, without the text.

The LLVM backend runs the -O2 passes on a copy so that the caller's module never changes, and
that copy was `parse(print(module))`: a quarter of the whole -O2 time on the JAX benchmark
modules (llama_block: print 1.3 ms + parse 6 ms, passes 18 ms). `reparsed_copy` builds the
same IR directly: the objects the parser would make (computations in print order, attributes
in XLA's print order without the ones XLA leaves out, the derived entry_computation_layout,
the flags the parser sets, operand and user edges in text order), sharing the immutable parts
(shapes, literals, attribute values) with the original.

Modules with features whose printed form the parser rebuilds differently (async syntax sugar,
control predecessors, an order the printer would change) take the real round trip. tests/test_reparse.py compares both
copies field by field over the corpora.

One difference is deliberate: instructions and computations keep the line and column of the
text the module came from, where the round trip gave positions in the printed copy (which no
one has seen: an error raised on the copy pointed into the wrong text).
"""
from __future__ import annotations

from typing import Any

from hlotools.ir.attributes import Raw
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.text.parse_async import ASYNC_OPS
from hlotools.text.parse_attrs import AttrError, decode_attr
from hlotools.text.print_attrs import HEADER_ORDER, MAYBE_DEFAULT, is_default_attr
from hlotools.text.printer import HloPrinter, _definition_order, computation_post_order

_SPECIAL_HEADER = frozenset({"origin_recovery_table", "debug_attributes"})


def reparsed_copy(module: Module) -> Module:
    """`parse(print(module))` (verify=False), built directly where the module allows it."""
    copy = fast_copy(module)
    if copy is not None:
        return copy
    from hlotools.text.parser import parse
    from hlotools.text.printer import print_module
    return parse(print_module(module), module.name)


def fast_copy(module: Module) -> Module | None:
    """The copy, or None when the module has a feature this function does not model."""
    entry = module.entry
    frames = module.stack_frames_text
    if entry is None or (frames is not None and frames != frames.strip("\n")):
        return None
    order = computation_post_order(module)
    if len(order) != len(module.computations) or any(a is not b for a, b in zip(order, module.computations)):
        return None
    printer = HloPrinter("short")
    attrs = _header(module, printer)
    if attrs is None:
        return None
    copy = Module(module.name)
    copy.attrs = attrs
    copy.stack_frames_text = frames  # printed verbatim, read back verbatim
    copy.source_style = "short"
    mapping: dict[int, Computation] = {}
    for comp in module.computations:
        new = _computation(comp, comp is entry, printer, mapping)
        if new is None:
            return None
        mapping[id(comp)] = new
        copy.add_computation(new)
    copy.entry = mapping[id(entry)]
    for comp in copy.computations:  # the parser's _mark_callees
        for inst in comp.instructions:
            if inst.opcode == "fusion":
                for callee in inst.called_computations():
                    callee.is_fusion_computation = True
    return copy


def _header(module: Module, printer: HloPrinter) -> dict[str, Any] | None:
    """Header attributes in print order (the derived entry layout added), each decoded from its
    printed text as the parser does (the header is a few short values)."""
    items: list[tuple[str, Any]] = []
    for name, value in module.attrs.items():
        if name in _SPECIAL_HEADER:
            return None
        try:
            items.append((name, decode_attr(name, printer.value(value))))
        except AttrError:
            return None  # the round trip reports it
    if "entry_computation_layout" not in module.attrs:
        derived = printer.entry_computation_layout(module)
        if derived is not None:
            items.append(("entry_computation_layout", decode_attr("entry_computation_layout", derived)))
    order = {name: i for i, (name, _) in enumerate(items)}
    items.sort(key=lambda kv: (HEADER_ORDER.get(kv[0], len(HEADER_ORDER)), order[kv[0]]))
    return dict(items)


def _computation(comp: Computation, is_entry: bool, printer: HloPrinter,
                 mapping: dict[int, Computation]) -> Computation | None:
    insts = comp.instructions
    if not insts or _definition_order(comp) is not insts:
        return None
    new = Computation(comp.name)
    new.line, new.column = comp.line, comp.column
    new.is_entry = is_entry
    thread = comp.execution_thread
    new.execution_thread = thread if thread is not None and thread != "main" else None
    root = comp.root if comp.root is not None else insts[-1]
    made: dict[int, Instruction] = {}
    for inst in insts:
        if inst.control_predecessors or inst.opcode in ASYNC_OPS:
            return None
        attrs = _attrs(inst, printer, mapping)
        if attrs is None:
            return None
        copy = Instruction(inst.name, inst.opcode, inst.shape, [made[id(o)] for o in inst.operands], attrs,
                           literal=inst.literal, parameter_number=inst.parameter_number,
                           line=inst.line, column=inst.column)
        made[id(inst)] = copy
        new.add_instruction(copy)
    new.root = made[id(root)]
    return new


def _attrs(inst: Instruction, printer: HloPrinter, mapping: dict[int, Computation]) -> dict[str, Any] | None:
    """The attributes the parser reads back from the printed line, in its order; None where
    printing changes a value (a Raw operand_precision is lowercased) or names a computation
    that is not printed before this one."""
    attrs = inst.attrs
    if not attrs:
        return {}
    out: dict[str, Any] = {}
    for name in printer.attr_order(inst):
        if name == "control-predecessors":
            return None
        value = attrs[name]
        if value is None or (name in MAYBE_DEFAULT and is_default_attr(inst, name, value)):
            continue
        if isinstance(value, Raw) and name == "operand_precision":
            return None
        if isinstance(value, Computation):
            callee = mapping.get(id(value))
            if callee is None:
                return None
            value = callee
        elif isinstance(value, (tuple, list)) and value and isinstance(value[0], Computation):
            callees = [mapping.get(id(c)) for c in value]
            if any(c is None for c in callees):
                return None
            value = type(value)(callees)
        out[name] = value
    return out
