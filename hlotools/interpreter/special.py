"""erf as XLA CPU computes it, bit for bit, in numpy (no scipy dependency).

XLA's erf intrinsic (xla/codegen/intrinsic/erf.cc) has two halves:
- f32 (and f16/bf16, computed in f32): Eigen's rational interpolant p(x)/q(x), both
  polynomials in x^2 evaluated with llvm.fma, +-1 from |x| >= 3.8325; replayed here with an
  exact f32 fma.
- f64: a call to the C library's `erf`, i.e. glibc's. Up to glibc 2.40 that is fdlibm's s_erf.c
  (Sun's rational approximations on five ranges, Shimizu's evaluation order), whose tail range
  calls glibc's exp; on x86-64 that exp is the FMA build wherever the CPU has FMA (every x86
  since 2013). Both are replayed here step by step (every operation rounds as the compiled C
  does, fma where GCC contracts), so the interpreter's answer is the same on every host.
  glibc 2.41 replaced erf by a correctly rounded one: on such a host XLA's f64 erf may differ
  from this one by an ulp.
"""
from __future__ import annotations

from decimal import Decimal, localcontext
from functools import cache

import numpy as np

F32, F64, U64 = np.float32, np.float64, np.uint64
Num = np.ndarray | np.floating | float  # an array or a scalar coefficient


# ------------------------------------------------------------------------------ exact fma

def fma32(a: Num, b: Num, c: Num) -> np.ndarray:
    """a * b + c rounded once to f32: the f64 product is exact, and the f64 sum rounded to odd
    (fixed from its exact error) cannot double-round on the way to f32."""
    a64, b64, c64 = (np.asarray(v, F64) for v in (a, b, c))
    s, e = _two_sum(a64 * b64, c64)
    return _to_odd(s, e).astype(F32)


def fma64(a: Num, b: Num, c: Num) -> np.ndarray:
    """a * b + c rounded once (Boldo and Melquiond's emulation: exact product, exact sum with
    c, the two low parts added rounding to odd, then one rounding to nearest)."""
    a, b, c = (np.asarray(v, F64) for v in np.broadcast_arrays(a, b, c))
    uh, ul = _two_prod(a, b)
    th, tl = _two_sum(c, uh)
    lo, err = _two_sum(tl, ul)
    return th + _to_odd(lo, err)


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(all="ignore"):
        s = a + b
        bb = s - a
        return s, (a - (s - bb)) + (b - bb)


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(all="ignore"):
        p = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = 134217729.0 * a  # Veltkamp: 2^27 + 1
    hi = c - (c - a)
    return hi, a - hi


def _to_odd(s: np.ndarray, err: np.ndarray) -> np.ndarray:
    """s (a rounded sum) moved one ulp towards the exact value when inexact and even."""
    bits = s.view(np.int64)
    fix = (err != 0) & ((bits & 1) == 0) & np.isfinite(s)
    step = np.where((err > 0) == (s > 0), 1, -1)
    return np.where(fix, (bits + step).view(F64), s)


# ---------------------------------------------------------------------------- f32: Eigen

_ALPHA = tuple(F32(c) for c in (1.128379143519084, 0.18520832239976145, 0.050955695062380861,
                                 0.0034082910107109506, 0.00022905065861350646))
_BETA = tuple(F32(c) for c in (1.0, 0.49746925110067538, 0.11098505178285362, 0.014070470171167667,
                                0.0010179625278914885, 0.000023547966471313185, -1.1791602954361697e-7))
_ERF_ONE = F32(3.832506856900711)  # erfinv(1 - ulp/2): erf is +-1 from here on


def erf_f32(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, F32)
    with np.errstate(all="ignore"):
        x2 = x * x
        p = fma32(x2, _ALPHA[4], _ALPHA[3])
        for a in reversed(_ALPHA[:3]):
            p = fma32(x2, p, a)
        p = x * p
        q = fma32(x2, _BETA[6], _BETA[5])
        for c in reversed(_BETA[:5]):
            q = fma32(x2, q, c)
        r = p / q
    return np.where(_ERF_ONE <= np.abs(x), np.copysign(F32(1.0), x), r)


# --------------------------------------------------------------------------- f64: glibc

def _words(*bits: int) -> tuple[np.float64, ...]:
    return tuple(np.array(bits, U64).view(F64))


