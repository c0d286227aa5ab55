"""Name resolution: turn the Pending records of one computation into Instructions.

XLA checks names when an instruction is added to its computation (unique per scope, operands
defined earlier), synthesises compact GTEs, turns nested operands into anonymous instructions
and infers omitted shapes; this mixin of Builder does the same, in XLA's order of checks.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hlotools.errors import HloError, HloParseError
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.shape import Shape
from hlotools.ir.shape_text import tuple_depth_message
from hlotools.ir.types import ELEMENT_TYPES, MAX_TUPLE_DEPTH
from hlotools.text import parse_checks as checks
from hlotools.text.lexer import LineMap, Token
from hlotools.text.parse_async import ASYNC_OPS, async_sugar, resolve
from hlotools.text.parse_attrs import AttrError, decode_attr, strip_comments
from hlotools.text.parse_literal import LiteralError, LiteralTooLarge, parse_literal

_infer_shape: Callable[[Instruction], Shape] | None
try:  # written by another helper at the same time; parsing works without it
    from hlotools.ir.shape_inference import infer_shape as _infer_shape
except ImportError:  # pragma: no cover - depends on the tree state
    _infer_shape = None


# Nested operands (`add(f32[] negate(...), ...)`) are resolved recursively, a few Python frames a
# level; real dumps nest a handful. Deeper text is refused with a place instead of a RecursionError.
MAX_OPERAND_NESTING = 100


class Pending:
    """An instruction as written, before name resolution."""

    __slots__ = ("name", "root", "shape", "opcode", "payload", "attrs", "depth")

    def __init__(self, shape: Shape | None, opcode: Token, payload: tuple, attrs: list) -> None:
        self.depth = 0  # operand nesting below this instruction (counted for nested operands)
        self.name: Token | None = None
        self.root: Token | None = None
        self.shape = shape
        self.opcode = opcode
        self.payload = payload  # ("ops", [operand records], pos) | ("LITERAL"|"PARAMNUM", token)
        self.attrs = attrs  # ("raw", tok) | ("comp", tok, Computation) | ("comps", tok, [Computation])


class MissingComputation:
    """A computation name that did not resolve (the error waits for the attribute-name check)."""

    __slots__ = ("tok",)

    def __init__(self, tok: Token) -> None:
        self.tok = tok


class Scope:
    """Names visible inside one computation (inline computations get their own)."""

    __slots__ = ("comp", "names", "single", "next_param", "defined_at", "param_count")

    def __init__(self, comp: Computation, single: bool = False) -> None:
        self.comp = comp
        self.names: dict[str, Instruction] = {}
        self.defined_at: dict[str, int] = {}
        self.single = single
        self.next_param = 0
        self.param_count = -1  # parameter instructions written in the computation (-1: not counted)


class Resolver:
    text: str
    lines: LineMap

    def error(self, pos: int, message: str) -> HloParseError:
        line, col = self.lines.locate(pos)
        return HloParseError(message, line, col)

    def register(self, comp: Computation) -> None:  # provided by Builder
        raise NotImplementedError

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
        scope.param_count = _count_parameters(pendings)
        for p in pendings:
            inst = self.build(p, scope)
            last = inst
            if p.root is not None:
                if root_tok is not None:
                    raise self.error(p.root[2], "one computation should have only one ROOT")
                root, root_tok = inst, p.root
        comp.root = root if root is not None else last

    def build(self, p: Pending, scope: Scope, nested: bool = False) -> Instruction:
        """The Instruction for one parsed line, once every name it uses can be resolved: operands
        and computation attributes may refer forward in the text, so building waits until here."""
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
            literal = self._literal(payload[1], p.shape, name)
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
        if inst.shape.tuple_shapes is not None and inst.shape.tuple_depth > MAX_TUPLE_DEPTH:
            raise self.error(op_tok[2], tuple_depth_message())
        if "parameter_replication" in attrs:
            self._check_replication(inst, attrs["parameter_replication"], op_tok[2])
        if name_tok is not None:
            self._check_name(name, pos, scope)
        inst.control_predecessors = ctrl
        scope.comp.add_instruction(inst)
        scope.names[name] = inst
        scope.defined_at[name] = pos
        return inst

    def _literal(self, tok: Token, shape: Shape | None, name: str) -> Any:
        assert shape is not None
        raw, lpos = tok[3]
        try:
            return parse_literal(raw, shape)
        except LiteralTooLarge as e:
            raise self.error(lpos + e.offset, f"constant {name} ({shape.to_text(False)}): {e.message}") from None
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
        if 0 <= scope.param_count <= pnum:
            # XLA's HloComputation CHECKs param_no < parameter_count (it aborts); checked here,
            # before Computation.parameters is padded up to the number.
            raise self.error(lpos, f"invalid parameter number {pnum}: the computation has {scope.param_count} "
                             f"parameter{'s' if scope.param_count != 1 else ''}, numbered from 0 "
                             f"(XLA: Expected [0, {scope.param_count}), got {pnum})")
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


def _count_parameters(pendings: list[Pending]) -> int:
    """How many parameter instructions the computation's text holds, nested operands included
    (a worklist: nesting can be deep)."""
    count = 0
    work = list(pendings)
    while work:
        p = work.pop()
        kind = p.payload[0]
        if kind == "PARAMNUM":
            count += 1
        elif kind == "ops":
            work.extend(o[1] for o in p.payload[1] if o[0] == "nested")
    return count


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
