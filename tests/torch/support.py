"""Shared helpers of the front-end tests: ATen graphs of a function (make_fx with the
core-ATen decompositions, as aot_autograd builds them) compiled by hlotools.torch without
Dynamo, and eager references for them."""
from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils import _pytree as pytree

from hlotools.torch.dynamo import FallbackWarning, compile_graph
from hlotools.torch.options import Options

BACKENDS = ("interp", "llvm")


def decompositions() -> dict[Any, Any]:
    from hlotools.torch.decompositions import table
    return table()


def trace(fn: Callable[..., Any], args: list[torch.Tensor]) -> torch.fx.GraphModule:
    """Functionalised, as aot_autograd hands graphs over: writes into views (a backward's
    copy_ into a slice of zeros) become scatters of the values."""
    gm = make_fx(fn, decomposition_table=decompositions())(*args)
    plain = [a.detach() for a in args]  # (the traced graph holds the autograd it ran)
    return make_fx(torch.func.functionalize(gm), decomposition_table=decompositions())(*plain)


def aten_ops(gm: torch.fx.GraphModule) -> set[Any]:
    return {n.target for n in gm.graph.nodes if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)}


def run(gm: torch.fx.GraphModule, args: list[torch.Tensor], backend: str) -> Any:
    compiled = compile_graph(gm, backend, Options())
    return compiled([a.detach() for a in args])


def tensor_leaves(value: Any) -> list[torch.Tensor]:
    return [v for v in pytree.tree_leaves(value) if isinstance(v, torch.Tensor)]


def assert_same(ours: Any, eager: Any, **tolerances: Any) -> None:
    got, want = tensor_leaves(ours), tensor_leaves(eager)
    assert len(got) == len(want), (len(got), len(want))
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w.detach(), equal_nan=True, **tolerances)


@pytest.fixture
def fresh_dynamo() -> Iterator[None]:
    """Dynamo's caches emptied around a test, and any eager fallback an error in it."""
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("error", FallbackWarning)
        yield
    torch._dynamo.reset()
