"""XLA's element types with their numpy (ml_dtypes) counterparts.

The name is XLA's lowercase text name; `kind` groups types the way shape inference and the
interpreter ask about them.

ml_dtypes (bf16, f8*, f6*, f4*, s4/u4, s1/s2/u1/u2) is imported the first time one of those
types' `dtype` is asked for, not with this module: its import takes 0.8-2 s in some versions
(0.7.0), which every `hlo-opt` call on an f32 module would pay otherwise.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np


class _Narrow(NamedTuple):
    """Storage in ml_dtypes: its attribute name, and the numpy type to use when the installed
    ml_dtypes lacks it (None: no storage, as for an f8 type older versions do not have)."""
    attr: str
    fallback: np.dtype | None = None


@dataclass(frozen=True)
class ElementType:
    """An HLO element type and its numpy/ml_dtypes counterpart."""
    name: str
    kind: str  # 'pred' | 'signed' | 'unsigned' | 'float' | 'complex' | 'token' | 'opaque'
    bits: int
    storage: np.dtype | _Narrow | None  # a numpy dtype, an ml_dtypes type, None for token/opaque

    @cached_property
    def dtype(self) -> np.dtype | None:
        """The numpy / ml_dtypes storage type; None for token/opaque."""
        if not isinstance(self.storage, _Narrow):
            return self.storage
        dtype = _ml_dtype(self.storage)
        if dtype is not None and self.name not in _SUB_BYTE_ALIASES:
            _BY_DTYPE.setdefault(dtype, self)
        return dtype

    def __reduce__(self) -> tuple:
        return element_type, (self.name,)  # unpickled as the table's own instance

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name

    @cached_property  # (an element type never changes; passes ask per operand)
    def is_integer(self) -> bool:
        return self.kind in ("signed", "unsigned")

    @cached_property
    def is_float(self) -> bool:
        return self.kind == "float"

    @cached_property
    def is_complex(self) -> bool:
        return self.kind == "complex"

    @cached_property
    def is_array(self) -> bool:
        return self.kind not in ("token", "opaque")

    @property
    def byte_size(self) -> int:
        return max(1, (self.bits + 7) // 8)


def _ml_dtype(narrow: _Narrow) -> np.dtype | None:
    import ml_dtypes

    obj = getattr(ml_dtypes, narrow.attr, None)
    return narrow.fallback if obj is None else np.dtype(obj)


def _dt(name: str, fallback: type | None = None) -> _Narrow:
    return _Narrow(name, None if fallback is None else np.dtype(fallback))


_TABLE: list[tuple[str, str, int, np.dtype | _Narrow | None]] = [
    ("pred", "pred", 8, np.dtype(np.bool_)),
    ("s1", "signed", 1, _dt("int1", np.int8)),
    ("s2", "signed", 2, _dt("int2", np.int8)),
    ("s4", "signed", 4, _dt("int4")),
    ("s8", "signed", 8, np.dtype(np.int8)),
    ("s16", "signed", 16, np.dtype(np.int16)),
    ("s32", "signed", 32, np.dtype(np.int32)),
    ("s64", "signed", 64, np.dtype(np.int64)),
    ("u1", "unsigned", 1, _dt("uint1", np.uint8)),
    ("u2", "unsigned", 2, _dt("uint2", np.uint8)),
    ("u4", "unsigned", 4, _dt("uint4")),
    ("u8", "unsigned", 8, np.dtype(np.uint8)),
    ("u16", "unsigned", 16, np.dtype(np.uint16)),
    ("u32", "unsigned", 32, np.dtype(np.uint32)),
    ("u64", "unsigned", 64, np.dtype(np.uint64)),
    ("f16", "float", 16, np.dtype(np.float16)),
    ("bf16", "float", 16, _dt("bfloat16")),
    ("f32", "float", 32, np.dtype(np.float32)),
    ("f64", "float", 64, np.dtype(np.float64)),
    ("f8e5m2", "float", 8, _dt("float8_e5m2")),
    ("f8e4m3", "float", 8, _dt("float8_e4m3")),
    ("f8e4m3fn", "float", 8, _dt("float8_e4m3fn")),
    ("f8e4m3b11fnuz", "float", 8, _dt("float8_e4m3b11fnuz")),
    ("f8e3m4", "float", 8, _dt("float8_e3m4")),
    ("f8e5m2fnuz", "float", 8, _dt("float8_e5m2fnuz")),
    ("f8e4m3fnuz", "float", 8, _dt("float8_e4m3fnuz")),
    ("f8e8m0fnu", "float", 8, _dt("float8_e8m0fnu")),
    ("f4e2m1fn", "float", 4, _dt("float4_e2m1fn")),
    ("f6e3m2fn", "float", 6, _dt("float6_e3m2fn")),
    ("f6e2m3fn", "float", 6, _dt("float6_e2m3fn")),
    ("c64", "complex", 64, np.dtype(np.complex64)),
    ("c128", "complex", 128, np.dtype(np.complex128)),
    ("token", "token", 0, None),
    ("opaque", "opaque", 0, None),
]

ELEMENT_TYPES: dict[str, ElementType] = {n: ElementType(n, k, b, d) for n, k, b, d in _TABLE}
# XLA accepts `opaque_type` as a spelling of `opaque`.
ELEMENT_TYPES["opaque_type"] = ELEMENT_TYPES["opaque"]

PRED = ELEMENT_TYPES["pred"]
S32 = ELEMENT_TYPES["s32"]
U32 = ELEMENT_TYPES["u32"]
U64 = ELEMENT_TYPES["u64"]
F32 = ELEMENT_TYPES["f32"]
TOKEN = ELEMENT_TYPES["token"]

# s1/s2/u1/u2 share their storage with s8/u8 (or another type) when ml_dtypes lacks their own.
_SUB_BYTE_ALIASES = frozenset({"s1", "s2", "u1", "u2"})
# numpy's own types here; an ml_dtypes type enters when its ElementType.dtype is first asked for.
_BY_DTYPE: dict[np.dtype, ElementType] = {}
for _et in ELEMENT_TYPES.values():
    if isinstance(_et.storage, np.dtype) and _et.name not in _SUB_BYTE_ALIASES:
        _BY_DTYPE.setdefault(_et.storage, _et)


def element_type(name: str) -> ElementType:
    return ELEMENT_TYPES[name]


def from_dtype(dtype: np.dtype) -> ElementType:
    """The XLA element type whose storage is `dtype` (KeyError when there is none)."""
    dtype = np.dtype(dtype)
    if dtype not in _BY_DTYPE:  # an ml_dtypes type (it is imported, then): resolve them all
        for et in ELEMENT_TYPES.values():
            et.dtype  # noqa: B018 - resolving enters it in _BY_DTYPE
    return _BY_DTYPE[dtype]


def int_limits(et: ElementType) -> tuple[int, int]:
    """The least and greatest value of the integer type `et` (two's complement when signed)."""
    if et.kind == "signed":
        return -(1 << (et.bits - 1)), (1 << (et.bits - 1)) - 1
    return 0, (1 << et.bits) - 1


def as_type(value: float | np.ndarray, et: ElementType) -> np.ndarray:
    """`value` converted to the float type `et` as XLA's literals do (static_cast through
    ml_dtypes: overflow gives inf, or NaN for the fn/fnuz types, or saturates for the
    4/6-bit types that have neither)."""
    assert et.dtype is not None
    with np.errstate(all="ignore"):
        return np.asarray(value, np.float64).astype(et.dtype)


# -- limits --------------------------------------------------------------------------------------
# How big an input may make hlotools: XLA's own limits on shapes, and caps on what a run allocates.
#
# A tiny file can name an enormous array (`f32[1000000,1000000]`, a zero-filled
# `s32[536870912] constant(7)`, a .npy header claiming 373 GiB). XLA rejects shapes whose
# dimensions, element count or byte size do not fit in int64 (ShapeUtil::ValidateShape:
# "Dimensions overflow", "size may overflow int64_t"); those checks are here as facts. Beyond
# them, hlotools refuses *before allocating* to materialise more than a cap, so bad input ends in a
# one-line error instead of a MemoryError or an exhausted machine. The caps are far above what real
# modules use (the JAX corpus and the benchmarks stay well under them) and can be raised in the
# environment:
#
#   HLOTOOLS_MAX_ARRAY_BYTES          one array a run allocates (inputs, results, intermediates);
#                                     default 16 GiB
#   HLOTOOLS_MAX_CONSTANT_FILL_BYTES  the zero fill of a constant whose text gives fewer values
#                                     than its shape holds (XLA zero-fills the rest); default 64 MiB.
#                                     Values the text spells out are never capped: they cost text.

INT64_MAX = (1 << 63) - 1
# Tuple nesting, in shapes and literals: XLA sets no limit, but every walk over a shape is
# recursive (here and in XLA); real modules nest a few levels. Far deeper nesting is refused.
MAX_TUPLE_DEPTH = 100

_GIB = 1 << 30
_MIB = 1 << 20
DEFAULT_MAX_ARRAY_BYTES = 16 * _GIB
DEFAULT_MAX_CONSTANT_FILL_BYTES = 64 * _MIB
ARRAY_BYTES_ENV = "HLOTOOLS_MAX_ARRAY_BYTES"
CONSTANT_FILL_ENV = "HLOTOOLS_MAX_CONSTANT_FILL_BYTES"


def _env_bytes(name: str, default: int) -> int:
    """A byte count from the environment (plain integer, or with a K/M/G/T suffix); bad text
    keeps the default rather than failing every command."""
    raw = os.environ.get(name, "").strip().upper().removesuffix("B").removesuffix("I")
    if not raw:
        return default
    scale = 1
    if raw[-1] in "KMGT":
        scale = 1 << (10 * ("KMGT".index(raw[-1]) + 1))
        raw = raw[:-1]
    try:
        return max(0, int(raw)) * scale
    except ValueError:
        return default


def max_array_bytes() -> int:
    return _env_bytes(ARRAY_BYTES_ENV, DEFAULT_MAX_ARRAY_BYTES)


def max_constant_fill_bytes() -> int:
    return _env_bytes(CONSTANT_FILL_ENV, DEFAULT_MAX_CONSTANT_FILL_BYTES)


def human_bytes(n: int) -> str:
    """1536 -> '1.5 KiB': sizes in messages."""
    value = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{n} bytes" if unit == "bytes" else f"{value:.3g} {unit}"
        value /= 1024
    return f"{n} bytes"  # pragma: no cover - the loop always returns


def shape_size_error(dims: tuple[int, ...], bits: int, what: str) -> str | None:
    """XLA's ValidateShape on array dims: why `what` (e.g. "shape 'f32[2]'") does not fit int64,
    or None when it does. Unbounded dynamic dims (-1) count as 0 elements, as in XLA."""
    for d in dims:
        if d > INT64_MAX:
            return f"dimension size {d} in {what} does not fit in int64 (at most {INT64_MAX})"
    count = 1
    for d in dims:
        count *= max(d, 0)
        if count > INT64_MAX:
            return f"the element count of {what} overflows int64 (XLA: Dimensions overflow)"
    if (count * bits + 7) // 8 > INT64_MAX:
        return f"the byte size of {what} overflows int64 (XLA: size may overflow int64_t)"
    return None


def array_bytes_error(what: str, nbytes: int) -> str | None:
    """Why `what` (an instruction, a parameter, a file) may not allocate nbytes, or None."""
    cap = max_array_bytes()
    if nbytes <= cap:
        return None
    return (f"{what} would take {human_bytes(nbytes)}, more than hlotools allocates for one array "
            f"({human_bytes(cap)}; raise it with {ARRAY_BYTES_ENV})")
