"""Shape text -> Shape, memoised: a module repeats the same few shape strings thousands of times.

The one shape parser: the text parser (text/parse_build.py, parse_attrs.py), io's literal
text and Shape.from_text (the compile cache's stored signatures) all read shapes here, in ir/
beside Shape.to_text, which prints what this parses.

Array shapes arrive from the lexer as one token (`f32[2,<=3,?]{1,0,2:T(8,128)S(1)}`). A layout
missing from the text is filled with the default descending one, as XLA's parser does with its
default `fill_missing_layouts=true` (scalars always get the empty layout).
Tuple shapes are assembled by the grammar; `parse_shape_text` parses a whole shape (tuples
included) for attribute values such as `outfeed_shape=` and `entry_computation_layout=`.
"""
from __future__ import annotations

import re

from hlotools.errors import ShapeError
from hlotools.ir.lazy_regex import lazy_regex
from hlotools.ir.shape import Layout, Shape
from hlotools.ir.types import ELEMENT_TYPES, MAX_TUPLE_DEPTH, shape_size_error

# What may stand between two tokens of HLO text: whitespace and comments. XLA's lexer skips
# comments between any two tokens, so `f32[2] /*c*/ {0}` has a layout too (text/lexer.py reads
# this for its shape tokens). Possessive, as XLA's lexer never backtracks into a comment
# (`{ // CHECK: ...` is no layout).
GAP = r"(?:[ \t\n\r]++|//[^\n\r]*+|/\*(?:[^*]|\*(?!/))*+\*/)*+"

# Shapes by their text, parsed once. Bounded (emptied when full, as emit_loops' constants and
# the verifier's valid shapes are): a process parsing many modules of distinct shapes kept
# every one it ever saw with its cached properties (~0.7 kB a shape).
_CACHE: dict[str, Shape] = {}
CACHE_MAX = 16_384
_COMMENT = lazy_regex(r"/\*(?:[^*]|\*(?!/))*\*/|//[^\n\r]*")
_ARRAY = re.compile(r"([a-z][a-z0-9_]*)\[([^\]]*)\]\s*(?:\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\})?")
# At most 20 digits (the parser's lexer refuses longer integers; literal-text inputs come here
# directly, and int() of thousands of digits is a ValueError); past int64 is refused below.
_DIM = re.compile(r"\s*(?:(\d{1,20})|(<=)\s*(\d{1,20})|(\?))\s*$")
# Layout extras in the fixed order XLA's ParseLayout reads them (S(1)T(8,128) does not parse).
# Each part's contents as XLA's ParseLayout reads them (a tile is integers or '*', `T()` too;
# a split config is `dim:index,...`), so what is accepted prints back as text that parses.
_TILE = r"\((?:(?:\d+|\*)(?:,(?:\d+|\*))*)?\)"
_EXTRAS = lazy_regex(r"(?:D\([^)]*\))?(?:T(?:" + _TILE + r")+)?(?:L\(\d+\))?(?:#\([a-z0-9]+\))?(?:\*\([a-z0-9]+\))?"
                     r"(?:E\(\d+\))?(?:S\(\d+\))?(?:(?:SC\(\d+:\d+(?:,\d+)*\))+)?(?:P\(((?:[^()]|\([^()]*\))*)\))?(?:M\(\d+\))?")


def array_shape(text: str) -> Shape:
    """The Shape of an array-shape token (raises ShapeError)."""
    s = _CACHE.get(text)
    if s is None:
        s = _parse_array(text)
        if len(_CACHE) >= CACHE_MAX:
            _CACHE.clear()
        _CACHE[text] = s
    return s


def _parse_array(text: str) -> Shape:
    """One array-shape token (comments already allowed inside): dims with `<=N` and `?`, then
    the layout; called once per distinct shape text (array_shape memoises)."""
    clean = _COMMENT.sub(" ", text) if "/" in text else text
    m = _ARRAY.fullmatch(clean.strip())
    if m is None:
        raise ShapeError(f"malformed shape '{_clip(text)}'")
    et = ELEMENT_TYPES.get(m.group(1))
    if et is None:
        raise ShapeError(f"unknown element type '{m.group(1)}'")
    dims: list[int] = []
    dynamic: list[bool] = []
    body = m.group(2)
    if body.strip():
        for item in body.split(","):
            d = _DIM.match(item)
            if d is None:
                raise ShapeError(f"expected a dimension size, '<=N' or '?' in shape '{_clip(text)}'",
                                 text.find("[") + 1)
            if d.group(1) is not None:
                dims.append(int(d.group(1)))
                dynamic.append(False)
            elif d.group(3) is not None:
                dims.append(int(d.group(3)))
                dynamic.append(True)
            else:
                dims.append(-1)
                dynamic.append(True)
    if not et.is_array and dims:
        raise ShapeError(f"{et.name} shapes have no dimensions: '{_clip(text)}'")
    too_big = shape_size_error(tuple(dims), et.bits, f"shape '{_clip(text)}'")
    if too_big is not None:  # XLA: int64 dims, element count and byte size (ShapeUtil::ValidateShape)
        raise ShapeError(too_big, text.find("[") + 1)
    layout_text = m.group(3)
    if layout_text is None:
        layout = Layout.default(len(dims)) if et.is_array else None
    else:
        layout = _parse_layout(layout_text, len(dims), text)
    return Shape(et, tuple(dims), layout, tuple(dynamic) if any(dynamic) else ())


