"""Whole-line fast paths for the commonest StableHLO op lines (as hlotools/text/lexer_fast.py is
for HLO): `%3 = stablehlo.add %1, %2 : tensor<..>`, `%c = stablehlo.constant dense<..> : tensor<..>`,
`%4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<..>) -> tensor<..>` and
`%5 = stablehlo.convert %4 : (tensor<..>) -> tensor<..>`. A matching line becomes one FASTOP
token carrying the OpView the reader would have built; any other line (and any line with a
location, an attribute dictionary or a nested type) takes the general path."""
from __future__ import annotations

import re
from collections.abc import Callable

from hlotools.text.stablehlo.reader import OpView
from hlotools.text.stablehlo.syntax import Group
from hlotools.text.stablehlo.types import TensorType, TypeError_, parse_type

_NAME = r"%[\w$.\-]+"
_VALUE = r"%[\w$.\-]+(?:#\d+)?"
_TYPE = r"tensor<[^<>\n]*>"
_END = r"[ \t]*(?=\n|$)"
_ELEMENTWISE = re.compile(rf"({_NAME}) = (stablehlo\.[a-z_]+) ({_VALUE}(?:, {_VALUE})*) : ({_TYPE}){_END}")
_CONSTANT = re.compile(rf"({_NAME}) = (stablehlo\.constant) (dense<[^<>\"\n]*>) : ({_TYPE}){_END}")
_DIMS = re.compile(rf"({_NAME}) = (stablehlo\.[a-z_]+) ({_VALUE}), (dims) = \[([\d, ]*)\] : \(({_TYPE})\) -> "
                   rf"({_TYPE}){_END}")
_CAST = re.compile(rf"({_NAME}) = (stablehlo\.[a-z_]+) ({_VALUE}) : \(({_TYPE})\) -> ({_TYPE}){_END}")
_COMPARE = re.compile(rf"({_NAME}) = (stablehlo\.compare) +([A-Z]+), ({_VALUE}), ({_VALUE}), +([A-Z]+) : "
                      rf"\(({_TYPE}), ({_TYPE})\) -> ({_TYPE}){_END}")
_SELECT = re.compile(rf"({_NAME}) = (stablehlo\.select) ({_VALUE}, {_VALUE}, {_VALUE}) : ({_TYPE}), ({_TYPE}){_END}")
_CALL = re.compile(rf"({_NAME}) = (call|func\.call) (@[\w$.\-]+)\(((?:{_VALUE}(?:, {_VALUE})*)?)\) : "
                   rf"\(((?:{_TYPE}(?:, {_TYPE})*)?)\) -> ({_TYPE}){_END}")
_LIST = r"\[([\d, ]*)\]"
_DOT = re.compile(rf"({_NAME}) = (stablehlo\.dot_general) ({_VALUE}, {_VALUE}), (?:batching_dims = {_LIST} x {_LIST}, )?"
                  rf"contracting_dims = {_LIST} x {_LIST}, precision = \[([A-Z]+), ([A-Z]+)\] : "
                  rf"\(({_TYPE}), ({_TYPE})\) -> ({_TYPE}){_END}")
_REDUCE = re.compile(rf"({_NAME}) = (stablehlo\.reduce)\(({_VALUE}) init: ({_VALUE})\) applies (stablehlo\.[a-z_]+) "
                     rf"across dimensions = {_LIST} : \(({_TYPE}), ({_TYPE})\) -> ({_TYPE}){_END}")
_SLICE = re.compile(rf"({_NAME}) = (stablehlo\.slice) ({_VALUE}) \[([\d:, ]*)\] : \(({_TYPE})\) -> ({_TYPE}){_END}")
_IOTA = re.compile(rf"({_NAME}) = (stablehlo\.iota) dim = (\d+) : ({_TYPE}){_END}")
_RETURN = re.compile(rf"(return|stablehlo\.return|func\.return) ({_VALUE}(?:, {_VALUE})*) : {_TYPE}(?:, {_TYPE})*{_END}")
_HEAD = re.compile(rf"{_NAME} = ([\w.]+)")
_TYPES = re.compile(_TYPE)


def fast_op(text: str, pos: int) -> tuple[OpView, int] | None:
    """(view, end offset) of the op line at pos (at a '%' that starts a line), or None. The op
    name picks the one or two line shapes worth trying."""
    head = _HEAD.match(text, pos)
    if head is None:
        return None
    try:
        for pattern, read in _BY_NAME.get(head.group(1), _ELEMENTWISE_FIRST):
            m = pattern.match(text, pos)
            if m is not None:
                return read(m), m.end()
    except TypeError_:
        return None  # the general path reports it, with its place
    return None


