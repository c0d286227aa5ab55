"""Constant payloads: `constant(...)` text + the instruction's Shape -> Literal.

The shape drives the parse, as in XLA: brace nesting must equal the rank and each level must
hold exactly that dimension's size ("expects 3 elements in the [0]th element, but sees 2");
values must fit the element type. `{...}` gives an elided Literal (no data). Commas inside a
dense literal are optional, as in XLA.
"""
from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import ml_dtypes

from hlotools.ir.lazy_regex import lazy_regex
from hlotools.ir.literal import Literal
from hlotools.ir.shape import Shape
from hlotools.ir.types import CONSTANT_FILL_ENV, ElementType, human_bytes, max_constant_fill_bytes
from hlotools.text.parse_literal_fast import MIN_FAST_CHARS, fast_dense

_COMMENT = lazy_regex(r"/\*(?:[^*]|\*(?!/))*\*/|//[^\n\r]*")
_LEX = re.compile(r"\s*(?:(-?nan\(0x[0-9a-fA-F]+\))|([{}(),])|(\.\.\.)|([^\s{}(),]+))")
# Decimal only, leading zeros allowed: XLA lexes `0x1F` as the window pattern `0x1` then `F`.
_INT = re.compile(r"-?[0-9]+$")
# XLA lexes a number only from a digit or '-': `.5` is an error, `-.5` and `5.` are values.
_FLOAT = re.compile(r"(?=-|[0-9])-?(?:(?:[0-9]+|[0-9]+\.[0-9]*|[0-9]*\.[0-9]+)[eE][+-]?[0-9]+|[0-9]+\.[0-9]*|[0-9]*\.[0-9]+"
                    r"|[0-9]+)$")
_NAN = lazy_regex(r"(-?)nan(?:\(0x([0-9a-fA-F]+)\))?$")
_SMALL_CACHE: dict[tuple[Shape, str], np.ndarray] = {}


class LiteralError(Exception):
    """A malformed literal; `offset` is relative to the literal text."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


class LiteralTooLarge(LiteralError):
    """The literal would take more memory than hlotools materialises from so little text."""


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
    if len(text) >= MIN_FAST_CHARS and "/" not in text:  # no comments: braces are structure
        try:
            fast = _tuple_skipping_arrays(text, 0, shape)
        except LiteralError:
            fast = None  # the walk below reports it, exactly as XLA words it
        if fast is not None and not text[fast[1]:].strip():
            return fast[0]
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


_BRACE = re.compile(r"[{}]")
_BARE_VALUE = re.compile(r"[^\s{}(),]+")


def _tuple_skipping_arrays(text: str, pos: int, shape: Shape) -> tuple[Literal, int] | None:
    """A tuple literal whose array elements are found by jumping from '{' to its matching '}'
    (braces only, not every value token): large tuples in linear time, each array element read
    by _parse_array (its numpy fast path). None when the text is not of that plain form."""
    assert shape.tuple_shapes is not None
    pos = _skip_space(text, pos)
    if not text.startswith("(", pos):
        return None
    pos += 1
    elements: list[Literal] = []
    for k, sub in enumerate(shape.tuple_shapes):
        pos = _skip_space(text, pos)
        if k:
            if not text.startswith(",", pos):
                return None
            pos = _skip_space(text, pos + 1)
        if sub.is_tuple:
            got = _tuple_skipping_arrays(text, pos, sub)
            if got is None:
                return None
            element, pos = got
        else:
            stop = _array_text_end(text, pos, sub)
            if stop < 0:
                return None
            element, pos = _parse_array(text[pos:stop], sub, base=pos), stop
        elements.append(element)
    pos = _skip_space(text, pos)
    if not text.startswith(")", pos):
        return None
    return Literal(shape, None, elements=elements), pos + 1


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _array_text_end(text: str, pos: int, shape: Shape) -> int:
    """End of one array element's text at pos: its brace group, or one bare scalar; -1 else."""
    if text.startswith("{", pos):
        depth = 0
        for m in _BRACE.finditer(text, pos):
            depth += 1 if m.group() == "{" else -1
            if depth == 0:
                return m.end()
        return -1
    bare = _BARE_VALUE.match(text, pos)
    if bare is None or (shape.element_type is not None and shape.element_type.is_complex):
        return -1
    return bare.end()


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
    dims = shape.dims
    if len(text) >= MIN_FAST_CHARS:
        flat = fast_dense(text, shape)
        if flat is not None:
            return Literal(shape, flat.reshape(dims), text=text)
    toks = _tokens(text)
    if any(d < 0 for d in dims):
        raise LiteralError("a constant cannot have unbounded dynamic dimensions", base)
    try:
        values, positions = _collect(toks, dims, et, base)
    except _Elided:
        return Literal(shape, None, elided=True, text=text)
    size = math.prod(dims)
    _check_fill(size, len(values), et, base)
    arr = _convert(values, positions, et, base)
    if len(arr) != size:  # XLA zero-fills what the text leaves out (e.g. a bare scalar for rank 1)
        full = np.zeros(size, dtype=arr.dtype)
        full[:len(arr)] = arr
        arr = full
    return Literal(shape, arr.reshape(dims), text=text)


