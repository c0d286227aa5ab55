"""Portability as a test: the LLVM backend's code for the x86-64 psABI levels v2 and v3 (and
v4 where the host has AVX-512F), chosen with $HLOTOOLS_TARGET_CPU, gives the same bits for the
JAX corpus modules (on their recorded inputs) and for a set of op modules (random inputs with
NaN payloads, infinities, signed zeros and subnormals); those bits match XLA's recorded
outputs and the interpreter as the other LLVM sweeps do; and no level's code fuses a multiply
into an add or uses an approximate reciprocal. Each level runs in a child process of its own
(the target is read once per process), without the compile cache.

One exception, by design: the GEMM kernel's k step is one fused multiply-add where the target
has FMA (v3, v4) and fmul + fadd where it has not (v2: llvm.fma would be a libm call per lane,
~20x slower), so at v2 the modules with dots or convolutions give other last bits; there they
are checked against XLA's outputs and the interpreter instead, at the dot tolerance.

Also: resolving a target (host.resolve_target) against made-up hosts, the compile cache's and
the runtime library's keys per target, and hlo-run's --target-cpu."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import hlotools
from hlotools.backend.llvm.native import host, jit
from tests.corpus.test_interpreter import JAX, _leaf_dtypes, _load, assert_matches, op_class
from tests.support.paths import ROOT

X86 = jit.host_triple().startswith("x86_64")
HOST_FEATURES = host.feature_map(jit.host_description().features) if X86 else {}
LEVELS = ["x86-64-v2", "x86-64-v3"] + (["x86-64-v4"] if HOST_FEATURES.get("avx512f") else [])
REFERENCE = "x86-64-v3"  # the bits every level gives, but v2's dots (no FMA)
UNFUSED = {"x86-64-v2"}
GEMM_OPS = {"dot", "convolution"}
# In the IR: contraction (llvm.fmuladd, `contract`) and the other fast-math flags, which let
# LLVM fuse, reassociate or approximate according to the target (an explicit llvm.fma is
# fine: fused everywhere, a libm call where the CPU has no FMA). In the assembly: approximate
# reciprocals and exponentials (x86 mnemonics, any width or type).
FAST_MATH = re.compile(r"@llvm\.fmuladd|=\s*(?:tail\s+)?(?:fadd|fsub|fmul|fdiv|frem|fneg|call|fcmp|select|phi|"
                       r"fptrunc|fpext)\s+(?:nnan|ninf|nsz|arcp|contract|afn|reassoc|fast)\b")
APPROXIMATE = re.compile(r"^\s*(v?rcp\w*|v?rsqrt\w*|vexp2\w*)\s", re.MULTILINE)

# -- the op modules ---------------------------------------------------------------------------

_UNARY_EXACT = ["sqrt", "floor", "ceil", "round-nearest-even", "round-nearest-afz", "abs", "negate", "sign"]
_UNARY_TRANSCENDENTAL = ["exponential", "log", "log-plus-one", "exponential-minus-one", "tanh", "logistic", "rsqrt",
                         "cbrt", "sine", "cosine", "tan", "erf"]
_BINARY_EXACT = ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum"]
_BINARY_TRANSCENDENTAL = ["power", "atan2"]


def _unary(op: str, et: str, n: int = 67) -> str:
    out = "pred" if op == "is-finite" else et
    return f"HloModule {op}_{et}\nENTRY e {{\n  x = {et}[{n}] parameter(0)\n  ROOT y = {out}[{n}] {op}(x)\n}}\n"


def _many(name: str, ops: list[str], et: str, arity: int, n: int = 67) -> str:
    """One module applying each of `ops` to the same parameters, all results in a tuple (one
    compile for many ops; the interpreter comparison is per result leaf)."""
    params = [f"  x{k} = {et}[{n}] parameter({k})" for k in range(arity)]
    args = ", ".join(f"x{k}" for k in range(arity))
    body = [f"  r{k} = {et}[{n}] {op}({args})" for k, op in enumerate(ops)]
    root = f"  ROOT t = ({', '.join([f'{et}[{n}]'] * len(ops))}) tuple({', '.join(f'r{k}' for k in range(len(ops)))})"
    return "\n".join([f"HloModule {name}_{et}", "ENTRY e {", *params, *body, root, "}", ""])


_MUL_ADD = """HloModule mul_add_{et}
ENTRY e {{
  a = {et}[129] parameter(0)
  b = {et}[129] parameter(1)
  c = {et}[129] parameter(2)
  m = {et}[129] multiply(a, b)
  ROOT s = {et}[129] add(m, c)
}}
"""
_REDUCE = """HloModule reduce_{name}_{et}
add {{
  p = {et}[] parameter(0)
  q = {et}[] parameter(1)
  ROOT r = {et}[] {op}(p, q)
}}
ENTRY e {{
  x = {et}[7,131] parameter(0)
  z = {et}[] constant({init})
  ROOT r = {et}[7] reduce(x, z), dimensions={{1}}, to_apply=add
}}
"""
_DOT = """HloModule dot_{et}_{m}x{k}x{n}
ENTRY e {{
  a = {et}[{m},{k}] parameter(0)
  b = {et}[{k},{n}] parameter(1)
  ROOT d = {et}[{m},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}
"""
_DOT_EPILOGUE = """HloModule dot_epilogue_{et}
ENTRY e {{
  a = {et}[33,70] parameter(0)
  b = {et}[70,45] parameter(1)
  c = {et}[33,45] parameter(2)
  d = {et}[33,45] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  s = {et}[33,45] add(d, c)
  ROOT t = {et}[33,45] tanh(s)
}}
"""
_CONV = """HloModule conv_{et}
ENTRY e {{
  x = {et}[2,13,11,5] parameter(0)
  w = {et}[3,3,5,7] parameter(1)
  ROOT c = {et}[2,13,11,7] convolution(x, w), window={{size=3x3 pad=1_1x1_1}}, dim_labels=b01f_01io->b01f
}}
"""
_POOL = """HloModule pool_{name}_{et}
r {{
  p = {et}[] parameter(0)
  q = {et}[] parameter(1)
  ROOT s = {et}[] {op}(p, q)
}}
ENTRY e {{
  x = {et}[2,17,19,3] parameter(0)
  z = {et}[] constant({init})
  ROOT w = {et}[2,8,9,3] reduce-window(x, z), window={{size=1x3x3x1 stride=1x2x2x1}}, to_apply=r
}}
"""
_CONVERT = """HloModule convert_{src}_{dst}
ENTRY e {{
  x = {src}[67] parameter(0)
  ROOT y = {dst}[67] convert(x)
}}
"""


def op_modules() -> dict[str, str]:
    """name -> HLO text: the float ops whose code the vector width or FMA could change."""
    out: dict[str, str] = {}
    for et in ("f32", "f64", "f16", "bf16"):
        out[f"unary_exact.{et}"] = _many("unary_exact", _UNARY_EXACT, et, 1)
        out[f"unary_transcendental.{et}"] = _many("unary_transcendental", _UNARY_TRANSCENDENTAL, et, 1)
        out[f"binary_exact.{et}"] = _many("binary_exact", _BINARY_EXACT, et, 2)
        out[f"binary_transcendental.{et}"] = _many("binary_transcendental", _BINARY_TRANSCENDENTAL, et, 2)
        out[f"is-finite.{et}"] = _unary("is-finite", et)
    for et in ("f32", "f64"):
        out[f"mul_add.{et}"] = _MUL_ADD.format(et=et)
        for name, op, init in (("sum", "add", "0"), ("prod", "multiply", "1"), ("max", "maximum", "-inf"),
                               ("min", "minimum", "inf")):
            out[f"reduce_{name}.{et}"] = _REDUCE.format(name=name, op=op, init=init, et=et)
            if name in ("sum", "max"):
                out[f"pool_{name}.{et}"] = _POOL.format(name=name, op=op, init=init, et=et)
        for m, k, n in ((1, 300, 1), (17, 65, 33), (64, 128, 96)):
            out[f"dot_{m}x{k}x{n}.{et}"] = _DOT.format(et=et, m=m, k=k, n=n)
        out[f"dot_epilogue.{et}"] = _DOT_EPILOGUE.format(et=et)
        out[f"conv.{et}"] = _CONV.format(et=et)
    for src, dst in (("f32", "f16"), ("f32", "bf16"), ("f16", "f32"), ("f64", "f32"), ("f32", "s32"),
                     ("f32", "u8"), ("s64", "f32"), ("u64", "f64")):
        out[f"convert.{src}.{dst}"] = _CONVERT.format(src=src, dst=dst)
    return out


def _special_values(a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """About a fifth of a float array's elements replaced by NaNs with payloads and signs,
    infinities, signed zeros, subnormals and extremes."""
    if a.dtype.kind != "f" and not a.dtype.name.startswith(("bfloat", "float")):
        return a
    bits = a.view(f"u{a.dtype.itemsize}").copy()
    info = np.finfo(a.dtype)
    nbits = 8 * a.dtype.itemsize
    mant = int(info.nmant)
    sign = 1 << (nbits - 1)
    exp_all = ((1 << (nbits - 1)) - 1) ^ ((1 << mant) - 1)
    specials = [exp_all | 1, exp_all | (1 << (mant - 1)) | 5, sign | exp_all | 3, exp_all, sign | exp_all, 0, sign,
                1, sign | 1, exp_all - 1]  # NaNs (signalling, quiet with payload, negative), inf, zeros, ...
    picks = rng.random(bits.shape) < 0.2
    bits[picks] = rng.choice(np.array(specials, dtype=bits.dtype), size=int(picks.sum()))
    return bits.view(a.dtype)


def op_arguments(text: str, seed: int, special: bool) -> list[Any]:
    """_llvm_sandbox's random arguments of `seed`; `special`: with _special_values mixed in."""
    from hlotools.cli.bisect import load_arguments
    args = load_arguments(hlotools.parse_module(text), [], seed)
    rng = np.random.default_rng(seed)
    return [a if a is None or not special else _special_values(np.asarray(a), rng) for a in args]


# -- the child: one level ---------------------------------------------------------------------

def _as_bytes(a: np.ndarray) -> np.ndarray:
    return np.frombuffer(np.ascontiguousarray(a).tobytes(), np.uint8)


def child(cases_file: str, out_file: str) -> None:
    """Compile and run every case at $HLOTOOLS_TARGET_CPU; save the outputs' bytes, and the
    forbidden instructions found in each module's assembly and in the runtime library's."""
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
    from hlotools.backend.llvm.kernels import library as runtime_library
    cases = json.loads(Path(cases_file).read_text())
    outputs: dict[str, np.ndarray] = {}
    forbidden: dict[str, list[str]] = {}
    tm = jit.host_target_machine()
    for case in cases:
        module = hlotools.parse_module(Path(case["file"]).read_text() if "file" in case else case["text"],
                                       case["name"], verify=False)
        in_dt, _ = _leaf_dtypes(module)
        with np.load(case["inputs"]) as f:
            args = _load(f, "in", in_dt)
        compiled = compile_cached(module, CompileOptions(), compile_cache=None)
        with np.errstate(all="ignore"):
            got = compiled(args)
        for i, g in enumerate(got):
            outputs[f"{case['name']}/{i}"] = _as_bytes(np.asarray(g))
        if case.get("asm"):
            _forbidden(forbidden, case["name"], compiled.optimised_ir(), tm, 0)
    for group in runtime_library.loaded():
        _forbidden(forbidden, f"runtime library {group}", runtime_library.build_ir(group), tm, 3)
    np.savez(out_file, **outputs)
    Path(out_file + ".json").write_text(json.dumps({"forbidden": forbidden, "target": list(jit.jit_target())}))


def _forbidden(found: dict[str, list[str]], name: str, llvm_ir: str, tm: Any, level: int) -> None:
    hits = sorted({m.group(0) for m in FAST_MATH.finditer(llvm_ir)} |
                  {m.group(1) for m in APPROXIMATE.finditer(jit.emit_assembly(llvm_ir, tm, level))})
    if hits:
        found[name] = hits


# -- the sweep ------------------------------------------------------------------------------------

def _cases(tmp: Path) -> tuple[list[dict[str, Any]], dict[str, tuple[list[Any], str]]]:
    """The cases for the children, and the op modules' arguments and texts (for the interpreter)."""
    cases: list[dict[str, Any]] = []
    if JAX.is_dir():
        for p in sorted(JAX.glob("*.hlo")):
            if p.name.count(".") == 1:
                n = p.name[:-4]
                cases.append({"name": f"jax/{n}", "file": str(p), "inputs": str(JAX / f"{n}.inputs.npz")})
    ops: dict[str, tuple[list[Any], str]] = {}
    for k, (name, text) in enumerate(sorted(op_modules().items())):
        for special in (False, True):  # the interpreter sees only the plain ones, as in _llvm_sandbox
            args = op_arguments(text, k, special)
            path = tmp / f"op{k}{'s' if special else ''}.npz"
            np.savez(path, **{f"in{i}": np.asarray(a) for i, a in enumerate(args)})
            case = f"op/{name}" + (" (special values)" if special else "")
            cases.append({"name": case, "text": text, "inputs": str(path), "asm": not special})
            if not special:
                ops[case] = (args, text)
    return cases, ops


def _run_levels(tmp: Path, cases: list[dict[str, Any]]) -> dict[str, tuple[dict[str, np.ndarray], dict[str, Any]]]:
    cases_file = tmp / "cases.json"
    cases_file.write_text(json.dumps(cases))
    results = {}
    for level in LEVELS:
        out = tmp / f"{level}.npz"
        env = {**os.environ, "HLOTOOLS_TARGET_CPU": level, "HLOTOOLS_TARGET_FEATURES": ""}
        env.pop("HLOTOOLS_CACHE_DIR", None)
        done = subprocess.run([sys.executable, "-m", __name__, str(cases_file), str(out)],
                              capture_output=True, text=True, timeout=900, env=env, cwd=str(ROOT))
        assert done.returncode == 0, f"{level}: exit {done.returncode}\n{done.stderr[-3000:]}"
        with np.load(out) as f:
            results[level] = ({k: f[k] for k in f.files}, json.loads(Path(str(out) + ".json").read_text()))
    return results


def _module_of(case: dict[str, Any]) -> Any:
    return hlotools.parse_module(Path(case["file"]).read_text() if "file" in case else case["text"],
                                 case["name"], verify=False)


def _uses_gemm(case: dict[str, Any]) -> bool:
    """Whether the case's module has a dot or a convolution (the GEMM kernel's users)."""
    return any(i.opcode in GEMM_OPS for c in _module_of(case).computations for i in c.instructions)


@pytest.mark.slow
@pytest.mark.skipif(not X86, reason="the psABI levels are x86-64's")
def test_levels_give_the_same_bits(tmp_path: Path) -> None:
    cases, ops = _cases(tmp_path)
    results = _run_levels(tmp_path, cases)
    want = results[REFERENCE][0]
    gemm_cases = {c["name"] for c in cases if _uses_gemm(c)}
    assert any(n.startswith("op/dot_") for n in gemm_cases) and "op/conv.f32" in gemm_cases
    problems: list[str] = []
    for level, (got, info) in results.items():
        assert info["target"][1] == level
        problems += [f"{level}: {name} uses {', '.join(found)}" for name, found in info["forbidden"].items()]
        if level != REFERENCE:
            assert sorted(got) == sorted(want)
            # every byte, NaN payloads too: binary ops pick the first operand's NaN
            # (emit_arith.first_operand_nan), reductions the first in order, dots and
            # convolutions store the canonical NaN (gemm_kernel.canonical_nan)
            problems += [f"{name}: {REFERENCE} and {level} differ" for name in sorted(want)
                         if want[name].tobytes() != got[name].tobytes()
                         and not (level in UNFUSED and name.rsplit("/", 1)[0] in gemm_cases)]
    problems += _against_references(want, cases, ops)
    for level in UNFUSED & set(results):  # its own dots, against XLA and the interpreter
        problems += [f"{level}: {p}" for p in
                     _against_references(results[level][0], [c for c in cases if c["name"] in gemm_cases], ops)]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def _leaves(outputs: dict[str, np.ndarray], name: str, dtypes: list[Any]) -> list[np.ndarray]:
    return [outputs[f"{name}/{i}"].view(dt) for i, dt in enumerate(dtypes)]


def _against_references(outputs: dict[str, np.ndarray], cases: list[dict[str, Any]],
                        ops: dict[str, tuple[list[Any], str]]) -> list[str]:
    """A level's outputs against XLA's recorded ones (corpus) and the interpreter
    (op modules), with test_llvm_corpus' and _llvm_sandbox's tolerances per op class."""
    from hlotools import evaluate
    problems = []
    for case in cases:
        name = case["name"]
        if "file" not in case and name not in ops:
            continue  # special values: compared between levels only
        module = _module_of(case)
        _, out_dt = _leaf_dtypes(module)
        shapes = [tuple(s.dims) for s in module.entry.root.shape.leaves()]  # type: ignore[union-attr]
        got = [g.reshape(shape) for g, shape in zip(_leaves(outputs, name, out_dt), shapes)]
        if "file" in case:
            with np.load(JAX / f"{Path(case['file']).name[:-4]}.expected.npz") as f:
                want = _load(f, "out", out_dt)
        else:
            with np.errstate(all="ignore"):
                want = [np.asarray(w) for w in evaluate(module, ops[name][0])]
        klass = op_class({i.opcode for c in module.computations for i in c.instructions})
        for i, (g, w) in enumerate(zip(got, want)):
            try:
                assert_matches(g, np.asarray(w), klass, f"{name} out{i}")
            except AssertionError as e:
                problems.append(str(e).splitlines()[0][:300])
    return problems


# -- resolving targets ---------------------------------------------------------------------------

def _host_without(*names: str) -> str:
    return ",".join(("-" if f in names else ("+" if on else "-")) + f for f, on in HOST_FEATURES.items())


@pytest.mark.skipif(not X86, reason="x86-64 levels")
def test_a_level_the_host_lacks_is_one_line_error() -> None:
    triple = jit.host_triple()
    with pytest.raises(host.TargetError, match=r"^HLOTOOLS_TARGET_CPU=x86-64-v4: this host \(old\) cannot run it "
                                               r"\(no avx512bw, avx512cd, avx512dq, avx512f, avx512vl\)$"):
        host.resolve_target(("x86-64-v4", ""), triple, "old", _host_without("avx512f", "avx512bw", "avx512cd",
                                                                            "avx512dq", "avx512vl"))
    with pytest.raises(host.TargetError, match=r"\(no fma\)$"):
        host.resolve_target(("x86-64-v3", ""), triple, "old", _host_without("fma"))
    with pytest.raises(host.TargetError, match="this host is aarch64"):
        host.resolve_target(("x86-64-v2", ""), "aarch64-unknown-linux-gnu", "neoverse-n1", "+neon")
    with pytest.raises(host.TargetError, match="HLOTOOLS_TARGET_FEATURES=\\+fma: this host \\(old\\) has no fma"):
        host.resolve_target(("x86-64-v2", "+fma"), triple, "old", _host_without("fma"))


@pytest.mark.skipif(not X86, reason="x86-64 levels")
def test_a_level_spells_out_its_features() -> None:
    cpu, features = host.resolve_target(("x86-64-v3", "-fma"), jit.host_triple(), "any", "+avx2,+fma,+avx")
    assert cpu == "x86-64-v3"
    assert host.feature_map(features)["avx2"] and not host.feature_map(features)["fma"]  # the request's last
    assert features.split(",")[-1] == "-fma"


@pytest.mark.skipif(not HOST_FEATURES.get("avx512f"), reason="needs a host with AVX-512F")
def test_a_cpu_name_the_host_lacks_is_found_by_llvm() -> None:
    triple = jit.host_triple()
    lacking = _host_without(*[f for f in HOST_FEATURES if f.startswith("avx512")])
    with pytest.raises(host.TargetError, match=r"^HLOTOOLS_TARGET_CPU=skylake-avx512: this host \(old\) cannot run "
                                               r"its code \(no [a-z0-9, ]*avx512f"):
        host.resolve_target(("skylake-avx512", ""), triple, "old", lacking)
    cpu, features = host.resolve_target(("skylake", ""), triple, "old", lacking)
    assert cpu == "skylake" and "-avx512f" in features.split(",") and "+avx" in features.split(",")
    with pytest.raises(host.TargetError, match="not a recognized processor"):
        host.resolve_target(("no-such-cpu", ""), triple, "old", lacking)


@pytest.mark.skipif(not X86, reason="x86-64 levels")
def test_no_fused_multiply_add_at_any_level() -> None:
    """fmul then fadd stay two roundings where the target has FMA (LLVM fuses only with
    `contract` flags or llvm.fmuladd, neither of which the backend emits)."""
    text = ("define void @f(ptr %p, ptr %q, ptr %r) {\n  %a = load <8 x float>, ptr %p\n"
            "  %b = load <8 x float>, ptr %q\n  %c = load <8 x float>, ptr %r\n  %m = fmul <8 x float> %a, %b\n"
            "  %s = fadd <8 x float> %m, %c\n  store <8 x float> %s, ptr %r\n  ret void\n}\n")
    for level in LEVELS + ["znver4"]:
        tm = jit.target_machine_for(jit.host_triple(), level, "+fma,+avx2" if level == "znver4" else "")
        asm = jit.emit_assembly(text, tm, 3)
        assert "vmulps" in asm or "mulps" in asm
        fused = re.findall(r"^\s*(v?f(?:n)?m(?:add|sub)\w*)\s", asm, re.MULTILINE)
        assert not fused and not APPROXIMATE.search(asm), f"{level}: {fused}"


_FMA_CHILD = """
import numpy as np
import hlotools
from hlotools.backend.llvm.driver.runtime import CompiledModule
out = []
for et, dt, e in (("f32", np.float32, 12), ("f64", np.float64, 27)):
    text = (f"HloModule d\\nENTRY e {{\\n a = {et}[1,2] parameter(0)\\n b = {et}[2,1] parameter(1)\\n"
            f" ROOT d = {et}[1,1] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\\n}}\\n")
    u = 2.0 ** -e
    a = np.array([[-(1 + 2 * u), 1 + u]], dt)
    b = np.array([[1], [1 + u]], dt)
    got = CompiledModule(hlotools.parse_module(text))([a, b])[0]
    out.append(float(got[0, 0]) / u ** 2)
print(out)
"""


@pytest.mark.skipif(not X86, reason="the psABI levels are x86-64's")
def test_gemm_rounds_each_step_once_where_the_target_has_fma() -> None:
    """The GEMM kernel's k step is one fused multiply-add where the target has FMA (v3, v4):
    -(1 + 2u) * 1 + (1 + u)^2 is u^2 exactly; at v2 (no FMA) it is fmul then fadd, whose
    rounded product (1 + 2u: the tie goes to even) leaves 0."""
    for level in LEVELS:
        env = {**os.environ, "HLOTOOLS_TARGET_CPU": level, "HLOTOOLS_TARGET_FEATURES": ""}
        done = subprocess.run([sys.executable, "-c", _FMA_CHILD], capture_output=True, text=True, env=env,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == ("[0.0, 0.0]" if level in UNFUSED else "[1.0, 1.0]"), (level, done.stdout)


_ENV_CHILD = """
import json
from hlotools.backend.llvm.native import cache
from hlotools.backend.llvm.kernels import library as runtime_library
print(json.dumps({"env": cache.environment(), "runtime": runtime_library.environment(),
                  "gemm": runtime_library.key("parallel")}))
"""


@pytest.mark.skipif(not X86, reason="x86-64 levels")
def test_cache_keys_name_the_target(tmp_path: Path) -> None:
    """The compile cache's environment and the runtime library's carry the CPU and features
    used, so each target has entries of its own (and a warm start of one asks LLVM nothing)."""
    seen = {}
    for level in ("host", "x86-64-v2", "x86-64-v3"):
        env = {**os.environ, "HLOTOOLS_TARGET_CPU": level, "HLOTOOLS_CACHE_DIR": str(tmp_path)}
        for _ in range(2):  # the second process reads the host file
            done = subprocess.run([sys.executable, "-c", _ENV_CHILD], capture_output=True, text=True, env=env,
                                  timeout=300)
            assert done.returncode == 0, done.stderr[-2000:]
            seen.setdefault(level, []).append(json.loads(done.stdout))
        assert seen[level][0] == seen[level][1]
    host_env = seen["host"][0]["env"]
    assert host_env["cpu"] == jit.host_description().cpu
    for level in ("x86-64-v2", "x86-64-v3"):
        got = seen[level][0]
        assert got["env"]["cpu"] == got["runtime"]["cpu"] == level
        assert got["env"]["features"] == ",".join("+" + f for f in host.X86_LEVELS[level])
    assert len({s[0]["gemm"] for s in seen.values()}) == 3  # one runtime library per target


def test_hlo_run_target_cpu(tmp_path: Path) -> None:
    path = tmp_path / "m.hlo"
    path.write_text(_unary("exponential", "f32", 5))
    exe = Path(sys.executable).with_name("hlo-run")
    ok = subprocess.run([str(exe), str(path), "--random", "0", "--backend=llvm", "--no-cache", "--target-cpu",
                         LEVELS[0] if X86 else "host"], capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([str(exe), str(path), "--random", "0", "--backend=llvm", "--no-cache", "--target-cpu",
                          "no-such-cpu"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 1
    assert bad.stderr.strip().splitlines() == [
        f"{path}: error: HLOTOOLS_TARGET_CPU=no-such-cpu: 'no-such-cpu' is not a recognized processor for this target"]


if __name__ == "__main__":
    child(sys.argv[1], sys.argv[2])
