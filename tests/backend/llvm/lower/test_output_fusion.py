"""kOutput fusions on the LLVM backend (lower/output_fusion.py): the GEMM epilogue (the runtime
kernel interpreting an elementwise program on each register tile), the in-place path (D into
the output, then one loop) and the call of the fused computation. Every fused result must be
bit for bit what the LLVM backend computes for the same module unfused (the epilogue uses the
elemental path's emitters), and match the interpreter (exactly where the ops are exact)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from hlotools.backend.llvm.kernels import gemm_epilogue
from hlotools.backend.llvm.lower.gemm import generated_only
from hlotools.backend.llvm.lower.output_fusion import decide, epilogues
from tests.backend.llvm.driver.test_aot import build_and_run, needs_cc


@dataclass
class Case:
    """One module, fused (a kOutput fusion of the body) and plain (the body in the entry)."""

    params: list[str]  # shapes, e.g. "f32[4,5]{1,0}"
    body: list[str]  # instruction lines over p0.. (the last one is the ROOT)
    out: str  # the ROOT's shape

    def fused(self) -> str:
        ps = "".join(f"  p{k} = {s} parameter({k})\n" for k, s in enumerate(self.params))
        lines = "".join(f"  {line}\n" for line in self.body[:-1]) + f"  ROOT {self.body[-1]}\n"
        args = ", ".join(f"a{k}" for k in range(len(self.params)))
        entry = "".join(f"  a{k} = {s} parameter({k})\n" for k, s in enumerate(self.params))
        return (f"HloModule fused\n\nf {{\n{ps}{lines}}}\n\nENTRY e {{\n{entry}"
                f"  ROOT o = {self.out} fusion({args}), kind=kOutput, calls=f\n}}\n")

    def plain(self) -> str:
        ps = "".join(f"  p{k} = {s} parameter({k})\n" for k, s in enumerate(self.params))
        lines = "".join(f"  {line}\n" for line in self.body[:-1]) + f"  ROOT {self.body[-1]}\n"
        return f"HloModule plain\n\nENTRY e {{\n{ps}{lines}}}\n"


def _args(case: Case, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    mod = hlotools.parse_module(case.plain())
    assert mod.entry is not None
    out = []
    for p in mod.entry.parameters:
        assert p.shape.element_type is not None
        dt = p.shape.element_type.dtype
        shape = p.shape.dims
        if dt == np.bool_:
            out.append(rng.integers(0, 2, shape).astype(np.bool_))
        elif np.issubdtype(dt, np.integer):
            out.append(rng.integers(-9, 10, shape).astype(dt))
        else:
            out.append(rng.standard_normal(shape).astype(dt))
    return out


def _how(text: str) -> str | None:
    mod = hlotools.parse_module(text)
    assert mod.entry is not None and mod.entry.root is not None
    with epilogues():
        got = decide(mod.entry.root)
    return got.how if got is not None else None


def _how_default(text: str) -> str | None:
    mod = hlotools.parse_module(text)
    assert mod.entry is not None and mod.entry.root is not None
    got = decide(mod.entry.root)
    return got.how if got is not None else None


def _bits(a: np.ndarray) -> np.ndarray:
    return np.atleast_1d(a).view(np.uint8) if a.dtype.kind == "f" else a


def run_case(case: Case, exact: bool, expect: str | None, rtol: float = 1e-5, atol: float = 1e-5) -> np.ndarray:
    """Fused (epilogue on and off) and plain on the LLVM backend, the interpreter."""
    args = _args(case)
    assert _how(case.fused()) == expect
    with epilogues():  # every size (the default takes the epilogue from EPILOGUE_MIN_BYTES)
        fused = compile_module(hlotools.parse_module(case.fused()))
    assert ("gemm.epilogue" in fused.llvm_ir) == (expect == "epilogue")
    got = fused(args)[0]
    with epilogues(False):
        in_place = compile_module(hlotools.parse_module(case.fused()))(args)[0]
    plain = compile_module(hlotools.parse_module(case.plain()))(args)[0]
    np.testing.assert_array_equal(_bits(got), _bits(plain))
    np.testing.assert_array_equal(_bits(in_place), _bits(plain))
    want = evaluate(hlotools.parse_module(case.plain()), args)[0]
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return got


def _dot(out: str, lhs: str = "p0", rhs: str = "p1", attrs: str = "lhs_contracting_dims={1}, rhs_contracting_dims={0}") -> str:
    return f"d = {out} dot({lhs}, {rhs}), {attrs}"


RELU = ["z = f32[] constant(0)", "zb = {s} broadcast(z), dimensions={{}}", "r = {s} maximum(a, zb)"]


def _relu(s: str, x: str = "a") -> list[str]:
    return [line.format(s=s).replace("(a, zb)", f"({x}, zb)") for line in RELU]


def test_dot_bias_relu_odd_sizes_bit_exact() -> None:
    """37 rows (not a multiple of MR), 70 columns (a partial panel), per-column bias."""
    s = "f32[37,70]"
    case = Case(["f32[37,53]", "f32[53,70]", "f32[70]"],
                [_dot(s), f"b = {s} broadcast(p2), dimensions={{1}}", f"a = {s} add(d, b)", *_relu(s)], s)
    got = run_case(case, exact=False, expect="epilogue")
    assert (got >= 0).all() and (got == 0).any()


def test_dot_gelu_tanh_matches_unfused_bit_for_bit() -> None:
    s = "f32[24,40]"
    body = [_dot(s), "b = f32[24,40] broadcast(p2), dimensions={1}", "x = f32[24,40] add(d, b)",
            "x2 = f32[24,40] multiply(x, x)", "x3 = f32[24,40] multiply(x2, x)",
            "c0 = f32[] constant(0.044715)", "c0b = f32[24,40] broadcast(c0), dimensions={}",
            "t0 = f32[24,40] multiply(x3, c0b)", "t1 = f32[24,40] add(x, t0)",
            "c1 = f32[] constant(0.797884583)", "c1b = f32[24,40] broadcast(c1), dimensions={}",
            "t2 = f32[24,40] multiply(t1, c1b)", "th = f32[24,40] tanh(t2)",
            "one = f32[] constant(1)", "oneb = f32[24,40] broadcast(one), dimensions={}",
            "t3 = f32[24,40] add(th, oneb)", "half = f32[] constant(0.5)",
            "halfb = f32[24,40] broadcast(half), dimensions={}", "t4 = f32[24,40] multiply(t3, halfb)",
            "r = f32[24,40] multiply(x, t4)"]
    run_case(Case(["f32[24,33]", "f32[33,40]", "f32[40]"], body, s), exact=False, expect="epilogue",
             rtol=1e-4, atol=1e-5)


def test_batched_dot_residual_in_another_layout() -> None:
    """Two batch dims, a full-tensor residual whose layout is not the result's."""
    s = "f32[2,3,17,40]{3,2,1,0}"
    attrs = "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}"
    case = Case(["f32[2,3,17,24]{3,2,1,0}", "f32[2,3,24,40]{3,2,1,0}", "f32[2,3,17,40]{2,3,0,1}"],
                [_dot(s, attrs=attrs), f"r = {s} add(d, p2)"], s)
    run_case(case, exact=False, expect="epilogue")