def _read_elementwise(m: re.Match) -> OpView:
    view = _view(m)
    view.operands = _operands(m, 3)
    view.out_types = [parse_type(m.group(4))]
    return view


def _read_constant(m: re.Match) -> OpView:
    view = _view(m)
    view.dense = ("DENSE", m.group(3), m.start(3), False)
    view.out_types = [parse_type(m.group(4))]
    return view


# The generic name each `dims = [...]` op gives its list (read straight into the view's attributes).
_DIMS_NAME = {"stablehlo.broadcast_in_dim": "broadcast_dimensions", "stablehlo.transpose": "permutation",
              "stablehlo.reverse": "dimensions"}


def _read_dims(m: re.Match) -> OpView:
    view = _view(m)
    view.operands = [(m.group(3), m.start(3))]
    body = m.group(5)
    view.attrs[_DIMS_NAME[m.group(2)]] = [int(d) for d in body.split(",")] if body.strip() else []
    view.in_types = [parse_type(m.group(6))]
    view.out_types = [parse_type(m.group(7))]
    return view


def _read_cast(m: re.Match) -> OpView:
    view = _view(m)
    view.operands = [(m.group(3), m.start(3))]
    view.in_types = [parse_type(m.group(4))]
    view.out_types = [parse_type(m.group(5))]
    return view


def _read_compare(m: re.Match) -> OpView:
    view = _view(m)
    view.words = [("BARE", m.group(3), m.start(3), False), ("BARE", m.group(6), m.start(6), False)]
    view.operands = [(m.group(4), m.start(4)), (m.group(5), m.start(5))]
    view.in_types = [parse_type(m.group(7)), parse_type(m.group(8))]
    view.out_types = [parse_type(m.group(9))]
    return view


def _read_select(m: re.Match) -> OpView:
    view = _view(m)
    view.operands = _operands(m, 3)
    view.out_types = [parse_type(m.group(4)), parse_type(m.group(5))]
    return view


def _read_dot(m: re.Match) -> OpView:
    view = _view(m)
    view.operands = _operands(m, 3)
    if m.group(4) is not None:
        view.kw["batching_dims"] = _pair(m, 4)
    view.kw["contracting_dims"] = _pair(m, 6)
    view.kw["precision"] = [Group("[", [("BARE", m.group(8), m.start(8), False), ("COMMA", ",", m.end(8), False),
                                        ("BARE", m.group(9), m.start(9), False)], m.start(8) - 1)]
    view.in_types = [parse_type(m.group(10)), parse_type(m.group(11))]
    view.out_types = [parse_type(m.group(12))]
    return view


def _read_reduce(m: re.Match) -> OpView:
    view = _view(m)
    view.operands = [(m.group(3), m.start(3)), (m.group(4), m.start(4))]
    view.words = [("BARE", "applies", m.start(5) - 8, False), ("BARE", m.group(5), m.start(5), False),
                  ("BARE", "across", m.end(5) + 1, False)]
    view.kw["dimensions"] = [_ints(m.group(6), m.start(6) - 1)]
    view.in_types = [parse_type(m.group(7)), parse_type(m.group(8))]
    view.out_types = [parse_type(m.group(9))]
    return view


def _read_slice(m: re.Match) -> OpView:
    view = _view(m)
    view.operands = [(m.group(3), m.start(3))]
    items: list = []
    at = m.start(4)
    for k, span in enumerate(m.group(4).split(",")):
        if k:
            items.append(("COMMA", ",", at, False))
        for j, num in enumerate(span.split(":")):
            if j:
                items.append(("COLON", ":", at, False))
            items.append(("NUMBER", num.strip(), at, False))
    view.brackets = [Group("[", items, m.start(4) - 1)]
    view.in_types = [parse_type(m.group(5))]
    view.out_types = [parse_type(m.group(6))]
    return view


def _read_iota(m: re.Match) -> OpView:
    view = _view(m)
    view.kw["dim"] = [("NUMBER", m.group(3), m.start(3), False)]
    view.out_types = [parse_type(m.group(4))]
    return view


def _read_call(m: re.Match) -> OpView:
    view = _view(m)
    view.symbol = m.group(3)[1:]
    view.operands = _operands(m, 4)
    view.in_types = [parse_type(t) for t in _TYPES.findall(m.group(5))]
    view.out_types = [parse_type(m.group(6))]
    return view


