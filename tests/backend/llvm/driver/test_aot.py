"""AOT: object file + C header, compiled into a C program with the system C compiler and
checked against the interpreter; cross-compiled objects for other machines; objects need
nothing beyond libc/libm."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver import aot
from hlotools.backend.llvm.native import jit
from hlotools.backend.llvm.native.objfile import read_object
from hlotools.errors import HloUnsupportedError
from tests.support.paths import ROOT

MODELS = ROOT / "testdata" / "models"
CC = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")

TUPLE_BF16 = """HloModule tup_bf16

ENTRY main {
  p = (f32[3], s32[]) parameter(0)
  q = bf16[3] parameter(1)
  a = f32[3] get-tuple-element(p), index=0
  b = s32[] get-tuple-element(p), index=1
  qc = f32[3] convert(q)
  s = f32[3] add(a, qc)
  bb = s32[3] broadcast(b), dimensions={}
  bc = f32[3] convert(bb)
  m = f32[3] multiply(s, bc)
  gt = pred[3] compare(a, qc), direction=GT
  ROOT t = (f32[3], s32[], bf16[3], pred[3]) tuple(m, b, q, gt)
}
"""
WHILE_MATH = """HloModule while_math

add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = f32[] add(p, q)
}

cond {
  c = (s32[], f32[8,4]) parameter(0)
  i = s32[] get-tuple-element(c), index=0
  five = s32[] constant(5)
  ROOT lt = pred[] compare(i, five), direction=LT
}

body {
  b = (s32[], f32[8,4]) parameter(0)
  i = s32[] get-tuple-element(b), index=0
  x = f32[8,4] get-tuple-element(b), index=1
  t = f32[8,4] tanh(x)
  n = f32[8,4] negate(t)
  e = f32[8,4] exponential(n)
  one = f32[] constant(1)
  ones = f32[8,4] broadcast(one), dimensions={}
  l = f32[8,4] log(f32[8,4] add(e, ones))
  i1 = s32[] constant(1)
  ROOT r = (s32[], f32[8,4]) tuple(s32[] add(i, i1), l)
}

ENTRY main {
  x = f32[8,4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[8,4]) tuple(zero, x)
  w = (s32[], f32[8,4]) while(init), condition=cond, body=body
  y = f32[8,4] get-tuple-element(w), index=1
  z = f32[] constant(0)
  ROOT s = f32[4] reduce(y, z), dimensions={0}, to_apply=add
}
"""

DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"

static void *alloc64(size_t n) { return n ? aligned_alloc(64, (n + 63) / 64 * 64) : NULL; }

int main(int argc, char **argv) {
  static const size_t pb[] = @N@_PARAM_BYTES_LIST;
  static const size_t rb[] = @N@_RESULT_BYTES_LIST;
  void *params[@N@_NUM_PARAMS + 1];
  void *results[@N@_NUM_RESULTS + 1];
  if (argc != 1 + @N@_NUM_PARAMS + @N@_NUM_RESULTS) return 2;
  for (int i = 0; i < @N@_NUM_PARAMS; i++) {
    params[i] = alloc64(pb[i]);
    if (!pb[i]) continue;
    FILE *f = fopen(argv[1 + i], "rb");
    if (!f || fread(params[i], 1, pb[i], f) != pb[i]) return 3;
    fclose(f);
  }
  for (int j = 0; j < @N@_NUM_RESULTS; j++) results[j] = alloc64(rb[j]);
  void *temp = alloc64(@N@_TEMP_BYTES);
  if (@N@_TEMP_BYTES > 0 && @name@((const void *const *)params, results, NULL) != 1) return 4;
  if (@name@((const void *const *)params, results, temp) != 0) return 5;
  for (int j = 0; j < @N@_NUM_RESULTS; j++) {
    FILE *f = fopen(argv[1 + @N@_NUM_PARAMS + j], "wb");
    if (!f || (rb[j] && fwrite(results[j], 1, rb[j], f) != rb[j])) return 6;
    fclose(f);
  }
  printf("ok\n");
  return 0;
}
"""


def _storage(shape: object) -> np.dtype:
    et = shape.element_type  # type: ignore[attr-defined]
    if et.kind in ("signed", "unsigned") and et.bits < 8:
        return np.dtype(np.int8 if et.kind == "signed" else np.uint8)  # one per byte, as the header says
    return et.dtype


