"""The dynamic padder against its oracle: a dynamic module M run at sizes s (padded, on both
backends) gives what the static module M[s] (each dynamic dim fixed to its size) gives on the
interpreter; integers bit for bit. Padding is poisoned (NaN, garbage) and must not matter.

A case is one template: `{N}`-style fields are `<=bound` in M and the runtime size in M[s];
`derive` maps the base sizes to every field (bounds go through it too).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import hlotools
from hlotools.errors import HloError
from hlotools.ir.dynamic_arrays import pad_arguments, unpad_results

Sizes = dict[str, int]


@dataclass
class Case:
    text: str
    bounds: Sizes
    inputs: Callable[[Sizes, np.random.Generator], list[np.ndarray]]
    derive: Callable[[Sizes], Sizes] = lambda s: s
    sizes: tuple[Sizes, ...] = ()  # besides 0, the bound and a middle size per field
    static_fields: tuple[str, ...] = ()  # fields that are numbers in M too (attributes)

    def module(self, sizes: Sizes | None) -> str:
        values = self.derive(sizes if sizes is not None else self.bounds)
        fields = {k: (str(v) if sizes is not None or k in self.static_fields else f"<={v}")
                  for k, v in values.items()}
        return self.text.format(**fields)

    def size_sets(self) -> list[Sizes]:
        out = list(self.sizes) or [{k: 0 for k in self.bounds}, {k: (v + 1) // 2 for k, v in self.bounds.items()},
                                   dict(self.bounds)]
        return out


def f32(*dims: int) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda r: r.standard_normal(dims).astype(np.float32)


ADD = """add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}}
"""
MAX = """max {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}}
"""
ADDI = """addi {{
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] add(a, b)
}}
"""

CASES: dict[str, Case] = {
    "softmax_minor": Case("HloModule m\n" + ADD + MAX + """ENTRY e {{
  x = f32[4,{N}] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[4] reduce(x, ninf), dimensions={{1}}, to_apply=max
  mb = f32[4,{N}] broadcast(m), dimensions={{0}}
  d = f32[4,{N}] subtract(x, mb)
  e = f32[4,{N}] exponential(d)
  z = f32[] constant(0)
  s = f32[4] reduce(e, z), dimensions={{1}}, to_apply=add
  sb = f32[4,{N}] broadcast(s), dimensions={{0}}
  ROOT r = f32[4,{N}] divide(e, sb)
}}""", {"N": 8}, lambda s, r: [r.standard_normal((4, s["N"])).astype(np.float32)],
        sizes=({"N": 1}, {"N": 5}, {"N": 8})),
    "layernorm_minor": Case("HloModule m\n" + ADD + """ENTRY e {{
  x = f32[3,{N}] parameter(0)
  z = f32[] constant(0)
  n = s32[] get-dimension-size(x), dimensions={{1}}
  nf = f32[] convert(n)
  s = f32[3] reduce(x, z), dimensions={{1}}, to_apply=add
  nb = f32[3] broadcast(nf), dimensions={{}}
  mean = f32[3] divide(s, nb)
  mb = f32[3,{N}] broadcast(mean), dimensions={{0}}
  c = f32[3,{N}] subtract(x, mb)
  c2 = f32[3,{N}] multiply(c, c)
  v = f32[3] reduce(c2, z), dimensions={{1}}, to_apply=add
  var = f32[3] divide(v, nb)
  eps = f32[] constant(1e-5)
  epsb = f32[3] broadcast(eps), dimensions={{}}
  ve = f32[3] add(var, epsb)
  rs = f32[3] rsqrt(ve)
  rb = f32[3,{N}] broadcast(rs), dimensions={{0}}
  ROOT y = f32[3,{N}] multiply(c, rb)
}}""", {"N": 16}, lambda s, r: [r.standard_normal((3, s["N"])).astype(np.float32)],
        sizes=({"N": 1}, {"N": 7}, {"N": 16})),
    "batch_dot_bias_relu": Case("""HloModule m
