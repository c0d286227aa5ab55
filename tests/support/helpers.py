"""Pieces of HLO text and test passes that several test files share, so that each test's own text
states only what it is about (and a fix to a shared piece is made once)."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar

from hlotools.ir.module import Module
from hlotools.ir.shape import Shape
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.registry import register, unregister

# A module every cleanup pass has work in: a dead negate (dce), an add of zero (algsimp).
DEAD = """HloModule dead

ENTRY main {
  p = f32[2] parameter(0)
  n = f32[2] negate(p)
  z = f32[2] constant({0, 0})
  a = f32[2] add(p, z)
  ROOT m = f32[2] multiply(a, a)
}
"""


def scalar_computation(name: str, opcode: str, ty: str = "f32", *, out_ty: str | None = None,
                       attrs: str = "") -> str:
    """The text of `name`: ROOT r = opcode(a, b) on two scalar `ty` parameters a and b, the
    to_apply of reduce, reduce-window, map, scatter and all-reduce (`attrs`, such as
    ", direction=GT", follows the operands; `out_ty` is the root's type when it differs)."""
    return (f"{name} {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n"
            f"  ROOT r = {out_ty or ty}[] {opcode}(a, b){attrs}\n}}\n")


@dataclass
class RootBreaker(HloPass):
    """Gives the root a wrong shape, so the verifier must fail after this pass."""

    name: ClassVar[str] = "test-root-breaker"
    description: ClassVar[str] = "test only: breaks the root's shape"

    def run(self, module: Module, ctx: PassContext) -> bool:
        root = module.entry.root  # type: ignore[union-attr]
        assert root is not None
        root.shape = Shape.array(root.shape.element_type, (7,))  # type: ignore[arg-type]
        return True


@contextmanager
def registered_passes(*passes: type[HloPass]) -> Iterator[None]:
    """The passes registered under their `name` while the block runs (for pipelines in tests)."""
    for cls in passes:
        register(cls.name, f"{cls.__module__}:{cls.__qualname__}")
    try:
        yield
    finally:
        for cls in passes:
            unregister(cls.name)
