"""HLO text built computation by computation, for the StableHLO translators.

Like the torch front end (hlotools/torch/builder.py), the translation writes HLO text and hands
it to the HLO parser, which builds the IR with its own shape inference and verifier checks;
every line remembers the StableHLO offset it came from, so an error the HLO parser finds in a
line is reported at the op that produced it."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from hlotools.text.stablehlo.types import TensorType


class Value(NamedTuple):
    """An HLO instruction's name and its type (a tuple: one is made per instruction emitted)."""
    name: str
    type: TensorType


@dataclass
class Computation:
    name: str
    lines: list[tuple[str, int]] = field(default_factory=list)  # (instruction text, source offset)
    index: dict[str, int] = field(default_factory=dict)  # HLO name -> line
    is_entry: bool = False
    root: str | None = None

    def text(self, lines: list[str], where: list[int]) -> None:
        """Append its HLO lines to `lines`, and the StableHLO offset of each to `where`."""
        start = self.lines[0][1] if self.lines else 0
        lines.append(("ENTRY " if self.is_entry else "") + self.name + " {")
        where.append(start)
        root = self.index.get(self.root or "", -1)
        for line, pos in self.lines:
            lines.append("  " + line)
            where.append(pos)
        if root >= 0:
            at = len(lines) - len(self.lines) + root
            lines[at] = "  ROOT " + lines[at][2:]
        lines.append("}")
        where.append(where[-1])


class ModuleText:
    """The module's computations (callees before callers) and its fresh-name counter."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.header_attrs: list[str] = []
        self.computations: list[Computation] = []
        self.count = 0
        self.used_comp_names: set[str] = set()

    def fresh(self, hint: str) -> str:
        self.count += 1
        return f"{hint}.{self.count}"

    def comp_name(self, hint: str) -> str:
        name = _clean(hint)
        base, k = name, 0
        while name in self.used_comp_names:
            k += 1
            name = f"{base}.{k}"
        self.used_comp_names.add(name)
        return name

    def text(self) -> tuple[str, list[int]]:
        """The HLO text and, per line (0-based), the StableHLO offset it came from."""
        lines = [f"HloModule {_clean(self.name)}" + "".join(f", {a}" for a in self.header_attrs), ""]
        where = [0, 0]
        for comp in self.computations:
            comp.text(lines, where)
            lines.append("")
            where.append(where[-1])
        return "\n".join(lines), where


class Emitter:
    """Appends instructions to one computation."""

    def __init__(self, module: ModuleText, comp: Computation) -> None:
        self.module = module
        self.comp = comp
        self.pos = 0  # the op being translated
        self.metadata = ""  # its metadata={...} (from loc(...)), or ""
        self.name_hint: str | None = None  # its instructions' name stem (the loc's op name, as XLA's)

    def emit(self, opcode: str, operands: list[Value], rtype: TensorType, attrs: str = "",
             hint: str | None = None, shape_text: str | None = None) -> Value:
        """One instruction; shape_text overrides how its shape is written (a layout, for custom-calls)."""
        module = self.module
        module.count += 1
        name = f"{hint or self.name_hint or opcode}.{module.count}"
        line = f"{name} = {shape_text or rtype.text} {opcode}({', '.join([o.name for o in operands])})"
        if attrs:
            line += ", " + attrs
        if self.metadata and opcode != "parameter" and opcode != "get-tuple-element":
            line += ", " + self.metadata
        comp = self.comp
        comp.index[name] = len(comp.lines)
        comp.lines.append((line, self.pos))
        return Value(name, rtype)

    def emit_literal(self, literal: str, rtype: TensorType) -> Value:
        name = self.module.fresh("constant")
        self.comp.index[name] = len(self.comp.lines)
        meta = f", {self.metadata}" if self.metadata else ""
        self.comp.lines.append((f"{name} = {rtype.text} constant({literal}){meta}", self.pos))
        return Value(name, rtype)

    def parameter(self, number: int, rtype: TensorType, hint: str = "Arg") -> Value:
        name = self.module.fresh(_clean(hint))
        self.comp.index[name] = len(self.comp.lines)
        self.comp.lines.append((f"{name} = {rtype.text} parameter({number})", self.pos))
        return Value(name, rtype)

    def tuple(self, values: list[Value]) -> Value:
        return self.emit("tuple", values, TensorType("", elements=tuple(v.type for v in values)))

    def untuple(self, value: Value) -> list[Value]:
        assert value.type.elements is not None
        return [self.emit("get-tuple-element", [value], t, f"index={i}") for i, t in enumerate(value.type.elements)]

    def emit_multi(self, opcode: str, operands: list[Value], types: list[TensorType], attrs: str = "") -> list[Value]:
        """An op with several results: one tuple-shaped instruction and its get-tuple-elements."""
        whole = self.emit(opcode, operands, TensorType("", elements=tuple(types)), attrs)
        return self.untuple(whole)

    def set_root(self, value: Value) -> None:
        self.comp.root = value.name


_PLAIN = re.compile(r"[A-Za-z_][\w.\-]*")


def _clean(name: str) -> str:
    """The name as an HLO identifier (other characters become '_')."""
    if _PLAIN.fullmatch(name) and name.isascii():
        return name
    out = "".join(c if c.isalnum() or c in "_.-" else "_" for c in name)
    return out if out and (out[0].isalpha() or out[0] == "_") else "m" + out


def ints(values: list[int]) -> str:
    return "{" + ",".join(str(v) for v in values) + "}"


__all__ = ["Computation", "Emitter", "ModuleText", "Value", "ints"]
