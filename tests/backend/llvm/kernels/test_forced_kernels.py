"""The new kernel paths beyond their default policies: the GEMM epilogue at every result size
and program length (emit_output_fusion.epilogues()) and the reduce-window runtime kernel for
every eligible reduce-window (emit_reduce_window.kernel_mode("always")), which the defaults
hide from most shapes.

* The JAX corpus (plain and dump styles) after the backend's O2 with both forced gives XLA's
  outputs with the corpus tolerances (tests/corpus/test_llvm.py's).
* Random odd-shaped modules (M, N, K of 1, 3, 17, 63, 65..., batch and several free or
  contracting dims, every layout; convolutions with any dim labels, padding, strides and
  dilations; reduce-windows with 1-element windows, padding past the window, base dilation,
  negative padding) run in a child process whose every input, output and temp arena sits
  against a PROT_NONE page (`python -m tests.backend.llvm.kernels.test_forced_kernels KIND START COUNT`): a read or
  write past a buffer's end, or before its start (every other case), kills the child and
  fails the test; the results must be the unfused / elemental-loop ones bit for bit (float
  add / multiply reducers: within rounding, as emit_reduce's loop may reassociate them).

Measured by hand with larger counts (1,800 dot, 1,000 convolution, 4,500 reduce-window cases
under guard pages; the full JAX corpus in three styles and the XLA corpus' 110 modules with a
dot, convolution or reduce-window in each forced mode): one bug, a power with a constant
operand (epilogue_program: LLVM rewrites pow(x, c) in the loop by value).
"""
from __future__ import annotations

import ctypes
import json
import mmap
import subprocess
import sys
from contextlib import ExitStack
from typing import Any

import numpy as np
import pytest

from tests.corpus.test_interpreter import JAX
from tests.support.paths import ROOT


def forced() -> ExitStack:
    """Both new paths forced (a context)."""
    from hlotools.backend.llvm import load_emitters
    from hlotools.backend.llvm.lower import reduce_window
    from hlotools.backend.llvm.lower.output_fusion import epilogues
    load_emitters()
    stack = ExitStack()
    stack.enter_context(epilogues(True, 0))
    stack.enter_context(reduce_window.kernel_mode("always"))
    return stack


def _compile_o2(module: Any) -> Any:
    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
    return compile_cached(module, CompileOptions(preset="O2"), compile_cache=None)


def _jax_cases() -> list[Any]:
    if not JAX.is_dir():
        return []
    names = sorted(p.name[:-4] for p in JAX.glob("*.hlo") if p.name.count(".") == 1)
    return [pytest.param(n, s, id=f"{n}.{s}") for n in names for s in ("hlo", "dump.hlo")]


@pytest.mark.slow
@pytest.mark.skipif(not JAX.is_dir(), reason="shared/corpus/jax is absent")
@pytest.mark.parametrize("name,style", _jax_cases())
def test_jax_corpus_with_both_paths_forced(name: str, style: str) -> None:
    from tests.support.llvm_sandbox import check_reference  # in process: what the corpus sweeps' workers run
    with forced():
        check_reference(str(JAX / f"{name}.{style}"), str(JAX / f"{name}.inputs.npz"),
                        str(JAX / f"{name}.expected.npz"))


@pytest.mark.skipif(not (JAX / "cnn_mnist.hlo").is_file(), reason="shared/corpus/jax is absent")
def test_forcing_reaches_both_paths() -> None:
    """cnn_mnist's small convolutions and pools take neither path by default, both forced."""
    import hlotools
    path = JAX / "cnn_mnist.hlo"
    module = hlotools.parse_module(path.read_text(), str(path), verify=False)
    default = _compile_o2(module)
    with forced():
        both = _compile_o2(module)
    assert "gemm.epilogue" not in default.llvm_ir and "gemm.epilogue" in both.llvm_ir
    assert not any(g.startswith("reduce_window.") for g in default.runtime_groups)
    assert any(g.startswith("reduce_window.") for g in both.runtime_groups)


