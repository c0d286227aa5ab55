"""MLIR types -> HLO shapes: `tensor<2x?x4xf32, #stablehlo.bounds<?, 8, ?>>` -> f32[2,<=8,4].

Element types follow XLA's MLIR->HLO translation (i1 -> pred, iN -> sN, uiN -> uN,
complex<f32> -> c64, f8E4M3FN -> f8e4m3fn); results are cached per type text (a module spells
few distinct types many times)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property


class TypeError_(Exception):
    """A type this front end cannot read; `offset` is relative to the type text."""

    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass(frozen=True)
class TensorType:
    """An HLO shape read from an MLIR type: element type, dims, bounded dims, or a tuple."""
    element: str  # HLO element type name ('token' for !stablehlo.token, '' for a tuple)
    dims: tuple[int, ...] = ()
    dynamic: tuple[bool, ...] = ()
    elements: tuple[TensorType, ...] | None = None  # a tuple's members

    @cached_property
    def text(self) -> str:
        if self.elements is not None:
            return "(" + ", ".join(e.text for e in self.elements) + ")"
        if self.element == "token":
            return "token[]"
        dims = ",".join(f"<={d}" if dyn else str(d) for d, dyn in zip(self.dims, self.dynamic))
        return f"{self.element}[{dims}]"

    @property
    def rank(self) -> int:
        return len(self.dims)

    def with_element(self, element: str) -> TensorType:
        return TensorType(element, self.dims, self.dynamic)


_INT = {"i1": "pred", "i2": "s2", "i4": "s4", "i8": "s8", "i16": "s16", "i32": "s32", "i64": "s64",
        "ui2": "u2", "ui4": "u4", "ui8": "u8", "ui16": "u16", "ui32": "u32", "ui64": "u64",
        "si8": "s8", "si16": "s16", "si32": "s32", "si64": "s64"}
_FLOAT = {"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64", "f8E4M3FN": "f8e4m3fn",
          "f8E5M2": "f8e5m2", "f8E4M3FNUZ": "f8e4m3fnuz", "f8E5M2FNUZ": "f8e5m2fnuz",
          "f8E4M3B11FNUZ": "f8e4m3b11fnuz", "f8E4M3": "f8e4m3", "f8E3M4": "f8e3m4",
          "f4E2M1FN": "f4e2m1fn", "f8E8M0FNU": "f8e8m0fnu"}
ELEMENT_TYPES = {**_INT, **_FLOAT, "complex<f32>": "c64", "complex<f64>": "c128"}
_TENSOR = re.compile(r"tensor<((?:(?:\d+|\?)x)*)([^,>]+(?:<[^>]*>)?)\s*(?:,\s*(.*))?>$", re.S)
_BOUNDS = re.compile(r"#stablehlo\.bounds<([^>]*)>$")
_CACHE: dict[str, TensorType] = {}


def parse_type(text: str) -> TensorType:
    """One MLIR type (a TYPE token, or a bare element type such as `f32`)."""
    t = _CACHE.get(text)
    if t is None:
        t = _CACHE[text] = _parse_type(text.strip())
    return t


def _parse_type(text: str) -> TensorType:
    if text == "!stablehlo.token":
        return TensorType("token")
    if text.startswith("tuple<"):
        inner = text[6:-1].strip()
        return TensorType("", elements=tuple(parse_type(p) for p in split_top(inner)) if inner else ())
    if text in ELEMENT_TYPES:  # a scalar spelled without tensor<> (block arguments may be)
        return TensorType(ELEMENT_TYPES[text])
    m = _TENSOR.match(text)
    if m is None:
        if text.startswith("tensor<*"):
            raise TypeError_("unranked tensors have no HLO shape", 7)
        raise TypeError_(f"expected a tensor type, but found '{text[:60]}'")
    dim_text, elem, encoding = m.group(1), m.group(2).strip(), m.group(3)
    if elem not in ELEMENT_TYPES:
        raise TypeError_(f"unsupported element type '{elem}'", m.start(2))
    parts = dim_text.split("x")[:-1] if dim_text else []
    dynamic = tuple(p == "?" for p in parts)
    dims = [0 if p == "?" else int(p) for p in parts]
    if any(dynamic):
        bounds = _bounds(encoding, len(parts))
        for i, dyn in enumerate(dynamic):
            if dyn:
                if bounds[i] is None:
                    raise TypeError_("a dynamic dimension needs a bound (#stablehlo.bounds<...>): XLA's HLO "
                                     "has bounded dynamic shapes only", m.start(1))
                dims[i] = bounds[i]  # type: ignore[assignment]
    return TensorType(ELEMENT_TYPES[elem], tuple(dims), dynamic)


def _bounds(encoding: str | None, rank: int) -> list[int | None]:
    m = _BOUNDS.match(encoding.strip()) if encoding else None
    if m is None:
        return [None] * rank
    parts = [p.strip() for p in m.group(1).split(",")]
    if len(parts) != rank:
        raise TypeError_(f"#stablehlo.bounds has {len(parts)} entries for a rank-{rank} tensor")
    return [None if p == "?" else int(p) for p in parts]


def split_top(text: str) -> list[str]:
    """Split at commas outside <...>, (...), [...] and {...}."""
    out: list[str] = []
    depth = 0
    start = 0
    for i, c in enumerate(text):
        if c in "<([{":
            depth += 1
        elif c in ">)]}" and not (c == ">" and i and text[i - 1] == "-"):
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return out


__all__ = ["ELEMENT_TYPES", "TensorType", "TypeError_", "parse_type", "split_top"]