def _check_fill(size: int, given: int, et: ElementType, base: int) -> None:
    """Refuse, before allocating, a zero fill larger than the cap: `s32[536870912] constant(7)`
    is 62 bytes of text for 2 GiB of zeros (XLA materialises them; hlotools would print them)."""
    fill = (size - given) * et.bits // 8
    cap = max_constant_fill_bytes()
    if fill > cap:
        raise LiteralTooLarge(f"the text gives {given} of the constant's {size} values; zero-filling the rest "
                              f"would take {human_bytes(fill)}, more than hlotools fills ({human_bytes(cap)}; "
                              f"raise it with {CONSTANT_FILL_ENV})", base)


class _Elided(Exception):
    """`...` inside the literal: the values are elided."""


def _collect(toks: list[tuple[str, int]], dims: tuple[int, ...], et: ElementType,
             base: int) -> tuple[list, list[int]]:
    """Walk the brace structure as XLA's ParseDenseLiteral does; return the values in order."""
    rank = len(dims)
    size = math.prod(dims)
    shape_text = f"{et.name}[{','.join(map(str, dims))}]"
    values: list = []
    positions: list[int] = []
    complex_ = et.is_complex
    if not toks:
        raise LiteralError("unexpected token type in a literal", base)
    seen = [0] * rank
    soft: list[tuple[str, int]] = []  # errors XLA records but does not stop on; reported first
    try:
        return _walk(toks, dims, complex_, base, rank, size, shape_text, seen, soft, values, positions)
    except LiteralError as e:
        if soft:
            raise LiteralError(f"{soft[0][0]}; then: {e.message}", soft[0][1]) from None
        raise


def _walk(toks: list[tuple[str, int]], dims: tuple[int, ...], complex_: bool, base: int, rank: int, size: int,
          shape_text: str, seen: list[int], soft: list[tuple[str, int]], values: list,
          positions: list[int]) -> tuple[list, list[int]]:
    """The brace-nesting state machine of XLA's ParseDenseLiteral, one token per step.

    Kept as one loop on purpose: its error messages (and which of them XLA only records in
    `soft` and keeps going after) depend on the nesting state at that token, so the order of
    the checks is the specification.
    """
    nest = 0
    i = 0
    n = len(toks)

    def index_str(dim: int) -> str:
        return "[" + ",".join(str(e - 1) for e in seen[:dim]) + "]"

    while True:
        if i >= n:
            raise LiteralError("unexpected token type in a literal", base + (toks[-1][1] + 1 if toks else 0))
        t, p = toks[i]
        if t == "{":
            nest += 1
            if nest > rank:
                raise LiteralError(f"expects nested array in rank {rank}, but sees larger", base + p)
            if nest > 1:
                seen[nest - 2] += 1
                if seen[nest - 2] > dims[nest - 2]:
                    raise LiteralError(f"expects {dims[nest - 2]} elements in the {index_str(nest - 2)}th "
                                       "element, but sees more", base + p)
            i += 1
        elif t == "}":
            if nest == 0:
                raise LiteralError("unexpected '}' token", base + p)
            nest -= 1
            if seen[nest] != dims[nest]:
                raise LiteralError(f"expects {dims[nest]} elements in the {index_str(nest)}th element, "
                                   f"but sees {seen[nest]}", base + p)
            seen[nest] = 0
            i += 1
        elif t == "...":
            if nest != 1:
                raise LiteralError(f"expects `...` at nest level 1, but sees it at nest level {nest}", base + p)
            raise _Elided()
        elif t == ",":
            i += 1
        elif t == ")" or (t == "(" and not complex_):
            if t == "(":
                raise LiteralError("unexpected '(' in literal. Parens are only valid for complex literals",
                                   base + p)
            raise LiteralError("unexpected token type in a literal", base + p)
        else:
            # XLA checks nesting here but ignores the result except for complex values; a value
            # past the end is then rejected by the index check ("bare scalar sets element 0").
            if rank > 0 and nest == rank:
                seen[rank - 1] += 1
                if seen[rank - 1] > dims[rank - 1]:
                    msg = f"expects {dims[rank - 1]} elements on the minor-most dimension, but sees more"
                    if complex_:
                        raise LiteralError(msg, base + p)
                    soft.append((msg, base + p))
            elif rank > 0:
                msg = f"expects nested array in rank {rank}, but sees {nest}"
                if complex_:
                    raise LiteralError(msg, base + p)
                soft.append((msg, base + p))
            if len(values) >= size:
                raise LiteralError(f"tries to set value {t} to a literal in shape {shape_text} at linear "
                                   f"index {len(values)}, but the index is out of range", base + p)
            v, i = _scalar(toks, i, complex_, base)
            values.append(v)
            positions.append(base + p)
        if nest == 0:
            break
    if i != n:
        raise LiteralError("expects ')' after constant literal", base + toks[i][1])
    return values, positions


