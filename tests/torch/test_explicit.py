"""Lowerings no OpInfo sample reaches as a one-op graph: functions run through
aot_autograd (the Dynamo backend's own path: functionalised, forward and backward graphs)
with hlotools compiling each graph, against eager, outputs and gradients.
`explicitly_tested()` is what test_opinfo's coverage test adds to the OpInfo graphs."""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from hlotools.torch.dynamo import compile_graph  # noqa: E402
from hlotools.torch.options import Options  # noqa: E402
from hlotools.torch.partition import unsupported  # noqa: E402
from tests.torch.support import BACKENDS, assert_same, aten_ops, decompositions  # noqa: E402


def aot_run(fn: Callable[..., Any], args: list[Any], backend: str = "interp") -> tuple[Any, list[Any], set[Any]]:
    """(outputs, input gradients of sum(outputs), ATen ops hlotools lowered) through aot_function."""
    from torch._functorch.aot_autograd import aot_function
    lowered: set[Any] = set()

    def compiler(gm: Any, _: Any) -> Any:
        refused = unsupported(gm)
        lowered.update(t for t in aten_ops(gm) if all(n.target != t for n in refused))
        return compile_graph(gm, backend, Options())
    compiled = aot_function(fn, fw_compiler=compiler, bw_compiler=compiler, decompositions=decompositions())
    leaves = [a.detach().clone().requires_grad_(a.requires_grad) for a in args]
    out = compiled(*leaves)
    grads = _grads(out, leaves)
    return out, grads, lowered


def _grads(out: Any, leaves: list[Any]) -> list[Any]:
    outs = out if isinstance(out, tuple | list) else (out,)
    total = sum(o.float().sum() for o in outs if o.requires_grad)
    wrt = [a for a in leaves if a.requires_grad]
    return list(torch.autograd.grad(total, wrt)) if wrt and isinstance(total, torch.Tensor) else []


def eager(fn: Callable[..., Any], args: list[Any]) -> tuple[Any, list[Any]]:
    leaves = [a.detach().clone().requires_grad_(a.requires_grad) for a in args]
    out = fn(*leaves)
    return out, _grads(out, leaves)


def _r(*shape: int, grad: bool = True) -> Any:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape))).requires_grad_(grad)


def _batch_norm(training: bool) -> Callable[..., Any]:
    def fn(x: Any, w: Any, b: Any, mean: Any, var: Any) -> Any:
        y = F.batch_norm(x, mean, var, w, b, training=training, momentum=0.3, eps=1e-4)
        return (y, mean * 1, var * 1)  # the running statistics after the update
    return fn


def _assign_row(x: Any, y: Any) -> Any:
    z = x * 1
    z[:, 1] = y  # functionalised: a copy of y into z's column, then a slice_scatter
    return z


