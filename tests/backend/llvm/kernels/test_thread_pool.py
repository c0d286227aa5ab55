"""The persistent worker pool behind parallel_for (hlotools/backend/llvm/kernels/thread_pool.py):
every index of [0, n) runs exactly once for any n and thread count, back-to-back calls,
several Python threads at once, a nested call from inside a chunk, join (idle, repeated,
then used again), a forked child, failed pthread_create, idle workers asleep (no CPU), and
the IR for other targets and for a runtime library. Everything that runs generated threaded
code runs in a child process (tests/support/llvm_pool_module.py builds the module), so a crash
fails one test instead of killing the run."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import llvmlite.ir as ir
import pytest

from hlotools.backend.llvm.abi import JOIN_SYMBOL
from hlotools.backend.llvm.kernels import thread_pool
from hlotools.backend.llvm.kernels.parallel_for import THREADS_GLOBAL
from hlotools.backend.llvm.kernels.thread_pool import pool_parallel_for_function
from hlotools.errors import HloUnsupportedError
from tests.support.paths import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="futex, /proc: Linux only")

PRELUDE = f"""
import ctypes, os, sys, threading, time
import numpy as np
sys.path.insert(0, {str(ROOT)!r})
from tests.support.llvm_pool_module import compile_module
pm = compile_module("pool")

def tasks(want=None):
    # threads of this process; with `want`, waits up to 2 s for that many (a joined thread
    # leaves /proc a moment after pthread_join / Thread.join return)
    deadline = time.monotonic() + 2
    while True:
        n = len(os.listdir("/proc/self/task"))
        if want is None or n == want or time.monotonic() > deadline:
            return n
        time.sleep(0.01)

def count(n):
    c = np.zeros(max(n, 1), np.int64)
    pm.run_count(c.ctypes.data, n)
    return c[:n]

def check_once(n, what):
    c = count(n)
    assert len(c) == n and (c == 1).all(), (what, n, np.flatnonzero(c != 1)[:10], c[c != 1][:10])
"""


def run_child(body: str, timeout: float = 120, env: dict[str, str] | None = None) -> str:
    """PRELUDE + body in a fresh interpreter (faulthandler on); its stdout, or a failure
    naming the signal and the child's last stderr lines."""
    r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", PRELUDE + textwrap.dedent(body)],
                       capture_output=True, text=True, timeout=timeout, cwd=str(ROOT),
                       env={**os.environ, **(env or {})})
    how = f"signal {-r.returncode}" if r.returncode < 0 else f"exit {r.returncode}"
    assert r.returncode == 0, f"child died ({how})\n{r.stderr[-3000:]}"
    return r.stdout


@pytest.mark.parametrize("threads", [1, 2, 3, 8])
def test_every_index_runs_exactly_once(threads: int) -> None:
    out = run_child(f"""
        pm.threads.value = {threads}
        base = tasks()
        for n in (0, 1, 2, 7, 1000, 10**6):
            for rep in range(3):
                check_once(n, ("threads", {threads}, rep))
        # workers: min(threads, n) - 1 of them, and they stay
        print(tasks() - base)
    """)
    assert int(out) == threads - 1


def test_ten_thousand_back_to_back_calls_keep_their_workers() -> None:
    out = run_child("""
        pm.threads.value = 2
        c = np.zeros(64, np.int64)
        pm.run_count(c.ctypes.data, 64)
        after_first = tasks()
        for i in range(10_000):
            pm.run_count(c.ctypes.data, 7 if i % 2 else 64)
        want = np.full(64, 1 + 5_000, np.int64)   # the first call, then every even i
        want[:7] += 5_000                           # every odd i
        assert (c == want).all(), (c[:10], want[:10])
        print(tasks() - after_first)
    """)
    assert int(out) == 0  # no thread created after the first call


def test_thread_count_changes_between_calls() -> None:
    run_child("""
        for rep in range(50):
            for t in (8, 1, 3, 2, 8, 5):
                pm.threads.value = t
                check_once(7 * rep + 1, ("threads", t, rep))
        print("ok")
    """)


def test_thread_count_caps_the_workers_that_take_part() -> None:
    """Workers started for 8 threads stay, but a call for 2 (or 3) threads runs on at most 2
    (3) distinct threads (workers above the job's count sit it out)."""
    out = run_child("""
        pm.threads.value = 8
        check_once(1000, "start 7 workers")
        seen = {}
        for t in (2, 3, 8):
            pm.threads.value = t
            who = set()
            for _ in range(10):
                out = np.zeros(2 * 32, np.int64)
                ctx = np.array([out.ctypes.data, 50_000, 0, 0], np.uint64)
                pm.run_stamp(ctx.ctypes.data, 32)
                assert (out[0::2] > 0).all()
                who |= set(out[1::2].tolist())
            seen[t] = len(who)
        print(seen[2], seen[3], seen[8])
    """)
    two, three, eight = map(int, out.split())
    assert 1 <= two <= 2 and 1 <= three <= 3 and 1 <= eight <= 8, out


