"""Correctness of the LLVM backend's fast kernels (lower/gemm.py's BLAS call and generated
register-blocked GEMM, the im2col convolution, parallel loops) against numpy and the
interpreter: odd sizes, batch dims, transposed operands and results (layouts), every float
type and integers. Never timing assertions."""
from __future__ import annotations

import contextlib
import os

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm import compile_module
from hlotools.backend.llvm.lower import gemm
from hlotools.backend.llvm.native import jit
from hlotools.ir.instruction import Instruction
from hlotools.ir.types import ELEMENT_TYPES

DTYPES = {"f32": np.float32, "f64": np.float64, "bf16": ml_dtypes.bfloat16, "f16": np.float16,
          "s32": np.int32, "s8": np.int8, "u8": np.uint8, "s64": np.int64}


def _layout(rank: int, order: str) -> str:
    if rank == 0:
        return ""
    if order == "row":
        mtm = list(range(rank - 1, -1, -1))
    else:  # the two minor-most logical dims swapped (a transposed buffer)
        mtm = list(range(rank - 1, -1, -1))
        if rank >= 2:
            mtm[0], mtm[1] = mtm[1], mtm[0]
    return "{" + ",".join(map(str, mtm)) + "}"


def _shape(t: str, dims: tuple[int, ...], order: str = "row") -> str:
    return f"{t}[{','.join(map(str, dims))}]{_layout(len(dims), order)}"


def dot_module(t: str, lhs: tuple[int, ...], rhs: tuple[int, ...], out: tuple[int, ...], attrs: str,
               orders: tuple[str, str, str] = ("row", "row", "row"), out_t: str | None = None) -> str:
    ot = out_t or t
    return (f"HloModule dot\n\nENTRY main {{\n"
            f"  a = {_shape(t, lhs, orders[0])} parameter(0)\n"
            f"  b = {_shape(t, rhs, orders[1])} parameter(1)\n"
            f"  ROOT d = {_shape(ot, out, orders[2])} dot(a, b), {attrs}\n}}\n")


