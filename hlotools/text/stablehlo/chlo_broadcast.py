"""chlo's implicitly broadcasting binary ops (`chlo.broadcast_add %a, %b {broadcast_dimensions =
array<i64: 1>}`) and the small chlo ops that are one or two HLO instructions (is_inf,
is_pos_inf, is_neg_inf, conj, constant, constant_like).

As XLA's legalization does, each operand of a broadcasting op is broadcast to the result's
shape (numpy-style: trailing dims aligned, or the lower-rank operand's dims placed by
broadcast_dimensions; size-1 dims expand), then the op's own translator runs on the
broadcast values."""
from __future__ import annotations

import math

from hlotools.text.stablehlo.attributes import Dense
from hlotools.text.stablehlo.emit import Value
from hlotools.text.stablehlo.ops import (
    TRANSLATORS,
    AttrError,
    broadcast_value,
    ints_attr,
    operands,
    register,
    result_type,
)
from hlotools.text.stablehlo.reader import OpView
from hlotools.text.stablehlo.translate import Scope, Translate, Translator
from hlotools.text.stablehlo.types import TensorType

# chlo.broadcast_NAME -> the translator of the op it broadcasts for
_BROADCASTING = {name: "stablehlo." + name for name in (
    "add atan2 divide maximum minimum multiply power remainder shift_left shift_right_arithmetic "
    "shift_right_logical subtract and or xor complex compare select").split()}
_BROADCASTING.update({name: "chlo." + name for name in ("next_after", "polygamma", "zeta")})


def _operand_dims(view: OpView, x: Value, rank: int, lowest: int) -> list[int]:
    if "broadcast_dimensions" in view.attrs and x.type.rank == lowest and x.type.rank < rank:
        dims = ints_attr(view, "broadcast_dimensions")
        if len(dims) != x.type.rank or any(not 0 <= d < rank for d in dims):
            raise AttrError(f"broadcast_dimensions {dims} do not place a rank-{x.type.rank} operand in a "
                            f"rank-{rank} result", view.pos)
        return dims
    if x.type.rank > rank:
        raise AttrError(f"'{view.name}': an operand of rank {x.type.rank} does not broadcast to rank {rank}",
                        view.pos)
    return list(range(rank - x.type.rank, rank))


def _broadcasting(target: str) -> Translate:
    def translate(t: Translator, scope: Scope, view: OpView) -> list[Value]:
        fn = TRANSLATORS[target]
        rtype = result_type(view)
        args = operands(scope, view)
        lowest = min(a.type.rank for a in args)
        new_operands = []
        for k, a in enumerate(args):
            dims = _operand_dims(view, a, rtype.rank, lowest)
            shape = TensorType(a.type.element, rtype.dims, rtype.dynamic)
            for d, src in zip(dims, a.type.dims):
                if src != 1 and src != rtype.dims[d]:
                    raise AttrError(f"'{view.name}': operand {k} dim of size {src} does not broadcast to "
                                    f"{rtype.text}", view.pos)
            v = a if a.type == shape else broadcast_value(scope.emitter, a, shape, dims)
            name = f"%chlo.broadcast.{k}"
            scope.values[name] = v
            new_operands.append((name, view.pos))
        inner = OpView(target, view.pos, view.results, generic=True)
        inner.operands, inner.kw, inner.words, inner.attrs, inner.out_types = (new_operands, view.kw, view.words,
                                                                              view.attrs, [rtype])
        return fn(t, scope, inner)
    return translate


for _name, _target in _BROADCASTING.items():
    TRANSLATORS["chlo.broadcast_" + _name] = _broadcasting(_target)


def _inf_test(value: float | None) -> Translate:
    def translate(t: Translator, scope: Scope, view: OpView) -> list[Value]:
        (x,) = operands(scope, view)
        em = scope.emitter
        if value is None:
            x = em.emit("abs", [x], x.type)
        inf = em.emit_literal("inf" if (value or 1) > 0 else "-inf", TensorType(x.type.element))
        if x.type.dims:
            inf = em.emit("broadcast", [inf], x.type, "dimensions={}")
        return [em.emit("compare", [x, inf], result_type(view), "direction=EQ")]
    return translate


TRANSLATORS["chlo.is_inf"] = _inf_test(None)
TRANSLATORS["chlo.is_pos_inf"] = _inf_test(math.inf)
TRANSLATORS["chlo.is_neg_inf"] = _inf_test(-math.inf)
TRANSLATORS["chlo.constant"] = TRANSLATORS["stablehlo.constant"]


@register("chlo.conj")
def _conj(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    (x,) = operands(scope, view)
    if x.type.element not in ("c64", "c128"):
        return [x]
    em = scope.emitter
    part = x.type.with_element("f32" if x.type.element == "c64" else "f64")
    re, im = em.emit("real", [x], part), em.emit("imag", [x], part)
    return [em.emit("complex", [re, em.emit("negate", [im], part)], result_type(view))]


@register("chlo.constant_like")
def _constant_like(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    (x,) = operands(scope, view)
    v = view.attr("value")
    if isinstance(v, Dense):
        v = v.values()
    if isinstance(v, bool):
        text = "true" if v else "false"
    elif isinstance(v, (int, float)):
        text = repr(float(v)) if x.type.element[0] in "fb" else str(int(v))
    else:
        raise AttrError("chlo.constant_like needs a scalar 'value' attribute", view.pos)
    rtype = result_type(view)
    em = scope.emitter
    c = em.emit_literal(text, TensorType(rtype.element))
    return [c if not rtype.dims else em.emit("broadcast", [c], rtype, "dimensions={}")]
