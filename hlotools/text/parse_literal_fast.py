"""Large dense literals in linear time with numpy: the fast path of parse_literal.

A constant of a million values spelled out on one line took seconds in the token-at-a-time
state machine of parse_literal (one regex match, one Python step and one float() per value).
Here the text is classified byte by byte with numpy: brace depth is a cumulative sum over the
braces, each brace level's element counts are one bincount, and the values are read in C by
numpy's text reader (np.fromstring with a separator). Only the common, well-formed case is
taken: ASCII text with exactly the braces the shape asks for, decimal numbers, inf and nan,
nothing else (no comments, no `-nan` or NaN payloads, no `...`, no complex pairs). Anything
else, including every error, returns None and parse_literal's exact walk decides, so both
paths accept the same texts with the same values and the slow path keeps XLA's messages.
"""
from __future__ import annotations

import math
import re
import warnings

import numpy as np

from hlotools.ir.shape import Shape

MIN_FAST_CHARS = 512  # shorter literals are cheap either way; the walk's messages are exact
_WS = rb" \t\n\r\f\v"
_SEPARATORS = bytes.maketrans(b",{}", b"   ")
# XLA's lexer reads a number only from a digit or '-' (`.5` is an error, `-.5` and `5.` are values).
# inf, -inf and nan as XLA spells them; -nan keeps its sign bit only on the exact path.
_FLOAT = rb"(?:(?:-(?=\.?[0-9])|(?=[0-9]))[0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]+)?|-?inf|nan)"
_FLOATS = re.compile(rb"[" + _WS + rb"]*+(?:" + _FLOAT + rb"(?![^" + _WS + rb"])[" + _WS + rb"]*+)*+")
# At most 18 digits: fits int64 whatever they are; longer numbers go to the exact path.
_INTS = re.compile(rb"[" + _WS + rb"]*+(?:-?[0-9]{1,18}+(?![^" + _WS + rb"])[" + _WS + rb"]*+)*+")
_UINTS = re.compile(rb"[" + _WS + rb"]*+(?:[0-9]{1,18}+(?![^" + _WS + rb"])[" + _WS + rb"]*+)*+")
_DEPTH_STEP = np.zeros(256, dtype=np.int32)
_DEPTH_STEP[ord("{")] = 1
_DEPTH_STEP[ord("}")] = -1
_VALUE_CHAR = np.ones(256, dtype=bool)
_VALUE_CHAR[list(_WS + b",{}")] = False


def fast_dense(text: str, shape: Shape) -> np.ndarray | None:
    """The literal's values as a flat array of the shape's dtype, or None (use the exact path)."""
    et = shape.element_type
    dims = shape.dims
    if et is None or not dims or len(text) < MIN_FAST_CHARS or not text.isascii():
        return None
    if et.kind not in ("float", "signed", "unsigned", "pred") or math.prod(dims) == 0 or min(dims) < 0:
        return None
    raw = text.encode("ascii").strip()
    cleaned = raw.translate(_SEPARATORS)
    pattern = _FLOATS if et.kind == "float" else _UINTS if et.kind == "unsigned" else _INTS
    if pattern.fullmatch(cleaned) is None or b"-nan" in cleaned:
        return None
    if not _braces_fit(np.frombuffer(raw, dtype=np.uint8), dims):
        return None
    # numpy's text reader, in C; correctly rounded (bit-identical to float() on the grammar above)
    values = _read_numbers(cleaned, np.float64 if et.kind == "float" else np.int64)
    if values is None or len(values) != math.prod(dims):
        return None
    if et.kind == "float":
        _integer_zeros_positive(values, cleaned)
        return _floats(values, shape, cleaned.count(b"inf"))
    return _integers(values, shape)


def _integer_zeros_positive(values: np.ndarray, cleaned: bytes) -> None:
    """XLA lexes `-0` as the integer 0, a float literal +0 (`-0.0` is -0): numpy's reader
    made both -0. Only a literal with negative zeros pays for splitting its words."""
    neg = np.flatnonzero((values == 0) & np.signbit(values))
    if not len(neg):
        return
    words = cleaned.split()
    for k in neg.tolist():
        if not words[k].strip(b"-0"):
            values[k] = 0.0


def _read_numbers(cleaned: bytes, dtype: type) -> np.ndarray | None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "could not be read to its end" must not pass as a value
        try:
            return np.fromstring(cleaned, dtype=dtype, sep=" ")
        except (ValueError, DeprecationWarning):  # pragma: no cover - the patterns only pass numbers
            return None


def _braces_fit(chars: np.ndarray, dims: tuple[int, ...]) -> bool:
    """One outer brace pair (chars are stripped) holding exactly the nesting and element counts
    the dims ask for. Depth is summed over the braces only, not over every character."""
    step = _DEPTH_STEP[chars]
    braces = np.flatnonzero(step)
    if not len(braces) or braces[0] != 0 or braces[-1] != len(chars) - 1:
        return False
    depth = np.cumsum(step[braces])  # depth after each brace
    if depth[-1] != 0 or (len(depth) > 1 and depth[:-1].min() < 1):
        return False
    rank = len(dims)
    is_open = step[braces] > 0
    opens = braces[is_open]
    open_depth = depth[is_open]
    if open_depth.max() > rank:
        return False
    is_value = _VALUE_CHAR[chars]
    starts = np.flatnonzero(is_value[1:] & ~is_value[:-1]) + 1  # chars[0] is '{'
    if (depth[np.searchsorted(braces, starts) - 1] != rank).any():
        return False
    for level in range(1, rank + 1):
        parents = opens[open_depth == level]
        if len(parents) != math.prod(dims[:level - 1]):
            return False
        children = opens[open_depth == level + 1] if level < rank else starts
        owner = np.searchsorted(parents, children) - 1
        counts = np.bincount(owner, minlength=len(parents))
        if len(counts) != len(parents) or (counts != dims[level - 1]).any():
            return False
    return True


def _floats(values: np.ndarray, shape: Shape, inf_words: int) -> np.ndarray | None:
    """The values narrowed to the element type; None when one is out of the type's range (or a
    number overflowed double: more infinities than `inf` words), which the exact path reports."""
    if int(np.isinf(values).sum()) != inf_words:
        return None
    with np.errstate(all="ignore"):
        out = values.astype(shape.dtype) if shape.dtype != np.float64 else values
        back = out.astype(np.float64)
    if (np.isfinite(values) & ~np.isfinite(back)).any():
        return None
    return out


def _integers(values: np.ndarray, shape: Shape) -> np.ndarray | None:
    et = shape.element_type
    assert et is not None
    if et.kind == "pred":
        return values != 0
    if et.kind == "signed":
        lo, hi = -(1 << (et.bits - 1)), (1 << (et.bits - 1)) - 1
    else:
        lo, hi = 0, (1 << et.bits) - 1
    if int(values.min()) < lo or int(values.max()) > hi:
        return None
    return values.astype(shape.dtype)
