"""Every lowered ATen op, through OpInfo samples (torch's own op database): each sample as a
one-op function traced to an ATen graph with the core-ATen decompositions (what
aot_autograd hands the backend), forward and, where the op is differentiable, its vjp
graph; hlotools' result against eager's, every sample on the interpreter and the first
sample's graphs on the LLVM backend too. The last test asserts that every entry of the
lowering table is reached by these graphs or by an explicit test."""
from __future__ import annotations

import functools
import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch's OpInfo database imports it

from torch.utils import _pytree as pytree  # noqa: E402

from hlotools.torch.lowering import TABLE  # noqa: E402
from hlotools.torch.partition import unsupported  # noqa: E402
from tests.torch.support import assert_same, aten_ops, run, trace  # noqa: E402

OPS = """add sub mul div rsub maximum minimum atan2 bitwise_and bitwise_or bitwise_xor bitwise_not eq ne lt le gt ge
logical_and logical_or logical_xor logical_not exp log log1p expm1 tanh sigmoid sqrt rsqrt sin cos tan erf floor
ceil round abs neg sign sinh cosh asin acos atan asinh acosh atanh reciprocal nn.functional.relu nn.functional.gelu
pow clamp where isnan clone view reshape permute expand squeeze unsqueeze flatten t transpose cat stack flip
constant_pad_nd nn.functional.pad select split split_with_sizes select_scatter slice_scatter narrow full_like arange new_full
sum mean prod amax amin max min argmax argmin any var var_mean softmax log_softmax cumsum mm addmm bmm baddbmm
nn.functional.conv1d nn.functional.conv2d nn.functional.conv_transpose2d nn.functional.max_pool2d
nn.functional.avg_pool2d nn.functional.adaptive_avg_pool2d nn.functional.max_pool3d nn.functional.avg_pool3d
nn.functional.adaptive_avg_pool3d nn.functional.batch_norm nn.functional.layer_norm
nn.functional.group_norm nn.functional.embedding gather scatter scatter_add scatter_reduce masked_scatter index_put index_select
nn.functional.scaled_dot_product_attention nn.functional.cross_entropy nn.functional.mse_loss
nn.functional.silu nn.functional.dropout nn.functional.elu nn.functional.leaky_relu nn.functional.hardtanh
linalg.vector_norm sort topk cumprod isinf log2 log10 trunc fmod remainder repeat diagonal
nn.functional.embedding_bag cdist nn.functional.pdist nn.functional.grid_sample as_strided fft.fft fft.ifft fft.rfft fft.irfft fft.fft2 fft.rfft2 fft.irfft2 fft.fftn fft.hfft fft.ihfft""".split()
SAMPLES = 2  # float32 samples per OpInfo (plus one integer sample where the op takes integers)


@functools.cache
def opinfos() -> list[Any]:
    from torch.testing._internal.common_methods_invocations import op_db
    wanted = set(OPS)
    return [op for op in op_db if op.name in wanted]


def _ids() -> list[str]:
    return [f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name for op in opinfos()]


def _small(sample: Any) -> bool:
    leaves = [x for x in pytree.tree_leaves((sample.input, sample.args, sample.kwargs)) if isinstance(x, torch.Tensor)]
    return all(0 < x.numel() <= 8000 for x in leaves)


# ops whose order among equal values torch leaves to its kernel (topk's partial sort): their
# samples with ties are left out here, and test_topk_of_tied_values checks those
UNORDERED_TIES = {"topk"}


def _tie_free(op: Any, sample: Any) -> bool:
    x = sample.input
    return op.name not in UNORDERED_TIES or x.numel() == x.unique().numel()


def samples(op: Any) -> list[Any]:
    """A few float32 samples (with gradients where the op has them), else integer and bool
    ones; plus one int64 sample of float ops that take integers too."""
    dtypes = op.supported_dtypes("cpu")
    if torch.float32 in dtypes:
        chosen = [s for s in op.sample_inputs("cpu", torch.float32, requires_grad=op.supports_autograd)
                  if _small(s) and _tie_free(op, s)][:SAMPLES]
        others = [torch.int64]
    else:
        chosen, others = [], [torch.int64, torch.bool]
    for dtype in others:
        if dtype in dtypes:
            chosen += [s for s in op.sample_inputs("cpu", dtype) if _small(s) and _tie_free(op, s)][:SAMPLES if not chosen else 1]
    return chosen


