"""Run LLVM-backend checks in a child process, so generated code that crashes (a segfault,
an abort in LLVM) fails one test naming the module instead of killing the pytest run.

The parent (`run_in_sandbox`) keeps one worker per pytest process, sends it one request per
line (JSON) and reads one JSON answer back; a worker that dies or exceeds the timeout is
reported and replaced. The worker (this file run as a script) imports the test helpers and
does the real work: `check_reference` (a module against reference npz files) and
`check_against_interpreter` (LLVM against the interpreter on random inputs).

Answers: {"status": "pass" | "fail" | "unsupported" | "error" | "skip", "msg": ..., "seconds": ...};
the parent turns "fail" into AssertionError, "unsupported" into HloUnsupportedError (so
strict xfails can name the refused op), "error" into HloError and "skip" (the interpreter
refuses the module: nothing to compare with) into pytest.skip.
"""
from __future__ import annotations

import atexit
import json
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT  # the worker runs from there: it imports tests.*

DEFAULT_TIMEOUT = 300.0


# ----------------------------------------------------------------------------- parent side

class _Worker:
    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.stderr: Any = None  # the worker's stderr (faulthandler's traceback after a crash)

    def start(self) -> subprocess.Popen[str]:
        if self.proc is None or self.proc.poll() is not None:
            self.stderr = tempfile.TemporaryFile("w+")
            self.proc = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", __name__],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                         text=True, bufsize=1, cwd=str(ROOT))
        return self.proc

    def stderr_tail(self) -> str:
        if self.stderr is None:
            return ""
        self.stderr.seek(0)
        return self.stderr.read()[-3000:]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        if self.stderr is not None:
            self.stderr.close()
            self.stderr = None


_WORKER = _Worker()
atexit.register(_WORKER.stop)


def run_in_sandbox(request: dict[str, Any], what: str, timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """The worker's answer to `request`; raises for anything but a pass (see module doc)."""
    from hlotools.errors import HloError, HloUnsupportedError
    proc = _WORKER.start()
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(request) + "\n")
    proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else ""
    if not line:
        if not ready:
            _WORKER.stop()
            raise AssertionError(f"{what}: no answer within {timeout:.0f} s (killed)")
        code = proc.wait()
        tail = _WORKER.stderr_tail()
        _WORKER.stop()
        how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        raise AssertionError(f"{what}: crashed the process ({how})\n{tail}")
    answer: dict[str, Any] = json.loads(line)
    status, msg = answer["status"], answer.get("msg", "")
    if status == "fail":
        raise AssertionError(msg)
    if status == "unsupported":
        raise HloUnsupportedError(msg)
    if status == "error":
        raise HloError(msg)
    if status == "skip":
        pytest.skip(msg)
    assert status == "pass", answer
    return answer


# ----------------------------------------------------------------------------- worker side

def _compile(module: Any, preset: str) -> Any:
    """What hlo-run --backend=llvm does (hlotools/cli/backends.py) without the persistent cache."""
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
    return compile_cached(module, CompileOptions(preset=preset), compile_cache=None)


def check_reference(file: str, inputs: str, expected: str, preset: str = "O2") -> None:
    """The module in `file` gives the outputs in `expected` from `inputs` on the LLVM backend."""
    import numpy as np

    import hlotools
    from tests.corpus.test_interpreter import _leaf_dtypes, _load, assert_matches, op_class
    module = hlotools.parse_module(Path(file).read_text(), file, verify=False)
    in_dt, out_dt = _leaf_dtypes(module)
    with np.load(inputs) as f:
        args = _load(f, "in", in_dt)
    with np.load(expected) as f:
        want = _load(f, "out", out_dt)
    got = _compile(module, preset)(args)
    klass = op_class({i.opcode for c in module.computations for i in c.instructions})
    assert len(got) == len(want), f"{len(got)} result leaves, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert_matches(np.asarray(g), w, klass, f"{Path(file).name} out{i}")


