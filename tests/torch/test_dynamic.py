"""Dynamic sizes: a model marked dynamic (mark_dynamic with a maximum, torch.export's Dim(max),
dynamic=True's power-of-two buckets) compiles once per bound as a bounded dynamic HLO module
and runs at any size within it, each result equal to eager at that exact size; neither Dynamo
nor hlotools compiles again while the sizes stay within the bound."""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import hlotools.torch  # noqa: E402
from hlotools.torch import FallbackWarning, dynamo  # noqa: E402
from tests.torch.models import CNN, MLP, LlamaBlock  # noqa: E402
from tests.torch.support import assert_same, fresh_dynamo  # noqa: E402, F401

SIZES = (5, 3, 12, 16, 7)  # five sizes; the first is what Dynamo traces with


pytestmark = pytest.mark.usefixtures("fresh_dynamo")


@pytest.fixture(autouse=True)
def poisoned_padding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Float inputs are padded to their bounds with NaN, not zeros: an answer that read the
    padding would show it (the runners are rebuilt, so the cache holds no unpoisoned one)."""
    from hlotools.ir import dynamic_arrays
    from hlotools.torch import runtime
    pad = dynamic_arrays.pad_arguments

    def with_nan(module: Any, sig: Any, args: list[Any], fill: float = 0) -> list[Any]:
        floats = all(a is None or np.asarray(a).dtype.kind == "f" for a in args)
        return pad(module, sig, args, fill=float("nan") if floats else fill)
    monkeypatch.setattr(dynamic_arrays, "pad_arguments", with_nan)
    runtime.clear_cache()


class Counted:
    """A backend counting Dynamo's calls of it and the HLO modules hlotools lowers."""

    def __init__(self, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.kind, self.calls, self.modules = kind, 0, []
        lower = dynamo.lower_graph

        def counting(*args: Any) -> Any:
            lowered = lower(*args)
            self.modules.append(lowered.text)
            return lowered
        monkeypatch.setattr(dynamo, "lower_graph", counting)

    def __call__(self, gm: Any, example_inputs: list[Any]) -> Any:
        self.calls += 1
        backend = dynamo.hlotools_backend if self.kind == "llvm" else dynamo.hlotools_interp_backend
        return backend(gm, example_inputs)


def _marked(x: Any, dim: int, most: int = 16) -> Any:
    torch._dynamo.mark_dynamic(x, dim, min=2, max=most)
    return x


# (model, one item's shape, the batch bound); the CNN (conv-bn-relu-pool x2 + linear) stays
# below 16, its channel count, where Dynamo guards the batch size off it
BATCHED = {"mlp": (MLP, (8,), 16), "cnn": (CNN, (3, 8, 8), 12)}


@pytest.mark.parametrize("kind", ["interp", "llvm"])
@pytest.mark.parametrize("name", sorted(BATCHED))
def test_batch_dynamic_model_compiles_once_and_matches_eager_at_each_size(name: str, kind: str,
                                                                          monkeypatch: Any) -> None:
    torch.manual_seed(0)
    make, item, most = BATCHED[name]
    model = make().eval()
    backend = Counted(kind, monkeypatch)
    compiled = torch.compile(model, backend=backend)
    with torch.no_grad():
        for n in [n if n <= most else 2 for n in SIZES]:  # five different sizes within the bound
            x = torch.randn(n, *item)
            got = compiled(_marked(x, 0, most) if n == SIZES[0] else x)
            assert got.shape[0] == n
            torch.testing.assert_close(got, model(x))
    assert backend.calls == 1
    assert len(backend.modules) == 1
    assert f"[<={most},{','.join(map(str, item))}] parameter" in backend.modules[0]


def _encoder_layer() -> Any:
    return torch.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)


@pytest.mark.parametrize("make", [_encoder_layer, LlamaBlock], ids=["transformer_encoder_layer", "llama_block"])
def test_attention_with_a_dynamic_sequence_length(make: Any, monkeypatch: Any) -> None:
    """Attention at the runtime length (the LLaMA block: rotary angles from arange(seq),
    causal attention) for every length within the bound, from one module."""
    torch.manual_seed(0)
    layer = make().eval()
    backend = Counted("llvm", monkeypatch)
    compiled = torch.compile(layer, backend=backend)
    with torch.no_grad():
        for n in SIZES:
            x = torch.randn(2, n, 16)
            torch.testing.assert_close(compiled(_marked(x, 1) if n == SIZES[0] else x), layer(x))
    assert (backend.calls, len(backend.modules)) == (1, 1)


