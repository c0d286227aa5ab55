"""hlo-run and hlo-opt on bounded dynamic shapes: inputs smaller than the bound, results saved
at their dynamic sizes, one compile for every size (a cache hit), one-line errors past a bound."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result

from hlotools.cli.opt import main as opt_main
from hlotools.cli.run import main

PLAIN = {"FORCE_COLOR": None, "TTY_COMPATIBLE": None}
SOFTMAX = """HloModule softmax

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  x = f32[2,<=8] parameter(0)
  e = f32[2,<=8] exponential(x)
  z = f32[] constant(0)
  s = f32[2] reduce(e, z), dimensions={1}, to_apply=add
  sb = f32[2,<=8] broadcast(s), dimensions={0}
  ROOT r = f32[2,<=8] divide(e, sb)
}
"""
SET_SIZE = """HloModule sds

ENTRY main {
  x = s32[6] parameter(0)
  n = s32[] parameter(1)
  ROOT d = s32[<=6] set-dimension-size(x, n), dimensions={0}
}
"""


def invoke(args: list[object], prog=main) -> Result:
    return CliRunner().invoke(prog, [str(a) for a in args], env=PLAIN)


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("HLOTOOLS_CACHE_DIR", str(folder))
    return folder


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x)
    return e / e.sum(1, keepdims=True)


@pytest.mark.parametrize("backend", ["interp", "llvm"])
def test_smaller_inputs_run_and_outputs_keep_their_size(tmp_path: Path, backend: str) -> None:
    model = tmp_path / "m.hlo"
    model.write_text(SOFTMAX)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = invoke([model, "--inputs", tmp_path / "x.npy", "--backend", backend, "-o", tmp_path / "out.npz"])
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("out0: f32[2,3] [")  # the runtime size, not the bound
    out = np.load(tmp_path / "out.npz")["out0"]
    assert out.shape == (2, 3)
    np.testing.assert_allclose(out, _softmax(x), rtol=1e-5)


def test_a_second_size_is_a_cache_hit(tmp_path: Path, cache_dir: Path) -> None:
    model = tmp_path / "m.hlo"
    model.write_text(SOFTMAX)
    for n, state in ((5, "miss"), (2, "hit"), (8, "hit")):
        np.save(tmp_path / "x.npy", np.ones((2, n), np.float32))
        r = invoke([model, "--inputs", tmp_path / "x.npy", "--backend", "llvm", "-v", "--print-literals"])
        assert r.exit_code == 0, r.output
        assert f"compile cache: {state}" in r.stderr, r.stderr
        assert r.stdout.startswith((f"f32[2,{n}]", f"f32[2,<={n}]")), r.stdout  # at the bound: as declared
        assert r.stdout.count("0.") == 2 * n


def test_an_input_beyond_its_bound_is_a_one_line_error(tmp_path: Path) -> None:
    model = tmp_path / "m.hlo"
    model.write_text(SOFTMAX)
    np.save(tmp_path / "x.npy", np.ones((2, 9), np.float32))
    for backend in ("interp", "llvm"):
        r = invoke([model, "--inputs", tmp_path / "x.npy", "--backend", backend])
        assert r.exit_code == 1
        assert r.stderr.strip().splitlines() == [f"{tmp_path / 'x.npy'}: error: parameter 0 'x' expects "
                                                 "f32[2,<=8], given f32[2,9]"]


def test_set_dimension_size_beyond_the_bound_is_a_one_line_error(tmp_path: Path) -> None:
    model = tmp_path / "s.hlo"
    model.write_text(SET_SIZE)
    np.save(tmp_path / "x.npy", np.arange(6, dtype=np.int32))
    for n, backend in ((4, "interp"), (4, "llvm"), (7, "interp"), (7, "llvm"), (-1, "llvm")):
        np.save(tmp_path / "n.npy", np.int32(n))
        r = invoke([model, "--inputs", tmp_path / "x.npy", tmp_path / "n.npy", "--backend", backend,
                    "--print-literals"])
        if 0 <= n <= 6:
            assert r.exit_code == 0 and r.stdout == "s32[4]{0} {0, 1, 2, 3}\n", r.output
        else:
            assert r.exit_code == 1, r.output
            (line,) = r.stderr.strip().splitlines()
            assert line.endswith(f"error: set-dimension-size %d: size {n} is outside its bound 0..6"), line


def test_hlo_opt_shows_the_padded_module(tmp_path: Path) -> None:
    model = tmp_path / "m.hlo"
    model.write_text(SOFTMAX)
    r = invoke([model, "--passes=dynamic-padder", "--verify-each"], prog=opt_main)
    assert r.exit_code == 0, r.output
    assert "x.size0_1 = s32[] parameter(1)" in r.stdout and "<=" not in r.stdout
    assert "ROOT dynamic_padder.result = (f32[2,8]{1,0}, s32[]) tuple(r, x.size0_1)" in r.stdout


def test_undefined_dynamic_behaviour_exits_1_naming_the_instruction(tmp_path: Path) -> None:
    model = tmp_path / "c.hlo"
    model.write_text("HloModule c\n\nENTRY main {\n  x = f32[<=4,4] parameter(0)\n"
                     "  ROOT c = f32[<=4,4] cholesky(x), lower=true\n}\n")
    np.save(tmp_path / "x.npy", np.eye(3, 4, dtype=np.float32))
    r = invoke([model, "--inputs", tmp_path / "x.npy"])
    assert r.exit_code == 1
    first = r.stderr.splitlines()[0]
    assert first.startswith(f"{model}:5:") and "dynamic-padder: %c (cholesky)" in first, r.stderr
