"""torch.compile options: dump_dir writes each graph's HLO and the files `hlo-opt --dump-dir`
writes for the same pipeline (same names, same passes); verbose says what was compiled and
where it came from (a recompile of the same graph is an in-process cache hit)."""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from click.testing import CliRunner  # noqa: E402

from hlotools.cli import opt as opt_cli  # noqa: E402
from tests.torch.models import MLP  # noqa: E402
from tests.torch.support import assert_same  # noqa: E402

PASSES = "algsimp,cse,fusion,dce"


@pytest.fixture(autouse=True)
def fresh_dynamo() -> Iterator[None]:
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _unnumbered(folder: Path) -> set[str]:
    """The dump's file names without the module number (a process-wide count)."""
    return {re.sub(r"^module_\d{4}\.", "", p.name) for p in folder.iterdir()}


def test_dump_dir_writes_what_hlo_opt_dump_dir_writes(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model, x = MLP().eval(), torch.randn(3, 8)
    dump = tmp_path / "dump"
    compiled = torch.compile(model, backend="hlotools", options={"dump_dir": dump, "passes": PASSES})
    with torch.no_grad():
        assert_same(compiled(x), model(x))
    sources = sorted(dump.glob("torch_*.hlo"))
    assert len(sources) == 1, sorted(p.name for p in dump.iterdir())
    name = sources[0].stem
    ours = _unnumbered(dump) - {sources[0].name}
    r = CliRunner().invoke(opt_cli.main, [str(sources[0]), f"--passes={PASSES}", "--dump-dir", str(tmp_path / "opt")])
    assert r.exit_code == 0, r.output
    assert ours == _unnumbered(tmp_path / "opt")
    assert {f"{name}.before_optimizations.txt", f"{name}.after_optimizations.txt"} <= ours  # XLA's names
    assert any(re.fullmatch(rf"{re.escape(name)}\.\d{{4}}\.\w+\.after_fusion\.txt", n) for n in ours), ours


def test_dump_dir_of_the_interpreter_writes_the_graph(tmp_path: Path) -> None:
    compiled = torch.compile(lambda x: x.exp() + 1, backend="hlotools_interp", options={"dump_dir": tmp_path})
    compiled(torch.ones(3))
    (source,) = tmp_path.glob("torch_*.hlo")
    assert "exponential(" in source.read_text()


def test_verbose_says_compiled_then_cache_hit(capsys: Any) -> None:
    torch.manual_seed(0)
    model, x = MLP().eval(), torch.randn(3, 8)
    for _ in range(2):
        torch._dynamo.reset()  # Dynamo traces again; the same HLO text comes out
        with torch.no_grad():
            torch.compile(model, backend="hlotools", options={"verbose": True})(x)
    first, second = [line for line in capsys.readouterr().err.splitlines() if line.startswith("hlotools: torch_")]
    assert re.search(r"torch_inference_[0-9a-f]{10}: \d+ ATen node\(s\) on hlotools \(llvm\), \d+ lines of HLO; "
                     r"in-process cache miss \(new HLO text\); ", first), first
    assert "compile cache" in first
    assert second.endswith("in-process cache hit (same HLO text)"), second
    assert first.split(":")[1] == second.split(":")[1]  # the same module name: named by its content


def test_quiet_by_default(capsys: Any) -> None:
    torch.compile(lambda x: x * 3, backend="hlotools")(torch.ones(3))
    assert "hlotools:" not in capsys.readouterr().err


def test_training_forward_saves_weights_not_their_transposes(tmp_path: Path) -> None:
    """The partitioner recomputes views in the backward (inductor's min-cut one): the forward
    of x @ W.T returns no transpose of W for the backward (aot_autograd's default saved it,
    which made the forward materialise it every step), and the gradients still match."""
    torch.manual_seed(0)
    model, x = MLP(), torch.randn(3, 8)
    compiled = torch.compile(model, backend="hlotools", options={"dump_dir": tmp_path})
    compiled(x).square().sum().backward()
    got = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).square().sum().backward()
    for g, p in zip(got, model.parameters()):
        assert_same(g, p.grad)
    (forward,) = tmp_path.glob("torch_forward_*.hlo")
    root = next(line for line in forward.read_text().splitlines() if line.lstrip().startswith("ROOT"))
    saved = re.findall(r"[\w.]+", root.split("tuple(", 1)[1])
    producers = {m[1]: m[2] for m in re.finditer(r"^\s*([\w.]+) = \S+ ([\w-]+)\(", forward.read_text(), re.M)}
    assert producers.get(saved[0]) == "add"  # the model's output (fc2's bias add)
    assert not [s for s in saved if producers.get(s) == "transpose"], root
