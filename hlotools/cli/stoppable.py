"""Work that Ctrl-C and --timeout can stop, even inside generated code.

A native call (the JIT's entry function, LLVM compiling a module) does not return to Python
until it is done, so a SIGINT's KeyboardInterrupt would wait for it. The work runs on a worker
thread instead (ctypes and llvmlite release the GIL), while the main thread waits in short
joins, where a signal interrupts it at once. Stopping means ending the process: a native call
cannot be cancelled, so after the one-line message the process exits with os._exit (130 for
Ctrl-C as a shell reports SIGINT, 124 for --timeout as timeout(1) does), not through the
interpreter's shutdown, which would wait for the thread.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import click

EXIT_TIMEOUT = 124
EXIT_INTERRUPTED = 130
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
PROGRESS_AFTER_S = 0.5  # a spinner on a terminal once the work has taken this long


def timeout_option(doing: str) -> Callable[[F], F]:
    """--timeout S for every tool that can take long; `doing` says what the clock covers."""
    return click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="S",
                        help=f"Stop after S seconds ({doing}), with a one-line message and exit 124, as "
                             "timeout(1). Ctrl-C stops at once too (exit 130), even inside generated code.")


def stoppable_when(timeout: float | None, fn: Callable[[], T], what: str) -> T:
    """fn() under run_stoppable when a --timeout was given; else directly (no worker thread)."""
    if timeout is None:
        return fn()
    return run_stoppable(fn, timeout, quiet=True, what=what)


def run_stoppable(fn: Callable[[], T], timeout: float | None = None, quiet: bool = False,
                  what: str = "working") -> T:
    """fn() on a worker thread (in the current click context); its value, or its exception
    raised here. Ctrl-C ends the process with 130, `timeout` seconds with 124."""
    box: dict[str, Any] = {}
    ctx = click.get_current_context(silent=True)

    def work() -> None:
        try:
            if ctx is not None:
                with ctx.scope(cleanup=False):
                    box["value"] = fn()
            else:
                box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the main thread as it is
            box["error"] = e

    worker = threading.Thread(target=work, name="hlotools-work", daemon=True)
    start = time.monotonic()
    try:
        worker.start()
        _wait(worker, start, timeout, quiet, what)
    except KeyboardInterrupt:
        _stop(EXIT_INTERRUPTED, "interrupted")
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


class _Spinner:
    """The waiting thread's progress line, which the worker ends (`end_progress`) before it
    prints its results, so no line is drawn over them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.progress: Any = None
        self.ended = False

    def show(self, what: str) -> None:
        from hlotools.cli.progress import Progress
        with self.lock:
            if self.progress is None and not self.ended:
                self.progress = Progress(what).__enter__()
            if self.progress is not None:
                self.progress.update(description=_status(what))

    def end(self) -> None:
        with self.lock:
            self.ended = True
            if self.progress is not None:
                self.progress.__exit__(None, None, None)
                self.progress = None


_SPINNER = _Spinner()


def end_progress() -> None:
    """Called by the work before it writes its output: the progress line is gone for good."""
    _SPINNER.end()


def _wait(worker: threading.Thread, start: float, timeout: float | None, quiet: bool, what: str) -> None:
    from hlotools.cli.progress import progress_wanted
    wanted = progress_wanted(quiet)
    try:
        while worker.is_alive():
            worker.join(0.05)
            elapsed = time.monotonic() - start
            if timeout is not None and elapsed >= timeout and worker.is_alive():
                _SPINNER.end()
                _stop(EXIT_TIMEOUT, f"error: timed out after {timeout:g} s (--timeout) while {what}")
            if wanted and elapsed >= PROGRESS_AFTER_S and worker.is_alive():
                _SPINNER.show(what)
    finally:
        _SPINNER.end()


def _status(what: str) -> str:
    """What the work is doing, as far as can be seen from outside: the LLVM compile's objects
    (only when the JIT is loaded at all; a warm start never imports it)."""
    jit = sys.modules.get("hlotools.backend.llvm.native.jit")
    counts = jit.compile_progress() if jit is not None else None
    if counts is not None and counts[1]:
        return f"{what}: LLVM compiled {counts[0]}/{counts[1]} kernels"
    return what


def _stop(code: int, message: str) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    click.echo(message, err=True)
    sys.stderr.flush()
    os._exit(code)
