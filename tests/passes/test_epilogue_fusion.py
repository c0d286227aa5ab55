"""The epilogue-fusion pass beyond its goldens: the kOutput contract of what it makes, the LLVM
backend's pipeline that runs it, the JAX corpus (verifier, print/parse round trip, exactly the
interpreter's outputs of the -O2 preset), idempotence, and random dot/convolution + elementwise
chains (hypothesis)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlotools
from hlotools import evaluate
from hlotools.backend.llvm.driver.pipeline import backend_pipeline, optimise_module
from hlotools.interpreter import evaluate as evaluate_as_given
from hlotools.ir.module import Module
from hlotools.passes.base import PassContext
from hlotools.passes.epilogue_fusion import EpilogueFusion, epilogue_hero
from hlotools.passes.manager import run_pipeline
from hlotools.passes.pipeline import PRESETS, parse_pipeline
from tests.support.paths import SHARED, TESTDATA

JAX = SHARED / "corpus" / "jax"
GOLDENS = TESTDATA / "passes" / "epilogue-fusion"


def _k_output(module: Module) -> list:
    return [i for c in module.computations for i in c.instructions
            if i.opcode == "fusion" and str(i.attrs.get("kind")) == "kOutput"]


def _run(module: Module, **options: object) -> bool:
    changed = EpilogueFusion(**options).run(module, PassContext(pass_name="epilogue-fusion"))  # type: ignore[arg-type]
    hlotools.verify_module(module)
    return changed


def _round_trips(module: Module) -> None:
    text = hlotools.print_module(module)
    assert hlotools.print_module(hlotools.parse_module(text)) == text


def _same_outputs(a: list, b: list) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        xb, yb = (np.ascontiguousarray(v).reshape(-1).view(np.uint8) for v in (x, y))
        assert np.array_equal(xb, yb), "outputs differ"  # bit-exact, NaNs too


# -- the contract and the pass's bookkeeping -------------------------------------------------
RESIDUAL = """HloModule m
ENTRY main {
  p0 = f32[8,16] parameter(0)
  p1 = f32[16,4] parameter(1)
  d = f32[8,4] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = f32[8,4] parameter(2)
  a = f32[8,4] add(d, r)
  ROOT t = f32[8,4] tanh(a)
}"""


def test_the_fusion_made_satisfies_the_contract() -> None:
    m = hlotools.parse_module(RESIDUAL)
    assert _run(m)
    (fusion,) = _k_output(m)
    hero = epilogue_hero(fusion)
    assert hero is not None and hero.name == "d" and fusion.name == "dot_tanh_fusion"
    assert [o.name for o in fusion.operands] == ["p0", "p1", "r"]
    body = fusion.attrs["calls"]
    assert body.name == "fused_computation" and body.is_fusion_computation
    assert [i.opcode for i in body.instructions] == ["parameter", "parameter", "dot", "parameter", "add", "tanh"]
    assert m.entry is not None and m.entry.root is fusion
    assert not _run(m)  # idempotent: nothing left to fold
    _round_trips(m)


def test_epilogue_hero_rejects_what_breaks_the_contract() -> None:
    # fusion's matrix-vector dot + add output fusion takes the add's operand first.
    text = """HloModule m
