"""Small hand-written modules per op and per element type: LLVM backend vs interpreter
(bit-exact for integers, data movement and correctly rounded ops)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module


def run_both(text: str, args: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    m = hlotools.parse_module(text)
    got = compile_module(m)(args)
    with np.errstate(all="ignore"):
        want = evaluate(m, args)
    return got, want


def same_bits(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        if w.dtype.kind == "f" or w.dtype.kind == "V" or w.dtype.name.startswith(("float", "bfloat")):
            gf, wf = g.astype(np.float64), w.astype(np.float64)
            ok = (gf == wf) | (np.isnan(gf) & np.isnan(wf))
            assert ok.all(), f"{g[~ok][:5]} != {w[~ok][:5]}"
        else:
            assert np.array_equal(g, w, equal_nan=w.dtype.kind == "c"), f"{g} != {w}"


def unary_module(op: str, et: str, n: int, out_et: str | None = None) -> str:
    return (f"HloModule m\nENTRY e {{\n  x = {et}[{n}] parameter(0)\n"
            f"  ROOT y = {out_et or et}[{n}] {op}(x)\n}}\n")


def binary_module(op: str, et: str, n: int, out_et: str | None = None, extra: str = "") -> str:
    return (f"HloModule m\nENTRY e {{\n  x = {et}[{n}] parameter(0)\n  y = {et}[{n}] parameter(1)\n"
            f"  ROOT z = {out_et or et}[{n}] {op}(x, y){extra}\n}}\n")


INT_EDGE = {"s8": [-128, -1, 0, 1, 7, 127], "s32": [-2**31, -1, 0, 1, 31, 32, 2**31 - 1],
            "u8": [0, 1, 7, 8, 255], "u32": [0, 1, 31, 32, 2**32 - 1], "s64": [-2**63, -1, 0, 1, 63, 64],
            "s4": [-8, -1, 0, 1, 3, 7], "u4": [0, 1, 3, 4, 15]}


@pytest.mark.parametrize("et", sorted(INT_EDGE))
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum",
                                "shift-left", "shift-right-logical", "shift-right-arithmetic", "and", "xor"])
def test_integer_binary_edges(op: str, et: str) -> None:
    from hlotools.ir.types import ELEMENT_TYPES
    dt = ELEMENT_TYPES[et].dtype
    vals = INT_EDGE[et]
    x = np.array([a for a in vals for _ in vals]).astype(np.int64)
    y = np.array([b for _ in vals for b in vals]).astype(np.int64)
    x, y = x.astype(dt), y.astype(dt)
    same_bits(*run_both(binary_module(op, et, len(x)), [x, y]))


SMALL_FLOATS = ["f16", "bf16", "f8e5m2", "f8e4m3", "f8e3m4", "f8e4m3fn", "f8e4m3fnuz", "f8e5m2fnuz",
                "f8e4m3b11fnuz", "f4e2m1fn", "f6e3m2fn", "f6e2m3fn"]


@pytest.mark.parametrize("et", SMALL_FLOATS)
def test_convert_f32_to_narrow_floats_rounds_like_ml_dtypes(et: str) -> None:
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(2000) * s for s in (1e-6, 1e-3, 0.1, 1, 10, 1000, 1e5)])
    x = np.concatenate([x, [0.0, -0.0, np.inf, -np.inf, 448, 464, 57344, 61440, 6.5e4, 65520]]).astype(np.float32)
    # exact halfway cases of the target, both parities
    got, want = run_both(unary_module("convert", "f32", len(x), et), [x])
    same_bits(got, want)


@pytest.mark.parametrize("et", SMALL_FLOATS)
def test_narrow_float_roundtrip_and_arithmetic(et: str) -> None:
    from hlotools.ir.types import ELEMENT_TYPES
    dt = ELEMENT_TYPES[et].dtype
    bits = ELEMENT_TYPES[et].bits
    codes = np.arange(1 << min(bits, 16), dtype=np.uint16 if bits > 8 else np.uint8)
    x = codes.view(dt) if bits in (8, 16) else codes.astype(np.uint8).view(dt)
    if bits < 8:
        x = np.array([float(ml_dtypes.finfo(dt).max) * s for s in np.linspace(-1, 1, 33)]).astype(dt)
    same_bits(*run_both(unary_module("convert", et, len(x), "f32"), [x]))
    y = x[::-1].copy()
    same_bits(*run_both(binary_module("add", et, len(x)), [x, y]))
    same_bits(*run_both(binary_module("multiply", et, len(x)), [x, y]))


@pytest.mark.parametrize("src,dst", [("f32", "s32"), ("f32", "u8"), ("f32", "s8"), ("f64", "s64"), ("f32", "u32"),
                                     ("f32", "s4"), ("s32", "f32"), ("s64", "f16"), ("u32", "bf16"), ("s32", "pred"),
                                     ("f32", "pred"), ("pred", "f32"), ("s32", "s8"), ("s8", "u64"), ("f32", "f64"),
                                     ("f64", "f32"), ("f16", "bf16"), ("f32", "c64")])
def test_convert_between_types(src: str, dst: str) -> None:
    from hlotools.ir.types import ELEMENT_TYPES
    dt = ELEMENT_TYPES[src].dtype
    raw = np.array([0, 1, -1, 2.5, -2.5, 127.9, 128, 255.5, 300, -129, 1e10, -1e10, 3e38, np.nan, np.inf, -np.inf])
    if ELEMENT_TYPES[src].is_integer or src == "pred":
        raw = np.nan_to_num(raw, nan=0, posinf=0, neginf=0)
        raw = np.clip(raw, *(lambda i: (i.min, i.max))(np.iinfo(dt)) if src != "pred" else (0, 1))
    x = raw.astype(dt)
    same_bits(*run_both(unary_module("convert", src, len(x), dst), [x]))


@pytest.mark.parametrize("op", ["abs", "negate", "sign", "floor", "ceil", "round-nearest-afz", "round-nearest-even",
                                "sqrt", "is-finite"])
def test_float_unary_exact(op: str) -> None:
    x = np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.7, -3.7, 1e30, np.inf, -np.inf, np.nan, 4.0], np.float32)
    out = "pred" if op == "is-finite" else "f32"
    same_bits(*run_both(unary_module(op, "f32", len(x), out), [x]))


@pytest.mark.parametrize("op", ["exponential", "log", "tanh", "logistic", "sine", "cosine", "erf",
                                "exponential-minus-one", "log-plus-one", "rsqrt", "cbrt"])
@pytest.mark.parametrize("et", ["f32", "f64", "bf16"])
def test_transcendentals_match_the_interpreter(op: str, et: str) -> None:
    from hlotools.ir.types import ELEMENT_TYPES
    dt = ELEMENT_TYPES[et].dtype
    x = np.concatenate([np.linspace(-20, 20, 401), [0, -0.0, 1e-5, -1e-5, 88, 89, -104, -110, np.inf, -np.inf,
                                                    np.nan]]).astype(dt)
    if op in ("log", "rsqrt", "cbrt"):
        x = np.abs(x)
    got, want = run_both(unary_module(op, et, len(x)), [x])
    g, w = got[0].astype(np.float64), want[0].astype(np.float64)
    assert (np.isnan(g) == np.isnan(w)).all()
    eps = float(ml_dtypes.finfo(dt).eps)
    inf = np.isinf(w)
    assert (g[inf] == w[inf]).all(), "infinities differ"
    ok = ~np.isnan(w) & ~inf
    err = np.abs(g[ok] - w[ok])
    assert (err <= 8 * eps * np.abs(w[ok]) + 1e-30).all(), f"worst {np.max(err / (np.abs(w[ok]) + 1e-30))}"


def test_compare_and_select_and_clamp() -> None:
    x = np.array([np.nan, -0.0, 0.0, 1, -1, np.inf], np.float32)
    y = np.array([np.nan, 0.0, -0.0, 2, -1, np.inf], np.float32)
    for d in ("EQ", "NE", "LT", "LE", "GT", "GE"):
        for t in ("", ", type=TOTALORDER"):
            same_bits(*run_both(binary_module("compare", "f32", 6, "pred", f", direction={d}{t}"), [x, y]))
    text = ("HloModule m\nENTRY e {\n  p = pred[6] parameter(0)\n  a = f32[6] parameter(1)\n  b = f32[6] parameter(2)\n"
            "  s = f32[6] select(p, a, b)\n  l = f32[] constant(-0.5)\n  h = f32[] constant(1.5)\n"
            "  lo = f32[6] broadcast(l), dimensions={}\n  hi = f32[6] broadcast(h), dimensions={}\n"
            "  ROOT c = f32[6] clamp(lo, s, hi)\n}\n")
    same_bits(*run_both(text, [x > 0, x, y]))


def test_data_movement() -> None:
    text = """HloModule m
