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
from typing import Any

from hlotools.errors import HloError, HloParseError
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.shape import Shape
from hlotools.ir.types import ELEMENT_TYPES
from hlotools.text import parse_checks as checks
from hlotools.text.lexer import LineMap, Token
from hlotools.text.parse_async import ASYNC_OPS, async_sugar, resolve
from hlotools.text.parse_attrs import AttrError, decode_attr, strip_comments
from hlotools.text.parse_literal import LiteralError, parse_literal
from hlotools.text.parse_shape import ShapeError, shape_or_error

try:  # written by another helper at the same time; parsing works without it
    from hlotools.ir.shape_inference import infer_shape as _infer_shape
except ImportError:  # pragma: no cover - depends on the tree state
    _infer_shape = None


_ARRAY_IN_TUPLE = re.compile(r"[a-z][a-z0-9_]*\[[^\]\[]*\](?:\{[^{}]*\})?")


class Pending:
    """An instruction as written, before name resolution."""

    __slots__ = ("name", "root", "shape", "opcode", "payload", "attrs")

    def __init__(self, shape: Shape | None, opcode: Token, payload: tuple, attrs: list) -> None:
        self.name: Token | None = None
        self.root: Token | None = None
        self.shape = shape
        self.opcode = opcode
        self.payload = payload  # ("ops", [operand records]) | ("LITERAL"|"PARAMNUM", token)
        self.attrs = attrs  # ("raw", tok) | ("comp", tok, Computation) | ("comps", tok, [Computation])


class MissingComputation:
    """A computation name that did not resolve (the error waits for the attribute-name check)."""

    __slots__ = ("tok",)

    def __init__(self, tok: Token) -> None:
        self.tok = tok


class Scope:
    """Names visible inside one computation (inline computations get their own)."""

    __slots__ = ("comp", "names", "single", "next_param", "defined_at")

    def __init__(self, comp: Computation, single: bool = False) -> None:
        self.comp = comp
        self.names: dict[str, Instruction] = {}
        self.defined_at: dict[str, int] = {}
        self.single = single
        self.next_param = 0


