"""The persistent compile cache: hits skip codegen and LLVM, keys change with everything the
machine code depends on, bad entries are ignored and rebuilt, concurrent writers are safe."""
from __future__ import annotations

import multiprocessing
import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver import runtime
from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
from hlotools.backend.llvm.native import cache, jit
from hlotools.backend.llvm.native.cache import CompileCache, Entry, make_key

TEXT = """HloModule cached

add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}

ENTRY main {
  a = f32[16,8] parameter(0)
  b = f32[16,8] parameter(1)
  c = f32[16,8] multiply(a, b)
  d = f32[16,8] exponential(c)
  z = f32[] constant(0)
  s = f32[16] reduce(d, z), dimensions={1}, to_apply=add
  ROOT r = (f32[16], f32[16,8]) tuple(s, c)
}
"""
# The env the keys use in these tests: fixed, so that other people editing the compiler's
# sources while the tests run (the real env fingerprints them) cannot change the keys.
FIXED_ENV = {"format": "1", "hlotools": "test", "sources": "fixed", "llvmlite": "x", "llvm": "y",
             "triple": "t", "cpu": "c", "features": "+f"}
REAL_ENVIRONMENT = cache.environment
RNG = np.random.default_rng(0)
ARGS = [RNG.standard_normal((16, 8)).astype(np.float32) * 0.5, RNG.standard_normal((16, 8)).astype(np.float32)]


def _fix_env() -> None:
    cache.environment = lambda: dict(FIXED_ENV)  # type: ignore[assignment]


@pytest.fixture(autouse=True)
def fixed_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(cache, "environment", lambda: dict(FIXED_ENV))
    yield
    cache.wait_for_all_links(60)  # no background link of this test says anything during the next


class Recorder:
    def __init__(self, directory: Path) -> None:
        self.lines: list[str] = []
        self.cache = CompileCache(directory, log=self.lines.append)

    def compile(self, text: str = TEXT, options: CompileOptions | None = None) -> Any:
        self.lines.clear()
        return compile_cached(hlotools.parse_module(text), options or CompileOptions(), compile_cache=self.cache,
                              source_text=text)

    @property
    def hit(self) -> bool:
        return any(line.startswith("compile cache: hit") for line in self.lines)


def check_results(compiled: Any, text: str = TEXT) -> None:
    want = evaluate(hlotools.parse_module(text), ARGS)
    got = compiled(ARGS)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def object_entries(rec: Recorder) -> list[Path]:
    return [p for p in rec.cache.directory.rglob("*.entry")
            if p.read_bytes().find(b'"kind": "object"') >= 0]


def test_miss_then_hit_skips_codegen_and_llvm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rec = Recorder(tmp_path)
    first = rec.compile()
    assert not rec.hit and any("miss" in line for line in rec.lines)
    assert first.object_code and first.timings.llvm_s > 0
    check_results(first)

    def forbidden(*a: object, **k: object) -> None:
        raise AssertionError("a warm start must not run codegen or LLVM")
    monkeypatch.setattr("hlotools.backend.llvm.codegen.module.compile_module", forbidden)
    monkeypatch.setattr(jit, "compile_ir", forbidden)
    monkeypatch.setattr(jit, "optimise", forbidden)
    monkeypatch.setattr("hlotools.backend.llvm.driver.pipeline.optimise_module", forbidden)
    second = rec.compile()
    assert rec.hit and "via source key" in rec.lines[-1]
    assert second.timings.codegen_s == 0 and second.timings.llvm_s == 0
    assert second.stats.arena_bytes == first.stats.arena_bytes
    assert [s.to_text() for s in second.result_leaves] == [s.to_text() for s in first.result_leaves]
    check_results(second)


