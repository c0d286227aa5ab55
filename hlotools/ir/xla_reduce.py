"""How XLA CPU evaluates a reduce, as facts both backends share (semantics.xla_cpu()).

XLA's algsimp replaces a reduce that keeps the element count (every reduced dim has size 1,
or no dim is reduced) by a reshape of its operand: the init value is never applied
("since the init_value is an identity of the reduction function", algebraic_simplifier.cc).

XLA CPU's TreeReductionRewriter (window 32) turns every non-variadic reduce with a reduced
dim longer than 32 into a reduce-window over the reduced dims (window = stride =
min(dim, 32), SAME padding) followed by the reduce of its result, again until no reduced
dim exceeds 32. Each window folds its real elements in row-major order starting from the
init value (padding is skipped), and the last reduce folds the remaining elements in the
operand's layout order, again from init. So the init value is applied once per window of
every stage plus once at the end, and f16/bf16 sums round per step in chunks of 32
elements, not along one running sum. Both are within the StableHLO spec's reduce ("an
implementation-defined amount of init_values at implementation-defined positions"); the
`spec` semantics applies init exactly once, as the StableHLO reference interpreter does.
Variadic reduces are not rewritten: one sequential fold.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

WINDOW = 32  # TreeReductionRewriter's reduce_window_size on CPU


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
    """The reduce-windows XLA CPU runs before the final reduce (empty when every reduced dim
    is at most 32 long, or one is empty)."""
    stages: list[Stage] = []
    cur = tuple(dims)
    if any(cur[d] == 0 for d in reduced):
        return stages
    while any(cur[d] > WINDOW for d in reduced):
        st = _stage(cur, reduced)
        stages.append(st)
        cur = st.out
    return stages


def init_applications(dims: Sequence[int], reduced: Sequence[int]) -> int:
    """How many times XLA CPU combines the init value into one output element: once per
    window of every stage, once in the final reduce."""
    return 1 + sum(prod(st.out[d] for d in reduced) for st in tree_stages(dims, reduced))
