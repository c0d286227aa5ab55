"""Translators of the linear-algebra, batch-norm, map and collective ops (rarer in JAX output, but
in the StableHLO spec and in the opcode table)."""
from __future__ import annotations

from hlotools.text.stablehlo.attributes import AttrError, Dense
from hlotools.text.stablehlo.emit import Value, ints
from hlotools.text.stablehlo.ops import int_attr, ints_attr, operands, register, result_type
from hlotools.text.stablehlo.ops_regions import _body, _results, _scalar
from hlotools.text.stablehlo.reader import OpView
from hlotools.text.stablehlo.translate import Scope, Translator


def _flag(view: OpView, name: str) -> str:
    return "true" if view.attr(name) is True else "false"


@register("stablehlo.cholesky")
def _cholesky(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    return [scope.emitter.emit("cholesky", operands(scope, view), result_type(view), f"lower={_flag(view, 'lower')}")]


@register("stablehlo.triangular_solve")
def _triangular_solve(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    transpose = str(view.attr("transpose_a", default="NO_TRANSPOSE"))
    if transpose not in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
        raise AttrError(f"unknown transpose_a '{transpose}'", view.pos)
    attrs = (f"left_side={_flag(view, 'left_side')}, lower={_flag(view, 'lower')}, "
             f"unit_diagonal={_flag(view, 'unit_diagonal')}, transpose_a={transpose}")
    return [scope.emitter.emit("triangular-solve", operands(scope, view), result_type(view), attrs)]


def _batch_norm(opcode: str):  # type: ignore[no-untyped-def]
    def translate(t: Translator, scope: Scope, view: OpView) -> list[Value]:
        eps = view.attr("epsilon")
        if not isinstance(eps, (int, float)) or isinstance(eps, bool):
            raise AttrError(f"'{view.name}' needs a float epsilon", view.pos)
        attrs = f"epsilon={float(eps)!r}, feature_index={int_attr(view, 'feature_index')}"
        return _results(scope, opcode, operands(scope, view), view.out_types, attrs)
    return translate


for _op in ("training", "inference", "grad"):
    register(f"stablehlo.batch_norm_{_op}")(_batch_norm(f"batch-norm-{_op}"))


@register("stablehlo.map")
def _map(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    ops = operands(scope, view)
    comp = _body(t, view, 0, [_scalar(o.type) for o in ops], "region")
    dims = ints_attr(view, "dimensions")
    return [scope.emitter.emit("map", ops, result_type(view), f"dimensions={ints(dims)}, to_apply={comp.name}")]


@register("stablehlo.replica_id", "stablehlo.partition_id")
def _ids(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    opcode = "replica-id" if view.name.endswith("replica_id") else "partition-id"
    return [scope.emitter.emit(opcode, [], result_type(view))]


def _collective_attrs(view: OpView) -> list[str]:
    """replica_groups (a dense<[[0, 1], ...]> of i64), channel_handle and use_global_device_ids."""
    out = []
    groups = view.attr("replica_groups")
    if isinstance(groups, Dense):
        rows = groups.values()
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise AttrError("replica_groups must be a 2-d list of device ids", view.pos)
        out.append("replica_groups={" + ",".join("{" + ",".join(str(d) for d in r) + "}" for r in rows) + "}")
    channel = view.attr("channel_handle")
    if isinstance(channel, dict) and isinstance(channel.get("handle"), int) and channel["handle"] > 0:
        out.append(f"channel_id={channel['handle']}")
    if view.attr("use_global_device_ids") is True:
        out.append("use_global_device_ids=true")
    return out


@register("stablehlo.all_reduce")
def _all_reduce(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    ops = operands(scope, view)
    comp = _body(t, view, 0, [_scalar(ops[0].type)] * 2, "region")
    attrs = ", ".join(_collective_attrs(view) + [f"to_apply={comp.name}"])
    return _results(scope, "all-reduce", ops, view.out_types, attrs)


@register("stablehlo.all_gather")
def _all_gather(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    d = int_attr(view, "all_gather_dim")
    attrs = ", ".join([f"dimensions={{{d}}}"] + _collective_attrs(view))
    return _results(scope, "all-gather", operands(scope, view), view.out_types, attrs)


_RAGGED_KEYS = ("lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
                "rhs_contracting_dimensions", "lhs_ragged_dimensions", "rhs_group_dimensions")


def _ragged_dot(scope: Scope, view: OpView, dims: list, precision: object) -> list[Value]:
    """HLO's ragged-dot from the six dimension lists (batch, contracting, ragged, group)."""
    lb, rb, lc, rc, lr, rg = dims
    attrs = []
    if lb or rb:
        attrs += [f"lhs_batch_dims={ints(lb)}", f"rhs_batch_dims={ints(rb)}"]
    attrs += [f"lhs_contracting_dims={ints(lc)}", f"rhs_contracting_dims={ints(rc)}",
              f"lhs_ragged_dims={ints(lr)}", f"rhs_group_dims={ints(rg)}"]
    if isinstance(precision, list) and any(str(p).lower() != "default" for p in precision):
        attrs.append("operand_precision={" + ",".join(str(p).lower() for p in precision) + "}")
    return [scope.emitter.emit("ragged-dot", operands(scope, view), result_type(view), ", ".join(attrs))]


def _index_list(v: object, view: OpView) -> list[int]:
    v = v.values() if isinstance(v, Dense) else v
    if not isinstance(v, list) or not all(type(x) is int for x in v):
        raise AttrError("ragged_dot dimension numbers must be lists of integers", view.pos)
    return v


@register("chlo.ragged_dot")
def _chlo_ragged_dot(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    dn = view.attr("ragged_dot_dimension_numbers")
    if not isinstance(dn, dict):
        raise AttrError("chlo.ragged_dot needs ragged_dot_dimension_numbers = #chlo.ragged_dot<...>", view.pos)
    return _ragged_dot(scope, view, [_index_list(dn.get(k, []), view) for k in _RAGGED_KEYS],
                       view.attr("precision_config"))


def ragged_dot_composite(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    """The `stablehlo.composite "chlo.ragged_dot"` JAX exports for TPU and GPU: ragged-dot, as
    XLA's translation makes of it (its attributes: the six dimension lists, the precisions)."""
    attrs = view.attrs.get("composite_attributes")
    dn = attrs.get("ragged_dot_dimension_numbers") if isinstance(attrs, dict) else None
    if not isinstance(attrs, dict) or not isinstance(dn, list) or len(dn) != len(_RAGGED_KEYS):
        raise AttrError("composite chlo.ragged_dot needs its six ragged_dot_dimension_numbers", view.pos)
    return _ragged_dot(scope, view, [_index_list(d, view) for d in dn], attrs.get("precision_config"))
