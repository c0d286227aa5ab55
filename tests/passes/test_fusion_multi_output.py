"""Sibling multi-output fusion never fuses two siblings that reach each other, also after an
earlier merge in the same computation made the textual positions stale (hlofile_0710 of the XLA
corpus: the merge made a cycle, the post-order walk never ended and grew past 15 GB). Run in a
child process with a 2 GB address-space limit, so that a regression fails instead of eating the
machine."""
from __future__ import annotations

import resource
import subprocess
import sys

import numpy as np
import pytest

from tests.support.paths import SHARED

MODULE = SHARED / "corpus" / "xla" / "hlo_files" / "hlofile_0710.hlo"

CHILD = """
import sys
import hlotools
from hlotools.passes.manager import run_pipeline
from hlotools.passes.pipeline import PRESETS, parse_pipeline
module = hlotools.parse_module(open(sys.argv[1]).read(), "m")
run_pipeline(module, parse_pipeline(PRESETS["O2"]))
hlotools.verify_module(module)  # no cycle: every operand is defined before its users
fusions = [i for c in module.computations for i in c.instructions if i.opcode == "fusion"]
multi = [f for f in fusions if f.attrs["calls"].root.opcode == "tuple"]
print(len(fusions), len(multi))
"""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.skipif(not MODULE.is_file(), reason="no shared XLA corpus")
def test_o2_on_hlofile_0710_finishes_without_a_cycle() -> None:
    r = subprocess.run([sys.executable, "-c", CHILD, str(MODULE)], capture_output=True, text=True,
                       timeout=300, preexec_fn=_limit_memory)
    assert r.returncode == 0, r.stderr[-2000:]
    fusions, multi = map(int, r.stdout.split())
    assert fusions > 0 and multi > 0  # multi-output fusion still happens there


# Each group is fine alone ({a1, b1} share x, {a2, b2} share y), but a1 feeds b2 and a2 feeds
# b1: merging both groups would make fusion(a1, b1) and fusion(a2, b2) read each other.
CROSSED = """HloModule crossed

ENTRY main {
  x = f32[8] parameter(0)
  y = f32[8] parameter(1)
  a1 = f32[8] negate(x)
  a2 = f32[8] exponential(y)
  b1 = f32[8] add(x, a2)
  b2 = f32[8] multiply(y, a1)
  ROOT t = (f32[8], f32[8]) tuple(b1, b2)
}
"""


def test_two_groups_that_would_read_each_other_are_not_both_merged() -> None:
    import hlotools
    from hlotools.interpreter import evaluate
    from hlotools.ir.rewriter import Rewriter
    from hlotools.passes.base import PassContext
    from hlotools.passes.fusion_multi_output import fuse_siblings
    from hlotools.passes.side_effects import SideEffects

    module = hlotools.parse_module(CROSSED)
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(8).astype(np.float32) for _ in range(2)]
    want = evaluate(hlotools.parse_module(CROSSED), args)
    assert fuse_siblings(Rewriter(module), module.entry, PassContext(), 20, SideEffects())
    hlotools.verify_module(module)  # every operand still defined before its users: no cycle
    fusions = [i for i in module.entry.instructions if i.opcode == "fusion"]
    assert len(fusions) == 1  # one of the two merges, not both
    for got, ref in zip(evaluate(module, args), want):
        np.testing.assert_array_equal(got, ref)
