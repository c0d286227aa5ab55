"""What the backends do with what they cannot run: an op without a lowering splits the graph
(the rest compiles, one FallbackWarning names the op, the result is eager's, gradients too);
an input of a dtype hlotools has no type for is an error naming that input; an unknown option
is an error naming it."""
from __future__ import annotations

import copy
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from hlotools.errors import HloError  # noqa: E402
from hlotools.torch import FallbackWarning  # noqa: E402
from hlotools.torch.lowering import TABLE  # noqa: E402
from tests.torch.models import MLP  # noqa: E402
from tests.torch.support import assert_same  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_dynamo() -> Iterator[None]:
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


class Lgamma(MLP):
    """An MLP whose scores go through lgamma (an ATen op hlotools does not lower) and on."""

    def forward(self, x: Any) -> Any:
        return torch.lgamma(super().forward(x).sigmoid() + 1) * 3  # (well-conditioned on (1, 2))


def _fallbacks(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, FallbackWarning)]


@pytest.mark.parametrize("backend", ["hlotools", "hlotools_interp"])
def test_op_without_lowering_runs_eagerly_and_the_rest_compiles(backend: str, capsys: Any) -> None:
    assert torch.ops.aten.lgamma.default not in TABLE
    torch.manual_seed(0)
    model, x = Lgamma().eval(), torch.randn(3, 8)
    compiled = torch.compile(model, backend=backend, options={"verbose": True})
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        got = compiled(x)
        again = compiled(x * 2)
        want, want_again = model(x), model(x * 2)
    fallbacks = _fallbacks(caught)
    assert len(fallbacks) == 1, fallbacks
    assert "aten.lgamma.default (no lowering, 1 node)" in fallbacks[0]
    assert_same([got, again], [want, want_again])
    err = capsys.readouterr().err
    assert "2 part(s) on hlotools, 1 node(s) eager: aten.lgamma.default x1 (no lowering)" in err
    assert "torch_inference_part0_" in err and "torch_inference_part1_" in err


def test_gradients_through_a_split_graph_match_eager() -> None:
    torch.manual_seed(0)
    model, x = Lgamma(), torch.randn(3, 8)
    reference = copy.deepcopy(model)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = torch.compile(model, backend="hlotools")(x)
        got.sum().backward()
    want = reference(x)
    want.sum().backward()
    assert len(_fallbacks(caught)) >= 1 and all("aten.lgamma" in f or "aten.digamma" in f for f in _fallbacks(caught))
    assert_same(got, want)
    assert_same([p.grad for p in model.parameters()], [p.grad for p in reference.parameters()])


@pytest.mark.parametrize("dtype", [torch.uint32, torch.complex128, torch.float8_e4m3fn], ids=str)
def test_input_of_a_dtype_we_cannot_run_is_an_error_naming_it(dtype: Any) -> None:
    def f(x: Any, scale: Any) -> Any:
        return (x * 2).sum() * scale
    compiled = torch.compile(f, backend="hlotools")
    with pytest.raises(Exception) as caught:
        compiled(torch.ones(3).to(dtype), torch.ones(()))
    inner = caught.value.__cause__ or getattr(caught.value, "inner_exception", None)
    name = str(dtype).removeprefix("torch.")
    assert isinstance(inner, HloError), repr(caught.value)
    assert str(inner).startswith(f"input L['x'] has dtype {name}, which hlotools cannot run"), str(inner)
    assert "\n" not in str(inner)


def test_unknown_option_is_an_error_naming_it() -> None:
    compiled = torch.compile(lambda x: x + 1, backend="hlotools", options={"dump_dirr": "d"})
    with pytest.raises(Exception, match=r"unknown option\(s\) dump_dirr \(known: dump_dir, passes, semantics, verbose\)"):
        compiled(torch.ones(2))


def test_a_graph_that_writes_in_place_runs_eagerly_with_one_warning() -> None:
    """make_fx without functionalisation keeps copy_ into a view: lowered, the view would be a
    copy and the write lost; compile_graph runs such a graph eagerly and says why."""
    from torch.fx.experimental.proxy_tensor import make_fx

    from hlotools.torch import compile_graph
    from hlotools.torch.options import Options

    def fill_middle(x: Any, y: Any) -> Any:
        out = x.clone()
        out[:, 1:3].copy_(y)  # a write through a view of `out`
        return out * 2

    x, y = torch.randn(4, 5), torch.randn(4, 2)
    gm = make_fx(fill_middle)(x, y)
    assert any(getattr(n.target, "_schema", None) is not None and n.target._schema.is_mutable
               for n in gm.graph.nodes if n.op == "call_function")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = compile_graph(gm, "hlotools_interp", Options())
        got = run([x, y])
    fallbacks = _fallbacks(caught)
    assert len(fallbacks) == 1 and "aten.copy_.default writes a tensor in place" in fallbacks[0], fallbacks
    want = fill_middle(x, y)
    torch.testing.assert_close(got[0] if isinstance(got, (list, tuple)) else got, want)
