"""torch dtypes <-> HLO element types, and tensors <-> numpy arrays without copies.

One table (`_TYPES`) says which torch dtypes the front end runs and what HLO calls them;
bfloat16 has no numpy dtype of its own, so its tensors cross as int16 views reinterpreted
as ml_dtypes.bfloat16 (same bits, no copy)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import torch

from hlotools.errors import HloError

_TYPES: dict[torch.dtype, str] = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.int8: "s8", torch.int16: "s16", torch.int32: "s32", torch.int64: "s64", torch.uint8: "u8",
    torch.bool: "pred", torch.complex64: "c64",
}
_TORCH_OF: dict[str, torch.dtype] = {v: k for k, v in _TYPES.items()}


class UnsupportedDtype(HloError):
    """A tensor of a dtype the front end cannot run (named with the input it came from)."""


def supported(dtype: torch.dtype) -> bool:
    return dtype in _TYPES


def hlo_type(dtype: torch.dtype, what: str = "a value") -> str:
    """The HLO element type of `dtype`; `what` names the tensor in the error."""
    found = _TYPES.get(dtype)
    if found is None:
        names = ", ".join(str(t).removeprefix("torch.") for t in _TYPES)
        raise UnsupportedDtype(f"{what} has dtype {str(dtype).removeprefix('torch.')}, which hlotools "
                               f"cannot run (supported: {names})")
    return found


def torch_dtype(hlo: str) -> torch.dtype:
    return _TORCH_OF[hlo]


def is_float(hlo: str) -> bool:
    return hlo in ("f16", "bf16", "f32", "f64")


def is_complex(hlo: str) -> bool:
    return hlo == "c64"


def is_signed(hlo: str) -> bool:
    return hlo.startswith("s")


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A numpy view of `tensor`'s memory (made contiguous first when it is not dense)."""
    t = tensor.detach().resolve_conj().resolve_neg()  # (lazy conjugate / negative views: numpy reads memory)
    if t.requires_grad or not t.is_contiguous():
        t = t.contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def from_numpy(array: np.ndarray) -> torch.Tensor:
    """A tensor sharing `array`'s memory (bf16 through an int16 view)."""
    if not (array.flags.c_contiguous and array.flags.writeable):
        array = array.copy()  # (np.ascontiguousarray would make a 0-d array 1-d)
    if array.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)