def as_function(op: Any, sample: Any) -> tuple[Any, list[Any]]:
    """(fn(*tensors), tensors): the sample's tensors as arguments, everything else fixed."""
    leaves, spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    where = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]

    def fn(*tensors: Any) -> Any:
        filled = list(leaves)
        for i, t in zip(where, tensors):
            filled[i] = t
        x, args, kwargs = pytree.tree_unflatten(filled, spec)
        return op.op(x, *args, **kwargs)
    return fn, [leaves[i] for i in where]


def vjp_function(fn: Any, tensors: list[Any]) -> tuple[Any, list[Any]] | None:
    """(g(*tensors, *cotangents) -> gradients, its arguments), or None when nothing is differentiable."""
    wrt = [i for i, t in enumerate(tensors) if t.requires_grad]
    outs = [o for o in pytree.tree_leaves(fn(*tensors)) if isinstance(o, torch.Tensor) and o.requires_grad]
    if not wrt or not outs:
        return None
    cotangents = [torch.randn_like(o) for o in outs]

    def g(*args: Any) -> Any:
        ts, cots = list(args[: len(tensors)]), args[len(tensors):]
        got = [o for o in pytree.tree_leaves(fn(*ts)) if isinstance(o, torch.Tensor) and o.requires_grad]
        grads = torch.autograd.grad(got, [ts[i] for i in wrt], cots, allow_unused=True)
        return [gr for gr in grads if gr is not None]
    return g, [*tensors, *cotangents]


def graphs(op: Any) -> list[tuple[Any, list[Any], Any]]:
    """(traced graph, arguments, eager function) for each sample, forward and vjp."""
    found = []
    for sample in samples(op):
        fn, tensors = as_function(op, sample)
        try:
            found.append((trace(fn, tensors), tensors, fn))
        except RuntimeError:  # data-dependent arguments (narrow's tensor start): not a static graph
            continue
        if op.supports_autograd and any(t.requires_grad for t in tensors):
            backward = vjp_function(fn, tensors)
            if backward is not None:
                found.append((trace(backward[0], backward[1]), backward[1], backward[0]))
    return found


def _random(op: Any) -> bool:
    return op.name == "nn.functional.dropout"


@pytest.mark.parametrize("op", opinfos(), ids=_ids())
def test_opinfo_samples_match_eager(op: Any) -> None:
    found = graphs(op)
    if not found:
        pytest.skip(f"{op.name}: no float32, int64 or bool sample of a static shape")
    checked = 0
    for gm, args, fn in found:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a fallback is fine here; the coverage test counts lowerings
            ours = run(gm, args, "interp")
        if _random(op):
            continue
        assert_same(ours, fn(*args))
        checked += 1
    assert checked or _random(op), f"no sample of {op.name} was checked"


LLVM_GRAPHS = 2  # per op on the LLVM backend: its first sample's forward and vjp graphs


@pytest.mark.parametrize("op", opinfos(), ids=_ids())
def test_opinfo_samples_on_llvm_match_eager_and_the_interpreter(op: Any) -> None:
    """The compiled code (passes, codegen) on a subset of the samples: against eager with
    torch's tolerances, and against the reference interpreter."""
    found = graphs(op)[:LLVM_GRAPHS]
    if not found or _random(op):
        pytest.skip(f"{op.name}: no deterministic sample of a static shape")
    for gm, args, fn in found:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = run(gm, args, "llvm")
            reference = run(trace(fn, args), args, "interp")  # a split graph is not split again
        assert_same(ours, fn(*args))
        assert_same(ours, reference)


@pytest.mark.parametrize("backend", ["interp", "llvm"])
def test_topk_of_tied_values(backend: str) -> None:
    """Among ties any order is torch's answer: the values are eager's, and the indices are
    distinct positions holding them."""
    x = torch.tensor([[3, 1, 3, 2, 3, 1], [0, 0, 0, 0, 0, 0], [5, -1, 5, 7, 7, 2]])
    fn = lambda x: torch.topk(x, 3, dim=1)  # noqa: E731
    values, indices = run(trace(fn, [x]), [x], backend)
    torch.testing.assert_close(values, fn(x).values)
    torch.testing.assert_close(torch.gather(x, 1, indices), values)
    assert all(len(set(row.tolist())) == 3 for row in indices)


def test_every_lowering_is_tested() -> None:
    from tests.torch.test_explicit import explicitly_tested
    reached = explicitly_tested()
    for op in opinfos():
        for gm, _, _ in graphs(op):
            refused = unsupported(gm)
            reached |= {t for t in aten_ops(gm) if all(n.target != t for n in refused)}
    missing = sorted(str(op) for op in TABLE if op not in reached)
    assert not missing, f"lowerings no OpInfo sample or explicit test reaches: {missing}"
