"""Which NaN comes out, on both backends and on every CPU.

The bit patterns recorded here were measured on real XLA CPU (jaxlib 0.10.2, via
../shared/tools/xla_ref.py); where XLA is host-dependent (maximum/minimum: it emits
llvm.maximum, whose NaN x86 lowers differently with and without AVX-512) hlotools defines
its answer: the NaN operand, quieted, the first operand's when both are NaN; a reduction's
first NaN in fold order. Both backends must give the same bits: the LLVM backend never emits
llvm.maximum / llvm.minimum, whose NaN bits LLVM leaves to the target.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver.pipeline import optimise_module
from hlotools.backend.llvm.driver.runtime import CompiledModule

QNAN, NQNAN, PAYLOAD, SNAN = 0x7FC00000, 0xFFC00000, 0xFFC12345, 0x7F800001
ONE, NEG_ONE = 0x3F800000, 0xBF800000
ALL_ONES = 0xFFFFFFFF


def _f32(*bits: int) -> np.ndarray:
    return np.array(bits, np.uint32).view(np.float32)


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def _both(text: str, *args: np.ndarray, nan_only: tuple[int, ...] = ()) -> list[np.ndarray]:
    """The interpreter's outputs, after checking the LLVM backend (-O2) gives the same bits
    (outputs in `nan_only`: the same bits where the interpreter's value is NaN; libm and numpy
    may differ by an ulp elsewhere)."""
    m = hlotools.parse_module(text)
    want = evaluate(m, list(args))
    got = CompiledModule(optimise_module(hlotools.parse_module(text)))(list(args))
    for k, (w, g) in enumerate(zip(want, got)):
        wb, gb = _bits(np.asarray(w)), _bits(np.asarray(g))
        if k in nan_only:
            wb, gb = wb[np.isnan(np.asarray(w))], gb[np.isnan(np.asarray(w))]
        assert np.array_equal(wb, gb), (k, [hex(v) for v in wb.ravel()], [hex(v) for v in gb.ravel()])
    return want


def _binary(op: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    n = len(x)
    return _both(f"HloModule m\nENTRY e {{\n  x = f32[{n}] parameter(0)\n  y = f32[{n}] parameter(1)\n"
                 f"  ROOT r = f32[{n}] {op}(x, y)\n}}\n", x, y)[0]


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_max_min_return_the_nan_operand_quieted(op: str) -> None:
    x = _f32(ONE, NEG_ONE, QNAN, SNAN, NQNAN, PAYLOAD, 0x80000000)
    y = _f32(NQNAN, PAYLOAD, NQNAN, ONE, ONE, SNAN, 0x00000000)
    r = _bits(_binary(op, x, y))
    # x's NaN when x is NaN, else y's; quieted (sNaN 0x7f800001 -> 0x7fc00001); sign and payload kept
    assert list(r[:6]) == [NQNAN, PAYLOAD, QNAN, 0x7FC00001, NQNAN, PAYLOAD]
    assert r[6] == (0 if op == "maximum" else 0x80000000)  # -0 < +0


@pytest.mark.parametrize("op,init", [("maximum", "-inf"), ("minimum", "inf")])
def test_reductions_give_the_first_nan_in_fold_order(op: str, init: str) -> None:
    x = np.random.default_rng(0).standard_normal((4, 50)).astype(np.float32)
    u = x.view(np.uint32)
    u[0, 3], u[0, 30] = NQNAN, QNAN  # first -NaN, then +NaN
    u[1, 7], u[1, 8] = SNAN, NQNAN  # a signaling NaN first: quieted
    u[2, 49] = PAYLOAD  # the last element
    text = f"""HloModule m
r {{ a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] {op}(a, b) }}
ENTRY e {{
  x = f32[4,50] parameter(0)
  i = f32[] constant({init})
  red = f32[4] reduce(x, i), dimensions={{1}}, to_apply=r
  win = f32[4,25] reduce-window(x, i), window={{size=1x4 stride=1x2 pad=0_0x1_1}}, to_apply=r
  ROOT t = (f32[4], f32[4,25]) tuple(red, win)
}}
"""
    red, win = _both(text, x)
    assert [hex(v) for v in _bits(red)[:3]] == [hex(NQNAN), hex(0x7FC00001), hex(PAYLOAD)]
    assert not np.isnan(red[3])
    assert _bits(win)[0, 1] == NQNAN and _bits(win)[1, 4] == 0x7FC00001  # windows [1,5) and [7,11)


def test_reduce_with_a_nan_init_returns_the_init_quieted() -> None:
    text = """HloModule m
r { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }
ENTRY e {
  x = f32[3,5] parameter(0)
  i = f32[] parameter(1)
  ROOT red = f32[3] reduce(x, i), dimensions={1}, to_apply=r
}
"""
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    x.view(np.uint32)[1, 2] = NQNAN
    (red,) = _both(text, x, _f32(SNAN)[0])
    assert list(_bits(red)) == [0x7FC00001] * 3


def test_transcendentals_pass_their_nan_operand_as_xla_does() -> None:
    """XLA CPU (and x86 arithmetic) keep a NaN operand's sign and payload, quieted; numpy's
    SIMD loops return +NaN for some; XLA's f32 log/log1p answer invalid operands with 0xFFFFFFFF."""
    x = _f32(QNAN, NQNAN, PAYLOAD, SNAN, NEG_ONE, ONE)
    ops = ["exponential", "tanh", "sine", "cosine", "sqrt", "exponential-minus-one", "logistic", "log",
           "log-plus-one"]
    body = "\n".join(f"  o{k} = f32[6] {op}(x)" for k, op in enumerate(ops))
    text = (f"HloModule m\nENTRY e {{\n  x = f32[6] parameter(0)\n{body}\n"
            f"  ROOT t = ({', '.join(['f32[6]'] * len(ops))}) tuple({', '.join(f'o{k}' for k in range(len(ops)))})\n}}\n")
    libm = tuple(k for k, op in enumerate(ops) if op in ("sine", "cosine", "exponential-minus-one"))
    outs = dict(zip(ops, (_bits(o) for o in _both(text, x, nan_only=libm))))
    assert outs["exponential"][5] == 0x402DF854 and outs["tanh"][5] == 0x3F42F7D6  # XLA's exp(1), tanh(1)
    passed = [QNAN, NQNAN, PAYLOAD, 0x7FC00001]
    for op in ("exponential", "tanh", "sine", "cosine", "sqrt", "exponential-minus-one"):
        assert list(outs[op][:4]) == passed, op
    assert list(outs["logistic"][:4]) == [NQNAN, QNAN, 0x7FC12345, 0xFFC00001]  # 1 / (1 + exp(-x))
    assert list(outs["log"][:5]) == [ALL_ONES] * 5  # XLA: every NaN and log(-1)
    assert list(outs["log-plus-one"][:4]) == [ALL_ONES] * 4 and outs["log-plus-one"][4] == 0xFF800000
    assert outs["sqrt"][4] == NQNAN  # the invalid operation's default NaN (x86)


def test_log_of_other_widths_as_xla() -> None:
    f64 = np.array([0x7FF0000000000001, 0xBFF0000000000000, 0xFFF8000012345678], np.uint64).view(np.float64)
    f16 = np.array([0x7C01, 0xC000, 0xFD55], np.uint16).view(np.float16)  # NaN, -2, NaN
    bf16 = np.array([0x7F81, 0xBF80, 0x7FD5], np.uint16).view(ml_dtypes.bfloat16)
    text = """HloModule m
ENTRY e {
  d = f64[3] parameter(0)
  h = f16[3] parameter(1)
  b = bf16[3] parameter(2)
  ld = f64[3] log(d)
  lh = f16[3] log(h)
  l1h = f16[3] log-plus-one(h)
  lb = bf16[3] log(b)
  ROOT t = (f64[3], f16[3], f16[3], bf16[3]) tuple(ld, lh, l1h, lb)
}
"""
    ld, lh, l1h, lb = (list(_bits(o)) for o in _both(text, f64, f16, bf16))
    assert ld == [0x7FF8000000000001, 0x7FF8000000000000, 0xFFF8000012345678]
    assert lh == [0x7E01, 0xFE00, 0xFF55]  # XLA's f16 log is libm's: the NaN passes quieted
    assert l1h == [0xFFFF] * 3
    assert lb == [0xFFC0] * 3


