"""stablehlo.custom_call -> custom-call: the target, its backend config (a string, or the typed-FFI
dictionary `mhlo.backend_config`), the API version, and the operand/result layouts JAX gives for
LAPACK-style calls (column-major buffers), written as HLO layouts."""
from __future__ import annotations

from typing import Any

from hlotools.text.stablehlo.attributes import AttrError, Dense
from hlotools.text.stablehlo.emit import Value
from hlotools.text.stablehlo.ops import operands, register, source_dict
from hlotools.text.stablehlo.reader import OpView
from hlotools.text.stablehlo.translate import Scope, Translator
from hlotools.text.stablehlo.types import TensorType


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _minor_to_major(layout: Any) -> list[int] | None:
    v = layout.values() if isinstance(layout, Dense) else layout
    return v if isinstance(v, list) and all(isinstance(d, int) for d in v) else None


def _laid_out(types: list[TensorType], layouts: Any) -> list[str]:
    """Shape texts, with the given minor-to-major layouts where there is one per type."""
    if not isinstance(layouts, list) or len(layouts) != len(types):
        return [t.text for t in types]
    out = []
    for t, layout in zip(types, layouts):
        minor = _minor_to_major(layout)
        out.append(t.text + ("{" + ",".join(map(str, minor)) + "}" if minor and t.dims else ""))
    return out


@register("stablehlo.custom_call")
def _custom_call(t: Translator, scope: Scope, view: OpView) -> list[Value]:
    target = view.symbol or view.attrs.get("call_target_name")
    if not isinstance(target, str):
        raise AttrError("expected 'custom_call @target(...)'", view.pos)
    attrs = [f'custom_call_target="{target}"']
    if view.attrs.get("has_side_effect") is True:
        attrs.append("custom_call_has_side_effect=true")
    config = view.attrs.get("mhlo.backend_config")
    if isinstance(config, dict):  # the typed-FFI attributes, their types kept (`{uplo = 76 : ui8}`)
        written = source_dict(t.lines, view, "mhlo.backend_config")
        attrs.append("backend_config=" + (written or "{" + ", ".join(f"{k} = {v}" for k, v in config.items()) + "}"))
    elif isinstance(view.attrs.get("backend_config"), str) and view.attrs["backend_config"]:
        attrs.append(f"backend_config={_quote(view.attrs['backend_config'])}")
    if view.attrs.get("api_version") == 4 or isinstance(config, dict):
        attrs.append("api_version=API_VERSION_TYPED_FFI")
    ops = operands(scope, view)
    results = _laid_out(view.out_types, view.attrs.get("result_layouts"))
    layouts = view.attrs.get("operand_layouts")
    if isinstance(layouts, list) and len(layouts) == len(ops):
        attrs.append("operand_layout_constraints={" + ", ".join(_laid_out([o.type for o in ops], layouts)) + "}")
    aliasing = _aliasing(view.attrs.get("output_operand_aliases"))
    if aliasing:
        attrs.append(aliasing)
    em = scope.emitter
    if len(view.out_types) == 1:
        return [em.emit("custom-call", ops, view.out_types[0], ", ".join(attrs), shape_text=results[0])]
    whole = TensorType("", elements=tuple(view.out_types))
    v = em.emit("custom-call", ops, whole, ", ".join(attrs), shape_text="(" + ", ".join(results) + ")")
    return em.untuple(v)


def _aliasing(aliases: Any) -> str:
    """`[#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, ...>]` ->
    HLO's `output_to_operand_aliasing={{0}: (0, {})}` (or '')."""
    if not isinstance(aliases, list) or not aliases or not all(isinstance(a, dict) for a in aliases):
        return ""
    def index(v: Any) -> str:
        return "{" + ",".join(str(i) for i in v) + "}" if isinstance(v, list) else "{}"
    pairs = [f"{index(a.get('output_tuple_indices'))}: ({a.get('operand_index', 0)}, "
             f"{index(a.get('operand_tuple_indices'))})" for a in aliases]
    return "output_to_operand_aliasing={" + ", ".join(pairs) + "}"
