"""reduce-window through the runtime library's kernel (kernels/reduce_window.py,
lower/reduce_window.py): bit for bit what emit_reduce's elemental loop computes (random
shapes, layouts, windows, strides, paddings including negative ones, dilations, reducers
in either parameter order, element types, NaN and signed zeros, constant or run-time init
values), close to the interpreter; the corpus' pooling layers; AOT objects; what stays on
the elemental loop; the speed rule; concurrent sets."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import load_emitters
from hlotools.backend.llvm.driver.runtime import CompiledModule
from hlotools.backend.llvm.kernels import library as runtime_library

load_emitters()
from hlotools.backend.llvm.kernels import reduce_window as reduce_window_kernel  # noqa: E402
from hlotools.backend.llvm.lower import reduce_window  # noqa: E402  (after the emitters)
from tests.support.paths import SHARED  # noqa: E402

JAX = SHARED / "corpus" / "jax"

DTYPES: dict[str, type] = {"f32": np.float32, "f64": np.float64, "s32": np.int32, "s8": np.int8, "u16": np.uint16, "s64": np.int64}
INITS = {"add": "0", "multiply": "1", "maximum": "-inf", "minimum": "inf"}


def _int_range(dtype: str) -> tuple[int, int]:
    bits = int(dtype[1:])
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dtype[0] == "s" else (0, (1 << bits) - 1)


def _layout(perm: tuple[int, ...]) -> str:
    return "{" + ",".join(map(str, perm)) + "}"


def _window_text(w: list[tuple[int, int, int, int, int, int]]) -> str:
    size = "x".join(str(d[0]) for d in w)
    stride = "x".join(str(d[1]) for d in w)
    pad = "x".join(f"{d[2]}_{d[3]}" for d in w)
    lhs = "x".join(str(d[4]) for d in w)
    rhs = "x".join(str(d[5]) for d in w)
    return f"size={size} stride={stride} pad={pad} lhs_dilate={lhs} rhs_dilate={rhs}"


def module_text(dims: list[int], in_perm: tuple[int, ...], out_perm: tuple[int, ...],
                window: list[tuple[int, int, int, int, int, int]], op: str, dtype: str,
                swapped: bool = False, init: str | None = None) -> str:
    """A reduce-window module; `init` None makes the init value the second parameter."""
    out = []
    for n, (size, stride, lo, hi, bd, wd) in zip(dims, window):
        base = (n - 1) * bd + 1 if n else 0
        padded = base + lo + hi
        span = (size - 1) * wd + 1
        out.append(0 if span > padded else (padded - span) // stride + 1)
    ty = dtype
    shape_in = f"{ty}[{','.join(map(str, dims))}]{_layout(in_perm)}"
    shape_out = f"{ty}[{','.join(map(str, out))}]{_layout(out_perm)}"
    if ty[0] != "f" and init is not None:
        init = {"add": "0", "multiply": "1", "maximum": str(_int_range(ty)[0]), "minimum": str(_int_range(ty)[1])}[op]
    args = "(b, a)" if swapped else "(a, b)"
    init_line = (f"  c = {ty}[] constant({init})" if init is not None else f"  c = {ty}[] parameter(1)")
    return f"""HloModule rw