def _is_data(shape: object) -> bool:
    et = shape.element_type  # type: ignore[attr-defined]
    return not shape.is_token and et is not None and et.is_array  # type: ignore[attr-defined]


def _physical(a: np.ndarray | None, shape: object) -> bytes:
    from hlotools.backend.llvm.abi import layout_of
    if not _is_data(shape):
        return b""
    arr = np.asarray(a).astype(_storage(shape))
    if arr.ndim > 1:
        arr = np.transpose(arr, list(reversed(layout_of(shape))))  # type: ignore[arg-type]
    return np.ascontiguousarray(arr).tobytes()


def _logical(data: bytes, shape: object) -> np.ndarray:
    from hlotools.backend.llvm.abi import layout_of
    if not _is_data(shape):
        return np.zeros((), np.bool_)  # a token result, as the JIT runtime returns it
    perm = list(reversed(layout_of(shape)))  # type: ignore[arg-type]
    dims = [shape.dims[d] for d in perm]  # type: ignore[attr-defined]
    arr = np.frombuffer(data, _storage(shape)).reshape(dims)
    arr = np.transpose(arr, np.argsort(perm)) if arr.ndim > 1 else arr
    return arr.astype(shape.dtype)  # type: ignore[attr-defined]


def build_and_run(tmp_path: Path, text: str, args: list[np.ndarray | None], name: str) -> list[np.ndarray]:
    assert CC is not None
    module = hlotools.parse_module(text, verify=False)
    built = aot.build(module, aot.AotOptions(function_name=name))
    (tmp_path / "model.o").write_bytes(aot.emit(built, "obj"))  # type: ignore[arg-type]
    (tmp_path / "model.h").write_text(aot.header(built))
    (tmp_path / "main.c").write_text(DRIVER.replace("@N@", name.upper()).replace("@name@", name))
    subprocess.run([CC, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-pedantic", "-o", "prog", "main.c",
                    "model.o", "-lm", "-lpthread"], cwd=tmp_path, check=True, capture_output=True, timeout=120)
    ins = []
    for k, (leaf, a) in enumerate(zip(built.params, args)):
        path = tmp_path / f"in{k}.bin"
        path.write_bytes(_physical(a, leaf.shape))
        ins.append(str(path))
    outs = [str(tmp_path / f"out{k}.bin") for k in range(len(built.results))]
    r = subprocess.run(["./prog", *ins, *outs], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout) == (0, "ok\n"), r
    return [_logical(Path(p).read_bytes(), leaf.shape) for p, leaf in zip(outs, built.results)]


def check_against_interpreter(text: str, args: list[np.ndarray], got: list[np.ndarray]) -> None:
    want = evaluate(hlotools.parse_module(text), args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        if w.dtype.kind in "fc" or w.dtype == ml_dtypes.bfloat16:
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-4, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, w)


needs_cc = pytest.mark.skipif(CC is None, reason="no system C compiler (cc/gcc/clang)")


@needs_cc
def test_c_program_runs_the_mlp(tmp_path: Path) -> None:
    text = (MODELS / "mlp2_relu.hlo").read_text()
    inputs = np.load(MODELS / "mlp2_relu.inputs.npz")
    args = [inputs[k] for k in sorted(inputs.files, key=lambda s: int(s[2:]) if s[2:].isdigit() else s)]
    got = build_and_run(tmp_path, text, args, "mlp")
    check_against_interpreter(text, args, got)
    expected = np.load(MODELS / "mlp2_relu.expected.npz")
    np.testing.assert_allclose(got[0], expected[expected.files[0]], rtol=1e-4, atol=1e-5)


@needs_cc
def test_c_program_with_tuple_parameter_bf16_and_pred(tmp_path: Path) -> None:
    args = [np.array([1.5, -2.0, 3.25], np.float32), np.array(3, np.int32),
            np.array([0.5, -1.0, 8.0], ml_dtypes.bfloat16)]
    got = build_and_run(tmp_path, TUPLE_BF16, args, "tup")
    check_against_interpreter(TUPLE_BF16, args, got)


