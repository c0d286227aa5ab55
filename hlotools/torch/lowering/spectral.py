"""Discrete Fourier transforms: torch's _fft_r2c, _fft_c2r and _fft_c2c as one HLO fft
over their dims (moved last, in torch's order: the last one is the halved one of the real
transforms). HLO's inverse transforms divide by the signal size and torch's do not, so the
normalization (none, 1/sqrt(n), 1/n) is applied as one factor after the transform."""
from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from hlotools.torch import ops
from hlotools.torch.builder import Value, ints
from hlotools.torch.lowering.context import Call, Context, arg, out_dims, out_type
from hlotools.torch.lowering.registry import lowers

aten = torch.ops.aten
BY_ROOT_N, BY_N = 1, 2  # torch's fft_norm_mode (0 is none)


def _fft(cx: Context, x: Value, kind: str, dims: Sequence[int], lengths: Sequence[int], dtype: str,
         out: Sequence[int], normalization: int, inverse: bool) -> Value:
    """`kind` over `dims` of x (lengths: the real-domain sizes), the result at torch's scale."""
    b = cx.b
    order = [d for d in range(x.rank) if d not in dims] + list(dims)
    moved = ops.transpose(b, x, order)
    shape = [out[d] for d in order]
    y = b.emit("fft", [moved], dtype, shape, f"fft_type={kind}, fft_length={ints(lengths)}")
    n = math.prod(lengths)
    # torch's scale over HLO's (whose inverses already divide by n)
    factor = {0: 1.0, BY_ROOT_N: 1 / math.sqrt(n), BY_N: 1 / n}[normalization] * (n if inverse else 1)
    if factor != 1.0:
        y = ops.binary(b, "multiply", y, ops.constant(b, factor, dtype))
    return ops.transpose(b, y, [order.index(d) for d in range(x.rank)])


def _dims(node: Call, rank: int) -> list[int]:
    return [d % rank for d in node.args[1]]


@lowers(aten._fft_r2c.default)
def fft_r2c(cx: Context, node: Call) -> Value:
    """onesided: HLO's RFFT; else the full FFT of x as complex."""
    x = cx.tensor(node.args[0])
    dims, out = _dims(node, x.rank), out_dims(node)
    lengths = [x.dims[d] for d in dims]
    if arg(node, 3, "onesided", True):
        return _fft(cx, x, "RFFT", dims, lengths, out_type(node), out, node.args[2], False)
    full = ops.convert(cx.b, x, out_type(node))
    return _fft(cx, full, "FFT", dims, lengths, out_type(node), out, node.args[2], False)


def _halved_input(node: Call) -> str | None:
    """HLO's IRFFT reads n//2 + 1 coefficients of the last dim, as torch's callers give it."""
    x = node.args[0].meta["val"]
    last = node.args[1][-1] % x.dim()
    return None if x.shape[last] == node.args[3] // 2 + 1 else "c2r input not of last_dim_size // 2 + 1"


@lowers(aten._fft_c2r.default, supports=_halved_input)
def fft_c2r(cx: Context, node: Call) -> Value:
    x = cx.tensor(node.args[0])
    dims, out = _dims(node, x.rank), out_dims(node)
    return _fft(cx, x, "IRFFT", dims, [out[d] for d in dims], out_type(node), out, node.args[2], True)


@lowers(aten._fft_c2c.default)
def fft_c2c(cx: Context, node: Call) -> Value:
    x = cx.tensor(node.args[0])
    dims, out = _dims(node, x.rank), out_dims(node)
    forward = bool(node.args[3])
    return _fft(cx, x, "FFT" if forward else "IFFT", dims, [x.dims[d] for d in dims], out_type(node), out,
                node.args[2], not forward)
