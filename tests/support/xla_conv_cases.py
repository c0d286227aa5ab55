"""Convolutions with inf in the kernel or the input, for tests/xla/test_agreement_conv.py: the
case table, the HLO text and the inputs of each case (numpy only, so the recorder runs in the
venv of /work/shared/tools/xla_ref.py). Re-record XLA's outputs with
    ~/.cache/hlotools-xla-ref/venv/bin/python -m tests.support.xla_conv_cases  (from the repository root)
which writes testdata/xla_conv/recorded.npz (one array per case: f64, else f32)."""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from tests.support.paths import SHARED, TESTDATA

RECORDED = TESTDATA / "xla_conv" / "recorded.npz"
Case = dict[str, Any]


def _spatial(text: str) -> list[int]:
    return [text.index(str(i)) for i in range(len(text) - 2)]


def labels_of(text: str) -> dict[str, Any]:
    lhs, rest = text.split("_")
    ker, out = rest.split("->")
    return dict(ib=lhs.index("b"), if_=lhs.index("f"), isp=_spatial(lhs), ki=ker.index("i"), ko=ker.index("o"),
                ksp=_spatial(ker), ob=out.index("b"), of=out.index("f"), osp=_spatial(out))


def out_dims(c: Case) -> list[int]:
    lab = labels_of(c["labels"])
    od = [0] * len(c["lhs"])
    od[lab["ob"]] = c["lhs"][lab["ib"]] // c.get("bg", 1)
    od[lab["of"]] = c["rhs"][lab["ko"]]
    for i, w in enumerate(c["win"]):
        n = c["lhs"][lab["isp"][i]]
        padded = (n - 1) * w.get("lhs", 1) + 1 + w.get("lo", 0) + w.get("hi", 0)
        dk = (w["size"] - 1) * w.get("rhs", 1) + 1
        od[lab["osp"][i]] = (padded - dk) // w.get("stride", 1) + 1 if padded >= dk else 0
    return od


def _window(win: list[dict[str, int]]) -> str:
    fields = [("stride", "stride", 1), ("rhs_dilate", "rhs", 1), ("lhs_dilate", "lhs", 1), ("rhs_reversal", "rev", 0)]
    parts = ["size=" + "x".join(str(w["size"]) for w in win)]
    if any(w.get("lo", 0) or w.get("hi", 0) for w in win):
        parts.append("pad=" + "x".join(f"{w.get('lo', 0)}_{w.get('hi', 0)}" for w in win))
    for name, key, default in fields:
        if any(w.get(key, default) != default for w in win):
            parts.append(f"{name}=" + "x".join(str(w.get(key, default)) for w in win))
    return "{" + " ".join(parts) + "}"


def _shape(ty: str, dims: list[int]) -> str:
    return f"{ty}[{','.join(map(str, dims))}]"


def hlo(c: Case) -> str:
    """The case as a module: the convolution at the root of the entry, inside the true branch
    of a conditional (wrap="cond": not the entry computation), or with a bias add after it
    (bias: a kOutput fusion in hlotools' pipeline)."""
    ty = c["ty"]
    x, w, o = _shape(ty, c["lhs"]), _shape(ty, c["rhs"]), _shape(ty, out_dims(c))
    conv = (f"convolution(x, w), window={_window(c['win'])}, dim_labels={c['labels']}"
            + (f", feature_group_count={c['fg']}" if c.get("fg", 1) != 1 else "")
            + (f", batch_group_count={c['bg']}" if c.get("bg", 1) != 1 else ""))
    params = f"  x = {x} parameter(0)\n  w = {w} parameter(1)\n"
    if c.get("wrap") == "cond":
        t = f"({x}, {w})"
        return (f"HloModule m\nbr_a {{\n  t = {t} parameter(0)\n  x = {x} get-tuple-element(t), index=0\n"
                f"  w = {w} get-tuple-element(t), index=1\n  ROOT c = {o} {conv}\n}}\n"
                f"br_b {{\n  t = {t} parameter(0)\n  z = {ty}[] constant(7)\n  ROOT c = {o} broadcast(z), dimensions={{}}\n}}\n"
                f"ENTRY e {{\n{params}  p = pred[] parameter(2)\n  t = {t} tuple(x, w)\n"
                f"  ROOT r = {o} conditional(p, t, t), true_computation=br_a, false_computation=br_b\n}}\n")
    if c.get("bias"):
        return (f"HloModule m\nENTRY e {{\n{params}  c = {o} {conv}\n  one = {ty}[] constant(1)\n"
                f"  b = {o} broadcast(one), dimensions={{}}\n  ROOT r = {o} add(c, b)\n}}\n")
    return f"HloModule m\nENTRY e {{\n{params}  ROOT c = {o} {conv}\n}}\n"


