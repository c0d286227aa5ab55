"""Constant payloads printed exactly as XLA prints them.

Floats follow XLA's `RoundTripFpToString` (xla/util.cc): f32 tries `%.6g` (digits10) and
falls back to `%.9g` (max_digits10) when the short form does not read back to the same
value; f64 likewise with `%.15g` / `%.17g`; every narrower type (f16, bf16, f8*, f6*, f4*)
prints `%.{max_digits10}g` of the value widened to double. NaNs keep their sign (`-nan`)
and, for types with signalling NaNs, a payload other than the default quiet one
(`nan(0x1)`). Arrays follow `LiteralBase::PrintWithoutShapeOneline`: rank 1 `{1, 2}`,
rank >= 2 `{ { 1, 2 }, { 3, 4 } }` (no inner spaces around a single element:
`{ {1024} }`), `/*iN=k*/` markers on the non-innermost levels of rank > 3 arrays, pred
elements as 1/0 inside arrays but `true`/`false` for scalars, complex as `(re, im)`.
Tuple literals print as `( a, b )`.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from hlotools.ir.literal import Literal
from hlotools.ir.shape import Shape

# Floating types with signalling NaNs carry a printable payload (XLA's NanPayloadBits > 0).
_PAYLOAD_TYPES = frozenset({"f16", "bf16", "f32", "f64", "f8e5m2", "f8e4m3", "f8e3m4"})
_UINT_FOR_BITS = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


@cache
def _float_traits(type_name: str, dtype: np.dtype) -> tuple[int, int]:
    """(max_digits10, mantissa bits) of a floating element type."""
    if type_name == "f64":
        return 17, 52
    if type_name == "f32":
        return 9, 23
    import ml_dtypes  # only for the narrow types, which have it imported already

    nmant = int(ml_dtypes.finfo(dtype).nmant)
    return math.ceil((nmant + 1) * math.log10(2) + 1), nmant


def _nan_text(value: np.generic, type_name: str, dtype: np.dtype) -> str:
    bits = dtype.itemsize * 8
    rep = int(np.asarray(value, dtype=dtype).view(_UINT_FOR_BITS[bits]))
    text = "-nan" if rep >> (bits - 1) else "nan"
    if type_name in _PAYLOAD_TYPES:
        nmant = _float_traits(type_name, dtype)[1]
        payload = rep & ((1 << nmant) - 1)
        if payload != 1 << (nmant - 1):
            text += f"(0x{payload:x})"
    return text


# XLA's RoundTripFpToString spells -0.0 "-0", which its lexer (and ours) reads back as the
# integer 0, so a float literal +0: "-0.0" keeps the sign through a print and a parse.
NEGATIVE_ZERO = "-0.0"


def format_float(value: float | np.generic, type_name: str = "f32") -> str:
    """One floating-point element, as XLA's RoundTripFpToString spells it."""
    from hlotools.ir.types import ELEMENT_TYPES

    dtype = ELEMENT_TYPES[type_name].dtype
    assert dtype is not None
    v = dtype.type(value)
    d = float(v)
    if d != d:
        return _nan_text(v, type_name, dtype)
    if d in (math.inf, -math.inf):
        return "inf" if d > 0 else "-inf"
    if d == 0 and math.copysign(1.0, d) < 0:
        return NEGATIVE_ZERO
    if type_name == "f32":
        short = f"{d:.6g}"
        return short if np.float32(float(short)) == v else f"{d:.9g}"
    if type_name == "f64":
        short = f"{d:.15g}"
        return short if float(short) == d else f"{d:.17g}"
    return f"{d:.{_float_traits(type_name, dtype)[0]}g}"


def _element_formatter(shape: Shape, in_array: bool) -> Callable[[Any], str]:
    """A function from one numpy element to its text, for the shape's element type.
    (Any: a numpy scalar, or the Python bool/int of .item()/.tolist() on the fast paths.)"""
    et = shape.element_type
    assert et is not None
    name = et.name
    if et.kind == "pred":
        if in_array:
            return lambda x: "1" if x else "0"
        return lambda x: "true" if x else "false"
    if et.is_integer:
        return lambda x: str(int(x))
    if et.is_float:
        cache: dict = {}

        def fmt_float(x: np.generic) -> str:
            key = x.tobytes() if hasattr(x, "tobytes") else x
            s = cache.get(key)
            if s is None:
                s = cache[key] = format_float(x, name)
            return s
        return fmt_float
    if et.is_complex:
        part = "f32" if name == "c64" else "f64"
        return lambda x: f"({_complex_part(x.real, part)}, {_complex_part(x.imag, part, imag=True)})"
    raise ValueError(f"cannot print a constant of element type {name}")


