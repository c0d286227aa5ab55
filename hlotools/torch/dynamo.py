"""The Dynamo backends `hlotools` (our passes + the LLVM backend) and `hlotools_interp` (the
reference interpreter), registered through the `torch_dynamo_backends` entry point.

Dynamo hands over a torch-level FX graph; aot_autograd with the core-ATen decompositions
turns it into ATen graphs (one for inference, or a forward and a backward for training),
and each of those is lowered to HLO here: whole when every node has a lowering, else split
so the supported parts still compile and the rest runs eagerly, with one warning."""
from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch.fx import GraphModule

from hlotools.torch import decompositions, dtypes, symbolic
from hlotools.torch.graph_to_hlo import Lowered, lower_graph
from hlotools.torch.options import Options
from hlotools.torch.partition import split, unsupported
from hlotools.torch.runtime import CompiledGraph, Runner, cached_runner

_NUMBERS = itertools.count()


class FallbackWarning(UserWarning):
    """Some ops of a graph run eagerly in PyTorch instead of on hlotools."""


def hlotools_backend(gm: GraphModule, example_inputs: list[Any], options: dict[str, Any] | None = None) -> Any:
    """torch.compile(model, backend="hlotools"): -O2 passes and the LLVM backend."""
    return _backend("llvm", gm, example_inputs, options)


def hlotools_interp_backend(gm: GraphModule, example_inputs: list[Any],
                            options: dict[str, Any] | None = None) -> Any:
    """torch.compile(model, backend="hlotools_interp"): the reference interpreter."""
    return _backend("interp", gm, example_inputs, options)


def _backend(kind: str, gm: GraphModule, example_inputs: list[Any], given: dict[str, Any] | None) -> Any:
    from torch._functorch.partitioners import min_cut_rematerialization_partition
    options = Options.of(given)
    check_inputs(gm, example_inputs)

    def compiler(side: str) -> Callable[[GraphModule, list[Any]], Any]:
        return lambda graph, inputs: compile_graph(graph, kind, options, side)
    kwargs = dict(fw_compiler=compiler("forward"), bw_compiler=compiler("backward"),
                  inference_compiler=compiler("inference"),
                  # inductor's partitioner: views and cheap elementwise ops are recomputed in
                  # the backward, not saved (aot_autograd's default saves x @ W.T's W.T, which
                  # the forward then materialised as a transpose every step)
                  partition_fn=min_cut_rematerialization_partition,
                  decompositions=decompositions.table())
    if any(isinstance(x, list | tuple | dict) for x in example_inputs):  # Dynamo's wrapper flattens them
        from torch._dynamo.backends.common import aot_autograd
        return aot_autograd(**kwargs)(gm, example_inputs)
    return _aot(gm, example_inputs, kwargs)


def _aot(gm: GraphModule, example_inputs: list[Any], kwargs: dict[str, Any]) -> Any:
    """aot_module_simplified as torch._dynamo's aot_autograd backend wrapper calls it (Dynamo
    traces neither the backward compiler nor what it returns, nor the compiled graph), without
    the wrapper's import of torch._inductor.debug for its AOT logging: 0.2 s of every
    process's first call."""
    from torch._dynamo import disable
    from torch._functorch import config as functorch_config
    from torch._functorch.aot_autograd import aot_module_simplified
    backward = kwargs["bw_compiler"]

    def bw_compiler(graph: GraphModule, inputs: list[Any]) -> Any:
        return disable(disable(backward, reason="do not trace backward compiler function")(graph, inputs),
                       reason="do not trace generated backwards pass")
    kwargs["bw_compiler"] = bw_compiler
    with functorch_config.patch(cse=False):
        compiled = aot_module_simplified(gm, example_inputs, **kwargs)
    return disable(compiled, reason="do not trace AOT-compiled graph")


