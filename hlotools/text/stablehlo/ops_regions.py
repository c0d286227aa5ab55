"""Translators of the ops that carry regions: reduce, reduce_window, select_and_scatter, scatter,
sort, while, case and if. A region becomes a called computation; `applies stablehlo.add`
(the pretty reduce) becomes the scalar computation it names."""
from __future__ import annotations

from hlotools.text.stablehlo.attributes import AttrError, Dense
from hlotools.text.stablehlo.emit import Computation, ModuleText, Value, ints
from hlotools.text.stablehlo.ops import TRANSLATORS, int_attr, ints_attr, operands, register, result_type
from hlotools.text.stablehlo.reader import OpView
from hlotools.text.stablehlo.syntax import Region
from hlotools.text.stablehlo.translate import Scope, TranslateError, Translator, free_values
from hlotools.text.stablehlo.types import TensorType


def _scalar(t: TensorType) -> TensorType:
    return TensorType(t.element)


def _applies(module: ModuleText, opname: str, element: str, pos: int) -> Computation:
    """The computation of `applies stablehlo.add`: p0 op p1 on scalars."""
    from hlotools.text.stablehlo.emit import Emitter
    fn = TRANSLATORS.get(opname)
    opcode = opname.split(".", 1)[-1].replace("_", "-")
    if fn is None or opcode in ("select", "clamp", "convert", "reshape"):
        raise TranslateError(f"'applies {opname}': not a binary elementwise op", pos)
    comp = Computation(module.comp_name(module.fresh("region")))
    em = Emitter(module, comp)
    em.pos = pos
    t = TensorType(element)
    a, b = em.parameter(0, t), em.parameter(1, t)
    em.set_root(em.emit(opcode, [a, b], t))
    module.computations.append(comp)
    return comp


def _body(t: Translator, view: OpView, index: int, arg_types: list[TensorType], hint: str,
          pretty_args: list[tuple[str, TensorType | None]] | None = None) -> Computation:
    """Region `index` as a scalar computation taking arg_types (a reducer, comparator, ...)."""
    if index >= len(view.regions):
        raise AttrError(f"'{view.name}' needs a region", view.pos)
    region = view.regions[index]
    args = t.region_args(region, pretty_args)
    if len(args) != len(arg_types):
        raise TranslateError(f"region of '{view.name}' takes {len(args)} arguments, but {len(arg_types)} "
                             "are passed", region.pos)
    comp, captured = t.region_computation(region, args, hint, pos=region.pos)
    return comp


def _reducer(t: Translator, view: OpView, inits: list[Value]) -> Computation:
    element_types = [_scalar(v.type) for v in inits]
    applies = view.words[1][1] if view.word(0) == "applies" and len(view.words) > 1 else None
    if applies is not None:
        if len(inits) != 1:
            raise AttrError("'applies' takes one operand; variadic reductions need a region", view.pos)
        return _applies(t.module, applies, inits[0].type.element, view.pos)
    pretty = None
    if view.region_args:  # reducer(%acc0, %x0) (%acc1, %x1): accumulators first, then elements
        flat = [a for group in view.region_args for a in group]
        pretty = flat[0::2] + flat[1::2]
    return _body(t, view, 0, element_types * 2, "region", pretty)


def _split_inputs(view: OpView, ops: list[Value]) -> tuple[list[Value], list[Value]]:
    if not view.generic:  # reduce(%x init: %c), (%y init: %d)
        return ops[0::2], ops[1::2]
    half = len(ops) // 2
    return ops[:half], ops[half:]


def _results(scope: Scope, opcode: str, ops: list[Value], types: list[TensorType], attrs: str) -> list[Value]:
    em = scope.emitter
    if len(types) == 1:
        return [em.emit(opcode, ops, types[0], attrs)]
    return em.emit_multi(opcode, ops, types, attrs)


