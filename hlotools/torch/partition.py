"""Splitting a graph into the parts hlotools lowers and the parts that run eagerly.

torch.fx's CapabilityBasedPartitioner groups the nodes the lowering table takes (refusal()
is None) into fused submodules; each is compiled, and the nodes left over stay in the outer
graph, which torch runs as it is. `Split` says what went where, for the warning and for
`verbose`."""
from __future__ import annotations

import operator
from collections import Counter
from dataclasses import dataclass, field

from torch.fx import GraphModule, Node
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from hlotools.torch.lowering import refusal
from hlotools.torch.symbolic import SIZE_CHECKS, is_size_node


def node_refusal(node: Node) -> str | None:
    if node.op != "call_function":
        return "not a call"
    if is_size_node(node) or node.target in SIZE_CHECKS:
        return None
    if node.target is operator.getitem:
        source = node.args[0]
        return refusal(source) if isinstance(source, Node) and source.op == "call_function" else "getitem"
    return refusal(node)


class _Supported(OperatorSupportBase):
    def is_node_supported(self, submodules: object, node: Node) -> bool:  # type: ignore[override]
        return node_refusal(node) is None


@dataclass
class Split:
    """The eager nodes by op (with why) and the partitioned module."""

    module: GraphModule
    eager: Counter[str] = field(default_factory=Counter)
    reasons: dict[str, str] = field(default_factory=dict)
    submodules: list[str] = field(default_factory=list)

    @property
    def warning(self) -> str:
        ops = ", ".join(f"{op} ({self.reasons[op]}, {n} node{'s' * (n > 1)})" for op, n in sorted(self.eager.items()))
        return f"hlotools: these ops run eagerly in PyTorch, the rest of the graph on hlotools: {ops}"


def unsupported(gm: GraphModule) -> dict[Node, str]:
    found = {}
    for node in gm.graph.nodes:
        if node.op == "call_function":
            why = node_refusal(node)
            if why is not None:
                found[node] = why
    return found


def split(gm: GraphModule, refused: dict[Node, str]) -> Split:
    result = Split(gm)
    for node, why in refused.items():
        if node.target is operator.getitem:
            continue
        name = str(node.target)
        result.eager[name] += 1
        result.reasons.setdefault(name, why)
    partitioner = CapabilityBasedPartitioner(gm, _Supported(), allows_single_node_partition=True)
    partitions = partitioner.propose_partitions()
    fused = partitioner.fuse_partitions(partitions, prefix="hlotools_part_")
    result.module = fused
    result.submodules = [n.target for n in fused.graph.nodes if n.op == "call_module"]  # type: ignore[misc]
    return result
