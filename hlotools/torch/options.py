"""The options of `torch.compile(model, backend="hlotools", options={...})`."""
from __future__ import annotations

import sys
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from hlotools.errors import HloError


@dataclass(frozen=True)
class Options:
    passes: str = "O2"  # a preset (O0, O1, O2, none) or a pass pipeline spec, as hlo-opt takes
    dump_dir: Path | None = None  # HLO text and hlo-opt --dump-dir's per-pass dumps of every graph
    verbose: bool = False  # what was compiled, cache hits and misses, fallbacks, node counts
    # "spec" (IEEE gradual underflow, f16/bf16 rounded after every op) is what eager PyTorch
    # computes; "xla-cpu" gives XLA CPU's answers instead (hlotools.ir.semantics)
    semantics: str = "spec"

    @classmethod
    def of(cls, given: dict[str, Any] | None) -> Options:
        given = dict(given or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(given) - known)
        if unknown:
            raise HloError(f"hlotools backend: unknown option(s) {', '.join(unknown)} "
                           f"(known: {', '.join(sorted(known))})")
        if given.get("dump_dir") is not None:
            given["dump_dir"] = Path(given["dump_dir"])
        passes = given.get("passes", "O2")
        if not isinstance(passes, str):
            raise HloError(f"hlotools backend: option passes must be a string, got {passes!r}")
        from hlotools.ir.semantics import CHOICES
        if given.get("semantics", "spec") not in CHOICES:
            raise HloError(f"hlotools backend: option semantics must be one of {', '.join(CHOICES)}, "
                           f"got {given['semantics']!r}")
        return cls(**given)

    def say(self, message: str) -> None:
        if self.verbose:
            print(f"hlotools: {message}", file=sys.stderr)