def test_join_while_other_threads_call() -> None:
    """With one pool per process (the runtime library) a module's release joins it while
    other threads may be calling: calls stay correct, the pool restarts after each join."""
    out = run_child("""
        pm.threads.value = 3
        base = tasks()
        errors = []
        stop = threading.Event()

        def call(k):
            try:
                i = 0
                while not stop.is_set():
                    check_once(1 + (k * 101 + i * 17) % 5000, ("thread", k, i))
                    i += 1
            except BaseException as e:  # noqa: BLE001
                errors.append(repr(e))

        ts = [threading.Thread(target=call, args=(k,)) for k in range(3)]
        for t in ts: t.start()
        for _ in range(50):
            pm.join()
            time.sleep(0.001)
        stop.set()
        for t in ts: t.join()
        assert not errors, errors[:3]
        pm.join()
        print(tasks(want=base) - base)
    """)
    assert int(out) == 0  # every worker (and Python thread) gone at the end


def test_several_python_threads_call_at_once() -> None:
    out = run_child("""
        pm.threads.value = 2
        errors = []

        def call(k):
            try:
                for i in range(300):
                    check_once(1 + (k * 37 + i * 11) % 2000, ("thread", k, i))
            except BaseException as e:  # noqa: BLE001
                errors.append(repr(e))

        ts = [threading.Thread(target=call, args=(k,)) for k in range(4)]
        for t in ts: t.start()
        for t in ts: t.join()
        assert not errors, errors[:3]
        print("ok")
    """)
    assert out.strip() == "ok"


def test_nested_call_from_a_worker() -> None:
    out = run_child("""
        pm.threads.value = 3
        for n, m in ((16, 100), (3, 1000), (1000, 5)):
            outer = np.zeros(n, np.int64)
            inner = np.zeros(m, np.int64)
            ctx = np.array([outer.ctypes.data, inner.ctypes.data, m], np.uint64)
            pm.run_nested(ctx.ctypes.data, n)
            assert (outer == 1).all(), outer
            assert (inner == n).all(), (n, m, inner[:10])
        print("ok")
    """)
    assert out.strip() == "ok"


def test_join_idle_repeated_then_call_again() -> None:
    out = run_child("""
        pm.threads.value = 3
        base = tasks()
        pm.join()                          # before any call: nothing to join
        check_once(1000, "first")
        started = tasks() - base
        pm.join(); pm.join()               # repeated
        joined = tasks(want=base) - base
        check_once(1000, "after join")     # the pool starts again
        again = tasks() - base
        pm.join()
        print(started, joined, again, tasks(want=base) - base)
    """)
    assert out.split() == ["2", "0", "2", "0"]


def test_forked_child_starts_its_own_pool() -> None:
    out = run_child("""
        pm.threads.value = 2
        check_once(1000, "parent before fork")
        pid = os.fork()
        if pid == 0:
            ok = 1
            try:
                for i in range(200):
                    check_once(1 + i * 13, ("child", i))
                ok = 0 if tasks() >= 2 else 3   # the child made a worker of its own
            finally:
                os._exit(ok)
        _, status = os.waitpid(pid, 0)
        check_once(1000, "parent after fork")
        print(os.waitstatus_to_exitcode(status))
    """)
    assert out.strip() == "0"


def test_failed_pthread_create_means_fewer_workers() -> None:
    """An address-space limit below a thread stack: pthread_create fails, the call runs on
    the caller alone (and does not retry every call); after a join the pool grows again."""
    out = run_child("""
        import resource
        pm.threads.value = 8
        base = tasks()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        with open("/proc/self/statm") as f:
            vsize = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        resource.setrlimit(resource.RLIMIT_AS, (vsize + (4 << 20), hard))
        try:
            for rep in range(20):
                check_once(1000, ("limited", rep))
            limited = tasks() - base
        finally:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        check_once(1000, "unlimited, before join")
        still = tasks() - base
        pm.join()
        tasks(want=base)
        check_once(1000, "after join")
        print(limited, still, tasks() - base)
    """)
    limited, still, regrown = map(int, out.split())
    assert limited < 7 and still == limited and regrown == 7