def test_per_row_value_logistic_and_clamp() -> None:
    """A broadcast along the rows (per-row value), logistic, clamp with scalar bounds."""
    s = "f32[45,33]"
    case = Case(["f32[45,20]", "f32[20,33]", "f32[45]", "f32[]", "f32[]"],
                [_dot(s), f"b = {s} broadcast(p2), dimensions={{0}}", f"m = {s} multiply(d, b)",
                 f"l = {s} logistic(m)", f"lo = {s} broadcast(p3), dimensions={{}}",
                 f"hi = {s} broadcast(p4), dimensions={{}}", f"r = {s} clamp(lo, l, hi)"], s)
    run_case(case, exact=False, expect="epilogue", rtol=1e-5, atol=1e-6)


def test_f64_dot_bias_exponential_and_divide() -> None:
    s = "f64[19,21]"
    case = Case(["f64[19,15]", "f64[15,21]", "f64[21]"],
                [_dot(s), f"b = {s} broadcast(p2), dimensions={{1}}", f"x = {s} subtract(b, d)",
                 f"e = {s} exponential(x)", f"r = {s} divide(d, e)"], s)
    run_case(case, exact=False, expect="epilogue", rtol=1e-12, atol=1e-12)


def test_integer_dot_bias_maximum_is_exact() -> None:
    s = "s32[13,36]"
    case = Case(["s32[13,9]", "s32[9,36]", "s32[36]"],
                [_dot(s), f"b = {s} broadcast(p2), dimensions={{1}}", f"a = {s} add(d, b)",
                 "z = s32[] constant(-3)", f"zb = {s} broadcast(z), dimensions={{}}", f"r = {s} maximum(a, zb)"], s)
    run_case(case, exact=True, expect="epilogue")


