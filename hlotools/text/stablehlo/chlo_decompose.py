"""chlo ops without an HLO opcode, decomposed into elementwise HLO.

XLA's legalization evaluates these special functions with polynomial and rational
approximations in the operand's own type. Here they are evaluated in f64 and rounded once to
the result type (so an f32 result is within an ulp or so of the true value, and so within the
few ulp XLA's own approximation is off): erf_inv as Giles' approximation refined by Newton
steps on erf, lgamma by Lanczos (g = 7, 9 terms) with the reflection formula, digamma by the
recurrence to x >= 6 and the asymptotic series. next_after works on the bits, as XLA does.
"""
from __future__ import annotations

import math
from collections.abc import Callable

from hlotools.text.stablehlo.emit import Emitter, Value
from hlotools.text.stablehlo.ops import AttrError, operands, register, result_type
from hlotools.text.stablehlo.reader import OpView
from hlotools.text.stablehlo.translate import Scope, Translator
from hlotools.text.stablehlo.types import TensorType

_FLOATS = ("f16", "bf16", "f32", "f64")


class X:
    """A value of one elementwise expression: arithmetic emits the HLO instruction."""

    def __init__(self, em: Emitter, v: Value) -> None:
        self.em = em
        self.v = v

    def _lift(self, other: X | float) -> X:
        return other if isinstance(other, X) else self.const(other)

    def const(self, c: float, element: str | None = None) -> X:
        t = self.v.type if element is None else self.v.type.with_element(element)
        em = self.em
        text = ("true" if c else "false") if t.element == "pred" else repr(float(c))
        if t.element[0] in "su":
            text = str(int(c))
        elif math.isinf(c):
            text = "inf" if c > 0 else "-inf"
        elif math.isnan(c):
            text = "nan"
        s = em.emit_literal(text, TensorType(t.element))
        return X(em, s if not t.dims else em.emit("broadcast", [s], t, "dimensions={}"))

    def op(self, opcode: str, *others: X | float, element: str | None = None) -> X:
        args = [self.v] + [self._lift(o).v for o in others]
        t = self.v.type if element is None else self.v.type.with_element(element)
        return X(self.em, self.em.emit(opcode, args, t))

    def __add__(self, o: X | float) -> X:
        return self.op("add", o)

    def __radd__(self, o: float) -> X:
        return self.const(o).op("add", self)

    def __sub__(self, o: X | float) -> X:
        return self.op("subtract", o)

    def __rsub__(self, o: float) -> X:
        return self.const(o).op("subtract", self)

    def __mul__(self, o: X | float) -> X:
        return self.op("multiply", o)

    def __rmul__(self, o: float) -> X:
        return self.const(o).op("multiply", self)

    def __truediv__(self, o: X | float) -> X:
        return self.op("divide", o)

    def __rtruediv__(self, o: float) -> X:
        return self.const(o).op("divide", self)

    def __neg__(self) -> X:
        return self.op("negate")

    def cmp(self, direction: str, o: X | float) -> X:
        args = [self.v, self._lift(o).v]
        return X(self.em, self.em.emit("compare", args, self.v.type.with_element("pred"), f"direction={direction}"))

    def convert(self, element: str) -> X:
        if element == self.v.type.element:
            return self
        return X(self.em, self.em.emit("convert", [self.v], self.v.type.with_element(element)))

    def fn(self, opcode: str) -> X:
        return self.op(opcode)


def where(p: X, a: X | float, b: X | float) -> X:
    ref = a if isinstance(a, X) else b
    assert isinstance(ref, X)
    av, bv = ref._lift(a).v, ref._lift(b).v
    return X(p.em, p.em.emit("select", [p.v, av, bv], av.type))


def _unary(fn: Callable[[X], X]) -> Callable[[Translator, Scope, OpView], list[Value]]:
    def translate(t: Translator, scope: Scope, view: OpView) -> list[Value]:
        (x,) = operands(scope, view)
        rtype = result_type(view)
        if x.type.element not in _FLOATS:
            raise AttrError(f"'{view.name}' of {x.type.element} is not supported (floating-point only)", view.pos)
        out = fn(X(scope.emitter, x).convert("f64")).convert(rtype.element)
        return [out.v]
    return translate


def _poly(x: X, coefficients: list[float]) -> X:
    """Horner: coefficients from the highest power down."""
    acc = x.const(coefficients[0])
    for c in coefficients[1:]:
        acc = acc * x + c
    return acc


# Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011), single precision.
_ERFINV_CENTRAL = [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                   -0.00125372503, -0.00417768164, 0.246640727, 1.50140941]
_ERFINV_TAIL = [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                -0.0076224613, 0.00943887047, 1.00167406, 2.83297682]


