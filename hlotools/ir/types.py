"""XLA's element types with their numpy (ml_dtypes) counterparts.

The name is XLA's lowercase text name; `kind` groups types the way shape inference and the
interpreter ask about them.
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class ElementType:
    """An HLO element type and its numpy/ml_dtypes counterpart."""
    name: str
    kind: str  # 'pred' | 'signed' | 'unsigned' | 'float' | 'complex' | 'token' | 'opaque'
    bits: int
    dtype: np.dtype | None  # numpy / ml_dtypes storage type; None for token/opaque

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return self.name

    @property
    def is_integer(self) -> bool:
        return self.kind in ("signed", "unsigned")

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_complex(self) -> bool:
        return self.kind == "complex"

    @property
    def is_array(self) -> bool:
        return self.kind not in ("token", "opaque")

    @property
    def byte_size(self) -> int:
        return max(1, (self.bits + 7) // 8)


def _dt(name: str) -> np.dtype | None:
    obj = getattr(ml_dtypes, name, None)
    return None if obj is None else np.dtype(obj)


_TABLE: list[tuple[str, str, int, np.dtype | None]] = [
    ("pred", "pred", 8, np.dtype(np.bool_)),
    ("s1", "signed", 1, _dt("int1") or np.dtype(np.int8)),
    ("s2", "signed", 2, _dt("int2") or np.dtype(np.int8)),
    ("s4", "signed", 4, _dt("int4")),
    ("s8", "signed", 8, np.dtype(np.int8)),
    ("s16", "signed", 16, np.dtype(np.int16)),
    ("s32", "signed", 32, np.dtype(np.int32)),
    ("s64", "signed", 64, np.dtype(np.int64)),
    ("u1", "unsigned", 1, _dt("uint1") or np.dtype(np.uint8)),
    ("u2", "unsigned", 2, _dt("uint2") or np.dtype(np.uint8)),
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

_BY_DTYPE: dict[np.dtype, ElementType] = {}
for _et in ELEMENT_TYPES.values():
    if _et.dtype is not None and _et.name not in ("s1", "s2", "u1", "u2") and _et.dtype not in _BY_DTYPE:
        _BY_DTYPE[_et.dtype] = _et


def element_type(name: str) -> ElementType:
    return ELEMENT_TYPES[name]


def from_dtype(dtype: np.dtype) -> ElementType:
    """The XLA element type whose storage is `dtype` (KeyError when there is none)."""
    return _BY_DTYPE[np.dtype(dtype)]