def test_same_optimised_module_from_other_text_hits_by_module_key(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    rec.compile()
    other = TEXT.replace("ENTRY main {", "// the same module, written differently\nENTRY main {")
    compiled = rec.compile(other)
    assert rec.hit and "via optimised module key" in rec.lines[-1]
    check_results(compiled)
    rec.compile(other)
    assert rec.hit and "via source key" in rec.lines[-1]  # the alias was recorded


@pytest.mark.parametrize("change", ["module", "opt_level", "implicit_fusion", "preset", "cpu_features", "llvm"])
def test_key_changes_with_what_the_code_depends_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    change: str) -> None:
    rec = Recorder(tmp_path)
    rec.compile()
    text, options = TEXT, CompileOptions()
    if change == "module":
        text = TEXT.replace("multiply(a, b)", "add(a, b)")
    elif change == "opt_level":
        options = CompileOptions(opt_level=2)
    elif change == "implicit_fusion":
        options = CompileOptions(implicit_fusion=False)
    elif change == "preset":
        options = CompileOptions(preset="none")
    else:
        field = "features" if change == "cpu_features" else "llvm"
        monkeypatch.setattr(cache, "environment", lambda: {**FIXED_ENV, field: FIXED_ENV[field] + "x"})
    compiled = rec.compile(text, options)
    assert not rec.hit, rec.lines
    check_results(compiled, text)
    rec.compile(text, options)
    assert rec.hit


def test_make_key_covers_text_options_and_env() -> None:
    base = make_key("module", "m", {"o": 1}, FIXED_ENV)
    assert base == make_key("module", "m", {"o": 1}, dict(FIXED_ENV))
    assert len({base, make_key("module", "m2", {"o": 1}, FIXED_ENV), make_key("module", "m", {"o": 2}, FIXED_ENV),
                make_key("source", "m", {"o": 1}, FIXED_ENV),
                make_key("module", "m", {"o": 1}, {**FIXED_ENV, "cpu": "other"})}) == 5


BIG_CONSTANT = """HloModule big_constant
ENTRY main {
  a = f32[16] parameter(0)
  c = f32[16] constant({VALUES})
  t = (f32[4], s32[2]) constant(({1, 2, 3, 4}, {5, 6}))
  ROOT r = f32[16] add(a, c)
}
"""


def _key_text(values: list[float]) -> str:
    text = BIG_CONSTANT.replace("VALUES", ", ".join(str(v) for v in values))
    return cache.module_key_text(hlotools.parse_module(text))


def test_module_key_covers_the_values_of_constants_it_does_not_print() -> None:
    """The key text elides the values of big constants but carries a digest of their bytes:
    any change of a value (even 0 -> -0) changes the key, an equal module keeps it."""
    values = [float(k) for k in range(16)]
    base = _key_text(values)
    assert "{...}" in base and "1, 2, 3, 4, 5" not in base  # the big values are not printed
    assert _key_text(list(values)) == base
    for k, v in ((15, 15.5), (0, -0.0), (7, float("nan"))):
        changed = list(values)
        changed[k] = v
        assert _key_text(changed) != base, (k, v)
    tuple_changed = BIG_CONSTANT.replace("{5, 6}", "{5, 7}").replace("VALUES", ", ".join(map(str, values)))
    assert cache.module_key_text(hlotools.parse_module(tuple_changed)) != base


def test_module_key_covers_the_dtype_and_dims_of_a_constants_array() -> None:
    """Equal bytes read as another dtype, or in other dims, are another value: the digest says so
    (the emitters read the array, not the text)."""
    from hlotools.ir.literal import Literal
    module = hlotools.parse_module(BIG_CONSTANT.replace("VALUES", ", ".join(str(float(k)) for k in range(16))))
    assert module.entry is not None
    (c,) = [i for i in module.entry.instructions if i.name == "c"]
    assert c.literal is not None and c.literal.array is not None
    base = cache.module_key_text(module)
    array = c.literal.array
    for other in (array.view(np.int32), array.reshape(4, 4)):
        assert other.tobytes() == array.tobytes()
        c.literal = Literal(c.literal.shape, other)
        assert cache.module_key_text(module) != base, other.dtype
    c.literal = Literal(c.literal.shape, array.copy())
    assert cache.module_key_text(module) == base


def test_real_environment_names_the_target() -> None:
    real = REAL_ENVIRONMENT()
    t = jit.target_description()
    assert real["triple"] == t.triple and real["cpu"] == t.cpu and real["features"] == t.features
    assert real["llvm"] == t.llvm_version and real["llvmlite"] == t.llvmlite_version
    assert real["hlotools"] == hlotools.__version__ and len(real["sources"]) in (16, len("release"))


