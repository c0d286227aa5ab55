"""chlo ops as XLA's legalization lowers them. erf and tan map to the HLO opcodes (XLA's backends
compile them); sinh, cosh and the inverse functions are decomposed (chlo_trig.py), as are the
special functions (chlo_decompose.py, chlo_special.py)."""
from __future__ import annotations

from hlotools.text.stablehlo.emit import Value
from hlotools.text.stablehlo.ops import TRANSLATORS, operands, register, result_type
from hlotools.text.stablehlo.reader import OpView
from hlotools.text.stablehlo.translate import Scope, Translator
from hlotools.text.stablehlo.types import TensorType

_DIRECT = {"erf": "erf", "tan": "tan"}  # opcodes XLA's backends compile; sinh, asin, ...: chlo_trig.py


def _direct(opcode: str):  # type: ignore[no-untyped-def]
    def translate(t: Translator, scope: Scope, view: OpView) -> list[Value]:
        return [scope.emitter.emit(opcode, operands(scope, view), result_type(view))]
    return translate


for _name, _opcode in _DIRECT.items():
    TRANSLATORS["chlo." + _name] = _direct(_opcode)


@register("chlo.square")
def _square(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    (x,) = operands(scope, view)
    return [scope.emitter.emit("multiply", [x, x], result_type(view))]


def splat(scope: Scope, value: float | int | str, like: TensorType) -> Value:
    """A scalar constant broadcast to like's shape (the form XLA's legalization emits)."""
    em = scope.emitter
    c = em.emit_literal(str(value), TensorType(like.element))
    if not like.dims:
        return c
    return em.emit("broadcast", [c], like, "dimensions={}")


@register("chlo.atan")
def _atan(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    (x,) = operands(scope, view)
    return [scope.emitter.emit("atan2", [x, splat(scope, 1, x.type)], result_type(view))]


@register("chlo.top_k")
def _top_k(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    (x,) = operands(scope, view)
    k = view.attr("k")
    return scope.emitter.emit_multi("topk", [x], view.out_types, f"k={k}, largest=true")


from hlotools.text.stablehlo import chlo_broadcast, chlo_decompose, chlo_special, chlo_trig  # noqa: E402,F401