f {
  b = f32[64] parameter(0)
  w = f32[64,32] parameter(1)
  x = f32[32] parameter(2)
  d = f32[64] dot(w, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT a = f32[64] add(d, b)
}
g {
  w = f32[64,32] parameter(0)
  x = f32[32] parameter(1)
  d = f32[64] dot(w, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT c = f16[64] convert(d)
}
h {
  w = f32[64,32] parameter(0)
  x = f32[32] parameter(1)
  ROOT d = f32[64] dot(w, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY main {
  w = f32[64,32] parameter(0)
  x = f32[32] parameter(1)
  b = f32[64] parameter(2)
  f1 = f32[64] fusion(b, w, x), kind=kOutput, calls=f
  f2 = f16[64] fusion(w, x), kind=kOutput, calls=g
  f3 = f32[64] fusion(w, x), kind=kOutput, calls=h
  f4 = f16[64] fusion(w, x), kind=kLoop, calls=g
  ROOT t = (f32[64], f16[64], f32[64], f16[64]) tuple(f1, f2, f3, f4)
}"""
    m = hlotools.parse_module(text)
    assert m.entry is not None
    f1, f2, f3, f4 = m.entry.root.operands  # type: ignore[union-attr]
    assert epilogue_hero(f1) is None and epilogue_hero(f1, ordered=False) is not None
    assert epilogue_hero(f2) is None  # the convert changes the dot's element type
    assert epilogue_hero(f3) is None  # the ROOT is the dot itself: no epilogue
    assert epilogue_hero(f4) is None  # not kOutput


def test_sharded_instructions_are_left_alone() -> None:
    """A sharding on the dot or on a consumer ends the chain before it."""
    for where, fused in (("d", None), ("a", None), ("t", "dot_add_fusion")):
        lines = [line + (", sharding={replicated}" if line.strip().startswith((f"{where} = ", f"ROOT {where} = ")) else "")
                 for line in RESIDUAL.splitlines()]
        m = hlotools.parse_module("\n".join(lines))
        assert _run(m) == (fused is not None), where
        assert [f.name for f in _k_output(m)] == ([fused] if fused else []), where
        assert m.entry is not None and m.entry.instruction_by_name(where) is not None


def test_fuel_bounds_the_rewrites() -> None:
    text = RESIDUAL.replace("ROOT t = f32[8,4] tanh(a)", """t = f32[8,4] tanh(a)
  e = f32[8,4] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = f32[8,4] negate(e)
  ROOT out = (f32[8,4], f32[8,4]) tuple(t, n)""")
    m = hlotools.parse_module(text)
    assert EpilogueFusion().run(m, PassContext(fuel=1, pass_name="epilogue-fusion"))
    assert len(_k_output(m)) == 1
    m = hlotools.parse_module(text)
    assert _run(m) and len(_k_output(m)) == 2


def test_a_shared_broadcast_is_cloned_and_stays_for_its_other_user() -> None:
    text = """HloModule m
ENTRY main {
  p0 = f32[8,16] parameter(0)
  p1 = f32[16,4] parameter(1)
  b = f32[4] parameter(2)
  d = f32[8,4] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[8,4] broadcast(b), dimensions={1}
  a = f32[8,4] add(d, bb)
  n = f32[8,4] negate(bb)
  ROOT t = (f32[8,4], f32[8,4]) tuple(a, n)
}"""
    m = hlotools.parse_module(text)
    args = [np.random.default_rng(1).standard_normal(s, dtype=np.float32) for s in ((8, 16), (16, 4), (4,))]
    want = evaluate(m, args)
    assert _run(m)
    (fusion,) = _k_output(m)
    assert [o.name for o in fusion.operands] == ["p0", "p1", "b"]
    inside = [i for i in fusion.attrs["calls"].instructions if i.opcode == "broadcast"]
    assert len(inside) == 1 and inside[0].name != "bb"  # a clone under a fresh name
    assert m.entry is not None and m.entry.instruction_by_name("bb") is not None
    _same_outputs(evaluate(m, args), want)


# -- the backend's pipeline ------------------------------------------------------------------
def test_the_backend_runs_epilogue_fusion_after_layout_assignment() -> None:
    spec = backend_pipeline("O2")
    names = [p.split("{")[0] for p in spec.replace("fixed-point(", "").replace(")", "").split(",")]
    assert names.index("layout-assignment") + 1 == names.index("epilogue-fusion") == names.index("scheduling") - 1
    assert "epilogue-fusion" not in PRESETS["O2"]
    assert backend_pipeline("O1") == PRESETS["O1"] and backend_pipeline("O2") is backend_pipeline("O2")
    assert names.index("float-normalization-bf16") + 1 == names.index("algsimp-inexact") == \
        names.index("fma-contraction") - 1 == names.index("fusion") - 2
    assert backend_pipeline("algsimp,dce") == "algsimp,dce"  # HLOTOOLS_LLVM_PASSES may be a spec


def test_goldens_are_fixed_points() -> None:
    """A second run over every golden's output changes nothing (the chain was folded whole)."""
    import re

    from tests.passes.test_goldens import run_hlo_opt_in_process
    paths = sorted(GOLDENS.glob("*.hlo"))
    assert len(paths) >= 8
    for path in paths:
        m = hlotools.parse_module(run_hlo_opt_in_process(path))
        step = re.search(r"epilogue-fusion(\{[^}]*\})?", path.read_text())
        assert step is not None, path.name
        assert not run_pipeline(m, parse_pipeline(step.group(0))).changed, path.name


# -- the JAX corpus --------------------------------------------------------------------------
def _corpus() -> list[str]:
    return sorted(p.name[:-4] for p in JAX.glob("*.hlo") if p.name.count(".") == 1) if JAX.is_dir() else []


@pytest.mark.slow
@pytest.mark.skipif(not JAX.is_dir(), reason="shared/corpus/jax is absent")
@pytest.mark.parametrize("name", _corpus())
def test_jax_corpus_keeps_the_interpreters_outputs(name: str) -> None:
    from tests.corpus.test_interpreter import _leaf_dtypes, _load
    m = hlotools.parse_module((JAX / f"{name}.hlo").read_text(), name, verify=False)
    ours = optimise_module(m)
    hlotools.verify_module(ours)
    _round_trips(ours)
    preset = m.clone()
    run_pipeline(preset, parse_pipeline(PRESETS["O2"]))
    made = _k_output(ours)
    assert all(epilogue_hero(f) is not None for f in made), [f.name for f in made if epilogue_hero(f) is None]
    assert len(made) >= len(_k_output(preset))
    in_dt, _ = _leaf_dtypes(m)
    with np.load(JAX / f"{name}.inputs.npz") as f:
        args = _load(f, "in", in_dt)
    _same_outputs(evaluate(ours, args), evaluate(preset, args))
    again = ours.clone()
    assert not _run(again), "a second run still fused something"


@pytest.mark.skipif(not JAX.is_dir(), reason="shared/corpus/jax is absent")
def test_big_conv_becomes_two_convolution_epilogues() -> None:
    """The target of the work: conv -> relu -> maxpool -> conv -> relu leaves no loop fusion."""
    m = optimise_module(hlotools.parse_module((JAX / "big_conv.hlo").read_text(), "big_conv", verify=False))
    assert m.entry is not None
    kinds = sorted((str(i.attrs["kind"]), epilogue_hero(i).opcode) for i in m.entry.instructions  # type: ignore[union-attr]
                   if i.opcode == "fusion")
    assert kinds == [("kOutput", "convolution"), ("kOutput", "convolution")]
    assert sorted(i.opcode for i in m.entry.instructions if i.opcode not in ("parameter", "constant")) == \
        ["fusion", "fusion", "reduce-window"]


# -- random chains -----------------------------------------------------------------------------
UNARY = ("negate", "tanh", "exponential", "abs", "logistic", "sqrt", "floor")
BINARY = ("add", "multiply", "maximum", "subtract", "minimum")
BREAKERS = ("transpose", "convert", "second-user")


@st.composite
def chains(draw: st.DrawFn) -> tuple[str, bool]:
    """(module text, whether every stage is an epilogue stage). The first stage always is; a
    later one may break the chain (a transpose, a convert, a second user of its operand)."""
    conv = draw(st.booleans())
    m, k, n = draw(st.integers(1, 5)), draw(st.integers(1, 6)), draw(st.integers(1, 5))
    if conv:
        dims: tuple[int, ...] = (1, m, m, n)
        lines = [f"  x = f32[1,{m},{m},{k}] parameter(0)", f"  w = f32[3,3,{k},{n}] parameter(1)",
                 f"  v0 = f32[1,{m},{m},{n}] convolution(x, w), window={{size=3x3 pad=1_1x1_1}}, "
                 "dim_labels=b01f_01io->b01f"]
    else:
        dims = (m, n)
        lines = [f"  x = f32[{m},{k}] parameter(0)", f"  w = f32[{k},{n}] parameter(1)",
                 f"  v0 = f32[{m},{n}] dot(x, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}"]
    et, params, clean = "f32", 2, True
    shapes = {"v0": f"f32[{','.join(map(str, dims))}]"}
    extra: list[str] = []
    stages = draw(st.integers(1, 4))
    for s in range(1, stages + 1):
        prev, out = f"v{s - 1}", f"{et}[{','.join(map(str, dims))}]"
        kinds = ("unary", "binary", "bias", "scalar", "twice") + (("breaker",) if clean and s > 1 else ())
        kind = draw(st.sampled_from(kinds))
        if kind == "unary":
            lines.append(f"  v{s} = {out} {draw(st.sampled_from(UNARY))}({prev})")
        elif kind == "binary":
            lines.append(f"  p{params} = {out} parameter({params})")
            a, b = (prev, f"p{params}") if draw(st.booleans()) else (f"p{params}", prev)
            lines.append(f"  v{s} = {out} {draw(st.sampled_from(BINARY))}({a}, {b})")
            params += 1
        elif kind == "bias":
            lines.append(f"  p{params} = {et}[{dims[-1]}] parameter({params})")
            lines.append(f"  bb{s} = {out} broadcast(p{params}), dimensions={{{len(dims) - 1}}}")
            lines.append(f"  v{s} = {out} add({prev}, bb{s})")
            params += 1
        elif kind == "scalar":
            c = draw(st.sampled_from(("0", "0.5", "-2")))
            lines += [f"  c{s} = {et}[] constant({c})", f"  cb{s} = {out} broadcast(c{s}), dimensions={{}}",
                      f"  v{s} = {out} {draw(st.sampled_from(BINARY))}({prev}, cb{s})"]
        elif kind == "twice":
            lines.append(f"  v{s} = {out} multiply({prev}, {prev})")
        else:
            clean = False
            breaker = draw(st.sampled_from(BREAKERS))
            if breaker == "transpose":
                dims = tuple(reversed(dims))
                perm = ",".join(map(str, reversed(range(len(dims)))))
                out = f"{et}[{','.join(map(str, dims))}]"
                lines.append(f"  v{s} = {out} transpose({prev}), dimensions={{{perm}}}")
            elif breaker == "convert":
                et = "f16"
                out = f"{et}[{','.join(map(str, dims))}]"
                lines.append(f"  v{s} = {out} convert({prev})")
            else:
                lines.append(f"  v{s} = {out} negate({prev})")
                extra.append(prev)
        shapes[f"v{s}"] = out
    last = f"v{stages}"
    if extra:
        names = [last, *extra]
        lines.append(f"  ROOT r = ({', '.join(shapes[x] for x in names)}) tuple({', '.join(names)})")
    else:
        lines[-1] = lines[-1].replace(f"  {last} =", f"  ROOT {last} =", 1)
    return "HloModule m\nENTRY main {\n" + "\n".join(lines) + "\n}\n", clean


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(), st.booleans(), st.integers(0, 2**31 - 1))
def test_random_chains_compute_the_same(case: tuple[str, bool], loop_first: bool, seed: int) -> None:
    text, clean = case
    m = hlotools.parse_module(text)
    assert m.entry is not None
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal(p.shape.dims).astype(p.shape.element_type.dtype)  # type: ignore[union-attr]
            for p in m.entry.parameters]
    # the module as given (the interpreter without XLA CPU's inexact rewrites): those apply
    # before fusion in XLA CPU's and the backend's pipelines (multiply(exp(a), exp(a)) ->
    # exp(a + a) changes the last bit), never inside a fusion, so they are no part of what
    # epilogue fusion must keep
    want = evaluate_as_given(m, args)
    if loop_first:  # what the backend sees: fusion's kLoop fusions, then epilogue-fusion
        run_pipeline(m, parse_pipeline("fusion"))
    changed = _run(m)
    made = _k_output(m)
    assert all(epilogue_hero(f) is not None for f in made), text
    # Without loop fusions the stages before a breaker always fold; `fusion` may put a breaker
    # (a convert) into the same loop as the stages before it, which then is no epilogue.
    assert changed == (len(made) == 1) and len(made) <= 1, text
    assert changed or (loop_first and not clean), text
    if clean:  # every stage folds: the fusion is the ROOT and no loop fusion is left
        assert m.entry.root is made[0], text
        assert sum(1 for i in m.entry.instructions if i.opcode == "fusion") == 1, text
    _round_trips(m)
    _same_outputs(evaluate_as_given(m, args), want)
    assert not _run(m)