CASES: dict[str, tuple[Callable[..., Any], Callable[[], list[Any]], set[Any]]] = {
    "batch_norm_train": (_batch_norm(True), lambda: [_r(4, 3, 5, 5), _r(3), _r(3), torch.zeros(3), torch.ones(3)],
                         {torch.ops.aten._native_batch_norm_legit_functional.default}),
    "batch_norm_eval": (_batch_norm(False), lambda: [_r(4, 3, 5, 5), _r(3), _r(3), _r(3, grad=False),
                                                     torch.rand(3) + 0.5],
                        {torch.ops.aten._native_batch_norm_legit_no_training.default}),
    "batch_norm_no_stats": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True, eps=1e-4),
                            lambda: [_r(4, 3, 5, 5), _r(3), _r(3)], {torch.ops.aten._native_batch_norm_legit.no_stats}),
    "instance_norm": (lambda x: F.instance_norm(x * 2 + 1), lambda: [_r(2, 3, 4, 6)],
                      {torch.ops.aten._native_batch_norm_legit.no_stats}),
    "causal_attention": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                         lambda: [_r(2, 2, 5, 4), _r(2, 2, 5, 3) @ torch.ones(3, 4), _r(2, 2, 6, 4)[:, :, :5]],
                         {torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward.default}),
    "scalar_base_pow": (lambda x: 10000.0 ** x, lambda: [_r(7)], {torch.ops.aten.pow.Scalar}),
    "gt_scalar": (lambda x: (x > 0.1).to(x.dtype) * x, lambda: [_r(3, 4)], {torch.ops.aten.gt.Scalar}),
    "copy_into": (lambda x: torch.zeros(3, 4).copy_(x) + 1, lambda: [_r(3, 4)], {torch.ops.aten.copy.default}),
    "assign_column": (_assign_row, lambda: [_r(3, 4), _r(3)], {torch.ops.aten.copy.default}),
    "bitwise_scalar": (lambda x: ((x & 6) | 1) ^ 3, lambda: [torch.arange(-6, 6)],
                       {torch.ops.aten.bitwise_and.Scalar, torch.ops.aten.bitwise_or.Scalar,
                        torch.ops.aten.bitwise_xor.Scalar}),
    "scalar_modes": (lambda x, n: (torch.div(x, -1.5, rounding_mode="floor"), torch.div(n, 4, rounding_mode="trunc"),
                                   torch.fmod(x, 1.5), torch.remainder(x, -1.5), torch.remainder(n, 4)),
                     lambda: [_r(3, 4, grad=False) * 4, torch.arange(-6, 6)],
                     {torch.ops.aten.fmod.Scalar, torch.ops.aten.remainder.Scalar}),
    "div_scalar_mode": (lambda x, n: (torch.ops.aten.div.Scalar_mode(x, -1.5, rounding_mode="floor"),
                                      torch.ops.aten.div.Scalar_mode(x, 2.5, rounding_mode="trunc"),
                                      torch.ops.aten.div.Scalar_mode(n, -4, rounding_mode="floor")),
                        lambda: [_r(3, 4, grad=False) * 4, torch.arange(-6, 6)], {torch.ops.aten.div.Scalar_mode}),
    "isinf_complex": (torch.isinf, lambda: [torch.tensor([complex(1, math.inf), complex(-math.inf, 0), 1 + 2j,
                                                          complex(math.nan, math.inf), complex(math.nan, 0)])],
                      {torch.ops.aten.isinf.default}),
    "any_of_dims": (lambda x: (x.any(dim=(0, 2)), (x > 0).any(dim=(1,), keepdim=True), x.any(dim=())),
                    lambda: [torch.tensor([[[0, 1], [0, 0]], [[0, 0], [0, 0]], [[2, 0], [0, -1]]])],
                    {torch.ops.aten.any.dims}),
    "circular_pad": (lambda x: F.pad(x, (2, 1, 1, 2), mode="circular") * 2, lambda: [_r(2, 3, 4, 5)],
                     {torch.ops.aten.new_empty_strided.default}),
    "replicate_pad_3d": (lambda x: F.pad(x, (1, 2, 0, 1, 2, 1), mode="replicate") * 2, lambda: [_r(1, 2, 3, 4, 5)],
                         {torch.ops.aten.replication_pad3d_backward.default}),
    "cdist_norms": (lambda a, c: (*(torch.cdist(a, c, p) for p in (0.0, 1.0, 2.0, 3.0, math.inf)),
                                  torch.cdist(a, c, compute_mode="use_mm_for_euclid_dist"),
                                  torch.cdist(a[None].expand(2, 6, 3), c)),
                    lambda: [_r(6, 3), _r(4, 3)], {torch.ops.aten._cdist_forward.default}),
    # (torch.cdist takes the product form itself; the op's own kernel does for p = 2 too)
    "cdist_forward_products": (lambda a, c: (torch.ops.aten._cdist_forward(a, c, 2.0, None),
                                             torch.ops.aten._cdist_forward(a[:5], c, 2.0, 1)),
                               lambda: [_r(30, 4), _r(7, 4)], {torch.ops.aten._cdist_forward.default}),
    "pdist_norms": (lambda x: (F.pdist(x), F.pdist(x, 1.0), F.pdist(x, 3.0), F.pdist(x, math.inf)),
                    lambda: [_r(6, 3)], {torch.ops.aten._pdist_forward.default}),
    "embedding_bag_inference": (lambda w, i, o, s: tuple(F.embedding_bag(i, w.detach(), o, mode=m, padding_idx=pad, **kw)
                                                         for m, pad, kw in (("sum", None, {}), ("mean", 2, {}), ("max", None, {}),
                                                                            ("sum", None, {"per_sample_weights": s}),
                                                                            ("mean", None, {"include_last_offset": True}))),
                                lambda: [_r(6, 3, grad=False), torch.tensor([0, 2, 1, 2, 5, 2, 4]), torch.tensor([0, 3, 3, 7]),
                                         _r(7, grad=False)],
                                {torch.ops.aten._embedding_bag_forward_only.default}),
    "embedding_bag_training": (lambda w, i, o: F.embedding_bag(i, w, o, mode="mean"),
                               lambda: [_r(6, 3), torch.tensor([0, 2, 1, 2, 5]), torch.tensor([0, 3])], set()),
    "empty_strided_then_fill": (lambda x: (torch.empty_strided((3, 4), (1, 3)).fill_(2.0) + x,
                                           x.new_empty_strided((4, 3), (1, 4)).fill_(-1.0)),
                                lambda: [_r(3, 4)], {torch.ops.aten.empty_strided.default,
                                                     torch.ops.aten.new_empty_strided.default}),
    "empty_then_fill": (lambda x: torch.empty(3, 4).fill_(2.0) + x, lambda: [_r(3, 4)],
                        {torch.ops.aten.empty.memory_format}),
}


@functools.cache
def _ran(name: str, backend: str = "interp") -> tuple[Any, Any, Any, Any, set[Any]]:
    fn, make, _ = CASES[name]
    args = make()
    out, grads, lowered = aot_run(fn, args, backend)
    want, want_grads = eager(fn, args)
    return out, grads, want, want_grads, lowered


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_explicit_case_matches_eager(name: str, backend: str) -> None:
    out, grads, want, want_grads, lowered = _ran(name, backend)
    assert CASES[name][2] <= lowered, f"{name}: {CASES[name][2] - lowered} not lowered"
    assert_same(out, want)
    assert_same(grads, want_grads)


def explicitly_tested() -> set[Any]:
    """The ops these cases lower and check (whatever else they reach too)."""
    found: set[Any] = set()
    for name in CASES:
        found |= _ran(name)[4]
    return found