def test_matrix_vector_dot_add_from_the_fusion_pass() -> None:
    """CPU's output fusion: f32[M,K] x f32[K] + f32[M] (N = 1: the partial-panel path)."""
    case = Case(["f32[50,30]", "f32[30]", "f32[50]"], [_dot("f32[50]"), "r = f32[50] add(d, p2)"], "f32[50]")
    run_case(case, exact=False, expect="epilogue")


CONV = "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"


def test_conv_nhwc_bias_relu() -> None:
    s = "f32[2,12,12,24]"
    case = Case(["f32[2,12,12,16]", "f32[3,3,16,24]", "f32[24]"],
                [f"d = {s} convolution(p0, p1), {CONV}", f"b = {s} broadcast(p2), dimensions={{3}}",
                 f"a = {s} add(d, b)", *_relu(s)], s)
    run_case(case, exact=False, expect="epilogue", rtol=1e-4, atol=1e-4)


def test_conv_odd_sizes_and_nchw_output() -> None:
    """7x9 positions (M = 63 per image), 40 features (a partial panel), the result NCHW:
    columns 63 elements apart (the strided load path)."""
    s = "f32[3,40,7,9]"
    labels = "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->bf01"
    case = Case(["f32[3,13,17,8]", "f32[3,3,8,40]", "f32[40]"],
                [f"d = {s} convolution(p0, p1), {labels}", f"b = {s} broadcast(p2), dimensions={{1}}",
                 f"a = {s} subtract(d, b)", f"r = {s} abs(a)"], s)
    run_case(case, exact=False, expect="epilogue", rtol=1e-4, atol=1e-4)


def test_bf16_dot_staged_result_takes_the_in_place_path() -> None:
    """bf16 operands are packed to f32 and the f32 result is staged, then rounded into the
    bf16 output: no epilogue there; in place, the scratch is the fusion's."""
    s = "bf16[21,34]"
    case = Case(["bf16[21,19]", "bf16[19,34]", "bf16[34]"],
                [_dot(s), f"b = {s} broadcast(p2), dimensions={{1}}", f"r = {s} add(d, b)"], s)
    run_case(case, exact=False, expect="in_place", rtol=2e-2, atol=2e-2)


