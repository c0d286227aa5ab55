"""Linking the compile cache's shared libraries off the critical path: `cc -shared` costs
15-25 ms per module, which a cold compile used to wait for although only the *next* process
uses the library (native/shared_library.py). compile_cached stores the object entry, then `submit`s a job
here; one daemon thread per process runs the jobs in order: link (native.link), install
KEY.so, rewrite the entry with the library's record (cache.put, atomic). A queue and one
long-lived thread rather than a thread per link: starting a thread waits until the OS runs
it, milliseconds on a busy machine, and that wait was on the critical path again.

Exit: the jobs still queued get LINK_EXIT_WAIT_S at interpreter exit (a cold `hlo-run` then
leaves the library its next run dlopens); a process that dies first leaves no library and the
warm start uses the object (the entry only names a library once it is installed). Concurrent
processes linking the same key install the same bytes (the link is deterministic) and write
the same record. A child made by fork() starts with no jobs and no worker.

The worker also trims the cache folder (CompileCache.trim: a scan of every entry, milliseconds
in a full cache) after each link, or as a job of its own (`trim_later`) when nothing is linked:
the size limit is kept a moment later, never on the compile's critical path.
"""
from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from hlotools.backend.llvm.native import shared_library
from hlotools.errors import HloError

if TYPE_CHECKING:
    from hlotools.backend.llvm.native.cache import CompileCache

LINK_EXIT_WAIT_S = 10.0
_LOGGER = logging.getLogger("hlotools.cache")


@dataclass
class LinkJob:
    """For object entry KEY: copy the runtime library groups its code calls into the folder
    (`store_runtime`, given by the driver: kernels/library.ensure writes those the folder
    lacks, for a later process; this layer does not know the runtime library), then link `object_code` and `runtime_objects` into KEY.so,
    record it and trim the folder. `link` False: no library can be made here; only the copy
    (the trim is then a TrimJob of its own, CompileCache.link_later)."""

    cache: CompileCache
    key: str
    object_code: bytes
    runtime_objects: list[bytes]
    done: threading.Event = field(default_factory=threading.Event)
    store_runtime: Callable[[], object] | None = None
    link: bool = True

    def wait(self, timeout: float | None = None) -> bool:
        return self.done.wait(timeout)

    def run(self) -> None:
        try:
            if self.store_runtime is not None:
                self.store_runtime()
            if self.link:
                link_now(self)
        finally:
            if self.link:
                self.cache.trim()  # the library now counts too


@dataclass
class TrimJob:
    """Only the trim (no library to link); key "" in the pending table: one per folder."""

    cache: CompileCache
    key: str = ""
    done: threading.Event = field(default_factory=threading.Event)
    started: bool = False  # (under _LOCK) a newer entry may come after its scan

    def wait(self, timeout: float | None = None) -> bool:
        return self.done.wait(timeout)

    def run(self) -> None:
        with _LOCK:
            self.started = True
        self.cache.trim()


Job = LinkJob | TrimJob


_LOCK = threading.Lock()
_PENDING: dict[tuple[str, str], Job] = {}  # (cache folder, key) -> its job, until done
_QUEUE: queue.SimpleQueue[Job] = queue.SimpleQueue()
_WORKER: list[threading.Thread] = []


def submit(job: Job) -> Job:
    """Queue `job` for the worker (started on first use)."""
    _exit_wait_once()
    with _LOCK:
        _PENDING[(str(job.cache.directory), job.key)] = job
        if not _WORKER or not _WORKER[0].is_alive():
            worker = threading.Thread(target=_work, args=(_QUEUE,), daemon=True, name="hlotools-link")
            _WORKER[:] = [worker]
            worker.start()
        _QUEUE.put(job)
    return job


def trim_later(cache: CompileCache) -> Job:
    """Queue a trim of `cache`'s folder, unless one is queued already (it has not started:
    it will see the newest entries too)."""
    with _LOCK:
        queued = _PENDING.get((str(cache.directory), ""))
        if isinstance(queued, TrimJob) and not queued.started:
            return queued
    return submit(TrimJob(cache))


def pending(directory: str, key: str) -> Job | None:
    with _LOCK:
        return _PENDING.get((directory, key))


def wait_all(timeout: float | None = None, directory: str | None = None) -> bool:
    """Wait for the queued jobs of the process (of one cache folder's `directory`); True
    when none of them is left."""
    deadline = None if timeout is None else time.monotonic() + timeout
    with _LOCK:
        jobs = [j for (d, _), j in _PENDING.items() if directory is None or d == directory]
    return all(j.wait(None if deadline is None else max(0.0, deadline - time.monotonic())) for j in jobs)


def _work(jobs: queue.SimpleQueue[Job]) -> None:
    while True:
        job = jobs.get()
        try:
            job.run()
        except (OSError, HloError) as e:  # a full or vanished cache folder, a runtime group it cannot
            # take: a failed link only costs the warm start its library (a bug still surfaces)
            _LOGGER.debug(f"compile cache: background work on {job.key[:12] or 'the folder'} failed ({e})")
        finally:
            with _LOCK:
                if _PENDING.get((str(job.cache.directory), job.key)) is job:
                    del _PENDING[(str(job.cache.directory), job.key)]
            job.done.set()


def link_now(job: LinkJob) -> bool:
    """Link, install and record the library of `job`; True when the entry now names it.
    What it says goes to the logger at debug level only (job.cache is CompileCache.quiet()):
    the caller's log callback belongs to a call that has returned, and -v output would show it
    in the middle of another one's. Nothing is written into the cache folder before the link
    is done, and a folder deleted meanwhile is not brought back."""
    say = _LOGGER.debug
    t0 = time.perf_counter()
    entry_path = job.cache.path(job.key)
    library = shared_library.link(job.object_code, entry_path, say, job.runtime_objects)
    if library is None:
        return False
    if not library.install(shared_library.library_path(entry_path)):
        say(f"compile cache: no shared library (cannot install {job.key[:12]}{shared_library.SUFFIX})")
        return False
    entry = job.cache.get(job.key, "object")  # (job.cache is quiet: CompileCache.quiet)
    if entry is None or entry.payload != job.object_code:  # deleted or rewritten meanwhile
        say(f"compile cache: shared library of {job.key[:12]} not recorded (its entry changed)")
        return False
    entry.meta["shared_library"] = library.record()
    if not job.cache.put(entry, create_folders=False):
        return False
    say(f"compile cache: linked {job.key[:12]}{shared_library.SUFFIX} in {1e3 * (time.perf_counter() - t0):.0f} ms "
        "(in the background)")
    return True


@cache
def _exit_wait_once() -> None:
    import atexit
    atexit.register(wait_all, LINK_EXIT_WAIT_S)


def _after_fork_in_child() -> None:
    """The parent's worker and jobs do not exist in a child made by fork()."""
    global _LOCK, _QUEUE
    _LOCK = threading.Lock()
    _QUEUE = queue.SimpleQueue()
    _PENDING.clear()
    _WORKER.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