@register("stablehlo.reduce")
def _reduce(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    inputs, inits = _split_inputs(view, operands(scope, view))
    dims = ints_attr(view, "dimensions")
    comp = _reducer(t, view, inits)
    return _results(scope, "reduce", inputs + inits, view.out_types, f"dimensions={ints(dims)}, to_apply={comp.name}")


def window_text(size: list[int], strides: list[int] | None, padding: list[list[int]] | None,
                lhs: list[int] | None, rhs: list[int] | None, reversal: list[bool] | None = None) -> str:
    """HLO's window={size=2x2 stride=1x1 pad=0_1x0_1 lhs_dilate=.. rhs_dilate=..} (defaults left out)."""
    parts = [f"size={'x'.join(str(s) for s in size)}"]
    if strides and any(s != 1 for s in strides):
        parts.append("stride=" + "x".join(str(s) for s in strides))
    if padding and any(p != [0, 0] for p in padding):
        parts.append("pad=" + "x".join(f"{p[0]}_{p[1]}" for p in padding))
    if lhs and any(s != 1 for s in lhs):
        parts.append("lhs_dilate=" + "x".join(str(s) for s in lhs))
    if rhs and any(s != 1 for s in rhs):
        parts.append("rhs_dilate=" + "x".join(str(s) for s in rhs))
    if reversal and any(reversal):
        parts.append("rhs_reversal=" + "x".join("1" if r else "0" for r in reversal))
    return "window={" + " ".join(parts) + "}"


def padding_attr(view: OpView, rank: int) -> list[list[int]]:
    p = view.attr("padding")
    if p is None:
        return [[0, 0]] * rank
    if isinstance(p, Dense):
        p = p.values()
    if isinstance(p, int) and not isinstance(p, bool):  # a splat: dense<0> : tensor<4x2xi64>
        p = [[p, p]] * rank
    if not isinstance(p, list) or not all(isinstance(x, list) and len(x) == 2 for x in p):
        raise AttrError("padding must be an Nx2 list of integers", view.pos)
    return p


@register("stablehlo.reduce_window")
def _reduce_window(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    inputs, inits = _split_inputs(view, operands(scope, view))
    size = ints_attr(view, "window_dimensions")
    rank = len(size)
    window = window_text(size, ints_attr(view, "window_strides", default=[1] * rank), padding_attr(view, rank),
                         ints_attr(view, "base_dilations", default=[1] * rank),
                         ints_attr(view, "window_dilations", default=[1] * rank))
    comp = _reducer(t, view, inits)
    return _results(scope, "reduce-window", inputs + inits, view.out_types, f"{window}, to_apply={comp.name}")


@register("stablehlo.select_and_scatter")
def _select_and_scatter(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    ops = operands(scope, view)
    size = ints_attr(view, "window_dimensions")
    rank = len(size)
    window = window_text(size, ints_attr(view, "window_strides", default=[1] * rank), padding_attr(view, rank),
                         None, None)
    element = _scalar(ops[0].type)
    select = _body(t, view, 0, [element, element], "region")
    scatter = _body(t, view, 1, [_scalar(ops[2].type)] * 2, "region")
    return [scope.emitter.emit("select-and-scatter", ops, result_type(view),
                               f"{window}, select={select.name}, scatter={scatter.name}")]


def _bool_attr(view: OpView, name: str) -> bool:
    return view.attrs.get(name) is True


@register("stablehlo.scatter")
def _scatter(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    ops = operands(scope, view)
    n = (len(ops) - 1) // 2
    dn = view.attrs.get("scatter_dimension_numbers")
    if not isinstance(dn, dict):
        raise AttrError("stablehlo.scatter needs scatter_dimension_numbers = #stablehlo.scatter<...>", view.pos)
    attrs = [f"update_window_dims={ints(dn.get('update_window_dims', []))}",
             f"inserted_window_dims={ints(dn.get('inserted_window_dims', []))}",
             f"scatter_dims_to_operand_dims={ints(dn.get('scatter_dims_to_operand_dims', []))}",
             f"index_vector_dim={dn.get('index_vector_dim', 0)}"]
    if dn.get("input_batching_dims"):
        attrs.append(f"input_batching_dims={ints(dn['input_batching_dims'])}")
        attrs.append(f"scatter_indices_batching_dims={ints(dn.get('scatter_indices_batching_dims', []))}")
    if _bool_attr(view, "indices_are_sorted"):
        attrs.append("indices_are_sorted=true")
    if _bool_attr(view, "unique_indices"):
        attrs.append("unique_indices=true")
    comp = _body(t, view, 0, [_scalar(o.type) for o in ops[:n]] * 2, "region")
    attrs.append(f"to_apply={comp.name}")
    return _results(scope, "scatter", ops, view.out_types, ", ".join(attrs))


@register("stablehlo.sort")
def _sort(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    ops = operands(scope, view)
    dim = int_attr(view, "dimension", "dim", -1)
    if dim < 0:
        dim += ops[0].type.rank
    attrs = f"dimensions={{{dim}}}" + (", is_stable=true" if _bool_attr(view, "is_stable") else "")
    comp = _body(t, view, 0, [_scalar(o.type) for o in ops for _ in (0, 1)], "region")
    return _results(scope, "sort", ops, view.out_types, f"{attrs}, to_apply={comp.name}")


@register("stablehlo.while")
def _while(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    """The loop carry is one tuple (XLA's form); values the regions use from outside join the
    carry after the loop's own, passed through by the body unchanged."""
    if len(view.regions) != 2:
        raise AttrError("stablehlo.while needs 'cond { ... } do { ... }' regions", view.pos)
    if view.bindings:
        inits = [scope.lookup(v, p) for _, v, p in view.bindings]
        given: list[tuple[str, TensorType | None]] | None = [
            (n, ty) for (n, _, _), ty in zip(view.bindings, view.out_types)]
    else:
        inits, given = operands(scope, view), None
    cond_r, body_r = view.regions
    args = t.region_args(cond_r, given)
    body_args = t.region_args(body_r, given)
    if len(args) != len(inits) or len(body_args) != len(inits):
        raise TranslateError("stablehlo.while: the regions' arguments do not match its operands", view.pos)
    local = {n for n, _ in args} | {n for n, _ in body_args}
    captures = [n for n in dict.fromkeys(free_values(cond_r) + free_values(body_r)) if n not in local]
    outer = [scope.lookup(n, view.pos) for n in captures]
    em = scope.emitter
    carry_types = [v.type for v in inits + outer]
    cond, _ = _loop_region(t, cond_r, args, captures, carry_types, "region", passthrough=False)
    body, _ = _loop_region(t, body_r, body_args, captures, carry_types, "region", passthrough=True)
    em.pos = view.pos
    start = em.tuple(inits + outer) if len(carry_types) != 1 else inits[0]
    loop = em.emit("while", [start], start.type, f"condition={cond.name}, body={body.name}")
    if len(carry_types) == 1:
        return [loop]
    return em.untuple(loop)[:len(inits)]


def _loop_region(t: Translator, region: Region, args: list[tuple[str, TensorType]], captures: list[str],
                 carry: list[TensorType], hint: str, passthrough: bool) -> tuple[Computation, list[Value]]:
    from hlotools.text.stablehlo.emit import Emitter
    from hlotools.text.stablehlo.translate import Scope as _Scope
    comp = Computation(t.module.comp_name(t.module.fresh(hint)))
    em = Emitter(t.module, comp)
    em.pos = region.pos
    scope = _Scope(em)
    names = [n for n, _ in args] + captures
    if len(carry) == 1:
        values = [em.parameter(0, carry[0])]
    else:
        values = em.untuple(em.parameter(0, TensorType("", elements=tuple(carry)), "arg_tuple"))
    scope.values.update(zip(names, values))
    returned = t.block(region, scope)
    em.pos = region.pos
    if passthrough:
        returned = returned + values[len(args):]
        em.set_root(returned[0] if len(carry) == 1 else em.tuple(returned))
    else:
        if len(returned) != 1:
            raise TranslateError("the condition region of stablehlo.while must return one i1", region.pos)
        em.set_root(returned[0])
    t.module.computations.append(comp)
    return comp, values


def _branches(t: Translator, scope: Scope, view: OpView) -> tuple[list[str], list[Value]]:
    """Each branch as a computation of its captured values (one parameter, a tuple when there
    are several or none), as XLA's translation passes a branch its operands."""
    names: list[str] = []
    branch_ops: list[Value] = []
    em = scope.emitter
    for region in view.regions:
        captures = free_values(region)
        comp, captured = t.region_computation(region, [], "region", outer=scope, captures=captures,
                                              tuple_params=True, pos=region.pos)
        names.append(comp.name)
        em.pos = view.pos
        branch_ops.append(captured[0] if len(captured) == 1 else em.tuple(captured))
    return names, branch_ops


@register("stablehlo.case")
def _case(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    (index,) = operands(scope, view)
    names, branch_ops = _branches(t, scope, view)
    return _conditional(scope, view, [index] + branch_ops, f"branch_computations={{{', '.join(names)}}}")


@register("stablehlo.if")
def _if(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    (pred,) = operands(scope, view)
    names, branch_ops = _branches(t, scope, view)
    if len(names) != 2:
        raise AttrError("stablehlo.if needs two regions", view.pos)
    return _conditional(scope, view, [pred] + branch_ops,
                        f"true_computation={names[0]}, false_computation={names[1]}")


def _conditional(scope: Scope, view: OpView, ops: list[Value], attrs: str) -> list[Value]:
    types = view.out_types
    em = scope.emitter
    em.pos = view.pos
    if len(types) == 1:
        return [em.emit("conditional", ops, types[0], attrs)]
    return em.emit_multi("conditional", ops, types, attrs)


from hlotools.text.stablehlo import ops_linalg, ops_windows  # noqa: E402,F401
