"""XLA CPU's f32 exp and tanh (Eigen's pexp / ptanh polynomials, which the LLVM backend's
emit_math emits too), replayed step by step in numpy f32 arithmetic: every multiply and add
rounds as the scalar instruction does (no fused multiply-add, no reassociation), so the
interpreter gives XLA's bits for the hot transcendentals (softmax, GELU, logistic) instead of
numpy's, whose SIMD loops differ from host to host. Values of f16/bf16 come here as f32.
"""
from __future__ import annotations

import numpy as np

F = np.float32
_EXP_POLY = tuple(F(c) for c in (1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
                                  5.0000001201e-1))
_TANH_ALPHA = tuple(F(c) for c in (4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05,
                                    5.12229709037114e-08, -8.60467152213735e-11, 2.00018790482477e-13,
                                    -2.76076847742355e-16))
_TANH_BETA = tuple(F(c) for c in (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04,
                                   1.19825839466702e-06))
_TANH_CLAMP = F(7.90531110763549805)


def _clamp(x: np.ndarray, lo: np.float32, hi: np.float32) -> np.ndarray:
    """NaN stays NaN (ordered compares are false for it), as emit_math._clamp's selects."""
    x = np.where(x < lo, lo, x)
    return np.where(x > hi, hi, x)


def _pow2(e: np.ndarray) -> np.ndarray:
    return ((e + 127).astype(np.int32) << 23).astype(np.int32).view(np.float32)


def exp_f32(x: np.ndarray) -> np.ndarray:
    x = _clamp(np.asarray(x, np.float32), F(-104.0), F(88.8))
    with np.errstate(all="ignore"):
        fx = np.floor(x * F(1.44269504088896341) + F(0.5))
        r = (x - fx * F(0.693359375)) - fx * F(-2.12194440e-4)
        y = np.full(r.shape, F(1.9875691500e-4), np.float32)
        for c in _EXP_POLY:
            y = y * r + c
        y = ((y * r) * r + r) + F(1.0)
        m = np.where(np.isnan(fx), F(0.0), fx).astype(np.int32)
        half = m >> 1
        return (y * _pow2(half)) * _pow2(m - half)


def tanh_f32(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float32)
    c = _clamp(x, -_TANH_CLAMP, _TANH_CLAMP)
    with np.errstate(all="ignore"):
        x2 = c * c
        p = np.full(x.shape, _TANH_ALPHA[-1], np.float32)
        for a in reversed(_TANH_ALPHA[:-1]):
            p = p * x2 + a
        p = p * c
        q = np.full(x.shape, _TANH_BETA[-1], np.float32)
        for bb in reversed(_TANH_BETA[:-1]):
            q = q * x2 + bb
        return np.where(np.abs(x) < F(0.0004), x, p / q)