ENTRY e {
  x = s32[3,4] parameter(0)
  t = s32[4,3] transpose(x), dimensions={1,0}
  r = s32[2,6] reshape(t)
  v = s32[2,6] reverse(r), dimensions={1}
  sl = s32[2,3] slice(v), slice={[0:2], [1:6:2]}
  z = s32[] constant(-7)
  p = s32[5,7] pad(sl, z), padding=1_2x2_0_1
  c = s32[5,14] concatenate(p, p), dimensions={1}
  i = s32[5,14] iota(), iota_dimension=1
  ROOT a = s32[5,14] add(c, i)
}"""
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    same_bits(*run_both(text, [x]))


def test_dynamic_slice_and_update_clamp_like_xla() -> None:
    text = """HloModule m
ENTRY e {
  x = f32[5,6] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  u = f32[2,3] parameter(3)
  d = f32[2,3] dynamic-slice(x, i, j), dynamic_slice_sizes={2,3}
  w = f32[5,6] dynamic-update-slice(x, u, i, j)
  ROOT t = (f32[2,3], f32[5,6]) tuple(d, w)
}"""
    x = np.arange(30, dtype=np.float32).reshape(5, 6)
    u = -np.ones((2, 3), np.float32)
    for i, j in [(0, 0), (4, 5), (-3, 2), (100, -100), (2**31 - 1, 3)]:
        same_bits(*run_both(text, [x, np.int32(i), np.int32(j), u]))


def test_gather_clamps_and_scatter_skips_out_of_bounds() -> None:
    text = """HloModule m
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = f32[] add(a, b) }
ENTRY e {
  x = f32[6,4] parameter(0)
  idx = s32[5,1] parameter(1)
  g = f32[5,2,4] gather(x, idx), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,4}
  upd = f32[5,4] parameter(2)
  s = f32[6,4] scatter(x, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT t = (f32[5,2,4], f32[6,4]) tuple(g, s)
}"""
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    idx = np.array([[0], [5], [-2], [3], [5]], np.int32)
    upd = np.ones((5, 4), np.float32)
    same_bits(*run_both(text, [x, idx, upd]))


def test_reduce_variadic_and_reduce_window() -> None:
    text = """HloModule m
