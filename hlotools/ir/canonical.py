"""XLA's canonical form of an instruction's attributes: the order XLA writes them in, and the
defaults it leaves out (which its parser fills back in).

The order is hlo_instructions.cc's PrintExtraAttributesImpl overrides, then
HloInstruction::PrintExtraAttributes and PrintWithCanonicalNameMap for the shared ones, and
HloModule::Print's for the header. The printer writes this form and Module.clone() builds it, so
that a copy is what parsing the printed text gives (text/printer.py adds the spelling).
"""
from __future__ import annotations

from typing import Any

from hlotools.ir.attributes import Enum, Raw, Window
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODE_ATTRIBUTES

# Opcode-specific attributes in the order XLA's PrintExtraAttributesImpl overrides
# (hlo_instructions.cc) write them. One global order fits every opcode except reduce-scatter
# (use_global_device_ids before dimensions). Attributes not listed keep their IR order after
# the listed ones.
OPCODE_ATTR_ORDER = {name: float(i) for i, name in enumerate((
    "async_execution_thread", "cross_program_prefetch_index", "epsilon", "feature_index",
    "fft_type", "fft_length", "direction", "type", "left_side", "lower", "unit_diagonal",
    "transpose_a", "k", "largest", "channel_id", "replica_groups", "constrain_layout",
    "dimensions", "use_global_device_ids", "is_host_transfer", "source_target_pairs", "is_stable",
    "inferred_dimension", "slice", "distribution", "parameter_replication", "index",
    "exponent_bits", "mantissa_bits", "infeed_config", "outfeed_shape", "outfeed_config",
    "window", "dim_labels", "feature_group_count", "batch_group_count", "lhs_batch_dims",
    "lhs_contracting_dims", "rhs_batch_dims", "rhs_contracting_dims", "lhs_ragged_dims",
    "rhs_group_dims", "operand_precision", "algorithm", "sparsity", "padding_type",
    "custom_call_target", "operand_layout_constraints", "custom_call_has_side_effect", "literal",
    "kind", "output_to_operand_aliasing", "schedule", "api_version", "padding",
    "dynamic_slice_sizes", "offset_dims", "collapsed_slice_dims", "start_index_map",
    "operand_batching_dims", "start_indices_batching_dims", "update_window_dims",
    "inserted_window_dims", "scatter_dims_to_operand_dims", "input_batching_dims",
    "scatter_indices_batching_dims", "index_vector_dim", "slice_sizes", "indices_are_sorted",
    "unique_indices", "iota_dimension", "domain", "delta"))}
OPCODE_ORDER_OVERRIDES = {
    "reduce-scatter": {"use_global_device_ids": OPCODE_ATTR_ORDER["dimensions"] - 0.5},
}
UNLISTED = float(len(OPCODE_ATTR_ORDER))
# Called-computation attributes, in the order HloInstruction::PrintExtraAttributes writes them.
CALLED_ORDER = {name: i for i, name in enumerate(
    ("condition", "body", "select", "scatter", "true_computation", "false_computation",
     "branch_computations", "to_apply", "is_composite", "called_computations", "calls"))}
# Attributes every instruction may carry, printed last, in this order.
TAIL_ORDER = {name: i for i, name in enumerate(
    ("sharding", "frontend_attributes", "control-predecessors", "statistics", "result_accuracy",
     "origin", "metadata", "backend_config"))}
# HloModule::Print's header order; attributes not listed follow in the order the IR holds them.
HEADER_ORDER = {name: i for i, name in enumerate(
    ("is_scheduled", "input_output_alias", "buffer_donor", "alias_passthrough_params",
     "entry_computation_layout", "allow_spmd_sharding_propagation_to_parameters",
     "allow_spmd_sharding_propagation_to_output", "replica_count", "num_partitions",
     "frontend_attributes", "origin_recovery_table", "debug_attributes"))}


# Attributes XLA leaves out when they hold their default (the parser fills the default back).
_DEFAULTS: dict[str, object] = {
    "feature_group_count": 1, "batch_group_count": 1, "inferred_dimension": -1,
    "is_stable": False, "indices_are_sorted": False, "unique_indices": False,
    "constrain_layout": False, "use_global_device_ids": False, "custom_call_has_side_effect": False,
    "is_host_transfer": False, "is_composite": False, "async_execution_thread": "main",
    "api_version": "API_VERSION_ORIGINAL", "schedule": "SCHEDULE_NONE", "padding_type": "PADDING_INVALID",
    "algorithm": "UNSET",
}
MAYBE_DEFAULT = frozenset(_DEFAULTS) | {"window", "type", "operand_precision"}
_WINDOWED = frozenset(n for n, (req, opt) in OPCODE_ATTRIBUTES.items() if "window" in req | opt)