@cache
def _exp_table() -> tuple[np.ndarray, np.ndarray]:
    """glibc's __exp_data.tab: 2^(k/128) ~= H[k] * (1 + T[k]); returns (asuint64(H[k]) -
    k << 45, T[k]). Computed (60 digits) rather than listed; the bits are glibc's."""
    heads, tails = [], []
    with localcontext() as ctx:
        ctx.prec = 60
        for k in range(128):
            v = Decimal(2) ** (Decimal(k) / 128)
            h = float(v)
            heads.append(int(np.array([h]).view(U64)[0]) - (k << 45))
            tails.append(float((v - Decimal(h)) / Decimal(h)))
    return np.array(heads, U64), np.array(tails, F64)


_INVLN2N = F64(float.fromhex("0x1.71547652b82fep0") * 128)
_NEGLN2HI = F64(float.fromhex("-0x1.62e42fefa0000p-8"))
_NEGLN2LO = F64(float.fromhex("-0x1.cf79abc9e3b3ap-47"))
_SHIFT = F64(float.fromhex("0x1.8p52"))
_EXP_C = tuple(F64(float.fromhex(h)) for h in ("0x1.ffffffffffdbdp-2", "0x1.555555555543cp-3",
                                                  "0x1.55555cf172b91p-5", "0x1.1111167a4d017p-7"))


def _glibc_exp(x: np.ndarray) -> np.ndarray:
    """glibc's exp (Szabolcs Nagy's, 2.28+), FMA build, for |x| < 512: all erf asks of it."""
    heads, tails = _exp_table()
    kd = fma64(_INVLN2N, x, _SHIFT)
    ki = kd.view(U64)
    kd = kd - _SHIFT
    r = fma64(kd, _NEGLN2LO, fma64(kd, _NEGLN2HI, x))
    idx = (ki % U64(128)).astype(np.int64)
    scale = (heads[idx] + (ki << U64(45))).view(F64)
    c2, c3, c4, c5 = _EXP_C
    r2 = r * r
    tmp = fma64(r2 * r2, fma64(r, c5, c4), fma64(r2, fma64(r, c3, c2), tails[idx] + r))
    return np.where(np.abs(x) < 2.0 ** -54, 1.0 + x, fma64(scale, tmp, scale))


# fdlibm s_erf.c's coefficients (their IEEE words, as the source lists them).
_EFX, _ERX = _words(0x3FC06EBA8214DB69, 0x3FEB0AC160000000)
_PP = _words(0x3FC06EBA8214DB68, 0xBFD4CD7D691CB913, 0xBF9D2A51DBD7194F, 0xBF77A291236668E4,
             0xBEF8EAD6120016AC)
_QQ = (0.0,) + _words(0x3FD97779CDDADC09, 0x3FB0A54C5536CEBA, 0x3F74D022C4D36B0F, 0x3F215DC9221C1A10,
                      0xBED09C4342A26120)
_PA = _words(0xBF6359B8BEF77538, 0x3FDA8D00AD92B34D, 0xBFD7D240FBB8C3F1, 0x3FD45FCA805120E4,
             0xBFBC63983D3E28EC, 0x3FA22A36599795EB, 0xBF61BF380A96073F)
_QA = (0.0,) + _words(0x3FBB3E6618EEE323, 0x3FE14AF092EB6F33, 0x3FB2635CD99FE9A7, 0x3FC02660E763351F,
                      0x3F8BEDC26B51DD1C, 0x3F888B545735151D)
_RA = _words(0xBF843412600D6435, 0xBFE63416E4BA7360, 0xC0251E0441B0E726, 0xC04F300AE4CBA38D,
             0xC0644CB184282266, 0xC067135CEBCCABB2, 0xC054526557E4D2F2, 0xC023A0EFC69AC25C)
_SA = (0.0,) + _words(0x4033A6B9BD707687, 0x4061350C526AE721, 0x407B290DD58A1A71, 0x40842B1921EC2868,
                      0x407AD02157700314, 0x405B28A3EE48AE2C, 0x401A47EF8E484A93, 0xBFAEEFF2EE749A62)
_RB = _words(0xBF84341239E86F4A, 0xBFE993BA70C285DE, 0xC031C209555F995A, 0xC064145D43C5ED98,
             0xC083EC881375F228, 0xC09004616A2E5992, 0xC07E384E9BDC383F)
_SB = (0.0,) + _words(0x403E568B261D5190, 0x40745CAE221B9F0A, 0x409802EB189D5118, 0x40A8FFB7688C246A,
                      0x40A3F219CEDF3BE6, 0x407DA874E79FE763, 0xC03670E242712D62)