argmax {
  a = f32[] parameter(0)  i = s32[] parameter(1)  b = f32[] parameter(2)  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GE
  v = f32[] select(gt, a, b)
  k = s32[] select(gt, i, j)
  ROOT t = (f32[], s32[]) tuple(v, k)
}
max { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = f32[] maximum(a, b) }
ENTRY e {
  x = f32[4,7] parameter(0)
  io = s32[4,7] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  r = (f32[4], s32[4]) reduce(x, io, ninf, zero), dimensions={1}, to_apply=argmax
  w = f32[2,4] reduce-window(x, ninf), window={size=2x3 stride=2x2 pad=0_0x1_1}, to_apply=max
  r0 = f32[4] get-tuple-element(r), index=0
  r1 = s32[4] get-tuple-element(r), index=1
  ROOT t = (f32[4], s32[4], f32[2,4]) tuple(r0, r1, w)
}"""
    x = np.random.default_rng(1).standard_normal((4, 7)).astype(np.float32)
    same_bits(*run_both(text, [x]))


def test_dot_batched_and_integer() -> None:
    text = """HloModule m
ENTRY e {
  a = f32[2,3,5] parameter(0)
  b = f32[2,5,4] parameter(1)
  d = f32[2,3,4] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  i = s32[3,5] parameter(2)
  j = s32[5] parameter(3)
  k = s32[3] dot(i, j), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[2,3,4], s32[3]) tuple(d, k)
}"""
    rng = np.random.default_rng(2)
    a = rng.integers(-3, 4, (2, 3, 5)).astype(np.float32)
    b = rng.integers(-3, 4, (2, 5, 4)).astype(np.float32)
    i = rng.integers(-100, 100, (3, 5)).astype(np.int32)
    j = rng.integers(-100, 100, (5,)).astype(np.int32)
    same_bits(*run_both(text, [a, b, i, j]))


def test_while_conditional_call() -> None:
    text = """HloModule m
