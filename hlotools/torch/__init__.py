"""The PyTorch front end (optional extra `hlotools[torch]`): torch.compile backends that
lower Dynamo's ATen graphs to HLO and run them on hlotools.

    torch.compile(model, backend="hlotools")          # -O2 passes + the LLVM backend
    torch.compile(model, backend="hlotools_interp")   # the reference interpreter
    hlotools.torch.export(model, (x,), path="mlp.hlo")  # mlp.hlo + mlp.params.npz (AOT)

Both are registered through the `torch_dynamo_backends` entry point, so no import of
hlotools is needed. Dims marked dynamic (mark_dynamic, Dim(max=), dynamic=True) compile once
per bound as bounded dynamic modules (symbolic.py). Only this package imports torch."""
from hlotools.torch.aot import Exported, ExportError, export
from hlotools.torch.dynamo import FallbackWarning, compile_graph, hlotools_backend, hlotools_interp_backend

__all__ = ["ExportError", "Exported", "FallbackWarning", "compile_graph", "export", "hlotools_backend",
           "hlotools_interp_backend"]