def test_conversions_quiet_a_nan_and_keep_its_top_payload_bits() -> None:
    """f32 <-> f16 as F16C converts (XLA CPU): sNaN 0x7f800001 -> f16 0x7e00 (its payload was
    all below f16's), 0x7fbfffff -> 0x7fff; f16 0x7c01 -> 0x7fc02000; f32 -> f64 likewise."""
    x = _f32(SNAN, 0x7FBFFFFF, 0xFFC12345, QNAN)
    h = np.array([0x7C01, 0xFD55, 0x7E00, 0x7C00], np.uint16).view(np.float16)
    text = """HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  h = f16[4] parameter(1)
  xh = f16[4] convert(x)
  hx = f32[4] convert(h)
  xd = f64[4] convert(x)
  ROOT t = (f16[4], f32[4], f64[4]) tuple(xh, hx, xd)
}
"""
    xh, hx, xd = (list(_bits(o)) for o in _both(text, x, h))
    assert xh == [0x7E00, 0x7FFF, 0xFE09, 0x7E00]
    assert hx == [0x7FC02000, 0xFFEAA000, 0x7FC00000, 0x7F800000]
    assert xd == [0x7FF8000020000000, 0x7FFFFFFFE0000000, 0xFFF82468A0000000, 0x7FF8000000000000]


def test_the_llvm_backend_never_emits_llvm_maximum() -> None:
    text = """HloModule m
r { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT m = f32[] maximum(a, b) }
ENTRY e {
  x = f32[8,64] parameter(0)
  y = f32[8,64] parameter(1)
  i = f32[] constant(-inf)
  m = f32[8,64] maximum(x, y)
  ROOT red = f32[8] reduce(m, i), dimensions={1}, to_apply=r
}
"""
    cm = CompiledModule(optimise_module(hlotools.parse_module(text)))
    assert "llvm.maximum" not in cm.llvm_ir and "llvm.minimum" not in cm.llvm_ir


@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide"])
def test_two_nan_operands_give_the_first_quieted(op: str) -> None:
    """x86 returns the first operand's NaN; numpy's loops (its tails, array-scalar forms) and
    LLVM's commuted operands do not keep to it, so both backends pick it (33 elements: numpy's
    vector body and its tail)."""
    x = np.full(33, SNAN, np.uint32).view(np.float32)
    y = np.full(33, PAYLOAD, np.uint32).view(np.float32)
    r = _bits(_binary(op, x, y))
    assert set(r.tolist()) == {0x7FC00001}
    r = _bits(_binary(op, y, x))
    assert set(r.tolist()) == {PAYLOAD}


@pytest.mark.parametrize("op", ["add", "multiply"])
@pytest.mark.parametrize("acc_first", [True, False])
def test_long_row_reductions_give_the_first_nan_in_fold_order(op: str, acc_first: bool) -> None:
    """Rows long enough for the LLVM backend's fixed lanes (16 accumulators, a tree, the
    leftovers in sequence; lower/reduction.py lane_fold), with either operand order of the
    reducer: NaNs in two lanes, signalling ones, one in the leftovers, inf - inf."""
    x = np.random.default_rng(1).standard_normal((6, 100)).astype(np.float32)
    u = x.view(np.uint32)
    u[0, 5], u[0, 37] = 0x7FC00123, 0xFFC00456  # lane 5 first, lane 5 + 32 later
    u[1, 17], u[1, 1] = 0x7F800011, 0xFF800022  # signalling: quieted, the earlier one (lane 1)
    u[2, 3], u[2, 40] = 0x7F800000, 0xFF800000  # inf + -inf: x86's default NaN
    u[3, 99] = 0x7FC00777  # in the leftovers (96..99)
    u[4, 96], u[4, 3] = 0x7FC00001, 0x7FC00002  # a leftover one after a lane's
    a, b = ("p", "q") if acc_first else ("q", "p")
    text = f"""HloModule m
r {{ p = f32[] parameter(0)  q = f32[] parameter(1)  ROOT o = f32[] {op}({a}, {b}) }}
ENTRY e {{
  x = f32[6,100] parameter(0)
  i = f32[] constant({0 if op == "add" else 1})
  e = f32[6,100] negate(x)
  s = f32[6] reduce(x, i), dimensions={{1}}, to_apply=r
  n = f32[6] reduce(e, i), dimensions={{1}}, to_apply=r
  ROOT t = (f32[6], f32[6]) tuple(s, n)
}}
"""
    red, neg = _both(text, x, nan_only=(0, 1))
    got = [hex(v) for v in _bits(red)[:5]]
    assert got[:2] + got[3:] == [hex(v) for v in (0x7FC00123, 0xFFC00022, 0x7FC00777, 0x7FC00002)]
    assert (got[2] == hex(NQNAN)) == (op == "add")  # inf * -inf is -inf
    assert not np.isnan(red[5]) and not np.isnan(neg[5])
