"""Constant payloads: `constant(...)` text + the instruction's Shape -> Literal.

The shape drives the parse, as in XLA: brace nesting must equal the rank and each level must
hold exactly that dimension's size ("expects 3 elements in the [0]th element, but sees 2");
values must fit the element type. `{...}` gives an elided Literal (no data). Commas inside a
dense literal are optional, as in XLA.
"""
from __future__ import annotations

import math
import re

import numpy as np

from hlotools.ir.literal import Literal
from hlotools.ir.shape import Shape
from hlotools.ir.types import ElementType

_COMMENT = re.compile(r"/\*(?:[^*]|\*(?!/))*\*/|//[^\n\r]*")
_LEX = re.compile(r"\s*(?:(-?nan\(0x[0-9a-fA-F]+\))|([{}(),])|(\.\.\.)|([^\s{}(),]+))")
_INT = re.compile(r"-?(?:0x[0-9a-fA-F]+|[0-9]+)$")
_FLOAT = re.compile(r"-?(?:(?:[0-9]+|[0-9]+\.[0-9]*|[0-9]*\.[0-9]+)[eE][+-]?[0-9]+|[0-9]+\.[0-9]*|[0-9]*\.[0-9]+"
                    r"|[0-9]+)$")
_NAN = re.compile(r"(-?)nan(?:\(0x([0-9a-fA-F]+)\))?$")
_SMALL_CACHE: dict[tuple[Shape, str], np.ndarray] = {}
_FLOAT_FORMATS = {"f16": (10, np.uint16), "bf16": (7, np.uint16), "f32": (23, np.uint32),
                  "f64": (52, np.uint64)}


