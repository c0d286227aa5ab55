"""The shortcuts that keep -O2 fast on big modules give the answers of the slow way.

post_order's textual fast path, the pass manager skipping fixed-point applications on a module
nothing changed since the pass last ran clean, and the garbage-collector settings it restores.
"""
from __future__ import annotations

import gc
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

import pytest

import hlotools
from hlotools.ir.module import Module
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.manager import ManagerOptions, PassManager
from hlotools.passes.pipeline import parse_pipeline
from hlotools.passes.registry import register, unregister

TEXT = """HloModule m

ENTRY main {
  p = f32[2] parameter(0)
  n = f32[2] negate(p)
  z = f32[2] constant({0, 0})
  a = f32[2] add(n, z)
  ROOT m = f32[2] multiply(a, n)
}
"""

RUNS: list[str] = []
COLLECTING: list[bool] = []


@dataclass
class Rename(HloPass):
    """Renames the root `times` times (one per application), then changes nothing."""

    name: ClassVar[str] = "test-rename"
    description: ClassVar[str] = "test only"
    times: int = 1

    def run(self, module: Module, ctx: PassContext) -> bool:
        RUNS.append(self.name)
        root = module.entry.root  # type: ignore[union-attr]
        assert root is not None
        if root.name.count(".r") >= self.times:
            return False
        root.name += ".r"
        return True


@dataclass
class Observe(HloPass):
    """Changes nothing; remembers that it ran and the collector's thresholds meanwhile."""

    name: ClassVar[str] = "test-observe"
    description: ClassVar[str] = "test only"

    def run(self, module: Module, ctx: PassContext) -> bool:
        RUNS.append(self.name)
        COLLECTING.append(gc.isenabled())
        return False


@pytest.fixture(autouse=True)
def _passes() -> Iterator[None]:
    register("test-rename", f"{__name__}:Rename")
    register("test-observe", f"{__name__}:Observe")
    RUNS.clear()
    COLLECTING.clear()
    yield
    unregister("test-rename")
    unregister("test-observe")


def test_post_order_is_the_textual_order_when_that_is_topological() -> None:
    comp = hlotools.parse_module(TEXT).entry
    assert comp is not None
    assert [i.name for i in comp.post_order()] == ["p", "n", "z", "a", "m"]


def test_post_order_walks_operands_first_when_the_textual_order_is_not_topological() -> None:
    comp = hlotools.parse_module(TEXT).entry
    assert comp is not None
    comp.instructions.reverse()  # m, a, z, n, p: every user before its operands
    assert [i.name for i in comp.post_order()] == ["p", "n", "z", "a", "m"]


def test_fixed_point_does_not_rerun_a_clean_pass_on_an_unchanged_module() -> None:
    module = hlotools.parse_module(TEXT)
    report = PassManager().run(module, parse_pipeline("fixed-point(test-rename{times=1},test-observe)"))
    # iteration 1: rename changes, observe runs clean; iteration 2: rename runs clean, and
    # observe (clean, nothing changed since) is recorded as no change without running.
    assert [(r.index, r.name, r.changed) for r in report.records] == [
        (1, "test-rename", True), (2, "test-observe", False), (3, "test-rename", False), (4, "test-observe", False)]
    assert RUNS == ["test-rename", "test-observe", "test-rename"]


def test_fixed_point_reruns_a_clean_pass_after_another_pass_changed_the_module() -> None:
    module = hlotools.parse_module(TEXT)
    PassManager().run(module, parse_pipeline("fixed-point(test-observe,test-rename{times=2})"))
    # every iteration follows a rename that changed the module, so observe runs in each
    assert RUNS == ["test-observe", "test-rename", "test-observe", "test-rename", "test-observe", "test-rename"]


def test_print_after_all_runs_every_application() -> None:
    import io
    module = hlotools.parse_module(TEXT)
    PassManager(ManagerOptions(print_after_all=True, stderr=io.StringIO())).run(
        module, parse_pipeline("fixed-point(test-rename{times=1},test-observe)"))
    assert RUNS == ["test-rename", "test-observe", "test-rename", "test-observe"]


def test_the_collector_pauses_during_the_run_and_comes_back() -> None:
    before = gc.get_threshold()
    PassManager().run(hlotools.parse_module(TEXT), parse_pipeline("test-observe"))
    assert COLLECTING == [False]
    assert gc.isenabled() and gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_garbage_from_before_a_pipeline_stays_young() -> None:
    """A cycle made before a pipeline is collected by the next young collection after it (a
    gc.freeze() had moved it to the oldest generation: compiles one after another then never
    collected anything)."""
    import weakref

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a  # type: ignore[attr-defined]
    alive = weakref.ref(a)
    del a, b
    PassManager().run(hlotools.parse_module(TEXT), parse_pipeline("test-observe"))
    gc.collect(0)
    assert alive() is None
