"""An FX graph of ATen ops -> an HLO module's text.

Placeholders become parameters named after them (in order), every call_function node goes
through the lowering table, and the output tuple becomes the entry's tuple root. Outputs
that are not tensors of the graph (None gradients, Python numbers) are not part of the
module: `Lowered.outputs` says where each result comes from."""
from __future__ import annotations

import hashlib
import operator
from dataclasses import dataclass, replace
from typing import Any

import torch
from torch.fx import GraphModule, Node

from hlotools.torch import dtypes
from hlotools.torch.builder import Builder, Value
from hlotools.torch.lowering import TABLE
from hlotools.torch.lowering.context import Context, LoweringError


@dataclass(frozen=True)
class Lowered:
    """The module text and how the graph's outputs map onto its results."""

    text: str
    inputs: list[str]  # placeholder names, in parameter order
    outputs: list[tuple[str, Any]]  # ("result", i) | ("constant", value)
    nodes: int  # call_function nodes lowered
    name: str  # the module's name

    def named_by_content(self) -> Lowered:
        """The module renamed NAME_<digest of its text>: the same graph traced again (a new
        Dynamo frame, another process) gives the same text, so both compile caches hit,
        while different graphs keep apart in dumps and messages."""
        digest = hashlib.sha256(self.text.encode()).hexdigest()[:10]
        name = f"{self.name}_{digest}"
        head, rest = self.text.split("\n", 1)
        assert head == f"HloModule {self.name}", head
        return replace(self, text=f"HloModule {name}\n{rest}", name=name)


def lower_graph(gm: GraphModule, name: str = "torch_graph") -> Lowered:
    b = Builder(name)
    cx = Context(b)
    inputs: list[str] = []
    count = 0
    outputs: list[tuple[str, Any]] = []
    results: list[Value] = []
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            cx.env[node] = _parameter(b, node, len(inputs))
            inputs.append(node.name)
        elif node.op == "call_function":
            cx.env[node] = _call(cx, node)
            count += 1
        elif node.op == "output":
            for item in _flat(node.args[0]):
                if isinstance(item, Node) and isinstance(cx.env.get(item), Value):
                    outputs.append(("result", len(results)))
                    results.append(cx.env[item])
                else:
                    outputs.append(("constant", item))
        elif node.op != "get_attr":
            raise LoweringError(f"cannot lower FX node {node.name} ({node.op})")
        else:
            raise LoweringError(f"{node.name}: graph constants (get_attr) are not lowered")
    return Lowered(b.module_text(results), inputs, outputs, count, name)


def _flat(out: Any) -> list[Any]:
    return list(out) if isinstance(out, list | tuple) else [out]


def _parameter(b: Builder, node: Node, number: int) -> Value:
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        raise LoweringError(f"input {node.name} is {type(val).__name__}, not a tensor")
    return b.parameter(number, node.name, dtypes.hlo_type(val.dtype, f"input {node.name}"),
                       [int(d) for d in val.shape])


def _call(cx: Context, node: Node) -> Any:
    if node.target is operator.getitem:
        source = cx.env[node.args[0]]  # type: ignore[index]
        return source[node.args[1]]  # type: ignore[index]
    entry = TABLE.get(node.target)
    if entry is None:
        raise LoweringError(f"no lowering for {node.target}")
    result = entry.build(cx, node)
    _check(node, result, node.meta.get("val"))
    return result


def _check(node: Node, result: Any, val: Any) -> None:
    """A lowering's result has the shape and dtype FX recorded (else it is a bug there)."""
    if isinstance(result, list | tuple) and isinstance(val, list | tuple):
        for r, v in zip(result, val):
            _check(node, r, v)
    elif isinstance(result, Value) and isinstance(val, torch.Tensor):
        want = (dtypes.hlo_type(val.dtype), tuple(int(d) for d in val.shape))
        if (result.dtype, result.dims) != want:
            raise LoweringError(f"{node.name} ({node.target}): lowered to {result.shape}, "
                                f"torch has {want[0]}{list(want[1])}")
