"""jit.py's driver: code goes through the host target machine's object emission and
load_object (no MCJIT code generation), the object handed to the compile cache is the one
that runs, and a symbol the process lacks is an error, never an abort of the process."""
from __future__ import annotations

import ctypes

import pytest

from hlotools.backend.llvm.native import jit
from hlotools.errors import HloUnsupportedError

ADD_ONE = """
define void @hlo_entry(ptr %arena, ptr %params, ptr %outs) {
  %v = load i64, ptr %arena
  %w = add i64 %v, 1
  store i64 %w, ptr %arena
  ret void
}
"""


def _run(jm: jit.JitModule, value: int) -> int:
    cell = ctypes.c_int64(value)
    jit.CFUNC_ENTRY(jm.address("hlo_entry"))(ctypes.addressof(cell), None, None)
    return cell.value


def test_the_object_given_to_the_cache_is_the_code_that_runs() -> None:
    objects: list[bytes] = []
    jm, optimised = jit.compile_ir(ADD_ONE, 3, objects.append)
    assert _run(jm, 41) == 42
    (obj,) = objects
    assert obj[:4] == b"\x7fELF"
    assert jit.host_target_machine().emit_object(optimised) == obj  # the optimised module is still whole
    assert "define void @hlo_entry" in str(optimised)
    again = jit.load_object(obj)
    assert _run(again, 1) == 2 and _run(jm, 7) == 8  # two engines, each its own copy


def test_every_engine_finalises_without_code_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    """load_object removes the empty module MCJIT is created with before finalize_object, which
    would otherwise run the code generator on it."""
    import llvmlite.binding as llvm
    removed: list[object] = []
    real_remove = llvm.ExecutionEngine.remove_module

    def recording_remove(self: llvm.ExecutionEngine, module: llvm.ModuleRef) -> None:
        removed.append(module)
        real_remove(self, module)
    monkeypatch.setattr(llvm.ExecutionEngine, "remove_module", recording_remove)
    jm, _ = jit.compile_ir(ADD_ONE)
    assert removed == [jm.module] and _run(jm, 0) == 1


def test_a_symbol_the_process_lacks_is_an_error() -> None:
    text = """
declare void @hlotools_no_such_function(ptr)
define void @hlo_entry(ptr %arena, ptr %params, ptr %outs) {
  call void @hlotools_no_such_function(ptr %arena)
  ret void
}
"""
    with pytest.raises(HloUnsupportedError, match="hlotools_no_such_function"):
        jit.compile_ir(text)


def test_libm_calls_of_intrinsics_resolve() -> None:
    """Intrinsics the code generator turns into libm calls (exp) resolve through the libraries
    loaded at initialisation."""
    text = """
declare double @llvm.exp.f64(double)
define void @hlo_entry(ptr %arena, ptr %params, ptr %outs) {
  %x = load double, ptr %arena
  %y = call double @llvm.exp.f64(double %x)
  store double %y, ptr %arena
  ret void
}
"""
    jm, _ = jit.compile_ir(text, 0)
    cell = ctypes.c_double(1.0)
    jit.CFUNC_ENTRY(jm.address("hlo_entry"))(ctypes.addressof(cell), None, None)
    assert abs(cell.value - 2.718281828459045) < 1e-12


@pytest.mark.parametrize("threads", [1, 2])
def test_object_pools_count_what_they_compiled_for_a_progress_line(threads: int) -> None:
    assert jit.compile_progress() is None  # no compile under way
    with jit.ObjectPool(threads) as pool:
        pool.submit("a", ADD_ONE, 2, False)
        pool.submit("b", ADD_ONE, 2, False)
        done = pool.results()
        assert set(done) == {"a", "b"} and all(isinstance(o, bytes) for o in done.values())
        assert jit.compile_progress() == (2, 2)
    assert jit.compile_progress() is None
