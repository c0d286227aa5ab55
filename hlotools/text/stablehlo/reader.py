"""One op's items -> an OpView: operands, keyword and dictionary attributes, regions, types.

The pretty forms differ per op (`stablehlo.reduce(%x init: %c) applies stablehlo.add across
dimensions = [1]`, `compare LT, %a, %b, FLOAT`, `slice %x [0:8:2]`), the generic form is one
shape for all (`"stablehlo.add"(%a, %b) <{props}> ({regions}) {attrs} : (types) -> types`).
Both are read into the same view; the translators in ops.py ask it for what they need.
"""
from __future__ import annotations

from typing import Any

from hlotools.text.stablehlo.attributes import AttrError, attr_dict, split_items, value
from hlotools.text.stablehlo.syntax import Group, Item, Op, Region
from hlotools.text.stablehlo.types import TensorType, TypeError_, parse_type

Token = tuple


class OpView:
    """One op as the translators read it. A plain class with slots and literal defaults: one is
    made per op, so its construction is on the import's hot path."""
    __slots__ = ("name", "pos", "results", "operands", "kw", "words", "attrs", "regions", "region_args", "bindings",
                 "brackets", "symbol", "angle", "dense", "loc", "in_types", "out_types", "generic", "strings")

    def __init__(self, name: str, pos: int, results: list[str], generic: bool = False) -> None:
        self.name = name
        self.pos = pos
        self.results = results
        self.operands: list[tuple[str, int]] = []
        self.kw: dict[str, list[Item]] = {}
        self.words: list[Token] = []
        self.attrs: dict[str, Any] = {}
        self.regions: list[Region] = []
        self.region_args: list[list[tuple[str, TensorType | None]]] = []
        self.bindings: list[tuple[str, str, int]] = []  # while(%iterArg = %x)
        self.brackets: list[Group] = []
        self.symbol: str | None = None
        self.angle: str | None = None
        self.dense: Token | None = None
        self.loc: str | None = None
        self.in_types: list[TensorType] | None = None
        self.out_types: list[TensorType] = []
        self.generic = generic
        self.strings: list[Token] = []  # string operands of the pretty form (`composite "name" %x`)

    def __repr__(self) -> str:
        return f"OpView({self.name!r} at {self.pos}, results={self.results}, operands={self.operands})"

    def attr(self, generic: str, pretty: str | None = None, default: Any = None) -> Any:
        """An attribute by its generic name (props/attr dict) or its pretty keyword."""
        if generic in self.attrs:
            return self.attrs[generic]
        key = pretty or generic
        if key in self.kw:
            return value(self.kw[key])
        return default

    def word(self, index: int = 0) -> str | None:
        return self.words[index][1] if index < len(self.words) else None


def result_names(tok: Token | None) -> list[str]:
    """`%0 =` -> ['%0']; `%0:2 =` -> ['%0#0', '%0#1']; `%a, %b =` -> ['%a', '%b']."""
    if tok is None:
        return []
    names: list[str] = []
    for part in tok[1].rstrip("= \t").split(","):
        name, _, count = part.strip().partition(":")
        if count:
            names.extend(f"{name}#{i}" for i in range(int(count)))
        else:
            names.append(name)
    return names


def read_op(op: Op) -> OpView:
    view = OpView(op.name, op.pos, result_names(op.results), generic=op.quoted)
    items = op.items
    colon = next((i for i, it in enumerate(items) if isinstance(it, tuple) and it[0] == "COLON"), len(items))
    _read_head(view, items[:colon])
    end = colon + 1
    while end < len(items) and not _ends_signature(items[end]):
        end += 1
    if colon < len(items):
        _read_signature(view, items[colon + 1:end], _pos(items[colon]))
    _read_tail(view, items[end:])
    return view


def _ends_signature(it: Item) -> bool:
    return isinstance(it, Region) or isinstance(it, tuple) and it[0] in ("BARE", "LOC")


def _read_head(view: OpView, items: list[Item]) -> None:
    i = 0
    n = len(items)
    while i < n:
        it = items[i]
        if isinstance(it, Region):
            view.regions.append(it)
        elif isinstance(it, Group):
            _read_group(view, it, i == 0)
        else:
            kind = it[0]
            if kind == "VALUE":
                view.operands.append((it[1], it[2]))
            elif kind == "BARE" and i + 1 < n and _is(items[i + 1], "EQ"):
                j = i + 2
                while j < n and not _is(items[j], "COMMA") and not (j > i + 2 and _is_dict(items[j])):
                    j += 1
                view.kw[it[1]] = items[i + 2:j]
                i = j if j < n and _is(items[j], "COMMA") else j - 1
            elif kind == "BARE":
                view.words.append(it)
            elif kind == "SYMBOL":
                view.symbol = it[1][1:].strip('"')
            elif kind == "ANGLE":
                view.angle = it[1]
            elif kind == "DENSE":
                view.dense = it
            elif kind == "LOC":
                view.loc = it[1]
            elif kind == "HASH":
                view.words.append(it)
            elif kind == "STRING":
                view.strings.append(it)
        i += 1


