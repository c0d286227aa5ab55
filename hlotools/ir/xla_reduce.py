"""How XLA CPU evaluates a reduce, as facts both backends share (semantics.xla_cpu()).

XLA's algsimp replaces a reduce that keeps the element count (every reduced dim has size 1,
or no dim is reduced) by a reshape of its operand: the init value is never applied
("since the init_value is an identity of the reduction function", algebraic_simplifier.cc).
A reduce-window of a scalar is likewise its operand.

Every other single-input reduce takes one of two paths (jaxlib 0.10's XLA, which enables
YNNPACK reduce fusions by default; measured with xla_ref.py `opt` and zero inputs):

* YNNPACK (`__ynn_fusion`): XLA offloads a reduce whose reducer is add of its two
  parameters over f32/f64, or maximum/minimum over f16/bf16/f32/f64/s8/u8, of operand rank
  at most 8 (YNN_MAX_TENSOR_RANK), when the operand or the result has at least 4096 elements
  (IsReduceLikeOpSupportedByYnn and IsInstructionPreferredByYnn in
  xla/backends/cpu/ynn_support.cc). The init value is applied once, as the spec's reduce.
* Otherwise TreeReductionRewriter (window 32; cpu_compiler.cc skips the reduces offloaded to
  YNNPACK) turns the reduce, when a reduced dim is longer than 32, into a reduce-window over
  the reduced dims (window = stride = min(dim, 32), SAME padding) followed by the reduce of
  its result, again until no reduced dim exceeds 32. Each window folds its real elements in
  row-major order starting from the init value (padding is skipped), and the last reduce
  folds the remaining elements in the operand's layout order, again from init. So the init
  value is applied once per window of every stage plus once at the end, and f16/bf16 sums
  round per step in chunks of 32 elements, not along one running sum.

The tree is what decides everything that is not an associative exact fold: integer sums
with a non-identity init (s32[100] zeros, init 1: 5), f16/bf16 rounding, custom reducers;
an f32[8,2048] add with init 0.43 (hlofile_0099) goes to YNNPACK and adds it once. Both
paths are within the StableHLO spec's reduce ("an implementation-defined amount of
init_values at implementation-defined positions"); the `spec` semantics applies init exactly
once, as the StableHLO reference interpreter does. Variadic reduces are never rewritten:
one sequential fold.

Not modelled: XLA's rewriter skips reduces inside fusion computations of the input module
(a hand-written kLoop fusion keeps one init application); our own fusion passes put reduces
into fusion computations that XLA would have rewritten first, and the IR does not tell the
two apart.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from hlotools.ir.instruction import Instruction
from hlotools.ir.patterns import binary_reducer_opcode
from hlotools.ir.types import ElementType

WINDOW = 32  # TreeReductionRewriter's reduce_window_size on CPU
YNN_MIN_ELEMENTS = 4096  # IsInstructionPreferredByYnn's kMinElements
YNN_MAX_RANK = 8  # YNN_MAX_TENSOR_RANK
# reducer opcode -> element types YNNPACK reduces (IsReduceLikeOpSupportedByYnn, same-type rows)
YNN_TYPES: dict[str, frozenset[str]] = {
    "add": frozenset({"f32", "f64"}),
    "maximum": frozenset({"f16", "bf16", "f32", "f64", "s8", "u8"}),
    "minimum": frozenset({"f16", "bf16", "f32", "f64", "s8", "u8"}),
}


@dataclass(frozen=True)
class Stage:
    """One reduce-window of the rewrite, over full-rank dims: `window` (= stride) is 1 on
    kept dims, `pad_low` is SAME padding's low side, `out` the window count per dim."""

    dims: tuple[int, ...]
    window: tuple[int, ...]
    pad_low: tuple[int, ...]
    out: tuple[int, ...]


def keeps_elements(dims: Sequence[int], reduced: Sequence[int]) -> bool:
    """Whether algsimp turns this reduce into a reshape (no reduced dim longer than 1 and
    none empty): the result is the operand, without the init value."""
    return all(dims[d] == 1 for d in reduced)


def window_keeps_operand(rank: int) -> bool:
    """Whether XLA CPU gives a reduce-window its operand, never applying the init value: a
    scalar operand (no window dims; XLA's optimised module is `copy(operand)`, with a
    constant or a parameter init, variadic too). A window of size 1 over an array is not
    one: XLA applies init to each element."""
    return rank == 0


def offloaded_to_ynn(reducer: str | None, et: ElementType, dims: Sequence[int],
                     reduced: Sequence[int]) -> bool:
    """Whether XLA CPU hands this single-input reduce to YNNPACK (init applied once, no
    tree): `reducer` is binary_reducer_opcode of the to_apply computation."""
    if reducer not in YNN_TYPES or et.name not in YNN_TYPES[reducer] or not reduced:
        return False
    if len(dims) > YNN_MAX_RANK:
        return False
    out = prod(n for d, n in enumerate(dims) if d not in reduced)
    return prod(dims) >= YNN_MIN_ELEMENTS or out >= YNN_MIN_ELEMENTS


def _stage(dims: tuple[int, ...], reduced: Sequence[int]) -> Stage:
    window, pad_low, out = [], [], []
    for d, n in enumerate(dims):
        w = min(n, WINDOW) if d in reduced else 1
        o = -(-n // w)
        window.append(w)
        pad_low.append(max((o - 1) * w + w - n, 0) // 2)
        out.append(o)
    return Stage(dims, tuple(window), tuple(pad_low), tuple(out))


def tree_stages(dims: Sequence[int], reduced: Sequence[int]) -> list[Stage]:
    """The reduce-windows TreeReductionRewriter puts before the final reduce (empty when
    every reduced dim is at most 32 long, or one is empty): the geometry alone."""
    stages: list[Stage] = []
    cur = tuple(dims)
    if any(cur[d] == 0 for d in reduced):
        return stages
    while any(cur[d] > WINDOW for d in reduced):
        st = _stage(cur, reduced)
        stages.append(st)
        cur = st.out
    return stages


def _reduced(inst: Instruction) -> list[int]:
    return sorted(int(d) for d in inst.attrs.get("dimensions", ()))


def reduce_offloaded_to_ynn(inst: Instruction) -> bool:
    """offloaded_to_ynn for a reduce instruction (never a variadic one)."""
    if len(inst.operands) != 2:
        return False
    x = inst.operands[0]
    et = x.shape.element_type
    op = binary_reducer_opcode(inst.attrs.get("to_apply"))
    return et is not None and offloaded_to_ynn(op, et, x.shape.dims, _reduced(inst))


def reduce_stages(inst: Instruction) -> list[Stage]:
    """The reduce-windows XLA CPU runs for `inst` before its final reduce: tree_stages for a
    single-input reduce that YNNPACK does not take, none otherwise (variadic reduces and
    YNNPACK's fold apply the init value once)."""
    if len(inst.operands) != 2 or reduce_offloaded_to_ynn(inst):
        return []
    return tree_stages(inst.operands[0].shape.dims, _reduced(inst))


def init_applications(inst: Instruction) -> int:
    """How many times XLA CPU combines the init value into one output element of `inst`:
    once per window of every stage, once in the final reduce."""
    reduced = _reduced(inst)
    return 1 + sum(prod(st.out[d] for d in reduced) for st in reduce_stages(inst))