def _scalar(toks: list[tuple[str, int]], i: int, complex_: bool, base: int) -> tuple[str | tuple[str, str], int]:
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
    """The value strings as one numpy array of the element type, with XLA's range checks and
    messages (ints in [min, max], floats finite in the type, NaN payloads that fit)."""
    kind = et.kind
    if kind == "complex":
        part = _F32 if et.name == "c64" else _F64
        real = _floats([v[0] for v in values], positions, et)
        imag = _floats([v[1] for v in values], positions, et)
        _check_component(real, "real", positions, et, part)
        _check_component(imag, "imaginary", positions, et, part)
        # Assign the parts: real + 1j*imag would turn (-inf, nan) into (nan, nan).
        out = np.empty(len(values), dtype=et.dtype)
        out.real = real
        out.imag = imag
        nans = [k for k, v in enumerate(values) if "nan" in v[0] or "nan" in v[1]]
        if nans:
            _complex_nans(out, values, nans, positions, et)
        return out
    if kind == "pred":
        out = np.empty(len(values), dtype=np.bool_)
        for k, v in enumerate(values):
            if v in ("true", "false"):
                out[k] = v == "true"
            elif _INT.match(v):
                out[k] = v.lstrip("-").strip("0") != ""  # int(v) != 0, without int()'s digit limit
            else:
                raise LiteralError("expects integer for primitive type: PRED", positions[k])
        return out
    if kind in ("signed", "unsigned"):
        return _ints(values, positions, et)
    floats = _floats(values, positions, et)
    with np.errstate(all="ignore"):
        out = floats.astype(et.dtype) if et.dtype != np.float64 else floats
        back = out.astype(np.float64)
    bad = np.isfinite(floats) & ~np.isfinite(back)
    if bad.any():
        k = int(np.argmax(bad))
        hi = float(ml_finfo(et).max)
        raise LiteralError(f"value {values[k]} is out of range for literal's primitive type "
                           f"{et.name.upper()} namely [{-hi:g}, {hi:g}].", positions[k])
    nan_bits = [(k, v) for k, v in enumerate(values) if "(" in v]
    if nan_bits:
        _apply_nan_payloads(out, nan_bits, et, positions)
    return out


def ml_finfo(et: ElementType) -> ml_dtypes.finfo:
    import ml_dtypes
    return ml_dtypes.finfo(et.dtype)


def _ints(values: list, positions: list[int], et: ElementType) -> np.ndarray:
    lo, hi = _int_range(et)
    ints: list[int] = []
    for k, v in enumerate(values):
        if not _INT.match(v):
            if v in ("true", "false"):
                ints.append(int(v == "true"))
                continue
            raise LiteralError(f"expects integer for primitive type: {et.name.upper()}", positions[k])
        if len(v) > 21:  # past 64 bits whatever the digits (and int() refuses thousands of them)
            raise LiteralError(f"value {v[:24]}... is out of range for literal's primitive type "
                               f"{et.name.upper()} namely [{lo}, {hi}].", positions[k])
        x = int(v)
        if x < 0 and et.kind == "unsigned" and x >= -(1 << 63):
            x &= (1 << 64) - 1  # XLA reads INT tokens as int64 and compares them as uint64
        if not lo <= x <= hi:
            raise LiteralError(f"value {v} is out of range for literal's primitive type {et.name.upper()} "
                               f"namely [{lo}, {hi}].", positions[k])
        ints.append(x)
    return np.array(ints, dtype=et.dtype)


