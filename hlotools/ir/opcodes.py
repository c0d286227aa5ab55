"""THE opcode table: every HLO opcode described once.

Parser checks (is the result shape optional?), shape inference and the verifier (arity,
category), CSE (commutative, side effects), DCE (side effects), fusion (elementwise,
expensive) and the interpreter/codegen dispatch all read this table.
"""
from __future__ import annotations

from dataclasses import dataclass

VARIADIC = -1


@dataclass(frozen=True)
class OpcodeInfo:
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


def _add(names: str, arity: int, category: str, **kw: object) -> None:
    for name in names.split():
        OPCODES[name] = OpcodeInfo(name, arity, category, **kw)  # type: ignore[arg-type]


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
_add("reduce", V, "reduction", min_operands=2)
_add("reduce-window", V, "reduction", min_operands=2)
_add("select-and-scatter", 3, "reduction")
_add("scan", V, "reduction")
# Data movement.
_add("broadcast transpose reverse get-tuple-element", 1, "data")
_add("reshape slice", 1, "data", shape_optional=False)
_add("dynamic-reshape", V, "data", shape_optional=False, min_operands=1)
_add("dynamic-slice", V, "data", shape_optional=False, min_operands=1)
_add("dynamic-update-slice", V, "data", shape_optional=False, min_operands=2)
_add("concatenate", V, "data", min_operands=1)
_add("pad", 2, "data")
_add("gather", 2, "data")
_add("scatter", V, "data", min_operands=3)
_add("iota", 0, "source", shape_optional=False)
_add("tuple", V, "data")
_add("sort", V, "data", min_operands=1)
_add("topk", 1, "data")
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
_add("fusion", V, "control", shape_optional=False)
_add("map", V, "control", min_operands=1)
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
_add("rng", V, "source", shape_optional=False, side_effect=True)
_add("rng-bit-generator", 1, "source", shape_optional=False)
_add("rng-get-and-update-state", 0, "source", shape_optional=False, side_effect=True)

ELEMENTWISE_UNARY = frozenset(n for n, i in OPCODES.items() if i.category == "unary")
ELEMENTWISE_BINARY = frozenset(n for n, i in OPCODES.items() if i.category == "binary")


def opcode_info(name: str) -> OpcodeInfo | None:
    return OPCODES.get(name)