def check_inputs(gm: GraphModule, example_inputs: list[Any]) -> None:
    """An input of a dtype hlotools cannot run is an error naming that input."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for node, value in zip(placeholders, example_inputs):
        if isinstance(value, torch.Tensor) and not dtypes.supported(value.dtype):
            source = node.meta.get("grapharg")
            name = source.source.name if source is not None and hasattr(source, "source") else node.name
            dtypes.hlo_type(value.dtype, f"input {name() if callable(name) else name}")


def compile_graph(gm: GraphModule, kind: str, options: Options, side: str = "inference") -> Any:
    """A boxed callable running `gm`: one compiled module, or the split graph with compiled parts."""
    number = next(_NUMBERS)
    mutating = _first_mutation(gm)
    if mutating is not None:
        # Lowered slices and views are copies: an in-place write through one would be lost,
        # silently. Dynamo's aot_autograd and torch.export hand over functional graphs.
        warnings.warn(f"hlotools: {mutating} writes a tensor in place, so the graph is not functional: "
                      f"it runs eagerly (functionalise it first, as aot_autograd does)", FallbackWarning,
                      stacklevel=2)
        options.say(f"{side} graph {number}: eager ({mutating} writes in place)")
        return _boxed(gm)
    refused = unsupported(gm)
    if not refused:
        return _compile_part(gm, kind, options, f"torch_{side}")
    parts = split(gm, refused)
    warnings.warn(parts.warning, FallbackWarning, stacklevel=2)
    outer = parts.module
    eager = sum(parts.eager.values())
    options.say(f"{side} graph {number}: {len(parts.submodules)} part(s) on hlotools, {eager} node(s) eager: "
                + ", ".join(f"{op} x{n} ({parts.reasons[op]})" for op, n in sorted(parts.eager.items())))
    for i, name in enumerate(parts.submodules):
        sub = getattr(outer, name)
        setattr(outer, name, _Part(_compile_part(sub, kind, options, f"torch_{side}_part{i}")))
    outer.recompile()
    return _boxed(outer)


def _compile_part(gm: GraphModule, kind: str, options: Options, prefix: str) -> CompiledGraph:
    """The graph compiled at its sizes' bounds: the declared ones, and for a size without one
    the power-of-two bucket of the example's size (another bucket compiles when a call needs it)."""
    declared = symbolic.symbols(gm)
    versions: dict[tuple[int, ...], tuple[Lowered, Runner]] = {}

    def version(bounds: dict[Any, int]) -> tuple[Lowered, Runner]:
        key = tuple(bounds[s] for s in declared)
        if key not in versions:
            lowered = lower_graph(gm, prefix, bounds).named_by_content()
            runner, how = cached_runner(lowered, kind, options)
            nodes = sum(1 for n in gm.graph.nodes if n.op == "call_function")
            at = ", ".join(f"{s}<={n}" for s, n in bounds.items())
            options.say(f"{lowered.name}: {nodes} ATen node(s) on hlotools ({kind}), "
                        f"{lowered.text.count(chr(10))} lines of HLO{f' (sizes {at})' if at else ''}; {how}")
            versions[key] = (lowered, runner)
        return versions[key]

    def at_call(args: Sequence[Any]) -> tuple[Lowered, Runner]:
        return version(symbolic.bounds_for(declared, symbolic.values_at_call(gm, args)))
    lowered, runner = version(symbolic.bounds_for(declared, symbolic.example_values(gm)))
    out = gm.graph.output_node().args[0]
    bucketed = any(most is None for most in declared.values())
    return CompiledGraph(lowered, runner, single=not isinstance(out, list | tuple),
                         version=at_call if bucketed else None)


class _Part(torch.nn.Module):
    """A compiled part standing in for its fused submodule in the split graph."""

    def __init__(self, compiled: CompiledGraph) -> None:
        super().__init__()
        self.compiled = compiled

    def forward(self, *args: torch.Tensor) -> Any:
        return self.compiled(list(args))


def _first_mutation(gm: GraphModule) -> str | None:
    """The first ATen op of `gm` whose schema writes one of its arguments (copy_, add_, ...)."""
    for node in gm.graph.nodes:
        schema = getattr(node.target, "_schema", None) if node.op == "call_function" else None
        if schema is not None and schema.is_mutable:
            return str(node.target)
    return None


def _boxed(gm: GraphModule) -> Callable[[list[Any]], Any]:
    from torch._functorch.aot_autograd import make_boxed_func
    return make_boxed_func(gm.forward)
