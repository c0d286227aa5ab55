"""The checks XLA's parser makes while building an instruction (hlo_parser.cc CreateInstruction).

They run in XLA's order: operand count, then attribute names (duplicates, unknown names listing
the allowed ones, missing required ones), then opcode-specific consistency checks. Messages use
XLA's wording so a user can search for them. Checks that only the verifier makes (e.g. that
`add` operands have equal shapes) are left to hlotools.ir.verifier.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from hlotools.ir.attributes import Enum, Raw, ShapeList
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODE_ATTRIBUTES, OPCODES, PARSER_CHECKS_ARITY, SHARED_ATTRIBUTES
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    from hlotools.text.parse_resolve import Resolver

_EMPTY: frozenset[str] = frozenset()
_API_VERSIONS = {"API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
                 "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"}
_ENUM_VALUES: dict[str, tuple[str, ...]] = {
    "direction": ("EQ", "NE", "GE", "GT", "LE", "LT"),
    "fft_type": ("FFT", "IFFT", "RFFT", "IRFFT"),
    "kind": ("kLoop", "kInput", "kOutput", "kCustom"),
    "padding_type": ("PADDING_INVALID", "PADDING_VALID", "PADDING_SAME"),
    "convolution_kind": ("fprop", "wgrad", "dgrad", "unset"),
    "transpose_a": ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT", "TRANSPOSE_INVALID"),
}
_ENUM_NOCASE: dict[str, tuple[str, ...]] = {
    "distribution": ("rng_uniform", "rng_normal"),
    "schedule": ("schedule_none", "schedule_latest", "schedule_earliest"),
    "mode": ("cross_replica", "cross_partition", "cross_replica_and_partition", "flattened_id"),
}
_COMPARE_TYPES = ("FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED")
_RANDOM_ALGORITHMS = ("rng_default", "rng_three_fry", "rng_philox")
# PrecisionConfig.Algorithm names without the ALG_ prefix (matched case-insensitively, like XLA).
_DOT_ALGORITHMS = frozenset("""unset dot_any_f8_any_f8_f32 dot_any_f8_any_f8_f32_fast_accum dot_f16_f16_f16
dot_f16_f16_f32 dot_bf16_bf16_bf16 dot_bf16_bf16_f32 dot_bf16_bf16_f32_x3 dot_bf16_bf16_f32_x6
dot_bf16_bf16_f32_x9 dot_tf32_tf32_f32 dot_tf32_tf32_f32_x3 dot_f32_f32_f32 dot_f64_f64_f64
dot_any_f8_any_f8_any dot_any_f8_any_f8_any_fast_accum""".split())
_PRECISIONS = frozenset(["default", "high", "highest", "packed_nibble"])


def operand_count(b: Resolver, opcode: str, operands: list[Instruction], pos: int, shape: Shape | None) -> None:
    n = len(operands)
    if opcode in PARSER_CHECKS_ARITY:
        want = OPCODES[opcode].arity
        if n != want:
            raise b.error(pos, f"expects {want} operands, but has {n} operands")
    elif opcode == "tuple" and shape is not None and shape.tuple_shapes is not None \
            and n != len(shape.tuple_shapes):
        raise b.error(pos, f"expects {len(shape.tuple_shapes)} operands, but has {n} operands")
    elif opcode in ("ragged-dot", "scaled-dot"):
        want = 3 if opcode == "ragged-dot" else 4
        if n != want:
            raise b.error(pos, f"expects {want} operands, but has {n} operands")


def allowed(opcode: str, operands: list[Instruction]) -> tuple[frozenset[str], frozenset[str]]:
    """(required, allowed) attribute names for this opcode given its operands."""
    req, opt = OPCODE_ATTRIBUTES.get(opcode, (_EMPTY, _EMPTY))
    if opcode == "broadcast" and operands and operands[0].shape.is_array and not operands[0].shape.dims:
        req, opt = _EMPTY, frozenset(["dimensions"])
    elif opcode == "conditional" and operands:
        if operands[0].shape.element_type is not None and operands[0].shape.element_type.name == "pred":
            req, opt = frozenset(["true_computation", "false_computation"]), _EMPTY
        else:
            req, opt = frozenset(["branch_computations"]), _EMPTY
    return req, SHARED_ATTRIBUTES | req | opt


def attribute_names(b: Resolver, opcode: str, entries: list[tuple[str, int]], operands: list[Instruction],
                    end_pos: int, extra: frozenset[str] = _EMPTY) -> None:
    """entries = [(name, position)] in text order."""
    req, ok = allowed(opcode, operands)
    ok = ok | extra
    seen: set[str] = set()
    for name, pos in entries:
        if name in seen:
            raise b.error(pos, f"attribute {name} already exists")
        seen.add(name)
        if name not in ok:
            raise b.error(pos, f'unexpected attribute "{name}". Allowed attributes: {", ".join(sorted(ok))}')
    for name in sorted(req):
        if name not in seen:
            raise b.error(end_pos, f"attribute {name} is expected but not seen")


def conditional_operands(b: Resolver, operands: list[Instruction], pos: int) -> None:
    if not operands:
        raise b.error(pos, "conditional requires at least one operand")
    s = operands[0].shape
    if s.tuple_shapes is not None or s.dims:
        raise b.error(pos, "The first operand must be a scalar")
    if s.element_type is None or s.element_type.name not in ("pred", "s32"):
        raise b.error(pos, "The first operand must be a scalar of PRED or S32")


_ONE_DIMENSION = frozenset(n for n, i in OPCODES.items() if i.one_dimension)
_ENUM_KEYS = frozenset(_ENUM_VALUES) | frozenset(_ENUM_NOCASE) | {"type", "api_version", "algorithm",
                                                                  "operand_precision"}


def attribute_values(b: Resolver, opcode: str, attrs: dict[str, Any], pos: dict[str, int]) -> None:
    """Enumerations and list lengths XLA checks while reading the attribute."""
    for key in attrs.keys() & _ENUM_KEYS if attrs else ():
        _enum_value(b, opcode, key, attrs[key], pos[key])
    if opcode in _ONE_DIMENSION or opcode in ("all-to-all", "ragged-all-to-all"):
        dims = attrs.get("dimensions")
        if dims is not None and len(dims) != 1:
            if opcode in _ONE_DIMENSION:
                raise b.error(pos["dimensions"], f"{opcode} expects exactly one dimension in dimensions=, "
                              f"but sees {len(dims)}")
            raise b.error(pos["dimensions"], f"{opcode} expects at most one dimension in dimensions=")
    elif opcode == "compare" and "order" in attrs and "type" in attrs:
        raise b.error(pos["order"], "Cannot specify both 'type' and 'order' attributes on compare")
    elif opcode == "custom-call" and "to_apply" in attrs and "called_computations" in attrs:
        raise b.error(pos["to_apply"], "A single instruction can't have both to_apply and calls field")


def _enum_value(b: Resolver, opcode: str, key: str, v: Any, pos: int) -> None:
    if key == "operand_precision" and isinstance(v, Raw):
        for item in str(v).strip("{} ").split(","):
            word = item.strip()
            if word and word.lower() not in _PRECISIONS:
                raise b.error(pos, f"expects precision but sees: {word}, error: Unknown precision: {word}")
        return
    if not isinstance(v, Enum):
        return
    if key == "algorithm":
        if opcode == "rng-bit-generator":
            if v.lower() not in _RANDOM_ALGORITHMS:
                raise b.error(pos, f"expects random algorithm but sees: {v}, error: Unknown algorithm: {v}")
        elif v.lower() not in _DOT_ALGORITHMS:
            raise b.error(pos, f"expects algorithm but sees: {v}, error: Unknown algorithm: {v}")
        return
    values = _ENUM_VALUES.get(key)
    if values is not None and v not in values and not (key == "kind" and opcode != "fusion"):
        raise b.error(pos, f"expects {key.replace('_', ' ')} but sees: {v}")
    values = _ENUM_NOCASE.get(key)
    if values is not None and v.lower() not in values:
        raise b.error(pos, f"expects {key.replace('_', ' ')} but sees: {v}")
    if key == "type" and opcode == "compare" and v not in _COMPARE_TYPES:
        raise b.error(pos, f"expects comparison type but sees: {v}")
    if key == "api_version":
        if v == "API_VERSION_UNSPECIFIED":
            raise b.error(pos, f"Invalid API version: {v}")
        if v.upper() not in _API_VERSIONS:
            raise b.error(pos, f"expects custom-call API version but sees: {v}, error: Unknown API version: {v}")


def instruction(b: Resolver, inst: Instruction, pos: int) -> None:
    """Opcode-specific consistency checks of hlo_parser.cc (after attributes are read)."""
    check = _CHECKS.get(inst.opcode)
    if check is not None:
        check(b, inst, pos)


def _elements(s: Shape) -> int:
    return math.prod(max(d, 0) for d in s.dims)


def _reshape(b: Resolver, inst: Instruction, pos: int) -> None:
    s, o = inst.shape, inst.operands[0].shape
    unbounded = any(d < 0 for d in o.dims)
    if not s.is_array or not o.is_array or (not unbounded and _elements(s) != _elements(o)):
        raise b.error(pos, f"expects the same number of elements in result shape {s.to_text(False)} and "
                      f"operand shape {o.to_text(False)}")


def _dynamic_reshape(b: Resolver, inst: Instruction, pos: int) -> None:
    if not inst.operands:
        raise b.error(pos, "DynamicReshape requires at least one operand.")
    s, o = inst.shape, inst.operands[0].shape
    if not s.is_array or not o.is_array or _elements(s) != _elements(o):
        raise b.error(pos, f"expects the same number of elements in result shape {s.to_text(False)} and "
                      f"operand shape {o.to_text(False)}")
    if len(inst.operands) - 1 != len(s.dims):
        raise b.error(pos, f"expects one dim size operand per result dimension; got "
                      f"{len(inst.operands) - 1} for {len(s.dims)} result dimensions")


def _tuple_result(what: str) -> Any:
    def check(b: Resolver, inst: Instruction, pos: int) -> None:
        ts = inst.shape.tuple_shapes
        if ts is None or not ts:
            raise b.error(pos, f"{what} must have a non-empty tuple shape")
    return check


def _dynamic_slice(b: Resolver, inst: Instruction, pos: int) -> None:
    ops = inst.operands
    if not ops:
        raise b.error(pos, "Expected at least one operand.")
    if not (len(ops) == 2 and len(ops[1].shape.dims) == 1) and len(ops) != 1 + len(ops[0].shape.dims):
        raise b.error(pos, "Wrong number of operands.")


def _dynamic_update_slice(b: Resolver, inst: Instruction, pos: int) -> None:
    ops = inst.operands
    if len(ops) < 2:
        raise b.error(pos, "Expected at least two operands.")
    if not (len(ops) == 3 and len(ops[2].shape.dims) == 1) and len(ops) != 2 + len(ops[0].shape.dims):
        raise b.error(pos, "Wrong number of operands.")


def _even_operands(b: Resolver, inst: Instruction, pos: int) -> None:
    n = len(inst.operands)
    if inst.opcode == "reduce-window" and n == 0:
        raise b.error(pos, "reduce-window expects at least one input and init operand")
    if n % 2:
        raise b.error(pos, f"expects an even number of operands, but has {n} operands")


def _scatter(b: Resolver, inst: Instruction, pos: int) -> None:
    n = len(inst.operands)
    if n % 2 == 0:
        raise b.error(pos, f"expects an odd number of operands, but has {n} operands")


def _convolution(b: Resolver, inst: Instruction, pos: int) -> None:
    if len(inst.operands) < 2:
        raise b.error(pos, "expects at least 2 operands")


def _collective_permute(b: Resolver, inst: Instruction, pos: int) -> None:
    if "slice_sizes" in inst.attrs and len(inst.operands) != 4:
        raise b.error(pos, "CollectivePermute and CollectivePermuteStart must have exactly four operands "
                      "for dynamic-slice and in-place update.")


def _custom_call(b: Resolver, inst: Instruction, pos: int) -> None:
    constraints = inst.attrs.get("operand_layout_constraints")
    if not isinstance(constraints, ShapeList):  # decoded (or refused) with the attribute
        return
    shapes = constraints.shapes
    if inst.shape.tuple_shapes is None and inst.shape.layout is None and inst.shape.is_array:
        raise b.error(pos, "Layout must be set on layout-constrained custom call")
    if len(shapes) != len(inst.operands):
        raise b.error(pos, f"Expected {len(inst.operands)} operand layout constraints, {len(shapes)} given")
    for i, (s, op) in enumerate(zip(shapes, inst.operands)):
        if not s.compatible(op.shape):
            raise b.error(pos, f"Operand layout constraint shape {s} for operand {i} is not compatible with "
                          f"operand shape {op.shape}")


_CHECKS: dict[str, Any] = {
    "reshape": _reshape,
    "dynamic-reshape": _dynamic_reshape,
    "recv": _tuple_result("recv"),
    "infeed": _tuple_result("infeed"),
    "dynamic-slice": _dynamic_slice,
    "dynamic-update-slice": _dynamic_update_slice,
    "reduce": _even_operands,
    "reduce-window": _even_operands,
    "scatter": _scatter,
    "convolution": _convolution,
    "collective-permute": _collective_permute,
    "collective-permute-start": _collective_permute,
    "custom-call": _custom_call,
}
