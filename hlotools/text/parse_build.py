"""Grammar callbacks that build the IR directly (no parse tree).

The LALR driver in parser.py calls one method per grammar alternative (named by its alias in
grammar/hlo.lark) with the list of children values. Instructions are collected as light
`Pending` records and resolved when their computation's closing brace is reduced: only then
is the whole scope known, which is where XLA checks names (unique per computation scope,
defined before use), synthesises compact GTEs, turns nested operands into anonymous
instructions and infers omitted shapes.
"""
from __future__ import annotations

import re

from hlotools.errors import HloParseError, ShapeError
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape
from hlotools.ir.shape_text import array_shape, tuple_depth_message
from hlotools.ir.types import MAX_TUPLE_DEPTH
from hlotools.text.lexer import LineMap, Token
from hlotools.text.parse_async import ASYNC_OPS
from hlotools.text.parse_attrs import AttrError
from hlotools.text.parse_mini import stack_frames
from hlotools.text.parse_resolve import MAX_OPERAND_NESTING, MissingComputation, Pending, Resolver, Scope

MODULE_ATTRIBUTES = frozenset("""is_scheduled replica_count num_partitions input_output_alias buffer_donor
alias_passthrough_params entry_computation_layout frontend_attributes
allow_spmd_sharding_propagation_to_parameters allow_spmd_sharding_propagation_to_output
origin_recovery_table debug_attributes""".split())
_ARRAY_IN_TUPLE = re.compile(r"[a-z][a-z0-9_]*\[[^\]\[]*\](?:\{[^{}]*\})?")


def shape_or_error(text: str, where: int, lines: LineMap) -> Shape:
    """The array shape token at `where`, its ShapeError turned into a located HloParseError."""
    try:
        return array_shape(text)
    except ShapeError as e:
        line, col = lines.locate(where + e.offset)
        raise HloParseError(e.message, line, col) from None