red {{
  a = {ty}[] parameter(0)
  b = {ty}[] parameter(1)
  ROOT r = {ty}[] {op}{args}
}}
ENTRY e {{
  x = {shape_in} parameter(0)
{init_line}
  ROOT w = {shape_out} reduce-window(x, c), window={{{_window_text(window)}}}, to_apply=red
}}
"""


def _values(rng: np.random.Generator, dims: list[int], dtype: str, special: bool) -> np.ndarray:
    dt = DTYPES[dtype]
    if dtype[0] == "f":
        x: np.ndarray = rng.standard_normal(dims).astype(dt)
        if special and x.size:
            flat = x.reshape(-1)
            picks = rng.integers(0, flat.size, size=max(1, flat.size // 8))
            flat[picks] = rng.choice(np.array([np.nan, 0.0, -0.0, np.inf, -np.inf], dt), size=picks.size)
        return x
    lo, hi = _int_range(dtype)
    return rng.integers(max(lo, -100), min(hi, 100), size=dims, endpoint=True).astype(dt)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit, except that any NaN equals any NaN (payloads are not promised)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        na, nb = np.isnan(a), np.isnan(b)
        if not np.array_equal(na, nb):
            return False
        return np.array_equal(np.where(na, 0, a).view(f"u{a.itemsize}"), np.where(nb, 0, b).view(f"u{b.itemsize}"))
    return np.array_equal(a, b)


def compile_both(text: str) -> tuple[CompiledModule, CompiledModule]:
    m = hlotools.parse_module(text)
    with reduce_window.kernel_mode("always"):
        kernel = CompiledModule(m)
    with reduce_window.kernel_mode("never"):
        loop = CompiledModule(m)
    return kernel, loop


def uses_kernel(cm: CompiledModule) -> bool:
    return any(g.startswith("reduce_window.") for g in cm.runtime_groups)


def check(text: str, args: list[np.ndarray], expect_kernel: bool = True) -> np.ndarray:
    kernel, loop = compile_both(text)
    assert uses_kernel(kernel) == expect_kernel and not uses_kernel(loop)
    got, want = kernel(args)[0], loop(args)[0]
    assert _same(got, want), (got, want)
    ref = np.asarray(evaluate(hlotools.parse_module(text), args)[0])
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, ref)
    return got


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, int, str, bool, list[int]]:
    rank = draw(st.integers(1, 4))
    dims = [draw(st.integers(1, 6)) for _ in range(rank)]
    in_perm = tuple(draw(st.permutations(range(rank))))
    out_perm = tuple(draw(st.permutations(range(rank))))
    window = []
    for n in dims:
        size = draw(st.integers(1, 3))
        stride = draw(st.integers(1, 3))
        bd = draw(st.sampled_from([1, 1, 1, 2]))
        wd = draw(st.sampled_from([1, 1, 1, 2]))
        base = (n - 1) * bd + 1
        lo = draw(st.integers(-1 if base > 1 else 0, 2))
        hi = draw(st.integers(-1 if base + lo > 1 else 0, 2))
        window.append((size, stride, lo, hi, bd, wd))
    op = draw(st.sampled_from(reduce_window_kernel.OPS))
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    swapped = draw(st.booleans())
    runtime_init = draw(st.booleans())
    init = None if runtime_init else INITS[op] if dtype[0] == "f" else "0"
    text = module_text(dims, in_perm, out_perm, window, op, dtype, swapped, init)
    return text, draw(st.integers(0, 2**31 - 1)), dtype, runtime_init, dims


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_kernel_matches_the_elemental_loop_and_the_interpreter(case: tuple[str, int, str, bool, list[int]]) -> None:
    text, seed, dtype, runtime_init, dims = case
    m = hlotools.parse_module(text)
    rng = np.random.default_rng(seed)
    args = [_values(rng, dims, dtype, special=True)]
    if runtime_init:
        args.append(_values(rng, [], dtype, special=False))
    out_elems = int(np.prod(m.entry.root.shape.dims))  # type: ignore[union-attr]
    check(text, args, expect_kernel=out_elems > 0)


@pytest.mark.parametrize("op,size,dtype", [("multiply", 7, "f32"), ("add", 7, "f32"), ("multiply", 17, "f32"),
                                           ("add", 17, "f64")])
def test_float_folds_run_in_window_order(op: str, size: int, dtype: str) -> None:
    """Float add / multiply fold init, then each window element in order, rounding at each
    step: bit for bit a sequential fold. (The elemental loop lets LLVM reassociate them, so
    there the two agree only within rounding: the forced-kernel stress sweep found 7- and
    17-element windows where its bits differ; HLO leaves the order open.)"""
    text = module_text([40], (0,), (0,), [(size, 1, 0, 0, 1, 1)], op, dtype, swapped=True)
    rng = np.random.default_rng(3)
    dt = DTYPES[dtype]
    x = (rng.standard_normal(40) * 1.3).astype(dt)
    init = np.asarray(dt(-1.0875744))
    with reduce_window.kernel_mode("always"):
        kernel = CompiledModule(hlotools.parse_module(text))
    assert uses_kernel(kernel)
    got = kernel([x, init])[0]
    want = np.empty(40 - size + 1, dt)
    for j in range(want.size):
        acc = init.copy()
        for k in range(size):
            acc = (acc * x[j + k] if op == "multiply" else acc + x[j + k]).astype(dt)
        want[j] = acc
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


def test_nan_and_signed_zeros_follow_the_loop() -> None:
    """max(-0, +0) = +0 and min = -0 whatever the order, NaN wins, an all-padding window
    gives the init value."""
    x = np.array([[-0.0, 0.0, np.nan, 1.0, 0.0, -0.0]], np.float32)
    for op, init in (("maximum", "-inf"), ("minimum", "inf"), ("add", "-0"), ("multiply", "1")):
        text = module_text([1, 6], (1, 0), (1, 0), [(1, 1, 0, 0, 1, 1), (2, 2, 0, 2, 1, 1)], op, "f32", init=init)
        got = check(text, [x])
        assert got.shape == (1, 4)
        if op == "maximum":
            assert np.signbit(got[0, 0]) == np.False_ and np.isnan(got[0, 1]) and got[0, 3] == -np.inf
        if op == "minimum":
            assert np.signbit(got[0, 0]) == np.True_ and got[0, 3] == np.inf


def test_rank_six_and_a_big_window_with_runtime_init() -> None:
    dims = [2, 3, 1, 4, 5, 6]
    window = [(1, 1, 0, 0, 1, 1), (2, 1, 1, 0, 1, 1), (1, 1, 0, 0, 1, 1), (3, 2, 1, 1, 1, 1), (2, 1, 0, 1, 2, 1),
              (1, 1, 0, 0, 1, 1)]
    text = module_text(dims, (5, 4, 3, 2, 1, 0), (0, 1, 2, 3, 4, 5), window, "add", "f64")
    rng = np.random.default_rng(1)
    check(text, [rng.standard_normal(dims), np.array(0.25)])
    text = module_text([40, 30], (1, 0), (1, 0), [(31, 1, 15, 15, 1, 1), (25, 1, 12, 12, 1, 1)], "maximum", "f32",
                       init="-inf")
    assert 31 * 25 <= reduce_window_kernel.CAP
    check(text, [rng.standard_normal((40, 30)).astype(np.float32)])


def test_nhwc_pooling_uses_vectors_and_the_speed_rule() -> None:
    """The speed rule takes NHWC pooling (unit steps along the channels, rows of at least
    CHUNK_BYTES) and leaves narrow channels and NCHW pooling with a stride along the minor
    dim to the loop."""
    nhwc = module_text([2, 9, 9, 40], (3, 2, 1, 0), (3, 2, 1, 0), [(1, 1, 0, 0, 1, 1), (3, 2, 1, 1, 1, 1),
                                                                   (3, 2, 1, 1, 1, 1), (1, 1, 0, 0, 1, 1)],
                       "maximum", "f32", init="-inf")
    nchw = module_text([2, 3, 8, 8], (3, 2, 1, 0), (3, 2, 1, 0), [(1, 1, 0, 0, 1, 1), (1, 1, 0, 0, 1, 1),
                                                                 (2, 2, 0, 0, 1, 1), (2, 2, 0, 0, 1, 1)],
                       "add", "f32", init="0")
    x = np.random.default_rng(2).standard_normal((2, 9, 9, 40)).astype(np.float32)
    check(nhwc, [x])
    assert uses_kernel(CompiledModule(hlotools.parse_module(nhwc)))
    assert not uses_kernel(CompiledModule(hlotools.parse_module(nchw)))
    narrow = nhwc.replace(",40]", ",8]")
    assert "f32[2,5,5,8]" in narrow and not uses_kernel(CompiledModule(hlotools.parse_module(narrow)))
    check(nchw, [np.random.default_rng(3).standard_normal((2, 3, 8, 8)).astype(np.float32)])


def test_other_reducers_and_types_stay_on_the_loop() -> None:
    """A reducer that is not one op of its two parameters, a variadic reduce-window and a
    narrow float compile through the elemental loop."""
    not_simple = """HloModule m
