"""Sibling multi-output fusion never fuses two siblings that reach each other, also after an
earlier merge in the same computation made the textual positions stale (hlofile_0710 of the XLA
corpus: the merge made a cycle, the post-order walk never ended and grew past 15 GB). Run in a
child process with a 2 GB address-space limit, so that a regression fails instead of eating the
machine."""
from __future__ import annotations

import resource
import subprocess
import sys

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