cond { p = (s32[], f32[3]) parameter(0)  i = s32[] get-tuple-element(p), index=0  n = s32[] constant(5)
       ROOT lt = pred[] compare(i, n), direction=LT }
body { p = (s32[], f32[3]) parameter(0)  i = s32[] get-tuple-element(p), index=0  x = f32[3] get-tuple-element(p), index=1
       one = s32[] constant(1)  i1 = s32[] add(i, one)  y = f32[3] add(x, x)  ROOT t = (s32[], f32[3]) tuple(i1, y) }
neg { a = f32[3] parameter(0)  ROOT n = f32[3] negate(a) }
same { a = f32[3] parameter(0)  ROOT c = f32[3] copy(a) }
ENTRY e {
  x = f32[3] parameter(0)
  k = s32[] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[3]) tuple(z, x)
  w = (s32[], f32[3]) while(init), condition=cond, body=body
  v = f32[3] get-tuple-element(w), index=1
  c = f32[3] conditional(k, v, v), branch_computations={neg, same}
  ROOT r = f32[3] call(c), to_apply=neg
}"""
    x = np.array([1, -2, 3], np.float32)
    for k in (0, 1, 7, -1):
        same_bits(*run_both(text, [x, np.int32(k)]))


def test_buffers_are_reused_between_values_not_alive_together() -> None:
    ops = "\n".join(f"  x{i + 1} = f32[1024] exponential(x{i})" for i in range(20))
    text = f"HloModule m\nENTRY e {{\n  x0 = f32[1024] parameter(0)\n{ops}\n  ROOT r = f32[1024] negate(x20)\n}}\n"
    m = hlotools.parse_module(text)
    from hlotools.backend.llvm.driver.runtime import CompiledModule
    c = CompiledModule(m, implicit_fusion=False)  # every op materialised
    assert c.arena_bytes <= 2 * 4096, c.arena_bytes  # two live buffers at a time, not twenty
    x = np.linspace(-1, 0, 1024).astype(np.float32) * 1e-3
    np.testing.assert_allclose(c([x])[0], evaluate(m, [x])[0], rtol=1e-5)


@pytest.mark.parametrize("n", [1, 2, 7, 64, 100])
def test_sort_multi_operand_stable(n: int) -> None:
    text = f"""HloModule m
lt {{ a = f32[] parameter(0)  b = f32[] parameter(1)  i = s32[] parameter(2)  j = s32[] parameter(3)
     ROOT c = pred[] compare(a, b), direction=LT }}
ENTRY e {{
  x = f32[3,{n}] parameter(0)
  io = s32[3,{n}] iota(), iota_dimension=1
  ROOT s = (f32[3,{n}], s32[3,{n}]) sort(x, io), dimensions={{1}}, is_stable=true, to_apply=lt
}}"""
    x = np.random.default_rng(n).integers(0, 5, (3, n)).astype(np.float32)  # many ties
    same_bits(*run_both(text, [x]))


@pytest.mark.parametrize("algorithm", ["rng_three_fry", "rng_philox", "rng_default"])
@pytest.mark.parametrize("out", ["u32[4,7]", "u64[5]", "u32[3]", "s8[2,3]", "u32[]", "f32[6]", "u4[5]"])
def test_rng_bit_generator_is_bit_exact(algorithm: str, out: str) -> None:
    for state in ("u64[2]", "u64[3]"):
        text = (f"HloModule m\nENTRY e {{\n  s = {state} parameter(0)\n"
                f"  ROOT r = ({state}, {out}) rng-bit-generator(s), algorithm={algorithm}\n}}\n")
        n = int(state[4])
        seed = np.array([0x123456789ABCDEF, 2**64 - 3, 42][:n], np.uint64)
        same_bits(*run_both(text, [seed]))


def test_select_and_scatter_max_pool_gradient() -> None:
    text = """HloModule m