red {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  ROOT r = f32[] multiply(s, b)
}
ENTRY e {
  x = f32[4,6] parameter(0)
  c = f32[] constant(1)
  ROOT w = f32[4,3] reduce-window(x, c), window={size=1x2 stride=1x2}, to_apply=red
}
"""
    variadic = """HloModule m
red {
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  ge = pred[] compare(a, b), direction=GE
  m = f32[] select(ge, a, b)
  k = s32[] select(ge, i, j)
  ROOT t = (f32[], s32[]) tuple(m, k)
}
ENTRY e {
  x = f32[4,6] parameter(0)
  y = s32[4,6] parameter(1)
  c = f32[] constant(-inf)
  z = s32[] constant(0)
  ROOT w = (f32[4,3], s32[4,3]) reduce-window(x, y, c, z), window={size=1x2 stride=1x2}, to_apply=red
}
"""
    bf16 = module_text([4, 6], (1, 0), (1, 0), [(1, 1, 0, 0, 1, 1), (2, 2, 0, 0, 1, 1)], "add", "f32", init="0")
    bf16 = bf16.replace("f32", "bf16")
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    for text, args in ((not_simple, [x]), (variadic, [x, rng.integers(0, 9, (4, 6)).astype(np.int32)])):
        with reduce_window.kernel_mode("always"):
            cm = CompiledModule(hlotools.parse_module(text))
        assert not uses_kernel(cm)
        for g, w in zip(cm(args), evaluate(hlotools.parse_module(text), args)):
            np.testing.assert_allclose(g, w, rtol=1e-6)
    with reduce_window.kernel_mode("always"):
        assert not uses_kernel(CompiledModule(hlotools.parse_module(bf16)))


def test_wrapped_reduce_window_fusion_uses_the_kernel() -> None:
    """XLA's wrapped reduce-window (a kLoop fusion whose root reads fusion parameters)."""
    text = """HloModule m
red {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] maximum(a, b)
}
wrapped {
  p = f32[2,8,8,16]{3,2,1,0} parameter(0)
  i = f32[] parameter(1)
  ROOT w = f32[2,4,4,16]{3,2,1,0} reduce-window(p, i), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=red
}
ENTRY e {
  x = f32[2,8,8,16]{3,2,1,0} parameter(0)
  c = f32[] constant(-inf)
  ROOT f = f32[2,4,4,16]{3,2,1,0} fusion(x, c), kind=kLoop, calls=wrapped
}
"""
    check(text, [np.random.default_rng(5).standard_normal((2, 8, 8, 16)).astype(np.float32)])


