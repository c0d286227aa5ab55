"""Kernels (codegen/kernels.py): identical layers share one kernel, whatever order their
fusions number their operands in; a kernel's object is cached on its own and found again by
another module; in-place updates, parameters and constants reach the kernel through its slots;
code that reaches past its slots stays inline; results are the interpreter's bit for bit, with
and without kernels, compiled on one thread or several."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
from hlotools.backend.llvm.driver.runtime import CompiledModule
from hlotools.backend.llvm.kernels import gemm as gemm_kernel
from hlotools.backend.llvm.native import cache, jit
from hlotools.backend.llvm.native.cache import CompileCache


@pytest.fixture(autouse=True)
def no_background_work_left() -> Iterator[None]:
    yield
    assert cache.wait_for_all_links(60)


def _layers(n: int, swap: bool = False) -> str:
    """n identical layers h = tanh(h * w_k + b) @ v_k; `swap` writes every other layer's fused
    computation with its parameters numbered the other way round."""
    lines = ["HloModule layers"]
    for k in range(n):
        a, b = (1, 0) if swap and k % 2 else (0, 1)
        lines += [f"fused.{k} {{",
                  f"  x = f32[16,32]{{1,0}} parameter({a})",
                  f"  w = f32[16,32]{{1,0}} parameter({b})",
                  "  m = f32[16,32]{1,0} multiply(x, w)",
                  "  c = f32[] constant(0.5)",
                  "  cb = f32[16,32]{1,0} broadcast(c), dimensions={}",
                  "  s = f32[16,32]{1,0} add(m, cb)",
                  "  ROOT t = f32[16,32]{1,0} tanh(s)",
                  "}"]
    # h0 is computed: every layer then reads one caller parameter (its weights) and arena
    # buffers; two caller parameters may be the same memory, which would make a kernel of its own
    lines += ["ENTRY e {", "  p = f32[16,32]{1,0} parameter(0)", "  h0 = f32[16,32]{1,0} negate(p)"]
    for k in range(n):
        lines += [f"  w{k} = f32[16,32]{{1,0}} parameter({2 * k + 1})",
                  f"  v{k} = f32[32,32]{{1,0}} parameter({2 * k + 2})"]
        a, b = (f"w{k}", f"h{k}") if swap and k % 2 else (f"h{k}", f"w{k}")
        lines += [f"  f{k} = f32[16,32]{{1,0}} fusion({a}, {b}), kind=kLoop, calls=fused.{k}",
                  f"  h{k + 1} = f32[16,32]{{1,0}} dot(f{k}, v{k}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}"]
    lines += [f"  ROOT r = f32[16,32]{{1,0}} copy(h{n})", "}"]
    return "\n".join(lines)


def _args(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(n)
    out = [rng.standard_normal((16, 32)).astype(np.float32)]
    for _ in range(n):
        out += [rng.standard_normal((16, 32)).astype(np.float32),
                (rng.standard_normal((32, 32)) / 6).astype(np.float32)]
    return out


def _check(compiled: Any, text: str, args: list[np.ndarray]) -> None:
    """The interpreter's bits where the target has FMA (each k step rounded once, as the
    interpreter's dot); without it (x86-64-v2, an old CPU) the dot's unfused steps round twice,
    so the last bits may differ: then within the dot tolerance."""
    want = evaluate(hlotools.parse_module(text), args)
    fused = gemm_kernel.has_fma(jit.target_description().features)
    for got, w in zip(compiled(args), want):
        if fused:
            assert np.asarray(got).tobytes() == np.asarray(w).tobytes()
        else:
            np.testing.assert_allclose(np.asarray(got), np.asarray(w), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("swap", [False, True])
def test_identical_layers_share_one_kernel(swap: bool) -> None:
    n = 6
    text = _layers(n, swap)
    compiled = CompiledModule(hlotools.parse_module(text))
    stats = compiled.stats
    assert stats.kernel_calls == 2 * n + 2  # the negate, a fusion and a dot per layer, the copy
    assert stats.kernels == stats.kernels_emitted == 4  # one of each, whatever the operand order
    _check(compiled, text, _args(n))


def test_a_deeper_model_compiles_only_its_new_kernels(tmp_path: Path) -> None:
    store = CompileCache(tmp_path)
    shallow, deep = _layers(2), _layers(5)
    first = compile_cached(hlotools.parse_module(shallow), CompileOptions(), compile_cache=store, source_text=shallow)
    assert first.stats.kernels_emitted == first.stats.kernels > 0
    second = compile_cached(hlotools.parse_module(deep), CompileOptions(), compile_cache=store, source_text=deep)
    assert second.stats.kernels == first.stats.kernels and second.stats.kernels_emitted == 0  # all from the cache
    _check(first, shallow, _args(2))
    _check(second, deep, _args(5))


def test_without_kernels_and_on_one_thread_the_bits_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _layers(3)
    args = _args(3)
    kernels = CompiledModule(hlotools.parse_module(text))
    monkeypatch.setenv("HLOTOOLS_COMPILE_THREADS", "1")
    serial = CompiledModule(hlotools.parse_module(text))
    monkeypatch.setenv("HLOTOOLS_KERNELS", "0")
    whole = CompiledModule(hlotools.parse_module(text))
    assert whole.stats.kernels == 0 and "k." not in whole.llvm_ir
    outs = [c(args)[0].tobytes() for c in (kernels, serial, whole)]
    assert outs[0] == outs[1] == outs[2]
    _check(kernels, text, args)


def test_llvm_starts_on_each_kernel_as_emitted_and_sees_its_final_text() -> None:
    """The driver hands a kernel's module to LLVM's threads as soon as it is emitted (while
    the next kernels are emitted): that text must be the module's final one."""
    from hlotools.backend.llvm import lower
    from hlotools.backend.llvm.codegen.module import ModuleCompiler
    lower.load()
    for text in (_layers(3), IN_PLACE):
        seen: dict[str, str] = {}
        mc = ModuleCompiler(hlotools.parse_module(text), kernels=True,
                            kernel_emitted=lambda k, seen=seen: seen.__setitem__(k.key, str(k.module)))
        mc.compile()
        assert seen and {k.key: str(k.module) for k in mc.kernel_modules()} == seen


