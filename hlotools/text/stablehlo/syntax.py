"""The statement tree of a StableHLO text: what grammar/stablehlo.lark's callbacks build.

Only structure is decided here (which items belong to which op, which braces are regions);
the op-specific meaning of the items is read in ops_pretty.py.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from hlotools.text.stablehlo.lexer import Token


@dataclass
class Group:
    """A bracketed item list: kind is '(', '[', '{' or '<{' (generic-form properties)."""
    kind: str
    items: list[Item]
    pos: int


@dataclass
class Region:
    """A brace-delimited list of statements (blocks are BlockLabel statements inside)."""
    stmts: list[Stmt]
    pos: int


@dataclass
class Op:
    name: str
    pos: int
    results: Token | None
    items: list[Item] = field(default_factory=list)
    quoted: bool = False  # the generic form: "stablehlo.add"(...)


@dataclass
class BlockLabel:
    label: str
    pos: int
    items: list[Item]


@dataclass
class LocDef:
    text: str
    pos: int


@dataclass
class FuncHead:
    """A func.func whose header line the lexer's fast path read: the signature, then the body."""
    name: str
    pos: int
    public: bool
    args: list
    results: list
    body: Region


Item = Token | Group | Region
Stmt = Op | BlockLabel | LocDef | FuncHead

_OPENERS = {"LPAR": "(", "LBRACK": "[", "LBRACE": "{", "LPROP": "<{"}


class SyntaxBuilder:
    """The grammar callbacks, one per alias in grammar/stablehlo.lark."""

    def __init__(self) -> None:
        self.resources: Token | None = None

    def list_first(self, c: list) -> list:
        return [c[0]]

    def list_append(self, c: list) -> list:
        c[0].append(c[1])
        return c[0]

    def top(self, c: list) -> list[Stmt]:
        return c[0]

    def top_resources(self, c: list) -> list[Stmt]:
        self.resources = c[1]
        return c[0]

    def op_plain(self, c: list) -> Op:
        return Op(_op_name(c[0][1]), c[0][2], None, [], _quoted(c[0][1]))

    def op_items(self, c: list) -> Op:
        return Op(_op_name(c[0][1]), c[0][2], None, c[1], _quoted(c[0][1]))

    def op_results(self, c: list) -> Op:
        return Op(_op_name(c[1][1]), c[1][2], c[0], [], _quoted(c[1][1]))

    def op_results_items(self, c: list) -> Op:
        return Op(_op_name(c[1][1]), c[1][2], c[0], c[2], _quoted(c[1][1]))

    def block(self, c: list) -> BlockLabel:
        return BlockLabel(c[0][1], c[0][2], c[1])

    def fast_first(self, c: list) -> list:
        return list(c[0][4])  # the OpViews lexer_fast read

    def fast_extend(self, c: list) -> list:
        c[0].extend(c[1][4])
        return c[0]

    def function(self, c: list) -> FuncHead:
        name, public, args, results = c[0][4]
        return FuncHead(name, c[0][2], public, args, results, Region(c[1], c[0][2]))

    def locdef(self, c: list) -> LocDef:
        return LocDef(c[0][1], c[0][2])

    def atoms_first(self, c: list) -> list:
        return list(c[0][4])

    def atoms_extend(self, c: list) -> list:
        c[0].extend(c[1][4])
        return c[0]

    def group(self, c: list) -> Group:
        return Group(_OPENERS[c[0][0]], c[1], c[0][2])

    def group_empty(self, c: list) -> Group:
        return Group(_OPENERS[c[0][0]], [], c[0][2])

    def region(self, c: list) -> Region:
        return Region(c[1], c[0][2])


def _quoted(text: str) -> bool:
    return text.startswith('"')


def _op_name(text: str) -> str:
    return text[1:-1] if text.startswith('"') else text


__all__ = ["BlockLabel", "FuncHead", "Group", "Item", "LocDef", "Op", "Region", "Stmt", "SyntaxBuilder"]