def test_transposed_operands_and_column_major_result() -> None:
    """lhs contracting its dim 0, the result column major: strided A, C columns M apart."""
    s = "f32[30,44]{0,1}"
    case = Case(["f32[25,30]{1,0}", "f32[25,44]{1,0}", "f32[44]"],
                [_dot(s, attrs="lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
                 f"b = {s} broadcast(p2), dimensions={{1}}", f"a = {s} multiply(d, b)", f"r = {s} tanh(a)"], s)
    run_case(case, exact=False, expect="epilogue", rtol=1e-4, atol=1e-5)


def test_linear_layer_runs_swapped_with_per_column_bias_and_per_row_scale() -> None:
    """x @ W.T (torch's Linear) runs as C^T = W x^T (lower/gemm.py's _swaps): the epilogue's
    rows are then the result's columns, so a per-column bias and a per-row scale must land
    on the right elements; 45 x 70 (ragged panels and row blocks either way)."""
    s = "f32[45,70]"
    case = Case(["f32[45,29]", "f32[70,29]", "f32[70]", "f32[45]"],
                [_dot(s, attrs="lhs_contracting_dims={1}, rhs_contracting_dims={1}"),
                 f"b = {s} broadcast(p2), dimensions={{1}}", f"e = {s} add(d, b)",
                 f"c = {s} broadcast(p3), dimensions={{0}}", f"r = {s} multiply(e, c)"], s)
    root = hlotools.parse_module(case.plain()).entry.root.operands[0].operands[0]
    from hlotools.backend.llvm.lower.gemm import plan
    p = plan(root)
    assert p is not None and p.swapped
    run_case(case, exact=False, expect="epilogue", rtol=1e-4, atol=1e-5)


def test_attention_mask_select_of_a_pred_parameter() -> None:
    """Scores scaled, then select(mask, scores, -inf): a pred operand broadcast over the batch
    dims (bytes in memory), a scalar false value."""
    s = "f32[2,3,17,40]"
    attrs = "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}"
    case = Case(["f32[2,3,17,24]", "f32[2,3,24,40]", "pred[17,40]"],
                [_dot(s, attrs=attrs), "c = f32[] constant(8)", f"cb = {s} broadcast(c), dimensions={{}}",
                 f"x = {s} divide(d, cb)", "m = pred[2,3,17,40] broadcast(p2), dimensions={2,3}",
                 "ninf = f32[] constant(-inf)", f"nb = {s} broadcast(ninf), dimensions={{}}",
                 f"r = {s} select(m, x, nb)"], s)
    got = run_case(case, exact=False, expect="epilogue")
    assert np.isneginf(got).any() and np.isfinite(got).any()


def test_relu_gradient_compare_select() -> None:
    """select(compare(d + b, 0, GT), g, 0) (a ReLU's gradient), and a compare with the scalar
    on the left."""
    s = "f32[33,20]"
    case = Case(["f32[33,12]", "f32[12,20]", "f32[20]", s],
                [_dot(s), f"b = {s} broadcast(p2), dimensions={{1}}", f"a = {s} add(d, b)",
                 "z = f32[] constant(0)", f"zb = {s} broadcast(z), dimensions={{}}",
                 "gt = pred[33,20] compare(a, zb), direction=GT", f"g = {s} select(gt, p3, zb)",
                 "lt = pred[33,20] compare(zb, d), direction=LE", f"r = {s} select(lt, g, a)"], s)
    run_case(case, exact=False, expect="epilogue")


def test_integer_compare_select_is_exact() -> None:
    s = "s32[9,35]"
    case = Case(["s32[9,7]", "s32[7,35]", "s32[35]"],
                [_dot(s), f"b = {s} broadcast(p2), dimensions={{1}}", "ne = pred[9,35] compare(d, b), direction=NE",
                 f"r = {s} select(ne, d, b)"], s)
    run_case(case, exact=True, expect="epilogue")


@pytest.mark.parametrize("c", ["0.25", "3", "-8", "1e-40"])
def test_divide_by_a_constant(c: str) -> None:
    """x / 2^k runs as x * 2^-k (exact); other divisors divide."""
    from hlotools.backend.llvm.lower.epilogue_program import _reciprocal
    s = "f32[10,40]"
    case = Case(["f32[10,6]", "f32[6,40]"], [_dot(s), f"c = f32[] constant({c})",
                                             f"cb = {s} broadcast(c), dimensions={{}}", f"r = {s} divide(d, cb)"], s)
    divisor = hlotools.parse_module(case.fused()).computations[0].instructions[3]
    et = divisor.shape.element_type
    assert et is not None and (_reciprocal(divisor, et) is not None) == (c in ("0.25", "-8"))
    run_case(case, exact=False, expect="epilogue")


# Values whose libm powf differs from what LLVM rewrites pow(x, c) into (x * x, 1 / x, sqrt)
POWER_CASES = [("2", -0.8374544978141785), ("-1", 2.40573787689209), ("0.5", 2.2492663860321045)]


@pytest.mark.parametrize("c,x", POWER_CASES)
def test_power_of_a_constant_takes_the_in_place_path(c: str, x: float) -> None:
    """pow(D, constant): the elemental loop's libm call is rewritten by LLVM for that value
    (x^2 -> x * x, x^-1 -> 1 / x, x^0.5 -> sqrt), which differs from powf at run time for
    these x (found by the forced-epilogue sweep: dot f32[1,65,65] with pow(d, 2)), so the
    epilogue leaves such a power to the in-place loop: the unfused bits."""
    s = "f32[9,40]"
    case = Case(["f32[9,1]", "f32[1,40]"], [_dot(s), f"c = f32[] constant({c})",
                                            f"cb = {s} broadcast(c), dimensions={{}}", f"r = {s} power(d, cb)"], s)
    args = [np.full((9, 1), x, np.float32), np.ones((1, 40), np.float32)]  # D = x exactly
    assert _how(case.fused()) == "in_place"
    with epilogues():
        fused = compile_module(hlotools.parse_module(case.fused()))(args)[0]
    plain = compile_module(hlotools.parse_module(case.plain()))(args)[0]
    np.testing.assert_array_equal(_bits(fused), _bits(plain))
    base = f"{s} broadcast(c), dimensions={{}}"
    two = Case(case.params, [_dot(s), "c = f32[] constant(2)", f"cb = {base}", f"r = {s} power(cb, d)"], s)
    assert _how(two.fused()) == "in_place"  # 2^y -> exp2(y) likewise


def test_power_of_a_run_time_scalar_takes_the_epilogue() -> None:
    """The exponent a parameter: pow runs as a call in both paths (same bits)."""
    s = "f32[17,40]"
    case = Case(["f32[17,9]", "f32[9,40]", "f32[]"], [_dot(s), f"a = {s} abs(d)", f"cb = {s} broadcast(p2), dimensions={{}}",
                                                      f"r = {s} power(a, cb)"], s)
    run_case(case, exact=False, expect="epilogue")


def test_unsupported_op_takes_the_in_place_path() -> None:
    """remainder is no epilogue op: D goes into the output, then one loop computes the ROOT."""
    s = "f32[20,30]"
    case = Case(["f32[20,10]", "f32[10,30]", "f32[20,30]"], [_dot(s), f"r = {s} remainder(d, p2)"], s)
    run_case(case, exact=False, expect="in_place")


def test_converted_root_calls_the_fused_computation() -> None:
    """The ROOT's type is not D's: the output buffer cannot hold D, the computation is called."""
    case = Case(["f32[20,10]", "f32[10,30]"], [_dot("f32[20,30]"), "r = f16[20,30] convert(d)"], "f16[20,30]")
    run_case(case, exact=False, expect=None, rtol=1e-3, atol=1e-3)


def test_data_movement_of_d_calls_the_fused_computation() -> None:
    """A reverse of D's value reads D elsewhere than at the output's index: not in place."""
    s = "f32[20,30]"
    case = Case(["f32[20,10]", "f32[10,30]"], [_dot(s), f"v = {s} reverse(d), dimensions={{1}}",
                                               f"r = {s} add(v, d)"], s)
    run_case(case, exact=False, expect=None)


def test_blas_path_takes_the_in_place_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """With HLOTOOLS_BLAS=1 a big f32 dot calls BLAS (no epilogue there): in place instead."""
    from hlotools.backend.llvm.lower.gemm import blas_enabled
    from hlotools.backend.llvm.native import jit
    if not jit.blas_symbols():
        pytest.skip("no BLAS in this process")
    monkeypatch.setenv("HLOTOOLS_BLAS", "1")
    s = "f32[64,64]"
    case = Case(["f32[64,64]", "f32[64,64]", "f32[64]"],
                [_dot(s), f"b = {s} broadcast(p2), dimensions={{1}}", f"r = {s} add(d, b)"], s)
    with blas_enabled():
        assert _how(case.fused()) == "in_place"
    args = _args(case)
    got = compile_module(hlotools.parse_module(case.fused()))(args)[0]
    want = evaluate(hlotools.parse_module(case.plain()), args)[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_too_many_live_values_fall_back_in_place() -> None:
    """More simultaneously live tiles than MAX_REGS (every x_k is read again at the end):
    the encoder refuses, the in-place path runs."""
    s = "f32[8,32]"
    n = gemm_epilogue.MAX_REGS + 1
    body = [_dot(s)] + [f"x{k} = {s} add(d, p{2 + k})" for k in range(n)]
    acc = "x0"
    for k in range(1, n):
        body.append(f"y{k} = {s} multiply({acc}, x{k})")
        acc = f"y{k}"
    for k in range(n):
        body.append(f"z{k} = {s} add({acc}, x{k})")
        acc = f"z{k}"
    body[-1] = body[-1].replace(f"z{n - 1} =", "r =")
    case = Case(["f32[8,16]", "f32[16,32]", *[s] * n], body, s)
    run_case(case, exact=False, expect="in_place", rtol=1e-4, atol=1e-4)


@needs_cc
def test_aot_object_runs_an_epilogue_in_a_c_program(tmp_path: Path) -> None:
    """AOT objects define the kernel and its interpreter inside."""
    s = "f32[37,70]"
    case = Case(["f32[37,53]", "f32[53,70]", "f32[70]"],
                [_dot(s), f"b = {s} broadcast(p2), dimensions={{1}}", f"a = {s} add(d, b)", *_relu(s)], s)
    args = _args(case)
    with epilogues():
        got = build_and_run(tmp_path, case.fused(), list(args), "epi")
        jit_got = compile_module(hlotools.parse_module(case.fused()))(args)[0]
    np.testing.assert_array_equal(got[0], jit_got)


UNARY = ["negate", "abs", "exponential", "tanh", "logistic", "sqrt", "floor", "sign"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "divide"]


@st.composite
def epilogue_cases(draw: st.DrawFn) -> Case:
    m, k, n = draw(st.integers(1, 21)), draw(st.integers(1, 9)), draw(st.integers(1, 40))
    s = f"f32[{m},{n}]"
    params = [f"f32[{m},{k}]", f"f32[{k},{n}]"]
    body = [_dot(s)]
    values = ["d"]
    for j in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["unary", "scalar", "column", "row", "full", "select"]))
        x = draw(st.sampled_from(values))
        if kind == "select":
            y = draw(st.sampled_from(values))
            direction = draw(st.sampled_from(["EQ", "NE", "LT", "LE", "GT", "GE"]))
            body.append(f"k{j} = f32[] constant({draw(st.sampled_from(['0', '-0.5', '1']))})")
            body.append(f"kb{j} = {s} broadcast(k{j}), dimensions={{}}")
            body.append(f"t{j} = pred[{m},{n}] compare({x}, kb{j}), direction={direction}")
            body.append(f"v{j} = {s} select(t{j}, {y}, kb{j})")
        elif kind == "unary":
            op = draw(st.sampled_from(UNARY))
            if op == "sqrt":
                body.append(f"q{j} = {s} abs({x})")
                x = f"q{j}"
            body.append(f"v{j} = {s} {op}({x})")
        else:
            op = draw(st.sampled_from(BINARY))
            if kind == "scalar":
                body.append(f"c{j} = f32[] constant({draw(st.sampled_from(['0', '-1.5', '2', '0.25']))})")
                body.append(f"o{j} = {s} broadcast(c{j}), dimensions={{}}")
            else:
                p = len(params)
                shape, dims = {"column": (f"f32[{n}]", "{1}"), "row": (f"f32[{m}]", "{0}"),
                               "full": (s, None)}[kind]
                params.append(shape)
                body.append(f"o{j} = {s} broadcast(p{p}), dimensions={dims}" if dims else f"o{j} = {s} copy(p{p})")
                if dims is None:
                    body[-1] = f"o{j} = {s} add(p{p}, p{p})"
            operands = (x, f"o{j}") if draw(st.booleans()) else (f"o{j}", x)
            body.append(f"v{j} = {s} {op}({operands[0]}, {operands[1]})")
        values.append(f"v{j}")
    return chain_case(params, body, values, s)