def test_elementwise_producer_fused_into_the_reduce_window_keeps_the_loop() -> None:
    text = """HloModule m
red {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
fused {
  p = f32[4,8]{1,0} parameter(0)
  e = f32[4,8]{1,0} exponential(p)
  z = f32[] constant(0)
  ROOT w = f32[4,4]{1,0} reduce-window(e, z), window={size=1x2 stride=1x2}, to_apply=red
}
ENTRY e {
  x = f32[4,8]{1,0} parameter(0)
  ROOT f = f32[4,4]{1,0} fusion(x), kind=kLoop, calls=fused
}
"""
    x = np.random.default_rng(6).standard_normal((4, 8)).astype(np.float32)
    with reduce_window.kernel_mode("always"):
        cm = CompiledModule(hlotools.parse_module(text))
    assert not uses_kernel(cm)
    np.testing.assert_allclose(cm([x])[0], evaluate(hlotools.parse_module(text), [x])[0], rtol=1e-6)


def test_two_independent_reduce_windows_form_a_concurrent_set() -> None:
    """Task-sized reduce-windows join emit_concurrent's merged parallel_for through their
    kernel call (the call is the member's last parallel_for)."""
    text = """HloModule m
red {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[2,64,64,16]{3,2,1,0} parameter(0)
  y = f32[2,64,64,16]{3,2,1,0} parameter(1)
  c = f32[] constant(-inf)
  a = f32[2,32,32,16]{3,2,1,0} reduce-window(x, c), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=red
  b = f32[2,32,32,16]{3,2,1,0} reduce-window(y, c), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=red
  ROOT t = (f32[2,32,32,16]{3,2,1,0}, f32[2,32,32,16]{3,2,1,0}) tuple(a, b)
}
"""
    from hlotools.backend.llvm.kernels import parallel_for
    if not parallel_for.enabled():
        pytest.skip("threads are off (HLOTOOLS_NUM_THREADS=1)")
    kernel, loop = compile_both(text)
    assert uses_kernel(kernel) and "par.tasks" in kernel.llvm_ir
    rng = np.random.default_rng(7)
    args = [rng.standard_normal((2, 64, 64, 16)).astype(np.float32) for _ in range(2)]
    for g, w in zip(kernel(args), loop(args)):
        assert _same(g, w)