def _mse(out: Any, n: int) -> Any:
    return torch.nn.functional.mse_loss(out, torch.randn(n, 4, generator=torch.Generator().manual_seed(n)))


def _cross_entropy(out: Any, n: int) -> Any:
    classes = torch.randint(0, 5, (n,), generator=torch.Generator().manual_seed(n))
    return torch.nn.functional.cross_entropy(out, classes)


@pytest.mark.parametrize("name", sorted(BATCHED))
def test_training_step_batch_dynamic_gradients_match_eager(name: str, monkeypatch: Any) -> None:
    """Forward and backward graphs compile once each; the losses are means over the batch
    and batch norm's statistics count it (sizes read at run time, 1/(N*H*W) a SymFloat):
    loss, every gradient and the running statistics match eager's at each size."""
    make, item, most = BATCHED[name]
    loss_of = {"mlp": _mse, "cnn": _cross_entropy}[name]
    torch.manual_seed(0)
    model, reference = make(), make()
    reference.load_state_dict(model.state_dict())
    backend = Counted("llvm", monkeypatch)
    compiled = torch.compile(model, backend=backend)
    for n in [n if n <= most else 2 for n in SIZES]:
        x = torch.randn(n, *item)
        loss = loss_of(compiled(_marked(x, 0, most) if n == SIZES[0] else x), n)
        loss.backward()
        want = loss_of(reference(x), n)
        want.backward()
        torch.testing.assert_close(loss, want)
        for p, q in zip(model.parameters(), reference.parameters()):
            assert p.grad is not None and q.grad is not None
            torch.testing.assert_close(p.grad, q.grad)
            p.grad, q.grad = None, None
        for a, b in zip(model.buffers(), reference.buffers()):
            torch.testing.assert_close(a, b)
    assert backend.calls == 1
    assert len(backend.modules) == 2  # one forward, one backward


def test_dynamic_true_compiles_one_module_per_power_of_two_bucket(monkeypatch: Any) -> None:
    torch.manual_seed(0)
    model = MLP().eval()
    backend = Counted("llvm", monkeypatch)
    compiled = torch.compile(model, backend=backend, dynamic=True)
    with torch.no_grad():
        for n in (5, 3, 7, 8, 12, 6):
            x = torch.randn(n, 8)
            torch.testing.assert_close(compiled(x), model(x))
    assert backend.calls == 1
    bounds = sorted({int(t.split("[<=")[1].split(",")[0]) for t in backend.modules})
    assert bounds == [4, 8, 16]  # 5, 7, 8, 6 share the bucket of 8


def test_slices_from_the_end_of_a_dynamic_dim(monkeypatch: Any) -> None:
    """x[:-1], x[1:-2:2]: the end counts from the runtime size, not the bound."""
    def f(x: Any) -> Any:
        return x[:-1] - x[1:], x[1:-2:2] * 2 + x[:-3:2]

    backend = Counted("llvm", monkeypatch)
    compiled = torch.compile(f, backend=backend)
    for n in (7, 6, 9, 16, 11):
        x = torch.randn(n, 3)
        if n == 7:
            torch._dynamo.mark_dynamic(x, 0, min=6, max=16)  # Dynamo guards n // 2 - 1 != 1
        assert_same(compiled(x), f(x))
    assert (backend.calls, len(backend.modules)) == (1, 1)