ge { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = pred[] compare(a, b), direction=GE }
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT c = f32[] add(a, b) }
ENTRY e {
  x = f32[5,6] parameter(0)
  s = f32[3,3] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[5,6] select-and-scatter(x, s, z), window={size=2x3 stride=2x2 pad=0_1x1_1}, select=ge, scatter=add
}"""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, (5, 6)).astype(np.float32)  # ties: the first maximum wins
    s = rng.standard_normal((3, 3)).astype(np.float32)
    same_bits(*run_both(text, [x, s]))


def test_while_state_is_updated_in_place() -> None:
    """A scan body (pass-through weights, dynamic-update-slice of the stacked outputs) gets
    its state leaves as outputs: no per-iteration copy of the big buffers."""
    text = """HloModule m
cond { p = (s32[], f32[64,256], f32[256]) parameter(0)  i = s32[] get-tuple-element(p), index=0
       n = s32[] constant(64)  ROOT lt = pred[] compare(i, n), direction=LT }
body { p = (s32[], f32[64,256], f32[256]) parameter(0)
       i = s32[] get-tuple-element(p), index=0  acc = f32[64,256] get-tuple-element(p), index=1
       w = f32[256] get-tuple-element(p), index=2
       f = f32[] convert(i)  fb = f32[256] broadcast(f), dimensions={}  row = f32[256] add(w, fb)
       r = f32[1,256] reshape(row)  z = s32[] constant(0)
       acc2 = f32[64,256] dynamic-update-slice(acc, r, i, z)
       one = s32[] constant(1)  i1 = s32[] add(i, one)
       ROOT t = (s32[], f32[64,256], f32[256]) tuple(i1, acc2, w) }
ENTRY e {
  w = f32[256] parameter(0)
  z = s32[] constant(0)  zf = f32[] constant(0)  acc = f32[64,256] broadcast(zf), dimensions={}
  init = (s32[], f32[64,256], f32[256]) tuple(z, acc, w)
  ROOT r = (s32[], f32[64,256], f32[256]) while(init), condition=cond, body=body
}"""
    from hlotools.backend.llvm.codegen.module import ModuleCompiler
    m = hlotools.parse_module(text)
    mc = ModuleCompiler(m)
    mc.compile()
    body = next(c for c in m.computations if c.name == "body")
    assert mc.functions[(id(body), True)].alias_safe == {1, 2}  # the counter is read after its update
    w = np.linspace(0, 1, 256).astype(np.float32)
    same_bits(*run_both(text, [w]))


def test_input_output_alias_updates_the_donated_buffer_in_place() -> None:
    text = """HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY e {
  cache = f32[64,32] parameter(0)
  row = f32[1,32] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT u = f32[64,32] dynamic-update-slice(cache, row, i, z)
}"""
    m = hlotools.parse_module(text)
    c = compile_module(m)
    assert c.stats.donated == {0: 0}
    assert c.arena_bytes == 0  # no temporary: the update happens in the donated buffer
    cache = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    before = cache.copy()
    row = -np.ones((1, 32), np.float32)
    for i in (0, 5, 63, 100):
        same_bits(c([cache, row, np.int32(i)]), evaluate(m, [cache, row, np.int32(i)]))
    assert np.array_equal(cache, before)  # the caller's array is never written


def test_aliased_function_is_correct_without_aliasing() -> None:
    """The generated code copies when the caller passes distinct memory for an aliased result."""
    text = """HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }
ENTRY e {
  a = f32[16] parameter(0)
  b = f32[16] parameter(1)
  i = s32[] parameter(2)
  s = f32[2] slice(b), slice={[0:2]}
  u = f32[16] dynamic-update-slice(a, s, i)
  ROOT t = (f32[16], f32[16]) tuple(u, b)
}"""
    m = hlotools.parse_module(text)
    c = compile_module(m)
    c.stats.donated = {}  # as if the caller did not alias
    a = np.arange(16, dtype=np.float32)
    b = -np.arange(16, dtype=np.float32)
    same_bits(c([a, b, np.int32(3)]), evaluate(m, [a, b, np.int32(3)]))


@pytest.mark.parametrize("kind,src,dst,dims,lengths", [
    ("FFT", "c64", "c64", (3, 8), (8,)), ("IFFT", "c64", "c64", (2, 5, 6), (5, 6)),
    ("RFFT", "f32", "c64", (4, 10), (10,)), ("IRFFT", "c64", "f32", (3, 5), (8,)),
    ("IRFFT", "c64", "f32", (4, 4), (4, 6)), ("FFT", "c128", "c128", (7,), (7,))])
def test_fft_matches_numpy(kind: str, src: str, dst: str, dims: tuple[int, ...], lengths: tuple[int, ...]) -> None:
    out = list(dims)
    if kind == "RFFT":
        out[-1] = lengths[-1] // 2 + 1
    if kind == "IRFFT":
        out[-1] = lengths[-1]
    text = (f"HloModule m\nENTRY e {{\n  x = {src}[{','.join(map(str, dims))}] parameter(0)\n"
            f"  ROOT f = {dst}[{','.join(map(str, out))}] fft(x), fft_type={kind}, "
            f"fft_length={{{','.join(map(str, lengths))}}}\n}}\n")
    rng = np.random.default_rng(7)
    x = rng.standard_normal(dims)
    if src.startswith("c"):
        x = x + 1j * rng.standard_normal(dims)
    from hlotools.ir.types import ELEMENT_TYPES
    x = x.astype(ELEMENT_TYPES[src].dtype)
    got, want = run_both(text, [x])
    scale = float(np.max(np.abs(want[0])))
    assert got[0].dtype == want[0].dtype
    assert np.max(np.abs(got[0] - want[0])) <= 1e-5 * scale, np.max(np.abs(got[0] - want[0]))


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_and_not_positive_definite(lower: bool) -> None:
    text = (f"HloModule m\nENTRY e {{\n  a = f32[3,4,4] parameter(0)\n"
            f"  ROOT c = f32[3,4,4] cholesky(a), lower={'true' if lower else 'false'}\n}}\n")
    rng = np.random.default_rng(3)
    m = rng.standard_normal((3, 4, 4))
    a = (m @ np.swapaxes(m, 1, 2) + 4 * np.eye(4)).astype(np.float32)
    a[2] = -a[2]  # not positive definite: all NaN
    got, want = run_both(text, [a])
    assert np.array_equal(np.isnan(got[0]), np.isnan(want[0]))
    np.testing.assert_allclose(got[0][:2], want[0][:2], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("transpose", ["NO_TRANSPOSE", "TRANSPOSE"])
@pytest.mark.parametrize("unit", [True, False])
def test_triangular_solve(left: bool, lower: bool, transpose: str, unit: bool) -> None:
    bshape = "f32[2,4,3]" if left else "f32[2,3,4]"
    text = (f"HloModule m\nENTRY e {{\n  a = f32[2,4,4] parameter(0)\n  b = {bshape} parameter(1)\n"
            f"  ROOT x = {bshape} triangular-solve(a, b), left_side={str(left).lower()}, "
            f"lower={str(lower).lower()}, unit_diagonal={str(unit).lower()}, transpose_a={transpose}\n}}\n")
    rng = np.random.default_rng(4)
    a = (rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)).astype(np.float32)
    b = rng.standard_normal((2, 4, 3) if left else (2, 3, 4)).astype(np.float32)
    got, want = run_both(text, [a, b])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)


def test_map_and_batch_norm_inference() -> None:
    text = """HloModule m