def test_no_futex_number_means_no_workers() -> None:
    """uname() naming a machine without a known SYS_futex (here: the number forced to 0):
    the pool starts no thread and every call runs on the caller, still exactly once."""
    out = run_child("""
        pm = compile_module("pool", edit=('@"hlo.parallel_for.pool.sysno" = internal global i64 -1',
                                          '@"hlo.parallel_for.pool.sysno" = internal global i64 0'))
        pm.threads.value = 4
        base = tasks()
        for n in (1, 7, 1000, 10**5):
            check_once(n, "no futex")
        print(tasks() - base)
    """)
    assert int(out) == 0


def test_idle_workers_sleep() -> None:
    """After a call, the workers spin `hlotools_pool_spin_ns` and then sleep on the futex:
    every worker thread reaches state S (sleeping) and stays there. A spinning worker is in
    state R, so a pool that never stops spinning fails. (How much CPU the spin costs, and how
    soon a worker joins the next call, are figures for tests/support/llvm_pool_bench.py: a clock
    bound here would depend on the machine's load.)"""
    out = run_child("""
        def states():
            me = threading.get_native_id()
            found = []
            for tid in os.listdir("/proc/self/task"):
                if int(tid) != me:
                    with open(f"/proc/self/task/{tid}/stat") as f:
                        found.append(f.read().rsplit(")", 1)[1].split()[0])
            return found

        def all_asleep(deadline_s):
            end = time.monotonic() + deadline_s
            while time.monotonic() < end:
                found = states()
                if found and all(s == "S" for s in found):
                    return True
                time.sleep(0.01)
            return False

        pm.threads.value = 3
        for spin_ns in (50_000, 0, 2_000_000):
            pm.spin_ns.value = spin_ns
            check_once(1000, spin_ns)
            asleep = all_asleep(10)
            stays = asleep and all(all_asleep(0.05) for _ in range(5))
            print(spin_ns, len(states()), int(asleep), int(stays))
    """)
    rows = [tuple(map(int, line.split())) for line in out.splitlines()]
    assert [r[0] for r in rows] == [50_000, 0, 2_000_000], out
    assert all(r[1] >= 2 and r[2] == 1 and r[3] == 1 for r in rows), out  # the 2 workers (and any other thread) asleep, staying so


# ----------------------------------------------------------------------------- the IR itself

def _module(triple: str | None = None) -> ir.Module:
    m = ir.Module("m")
    if triple is not None:
        m.triple = triple
    return m


def _emit_assembly(m: ir.Module, triple: str) -> str:
    """Assembly for `triple` of a module holding the pool (an exported caller keeps it)."""
    from hlotools.backend.llvm.native import jit
    user = ir.Function(m, ir.FunctionType(ir.VoidType(), [ir.PointerType(), ir.PointerType(), ir.IntType(64)]),
                       "user")
    b = ir.IRBuilder(user.append_basic_block("entry"))
    b.call(m.globals["hlo.parallel_for"], list(user.args))
    b.ret_void()
    m.triple = triple
    return jit.emit_assembly(str(m), jit.target_machine_for(triple, "generic"))


@pytest.mark.parametrize("triple,number", [("x86_64-unknown-linux-gnu", 202), ("aarch64-unknown-linux-gnu", 98)])
def test_futex_number_follows_the_triple(triple: str, number: int) -> None:
    m = _module(triple)
    pool_parallel_for_function(m)
    text = str(m)
    assert f'@"hlo.parallel_for.pool.sysno" = internal global i64 {number}' in text
    assert ("llvm.x86.sse2.pause" in text) == (number == 202)
    assert ("llvm.aarch64.hint" in text) == (number == 98)
    asm = _emit_assembly(m, triple)
    assert ("\tpause" in asm) == (number == 202) and ("\tyield" in asm) == (number == 98)


@pytest.mark.parametrize("triple", ["aarch64-unknown-linux-gnu", "x86_64-unknown-linux-gnu",
                                    "riscv64-unknown-linux-gnu"])
def test_no_triple_while_emitted_asks_uname_at_run_time(triple: str) -> None:
    """The JIT's modules and AOT's (aot.py sets the triple after codegen) have no triple while
    the pool is emitted: no target intrinsic and no fixed syscall number, so the object is
    right for whatever target it is compiled for (the number comes from uname())."""
    from hlotools.backend.llvm.native import jit
    try:
        jit.target_machine_checked(triple, "", "")
    except ValueError:
        pytest.skip(f"LLVM was built without {triple}")
    m = _module()
    assert thread_pool.futex_syscall_number(m) == -1  # the host (x86_64 or aarch64) has a pool
    pool_parallel_for_function(m)
    text = str(m)
    assert '@"hlo.parallel_for.pool.sysno" = internal global i64 -1' in text
    assert "llvm.x86" not in text and "llvm.aarch64" not in text
    asm = _emit_assembly(m, triple)
    assert "uname" in asm and "syscall" in asm


