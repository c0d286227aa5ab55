"""Copying instructions and computations (call inlining, loop rewrites, call-graph flattening).

A clone shares the immutable parts (shape, attribute values, literal) with the original and
gets fresh operand/user edges; names are made unique by the Rewriter when the clone is added.
"""
from __future__ import annotations

from collections.abc import Callable

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.rewriter import Rewriter


def clone_computation(rw: Rewriter, comp: Computation, suffix: str = "clone",
                      retarget: Callable[[Instruction, dict], dict] | None = None,
                      before: Computation | None = None) -> Computation:
    """Add a copy of `comp` to the module (named `NAME.clone`, instructions too, as XLA's Clone).

    `retarget(original, attrs)` may rewrite the copied attributes (e.g. point a call at a
    cloned callee)."""
    assert comp.root is not None
    new = comp.clone(f"{comp.name}.{suffix}" if suffix else comp.name,
                     attrs=None if retarget is None else lambda inst: retarget(inst, dict(inst.attrs)),
                     rename=lambda name: rw.unique_name(f"{name}.{suffix}" if suffix else name))
    return rw.add_computation(new, before=before)


def retarget_called_computation(rw: Rewriter, inst: Instruction, old: Computation, new: Computation) -> None:
    """Point `inst`'s uses of computation `old` at `new` (XLA's ReplaceCalledComputations).

    The one in-place attribute edit the passes make: the instruction keeps its name and
    position, and attribute values stay immutable (a fresh tuple for computation lists).
    The Rewriter has no method for it yet; this marks it changed like its own edits."""
    for key, value in list(inst.attrs.items()):
        if value is old:
            inst.attrs[key] = new
        elif isinstance(value, tuple) and any(v is old for v in value):
            inst.attrs[key] = tuple(new if v is old else v for v in value)
    rw.changed = True