# ----------------------------------------------------------------------------- guard pages

_PAGE = mmap.PAGESIZE
_KEEP: list[Any] = []  # the guarded buffers of this (child) process: never unmapped
_AT_END = [True]


def _guarded(nbytes: int, align: int) -> int:
    """The address of `nbytes` bytes against a PROT_NONE page: ending at the next page
    (_AT_END) or starting right after the previous one."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    body = -(-max(nbytes, 1) // _PAGE) * _PAGE
    base = libc.mmap(None, body + 2 * _PAGE, mmap.PROT_READ | mmap.PROT_WRITE,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    assert base is not None and base != ctypes.c_void_p(-1).value
    assert libc.mprotect(base, _PAGE, 0) == 0 and libc.mprotect(base + _PAGE + body, _PAGE, 0) == 0
    return (base + _PAGE + body - nbytes) // align * align if _AT_END[0] else base + _PAGE


def _guarded_array(a: np.ndarray, fill: int | None = None) -> np.ndarray:
    addr = _guarded(a.nbytes, a.dtype.itemsize)
    buf = (ctypes.c_char * max(a.nbytes, 1)).from_address(addr)
    _KEEP.append(buf)
    out = np.frombuffer(memoryview(buf), dtype=a.dtype, count=a.size).reshape(a.shape)
    if fill is None:
        out[...] = a
    else:
        out.view(np.uint8).reshape(-1)[:] = fill
    return out


def install_guards() -> None:
    """Every argument, result and temp arena of calls from now on is guarded (the child)."""
    from hlotools.backend.llvm import abi
    to_physical, alloc_physical = abi.to_physical, abi.alloc_physical

    def guarded_physical(arg: Any, shape: Any, i: int) -> np.ndarray | None:
        a = to_physical(arg, shape, i)
        return None if a is None else _guarded_array(a)

    def guarded_result(shape: Any) -> np.ndarray | None:
        a = alloc_physical(shape)
        return None if a is None or not a.size else _guarded_array(a, fill=0xA5)

    def guarded_arena(size: int) -> tuple[np.ndarray, int]:
        n = -(-max(size, 1) // abi.ARENA_ALIGN) * abi.ARENA_ALIGN
        addr = _guarded(n, abi.ARENA_ALIGN)
        buf = (ctypes.c_char * n).from_address(addr)
        _KEEP.append(buf)
        raw = np.frombuffer(memoryview(buf), np.uint8)
        raw[:] = 0xA5
        return raw, addr
    abi.to_physical = guarded_physical  # type: ignore[assignment]
    abi.alloc_physical = guarded_result  # type: ignore[assignment]
    abi.new_arena = guarded_arena  # type: ignore[assignment]


def _run_child(kind: str, start: int, count: int) -> list[dict[str, Any]]:
    proc = subprocess.run([sys.executable, "-X", "faulthandler", "-m", __name__, kind, str(start),
                           str(count)], capture_output=True, text=True, timeout=600, cwd=str(ROOT))
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    assert proc.returncode == 0, (f"{kind} cases from seed {start}: the child died ({proc.returncode}) after "
                                  f"{len(lines)} cases\n{proc.stderr[-3000:]}")
    assert len(lines) == count
    return lines


@pytest.mark.parametrize("kind,count", [("dot", 40), ("conv", 25), ("reduce-window", 60)])
def test_odd_shapes_under_guard_pages(kind: str, count: int) -> None:
    results = _run_child(kind, 0, count)
    bad = [r for r in results if not r["ok"]]
    assert not bad, bad[:3]
    paths = {r["path"] for r in results}
    assert ("epilogue" in paths and "in_place" in paths) if kind != "reduce-window" else "kernel" in paths, paths


@pytest.mark.parametrize("side", [0, 1])
def test_the_guard_pages_fault(side: int) -> None:
    """The child's guard really catches an access one byte past the end (before the start)."""
    proc = subprocess.run([sys.executable, "-m", __name__, "selftest", str(side), "0"],
                          capture_output=True, timeout=120, cwd=str(ROOT))
    assert proc.returncode == -11, proc.returncode


