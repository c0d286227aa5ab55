"""The backend's load (its modules and llvmlite's LLVM), which hlo-run reports as the "load"
phase apart from the rest of a cold compile: nested blocks count once, and in a fresh process
every block runs inside the compile (the phase is all of what load_clock timed)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from hlotools.backend.llvm.native import load_clock

ADD = "HloModule add4\n\nENTRY main {\n  a = f32[4] parameter(0)\n  ROOT c = f32[4] add(a, a)\n}\n"

CHILD = """
import json, sys
from hlotools.cli.run import main
from hlotools.backend.llvm.native import load_clock
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    print("LOADED " + json.dumps({"seconds": load_clock.seconds(), "llvmlite": "llvmlite.binding" in sys.modules}),
          file=sys.stderr)
"""


def test_nested_blocks_count_once() -> None:
    before = load_clock.seconds()
    with load_clock.loading():
        time.sleep(0.01)
        with load_clock.loading():
            time.sleep(0.01)
    spent = load_clock.seconds() - before
    assert 0.02 <= spent < 0.2


def test_blocks_of_two_threads_both_count() -> None:
    before = load_clock.seconds()

    def block() -> None:
        with load_clock.loading():
            time.sleep(0.02)
    threads = [threading.Thread(target=block) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert load_clock.seconds() - before >= 0.04


def test_cold_compile_reports_the_whole_load(tmp_path: Path) -> None:
    hlo = tmp_path / "add.hlo"
    hlo.write_text(ADD)
    env = {k: v for k, v in os.environ.items() if k != "HLOTOOLS_LOG"} | {"HLOTOOLS_CACHE_DIR": str(tmp_path / "c")}
    r = subprocess.run([sys.executable, "-c", CHILD, str(hlo), "--backend=llvm", "--random", "0", "--json", "--repeat", "1"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    loaded = json.loads(next(ln for ln in r.stderr.splitlines() if ln.startswith("LOADED "))[len("LOADED "):])
    timings = json.loads(r.stdout)["timings"]
    assert loaded["llvmlite"] and loaded["seconds"] > 0
    assert abs(timings["load"]["median_ms"] - 1e3 * loaded["seconds"]) < 0.01  # every block, inside the compile
    assert timings["cache"]["median_ms"] >= 0