_TABLE = ", ".join("{" + ", ".join(str(float(r * 16 + c)) for c in range(16)) + "}" for r in range(8))
IN_PLACE = f"""HloModule dus
ENTRY e {{
  buf = f32[8,16]{{1,0}} parameter(0)
  upd = f32[2,16]{{1,0}} parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  a = f32[8,16]{{1,0}} negate(buf)
  d = f32[8,16]{{1,0}} dynamic-update-slice(a, upd, i, z)
  table = f32[8,16]{{1,0}} constant({{{_TABLE}}})
  ROOT r = f32[8,16]{{1,0}} multiply(d, table)
}}
"""


def test_in_place_updates_parameters_and_constants_go_through_slots() -> None:
    compiled = CompiledModule(hlotools.parse_module(IN_PLACE))
    assert compiled.stats.kernels >= 2
    rng = np.random.default_rng(1)
    for i in (0, 3, 7):
        args = [rng.standard_normal((8, 16)).astype(np.float32), rng.standard_normal((2, 16)).astype(np.float32),
                np.int32(i)]
        _check(compiled, IN_PLACE, args)


WHILE = """HloModule w
body {
  s = (s32[], f32[64]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[64]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  h = f32[] constant(0.75)
  hb = f32[64]{0} broadcast(h), dimensions={}
  y = f32[64]{0} multiply(x, hb)
  ROOT t = (s32[], f32[64]{0}) tuple(j, y)
}
cond {
  s = (s32[], f32[64]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  x = f32[64]{0} parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[64]{0}) tuple(z, x)
  w = (s32[], f32[64]{0}) while(t), condition=cond, body=body
  ROOT r = f32[64]{0} get-tuple-element(w), index=1
}
"""


def test_control_flow_stays_in_the_caller_and_its_bodies_use_kernels() -> None:
    compiled = CompiledModule(hlotools.parse_module(WHILE))
    assert compiled.stats.kernel_calls >= 1  # the body's multiply is a kernel of its own
    _check(compiled, WHILE, [np.linspace(-3, 3, 64, dtype=np.float32)])
