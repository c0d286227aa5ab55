"""One translator per StableHLO op: OpView -> HLO instructions (XLA's MLIR->HLO conventions).

Elementwise ops map by name (the opcode table in hlotools/ir decides which names exist); the
others read their attributes from the pretty keyword or the generic property, whichever the
text used. Region-carrying ops (reduce, sort, while, case, scatter, ...) are in ops_regions.py,
chlo ops in chlo.py.
"""
from __future__ import annotations

from typing import Any

from hlotools.ir.opcodes import OPCODES
from hlotools.text.lexer import LineMap
from hlotools.text.stablehlo.attributes import AttrError, Dense, dense_literal, split_items
from hlotools.text.stablehlo.emit import Emitter, Value, ints
from hlotools.text.stablehlo.reader import OpView
from hlotools.text.stablehlo.syntax import Group
from hlotools.text.stablehlo.translate import Scope, Translate, TranslateError, Translator
from hlotools.text.stablehlo.types import TensorType

TRANSLATORS: dict[str, Translate] = {}

# StableHLO names whose HLO opcode is spelled differently (the rest: '_' -> '-').
_RENAMED = {"optimization_barrier": "opt-barrier", "bitcast_convert": "bitcast-convert"}
_ELEMENTWISE = """abs add and atan2 cbrt ceil complex cosine count_leading_zeros divide exponential
exponential_minus_one floor imag is_finite log log_plus_one logistic maximum minimum multiply negate not
or popcnt power real remainder round_nearest_afz round_nearest_even rsqrt shift_left shift_right_arithmetic
shift_right_logical sign sine sqrt subtract tan tanh xor select clamp convert bitcast_convert reshape
dynamic_update_slice""".split()


def unsupported(view: OpView) -> TranslateError:
    dialect = view.name.split(".", 1)[0] if "." in view.name else "builtin"
    return TranslateError(f"unsupported op '{view.name}' (dialect '{dialect}'): no HLO translation", view.pos)


def operands(scope: Scope, view: OpView) -> list[Value]:
    values = scope.values
    out = []
    for n, p in view.operands:
        v = values.get(n)
        out.append(v if v is not None else scope.lookup(n, p))  # lookup: %x#0 aliases, and the error
    return out


def result_type(view: OpView) -> TensorType:
    if not view.out_types:
        raise AttrError(f"'{view.name}' needs its result type (': type')", view.pos)
    return view.out_types[-1]


def register(*names: str) -> Any:
    def deco(fn: Translate) -> Translate:
        for n in names:
            TRANSLATORS[n] = fn
        return fn
    return deco


def _elementwise(opcode: str) -> Translate:
    def translate(t: Translator, scope: Scope, view: OpView) -> list[Value]:
        return [scope.emitter.emit(opcode, operands(scope, view), result_type(view))]
    return translate


