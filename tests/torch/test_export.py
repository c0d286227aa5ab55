"""hlotools.torch.export: the HLO file's parameters are the exported program's inputs, the
state file holds them by name, `hlo-run NAME.hlo --inputs NAME.params.npz x.npy` and a C
program linking `hlo-translate --emit=obj` reproduce eager's output; torch.export's own
failures and ops without a lowering are one-line errors."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from click.testing import CliRunner  # noqa: E402

import hlotools  # noqa: E402
import hlotools.torch  # noqa: E402
from hlotools.cli import run as run_cli  # noqa: E402
from hlotools.cli import translate as translate_cli  # noqa: E402
from tests.torch.models import CNN, MLP  # noqa: E402

CC = shutil.which("gcc") or shutil.which("cc")
CNN_PARAMETERS = ["p_conv1_weight", "p_conv1_bias", "p_bn1_weight", "p_bn1_bias", "p_conv2_weight", "p_conv2_bias",
                  "p_bn2_weight", "p_bn2_bias", "p_fc_weight", "p_fc_bias", "b_bn1_running_mean",
                  "b_bn1_running_var", "b_bn1_num_batches_tracked", "b_bn2_running_mean", "b_bn2_running_var",
                  "b_bn2_num_batches_tracked", "x"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[hlotools.torch.Exported, np.ndarray, np.ndarray]:
    """The eval CNN exported once: (files, x, eager's output)."""
    torch.manual_seed(0)
    model = CNN().eval()
    x = torch.randn(2, 3, 8, 8)
    files = hlotools.torch.export(model, (x,), path=tmp_path_factory.mktemp("export") / "cnn")
    with torch.no_grad():
        return files, x.numpy(), model(x).numpy()


def test_parameters_are_named_after_the_program_inputs(exported: Any) -> None:
    files, _, _ = exported
    assert files.hlo.name == "cnn.hlo" and files.params.name == "cnn.params.npz"
    assert files.parameters == CNN_PARAMETERS and files.user_inputs == ["x"]
    assert len(files.results) == 1 and files.results[0].startswith("USER_OUTPUT ")  # (a node's name)
    module = hlotools.parse_module(files.hlo.read_text())
    assert module.entry is not None
    assert [p.name for p in module.entry.parameters] == CNN_PARAMETERS
    state = np.load(files.params)
    assert sorted(state.files) == sorted(CNN_PARAMETERS[:-1])
    assert state["b_bn1_num_batches_tracked"].shape == ()  # 0-d state stays 0-d


def test_hlo_run_takes_the_state_and_the_input(exported: Any, tmp_path: Path) -> None:
    files, x, want = exported
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out.npz"
    r = CliRunner().invoke(run_cli.main, [str(files.hlo), "--inputs", str(files.params), str(tmp_path / "x.npy"),
                                          "-o", str(out)])
    assert r.exit_code == 0, r.output
    torch.testing.assert_close(torch.from_numpy(np.load(out)["out0"]), torch.from_numpy(want))


C_PROGRAM = """#include <stdio.h>
#include <stdlib.h>
#include "cnn.h"

/* argv: one raw file per parameter in order, then the file to write result 0 to */
int main(int argc, char **argv) {
  size_t sizes[] = CNN_PARAM_BYTES_LIST;
  const void *params[CNN_NUM_PARAMS];
  if (argc != CNN_NUM_PARAMS + 2) return 2;
  for (int i = 0; i < CNN_NUM_PARAMS; i++) {
    void *p = aligned_alloc(64, (sizes[i] + 63) / 64 * 64);
    FILE *f = fopen(argv[1 + i], "rb");
    if (!p || !f || fread(p, 1, sizes[i], f) != sizes[i]) return 3;
    fclose(f);
    params[i] = p;
  }
  void *out = aligned_alloc(64, (CNN_RESULT0_BYTES + 63) / 64 * 64);
  void *results[] = {out};
  void *temp = CNN_TEMP_BYTES ? aligned_alloc(CNN_TEMP_ALIGN, (CNN_TEMP_BYTES + 63) / 64 * 64) : NULL;
  if (cnn(params, results, temp) != 0) return 4;
  FILE *f = fopen(argv[1 + CNN_NUM_PARAMS], "wb");
  if (!f || fwrite(out, 1, CNN_RESULT0_BYTES, f) != CNN_RESULT0_BYTES) return 5;
  fclose(f);
  return 0;
}
"""


@pytest.mark.skipif(CC is None, reason="no C compiler (gcc/cc)")
def test_c_program_linking_the_object_matches_eager(exported: Any, tmp_path: Path) -> None:
    files, x, want = exported
    for form, out in (("obj", "cnn.o"), ("header", "cnn.h")):
        r = CliRunner().invoke(translate_cli.main, [str(files.hlo), f"--emit={form}", "-o", str(tmp_path / out)])
        assert r.exit_code == 0, r.output
    (tmp_path / "main.c").write_text(C_PROGRAM)
    assert CC is not None
    subprocess.run([CC, "-std=c11", "-O1", "-Wall", "-Werror", "-o", "prog", "main.c", "cnn.o", "-lm", "-lpthread"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=120)
    state = np.load(files.params)
    inputs = []
    for name in files.parameters:
        path = tmp_path / f"{name}.bin"
        path.write_bytes(np.ascontiguousarray(x if name == "x" else state[name]).tobytes())
        inputs.append(str(path))
    r = subprocess.run(["./prog", *inputs, "out.bin"], cwd=tmp_path, capture_output=True, timeout=60)
    assert r.returncode == 0, r
    got = np.frombuffer((tmp_path / "out.bin").read_bytes(), np.float32).reshape(want.shape)
    torch.testing.assert_close(torch.from_numpy(got.copy()), torch.from_numpy(want))


class _DataDependent(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return x * 2 if x.sum() > 0 else x - 1


def test_torch_export_failure_is_one_line_with_torch_message(tmp_path: Path) -> None:
    with pytest.raises(hlotools.HloError) as caught:
        hlotools.torch.export(_DataDependent(), (torch.randn(3),), path=tmp_path / "bad.hlo")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("torch.export failed: ")
    assert "data-dependent" in message.lower() or "guard" in message.lower(), message
    assert not (tmp_path / "bad.hlo").exists()


class _Lgamma(MLP):
    def forward(self, x: Any) -> Any:
        return torch.lgamma(super().forward(x))


def test_export_of_an_op_without_lowering_names_it(tmp_path: Path) -> None:
    with pytest.raises(hlotools.HloError, match=r"cannot lower aten\.lgamma\.default \(no lowering, 1 node\)"):
        hlotools.torch.export(_Lgamma().eval(), (torch.randn(3, 8),), path=tmp_path / "lgamma.hlo")


def test_export_of_mlp_parameters_hold_the_weights(tmp_path: Path) -> None:
    torch.manual_seed(1)
    model = MLP().eval()
    files = hlotools.torch.export(model, (torch.randn(2, 8),), path=tmp_path / "mlp.hlo")
    state = np.load(files.params)
    assert files.parameters == ["p_fc1_weight", "p_fc1_bias", "p_fc2_weight", "p_fc2_bias", "x"]
    np.testing.assert_array_equal(state["p_fc1_weight"], model.fc1.weight.detach().numpy())
    np.testing.assert_array_equal(state["p_fc2_bias"], model.fc2.bias.detach().numpy())


def test_a_dynamic_dim_without_a_maximum_is_refused_by_name(tmp_path: Path) -> None:
    batch = torch.export.Dim("batch")
    with pytest.raises(hlotools.HloError, match=r"dynamic dim \w+ has no maximum"):
        hlotools.torch.export(MLP().eval(), (torch.randn(2, 8),), dynamic_shapes={"x": {0: batch}},
                              path=tmp_path / "dyn.hlo")
    assert not (tmp_path / "dyn.hlo").exists()


class _TrainBatchNorm(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bn = torch.nn.BatchNorm1d(3)

    def forward(self, x: Any) -> Any:
        return self.bn(x), x.sum()


def test_buffer_updates_are_named_results(tmp_path: Path) -> None:
    """A train-mode batch norm's new running statistics come first, named by their parameter."""
    model, x = _TrainBatchNorm().train(), torch.randn(4, 3)
    files = hlotools.torch.export(model, (x,), path=tmp_path / "bn.hlo")
    assert files.results[:3] == ["BUFFER_MUTATION b_bn_running_mean", "BUFFER_MUTATION b_bn_running_var",
                                 "BUFFER_MUTATION b_bn_num_batches_tracked"]
    assert [r.split()[0] for r in files.results[3:]] == ["USER_OUTPUT"] * 2
    state = np.load(files.params)
    args = [x.numpy() if name == "x" else state[name] for name in files.parameters]
    got = hlotools.evaluate(hlotools.parse_module(files.hlo.read_text()), args)
    want_y, want_sum = model(x)  # updates the module's running statistics, as the results say
    for result, want in zip(got, [model.bn.running_mean, model.bn.running_var, model.bn.num_batches_tracked,
                                  want_y, want_sum]):
        torch.testing.assert_close(torch.from_numpy(np.asarray(result)), want.detach())
