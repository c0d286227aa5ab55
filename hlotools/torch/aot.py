"""hlotools.torch.export: a model, ahead of time, as an HLO file and its state.

torch.export traces the model, the decomposition table (core ATen plus ours) brings the
program down to the ops the lowering table knows, and the graph becomes NAME.hlo, whose
entry parameters are named after the exported program's inputs (p_fc1_weight, b_bn_running_mean,
..., x), with the state in NAME.params.npz under the same names. Weights stay parameters, so

    hlo-run NAME.hlo --inputs NAME.params.npz x.npy
    hlo-translate NAME.hlo --emit=obj|header

run or compile the model with new weights or inputs, and no Python. A `Dim(max=N)` in
`dynamic_shapes` exports that dim as `<=N`: the module runs at any size up to N (`--semantics=spec` gives
eager PyTorch's numerics where XLA CPU's differ: denormals, f16 rounding; the torch.compile
backends use it by default). There is no eager fallback here: an op without a lowering is an
error naming it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from hlotools.errors import HloError
from hlotools.torch import decompositions, dtypes, symbolic
from hlotools.torch.graph_to_hlo import lower_graph
from hlotools.torch.lowering.context import LoweringError
from hlotools.torch.partition import split, unsupported

_STATE_KINDS = ("PARAMETER", "BUFFER", "CONSTANT_TENSOR")


class ExportError(HloError):
    """torch.export refused the model, or its program has an op hlotools cannot lower."""


@dataclass(frozen=True)
class Exported:
    """Where the files went and what the module's parameters are."""

    hlo: Path
    params: Path
    parameters: list[str]  # every entry parameter, in order
    user_inputs: list[str]  # those the caller passes (the rest are in params)
    results: list[str]  # what each result leaf (hlo-run's out0, out1, ...) is: "KIND name"


def export(model: torch.nn.Module, args: tuple[Any, ...] | list[Any], dynamic_shapes: Any = None,
           path: str | Path = "model.hlo") -> Exported:
    """Export `model` called on `args` to `path` (NAME.hlo) and NAME.params.npz next to it."""
    hlo_path = Path(path)
    if hlo_path.suffix != ".hlo":
        hlo_path = hlo_path.with_name(hlo_path.name + ".hlo")
    name = hlo_path.stem
    program = _exported(model, tuple(args), dynamic_shapes)
    gm = program.graph_module
    _refuse_unlowered(gm)
    try:
        lowered = lower_graph(gm, name, _bounds(gm))
    except LoweringError as e:
        raise ExportError(f"export of {name}: {e}") from e
    state = _state(program)
    hlo_path.parent.mkdir(parents=True, exist_ok=True)
    hlo_path.write_text(lowered.text)
    params_path = hlo_path.with_name(f"{name}.params.npz")
    np.savez(params_path, **{k: state[k] for k in lowered.inputs if k in state})  # type: ignore[arg-type]
    return Exported(hlo_path, params_path, lowered.inputs, [k for k in lowered.inputs if k not in state],
                    _results(program, lowered.outputs))


def _exported(model: torch.nn.Module, args: tuple[Any, ...], dynamic_shapes: Any) -> Any:
    """torch.export's program after our decompositions; its errors as one line."""
    try:
        program = torch.export.export(model, args, dynamic_shapes=dynamic_shapes)
        return program.run_decompositions(decompositions.table())
    except Exception as e:  # torch raises many types here; the user needs its message
        raise ExportError(f"torch.export failed: {type(e).__name__}: {_first_line(str(e))}") from e


def _first_line(message: str) -> str:
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return lines[0] if lines else "(no message)"


def _refuse_unlowered(gm: torch.fx.GraphModule) -> None:
    refused = unsupported(gm)
    if refused:
        parts = split(gm, refused)
        ops = ", ".join(f"{op} ({parts.reasons[op]}, {n} node{'s' * (n > 1)})" for op, n in sorted(parts.eager.items()))
        raise ExportError(f"export: hlotools cannot lower {ops}; an exported module has no eager fallback")


def _bounds(gm: torch.fx.GraphModule) -> dict[Any, int]:
    """Each Dim's maximum: a dynamic dim exports as `<=max` (hlo-run runs it at any size up to it)."""
    bounds = {}
    for s, most in symbolic.symbols(gm).items():
        if most is None:
            raise ExportError(f"export: dynamic dim {s} has no maximum; give it one (Dim('{s}', max=...)): "
                              "an exported module is compiled for a bound")
        bounds[s] = most
    return bounds


def _results(program: Any, outputs: list[tuple[str, Any]]) -> list[str]:
    """'USER_OUTPUT linear', 'BUFFER_MUTATION b_bn_running_mean' (the new value of that
    parameter), ... for the outputs that are module results (a None or a number is not one)."""
    signature = program.graph_signature
    parameter_of = {spec.target: spec.arg.name for spec in signature.input_specs if spec.target}
    return [f"{spec.kind.name} {parameter_of.get(spec.target, spec.arg.name)}"
            for spec, (kind, _) in zip(signature.output_specs, outputs) if kind == "result"]


def _state(program: Any) -> dict[str, np.ndarray]:
    """The exported program's state by placeholder name, as arrays hlo-run reads (bf16 as raw
    two-byte values, which take their type from the module)."""
    found: dict[str, np.ndarray] = {}
    for spec in program.graph_signature.input_specs:
        if spec.kind.name not in _STATE_KINDS:
            continue
        value = program.state_dict.get(spec.target)
        if value is None:
            value = program.constants[spec.target]
        array = dtypes.to_numpy(value)  # contiguous (np.ascontiguousarray would make 0-d 1-d)
        found[spec.arg.name] = array.view(f"V{array.itemsize}") if value.dtype == torch.bfloat16 else array
    return found
