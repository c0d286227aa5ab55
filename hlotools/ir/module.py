"""An HLO module: computations (callees before callers) and the header's attributes."""
from __future__ import annotations

from typing import Any

from hlotools.ir.computation import Computation


class Module:
    __slots__ = ("name", "computations", "entry", "attrs", "stack_frames_text", "source_style")

    def __init__(self, name: str) -> None:
        self.name = name
        self.computations: list[Computation] = []
        self.entry: Computation | None = None
        # Header attributes in text order (entry_computation_layout, is_scheduled, ...); typed
        # values as in hlotools/ir/attributes.py.
        self.attrs: dict[str, Any] = {}
        # FileNames/FunctionNames/FileLocations/StackFrames block, verbatim (None if absent).
        self.stack_frames_text: str | None = None
        self.source_style: str | None = None  # 'short' | 'long' as detected by the parser

    def add_computation(self, comp: Computation) -> Computation:
        comp.parent = self
        self.computations.append(comp)
        return comp

    def computation(self, name: str) -> Computation | None:
        for c in self.computations:
            if c.name == name:
                return c
        return None

    def instruction_count(self) -> int:
        return sum(len(c.instructions) for c in self.computations)

    def __repr__(self) -> str:
        return f"<module {self.name}: {len(self.computations)} computations>"