def test_the_runtime_group_and_its_symbol() -> None:
    assert runtime_library.group_of("reduce_window.f32") == "reduce_window.f32"
    assert runtime_library.group_of("reduce_window.s8") == "reduce_window.s8"
    assert "define void @\"reduce_window.u16\"" in runtime_library.build_ir("reduce_window.u16")
    with pytest.raises(hlotools.HloError):
        runtime_library.build_ir("reduce_window.bf16")
    assert reduce_window.interior(reduce_window.WindowDim(3, 2, 1, 1), 9, 5) == (1, 4)
    assert reduce_window.interior(reduce_window.WindowDim(2, 1, -1, 0), 6, 4) == (0, 4)
    assert reduce_window.interior(reduce_window.WindowDim(2, 1, 0, 0, base_dilation=2), 3, 4) == (0, 0)


def test_aot_object_defines_the_kernel_inside(tmp_path: Path) -> None:
    from hlotools.backend.llvm.driver import aot
    from hlotools.backend.llvm.native.objfile import read_object
    from tests.backend.llvm.driver.test_aot import CC, build_and_run
    text = module_text([2, 8, 8, 40], (3, 2, 1, 0), (3, 2, 1, 0), [(1, 1, 0, 0, 1, 1), (3, 2, 1, 1, 1, 1),
                                                                  (3, 2, 1, 1, 1, 1), (1, 1, 0, 0, 1, 1)],
                       "maximum", "f32", init="-inf")
    built = aot.build(hlotools.parse_module(text), aot.AotOptions(function_name="pool"))
    assert "reduce_window.f32" in built.llvm_ir  # type: ignore[attr-defined]
    obj = read_object(aot.emit(built, "obj"))  # type: ignore[arg-type]
    assert not any(s.startswith("reduce_window") for s in obj.undefined)
    if CC is None:
        pytest.skip("no system C compiler")
    x = np.random.default_rng(8).standard_normal((2, 8, 8, 40)).astype(np.float32)
    got = build_and_run(tmp_path, text, [x], "pool")
    assert _same(got[0], np.asarray(evaluate(hlotools.parse_module(text), [x])[0]))


def _corpus(name: str) -> tuple[str, list[np.ndarray]]:
    from hlotools.io.arrays import parameter_leaves, reinterpret
    if not (JAX / f"{name}.hlo").is_file():
        pytest.skip("the shared JAX corpus is not next to the repo")
    text = (JAX / f"{name}.hlo").read_text()
    m = hlotools.parse_module(text)
    with np.load(JAX / f"{name}.inputs.npz") as f:
        return text, [reinterpret(f[f"in{i}"], leaf.shape) for i, leaf in enumerate(parameter_leaves(m))]


@pytest.mark.slow
@pytest.mark.parametrize("name, kernel", [("big_conv", True), ("cnn_mnist", False), ("train_step_cnn", False),
                                          ("cnn_nchw_avgpool", False), ("reductions", True)])
def test_corpus_pooling_layers(name: str, kernel: bool) -> None:
    """The corpus modules with reduce-windows, after the backend's passes: the speed rule's
    choice, and the same bits with the kernel forced on and off."""
    from hlotools.backend.llvm.driver.pipeline import optimise_module
    text, args = _corpus(name)
    m = optimise_module(hlotools.parse_module(text))
    assert uses_kernel(CompiledModule(m)) == kernel
    with reduce_window.kernel_mode("always"):
        on = CompiledModule(m)
    with reduce_window.kernel_mode("never"):
        off = CompiledModule(m)
    assert uses_kernel(on) and not uses_kernel(off)
    for g, w in zip(on(args), off(args)):
        assert _same(np.asarray(g), np.asarray(w))
