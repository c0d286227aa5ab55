"""Random valid modules (hypothesis): elementwise chains, broadcasts, reductions, slices,
reverses, converts and selects across element types; LLVM backend vs interpreter."""
from __future__ import annotations

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from hlotools.ir.types import ELEMENT_TYPES

TYPES = ["f32", "f64", "bf16", "f16", "s32", "s8", "u8", "s64", "u32"]
FLOAT_UNARY = ["negate", "abs", "floor", "ceil", "sign", "round-nearest-even"]
INT_UNARY = ["negate", "abs", "not", "popcnt"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "divide", "remainder"]


@st.composite
def modules(draw: st.DrawFn) -> tuple[str, str, tuple[int, ...]]:
    et = draw(st.sampled_from(TYPES))
    dims = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    is_float = ELEMENT_TYPES[et].is_float
    shape = f"{et}[{','.join(map(str, dims))}]"
    lines = [f"  p0 = {shape} parameter(0)", f"  p1 = {shape} parameter(1)"]
    values = ["p0", "p1"]
    for i in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["unary", "binary", "select", "convert", "bcast", "reverse", "slicepad"]))
        a = draw(st.sampled_from(values))
        c = draw(st.sampled_from(values))
        name = f"v{i}"
        if kind == "unary":
            unsigned = ELEMENT_TYPES[et].kind == "unsigned"
            op = draw(st.sampled_from(FLOAT_UNARY if is_float else INT_UNARY[2:] if unsigned else INT_UNARY))
            lines.append(f"  {name} = {shape} {op}({a})")
        elif kind == "binary":
            op = draw(st.sampled_from(BINARY))
            lines.append(f"  {name} = {shape} {op}({a}, {c})")
        elif kind == "select":
            d = draw(st.sampled_from(["LT", "GE", "EQ", "NE"]))
            lines.append(f"  {name}.p = pred[{','.join(map(str, dims))}] compare({a}, {c}), direction={d}")
            lines.append(f"  {name} = {shape} select({name}.p, {a}, {c})")
        elif kind == "convert":
            other = draw(st.sampled_from(TYPES))
            oshape = f"{other}[{','.join(map(str, dims))}]"
            lines.append(f"  {name}.c = {oshape} convert({a})")
            lines.append(f"  {name} = {shape} convert({name}.c)")
        elif kind == "bcast":  # reduce the last dim, broadcast it back
            rdims = dims[:-1]
            zero = "0" if not is_float else "0"
            lines.append(f"  {name}.z = {et}[] constant({zero})")
            lines.append(f"  {name}.r = {et}[{','.join(map(str, rdims))}] reduce({a}, {name}.z), "
                         f"dimensions={{{len(dims) - 1}}}, to_apply=red")
            lines.append(f"  {name} = {shape} broadcast({name}.r), dimensions={{{','.join(map(str, range(len(rdims))))}}}")
        elif kind == "reverse":
            lines.append(f"  {name} = {shape} reverse({a}), dimensions={{0}}")
        else:  # slice off the first element of dim 0 and pad it back with a constant
            if dims[0] < 2:
                lines.append(f"  {name} = {shape} copy({a})")
            else:
                sl = ", ".join(f"[{1 if d == 0 else 0}:{n}]" for d, n in enumerate(dims))
                sdims = (dims[0] - 1,) + dims[1:]
                lines.append(f"  {name}.s = {et}[{','.join(map(str, sdims))}] slice({a}), slice={{{sl}}}")
                lines.append(f"  {name}.z = {et}[] constant(3)")
                pad = "x".join(["0_1" if d == 0 else "0_0" for d in range(len(dims))])
                lines.append(f"  {name} = {shape} pad({name}.s, {name}.z), padding={pad}")
        values.append(name)
    last = values[-1]
    lines.append(f"  ROOT out = {shape} add({last}, p0)")
    text = (f"HloModule m\nred {{ a = {et}[] parameter(0)  b = {et}[] parameter(1)  ROOT c = {et}[] add(a, b) }}\n"
            f"ENTRY e {{\n" + "\n".join(lines) + "\n}\n")
    return text, et, dims


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules(), st.integers(0, 2**31 - 1))
def test_random_modules_match_the_interpreter(case: tuple[str, str, tuple[int, ...]], seed: int) -> None:
    text, et, dims = case
    m = hlotools.parse_module(text)
    rng = np.random.default_rng(seed)
    dt = ELEMENT_TYPES[et].dtype
    if ELEMENT_TYPES[et].is_float:
        args = [(rng.standard_normal(dims) * 4).astype(dt) for _ in range(2)]
    else:
        args = [rng.integers(-20, 20, dims).astype(dt) for _ in range(2)]
    with np.errstate(all="ignore"):
        want = evaluate(m, args)[0]
    got = compile_module(m)(args)[0]
    assert got.shape == want.shape and got.dtype == want.dtype
    if not ELEMENT_TYPES[et].is_float:
        assert np.array_equal(got, want), f"{text}\n{got}\n{want}"
        return
    g, w = got.astype(np.float64), want.astype(np.float64)
    assert (np.isnan(g) == np.isnan(w)).all(), text
    ok = np.isfinite(w)
    assert (g[~ok & ~np.isnan(w)] == w[~ok & ~np.isnan(w)]).all(), text
    eps = float(ml_dtypes.finfo(dt).eps)
    scale = max(float(np.max(np.abs(w[ok]))) if ok.any() else 0.0, 1e-30)
    # reductions sum in another order; rounding per op in the narrow types can then differ
    assert (np.abs(g[ok] - w[ok]) <= 64 * eps * scale).all(), f"{text}\n{g}\n{w}"


@st.composite
def dot_modules(draw: st.DrawFn) -> tuple[str, str, tuple[int, ...], tuple[int, ...]]:
    et = draw(st.sampled_from(["f32", "f64", "bf16", "s32", "s8"]))
    nb = draw(st.integers(0, 1))
    b, m, k, n = (draw(st.integers(1, 6)) for _ in range(4))
    lhs_t = draw(st.booleans())  # contracting dim first or last
    lhs = ((b,) if nb else ()) + ((k, m) if lhs_t else (m, k))
    rhs = ((b,) if nb else ()) + (k, n)
    lc = nb + (0 if lhs_t else 1)
    out = ((b,) if nb else ()) + (m, n)
    batch = "lhs_batch_dims={0}, rhs_batch_dims={0}, " if nb else ""
    dims = lambda d: ",".join(map(str, d))  # noqa: E731
    text = (f"HloModule m\nENTRY e {{\n  a = {et}[{dims(lhs)}] parameter(0)\n  b = {et}[{dims(rhs)}] parameter(1)\n"
            f"  ROOT d = {et}[{dims(out)}] dot(a, b), {batch}lhs_contracting_dims={{{lc}}}, "
            f"rhs_contracting_dims={{{nb}}}\n}}\n")
    return text, et, lhs, rhs


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dot_modules(), st.integers(0, 2**31 - 1))
def test_random_dots_match_the_interpreter(case: tuple[str, str, tuple[int, ...], tuple[int, ...]], seed: int) -> None:
    text, et, lhs, rhs = case
    m = hlotools.parse_module(text)
    rng = np.random.default_rng(seed)
    dt = ELEMENT_TYPES[et].dtype
    args = [rng.integers(-4, 5, d).astype(dt) for d in (lhs, rhs)]  # small ints: every order is exact
    got, want = compile_module(m)(args)[0], evaluate(m, args)[0]
    assert got.dtype == want.dtype and np.array_equal(got.astype(np.float64), want.astype(np.float64)), text
