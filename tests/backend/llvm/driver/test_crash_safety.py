"""No valid module may crash the Python process from generated code. Each scenario runs in a
child process (a segfault then fails one test instead of killing a pytest worker) and checks
its results: repeated compile/call/free cycles under GC pressure, calls from several Python
threads at once, guard pages around every buffer (out-of-bounds reads or writes fault at once,
results and arena start as 0xFF garbage), several processes writing and reading one compile
cache, a library replaced under a name this process already loaded, and the test setup's private
cache folders (per xdist worker, inherited by subprocesses)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hlotools.backend.llvm.native import shared_library
from tests.support.paths import ROOT, SHARED, TESTS

JAX = SHARED / "corpus" / "jax"
CAN_LINK = shared_library.enabled() and shared_library.c_compiler() is not None

# Threaded: 512 Ki elements pass parallel.MIN_PARALLEL_WORK, the dot MIN_PARALLEL_GEMM.
THREADED = """HloModule threaded
ENTRY main {
  a = f32[1024,512] parameter(0)
  b = f32[1024,512] parameter(1)
  m = f32[1024,512] multiply(a, b)
  e = f32[1024,512] exponential(m)
  ROOT r = f32[1024,512] add(e, a)
}
"""
DOT = """HloModule dot
ENTRY main {
  a = f32[320,320] parameter(0)
  b = f32[320,320] parameter(1)
  ROOT d = f32[320,320] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""
PRELUDE = f"""
import gc, os, sys, threading
import numpy as np
sys.path.insert(0, {str(ROOT)!r})
THREADED = {THREADED!r}
DOT = {DOT!r}
rng = np.random.default_rng(0)
A = rng.standard_normal((1024, 512)).astype(np.float32) * 0.5
B = rng.standard_normal((1024, 512)).astype(np.float32) * 0.5
WANT = np.exp(A.astype(np.float64) * B) + A
D = rng.standard_normal((320, 320)).astype(np.float32)
WANT_DOT = D.astype(np.float64) @ D.astype(np.float64)

def check(got, want, what):
    assert np.allclose(got, want, rtol=1e-4, atol=1e-3), (what, float(np.abs(got - want).max()))
"""


def run_child(body: str, *, env: dict[str, str] | None = None, timeout: float = 300) -> str:
    """Run PRELUDE + body in a fresh interpreter (faulthandler on); its stdout, or a failure
    naming the signal and the child's last stderr lines."""
    environ = {**os.environ, **(env or {})}
    r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", PRELUDE + textwrap.dedent(body)],
                       capture_output=True, text=True, timeout=timeout, env=environ, cwd=str(ROOT))
    how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit {r.returncode}"
    assert r.returncode == 0, f"child died ({how})\n{r.stderr[-3000:]}"
    return r.stdout


def test_compile_call_free_cycles_under_gc_pressure() -> None:
    out = run_child("""
        from hlotools import parse_module
        from hlotools.backend.llvm.driver.runtime import CompiledModule
        for i in range(5):
            for text, args, want in ((THREADED, [A, B], WANT), (DOT, [D, D], WANT_DOT)):
                cm = CompiledModule(parse_module(text), keep_object=True)
                gc.collect()                       # between compile and call
                check(cm(args)[0], want, ("fresh", i))
                obj, stats = cm.object_code, cm.stats
                params, results = cm.param_leaves, cm.result_leaves
                del cm                             # helper threads may still be finishing
                gc.collect()
                warm = CompiledModule.from_object(bytes(obj), stats, params, results)
                del obj
                gc.collect()                       # the object bytes are gone: the engine has its copy
                check(warm(args)[0], want, ("from_object", i))
                del warm
        # arguments at any alignment (a 4-byte offset view is C-contiguous but not 16-aligned)
        cm = CompiledModule(parse_module(THREADED))
        raw = np.empty(A.size * 2 + 1, np.float32)
        a = raw[1:1 + A.size].reshape(A.shape); a[...] = A
        b = raw[1 + A.size:].reshape(B.shape); b[...] = B
        check(cm([a, b])[0], WANT, "misaligned")
        print("ok")
    """, env={"HLOTOOLS_NUM_THREADS": "4"})
    assert out.strip() == "ok"


