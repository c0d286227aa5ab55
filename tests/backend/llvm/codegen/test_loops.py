"""The shape of the loops the LLVM backend emits (LLVM's O3 time grows with it): an
elementwise loop whose reads all share the result's dims and layout is one flat loop (serial
or in each parallel worker), anything else keeps the per-dimension nest; a reduce-window
whose window never leaves the base has no padding test. Values are checked bit-exactly
against the interpreter either way."""
from __future__ import annotations

import re

import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver.runtime import CompiledModule


def _compile(text: str) -> tuple[CompiledModule, hlotools.ir.module.Module]:
    m = hlotools.parse_module(text)
    return CompiledModule(m), m


def _functions(ir_text: str) -> dict[str, str]:
    out = {}
    for m in re.finditer(r'^define [^@]*@"?([\w.\-]+)"?\(.*?^}$', ir_text, re.M | re.S):
        out[m.group(1)] = m.group(0)
    return out


def _code(fns: dict[str, str]) -> str:
    """The function holding the instruction's code: its kernel (codegen/kernels.py), else the
    entry (a module compiled without kernels)."""
    kernels = [f for n, f in fns.items() if n.startswith("k.")]
    assert len(kernels) <= 1
    return kernels[0] if kernels else fns["hlo_entry"]


def _loops(fn_text: str) -> int:
    """Counted loops: one i64 phi induction variable per loop our emitters build."""
    return len(re.findall(r"= phi\s+i64", fn_text))


def _check(text: str, args: list[np.ndarray]) -> CompiledModule:
    cm, m = _compile(text)
    got = cm(args)
    want = evaluate(m, args)
    for g, w in zip(got, want):
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes()
    return cm


def _relu(dims: str) -> str:
    return f"""HloModule relu
ENTRY e {{
  x = f32[{dims}]{{3,2,1,0}} parameter(0)
  z = f32[] constant(0)
  zb = f32[{dims}]{{3,2,1,0}} broadcast(z), dimensions={{}}
  ROOT r = f32[{dims}]{{3,2,1,0}} maximum(x, zb)
}}
"""


def _rng(shape: tuple[int, ...]) -> np.ndarray:
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x.reshape(-1)[:3] = [np.nan, -np.inf, np.inf]
    return x


def test_serial_relu_is_one_flat_loop() -> None:
    cm = _check(_relu("2,3,4,5"), [_rng((2, 3, 4, 5))])
    fns = _functions(cm.llvm_ir)
    assert [_loops(f) for f in fns.values() if _loops(f)] == [1] and _loops(fns["hlo_entry"]) == 0
    assert "udiv" in _code(fns)  # the components, for readers that need them (dead here)


def test_parallel_relu_worker_is_one_flat_loop() -> None:
    cm = _check(_relu("8,32,32,32"), [_rng((8, 32, 32, 32))])
    fns = _functions(cm.llvm_ir)
    workers = [f for n, f in fns.items() if n.startswith("par.")]
    assert len(workers) == 1 and _loops(workers[0]) == 1
    assert _loops(fns["hlo_entry"]) == 0 and _loops(_code(fns)) == 0  # no serial copy of the nest


def test_broadcast_of_a_vector_keeps_the_nest() -> None:
    text = """HloModule m
ENTRY e {
  x = f32[6,7]{1,0} parameter(0)
  v = f32[6]{0} parameter(1)
  vb = f32[6,7]{1,0} broadcast(v), dimensions={0}
  ROOT r = f32[6,7]{1,0} add(x, vb)
}
"""
    cm = _check(text, [_rng((6, 7)), _rng((6,))])
    assert _loops(_code(_functions(cm.llvm_ir))) == 2


def test_operand_of_another_layout_keeps_the_nest() -> None:
    text = """HloModule m
ENTRY e {
  x = f32[6,7]{0,1} parameter(0)
  y = f32[6,7]{1,0} parameter(1)
  ROOT r = f32[6,7]{1,0} multiply(x, y)
}
"""
    cm = _check(text, [_rng((6, 7)), _rng((6, 7))])
    assert _loops(_code(_functions(cm.llvm_ir))) == 2


def test_fused_chain_of_same_layout_reads_is_flat() -> None:
    text = """HloModule m
fused {
  a = f32[4,5,6]{2,1,0} parameter(0)
  b = f32[4,5,6]{2,1,0} parameter(1)
  s = f32[4,5,6]{2,1,0} subtract(a, b)
  c = f32[] constant(2)
  cb = f32[4,5,6]{2,1,0} broadcast(c), dimensions={}
  ROOT m = f32[4,5,6]{2,1,0} multiply(s, cb)
}
ENTRY e {
  x = f32[4,5,6]{2,1,0} parameter(0)
  y = f32[4,5,6]{2,1,0} parameter(1)
  ROOT f = f32[4,5,6]{2,1,0} fusion(x, y), kind=kLoop, calls=fused
}
"""
    cm = _check(text, [_rng((4, 5, 6)), _rng((4, 5, 6))[::-1].copy()])
    assert _loops(_code(_functions(cm.llvm_ir))) == 1