# ----------------------------------------------------------------------------- random cases

_ODD = [1, 3, 17, 63, 2, 5, 16, 33, 65]


def _lay(rng: np.random.Generator, n: int) -> str:
    return "{" + ",".join(map(str, rng.permutation(n))) + "}" if n else ""


def _shape(t: str, dims: list[int], lay: str = "") -> str:
    return f"{t}[{','.join(map(str, dims))}]{lay}"


def dot_case(rng: np.random.Generator) -> Any:
    """A dot (batch, free and contracting dims of odd sizes, random layouts) + epilogue."""
    ct = str(rng.choice(["f32"] * 6 + ["f64", "s32", "s64", "u32"]))
    counts = {"b": int(rng.choice([0, 0, 1, 2])), "l": int(rng.choice([1, 1, 2])), "r": int(rng.choice([0, 1, 1, 2])),
              "k": int(rng.choice([1, 1, 2]))}
    size: dict[str, list[int]] = {}
    for _ in range(50):
        size = {"b": [int(rng.choice([1, 2, 3])) for _ in range(counts["b"])],
                "l": [int(rng.choice(_ODD)) for _ in range(counts["l"])],
                "r": [int(rng.choice(_ODD)) for _ in range(counts["r"])],
                "k": [int(rng.choice([1, 3, 17, 63, 8])) for _ in range(counts["k"])]}
        out_elems = int(np.prod(size["b"] + size["l"] + size["r"]))
        if out_elems <= 40_000 and out_elems * int(np.prod(size["k"])) <= 300_000:
            break
    lhs = [(k, i) for k in "blk" for i in range(counts[k])]
    rhs = [(k, i) for k in "bkr" for i in range(counts[k])]
    lhs = [lhs[i] for i in rng.permutation(len(lhs))]
    rhs = [rhs[i] for i in rng.permutation(len(rhs))]

    def dims(side: list[tuple[str, int]], kind: str) -> str:
        return ",".join(str(side.index((kind, i))) for i in range(counts[kind]))
    attrs = f"lhs_contracting_dims={{{dims(lhs, 'k')}}}, rhs_contracting_dims={{{dims(rhs, 'k')}}}"
    if counts["b"]:
        attrs = f"lhs_batch_dims={{{dims(lhs, 'b')}}}, rhs_batch_dims={{{dims(rhs, 'b')}}}, " + attrs
    odims = size["b"] + [size[k][i] for k, i in lhs if k == "l"] + [size[k][i] for k, i in rhs if k == "r"]
    s = _shape(ct, odims, _lay(rng, len(odims)))
    params = [_shape(ct, [size[k][i] for k, i in side], _lay(rng, len(side))) for side in (lhs, rhs)]
    return _epilogue(rng, ct, odims, s, params, [f"d = {s} dot(p0, p1), {attrs}"])


