"""THE lowering table: ATen op overload -> the function that builds its HLO.

Entries are registered by the family modules (elementwise.py, shape.py, ...) with
`@lowers(aten.addmm.default, ...)`; an entry may carry `supports(node)`, which returns why it
refuses an argument combination (None when it takes the node), and `dynamic`, how it
lowers at symbolic sizes: FOLLOWS (its result's dynamic sizes follow from its operands
through XLA's dynamic dimension inference: it reads no dim as a number), SETS (its result
takes sizes from its arguments, so each symbolic dim gets a set-dimension-size), or not at
all (the node is refused at symbolic sizes and runs eagerly). REFUSED holds the ops no
lowering takes and why. The partitioner, the verbose report and the coverage tests all
read these tables."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from hlotools.torch import dtypes

if TYPE_CHECKING:

    from hlotools.torch.lowering.context import Call, Context

Build = Callable[["Context", "Call"], Any]
Supports = Callable[["Call"], "str | None"]
FOLLOWS, SETS = "follows", "sets"


@dataclass(frozen=True)
class Lowering:
    op: torch._ops.OpOverload
    build: Build
    supports: Supports | None = None
    dynamic: str = ""  # FOLLOWS, SETS or "" (static sizes only)


TABLE: dict[Any, Lowering] = {}
REFUSED: dict[Any, str] = {}  # ops no lowering takes, each with why (refused.py)


def lowers(*ops: Any, supports: Supports | None = None, dynamic: str = "") -> Callable[[Build], Build]:
    def register(build: Build) -> Build:
        for op in ops:
            if op in TABLE:
                raise AssertionError(f"{op} is lowered twice")
            TABLE[op] = Lowering(op, build, supports, dynamic)
        return build
    return register


def refuses(reason: str, *ops: Any) -> None:
    """`ops` run eagerly, for `reason` (what the partitioner and the fallback warning say)."""
    for op in ops:
        if op in TABLE or op in REFUSED:
            raise AssertionError(f"{op} is lowered or refused already")
        REFUSED[op] = reason


def refusal(node: Call) -> str | None:
    """Why `node` cannot be lowered (None when it can): no entry (or one refused with its
    reason), a dtype we do not run, or the entry's own supports() check."""
    entry = TABLE.get(node.target)
    if entry is None:
        return REFUSED.get(node.target, "no lowering")
    for value in _tensors(node):
        if not dtypes.supported(value.dtype):
            return f"dtype {str(value.dtype).removeprefix('torch.')}"
    if not entry.dynamic and _symbolic(node):
        return "symbolic sizes (lowered at static sizes only)"
    try:
        return entry.supports(node) if entry.supports else None
    except Exception as e:  # a check that cannot read the node refuses it
        return f"arguments not understood ({type(e).__name__})"


def _symbolic(node: Call) -> bool:
    from hlotools.torch.symbolic import is_symbolic
    sizes: list[Any] = [d for t in _tensors(node) for d in t.shape]
    sizes += [a.meta.get("val") for a in node.all_input_nodes]
    return any(is_symbolic(d) for d in sizes)


def _tensors(node: Call) -> list[torch.Tensor]:
    found: list[torch.Tensor] = []

    def visit(v: Any) -> None:
        if isinstance(v, torch.Tensor):
            found.append(v)
        elif isinstance(v, list | tuple):
            for item in v:
                visit(item)

    visit(node.meta.get("val"))
    for arg in node.all_input_nodes:
        visit(arg.meta.get("val"))
    return found