@pytest.mark.parametrize("blas", ["0", "1"])  # "1": the dots call numpy's OpenBLAS from each thread
def test_calls_from_several_python_threads_at_once(blas: str) -> None:
    out = run_child("""
        from hlotools import parse_module
        from hlotools.backend.llvm.driver.runtime import CompiledModule
        shared = CompiledModule(parse_module(THREADED))
        errors = []

        def call_shared(k):
            try:
                for i in range(6):
                    check(shared([A, B])[0], WANT, ("shared", k, i))
            except BaseException as e:
                errors.append(repr(e))

        def compile_own(k):
            try:
                for i in range(2):
                    own = CompiledModule(parse_module(DOT if k % 2 else THREADED))
                    args, want = ([D, D], WANT_DOT) if k % 2 else ([A, B], WANT)
                    check(own(args)[0], want, ("own", k, i))
                    del own
                    gc.collect()
            except BaseException as e:
                errors.append(repr(e))

        threads = [threading.Thread(target=call_shared, args=(k,)) for k in range(4)]
        threads += [threading.Thread(target=compile_own, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        print("ok")
    """, env={"HLOTOOLS_NUM_THREADS": "3", "HLOTOOLS_BLAS": blas})
    assert out.strip() == "ok"


FORKED = """
import hlotools
from hlotools.backend.llvm.native.cache import CompileCache
from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
from hlotools.backend.llvm.driver.runtime import CompiledModule
modules = [CompiledModule(hlotools.parse_module(THREADED))]
if len(sys.argv) > 1:  # and one dlopened from the compile cache (the same code as a shared library)
    log = []
    store = CompileCache(Path(sys.argv[1]), log=log.append)
    for _ in range(2):
        cm = compile_cached(hlotools.parse_module(THREADED), CompileOptions(),
                            compile_cache=store, source_text=THREADED)
        assert store.wait_for_links(120)  # the shared library is linked in the background
    assert any("loaded with dlopen" in line for line in log), log
    modules.append(cm)
for cm in modules:
    check(cm([A, B])[0], WANT, "parent")  # its helper threads are left to join at the next call
    for k in range(2):
        pid = os.fork()
        if pid == 0:  # the child inherits the list of helper threads, which do not exist in it
            try:
                for _ in range(2):
                    check(cm([A, B])[0], WANT, "child")
            except BaseException:
                os._exit(3)
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, ("child", k, status)
        check(cm([A, B])[0], WANT, "parent after fork")
print("ok")
"""


def test_forked_children_can_call_modules_whose_threads_ran_in_the_parent(tmp_path: Path) -> None:
    """multiprocessing's default on Linux is fork: a child called a module that had run helper
    threads in the parent and died of SIGSEGV (pthread_join on the parent's threads)."""
    script = "from pathlib import Path\n" + FORKED
    out = run_child(script.replace("if len(sys.argv) > 1:", f"if {CAN_LINK!r}:").replace(
        "Path(sys.argv[1])", f"Path({str(tmp_path)!r})"), env={"HLOTOOLS_NUM_THREADS": "4"})
    assert out.strip() == "ok"


# Indices out of range (clamped by dynamic-slice/-update-slice and gather, skipped by scatter),
# a NaN converted to an index, zero-sized arrays, results that are constants or parameters,
# an input/output alias: each must stay inside its buffers.
EDGE_MODULES = {
    "dynamic_slices": ("""HloModule m
ENTRY main {
  p = f32[8,6] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  u = f32[3,2] parameter(3)
  d = f32[3,2] dynamic-slice(p, i, j), dynamic_slice_sizes={3,2}
  w = f32[8,6] dynamic-update-slice(p, u, i, j)
  ROOT t = (f32[3,2], f32[8,6]) tuple(d, w)
}
""", "[np.arange(48, dtype=np.float32).reshape(8, 6), np.int32(100), np.int32(-50), np.ones((3, 2), np.float32)]"),
    "gather_scatter": ("""HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  operand = f32[5,3] parameter(0)
  indices = s32[4] parameter(1)
  updates = f32[4,3] parameter(2)
  g = f32[4,3] gather(operand, indices), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
  s = f32[5,3] scatter(operand, indices, updates), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT t = (f32[4,3], f32[5,3]) tuple(g, s)
}
""", "[np.arange(15, dtype=np.float32).reshape(5, 3), np.array([-7, 2, 99, 4], np.int32), np.ones((4, 3), np.float32)]"),
    "nan_index": ("""HloModule m
ENTRY main {
  p = f32[10] parameter(0)
  x = f32[] parameter(1)
  i = s32[] convert(x)
  ROOT d = f32[3] dynamic-slice(p, i), dynamic_slice_sizes={3}
}
""", "[np.arange(10, dtype=np.float32), np.float32('nan')]"),
    "zero_sized": ("""HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[3,0] parameter(0)
  z = f32[] constant(0)
  r = f32[3] reduce(p, z), dimensions={1}, to_apply=add
  e = f32[0,4] broadcast(z), dimensions={}
  ROOT t = (f32[3], f32[0,4], f32[3,0]) tuple(r, e, p)
}
""", "[np.zeros((3, 0), np.float32)]"),
    "constants_and_parameters": ("""HloModule m, input_output_alias={ {2}: (0, {}, may-alias) }
ENTRY main {
  p = f32[5] parameter(0)
  c = f32[5] constant({1, 2, 3, 4, 5})
  a = f32[5] add(p, c)
  ROOT t = (f32[5], f32[5], f32[5], f32[5]) tuple(c, p, a, c)
}
""", "[np.arange(5, dtype=np.float32)]"),
    "negative_padding": ("""HloModule m
ENTRY main {
  p = f32[6,5] parameter(0)
  z = f32[] constant(7)
  ROOT r = f32[3,9] pad(p, z), padding=-2_-1x1_3_0
}
""", "[np.arange(30, dtype=np.float32).reshape(6, 5)]"),
}
# Small JAX corpus modules covering gathers/scatters, sorts, control flow, FFT, RNG, LAPACK calls.
JAX_MODULES = ["dynamic_slicing", "scatter_ops", "sort_topk", "cond_switch", "fft_complex", "linalg_custom_calls",
               "embedding_lookup", "rng_bit_generator", "scan_rnn", "while_newton", "kv_cache_decode"]

