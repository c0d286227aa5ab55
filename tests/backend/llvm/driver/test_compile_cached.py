"""What a cold compile_cached no longer waits for, and that moving it changed no guarantee: the
folder's trim runs on the background worker (one queued trim per folder), so does the copy of
the runtime library's groups into a new folder, a process killed right after compile_cached
leaves only valid entries, and the C compiler is looked up once per ($CC, $PATH)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hlotools
from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
from hlotools.backend.llvm.native import background_link, cache, shared_library
from hlotools.backend.llvm.native.cache import CompileCache, Entry
from tests.support.paths import ROOT

TEXT = """HloModule quick
ENTRY main {
  a = f32[64] parameter(0)
  b = f32[64] parameter(1)
  m = f32[64] multiply(a, b)
  ROOT r = f32[64] add(m, a)
}
"""
X, Y = np.linspace(-1, 1, 64, dtype=np.float32), np.full(64, 3, np.float32)


@pytest.fixture(autouse=True)
def no_background_work_left() -> Iterator[None]:
    yield
    assert cache.wait_for_all_links(60)


def compile_text(store: CompileCache, text: str = TEXT) -> Any:
    return compile_cached(hlotools.parse_module(text), CompileOptions(), compile_cache=store, source_text=text)


def test_trim_runs_on_the_background_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """compile_cached returns before the folder is scanned; the scan still happens, and still
    deletes the oldest entries over the limit."""
    threads: list[str] = []
    real_trim = CompileCache.trim

    def recording_trim(self: CompileCache) -> int:
        threads.append(threading.current_thread().name)
        return real_trim(self)
    monkeypatch.setattr(CompileCache, "trim", recording_trim)
    store = CompileCache(tmp_path, max_bytes=1 << 30)
    old = [f"{k:02x}" * 32 for k in range(3)]
    for k, key in enumerate(old):
        store.put(Entry(key, "object", {}, bytes(50_000)))
        os.utime(store.path(key), (1000 + k, 1000 + k))
    assert threads == []  # put itself never scans the folder
    store.max_bytes = 60_000  # room for the new module's entries, not for the old ones
    compiled = compile_text(store)
    assert threading.current_thread().name not in threads
    assert store.wait_for_links(60)
    assert threads and set(threads) == {"hlotools-link"}
    assert all(not store.path(key).exists() for key in old)
    np.testing.assert_allclose(compiled([X, Y])[0], X * Y + X, rtol=1e-6)
    assert compile_text(store) is not None  # the new entries survived: a hit
    assert store.get(cache.make_key("source", TEXT, CompileOptions().key_fields()), "alias") is not None


def test_queued_trims_of_one_folder_are_one_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow_trim(self: CompileCache) -> int:
        calls.append(str(self.directory))
        started.set()
        assert release.wait(60)
        return 0
    monkeypatch.setattr(CompileCache, "trim", slow_trim)
    a, b = CompileCache(tmp_path / "a"), CompileCache(tmp_path / "b")
    first = background_link.trim_later(a)
    assert started.wait(60)  # running: a newer entry may come after its scan
    second = background_link.trim_later(a)
    assert second is not first
    assert background_link.trim_later(a) is second  # queued, not started: it will see everything
    other = background_link.trim_later(b)
    assert other is not second
    release.set()
    assert cache.wait_for_all_links(60)
    assert calls == [str(a.directory), str(a.directory), str(b.directory)]


def test_no_c_compiler_still_trims(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    assert shared_library.c_compiler() is None
    store = CompileCache(tmp_path / "c", max_bytes=1 << 30)
    store.put(Entry("ee" * 32, "object", {}, bytes(100_000)))
    os.utime(store.path("ee" * 32), (1000, 1000))
    store.max_bytes = 50_000
    compile_text(store)
    assert store.wait_for_links(60)
    assert not store.path("ee" * 32).exists()
    assert not list((tmp_path / "c").rglob("*.so"))


def test_unlinked_compiles_share_one_queued_trim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no library to link, the modules compiled while a trim of the folder runs queue one
    more trim between them (trim_later's), not one scan of the folder each."""
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    assert shared_library.c_compiler() is None
    started, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow_trim(self: CompileCache) -> int:
        calls.append(threading.current_thread().name)
        started.set()
        assert release.wait(60)
        return 0
    monkeypatch.setattr(CompileCache, "trim", slow_trim)
    store = CompileCache(tmp_path / "d")
    compiled = [compile_text(store, TEXT.replace("64", str(n))) for n in (64, 65)]
    assert started.wait(60)  # the first module's trim runs (and waits) on the worker
    compiled += [compile_text(store, TEXT.replace("64", str(n))) for n in (66, 67, 68)]
    release.set()
    assert store.wait_for_links(60)
    assert calls == ["hlotools-link"] * 2
    assert len({c.object_code for c in compiled}) == 5  # five modules, five objects


