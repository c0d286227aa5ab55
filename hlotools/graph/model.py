"""A module as plain data for the HTML graph view (graph/viewer.js draws it).

Instructions are numbered across the module; each record carries what the viewer shows without
asking again: opcode, category, shape, the attributes as printed, the parsed metadata
(op_name, source_file:source_line), operands (numbers), the computations it calls (numbers
with the attribute that names them) and its cost (ir/cost.py). Users are derived in the viewer.
"""
from __future__ import annotations

import re

from hlotools.ir.computation import Computation
from hlotools.ir.cost import Cost, instruction_cost
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import COMPUTATION_ATTRS, COMPUTATION_LIST_ATTRS
from hlotools.text.printer import HloPrinter

_METADATA_FIELD = re.compile(r'(\w+)=(?:"((?:[^"\\]|\\.)*)"|(-?\d+))')
_MAX_ATTRIBUTE_TEXT = 400  # long values (big constants, backend configs) are cut in the panel
_MAX_CONSTANT_TEXT = 24  # constants this short show their value in the node


def metadata_fields(text: str) -> dict[str, str]:
    """`{op_name="jit(f)/add" source_file="f.py" source_line=3}` -> its fields."""
    return {m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
            for m in _METADATA_FIELD.finditer(text)}


def callees(inst: Instruction) -> list[tuple[str, Computation]]:
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


def category(inst: Instruction) -> str:
    if inst.opcode in ("parameter", "constant"):
        return inst.opcode
    try:
        return inst.info.category
    except KeyError:
        return "misc"


def _cut(text: str) -> str:
    return text if len(text) <= _MAX_ATTRIBUTE_TEXT else text[:_MAX_ATTRIBUTE_TEXT] + "…"


class _Builder:
    def __init__(self, module: Module) -> None:
        self.module = module
        self.printer = HloPrinter("short", print_large_constants=False)
        self.comp_index = {id(c): i for i, c in enumerate(module.computations)}
        self.inst_index: dict[int, int] = {}
        for comp in module.computations:
            for inst in comp.instructions:
                self.inst_index[id(inst)] = len(self.inst_index)
        self.costs: dict[int, Cost] = {}

    def instruction(self, inst: Instruction, comp: int) -> dict:
        attrs = self.printer.attribute_items(inst)
        meta = next((metadata_fields(t) for n, t in attrs if n == "metadata"), {})
        cost = instruction_cost(inst, self.costs)
        record: dict = {"n": inst.name, "op": inst.opcode, "c": category(inst), "comp": comp,
                        "s": self.printer.shape(inst.shape), "o": [self.inst_index[id(o)] for o in inst.operands],
                        "f": cost.flops, "b": cost.bytes_accessed}
        if attrs:
            record["a"] = [[n, _cut(t)] for n, t in attrs if n != "metadata"]
        if meta:
            record["m"] = meta
        calls = [[role, self.comp_index[id(c)]] for role, c in callees(inst) if id(c) in self.comp_index]
        if calls:
            record["calls"] = calls
        if inst.control_predecessors:
            record["ctrl"] = [self.inst_index[id(p)] for p in inst.control_predecessors]
        label = _short_value(inst)
        if label:
            record["v"] = label
        return record

    def computation(self, comp: Computation) -> dict:
        insts = [self.inst_index[id(i)] for i in comp.instructions]
        kind = "entry" if comp is self.module.entry else "fusion" if comp.is_fusion_computation else "called"
        return {"name": comp.name, "kind": kind, "insts": insts,
                "root": self.inst_index[id(comp.root)] if comp.root is not None else -1}

    def build(self) -> dict:
        insts: list[dict] = []
        for ci, comp in enumerate(self.module.computations):
            insts.extend(self.instruction(inst, ci) for inst in comp.instructions)
        entry = self.module.entry
        return {"module": self.module.name,
                "entry": self.comp_index[id(entry)] if entry is not None else len(self.module.computations) - 1,
                "computations": [self.computation(c) for c in self.module.computations],
                "instructions": insts}


def _short_value(inst: Instruction) -> str:
    """What a node shows beside its opcode: a short constant, a tuple index, a parameter number."""
    if inst.opcode == "parameter":
        return str(inst.parameter_number)
    if inst.opcode == "get-tuple-element" and isinstance(inst.attrs.get("index"), int):
        return str(inst.attrs["index"])
    lit = inst.literal
    if inst.opcode == "constant" and lit is not None and lit.text and len(lit.text) <= _MAX_CONSTANT_TEXT:
        return lit.text
    if inst.opcode == "fusion":
        kind = inst.attrs.get("kind")
        return str(kind) if kind is not None else ""
    return ""


def module_model(module: Module) -> dict:
    """The JSON-ready model of the whole module (every computation, every instruction)."""
    return _Builder(module).build()