@needs_cc
def test_c_program_with_while_loop_and_libm(tmp_path: Path) -> None:
    x = np.random.default_rng(1).standard_normal((8, 4)).astype(np.float32)
    got = build_and_run(tmp_path, WHILE_MATH, [x], "loop")
    check_against_interpreter(WHILE_MATH, [x], got)


BIG = """HloModule big

ENTRY main {
  x = f32[512,512] parameter(0)
  y = f32[512,512] parameter(1)
  m = f32[512,512] multiply(x, y)
  ROOT a = f32[512,512] tanh(m)
}
"""


@needs_cc
def test_c_program_with_generated_threads(tmp_path: Path) -> None:
    """Large enough for the generated parallel loops (pthreads from libc): the object still
    needs nothing else, and exports only the function (the thread-count knob is internal)."""
    rng = np.random.default_rng(2)
    args = [rng.standard_normal((512, 512)).astype(np.float32), rng.standard_normal((512, 512)).astype(np.float32)]
    got = build_and_run(tmp_path, BIG, args, "big")
    check_against_interpreter(BIG, args, got)
    info = read_object((tmp_path / "model.o").read_bytes())
    assert info.defined == ("big",)
    assert ("pthread_create" in info.undefined) == ("syscall" in info.undefined)  # the pool sleeps on a futex


