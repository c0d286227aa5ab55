"""Modules without loops (their work is all in the runtime library's kernels: the entry only
fills descriptors and calls) are compiled at LLVM level 0 (runtime.llvm_level): the same
results, bit for bit, as at O3; modules with a loop (or too much straight-line code) keep the
requested level."""
from __future__ import annotations

from typing import Any

import llvmlite.ir as ir
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.codegen.module import straight_line_instructions
from hlotools.backend.llvm.driver import runtime
from hlotools.backend.llvm.driver.pipeline import optimise_module
from hlotools.backend.llvm.driver.runtime import CompiledModule
from tests.support.helpers import scalar_computation

CONV = """HloModule conv
ENTRY main {
  x = f32[2,16,16,8] parameter(0)
  k = f32[3,3,8,16] parameter(1)
  ROOT c = f32[2,16,16,16] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}
"""
POOL = "HloModule pool\n" + scalar_computation("max", "maximum") + """ENTRY main {
  x = f32[2,16,16,8] parameter(0)
  i = f32[] constant(-inf)
  ROOT r = f32[2,8,8,8] reduce-window(x, i), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=max
}
"""
LOOP = """HloModule loop
ENTRY main {
  a = f32[1024] parameter(0)
  ROOT r = f32[1024] multiply(a, a)
}
"""
# The loop only in a called computation's function (no passes: the call stays a call).
CALLED_LOOP = """HloModule called
square {
  a = f32[1024] parameter(0)
  ROOT r = f32[1024] multiply(a, a)
}
ENTRY main {
  x = f32[1024] parameter(0)
  ROOT c = f32[1024] call(x), to_apply=square
}
"""
# A while whose condition and body are straight-line code: the loop is the while's own.
WHILE = """HloModule counter
cond {
  s = s32[] parameter(0)
  n = s32[] constant(10)
  ROOT lt = pred[] compare(s, n), direction=LT
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(s, one)
}
ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
"""


def _function(module: ir.Module, name: str) -> tuple[ir.Function, ir.IRBuilder]:
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.IntType(1)]), name)
    return fn, ir.IRBuilder(fn.append_basic_block("entry"))


def test_straight_line_instructions_counts_only_loop_free_modules() -> None:
    module = ir.Module("m")
    fn, b = _function(module, "forward")
    then, done = fn.append_basic_block("then"), fn.append_basic_block("done")
    b.cbranch(fn.args[0], then, done)
    b.position_at_end(then)
    b.branch(done)
    b.position_at_end(done)
    b.ret_void()
    ir.Function(module, ir.FunctionType(ir.VoidType(), []), "declared")  # no body: not counted
    assert straight_line_instructions(module) == 3
    fn, b = _function(module, "loop")
    body = fn.append_basic_block("body")
    exit_ = fn.append_basic_block("exit")
    b.branch(body)
    b.position_at_end(body)
    b.cbranch(fn.args[0], body, exit_)  # to itself: a loop
    b.position_at_end(exit_)
    b.ret_void()
    assert straight_line_instructions(module) is None


def test_a_switch_back_to_an_earlier_block_is_a_loop() -> None:
    module = ir.Module("m")
    fn, b = _function(module, "switch")
    head, tail, end = fn.append_basic_block("head"), fn.append_basic_block("tail"), fn.append_basic_block("end")
    b.branch(head)
    b.position_at_end(head)
    b.branch(tail)
    b.position_at_end(end)
    b.ret_void()
    b.position_at_end(tail)
    sw = b.switch(b.zext(fn.args[0], ir.IntType(32)), end)
    assert straight_line_instructions(module) == 5  # the default goes forward
    sw.add_case(1, head)  # a case goes back
    assert straight_line_instructions(module) is None


def test_a_switch_whose_default_goes_back_is_a_loop() -> None:
    """llvmlite keeps a switch's default aside from its operands."""
    module = ir.Module("m")
    fn, b = _function(module, "switch")
    head, end = fn.append_basic_block("head"), fn.append_basic_block("end")
    b.branch(head)
    b.position_at_end(end)
    b.ret_void()
    b.position_at_end(head)
    sw = b.switch(b.zext(fn.args[0], ir.IntType(32)), head)  # the default: back to its own block
    sw.add_case(1, end)
    assert straight_line_instructions(module) is None


def _compiled(text: str, force: int | None = None, monkeypatch: pytest.MonkeyPatch | None = None,
              **kw: Any) -> CompiledModule:
    if force is not None and monkeypatch is not None:
        monkeypatch.setattr(runtime, "llvm_level", lambda ir_module, level: force)
    return CompiledModule(optimise_module(hlotools.parse_module(text)), **kw)


@pytest.mark.parametrize("text", [CONV, POOL], ids=["convolution", "reduce-window"])
def test_a_module_whose_loops_are_all_in_the_runtime_library_is_compiled_at_level_0(
        text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Convolution (pack, im2col, GEMM) and reduce-window (its kernel forced: the speed rule
    keeps small pools in a loop) run runtime-library kernels only."""
    from hlotools.backend.llvm.lower.reduce_window import kernel_mode
    rng = np.random.default_rng(0)
    module = hlotools.parse_module(text)
    assert module.entry is not None
    args = [rng.standard_normal(p.shape.dims).astype(np.float32) for p in module.entry.parameters]
    with kernel_mode("always"):
        fast = _compiled(text)
    assert fast.llvm_level == 0
    got = fast(args)[0]
    np.testing.assert_allclose(got, evaluate(module, args)[0], rtol=1e-4, atol=1e-4)
    with kernel_mode("always"):
        full = _compiled(text, 3, monkeypatch)
    assert full.llvm_level == 3
    assert np.array_equal(full(args)[0], got)  # the same kernels do the work: bit for bit


def test_a_module_with_a_loop_keeps_its_level() -> None:
    compiled = _compiled(LOOP)
    assert compiled.llvm_level == 3
    assert _compiled(LOOP, opt_level=2).llvm_level == 2
    assert _compiled(CONV, opt_level=0).llvm_level == 0
    a = np.linspace(-2, 2, 1024, dtype=np.float32)
    np.testing.assert_array_equal(compiled([a])[0], a * a)


def test_the_size_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "STRAIGHT_LINE_MAX_INSTRUCTIONS", 5)
    assert _compiled(CONV).llvm_level == 3


def test_a_loop_in_a_called_function_or_a_while_keeps_the_level() -> None:
    """Every function the module defines counts, not only the entry: a call's loop is in the
    callee's function, a while's back edge in its caller's."""
    called = CompiledModule(hlotools.parse_module(CALLED_LOOP))
    assert called.llvm_ir.count("define ") >= 2  # the callee is a function of its own
    assert called.llvm_level == 3
    a = np.linspace(-2, 2, 1024, dtype=np.float32)
    np.testing.assert_array_equal(called([a])[0], a * a)
    counter = CompiledModule(hlotools.parse_module(WHILE))
    assert counter.llvm_level == 3
    assert int(counter([np.int32(3)])[0]) == 10


def test_a_module_loaded_from_its_object_says_it_was_not_compiled_here() -> None:
    compiled = CompiledModule(hlotools.parse_module(LOOP), keep_object=True)
    assert compiled.llvm_level == 3 and compiled.object_code is not None
    loaded = CompiledModule.from_object(compiled.object_code, compiled.stats, compiled.param_leaves,
                                        compiled.result_leaves, runtime_groups=list(compiled.runtime_groups))
    assert loaded.llvm_level is None
    a = np.linspace(-2, 2, 1024, dtype=np.float32)
    np.testing.assert_array_equal(loaded([a])[0], a * a)