def check_against_interpreter(text: str, filename: str, preset: str, seed: int = 0, wild_ints: bool = False) -> None:
    """LLVM (after `preset`) and the interpreter agree on `text` for random inputs of `seed`.
    `wild_ints`: integer arguments span their type's whole range instead (indices far out of
    bounds: generated code must clamp as XLA does, never touch memory outside a buffer).
    The interpreter refusing the module means there is nothing to compare with (a skip)."""
    import numpy as np

    import hlotools
    from hlotools import evaluate
    from hlotools.cli.bisect import load_arguments
    from hlotools.errors import HloRuntimeError, HloUnsupportedError
    from tests.corpus.test_interpreter import assert_matches, op_class
    module = hlotools.parse_module(text, filename, verify=False)
    args = load_arguments(module, [], seed)
    if wild_ints:
        args = _wild_integers(args, seed)
    args = _sizes_at_their_bounds(module, args)
    try:
        want = [np.asarray(w) for w in evaluate(module, args)]  # type: ignore[arg-type]
    except (HloUnsupportedError, HloRuntimeError) as e:  # e.g. rng, an elided constant {...}
        raise _InterpreterRefused(str(e)) from None
    got = _compile(module, preset)(args)
    klass = op_class({i.opcode for c in module.computations for i in c.instructions})
    assert len(got) == len(want), f"{len(got)} result leaves, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert_matches(np.asarray(g), w, klass, f"{filename} out{i}")


def _wild_integers(args: list[Any], seed: int) -> list[Any]:
    import numpy as np
    rng = np.random.default_rng(seed + 1)
    out = []
    for a in args:
        if a is not None and a.dtype.kind in "iu" and a.dtype.itemsize <= 8:
            info = np.iinfo(a.dtype)
            a = rng.integers(info.min, info.max, size=a.shape, endpoint=True, dtype=a.dtype)
        out.append(a)
    return out


def _sizes_at_their_bounds(module: Any, args: list[Any]) -> list[Any]:
    """The dynamic padder's records (ir/runtime_sizes.py) let the LLVM backend leave elements
    past a run-time size unwritten, while the interpreter computes the whole bound: the padded
    module's results agree as whole arrays only with every size parameter at its bound."""
    import numpy as np

    from hlotools.ir.runtime_sizes import size_parameter_bounds
    out = list(args)
    for number, bound in size_parameter_bounds(module.entry).items():
        if number < len(out) and out[number] is not None:
            out[number] = np.asarray(bound, dtype=np.asarray(out[number]).dtype)
    return out


class _InterpreterRefused(Exception):
    pass


def crash_for_test() -> None:
    """Dies of SIGSEGV, as generated code that writes out of bounds would (the parent's test)."""
    import ctypes
    ctypes.string_at(0)


_FUNCTIONS: dict[str, Any] = {"check_reference": check_reference, "check_against_interpreter": check_against_interpreter,
              "crash_for_test": crash_for_test}


def _serve() -> None:
    sys.path.insert(0, str(ROOT))
    from hlotools.errors import HloError, HloUnsupportedError
    out = sys.stdout
    sys.stdout = sys.stderr  # stray prints must not corrupt the protocol
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        t0 = time.perf_counter()
        answer: dict[str, Any]
        try:
            _FUNCTIONS[request.pop("fn")](**request)
            answer = {"status": "pass"}
        except AssertionError as e:
            answer = {"status": "fail", "msg": str(e)}
        except HloUnsupportedError as e:
            answer = {"status": "unsupported", "msg": str(e)}
        except _InterpreterRefused as e:
            answer = {"status": "skip", "msg": f"the interpreter refuses it: {e}"}
        except HloError as e:
            answer = {"status": "error", "msg": f"{type(e).__name__}: {e}"}
        except Exception as e:  # a Python exception in the backend is a bug: report it as a failure
            import traceback
            answer = {"status": "fail", "msg": f"{type(e).__name__}: {e}\n{traceback.format_exc()[-2000:]}"}
        answer["seconds"] = time.perf_counter() - t0
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    _serve()