def _clip(text: str, limit: int = 80) -> str:
    """Shape text quoted in a message, cut short: a shape token can be a whole file long."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _parse_layout(body: str, rank: int, text: str) -> Layout:
    m2m_text, colon, extras = body.partition(":")
    m2m: tuple[int, ...] = ()
    if m2m_text.strip():
        try:
            m2m = tuple(int(x) for x in m2m_text.split(","))
            if max(len(x) for x in m2m_text.split(",")) > 20:
                raise ValueError("too many digits")
        except ValueError:
            raise ShapeError(f"expected integers in the layout of shape '{_clip(text)}'",
                             text.find("{") + 1) from None
    extras = extras.strip()
    if colon and extras:
        compact = re.sub(r"\s+", "", extras)
        em = _EXTRAS.match(compact)
        assert em is not None  # every part is optional
        if em.end() != len(compact):
            raise ShapeError(f"unexpected '{_clip(compact[em.end():], 40)}' in the layout of shape '{_clip(text)}' (layout "
                             "extras go in the order D T L # * E S SC P M)", text.find("{") + 1)
        extras = compact
        _check_extras(extras, text)
        if em.group(1) is not None:
            _check_physical_shape(em.group(1), text)
    if len(m2m) != rank:
        raise ShapeError(f"Dimensions size is {rank}, but minor to major size is {len(m2m)}.",
                         text.find("{"))
    if sorted(m2m) != list(range(rank)):
        raise ShapeError(f"layout {{{m2m_text}}} is not a permutation of the {rank} dimensions "
                         f"of shape '{_clip(text)}'", text.find("{"))
    return Layout(m2m, extras)


def _check_extras(extras: str, text: str) -> None:
    d = re.match(r"D\(([^)]*)\)", extras)
    if d:
        for level in d.group(1).split(","):
            if not re.fullmatch(r"\s*[DCSH]\+?~?\s*", level):
                raise ShapeError("expected a DimLevelType abbreviation (D, C, or S)", text.find("D("))
    if "P(" in extras and not d:
        raise ShapeError(f"Layout has physical shape, but is not for a sparse array: {{{extras}}}",
                         text.find("P("))


def _check_physical_shape(inner: str, text: str) -> None:
    """P(...) holds a shape; it prints back verbatim, so it must be one."""
    try:
        _, end = parse_shape_text(inner)
    except ShapeError:
        end = -1
    if end != len(inner):
        raise ShapeError(f"expected a shape inside P(...) in the layout of shape '{_clip(text)}'", text.find("P("))


# Shapes inside attribute values (outfeed_shape=, operand_layout_constraints=, ...): comments may
# stand between any two tokens there too (GAP, as the lexer skips them).
_TUPLE_TOKEN = lazy_regex(GAP + r"(?:([a-z][a-z0-9_]*\[[^\]]*\](?:" + GAP + r"\{(?=" + GAP
                          + r"[0-9:])(?:[^{}]|\{[^{}]*\})*\})?)|(b?\()|(\))|(,))")


def parse_shape_text(text: str, start: int = 0) -> tuple[Shape, int]:
    """Parse one shape (tuple or array) at text[start:]; returns (shape, end offset)."""
    stack: list[list[Shape]] = []
    buffers: list[bool] = []
    pos = start
    while True:
        m = _TUPLE_TOKEN.match(text, pos)
        if m is None:
            raise ShapeError("expected a shape", pos)
        pos = m.end()
        if m.group(1):
            s = array_shape(m.group(1))
            if not stack:
                return s, pos
            stack[-1].append(s)
            m2 = _TUPLE_TOKEN.match(text, pos)
            if m2 is None or not (m2.group(3) or m2.group(4)):
                raise ShapeError("expected ',' or ')' in tuple shape", pos)
        elif m.group(2):
            stack.append([])
            buffers.append(m.group(2) == "b(")
        elif m.group(3):
            if not stack:
                raise ShapeError("unexpected ')'", m.start())
            items = stack.pop()
            if buffers.pop():
                if len(items) != 1 or not items[0].is_array:
                    raise ShapeError("a buffer shape b(...) must wrap one array shape", m.start())
                i0 = items[0]
                t = Shape(i0.element_type, i0.dims, i0.layout, i0.dynamic, is_buffer=True)
            else:
                t = Shape.tuple_of(items)
                if t.tuple_depth > MAX_TUPLE_DEPTH:
                    raise ShapeError(tuple_depth_message(), m.start())
            if not stack:
                return t, pos
            stack[-1].append(t)
        elif not stack:
            raise ShapeError("unexpected ','", m.start())


def tuple_depth_message() -> str:
    return (f"tuple shape nested more than {MAX_TUPLE_DEPTH} levels deep (hlotools' limit; "
            "every walk over a shape recurses into its tuples)")
