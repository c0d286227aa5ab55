"""hlotools: parse, verify, optimise, run and translate XLA HLO text."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hlotools.errors import HloError

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

    from hlotools.ir.dynamic import PaddedSignature
    from hlotools.ir.module import Module
    from hlotools.passes.manager import PipelineReport

__version__ = "0.1.0"
__all__ = ["HloError", "Rewriter", "compile", "evaluate", "pad_dynamic", "parse_module", "print_module",
           "run_pipeline", "verify_module", "__version__"]


def parse_module(text: str, filename: str | None = None, *, verify: bool = True) -> Module:
    """Parse HLO text (full module, header-less module or single instruction) and verify it."""
    from hlotools.text.parser import parse

    module = parse(text, filename)
    if verify:
        try:
            verify_module(module)
        except HloError as e:
            raise e.with_place(filename, text) from None
    return module


def print_module(module: Module, style: str = "short") -> str:
    """Canonical text: 'long' is XLA's dump form, 'short' the form jax's as_text() prints."""
    from hlotools.text.printer import print_module as _print

    return _print(module, style)


def verify_module(module: Module) -> None:
    """Raise HloError naming the first invalid instruction and its location."""
    from hlotools.ir.verifier import verify

    verify(module)


def evaluate(module: Module, args: Sequence[Any], *, max_while_iterations: int | None = None
             ) -> list[np.ndarray]:
    """Run `module` on the reference interpreter as XLA CPU computes it (under the default
    xla-cpu semantics its module-level rounding rewrites run first, on a copy:
    passes/xla_cpu_rounding.py); flattened argument leaves in, flattened result leaves out.
    A module with bounded dynamic dims takes arrays of any size within the bounds and returns
    results at their dynamic sizes (it runs padded: `pad_dynamic`)."""
    from hlotools.interpreter import evaluate as run_as_given
    from hlotools.ir.dynamic import has_dynamic_shapes
    from hlotools.passes.xla_cpu_rounding import as_xla_cpu_rounds

    if has_dynamic_shapes(module):
        from hlotools.ir.dynamic_arrays import pad_arguments, unpad_results
        padded, sig = pad_dynamic(module)
        outputs = run_as_given(as_xla_cpu_rounds(padded), pad_arguments(module, sig, args),
                               max_while_iterations=max_while_iterations)
        return unpad_results(sig, outputs)
    return run_as_given(as_xla_cpu_rounds(module), args, max_while_iterations=max_while_iterations)


def pad_dynamic(module: Module) -> tuple[Module, PaddedSignature]:
    """A static copy of a module with bounded dynamic dims (the dynamic-padder pass) and how its
    entry's extra size parameters and results map to the original signature
    (hlotools.ir.dynamic_arrays pads arguments and trims results with it)."""
    from hlotools.ir.dynamic import PaddedSignature
    from hlotools.passes.dynamic_padder import pad_module

    padded = module.clone()
    sig = pad_module(padded)
    return padded, sig if sig is not None else PaddedSignature()


def run_pipeline(module: Module, passes: str = "O2", *, verify_each: bool = False) -> PipelineReport:
    """Run passes on `module` in place, as `hlo-opt --passes=SPEC` does: a preset (O1, O2) or a
    spec ('algsimp,cse,dce', 'fixed-point(algsimp,dce)', 'cse{is-layout-sensitive=true}').
    The report has one record per pass application (name, changed, seconds, instructions)."""
    from hlotools.passes.manager import ManagerOptions
    from hlotools.passes.manager import run_pipeline as run
    from hlotools.passes.pipeline import parse_pipeline

    return run(module, parse_pipeline(passes), ManagerOptions(verify_each=verify_each))


def compile(module: Module, passes: str = "O2") -> Any:  # noqa: A001 - the API's name for it
    """Native code for `module` through the LLVM backend, after the backend's pipeline for
    `passes` (O2, as hlo-run; "none" compiles the module as given); the module itself is not
    changed. The result is called like `evaluate`: flattened argument leaves in, result leaves
    out; `.stats` has the kernel count and the arena bytes."""
    from hlotools.backend.llvm import compile_module
    from hlotools.backend.llvm.driver.compile import optimise

    return compile_module(optimise(module, passes))


def __getattr__(name: str) -> Any:
    """`hlotools.Rewriter` on first use (the package's import stays small)."""
    if name == "Rewriter":
        from hlotools.ir.rewriter import Rewriter
        return Rewriter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
