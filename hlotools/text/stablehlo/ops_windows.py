"""Translators of gather and convolution: dimension numbers into HLO's attribute spelling."""
from __future__ import annotations

from typing import Any

from hlotools.text.stablehlo.attributes import AttrError, Dense, value
from hlotools.text.stablehlo.emit import Value, ints
from hlotools.text.stablehlo.ops import int_attr, ints_attr, operands, register, result_type
from hlotools.text.stablehlo.ops_regions import padding_attr, window_text
from hlotools.text.stablehlo.reader import OpView
from hlotools.text.stablehlo.syntax import Group
from hlotools.text.stablehlo.translate import Scope, Translator


@register("stablehlo.gather")
def _gather(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    dn = view.attrs.get("dimension_numbers")
    if not isinstance(dn, dict):
        raise AttrError("stablehlo.gather needs dimension_numbers = #stablehlo.gather<...>", view.pos)
    attrs = [f"offset_dims={ints(dn.get('offset_dims', []))}",
             f"collapsed_slice_dims={ints(dn.get('collapsed_slice_dims', []))}",
             f"start_index_map={ints(dn.get('start_index_map', []))}",
             f"index_vector_dim={dn.get('index_vector_dim', 0)}",
             f"slice_sizes={ints(ints_attr(view, 'slice_sizes'))}"]
    if dn.get("operand_batching_dims"):
        attrs.insert(2, f"operand_batching_dims={ints(dn['operand_batching_dims'])}")
        attrs.insert(3, f"start_indices_batching_dims={ints(dn.get('start_indices_batching_dims', []))}")
    if view.attrs.get("indices_are_sorted") is True:
        attrs.append("indices_are_sorted=true")
    return [scope.emitter.emit("gather", operands(scope, view), result_type(view), ", ".join(attrs))]


def _labels(layout: list[Any], kind: str) -> str:
    """[b, 0, 1, f] -> 'b01f' (kind 'io' for the kernel: [0, 1, i, o] -> '01io')."""
    return "".join(str(x) for x in layout)


def _pretty_dim_numbers(items: list[Any], pos: int) -> tuple[list[Any], list[Any], list[Any]]:
    groups = [it for it in items if isinstance(it, Group) and it.kind == "["]
    if len(groups) != 3:
        raise AttrError("expected 'dim_numbers = [..]x[..]->[..]'", pos)
    out = []
    for g in groups:
        out.append([it[1] for it in g.items if isinstance(it, tuple) and it[0] in ("BARE", "NUMBER")])
    return out[0], out[1], out[2]


def _raw_dim_numbers(d: dict[str, Any]) -> tuple[list[Any], list[Any], list[Any]]:
    """#stablehlo.conv<raw input_batch_dimension = 0, ...> -> the three label lists."""
    def layout(batch: str, feature: str, spatial: str, prefix: str, b: str, f: str) -> list[Any]:
        rank = 2 + len(d.get(prefix + spatial, []))
        out: list[Any] = [None] * rank
        out[d[prefix + batch]] = b
        out[d[prefix + feature]] = f
        for k, s in enumerate(d.get(prefix + spatial, [])):
            out[s] = str(k)
        return out
    first = {k.removeprefix("raw ").strip(): v for k, v in d.items()}
    d = first
    return (layout("batch_dimension", "feature_dimension", "spatial_dimensions", "input_", "b", "f"),
            layout("output_feature_dimension", "input_feature_dimension", "spatial_dimensions", "kernel_", "o", "i"),
            layout("batch_dimension", "feature_dimension", "spatial_dimensions", "output_", "b", "f"))


@register("stablehlo.convolution")
def _convolution(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    lhs, rhs = operands(scope, view)
    dn_items = view.kw.get("dim_numbers")
    if dn_items is not None:
        inp, ker, out = _pretty_dim_numbers(dn_items, view.pos)
        window = value(view.kw["window"]) if "window" in view.kw else {}
        strides, pad = window.get("stride"), window.get("pad")
        lhs_d, rhs_d, rev = window.get("lhs_dilate"), window.get("rhs_dilate"), window.get("reverse")
    else:
        dn = view.attrs.get("dimension_numbers")
        if isinstance(dn, dict):
            inp, ker, out = _raw_dim_numbers(dn)
        else:
            raise AttrError("stablehlo.convolution needs dimension numbers", view.pos)
        rank = len(ker) - 2
        strides = ints_attr(view, "window_strides", default=[1] * rank)
        pad = padding_attr(view, rank)
        lhs_d = ints_attr(view, "lhs_dilation", default=[1] * rank)
        rhs_d = ints_attr(view, "rhs_dilation", default=[1] * rank)
        rev_v = view.attrs.get("window_reversal")
        rev = rev_v.values() if isinstance(rev_v, Dense) else rev_v
    spatial = [str(k) for k in range(len(ker) - 2)]
    size = [rhs.type.dims[ker.index(s)] for s in spatial]
    if isinstance(pad, Dense):
        pad = pad.values()
    attrs = [window_text(size, strides, pad, lhs_d, rhs_d, rev),
             f"dim_labels={_labels(inp, 'bf')}_{_labels(ker, 'io')}->{_labels(out, 'bf')}"]
    fgc = int_attr(view, "feature_group_count", default=1)
    bgc = int_attr(view, "batch_group_count", default=1)
    if fgc != 1:
        attrs.append(f"feature_group_count={fgc}")
    if bgc != 1:
        attrs.append(f"batch_group_count={bgc}")
    prec = view.attrs.get("precision_config")
    if isinstance(prec, list) and any(str(p).lower() != "default" for p in prec):
        attrs.append("operand_precision={" + ",".join(str(p).lower() for p in prec) + "}")
    return [scope.emitter.emit("convolution", [lhs, rhs], result_type(view), ", ".join(attrs))]