_POOL = """HloModule pool
max_f32 {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}}
ENTRY e {{
  x = f32[2,9,9,3]{{3,2,1,0}} parameter(0)
  init = f32[] constant(-inf)
  ROOT r = f32[{out}]{{3,2,1,0}} reduce-window(x, init), window={{{window}}}, to_apply=max_f32
}}
"""


def test_pool_without_padding_has_no_inside_test() -> None:
    text = _POOL.format(out="2,4,4,3", window="size=1x3x3x1 stride=1x2x2x1")
    cm = _check(text, [_rng((2, 9, 9, 3))])
    entry = _code(_functions(cm.llvm_ir))
    assert "icmp sge" not in entry and "icmp sgt" not in entry  # no bounds test per window element
    assert entry.count("fcmp oge") == 9  # nine maximum ops (emit_arith.float_max_min), unrolled
    assert "llvm.maximum" not in entry  # its NaN's bits depend on the CPU


def test_pool_with_padding_skips_the_padding() -> None:
    text = _POOL.format(out="2,5,5,3", window="size=1x3x3x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0")
    cm = _check(text, [-np.abs(_rng((2, 9, 9, 3))) - 1])  # all below 0: padding must not win
    assert "icmp sge" in _code(_functions(cm.llvm_ir))  # window elements tested against the bounds


def test_large_window_loop_with_dilation() -> None:
    text = _POOL.format(out="2,9,9,3", window="size=1x5x5x1 stride=1x2x2x1 pad=0_0x2_2x2_2x0_0 lhs_dilate=1x2x2x1")
    _check(text, [_rng((2, 9, 9, 3))])


_RESHAPED_SILU = """HloModule m
fused {
  a = f32[6,40]{1,0} parameter(0)
  b = f32[6,40]{1,0} parameter(1)
  ra = f32[2,3,40]{2,1,0} bitcast(a)
  l = f32[2,3,40]{2,1,0} logistic(ra)
  m = f32[2,3,40]{2,1,0} multiply(ra, l)
  rb = f32[2,3,40]{2,1,0} reshape(b)
  p = f32[2,3,40]{2,1,0} multiply(m, rb)
  ROOT o = f32[6,40]{1,0} bitcast(p)
}
ENTRY e {
  x = f32[6,40]{1,0} parameter(0)
  y = f32[6,40]{1,0} parameter(1)
  ROOT f = f32[6,40]{1,0} fusion(x, y), kind=kLoop, calls=fused
}
"""


def test_reshapes_inside_a_fusion_keep_the_loop_vectorisable() -> None:
    """silu(gate) * up of a LLaMA block: the fusion's bitcasts between [6,40] and [2,3,40]
    pass the loop's offset through, so the loop vectorises (it stayed scalar when the
    reshape's index went through udiv/urem and back: 3x slower)."""
    cm = _check(_RESHAPED_SILU, [_rng((6, 40)), _rng((6, 40))])
    kernel = _code(_functions(cm.optimised_ir()))
    assert re.search(r"fmul <\d+ x float>", kernel)


@pytest.mark.parametrize("dims, perm, out", [
    ((2, 3, 4, 5), (0, 2, 1, 3), (8, 3, 5)),    # a head merge: the minor dims map as they are
    ((2, 3, 4, 5), (0, 2, 1, 3), (2, 60)),      # a run of several dims onto one
    ((2, 3, 4, 5), (1, 0, 3, 2), (3, 2, 2, 10)),  # runs that split and merge (4*5 = 2*10)
    ((1, 6, 1, 4), (0, 1, 3, 2), (2, 12, 1)),   # dims of size 1 on both sides
])
def test_reshape_of_a_transpose_maps_its_index_by_dim_runs(dims: tuple[int, ...], perm: tuple[int, ...],
                                                         out: tuple[int, ...]) -> None:
    t = tuple(dims[p] for p in perm)
    layout = ",".join(map(str, range(len(dims) - 1, -1, -1)))
    out_layout = ",".join(map(str, range(len(out) - 1, -1, -1)))
    s = lambda d: ",".join(map(str, d))  # noqa: E731
    text = f"""HloModule m
fused {{
  a = f32[{s(dims)}]{{{layout}}} parameter(0)
  n = f32[{s(dims)}]{{{layout}}} negate(a)
  t = f32[{s(t)}]{{{layout}}} transpose(n), dimensions={{{s(perm)}}}
  ROOT r = f32[{s(out)}]{{{out_layout}}} reshape(t)
}}
ENTRY e {{
  x = f32[{s(dims)}]{{{layout}}} parameter(0)
  ROOT f = f32[{s(out)}]{{{out_layout}}} fusion(x), kind=kLoop, calls=fused
}}
"""
    _check(text, [_rng(dims)])
    _check(text.replace("reshape(t)", "bitcast(t)"), [_rng(dims)])