def is_default_attr(inst: Instruction, name: str, value: Any) -> bool:
    """True when XLA would not print this attribute (it holds the value XLA assumes)."""
    if name not in MAYBE_DEFAULT:
        return False
    if name == "window":
        return isinstance(value, Window) and not value.dims and inst.opcode in _WINDOWED
    if name == "type":  # compare: the default comparison type of the operands' element type
        if inst.opcode != "compare" or not inst.operands or not isinstance(value, Enum):
            return False
        et = inst.operands[0].shape.element_type
        if et is None:
            return False
        kind = "SIGNED" if et.kind == "signed" else "UNSIGNED" if et.kind in ("unsigned", "pred") else "FLOAT"
        return value.upper() == kind
    if name == "is_stable" and inst.opcode != "sort":
        return False  # topk prints is_stable=false explicitly
    if name == "operand_precision":
        text = str(value).strip()
        return (isinstance(value, Raw) and text.startswith("{") and text.endswith("}")
                and all(p.strip().lower() == "default" for p in text[1:-1].split(",") if p.strip()))
    default = _DEFAULTS[name]
    if isinstance(default, bool):
        return isinstance(value, bool) and value is default
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool) and value == default
    return isinstance(value, str) and value.upper() == str(default).upper()


def precision_text(value: Raw) -> str:
    """operand_precision={default,high}: XLA writes the names lowercase, comma-joined."""
    text = value.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return str(value)
    words = [w.strip() for w in text[1:-1].split(",")]
    if not all(w.replace("_", "").isalnum() for w in words if w):
        return str(value)
    return "{" + ",".join(w.lower() for w in words if w) + "}"


def attr_order(inst: Instruction) -> list[str]:
    """Attribute names in XLA's canonical order, with `control-predecessors` where XLA prints
    them (memoised per opcode and name set)."""
    key = (inst.opcode, bool(inst.control_predecessors), *inst.attrs)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _make_plan(inst)
        if len(_PLANS) < 100_000:
            _PLANS[key] = plan
    return plan


_PLANS: dict[tuple, list[str]] = {}


def _make_plan(inst: Instruction) -> list[str]:
    override = OPCODE_ORDER_OVERRIDES.get(inst.opcode)
    ranked: list[tuple[int, float, int, str]] = []
    for pos, (name, value) in enumerate(inst.attrs.items()):
        if name in TAIL_ORDER:
            ranked.append((2, TAIL_ORDER[name], pos, name))
        elif name in CALLED_ORDER and (name == "is_composite" or _is_computation_value(value)):
            ranked.append((1, CALLED_ORDER[name], pos, name))
        else:
            rank = OPCODE_ATTR_ORDER.get(name, UNLISTED)
            if override is not None:
                rank = override.get(name, rank)
            ranked.append((0, rank, pos, name))
    if inst.control_predecessors:
        ranked.append((2, TAIL_ORDER["control-predecessors"], -1, "control-predecessors"))
    ranked.sort()
    return [name for *_, name in ranked]


def _is_computation_value(value: Any) -> bool:
    if isinstance(value, Computation):
        return True
    return isinstance(value, (tuple, list)) and all(isinstance(c, Computation) for c in value)


def canonical_attrs(inst: Instruction) -> dict[str, Any]:
    """`inst`'s attributes as the parser reads its printed line back: in canonical order,
    without the defaults and cleared (None) values, operand_precision spelt as printed."""
    attrs = inst.attrs
    if not attrs:
        return {}
    out: dict[str, Any] = {}
    for name in attr_order(inst):
        if name == "control-predecessors":
            continue
        value = attrs[name]
        if value is None or (name in MAYBE_DEFAULT and is_default_attr(inst, name, value)):
            continue
        if name == "operand_precision" and isinstance(value, Raw):
            value = Raw(precision_text(value))
        out[name] = value
    return out


def header_order(attrs: dict[str, Any]) -> dict[str, Any]:
    """Module header attributes in HloModule::Print's order (unknown names keep theirs)."""
    position = {name: i for i, name in enumerate(attrs)}
    return dict(sorted(attrs.items(), key=lambda kv: (HEADER_ORDER.get(kv[0], len(HEADER_ORDER)), position[kv[0]])))