class LiteralError(Exception):
    """A malformed literal; `offset` is relative to the literal text."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def parse_literal(text: str, shape: Shape) -> Literal:
    if shape.is_tuple:
        return _parse_tuple(text, shape)
    if len(text) < 64:
        key = (shape, text)
        arr = _SMALL_CACHE.get(key)
        if arr is None:
            lit = _parse_array(text, shape)
            if lit.array is not None and len(_SMALL_CACHE) < 4096:
                _SMALL_CACHE[key] = lit.array
            return lit
        return Literal(shape, arr.copy(), text=text)
    return _parse_array(text, shape)


def _tokens(text: str) -> list[tuple[str, int]]:
    clean = _COMMENT.sub(lambda m: " " * len(m.group()), text) if "/" in text else text
    out: list[tuple[str, int]] = []
    pos = 0
    for m in _LEX.finditer(clean):
        if m.start() != pos:
            break
        pos = m.end()
        out.append((m.group(m.lastindex or 1), m.start(m.lastindex or 1)))
    if clean[pos:].strip():
        raise LiteralError(f"unexpected character '{clean[pos:].strip()[0]}' in literal", pos)
    return out


def _parse_tuple(text: str, shape: Shape) -> Literal:
    toks = _tokens(text)
    lit, i = _tuple_from(toks, 0, shape, text)
    if i != len(toks):
        raise LiteralError("unexpected text after the tuple literal", toks[i][1])
    return lit


def _tuple_from(toks: list[tuple[str, int]], i: int, shape: Shape, text: str) -> tuple[Literal, int]:
    assert shape.tuple_shapes is not None
    if i >= len(toks) or toks[i][0] != "(":
        where = toks[i][1] if i < len(toks) else len(text)
        raise LiteralError(f"expects '(' to start a tuple literal of shape {shape}", where)
    i += 1
    elements: list[Literal] = []
    for k, sub in enumerate(shape.tuple_shapes):
        if k:
            if i >= len(toks) or toks[i][0] != ",":
                raise LiteralError("expects ',' between tuple literal elements",
                                   toks[i][1] if i < len(toks) else len(text))
            i += 1
        if sub.is_tuple:
            el, i = _tuple_from(toks, i, sub, text)
        else:
            j = _element_end(toks, i)
            start = toks[i][1] if i < len(toks) else len(text)
            stop = toks[j][1] if j < len(toks) else len(text)
            el = _parse_array(text[start:stop], sub, base=start)
            i = j
        elements.append(el)
    if i >= len(toks) or toks[i][0] != ")":
        raise LiteralError(f"expects ')' to end the tuple literal of shape {shape}",
                           toks[i][1] if i < len(toks) else len(text))
    return Literal(shape, None, elements=elements), i + 1


def _element_end(toks: list[tuple[str, int]], i: int) -> int:
    depth = 0
    while i < len(toks):
        t = toks[i][0]
        if t in "{(":
            depth += 1
        elif t in "})":
            if depth == 0:
                return i
            depth -= 1
        elif t == "," and depth == 0:
            return i
        i += 1
    return i


def _parse_array(text: str, shape: Shape, base: int = 0) -> Literal:
    et = shape.element_type
    assert et is not None
    if not et.is_array:
        if text.strip() not in ("", "{}"):
            raise LiteralError(f"a {et.name} constant takes no value", base)
        return Literal(shape, None, text=text)
    toks = _tokens(text)
    dims = shape.dims
    if any(d < 0 for d in dims):
        raise LiteralError("a constant cannot have unbounded dynamic dimensions", base)
    if len(toks) == 3 and toks[1][0] == "..." and toks[0][0] == "{" and toks[2][0] == "}":
        return Literal(shape, None, elided=True, text=text)
    values, positions = _collect(toks, dims, et, base)
    arr = _convert(values, positions, et, base)
    size = math.prod(dims)
    if len(dims) and len(values) == 1 and size != 1 and toks and toks[0][0] != "{":
        full = np.zeros(size, dtype=arr.dtype)  # XLA quirk: a bare scalar sets element 0
        full[0] = arr[0]
        arr = full
    return Literal(shape, arr.reshape(dims), text=text)


def _collect(toks: list[tuple[str, int]], dims: tuple[int, ...], et: ElementType,
             base: int) -> tuple[list[str], list[int]]:
    """Check brace structure against dims; return the scalar value strings in order."""
    rank = len(dims)
    values: list[str] = []
    positions: list[int] = []
    complex_ = et.is_complex
    if not toks:
        raise LiteralError("expects a literal value", base)
    if toks[0][0] != "{":  # a scalar (rank 0, or XLA's rank>=1 quirk)
        vals, end = _scalar(toks, 0, complex_, base)
        if end != len(toks):
            raise LiteralError("unexpected text after the literal value", base + toks[end][1])
        return [vals], [base + toks[0][1]]
    if rank == 0:
        raise LiteralError("expects a scalar literal for a rank-0 shape, but sees '{'", base + toks[0][1])
    counts: list[int] = []
    i = 0
    n = len(toks)
    while i < n:
        t, p = toks[i]
        if t == "{":
            if len(counts) == rank:
                raise LiteralError(f"expects nested array in rank {rank}, but sees larger", base + p)
            if counts:
                counts[-1] += 1
            counts.append(0)
            i += 1
        elif t == "}":
            if not counts:
                raise LiteralError("unexpected '}' token", base + p)
            depth = len(counts)
            expect = dims[depth - 1]
            if counts[-1] != expect:
                if depth < rank and counts[-1] == 0 and expect:
                    raise LiteralError(f"expects nested array in rank {rank}, but sees {depth}", base + p)
                raise LiteralError(f"expects {expect} elements in the [{depth - 1}]th dimension, but sees "
                                   f"{counts[-1]}", base + p)
            counts.pop()
            i += 1
            if not counts:
                break
        elif t == ",":
            i += 1
        else:
            if len(counts) != rank:
                raise LiteralError(f"expects nested array in rank {rank}, but sees {len(counts)}", base + p)
            v, i = _scalar(toks, i, complex_, base)
            values.append(v)
            positions.append(base + p)
            counts[-1] += 1
    if counts:
        raise LiteralError("expects '}' at the end of the literal", base + (toks[-1][1] if toks else 0))
    if i != n:
        raise LiteralError("unexpected text after the literal", base + toks[i][1])
    return values, positions


def _scalar(toks: list[tuple[str, int]], i: int, complex_: bool, base: int):  # -> (str|tuple, int)
    t, p = toks[i]
    if complex_:
        if t != "(":
            raise LiteralError("expects a (real, imag) pair for a complex literal value", base + p)
        if i + 4 >= len(toks):
            raise LiteralError("malformed complex value; expects (real, imag)", base + p)
        re_, comma, im, close = (toks[i + 1][0], toks[i + 2][0], toks[i + 3][0], toks[i + 4][0])
        if comma != "," or close != ")":
            raise LiteralError("malformed complex value; expects (real, imag)", base + p)
        return (re_, im), i + 5
    if t in "{}(),":
        raise LiteralError(f"expects a literal value, but sees '{t}'", base + p)
    if t == "...":
        raise LiteralError("'{...}' (elided values) is only allowed as the whole literal", base + p)
    return t, i + 1


def _convert(values: list, positions: list[int], et: ElementType, base: int) -> np.ndarray:
    kind = et.kind
    if kind == "complex":
        real = _convert([v[0] for v in values], positions, _F64, base)
        imag = _convert([v[1] for v in values], positions, _F64, base)
        out = (real + 1j * imag).astype(et.dtype)
        _check_float_overflow(real, out.real, values, positions, et, [v[0] for v in values])
        return out
    if kind == "pred":
        out = np.empty(len(values), dtype=np.bool_)
        for k, v in enumerate(values):
            if v == "true":
                out[k] = True
            elif v == "false":
                out[k] = False
            elif _INT.match(v):
                out[k] = int(v, 0) != 0
            else:
                raise LiteralError(f"expects true, false or an integer for a pred literal, but sees '{v}'",
                                   positions[k])
        return out
    if kind in ("signed", "unsigned"):
        lo, hi = _int_range(et)
        ints: list[int] = []
        for k, v in enumerate(values):
            if not _INT.match(v):
                if v in ("true", "false"):
                    ints.append(int(v == "true"))
                    continue
                raise LiteralError(f"expects integer for primitive type {et.name.upper()}, but sees '{v}'",
                                   positions[k])
            x = int(v, 0)
            if x < 0 and et.name == "u64" and x >= -(1 << 63):
                x += 1 << 64  # XLA stores INT tokens as int64 bit patterns
            if not lo <= x <= hi:
                raise LiteralError(f"value {v} is out of range for literal's primitive type "
                                   f"{et.name.upper()}", positions[k])
            ints.append(x)
        return np.array(ints, dtype=et.dtype)
    # floating point
    floats = np.empty(len(values), dtype=np.float64)
    nan_bits: list[tuple[int, bool, int]] = []
    for k, v in enumerate(values):
        try:
            floats[k] = float(v) if _FLOAT.match(v) else _special(v, k, nan_bits, positions[k])
        except ValueError:
            raise LiteralError(f"expects a number for primitive type {et.name.upper()}, but sees '{v}'",
                               positions[k]) from None
    out = floats.astype(et.dtype) if et.dtype != np.float64 else floats
    _check_float_overflow(floats, out, values, positions, et, values)
    if nan_bits:
        _apply_nan_payloads(out, nan_bits, et, positions)
    return out


_F64 = ElementType("f64", "float", 64, np.dtype(np.float64))


def _special(v: str, k: int, nan_bits: list[tuple[int, bool, int]], pos: int) -> float:
    if v == "inf":
        return math.inf
    if v == "-inf":
        return -math.inf
    m = _NAN.match(v)
    if m:
        neg = bool(m.group(1))
        if m.group(2):
            nan_bits.append((k, neg, int(m.group(2), 16)))
        return -math.nan if neg else math.nan
    raise ValueError(v)


def _check_float_overflow(src: np.ndarray, out: np.ndarray, values: list, positions: list[int],
                          et: ElementType, texts: list) -> None:
    if not len(src):
        return
    with np.errstate(all="ignore"):
        bad = np.isfinite(src) & ~np.isfinite(out.astype(np.float64) if out.dtype.kind != "c" else out.real)
    if bad.any():
        k = int(np.argmax(bad))
        raise LiteralError(f"value {texts[k]} is out of range for literal's primitive type "
                           f"{et.name.upper()}", positions[k])


def _apply_nan_payloads(out: np.ndarray, nan_bits: list[tuple[int, bool, int]], et: ElementType,
                        positions: list[int]) -> None:
    fmt = _FLOAT_FORMATS.get(et.name)
    if fmt is None:
        return  # f8/f4/f6 types: keep the default NaN
    mant, utype = fmt
    bits = out.view(utype)
    total = np.dtype(utype).itemsize * 8
    for k, neg, payload in nan_bits:
        if payload == 0 or payload >= (1 << mant):
            raise LiteralError(f"NaN payload 0x{payload:x} is out of range for {et.name.upper()}", positions[k])
        exp_mask = ((1 << (total - 1 - mant)) - 1) << mant
        bits[k] = utype((1 << (total - 1) if neg else 0) | exp_mask | payload)


def _int_range(et: ElementType) -> tuple[int, int]:
    b = et.bits
    if et.kind == "signed":
        return -(1 << (b - 1)), (1 << (b - 1)) - 1
    return 0, (1 << b) - 1