ENTRY e {{
  x = f32[{B},16] parameter(0)
  w = f32[16,4] parameter(1)
  b = f32[4] parameter(2)
  d = f32[{B},4] dot(x, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  bb = f32[{B},4] broadcast(b), dimensions={{1}}
  a = f32[{B},4] add(d, bb)
  z = f32[] constant(0)
  zb = f32[{B},4] broadcast(z), dimensions={{}}
  ROOT r = f32[{B},4] maximum(a, zb)
}}""", {"B": 8}, lambda s, r: [f32(s["B"], 16)(r), f32(16, 4)(r), f32(4)(r)]),
    "contract_dynamic": Case("""HloModule m
ENTRY e {{
  x = f32[3,{K}] parameter(0)
  y = f32[{K},5] parameter(1)
  ROOT d = f32[3,5] dot(x, y), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}""", {"K": 9}, lambda s, r: [f32(3, s["K"])(r), f32(s["K"], 5)(r)]),
    "cumsum_window": Case("HloModule m\n" + ADD + """ENTRY e {{
  x = f32[2,{N}] parameter(0)
  z = f32[] constant(0)
  ROOT c = f32[2,{N}] reduce-window(x, z), window={{size=1x{W} pad=0_0x{P}_0}}, to_apply=add
}}""", {"N": 8}, lambda s, r: [f32(2, s["N"])(r)],
        derive=lambda s: {"N": s["N"], "W": 8, "P": 7}, static_fields=("W", "P")),
    "maxpool_window": Case("HloModule m\n" + MAX + """ENTRY e {{
  x = f32[{N},3] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT c = f32[{O},3] reduce-window(x, ninf), window={{size=3x1 stride=2x1}}, to_apply=max
}}""", {"N": 11}, lambda s, r: [f32(s["N"], 3)(r)],
        derive=lambda s: {"N": s["N"], "O": (s["N"] - 3) // 2 + 1}, sizes=({"N": 3}, {"N": 6}, {"N": 11})),
    "transpose_reduce": Case("HloModule m\n" + ADD + """ENTRY e {{
  x = f32[{A},{B}] parameter(0)
  t = f32[{B},{A}] transpose(x), dimensions={{1,0}}
  z = f32[] constant(0)
  e = f32[{B},{A}] exponential(t)
  s = f32[{A}] reduce(e, z), dimensions={{0}}, to_apply=add
  ROOT r = (f32[{B},{A}], f32[{A}]) tuple(e, s)
}}""", {"A": 6, "B": 5}, lambda s, r: [f32(s["A"], s["B"])(r)],
        sizes=({"A": 0, "B": 3}, {"A": 4, "B": 0}, {"A": 2, "B": 5}, {"A": 6, "B": 5})),
    "dimension_size_arith": Case("""HloModule m
ENTRY e {{
  x = s32[{N},2] parameter(0)
  n = s32[] get-dimension-size(x), dimensions={{0}}
  two = s32[] constant(2)
  one = s32[] constant(1)
  m = s32[] multiply(n, two)
  ROOT r = s32[] add(m, one)
}}""", {"N": 7}, lambda s, r: [r.integers(-9, 9, (s["N"], 2)).astype(np.int32)]),
    "reshape_merge_major": Case("""HloModule m
ENTRY e {{
  x = s32[{N},3] parameter(0)
  ROOT r = s32[{M}] reshape(x)
}}""", {"N": 4}, lambda s, r: [r.integers(-99, 99, (s["N"], 3)).astype(np.int32)],
        derive=lambda s: {"N": s["N"], "M": 3 * s["N"]}),
    "reshape_merge_minor": Case("""HloModule m
ENTRY e {{
  x = s32[3,{N}] parameter(0)
  ROOT r = s32[{M}] reshape(x)
}}""", {"N": 4}, lambda s, r: [r.integers(-99, 99, (3, s["N"])).astype(np.int32)],
        derive=lambda s: {"N": s["N"], "M": 3 * s["N"]}),
    "reshape_split": Case("""HloModule m
ENTRY e {{
  x = s32[{M}] parameter(0)
  r = s32[{N},3] reshape(x)
  ROOT t = s32[3,{N}] transpose(r), dimensions={{1,0}}
}}""", {"N": 4}, lambda s, r: [r.integers(-99, 99, (3 * s["N"],)).astype(np.int32)],
        derive=lambda s: {"N": s["N"], "M": 3 * s["N"]}),
    "concatenate": Case("""HloModule m
ENTRY e {{
  x = s32[{A},2] parameter(0)
  y = s32[{B},2] parameter(1)
  ROOT c = s32[{C},2] concatenate(x, y), dimensions={{0}}
}}""", {"A": 4, "B": 3}, lambda s, r: [r.integers(-99, 99, (s["A"], 2)).astype(np.int32),
                                         r.integers(-99, 99, (s["B"], 2)).astype(np.int32)],
        derive=lambda s: {**s, "C": s["A"] + s["B"]},
        sizes=({"A": 0, "B": 0}, {"A": 2, "B": 0}, {"A": 0, "B": 3}, {"A": 3, "B": 1}, {"A": 4, "B": 3})),
    "slice_pad": Case("""HloModule m
ENTRY e {{
  x = s32[{N}] parameter(0)
  s = s32[{S}] slice(x), slice={{[1:{L}:2]}}
  z = s32[] constant(-5)
  ROOT p = s32[{P}] pad(s, z), padding=1_2_1
}}""", {"N": 9}, lambda s, r: [r.integers(-99, 99, (s["N"],)).astype(np.int32)],
        derive=lambda s: {"N": s["N"], "L": s["N"], "S": (s["N"] - 1 + 1) // 2,
                          "P": 3 + (s["N"] - 1 + 1) // 2 + max((s["N"] - 1 + 1) // 2 - 1, 0)},
        static_fields=("L",), sizes=({"N": 1}, {"N": 2}, {"N": 6}, {"N": 9})),
    "sort_key_value": Case("""HloModule m
less {{
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}}
ENTRY e {{
  k = s32[2,{N}] parameter(0)
  v = f32[2,{N}] parameter(1)
  ROOT s = (s32[2,{N}], f32[2,{N}]) sort(k, v), dimensions={{1}}, is_stable=true, to_apply=less
}}""", {"N": 10}, lambda s, r: [r.integers(-3, 3, (2, s["N"])).astype(np.int32), f32(2, s["N"])(r)]),
    "reverse": Case("""HloModule m
ENTRY e {{
  x = s32[{N},2] parameter(0)
  ROOT r = s32[{N},2] reverse(x), dimensions={{0,1}}
}}""", {"N": 5}, lambda s, r: [r.integers(-99, 99, (s["N"], 2)).astype(np.int32)]),
    "while_loop": Case("HloModule m\n" + ADD + """cond {{
  p = (s32[], f32[{N}]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}}
body {{
  p = (s32[], f32[{N}]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[{N}] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[{N}] add(x, x)
  ROOT t = (s32[], f32[{N}]) tuple(j, y)
}}
ENTRY e {{
  x = f32[{N}] parameter(0)
  zero = s32[] constant(0)
  t = (s32[], f32[{N}]) tuple(zero, x)
  w = (s32[], f32[{N}]) while(t), condition=cond, body=body
  y = f32[{N}] get-tuple-element(w), index=1
  z = f32[] constant(0)
  ROOT s = f32[] reduce(y, z), dimensions={{0}}, to_apply=add
}}""", {"N": 6}, lambda s, r: [f32(s["N"])(r)]),
    "call_conditional": Case("HloModule m\n" + ADDI + """f {{
  x = s32[{N}] parameter(0)
  ROOT y = s32[{N}] multiply(x, x)
}}
g {{
  x = s32[{N}] parameter(0)
  ROOT y = s32[{N}] negate(x)
}}
ENTRY e {{
  x = s32[{N}] parameter(0)
  p = pred[] parameter(1)
  c = s32[{N}] call(x), to_apply=f
  k = s32[{N}] conditional(p, c, x), true_computation=f, false_computation=g
  z = s32[] constant(0)
  s = s32[] reduce(k, z), dimensions={{0}}, to_apply=addi
  ROOT r = (s32[{N}], s32[]) tuple(k, s)
}}""", {"N": 6}, lambda s, r: [r.integers(-9, 9, (s["N"],)).astype(np.int32), np.asarray(s["N"] % 2 == 0)]),
    "argmax": Case("""HloModule m
argmax {{
  a = f32[] parameter(0)
  i = s32[] parameter(1)
  b = f32[] parameter(2)
  j = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  eq = pred[] compare(a, b), direction=EQ
  lt = pred[] compare(i, j), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, a, b)
  k = s32[] select(keep, i, j)
  ROOT t = (f32[], s32[]) tuple(v, k)
}}
ENTRY e {{
  x = f32[3,{N}] parameter(0)
  io = s32[3,{N}] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[3], s32[3]) reduce(x, io, ninf, zero), dimensions={{1}}, to_apply=argmax
}}""", {"N": 7}, lambda s, r: [f32(3, s["N"])(r)], sizes=({"N": 1}, {"N": 4}, {"N": 7})),
    "conv_batch_spatial": Case("""HloModule m
ENTRY e {{
  x = f32[{B},{W},2] parameter(0)
  k = f32[3,2,4] parameter(1)
  ROOT c = f32[{B},{O},4] convolution(x, k), window={{size=3}}, dim_labels=b0f_0io->b0f
}}""", {"B": 3, "W": 9}, lambda s, r: [f32(s["B"], s["W"], 2)(r), f32(3, 2, 4)(r)],
        derive=lambda s: {**s, "O": s["W"] - 2},
        sizes=({"B": 0, "W": 3}, {"B": 2, "W": 5}, {"B": 3, "W": 9})),
    "embedding_gather": Case("""HloModule m
ENTRY e {{
  table = f32[10,4] parameter(0)
  ids = s32[{N}] parameter(1)
  i2 = s32[{N},1] reshape(ids)
  ROOT g = f32[{N},4] gather(table, i2), offset_dims={{1}}, collapsed_slice_dims={{0}}, start_index_map={{0}}, index_vector_dim=1, slice_sizes={{1,4}}
}}""", {"N": 6}, lambda s, r: [f32(10, 4)(r), r.integers(0, 10, (s["N"],)).astype(np.int32)]),
    "dynamic_slice_update": Case("""HloModule m
ENTRY e {{
  x = s32[{N},3] parameter(0)
  i = s32[] parameter(1)
  zero = s32[] constant(0)
  d = s32[2,3] dynamic-slice(x, i, zero), dynamic_slice_sizes={{2,3}}
  n = s32[2,3] negate(d)
  ROOT u = s32[{N},3] dynamic-update-slice(x, n, i, zero)
}}""", {"N": 8}, lambda s, r: [r.integers(-9, 9, (s["N"], 3)).astype(np.int32), np.asarray(6, np.int32)],
        sizes=({"N": 2}, {"N": 5}, {"N": 8})),
}


def _close(got: list[np.ndarray], want: list[np.ndarray], what: str) -> None:
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
        if w.dtype.kind in "iub":
            assert np.array_equal(g, w), f"{what}: {g} != {w}"
        else:
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6, err_msg=what)


def _oracle(case: Case, sizes: Sizes, args: list[np.ndarray]) -> list[np.ndarray]:
    return hlotools.evaluate(hlotools.parse_module(case.module(sizes)), args)


@pytest.mark.parametrize("name", sorted(CASES))
def test_padded_matches_static_module(name: str) -> None:
    """Interpreter and LLVM backend (one compile for every size), with poisoned padding too."""
    from hlotools.backend.llvm import compile_module
    case = CASES[name]
    module = hlotools.parse_module(case.module(None))
    padded, sig = hlotools.pad_dynamic(module)
    hlotools.verify_module(padded)
    hlotools.parse_module(hlotools.print_module(padded))  # prints as a valid module (unique names)
    compiled = compile_module(module)
    rng = np.random.default_rng(0)
    for sizes in case.size_sets():
        args = case.inputs(sizes, rng)
        want = _oracle(case, sizes, args)
        with np.errstate(all="ignore"):
            _close(hlotools.evaluate(module, args), want, f"{name} {sizes} interp")
            _close(compiled(args), want, f"{name} {sizes} llvm")
            for fill in (np.nan, 1e30, -7):
                poisoned = pad_arguments(module, sig, args, fill=fill)
                ints = any(a is not None and a.dtype.kind in "iub" for a in args)
                if ints and not np.isfinite(fill):
                    continue
                got = unpad_results(sig, hlotools.evaluate(padded, poisoned))
                _close(got, want, f"{name} {sizes} interp, padding {fill}")


def test_set_dimension_size_masks_the_rows_beyond_the_size() -> None:
    """The issue's XLA measurement: set-dimension-size of a runtime size on f32[16,8], then
    exponential and a reduce over the dynamic dim, sums only the valid rows."""
    text = "HloModule m\n" + ADD.replace("{{", "{").replace("}}", "}") + """ENTRY e {
  x = f32[16,8] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=16,8] set-dimension-size(x, n), dimensions={0}
  e = f32[<=16,8] exponential(d)
  z = f32[] constant(0)
  ROOT r = f32[8] reduce(e, z), dimensions={0}, to_apply=add
}"""
    module = hlotools.parse_module(text)
    x = np.random.default_rng(1).standard_normal((16, 8)).astype(np.float32)
    for n in (0, 5, 16):
        want = np.exp(x[:n]).sum(0)
        (got,) = hlotools.evaluate(module, [x, np.int32(n)])
        np.testing.assert_allclose(got, want, rtol=1e-5)
    with pytest.raises(HloError, match=r"set-dimension-size %d: size 17 is outside its bound 0..16"):
        hlotools.evaluate(module, [x, np.int32(17)])


def test_input_beyond_the_bound_names_the_parameter() -> None:
    module = hlotools.parse_module(CASES["reverse"].module(None))
    with pytest.raises(HloError, match=r"parameter 0 'x': dimension 0 has size 6, beyond its bound 5"):
        hlotools.evaluate(module, [np.zeros((6, 2), np.int32)])


def test_undefined_dynamic_behaviour_names_the_instruction() -> None:
    text = """HloModule m
ENTRY e {
  x = f32[<=4,4] parameter(0)
  ROOT c = f32[<=4,4] cholesky(x), lower=true
}"""
    with pytest.raises(HloError, match=r"dynamic-padder: %c \(cholesky\) in computation %e: has no defined"):
        hlotools.pad_dynamic(hlotools.parse_module(text))


def test_static_module_is_unchanged() -> None:
    from hlotools.passes.dynamic_padder import pad_module
    text = "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n"
    module = hlotools.parse_module(text)
    before = hlotools.print_module(module)
    assert pad_module(module) is None
    assert hlotools.print_module(module) == before


def test_set_dimension_size_beyond_the_bound_in_a_call_or_branch_is_refused() -> None:
    text = """HloModule m
f {
  x = s32[6] parameter(0)
  n = s32[] parameter(1)
  ROOT d = s32[<=6] set-dimension-size(x, n), dimensions={0}
}
g {
  x = s32[6] parameter(0)
  n = s32[] parameter(1)
  ROOT d = s32[<=6] set-dimension-size(x, n), dimensions={0}
}
branch_f {
  t = (s32[6], s32[]) parameter(0)
  x = s32[6] get-tuple-element(t), index=0
  n = s32[] get-tuple-element(t), index=1
  ROOT d = s32[<=6] call(x, n), to_apply=f
}
branch_g {
  t = (s32[6], s32[]) parameter(0)
  x = s32[6] get-tuple-element(t), index=0
  n = s32[] get-tuple-element(t), index=1
  ROOT d = s32[<=6] call(x, n), to_apply=g
}
ENTRY e {
  x = s32[6] parameter(0)
  n = s32[] parameter(1)
  p = pred[] parameter(2)
  c = s32[<=6] call(x, n), to_apply=f
  t = (s32[6], s32[]) tuple(x, n)
  k = s32[<=6] conditional(p, t, t), true_computation=branch_f, false_computation=branch_g
  ROOT r = (s32[<=6], s32[<=6]) tuple(c, k)
}"""
    module = hlotools.parse_module(text)
    x = np.arange(6, dtype=np.int32)
    for p in (True, False):
        c, k = hlotools.evaluate(module, [x, np.int32(4), np.asarray(p)])
        assert c.tolist() == k.tolist() == [0, 1, 2, 3]
        with pytest.raises(HloError, match=r"set-dimension-size %d(\.\d+)?: size 9 is outside its bound 0..6"):
            hlotools.evaluate(module, [x, np.int32(9), np.asarray(p)])