def chain_case(params: list[str], body: list[str], values: list[str], s: str) -> Case:
    """The Case of `body`, with every value no later line reads added into the ROOT (a
    fused computation has no dead instructions)."""
    used = {w.strip(",()") for line in body for w in line.split("(", 1)[-1].split()}
    acc = values[-1]
    for j, v in enumerate(v for v in values[:-1] if v not in used):
        body.append(f"acc{j} = {s} add({acc}, {v})")
        acc = f"acc{j}"
    return Case(params, body, s)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(epilogue_cases())
def test_random_epilogues_are_the_unfused_result_bit_for_bit(case: Case) -> None:
    args = _args(case, seed=1)
    with generated_only(), epilogues():
        assert _how(case.fused()) == "epilogue"
        fused = compile_module(hlotools.parse_module(case.fused()))(args)[0]
        plain = compile_module(hlotools.parse_module(case.plain()))(args)[0]
    np.testing.assert_array_equal(_bits(fused), _bits(plain))
    want = evaluate(hlotools.parse_module(case.plain()), args)[0]
    np.testing.assert_allclose(fused, want, rtol=2e-4, atol=1e-4, equal_nan=True)


def test_default_size_threshold() -> None:
    """By default only results of EPILOGUE_MIN_BYTES or more take the epilogue (smaller ones
    run faster through the in-place loop)."""
    from hlotools.backend.llvm.lower.output_fusion import EPILOGUE_MIN_BYTES
    rows = EPILOGUE_MIN_BYTES // (4 * 64)
    for m, want in ((rows, "epilogue"), (rows - 1, "in_place")):
        s = f"f32[{m},64]"
        case = Case([f"f32[{m},8]", "f32[8,64]"], [_dot(s), *_relu(s, "d")], s)
        assert _how_default(case.fused()) == want