class Builder:
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

    # -- errors -----------------------------------------------------------------------
    def error(self, pos: int, message: str) -> HloParseError:
        line, col = self.lines.locate(pos)
        return HloParseError(message, line, col)

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
        return Shape.tuple_of(c[1])

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
        return ("nested", Pending(c[0], c[1], c[2], []))

    def operand_nested(self, c: list) -> tuple:
        return ("nested", Pending(None, c[0], c[1], []))

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
            try:
                shape = Shape.tuple_of([shape_or_error(t, pos, self.lines)
                                        for t in _ARRAY_IN_TUPLE.findall(text)])
            except HloError:
                raise
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

    def comp_ref_name(self, c: list) -> Computation:
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
                m.attrs[key] = self._decode(tok)
        entry = self.entry_seen or comps[-1]
        entry.is_entry = True
        m.entry = entry
        if header is None:
            m.name = f"module_{entry.name}"
        if frames is not None:
            m.stack_frames_text = frames[1]
        m.source_style = self.style or "short"
        return m

    # -- attribute decoding -----------------------------------------------------------------
    def _decode(self, tok: Token) -> Any:
        raw, vpos = tok[3]
        try:
            return decode_attr(tok[1], raw)
        except AttrError as e:
            raise self.error(vpos + e.offset, e.message) from None

    # -- resolution -------------------------------------------------------------------------
    def build_computation(self, comp: Computation, pendings: list[Pending], scope: Scope) -> None:
        root: Instruction | None = None
        root_tok: Token | None = None
        last: Instruction | None = None
        for p in pendings:
            inst = self.build(p, scope)
            last = inst
            if p.root is not None:
                if root_tok is not None:
                    raise self.error(p.root[2], "one computation should have only one ROOT")
                root, root_tok = inst, p.root
        comp.root = root if root is not None else last

    def build(self, p: Pending, scope: Scope, nested: bool = False) -> Instruction:
        op_tok = p.opcode
        opcode = op_tok[1]
        sugar = None
        if opcode not in OPCODES:
            sugar = async_sugar(opcode)
            if sugar is None:
                raise self.error(op_tok[2], f"expects opcode but sees: {opcode}, error: Unknown opcode: "
                                 f"{opcode}")
        if p.shape is None and not (sugar is None and OPCODES[opcode].shape_optional):
            raise self.error(op_tok[2], f"cannot infer shape for opcode: {sugar[1] if sugar else opcode}")
        name_tok = p.name
        if name_tok is not None:
            name = name_tok[1]
            pos = name_tok[2]
        else:
            name = self._fresh(scope, f"{opcode}.anon" if nested else opcode)
            pos = op_tok[2]
        payload = p.payload
        kind = payload[0]
        operands: list[Instruction] = []
        literal = None
        pnum = None
        if kind == "ops":
            for o in payload[1]:
                operands.append(self.operand(o, scope, op_tok[2]))
            if sugar is None:
                checks.operand_count(self, opcode, operands, payload[2], p.shape)
                if opcode == "conditional":
                    checks.conditional_operands(self, operands, payload[2])
        elif kind == "LITERAL":
            literal = self._literal(payload[1], p.shape, op_tok[2])
        else:
            pnum = self._parameter_number(payload[1], scope)
        attrs, ctrl = self._attributes(p, opcode, sugar, operands, scope)
        line, col = self.lines.locate(pos)
        if sugar is not None:
            opcode = sugar[1]
        if opcode in ASYNC_OPS:
            assert p.shape is not None
            attrs = resolve(self, opcode, sugar[0] if sugar else None, p.shape, operands, attrs, op_tok[2])
        inst = Instruction(name, opcode, p.shape, None, attrs, literal, pnum, line, col)  # type: ignore[arg-type]
        link_operands(inst, operands)
        if p.shape is None:
            inst.shape = self._infer(inst, op_tok[2])
        else:
            checks.instruction(self, inst, op_tok[2])
        if "parameter_replication" in attrs:
            self._check_replication(inst, attrs["parameter_replication"], op_tok[2])
        if name_tok is not None:
            self._check_name(name, pos, scope)
        inst.control_predecessors = ctrl
        scope.comp.add_instruction(inst)
        scope.names[name] = inst
        scope.defined_at[name] = pos
        return inst

    def _literal(self, tok: Token, shape: Shape | None, pos: int) -> Any:
        assert shape is not None
        raw, lpos = tok[3]
        try:
            return parse_literal(raw, shape)
        except LiteralError as e:
            raise self.error(lpos + e.offset, e.message) from None

    def _parameter_number(self, tok: Token, scope: Scope) -> int:
        raw, lpos = tok[3]
        s = strip_comments(raw).strip()
        if not s.lstrip("-").isdigit():
            raise self.error(lpos, "expects integer")
        pnum = int(s)
        if pnum < 0:
            raise self.error(lpos, "parameter number must be >= 0")
        params = scope.comp.parameters
        if pnum < len(params) and params[pnum] is not None:
            raise self.error(lpos, f"Duplicate parameter number {pnum}")
        return pnum

    def _attributes(self, p: Pending, opcode: str, sugar: tuple[str, str] | None,
                    operands: list[Instruction], scope: Scope) -> tuple[dict[str, Any], list[Instruction]]:
        entries = [(a[1][1], a[1][2]) for a in p.attrs]
        end_pos = p.attrs[-1][1][2] if p.attrs else p.opcode[2]
        if sugar is None:
            checks.attribute_names(self, opcode, entries, operands, end_pos)
        elif sugar[1] == "async-start":
            checks.attribute_names(self, sugar[0], entries, operands, end_pos,
                                   extra=frozenset(["async_execution_thread", "output_to_operand_aliasing"]))
        else:
            checks.attribute_names(self, sugar[1], entries, operands, end_pos)
        attrs: dict[str, Any] = {}
        where: dict[str, int] = {}
        ctrl: list[Instruction] = []
        for a in p.attrs:
            tok = a[1]
            key = tok[1]
            where[key] = tok[2]
            if a[0] == "raw":
                if key == "control-predecessors":
                    ctrl = self._control_predecessors(tok, scope)
                else:
                    attrs[key] = self._decode(tok)
            elif a[0] == "comp":
                attrs[key] = self._resolved(a[2])
            else:
                attrs[key] = tuple(self._resolved(c) for c in a[2])
        checks.attribute_values(self, sugar[0] if sugar else opcode, attrs, where)
        return attrs, ctrl

    def _resolved(self, comp: Any) -> Computation:
        if isinstance(comp, MissingComputation):
            raise self.error(comp.tok[2], f"computation does not exist: {comp.tok[1]}")
        return comp

    def _check_replication(self, inst: Instruction, value: Any, pos: int) -> None:
        leaves = len(inst.shape.leaves()) if inst.shape.tuple_shapes is not None else 1
        items = [x for x in str(value).strip("{} ").split(",") if x.strip()]
        if any(x.strip() not in ("true", "false") for x in items):
            raise self.error(pos, "error parsing attribute parameter_replication")
        if len(items) != leaves:
            raise self.error(pos, f"parameter has {leaves} leaf buffers, but parameter_replication has "
                             f"{len(items)} elements.")

    def _infer(self, inst: Instruction, pos: int) -> Shape:
        if _infer_shape is None:
            raise self.error(pos, f"the result shape of {inst.opcode} is omitted and shape inference "
                             "is not available")
        try:
            return _infer_shape(inst)
        except HloError as e:
            raise self.error(pos, f"failed to infer shape for opcode: {inst.opcode}, error: {e.message}") from None

    def _check_name(self, name: str, pos: int, scope: Scope) -> None:
        if name in ELEMENT_TYPES:
            raise self.error(pos, f"illegal instruction name: {name}; suggest renaming to: {name}_")
        if name.startswith("__") and not name.startswith("__xla_"):
            raise self.error(pos, f"illegal instruction name: {name}; suggest renaming to: a{name[1:]}")
        if name in scope.names:
            line, col = self.lines.locate(scope.defined_at.get(name, pos))
            raise self.error(pos, f"instruction already exists: {name} (instruction previously defined "
                             f"here: {line}:{col})")

    def _fresh(self, scope: Scope, base: str) -> str:
        name = base
        k = 0
        while name in scope.names:
            k += 1
            name = f"{base}.{k}"
        return name

    def operand(self, o: tuple, scope: Scope, user_pos: int) -> Instruction:
        kind = o[0]
        if kind == "nested":
            return self.build(o[1], scope, nested=True)
        if kind == "anon":
            if not scope.single:
                raise self.error(user_pos, "expects name (an operand needs a name after its shape)")
            return self._single_param(scope, f"_{scope.next_param}", o[1], user_pos)
        _, tok, shape, gte = o
        name = tok[1]
        inst = scope.names.get(name)
        if inst is None:
            if scope.single:
                if shape is None:
                    raise self.error(tok[2], "Operand had no shape in HLO text")
                inst = self._single_param(scope, name, shape, tok[2])
            else:
                raise self.error(tok[2], f"instruction does not exist: {name}")
        if gte is not None:
            inst = self._compact_gte(inst, name, gte, scope)
            if shape is not None and not shape.compatible(inst.shape):
                raise self.error(tok[2], f"operand shape {shape.to_text(False)} does not match instruction "
                                 f"shape {inst.shape.to_text(False)}")
        if shape is not None and not shape.compatible(inst.shape):
            raise self.error(tok[2], f"The declared operand shape {shape.to_text()} is not compatible "
                             f"with the shape of the operand instruction {inst.shape.to_text()}.")
        return inst

    def _single_param(self, scope: Scope, name: str, shape: Shape, pos: int) -> Instruction:
        line, col = self.lines.locate(pos)
        n = scope.next_param
        scope.next_param += 1
        inst = Instruction(name, "parameter", shape, parameter_number=n, line=line, column=col)
        scope.comp.add_instruction(inst)
        scope.names[name] = inst
        return inst

    def _compact_gte(self, base: Instruction, name: str, gte: Token, scope: Scope) -> Instruction:
        key = name
        inst = base
        line, col = self.lines.locate(gte[2])
        for part in gte[1].split("#")[1:]:
            if not part.lstrip("-").isdigit():
                raise self.error(gte[2], "expects integer")
            idx = int(part)
            key = f"{key}#{idx}"
            cached = scope.names.get(key)
            if cached is not None:
                inst = cached
                continue
            shape = inst.shape
            if shape.tuple_shapes is None:
                raise self.error(gte[2], f"GTE operand must be tuple, but has shape: {shape.to_text(False)}")
            if not 0 <= idx < len(shape.tuple_shapes):
                raise self.error(gte[2], f"GTE index {idx} out of bounds for shape: {shape.to_text(False)}")
            g = Instruction(self._fresh(scope, key.replace("#", "_")), "get-tuple-element",
                            shape.tuple_shapes[idx], None, {"index": idx}, line=line, column=col)
            link_operands(g, [inst])
            scope.comp.add_instruction(g)
            scope.names[key] = g
            scope.names[g.name] = g
            inst = g
        return inst

    def _control_predecessors(self, tok: Token, scope: Scope) -> list[Instruction]:
        raw, vpos = tok[3]
        s = strip_comments(raw).strip()
        if not (s.startswith("{") and s.endswith("}")):
            raise self.error(vpos, "control-predecessors expects a list of instruction names such as {%a, %b}")
        out: list[Instruction] = []
        for part in s[1:-1].split(","):
            n = part.strip()
            if not n:
                if s[1:-1].strip():
                    raise self.error(vpos, "empty name in control-predecessors")
                continue
            n = n[1:] if n.startswith("%") else n
            inst = scope.names.get(n)
            if inst is None:
                raise self.error(vpos, f"instruction '{n}' is not defined")
            out.append(inst)
        return out


def link_operands(inst: Instruction, operands: list[Instruction]) -> None:
    """Set operand and user edges in O(operands): Instruction.append_operand scans the users list,
    which is quadratic for a parameter with 100k users. A fresh instruction is in no users list yet."""
    inst.operands = operands
    if len(operands) == 1:
        operands[0].users.append(inst)
        return
    seen: set[int] = set()
    for op in operands:
        if id(op) not in seen:
            seen.add(id(op))
            op.users.append(inst)


__all__ = ["Builder", "Pending", "Scope", "ShapeError"]