def test_a_factory_of_a_dynamic_size_filled_by_broadcasting(monkeypatch: Any) -> None:
    """empty(n, 4).copy_(row): the result has n rows at run time though its data is a
    broadcast of a static row (the sum over them counts n, not the bound)."""
    def f(x: Any, row: Any) -> Any:
        z = torch.empty(x.shape[0], 4).copy_(row)
        return z.sum(0) + x.sum(0), z, torch.ones_like(x).sum(), torch.arange(x.shape[0]) * 2

    backend = Counted("llvm", monkeypatch)
    compiled = torch.compile(f, backend=backend)
    for n in SIZES:
        x, row = torch.randn(n, 4), torch.randn(4)
        assert_same(compiled(_marked(x, 0) if n == SIZES[0] else x, row), f(x, row))
    assert (backend.calls, len(backend.modules)) == (1, 1)


def test_dump_dir_holds_the_bounded_module_and_its_padded_form(tmp_path: Path) -> None:
    model = MLP().eval()
    compiled = torch.compile(model, backend="hlotools", options={"dump_dir": str(tmp_path)})
    with torch.no_grad():
        compiled(_marked(torch.randn(5, 8), 0))
    [bounded] = tmp_path.glob("*.dynamic.hlo")
    assert "f32[<=16,8] parameter(" in bounded.read_text()
    padded = bounded.with_name(bounded.name.replace(".dynamic.hlo", ".hlo")).read_text()
    assert "<=" not in padded and "s32[] parameter(" in padded  # the size is a parameter there


def test_an_op_without_a_dynamic_lowering_runs_eagerly_not_wrongly(monkeypatch: Any) -> None:
    """sort along the dynamic dim has no bounded lowering: it falls back (one warning) and
    the rest still compiles; the answer is eager's at every size."""
    def f(x: Any) -> Any:
        return torch.sort(x * 2, dim=0).values + 1 + x.sum()

    backend = Counted("llvm", monkeypatch)
    compiled = torch.compile(f, backend=backend)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in SIZES:
            x = torch.randn(n, 3)
            torch.testing.assert_close(compiled(_marked(x, 0) if n == SIZES[0] else x), f(x))
    assert [w for w in caught if issubclass(w.category, FallbackWarning)]
    assert backend.calls == 1


# (model, example input, its dynamic dim, the module's parameter line)
EXPORTS = {"mlp_batch": (MLP, (4, 8), 0, "x = f32[<=32,8] parameter("),
           "llama_sequence": (LlamaBlock, (2, 6, 16), 1, "x = f32[2,<=32,16] parameter(")}


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_export_with_dim_max_runs_through_hlo_run_at_two_sizes(name: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from hlotools.cli.run import main
    make, shape, dim, parameter = EXPORTS[name]
    torch.manual_seed(0)
    model = make().eval()
    done = hlotools.torch.export(model, (torch.randn(*shape),), dynamic_shapes={"x": {dim: torch.export.Dim("n", max=32)}},
                                 path=tmp_path / "m.hlo")
    assert parameter in done.hlo.read_text()
    for n in (3, 20):
        x = torch.randn(*shape[:dim], n, *shape[dim + 1:])
        np.save(tmp_path / "x.npy", x.numpy())
        r = CliRunner().invoke(main, [str(done.hlo), "--inputs", str(done.params), str(tmp_path / "x.npy"),
                                      "-o", str(tmp_path / "out.npz")])
        assert r.exit_code == 0, r.output
        out = np.load(tmp_path / "out.npz")["out0"]
        assert out.shape == tuple(x.shape[:-1]) + (out.shape[-1],)
        with torch.no_grad():
            assert_same(torch.from_numpy(out), model(x))


def test_automatic_dynamic_sizes_held_only_inside_expressions() -> None:
    """Two nn.Sequential models share Sequential.forward's code, so Dynamo's second trace makes
    its sizes dynamic on its own; the convolution and pool run eagerly there, so the part after
    them sees the spatial sizes only as `s//2`: their bounds come from the example's values,
    and at a larger image from the least value reaching the input's size."""
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).eval()
    cnn = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                              torch.nn.Flatten(), torch.nn.AdaptiveAvgPool1d(64), torch.nn.Linear(64, 10)).eval()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", FallbackWarning)  # the convolution and pool run eagerly
        x = torch.randn(2, 8)
        torch.testing.assert_close(torch.compile(mlp, backend="hlotools")(x), mlp(x))
        compiled = torch.compile(cnn, backend="hlotools")
        for shape in ((2, 3, 8, 8), (3, 3, 16, 16)):
            x = torch.randn(*shape)
            torch.testing.assert_close(compiled(x), cnn(x))