def _rand(t: str, dims: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    dt = DTYPES[t]
    if np.dtype(dt).kind in "iu":
        return rng.integers(-5 if np.dtype(dt).kind == "i" else 0, 6, size=dims).astype(dt)
    return rng.standard_normal(dims).astype(dt)


def _tol(t: str, k: int) -> float:
    return {"f32": 1e-4, "f64": 1e-10, "bf16": 2e-2, "f16": 4e-3}.get(t, 0.0) * max(1.0, np.sqrt(k))


@contextlib.contextmanager
def _kernel(kind: str):  # type: ignore[no-untyped-def]
    """generated: never BLAS; blas: the JIT-linked BLAS where the dot is big enough."""
    if kind == "generated":
        with gemm.generated_only():
            yield
        return
    if not jit.blas_symbols():
        pytest.skip("no BLAS in this process")
    old = os.environ.get("HLOTOOLS_BLAS")
    os.environ["HLOTOOLS_BLAS"] = "1"
    try:
        yield
    finally:
        if old is None:
            del os.environ["HLOTOOLS_BLAS"]
        else:
            os.environ["HLOTOOLS_BLAS"] = old


def _check_dot(text: str, t: str, eins: str, lhs: tuple[int, ...], rhs: tuple[int, ...], kind: str,
               out_t: str | None = None, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    module = hlotools.parse_module(text)
    a, b = _rand(t, lhs, rng), _rand(t, rhs, rng)
    with _kernel(kind):
        got = compile_module(module)([a, b])[0]
    ot = out_t or t
    want = np.einsum(eins, a.astype(np.float64), b.astype(np.float64))
    assert got.dtype == np.dtype(DTYPES[ot])
    k = max(lhs) if lhs else 1  # a bound on the contraction length, for the tolerance
    if np.dtype(DTYPES[ot]).kind in "iu":
        np.testing.assert_array_equal(got, want.astype(DTYPES[ot]))
    else:
        scale = np.abs(want).max() + 1.0
        err = np.abs(got.astype(np.float64) - want).max() / scale
        assert err <= _tol(ot, k) + (1e-2 if t in ("bf16", "f16") else 0.0), (err, text)


KINDS = ["generated", "blas"]

MATMUL_SIZES = [(1, 1, 1), (1, 7, 3), (5, 1, 9), (3, 5, 1), (4, 32, 8), (5, 33, 17), (17, 31, 65), (64, 64, 64),
                (33, 100, 47), (128, 96, 130)]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("m,n,k", MATMUL_SIZES)
def test_matmul_sizes(m: int, n: int, k: int, kind: str) -> None:
    text = dot_module("f32", (m, k), (k, n), (m, n), "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    _check_dot(text, "f32", "mk,kn->mn", (m, k), (k, n), kind)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("orders", [("col", "row", "row"), ("row", "col", "row"), ("row", "row", "col"),
                                    ("col", "col", "col")])
@pytest.mark.parametrize("m,n,k", [(9, 40, 33), (70, 65, 80)])
def test_matmul_layouts(m: int, n: int, k: int, orders: tuple[str, str, str], kind: str) -> None:
    text = dot_module("f32", (m, k), (k, n), (m, n), "lhs_contracting_dims={1}, rhs_contracting_dims={0}", orders)
    _check_dot(text, "f32", "mk,kn->mn", (m, k), (k, n), kind)


@pytest.mark.parametrize("kind", KINDS)
def test_transposed_contractions(kind: str) -> None:
    # lhs contracts its major dim, rhs its minor one: A^T B^T in BLAS terms
    text = dot_module("f32", (37, 21), (45, 37), (21, 45), "lhs_contracting_dims={0}, rhs_contracting_dims={1}")
    _check_dot(text, "f32", "km,nk->mn", (37, 21), (45, 37), kind)


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("batch,m,n,k,out_order", [((), 32, 100, 33, "row"), ((), 70, 70, 80, "row"),
                                                   ((3,), 40, 57, 9, "row"), ((), 45, 1000, 7, "col")])
def test_weight_transposed_dot_runs_swapped(t: str, batch: tuple[int, ...], m: int, n: int, k: int,
                                            out_order: str) -> None:
    """x @ W.T (rhs contracting its minor dim: torch's Linear) as C^T = W x^T, W read in
    place as the kernel's A and only x packed; the result written through its strides."""
    nb = len(batch)
    bd = "lhs_batch_dims={0}, rhs_batch_dims={0}, " if nb else ""
    lhs, rhs, out = (*batch, m, k), (*batch, n, k), (*batch, m, n)
    text = dot_module(t, lhs, rhs, out, f"{bd}lhs_contracting_dims={{{nb + 1}}}, rhs_contracting_dims={{{nb + 1}}}",
                      ("row", "row", out_order))
    with gemm.generated_only():
        p = gemm.plan(hlotools.parse_module(text).entry.root)  # type: ignore[union-attr]
    assert p is not None and p.swapped and not p.a.packed and p.b.packed
    _check_dot(text, t, "bmk,bnk->bmn" if nb else "mk,nk->mn", lhs, rhs, "generated")


def test_few_rows_or_a_packed_weight_are_not_swapped() -> None:
    """Fewer rows than a panel (they would become the kernel's columns) or more rows than
    the weight has: B is packed as before."""
    attrs = "lhs_contracting_dims={1}, rhs_contracting_dims={1}"
    for m, n in ((3, 100), (200, 50)):
        p = gemm.plan(hlotools.parse_module(dot_module("f32", (m, 16), (n, 16), (m, n), attrs)).entry.root)  # type: ignore[union-attr]
        assert p is not None and not p.swapped and p.b.packed
        _check_dot(dot_module("f32", (m, 16), (n, 16), (m, n), attrs), "f32", "mk,nk->mn", (m, 16), (n, 16),
                   "generated")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_batched_attention_shapes(t: str, kind: str) -> None:
    # bqhd,bkhd->bhqk and bhqk,bkhd->bqhd as JAX writes them (batch dims not leading)
    text = dot_module(t, (2, 33, 3, 16), (2, 40, 3, 16), (2, 3, 33, 40),
                      "lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}")
    _check_dot(text, t, "bqhd,bkhd->bhqk", (2, 33, 3, 16), (2, 40, 3, 16), kind)
    text = dot_module(t, (2, 40, 3, 16), (2, 3, 33, 40), (2, 3, 16, 33),
                      "lhs_batch_dims={0,2}, lhs_contracting_dims={1}, rhs_batch_dims={0,1}, rhs_contracting_dims={3}")
    _check_dot(text, t, "bkhd,bhqk->bhdq", (2, 40, 3, 16), (2, 3, 33, 40), kind)


@pytest.mark.parametrize("kind", KINDS)
def test_multiple_free_and_contracting_dims(kind: str) -> None:
    text = dot_module("f32", (3, 5, 4, 6), (4, 6, 7, 2), (3, 5, 7, 2),
                      "lhs_contracting_dims={2,3}, rhs_contracting_dims={0,1}")
    _check_dot(text, "f32", "abcd,cdef->abef", (3, 5, 4, 6), (4, 6, 7, 2), kind)
    # contracting dims in a different order on each side
    text = dot_module("f32", (3, 4, 6), (6, 4, 5), (3, 5), "lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}")
    _check_dot(text, "f32", "acd,dce->ae", (3, 4, 6), (6, 4, 5), kind)


@pytest.mark.parametrize("t", ["bf16", "f16", "f64", "s32", "s8", "u8", "s64"])
@pytest.mark.parametrize("kind", KINDS)
def test_element_types(t: str, kind: str) -> None:
    text = dot_module(t, (2, 13, 35), (2, 35, 19), (2, 13, 19),
                      "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}")
    _check_dot(text, t, "bmk,bkn->bmn", (2, 13, 35), (2, 35, 19), kind)


def test_mixed_precision_output() -> None:
    # bf16 operands, f32 result (preferred_element_type): operands packed with conversion
    text = dot_module("bf16", (9, 40), (40, 50), (9, 50), "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                      out_t="f32")
    for kind in KINDS:
        _check_dot(text, "bf16", "mk,kn->mn", (9, 40), (40, 50), kind, out_t="f32")
    text = dot_module("s8", (9, 40), (40, 50), (9, 50), "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                      out_t="s32")
    _check_dot(text, "s8", "mk,kn->mn", (9, 40), (40, 50), "generated", out_t="s32")


def test_vector_dot_and_outer_product() -> None:
    text = dot_module("f32", (77,), (77,), (), "lhs_contracting_dims={0}, rhs_contracting_dims={0}")
    _check_dot(text, "f32", "k,k->", (77,), (77,), "generated")
    text = ("HloModule outer\n\nENTRY main {\n  a = f32[13]{0} parameter(0)\n  b = f32[29]{0} parameter(1)\n"
            "  ROOT d = f32[13,29]{1,0} dot(a, b)\n}\n")
    _check_dot(text, "f32", "m,n->mn", (13,), (29,), "generated")


@pytest.mark.parametrize("kind", KINDS)
def test_large_parallel_gemm(kind: str) -> None:
    # big enough for the generated kernel to split its tasks across threads
    from hlotools.backend.llvm.kernels import parallel_for
    text = dot_module("f32", (3, 130, 300), (3, 300, 150), (3, 130, 150),
                      "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}")
    _check_dot(text, "f32", "bmk,bkn->bmn", (3, 130, 300), (3, 300, 150), kind)
    if kind == "generated" and parallel_for.enabled():
        with gemm.generated_only():
            assert "hlo.parallel_for" in compile_module(hlotools.parse_module(text)).llvm_ir


def test_fused_operand_and_interpreter_agree() -> None:
    # a dot of an elementwise chain and a transpose, against the interpreter
    text = ("HloModule m\n\nENTRY main {\n  a = f32[31,45]{1,0} parameter(0)\n  b = f32[20,45]{1,0} parameter(1)\n"
            "  e = f32[31,45]{1,0} exponential(a)\n  t = f32[45,20]{1,0} transpose(b), dimensions={1,0}\n"
            "  ROOT d = f32[31,20]{1,0} dot(e, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n")
    module = hlotools.parse_module(text)
    rng = np.random.default_rng(3)
    args = [rng.standard_normal((31, 45)).astype(np.float32), rng.standard_normal((20, 45)).astype(np.float32)]
    want = evaluate(module, args)[0]
    for kind in KINDS:
        with _kernel(kind):
            got = compile_module(module)(args)[0]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_plan_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel choice follows the shapes: BLAS only when enabled (HLOTOOLS_BLAS=1, JIT
    only) for big f32/f64 dots; small or integer dots and AOT (no blas_enabled context)
    use the generated kernel; complex dots emit_dot's loop nest."""
    def plan_of(text: str) -> gemm.Plan | None:
        m = hlotools.parse_module(text)
        return gemm.plan(m.entry.root)
    big = dot_module("f32", (64, 64), (64, 64), (64, 64), "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    monkeypatch.setenv("HLOTOOLS_BLAS", "1")
    p = plan_of(big)
    assert p is not None and not p.blas  # outside blas_enabled (AOT): the generated kernel
    with gemm.blas_enabled(True):
        p = plan_of(big)
        assert p is not None and p.blas
        small = dot_module("f32", (4, 4), (4, 4), (4, 4), "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
        assert not plan_of(small).blas  # type: ignore[union-attr]
        ints = dot_module("s32", (64, 64), (64, 64), (64, 64), "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
        assert not plan_of(ints).blas  # type: ignore[union-attr]
    monkeypatch.delenv("HLOTOOLS_BLAS")
    with gemm.blas_enabled(True):
        assert not plan_of(big).blas  # type: ignore[union-attr]  # off by default
    cplx = dot_module("c64", (4, 4), (4, 4), (4, 4), "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    assert plan_of(cplx) is None  # complex: emit_dot's loop nest
    # generated kernel: B read in place (row-major), a tail panel only when N is ragged; with
    # more than one row block, each panel packed by its task (the buffers: one scratch), else
    # (a panel past TASK_PACK_MAX_BYTES, many rows) B packed as panels before the kernel
    rows = gemm.blocking(ELEMENT_TYPES["f32"], 64).rows
    few = dot_module("f32", (rows, 64), (64, 64), (rows, 64), "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    p = plan_of(few)
    assert p is not None and not p.b.packed and not p.tail and not p.task_pack and p.scratch == ()
    p = plan_of(big)
    assert p is not None and not p.b.packed and p.task_pack and len(p.scratch) == 1
    assert p.scratch[0] == gemm.tasks(p).count * 64 * gemm.panel_width(p.ct, p.dims.n) * 4
    monkeypatch.setattr(gemm, "TASK_PACK_MAX_BYTES", 64 * gemm.panel_width(p.ct, p.dims.n) * 4 - 1)
    p = plan_of(big)
    assert p is not None and p.b.packed and not p.task_pack and len(p.scratch) == 1
    monkeypatch.undo()
    # the tasks' buffers never take more than packing all of B would (many threads, few panels)
    tall = dot_module("f32", (4000, 256), (256, 256), (4000, 256), "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    monkeypatch.setattr(gemm.parallel_for, "host_threads", lambda: 2)
    assert plan_of(tall).task_pack  # type: ignore[union-attr]
    monkeypatch.setattr(gemm.parallel_for, "host_threads", lambda: 64)
    p = plan_of(tall)
    assert p is not None and not p.task_pack and p.b.packed
    odd = dot_module("f32", (5, 7), (7, 9), (5, 9), "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    p = plan_of(odd)
    assert p is not None and p.tail and len(p.scratch) == 1
    colb = dot_module("f32", (5, 7), (7, 9), (5, 9), "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
                      ("row", "col", "row"))
    p = plan_of(colb)
    assert p is not None and p.b.packed and p.npad % 8 == 0


# ------------------------------------------------------------------ convolution (im2col + GEMM)

CONV_CASES = [
    # lhs dims, rhs dims, out dims, window, dim_labels
    ((2, 9, 9, 3), (3, 3, 3, 40), (2, 9, 9, 40), "size=3x3 pad=1_1x1_1", "b01f_01io->b01f"),
    ((2, 10, 11, 5), (3, 2, 5, 33), (2, 4, 10, 33), "size=3x2 stride=2x1 pad=0_0x0_0", "b01f_01io->b01f"),
    ((2, 4, 16, 16), (20, 4, 3, 3), (2, 20, 8, 8), "size=3x3 stride=2x2 pad=1_0x1_0", "bf01_oi01->bf01"),
    ((3, 8, 8, 6), (3, 3, 6, 17), (3, 17, 17, 17), "size=3x3 pad=2_2x2_2 lhs_dilate=2x2",
     "b01f_01io->b01f"),
    ((2, 13, 13, 4), (3, 3, 4, 35), (2, 9, 9, 35), "size=3x3 rhs_dilate=2x2", "b01f_01io->b01f"),
    ((2, 9, 9, 3), (3, 3, 3, 40), (2, 9, 9, 40), "size=3x3 pad=1_1x1_1 rhs_reversal=1x1", "b01f_01io->b01f"),
    ((2, 50, 7), (5, 7, 24), (2, 46, 24), "size=5", "b0f_0io->b0f"),
    ((2, 9, 9, 3), (40, 3, 3, 3), (2, 40, 9, 9), "size=3x3 pad=1_1x1_1", "b01f_o01i->bf01"),
]


@pytest.mark.parametrize("case", range(len(CONV_CASES)))
@pytest.mark.parametrize("t", ["f32", "f64"])
def test_convolution_im2col_against_interpreter(case: int, t: str) -> None:
    from hlotools.backend.llvm.lower import conv_gemm
    ls, rs, os_, window, labels = CONV_CASES[case]
    text = (f"HloModule c\n\nENTRY main {{\n  x = {t}[{','.join(map(str, ls))}] parameter(0)\n"
            f"  k = {t}[{','.join(map(str, rs))}] parameter(1)\n"
            f"  ROOT y = {t}[{','.join(map(str, os_))}] convolution(x, k), window={{{window}}}, "
            f"dim_labels={labels}\n}}\n")
    module = hlotools.parse_module(text)
    assert conv_gemm.conv_plan(module.entry.root) is not None  # the GEMM path, not the loop nest
    rng = np.random.default_rng(case)
    args = [rng.standard_normal(ls).astype(DTYPES[t]), rng.standard_normal(rs).astype(DTYPES[t])]
    want = evaluate(module, args)[0]
    got = compile_module(module)(args)[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_convolution_fallbacks() -> None:
    """Grouped, integer and tiny convolutions take emit_conv's loop nest (and still agree)."""
    from hlotools.backend.llvm.lower import conv_gemm
    text = ("HloModule c\n\nENTRY main {\n  x = f32[2,8,8,6] parameter(0)\n  k = f32[3,3,3,12] parameter(1)\n"
            "  ROOT y = f32[2,8,8,12] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f,"
            " feature_group_count=2\n}\n")
    module = hlotools.parse_module(text)
    assert conv_gemm.conv_plan(module.entry.root) is None
    rng = np.random.default_rng(9)
    args = [rng.standard_normal((2, 8, 8, 6)).astype(np.float32), rng.standard_normal((3, 3, 3, 12)).astype(np.float32)]
    np.testing.assert_allclose(compile_module(module)(args)[0], evaluate(module, args)[0], rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------ parallel loops

def test_parallel_loops_compile_call_release() -> None:
    """A loop big enough to run on helper threads: right values every call, and modules
    compiled, called and dropped in a row never crash (helper threads are joined before
    their code is freed)."""
    import gc

    from hlotools.backend.llvm.kernels import parallel_for
    text = ("HloModule s\n\nENTRY main {\n  a = f32[300,1024]{1,0} parameter(0)\n"
            "  e = f32[300,1024]{1,0} exponential(a)\n  ROOT t = f32[300,1024]{1,0} tanh(e)\n}\n")
    module = hlotools.parse_module(text)
    x = np.random.default_rng(1).random((300, 1024)).astype(np.float32)
    want = np.tanh(np.exp(x))
    for _ in range(6):
        c = compile_module(module)
        if parallel_for.enabled():
            assert "hlo.parallel_for" in c.llvm_ir
        for _ in range(3):
            np.testing.assert_allclose(c([x])[0], want, rtol=1e-5, atol=1e-6)
        del c
        gc.collect()


def test_parallel_and_serial_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    text = ("HloModule s\n\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT z = f32[] add(x, y)\n}\n\n"
            "ENTRY main {\n  a = f32[257,1031]{1,0} parameter(0)\n  c = f32[] constant(0)\n"
            "  r = f32[257]{0} reduce(a, c), dimensions={1}, to_apply=add\n"
            "  b = f32[257,1031]{1,0} broadcast(r), dimensions={0}\n  ROOT d = f32[257,1031]{1,0} divide(a, b)\n}\n")
    module = hlotools.parse_module(text)
    x = np.random.default_rng(2).random((257, 1031)).astype(np.float32)
    par_out = compile_module(module)([x])[0]
    monkeypatch.setenv("HLOTOOLS_NUM_THREADS", "1")
    c = compile_module(module)
    assert "hlo.parallel_for" not in c.llvm_ir
    np.testing.assert_allclose(c([x])[0], par_out, rtol=1e-6)
    np.testing.assert_allclose(par_out, x / x.sum(axis=1, keepdims=True), rtol=1e-4)


def test_blocking_fits_each_register_file() -> None:
    """One row per ISA level: its accumulators, B vectors and broadcast fit the registers, and
    the feature string picks the widest level present (kernel names differ per block)."""
    from hlotools.backend.llvm.kernels import gemm as gemm_kernel
    f32 = ELEMENT_TYPES["f32"]
    for rf in gemm_kernel.REGISTER_FILES:
        assert rf.rows * rf.vecs + rf.vecs + 1 + 1 <= rf.registers, rf  # + the product without FMA
    v4 = gemm_kernel.blocking_for(f32, "+sse2,+avx,+avx2,+fma,+avx512f")
    v3 = gemm_kernel.blocking_for(f32, "+sse2,+avx,+avx2,+fma,-avx512f")
    v2 = gemm_kernel.blocking_for(f32, "+sse2,+sse4.2,-avx")
    avx = gemm_kernel.blocking_for(f32, "+sse2,+avx,-fma")  # Sandy Bridge: 256-bit, no FMA
    assert (v4.lanes, v3.lanes, v2.lanes, avx.lanes) == (16, 8, 4, 8)
    assert (v4.fused, v3.fused, v2.fused, avx.fused) == (True, True, False, False)
    assert v4.registers() <= 32 and v3.registers() <= 16 and v2.registers() <= 16 and avx.registers() <= 16
    assert len({gemm_kernel.kernel_name(f32, b) for b in (v2, v3, v4, avx)}) == 4
    assert gemm_kernel.blocking_for(ELEMENT_TYPES["s32"], "+sse2").fused  # integers: one name either way


def test_unfused_kernel_group_round_trips() -> None:
    """A `.nofma` group name builds the unfused kernel (fmul, fadd; no llvm.fma), the plain
    one the fused kernel: the name alone decides the code."""
    from hlotools.backend.llvm.kernels import library as runtime_library
    unfused = runtime_library.build_ir("gemm.f32.x4.v2.r6.nofma")
    fused = runtime_library.build_ir("gemm.f32.x4.v2.r6")
    # 6x2 in each of the two k loops (the one that packs B's panel and the plain one)
    assert "llvm.fma.v4f32" not in unfused and fused.count('call <4 x float> @"llvm.fma.v4f32"') == 2 * 12
    for op in ("fmul", "fadd"):  # the epilogue's interpreter has its own
        assert unfused.count(f"{op} <4 x float>") == fused.count(f"{op} <4 x float>") + 2 * 12, op
    assert runtime_library.group_of("gemm.f32.x4.v2.r6.nofma") == "gemm.f32.x4.v2.r6.nofma"


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_panels_inner_gives_the_same_bits(t: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """All panels of B per task (a big A, a small B) only reorders the tiles: the bits are
    those of one panel per task (ragged M and N: clamped rows, a partial last panel)."""
    text = dot_module(t, (301, 37), (37, 83), (301, 83), "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    module = hlotools.parse_module(text)
    rng = np.random.default_rng(3)
    a, b = _rand(t, (301, 37), rng), _rand(t, (37, 83), rng)
    p = gemm.plan(module.entry.root)
    assert p is not None
    panels = -(-83 // gemm.panel_width(p.ct, p.dims.n))
    monkeypatch.setattr(gemm, "PANELS_INNER_MIN_A", 1 << 40)
    assert gemm.panels_per_task(p, panels) == 1
    with gemm.generated_only():
        one = compile_module(module)([a, b])[0]
    monkeypatch.setattr(gemm, "PANELS_INNER_MIN_A", 0)
    assert gemm.panels_per_task(p, panels) == panels > 1
    with gemm.generated_only():
        inner = compile_module(module)([a, b])[0]
    assert one.tobytes() == inner.tobytes()
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(inner - want).max() <= _tol(t, 37) * (np.abs(want).max() + 1.0)


TASK_PACK_SIZES = [((), 17, 1, 5), ((), 17, 31, 1), ((), 13, 97, 61), ((), 131, 67, 257), ((), 64, 2048, 3),
                   ((3,), 19, 45, 23), ((), 200, 300, 300)]


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("batch,m,n,k", TASK_PACK_SIZES)
def test_task_packing_gives_the_same_bits(t: str, batch: tuple[int, ...], m: int, n: int, k: int,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """B packed panel by panel by the tasks (Plan.task_pack: the first row block stores what
    it loads, the others read it back) gives the bits of B packed before the kernel: the
    same k loops. Sizes 1, primes, ragged last panels and row blocks, a batch, and one big
    enough for threads (tasks of several panels and several row chunks)."""
    nb = len(batch)
    bd = "lhs_batch_dims={0}, rhs_batch_dims={0}, " if nb else ""
    lhs, rhs, out = (*batch, m, k), (*batch, k, n), (*batch, m, n)
    text = dot_module(t, lhs, rhs, out, f"{bd}lhs_contracting_dims={{{nb + 1}}}, rhs_contracting_dims={{{nb}}}")
    module = hlotools.parse_module(text)
    rng = np.random.default_rng(5)
    a, b = _rand(t, lhs, rng), _rand(t, rhs, rng)
    results = []
    for cap in (gemm.TASK_PACK_MAX_BYTES, 0):
        monkeypatch.setattr(gemm, "TASK_PACK_MAX_BYTES", cap)
        monkeypatch.setattr(gemm, "PANEL_PACK_MIN_M", 1)  # without task packing: B packed
        with gemm.generated_only():
            p = gemm.plan(module.entry.root)
            assert p is not None and p.task_pack == (cap > 0) and p.b.packed == (cap == 0)
            results.append(compile_module(module)([a, b])[0])
    assert results[0].tobytes() == results[1].tobytes()
    want = np.einsum("...mk,...kn->...mn", a.astype(np.float64), b.astype(np.float64))
    assert np.abs(results[0] - want).max() <= _tol(t, k) * (np.abs(want).max() + 1.0)
def test_plan_memo_keys_on_what_the_plan_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """gemm.plan memoises by plan_key: dots differing only in an operand's layout or the BLAS
    switch get their own plans, equal to what the unmemoised planner makes; equal dots of
    two modules share one."""
    attrs = "lhs_contracting_dims={1}, rhs_contracting_dims={0}"

    def root(text: str) -> Instruction:
        return hlotools.parse_module(text).entry.root  # type: ignore[union-attr,return-value]
    row = dot_module("f32", (64, 64), (64, 64), (64, 64), attrs)
    col = dot_module("f32", (64, 64), (64, 64), (64, 64), attrs, orders=("row", "col", "row"))
    a, b, c = root(row), root(row), root(col)
    assert gemm.plan_key(a) == gemm.plan_key(b) and gemm.plan_key(a) != gemm.plan_key(c)
    assert gemm.plan(a) is gemm.plan(b) and gemm.plan(c) == gemm._plan(c) != gemm.plan(a)
    monkeypatch.setenv("HLOTOOLS_BLAS", "1")
    with gemm.blas_enabled(True):
        assert gemm.plan(a) == gemm._plan(a) and gemm.plan(a).blas  # type: ignore[union-attr]
    assert not gemm.plan(a).blas  # type: ignore[union-attr]


def test_narrow_block_for_one_vector_of_columns() -> None:
    """A dot of at most one vector of columns gets one vector by more rows (as many
    accumulators as the table's block, fitting the registers); wider dots the table's block."""
    from hlotools.backend.llvm.kernels import gemm as gemm_kernel
    f32, f64 = ELEMENT_TYPES["f32"], ELEMENT_TYPES["f64"]
    v4, v3, v2 = "+sse2,+avx,+avx2,+fma,+avx512f", "+sse2,+avx,+avx2,+fma,-avx512f", "+sse2,+sse4.2,-avx"
    assert gemm_kernel.kernel_name(f32, gemm_kernel.blocking_for(f32, v4, 16)) == "gemm.f32.x16.v1.r16"
    assert gemm_kernel.kernel_name(f32, gemm_kernel.blocking_for(f32, v3, 8)) == "gemm.f32.x8.v1.r12"
    assert gemm_kernel.kernel_name(f32, gemm_kernel.blocking_for(f32, v2, 4)) == "gemm.f32.x4.v1.r12.nofma"
    assert gemm_kernel.kernel_name(f64, gemm_kernel.blocking_for(f64, v4, 8)) == "gemm.f64.x8.v1.r16"
    for feats, regs in ((v4, 32), (v3, 16), (v2, 16)):
        lanes = gemm_kernel.blocking_for(f32, feats).lanes
        default = gemm_kernel.blocking_for(f32, feats)
        assert gemm_kernel.blocking_for(f32, feats, None) == default
        for n in (1, lanes - 1, lanes):
            narrow = gemm_kernel.blocking_for(f32, feats, n)
            assert narrow.vecs == 1 and narrow.nv == lanes and narrow.registers() <= regs, (feats, n)
        assert gemm_kernel.blocking_for(f32, feats, lanes + 1) == default


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("n", [1, 15, 16, 17, 31, 33])
def test_narrow_block_gives_the_same_bits(t: str, n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The narrow block (N up to one vector) only regroups output elements: each element's k
    loop is the same chain, so the bits are the table's block's. Ragged M (clamped rows)."""
    from hlotools.backend.llvm.kernels import gemm as gemm_kernel
    m, k = 203, 37
    text = dot_module(t, (m, k), (k, n), (m, n), "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    module = hlotools.parse_module(text)
    rng = np.random.default_rng(n)
    a, b = _rand(t, (m, k), rng), _rand(t, (k, n), rng)
    ct = ELEMENT_TYPES[t]
    chosen = gemm_kernel.kernel_name(ct, gemm.blocking(ct, n))
    default = gemm_kernel.kernel_name(ct, gemm.blocking(ct, None))
    assert (chosen != default) == (n <= gemm.blocking(ct, None).lanes)
    with gemm.generated_only():
        c = compile_module(module)
        got = c([a, b])[0]
        assert chosen in c.llvm_ir
        original = gemm.blocking
        monkeypatch.setattr(gemm, "_PLANS", {})
        monkeypatch.setattr(gemm, "blocking", lambda ct_, n_: original(ct_, None))
        c = compile_module(module)
        want = c([a, b])[0]
        assert default in c.llvm_ir
    assert got.tobytes() == want.tobytes()
    monkeypatch.undo()
    from hlotools.backend.llvm.driver import aot
    text = aot.compile_aot(module, "llvm")  # an AOT object defines the dot's own variant
    assert isinstance(text, str) and f'define internal void @"{chosen}"' in text