def test_unknown_architecture_falls_back_to_thread_per_call() -> None:
    m = _module("powerpc64le-unknown-linux-gnu")
    pf = pool_parallel_for_function(m)
    assert pf.name == "hlo.parallel_for" and "syscall" not in str(m) and "pthread_create" in str(m)
    with pytest.raises(HloUnsupportedError, match="futex"):
        pool_parallel_for_function(_module("powerpc64le-unknown-linux-gnu"), "other.parallel_for")


def test_linkage_for_modules_and_for_a_runtime_library() -> None:
    m = _module()
    pf = pool_parallel_for_function(m)
    assert pf.linkage == "internal" and m.globals[JOIN_SYMBOL].linkage == "weak"
    assert m.globals[THREADS_GLOBAL].linkage == "weak"
    assert pool_parallel_for_function(m) is pf  # once per module
    r = _module()
    pf = pool_parallel_for_function(r, export=True)
    assert pf.linkage == "" and r.globals[JOIN_SYMBOL].linkage == "" and r.globals[THREADS_GLOBAL].linkage == ""
    assert m.globals[thread_pool.SPIN_GLOBAL].linkage == "weak"
    assert r.globals[thread_pool.SPIN_GLOBAL].linkage == "internal"  # exports: kernels/parallel_for.py's three


def test_two_pools_in_one_module_share_the_join() -> None:
    from hlotools.backend.llvm.native import jit
    m = _module()
    pool_parallel_for_function(m, "a.parallel_for")
    pool_parallel_for_function(m, "b.parallel_for")
    join = m.globals[JOIN_SYMBOL]
    calls = [str(i) for blk in join.blocks for i in blk.instructions if isinstance(i, ir.CallInstr)]
    assert any("a.parallel_for.pool.join" in c for c in calls) and any("b.parallel_for.pool.join" in c for c in calls)
    jit.parse_ir(str(m))  # verifies


def test_the_backend_runs_on_the_pool() -> None:
    """The LLVM backend's parallel_for is the pool (the runtime library's and AOT's
    definition): threaded elementwise loops and a threaded GEMM give numpy's results, calls
    from several Python threads too, and the pool is what ran them."""
    out = run_child("""
        from hlotools import parse_module
        from hlotools.backend.llvm.driver.runtime import CompiledModule
        EW = '''HloModule ew
        ENTRY main {
          a = f32[1024,512] parameter(0)
          b = f32[1024,512] parameter(1)
          m = f32[1024,512] multiply(a, b)
          e = f32[1024,512] exponential(m)
          ROOT r = f32[1024,512] add(e, a)
        }'''
        DOT = '''HloModule dot
        ENTRY main {
          a = f32[320,320] parameter(0)
          b = f32[320,320] parameter(1)
          ROOT d = f32[320,320] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
        }'''
        rng = np.random.default_rng(0)
        A = rng.standard_normal((1024, 512)).astype(np.float32) * 0.5
        B = rng.standard_normal((1024, 512)).astype(np.float32) * 0.5
        D = rng.standard_normal((320, 320)).astype(np.float32)
        base = tasks()
        ew, dot = CompiledModule(parse_module(EW)), CompiledModule(parse_module(DOT))
        want_ew = np.exp(A.astype(np.float64) * B) + A
        want_dot = D.astype(np.float64) @ D
        errors = []

        def calls(k):
            try:
                for i in range(5):
                    assert np.allclose(ew([A, B])[0], want_ew, rtol=1e-4, atol=1e-4), ("ew", k, i)
                    assert np.allclose(dot([D, D])[0], want_dot, rtol=1e-3, atol=1e-3), ("dot", k, i)
            except BaseException as e:  # noqa: BLE001
                errors.append(repr(e))
        calls(-1)
        ts = [threading.Thread(target=calls, args=(k,)) for k in range(3)]
        for t in ts: t.start()
        for t in ts: t.join()
        assert not errors, errors[:3]
        time.sleep(0.05)
        print(tasks(want=base + 1) - base)
    """, env={"HLOTOOLS_NUM_THREADS": "2"})
    # the pool's worker stays (kernels/parallel_for.py's helper threads end with their call)
    assert int(out) == 1, f"{out.strip()} threads more than before the first call, expected the 1 worker"