def _once_at_each_size(f: Any, make: Any, dim: int, monkeypatch: Any, sizes: tuple[int, ...] = SIZES) -> str:
    """f compiled once (one module, no fallback: fresh_dynamo makes one an error) and equal
    to eager at each size of `dim` of its inputs (make(n): the inputs at size n); the module."""
    backend = Counted("llvm", monkeypatch)
    compiled = torch.compile(f, backend=backend)
    for n in sizes:
        args = make(n)
        if n == sizes[0]:
            for a in args:
                _marked(a, dim % a.dim())
        assert_same(compiled(*args), f(*args))
    assert (backend.calls, len(backend.modules)) == (1, 1)
    return backend.modules[0]


def test_layer_norm_over_a_dynamic_last_dim(monkeypatch: Any) -> None:
    """The mean and variance count the runtime size of the normalized dim, not its bound."""
    def f(x: Any, w: Any) -> Any:
        return torch.nn.functional.layer_norm(x, x.shape[-1:], w, 1 - w, eps=1e-5)

    module = _once_at_each_size(f, lambda n: (torch.randn(3, n), torch.randn(n)), -1, monkeypatch)
    assert "f32[3,<=16] parameter(" in module


def test_var_and_var_mean_over_a_dynamic_dim(monkeypatch: Any) -> None:
    """The divisor n - correction counts the runtime size (over the dynamic dim, all dims,
    and a static dim of a dynamic-batch tensor)."""
    def f(x: Any) -> Any:
        v, m = torch.var_mean(x, dim=0)
        return v, m, torch.var(x, dim=(0, 1), correction=0, keepdim=True), x.var(), x.var(1, correction=2)

    _once_at_each_size(f, lambda n: (torch.randn(n, 4),), 0, monkeypatch)


def test_cumulative_sums_along_and_across_a_dynamic_dim(monkeypatch: Any) -> None:
    """The window along the dynamic dim spans its bound; the padding is masked, so each
    running sum or product holds exactly the valid elements up to it."""
    def f(x: Any) -> Any:
        return torch.cumsum(x, 0), torch.cumsum(x, 1), torch.cumprod(x, 0)

    def g(k: Any) -> Any:  # (integers are padded with zeros, floats with NaN: one each)
        return torch.cumsum(k, 0), torch.cumprod(k, 1)

    _once_at_each_size(f, lambda n: (torch.randn(n, 3) * 0.5 + 1,), 0, monkeypatch)
    _once_at_each_size(g, lambda n: (torch.randint(-5, 5, (n, 2)),), 0, monkeypatch)


def test_flip_of_a_dynamic_and_a_static_dim(monkeypatch: Any) -> None:
    """Reversing the dynamic dim reverses its valid elements (the padding stays last)."""
    def f(x: Any) -> Any:
        return torch.flip(x, [1]), torch.flip(x, [0, 1]) * 2, torch.flip(x, [0]).sum(0)

    _once_at_each_size(f, lambda n: (torch.randn(n, 3),), 0, monkeypatch)


def test_constant_pad_of_a_dynamic_and_a_static_dim(monkeypatch: Any) -> None:
    """The value lands right after the valid elements of the dynamic dim; negative pads crop."""
    def f(x: Any) -> Any:
        pad = torch.nn.functional.pad
        return pad(x, (1, 2, 2, 1), value=3.0), pad(x, (0, 0, -1, 2)), pad(x, (0, 0, 2, -1)), \
            pad(x, (-1, 1)), pad(x, (1, 1)).sum(0)

    assert " pad(" in _once_at_each_size(f, lambda n: (torch.randn(n, 3),), 0, monkeypatch)


def test_split_along_a_static_dim_of_a_dynamic_batch(monkeypatch: Any) -> None:
    def f(x: Any) -> Any:
        a, b = torch.split(x, [2, 4], dim=1)
        return a * 2, b.sum(1), *x.chunk(3, dim=1)

    _once_at_each_size(f, lambda n: (torch.randn(n, 6),), 0, monkeypatch)