class Builder(Resolver):
    """The grammar callbacks (one per alias in grammar/hlo.lark) and the module being built."""

    def __init__(self, text: str, lines: LineMap) -> None:
        self.text = text
        self.lines = lines
        self.mod = Module("")
        self.comps: dict[str, Computation] = {}
        self.style: str | None = None
        self.entry_seen: Computation | None = None
        self.anon_count = 0
        self.body_pos: dict[int, int] = {}
        self.tuple_shapes: dict[str, Shape] = {}

    # -- generic list / token callbacks ----------------------------------------------------
    def name_token(self, c: list) -> Token:
        return c[0]

    def list_first(self, c: list) -> list:
        return [c[0]]

    def list_append(self, c: list) -> list:
        c[0].append(c[1])
        return c[0]

    def list_append_sep(self, c: list) -> list:
        c[0].append(c[2])
        return c[0]

    def list_empty(self, c: list) -> list:
        return []

    # -- shapes -------------------------------------------------------------------------
    def shape_array(self, c: list) -> Shape:
        tok = c[0]
        return shape_or_error(tok[1], tok[2], self.lines)

    def shape_tuple(self, c: list) -> Shape:
        shape = Shape.tuple_of(c[1])
        if shape.tuple_depth > MAX_TUPLE_DEPTH:
            raise self.error(c[0][2], tuple_depth_message())
        return shape

    def shape_buffer(self, c: list) -> Shape:
        inner: Shape = c[1]
        if not inner.is_array:
            raise self.error(c[0][2], "a buffer shape b(...) must wrap an array shape")
        return Shape(inner.element_type, inner.dims, inner.layout, inner.dynamic, is_buffer=True)

    def shape_tuple_empty(self, c: list) -> Shape:
        return Shape.tuple_of(())

    # -- operands -------------------------------------------------------------------------
    def operands_empty(self, c: list) -> tuple:
        return ([], c[0][2])

    def operands(self, c: list) -> tuple:
        return (c[1], c[0][2])

    def payload_operands(self, c: list) -> tuple:
        return ("ops", c[0][0], c[0][1])

    def payload_token(self, c: list) -> tuple:
        return (c[0][0], c[0])

    def operand_ref(self, c: list) -> tuple:
        return ("ref", c[0], None, None)

    def operand_ref_gte(self, c: list) -> tuple:
        return ("ref", c[0], None, c[1])

    def operand_typed_ref(self, c: list) -> tuple:
        return ("ref", c[1], c[0], None)

    def operand_typed_ref_gte(self, c: list) -> tuple:
        return ("ref", c[1], c[0], c[2])

    def operand_nested_shaped(self, c: list) -> tuple:
        return ("nested", self._nested(Pending(c[0], c[1], c[2], [])))

    def operand_nested(self, c: list) -> tuple:
        return ("nested", self._nested(Pending(None, c[0], c[1], [])))

    def _nested(self, p: Pending) -> Pending:
        """Count operand nesting as the grammar builds it (inner first): resolving nested
        operands recurses, so `negate(negate(...))` 10^5 deep is refused here, with a place."""
        if p.payload[0] == "ops":
            p.depth = 1 + max((o[1].depth for o in p.payload[1] if o[0] == "nested"), default=0)
            if p.depth > MAX_OPERAND_NESTING:
                raise self.error(p.opcode[2], f"operands nested more than {MAX_OPERAND_NESTING} levels deep; "
                                 "give the inner instructions names of their own")
        return p

    def operand_anonymous(self, c: list) -> tuple:
        return ("anon", c[0])

    # -- instructions -------------------------------------------------------------------------
    def rhs_shaped(self, c: list) -> Pending:
        return Pending(c[0], c[1], c[2], c[3])

    def rhs_unshaped(self, c: list) -> Pending:
        return Pending(None, c[0], c[1], c[2])

    def instruction(self, c: list) -> Pending:
        p: Pending = c[2]
        p.name = c[0]
        if self.style is None:
            self.style = "long" if c[0][0] == "PNAME" else "short"
        return p

    def instruction_root(self, c: list) -> Pending:
        p = self.instruction(c[1:])
        p.root = c[0]
        return p

    def instruction_fast(self, c: list) -> Pending:
        """An INSTR token from lexer_fast: rebuild what the general rules would have produced."""
        (root, root_pos, pct, name_pos, shape_text, shape_pos, opcode, opcode_pos, payload,
         attrs) = c[0][3]
        shape = self._shape_text(shape_text, shape_pos) if shape_text else None
        if payload[0] == "OPS":
            ops = [("ref", (ttype, oname, opos, None),
                    shape_or_error(oshape, opos, self.lines) if oshape else None,
                    ("GTE", gte, gpos, None) if gte else None)
                   for oshape, opos, ttype, oname, gpos, gte in payload[1]]
            payload = ("ops", ops, payload[2])
        entries: list[tuple] = []
        for a in attrs:
            if a[0] == "raw":
                entries.append(("raw", ("ATTR", a[1], a[2], (a[3], a[4]))))
            else:
                ref = (a[3], a[4], a[5], None)
                entries.append(("comp", ("CATTR", a[1], a[2], None), self.comp_ref_name([ref])))
        p = Pending(shape, ("IDENT", opcode, opcode_pos, None), payload, entries)
        name_tok = ("PNAME" if pct else "IDENT", c[0][1], name_pos, None)
        p.name = name_tok
        if self.style is None:
            self.style = "long" if pct else "short"
        if root:
            p.root = ("ROOT", "ROOT", root_pos, None)
        return p

    def _shape_text(self, text: str, pos: int) -> Shape:
        if text[0] != "(":
            return shape_or_error(text, pos, self.lines)
        shape = self.tuple_shapes.get(text)
        if shape is None:
            shape = Shape.tuple_of([shape_or_error(t, pos, self.lines) for t in _ARRAY_IN_TUPLE.findall(text)])
            self.tuple_shapes[text] = shape
        return shape

    def single_anonymous(self, c: list) -> Pending:
        return Pending(c[0], c[1], c[2], c[3])

    def attr_raw(self, c: list) -> tuple:
        return ("raw", c[0])

    def attr_comp(self, c: list) -> tuple:
        return ("comp", c[0], c[1])

    def attr_comp_list(self, c: list) -> tuple:
        return ("comps", c[0], c[2])

    def attr_comp_list_empty(self, c: list) -> tuple:
        return ("comps", c[0], [])

    def comp_ref_name(self, c: list) -> Computation | MissingComputation:
        tok = c[0]
        comp = self.comps.get(tok[1])
        if comp is None:  # reported after the attribute name is checked, as XLA does
            return MissingComputation(tok)
        return comp

    def comp_ref_inline(self, c: list) -> Computation:
        comp: Computation = c[0]
        comp.name = self._unique_comp_name("_")
        self._register(comp)
        return comp

    # -- computations ---------------------------------------------------------------------
    def body(self, c: list) -> Computation:
        comp = Computation("_")
        line, col = self.lines.locate(c[0][2])
        comp.line, comp.column = line, col
        self.body_pos[id(comp)] = c[0][2]
        self.build_computation(comp, c[1], Scope(comp))
        return comp

    def comp_head_entry_sig(self, c: list) -> tuple:
        return (c[0], c[1], c[2])

    def comp_head_entry(self, c: list) -> tuple:
        return (c[0], c[1], None)

    def comp_head_sig(self, c: list) -> tuple:
        return (None, c[0], c[1])

    def comp_head_plain(self, c: list) -> tuple:
        return (None, c[0], None)

    def signature(self, c: list) -> tuple:
        return (c[1], c[4], c[0][2], self._after(c[3][2] + 2))

    def signature_empty(self, c: list) -> tuple:
        return ([], c[3], c[0][2], self._after(c[2][2] + 2))

    def _after(self, pos: int) -> int:
        """The first non-blank position at or after pos (where XLA's shape location points)."""
        text = self.text
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        return pos

    def param(self, c: list) -> tuple:
        return (c[0], c[1])

    def computation(self, c: list) -> Computation:
        entry, name_tok, sig = c[0]
        comp: Computation = c[1]
        name = name_tok[1]
        if name in self.comps:
            prev = self.comps[name]
            raise self.error(name_tok[2], f"computation already exists: {name} (computation previously "
                             f"defined here: {prev.line}:{prev.column})")
        comp.name = name
        comp.line, comp.column = self.lines.locate(name_tok[2])
        if self.style is None and (name_tok[0] == "PNAME" or sig is not None):
            self.style = "long"
        if sig is not None:
            comp.signature_text = self.text[sig[2]:self.body_pos.get(id(comp), sig[2])].strip()
            result: Shape = sig[1]
            root = comp.root
            assert root is not None
            if not result.compatible(root.shape):
                raise self.error(sig[3], f"Shape of computation {name}, {result.to_text(False)}, is not "
                                 f"compatible with that of its root instruction {root.name}, "
                                 f"{root.shape.to_text(False)}")
        if entry is not None:
            if self.entry_seen is not None:
                raise self.error(entry[2], "expects only one ENTRY")
            comp.is_entry = True
            self.entry_seen = comp
        self._register(comp)
        return comp

    def computation_thread(self, c: list) -> Computation:
        comp = self.computation(c[:2])
        tok = c[3]
        if tok[1] != "execution_thread":
            raise self.error(tok[2], f"expects execution_thread=\"...\" after a computation, but sees {tok[1]}=")
        comp.execution_thread = self._decode(tok)
        return comp

    def register(self, comp: Computation) -> None:
        comp.name = self._unique_comp_name(comp.name)
        self._register(comp)

    def _register(self, comp: Computation) -> None:
        self.comps[comp.name] = comp
        self.mod.add_computation(comp)

    def _unique_comp_name(self, base: str) -> str:
        name = base
        while name in self.comps:
            self.anon_count += 1
            name = f"{base}.{self.anon_count}"
        return name

    # -- module -----------------------------------------------------------------------------
    def header(self, c: list) -> tuple:
        return (c[1], [])

    def header_attr(self, c: list) -> tuple:
        c[0][1].append(c[2])
        return c[0]

    def module(self, c: list) -> Module:
        return self._finish(c[0], None, c[1])

    def module_frames(self, c: list) -> Module:
        return self._finish(c[0], c[1], c[2])

    def headerless(self, c: list) -> Module:
        return self._finish(None, None, c[0])

    def headerless_frames(self, c: list) -> Module:
        return self._finish(None, c[0], c[1])

    def single_module(self, c: list) -> Module:
        p: Pending = c[0]
        comp = Computation("_")
        comp.name = self._unique_comp_name("entry")
        if p.name is None:
            self.style = "long"
        self.build_computation(comp, [p], Scope(comp, single=True))
        comp.is_entry = True
        self._register(comp)
        self.mod.name = "module"
        self.mod.entry = comp
        self.mod.source_style = self.style or "long"
        return self.mod

    def _finish(self, header: tuple | None, frames: Token | None, comps: list) -> Module:
        m = self.mod
        if header is not None:
            name_tok, attrs = header
            m.name = name_tok[1]
            for tok in attrs:
                key = tok[1]
                if key in m.attrs:
                    raise self.error(tok[2], f"attribute {key} already exists")
                if key not in MODULE_ATTRIBUTES:
                    raise self.error(tok[2], f'unexpected attribute "{key}". Allowed attributes: '
                                     f'{", ".join(sorted(MODULE_ATTRIBUTES))}')
                m.attrs[key] = self._decode(tok)
        entry = self.entry_seen or comps[-1]
        entry.is_entry = True
        m.entry = entry
        if header is None:
            m.name = f"module_{entry.name}"
        if frames is not None:
            try:
                stack_frames(frames[1])
            except AttrError as e:
                raise self.error(frames[2] + e.offset, e.message) from None
            m.stack_frames_text = frames[1]
        m.source_style = self.style or "short"
        self._mark_callees()
        return m

    def _mark_callees(self) -> None:
        """Fusion computations get their flag; an async computation may only be called by async ops
        (the check XLA's parser runs after building the module)."""
        async_callers: dict[int, str] = {}
        other_callers: dict[int, Instruction] = {}
        for comp in self.mod.computations:
            for inst in comp.instructions:
                for callee in inst.called_computations():
                    if inst.opcode in ASYNC_OPS:
                        async_callers[id(callee)] = callee.name
                    else:
                        other_callers.setdefault(id(callee), inst)
                        if inst.opcode == "fusion":
                            callee.is_fusion_computation = True
        for key, name in async_callers.items():
            if key in other_callers:
                caller = other_callers[key]
                raise HloParseError(f"Async computation {name} is called by non-async instruction "
                                    f"{caller.name}.", caller.line, caller.column)


__all__ = ["Builder", "Pending", "Scope"]
