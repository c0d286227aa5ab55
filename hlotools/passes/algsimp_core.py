"""What every algsimp rule module shares: the rule table, the constant matchers and the Builder.

A rule is `fn(inst, b) -> Instruction | None`: it looks at `inst` (and its operands), and
either returns None (no match, nothing built) or the instruction that replaces `inst` — an
existing one, or one it built with `b`. Rules never edit the IR themselves: the driver in
algsimp.py asks for fuel, replaces the uses, copies metadata and deletes what died, so a
rule stays a pure pattern plus a recipe and a traceback names the rule that misbehaved.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from hlotools.ir.attributes import Enum
from hlotools.ir.dispatch import RuleTable
from hlotools.ir.instruction import Instruction
from hlotools.ir.literal import Literal
from hlotools.ir.shape import Shape
from hlotools.ir.types import PRED, ElementType

if TYPE_CHECKING:
    from hlotools.ir.computation import Computation
    from hlotools.ir.rewriter import Rewriter

Rule = Callable[[Instruction, "Builder"], "Instruction | None"]

# opcode -> rules tried in order (the first that returns a replacement wins).
RULES: RuleTable[Rule] = RuleTable("algsimp rule")
# The same for the rules that change float results (XLA's, under the xla-cpu semantics):
# each is also in RULES; `algsimp-inexact` runs these alone (algsimp_inexact.py).
INEXACT_RULES: RuleTable[Rule] = RuleTable("inexact algsimp rule")
rule = RULES.register  # @rule("opcode", ...): order of registration = order tried


# -- element-type facts ------------------------------------------------------------------
def et(inst: Instruction) -> ElementType | None:
    return inst.shape.element_type if not inst.shape.is_tuple else None


def is_int(inst: Instruction) -> bool:
    """Integral element type (XLA's ElementIsIntegral: signed or unsigned, not pred)."""
    t = et(inst)
    return t is not None and t.is_integer


def is_int_or_pred(inst: Instruction) -> bool:
    t = et(inst)
    return t is not None and (t.is_integer or t.kind == "pred")


def is_unsigned(inst: Instruction) -> bool:
    t = et(inst)
    return t is not None and t.kind == "unsigned"


def is_pred(inst: Instruction) -> bool:
    return et(inst) is PRED


def is_float(inst: Instruction) -> bool:
    t = et(inst)
    return t is not None and t.is_float


def is_array(inst: Instruction) -> bool:
    return inst.shape.is_array


# -- constant matchers (XLA's IsAll / ConstantScalar / Broadcast(Constant)) ---------------------
def is_constant(inst: Instruction) -> bool:
    """A non-elided array constant (an elided `{...}` constant has no value to reason with)."""
    lit = inst.literal
    return (inst.opcode == "constant" and lit is not None and not lit.elided
            and lit.array is not None and inst.shape.is_array)


def constant_array(inst: Instruction) -> np.ndarray | None:
    lit = inst.literal
    return lit.array if lit is not None and is_constant(inst) else None


def is_scalar_constant(inst: Instruction) -> bool:
    """XLA's ConstantEffectiveScalar: a constant with exactly one element."""
    return is_constant(inst) and inst.shape.size == 1


def scalar_value(inst: Instruction) -> Any:
    """The value of an effective-scalar constant, or of a broadcast of one; else None."""
    if inst.opcode == "broadcast":
        inst = inst.operands[0]
    if not is_scalar_constant(inst):
        return None
    array = constant_array(inst)
    assert array is not None
    value = array.reshape(())
    t = inst.shape.element_type
    assert t is not None
    if t.kind == "pred":
        return bool(value)
    if t.is_integer:
        return int(value)
    if t.is_complex:
        return complex(value)
    return float(value)


def folded(inst: Instruction) -> np.ndarray | None:
    """The value of a constant, seen through negate and exact widening converts (XLA's
    constant folding has made those constants before algsimp looks again)."""
    if inst.opcode == "negate":
        inner = folded(inst.operands[0])
        return None if inner is None else np.negative(inner)
    if inst.opcode == "convert" and widening(inst):
        inner = folded(inst.operands[0])
        return None if inner is None else inner.astype(inst.shape.dtype)
    return constant_array(inst)


def widening(convert: Instruction) -> bool:
    """A convert whose every value is kept: f16/bf16 -> f32/f64, f32 -> f64."""
    src, dst = convert.operands[0].shape.element_type, convert.shape.element_type
    if src is None or dst is None or not (src.is_float and dst.is_float):
        return False
    return (src.name, dst.name) in {("f16", "f32"), ("bf16", "f32"), ("f16", "f64"), ("bf16", "f64"),
                                    ("f32", "f64")}


def broadcast_scalar_constant(inst: Instruction) -> Instruction | None:
    """The scalar constant `c` if `inst` is `c` itself or broadcast(c)."""
    if inst.opcode == "broadcast":
        inst = inst.operands[0]
    return inst if is_scalar_constant(inst) else None


def is_all(inst: Instruction, value: float | int) -> bool:
    """XLA's IsAll: `inst` is a constant (through broadcasts) whose every element == value.

    Comparison happens in the element type: -1 never matches an unsigned constant, 1 matches
    `true` for pred. NaN never equals anything, so `is_all(x, 0)` is False for a NaN constant.
    """
    while inst.opcode == "broadcast":
        inst = inst.operands[0]
    arr = constant_array(inst)
    if arr is None or arr.size == 0:
        return False
    t = inst.shape.element_type
    assert t is not None
    if arr.size == 1 and t.kind in ("signed", "unsigned", "float"):
        if t.kind == "unsigned" and value < 0:
            return False
        return float(arr.reshape(-1)[0]) == value  # the common case: broadcast of a scalar
    if t.kind == "unsigned" and value < 0:
        return False
    if t.kind == "pred":
        if value not in (0, 1):
            return False
        return bool(np.all(arr == bool(value)))
    if t.is_complex:
        return bool(np.all(arr == complex(value)))
    try:
        return bool(np.all(arr.astype(np.float64) == float(value)))
    except (TypeError, ValueError):
        return False


def is_all_zero(inst: Instruction) -> bool:
    """IsAll(0): 0, false, or a broadcast of one (the identity of add/or/xor)."""
    return is_all(inst, 0)


def is_all_one(inst: Instruction) -> bool:
    """IsAll(1) (the identity of multiply)."""
    return is_all(inst, 1)


def is_all_true(inst: Instruction) -> bool:
    return is_pred(inst) and is_all(inst, 1)


def is_all_false(inst: Instruction) -> bool:
    return is_pred(inst) and is_all(inst, 0)


class Sides(NamedTuple):
    """The two operands of a commutative binary instruction, the matched one first."""

    constant: Instruction
    other: Instruction


def constant_side(inst: Instruction, match: Callable[[Instruction], bool]) -> Sides | None:
    """(the operand `match` accepts, the other one) for a commutative rule that holds on
    either side (A + 0 and 0 + A), or None. Operand 1 is tried first: it is where
    canonicalisation puts constants, and the side XLA's rules check first."""
    x, y = inst.operands
    if match(y):
        return Sides(y, x)
    if match(x):
        return Sides(x, y)
    return None


def drop_identity(inst: Instruction, match: Callable[[Instruction], bool]) -> Instruction | None:
    """A op e => A and e op A => A, where `match` accepts op's identity e (A + 0, A * 1)."""
    side = constant_side(inst, match)
    return side.other if side else None


def keep_absorbing(inst: Instruction, match: Callable[[Instruction], bool]) -> Instruction | None:
    """A op z => z and z op A => z, where `match` accepts op's absorbing z (A && false)."""
    side = constant_side(inst, match)
    return side.constant if side else None


def is_power_of_two_int(value: Any) -> bool:
    return isinstance(value, int) and value > 0 and value & (value - 1) == 0


def direction(inst: Instruction) -> str:
    return str(inst.attrs.get("direction", ""))


def dims_attr(inst: Instruction, key: str = "dimensions") -> tuple[int, ...]:
    return tuple(inst.attrs.get(key, ()))


def same_shape(a: Shape, b: Shape) -> bool:
    """Same element type and dims; layouts must agree when both are given (algsimp is not
    layout-sensitive, but it never silently changes a printed layout)."""
    return a.compatible(b) and (a.is_tuple or a.layout is None or b.layout is None or a.layout == b.layout)


# -- the Builder -------------------------------------------------------------------------------
@dataclass
class Builder:
    """Creates the instructions a rule needs, just before the instruction being rewritten
    (its operands all come earlier, so textual order stays topological)."""

    rewriter: Rewriter
    comp: Computation
    anchor: Instruction
    options: Any = None  # the AlgebraicSimplifier (its option fields)
    inexact: bool = False  # this run takes XLA's float-changing rewrites (xla-cpu semantics)
    created: list[Instruction] = field(default_factory=list)

    def shape(self, element_type: ElementType, dims: tuple[int, ...] | list[int]) -> Shape:
        """An array shape with a default layout when the module carries layouts."""
        s = Shape.array(element_type, tuple(dims))
        return s.with_default_layout() if self.anchor.shape.layout is not None else s

    def new(self, opcode: str, shape: Shape, operands: list[Instruction],
            attrs: dict[str, Any] | None = None, literal: Literal | None = None) -> Instruction:
        inst = Instruction(opcode, opcode, shape, operands, dict(attrs or {}), literal=literal)
        self.rewriter.add_instruction_deferred(self.comp, inst, self.anchor, name=opcode)
        self.created.append(inst)
        return inst

    def constant(self, shape: Shape, array: np.ndarray) -> Instruction:
        return self.new("constant", shape, [], literal=Literal.from_array(shape, np.asarray(array)))

    def scalar(self, element_type: ElementType, value: Any) -> Instruction:
        shape = self.shape(element_type, ())
        return self.constant(shape, np.array(value, dtype=shape.dtype))

    def broadcast(self, x: Instruction, shape: Shape, dims: tuple[int, ...] = ()) -> Instruction:
        if x.shape.compatible(shape) and dims == tuple(range(shape.rank)):
            return x
        return self.new("broadcast", shape, [x], {"dimensions": tuple(dims)})

    def filled(self, like: Instruction, value: Any, element_type: ElementType | None = None) -> Instruction:
        """A constant `value` of `like`'s shape: a scalar, broadcast when `like` is not one."""
        t = element_type or like.shape.element_type
        assert t is not None
        c = self.scalar(t, value)
        if like.shape.rank == 0:
            return c
        return self.broadcast(c, like.shape.with_element_type(t), ())

    def unary(self, opcode: str, x: Instruction, shape: Shape | None = None) -> Instruction:
        return self.new(opcode, shape or x.shape, [x])

    def binary(self, opcode: str, a: Instruction, c: Instruction, shape: Shape | None = None) -> Instruction:
        return self.new(opcode, shape or self.anchor.shape, [a, c])

    def compare(self, a: Instruction, c: Instruction, direction_name: str) -> Instruction:
        shape = a.shape.with_element_type(PRED)
        return self.new("compare", shape, [a, c], {"direction": Enum(direction_name)})

    def reshape(self, x: Instruction, shape: Shape) -> Instruction:
        return x if x.shape == shape else self.new("reshape", shape, [x])


# -- XLA's InvertConstant (algsimp_arith's A / Const) --------------------------------------------
def reciprocal(values: np.ndarray, element_type: ElementType) -> np.ndarray:
    """1 / values as XLA's algsimp computes it (InvertConstant: `T{1.0} / c` in C++ on the
    compiling thread, which runs with x86 FTZ|DAZ: jaxlib's f32 1/3e-39 is inf and 1/1e38 is 0,
    where constant folding keeps denormals). f16: Eigen's half divides in f32 and rounds once;
    f32/f64: the division with denormal operand and result flushed to zeros of their sign;
    c64/c128: std::complex division (libgcc's __divsc3: Smith's algorithm, 1/0 = inf + nan i),
    flushed per step. bf16 never gets here: XLA divides in f32 (div_float_constant)."""
    name = element_type.name
    with np.errstate(all="ignore"):
        if name == "f16":
            return (np.float32(1) / values.astype(np.float32)).astype(np.float16)
        if element_type.is_complex:
            from hlotools.interpreter.complex_ops import NumpyOps
            from hlotools.ir import complex_math
            part = np.float32 if name == "c64" else np.float64
            ops: NumpyOps[np.ndarray] = NumpyOps(np.dtype(part), flush=True)
            one = (np.ones(values.shape, part), np.zeros(values.shape, part))
            re, im = complex_math.divide(ops, one, (values.real.astype(part), values.imag.astype(part)))
            out = np.empty(values.shape, values.dtype)
            out.real, out.imag = re, im
            return out
        from hlotools.interpreter import denormals
        return np.asarray(denormals.flush(np.ones((), values.dtype) / denormals.flush(values)), values.dtype)


def bf16_waits_for_normalization(inst: Instruction) -> bool:
    """A bf16 op with a convert(-> f32) user is left to the run after float-normalization-bf16
    (algsimp-inexact): XLA rewrites it after its normalisation, where that user reads the f32
    result unrounded (excess precision); rewritten here, the convert would read it rounded."""
    from hlotools.passes.float_normalization import excess_precision_allowed
    t = inst.shape.element_type if inst.shape.is_array else None
    if t is None or t.name != "bf16":
        return False
    return any(u.opcode == "convert" and u.shape.is_array and u.shape.element_type is not None
               and u.shape.element_type.name == "f32" for u in inst.users) and excess_precision_allowed()


def inherit_attrs(old: Instruction, new: Instruction) -> None:
    """What HloComputation::ReplaceInstruction copies from the replaced instruction: metadata
    when the replacement's has no op_name, frontend attributes and sharding when it has none."""
    meta = old.attrs.get("metadata")
    if meta is not None and "op_name" in str(meta) and "op_name" not in str(new.attrs.get("metadata", "")):
        new.attrs["metadata"] = meta
    for key in ("frontend_attributes", "sharding"):
        if key in old.attrs and key not in new.attrs:
            new.attrs[key] = old.attrs[key]
