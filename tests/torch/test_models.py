"""Whole models through torch.compile on both backends against eager: eval (no gradients,
which is where the fused fast paths appear), train mode (outputs, parameter gradients and
updated batch-norm statistics), and a whole training step (forward, loss.backward(), SGD)
of the MLP and the CNN. Nothing may fall back to eager: a FallbackWarning is an error."""
from __future__ import annotations

import copy
from typing import Any

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

from tests.torch.models import CNN, MLP, MODELS  # noqa: E402
from tests.torch.support import assert_same, fresh_dynamo  # noqa: E402, F401

DYNAMO = {"interp": "hlotools_interp", "llvm": "hlotools"}
EVAL_ONLY = {"native_multi_head_attention",  # the fused kernel has no backward
             "transformer_encoder_layer_masked"}  # masks matter to the fused eval kernel
STEPPED = {"mlp", "cnn"}  # their gradients are checked by the training-step test


pytestmark = pytest.mark.usefixtures("fresh_dynamo")


def _model(name: str) -> tuple[Any, list[Any]]:
    torch.manual_seed(0)
    make, inputs = MODELS[name]
    return make(), inputs()


@pytest.mark.parametrize("backend", sorted(DYNAMO))
@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_eval_matches_eager(name: str, backend: str) -> None:
    model, args = _model(name)
    model.eval()
    compiled = torch.compile(model, backend=DYNAMO[backend])
    with torch.no_grad():
        got = compiled(*args)
        want = model(*args)
    assert_same(got, want)


@pytest.mark.parametrize("backend", sorted(DYNAMO))
@pytest.mark.parametrize("name", sorted(set(MODELS) - EVAL_ONLY - STEPPED))
def test_model_train_mode_gradients_match_eager(name: str, backend: str) -> None:
    model, args = _model(name)
    model.train()
    reference = copy.deepcopy(model)
    got = torch.compile(model, backend=DYNAMO[backend])(*args)
    want = reference(*args)
    assert_same(got, want)
    _total(got).backward()
    _total(want).backward()
    for (where, ours), theirs in zip(model.named_parameters(), reference.parameters()):
        assert ours.grad is not None, where
        torch.testing.assert_close(ours.grad, theirs.grad, msg=lambda m, where=where: f"{where}.grad: {m}")
    assert_same(list(model.buffers()), list(reference.buffers()))  # batch norm's running statistics


def _total(out: Any) -> Any:
    outs = out if isinstance(out, tuple) else (out,)
    return sum((o * torch.linspace(-1, 1, o.numel()).view(o.shape)).sum() for o in outs)


def _sgd_step(model: Any, optimiser: Any, x: Any, labels: Any) -> Any:
    optimiser.zero_grad()
    loss = F.cross_entropy(model(x), labels)
    loss.backward()
    optimiser.step()
    return loss


@pytest.mark.parametrize("backend", sorted(DYNAMO))
@pytest.mark.parametrize("make, shape", [(MLP, (4, 8)), (CNN, (4, 3, 8, 8))], ids=["mlp", "cnn"])
def test_training_step_matches_eager(make: Any, shape: tuple[int, ...], backend: str) -> None:
    torch.manual_seed(0)
    model = make()
    reference = copy.deepcopy(model)
    x, labels = torch.randn(*shape), torch.tensor([0, 3, 1, 2])
    ours = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    theirs = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    step = torch.compile(_sgd_step, backend=DYNAMO[backend])
    for _ in range(2):  # the second step runs the cached graphs with momentum buffers set
        torch.testing.assert_close(step(model, ours, x, labels), _sgd_step(reference, theirs, x, labels))
        for (where, p), q in zip(model.named_parameters(), reference.parameters()):
            torch.testing.assert_close(p.grad, q.grad, msg=lambda m, where=where: f"{where}.grad: {m}")
            torch.testing.assert_close(p, q, msg=lambda m, where=where: f"{where}: {m}")
    assert_same(list(model.buffers()), list(reference.buffers()))
