"""The scheduling pass: peak-memory model, list schedule, is_scheduled, parallel groups."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.passes.base import PassContext
from hlotools.passes.scheduling import Scheduling, groups_for, list_schedule, parallel_groups, peak_bytes
from tests.support.paths import ROOT

BREADTH_FIRST = """HloModule m
ENTRY main {
  p0 = f32[1024] parameter(0)
  a = f32[1024] exponential(p0)
  b = f32[1024] log(p0)
  c = f32[1024] sine(p0)
  a2 = f32[1024] negate(a)
  b2 = f32[1024] negate(b)
  c2 = f32[1024] negate(c)
  s = f32[1024] add(a2, b2)
  ROOT t = f32[1024] add(s, c2)
}"""


def _entry(text: str):
    m = hlotools.parse_module(text)
    return m, m.entry


def test_peak_bytes_model() -> None:
    m, e = _entry(BREADTH_FIRST)
    # p0 (4 KiB, always live) + a, b, c + a2 before a is freed: 5 buffers of 4 KiB.
    assert peak_bytes(e, e.instructions) == 5 * 4096
    order = list_schedule(e)
    assert peak_bytes(e, order) == 4 * 4096
    assert [i.name for i in order] == ["p0", "a", "a2", "b", "b2", "s", "c", "c2", "t"]


def test_aliases_keep_their_operand_alive() -> None:
    m, e = _entry("""HloModule m
ENTRY main {
  p = f32[256] parameter(0)
  x = f32[256] negate(p)
  t = (f32[256]) tuple(x)
  g = f32[256] get-tuple-element(t), index=0
  y = f32[256] abs(p)
  ROOT r = f32[256] add(g, y)
}""")
    # p + x (kept alive by t and g) + the tuple table + y + r.
    assert peak_bytes(e, e.instructions) == 1024 + 1024 + 8 + 1024 + 1024


def test_pass_marks_scheduled_keeps_results_and_is_idempotent() -> None:
    m = hlotools.parse_module(BREADTH_FIRST)
    x = np.linspace(0.5, 2.0, 1024, dtype=np.float32)
    want = evaluate(m, [x])[0]
    assert Scheduling().run(m, PassContext()) is True
    assert m.attrs["is_scheduled"] is True
    assert "is_scheduled=true" in hlotools.print_module(m)
    hlotools.verify_module(m)
    np.testing.assert_array_equal(evaluate(m, [x])[0], want)
    text = hlotools.print_module(m)
    assert Scheduling().run(m, PassContext()) is False
    assert hlotools.print_module(m) == text


def test_order_is_independent_of_the_input_order() -> None:
    """The schedule depends on the graph only: two textual orders give the same result."""
    shuffled = BREADTH_FIRST.replace("  b = f32[1024] log(p0)\n  c = f32[1024] sine(p0)\n",
                                     "  c = f32[1024] sine(p0)\n  b = f32[1024] log(p0)\n")
    orders = []
    for text in (BREADTH_FIRST, shuffled):
        m, e = _entry(text)
        orders.append([i.name for i in list_schedule(e)])
    assert orders[0] == orders[1]


def test_parallel_groups_are_independent_levels() -> None:
    m, e = _entry(BREADTH_FIRST)
    groups = parallel_groups(e)
    assert [sorted(i.name for i in g) for g in groups] == [
        ["p0"], ["a", "b", "c"], ["a2", "b2", "c2"], ["s"], ["t"]]
    level = {id(i): n for n, g in enumerate(groups) for i in g}
    for inst in e.instructions:
        assert all(level[id(o)] < level[id(inst)] for o in inst.operands)


def test_groups_for_reads_the_pass_annotation(monkeypatch: pytest.MonkeyPatch) -> None:
    import hlotools.passes.scheduling as S
    m = hlotools.parse_module(BREADTH_FIRST)
    Scheduling().run(m, PassContext())
    e = m.entry
    want = [[i.name for i in g] for g in parallel_groups(e)]
    monkeypatch.setattr(S, "parallel_groups", lambda comp: pytest.fail("recomputed"))
    recorded = groups_for(e)  # the stored annotation, not a recomputation
    assert [[i.name for i in g] for g in recorded] == want
    assert sum(len(g) for g in recorded) == len(e.instructions)


def test_the_pass_annotation_keeps_no_module_alive() -> None:
    """SCHEDULE_GROUPS is keyed weakly by computation; a value holding the instructions (whose
    parent is the key) kept every scheduled module for the process's life."""
    import gc
    import weakref

    from hlotools.passes.scheduling import SCHEDULE_GROUPS
    m = hlotools.parse_module(BREADTH_FIRST)
    Scheduling().run(m, PassContext())
    assert m.entry in SCHEDULE_GROUPS
    gone = weakref.ref(m.entry)
    del m
    gc.collect()
    assert gone() is None


def test_schedule_is_topological_on_a_generated_module() -> None:
    import sys
    sys.path.insert(0, str(ROOT / "bench"))
    from gen_modules import generate

    m = hlotools.parse_module(generate(2000), verify=False)
    Scheduling().run(m, PassContext())
    for comp in m.computations:
        seen: set[int] = set()
        for inst in comp.instructions:
            assert all(id(o) in seen for o in inst.operands if o.parent is comp), inst.name
            seen.add(id(inst))
    hlotools.verify_module(m)
