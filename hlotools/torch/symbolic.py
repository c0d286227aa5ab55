"""Symbolic sizes (SymInt) of an FX graph as bounded dynamic dims of HLO.

Dynamo (`mark_dynamic`, `dynamic=True`) and torch.export (`Dim`) trace a graph whose sizes
are sympy expressions of a few symbols. A graph is lowered once per bound of each symbol: a
dim of symbolic size becomes `<=N` at its bound N (the expression evaluated at the symbols'
bounds), and the module runs at any size within it (the dynamic padder). A symbol with a
declared maximum (`mark_dynamic(..., max=)`, `Dim(max=)`) has that bound; one without gets
the power of two at or above its size at the call, so sizes up to that bucket share one
compile. Inside the module a size is an s32 value: get-dimension-size of an input dim
holding the symbol, or the SymInt the graph takes as an input."""
from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import sympy
import torch
from torch.fx import GraphModule, Node

Bounds = Mapping[sympy.Symbol, int]
# Checks of sizes a graph makes (torch.export's range asserts): the bounds and guards hold them.
SIZE_CHECKS = {torch.ops.aten._assert_scalar.default, torch.ops.aten.sym_constrain_range_for_size.default,
               torch.ops.aten.sym_constrain_range.default}


class SizeError(Exception):
    """A size hlotools does not lower (a symbol no input holds, an expression it does not build)."""


def is_symbolic(d: Any) -> bool:
    return isinstance(d, torch.SymInt | torch.SymFloat) and not isinstance(d.node.expr, sympy.Number)


def expression(d: Any) -> sympy.Expr:
    return d.node.expr if isinstance(d, torch.SymInt) else sympy.Integer(int(d))


def symbols(gm: GraphModule) -> dict[sympy.Symbol, int | None]:
    """The symbols of the graph's inputs and their declared maxima (None: unbounded)."""
    found: dict[sympy.Symbol, int | None] = {}
    for node in gm.graph.nodes:
        if node.op != "placeholder":
            continue
        for d in _sizes_of(node.meta.get("val")):
            if is_symbolic(d):
                for s in d.node.expr.free_symbols:
                    found.setdefault(s, _declared_max(d, s))
    return found


def _sizes_of(val: Any) -> Sequence[Any]:
    if isinstance(val, torch.Tensor):
        return tuple(val.shape)
    return (val,) if isinstance(val, torch.SymInt) else ()


def _declared_max(d: torch.SymInt, s: sympy.Symbol) -> int | None:
    ranges = d.node.shape_env.var_to_range.get(s)
    if ranges is None or not isinstance(ranges.upper, sympy.Integer) or int(ranges.upper) > 2**31 - 1:
        return None
    return int(ranges.upper)


def bucket(n: int) -> int:
    """The power of two at or above n: the bound of an unbounded symbol at size n."""
    return 1 << max(int(n) - 1, 1).bit_length()


def bound(d: Any, bounds: Bounds) -> int:
    """A dim's size at the bounds (a static dim's own size)."""
    if not is_symbolic(d):
        return int(d)
    missing = sorted(str(s) for s in d.node.expr.free_symbols if s not in bounds)
    if missing:  # a data-dependent size, or one of no input
        raise SizeError(f"size {d.node.expr}: {', '.join(missing)} has no bound (no input dim holds it)")
    value = d.node.expr.xreplace({s: sympy.Integer(bounds[s]) for s in d.node.expr.free_symbols})
    return int(value)


def values_at_call(gm: GraphModule, args: Sequence[Any]) -> dict[sympy.Symbol, int]:
    """Each symbol's value in this call: read off the inputs that hold it as a whole dim; a
    symbol held only inside a size expression (`s//2` after a pooling that runs eagerly) gets
    the least value whose expression reaches the input's size (sizes grow with their
    symbols), so its bucket holds the call."""
    found: dict[sympy.Symbol, int] = {}
    implied: list[tuple[sympy.Expr, int]] = []
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for node, value in zip(placeholders, args):
        val = node.meta.get("val")
        if isinstance(val, torch.SymInt) and isinstance(val.node.expr, sympy.Symbol):
            found.setdefault(val.node.expr, int(value))
        elif isinstance(val, torch.Tensor) and isinstance(value, torch.Tensor):
            for d, n in zip(val.shape, value.shape):
                if isinstance(d, torch.SymInt) and isinstance(d.node.expr, sympy.Symbol):
                    found.setdefault(d.node.expr, int(n))
                elif isinstance(d, torch.SymInt) and is_symbolic(d):
                    implied.append((d.node.expr, int(n)))
    for expr, n in implied:
        free = [s for s in expr.free_symbols if s not in found]
        if len(free) == 1:
            known = expr.xreplace({s: sympy.Integer(v) for s, v in found.items()})
            found[free[0]] = _least_reaching(known, free[0], n)
    return found


def _least_reaching(expr: sympy.Expr, s: sympy.Symbol, n: int) -> int:
    """The least v >= 1 with expr(v) >= n, for an expr non-decreasing in s (a size)."""
    def at(v: int) -> int:
        return int(expr.xreplace({s: sympy.Integer(v)}))
    lo, hi = 1, 1
    while at(hi) < n and hi < 2**31:
        lo, hi = hi + 1, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (mid + 1, hi) if at(mid) < n else (lo, mid)
    return lo


def example_values(gm: GraphModule) -> dict[sympy.Symbol, int]:
    """Each symbol's value in the example Dynamo traced with (its hint), also for a symbol
    that no input holds as a whole dim."""
    found: dict[sympy.Symbol, int] = {}
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            for d in _sizes_of(node.meta.get("val")):
                if not is_symbolic(d):
                    continue
                if isinstance(d.node.expr, sympy.Symbol) and d.node.hint is not None:
                    found.setdefault(d.node.expr, int(d.node.hint))
                env = d.node.shape_env  # (torch 2.13 renamed var_to_val backed_var_to_val)
                hints = getattr(env, "backed_var_to_val", None)
                if hints is None:
                    hints = getattr(env, "var_to_val", {})
                for s in d.node.expr.free_symbols:
                    if s not in found and isinstance(hints.get(s), sympy.Integer):
                        found[s] = int(hints[s])
    return found


def bounds_for(declared: Mapping[sympy.Symbol, int | None], values: Mapping[sympy.Symbol, int]) -> dict[sympy.Symbol, int]:
    """The bound of each symbol for a call with these values: declared, else its bucket."""
    out = {}
    for s, most in declared.items():
        out[s] = most if most is not None else bucket(values.get(s, 2))
    return out


def is_size_node(node: Node) -> bool:
    """A node computing a size (sym_size, SymInt arithmetic, a SymFloat of sizes), not a tensor."""
    return isinstance(node.meta.get("val"), torch.SymInt | torch.SymFloat)


_BOUNDS: contextvars.ContextVar[Bounds | None] = contextvars.ContextVar("hlotools_torch_bounds", default=None)


@contextlib.contextmanager
def lowering_at(bounds: Bounds) -> Iterator[None]:
    """Dims read while lowering (out_dims, parameters) are taken at these bounds."""
    token = _BOUNDS.set(bounds)
    try:
        yield
    finally:
        _BOUNDS.reset(token)


def at_bound(d: Any) -> int:
    """A dim of the node being lowered at the current bounds."""
    return bound(d, _BOUNDS.get() or {})