GUARDED = """
import tests.support.guarded_buffers as _guarded_buffers
_guarded_buffers.install(MODE)
import hlotools
from pathlib import Path
from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
from hlotools import evaluate

def same(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind == "V" or got.dtype.kind == "V":
        assert got.tobytes() == want.tobytes(), what
    elif got.dtype.kind in "fc":
        assert np.allclose(got, want, rtol=2e-2, atol=2e-2, equal_nan=True), (what, got, want)
    else:
        assert np.array_equal(got, want), (what, got, want)

for name, (text, args) in EDGE.items():
    args = eval(args)
    want = evaluate(hlotools.parse_module(text), args)
    for preset in ("none", "O2"):
        compiled = compile_cached(hlotools.parse_module(text), CompileOptions(preset=preset), compile_cache=None)
        for _ in range(2):  # the second call sees the first call's arena
            got = compiled(args)
            assert len(got) == len(want)
            for k, (g, w) in enumerate(zip(got, want)):
                same(g, w, (name, preset, k))
for name in JAX_NAMES:
    jax = Path(JAX)
    ins, exp = np.load(jax / f"{name}.inputs.npz"), np.load(jax / f"{name}.expected.npz")
    compiled = compile_cached(hlotools.parse_module((jax / f"{name}.hlo").read_text()), CompileOptions(),
                              compile_cache=None)
    got = compiled([ins[f"in{i}"] for i in range(len(ins.files))])
    assert len(got) == len(exp.files), name
    for k, g in enumerate(got):
        same(g, exp[f"out{k}"], (name, k))
print("ok")
"""


@pytest.mark.parametrize("mode", ["end", "start"])
def test_generated_code_stays_inside_its_buffers(mode: str) -> None:
    jax = [n for n in JAX_MODULES if (JAX / f"{n}.hlo").exists()]
    out = run_child(f"MODE = {mode!r}\nEDGE = {EDGE_MODULES!r}\nJAX = {str(JAX)!r}\nJAX_NAMES = {jax!r}\n"
                    + GUARDED, env={"HLOTOOLS_NUM_THREADS": "2"})
    assert out.strip() == "ok"


CACHE_CLIENT = """
import shutil, time
from pathlib import Path
import hlotools
from hlotools.backend.llvm.native.cache import CompileCache
from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
folder, role = Path(sys.argv[1]), sys.argv[2]
log = []
for round in range(4):
    if role == "wiper" and round % 2 == 1:
        shutil.rmtree(folder / "llvm", ignore_errors=True)  # every entry rebuilt while others run theirs
    for text, args, want in ((THREADED, [A, B], WANT), (DOT, [D, D], WANT_DOT)):
        cm = compile_cached(hlotools.parse_module(text), CompileOptions(),
                            compile_cache=CompileCache(folder, log=log.append), source_text=text)
        for _ in range(2):
            check(cm(args)[0], want, (role, round))
print("ok", sum("loaded with dlopen" in line for line in log), sum("compiled (" in line for line in log))
"""


