"""Complex elementwise functions as XLA CPU computes them, written once for both backends.

Each formula works on the real and imaginary parts through a small `RealOps` interface:
interpreter/complex_ops.NumpyOps evaluates it on arrays, the LLVM backend's
llvm_ir/complex_ops.IrOps emits it as IR. So both backends follow the same sequence of float
operations and differ only where a math-library call (exp, sin, atan2, ...) rounds
differently. The formulas are IR facts (the semantics of the opcodes on complex values), so
they live here, below both backends; constant folding in passes/ evaluates them too.

The formulas are the ones XLA (jaxlib 0.10) runs, read from its optimized HLO and LLVM IR
(`xla_ref.py --xla-flags=--xla_dump_to=DIR run`):
- exponential, log, log-plus-one, sqrt: HLO text goes through StableHLO, whose complex-math
  expander rewrites them into real ops (functional_algorithms: Dekker products for |z|^2 - 1,
  a hypot that keeps the last bit, scaling for huge |z|);
- tanh, tan, sine, cosine, exponential-minus-one, rsqrt, sign, abs, multiply, divide (Smith's
  algorithm with C99 Annex G's infinity cases), power and atan2: XLA's elemental emitter
  (elemental_ir_emitter.cc: EmitComplexTanh, EmitComplexRsqrt, EmitComplexAbs, ...);
- logistic: XLA's LogisticExpander, 1 / (1 + exp(-z)) in complex arithmetic.
XLA has no complex sinh/cosh ("UNIMPLEMENTED: unary complex op"); they are -i sin(iz) and
cos(iz) here, with the same building blocks.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import numpy as np

V = TypeVar("V")  # a real value (array or IR value)
P = Any  # a predicate of the backend
Parts = tuple[Any, Any]


class RealOps(Protocol[V]):
    """The float operations the formulas are made of (IEEE semantics, no reassociation)."""

    def c(self, v: float) -> V: ...
    def add(self, x: V, y: V) -> V: ...
    def sub(self, x: V, y: V) -> V: ...
    def mul(self, x: V, y: V) -> V: ...
    def div(self, x: V, y: V) -> V: ...
    def neg(self, x: V) -> V: ...
    def fabs(self, x: V) -> V: ...
    def copysign(self, x: V, y: V) -> V: ...
    def sqrt(self, x: V) -> V: ...
    def maximum(self, x: V, y: V) -> V: ...  # HLO maximum: the NaN operand quieted, x's if both
    def minimum(self, x: V, y: V) -> V: ...
    def fma(self, x: V, y: V, z: V) -> V: ...  # x * y + z rounded once
    def call(self, name: str, *args: V) -> V: ...  # exp log log1p expm1 sin cos atan2 pow
    def cmp(self, op: str, x: V, y: V) -> P: ...  # ordered ==, <, <=, >, >=; "one"; "uno"
    def and_(self, p: P, q: P) -> P: ...
    def or_(self, p: P, q: P) -> P: ...
    def not_(self, p: P) -> P: ...
    def select(self, p: P, x: V, y: V) -> V: ...


def _sel(o: RealOps[Any], p: P, x: Parts, y: Parts) -> Parts:
    return o.select(p, x[0], y[0]), o.select(p, x[1], y[1])


def _isnan(o: RealOps[Any], x: Any) -> P:
    return o.cmp("uno", x, x)


# ------------------------------------------------------------------ arithmetic

def add(o: RealOps[Any], x: Parts, y: Parts) -> Parts:
    return o.add(x[0], y[0]), o.add(x[1], y[1])


def multiply(o: RealOps[Any], x: Parts, y: Parts) -> Parts:
    """(ac - bd) + i(bc + ad) as XLA CPU's code computes it: its LLVM contracts each part's
    first product into the add (AllowFPOpFusion=Fast on an FMA host; the IR has fmul, fsub),
    ac - bd = fma(a, c, -bd), bc + ad = fma(b, c, ad). So an exact product that would overflow
    alone keeps its sign: (1.7e38 + 0.5i)(100 + inf i) is -inf + inf i, not NaN + inf i. Fused
    explicitly, so the same on every CPU."""
    (a, b), (c, d) = x, y
    return o.fma(a, c, o.neg(o.mul(b, d))), o.fma(b, c, o.mul(a, d))


def divide(o: RealOps[Any], x: Parts, y: Parts) -> Parts:
    """Smith's algorithm; when both parts come out NaN, C99 Annex G's cases: x / 0 is an
    infinity, inf / finite an infinity, finite / inf a zero."""
    (a, b), (c, d) = x, y
    r1 = o.div(c, d)
    den1 = o.add(d, o.mul(r1, c))
    q1 = o.div(o.add(o.mul(a, r1), b), den1), o.div(o.sub(o.mul(b, r1), a), den1)
    r2 = o.div(d, c)
    den2 = o.add(c, o.mul(r2, d))
    q2 = o.div(o.add(a, o.mul(b, r2)), den2), o.div(o.sub(b, o.mul(a, r2)), den2)
    q = _sel(o, o.cmp("<", o.fabs(c), o.fabs(d)), q1, q2)
    both_nan = o.and_(_isnan(o, q[0]), _isnan(o, q[1]))
    return _sel(o, both_nan, _divide_special(o, x, y, q), q)


def _unit_if_inf(o: RealOps[Any], v: Any) -> tuple[P, Any]:
    """(|v| == inf, copysign(|v| == inf ? 1 : 0, v))."""
    inf = o.cmp("==", o.fabs(v), o.c(np.inf))
    return inf, o.copysign(o.select(inf, o.c(1.0), o.c(0.0)), v)


def _divide_special(o: RealOps[Any], x: Parts, y: Parts, q: Parts) -> Parts:
    (a, b), (c, d) = x, y
    zero, inf = o.c(0.0), o.c(np.inf)
    zero_den = o.and_(o.and_(o.cmp("==", o.fabs(c), zero), o.cmp("==", o.fabs(d), zero)),
                      o.or_(o.not_(_isnan(o, a)), o.not_(_isnan(o, b))))
    sinf = o.copysign(inf, c)
    by_zero = o.mul(sinf, a), o.mul(sinf, b)
    a_inf, ua = _unit_if_inf(o, a)
    b_inf, ub = _unit_if_inf(o, b)
    c_inf, uc = _unit_if_inf(o, c)
    d_inf, ud = _unit_if_inf(o, d)
    finite_den = o.and_(o.cmp("one", o.fabs(c), inf), o.cmp("one", o.fabs(d), inf))
    finite_num = o.and_(o.cmp("one", o.fabs(a), inf), o.cmp("one", o.fabs(b), inf))
    inf_num = o.and_(o.or_(a_inf, b_inf), finite_den)
    big = (o.mul(o.add(o.mul(ua, c), o.mul(ub, d)), inf), o.mul(o.sub(o.mul(ub, c), o.mul(ua, d)), inf))
    inf_den = o.and_(finite_num, o.or_(c_inf, d_inf))
    small = (o.mul(o.add(o.mul(a, uc), o.mul(b, ud)), zero), o.mul(o.sub(o.mul(b, uc), o.mul(a, ud)), zero))
    return _sel(o, zero_den, by_zero, _sel(o, inf_num, big, _sel(o, inf_den, small, q)))


def power(o: RealOps[Any], x: Parts, y: Parts) -> Parts:
    """x^y = |x|^c e^(-d arg x) (cos q + i sin q), q = c arg x + d log|x|; 0^0 = 1, 1^y = 1,
    inf^real as a real power (XLA's EmitComplexPower)."""
    (a, b), (c, d) = x, y
    zero, one = o.c(0.0), o.c(1.0)
    r = abs_(o, x)
    theta = o.call("atan2", b, a)
    coeff = o.mul(o.call("pow", r, c), o.call("exp", o.mul(o.neg(d), theta)))
    q = o.add(o.mul(c, theta), o.mul(d, o.call("log", r)))
    v = o.mul(coeff, o.call("cos", q)), o.mul(coeff, o.call("sin", q))
    c0, d0, b0 = o.cmp("==", c, zero), o.cmp("==", d, zero), o.cmp("==", b, zero)
    unit = (one, zero)
    v = _sel(o, o.and_(o.and_(o.cmp("==", r, zero), d0), o.cmp("<=", zero, c)),
             (o.select(c0, one, zero), zero), v)
    v = _sel(o, o.and_(c0, d0), unit, v)
    v = _sel(o, o.and_(o.cmp("==", a, one), b0), unit, v)
    inf_real = o.and_(o.and_(o.cmp("==", a, o.c(np.inf)), b0), d0)
    v = _sel(o, o.and_(inf_real, o.cmp(">", c, zero)), (o.c(np.inf), zero), v)
    return _sel(o, o.and_(inf_real, o.cmp("<", c, zero)), (zero, zero), v)


def atan2(o: RealOps[Any], y: Parts, x: Parts) -> Parts:
    """-i log((x + i y) / sqrt(x^2 + y^2)) in complex arithmetic (the elemental sqrt and log)."""
    zero, one = o.c(0.0), o.c(1.0)
    s = _elemental_sqrt(o, add(o, multiply(o, x, x), multiply(o, y, y)))
    w = divide(o, add(o, x, multiply(o, (zero, one), y)), s)
    lg = (o.call("log", abs_(o, w)), o.call("atan2", w[1], w[0]))
    return multiply(o, (zero, o.c(-1.0)), lg)


# ------------------------------------------------------------ modulus and roots

def _abs_terms(o: RealOps[Any], z: Parts) -> tuple[Any, Any, Any]:
    """(min, max, 1 + (min/max)^2) of |re|, |im|: |z| = max sqrt(1 + (min/max)^2)."""
    ax, ay = o.fabs(z[0]), o.fabs(z[1])
    mx, mn = o.maximum(ax, ay), o.minimum(ax, ay)
    ratio = o.div(mn, mx)
    return mn, mx, o.add(o.mul(ratio, ratio), o.c(1.0))


def abs_(o: RealOps[Any], z: Parts) -> Any:
    """|z| without overflow; (0, 0), (inf, inf) and NaN parts give min(|re|, |im|)."""
    mn, mx, t = _abs_terms(o, z)
    r = o.mul(mx, o.sqrt(t))
    return o.select(_isnan(o, r), mn, r)


def sign(o: RealOps[Any], z: Parts) -> Parts:
    zz = o.and_(o.cmp("==", z[0], o.c(0.0)), o.cmp("==", z[1], o.c(0.0)))
    r = abs_(o, z)
    return _sel(o, zz, z, (o.div(z[0], r), o.div(z[1], r)))


def _rsqrt(o: RealOps[Any], x: Any) -> Any:
    return o.div(o.c(1.0), o.sqrt(x))


def rsqrt(o: RealOps[Any], z: Parts) -> Parts:
    """|z|^-1/2 (cos(-t/2) + i sin(-t/2)), t = arg z; 1/sqrt(0) = inf + NaN i."""
    a, b = z
    mn, mx, t = _abs_terms(o, z)
    r = o.mul(_rsqrt(o, mx), o.sqrt(_rsqrt(o, t)))
    r = o.select(_isnan(o, r), _rsqrt(o, mn), r)
    angle = o.mul(o.call("atan2", b, a), o.c(-0.5))
    re, im = o.mul(r, o.call("cos", angle)), o.mul(r, o.call("sin", angle))
    inf = o.c(np.inf)
    vanish = o.or_(o.and_(o.cmp("==", o.fabs(b), inf), _isnan(o, a)), o.cmp("==", o.fabs(a), inf))
    re = o.select(vanish, o.copysign(o.c(0.0), a), re)
    im = o.select(vanish, o.mul(o.copysign(o.c(0.0), b), o.c(-1.0)), im)
    zz = o.and_(o.cmp("==", a, o.c(0.0)), o.cmp("==", b, o.c(0.0)))
    return o.select(zz, inf, re), o.select(zz, o.c(np.nan), im)


def _elemental_sqrt(o: RealOps[Any], z: Parts) -> Parts:
    """XLA's EmitComplexSqrt (atan2 uses it; the sqrt opcode uses `sqrt` below)."""
    a, b = z
    zero, inf = o.c(0.0), o.c(np.inf)
    mn, mx, t = _abs_terms(o, z)
    r = o.mul(o.sqrt(mx), o.call("pow", t, o.c(0.25)))
    r = o.select(_isnan(o, r), mn, r)
    angle = o.mul(o.call("atan2", b, a), o.c(0.5))
    s = o.call("sin", angle)
    re = o.mul(r, o.call("cos", angle))
    im = o.select(o.cmp("==", s, zero), zero, o.mul(r, s))
    b_inf = o.cmp("==", o.fabs(b), inf)
    a_ninf = o.cmp("==", a, o.c(-np.inf))
    re = o.select(o.and_(a_ninf, o.cmp("one", o.fabs(b), inf)), zero, re)
    re = o.select(o.or_(b_inf, o.cmp("==", a, inf)), inf, re)
    im = o.select(_isnan(o, r), o.c(np.nan), im)
    im = o.select(o.or_(b_inf, a_ninf), o.copysign(inf, b), im)
    rz = o.cmp("==", r, zero)
    return o.select(rz, zero, re), o.select(rz, zero, im)


def _hypot(o: RealOps[Any], mx: Any, mn: Any) -> Any:
    """sqrt(mx^2 + mn^2) for mx >= mn >= 0, keeping the last bit when mn << mx."""
    r = o.div(mn, mx)
    r2 = o.mul(r, r)
    s = o.sqrt(o.add(r2, o.c(1.0)))
    tiny = o.and_(o.cmp("==", s, o.c(1.0)), o.cmp(">", r2, o.c(0.0)))
    h = o.select(tiny, o.add(mx, o.mul(o.mul(mx, r2), o.c(0.5))), o.mul(mx, s))
    return o.select(o.cmp("==", mx, mn), o.mul(mx, o.c(np.sqrt(2.0))), h)


def sqrt(o: RealOps[Any], z: Parts) -> Parts:
    """The principal root, functional_algorithms' complex sqrt (StableHLO's expander):
    u = sqrt((|x| + |z|) / 2), recomputed through sqrt(|x|), sqrt(|y|) when u under- or
    overflows. The sign test is y < 0, so on the cut sqrt(-1 - 0i) = +i (C99 and numpy: -i)."""
    x, y = z
    half, one, sqrt2, rsqrt2 = o.c(0.5), o.c(1.0), o.c(np.sqrt(2.0)), o.c(np.sqrt(0.5))
    ax, ay = o.fabs(x), o.fabs(y)
    eq = o.cmp("==", ax, ay)
    r = o.select(eq, one, o.select(o.cmp("<", ax, ay), o.div(ax, ay), o.div(ay, ax)))
    sax, say = o.sqrt(ax), o.sqrt(ay)
    u = o.sqrt(o.add(o.mul(_hypot(o, o.maximum(ax, ay), o.minimum(ax, ay)), half), o.mul(ax, half)))
    scaled = o.or_(o.cmp("==", u, o.c(0.0)), o.cmp("==", u, o.c(np.inf)))
    ar = o.fabs(r)
    h1 = _hypot(o, o.maximum(ar, one), o.minimum(ar, one))  # sqrt(1 + r^2)
    s_gt, s_le = o.sqrt(o.add(h1, one)), o.sqrt(o.add(r, h1))
    x_gt = o.cmp(">", ax, ay)
    big = o.select(x_gt, o.mul(sax, o.mul(s_gt, rsqrt2)), o.mul(say, o.mul(s_le, rsqrt2)))
    re = o.select(eq, o.mul(sax, o.c(float(np.sqrt((1 + np.sqrt(2.0)) / 2)))), o.select(scaled, big, u))
    ratio = o.select(eq, one, o.select(o.cmp("<", ax, ay), o.div(sax, say), o.div(say, sax)))
    im_big = o.select(x_gt, o.div(o.mul(say, ratio), o.mul(s_gt, sqrt2)), o.div(say, o.mul(s_le, sqrt2)))
    im = o.select(scaled, im_big, o.div(ay, o.mul(u, o.c(2.0))))
    im = o.select(eq, o.mul(say, o.c(float(np.sqrt((np.sqrt(2.0) - 1) / 2)))), im)
    y_neg = o.cmp("<", y, o.c(0.0))
    out_re = o.select(o.cmp(">=", x, o.c(0.0)), re, im)
    out_im = o.select(o.cmp("<", x, o.c(0.0)), o.select(y_neg, o.neg(re), re), o.select(y_neg, o.neg(im), im))
    return out_re, out_im


# ------------------------------------------------------------------ logarithms

def _square_low(o: RealOps[Any], v: Any, v2: Any, split: float) -> Any:
    """The rounding error of v2 = v*v (Dekker's product with Veltkamp's split)."""
    t = o.mul(v, o.c(split))
    hi = o.add(t, o.sub(v, t))
    lo = o.sub(v, hi)
    m = o.mul(hi, lo)
    return o.add(o.add(o.add(o.add(o.neg(v2), o.mul(hi, hi)), m), m), o.mul(lo, lo))


def _two_sum_err(o: RealOps[Any], s: Any, a: Any, b: Any) -> Any:
    """The rounding error of s = a + b (Knuth's two-sum)."""
    bv = o.sub(s, a)
    return o.add(o.sub(a, o.sub(s, bv)), o.sub(b, bv))


def _log_abs_ratio(o: RealOps[Any], x: Any, y: Any) -> Any:
    """log|z| as log(max) + log1p((min/max)^2) / 2 (no overflow for huge parts)."""
    ax, ay = o.fabs(x), o.fabs(y)
    mx, mn = o.maximum(ax, ay), o.minimum(ax, ay)
    r = o.select(o.cmp("==", mn, mx), o.c(1.0), o.div(mn, mx))
    return o.add(o.call("log", mx), o.mul(o.call("log1p", o.mul(r, r)), o.c(0.5)))


def log(o: RealOps[Any], z: Parts, split: float) -> Parts:
    """log|z| + i arg z; near |z| = 1, log|z| = log1p(|z|^2 - 1) / 2 with |z|^2 - 1 summed
    exactly from Dekker squares (functional_algorithms' complex log)."""
    x, y = z
    y2, x2 = o.mul(y, y), o.mul(x, x)
    gt = o.cmp(">", y2, x2)
    mxh, mnh = o.select(gt, y2, x2), o.select(gt, x2, y2)
    t1 = o.add(mxh, o.c(-1.0))
    t2 = o.add(t1, mnh)
    ylo, xlo = _square_low(o, y, y2, split), _square_low(o, x, x2, split)
    s1 = o.add(t2, ylo)
    s2 = o.add(s1, xlo)
    err = o.add(o.sub(mxh, mxh), o.sub(mnh, o.sub(t2, t1)))
    err = o.add(o.add(err, o.sub(ylo, o.sub(s1, t2))), o.sub(xlo, o.sub(s2, s1)))
    q = o.add(s2, err)
    near = o.cmp("<", o.fabs(q), o.c(0.5))
    re = o.select(near, o.mul(o.call("log1p", q), o.c(0.5)), _log_abs_ratio(o, x, y))
    return re, o.call("atan2", y, x)


def log1p(o: RealOps[Any], z: Parts, split: float, large: float) -> Parts:
    """log(1 + z): log1p(2x + x^2 + y^2) / 2 with the sum kept exact (Dekker squares and
    two-sums); log|1 + z| directly near z = -1 and by scaling for huge |z|."""
    x, y = z
    half, one = o.c(0.5), o.c(1.0)
    xp1 = o.add(x, one)
    y2, x2 = o.mul(y, y), o.mul(x, x)
    a1 = o.add(x, x)
    s1 = o.add(a1, y2)
    s2 = o.add(s1, x2)
    ylo, xlo = _square_low(o, y, y2, split), _square_low(o, x, x2, split)
    s3 = o.add(s2, ylo)
    s4 = o.add(s3, xlo)
    err = o.add(_two_sum_err(o, s1, a1, y2), _two_sum_err(o, s2, s1, x2))
    err = o.add(o.add(err, _two_sum_err(o, s3, s2, ylo)), _two_sum_err(o, s4, s3, xlo))
    exact = o.mul(o.call("log1p", o.add(s4, err)), half)
    near_minus_one = o.cmp("<", o.add(o.fabs(xp1), o.fabs(y)), o.c(0.2))
    direct = o.mul(o.call("log", o.add(o.mul(xp1, xp1), y2)), half)
    re = o.select(near_minus_one, direct, exact)
    huge = o.cmp(">", o.maximum(o.fabs(x), o.fabs(y)), o.c(large))
    return o.select(huge, _log_abs_ratio(o, x, y), re), o.call("atan2", y, xp1)


# ---------------------------------------------------------- exponential family

def exp(o: RealOps[Any], z: Parts) -> Parts:
    """e^x (cos y + i sin y); where e^x overflows, (e^(x/2) cos y) e^(x/2); y = 0 gives a
    zero imaginary part (inf * 0 would be NaN)."""
    x, y = z
    e = o.call("exp", x)
    big = o.cmp("==", e, o.c(np.inf))
    h = o.call("exp", o.mul(x, o.c(0.5)))
    cy, sy = o.call("cos", y), o.call("sin", y)
    re = o.select(big, o.mul(o.mul(h, cy), h), o.mul(e, cy))
    im = o.select(big, o.mul(o.mul(h, sy), h), o.mul(e, sy))
    return re, o.select(o.cmp("==", y, o.c(0.0)), o.c(0.0), im)


_COSM1 = (4.7377507964246204691685E-14, -1.1470284843425359765671E-11, 2.0876754287081521758361E-9,
          -2.7557319214999787979814E-7, 2.4801587301570552304991E-5, -1.3888888888888872993737E-3,
          4.1666666666666666609054E-2)


def _cosm1(o: RealOps[Any], y: Any) -> Any:
    """cos(y) - 1 without cancellation for small y (a Cephes polynomial in y^2)."""
    y2 = o.mul(y, y)
    p = o.c(_COSM1[0])
    for k in _COSM1[1:]:
        p = o.fma(p, y2, o.c(k))
    poly = o.add(o.mul(o.mul(y2, y2), p), o.mul(y2, o.c(-0.5)))
    return o.select(o.cmp(">=", y2, o.c(0.61685)), o.add(o.call("cos", y), o.c(-1.0)), poly)


def expm1(o: RealOps[Any], z: Parts) -> Parts:
    """e^z - 1 = (expm1(x) cos y + cosm1(y)) + i e^x sin y."""
    x, y = z
    em1 = o.call("expm1", x)
    cm1 = _cosm1(o, y)
    re = o.add(o.mul(em1, o.add(cm1, o.c(1.0))), cm1)
    im = o.mul(o.add(em1, o.c(1.0)), o.call("sin", y))
    return re, o.select(o.cmp("==", y, o.c(0.0)), o.c(0.0), im)


def logistic(o: RealOps[Any], z: Parts) -> Parts:
    one = (o.c(1.0), o.c(0.0))
    return divide(o, one, add(o, one, exp(o, (o.neg(z[0]), o.neg(z[1])))))


def tanh(o: RealOps[Any], z: Parts) -> Parts:
    """(e^2a - e^-2a + 4i cos b sin b) / (e^2a + e^-2a + 4 cos^2 b - 2) from expm1s; +-1 once
    the denominator overflows; C99's NaN and zero cases for infinite and NaN parts."""
    a, b = z
    inf, zero = o.c(np.inf), o.c(0.0)
    two_a = o.add(a, a)
    e1, e2 = o.call("expm1", two_a), o.call("expm1", o.mul(two_a, o.c(-1.0)))
    cb, sb = o.call("cos", b), o.call("sin", b)
    num_im = o.mul(o.mul(cb, sb), o.c(4.0))
    total = o.add(e1, e2)
    den = o.add(total, o.mul(o.mul(cb, cb), o.c(4.0)))
    re = o.select(o.cmp("==", total, inf), o.copysign(o.c(-1.0), a), o.div(o.sub(e1, e2), den))
    im = o.div(num_im, den)
    a_inf = o.cmp("==", o.fabs(a), inf)
    sin_nan = _isnan(o, num_im)
    re = o.select(o.and_(sin_nan, o.not_(a_inf)), o.c(np.nan), re)
    im = o.select(o.or_(o.cmp("==", b, zero), o.and_(a_inf, sin_nan)), zero, im)
    return re, im


def tan(o: RealOps[Any], z: Parts) -> Parts:
    """tan z = -i tanh(i z)."""
    re, im = tanh(o, (o.mul(z[1], o.c(-1.0)), z[0]))
    return im, o.mul(re, o.c(-1.0))


def _trig_terms(o: RealOps[Any], z: Parts) -> tuple[Any, Any, Any, Any]:
    """(e^y / 2, e^-y / 2, sin x, cos x): cosh y = sum, sinh y = difference."""
    e = o.call("exp", z[1])
    return o.mul(e, o.c(0.5)), o.div(o.c(0.5), e), o.call("sin", z[0]), o.call("cos", z[0])


def sine(o: RealOps[Any], z: Parts) -> Parts:
    h, r, s, c = _trig_terms(o, z)
    return o.mul(o.add(h, r), s), o.mul(o.sub(h, r), c)


def cosine(o: RealOps[Any], z: Parts) -> Parts:
    h, r, s, c = _trig_terms(o, z)
    return o.mul(o.add(r, h), c), o.mul(o.sub(r, h), s)


def sinh(o: RealOps[Any], z: Parts) -> Parts:
    """sinh z = -i sin(i z)."""
    re, im = sine(o, (o.neg(z[1]), z[0]))
    return im, o.neg(re)


def cosh(o: RealOps[Any], z: Parts) -> Parts:
    """cosh z = cos(i z)."""
    return cosine(o, (o.neg(z[1]), z[0]))


# ------------------------------------------------------------------- dispatch

def splits(bits: int) -> tuple[float, float]:
    """(Veltkamp's split constant 2^ceil(p/2) + 1, the "huge" threshold sqrt(max) / 100) of
    the component type (f32 for c64, f64 for c128)."""
    fi = np.finfo(np.float32 if bits == 32 else np.float64)
    return (4097.0, float(np.sqrt(fi.max)) * 0.01) if bits == 32 else (134217729.0, float(np.sqrt(fi.max)) * 0.01)


UnaryFormula = Callable[[RealOps[Any], Parts, int], Parts]

UNARY: dict[str, UnaryFormula] = {
    "exponential": lambda o, z, bits: exp(o, z),
    "exponential-minus-one": lambda o, z, bits: expm1(o, z),
    "log": lambda o, z, bits: log(o, z, splits(bits)[0]),
    "log-plus-one": lambda o, z, bits: log1p(o, z, *splits(bits)),
    "sqrt": lambda o, z, bits: sqrt(o, z), "rsqrt": lambda o, z, bits: rsqrt(o, z),
    "sign": lambda o, z, bits: sign(o, z), "logistic": lambda o, z, bits: logistic(o, z),
    "tanh": lambda o, z, bits: tanh(o, z), "tan": lambda o, z, bits: tan(o, z),
    "sine": lambda o, z, bits: sine(o, z), "cosine": lambda o, z, bits: cosine(o, z),
    "sinh": lambda o, z, bits: sinh(o, z), "cosh": lambda o, z, bits: cosh(o, z),
    "negate": lambda o, z, bits: (o.neg(z[0]), o.neg(z[1])),
}

BINARY: dict[str, Callable[[RealOps[Any], Parts, Parts], Parts]] = {
    "add": add, "subtract": lambda o, x, y: (o.sub(x[0], y[0]), o.sub(x[1], y[1])),
    "multiply": multiply, "divide": divide, "power": power, "atan2": atan2,
}


# Opcodes XLA refuses for complex at verification ("Expected element type in shape to be
# floating for cbrt operation"); hlotools' shape inference lets them through.
NOT_COMPLEX = frozenset(("cbrt", "erf"))
