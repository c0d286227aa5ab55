"""Sorting: aten.sort as one stable HLO sort of (values, s64 indices) along the dim, and
aten.topk as the first k of one.

torch orders NaN above every number (last ascending, first descending) and -0.0 equal to
0.0; the comparator says so explicitly. The sort is always stable: what stable=True asks for,
and one of the orders stable=False allows (torch's own CPU kernel leaves ties in another order
only on large inputs of few distinct values)."""
from __future__ import annotations

import torch

from hlotools.torch import ops
from hlotools.torch.builder import Builder, Value
from hlotools.torch.lowering.context import Call, Context, arg, out_type
from hlotools.torch.lowering.registry import lowers

aten = torch.ops.aten


def comparator(b: Builder, dtype: str, descending: bool) -> str:
    """lhs before rhs: the ordering on the values (operand 0); the indices ride along."""
    name = f"sort_{'desc' if descending else 'asc'}_{dtype}"
    first, second = ("b", "a") if descending else ("a", "b")
    lines = [f"{name} {{", f"  a = {dtype}[] parameter(0)", f"  b = {dtype}[] parameter(1)",
             "  i = s64[] parameter(2)", "  j = s64[] parameter(3)"]
    if dtype in ("f16", "bf16", "f32", "f64"):
        # first < second, or second is NaN and first is not (NaN is the largest value)
        lines += [f"  less = pred[] compare({first}, {second}), direction=LT",
                  f"  first_number = pred[] compare({first}, {first}), direction=EQ",
                  f"  second_nan = pred[] compare({second}, {second}), direction=NE",
                  "  nan_above = pred[] and(first_number, second_nan)",
                  "  ROOT r = pred[] or(less, nan_above)"]
    else:
        lines.append(f"  ROOT r = pred[] compare({first}, {second}), direction=LT")
    return b.computation(name, "\n".join(lines) + "\n}\n")


def _supported(node: Call) -> str | None:
    return "complex input" if out_type(node, 0) == "c64" else None


@lowers(aten.sort.default, supports=_supported)  # (core ATen turns sort.stable into it)
def sort(cx: Context, node: Call) -> list[Value]:
    b, x = cx.b, cx.tensor(node.args[0])
    descending = bool(arg(node, 2, "descending", False))
    if x.rank == 0:
        return [x, ops.constant(b, 0, "s64")]
    return sorted_with_indices(b, x, int(arg(node, 1, "dim", -1)) % x.rank, descending)


def sorted_with_indices(b: Builder, x: Value, axis: int, descending: bool) -> list[Value]:
    """(values, s64 indices) of a stable sort of x along axis."""
    index = ops.iota(b, "s64", x.dims, axis)
    return b.emit_tuple("sort", [x, index], [(x.dtype, x.dims), ("s64", x.dims)],
                        f"dimensions={{{axis}}}, is_stable=true, to_apply={comparator(b, x.dtype, descending)}")


def _sorted_topk(node: Call) -> str | None:
    """sorted=False leaves the order to torch's kernel (not a sorted one): not reproduced."""
    if not arg(node, 4, "sorted", True):
        return "topk with sorted=False (eager's order is its kernel's)"
    return _supported(node)


@lowers(aten.topk.default, supports=_sorted_topk)
def topk(cx: Context, node: Call) -> list[Value]:
    """The first k of a stable sort (descending for the largest): torch's NaN-largest order,
    ties in index order."""
    b, x = cx.b, cx.tensor(node.args[0])
    k = int(cx.number(node.args[1]))
    if x.rank == 0:
        return [x, ops.constant(b, 0, "s64")]
    axis = int(arg(node, 2, "dim", -1)) % x.rank
    values, indices = sorted_with_indices(b, x, axis, bool(arg(node, 3, "largest", True)))
    limits = [k if d == axis else n for d, n in enumerate(x.dims)]
    return [ops.slice_(b, v, [0] * x.rank, limits, [1] * x.rank) for v in (values, indices)]
