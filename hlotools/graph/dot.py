"""A module as a Graphviz graph: one cluster per computation, an edge from each operand to
its user, nodes labelled with opcode and shape (the instruction name on top, as XLA's graph
dumps do). A call-like instruction gets a dashed edge from the root of each computation it
calls, so the data flow through `call`, `while`, `fusion`, `reduce` ... stays visible.
"""
from __future__ import annotations

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import COMPUTATION_ATTRS, COMPUTATION_LIST_ATTRS

# Fill colours by opcode category (ir/opcodes.py), light enough for black text.
_ELEMENTWISE = "#dae8fc"
_CATEGORY_COLOURS = {
    "parameter": "#fff2cc", "constant": "#e6e6e6", "unary": _ELEMENTWISE, "binary": _ELEMENTWISE,
    "compare": _ELEMENTWISE, "select": _ELEMENTWISE, "clamp": _ELEMENTWISE, "convert": _ELEMENTWISE,
    "reduction": "#f8cecc", "data": "#d5e8d4", "linalg": "#f5d0a9", "control": "#e1d5e7",
    "collective": "#ffe6cc", "async": "#ffe6cc",
}
_MAX_CONSTANT_TEXT = 24


def _quote(text: str) -> str:
    """A DOT double-quoted string; newlines become centred line breaks."""
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{body}"'


def _node_id(inst: Instruction, ids: dict[int, str]) -> str:
    key = id(inst)
    if key not in ids:
        ids[key] = f"n{len(ids)}"
    return ids[key]


def _label(inst: Instruction) -> str:
    parts = [inst.name, inst.opcode if inst.opcode != "parameter" else f"parameter {inst.parameter_number}"]
    lit = inst.literal
    if inst.opcode == "constant" and lit is not None and lit.text and len(lit.text) <= _MAX_CONSTANT_TEXT:
        parts[1] = f"constant {lit.text}"
    elif inst.opcode == "get-tuple-element" and isinstance(inst.attrs.get("index"), int):
        parts[1] = f"get-tuple-element {inst.attrs['index']}"
    parts.append(inst.shape.to_text(with_layout=False))
    return "\n".join(parts)


def _colour(inst: Instruction) -> str:
    if inst.opcode in ("parameter", "constant"):
        return _CATEGORY_COLOURS[inst.opcode]
    try:
        category = inst.info.category
    except KeyError:
        return "#ffffff"
    return _CATEGORY_COLOURS.get(category, "#ffffff")


def _computation_lines(comp: Computation, index: int, ids: dict[int, str]) -> list[str]:
    title = ("ENTRY " if comp.is_entry else "") + comp.name
    lines = [f"  subgraph cluster_{index} {{", f"    label={_quote(title)};",
             '    style="rounded"; color="#888888";']
    for inst in comp.instructions:
        attrs = [f"label={_quote(_label(inst))}", f'fillcolor="{_colour(inst)}"']
        if inst is comp.root:
            attrs.append("penwidth=2")
        lines.append(f"    {_node_id(inst, ids)} [{', '.join(attrs)}];")
    lines.append("  }")
    return lines


def _callees(inst: Instruction) -> list[tuple[str, Computation]]:
    """(attribute name, computation) for each computation the instruction calls."""
    out: list[tuple[str, Computation]] = []
    for key in COMPUTATION_ATTRS:
        c = inst.attrs.get(key)
        if isinstance(c, Computation):
            out.append((key, c))
    for key in COMPUTATION_LIST_ATTRS:
        for i, c in enumerate(inst.attrs.get(key) or ()):
            if isinstance(c, Computation):
                out.append((f"{key}[{i}]", c))
    return out


def _edge_lines(comp: Computation, ids: dict[int, str]) -> list[str]:
    lines: list[str] = []
    for inst in comp.instructions:
        me = _node_id(inst, ids)
        for i, op in enumerate(inst.operands):
            tag = f" [label={_quote(str(i))}]" if len(inst.operands) > 1 else ""
            lines.append(f"  {_node_id(op, ids)} -> {me}{tag};")
        for pred in inst.control_predecessors:
            lines.append(f'  {_node_id(pred, ids)} -> {me} [style=dotted, color="#cc0000"];')
        for role, callee in _callees(inst):
            if callee.root is not None:
                lines.append(f'  {_node_id(callee.root, ids)} -> {me} '
                             f'[style=dashed, color="#666666", label={_quote(role)}];')
    return lines


def module_to_dot(module: Module) -> str:
    """The whole module as one `digraph` (callees first, as in the text)."""
    ids: dict[int, str] = {}
    lines = [f"digraph {_quote(module.name)} {{", "  compound=true; rankdir=TB;",
             '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=8];']
    for i, comp in enumerate(module.computations):
        lines.extend(_computation_lines(comp, i, ids))
    for comp in module.computations:
        lines.extend(_edge_lines(comp, ids))
    lines.append("}")
    return "\n".join(lines) + "\n"
