"""What XLA CPU's instruction fusion may fuse (xla/service/cpu/cpu_instruction_fusion.cc and
the generic InstructionFusion rules in xla/service/instruction_fusion.cc).

These are the static, per-instruction facts; the decisions that depend on the fusion being
built (duplication, element reuse, code duplication, size budgets) live in fusion.py. The
opcode table's `expensive` flag is XLA's HloInstruction::IsExpensive; `is_expensive` here adds
the element-type refinements XLA applies on top of it (cheap integer division by a constant,
real sine/cosine on CPU, the f32->bf16 convert CPU calls expensive).
"""
from __future__ import annotations

from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.walks import is_elementwise

# CPU's CanBeLoopFused, plus copy (elementwise) and the fusions we merge.
LOOP_FUSIBLE = frozenset("""bitcast broadcast concatenate dynamic-slice dynamic-update-slice gather
iota pad reduce reshape reverse slice transpose""".split())
# Never fused (XLA's IsFusible): control flow, parameters and the like.
NEVER_FUSIBLE = frozenset("parameter while conditional call domain custom-call tuple get-tuple-element "
                          "after-all add-dependency opt-barrier rng rng-get-and-update-state".split())
# Fusion kinds we produce or extend; kCustom / kOutput fusions belong to a backend library.
EXTENDABLE_KINDS = frozenset(["kLoop", "kInput"])
MAX_CONCAT_OPERANDS = 8  # CPU: concatenates with more operands stay unfused
MAX_REDUCTIONS = 5  # CPU: at most five reductions per fusion
MAX_INDEX_VECTORS = 15  # CPU's kAllowedCodeDuplication (FusionNodeIndexingEvaluation)
# Cheap to recompute whatever the duplication (XLA's IsAlwaysDuplicable).
ALWAYS_DUPLICABLE = frozenset(["broadcast", "iota", "constant"])


def is_scalar_constant(inst: Instruction) -> bool:
    return inst.opcode == "constant" and inst.shape.is_array and inst.shape.size == 1


def fusion_kind(inst: Instruction) -> str:
    return str(inst.attrs.get("kind", ""))


def is_widening_convert(inst: Instruction) -> bool:
    """A convert to a type at least as wide (XLA duplicates those freely)."""
    if inst.opcode != "convert" or not inst.operands:
        return False
    src, dst = inst.operands[0].shape.element_type, inst.shape.element_type
    return src is not None and dst is not None and dst.bits >= src.bits and dst.kind == src.kind


def is_expensive(inst: Instruction) -> bool:
    """XLA CPU's IsExpensive: the opcode table plus element-type refinements."""
    op = inst.opcode
    et = inst.shape.element_type
    complex_type = et is not None and et.kind == "complex"
    if op in ("sine", "cosine", "tan"):
        return complex_type  # real sin/cos/tan are cheap on CPU (polynomial approximations)
    if op in ("abs", "sign"):
        return complex_type
    if op in ("divide", "remainder") and et is not None and et.is_integer:
        divisor = inst.operands[1] if len(inst.operands) > 1 else None
        while divisor is not None and divisor.opcode == "broadcast":
            divisor = divisor.operands[0]
        return not (divisor is not None and divisor.opcode == "constant")
    if op == "convert" and inst.operands:
        src = inst.operands[0].shape.element_type
        return src is not None and et is not None and src.name == "f32" and et.name == "bf16"
    info = OPCODES.get(op)
    return info is None or info.expensive


def is_producer_fusible(inst: Instruction) -> bool:
    """May `inst` be fused into a consumer at all (before any consumer-specific rule)?"""
    op = inst.opcode
    if op in NEVER_FUSIBLE or not inst.shape.is_array:
        return False
    if op == "fusion":
        return fusion_kind(inst) in EXTENDABLE_KINDS
    if op == "constant":
        return is_scalar_constant(inst)  # CPU rule: non-scalar constants stay buffers
    return op in LOOP_FUSIBLE or is_elementwise(inst)


def is_consumer_fusible(inst: Instruction) -> bool:
    """May producers be fused into `inst`?"""
    op = inst.opcode
    if op == "fusion":
        return fusion_kind(inst) in EXTENDABLE_KINDS
    if op in NEVER_FUSIBLE or not inst.shape.is_array or not inst.operands:
        return False
    return op in LOOP_FUSIBLE or is_elementwise(inst)


def concat_too_wide(inst: Instruction) -> bool:
    """CPU rule: a concatenate with more than 8 operands, or along the minor-most dimension
    when that dimension is >= 128 long (rank >= 2), is not fused."""
    if inst.opcode != "concatenate":
        return False
    if len(inst.operands) > MAX_CONCAT_OPERANDS:
        return True
    dims = inst.shape.dims
    if len(dims) < 2:
        return False
    dim = inst.attrs.get("dimensions", (0,))[0]
    layout = inst.shape.layout
    minor = layout.minor_to_major[0] if layout is not None and layout.minor_to_major else len(dims) - 1
    return dim == minor and dims[dim] >= 128


def effectively_at_most_unary(inst: Instruction) -> bool:
    """XLA's EffectivelyAtMostUnary: at most one operand is 'large' (not a broadcast, an iota or
    a scalar constant, and of at least the result's true rank)."""
    if len(inst.operands) < 2:  # (unary ops: nothing to count)
        return True
    dims = inst.shape.dims
    out_rank = len(dims) - dims.count(1) if inst.shape.is_array else 0  # (the dims that are not 1)
    large = 0
    for op in inst.operands:
        if op.opcode in ("broadcast", "iota") or is_scalar_constant(op):
            continue
        dims = op.shape.dims
        if op.shape.is_array and len(dims) - dims.count(1) >= out_rank:
            large += 1
            if large > 1:  # (a wide fusion need not be scanned to the end)
                return False
    return True


def index_preserving(user: Instruction) -> bool:
    """Does `user` read each operand at its own output index (so fused operands share the
    user's index vectors)? Elementwise ops and tuples do."""
    return is_elementwise(user) or user.opcode == "tuple"


def reuses_operand(user: Instruction, operand_index: int) -> bool:
    """Does `user` read elements of operand `operand_index` more than once? (XLA's
    ReusesOperandElements: an expensive producer is not fused into such a user.)"""
    op = user.opcode
    info = OPCODES.get(op)
    if info is not None and info.reuses_operand_elements:
        return True
    if op == "broadcast":
        return user.shape.size > user.operands[0].shape.size
    if op == "gather":
        return operand_index == 0
    return False


def is_matrix_vector_dot(inst: Instruction) -> bool:
    """XLA CPU's output-fusion candidate: a non-batched matrix-vector dot (rank <= 1 result),
    not complex."""
    if inst.opcode != "dot" or len(inst.operands) != 2 or inst.attrs.get("lhs_batch_dims"):
        return False
    et = inst.shape.element_type
    if et is None or et.is_complex or inst.shape.rank > 1:
        return False
    ranks = sorted(o.shape.rank for o in inst.operands)
    return ranks == [1, 2]


def can_be_output_fused(producer: Instruction, consumer: Instruction) -> bool:
    """CPU's CanBeOutputFused: such a dot with a single use, feeding an add (kOutput)."""
    return consumer.opcode == "add" and is_matrix_vector_dot(producer) and len(producer.users) == 1 \
        and consumer.operands.count(producer) == 1