_Reader = tuple[re.Pattern, Callable[[re.Match], OpView]]
_ELEMENTWISE_FIRST: tuple[_Reader, ...] = ((_ELEMENTWISE, _read_elementwise), (_CAST, _read_cast))
_DIMS_OP: tuple[_Reader, ...] = ((_DIMS, _read_dims),)
_BY_NAME: dict[str, tuple[_Reader, ...]] = {
    "stablehlo.constant": ((_CONSTANT, _read_constant),),
    "stablehlo.broadcast_in_dim": _DIMS_OP, "stablehlo.transpose": _DIMS_OP, "stablehlo.reverse": _DIMS_OP,
    "stablehlo.convert": ((_CAST, _read_cast),), "stablehlo.reshape": ((_CAST, _read_cast),),
    "stablehlo.bitcast_convert": ((_CAST, _read_cast),),
    "stablehlo.compare": ((_COMPARE, _read_compare),), "stablehlo.select": ((_SELECT, _read_select),),
    "stablehlo.dot_general": ((_DOT, _read_dot),), "stablehlo.reduce": ((_REDUCE, _read_reduce),),
    "stablehlo.slice": ((_SLICE, _read_slice),), "stablehlo.iota": ((_IOTA, _read_iota),),
    "call": ((_CALL, _read_call),), "func.call": ((_CALL, _read_call),),
}


def fast_return(text: str, pos: int) -> tuple[OpView, int] | None:
    """A terminator line `return %a, %b : T1, T2` (the types are checked against the signature)."""
    m = _RETURN.match(text, pos)
    if m is None:
        return None
    view = OpView(m.group(1), m.start(1), [])
    view.operands = _operands(m, 2)
    return view, m.end()


def _pair(m: re.Match, group: int) -> list:
    return [_ints(m.group(group), m.start(group) - 1), ("BARE", "x", m.end(group) + 2, False),
            _ints(m.group(group + 1), m.start(group + 1) - 1)]


def _view(m: re.Match) -> OpView:
    return OpView(m.group(2), m.start(2), [m.group(1)])


def _operands(m: re.Match, group: int) -> list[tuple[str, int]]:
    """The `%a, %b` of a fast line's group (the line shapes separate operands by ', ' exactly)."""
    at = m.start(group)
    out: list[tuple[str, int]] = []
    text = m.group(group)
    if not text:
        return out
    for name in text.split(", "):
        out.append((name, at))
        at += len(name) + 2
    return out


def _ints(body: str, pos: int) -> Group:
    items: list = []
    for k, part in enumerate(body.split(",")):
        part = part.strip()
        if not part:
            continue
        if k:
            items.append(("COMMA", ",", pos, False))
        items.append(("NUMBER", part, pos, False))
    return Group("[", items, pos)


# `func.func public @main(%arg0: tensor<2xf32>, ...) -> (tensor<2xf32> {jax.result_info = "result"}) {`:
# arguments and results with plain tensor types and string-valued attributes only.
_STR_ATTRS = r'\{[\w.]+ = "[^"\\\n]*"(?:, [\w.]+ = "[^"\\\n]*")*\}'
_ARG = rf"{_NAME}: {_TYPE}(?: {_STR_ATTRS})?"
_RESULT = rf"{_TYPE}(?: {_STR_ATTRS})?"
_FUNC = re.compile(rf"func\.func (public |private )?@([\w$.\-]+)\(((?:{_ARG}(?:, {_ARG})*)?)\)"
                   rf"(?: -> (?:\(((?:{_RESULT}(?:, {_RESULT})*)?)\)|({_TYPE})))? \{{[ \t]*(?=\n)")
_PIECE = re.compile(rf"(?:({_NAME}): )?({_TYPE})(?: ({_STR_ATTRS}))?")
_PAIR = re.compile(r'([\w.]+) = "([^"\\\n]*)"')


def fast_function(text: str, pos: int) -> tuple[tuple, int] | None:
    """((name, public, args, results), end) of a func.func header line at pos, or None (then the
    general path reads it). args: (%name, type, attrs); results: (type, attrs); the end is just
    past the `{` that opens the body."""
    m = _FUNC.match(text, pos)
    if m is None:
        return None
    try:
        args = [(a.group(1), parse_type(a.group(2)), _attrs(a.group(3))) for a in _PIECE.finditer(m.group(3))]
        if m.group(5) is not None:
            results: list[tuple[TensorType, dict]] = [(parse_type(m.group(5)), {})]
        else:
            results = [(parse_type(r.group(2)), _attrs(r.group(3))) for r in _PIECE.finditer(m.group(4) or "")]
    except TypeError_:
        return None
    return (m.group(2), m.group(1) != "private ", args, results), m.end()


def _attrs(text: str | None) -> dict:
    return {k: v for k, v in _PAIR.findall(text)} if text else {}