@needs_cc
def test_two_objects_link_into_one_program(tmp_path: Path) -> None:
    for text, name in ((TUPLE_BF16, "tup"), (WHILE_MATH, "loop"), (BIG, "big")):
        built = aot.build(hlotools.parse_module(text), aot.AotOptions(function_name=name))
        (tmp_path / f"{name}.o").write_bytes(aot.emit(built, "obj"))  # type: ignore[arg-type]
        (tmp_path / f"{name}.h").write_text(aot.header(built))
    (tmp_path / "main.c").write_text('#include "tup.h"\n#include "loop.h"\n#include "big.h"\n'
                                     "typedef int (*fn_t)(const void *const *, void *const *, void *);\n"
                                     "int main(void) { volatile fn_t f[3] = {tup, loop, big};\n"
                                     "  return f[0] && f[1] && f[2] ? 0 : 1; }\n")
    r = subprocess.run([CC, "-std=c11", "-Wall", "-Werror", "-o", "prog", "main.c", "tup.o", "loop.o", "big.o", "-lm"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert subprocess.run(["./prog"], cwd=tmp_path, timeout=60).returncode == 0


def test_header_documents_the_interface() -> None:
    built = aot.build(hlotools.parse_module(TUPLE_BF16), aot.AotOptions(function_name="tup"))
    h = aot.header(built)
    assert "int tup(const void *const *params, void *const *results, void *temp);" in h
    assert "#define TUP_NUM_PARAMS 3" in h and "#define TUP_NUM_RESULTS 4" in h
    assert "#define TUP_PARAM_BYTES_LIST {12, 4, 6}" in h and "#define TUP_RESULT_BYTES_LIST {12, 4, 6, 3}" in h
    assert "/* param2: parameter %q, bf16[3]{0}: 3 x uint16_t, bf16 bits; minor_to_major {0} */" in h
    assert "/* param1: parameter %p leaf 1, s32[]: 1 x int32_t; minor_to_major {} */" in h
    assert "#define TUP_RESULT3_DIMS {3}" in h and "0 or 1 per byte" in h
    assert f"#define TUP_TEMP_BYTES {built.temp_bytes}" in h


@pytest.mark.parametrize("triple,features,machine", [("aarch64-unknown-linux-gnu", None, "aarch64"),
                                                     ("x86_64-unknown-linux-gnu", None, "x86_64"),
                                                     ("riscv64-unknown-linux-gnu", "+m,+a,+f,+d,+c", "riscv")])
def test_cross_compiled_object_is_for_the_target(triple: str, features: str | None, machine: str) -> None:
    try:
        jit.target_machine_checked(triple, "", "")
    except ValueError:
        pytest.skip(f"LLVM was built without {triple}")
    text = (MODELS / "mlp2_relu.hlo").read_text()
    built = aot.build(hlotools.parse_module(text), aot.AotOptions(function_name="mlp", triple=triple,
                                                                  features=features))
    data = aot.emit(built, "obj")
    assert isinstance(data, bytes)
    info = read_object(data)
    assert info.machine == machine and info.bits == 64 and info.little_endian
    assert "mlp" in info.defined and info.defined.count("mlp") == 1
    assert all(aot._in_libc_or_libm(s) or s in aot._LINKER_DEFINED for s in info.undefined)
    assert f"for {triple}" in aot.header(built)


def test_object_exports_only_the_c_function() -> None:
    built = aot.build(hlotools.parse_module(WHILE_MATH), aot.AotOptions(function_name="loop"))
    info = read_object(aot.emit(built, "obj"))  # type: ignore[arg-type]
    assert info.defined == ("loop",)  # the generated entry and computations are internal


def test_check_object_refuses_symbols_beyond_libc_and_libm() -> None:
    ir_text = f"""
    target triple = "{jit.host_triple()}"
    declare float @expf(float)
    declare float @hlotools_not_in_any_libc(float)
    define i32 @f(ptr %p) {{
      %x = load float, ptr %p
      %y = call float @expf(float %x)
      %z = call float @hlotools_not_in_any_libc(float %y)
      store float %z, ptr %p
      ret i32 0
    }}
    """
    data = jit.emit_object(ir_text)
    assert "expf" in read_object(data).undefined
    with pytest.raises(HloUnsupportedError, match="beyond libc/libm: hlotools_not_in_any_libc"):
        aot.check_object(data, jit.host_triple(), "f")
    ok = jit.emit_object(ir_text.replace("@hlotools_not_in_any_libc", "@logf"))
    aot.check_object(ok, jit.host_triple(), "f")
    with pytest.raises(HloUnsupportedError, match="machine x86_64, expected aarch64"):
        aot.check_object(ok, "aarch64-unknown-linux-gnu", "f")


def test_soft_float_target_is_refused_with_a_hint() -> None:
    try:
        jit.target_machine_checked("riscv64-unknown-linux-gnu", "", "")
    except ValueError:
        pytest.skip("LLVM was built without riscv64")
    text = (MODELS / "mlp2_relu.hlo").read_text()
    with pytest.raises(HloUnsupportedError, match=r"beyond libc/libm: __.*compiler-rt helpers"):
        aot.compile_aot(hlotools.parse_module(text), "obj", aot.AotOptions(triple="riscv64-unknown-linux-gnu"))


def test_unknown_target_is_a_target_error() -> None:
    module = hlotools.parse_module(TUPLE_BF16)
    for options, message in ((aot.AotOptions(triple="nonsense-foo-bar"), "No available targets"),
                             (aot.AotOptions(cpu="not-a-cpu"), "'not-a-cpu' is not a recognized processor"),
                             (aot.AotOptions(features="+not-a-feature"), "is not a recognized feature")):
        with pytest.raises(aot.TargetError, match=message):
            aot.compile_aot(module, "obj", options)


def test_c_identifier() -> None:
    assert aot.c_identifier("jit_mlp2.relu-1") == "jit_mlp2_relu_1"
    assert aot.c_identifier("2x") == "_2x"


def _jax_cases() -> list[str]:
    from tests.corpus.test_interpreter import JAX
    if not JAX.is_dir():
        return []
    return sorted(p.name[:-4] for p in JAX.glob("*.hlo") if p.name.count(".") == 1)


@pytest.mark.slow
@needs_cc
@pytest.mark.parametrize("name", _jax_cases())
def test_c_program_reproduces_the_jax_corpus(tmp_path: Path, name: str) -> None:
    """Every JAX corpus module the backend compiles, as an object called from C, gives
    XLA's outputs (the corpus test's tolerances)."""
    from tests.corpus.test_interpreter import JAX, _leaf_dtypes, _load, assert_matches, op_class
    text = (JAX / f"{name}.hlo").read_text()
    module = hlotools.parse_module(text, verify=False)
    in_dt, out_dt = _leaf_dtypes(module)
    with np.load(JAX / f"{name}.inputs.npz") as f:
        args = _load(f, "in", in_dt)
    with np.load(JAX / f"{name}.expected.npz") as f:
        want = _load(f, "out", out_dt)
    try:
        got = build_and_run(tmp_path, text, args, "model")
    except HloUnsupportedError as e:
        pytest.skip(f"the LLVM backend refuses it (tracked by test_llvm_corpus): {e}")
    klass = op_class({i.opcode for c in module.computations for i in c.instructions})
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert_matches(g, w, klass, f"{name} out{i}")