f { a = f32[] parameter(0)  b = f32[] parameter(1)  m = f32[] multiply(a, b)  ROOT s = f32[] subtract(m, a) }
ENTRY e {
  x = f32[2,3,4] parameter(0)
  y = f32[2,3,4] parameter(1)
  mp = f32[2,3,4] map(x, y), dimensions={0,1,2}, to_apply=f
  sc = f32[3] parameter(2)
  of = f32[3] parameter(3)
  mu = f32[3] parameter(4)
  va = f32[3] parameter(5)
  bn = f32[2,3,4] batch-norm-inference(mp, sc, of, mu, va), epsilon=0.001, feature_index=1
  ROOT t = (f32[2,3,4], f32[2,3,4]) tuple(mp, bn)
}"""
    rng = np.random.default_rng(9)
    args = [rng.standard_normal((2, 3, 4)).astype(np.float32) for _ in range(2)]
    args += [rng.standard_normal(3).astype(np.float32) for _ in range(3)] + [np.abs(rng.standard_normal(3)).astype(np.float32)]
    got, want = run_both(text, args)
    same_bits(got[:1], want[:1])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reverse", ["false", "true"])
def test_scan_cumulative_sum_with_carry(reverse: str) -> None:
    text = f"""HloModule m
step {{ x = f32[3] parameter(0)  c = f32[3] parameter(1)  s = f32[3] add(x, c)  ROOT t = (f32[3], f32[3]) tuple(s, s) }}
ENTRY e {{
  xs = f32[5,3] parameter(0)
  z = f32[] constant(0)
  init = f32[3] broadcast(z), dimensions={{}}
  ROOT r = (f32[5,3], f32[3]) scan(xs, init), dimensions={{0}}, num_carries=1, is_reverse={reverse}, to_apply=step
}}"""
    xs = np.arange(15, dtype=np.float32).reshape(5, 3)
    same_bits(*run_both(text, [xs]))


def test_batch_norm_training_and_grad() -> None:
    text = """HloModule m
ENTRY e {
  x = f32[4,3,5] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  g = f32[4,3,5] parameter(3)
  t = (f32[4,3,5], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
  mu = f32[3] get-tuple-element(t), index=1
  va = f32[3] get-tuple-element(t), index=2
  d = (f32[4,3,5], f32[3], f32[3]) batch-norm-grad(x, s, mu, va, g), epsilon=0.001, feature_index=1
  ROOT r = ((f32[4,3,5], f32[3], f32[3]), (f32[4,3,5], f32[3], f32[3])) tuple(t, d)
}"""
    rng = np.random.default_rng(11)
    args = [rng.standard_normal((4, 3, 5)).astype(np.float32), rng.standard_normal(3).astype(np.float32),
            rng.standard_normal(3).astype(np.float32), rng.standard_normal((4, 3, 5)).astype(np.float32)]
    got, want = run_both(text, args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


def test_call_across_different_layouts_relayouts() -> None:
    """Before layout assignment a call's operand and the callee's parameter may disagree on
    the layout; the callee still sees the right logical values."""
    text = """HloModule m
f { p = f32[3,4]{1,0} parameter(0)  ROOT n = f32[3,4]{0,1} negate(p) }
ENTRY e {
  x = f32[4,3]{1,0} parameter(0)
  t = f32[3,4]{0,1} transpose(x), dimensions={1,0}
  c = f32[3,4]{1,0} call(t), to_apply=f
  ROOT r = f32[3,4]{1,0} add(c, t)
}"""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    got, want = run_both(text, [x])
    same_bits(got, want)
    assert not np.any(got[0])  # -t + t


def test_get_tuple_element_with_another_layout_than_its_tuple() -> None:
    """After call inlining (before layout assignment) a get-tuple-element may declare another
    layout than the tuple element it reads: it is a relayout copy, not an alias."""
    text = """HloModule m
ENTRY e {
  x = f32[3,4]{1,0} parameter(0)
  n = f32[3,4]{0,1} negate(x)
  t = (f32[3,4]{0,1}, f32[3,4]{1,0}) tuple(n, x)
  g = f32[3,4]{1,0} get-tuple-element(t), index=0
  ROOT r = f32[3,4]{1,0} add(g, x)
}"""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    got, want = run_both(text, [x])
    same_bits(got, want)
    assert not np.any(got[0])