_CONCAT = """HloModule m
fused {{
  a = f32[{a}]{{2,1,0}} parameter(0)
  b = f32[{b}]{{2,1,0}} parameter(1)
  c = f32[{c}]{{2,1,0}} parameter(2)
  ea = f32[{a}]{{2,1,0}} exponential(a)
  tc = f32[{c}]{{2,1,0}} tanh(c)
  ROOT r = f32[{r}]{{2,1,0}} concatenate(ea, b, tc), dimensions={{{dim}}}
}}
ENTRY e {{
  x = f32[{a}]{{2,1,0}} parameter(0)
  y = f32[{b}]{{2,1,0}} parameter(1)
  z = f32[{c}]{{2,1,0}} parameter(2)
  ROOT f = f32[{r}]{{2,1,0}} fusion(x, y, z), kind=kLoop, calls=fused
}}
"""


@pytest.mark.parametrize("dim, branches", [(1, True), (2, False)])
def test_concatenate_along_a_major_dim_computes_one_piece_per_element(dim: int, branches: bool) -> None:
    """q, k and v gradients concatenated along heads: each element computes only the piece
    it comes from (branches), not every piece for a select chain; along the minor dim the
    select chain stays (branch-free, for the vectoriser). An empty piece is skipped."""
    shapes = [[2, 3, 5], [2, 3, 5], [2, 3, 5]]
    for k, n in enumerate((3, 0, 4)):
        shapes[k][dim] = n
    out = list(shapes[0])
    out[dim] = 7
    text = _CONCAT.format(a=_dims(shapes[0]), b=_dims(shapes[1]), c=_dims(shapes[2]), r=_dims(out), dim=dim)
    args = [_rng(tuple(s)) if 0 not in s else np.zeros(s, np.float32) for s in shapes]
    code = _code(_functions(_check(text, args).llvm_ir))
    assert ("concat.done" in code) == branches


def _dims(d: list[int]) -> str:
    return ",".join(map(str, d))


_CUT = """HloModule m
fused {{
  a = f32[{a}]{{2,1,0}} parameter(0)
  c = f32[{c}]{{2,1,0}} parameter(1)
  ea = f32[{a}]{{2,1,0}} exponential(a)
  tc = f32[{c}]{{2,1,0}} tanh(c)
  r = f32[{r}]{{2,1,0}} concatenate(ea, tc), dimensions={{{dim}}}
  ROOT v = f32[{out}]{{{layout}}} {root}(r){attrs}
}}
ENTRY e {{
  x = f32[{a}]{{2,1,0}} parameter(0)
  z = f32[{c}]{{2,1,0}} parameter(1)
  ROOT f = f32[{out}]{{{layout}}} fusion(x, z), kind=kLoop, calls=fused
}}
"""


def test_concatenate_along_the_minor_dim_cuts_the_inner_loop() -> None:
    """RoPE's cat of two halves along head_dim, read through a transpose: the innermost
    loop runs once per piece, each reading its piece only (one loop per piece instead of
    one loop reading every piece at clamped indices)."""
    text = _CUT.format(a="3,2,5", c="3,2,4", r="3,2,9", dim=2, out="2,3,9", layout="2,1,0", root="transpose",
                       attrs=", dimensions={1,0,2}")
    code = _code(_functions(_check(text, [_rng((3, 2, 5)), _rng((3, 2, 4))]).llvm_ir))
    assert _loops(code) == 4  # d0, d1, and the inner loop as [0, 5) and [5, 9)
    assert code.count("icmp") == 4  # the loops' own tests only: no clamped reads, no select chain


def test_concatenate_viewed_through_a_bitcast_cuts_the_inner_loop() -> None:
    """q/k/v gradients concatenated along heads, then viewed as [tokens, 3*d]: the inner
    loop over 3*d is cut where each piece starts, and each loop's udiv/urem of its variable
    has a known range, so no branch or select picks the piece."""
    text = _CUT.format(a="4,2,5", c="4,1,5", r="4,3,5", dim=1, out="4,15", layout="1,0", root="bitcast", attrs="")
    code = _code(_functions(_check(text, [_rng((4, 2, 5)), _rng((4, 1, 5))]).llvm_ir))
    assert _loops(code) == 3 and "concat.done" not in code  # d0, and the inner loop as [0, 10), [10, 15)


def test_parallel_nest_cuts_each_threads_inner_loop() -> None:
    """The nest split across threads cuts its innermost loop too (each worker's part)."""
    text = _CUT.format(a="128,32,32", c="128,32,32", r="128,32,64", dim=2, out="32,128,64", layout="2,1,0",
                       root="transpose", attrs=", dimensions={1,0,2}")
    cm = _check(text, [_rng((128, 32, 32)), _rng((128, 32, 32))])
    workers = [f for n, f in _functions(cm.llvm_ir).items() if n.startswith("par.")]
    assert len(workers) == 1 and _loops(workers[0]) == 4  # d0 (a chunk of it), d1, [0, 32), [32, 64)