def _corpus_modules_with_output_fusions() -> list[str]:
    from tests.corpus.test_interpreter import JAX
    if not JAX.is_dir():
        return []
    return ["big_conv", "cnn_mnist", "mlp2_relu", "mlp3_gelu", "mlp_bf16_mixed", "remat_grad", "scan_rnn",
            "train_step_mlp", "transformer_block", "llama_block", "big_attention_256", "train_step_cnn"]


@pytest.mark.slow
@pytest.mark.parametrize("name", _corpus_modules_with_output_fusions())
def test_jax_corpus_after_o2_epilogue_vs_in_place(name: str) -> None:
    """The JAX modules through the backend's O2 pipeline (epilogue-fusion makes their kOutput
    fusions): the epilogue at every size and the in-place path give the same bits, and XLA's
    outputs (the corpus test's tolerances)."""
    from hlotools.backend.llvm.driver.pipeline import optimise_module
    from tests.corpus.test_interpreter import JAX, _leaf_dtypes, _load, assert_matches, op_class
    path = JAX / f"{name}.hlo"
    module = optimise_module(hlotools.parse_module(path.read_text(), str(path)))
    kinds = [decide(i) for c in module.computations for i in c.instructions
             if i.opcode == "fusion" and str(i.attrs.get("kind")) == "kOutput"]
    assert kinds, f"{name}: no kOutput fusion after O2"
    in_dt, out_dt = _leaf_dtypes(module)
    with np.load(JAX / f"{name}.inputs.npz") as f:
        args = _load(f, "in", in_dt)
    with np.load(JAX / f"{name}.expected.npz") as f:
        want = _load(f, "out", out_dt)
    with epilogues():
        got = compile_module(module)(args)
    with epilogues(False):
        ref = compile_module(module)(args)
    klass = op_class({i.opcode for c in module.computations for i in c.instructions})
    for i, (g, r, w) in enumerate(zip(got, ref, want)):
        np.testing.assert_array_equal(_bits(np.asarray(g)), _bits(np.asarray(r)))
        assert_matches(np.asarray(g), w, klass, f"{name} out{i}")
