"""THE opcode table: every HLO opcode described once.

Parser checks (is the result shape optional?), shape inference and the verifier (arity,
category), CSE (commutative, side effects), DCE (side effects), fusion (elementwise,
expensive) and the interpreter/codegen dispatch all read this table.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack needs 3.11; only mypy reads it

VARIADIC = -1


@dataclass(frozen=True)
class OpcodeInfo:
    """One row of the opcode table: what every consumer of the IR asks about an opcode."""
    name: str
    arity: int  # exact operand count, or VARIADIC
    category: str  # see CATEGORIES
    shape_optional: bool = True  # may the text omit the result shape (XLA can infer it)?
    commutative: bool = False
    side_effect: bool = False  # never removed by DCE, never merged by CSE
    expensive: bool = False  # never duplicated into several fusion consumers
    min_operands: int = 0  # for VARIADIC opcodes

    @property
    def is_elementwise(self) -> bool:
        return self.category in ("unary", "binary", "compare", "select", "clamp", "convert")


CATEGORIES = (
    "unary", "binary", "compare", "select", "clamp", "convert",  # elementwise
    "reduction", "data", "linalg", "control", "collective", "source", "async", "misc",
)

OPCODES: dict[str, OpcodeInfo] = {}


class _Flags(TypedDict, total=False):
    """The keyword flags of `_add`: OpcodeInfo's defaulted fields, so a misspelt flag is a type error."""
    shape_optional: bool
    commutative: bool
    side_effect: bool
    expensive: bool
    min_operands: int


def _add(names: str, arity: int, category: str, **kw: Unpack[_Flags]) -> None:
    for name in names.split():
        OPCODES[name] = OpcodeInfo(name, arity, category, **kw)


V = VARIADIC
# Elementwise unary.
_add("abs ceil floor negate not sign is-finite popcnt count-leading-zeros real imag "
     "round-nearest-afz round-nearest-even copy", 1, "unary")
_add("exponential exponential-minus-one log log-plus-one logistic sqrt rsqrt cbrt sine cosine "
     "tan tanh sinh cosh erf acos acosh asin asinh atanh", 1, "unary", expensive=True)
_add("opt-barrier", 1, "misc", side_effect=True)
_add("bitcast", 1, "data", shape_optional=False)
_add("convert bitcast-convert", 1, "convert", shape_optional=False)
_add("reduce-precision", 1, "unary", shape_optional=False)
# Elementwise binary.
_add("add multiply maximum minimum and or xor", 2, "binary", commutative=True)
_add("mulhi", 2, "binary", commutative=True, shape_optional=True)
_add("subtract shift-left shift-right-arithmetic shift-right-logical complex", 2, "binary")
_add("divide remainder power atan2", 2, "binary", expensive=True)
_add("stochastic-convert", 2, "convert", shape_optional=False)
_add("compare", 2, "compare")
_add("select", 3, "select")
_add("clamp", 3, "clamp")
# Reductions and windows.
# XLA's HloInstruction::IsExpensive also lists the reductions, gather/scatter, sort, map and rng.
_add("reduce", V, "reduction", min_operands=2, expensive=True)
_add("reduce-window", V, "reduction", min_operands=2, expensive=True)
_add("select-and-scatter", 3, "reduction", expensive=True)
_add("scan", V, "reduction", expensive=True)
# Data movement.
_add("broadcast transpose reverse get-tuple-element", 1, "data")
_add("reshape slice", 1, "data", shape_optional=False)
_add("dynamic-reshape", V, "data", shape_optional=False, min_operands=1)
_add("dynamic-slice", V, "data", shape_optional=False, min_operands=1)
_add("dynamic-update-slice", V, "data", shape_optional=False, min_operands=2)
_add("concatenate", V, "data", min_operands=1)
_add("pad", 2, "data")
_add("gather", 2, "data", expensive=True)
_add("scatter", V, "data", min_operands=3, expensive=True)
_add("iota", 0, "source", shape_optional=False)
_add("tuple", V, "data")
_add("sort", V, "data", min_operands=1, expensive=True)
_add("topk", 1, "data", expensive=True)
_add("get-dimension-size", 1, "data")
_add("set-dimension-size", 2, "data")
# Linear algebra / numerics.
_add("dot", 2, "linalg", expensive=True)
_add("ragged-dot", 3, "linalg", expensive=True)
_add("scaled-dot", 4, "linalg", expensive=True)
_add("convolution", 2, "linalg", expensive=True)
_add("fft", 1, "linalg", expensive=True)
_add("cholesky", 1, "linalg", expensive=True)
_add("triangular-solve", 2, "linalg", expensive=True)
_add("batch-norm-training", 3, "linalg", expensive=True)
_add("batch-norm-inference", 5, "linalg", expensive=True)
_add("batch-norm-grad", 5, "linalg", expensive=True)
# Control flow / calls.
_add("while", 1, "control", expensive=True)
_add("conditional", V, "control", expensive=True, min_operands=1)
_add("call", V, "control", expensive=True)
_add("fusion", V, "control", shape_optional=False, expensive=True)
_add("map", V, "control", min_operands=1, expensive=True)
_add("custom-call", V, "control", shape_optional=False, side_effect=False, expensive=True)
_add("domain", 1, "misc")
_add("async-start", V, "async", shape_optional=False, side_effect=True)
# async-update may bind further operands of the wrapped computation (late binding, XLA 2026-08).
_add("async-update", V, "async", shape_optional=False, side_effect=True, min_operands=1)
_add("async-done", 1, "async", shape_optional=False, side_effect=True)
# Collectives and communication (single-device semantics in the interpreter).
_add("all-reduce all-reduce-start reduce-scatter all-gather all-gather-start all-to-all "
     "collective-broadcast", V, "collective", shape_optional=False, side_effect=True)