def _corrupt(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncate":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "flip":
        data[-10] ^= 0xFF  # inside the machine code
        path.write_bytes(bytes(data))
    elif how == "flip_header":
        data[60] ^= 0x01
        path.write_bytes(bytes(data))
    elif how == "version":
        struct.pack_into("<I", data, 8, cache.FORMAT_VERSION + 1)
        path.write_bytes(bytes(data))
    elif how == "magic":
        data[0:8] = b"NOTCACHE"
        path.write_bytes(bytes(data))


@pytest.mark.parametrize("how,reason", [("truncate", "truncated"), ("empty", "truncated"),
                                        ("flip", "checksum mismatch"), ("flip_header", "checksum mismatch"),
                                        ("version", "format version"), ("magic", "bad magic")])
def test_corrupt_entry_is_ignored_and_rebuilt(tmp_path: Path, how: str, reason: str) -> None:
    rec = Recorder(tmp_path)
    rec.compile()
    (entry,) = object_entries(rec)
    _corrupt(entry, how)
    compiled = rec.compile()
    assert not rec.hit and any(reason in line for line in rec.lines), rec.lines
    check_results(compiled)
    rec.compile()  # rebuilt: valid again
    assert rec.hit
    key = entry.stem
    assert cache.decode_entry(entry.read_bytes(), key, "object").payload == compiled.object_code


def test_entry_of_another_key_is_not_trusted(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    rec.compile()
    (entry,) = object_entries(rec)
    other_text = TEXT.replace("exponential", "negate")
    module_key = make_key("module", cache.module_key_text(
        __import__("hlotools.backend.llvm.driver.pipeline", fromlist=["x"]).optimise_module(
            hlotools.parse_module(other_text))), CompileOptions().key_fields())
    target = rec.cache.path(module_key)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(entry.read_bytes())  # a valid entry, filed under the wrong key
    compiled = rec.compile(other_text)
    assert not rec.hit and any("another key" in line for line in rec.lines), rec.lines
    check_results(compiled, other_text)


def test_entry_whose_shapes_differ_from_the_module_is_not_trusted(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    rec.compile()
    (path,) = object_entries(rec)
    key = path.stem
    entry = cache.decode_entry(path.read_bytes(), key, "object")
    entry.meta["params"][0] = "f32[8,16]{1,0}"
    path.write_bytes(cache.encode_entry(entry))
    compiled = rec.compile()
    assert not rec.hit and any("shapes differ" in line for line in rec.lines), rec.lines
    check_results(compiled)


def test_garbage_alias_falls_back_to_the_module_key(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    rec.compile()
    source_key = make_key("source", TEXT, CompileOptions().key_fields())
    rec.cache.put(Entry(source_key, "alias", {"target": "0" * 64}, b""))
    compiled = rec.compile()
    assert rec.hit and "via optimised module key" in rec.lines[-1]
    check_results(compiled)


def test_unwritable_cache_still_compiles(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    rec = Recorder(blocker)
    compiled = rec.compile()
    assert any("could not write" in line for line in rec.lines)
    check_results(compiled)


def test_no_temp_files_are_left(tmp_path: Path) -> None:
    rec = Recorder(tmp_path)
    rec.compile()
    rec.compile(TEXT.replace("multiply", "subtract"))
    assert rec.cache.wait_for_links(60)  # the shared libraries are linked in the background
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    assert len([p for p in tmp_path.rglob("*.entry") if "kernels" not in p.parts]) == 4  # two objects, two aliases


def test_default_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HLOTOOLS_CACHE_DIR", str(tmp_path / "a"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache.default_cache_dir() == tmp_path / "a"
    monkeypatch.delenv("HLOTOOLS_CACHE_DIR")
    assert cache.default_cache_dir() == tmp_path / "x" / "hlotools"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.default_cache_dir() == tmp_path / "home" / ".cache" / "hlotools"


def _concurrent_worker(directory: str, barrier: Any, queue: Any) -> None:
    _fix_env()
    rec = Recorder(Path(directory))
    barrier.wait()
    try:
        compiled = rec.compile()
        got = compiled(ARGS)
        queue.put(("ok", [g.tolist() for g in got], rec.hit))
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        queue.put(("error", repr(e), False))


def test_two_processes_writing_the_same_entry(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_concurrent_worker, args=(str(tmp_path), barrier, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert all(r[0] == "ok" for r in results), results
    want = evaluate(hlotools.parse_module(TEXT), ARGS)
    for _, got, _ in results:
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g, np.float32), w, rtol=1e-5, atol=1e-5)
    rec = Recorder(tmp_path)
    (entry,) = object_entries(rec)
    cache.decode_entry(entry.read_bytes(), entry.stem, "object")  # valid
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    check_results(rec.compile())
    assert rec.hit


def test_many_writers_in_one_process_leave_a_valid_entry(tmp_path: Path) -> None:
    """Interleaved put() calls of different payloads under one key: whatever file is there
    at any moment decodes (rename is atomic)."""
    store = CompileCache(tmp_path)
    key = "ab" * 32
    seen = set()
    for k in range(20):
        store.put(Entry(key, "object", {"n": k}, os.urandom(64)))
        seen.add(store.read(key, "object").meta["n"])
    assert seen == set(range(20))


def _hlo_run(args: list[object], cache_dir: Path) -> Any:
    from click.testing import CliRunner

    from hlotools.cli.run import main
    return CliRunner().invoke(main, [str(a) for a in args],
                              env={"HLOTOOLS_CACHE_DIR": str(cache_dir), "NO_COLOR": "1", "TERM": "dumb"})


def test_hlo_run_verbose_says_miss_then_hit(tmp_path: Path) -> None:
    model = tmp_path / "m.hlo"
    model.write_text(TEXT)
    first = _hlo_run([model, "--backend=llvm", "--random", "0", "-v"], tmp_path / "c")
    assert first.exit_code == 0, first.stderr
    assert "compile cache: miss, alias entry" in first.stderr and "no entry" in first.stderr
    assert "compile cache: compiled (passes" in first.stderr and "and stored" in first.stderr
    second = _hlo_run([model, "--backend=llvm", "--random", "0", "-v"], tmp_path / "c")
    assert second.exit_code == 0
    assert second.stderr.startswith("info: compile cache: hit") and "via source key" in second.stderr
    assert second.stdout == first.stdout  # same results
    interp = _hlo_run([model, "--backend=interp", "--random", "0"], tmp_path / "c")
    assert interp.stdout.splitlines()[0].split()[:2] == first.stdout.splitlines()[0].split()[:2]
    quiet = _hlo_run([model, "--backend=llvm", "--random", "0"], tmp_path / "c")
    assert quiet.exit_code == 0 and "compile cache" not in quiet.stderr


def test_hlo_run_no_cache_neither_reads_nor_writes(tmp_path: Path) -> None:
    model = tmp_path / "m.hlo"
    model.write_text(TEXT)
    r = _hlo_run([model, "--backend=llvm", "--random", "0", "-v", "--no-cache"], tmp_path / "c")
    assert r.exit_code == 0 and "compile cache" not in r.stderr
    assert not (tmp_path / "c").exists()
    _hlo_run([model, "--backend=llvm", "--random", "0"], tmp_path / "c")
    assert (tmp_path / "c" / "llvm").is_dir()
    r = _hlo_run([model, "--backend=llvm", "--random", "0", "-v", "--no-cache"], tmp_path / "c")
    assert "hit" not in r.stderr


def test_codegen_environment_variables_are_in_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rec = Recorder(tmp_path)
    rec.compile()
    monkeypatch.setenv("HLOTOOLS_NUM_THREADS", "1")
    rec.compile()
    assert not rec.hit
    monkeypatch.setenv("HLOTOOLS_CACHE_DIR", str(tmp_path / "elsewhere"))  # where, not what: same key
    rec.compile()
    assert rec.hit


def test_uncacheable_modules_are_not_stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    original = runtime.CompiledModule.__init__

    def marked(self: Any, *a: Any, **k: Any) -> None:
        original(self, *a, **k)
        self.cacheable = False
    monkeypatch.setattr(runtime.CompiledModule, "__init__", marked)
    rec = Recorder(tmp_path)
    check_results(rec.compile())
    assert any("not cacheable" in line for line in rec.lines)
    assert not list(tmp_path.rglob("*.entry"))


def test_trim_deletes_the_oldest_entries_over_the_limit(tmp_path: Path) -> None:
    store = CompileCache(tmp_path, max_bytes=10 * 1024)
    keys = [f"{k:02x}" * 32 for k in range(6)]
    for k, key in enumerate(keys):
        store.max_bytes = 1 << 30  # no trimming while filling
        store.put(Entry(key, "object", {}, bytes(3000)))
        os.utime(store.path(key), (1000 + k, 1000 + k))
    store.max_bytes = 10 * 1024
    assert store.trim() == 3  # 6 x ~3.1 KB -> the 3 newest fit under 10 KiB
    left = sorted(p.stem for p in tmp_path.rglob("*.entry"))
    assert left == sorted(keys[3:])
    assert store.get(keys[0], "object") is None and store.get(keys[5], "object") is not None


def test_cache_limit_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HLOTOOLS_CACHE_MAX_MB", "3")
    assert CompileCache(tmp_path).max_bytes == 3 << 20
    monkeypatch.setenv("HLOTOOLS_CACHE_MAX_MB", "lots")
    assert CompileCache(tmp_path).max_bytes == 1024 << 20


def test_the_shared_library_is_linked_after_compile_cached_returns(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The link (cc, 15-25 ms) is off the critical path: compile_cached returns with the object
    stored while the link still runs; the library is recorded in the entry once it is done."""
    import threading

    from hlotools.backend.llvm.native import shared_library
    if not (shared_library.enabled() and shared_library.c_compiler()):
        pytest.skip("no C compiler (or not Linux): no shared libraries")
    release = threading.Event()
    real_link = shared_library.link

    def slow_link(*args: Any, **kwargs: Any) -> Any:
        assert release.wait(60)
        return real_link(*args, **kwargs)
    monkeypatch.setattr(shared_library, "link", slow_link)
    rec = Recorder(tmp_path)
    compiled = rec.compile()
    check_results(compiled)  # usable at once, from MCJIT
    assert "link" in compiled.timings.extra and compiled.timings.extra["link"] < 0.5
    (entry_path,) = object_entries(rec)
    assert "shared_library" not in cache.decode_entry(entry_path.read_bytes(), entry_path.stem, "object").meta
    assert not rec.cache.wait_for_links(0.05)  # still linking
    release.set()
    assert rec.cache.wait_for_links(60)
    entry = cache.decode_entry(entry_path.read_bytes(), entry_path.stem, "object")
    assert entry.meta["shared_library"]["bytes"] == shared_library.library_path(entry_path).stat().st_size
    warm = rec.compile()
    assert rec.hit and any("loaded with dlopen" in line for line in rec.lines), rec.lines
    check_results(warm)


def test_a_child_forked_during_a_background_link_does_not_wait_for_it(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """fork() copies the parent's queue of links but not its worker thread: the child starts
    with none (waiting for the parent's would hang it) and can compile and link its own."""
    import threading

    from hlotools.backend.llvm.native import shared_library
    if not (shared_library.enabled() and shared_library.c_compiler()):
        pytest.skip("no C compiler (or not Linux): no shared libraries")
    release = threading.Event()
    real_link = shared_library.link

    def slow_link(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == "hlotools-link" and os.getpid() == parent:
            assert release.wait(60)
        return real_link(*args, **kwargs)
    parent = os.getpid()
    monkeypatch.setattr(shared_library, "link", slow_link)
    rec = Recorder(tmp_path / "parent")
    rec.compile()
    assert not cache.wait_for_all_links(0.05)  # the parent's link is still running
    pid = os.fork()
    if pid == 0:  # the child
        code = 0
        try:
            code = 1 if not cache.wait_for_all_links(5) else 0
            child = Recorder(tmp_path / "child")
            check_results(child.compile())
            code = code or (0 if child.cache.wait_for_links(60) else 2)
            code = code or (0 if list((tmp_path / "child").rglob("*.so")) else 3)
        except BaseException:  # noqa: BLE001 - reported through the exit status
            code = 4
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    release.set()
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert rec.cache.wait_for_links(60)


def test_a_cache_folder_deleted_during_a_background_link_stays_deleted(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing is written into the folder while the linker runs, and the library and the entry's
    new record are never written into a folder that is gone (a user's rm -r, a temp folder's
    cleanup)."""
    import shutil
    import threading

    from hlotools.backend.llvm.native import shared_library
    if not (shared_library.enabled() and shared_library.c_compiler()):
        pytest.skip("no C compiler (or not Linux): no shared libraries")
    started, release = threading.Event(), threading.Event()
    real_link = shared_library.link

    def slow_link(*args: Any, **kwargs: Any) -> Any:
        started.set()
        assert release.wait(60)
        return real_link(*args, **kwargs)
    monkeypatch.setattr(shared_library, "link", slow_link)
    rec = Recorder(tmp_path / "c")
    check_results(rec.compile())
    assert started.wait(60)
    assert not [p for p in (tmp_path / "c").rglob("*") if p.name.endswith(".tmp")]
    shutil.rmtree(tmp_path / "c")
    release.set()
    assert rec.cache.wait_for_links(60)
    assert not (tmp_path / "c").exists()