_F32_MAX = float(np.finfo(np.float32).max)


def _complex_part(value: np.generic, part: str, imag: bool = False) -> str:
    """One part of a complex element, spelled so that XLA's parser (and ours) reads it back:
    - XLA range-checks a part as the double it reads, without rounding it to float first (a
      real f32 literal is rounded), so ±FLT_MAX spelled `3.40282347e+38` (above FLT_MAX as a
      double) is refused: such a part is spelled as its exact double value.
    - A c64 imaginary NaN is read as the double NaN(payload) cast to float, which keeps the
      payload's top 23 bits: the float's payload is written shifted up by 29 bits."""
    if imag and part == "f32" and math.isnan(float(value)):
        bits = int(np.asarray(value, np.float32).view(np.uint32))
        mant, sign = bits & 0x7FFFFF, "-" if bits >> 31 else ""
        return f"{sign}nan" if mant == 0x400000 else f"{sign}nan(0x{mant << 29:x})"
    text = format_float(value, part)
    if part == "f32" and math.isfinite(float(value)) and abs(float(text)) > _F32_MAX:
        return repr(float(value))
    return text


def _float_texts(flat: np.ndarray, type_name: str) -> list[str]:
    """format_float over a whole array: Python's %-formatting per element, numpy for the
    read-back check and the special values (the fast path for large constants)."""
    d = flat.astype(np.float64)
    values = d.tolist()
    if type_name in ("f32", "f64"):
        short, longest = (6, 9) if type_name == "f32" else (15, 17)
        texts = [f"{x:.{short}g}" for x in values]
        with np.errstate(invalid="ignore", over="ignore"):
            back = np.array(texts, dtype=np.float64).astype(flat.dtype)
        for i in np.flatnonzero(back != flat).tolist():
            texts[i] = f"{values[i]:.{longest}g}"
    else:
        digits = _float_traits(type_name, flat.dtype)[0]
        texts = [f"{x:.{digits}g}" for x in values]
    for i in np.flatnonzero(~np.isfinite(d) | ((d == 0) & np.signbit(d))).tolist():  # nan, inf, -0
        texts[i] = format_float(flat[i], type_name)
    return texts


def _format_array(array: np.ndarray, shape: Shape) -> str:
    rank = len(shape.dims)
    et = shape.element_type
    assert et is not None
    fmt = _element_formatter(shape, rank > 0)
    if rank == 0:
        return fmt(array.reshape(()).item() if et.kind == "pred" else array.reshape(())[()])
    dims = tuple(array.shape)
    if et.kind == "pred" or et.is_integer:
        flat = [fmt(x) for x in array.reshape(-1).tolist()]
    elif et.is_float and array.size > 16:
        flat = _float_texts(np.ascontiguousarray(array).reshape(-1), et.name)
    else:
        flat = [fmt(x) for x in array.reshape(-1)]
    if rank == 1:
        return "{" + ", ".join(flat) + "}"
    out: list[str] = []
    _nest(out, flat, dims, 0, [], rank)
    return "".join(out)


def _nest(out: list[str], flat: list[str], dims: tuple[int, ...], offset: int,
          index: list[int], rank: int) -> int:
    """Append one brace level (XLA's print_recursive, oneline); returns the next offset."""
    rest = dims[len(index):]
    n = rest[0]
    if len(rest) == 1:  # innermost level of a rank >= 2 array
        pad = "" if n <= 1 else " "
        out.append("{" + pad + ", ".join(flat[offset:offset + n]) + pad + "}")
        return offset + n
    if rank > 3 and index:
        out.append(f"{{ /*i{len(index) - 1}={index[-1]}*/" + (" " if n > 0 else ""))
    else:
        out.append("{ ")
    for i in range(n):
        index.append(i)
        offset = _nest(out, flat, dims, offset, index, rank)
        index.pop()
        if i < n - 1:
            out.append(", ")
    out.append(" }")
    return offset


def format_literal(literal: Literal) -> str:
    """The payload inside `constant(...)`: values, `{...}` when elided, `( a, b )` for tuples."""
    if literal.elements is not None:
        return "( " + ", ".join(format_literal(e) for e in literal.elements) + " )"
    shape = literal.shape
    if shape.element_type is not None and not shape.element_type.is_array:
        return ""  # token/opaque constants carry no value (the parser accepts `constant()`)
    if literal.elided or literal.array is None:
        return "{...}"
    return _format_array(np.asarray(literal.array), shape)