@register("stablehlo.select")
def _select(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    """A scalar predicate selects whole arrays in StableHLO; HLO's select wants it broadcast."""
    pred, a, b = operands(scope, view)
    em = scope.emitter
    if pred.type.rank == 0 and a.type.rank > 0:
        pred = em.emit("broadcast", [pred], a.type.with_element("pred"), "dimensions={}")
    return [em.emit("select", [pred, a, b], result_type(view))]


for _name in _ELEMENTWISE:
    _opcode = _RENAMED.get(_name, _name.replace("_", "-"))
    assert _opcode in OPCODES, _opcode
    TRANSLATORS.setdefault("stablehlo." + _name, _elementwise(_opcode))


def ints_attr(view: OpView, generic: str, pretty: str | None = None, default: list[int] | None = None) -> list[int]:
    v = view.attr(generic, pretty, default)
    if isinstance(v, Dense):
        v = v.values()
    if v is None:
        raise AttrError(f"'{view.name}' needs its '{pretty or generic}' attribute", view.pos)
    if type(v) is not list or not all(type(x) is int for x in v):  # (a bool is not an index)
        raise AttrError(f"'{pretty or generic}' of '{view.name}' must be a list of integers", view.pos)
    return v


def int_attr(view: OpView, generic: str, pretty: str | None = None, default: int | None = None) -> int:
    v = view.attr(generic, pretty, default)
    if not isinstance(v, int) or isinstance(v, bool):
        raise AttrError(f"'{view.name}' needs an integer '{pretty or generic}' attribute", view.pos)
    return v


@register("stablehlo.constant")
def _constant(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    rtype = result_type(view)
    dense = view.dense
    if dense is not None:
        text, pos = dense[1], dense[2]
    else:
        v = view.attrs.get("value")
        if not isinstance(v, Dense):
            raise AttrError("expected 'dense<...>' constant value", view.pos)
        text, pos = v.text, v.pos
    return [scope.emitter.emit_literal(dense_literal(text, rtype, pos, t.resources), rtype)]


@register("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    (x,) = operands(scope, view)
    return [broadcast_value(scope.emitter, x, result_type(view), ints_attr(view, "broadcast_dimensions", "dims"))]


def broadcast_value(em: Emitter, x: Value, rtype: TensorType, dims: list[int]) -> Value:
    """broadcast_in_dim in XLA's form: a broadcast that only adds size-1 dims is a reshape; size-1
    operand dims that the broadcast expands are reshaped away first (HLO's broadcast never
    expands a dim)."""
    src = x.type
    if not src.dims and not dims and _count(rtype.dims) != 1:  # a scalar splat, the commonest broadcast
        return em.emit("broadcast", [x], rtype, "dimensions={}")
    if any(src.dynamic) or any(rtype.dynamic) or len(dims) != src.rank:
        return em.emit("broadcast", [x], rtype, f"dimensions={ints(dims)}")
    expanded = [i for i, d in enumerate(dims) if d < rtype.rank and src.dims[i] == 1 and rtype.dims[d] != 1]
    if not expanded and _count(src.dims) == _count(rtype.dims) and dims == sorted(dims) and src.dims != rtype.dims:
        return em.emit("reshape", [x], rtype)
    if expanded:
        kept = [i for i in range(src.rank) if i not in expanded]
        x = em.emit("reshape", [x], TensorType(src.element, tuple(src.dims[i] for i in kept), (False,) * len(kept)))
        dims = [dims[i] for i in kept]
    return em.emit("broadcast", [x], rtype, f"dimensions={ints(dims)}")


def _count(dims: tuple[int, ...]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _pair(view: OpView, pretty: str) -> tuple[list[int], list[int]]:
    """`contracting_dims = [1] x [0]` -> ([1], [0])."""
    items = view.kw.get(pretty)
    if not items:
        return [], []
    groups = [it for it in items if isinstance(it, Group) and it.kind == "["]
    if len(groups) != 2:
        raise AttrError(f"expected '{pretty} = [..] x [..]'", view.pos)
    return tuple(_int_list(g) for g in groups)  # type: ignore[return-value]


def _int_list(g: Group) -> list[int]:
    out = []
    for chunk in split_items(g.items):
        if len(chunk) != 1 or not isinstance(chunk[0], tuple) or chunk[0][0] != "NUMBER":
            raise AttrError("expected an integer", g.pos)
        out.append(int(chunk[0][1], 0))
    return out


def _precision(view: OpView) -> str:
    p = view.attr("precision_config", "precision")
    if not p:
        return ""
    names = [str(x).lower() for x in p]
    if all(n == "default" for n in names):
        return ""
    return "operand_precision={" + ",".join(names) + "}"


@register("stablehlo.dot_general")
def _dot_general(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    lhs, rhs = operands(scope, view)
    dn = view.attrs.get("dot_dimension_numbers")
    if isinstance(dn, dict):
        lb, rb = dn.get("lhs_batching_dimensions", []), dn.get("rhs_batching_dimensions", [])
        lc, rc = dn.get("lhs_contracting_dimensions", []), dn.get("rhs_contracting_dimensions", [])
    else:
        lb, rb = _pair(view, "batching_dims")
        lc, rc = _pair(view, "contracting_dims")
    attrs = []
    if lb or rb:
        attrs += [f"lhs_batch_dims={ints(lb)}", f"rhs_batch_dims={ints(rb)}"]
    attrs += [f"lhs_contracting_dims={ints(lc)}", f"rhs_contracting_dims={ints(rc)}"]
    prec = _precision(view)
    if prec:
        attrs.append(prec)
    return [scope.emitter.emit("dot", [lhs, rhs], result_type(view), ", ".join(attrs))]


@register("stablehlo.dot")
def _dot(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    lhs, rhs = operands(scope, view)
    return [scope.emitter.emit("dot", [lhs, rhs], result_type(view),
                               f"lhs_contracting_dims={{{lhs.type.rank - 1}}}, rhs_contracting_dims={{0}}")]


def _dims_op(opcode: str, generic: str, pretty: str) -> Translate:
    def translate(t: Translator, scope: Scope, view: OpView) -> list[Value]:
        return [scope.emitter.emit(opcode, operands(scope, view), result_type(view),
                                   f"dimensions={ints(ints_attr(view, generic, pretty))}")]
    return translate


TRANSLATORS["stablehlo.transpose"] = _dims_op("transpose", "permutation", "dims")
TRANSLATORS["stablehlo.reverse"] = _dims_op("reverse", "dimensions", "dims")


@register("stablehlo.concatenate")
def _concatenate(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    d = int_attr(view, "dimension", "dim")
    return [scope.emitter.emit("concatenate", operands(scope, view), result_type(view), f"dimensions={{{d}}}")]


@register("stablehlo.iota")
def _iota(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    d = int_attr(view, "iota_dimension", "dim")
    return [scope.emitter.emit("iota", [], result_type(view), f"iota_dimension={d}")]


@register("stablehlo.slice")
def _slice(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    if view.brackets:
        spans = []
        for chunk in split_items(view.brackets[0].items):
            nums = [int(it[1], 0) for it in chunk if isinstance(it, tuple) and it[0] == "NUMBER"]
            if len(nums) not in (2, 3):
                raise AttrError("expected 'start:limit[:stride]'", view.brackets[0].pos)
            spans.append((nums[0], nums[1], nums[2] if len(nums) == 3 else 1))
    else:
        starts = ints_attr(view, "start_indices")
        limits = ints_attr(view, "limit_indices")
        strides = ints_attr(view, "strides", default=[1] * len(starts))
        spans = list(zip(starts, limits, strides))
    text = ", ".join(f"[{a}:{b}:{s}]" if s != 1 else f"[{a}:{b}]" for a, b, s in spans)
    return [scope.emitter.emit("slice", operands(scope, view), result_type(view), f"slice={{{text}}}")]


@register("stablehlo.dynamic_slice")
def _dynamic_slice(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    sizes = ints_attr(view, "slice_sizes", "sizes")
    return [scope.emitter.emit("dynamic-slice", operands(scope, view), result_type(view),
                               f"dynamic_slice_sizes={ints(sizes)}")]


@register("stablehlo.pad")
def _pad(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    low = ints_attr(view, "edge_padding_low", "low")
    high = ints_attr(view, "edge_padding_high", "high")
    interior = ints_attr(view, "interior_padding", "interior", [0] * len(low))
    text = "x".join(f"{a}_{b}_{c}" if c else f"{a}_{b}" for a, b, c in zip(low, high, interior))
    return [scope.emitter.emit("pad", operands(scope, view), result_type(view), f"padding={text or '{}'}")]


@register("stablehlo.get_tuple_element")
def _get_tuple_element(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    if view.brackets:
        index = _int_list(view.brackets[0])[0]
    else:
        index = int_attr(view, "index")
    (x,) = operands(scope, view)
    if x.type.elements is None or not 0 <= index < len(x.type.elements):
        raise AttrError(f"get_tuple_element index {index} is out of range", view.pos)
    return [scope.emitter.emit("get-tuple-element", [x], x.type.elements[index], f"index={index}")]


@register("stablehlo.tuple")
def _tuple(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    return [scope.emitter.tuple(operands(scope, view))]


_COMPARE_DEFAULT = {"FLOAT", "SIGNED", "UNSIGNED", "NOTYPE"}


@register("stablehlo.compare")
def _compare(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    direction = view.attrs.get("comparison_direction") or view.word(0)
    kind = view.attrs.get("compare_type") or view.word(1)
    if direction not in ("EQ", "NE", "LT", "LE", "GT", "GE"):
        raise AttrError(f"expected a comparison direction (EQ, NE, LT, LE, GT, GE), but found '{direction}'",
                        view.words[0][2] if view.words else view.pos)
    attrs = f"direction={direction}"
    if kind is not None and kind not in _COMPARE_DEFAULT:
        attrs += f", type={kind}"
    return [scope.emitter.emit("compare", operands(scope, view), result_type(view), attrs)]


@register("stablehlo.optimization_barrier")
def _optimization_barrier(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    em = scope.emitter
    whole = em.tuple(operands(scope, view))
    return em.untuple(em.emit("opt-barrier", [whole], whole.type))


@register("stablehlo.rng_bit_generator")
def _rng_bit_generator(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    algorithm = view.attr("rng_algorithm", "algorithm", "DEFAULT")
    name = {"THREE_FRY": "rng_three_fry", "PHILOX": "rng_philox", "DEFAULT": "rng_default"}.get(str(algorithm))
    if name is None:
        raise AttrError(f"unknown rng algorithm '{algorithm}'", view.pos)
    return scope.emitter.emit_multi("rng-bit-generator", operands(scope, view), view.out_types, f"algorithm={name}")


@register("stablehlo.fft")
def _fft(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    kind = view.attr("fft_type", "type")
    length = ints_attr(view, "fft_length", "length")
    return [scope.emitter.emit("fft", operands(scope, view), result_type(view),
                               f"fft_type={kind}, fft_length={ints(length)}")]


@register("stablehlo.reduce_precision")
def _reduce_precision(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    fmt = view.kw.get("format")
    if fmt:
        word = str(fmt[0][1]) if isinstance(fmt[0], tuple) else ""
        e, _, m = word[1:].partition("m")
        if not word.startswith("e") or not e.isdigit() or not m.isdigit():
            raise AttrError(f"expected 'format = eNmM', but found '{word}'", view.pos)
        eb, mb = int(e), int(m)
    else:
        eb, mb = int_attr(view, "exponent_bits"), int_attr(view, "mantissa_bits")
    return [scope.emitter.emit("reduce-precision", operands(scope, view), result_type(view),
                               f"exponent_bits={eb}, mantissa_bits={mb}")]


@register("func.call", "call")
def _call(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    callee = view.symbol or view.attrs.get("callee")
    if not isinstance(callee, str):
        raise AttrError("expected 'call @function(...)'", view.pos)
    comp = t.function_computation(callee, view.pos)
    em = scope.emitter
    types = view.out_types
    rtype = types[0] if len(types) == 1 else TensorType("", elements=tuple(types))
    v = em.emit("call", operands(scope, view), rtype, f"to_apply={comp.name}")
    return [v] if len(types) == 1 else em.untuple(v)


@register("stablehlo.composite")
def _composite(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    """A call of the decomposition, marked as XLA marks a composite: is_composite=true and the
    composite's name, version and attributes (as written) in frontend_attributes."""
    from hlotools.text.stablehlo.attributes import unquote
    from hlotools.text.stablehlo.sdy import escaped
    callee = view.attr("decomposition")
    if not isinstance(callee, str):
        raise AttrError("expected 'decomposition = @function' on stablehlo.composite", view.pos)
    name = view.attrs.get("name")
    if not isinstance(name, str):
        name = unquote(view.strings[0][1]) if view.strings else ""
    if name == "chlo.ragged_dot":  # XLA makes this composite its ragged-dot instruction
        from hlotools.text.stablehlo.ops_linalg import ragged_dot_composite
        return ragged_dot_composite(t, scope, view)
    version = view.attrs.get("version", 0)
    comp = t.function_computation(callee, view.pos)
    types = view.out_types
    rtype = types[0] if len(types) == 1 else TensorType("", elements=tuple(types))
    attrs = (f"to_apply={comp.name}, is_composite=true, frontend_attributes={{composite.attributes="
             f'{source_dict(t.lines, view, "composite_attributes") or "{}"},composite.name="{escaped(name)}",'
             f'composite.version="{version}"}}')
    em = scope.emitter
    v = em.emit("call", operands(scope, view), rtype, attrs)
    return [v] if len(types) == 1 else em.untuple(v)


def source_dict(lines: LineMap, view: OpView, key: str) -> str | None:
    """The `{...}` after `key = ` on the op's line, as the source spells it (XLA keeps such
    dictionaries verbatim, element types and all), or None."""
    from hlotools.text.stablehlo.lexer import scan_balanced
    if key not in view.attrs:
        return None
    text = lines.text
    end_of_line = text.find("\n", view.pos)
    at = text.find(key + " = {", view.pos, end_of_line if end_of_line >= 0 else len(text))
    if at < 0:
        return None
    brace = at + len(key) + 3
    return text[brace:scan_balanced(text, brace + 1, "{", "}", lines)]


@register("sdy.sharding_constraint")
def _sharding_constraint(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    """A Sharding custom-call, its sharding converted from the Shardy one (kept verbatim too), as
    XLA's Shardy export writes it."""
    from hlotools.text.stablehlo.sdy import escaped, hlo_sharding
    (x,) = operands(scope, view)
    if view.angle is None:
        raise AttrError("expected 'sdy.sharding_constraint %x <@mesh, [dims]>'", view.pos)
    rtype = result_type(view)
    sharding = hlo_sharding(view.angle, t.meshes, rtype.rank, view.pos)
    kept = escaped(f"#sdy.sharding_per_value<[{view.angle}]>")
    return [scope.emitter.emit("custom-call", [x], rtype, f'custom_call_target="Sharding", sharding={sharding}, '
                               f'frontend_attributes={{xla.sdy.sharding="{kept}"}}')]


@register("stablehlo.get_dimension_size")
def _get_dimension_size(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    d = int_attr(view, "dimension", "dim")
    return [scope.emitter.emit("get-dimension-size", operands(scope, view), result_type(view), f"dimensions={{{d}}}")]


@register("stablehlo.set_dimension_size")
def _set_dimension_size(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    d = int_attr(view, "dimension", "dim")
    return [scope.emitter.emit("set-dimension-size", operands(scope, view), result_type(view), f"dimensions={{{d}}}")]


@register("stablehlo.after_all")
def _after_all(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    return [scope.emitter.emit("after-all", operands(scope, view), TensorType("token"))]


from hlotools.text.stablehlo import chlo, ops_custom_call, ops_regions  # noqa: E402,F401  (register their translators)
