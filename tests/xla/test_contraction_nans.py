"""Which NaN a dot or convolution gives: every NaN result element is the default quiet NaN of
its type with the sign clear (f32 0x7FC00000, f64 0x7FF8000000000000, f16 0x7E00, bf16
0x7FC0; each NaN part of a complex element likewise), on both backends and at every x86
feature level. With several NaN operands (or inf - inf, whose x86 NaN has the sign set) the
payload a sum of products keeps depends on how LLVM orders and commutes its multiplies and
adds at each level, so no payload survives (gemm_kernel.canonical_nan,
interpreter/linalg.canonical_nans).

Every code path that stores a contraction's result is a case: the GEMM kernel (B in place, packed
by its tasks and packed before it, f32/f64, f16/bf16 through the staged C), its epilogue (the NaN is canonical before
the program runs, as the unfused dot-then-negate sees it: the result is 0xFFC00000) and the
in-place kOutput path,
emit_dot's loop nests (row and element forms, complex), emit_conv's direct loops (row and
element forms, the run-time kernel check's skipping path), the im2col + GEMM convolution
and its epilogue, and OpenBLAS (HLOTOOLS_BLAS=1). The levels run in child processes of
their own ($HLOTOOLS_TARGET_CPU is read once per process), as tests/backend/llvm/native/test_feature_levels.py's."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.codegen import registry
from hlotools.backend.llvm.driver.runtime import CompiledModule
from hlotools.backend.llvm.lower import conv_gemm, convolution, dot, gemm
from hlotools.backend.llvm.lower.output_fusion import decide, epilogues
from tests.backend.llvm.native.test_feature_levels import LEVELS, X86
from tests.support.paths import ROOT

CANONICAL = {"float32": 0x7FC00000, "float64": 0x7FF8000000000000, "float16": 0x7E00, "bfloat16": 0x7FC0}
DTYPES = {"f32": np.dtype(np.float32), "f64": np.dtype(np.float64), "f16": np.dtype(np.float16),
          "bf16": np.dtype(ml_dtypes.bfloat16), "c64": np.dtype(np.complex64), "c128": np.dtype(np.complex128)}


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    how: str = "plain"  # plain | epilogue | in_place | emit_dot | emit_conv | blas
    nan_in: tuple[int, ...] = (0, 1)  # the parameters that get NaNs and infinities
    negated: bool = False  # the ROOT negates the contraction (a kOutput fusion's epilogue)


def _dot(et: str, m: int, k: int, n: int, rhs_transposed: bool = False) -> str:
    rhs, rc = (f"{n},{k}", 1) if rhs_transposed else (f"{k},{n}", 0)
    return (f"HloModule dot\nENTRY e {{\n  a = {et}[{m},{k}] parameter(0)\n  b = {et}[{rhs}] parameter(1)\n"
            f"  ROOT d = {et}[{m},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{{rc}}}\n}}\n")


def _matvec(et: str, m: int, k: int) -> str:
    return (f"HloModule matvec\nENTRY e {{\n  a = {et}[{m},{k}] parameter(0)\n  b = {et}[{k}] parameter(1)\n"
            f"  ROOT d = {et}[{m}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n}}\n")


def _fused_dot(et: str, m: int, k: int, n: int) -> str:
    """dot + bias, negated: a kOutput fusion (the epilogue's negate flips a NaN's sign bit, so
    the dot's NaN must be canonical before it, as the unfused module computes it)."""
    s = f"{et}[{m},{n}]"
    return (f"HloModule fused\nf {{\n  p0 = {et}[{m},{k}] parameter(0)\n  p1 = {et}[{k},{n}] parameter(1)\n"
            f"  p2 = {et}[{n}] parameter(2)\n"
            f"  d = {s} dot(p0, p1), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n"
            f"  b = {s} broadcast(p2), dimensions={{1}}\n  a = {s} add(d, b)\n  ROOT r = {s} negate(a)\n}}\n"
            f"ENTRY e {{\n  x = {et}[{m},{k}] parameter(0)\n  y = {et}[{k},{n}] parameter(1)\n"
            f"  z = {et}[{n}] parameter(2)\n  ROOT o = {s} fusion(x, y, z), kind=kOutput, calls=f\n}}\n")


def _conv(et: str, lhs: str, rhs: str, out: str, window: str, labels: str) -> str:
    return (f"HloModule conv\nENTRY e {{\n  x = {et}[{lhs}] parameter(0)\n  w = {et}[{rhs}] parameter(1)\n"
            f"  ROOT c = {et}[{out}] convolution(x, w), window={{{window}}}, dim_labels={labels}\n}}\n")


def _fused_conv(et: str) -> str:
    s = f"{et}[2,12,12,24]"
    return (f"HloModule fused_conv\nf {{\n  p0 = {et}[2,14,14,16] parameter(0)\n  p1 = {et}[3,3,16,24] parameter(1)\n"
            f"  p2 = {et}[24] parameter(2)\n"
            f"  d = {s} convolution(p0, p1), window={{size=3x3}}, dim_labels=b01f_01io->b01f\n"
            f"  b = {s} broadcast(p2), dimensions={{3}}\n  a = {s} add(d, b)\n  ROOT r = {s} negate(a)\n}}\n"
            f"ENTRY e {{\n  x = {et}[2,14,14,16] parameter(0)\n  y = {et}[3,3,16,24] parameter(1)\n"
            f"  z = {et}[24] parameter(2)\n  ROOT o = {s} fusion(x, y, z), kind=kOutput, calls=f\n}}\n")


NHWC = "b01f_01io->b01f"


def cases() -> list[Case]:
    out = []
    for et in ("f32", "f64"):
        out += [Case(f"gemm_in_place_b.{et}", _dot(et, 5, 65, 33)),
                Case(f"gemm_task_pack_b.{et}", _dot(et, 17, 65, 33)),
                Case(f"gemm_packed_b.{et}", _dot(et, 64, 40, 50, rhs_transposed=True)),
                Case(f"gemm_matvec.{et}", _matvec(et, 37, 300)),
                Case(f"gemm_epilogue.{et}", _fused_dot(et, 33, 70, 45), "epilogue", negated=True),
                Case(f"gemm_in_place_fusion.{et}", _fused_dot(et, 33, 70, 45), "in_place", negated=True),
                Case(f"emit_dot_rows.{et}", _dot(et, 9, 31, 13), "emit_dot"),
                Case(f"emit_dot_elements.{et}", _matvec(et, 9, 31), "emit_dot"),
                # NaNs in the input only: a f64 kernel's run-time check would take the direct loop
                Case(f"conv_gemm.{et}", _conv(et, "2,13,11,5", "3,3,5,7", "2,13,11,7", "size=3x3 pad=1_1x1_1", NHWC),
                     nan_in=(0, 1) if et == "f32" else (0,)),
                Case(f"conv_gemm_epilogue.{et}", _fused_conv(et), "epilogue", negated=True),
                Case(f"conv_direct_rows.{et}", _conv(et, "1,6,5,3", "3,3,3,4", "1,6,5,4", "size=3x3 pad=1_1x1_1", NHWC),
                     "emit_conv"),
                Case(f"conv_direct_nchw.{et}", _conv(et, "1,6,5,3", "3,3,3,4", "1,4,6,5", "size=3x3 pad=1_1x1_1",
                                                     "b01f_01io->bf01"), "emit_conv"),
                Case(f"blas.{et}", _dot(et, 40, 64, 48), "blas")]
    for et in ("f16", "bf16"):
        out += [Case(f"gemm_staged.{et}", _dot(et, 17, 65, 33)),
                Case(f"emit_dot_elements.{et}", _dot(et, 5, 31, 6), "emit_dot"),
                Case(f"conv_direct.{et}", _conv(et, "1,6,5,3", "3,3,3,4", "1,6,5,4", "size=3x3 pad=1_1x1_1", NHWC),
                     "emit_conv")]
    for et in ("c64", "c128"):
        out += [Case(f"emit_dot_rows.{et}", _dot(et, 5, 17, 7)), Case(f"emit_dot_elements.{et}", _matvec(et, 5, 17))]
    return out


def _conv_checked_case() -> Case:
    """A convolution whose XLA path skips padding, with NaNs in the kernel: the run-time check
    takes emit_conv's skipping loop nest instead of the GEMM."""
    for et in ("f32", "f64"):
        for labels in (NHWC, "b01f_01io->bf01", "bf01_oi01->bf01"):
            lhs = "2,13,11,5" if labels.startswith("b01f") else "2,5,13,11"
            rhs = "3,3,5,7" if "01io" in labels else "7,5,3,3"
            outd = "2,13,11,7" if labels.endswith("b01f") else "2,7,13,11"
            text = _conv(et, lhs, rhs, outd, "size=3x3 pad=1_1x1_1", labels)
            root = hlotools.parse_module(text).entry.root
            assert root is not None
            if conv_gemm.conv_plan(root) is not None and conv_gemm.needs_kernel_check(root):
                return Case(f"conv_checked.{et}", text)
    raise AssertionError("no convolution with a run-time kernel check")


def all_cases() -> list[Case]:
    return [*cases(), _conv_checked_case()]


# -- inputs and runs -------------------------------------------------------------------------

def _nans(dtype: np.dtype, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Normal values with about a fifth NaNs of several payloads and both signs, and infinities
    (inf - inf: x86's default NaN has the sign set)."""
    if dtype.kind == "c":
        parts = np.dtype(np.float32 if dtype.itemsize == 8 else np.float64)
        return _complex(_nans(parts, shape, rng), _nans(parts, shape, rng), dtype)
    x = rng.standard_normal(shape).astype(dtype)
    nbits = 8 * dtype.itemsize
    mant = int(np.finfo(dtype).nmant)
    uint = np.dtype(f"u{dtype.itemsize}")
    exp_all = ((1 << (nbits - 1)) - 1) ^ ((1 << mant) - 1)
    sign = 1 << (nbits - 1)
    specials = np.array([exp_all | 1, exp_all | (1 << (mant - 1)) | 5, sign | exp_all | 3, sign | exp_all | (1 << (mant - 1)),
                         exp_all | (1 << (mant - 1)) | 0x2A, exp_all, sign | exp_all], uint)
    bits = x.view(uint).copy()
    picks = rng.random(shape) < 0.2
    bits[picks] = rng.choice(specials, size=int(picks.sum()))
    return bits.view(dtype)


def _complex(re: np.ndarray, im: np.ndarray, dtype: np.dtype) -> np.ndarray:
    out = np.empty(re.shape, dtype)
    out.real, out.imag = re, im
    return out


def arguments(case: Case, seed: int = 0) -> list[np.ndarray]:
    m = hlotools.parse_module(case.text)
    assert m.entry is not None
    rng = np.random.default_rng(seed)
    args = []
    for k, p in enumerate(m.entry.parameters):
        et = p.shape.element_type
        assert et is not None
        dt, shape = DTYPES[et.name], tuple(p.shape.dims)
        if k in case.nan_in:
            args.append(_nans(dt, shape, rng))
        else:
            args.append(rng.standard_normal(shape).astype(dt))
    return args


@contextmanager
def path(how: str) -> Iterator[None]:
    """The compile-time switches that take `how`'s code path."""
    with ExitStack() as stack:
        if how == "epilogue":
            stack.enter_context(epilogues(True, 0))
        elif how == "in_place":
            stack.enter_context(epilogues(False))
        elif how in ("emit_dot", "emit_conv"):
            op, fn = ("dot", dot.emit_dot) if how == "emit_dot" else ("convolution", convolution.emit_convolution)
            saved = registry.EMITTERS.replace(op, fn)
            stack.callback(registry.EMITTERS.replace, op, saved)
        elif how == "blas":
            saved_env = os.environ.get("HLOTOOLS_BLAS")
            os.environ["HLOTOOLS_BLAS"] = "1"
            stack.callback(lambda: os.environ.pop("HLOTOOLS_BLAS") if saved_env is None
                           else os.environ.__setitem__("HLOTOOLS_BLAS", saved_env))
        yield


def compile_case(case: Case) -> CompiledModule:
    with path(case.how):
        if case.how in ("epilogue", "in_place"):
            root = hlotools.parse_module(case.text).entry.root
            assert root is not None
            got = decide(root)
            assert got is not None and got.how == case.how, case.name
        return CompiledModule(hlotools.parse_module(case.text))


def run_llvm(case: Case, args: list[np.ndarray]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(compile_case(case)(args)[0])


def _parts(a: np.ndarray) -> np.ndarray:
    """A float array, or a complex one's (real, imag) pairs as floats."""
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "c":
        return a.view(np.float32 if a.dtype.itemsize == 8 else np.float64)
    return a


def nan_problems(a: np.ndarray, negated: bool = False) -> list[str]:
    """The NaN elements (parts) of `a` that are not the canonical NaN (with the sign set when
    `negated`), as hex bit patterns."""
    p = _parts(a)
    uint = np.dtype(f"u{p.dtype.itemsize}")
    bits = p.view(uint)
    nan = np.isnan(p.astype(np.float64))
    want = CANONICAL[p.dtype.name] | ((1 << (8 * p.dtype.itemsize - 1)) if negated else 0)
    bad = nan & (bits != want)
    return [hex(int(v)) for v in bits[bad][:6]]


# -- the tests --------------------------------------------------------------------------------

CASES = all_cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_nan_results_are_canonical_on_both_backends(case: Case) -> None:
    if case.how == "blas":
        from hlotools.backend.llvm.native import jit
        if not jit.blas_symbols():
            pytest.skip("no OpenBLAS symbols for the JIT")
    args = arguments(case)
    with np.errstate(all="ignore"):
        want = np.asarray(evaluate(hlotools.parse_module(case.text), args)[0])
    got = run_llvm(case, args)
    w, g = _parts(want), _parts(got)
    assert np.isnan(w.astype(np.float64)).any(), "the inputs make no NaN"
    assert nan_problems(want, case.negated) == [], f"interpreter: {nan_problems(want, case.negated)}"
    assert nan_problems(got, case.negated) == [], f"LLVM: {nan_problems(got, case.negated)}"
    np.testing.assert_array_equal(np.isnan(g.astype(np.float64)), np.isnan(w.astype(np.float64)))


def test_blas_path_is_taken() -> None:
    """The 'blas' cases really call OpenBLAS (when the JIT has it), the others the generated kernel."""
    from hlotools.backend.llvm.native import jit
    if not jit.blas_symbols():
        pytest.skip("no OpenBLAS symbols for the JIT")
    for case in CASES:
        if case.name.startswith(("blas.", "gemm_in_place_b.")):
            ir_text = compile_case(case).llvm_ir
            assert ("hlotools_blas_" in ir_text) == (case.how == "blas"), case.name


def test_paths_are_the_ones_named() -> None:
    """Each case's module takes the code path its name says (so every store site is covered)."""
    for case in CASES:
        root = hlotools.parse_module(case.text).entry.root
        assert root is not None
        if case.name.startswith(("gemm_in_place_b", "gemm_task_pack_b", "gemm_packed_b", "gemm_matvec", "gemm_staged",
                                  "blas")):
            p = gemm.plan(root)
            assert p is not None, case.name
            if case.name.startswith(("gemm_in_place_b", "gemm_task_pack_b", "gemm_packed_b")):
                assert p.b.packed == case.name.startswith("gemm_packed_b"), case.name
                assert p.task_pack == case.name.startswith("gemm_task_pack_b"), case.name
            assert p.c.packed == case.name.startswith("gemm_staged"), case.name
        elif case.name.startswith(("conv_gemm.", "conv_checked.")):
            assert conv_gemm.conv_plan(root) is not None, case.name
            checked = conv_gemm.needs_kernel_check(root)
            assert checked if case.name.startswith("conv_checked") else not checked or case.nan_in == (0,), case.name
        elif case.name.startswith("emit_dot_") and case.how == "plain":  # complex: emit_dot itself
            assert gemm.plan(root) is None, case.name


# -- at every feature level -------------------------------------------------------------------

LEVEL_CASES = [c for c in CASES if c.how != "blas"]  # OpenBLAS picks its kernels by the host


def child(out_file: str) -> None:
    """Run LEVEL_CASES at $HLOTOOLS_TARGET_CPU; save each output's bytes."""
    from hlotools.backend.llvm.native import jit
    outputs = {c.name: np.frombuffer(_parts(run_llvm(c, arguments(c))).tobytes(), np.uint8) for c in LEVEL_CASES}
    np.savez(out_file, **outputs)
    Path(out_file + ".json").write_text(json.dumps({"target": list(jit.jit_target())}))


@pytest.mark.slow
@pytest.mark.skipif(not X86, reason="the psABI levels are x86-64's")
def test_every_level_gives_the_same_nans(tmp_path: Path) -> None:
    results: dict[str, dict[str, np.ndarray]] = {}
    for level in LEVELS:
        out = tmp_path / f"{level}.npz"
        env = {**os.environ, "HLOTOOLS_TARGET_CPU": level, "HLOTOOLS_TARGET_FEATURES": ""}
        done = subprocess.run([sys.executable, "-m", __name__, str(out)], capture_output=True,
                              text=True, timeout=900, env=env, cwd=str(ROOT))
        assert done.returncode == 0, f"{level}: exit {done.returncode}\n{done.stderr[-3000:]}"
        assert json.loads(Path(str(out) + ".json").read_text())["target"][1] == level
        with np.load(out) as f:
            results[level] = {k: f[k] for k in f.files}
    first = results[LEVELS[0]]
    problems = []
    for case in LEVEL_CASES:
        dt = DTYPES[hlotools.parse_module(case.text).entry.root.shape.element_type.name]  # type: ignore[union-attr]
        parts = dt if dt.kind != "c" else np.dtype(np.float32 if dt.itemsize == 8 else np.float64)
        for level in LEVELS:
            got = results[level][case.name]
            bad = nan_problems(got.view(parts), case.negated)
            if bad:
                problems.append(f"{level}: {case.name}: NaNs {bad}")
            if got.tobytes() != first[case.name].tobytes():
                problems.append(f"{case.name}: {LEVELS[0]} and {level} differ")
    assert not problems, "\n".join(problems)


if __name__ == "__main__":
    child(sys.argv[1])