def _read_group(view: OpView, g: Group, first: bool) -> None:
    if g.kind == "{":
        view.attrs.update(attr_dict(g))
    elif g.kind == "<{":
        view.attrs.update(attr_dict(Group("{", g.items, g.pos)))
        view.generic = True
    elif g.kind == "[":
        view.brackets.append(g)
    else:
        for chunk in split_items(g.items):
            _read_paren_chunk(view, chunk)


def _read_paren_chunk(view: OpView, chunk: list[Item]) -> None:
    if len(chunk) >= 3 and _is(chunk[0], "VALUE") and _is(chunk[1], "EQ") and _is(chunk[2], "VALUE"):
        view.bindings.append((chunk[0][1], chunk[2][1], chunk[2][2]))  # type: ignore[index]
        return
    if len(chunk) >= 2 and _is(chunk[0], "BARE") and _is(chunk[1], "EQ"):
        view.kw[chunk[0][1]] = chunk[2:]  # type: ignore[index]
        return
    for it in chunk:
        if isinstance(it, Region):
            view.regions.append(it)
        elif isinstance(it, tuple) and it[0] == "VALUE":
            view.operands.append((it[1], it[2]))


def _read_signature(view: OpView, items: list[Item], pos: int) -> None:
    try:
        arrow = next((i for i, it in enumerate(items) if _is(it, "ARROW")), None)
        if arrow is None:
            types = _types(items)
            view.out_types = types
            return
        view.in_types = _types(items[:arrow])
        view.out_types = _types(items[arrow + 1:])
    except TypeError_ as e:
        raise AttrError(e.message, pos) from None


def _types(items: list[Item]) -> list[TensorType]:
    if len(items) == 1 and isinstance(items[0], Group) and items[0].kind == "(":
        items = items[0].items
    out: list[TensorType] = []
    for chunk in split_items(items):
        if len(chunk) != 1 or not _is(chunk[0], "TYPE"):
            where = chunk[0] if chunk else None
            raise TypeError_("expected a type" + (f", but found '{where[1][:40]}'"
                                                  if isinstance(where, tuple) else ""))
        out.append(parse_type(chunk[0][1]))  # type: ignore[index]
    return out


def _read_tail(view: OpView, items: list[Item]) -> None:
    pending_args: list[tuple[str, TensorType | None]] = []
    for it in items:
        if isinstance(it, Region):
            view.regions.append(it)
            if pending_args:
                view.region_args.append(pending_args)
                pending_args = []
        elif isinstance(it, Group) and it.kind == "(":
            pending_args.extend(block_args(it.items))
        elif isinstance(it, tuple) and it[0] == "BARE":
            view.words.append(it)
        elif isinstance(it, tuple) and it[0] == "LOC":
            view.loc = it[1]
        elif isinstance(it, Group) and it.kind == "{":
            view.attrs.update(attr_dict(it))


def block_args(items: list[Item]) -> list[tuple[str, TensorType | None]]:
    """`%a: tensor<f32>, %b: tensor<f32> loc(...)` -> [(name, type), ...]."""
    out: list[tuple[str, TensorType | None]] = []
    for chunk in split_items(items):
        if not chunk or not _is(chunk[0], "VALUE"):
            raise AttrError("expected a block argument '%name: type'", _pos(chunk[0]) if chunk else -1)
        t = None
        if len(chunk) >= 3 and _is(chunk[1], "COLON") and _is(chunk[2], "TYPE"):
            try:
                t = parse_type(chunk[2][1])  # type: ignore[index]
            except TypeError_ as e:
                raise AttrError(e.message, chunk[2][2]) from None  # type: ignore[index]
        out.append((chunk[0][1], t))  # type: ignore[index]
    return out


def _is(it: Item, kind: str) -> bool:
    return isinstance(it, tuple) and it[0] == kind


def _is_dict(it: Item) -> bool:
    """An attribute dictionary after a keyword's value (`window = {...} {feature_group_count = 8}`)."""
    return isinstance(it, Group) and it.kind == "{"


def _pos(it: Item) -> int:
    return it[2] if isinstance(it, tuple) else it.pos


__all__ = ["OpView", "block_args", "read_op", "result_names"]