_add("ragged-all-to-all", 6, "collective", shape_optional=False, side_effect=True)
_add("collective-permute collective-permute-start", V, "collective", shape_optional=False,
     side_effect=True, min_operands=1)
_add("all-reduce-done all-gather-done collective-permute-done", 1, "collective",
     shape_optional=False, side_effect=True)
_add("copy-start", 1, "async", shape_optional=False)
_add("copy-done", 1, "async", shape_optional=False)
_add("send", 2, "collective", shape_optional=False, side_effect=True)
_add("send-done recv-done", 1, "collective", shape_optional=False, side_effect=True)
_add("recv", 1, "collective", shape_optional=False, side_effect=True)
_add("infeed", 1, "collective", shape_optional=False, side_effect=True)
_add("outfeed", 2, "collective", shape_optional=False, side_effect=True)
_add("replica-id partition-id", 0, "source")
_add("after-all", V, "misc")
_add("add-dependency", 2, "misc")
# Sources.
_add("parameter", 0, "source", shape_optional=False)
_add("constant", 0, "source", shape_optional=False)
_add("rng", V, "source", shape_optional=False, side_effect=True, expensive=True)
_add("rng-bit-generator", 1, "source", shape_optional=False, expensive=True)
_add("rng-get-and-update-state", 0, "source", shape_optional=False, side_effect=True)

ELEMENTWISE_UNARY = frozenset(n for n, i in OPCODES.items() if i.category == "unary")
ELEMENTWISE_BINARY = frozenset(n for n, i in OPCODES.items() if i.category == "binary")


def opcode_info(name: str) -> OpcodeInfo | None:
    return OPCODES.get(name)


# -- attributes per opcode (what XLA's parser accepts; `parse_checks` enforces it) ----------
# Every instruction accepts SHARED_ATTRIBUTES. OPCODE_ATTRIBUTES[opcode] = (required, optional);
# an opcode missing from the table takes only the shared ones. Context-dependent cases
# (broadcast of a scalar, pred/s32 conditionals, async-start's `calls`) are handled where
# the operands are known.
SHARED_ATTRIBUTES = frozenset(["sharding", "frontend_attributes", "statistics", "parameter_replication",
                               "control-predecessors", "origin", "metadata", "backend_config"])
_RESULT_ACCURACY_OPS = ("acos acosh asin asinh atanh exponential-minus-one log log-plus-one logistic sqrt "
                        "cbrt rsqrt tanh erf sine sinh cosine cosh tan exponential")
_DOT_DIMS = "lhs_contracting_dims rhs_contracting_dims lhs_batch_dims rhs_batch_dims operand_precision"
_COLLECTIVE = "replica_groups channel_id constrain_layout use_global_device_ids"
OPCODE_ATTRIBUTES: dict[str, tuple[frozenset[str], frozenset[str]]] = {}


def _attrs(names: str, required: str = "", optional: str = "") -> None:
    for name in names.split():
        OPCODE_ATTRIBUTES[name] = (frozenset(required.split()), frozenset(optional.split()))


