"""MLIR attribute values -> Python values, and `dense<...>` constants -> HLO literal text.

Values: NUMBER -> int/float, `[..]` -> list, `array<i64: 1, 2>` -> [1, 2], `true`/`false` -> bool,
a string -> str, `#stablehlo<comparison_direction LT>` -> 'LT', `#stablehlo.dot<k = [..], ...>`
-> {'k': [...]}; `dense<...> : tensor<..>` -> the nested list (index arrays such as padding).
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from hlotools.text.stablehlo.syntax import Group, Item
from hlotools.text.stablehlo.types import TensorType, parse_type, split_top


class AttrError(Exception):
    """A malformed attribute value; pos is an offset in the source (or -1: the op's place)."""

    def __init__(self, message: str, pos: int = -1) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos


_HASH_ENUM = re.compile(r"#(?:stablehlo|chlo|mhlo)<\s*([a-z_]+)\s+(\w+)\s*>$")
_DIMS = re.compile(r"tensor<((?:\d+x)*)")
_NUMBER = re.compile(r"-?(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)$")


def number(text: str) -> int | float:
    if text.startswith(("0x", "-0x")):
        return int(text, 16)
    if "." in text or "e" in text or "E" in text:
        return float(text)
    return int(text)


def value(items: list[Item]) -> Any:
    """The value of `key = VALUE [: type]` (the items after '=')."""
    if not items:
        raise AttrError("expected an attribute value")
    typed: str | None = None
    if len(items) >= 3 and isinstance(items[1], tuple) and items[1][0] == "COLON":
        if isinstance(items[2], tuple) and items[2][0] == "TYPE":
            typed = items[2][1]
        items = items[:1]  # `1 : i64`, `dense<..> : tensor<..>`: the value; its type is the op's
    first = items[0]
    if isinstance(first, Group):
        if first.kind == "[":
            return [value(chunk) for chunk in split_items(first.items)]
        if first.kind == "{":
            return attr_dict(first)
        if len(items) >= 3 and isinstance(items[1], tuple) and items[1][0] == "ARROW":
            return function_type(first, items[2])
        raise AttrError("unexpected '(' in an attribute value", first.pos)
    if not isinstance(first, tuple):
        raise AttrError("a region is not an attribute value", first.pos)
    kind, text, pos = first[0], first[1], first[2]
    if kind == "NUMBER":
        return number(text)
    if kind == "STRING":
        return unquote(text)
    if kind == "BARE":
        return {"true": True, "false": False}.get(text, text)
    if kind == "DENSE":
        return Dense(text, pos, typed) if text.startswith("dense") else dense_value(text, pos)
    if kind == "HASH":
        return hash_value(text, pos)
    if kind == "SYMBOL":
        return text[1:].strip('"')
    if kind == "TYPE":
        return parse_type(text)
    return text


class Dense:
    """A `dense<...>` / `dense_resource<...>` attribute, decoded only when asked: a constant's
    values go to HLO literal text (dense_literal), an index attribute's to lists (values)."""

    def __init__(self, text: str, pos: int, type_text: str | None = None) -> None:
        self.text = text
        self.pos = pos
        self.type_text = type_text

    def values(self) -> Any:
        """Nested lists; a splat (`dense<1> : tensor<2xi64>`, the pre-array<> spelling of index
        attributes) is expanded to its type's shape."""
        v = dense_value(self.text, self.pos)
        m = _DIMS.match(self.type_text or "")
        if not isinstance(v, list) and m is not None:
            dims = [int(d) for d in m.group(1).split("x")[:-1]]  # any element type: index lists are `index`
            for d in reversed(dims):
                v = [v] * d
        return v


def function_type(ins: Group, out: Item) -> tuple[list[TensorType], list[TensorType]]:
    """`(tensor<f32>) -> (tensor<f32>, tensor<i32>)` (a generic func.func's function_type)."""
    def types(items: list[Item]) -> list[TensorType]:
        return [parse_type(c[0][1]) for c in split_items(items) if c and isinstance(c[0], tuple)]
    outs: list[Item] = out.items if isinstance(out, Group) else [out]
    return types(ins.items), types(outs)


def unquote(text: str) -> str:
    body = text[1:-1]
    if "\\" not in body:
        return body
    return re.sub(r"\\(\\|\"|n|t|[0-9a-fA-F]{2})", _unescape, body)


def _unescape(m: re.Match) -> str:
    s = m.group(1)
    return {"\\": "\\", '"': '"', "n": "\n", "t": "\t"}.get(s) or chr(int(s, 16))


def split_items(items: list[Item]) -> list[list[Item]]:
    """Items split at top-level commas (an empty list for no items)."""
    out: list[list[Item]] = []
    cur: list[Item] = []
    for it in items:
        if isinstance(it, tuple) and it[0] == "COMMA":
            out.append(cur)
            cur = []
        else:
            cur.append(it)
    if cur or out:
        out.append(cur)
    return out


def attr_dict(group: Group) -> dict[str, Any]:
    """`{k = v, k2 = v2 : i64, unit_attr}` -> dict (a unit attribute is True)."""
    out: dict[str, Any] = {}
    for chunk in split_items(group.items):
        if not chunk:
            continue
        key = chunk[0]
        if not isinstance(key, tuple) or key[0] not in ("BARE", "STRING"):
            raise AttrError("expected an attribute name", getattr(key, "pos", None) or key[2])  # type: ignore[index]
        name = unquote(key[1]) if key[0] == "STRING" else key[1]
        if len(chunk) == 1:
            out[name] = True
            continue
        if not (isinstance(chunk[1], tuple) and chunk[1][0] == "EQ"):
            raise AttrError(f"expected '=' after attribute name '{name}'", key[2])
        out[name] = value(chunk[2:])
    return out


def dense_value(text: str, pos: int) -> Any:
    """array<i64: 1, 2> -> [1, 2]; dense<[[0, 0], [1, 1]]> -> nested lists; dense<5> -> 5."""
    open_at = text.index("<")
    word, inner = text[:open_at], text[open_at + 1:-1].strip()
    if word == "array":
        _, _, rest = inner.partition(":")
        rest = rest.strip()
        if not rest:
            return []
        return [_scalar(p, pos) for p in rest.split(",")]
    if word == "dense":
        return _nested(inner, pos) if inner else []
    raise AttrError(f"unsupported attribute '{word}<...>'", pos)


def _nested(text: str, pos: int) -> Any:
    text = text.strip()
    if text.startswith("["):
        body = text[1:-1].strip()
        return [_nested(p, pos) for p in split_top(body)] if body else []
    return _scalar(text, pos)


def _scalar(text: str, pos: int) -> Any:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if not _NUMBER.match(text):
        raise AttrError(f"expected a number, but found '{text[:40]}'", pos)
    return number(text)


def hash_value(text: str, pos: int) -> Any:
    """`#stablehlo<precision DEFAULT>` -> 'DEFAULT'; `#stablehlo.x<k = v, ...>` -> dict; `#sdy.*<...>`
    and aliases (`#loc3`) as written."""
    m = _HASH_ENUM.match(text)
    if m is not None:
        return m.group(2)
    if "<" not in text or text.startswith("#sdy."):  # Shardy attributes are read by sdy.py
        return text  # an alias (#loc3, #map): kept as written
    inner = text[text.index("<") + 1:-1]
    return struct(inner, pos)


def struct(inner: str, pos: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in split_top(inner):
        if not part:
            continue
        key, eq, rest = part.partition("=")
        if not eq:
            out[part.strip()] = True
            continue
        out[key.strip()] = _struct_value(rest.strip(), pos)
    return out


def _struct_value(text: str, pos: int) -> Any:
    if text.startswith("["):
        body = text[1:-1].strip()
        return [_struct_value(p, pos) for p in split_top(body)] if body else []
    if _NUMBER.match(text):
        return number(text)
    if text in ("true", "false"):
        return text == "true"
    if text.startswith("#"):
        return hash_value(text, pos)
    return text


# -- constants --------------------------------------------------------------------------------
def dense_literal(text: str, ttype: TensorType, pos: int, resources: dict[str, bytes]) -> str:
    """The HLO literal text of `dense<...>` / `dense_resource<name>` with type ttype."""
    from hlotools.ir.literal import Literal
    from hlotools.ir.shape_text import array_shape
    from hlotools.text.literal_format import format_float, format_literal

    open_at = text.index("<")
    word, inner = text[:open_at], text[open_at + 1:-1].strip()
    if not ttype.dims and word == "dense" and inner[:1] not in ('"', "[") and "0x" not in inner:
        return inner  # a scalar: the commonest constant
    shape = array_shape(ttype.text)
    if word == "dense_resource":
        blob = resources.get(inner)
        if blob is None:
            raise AttrError(f"dense_resource '{inner}' is not in the file's dialect_resources section", pos)
        return format_literal(Literal.from_array(shape, _from_bytes(blob[4:], shape, pos)))
    if word != "dense":
        raise AttrError(f"unsupported constant '{word}<...>'", pos)
    if inner.startswith('"0x'):
        return format_literal(Literal.from_array(shape, _from_bytes(bytes.fromhex(inner[3:-1]), shape, pos)))
    et = ttype.element
    if "0x" in inner and et[0] in "fbc":  # hex-spelled floats (inf, nan, exact bits) among decimals
        ft = {"c64": "f32", "c128": "f64"}.get(et, et)  # a complex constant's parts
        inner = re.sub(r"-?0x[0-9a-fA-F]+", lambda m: format_float(_bits(m.group(), ft), ft), inner)
    if not inner.startswith("["):
        element = inner
        if not ttype.dims:
            return element
        out = element
        for d in reversed(ttype.dims):
            out = "{" + ", ".join([out] * d) + "}"
        return out
    return inner.replace("[", "{").replace("]", "}")


def _bits(text: str, element: str) -> Any:
    from hlotools.ir.types import ELEMENT_TYPES
    dtype = ELEMENT_TYPES[element].dtype
    assert dtype is not None
    raw = int(text, 16) & ((1 << (8 * dtype.itemsize)) - 1)
    return np.frombuffer(raw.to_bytes(dtype.itemsize, "little"), dtype=dtype)[0]


def _from_bytes(blob: bytes, shape: Any, pos: int) -> np.ndarray:
    dtype = shape.dtype
    n = int(np.prod(shape.dims)) if shape.dims else 1
    if shape.element_type.kind == "pred":
        dtype = np.dtype(np.uint8)
    size = np.dtype(dtype).itemsize
    if len(blob) == size and n != 1:  # a splat
        arr = np.full(n, np.frombuffer(blob, dtype=dtype)[0])
    elif len(blob) == size * n:
        arr = np.frombuffer(blob, dtype=dtype)
    else:
        raise AttrError(f"a hex constant of {len(blob)} bytes does not fill {shape.to_text(False)}", pos)
    return arr.astype(shape.dtype) if shape.element_type.kind == "pred" else arr


__all__ = ["AttrError", "Dense", "attr_dict", "dense_literal", "dense_value", "hash_value", "number", "split_items",
           "unquote", "value"]
