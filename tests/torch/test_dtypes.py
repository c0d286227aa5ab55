"""One small elementwise + reduction model in every dtype the front end runs, on both backends,
against eager (torch's own promotion: integer and bool sums are int64); and a second process
compiling the same model finds it in the persistent compile cache."""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from hlotools.torch.runtime import clear_cache  # noqa: E402
from tests.torch.support import assert_same  # noqa: E402

DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int16, torch.int32,
          torch.int64, torch.uint8, torch.bool, torch.complex64]
DYNAMO = {"interp": "hlotools_interp", "llvm": "hlotools"}


@pytest.fixture(autouse=True)
def fresh_dynamo() -> Iterator[None]:
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def model(x: Any, y: Any) -> Any:
    """Elementwise ops, a sum over the last dim and, where the dtype is ordered, a max over the first."""
    z = x * y + x
    out = [z, z.sum(-1), (x == y) | (z != x)]
    if not z.dtype.is_complex:
        out.append(z.amax(0))
    return out


def inputs(dtype: Any) -> list[Any]:
    g = torch.Generator().manual_seed(0)
    if dtype == torch.bool:
        return [torch.rand(3, 5, generator=g) > 0.5 for _ in range(2)]
    if dtype.is_floating_point or dtype.is_complex:
        return [torch.randn(3, 5, generator=g, dtype=dtype) for _ in range(2)]
    low = 0 if dtype == torch.uint8 else -9
    return [torch.randint(low, 10, (3, 5), generator=g, dtype=dtype) for _ in range(2)]


@pytest.mark.parametrize("backend", sorted(DYNAMO))
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d).removeprefix("torch."))
def test_model_in_every_dtype_matches_eager(dtype: Any, backend: str) -> None:
    args = inputs(dtype)
    got = torch.compile(model, backend=DYNAMO[backend])(*args)
    want = model(*args)
    assert [g.dtype for g in got] == [w.dtype for w in want]
    assert_same(got, want)


@pytest.mark.parametrize("backend", sorted(DYNAMO))
def test_eager_numerics_by_default_xla_cpu_on_request(backend: str) -> None:
    """Eager PyTorch keeps denormals and rounds f16 after every op (semantics "spec", the
    default); options={"semantics": "xla-cpu"} gives XLA CPU's flushed answer."""
    def f(x: Any, h: Any, k: Any) -> Any:
        return x * 0.5, h * k + h
    x = torch.tensor([4e-38, 3e-39, -1e-38])
    h, k = (torch.linspace(-2, 2, 64, dtype=torch.float16) * v for v in (1.1, 0.37))
    got = torch.compile(f, backend=DYNAMO[backend])(x, h, k)
    for g, w in zip(got, f(x, h, k)):
        torch.testing.assert_close(g, w, rtol=0, atol=0)
    torch._dynamo.reset()
    flushed = torch.compile(f, backend=DYNAMO[backend], options={"semantics": "xla-cpu"})(x, h, k)[0]
    assert flushed[0] == x[0] * 0.5 and flushed[1] == 0 and flushed[2] == 0  # denormal results flushed


SECOND_PROCESS = """
import sys, torch
sys.path.insert(0, {root!r})
from tests.torch.test_dtypes import inputs, model
compiled = torch.compile(model, backend="hlotools", options={{"verbose": True}})
print(compiled(*inputs(torch.float32))[1].tolist())
"""


def test_a_second_process_hits_the_persistent_cache(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setenv("HLOTOOLS_CACHE_DIR", str(tmp_path / "cache"))  # empty: this process fills it
    clear_cache()  # (the float32 case above compiled this graph already)
    compiled = torch.compile(model, backend="hlotools", options={"verbose": True})
    want = compiled(*inputs(torch.float32))[1].tolist()
    (first,) = [line for line in capsys.readouterr().err.splitlines() if line.startswith("hlotools: torch_")]
    assert "compile cache: compiled" in first and "stored" in first, first
    root = str(Path(__file__).resolve().parents[2])
    r = subprocess.run([sys.executable, "-c", SECOND_PROCESS.format(root=root)], env=dict(os.environ),
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    (second,) = [line for line in r.stderr.splitlines() if line.startswith("hlotools: torch_")]
    assert second.split(":")[1] == first.split(":")[1]  # the same module (named by its content)
    assert "compile cache: hit" in second and "compiled (" not in second, second
    torch.testing.assert_close(torch.tensor(eval(r.stdout)), torch.tensor(want))