_attrs(_RESULT_ACCURACY_OPS, optional="result_accuracy")
_attrs("iota", "iota_dimension")
_attrs("topk", "k", "largest is_stable")
_attrs("all-gather all-gather-start", "dimensions", _COLLECTIVE)
_attrs("all-reduce all-reduce-start", "to_apply", _COLLECTIVE + " mode")
_attrs("reduce-scatter", "to_apply dimensions", _COLLECTIVE + " mode")
_attrs("all-to-all", "", "replica_groups channel_id dimensions constrain_layout")
_attrs("ragged-all-to-all", "", "replica_groups channel_id dimensions")
_attrs("collective-broadcast", "", "has_dynamic_root replica_groups channel_id")
_attrs("collective-permute collective-permute-start", "source_target_pairs", "channel_id slice_sizes")
_attrs("async-start", "calls", "async_execution_thread output_to_operand_aliasing")
_attrs("async-update", "", "calls async_execution_thread output_to_operand_aliasing")
_attrs("async-done", "", "calls async_execution_thread")
_attrs("copy-start", "", "cross_program_prefetch_index")
_attrs("reshape", "", "inferred_dimension")
_attrs("sort", "dimensions to_apply", "is_stable")
_attrs("while", "condition body")
_attrs("recv recv-done send send-done", "", "channel_id is_host_transfer")
_attrs("get-tuple-element", "index")
_attrs("call", "to_apply", "is_composite")
_attrs("reduce-window", "to_apply", "window")
_attrs("convolution", "dim_labels", "window feature_group_count batch_group_count convolution_kind "
       "operand_precision algorithm sparsity_config block_scaling_config")
_attrs("fft", "fft_type fft_length")
_attrs("triangular-solve", "", "left_side lower unit_diagonal transpose_a")
_attrs("compare", "direction", "order type")
_attrs("cholesky", "", "lower")
_attrs("broadcast", "dimensions")
_attrs("concatenate reverse transpose get-dimension-size set-dimension-size", "dimensions")
_attrs("map", "to_apply", "dimensions")
_attrs("scan", "to_apply dimensions num_carries", "is_reverse is_associative")
_attrs("reduce", "to_apply dimensions")
_attrs("select-and-scatter", "select scatter", "window")
_attrs("slice", "slice")
_attrs("dynamic-slice", "dynamic_slice_sizes")
_attrs("batch-norm-training batch-norm-inference batch-norm-grad", "epsilon feature_index")
_attrs("pad", "padding")
_attrs("fusion", "calls kind", "output_to_operand_aliasing")
_attrs("infeed", "", "infeed_config")
_attrs("outfeed", "", "outfeed_config outfeed_shape")
_attrs("rng", "distribution")
_attrs("rng-get-and-update-state", "delta")
_attrs("rng-bit-generator", "algorithm")
_attrs("reduce-precision", "exponent_bits mantissa_bits")
_attrs("conditional", "", "true_computation false_computation branch_computations")
_attrs("custom-call", "custom_call_target", "window dim_labels feature_group_count batch_group_count "
       "operand_layout_constraints custom_call_has_side_effect to_apply called_computations "
       "output_to_operand_aliasing padding_type literal operand_precision schedule api_version")
_attrs("dot", "", _DOT_DIMS + " algorithm")
_attrs("ragged-dot", "", _DOT_DIMS + " lhs_ragged_dims rhs_group_dims")
_attrs("scaled-dot", "", _DOT_DIMS + " algorithm")
_attrs("gather", "offset_dims collapsed_slice_dims start_index_map index_vector_dim slice_sizes",
       "indices_are_sorted operand_batching_dims start_indices_batching_dims")
_attrs("scatter", "update_window_dims inserted_window_dims scatter_dims_to_operand_dims index_vector_dim "
       "to_apply", "indices_are_sorted unique_indices input_batching_dims scatter_indices_batching_dims")
_attrs("domain", "domain")

# Opcodes whose operand count XLA's parser checks against `arity` ("expects N operands, but has M").
PARSER_CHECKS_ARITY = frozenset(n for n, i in OPCODES.items() if i.arity != VARIADIC) - frozenset(
    ["dot", "async-update", "async-done", "ragged-all-to-all"])


def allowed_attributes(opcode: str) -> frozenset[str]:
    req, opt = OPCODE_ATTRIBUTES.get(opcode, (frozenset(), frozenset()))
    return SHARED_ATTRIBUTES | req | opt
