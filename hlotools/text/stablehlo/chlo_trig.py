"""chlo.sinh, cosh, asin, acos, asinh, acosh and atanh of real operands, decomposed as XLA's chlo
legalization does: XLA's CPU and GPU backends compile none of these as HLO opcodes, so a module
that kept them would not run there. Evaluated in f64 and rounded once to the result type, as the
other decompositions here (chlo_decompose.py); the forms are XLA's (sinh through expm1 for small
|x| and exp(|x| + log 1/2) for large, asin as 2 atan2(x, 1 + sqrt(1 - x^2)), ...), with log1p
where it keeps accuracy near the roots. Complex operands keep the opcode (our backends evaluate
it)."""
from __future__ import annotations

import math
from collections.abc import Callable

from hlotools.text.stablehlo.chlo_decompose import X, where
from hlotools.text.stablehlo.emit import Value
from hlotools.text.stablehlo.ops import operands, register, result_type
from hlotools.text.stablehlo.reader import OpView
from hlotools.text.stablehlo.translate import Scope, Translator

_REAL = ("f16", "bf16", "f32", "f64")
_LARGE = 1e150  # beyond it x^2 overflows f64: the functions are log(2|x|) there
_LOG_HALF = math.log(0.5)


def sinh(x: X) -> X:
    e = x.fn("exponential-minus-one")
    small = (e + e / (e + 1.0)) * 0.5
    large = (x + _LOG_HALF).fn("exponential") - (_LOG_HALF - x).fn("exponential")
    return where(x.fn("abs").cmp("LT", 1.0), small, large)


def cosh(x: X) -> X:
    return (x + _LOG_HALF).fn("exponential") + (_LOG_HALF - x).fn("exponential")


def asin(x: X) -> X:
    return 2.0 * x.op("atan2", 1.0 + (1.0 - x * x).fn("sqrt"))


def acos(x: X) -> X:
    general = 2.0 * (1.0 - x * x).fn("sqrt").op("atan2", 1.0 + x)
    return where(x.cmp("EQ", -1.0), math.pi, general)


def asinh(x: X) -> X:
    a = x.fn("abs")
    near = (a + a * a / (1.0 + (a * a + 1.0).fn("sqrt"))).fn("log-plus-one")
    far = a.fn("log") + math.log(2.0)
    return x.fn("sign") * where(a.cmp("GT", _LARGE), far, near)


def acosh(x: X) -> X:
    y = x - 1.0
    near = (y + (y * (y + 2.0)).fn("sqrt")).fn("log-plus-one")
    far = x.fn("log") + math.log(2.0)
    out = where(x.cmp("GT", _LARGE), far, near)
    return where(x.cmp("LT", 1.0), math.nan, out)


def atanh(x: X) -> X:
    out = 0.5 * (x.fn("log-plus-one") - (-x).fn("log-plus-one"))
    return where(x.fn("abs").cmp("GT", 1.0), math.nan, out)


def _decomposed(fn: Callable[[X], X], opcode: str) -> Callable[[Translator, Scope, OpView], list[Value]]:
    def translate(t: Translator, scope: Scope, view: OpView) -> list[Value]:
        (x,) = operands(scope, view)
        rtype = result_type(view)
        if x.type.element not in _REAL:
            return [scope.emitter.emit(opcode, [x], rtype)]
        return [fn(X(scope.emitter, x).convert("f64")).convert(rtype.element).v]
    return translate


for _name, _fn in (("sinh", sinh), ("cosh", cosh), ("asin", asin), ("acos", acos), ("asinh", asinh),
                   ("acosh", acosh), ("atanh", atanh)):
    register("chlo." + _name)(_decomposed(_fn, _name))