def test_processes_sharing_one_compile_cache(tmp_path: Path) -> None:
    script = PRELUDE + CACHE_CLIENT
    environ = {**os.environ, "HLOTOOLS_NUM_THREADS": "2"}
    procs = [subprocess.Popen([sys.executable, "-X", "faulthandler", "-c", script, str(tmp_path), role],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environ, cwd=str(ROOT))
             for role in ("reader", "reader", "wiper")]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (stdout, stderr) in zip(procs, outs):
        assert p.returncode == 0 and stdout.startswith("ok"), f"exit {p.returncode}\n{stderr[-3000:]}"
    assert not list((tmp_path / "llvm").rglob("*.tmp")), "temp files left behind"
    if CAN_LINK:  # the warm path was taken somewhere, while other processes rewrote the entries
        assert sum(int(stdout.split()[1]) for stdout, _ in outs) > 0


def test_many_modules_cold_and_warm_in_one_process(tmp_path: Path) -> None:
    """hlo-run's tests load several modules' libraries into one pytest worker: each warm start
    must run its own code (a loader keyed by a reused name once ran another module's)."""
    out = run_child(f"""
        from pathlib import Path
        import hlotools
        from hlotools.backend.llvm.native.cache import CompileCache
        from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
        from hlotools import evaluate
        ops = ["add", "multiply", "subtract", "maximum", "divide"]
        texts = [f"HloModule m{{k}}\\nENTRY e {{{{\\n  a = f32[{{8 * (k + 1)}}] parameter(0)\\n"
                 f"  b = f32[{{8 * (k + 1)}}] parameter(1)\\n  ROOT r = f32[{{8 * (k + 1)}}] {{op}}(a, b)\\n}}}}\\n"
                 for k, op in enumerate(ops)] + [THREADED]
        log = []
        store = CompileCache(Path({str(tmp_path)!r}), log=log.append)
        for round in range(3):
            for text in texts:
                m = hlotools.parse_module(text)
                args = [np.linspace(1, 2, p.shape.dims[0] if len(p.shape.dims) == 1 else 1).astype(np.float32)
                        if len(p.shape.dims) == 1 else A if i == 0 else B
                        for i, p in enumerate(m.entry.parameters)]
                got = compile_cached(m, CompileOptions(), compile_cache=store, source_text=text)(args)[0]
                check(got, evaluate(m, args)[0], (round, text[:12]))
        print("ok", sum("loaded with dlopen" in line for line in log))
    """)
    assert out.startswith("ok")
    if CAN_LINK:
        assert int(out.split()[1]) == 2 * 6


@pytest.mark.skipif(not CAN_LINK, reason="no C compiler (or not Linux): no shared libraries in the cache")
def test_library_replaced_under_a_loaded_name_is_not_run(tmp_path: Path) -> None:
    """A process that dlopened KEY.so gets that code back from glibc for the same path even after
    the file was replaced; the entry (arena size, ...) would then describe other code. The loader
    notices that the code is not the file it hashed and takes the entry's object through MCJIT."""
    out = run_child(f"""
        from pathlib import Path
        import hlotools
        from hlotools.backend.llvm.native import cache
        from hlotools.backend.llvm.native import shared_library
        from hlotools.backend.llvm.native.cache import CompileCache
        from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
        add = "HloModule m\\nENTRY e {{\\n  a = f32[64] parameter(0)\\n  b = f32[64] parameter(1)\\n  ROOT r = f32[64] add(a, b)\\n}}\\n"
        mul = add.replace("add(a, b)", "multiply(a, b)")
        x, y = np.arange(64, dtype=np.float32), np.full(64, 3, np.float32)
        log = []
        here, other = CompileCache(Path({str(tmp_path / "a")!r}), log=log.append), CompileCache(Path({str(tmp_path / "b")!r}))
        compile_cached(hlotools.parse_module(add), compile_cache=here, source_text=add)
        warm = compile_cached(hlotools.parse_module(add), compile_cache=here, source_text=add)
        assert any("loaded with dlopen" in line for line in log), log
        assert np.array_equal(warm([x, y])[0], x + y)
        compile_cached(hlotools.parse_module(mul), compile_cache=other, source_text=mul)
        assert other.wait_for_links(120)  # its library is linked in the background
        # file mul's entry and library under add's key, as a writer with other code would
        alias = here.get(cache.make_key("source", add, CompileOptions().key_fields()), "alias")
        key = alias.meta["target"]
        mul_alias = other.get(cache.make_key("source", mul, CompileOptions().key_fields()), "alias")
        mul_entry = other.get(mul_alias.meta["target"], "object")
        here.put(cache.Entry(key, "object", mul_entry.meta, mul_entry.payload))
        tmp = str(shared_library.library_path(here.path(key))) + ".new"
        Path(tmp).write_bytes(shared_library.library_path(other.path(mul_alias.meta["target"])).read_bytes())
        os.replace(tmp, shared_library.library_path(here.path(key)))
        log.clear()
        again = compile_cached(hlotools.parse_module(add), compile_cache=here, source_text=add)
        assert any("not the file the entry describes" in line for line in log), log
        assert any("loaded with MCJIT" in line for line in log), log
        assert np.array_equal(again([x, y])[0], x * y)  # the entry's code ran, not the old library's
        print("ok")
    """)
    assert out.strip() == "ok"


