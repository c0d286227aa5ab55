"""The runtime library (kernels/library.py): the parallel runtime and the GEMM kernels are
compiled once per machine and shared by every JIT module, cached beside the modules, rebuilt
when their entries are missing or damaged; AOT objects and shared libraries stay
self-contained."""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hlotools
from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
from hlotools.backend.llvm.driver.runtime import CompiledModule
from hlotools.backend.llvm.kernels import library as runtime_library
from hlotools.backend.llvm.native import cache, shared_library
from hlotools.backend.llvm.native.cache import CompileCache

# A dot big enough for threads (m*n*k = 2^24) and a threaded elementwise loop.
DOT = """HloModule dot
ENTRY main {
  a = f32[256,256] parameter(0)
  b = f32[256,256] parameter(1)
  ROOT d = f32[256,256] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""
ELEMENTWISE = """HloModule ew
ENTRY main {
  a = f32[1024,512] parameter(0)
  b = f32[1024,512] parameter(1)
  m = f32[1024,512] multiply(a, b)
  ROOT r = f32[1024,512] add(m, a)
}
"""
RNG = np.random.default_rng(1)
A = RNG.standard_normal((256, 256)).astype(np.float32)
B = RNG.standard_normal((256, 256)).astype(np.float32)
X = RNG.standard_normal((1024, 512)).astype(np.float32)
Y = RNG.standard_normal((1024, 512)).astype(np.float32)
CAN_LINK = shared_library.enabled() and shared_library.c_compiler() is not None


@pytest.fixture(autouse=True)
def wait_for_links() -> Iterator[None]:
    yield
    cache.wait_for_all_links(60)


def _check_dot(compiled: Any) -> np.ndarray:
    got = compiled([A, B])[0]
    np.testing.assert_allclose(got, A.astype(np.float64) @ B.astype(np.float64), rtol=1e-4, atol=1e-3)
    return got


def _check_elementwise(compiled: Any) -> None:
    np.testing.assert_allclose(compiled([X, Y])[0], X * Y + X, rtol=1e-6)


def test_modules_declare_the_runtime_and_resolve_it_across_modules() -> None:
    dot = CompiledModule(hlotools.parse_module(DOT))
    ew = CompiledModule(hlotools.parse_module(ELEMENTWISE))
    kernel = runtime_library.gemm_group("f32")
    assert dot.runtime_groups == sorted([runtime_library.PARALLEL, kernel]) and ew.runtime_groups == [runtime_library.PARALLEL]
    for compiled in (dot, ew):  # declared, never defined in the module
        assert 'declare void @"hlo.parallel_for"' in compiled.llvm_ir
        assert 'define internal void @"hlo.parallel_for"' not in compiled.llvm_ir
    assert f'declare void @"{kernel}"' in dot.llvm_ir
    loaded = runtime_library.loaded()
    assert {runtime_library.PARALLEL, kernel} <= set(loaded)
    assert set(loaded[runtime_library.PARALLEL].symbols) == {"hlo.parallel_for", "hlotools_parallel_join",
                                                "hlotools_num_threads"}
    assert all(addr > 0 for addr in loaded[runtime_library.PARALLEL].symbols.values())
    _check_dot(dot)
    _check_elementwise(ew)
    _check_dot(dot)  # again, after the other module's threads ran in the shared runtime


def test_the_runtime_group_of_a_symbol() -> None:
    assert runtime_library.group_of("hlo.parallel_for") == runtime_library.PARALLEL
    assert runtime_library.group_of("gemm.f64.x8.v2.r4") == "gemm.f64.x8.v2.r4"
    assert runtime_library.group_of("hlo_entry") is None and runtime_library.group_of("gemm.f32") is None
    assert runtime_library.groups_of_symbols(["expf", "gemm.f32.x16.v2.r4", "hlo.parallel_for", "hlo.parallel_for"]) == \
        ["gemm.f32.x16.v2.r4", "parallel"]
    with pytest.raises(hlotools.HloError, match="no group"):
        runtime_library.build_ir("gemm.q7.x8.v2.r4")


def test_keys_name_the_group_and_the_runtime_sources() -> None:
    env = runtime_library.environment()
    assert {"format", "sources", "llvm", "llvmlite", "triple", "cpu", "features"} <= set(env)
    assert "blas" not in env  # modules' dots may call BLAS; the runtime never does
    assert runtime_library.key(runtime_library.PARALLEL) != runtime_library.key(runtime_library.gemm_group("f32")) != runtime_library.key(runtime_library.gemm_group("f64"))
    assert runtime_library.key(runtime_library.PARALLEL) == runtime_library.key(runtime_library.PARALLEL)


def test_a_module_compiled_before_and_after_the_runtime_is_cached_gives_the_same_results(tmp_path: Path) -> None:
    store = CompileCache(tmp_path)
    runtime_library.forget()
    built = CompiledModule(hlotools.parse_module(DOT), runtime_cache=store)
    assert {runtime_library.loaded()[g].origin for g in built.runtime_groups} == {"built"}
    entries = sorted((tmp_path / "llvm" / "runtime").glob("*.entry"))
    assert len(entries) == 2  # parallel and the f32 kernel
    runtime_library.forget()
    cached = CompiledModule(hlotools.parse_module(DOT), runtime_cache=store)
    assert {runtime_library.loaded()[g].origin for g in cached.runtime_groups} == {"cache"}
    assert cached.llvm_ir == built.llvm_ir
    assert np.array_equal(_check_dot(built), _check_dot(cached))  # the same kernel code, bit for bit


@pytest.mark.parametrize("damage", ["delete", "truncate", "flip"])
def test_a_missing_or_damaged_runtime_entry_is_rebuilt(tmp_path: Path, damage: str) -> None:
    said: list[str] = []
    store = CompileCache(tmp_path, log=said.append)
    runtime_library.forget()
    runtime_library.ensure([runtime_library.PARALLEL], store)
    (entry,) = (tmp_path / "llvm" / "runtime").glob("*.entry")
    good = entry.read_bytes()
    if damage == "delete":
        entry.unlink()
    elif damage == "truncate":
        entry.write_bytes(good[:-50])
    else:
        entry.write_bytes(good[:-10] + bytes(b ^ 0xFF for b in good[-10:]))
    runtime_library.forget()
    said.clear()
    runtime_library.ensure([runtime_library.PARALLEL], store)
    assert runtime_library.loaded()[runtime_library.PARALLEL].origin == "built"
    reason = {"delete": "no entry", "truncate": "truncated", "flip": "checksum mismatch"}[damage]
    assert any("miss, runtime entry" in line and reason in line for line in said), said
    assert any("runtime parallel built" in line for line in said), said
    cache.decode_entry(entry.read_bytes(), entry.stem, runtime_library.KIND)  # rewritten, valid
    _check_elementwise(CompiledModule(hlotools.parse_module(ELEMENTWISE)))


def test_cached_modules_record_and_load_their_runtime_groups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HLOTOOLS_CACHE_DLOPEN", "0")  # the object through MCJIT
    said: list[str] = []
    store = CompileCache(tmp_path, log=said.append)
    first = compile_cached(hlotools.parse_module(DOT), CompileOptions(), compile_cache=store, source_text=DOT)
    (entry_path,) = [p for p in (tmp_path / "llvm").glob("??/*.entry") if b'"kind": "object"' in p.read_bytes()]
    entry = cache.decode_entry(entry_path.read_bytes(), entry_path.stem, "object")
    assert entry.meta["runtime"] == first.runtime_groups == sorted([runtime_library.PARALLEL, runtime_library.gemm_group("f32")])
    # a process that never loaded the runtime and whose runtime entries were deleted (after
    # the background worker copied them in: else it may copy them again after the deletion)
    store.wait_for_links()
    runtime_library.forget()
    for p in (tmp_path / "llvm" / "runtime").glob("*.entry"):
        p.unlink()
    said.clear()
    warm = compile_cached(hlotools.parse_module(DOT), CompileOptions(), compile_cache=store, source_text=DOT)
    assert any(line.startswith("compile cache: hit") and "MCJIT" in line for line in said), said
    assert warm.timings.llvm_s == 0 and {runtime_library.loaded()[g].origin for g in warm.runtime_groups} == {"built"}
    assert len(list((tmp_path / "llvm" / "runtime").glob("*.entry"))) == 2
    assert np.array_equal(_check_dot(first), _check_dot(warm))


def test_without_a_cache_the_runtime_is_built_in_process_and_kept(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HLOTOOLS_CACHE_DIR", str(tmp_path / "c"))
    runtime_library.forget()
    compiled = compile_cached(hlotools.parse_module(ELEMENTWISE), CompileOptions(), compile_cache=None)
    assert runtime_library.loaded()[runtime_library.PARALLEL].origin == "built"
    kept = runtime_library.loaded()[runtime_library.PARALLEL]
    again = compile_cached(hlotools.parse_module(ELEMENTWISE), CompileOptions(), compile_cache=None)
    assert runtime_library.loaded()[runtime_library.PARALLEL] is kept and again.timings.extra["runtime_library"] < 0.005
    assert not (tmp_path / "c" / "llvm" / "runtime").exists()
    _check_elementwise(compiled)
    _check_elementwise(again)


def test_objects_from_the_jit_name_the_runtime_and_aot_objects_define_everything() -> None:
    from hlotools.backend.llvm.driver import aot
    from hlotools.backend.llvm.native.objfile import read_object, read_objects
    jit_object = CompiledModule(hlotools.parse_module(DOT), keep_object=True).object_code
    assert jit_object is not None
    undefined = set(read_objects(jit_object).undefined)  # the entry's and its kernels' objects
    assert {"hlo.parallel_for", runtime_library.gemm_group("f32")} <= undefined
    module = hlotools.parse_module(DOT)
    text = aot.compile_aot(module, "llvm")
    assert isinstance(text, str)
    assert 'define internal void @"hlo.parallel_for"' in text and "declare void @\"gemm." not in text
    data = aot.compile_aot(module, "obj")
    assert isinstance(data, bytes)
    info = read_object(data)
    assert not {"hlo.parallel_for", runtime_library.gemm_group("f32")} & set(info.undefined)
    assert not [s for s in info.undefined if runtime_library.group_of(s)]
    assert "pthread_create" in info.undefined  # its own parallel runtime, on libc


@pytest.mark.skipif(not CAN_LINK, reason="no C compiler (or not Linux): no shared libraries")
def test_shared_library_warm_start_in_a_fresh_process_uses_host_threads(tmp_path: Path) -> None:
    script = f"""
