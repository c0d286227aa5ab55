"""chlo.zeta, chlo.polygamma and chlo.bessel_i1e, decomposed into elementwise HLO.

zeta and polygamma follow XLA's legalization: the Hurwitz zeta by Euler-Maclaurin summation
(ten terms summed directly, then twelve Bernoulli correction terms by Horner's rule), with its
domain rules (nan for x < 1, and for q <= 0 unless x is an integer; at the poles, q a
non-positive integer, +inf for even x and nan for odd x; +inf at x = 1), and
polygamma(n, x) = (-1)^(n+1) n! zeta(n+1, x), digamma for n = 0, nan unless n is a natural
number. bessel_i1e(x) = exp(-|x|) I1(x) is summed from I1's power series for |x| <= 20 and
from its asymptotic expansion beyond (XLA uses Cephes' Chebyshev fits). As the other chlo
decompositions here, everything is evaluated in f64 and rounded once to the result type.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from hlotools.text.stablehlo.chlo_decompose import _FLOATS, X, digamma, lgamma, where
from hlotools.text.stablehlo.emit import Value
from hlotools.text.stablehlo.ops import AttrError, operands, register, result_type
from hlotools.text.stablehlo.reader import OpView
from hlotools.text.stablehlo.translate import Scope, Translator


def _bernoulli(n: int) -> list[Fraction]:
    """B_0 .. B_n (B_1 = -1/2), from the recurrence sum_k C(m+1, k) B_k = 0."""
    b = [Fraction(1)]
    for m in range(1, n + 1):
        total = sum((math.comb(m + 1, k) * b[k] for k in range(m)), Fraction(0))
        b.append(-total / (m + 1))
    return b


_TERMS = 12
# B_2j / (2j)! for j = 1 .. 12: the Euler-Maclaurin correction coefficients.
_B = _bernoulli(2 * _TERMS)
_EM = [float(_B[2 * j] / math.factorial(2 * j)) for j in range(1, _TERMS + 1)]


def zeta(x: X, q: X) -> X:
    neg_x = -x
    total = q.op("power", neg_x)
    a = q
    for _ in range(9):
        a = a + 1.0
        total = total + a.op("power", neg_x)
    a = a + 1.0
    neg_power = a.op("power", neg_x)
    s = total + neg_power * a / (x - 1.0)
    # sum_j B_2j/(2j)! x(x+1)...(x+2j-2) a^(-x-2j+1) = a^-x (x/a) (c1 + (x+1)(x+2)/a^2 (c2 + ...))
    inv_a2 = 1.0 / (a * a)
    horner = x.const(_EM[-1])
    for j in range(_TERMS - 1, 0, -1):
        horner = (x + float(2 * j - 1)) * (x + float(2 * j)) * inv_a2 * horner + _EM[j - 1]
    s = s + neg_power * (0.5 + x / a * horner)
    nan = math.nan
    out = where(x.cmp("LT", 1.0), nan, s)
    q_le_zero = q.cmp("LE", 0.0)
    x_is_int = x.cmp("EQ", x.fn("floor"))
    out = where(q_le_zero.op("and", x.cmp("NE", x.fn("floor")), element="pred"), nan, out)
    at_pole = q_le_zero.op("and", q.cmp("EQ", q.fn("floor")), element="pred")
    even = x_is_int.op("and", x.op("remainder", 2.0).cmp("EQ", 0.0), element="pred")
    out = where(at_pole, where(even, x.const(math.inf), nan), out)
    return where(x.cmp("EQ", 1.0), math.inf, out)


def polygamma(n: X, x: X) -> X:
    sign = 2.0 * n.op("remainder", 2.0) - 1.0
    n1 = n + 1.0
    out = sign * lgamma(n1).fn("exponential") * zeta(n1, x)
    out = where(n.cmp("EQ", 0.0), digamma(x), out)
    non_natural = n.cmp("NE", n.fn("floor")).op("or", n.cmp("LT", 0.0), element="pred")
    return where(non_natural, math.nan, out)


_SERIES_TERMS = 42  # (x/2)^(2k+1) / (k! (k+1)!) for k < 42 reaches f64's precision for |x| <= 20
_ASYMPTOTIC_TERMS = 40


def bessel_i1e(x: X) -> X:
    ax = x.fn("abs")
    small = ax.op("minimum", 20.0)
    half = small * 0.5
    h2 = half * half
    term, series = half, half
    for k in range(1, _SERIES_TERMS):
        term = term * h2 * (1.0 / (k * (k + 1)))
        series = series + term
    near = series * (-small).fn("exponential")
    # e^-x I1(x) ~ 1/sqrt(2 pi x) sum_k (-1)^k prod_{j<=k} (4 - (2j-1)^2) / (k! (8x)^k)
    big = ax.op("maximum", 20.0)
    inv = 1.0 / (8.0 * big)
    coefficients = [1.0]
    for k in range(1, _ASYMPTOTIC_TERMS):
        coefficients.append(coefficients[-1] * -(4.0 - (2 * k - 1) ** 2) / k)
    acc = x.const(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        acc = acc * inv + c
    far = acc / (2.0 * math.pi * big).fn("sqrt")
    out = where(ax.cmp("LE", 20.0), near, far)
    return where(x.cmp("LT", 0.0), -out, out)


def _binary(fn: Callable[[X, X], X]) -> Callable[[Translator, Scope, OpView], list[Value]]:
    def translate(t: Translator, scope: Scope, view: OpView) -> list[Value]:
        a, b = operands(scope, view)
        rtype = result_type(view)
        if a.type.element not in _FLOATS or b.type.element != a.type.element:
            raise AttrError(f"'{view.name}' of {a.type.element} is not supported (floating-point only)", view.pos)
        em = scope.emitter
        return [fn(X(em, a).convert("f64"), X(em, b).convert("f64")).convert(rtype.element).v]
    return translate


@register("chlo.bessel_i1e")
def _bessel_i1e(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    (a,) = operands(scope, view)
    rtype = result_type(view)
    if a.type.element not in _FLOATS:
        raise AttrError(f"'{view.name}' of {a.type.element} is not supported (floating-point only)", view.pos)
    return [bessel_i1e(X(scope.emitter, a).convert("f64")).convert(rtype.element).v]


register("chlo.zeta")(_binary(zeta))
register("chlo.polygamma")(_binary(polygamma))
