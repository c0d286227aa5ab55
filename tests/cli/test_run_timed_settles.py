"""Timed runs (`hlo-run --repeat`, hlo-bench) start only once the cold compile's background
link is done: on one CPU the link's cc shared it with the timed runs and doubled them."""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hlotools.backend.llvm.native import background_link
from hlotools.cli import backends, run
from tests.support.paths import ROOT

MODULE = ROOT / "testdata" / "models" / "mlp2_relu.hlo"


def _links_left() -> int:
    with background_link._LOCK:
        return sum(not j.done.is_set() for j in background_link._PENDING.values())


@pytest.mark.parametrize("timed", [True, False])
def test_timed_runs_wait_for_the_background_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 timed: bool) -> None:
    monkeypatch.setenv("HLOTOOLS_CACHE_DIR", str(tmp_path / "cache"))
    real_run = background_link.LinkJob.run

    def slow_link(job: background_link.LinkJob) -> None:  # a link that takes a while
        time.sleep(0.5)
        real_run(job)
    monkeypatch.setattr(background_link.LinkJob, "run", slow_link)
    left: list[int] = []  # links still queued when each timed loop (parse, then run) starts
    real_timed = run._timed

    def watched(fn: Callable[[], Any], repeat: int) -> Any:
        left.append(_links_left())
        return real_timed(fn, repeat)
    monkeypatch.setattr(run, "_timed", watched)
    run.execute(MODULE.read_text(), MODULE.name, backends.BACKENDS["llvm"], (), 0, 3, timed=timed)
    assert len(left) == 2  # parse, run
    if timed:
        assert left[1] == 0
    else:
        assert left[1] >= 1  # untimed: the run does not wait (the exit does)
    assert background_link.wait_all(60)