def erf_f64(x: np.ndarray) -> np.ndarray:
    """fdlibm's erf range by range on the high word's |x| thresholds, as s_erf.c branches."""
    x = np.asarray(x, F64)
    hx = (x.view(U64) >> U64(32)).astype(np.uint32).view(np.int32).astype(np.int64)
    ix = hx & 0x7FFFFFFF
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        for lo, hi, part in ((0, 0x3E300000, _erf_tiny), (0x3E300000, 0x3FEB0000, _erf_small),
                             (0x3FEB0000, 0x3FF40000, _erf_near_one), (0x3FF40000, 0x40180000, _erf_tail)):
            m = (ix >= lo) & (ix < hi)
            if m.any():
                out[m] = part(x[m], ix[m])
        m = ix >= 0x40180000  # |x| >= 6: +-(1 - tiny); NaN and +-inf: +-1 + 1/x
        out[m] = np.copysign(1.0 - 1e-300, x[m]) + np.where(ix[m] >= 0x7FF00000, 1.0 / x[m], 0.0)
    return out


def _erf_tiny(x: np.ndarray, ix: np.ndarray) -> np.ndarray:  # |x| < 2^-28: x + efx x
    # below 2^-1015 s_erf.c scales by 16 first (no spurious underflow): other roundings
    return np.where(ix < 0x00800000, 0.0625 * (16.0 * x + (16.0 * _EFX) * x), x + _EFX * x)


def _erf_small(x: np.ndarray, ix: np.ndarray) -> np.ndarray:  # |x| < 0.84375: x + x R(x^2)
    z = x * x
    z2 = z * z
    z4 = z2 * z2
    r = (_PP[0] + z * _PP[1]) + z2 * (_PP[2] + z * _PP[3]) + z4 * _PP[4]
    s = (1.0 + z * _QQ[1]) + z2 * (_QQ[2] + z * _QQ[3]) + z4 * (_QQ[4] + z * _QQ[5])
    return x + x * (r / s)


def _erf_near_one(x: np.ndarray, ix: np.ndarray) -> np.ndarray:  # |x| < 1.25: erx + P/Q(|x| - 1)
    s = np.abs(x) - 1.0
    s2 = s * s
    s4 = s2 * s2
    s6 = s4 * s2
    p = (_PA[0] + s * _PA[1]) + s2 * (_PA[2] + s * _PA[3]) + s4 * (_PA[4] + s * _PA[5]) + s6 * _PA[6]
    q = (1.0 + s * _QA[1]) + s2 * (_QA[2] + s * _QA[3]) + s4 * (_QA[4] + s * _QA[5]) + s6 * _QA[6]
    return np.where(x >= 0, _ERX + p / q, -_ERX - p / q)


def _erf_tail(x: np.ndarray, ix: np.ndarray) -> np.ndarray:  # |x| < 6: 1 - exp(-x^2 - 0.5625 + R/S) / x
    a = np.abs(x)
    s = 1.0 / (a * a)
    s2 = s * s
    s4 = s2 * s2
    s6 = s4 * s2
    s8 = s4 * s4
    near = ix < 0x4006DB6E  # |x| < 1/0.35
    r = np.where(near,
                 (_RA[0] + s * _RA[1]) + s2 * (_RA[2] + s * _RA[3]) + s4 * (_RA[4] + s * _RA[5])
                 + s6 * (_RA[6] + s * _RA[7]),
                 (_RB[0] + s * _RB[1]) + s2 * (_RB[2] + s * _RB[3]) + s4 * (_RB[4] + s * _RB[5]) + s6 * _RB[6])
    q = np.where(near,
                 (1.0 + s * _SA[1]) + s2 * (_SA[2] + s * _SA[3]) + s4 * (_SA[4] + s * _SA[5])
                 + s6 * (_SA[6] + s * _SA[7]) + s8 * _SA[8],
                 (1.0 + s * _SB[1]) + s2 * (_SB[2] + s * _SB[3]) + s4 * (_SB[4] + s * _SB[5])
                 + s6 * (_SB[6] + s * _SB[7]))
    z = (a.view(U64) & U64(0xFFFFFFFF00000000)).view(F64)  # |x| with the low word cleared
    e = _glibc_exp(-z * z - 0.5625) * _glibc_exp((z - a) * (z + a) + r / q)
    return np.where(x >= 0, 1.0 - e / a, e / a - 1.0)


def erf(x: np.ndarray) -> np.ndarray:
    """XLA CPU's erf of an f64 or f32 array (narrower floats come here as f32)."""
    x = np.asarray(x)
    return erf_f64(x) if x.dtype == F64 else erf_f32(x.astype(F32))