def conv_case(rng: np.random.Generator) -> Any:
    """A convolution (any dim labels, padding, strides, dilations) + epilogue."""
    ct = str(rng.choice(["f32"] * 4 + ["f64"]))
    nsp = int(rng.choice([1, 2, 2, 3]))
    for _ in range(100):
        n, ci = int(rng.choice([1, 2, 3])), int(rng.choice([1, 8, 17, 32, 64]))
        co = int(rng.choice([3, 16, 17, 33, 40, 64]))
        sp = [int(rng.choice([1, 5, 9, 13, 17, 24])) for _ in range(nsp)]
        win = []
        for x in sp:
            size, stride = int(rng.choice([1, 1, 2, 3])), int(rng.choice([1, 1, 2, 3]))
            lo, hi = int(rng.choice([0, 0, 1, 2, 4, -1])), int(rng.choice([0, 0, 1, 2, 4, -1]))
            ld, rd = int(rng.choice([1, 1, 1, 2])), int(rng.choice([1, 1, 1, 2]))
            padded, span = (x - 1) * ld + 1 + lo + hi, (size - 1) * rd + 1
            win.append((size, stride, lo, hi, ld, rd, 0 if span > padded else (padded - span) // stride + 1))
        work = n * co * ci * int(np.prod([w[6] for w in win])) * int(np.prod([w[0] for w in win]))
        if all(w[6] > 0 for w in win) and 20_000 <= work <= 4_000_000:
            break
    else:
        return dot_case(rng)
    letters = "012"[:nsp]

    def labels(a: str, b: str) -> str:
        chars = a + b + letters
        shuffled = "".join(chars[i] for i in rng.permutation(len(chars)))
        return str(rng.choice([a + letters + b, a + b + letters, b + a + letters, shuffled]))
    lin, outl = labels("b", "f"), labels("b", "f")
    ker = labels("i", "o") if rng.integers(2) else letters + "io"
    sizes_in = {"b": n, "f": ci, **{str(i): sp[i] for i in range(nsp)}}
    sizes_k = {"i": ci, "o": co, **{str(i): win[i][0] for i in range(nsp)}}
    sizes_out = {"b": n, "f": co, **{str(i): win[i][6] for i in range(nsp)}}
    wt = " ".join(f"{key}={'x'.join(v(w) for w in win)}" for key, v in (
        ("size", lambda w: str(w[0])), ("stride", lambda w: str(w[1])), ("pad", lambda w: f"{w[2]}_{w[3]}"),
        ("lhs_dilate", lambda w: str(w[4])), ("rhs_dilate", lambda w: str(w[5]))))

    def lay(k: int) -> str:
        return _lay(rng, k) if rng.integers(3) == 0 else ""
    odims = [sizes_out[c] for c in outl]
    s = _shape(ct, odims, lay(len(odims)))
    params = [_shape(ct, [sizes_in[c] for c in lin], lay(nsp + 2)), _shape(ct, [sizes_k[c] for c in ker], lay(nsp + 2))]
    body = [f"d = {s} convolution(p0, p1), window={{{wt}}}, dim_labels={lin}_{ker}->{outl}"]
    return _epilogue(rng, ct, odims, s, params, body)


_FUN = ["negate", "abs", "exponential", "tanh", "logistic", "sqrt", "floor", "sign", "ceil", "log-plus-one", "rsqrt",
        "erf", "sine"]
_FBIN = ["add", "subtract", "multiply", "maximum", "minimum", "divide", "power"]
_IBIN = ["add", "subtract", "multiply", "maximum", "minimum", "divide"]


def _epilogue(rng: np.random.Generator, ct: str, odims: list[int], s: str, params: list[str], body: list[str]) -> Any:
    """1-6 random stages after D: unary ops, constants, scalar parameters, broadcasts along
    any dims, full tensors in any layout, compare + select (pred parameters too), clamp,
    division by constants (powers of two and others)."""
    from tests.backend.llvm.lower.test_output_fusion import chain_case
    fl, rank = ct[0] == "f", len(odims)
    pred = _shape("pred", odims)
    values = ["d"]

    def param(shape: str) -> str:
        params.append(shape)
        return f"p{len(params) - 1}"

    def dims_subset(least: int) -> list[int]:
        return sorted(int(i) for i in rng.choice(rank, size=int(rng.integers(least, rank + 1)), replace=False))
    for j in range(int(rng.integers(1, 7))):
        kind = str(rng.choice(["unary", "scalar", "sparam", "bcast", "full", "select", "clamp", "div", "cmp"]))
        x = str(rng.choice(values))
        if kind == "unary":
            op = str(rng.choice(_FUN if fl else ["negate", "abs", "sign"] if ct[0] == "s" else ["negate"]))
            body.append(f"v{j} = {s} {op}({x})")
        elif kind == "clamp":
            body.append(f"lo{j} = {s} broadcast({param(_shape(ct, []))}), dimensions={{}}")
            body.append(f"hi{j} = {s} broadcast({param(_shape(ct, []))}), dimensions={{}}")
            body.append(f"v{j} = {s} clamp(lo{j}, {x}, hi{j})")
        elif kind == "div" and fl:
            body.append(f"c{j} = {ct}[] constant({rng.choice(['2', '0.5', '-4', '3', '1e-30', '65536'])})")
            body.append(f"cb{j} = {s} broadcast(c{j}), dimensions={{}}")
            body.append(f"v{j} = {s} divide({x}, cb{j})")
        elif kind in ("select", "cmp"):
            y = str(rng.choice(values))
            where = int(rng.integers(3))
            if where == 0:
                sub = dims_subset(0)
                p = param(_shape("pred", [odims[i] for i in sub], _lay(rng, len(sub))))
                body.append(f"m{j} = {pred} broadcast({p}), dimensions={{{','.join(map(str, sub))}}}")
            elif where == 1:
                body.append(f"m{j} = {pred} not({param(_shape('pred', odims, _lay(rng, rank)))})")
            else:
                body.append(f"m{j} = {pred} compare({x}, {y}), direction={rng.choice(['EQ', 'NE', 'LT', 'LE', 'GT', 'GE'])}")
            if kind == "cmp":
                body.append(f"z{j} = {s} broadcast({param(_shape(ct, []))}), dimensions={{}}")
                body.append(f"v{j} = {s} select(m{j}, {x}, z{j})")
            else:
                body.append(f"v{j} = {s} select(m{j}, {y}, {x})")
        else:
            op = str(rng.choice(_FBIN if fl else _IBIN))
            if kind == "sparam":
                body.append(f"o{j} = {s} broadcast({param(_shape(ct, []))}), dimensions={{}}")
            elif kind == "bcast":
                sub = dims_subset(1)
                p = param(_shape(ct, [odims[i] for i in sub], _lay(rng, len(sub))))
                body.append(f"o{j} = {s} broadcast({p}), dimensions={{{','.join(map(str, sub))}}}")
            elif kind == "full":
                p = param(_shape(ct, odims, _lay(rng, rank) if rng.integers(2) else s[len(_shape(ct, odims)):]))
                body.append(f"o{j} = {s} negate({p})" if fl and rng.integers(2) else f"o{j} = {s} add({p}, {p})")
            else:  # a scalar constant
                body.append(f"c{j} = {ct}[] constant({rng.choice(['0', '-1.5', '2', '0.25'] if fl else ['0', '3', '2', '7'])})")
                body.append(f"o{j} = {s} broadcast(c{j}), dimensions={{}}")
            a, b = (x, f"o{j}") if rng.integers(2) else (f"o{j}", x)
            body.append(f"v{j} = {s} {op}({a}, {b})")
        values.append(f"v{j}")
    return chain_case(params, body, values, s)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    from tests.backend.llvm.kernels.test_reduce_window import _same as same
    return bool(same(np.asarray(a), np.asarray(b)))


def _fusion_case(kind: str, seed: int) -> dict[str, Any]:
    """Forced epilogue, in-place path and unfused module: the same bits."""
    import hlotools
    from hlotools.backend.llvm import compile_module
    from hlotools.backend.llvm.lower.gemm import generated_only
    from hlotools.backend.llvm.lower.output_fusion import decide, epilogues
    from tests.backend.llvm.lower.test_output_fusion import _args
    rng = np.random.default_rng(seed)
    case = dot_case(rng) if kind == "dot" else conv_case(rng)
    args = _args(case, seed)
    with generated_only():
        with epilogues():
            root = hlotools.parse_module(case.fused()).entry.root  # type: ignore[union-attr]
            got = decide(root)  # type: ignore[arg-type]
            fused = np.asarray(compile_module(hlotools.parse_module(case.fused()))(args)[0]).copy()
        with epilogues(False):
            in_place = np.asarray(compile_module(hlotools.parse_module(case.fused()))(args)[0]).copy()
        plain = np.asarray(compile_module(hlotools.parse_module(case.plain()))(args)[0]).copy()
    ok = _same(fused, plain) and _same(in_place, plain)
    return {"seed": seed, "path": got.how if got is not None else "call", "ok": ok,
            **({} if ok else {"module": case.fused()})}


def _reduce_window_case(seed: int) -> dict[str, Any]:
    """The kernel forced against the elemental loop (exact, or within rounding for float add
    and multiply, whose order emit_reduce lets LLVM change)."""
    import hlotools
    from tests.backend.llvm.kernels.test_reduce_window import (
        INITS,
        _values,
        compile_both,
        module_text,
        uses_kernel,
    )
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(1, 7))
    dims: list[int] = []
    for _ in range(100):
        dims = [int(rng.choice([1, 2, 3, 5, 7, 17, 33, 63, 65, 130])) for _ in range(rank)]
        if np.prod(dims) <= 60_000:
            break
    perm = tuple(range(rank - 1, -1, -1))
    in_perm, out_perm = (perm, perm) if rng.integers(2) else (tuple(int(x) for x in rng.permutation(rank)),
                                                             tuple(int(x) for x in rng.permutation(rank)))
    window = []
    for n in dims:
        size, stride = int(rng.choice([1, 1, 2, 3, 4, 7])), int(rng.choice([1, 1, 2, 3, 5]))
        bd, wd = int(rng.choice([1, 1, 1, 2, 3])), int(rng.choice([1, 1, 1, 2]))
        base = (n - 1) * bd + 1
        lo = max(int(rng.choice([0, 0, 1, 3, 8, -1, -2])), -(base - 1))
        hi = max(int(rng.choice([0, 0, 1, 3, 8, -1, -2])), -(base + lo - 1))
        window.append((size, stride, lo, hi, bd, wd))
    if np.prod([w[0] for w in window]) > 1024:
        window = [(1, *w[1:]) for w in window]
    op = str(rng.choice(["add", "multiply", "maximum", "minimum"]))
    dtype = str(rng.choice(["f32", "f32", "f32", "f64", "s32", "s8", "u16", "s64"]))
    runtime_init = bool(rng.integers(2))
    init = None if runtime_init else INITS[op] if dtype[0] == "f" else "0"
    text = module_text(dims, in_perm, out_perm, window, op, dtype, bool(rng.integers(2)), init)
    args = [_values(rng, dims, dtype, special=True)]
    if runtime_init:
        args.append(_values(rng, [], dtype, special=False))
    kernel, loop = compile_both(text)
    got, want = np.asarray(kernel(args)[0]).copy(), np.asarray(loop(args)[0]).copy()
    ok = _same(got, want)
    if not ok and dtype[0] == "f" and op in ("add", "multiply"):
        ok = bool(np.allclose(got, want, rtol=1e-4, atol=1e-30, equal_nan=True))
    m = hlotools.parse_module(text)
    empty = not np.prod(m.entry.root.shape.dims)  # type: ignore[union-attr]
    return {"seed": seed, "path": "kernel" if uses_kernel(kernel) else "empty" if empty else "loop", "ok": ok,
            **({} if ok else {"module": text})}


def _child(kind: str, start: int, count: int) -> None:
    """Run cases start.. under guard pages, one JSON line each (a fault kills the process)."""
    if kind == "selftest":  # one byte past a guarded buffer (start: one byte before)
        _AT_END[0] = start == 0
        a = _guarded_array(np.ones(3, np.float32))
        ctypes.string_at(a.ctypes.data + a.nbytes if start == 0 else a.ctypes.data - 1, 1)
        return
    install_guards()
    for seed in range(start, start + count):
        _AT_END[0] = seed % 2 == 0
        result = _reduce_window_case(seed) if kind == "reduce-window" else _fusion_case(kind, seed)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    _child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
