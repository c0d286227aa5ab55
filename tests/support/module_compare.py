"""Structural equality of two modules, independent of the printer (for round-trip tests)."""
from __future__ import annotations

from hlotools.ir.attributes import VERBATIM_TYPES, ComputationLayout, Raw
from hlotools.ir.canonical import is_default_attr
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.literal import Literal
from hlotools.ir.module import Module
from hlotools.text.printer import HloPrinter


def _value_key(value: object) -> object:
    if isinstance(value, Computation):
        return ("computation", value.name)
    if isinstance(value, (tuple, list)):
        return tuple(_value_key(v) for v in value)
    if isinstance(value, Literal):
        return value.key()
    if isinstance(value, VERBATIM_TYPES):  # decoded values print as written
        return ("text", value.text)
    if isinstance(value, ComputationLayout):
        return ("text", value.text if value.text is not None else HloPrinter().value(value))
    return (type(value).__name__, value) if isinstance(value, str) else value


def module_difference(a: Module, b: Module) -> str | None:
    """The first structural difference between two modules, or None."""
    if a.name != b.name:
        return f"module name {a.name!r} != {b.name!r}"
    ka = {k: _value_key(v) for k, v in a.attrs.items()}
    kb = {k: _value_key(v) for k, v in b.attrs.items()}
    # The printer writes the entry_computation_layout XLA derives when the text had none.
    for x, y, m in ((ka, kb, a), (kb, ka, b)):
        if "entry_computation_layout" in y and "entry_computation_layout" not in x:
            x["entry_computation_layout"] = ("text", HloPrinter().entry_computation_layout(m) or "")
    if ka != kb:
        return f"header attributes {ka} != {kb}"
    if (a.stack_frames_text or "").strip() != (b.stack_frames_text or "").strip():
        return "stack frames differ"
    if [c.name for c in a.computations] != [c.name for c in b.computations]:
        return "computation lists differ"
    if (a.entry and a.entry.name) != (b.entry and b.entry.name):
        return "entry differs"
    for ca, cb in zip(a.computations, b.computations):
        if (ca.execution_thread or "main") != (cb.execution_thread or "main"):
            return f"{ca.name}: execution thread differs"
        if len(ca.instructions) != len(cb.instructions):
            return f"{ca.name}: instruction count {len(ca.instructions)} != {len(cb.instructions)}"
        if (ca.root and ca.root.name) != (cb.root and cb.root.name):
            return f"{ca.name}: root differs"
        for ia, ib in zip(ca.instructions, cb.instructions):
            where = f"{ca.name}/{ia.name}"
            fa = (ia.name, ia.opcode, ia.shape, [o.name for o in ia.operands], ia.parameter_number,
                  [p.name for p in ia.control_predecessors])
            fb = (ib.name, ib.opcode, ib.shape, [o.name for o in ib.operands], ib.parameter_number,
                  [p.name for p in ib.control_predecessors])
            if fa != fb:
                return f"{where}: {fa} != {fb}"
            if _attr_keys(ia) != _attr_keys(ib):
                return f"{where}: attributes {ia.attrs} != {ib.attrs}"
            la, lb = ia.literal, ib.literal
            if (la is None) != (lb is None) or (la is not None and lb is not None and not _same_literal(la, lb)):
                return f"{where}: literal differs"
    return None


def _attr_keys(inst: Instruction) -> dict[str, object]:
    """Attributes by value, without those holding XLA's default (the printer leaves them out)."""
    out = {k: _value_key(v) for k, v in inst.attrs.items() if not is_default_attr(inst, k, v)}
    if "operand_precision" in out and isinstance(inst.attrs["operand_precision"], Raw):  # compare words
        words = str(inst.attrs["operand_precision"]).strip("{} ").split(",")
        out["operand_precision"] = tuple(w.strip().lower() for w in words)
    return out


def _same_literal(a: Literal, b: Literal) -> bool:
    if a.elements is not None or b.elements is not None:
        return (a.elements is not None and b.elements is not None and len(a.elements) == len(b.elements)
                and all(_same_literal(x, y) for x, y in zip(a.elements, b.elements)))
    if a.elided or b.elided:
        return a.elided == b.elided
    assert a.array is not None and b.array is not None
    return a.array.tobytes() == b.array.tobytes()
