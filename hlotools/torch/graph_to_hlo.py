"""An FX graph of ATen ops -> an HLO module's text.

Placeholders become parameters named after them (in order), every call_function node goes
through the lowering table, and the output tuple becomes the entry's tuple root. Outputs
that are not tensors of the graph (None gradients, Python numbers) are not part of the
module: `Lowered.outputs` says where each result comes from. Symbolic sizes are lowered at
the bounds given (symbolic.py): dims of symbolic size are `<=N`, size nodes become s32 values
where a lowering needs them, and a SymInt input read off a tensor's dim is no parameter."""
from __future__ import annotations

import hashlib
import operator
from dataclasses import dataclass, replace
from typing import Any

import sympy
import torch
from torch.fx import GraphModule, Node

from hlotools.torch import dtypes, symbolic
from hlotools.torch.builder import Builder, Value
from hlotools.torch.lowering import TABLE
from hlotools.torch.lowering.context import Context, LoweringError
from hlotools.torch.lowering.registry import SETS
from hlotools.torch.lowering.sizes import Size
from hlotools.torch.symbolic import SizeError


@dataclass(frozen=True)
class Lowered:
    """The module text and how the graph's outputs map onto its results."""

    text: str
    inputs: list[str]  # placeholder names, in parameter order
    outputs: list[tuple[str, Any]]  # ("result", i) | ("size", i): a Python number | ("constant", value)
    nodes: int  # call_function nodes lowered
    name: str  # the module's name
    arguments: tuple[int, ...] = ()  # which of the graph's inputs each parameter is

    def named_by_content(self) -> Lowered:
        """The module renamed NAME_<digest of its text>: the same graph traced again (a new
        Dynamo frame, another process) gives the same text, so both compile caches hit,
        while different graphs keep apart in dumps and messages."""
        digest = hashlib.sha256(self.text.encode()).hexdigest()[:10]
        name = f"{self.name}_{digest}"
        head, rest = self.text.split("\n", 1)
        assert head == f"HloModule {self.name}", head
        return replace(self, text=f"HloModule {name}\n{rest}", name=name)


def lower_graph(gm: GraphModule, name: str = "torch_graph", bounds: symbolic.Bounds | None = None) -> Lowered:
    """`gm` as a module; its symbolic sizes at `bounds` (each symbol's bound)."""
    with symbolic.lowering_at(bounds or {}):
        try:
            return _lower(gm, name)
        except SizeError as e:
            raise LoweringError(str(e)) from e


def _lower(gm: GraphModule, name: str) -> Lowered:
    b = Builder(name)
    cx = Context(b)
    inputs: list[str] = []
    arguments: list[int] = []
    count = 0
    outputs: list[tuple[str, Any]] = []
    results: list[Value] = []
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for node in placeholders:  # tensor dims first: sizes are read off them where they can be
        if isinstance(node.meta.get("val"), torch.Tensor):
            cx.env[node] = _parameter(cx, node, len(inputs))
            inputs.append(node.name)
            arguments.append(placeholders.index(node))
    for i, node in enumerate(placeholders):
        if node not in cx.env:
            cx.env[node], is_parameter = _scalar_input(cx, node, len(inputs))
            if is_parameter:
                inputs.append(node.name)
                arguments.append(i)
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "call_function" and symbolic.is_size_node(node):
            cx.env[node] = _size(node)
        elif node.op == "call_function" and node.target in symbolic.SIZE_CHECKS:
            cx.env[node] = None
        elif node.op == "call_function":
            cx.env[node] = _call(cx, node)
            count += 1
        elif node.op == "output":
            for item in _flat(node.args[0]):
                value = cx.env.get(item) if isinstance(item, Node) else item
                if isinstance(value, Size):  # a size the graph returns (saved for backward)
                    outputs.append(("size", len(results)))
                    results.append(cx.sizes.scalar(value.expr, "s32" if value.expr.is_integer else "f64"))
                elif isinstance(value, Value):
                    outputs.append(("result", len(results)))
                    results.append(value)
                else:
                    outputs.append(("constant", value))
        elif node.op != "get_attr":
            raise LoweringError(f"cannot lower FX node {node.name} ({node.op})")
        else:
            raise LoweringError(f"{node.name}: graph constants (get_attr) are not lowered")
    return Lowered(b.module_text(results), inputs, outputs, count, name, tuple(arguments))


def _flat(out: Any) -> list[Any]:
    return list(out) if isinstance(out, list | tuple) else [out]


def _parameter(cx: Context, node: Node, number: int) -> Value:
    val = node.meta["val"]
    dynamic = [symbolic.is_symbolic(d) for d in val.shape]
    x = cx.b.parameter(number, node.name, dtypes.hlo_type(val.dtype, f"input {node.name}"),
                       [symbolic.at_bound(d) for d in val.shape], dynamic)
    for i, d in enumerate(val.shape):
        if dynamic[i] and isinstance(d.node.expr, sympy.Symbol):
            cx.sizes.from_dim(d.node.expr, x, i)
    return x


def _scalar_input(cx: Context, node: Node, number: int) -> tuple[Any, bool]:
    """A SymInt input: its size, and whether it is a parameter (an s32[] one, when no
    tensor's dim holds it)."""
    val = node.meta.get("val")
    if isinstance(val, int) and not isinstance(val, bool):
        return val, False
    if not symbolic.is_symbolic(val):
        raise LoweringError(f"input {node.name} is {type(val).__name__}, not a tensor")
    expr = symbolic.expression(val)
    if cx.sizes.knows(expr):
        return Size(expr), False
    if not isinstance(expr, sympy.Symbol):
        raise LoweringError(f"input {node.name}: size {expr} is not a symbol")
    cx.sizes.from_scalar(expr, cx.b.parameter(number, node.name, "s32", []))
    return Size(expr), True


def _size(node: Node) -> Any:
    val = node.meta["val"]
    if symbolic.is_symbolic(val):
        return Size(val.node.expr)
    return int(val) if isinstance(val, torch.SymInt) else float(val)


def _call(cx: Context, node: Node) -> Any:
    if node.target is operator.getitem:
        source = cx.env[node.args[0]]  # type: ignore[index]
        return source[node.args[1]]  # type: ignore[index]
    entry = TABLE.get(node.target)
    if entry is None:
        raise LoweringError(f"no lowering for {node.target}")
    result = entry.build(cx, node)
    _check(node, result, node.meta.get("val"))
    if entry.dynamic == SETS and isinstance(result, Value):
        result = cx.set_sizes(result, node.meta["val"])
    return result


def _check(node: Node, result: Any, val: Any) -> None:
    """A lowering's result has the shape and dtype FX recorded (else it is a bug there)."""
    if isinstance(result, list | tuple) and isinstance(val, list | tuple):
        for r, v in zip(result, val):
            _check(node, r, v)
    elif isinstance(result, Value) and isinstance(val, torch.Tensor):
        want = (dtypes.hlo_type(val.dtype), tuple(symbolic.at_bound(d) for d in val.shape))
        if (result.dtype, result.dims) != want:
            raise LoweringError(f"{node.name} ({node.target}): lowered to {result.shape}, "
                                f"torch has {want[0]}{list(want[1])}")
