"""THE opcode table: every HLO opcode described once.

Parser checks (is the result shape optional?), shape inference and the verifier (arity,
category, operand types), CSE (commutative, side effects), DCE (side effects), fusion
(elementwise, expensive, reuses operand elements), the call graph (calls), the async sugar
(native async forms), algsimp and the reduction kernels (the reducer algebra) and the
interpreter/codegen dispatch all read this table. Each trait group below states its law;
a consumer whose rule differs from a trait keeps that exception next to itself, saying why.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypedDict, get_args

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack needs 3.11; only mypy reads it

VARIADIC = -1

# Symbolic identities of a reducer, resolved per element type by `reducer_identity`.
LOWEST = "lowest"  # -inf for floats, the minimum for integers (0 unsigned)
HIGHEST = "highest"  # +inf for floats, the maximum for integers
ALL_ONES = "all-ones"  # every bit set: -1 signed, the maximum unsigned
Identity = float | str | None  # None: the opcode does not apply to that kind of element


@dataclass(frozen=True)
class Reducer:
    """The algebra of an opcode that can be a reduction's combiner (`to_apply` = op(p0, p1)).

    Every reducer is associative, f(f(a, b), c) = f(a, f(b, c)), and commutative, with an
    identity e: f(e, a) = a. On integers and pred that holds bit for bit; on floats only where
    no rounding happens (`exact_for_floats`), so reassociating a float sum changes its bits."""
    floating: Identity  # float and complex element types (complex: the real part; max/min of
    # complex numbers, which numpy orders lexicographically, have no exact identity)
    integer: Identity  # signed and unsigned element types
    pred: bool
    ufunc: str  # numpy's ufunc folding the same way on numbers
    pred_ufunc: str  # ... and on pred (add is or, multiply is and)
    exact_for_floats: bool = False  # reassociation keeps the bits of float results
    exact_for_ints: bool = True  # ... of integer results (two's-complement wraps associatively)
    dual: str = ""  # the opcode of the reversed order: max(a, b) = -min(-a, -b), select(a > b) swapped
    idempotent: bool = False  # f(a, a) = a: combining the init once more changes nothing
    # Float add: -0 is the identity bit for bit (+0 + -0 = +0), but XLA's algsimp takes an init of
    # either zero as the identity (it compares by value: IsAll(0)), and so does algsimp here.
    negative_zero: bool = False


# Reducer(identity on floating, integer, pred elements; numpy ufunc on numbers, on pred; laws).
_REDUCER_ADD = Reducer(0.0, 0, False, "add", "logical_or", negative_zero=True)
_REDUCER_MULTIPLY = Reducer(1.0, 1, True, "multiply", "logical_and")
_REDUCER_MAXIMUM = Reducer(LOWEST, LOWEST, False, "maximum", "logical_or",
                           exact_for_floats=True, dual="minimum", idempotent=True)
_REDUCER_MINIMUM = Reducer(HIGHEST, HIGHEST, True, "minimum", "logical_and",
                           exact_for_floats=True, dual="maximum", idempotent=True)
_REDUCER_AND = Reducer(None, ALL_ONES, True, "bitwise_and", "logical_and", idempotent=True)  # bits only
_REDUCER_OR = Reducer(None, 0, False, "bitwise_or", "logical_or", idempotent=True)
_REDUCER_XOR = Reducer(None, 0, False, "bitwise_xor", "logical_xor")

# Element types an elementwise opcode accepts (XLA's shape inference: "Expected element type in
# shape to be floating for <op> operation" and its kin); "" accepts any (the rule checks more).
# "signed" is ShapeUtil::ElementIsSigned (floats included) or complex.
OperandTypes = Literal["", "float", "float_or_complex", "integral", "int_or_pred", "numeric", "signed"]
OPERAND_TYPES: tuple[OperandTypes, ...] = get_args(OperandTypes)
# The context a called computation runs in (XLA's CallContext): "control-flow" as a sequence of
# instructions (call, while, conditional, async), "embedded" as a scalar function or a fused body
# (reduce, map, sort, fusion, ...); "" calls nothing.
CallContext = Literal["", "control-flow", "embedded"]
CONTROL_FLOW: CallContext = "control-flow"
EMBEDDED: CallContext = "embedded"
AsyncSuffix = Literal["", "-start", "-update", "-done"]


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
    reducer: Reducer | None = None  # may combine a reduction (see Reducer)
    operand_types: OperandTypes = ""
    transcendental: bool = False  # a float/complex function of libm's kind (result_accuracy applies)
    passthrough: bool = False  # the result is (part of) its operands' data: nothing computed
    calls: CallContext = ""  # the context its called computations run in
    native_async: bool = False  # has start/done opcodes of its own (never wrapped in async-start)
    async_suffix: AsyncSuffix = ""  # async-start/-update/-done: the suffix of their sugared forms
    reuses_operand_elements: bool = False  # reads some operand element for several outputs
    one_dimension: bool = False  # `dimensions={d}` names exactly one dimension
    dynamic_size: bool = False  # reads or sets runtime sizes of dynamic dims (the dynamic padder removes it)

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
    reducer: Reducer
    operand_types: OperandTypes
    transcendental: bool
    passthrough: bool
    calls: CallContext
    native_async: bool
    async_suffix: AsyncSuffix
    reuses_operand_elements: bool
    one_dimension: bool
    dynamic_size: bool


def _add(names: str, arity: int, category: str, **kw: Unpack[_Flags]) -> None:
    for name in names.split():
        OPCODES[name] = OpcodeInfo(name, arity, category, **kw)


V = VARIADIC
# Elementwise unary.
_add("abs real imag", 1, "unary")
_add("copy", 1, "unary", native_async=True)
_add("ceil floor is-finite round-nearest-afz round-nearest-even", 1, "unary", operand_types="float")
_add("popcnt count-leading-zeros", 1, "unary", operand_types="integral")
_add("not", 1, "unary", operand_types="int_or_pred")
_add("negate", 1, "unary", operand_types="numeric")
_add("sign", 1, "unary", operand_types="signed")
# Transcendental: f(x) of floats or complex, computed by a polynomial or libm (never exact).
_add("exponential exponential-minus-one log log-plus-one logistic sqrt rsqrt cbrt sine cosine "
     "tan tanh sinh cosh erf acos acosh asin asinh atanh", 1, "unary", expensive=True,
     transcendental=True, operand_types="float_or_complex")
_add("reduce-precision", 1, "unary", shape_optional=False, operand_types="float")
_add("convert bitcast-convert", 1, "convert", shape_optional=False)
# Elementwise binary. Reducers (see Reducer): f(f(a,b),c) = f(a,f(b,c)), f(a,b) = f(b,a), f(e,a) = a.
_add("add", 2, "binary", commutative=True, reducer=_REDUCER_ADD)
_add("multiply", 2, "binary", commutative=True, reducer=_REDUCER_MULTIPLY)
_add("maximum", 2, "binary", commutative=True, reducer=_REDUCER_MAXIMUM)
_add("minimum", 2, "binary", commutative=True, reducer=_REDUCER_MINIMUM)
_add("and", 2, "binary", commutative=True, reducer=_REDUCER_AND, operand_types="int_or_pred")
_add("or", 2, "binary", commutative=True, reducer=_REDUCER_OR, operand_types="int_or_pred")
_add("xor", 2, "binary", commutative=True, reducer=_REDUCER_XOR, operand_types="int_or_pred")
_add("mulhi", 2, "binary", commutative=True, shape_optional=True, operand_types="integral")
_add("subtract", 2, "binary", operand_types="numeric")
_add("complex", 2, "binary")
_add("shift-left shift-right-arithmetic shift-right-logical", 2, "binary", operand_types="integral")
_add("divide remainder power", 2, "binary", expensive=True, operand_types="numeric")
_add("atan2", 2, "binary", expensive=True, operand_types="float_or_complex")
_add("stochastic-convert", 2, "convert", shape_optional=False)
_add("compare", 2, "compare")
_add("select", 3, "select")
_add("clamp", 3, "clamp")
# Pass-through: the result is (part of) an operand's data, no element computed (XLA's dataflow
# forwards the operand's values: no buffer of its own).
_add("tuple", V, "data", passthrough=True)
_add("get-tuple-element", 1, "data", passthrough=True)
_add("bitcast", 1, "data", shape_optional=False, passthrough=True)
_add("opt-barrier", 1, "misc", side_effect=True, passthrough=True)
_add("domain", 1, "misc", passthrough=True)
_add("add-dependency", 2, "misc", passthrough=True)
# Reductions and windows.
# XLA's HloInstruction::IsExpensive also lists the reductions, gather/scatter, sort, map and rng.
# Reuses operand elements (XLA's ReusesOperandElements): an operand element feeds several outputs.
_add("reduce", V, "reduction", min_operands=2, expensive=True, calls=EMBEDDED)
_add("reduce-window", V, "reduction", min_operands=2, expensive=True, calls=EMBEDDED,
     reuses_operand_elements=True)
_add("select-and-scatter", 3, "reduction", expensive=True, calls=EMBEDDED, reuses_operand_elements=True)
_add("scan", V, "reduction", expensive=True, calls=EMBEDDED)
# Data movement.
_add("broadcast transpose reverse", 1, "data")
_add("reshape slice", 1, "data", shape_optional=False)
_add("dynamic-reshape", V, "data", shape_optional=False, min_operands=1, dynamic_size=True)
_add("dynamic-slice", V, "data", shape_optional=False, min_operands=1)
_add("dynamic-update-slice", V, "data", shape_optional=False, min_operands=2)
_add("concatenate", V, "data", min_operands=1, one_dimension=True)
_add("pad", 2, "data")
_add("gather", 2, "data", expensive=True)
_add("scatter", V, "data", min_operands=3, expensive=True, calls=EMBEDDED)
_add("iota", 0, "source", shape_optional=False)
_add("sort", V, "data", min_operands=1, expensive=True, calls=EMBEDDED, one_dimension=True)
_add("topk", 1, "data", expensive=True)
_add("get-dimension-size", 1, "data", one_dimension=True, dynamic_size=True)
_add("set-dimension-size", 2, "data", one_dimension=True, dynamic_size=True)
# Linear algebra / numerics.
_add("dot", 2, "linalg", expensive=True, reuses_operand_elements=True)
_add("ragged-dot", 3, "linalg", expensive=True)
_add("scaled-dot", 4, "linalg", expensive=True)
_add("convolution", 2, "linalg", expensive=True, reuses_operand_elements=True)
_add("fft", 1, "linalg", expensive=True)
_add("cholesky", 1, "linalg", expensive=True)
_add("triangular-solve", 2, "linalg", expensive=True)
_add("batch-norm-training", 3, "linalg", expensive=True)
_add("batch-norm-inference", 5, "linalg", expensive=True)
_add("batch-norm-grad", 5, "linalg", expensive=True)
# Control flow / calls.
_add("while", 1, "control", expensive=True, calls=CONTROL_FLOW)
_add("conditional", V, "control", expensive=True, min_operands=1, calls=CONTROL_FLOW)
_add("call", V, "control", expensive=True, calls=CONTROL_FLOW)
_add("fusion", V, "control", shape_optional=False, expensive=True, calls=EMBEDDED)
_add("map", V, "control", min_operands=1, expensive=True, calls=EMBEDDED)
_add("custom-call", V, "control", shape_optional=False, side_effect=False, expensive=True, calls=EMBEDDED)
# Async wrappers: `<op>-start/-update/-done` in the text is sugar for these (async_suffix).
_add("async-start", V, "async", shape_optional=False, side_effect=True, calls=CONTROL_FLOW,
     async_suffix="-start")
# async-update may bind further operands of the wrapped computation (late binding, XLA 2026-08).
_add("async-update", V, "async", shape_optional=False, side_effect=True, min_operands=1, calls=CONTROL_FLOW,
     async_suffix="-update")
_add("async-done", 1, "async", shape_optional=False, side_effect=True, calls=CONTROL_FLOW,
     async_suffix="-done")
# Collectives and communication (single-device semantics in the interpreter). Native async:
# `all-reduce-start`/`-done` (and copy-start, recv/recv-done, ...) are opcodes of their own.
_add("all-reduce", V, "collective", shape_optional=False, side_effect=True, calls=EMBEDDED,
     native_async=True)
_add("all-reduce-start", V, "collective", shape_optional=False, side_effect=True, calls=EMBEDDED)
_add("reduce-scatter", V, "collective", shape_optional=False, side_effect=True, calls=EMBEDDED,
     one_dimension=True)
_add("all-gather", V, "collective", shape_optional=False, side_effect=True, native_async=True,
     one_dimension=True)
_add("all-gather-start", V, "collective", shape_optional=False, side_effect=True, one_dimension=True)
_add("all-to-all collective-broadcast", V, "collective", shape_optional=False, side_effect=True)
_add("ragged-all-to-all", 6, "collective", shape_optional=False, side_effect=True)
_add("collective-permute", V, "collective", shape_optional=False, side_effect=True, min_operands=1,
     native_async=True)
_add("collective-permute-start", V, "collective", shape_optional=False, side_effect=True, min_operands=1)
_add("all-reduce-done all-gather-done collective-permute-done", 1, "collective",
     shape_optional=False, side_effect=True)
_add("copy-start", 1, "async", shape_optional=False)
_add("copy-done", 1, "async", shape_optional=False)
_add("send", 2, "collective", shape_optional=False, side_effect=True, native_async=True)
_add("send-done recv-done", 1, "collective", shape_optional=False, side_effect=True)
_add("recv", 1, "collective", shape_optional=False, side_effect=True, native_async=True)
_add("infeed", 1, "collective", shape_optional=False, side_effect=True)
_add("outfeed", 2, "collective", shape_optional=False, side_effect=True)
_add("replica-id partition-id", 0, "source")
_add("after-all", V, "misc")
# Sources.
_add("parameter", 0, "source", shape_optional=False)
_add("constant", 0, "source", shape_optional=False)
_add("rng", V, "source", shape_optional=False, side_effect=True, expensive=True)
_add("rng-bit-generator", 1, "source", shape_optional=False, expensive=True)
_add("rng-get-and-update-state", 0, "source", shape_optional=False, side_effect=True)

REDUCERS: dict[str, Reducer] = {n: i.reducer for n, i in OPCODES.items() if i.reducer is not None}


def opcode_info(name: str) -> OpcodeInfo | None:
    return OPCODES.get(name)


def reducer_identity(opcode: str, kind: str, bits: int) -> bool | int | float | complex:
    """The identity e of reducer `opcode` on elements of `kind` ('float', 'complex', 'signed',
    'unsigned', 'pred') and width `bits`: op(e, x) == x bit for bit for every x that is not NaN
    (-0 for float add, -0-0j for complex add; complex multiply keeps finite nonzero parts). A
    float LOWEST/HIGHEST is -inf/+inf; a type without infinities (f8 *fn) has to take its
    extremes, which the caller knows."""
    r = REDUCERS[opcode]
    if kind == "pred":
        return r.pred
    floating = kind in ("float", "complex")
    value = r.floating if floating else r.integer
    if value is None:
        raise ValueError(f"{opcode} is not a reducer of {kind} elements")
    if floating:
        if isinstance(value, str):
            value = -math.inf if value == LOWEST else math.inf
        elif value == 0 and r.negative_zero:
            value = -0.0
        return complex(value, -0.0 if value == 0 else 0.0) if kind == "complex" else value
    if not isinstance(value, str):
        return value
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind == "signed" else (0, (1 << bits) - 1)
    return lo if value == LOWEST else -1 if value == ALL_ONES and kind == "signed" else hi


# -- attributes per opcode (what XLA's parser accepts; `parse_checks` enforces it) ----------
# Every instruction accepts SHARED_ATTRIBUTES. OPCODE_ATTRIBUTES[opcode] = (required, optional);
# an opcode missing from the table takes only the shared ones. Context-dependent cases
# (broadcast of a scalar, pred/s32 conditionals, async-start's `calls`) are handled where
# the operands are known.
# Attributes whose values are computations (a single one) or tuples of computations.
COMPUTATION_ATTRS = ("to_apply", "calls", "condition", "body", "select", "scatter",
                     "true_computation", "false_computation")
COMPUTATION_LIST_ATTRS = ("branch_computations", "called_computations")
SHARED_ATTRIBUTES = frozenset(["sharding", "frontend_attributes", "statistics", "parameter_replication",
                               "control-predecessors", "origin", "metadata", "backend_config"])
_DOT_DIMS = "lhs_contracting_dims rhs_contracting_dims lhs_batch_dims rhs_batch_dims operand_precision"
_COLLECTIVE = "replica_groups channel_id constrain_layout use_global_device_ids"
OPCODE_ATTRIBUTES: dict[str, tuple[frozenset[str], frozenset[str]]] = {}


def _attrs(names: str, required: str = "", optional: str = "") -> None:
    for name in names.split():
        OPCODE_ATTRIBUTES[name] = (frozenset(required.split()), frozenset(optional.split()))


_attrs(" ".join(n for n, i in OPCODES.items() if i.transcendental), optional="result_accuracy")
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



def computation_attributes(opcode: str) -> tuple[str, ...]:
    """The attributes of `opcode` that name the computations it calls (in XLA's order)."""
    req, opt = OPCODE_ATTRIBUTES.get(opcode, (frozenset(), frozenset()))
    return tuple(a for a in COMPUTATION_ATTRS + COMPUTATION_LIST_ATTRS if a in req or a in opt)
