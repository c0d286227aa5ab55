"""Every pass by XLA's name: adding a pass adds one line here."""
from __future__ import annotations

import importlib

from hlotools.errors import HloError
from hlotools.passes.base import HloPass

# name -> "module:Class" (imported on first use so `hlo-opt --help` stays fast).
PASSES: dict[str, str] = {
    "call-inliner": "hlotools.passes.call_inliner:CallInliner",
    "cse": "hlotools.passes.cse:HloCSE",
    "dce": "hlotools.passes.dce:HloDCE",
    "flatten-call-graph": "hlotools.passes.flatten_call_graph:FlattenCallGraph",
    "reshape-mover": "hlotools.passes.reshape_mover:ReshapeMover",
    "tuple-simplifier": "hlotools.passes.tuple_simplifier:TupleSimplifier",
    "while-loop-simplifier": "hlotools.passes.while_loop_simplifier:WhileLoopSimplifier",
    "algsimp": "hlotools.passes.algsimp:AlgebraicSimplifier",
    "algsimp-inexact": "hlotools.passes.algsimp:InexactAlgebraicSimplifier",
    "constant-folding": "hlotools.passes.constant_folding:HloConstantFolding",
    "fusion": "hlotools.passes.fusion:InstructionFusion",
    "epilogue-fusion": "hlotools.passes.epilogue_fusion:EpilogueFusion",
    "scheduling": "hlotools.passes.scheduling:Scheduling",
    "layout-assignment": "hlotools.passes.layout_assignment:LayoutAssignment",
    "float-normalization-bf16": "hlotools.passes.float_normalization:FloatNormalization",
    "fma-contraction": "hlotools.passes.fma_contraction:FmaContraction",
    "transpose-folding": "hlotools.passes.transpose_folding:TransposeFolding",
    "dynamic-padder": "hlotools.passes.dynamic_padder:DynamicPadder",
}


# XLA's spellings of the passes we implement under another name (what its dumps and
# --xla_disable_hlo_passes say: constant_folding is HloConstantFolding::name()).
ALIASES: dict[str, str] = {
    "constant_folding": "constant-folding",
    "simplify-while-loops": "while-loop-simplifier",
    "hlo-memory-scheduler": "scheduling",
}


def canonical_name(name: str) -> str:
    """Our registry name for `name`, which may be XLA's spelling (ALIASES)."""
    return ALIASES.get(name, name)


def pass_class(name: str) -> type[HloPass]:
    name = canonical_name(name)
    target = PASSES.get(name)
    if target is None:
        import difflib  # only for the message about an unknown name

        close = difflib.get_close_matches(name, [*PASSES, *ALIASES], n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise HloError(f"unknown pass '{name}'{hint} (see --list-passes)")
    module_name, cls_name = target.split(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    assert cls.name == name, f"{target} registers as {cls.name!r}, not {name!r}"
    return cls


def register(name: str, target: str) -> None:
    """For tests (e.g. a deliberately broken pass that --bisect-against must find)."""
    PASSES[name] = target


def unregister(name: str) -> None:
    PASSES.pop(name, None)