def _floats(values: list, positions: list[int], et: ElementType) -> np.ndarray:
    out = np.empty(len(values), dtype=np.float64)
    for k, v in enumerate(values):
        if not v.strip("-0") and _INT.match(v):  # XLA lexes `-0` as the integer 0: +0, not -0
            out[k] = 0.0
        elif _FLOAT.match(v):
            f = float(v)
            if math.isinf(f):
                raise LiteralError("Constant is out of range for double (+/-1.79769e+308) and so is "
                                   "unparsable.", positions[k])
            out[k] = f
        elif v == "inf":
            out[k] = math.inf
        elif v == "-inf":
            out[k] = -math.inf
        elif _NAN.match(v):
            out[k] = -math.nan if v.startswith("-") else math.nan
        else:
            raise LiteralError(f"expect floating point value for primitive type: {et.name.upper()}",
                               positions[k])
    return out


def _check_component(vals: np.ndarray, name: str, positions: list[int], et: ElementType, part: np.dtype) -> None:
    hi = float(np.finfo(part).max)
    bad = np.isfinite(vals) & (np.abs(vals) > hi)
    if bad.any():
        k = int(np.argmax(bad))
        raise LiteralError(f"{name} part {vals[k]:g} is out of range for literal's primitive type "
                           f"{et.name.upper()}, namely [{-hi:g}, {hi:g}].", positions[k])


_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
# NaN payload widths (mantissa bits) of the types that can carry one, and their bit storage.
_PAYLOADS = {"f16": (10, np.uint16), "bf16": (7, np.uint16), "f32": (23, np.uint32), "f64": (52, np.uint64),
             "f8e5m2": (2, np.uint8), "f8e4m3": (3, np.uint8), "f8e3m4": (4, np.uint8)}


def _apply_nan_payloads(out: np.ndarray, nan_bits: list[tuple[int, str]], et: ElementType,
                        positions: list[int]) -> None:
    fmt = _PAYLOADS.get(et.name)
    shape_text = f"{et.name}[{len(out)}]" if len(out) != 1 else f"{et.name}[]"
    for k, v in nan_bits:
        m = _NAN.match(v)
        assert m is not None and m.group(2)
        payload = int(m.group(2), 16)
        if payload == 0:
            continue  # nan(0x0) is the default quiet NaN
        if fmt is None:
            raise LiteralError(f"tries to set NaN payload 0x{payload:x} to a literal in shape {shape_text} at "
                               f"linear index {k}, but {et.name} does not support payloads", positions[k])
        mant, utype = fmt
        if payload >= (1 << mant):
            raise LiteralError(f"tries to set NaN payload 0x{payload:x} to a literal in shape {shape_text} at "
                               f"linear index {k}, but the NaN payload is out of range (0x{(1 << mant) - 1:x})",
                               positions[k])
        total = np.dtype(utype).itemsize * 8
        exp_mask = ((1 << (total - 1 - mant)) - 1) << mant
        out.view(utype)[k] = utype(((1 << (total - 1)) if m.group(1) else 0) | exp_mask | payload)


def _complex_nans(out: np.ndarray, values: list, nans: list[int], positions: list[int],
                  et: ElementType) -> None:
    """NaN parts as XLA's SetValueInLiteralHelper sets them: a NaN real part gets its sign and
    payload (range-checked) and is copied into the imaginary part too (XLA hands the imaginary
    part the real value's NaN handling: (nan, 1) is (nan, nan)); a NaN imaginary part of a
    non-NaN real one is the double NaN (sign, payload or the quiet bit) cast to the part's
    type, which keeps the top payload bits and sets the quiet bit."""
    wide = et.name == "c128"
    mant, utype, total = (52, np.uint64, 64) if wide else (23, np.uint32, 32)
    exp_mask = ((1 << (total - 1 - mant)) - 1) << mant
    parts = out.view(utype).reshape(-1, 2)
    for k in nans:
        real, imag = _NAN.match(values[k][0]), _NAN.match(values[k][1])
        if real is not None:
            payload = int(real.group(2) or "0", 16) or 1 << (mant - 1)
            if payload >= 1 << mant:
                raise LiteralError(f"tries to set NaN payload 0x{payload:x} to a literal in shape "
                                   f"{et.name}[{len(out)}] at linear index {k}, but the NaN payload "
                                   f"is out of range (0x{(1 << mant) - 1:x})", positions[k])
            bits = ((1 << (total - 1)) if real.group(1) else 0) | exp_mask | payload
            parts[k] = (bits, bits)
        elif imag is not None:
            payload = int(imag.group(2) or "0", 16) or 1 << 51  # the double the lexer read
            sign = (1 << (total - 1)) if imag.group(1) else 0
            parts[k, 1] = sign | exp_mask | (payload if wide else (1 << 22) | (payload >> 29) & 0x3FFFFF)


def _int_range(et: ElementType) -> tuple[int, int]:
    b = et.bits
    if et.kind == "signed":
        return -(1 << (b - 1)), (1 << (b - 1)) - 1
    return 0, (1 << b) - 1