def inputs(c: Case, dtypes: dict[str, Any]) -> list[np.ndarray]:
    """x and w from default_rng(0) (normal), inf at the case's positions, in the case's type."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(c["lhs"]).astype(np.float32)
    w = rng.standard_normal(c["rhs"]).astype(np.float32)
    for pos in c.get("rhs_inf", []):
        w[tuple(pos)] = np.inf
    for pos in c.get("lhs_inf", []):
        x[tuple(pos)] = np.inf
    args = [x.astype(dtypes[c["ty"]]), w.astype(dtypes[c["ty"]])]
    return args + ([np.array(True)] if c.get("wrap") == "cond" else [])


P1 = dict(size=3, lo=1, hi=1)
BASE: Case = dict(ty="f32", lhs=[1, 4, 4, 2], rhs=[3, 3, 2, 2], labels="b01f_01io->b01f", win=[P1, P1],
                  rhs_inf=[[0, 0, 0, 0]])
NCHW: Case = dict(lhs=[1, 2, 4, 4], rhs=[2, 2, 3, 3], labels="bf01_oi01->bf01")
LHS2 = [dict(P1, lhs=2), dict(P1, lhs=2)]
ONE = [dict(size=1, lo=1, hi=1), dict(size=1, lo=1, hi=1)]
W12 = [dict(size=1, lo=1, hi=1), dict(size=2, lo=1, hi=1)]
D1: Case = dict(lhs=[1, 5, 2], rhs=[3, 2, 2], labels="b0f_0io->b0f", rhs_inf=[[0, 0, 0]])
D3: Case = dict(lhs=[1, 3, 3, 3, 2], rhs=[3, 3, 3, 2, 2], labels="b012f_012io->b012f", rhs_inf=[[0, 0, 0, 0, 0]])
BG: Case = dict(lhs=[2, 4, 4, 2], rhs=[3, 3, 2, 4], bg=2, rhs_inf=[[1, 1, 0, 0]])
BG_EQ: Case = dict(lhs=[2, 4, 4, 1], rhs=[3, 3, 1, 2], bg=2)
DW: Case = dict(ty="f64", rhs=[3, 3, 1, 2], fg=2, rhs_inf=[], lhs_inf=[[0, 1, 1, 0]])
BIG: Case = dict(lhs=[1, 6, 6, 8], rhs=[3, 3, 8, 16], win=LHS2, rhs_inf=[[0, 0, 3, 5]])


def _v(*parts: Case, **changes: Any) -> Case:
    out = dict(BASE)
    for p in parts:
        out.update(p)
    out.update(changes)
    return out


# name -> case; the comment says which XLA CPU path (ir/xla_conv.py) and what it does with padding
CASES: dict[str, Case] = {
    # Eigen's generic convolution: padding multiplied (inf * 0 = NaN)
    "f32_pad": _v(),
    "f16_pad": _v(ty="f16"),
    "bf16_pad": _v(ty="bf16"),
    "f32_nchw_entry": _v(NCHW),  # any labels in the entry (ConvCanonicalization)
    "f32_b10f_entry": _v(labels="b10f_10io->b10f"),
    "f32_outbf01_entry": _v(labels="b01f_01io->bf01"),
    "f32_nhwc_cond": _v(wrap="cond"),  # canonical labels outside the entry
    "f32_lhsdil_s2": _v(win=[dict(P1, lhs=2, stride=2), dict(P1, lhs=2)]),
    "f32_lhsdil_rhsdil": _v(win=[dict(P1, lhs=2, rhs=2), dict(P1, lhs=2)]),
    "f32_lhsdil_fg2": _v(rhs=[3, 3, 1, 2], fg=2, win=LHS2),
    "f32_kernel12b": _v(lhs=[1, 4, 4, 1], rhs=[1, 3, 1, 1], win=[dict(size=1, lo=1, hi=1), dict(P1)]),
    "f32_input12b": _v(lhs=[1, 3, 1, 1], rhs=[1, 1, 1, 3], win=ONE),
    "f16_input12b": _v(ty="f16", lhs=[1, 3, 1, 1], rhs=[1, 1, 1, 3], win=ONE),
    "f16_kernel8b": _v(ty="f16", rhs=[1, 2, 2, 1], win=W12),  # 4 elements: 16 bytes as f32
    "f32_output16b": _v(lhs=[1, 1, 4, 1], rhs=[1, 3, 1, 2], win=[dict(size=1), dict(size=3, lo=1, stride=2)]),
    "f32_1d": _v(D1, win=[P1]),
    "f32_1d_lhsdil_s2": _v(D1, win=[dict(P1, lhs=2, stride=2)]),
    "f32_3d": _v(D3, win=[P1] * 3),
    "f32_3d_lhsdil": _v(D3, win=[dict(P1, lhs=2)] * 3),
    "f32_noswap_equal": _v(lhs=[1, 3, 3, 1], rhs=[3, 3, 1, 2], win=[dict(size=3, lo=2, hi=2)] * 2),
    "f32_fg2_pad": _v(rhs=[3, 3, 1, 2], fg=2),
    # the elemental loop: padding skipped
    "f64_pad": _v(ty="f64"),
    "f32_rev": _v(win=[dict(P1, rev=1), P1]),
    "f32_rev_cond": _v(win=[dict(P1, rev=1), P1], wrap="cond"),
    "f32_nchw_cond": _v(NCHW, wrap="cond"),
    "f32_b10f_cond": _v(labels="b10f_10io->b10f", wrap="cond"),
    "f32_io_cond": _v(labels="b01f_01oi->b01f", wrap="cond"),
    "f32_fb01_cond": _v(lhs=[2, 1, 4, 4], labels="fb01_01io->b01f", wrap="cond"),
    "f32_4d": _v(lhs=[1, 3, 3, 3, 3, 1], rhs=[3, 3, 3, 3, 1, 1], labels="b0123f_0123io->b0123f", win=[P1] * 4,
                 rhs_inf=[[0, 0, 0, 0, 0, 0]]),
    "f32_kernel8b": _v(lhs=[1, 4, 4, 1], rhs=[1, 2, 1, 1], win=W12),  # <= 8 bytes: not Eigen-aligned
    "f32_kernel4b": _v(lhs=[1, 4, 4, 1], rhs=[1, 1, 1, 1], win=ONE),
    "f32_input8b": _v(lhs=[1, 2, 1, 1], rhs=[1, 1, 1, 3], win=ONE),
    "f16_input8b": _v(ty="f16", lhs=[1, 2, 1, 1], rhs=[1, 1, 1, 3], win=ONE),
    "f32_output8b": _v(lhs=[1, 1, 4, 1], rhs=[1, 3, 1, 2], win=[dict(size=1), dict(size=3, lo=1, stride=3)]),
    "f64_fg2_depthwise_rhsinf_pad": _v(ty="f64", rhs=[3, 3, 1, 4], fg=2),
    # Eigen's custom transposed convolution: holes and padding skipped
    "f32_lhsdil_s1": _v(win=LHS2),
    "f32_lhsdil_s1_nopad": _v(win=[dict(size=3, lhs=2)] * 2),
    "f32_lhsdil_one_dim": _v(win=[dict(P1, lhs=2), P1]),
    "f32_lhsdil_negpad": _v(win=[dict(size=3, lo=-1, hi=2, lhs=2), dict(size=3, lo=2, hi=-1, lhs=3)]),
    "f32_nchw_entry_lhsdil": _v(NCHW, win=LHS2),
    "f32_nchw_cond_lhsdil": _v(NCHW, win=LHS2, wrap="cond"),
    "f32_1d_lhsdil": _v(D1, win=[dict(P1, lhs=2)]),
    # algsimp's operand swap (then reversed: the elemental loop)
    "f32_swap_big_kernel": _v(lhs=[1, 3, 3, 1], rhs=[5, 5, 1, 2], win=[dict(size=5, lo=2, hi=2)] * 2),
    "f32_swap_in1": _v(lhs=[1, 1, 1, 2], rhs=[3, 3, 2, 2], win=[dict(size=3, lo=2, hi=2)] * 2),
    "f32_swap_in1_lhsdil": _v(lhs=[1, 2, 2, 2], rhs=[5, 5, 2, 2], win=[dict(size=5, lo=2, hi=2, lhs=2)] * 2),
    "f32_swap_input8b": _v(lhs=[1, 2, 1, 1], rhs=[3, 3, 1, 2]),
    # kernel (rhs) dilation holes: never multiplied (inf input under a hole stays out)
    "f32_rhsdil_lhsinf": _v(win=[dict(size=3, rhs=2, lo=2, hi=2), dict(size=3, rhs=2)], rhs_inf=[],
                            lhs_inf=[[0, 1, 1, 0]]),
    # batch groups: the group rewrite's holes meet the other groups' kernels
    "f32_bg2_rhsinf": _v(BG),
    "f32_bg2_rhsinf_pad": _v(BG, rhs_inf=[[0, 0, 0, 0]]),
    "f32_1d_bg2_s2_rhsinf": _v(lhs=[2, 5, 2], rhs=[3, 2, 4], labels="b0f_0io->b0f", bg=2,
                               win=[dict(P1, stride=2)], rhs_inf=[[1, 0, 0]]),
    "f32_1d_bg3_rhsinf": _v(lhs=[3, 5, 2], rhs=[3, 2, 6], labels="b0f_0io->b0f", bg=3, win=[P1], rhs_inf=[[1, 0, 0]]),
    "f32_1d_bg2_rhsinf": _v(lhs=[2, 5, 2], rhs=[3, 2, 4], labels="b0f_0io->b0f", bg=2, win=[P1],
                            rhs_inf=[[1, 0, 0]]),  # transposed: no leak
    "f32_3d_bg2_rhsinf": _v(lhs=[2, 3, 3, 3, 2], rhs=[3, 3, 3, 2, 4], labels="b012f_012io->b012f", bg=2,
                            win=[P1] * 3, rhs_inf=[[1, 1, 1, 0, 0]]),  # 4 dims: elemental
    "f64_bg2_rhsinf": _v(BG, ty="f64"),
    "f32_bg2_cond_rhsinf": _v(BG, wrap="cond"),
    "f32_swap_bg2": _v(lhs=[2, 2, 2, 2], rhs=[5, 5, 2, 4], bg=2, win=[dict(size=5, lo=2, hi=2, stride=2)] * 2),
    "f32_bg2_eq_rhsinf_pad": _v(BG_EQ),  # batch == groups == features: a select, no leak
    "f64_bg2_eq_rhsinf_pad": _v(BG_EQ, ty="f64"),
    # f64 depthwise: the expanded kernel's zeros meet the other groups' inputs
    "f64_fg2_depthwise_lhsinf": _v(DW),
    "f64_fg2_depthwise_lhsinf_pad": _v(DW, lhs_inf=[[0, 0, 0, 0]]),
    "f64_fg4_depthwise_m2_lhsinf": _v(DW, lhs=[1, 4, 4, 4], rhs=[3, 3, 1, 8], fg=4, lhs_inf=[[0, 1, 1, 2]]),
    "f64_fg2_depthwise_cond_lhsinf": _v(DW, wrap="cond"),
    "f64_fg2_group2_lhsinf": _v(DW, lhs=[1, 4, 4, 4], rhs=[3, 3, 2, 2]),  # two features per group: no leak
    # big enough for hlotools' im2col + GEMM (a run-time kernel check picks the skipping loop)
    "f32_big_lhsdil": _v(BIG),
    "f32_big_lhsdil_finite": _v(BIG, rhs_inf=[]),
    "f32_big_lhsdil_bias": _v(BIG, bias=True),
    "f64_big_pad": _v(BIG, ty="f64", win=[P1, P1]),
    "f32_big_pad": _v(BIG, win=[P1, P1]),  # Eigen: multiplied, the GEMM as is
}


def record() -> None:
    """Run every case through real XLA (xla_ref.py's venv) into RECORDED."""
    sys.path.insert(0, str(SHARED / "tools"))
    import ml_dtypes
    import xla_ref
    dtypes = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": ml_dtypes.bfloat16}
    out = {}
    for name, c in CASES.items():
        exe, _, _ = xla_ref.compile_module(xla_ref.parse_text(hlo(c), name), name)
        (y,), _ = xla_ref.execute(exe, inputs(c, dtypes), 1, 0)
        out[name] = np.asarray(y).astype(np.float64 if c["ty"] == "f64" else np.float32)
    RECORDED.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(RECORDED, **out)
    print(f"{len(out)} cases -> {RECORDED}")


if __name__ == "__main__":
    record()
