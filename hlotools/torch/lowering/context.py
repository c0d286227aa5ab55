"""What a lowering sees: the builder, the HLO values of the node's inputs, and the node's
result type from its `meta["val"]` (the fake tensor FX recorded)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch
from torch.fx import Node

from hlotools.torch import dtypes, ops, symbolic
from hlotools.torch.builder import Builder, Value
from hlotools.torch.lowering.sizes import Size, Sizes


class Call(Protocol):
    """The view of an FX call_function node a lowering reads (torch types node.args as its
    whole Argument union; a lowering knows its op's schema, so here they are Any)."""

    @property
    def args(self) -> tuple[Any, ...]: ...
    @property
    def kwargs(self) -> dict[str, Any]: ...
    @property
    def target(self) -> Any: ...
    @property
    def meta(self) -> dict[str, Any]: ...
    @property
    def name(self) -> str: ...
    @property
    def all_input_nodes(self) -> list[Node]: ...


class LoweringError(Exception):
    """A node the lowering could not express after all (a bug or an unchecked argument)."""


@dataclass
class Context:
    b: Builder
    env: dict[Node, Any] = field(default_factory=dict)
    sizes: Sizes = field(init=False)

    def __post_init__(self) -> None:
        self.sizes = Sizes(self.b)

    def tensor(self, arg: Any) -> Value:
        if not isinstance(arg, Node):
            raise LoweringError(f"expected a tensor, got {arg!r}")
        value = self.env[arg]
        if not isinstance(value, Value):
            raise LoweringError(f"{arg.name} is not a single tensor")
        return value

    def operand(self, arg: Any, dtype: str) -> Value:
        """`arg` (a tensor node or a Python number) as a value of `dtype`."""
        if isinstance(arg, Node) and isinstance(self.env.get(arg), Size):
            return self.sizes.scalar(self.env[arg].expr, dtype)
        if isinstance(arg, Node):
            return ops.convert(self.b, self.tensor(arg), dtype)
        return ops.constant(self.b, arg, dtype)

    def number(self, arg: Any) -> Any:
        """A size argument (a SymInt node at its bound, else as given)."""
        if isinstance(arg, Node):
            return symbolic.at_bound(arg.meta["val"])
        return arg

    def set_sizes(self, x: Value, val: torch.Tensor, dims: Sequence[int] | None = None) -> Value:
        """`x` with its `dims` (default: all) that are symbolic in `val` at their runtime
        sizes (set-dimension-size): for results whose sizes no operand carries."""
        marks = [symbolic.is_symbolic(d) for d in val.shape]
        for d in range(x.rank) if dims is None else dims:
            if marks[d]:
                n = self.sizes.value(symbolic.expression(val.shape[d]))
                x = self.b.emit("set-dimension-size", [x, n], x.dtype, x.dims, f"dimensions={{{d}}}", dynamic=marks)
        return x

    def count(self, node_arg: Any, axes: Sequence[int], dtype: str) -> Value:
        """The number of elements of `node_arg` over `axes` as a `dtype` scalar (its runtime
        size where a dim is symbolic)."""
        shape = node_arg.meta["val"].shape
        total = symbolic.expression(1)
        for a in axes:
            total = total * symbolic.expression(shape[a])
        if total.free_symbols:
            return ops.convert(self.b, self.sizes.value(total), dtype)
        return ops.constant(self.b, int(total), dtype)

    def tensors(self, args: Sequence[Any]) -> list[Value]:
        return [self.tensor(a) for a in args]


def batch_only(node: Call) -> str | None:
    """Refuses symbolic sizes but in the leading (batch) dim of the node's tensors: the
    window and channel arithmetic of convolutions and pooling reads the others as numbers."""
    tensors = [a.meta.get("val") for a in node.all_input_nodes]
    for t in tensors + _leaves(node.meta.get("val")):
        if isinstance(t, torch.Tensor) and any(symbolic.is_symbolic(d) for d in t.shape[1:]):
            return "symbolic sizes beyond the batch dim"
    return None


def _leaves(v: Any) -> list[Any]:
    return [x for item in v for x in _leaves(item)] if isinstance(v, list | tuple) else [v]


def val(node: Call, index: int | None = None) -> torch.Tensor:
    v = node.meta["val"]
    return v[index] if index is not None else v


def out_type(node: Call, index: int | None = None) -> str:
    return dtypes.hlo_type(val(node, index).dtype)


def out_dims(node: Call, index: int | None = None) -> tuple[int, ...]:
    return tuple(symbolic.at_bound(d) for d in val(node, index).shape)


def arg(node: Call, index: int, name: str, default: Any = None) -> Any:
    """Argument `index` of the node, by position or keyword."""
    if len(node.args) > index:
        return node.args[index]
    return node.kwargs.get(name, default)


def compute_type(node: Call) -> str:
    """The element type torch computes an elementwise op in: the promoted type of its
    tensor and number arguments (a comparison's operands, not its bool result)."""
    operands = [a.meta["val"] if isinstance(a, Node) else a for a in node.args
                if isinstance(a, Node | int | float | bool | complex)]
    if not operands:
        return out_type(node)
    if len(operands) == 1:
        only = operands[0]
        return dtypes.hlo_type(only.dtype) if isinstance(only, torch.Tensor) else out_type(node)
    return dtypes.hlo_type(torch.result_type(*operands[:2]) if len(operands) == 2
                           else _promote(operands))


def _promote(operands: list[Any]) -> torch.dtype:
    dtype = torch.result_type(operands[0], operands[1])
    for other in operands[2:]:
        dtype = torch.promote_types(dtype, other.dtype if isinstance(other, torch.Tensor)
                                    else torch.result_type(torch.empty((), dtype=dtype), other))
    return dtype
