"""hlo-run with the LLVM backend as users meet it: the default backend and its fallback to the
interpreter, --repeat's compile phases (cold, cached), --compare's largest differences, and
the warm start that dlopens a cached shared library without importing llvmlite."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner, Result

from hlotools.backend.llvm import abi
from hlotools.backend.llvm.kernels import library as runtime_library
from hlotools.backend.llvm.native import host, shared_library
from hlotools.backend.llvm.native.objfile import read_objects
from hlotools.cli import backends
from hlotools.cli.difference import largest_difference
from hlotools.cli.run import main
from tests.support.paths import ROOT

MODELS = ROOT / "testdata" / "models"
MLP = MODELS / "mlp2_relu.hlo"
MLP_IN = MODELS / "mlp2_relu.inputs.npz"
MLP_OUT = MODELS / "mlp2_relu.expected.npz"
PLAIN = {"FORCE_COLOR": None, "TTY_COMPATIBLE": None}
# ragged-dot stays refused by the LLVM backend (lower/unsupported.py); the interpreter runs it
# (one group of 4 rows times 1: x itself).
REFUSED = """HloModule rd

ENTRY main {
  x = f32[4] parameter(0)
  a = f32[4,1] reshape(x)
  b = f32[1,1,1] constant({ { {1} } })
  g = s32[1] constant({4})
  c = f32[4,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
  ROOT r = f32[4] reshape(c)
}
"""
CAN_LINK = shared_library.enabled() and shared_library.c_compiler() is not None
COLD = {"parse", "load", "cache", "passes", "codegen", "llvm", "run"} | ({"link"} if CAN_LINK else set())
NO_CACHE = {"parse", "passes", "codegen", "llvm", "run"}
WARM = {"parse", "cache-load", "run"}


def invoke(args: list[object], input: str | None = None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], input=input, env=PLAIN)


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A compile cache of the test's own, so the first run is cold and the second warm."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("HLOTOOLS_CACHE_DIR", str(folder))
    return folder


def test_default_backend_is_llvm() -> None:
    r = invoke([MLP, "--inputs", MLP_IN, "--expected", MLP_OUT, "--json"])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["backend"] == "llvm" and doc["match"] is True and "fallback" not in doc
    assert r.stderr == ""


def test_help_documents_the_default_and_the_fallback() -> None:
    text = " ".join(invoke(["--help"]).stdout.split())
    assert "llvm (native code; the default)" in text
    assert "runs on the interpreter, with a note on stderr (-v says why)" in text
    assert "with --backend=llvm that refusal is an error (exit 1)" in text
    assert "now the interpreter" not in text


def test_refused_module_falls_back_to_the_interpreter_with_a_note(tmp_path: Path) -> None:
    model = tmp_path / "ar.hlo"
    model.write_text(REFUSED)
    np.save(tmp_path / "x.npy", np.array([1, 2, 3, 4], np.float32))
    r = invoke([model, "--inputs", tmp_path / "x.npy", "--json"])
    assert r.exit_code == 0, r.output
    assert r.stderr == ("note: the LLVM backend cannot compile this module; ran it on the interpreter "
                        "(-v says why)\n")
    doc = json.loads(r.stdout)
    assert doc["backend"] == "interp" and doc["outputs"][0]["max"] == 4
    assert doc["fallback"]["reason"].startswith(f"{model}:8:")
    verbose = invoke([model, "--inputs", tmp_path / "x.npy", "-v"])
    assert verbose.exit_code == 0
    (note,) = [line for line in verbose.stderr.splitlines() if line.startswith("note:")]
    assert f"({model}:8:" in note and "ragged-dot %c is not supported by the LLVM backend" in note


def test_explicit_llvm_reports_the_refusal(tmp_path: Path) -> None:
    model = tmp_path / "ar.hlo"
    model.write_text(REFUSED)
    for extra in (["--backend=llvm"], ["--compare"]):  # --compare needs LLVM's own answer too
        r = invoke([model, "--random", "0", *extra])
        assert r.exit_code == 1, (extra, r.output)
        first = r.stderr.splitlines()[0]
        assert first.startswith(f"{model}:8:") and "not supported by the LLVM backend" in first
        assert "note:" not in r.stderr and r.stdout == ""


def test_refusal_of_the_fallback_itself_is_the_interpreters_error(tmp_path: Path) -> None:
    """Both refuse (an elided constant): the user sees the interpreter's error, not the note."""
    model = tmp_path / "e.hlo"
    model.write_text("HloModule e\n\nENTRY main {\n  p = f32[3] parameter(0)\n  c = f32[3] constant({...})\n"
                     "  ROOT r = f32[3] add(p, c)\n}\n")
    r = invoke([model, "--random", "0"])
    assert r.exit_code == 1 and r.stderr.startswith(f"{model}:5:") and "note:" not in r.stderr


def test_repeat_json_says_cold_then_cached(cache_dir: Path) -> None:
    args = [MLP, "--inputs", MLP_IN, "--repeat", "3", "--json"]
    cold = json.loads(invoke(args).stdout)
    target = cold["compile"].pop("target")  # the CPU and features the code was made for
    assert set(target) == {"cpu", "features"} and target["cpu"]
    assert cold["compile"] == {"cache": "miss", "cold": True, "loader": None}
    assert set(cold["timings"]) == COLD
    assert cold["timings"]["parse"]["runs"] == 3 and cold["timings"]["run"]["runs"] == 3
    assert all(cold["timings"][p]["runs"] == 1 and cold["timings"][p]["min_ms"] > 0
               for p in COLD - {"parse", "run"})  # once per process
    warm = json.loads(invoke(args).stdout)
    assert warm["compile"].pop("target") == target
    assert warm["compile"] == {"cache": "hit", "cold": False,
                               "loader": "shared-library" if CAN_LINK else "jit"}
    assert set(warm["timings"]) == WARM and warm["timings"]["cache-load"]["runs"] == 1
    off = json.loads(invoke(args + ["--no-cache"]).stdout)
    assert off["compile"]["cache"] == "off" and set(off["timings"]) == NO_CACHE


def test_repeat_table_names_every_phase(cache_dir: Path) -> None:
    cold = invoke([MLP, "--random", "0", "--repeat", "2"]).stdout.splitlines()
    at = cold.index("compile: cold (compile cache miss: passes, codegen and LLVM ran; the result is stored)")
    phases = [line.split(":")[0] for line in cold[at + 1:]]
    assert phases == ["time parse", "time load", "time cache", "time passes", "time codegen", "time llvm"] + \
        (["time link"] if CAN_LINK else []) + ["time run"]
    assert cold[-1].endswith("(2 runs)") and cold[at + 3].endswith("(1 run)")
    warm = invoke([MLP, "--random", "0", "--repeat", "2"]).stdout.splitlines()
    assert any(line.startswith("compile: cached (compile cache hit, machine code loaded") for line in warm)
    assert [line.split(":")[0] for line in warm if line.startswith("time ")] == \
        ["time parse", "time cache-load", "time run"]


def test_compare_match_reports_the_largest_differences() -> None:
    r = invoke([MLP, "--inputs", MLP_IN, "--compare", "--json"])
    assert r.exit_code == 0, r.output
    (cmp,) = json.loads(r.stdout)["comparisons"]
    assert cmp["ok"] and cmp["name"] == "out0 (llvm vs interp)"
    largest = cmp["largest_difference"]
    assert 0 <= largest["abs"]["value"] < 1e-4 and len(largest["abs"]["index"]) == 2
    assert 0 <= largest["rel"]["value"] < 1e-3 and len(largest["rel"]["index"]) == 2
    text = invoke([MLP, "--inputs", MLP_IN, "--compare"]).stdout
    assert "out0 (llvm vs interp): match (2048 elements, rtol=0.0001, atol=1e-05" in text
    assert "; largest difference: abs " in text


def test_compare_mismatch_exits_3_and_names_the_element(monkeypatch: pytest.MonkeyPatch) -> None:
    real = backends.BACKENDS["interp"]

    def skewed(module: object) -> backends.Runner:
        run = real.compile(module)  # type: ignore[arg-type]

        def shifted(args: list) -> list[np.ndarray]:
            (out,) = run(args)
            out = out.copy()
            out[3, 7] += 1
            return [out]
        return shifted

    monkeypatch.setitem(backends.BACKENDS, "interp", backends.Backend("interp", "skewed", skewed, compiles=False))
    r = invoke([MLP, "--inputs", MLP_IN, "--compare", "--json"])
    assert r.exit_code == 3, r.output
    (cmp,) = json.loads(r.stdout)["comparisons"]
    assert not cmp["ok"] and cmp["mismatches"] == 1 and cmp["worst_index"] == [3, 7]
    assert cmp["largest_difference"]["abs"]["index"] == [3, 7]
    assert cmp["largest_difference"]["abs"]["value"] == pytest.approx(1, rel=1e-4)
    text = invoke([MLP, "--inputs", MLP_IN, "--compare"])
    assert text.exit_code == 3 and "MISMATCH: 1 of 2048 elements differ" in text.stdout
    assert "largest difference: abs 1 at [3,7]" in text.stdout


def test_largest_difference_counts_nan_and_infinities_sensibly() -> None:
    a = np.array([[1.0, np.nan, np.inf], [0.0, 2.0, 5.0]], np.float32)
    r = np.array([[1.0, np.nan, np.inf], [1e-3, 0.0, 4.0]], np.float32)
    d = largest_difference(a, r)
    assert d.absolute is not None and d.relative is not None
    assert d.absolute.index == (1, 1) and d.absolute.value == 2.0
    assert d.relative.index == (1, 1) and d.relative.value == float("inf")  # 2 against 0
    assert largest_difference(np.zeros(0), np.zeros(0)).text() == "no elements"
    same = largest_difference(np.array([1, 2], np.int32), np.array([1, 2], np.int32))
    assert same.absolute is not None and same.absolute.value == 0


def test_join_symbol_is_the_one_parallel_emits() -> None:
    from hlotools.backend.llvm.kernels import library as runtime_library
    text = runtime_library.build_ir(runtime_library.PARALLEL)
    assert f'define void @"{abi.JOIN_SYMBOL}"()' in text and f'@"{abi.PARALLEL_FOR}"(' in text


def test_host_environment_is_remembered_per_fingerprint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if host.host_fingerprint() is None:
        pytest.skip("no /proc/cpuinfo: the LLVM answer is not kept")
    first = host.llvm_environment(tmp_path)
    assert set(first) == set(host.FIELDS)
    (kept,) = (tmp_path / "llvm" / "host").glob("*.json")

    def forbidden() -> dict[str, str]:
        raise AssertionError("a known host must not ask LLVM")
    with monkeypatch.context() as m:
        m.setattr(host, "ask_llvm", forbidden)
        assert host.llvm_environment(tmp_path) == first
    kept.write_text('{"fingerprint": "other"}')  # wrong or damaged: asked again and rewritten
    assert host.llvm_environment(tmp_path) == first
    assert json.loads(kept.read_text())["fingerprint"] == host.host_fingerprint()


WARM_SCRIPT = """
import sys
from hlotools.cli.run import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    print("LLVMLITE", "llvmlite" in sys.modules, file=sys.stderr)
"""


def _run_fresh(cache: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    environ.update({"HLOTOOLS_CACHE_DIR": str(cache), **env})
    return subprocess.run([sys.executable, "-c", WARM_SCRIPT, *args], capture_output=True, text=True,
                          env=environ, timeout=300)


def _cold_then_warm(cache: Path, args: list[str], between: object = None,
                    **env: str) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    """A cold run, `between(cache)`, then a warm run. The keys include the backend's source
    fingerprint, so in a tree that others edit at the same moment a warm run may miss: then
    the pair is tried again (three times at most)."""
    for _ in range(3):
        cold = _run_fresh(cache, *args)
        assert cold.returncode == 0, cold.stderr
        if callable(between):
            between(cache)
        warm = _run_fresh(cache, *args, **env)
        if "compile cache: hit" in warm.stderr:
            break
    return cold, warm


@pytest.mark.skipif(not CAN_LINK, reason="no C compiler (or not Linux): warm starts load objects into MCJIT")
def test_warm_start_dlopens_without_importing_llvmlite(tmp_path: Path) -> None:
    args = [str(MLP), "--inputs", str(MLP_IN), "--expected", str(MLP_OUT), "-v"]
    cold, warm = _cold_then_warm(tmp_path, args)
    assert "LLVMLITE True" in cold.stderr and "compiled (" in cold.stderr and "linked" in cold.stderr
    assert list((tmp_path / "llvm").glob("*/*.so"))
    assert warm.returncode == 0, warm.stderr
    assert "out0: match (2048 elements" in warm.stdout
    assert "loaded with dlopen" in warm.stderr and "LLVMLITE False" in warm.stderr


def _truncate_libraries(cache: Path) -> None:
    for library in (cache / "llvm").glob("*/*.so"):  # the entries' checksums now disagree
        library.write_bytes(library.read_bytes()[:-100])


@pytest.mark.skipif(not CAN_LINK, reason="no C compiler (or not Linux): no shared libraries in the cache")
def test_damaged_shared_library_is_not_trusted(tmp_path: Path) -> None:
    args = [str(MLP), "--inputs", str(MLP_IN), "--expected", str(MLP_OUT), "-v"]
    _, warm = _cold_then_warm(tmp_path, args, _truncate_libraries)
    assert warm.returncode == 0, warm.stderr
    assert "out0: match (2048 elements" in warm.stdout
    assert "not used: the library file is not the one the entry describes" in warm.stderr
    assert "loaded with MCJIT" in warm.stderr
    # The switch keeps the same key: a hit, through MCJIT.
    _, off = _cold_then_warm(tmp_path / "off", args, HLOTOOLS_CACHE_DLOPEN="0")
    assert off.returncode == 0 and "hit" in off.stderr and "loaded with MCJIT" in off.stderr


def _object_code() -> bytes:
    import hlotools
    from hlotools.backend.llvm.driver.runtime import CompiledModule
    module = hlotools.parse_module(MLP.read_text())
    code = CompiledModule(module, keep_object=True).object_code
    assert code is not None
    return code


@pytest.mark.skipif(not CAN_LINK, reason="no C compiler (or not Linux)")
def test_linking_is_deterministic(tmp_path: Path) -> None:
    """Two writers of one entry link the same bytes, so neither makes the other's checksum wrong."""
    code = _object_code()
    said: list[str] = []
    runtime = runtime_library.objects(runtime_library.groups_of_symbols(read_objects(code).undefined))
    first = shared_library.link(code, tmp_path / "a.entry", said.append, runtime)
    second = shared_library.link(code, tmp_path / "b.entry", said.append, runtime)
    assert first is not None and second is not None and not said
    assert first.sha256 == second.sha256 and first.size == second.size > 0
    assert first.install(tmp_path / "a.so") and (tmp_path / "a.so").stat().st_size == first.size
    library = shared_library.load(tmp_path / "a.so", first.record())
    assert library.address(abi.ENTRY_NAME) != 0
    second.discard()
    assert not list(tmp_path.glob("*.tmp"))


def test_without_a_c_compiler_the_cache_keeps_only_the_object(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    assert shared_library.link(b"\x7fELF", tmp_path / "x.entry", print, []) is None
    with pytest.raises(shared_library.Unusable, match="describes no library"):
        shared_library.load(tmp_path / "x.so", None)