def test_each_session_and_its_subprocesses_use_a_private_cache_folder() -> None:
    folder = os.environ.get("HLOTOOLS_CACHE_DIR", "")
    assert folder and Path(folder).is_dir()
    if not os.environ.get("HLOTOOLS_TESTS_KEEP_CACHE"):
        assert Path(folder).name.startswith("hlotools-test-cache-")
    from hlotools.backend.llvm.native.cache import CompileCache
    assert CompileCache().directory == Path(folder) / "llvm"
    seen = subprocess.run([sys.executable, "-c", "import os; print(os.environ['HLOTOOLS_CACHE_DIR'])"],
                          capture_output=True, text=True, timeout=60).stdout.strip()
    assert seen == folder  # hlo-run started by a test writes into this session's folder only


def test_xdist_workers_get_folders_of_their_own(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    probe = tmp_path / "test_probe.py"
    probe.write_text(textwrap.dedent(f"""
        import os, pytest
        @pytest.mark.parametrize("i", range(4))
        def test_where(i):
            with open({str(tmp_path / "seen.txt")!r}, "a") as f:
                f.write(os.environ.get("PYTEST_XDIST_WORKER", "?") + " " + os.environ["HLOTOOLS_CACHE_DIR"] + "\\n")
    """))
    (tmp_path / "conftest.py").write_text((TESTS / "conftest.py").read_text())
    environ = {k: v for k, v in os.environ.items() if k not in ("HLOTOOLS_CACHE_DIR", "HLOTOOLS_TESTS_KEEP_CACHE")}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider", str(probe)],
                       capture_output=True, text=True, timeout=300, env=environ, cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout[-2000:]
    by_worker: dict[str, set[str]] = {}
    for line in (tmp_path / "seen.txt").read_text().splitlines():
        worker, folder = line.split(" ", 1)
        by_worker.setdefault(worker, set()).add(folder)
    folders = [f for fs in by_worker.values() for f in fs]
    assert all(len(fs) == 1 for fs in by_worker.values()) and len(folders) == len(set(folders))
    assert not any(Path(f).exists() for f in folders)  # removed when each session ended


@pytest.mark.slow
def test_cli_tests_pass_under_two_xdist_workers() -> None:
    """The report this file started from: hlo-run tests crashing pytest-xdist workers."""
    pytest.importorskip("xdist")
    environ = {k: v for k, v in os.environ.items() if k not in ("HLOTOOLS_CACHE_DIR", "HLOTOOLS_TESTS_KEEP_CACHE")}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider",
                        str(TESTS / "cli" / "test_run.py")], capture_output=True, text=True, timeout=600,
                       env=environ, cwd=str(ROOT))
    assert r.returncode == 0 and "crashed" not in r.stdout and "node down" not in r.stdout, r.stdout[-3000:]


@pytest.mark.skipif(not CAN_LINK, reason="no C compiler (or not Linux): no shared libraries in the cache")
def test_threads_calling_modules_that_share_one_library(tmp_path: Path) -> None:
    """Warm starts of one module share one dlopened library, so its helper-thread list and lock:
    several Python threads calling those modules at once (each with its own arena)."""
    out = run_child(f"""
        from pathlib import Path
        import hlotools
        from hlotools.backend.llvm.native.cache import CompileCache
        from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
        log = []
        store = CompileCache(Path({str(tmp_path)!r}), log=log.append)
        mods = [compile_cached(hlotools.parse_module(THREADED), CompileOptions(), compile_cache=store,
                               source_text=THREADED) for _ in range(4)]
        assert sum("loaded with dlopen" in line for line in log) == 3, log
        errors = []

        def run(m):
            try:
                for i in range(8):
                    check(m([A, B])[0], WANT, i)
            except BaseException as e:
                errors.append(repr(e))
        threads = [threading.Thread(target=run, args=(m,)) for m in mods[1:] + mods[1:]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        print("ok")
    """, env={"HLOTOOLS_NUM_THREADS": "3"})
    assert out.strip() == "ok"