def erf_inv(x: X) -> X:
    w = -((1.0 - x) * (1.0 + x)).fn("log")
    central = _poly(w - 2.5, _ERFINV_CENTRAL)
    tail = _poly(w.fn("sqrt") - 3.0, _ERFINV_TAIL)
    y = where(w.cmp("LT", 5.0), central, tail) * x
    for _ in range(2):  # Newton on erf(y) = x: y -= (erf(y) - x) / (2/sqrt(pi) exp(-y^2))
        y = y - (y.fn("erf") - x) / ((-(y * y)).fn("exponential") * (2.0 / math.sqrt(math.pi)))
    ax = x.fn("abs")
    y = where(ax.cmp("EQ", 1.0), x * math.inf, y)
    return where(ax.cmp("GT", 1.0), math.nan, y)


_LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7]


def _lgamma_positive(z: X) -> X:
    """lgamma(z) for z >= 0.5 (Lanczos, g = 7)."""
    zm1 = z - 1.0
    a = zm1.const(_LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], start=1):
        a = a + c / (zm1 + float(i))
    t = zm1 + 7.5
    return 0.5 * math.log(2 * math.pi) + (zm1 + 0.5) * t.fn("log") - t + a.fn("log")


def lgamma(x: X) -> X:
    reflect = x.cmp("LT", 0.5)
    z = where(reflect, 1.0 - x, x)
    direct = _lgamma_positive(z)
    # lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x); sin(pi x) from the fractional part for accuracy
    frac = x - x.fn("floor")
    sin_pi = (frac * math.pi).fn("sine").fn("abs")
    reflected = math.log(math.pi) - sin_pi.fn("log") - direct
    y = where(reflect, reflected, direct)
    pole = x.cmp("LE", 0.0).op("and", frac.cmp("EQ", 0.0), element="pred")
    y = where(pole, math.inf, y)
    y = where(x.fn("abs").cmp("EQ", math.inf), math.inf, y)
    return where(x.cmp("NE", x), x, y)


def digamma(x: X) -> X:
    reflect = x.cmp("LT", 0.5)
    y = where(reflect, 1.0 - x, x)
    shift = y.const(0.0)
    for k in range(6):
        shift = shift + 1.0 / (y + float(k))
    z = y + 6.0
    inv2 = 1.0 / (z * z)
    series = z.fn("log") - 0.5 / z - inv2 * _poly(inv2, [-5.0 / 660, 1.0 / 240, -1.0 / 252, 1.0 / 120, -1.0 / 12]
                                                   ) * -1.0
    psi = series - shift
    frac = x - x.fn("floor")
    reflected = psi - math.pi / (frac * math.pi).fn("tan")
    out = where(reflect, reflected, psi)
    pole = x.cmp("LE", 0.0).op("and", frac.cmp("EQ", 0.0), element="pred")
    out = where(pole, math.nan, out)
    out = where(x.cmp("EQ", math.inf), math.inf, out)
    return where(x.cmp("EQ", -math.inf), math.nan, out)


def erfc(x: X) -> X:
    return 1.0 - x.fn("erf")


register("chlo.erf_inv")(_unary(erf_inv))
register("chlo.lgamma")(_unary(lgamma))
register("chlo.digamma")(_unary(digamma))
register("chlo.erfc")(_unary(erfc))

_UINT = {"f16": "u16", "bf16": "u16", "f32": "u32", "f64": "u64"}


@register("chlo.next_after")
def _next_after(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    """The float after x towards y: x's bits plus or minus one (XLA's NextAfter on bits)."""
    a, b = operands(scope, view)
    if a.type.element not in _UINT:
        raise AttrError(f"'{view.name}' of {a.type.element} is not supported (floating-point only)", view.pos)
    em = scope.emitter
    x, y = X(em, a), X(em, b)
    ut = _UINT[a.type.element]
    bits = X(em, em.emit("bitcast-convert", [a], a.type.with_element(ut)))
    sign_mask = 1 << (int(ut[1:]) - 1)
    ybits = X(em, em.emit("bitcast-convert", [b], b.type.with_element(ut)))
    y_sign = ybits.op("and", bits.const(sign_mask))
    tiny = X(em, em.emit("bitcast-convert", [y_sign.op("or", bits.const(1)).v], a.type))  # +-smallest denormal
    away = x.cmp("LT", y).op("xor", x.cmp("LT", 0.0), element="pred")  # moving away from zero
    stepped = where(away, bits + 1.0, bits - 1.0)
    result = X(em, em.emit("bitcast-convert", [stepped.v], a.type))
    result = where(x.cmp("EQ", 0.0), tiny, result)
    result = where(x.cmp("EQ", y), y, result)
    nan = x.cmp("NE", x).op("or", y.cmp("NE", y), element="pred")
    return [where(nan, x + y, result).v]
