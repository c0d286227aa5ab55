"""HLO text built instruction by instruction, each value with its element type and dims.

The front end writes HLO text (not IR objects): the text is the in-process compile cache's
key, what `dump_dir` shows, and what parse_module verifies, so one string serves all three.
Every helper computes its result's shape with XLA's rule for that opcode, so a lowering
never spells a shape by hand; the parser's verifier re-checks them all."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

Dims = tuple[int, ...]


@dataclass(frozen=True)
class Value:
    """One HLO instruction's result: its name, element type and dims."""

    name: str
    dtype: str
    dims: Dims
    dynamic: tuple[bool, ...] = ()  # per dim: `<=N` (bounded dynamic) in the text

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def shape(self) -> str:
        return shape_text(self.dtype, self.dims, self.dynamic)


def shape_text(dtype: str, dims: Sequence[int], dynamic: Sequence[bool] = ()) -> str:
    marks = list(dynamic) or [False] * len(dims)
    return f"{dtype}[{','.join(('<=' if m else '') + str(d) for d, m in zip(dims, marks))}]"


def ints(values: Sequence[int]) -> str:
    return "{" + ",".join(str(v) for v in values) + "}"


def literal(value: complex | float | int | bool, dtype: str) -> str:
    """A scalar constant's text in `dtype` (inf, nan and bools as HLO spells them)."""
    if dtype == "pred":
        return "true" if value else "false"
    if dtype.startswith("c"):
        c = complex(value)
        return f"({literal(c.real, 'f32')}, {literal(c.imag, 'f32')})"
    if dtype.startswith(("s", "u")):
        return str(int(value))  # type: ignore[arg-type]
    f = float(value.real if isinstance(value, complex) else value)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return repr(f)


@dataclass
class Builder:
    """The entry computation's instructions plus the scalar computations they call."""

    module_name: str = "torch_graph"
    lines: list[str] = field(default_factory=list)
    computations: dict[str, str] = field(default_factory=dict)  # name -> text
    _count: int = 0

    def fresh(self, hint: str) -> str:
        self._count += 1
        return f"{_clean(hint)}.{self._count}"

    def emit(self, opcode: str, operands: Sequence[Value], dtype: str, dims: Sequence[int],
             attrs: str = "", hint: str | None = None, dynamic: Sequence[bool] = ()) -> Value:
        value = Value(self.fresh(hint or opcode), dtype, tuple(dims), tuple(dynamic) if any(dynamic) else ())
        tail = f", {attrs}" if attrs else ""
        self.lines.append(f"  {value.name} = {value.shape} {opcode}({', '.join(o.name for o in operands)}){tail}")
        return value

    def emit_tuple(self, opcode: str, operands: Sequence[Value], shapes: Sequence[tuple[str, Dims]],
                   attrs: str = "") -> list[Value]:
        """A multi-output instruction (variadic reduce, ...) and its get-tuple-elements."""
        name = self.fresh(opcode)
        shape = "(" + ", ".join(shape_text(t, d) for t, d in shapes) + ")"
        tail = f", {attrs}" if attrs else ""
        self.lines.append(f"  {name} = {shape} {opcode}({', '.join(o.name for o in operands)}){tail}")
        out = []
        for i, (t, d) in enumerate(shapes):
            value = Value(self.fresh("get-tuple-element"), t, tuple(d))
            self.lines.append(f"  {value.name} = {value.shape} get-tuple-element({name}), index={i}")
            out.append(value)
        return out

    def parameter(self, number: int, name: str, dtype: str, dims: Sequence[int],
                  dynamic: Sequence[bool] = ()) -> Value:
        value = Value(_clean(name), dtype, tuple(dims), tuple(dynamic) if any(dynamic) else ())
        self.lines.append(f"  {value.name} = {value.shape} parameter({number})")
        return value

    def computation(self, name: str, text: str) -> str:
        self.computations.setdefault(name, text)
        return name

    def module_text(self, results: Sequence[Value]) -> str:
        """The whole module; the entry returns a tuple of `results` (XLA's form for many)."""
        shapes = ", ".join(r.shape for r in results)
        root = f"  ROOT result = ({shapes}) tuple({', '.join(r.name for r in results)})"
        parts = [f"HloModule {self.module_name}", "", *self.computations.values(),
                 "ENTRY main {", *self.lines, root, "}", ""]
        return "\n".join(parts)


def _clean(name: str) -> str:
    """An HLO identifier from an FX node name."""
    out = "".join(c if c.isalnum() or c in "_.-" else "_" for c in name)
    return out if out and (out[0].isalpha() or out[0] == "_") else "v" + out