import ctypes, sys
from pathlib import Path
import numpy as np
import hlotools
from hlotools.backend.llvm.native.cache import CompileCache
from hlotools.backend.llvm.driver.compile import compile_cached
from hlotools.backend.llvm.native.host import host_threads
text = {DOT!r}
rng = np.random.default_rng(1)
a = rng.standard_normal((256, 256)).astype(np.float32)
b = rng.standard_normal((256, 256)).astype(np.float32)
log = []
store = CompileCache(Path({str(tmp_path)!r}), log=log.append)
compiled = compile_cached(hlotools.parse_module(text), compile_cache=store, source_text=text)
assert store.wait_for_links(120)
got = compiled([a, b])[0]
assert np.allclose(got, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-3)
how = "dlopen" if any("loaded with dlopen" in line for line in log) else "other"
threads = -1
if how == "dlopen":
    threads = ctypes.c_int32.in_dll(compiled._jit._handle, "hlotools_num_threads").value
print(how, threads, host_threads(), "llvmlite" in sys.modules)
"""
    env = {**os.environ, "HLOTOOLS_NUM_THREADS": "3"}
    runs = []
    for _ in range(3):  # others editing the backend's sources may change the key: try again
        cold = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
        assert cold.returncode == 0, cold.stderr
        warm = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
        assert warm.returncode == 0, warm.stderr
        runs.append(warm.stdout.split())
        if runs[-1][0] == "dlopen":
            break
    assert runs[-1] == ["dlopen", "3", "3", "False"], runs
    assert list(tmp_path.glob("llvm/??/*.so"))
    library = next(tmp_path.glob("llvm/??/*.so"))
    nm = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True)
    if nm.returncode == 0:  # the runtime is linked into the library
        assert "hlo.parallel_for" in nm.stdout and "hlotools_num_threads" in nm.stdout


def test_prepare_loads_the_narrow_gemm_block_too() -> None:
    """prepare() loads the GEMM variant of dots of one vector of columns as well as the
    table's block, so a narrow dot's first compile builds no runtime group."""
    runtime_library.prepare(types=("f32",))
    narrow, wide = runtime_library.gemm_group("f32", 1), runtime_library.gemm_group("f32")
    assert narrow != wide and {narrow, wide} <= set(runtime_library.loaded())
    text = DOT.replace("b = f32[256,256]", "b = f32[256,4]").replace("d = f32[256,256]", "d = f32[256,4]")
    dot = CompiledModule(hlotools.parse_module(text))
    assert narrow in dot.runtime_groups and wide not in dot.runtime_groups