def test_c_compiler_follows_cc_and_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "bin" / "mycc"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CC", "mycc")
    assert shared_library.c_compiler() is None  # not on the PATH
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    assert shared_library.c_compiler() == str(fake)
    monkeypatch.setenv("CC", str(tmp_path / "gone"))
    assert shared_library.c_compiler() is None


KILLED_CHILD = """
import os, signal, sys
from pathlib import Path
import hlotools
from hlotools.backend.llvm.native.cache import CompileCache
from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
text = sys.argv[2]
store = CompileCache(Path(sys.argv[1]))
compile_cached(hlotools.parse_module(text), CompileOptions(), compile_cache=store, source_text=text)
os.kill(os.getpid(), signal.SIGKILL)  # no atexit, no background link finished
"""


def test_a_process_killed_right_after_compile_cached_leaves_only_valid_entries(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(KILLED_CHILD), str(tmp_path), TEXT],
                          cwd=str(ROOT), capture_output=True, text=True, timeout=300)
    assert done.returncode == -9, done.stderr[-2000:]
    entries = list((tmp_path / "llvm").rglob("*.entry"))
    kinds = []
    for path in entries:
        data = path.read_bytes()
        kind = next(k for k in ("object", "alias", "runtime", "kernel") if f'"kind": "{k}"'.encode() in data)
        entry = cache.decode_entry(data, path.stem, kind)  # raises when anything is wrong
        kinds.append(kind)
        record = entry.meta.get("shared_library")
        if record is not None:  # the link finished: the library is the one recorded
            library = shared_library.library_path(path)
            assert library.stat().st_size == record["bytes"]
    assert kinds.count("object") == 1 and kinds.count("alias") == 1
    said: list[str] = []
    warm = compile_cached(hlotools.parse_module(TEXT), CompileOptions(), compile_cache=CompileCache(tmp_path,
                          log=said.append), source_text=TEXT)
    assert any(line.startswith("compile cache: hit") for line in said), said
    np.testing.assert_allclose(warm([X, Y])[0], X * Y + X, rtol=1e-6)


DOT = """HloModule dot
ENTRY main {
  a = f32[64,64] parameter(0)
  b = f32[64,64] parameter(1)
  ROOT d = f32[64,64] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""


def test_runtime_groups_are_copied_into_a_new_folder_by_the_background_worker(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold compile into a folder without the runtime library's entries only writes its own
    two entries; the groups its code calls (loaded in this process) are copied there by the
    worker, so a later process still finds them."""
    from hlotools.backend.llvm.kernels import library as runtime_library
    compile_text(CompileCache(tmp_path / "first"), DOT)  # the groups are loaded in this process now
    assert cache.wait_for_all_links(60)  # (the first folder's copies are written by now)
    store = CompileCache(tmp_path / "second")
    writes: list[tuple[str, str]] = []
    real_put = CompileCache.put

    def recording_put(self: CompileCache, entry: Entry, create_folders: bool = True) -> bool:
        if self.directory == store.directory:
            writes.append((threading.current_thread().name, entry.kind))
        return real_put(self, entry, create_folders)
    monkeypatch.setattr(CompileCache, "put", recording_put)
    compiled = compile_text(store, DOT)
    groups = list(compiled.runtime_groups)
    assert groups and all(runtime_library.get(g) is not None for g in groups)
    main = threading.current_thread().name
    assert sorted(k for t, k in writes if t == main and k != cache.KERNEL_KIND) == ["alias", "object"]
    assert store.wait_for_links(60)
    assert sorted(k for t, k in writes if t == "hlotools-link" and k == cache.RUNTIME_KIND) == ["runtime"] * len(groups)
    for g in groups:
        assert store.get(runtime_library.key(g), cache.RUNTIME_KIND) is not None
    a = np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 4096
    np.testing.assert_allclose(compiled([a, a])[0], a @ a, rtol=1e-5)
