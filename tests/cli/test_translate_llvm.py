"""hlo-translate's LLVM forms: llvm, llvm-opt, asm, obj, header; target options; errors."""
from __future__ import annotations

from pathlib import Path

import llvmlite.binding as llvm
from click.testing import CliRunner, Result

from hlotools.backend.llvm.native import jit
from hlotools.backend.llvm.native.objfile import read_object
from hlotools.cli.translate import main

MODEL = """HloModule scale.add

ENTRY main {
  x = f32[64] parameter(0)
  y = f32[64] parameter(1)
  two = f32[] constant(2)
  b = f32[64] broadcast(two), dimensions={}
  m = f32[64] multiply(x, b)
  ROOT a = f32[64] add(m, y)
}
"""


def invoke(args: list[object], input: str | None = None) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def model(tmp_path: Path) -> Path:
    path = tmp_path / "m.hlo"
    path.write_text(MODEL)
    return path


def test_emit_llvm_is_parsable_ir_with_the_c_entry(tmp_path: Path) -> None:
    r = invoke([model(tmp_path), "--emit=llvm"])
    assert r.exit_code == 0, r.stderr
    assert f'target triple = "{jit.host_triple()}"' in r.stdout
    assert 'define i32 @"scale_add"(i8* %"params", i8* %"results", i8* %"temp")' in r.stdout
    assert 'define internal void @"hlo_entry"(' in r.stdout
    jit.parse_ir(r.stdout)  # verifies


def test_emit_llvm_opt_is_optimised(tmp_path: Path) -> None:
    plain = invoke([model(tmp_path), "--emit=llvm"]).stdout
    r = invoke([model(tmp_path), "--emit=llvm-opt", "--function-name", "axpy"])
    assert r.exit_code == 0, r.stderr
    assert "i32 @axpy(ptr" in r.stdout and "%params" in r.stdout
    assert "@hlo_entry(" not in r.stdout  # inlined into the C entry by LLVM (its body stays
    # a function of its own: noinline, so no arithmetic moves across the MXCSR writes)
    assert "<" in r.stdout and " x float>" in r.stdout  # vectorised
    assert r.stdout != plain


def test_emit_asm(tmp_path: Path) -> None:
    r = invoke([model(tmp_path), "--emit=asm"])
    assert r.exit_code == 0, r.stderr
    assert ".globl\tscale_add" in r.stdout and "scale_add:" in r.stdout


def test_emit_obj_to_a_file_and_to_stdout(tmp_path: Path) -> None:
    out = tmp_path / "m.o"
    r = invoke([model(tmp_path), "--emit=obj", "-o", out])
    assert r.exit_code == 0 and r.stdout == ""
    info = read_object(out.read_bytes())
    assert info.defined == ("scale_add",) and info.machine == {"x86_64": "x86_64", "aarch64": "aarch64"}.get(
        jit.host_triple().split("-")[0], info.machine)
    piped = CliRunner().invoke(main, [str(model(tmp_path)), "--emit=obj"])
    assert piped.exit_code == 0 and piped.stdout_bytes == out.read_bytes()


def test_emit_header(tmp_path: Path) -> None:
    r = invoke([model(tmp_path), "--emit=header", "-o", tmp_path / "m.h"])
    assert r.exit_code == 0
    h = (tmp_path / "m.h").read_text()
    assert "int scale_add(const void *const *params, void *const *results, void *temp);" in h
    assert "#define SCALE_ADD_PARAM_BYTES_LIST {256, 256}" in h
    assert "#define SCALE_ADD_RESULT0_DIMS {64}" in h and "#ifndef HLOTOOLS_SCALE_ADD_H" in h


def test_cross_compile_to_aarch64(tmp_path: Path) -> None:
    out = tmp_path / "m.o"
    r = invoke([model(tmp_path), "--emit=obj", "--target-triple", "aarch64-unknown-linux-gnu",
                "--cpu", "neoverse-n1", "-o", out])
    assert r.exit_code == 0, r.stderr
    assert read_object(out.read_bytes()).machine == "aarch64"
    asm = invoke([model(tmp_path), "--emit=asm", "--target-triple", "aarch64-unknown-linux-gnu"]).stdout
    assert "fmul" in asm or "fmla" in asm or "fadd" in asm
    h = invoke([model(tmp_path), "--emit=header", "--target-triple", "aarch64-unknown-linux-gnu"]).stdout
    assert "for aarch64-unknown-linux-gnu" in h


def test_host_cpu_option_changes_the_code(tmp_path: Path) -> None:
    if not jit.host_triple().startswith("x86_64"):
        return
    base = invoke([model(tmp_path), "--emit=asm", "--cpu", "x86-64"]).stdout
    v3 = invoke([model(tmp_path), "--emit=asm", "--cpu", "x86-64-v3"]).stdout
    assert "%ymm" not in base and "%ymm" in v3


def test_bad_target_options_are_usage_errors(tmp_path: Path) -> None:
    m = model(tmp_path)
    r = invoke([m, "--emit=obj", "--target-triple", "nonsense-foo-bar", "-o", tmp_path / "x.o"])
    assert r.exit_code == 2 and "No available targets are compatible with triple" in r.stderr
    r = invoke([m, "--emit=asm", "--cpu", "not-a-cpu"])
    assert r.exit_code == 2 and "'not-a-cpu' is not a recognized processor" in r.stderr
    assert "ignoring" not in r.stderr
    r = invoke([m, "--emit=asm", "--features", "+not-a-feature"])
    assert r.exit_code == 2 and "is not a recognized feature" in r.stderr
    r = invoke([m, "--emit=hlo", "--cpu", "x86-64"])
    assert r.exit_code == 2 and "apply to llvm, llvm-opt, asm, obj, header" in r.stderr
    r = invoke([m, "--emit=obj", "--function-name", "9lives"])
    assert r.exit_code == 2 and "is not a C identifier" in r.stderr
    assert not (tmp_path / "x.o").exists()


def test_bad_module_is_exit_1(tmp_path: Path) -> None:
    r = invoke(["-", "--emit=obj"], input="HloModule m\n\nENTRY e {\n  ROOT p = f32[2] parameter(0, \n}\n")
    assert r.exit_code == 1 and r.stderr.startswith("<stdin>:")


def test_unknown_form_lists_every_form(tmp_path: Path) -> None:
    r = invoke([model(tmp_path), "--emit=png"])
    assert r.exit_code == 2
    assert "'png' is not a known form; choose from hlo, dot, html, stablehlo, llvm, llvm-opt, asm, obj, header" in r.stderr


def test_llvm_opt_of_the_jit_and_aot_agree_on_the_target() -> None:
    assert llvm.get_process_triple() == jit.host_triple()
