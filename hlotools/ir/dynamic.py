"""Bounded dynamic dimensions: the facts every layer asks about, in one place.

A dim written `<=N` is dynamic with bound N (Shape.dims holds N, Shape.dynamic the flag); `?` is
unbounded (dim -1), which nothing here can run. Data of a dynamic dim lives padded to the bound,
valid elements first (XLA's DynamicPadder form); `DynamicDim` names one such dim of a leaf of a
value, in the order the padder's entry parameters and outputs list them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from hlotools.ir.instruction import Instruction
from hlotools.ir.literal import Literal
from hlotools.ir.module import Module
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.shape import Shape


@dataclass(frozen=True)
class DynamicDim:
    """Dim `dim` (bound `bound`) of array leaf `leaf` (depth-first leaf index of a value)."""
    leaf: int
    dim: int
    bound: int


@dataclass
class PaddedSignature:
    """How the dynamic padder's entry maps to the original one (passes/dynamic_padder.py gives
    the form): the extra s32 parameters' dims, the sizes returned after the result, and the
    set-dimension-size requests returned last for the caller to check."""
    inputs: list[DynamicDim] = field(default_factory=list)  # over the entry's parameter leaves
    outputs: list[DynamicDim] = field(default_factory=list)  # over the original result's leaves
    checks: list[tuple[str, int]] = field(default_factory=list)  # (set-dimension-size, bound)
    results: int = 0  # leaves of the original result


def dynamic_dims(shape: Shape) -> list[int]:
    """The dynamic dims of an array shape, in order."""
    return [i for i in range(shape.rank) if shape.is_dynamic_dim(i)]


def leaf_dynamic_dims(shape: Shape) -> list[DynamicDim]:
    """Every dynamic dim of every leaf of `shape` (leaves depth-first, dims in order)."""
    return [DynamicDim(k, d, leaf.dims[d]) for k, leaf in enumerate(shape.leaves()) for d in dynamic_dims(leaf)]


def static_shape(shape: Shape) -> Shape:
    """`shape` with every dynamic flag dropped: each dim at its bound (the padded form)."""
    if shape.tuple_shapes is not None:
        return Shape.tuple_of([static_shape(s) for s in shape.tuple_shapes])
    if not shape.dynamic:
        return shape
    return Shape(shape.element_type, shape.dims, shape.layout, (), None, 0, shape.is_buffer)


def has_dynamic_shapes(module: Module) -> bool:
    """Any dynamic dim, or an opcode that makes or reads one, anywhere in `module`."""
    return any(is_dynamic_instruction(inst) for comp in module.computations for inst in comp.instructions)


def is_dynamic_instruction(inst: Instruction) -> bool:
    return not inst.shape.is_static or inst.opcode in DYNAMIC_OPCODES


# Opcodes whose meaning is about dynamic sizes (the opcode table's dynamic_size trait).
DYNAMIC_OPCODES = frozenset(name for name, info in OPCODES.items() if info.dynamic_size)


def fits(shape: Shape, dims: tuple[int, ...]) -> bool:
    """Runtime dims `dims` fit `shape`: static dims equal, dynamic dims within their bound
    (an unbounded `?` dim takes any size)."""
    if len(dims) != shape.rank:
        return False
    return all((0 <= got and (want < 0 or got <= want)) if shape.is_dynamic_dim(i) else got == want
               for i, (want, got) in enumerate(zip(shape.dims, dims)))


def check_dynamic(inst: Instruction) -> str | None:
    """What the verifier checks about dynamic dims beyond shape inference (which ignores
    dynamic-ness for most opcodes, as XLA's does): set-dimension-size's result really is
    dynamic in its dim (the padder reads sizes from there), and a constant size fits the bound."""
    if inst.opcode != "set-dimension-size":
        return None
    d = int(inst.attrs.get("dimensions", (0,))[0])
    if inst.shape.is_array and not inst.shape.is_dynamic_dim(d):
        return f"set-dimension-size must make dimension {d} dynamic, but the result is {inst.shape.to_text(False)}"
    size = _constant_int(inst.operands[1]) if len(inst.operands) == 2 else None
    bound = inst.shape.dims[d] if inst.shape.is_array else -1
    if size is not None and bound >= 0 and not 0 <= size <= bound:
        return f"size {size} is outside dimension {d}'s bound 0..{bound}"
    return None


def _constant_int(inst: Instruction) -> int | None:
    lit: Literal | None = inst.literal if inst.opcode == "constant" else None
    if lit is None or lit.array is None or lit.array.ndim != 0:
        return None
    return int(lit.array)
