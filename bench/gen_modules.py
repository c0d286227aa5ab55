"""Generated HLO modules that look like JAX output, at any size (for the pass benchmarks).

A module is a chain of "layers". Each layer is a computation called from the entry (JAX
wraps every jitted function in a `call`), holding what passes feed on: a dot, bias
broadcasts, elementwise chains (relu, gelu-ish exp/tanh), a softmax-like reduce with its
own copy of the `add` region (structurally equal regions, as JAX prints them), duplicated
subexpressions (CSE), dead instructions (DCE), a tuple taken apart again (tuple-simplifier)
and a reshape/transpose round trip below elementwise ops (reshape-mover). Every 8th layer is
a small fori-style while loop, and some layers are called twice (flatten-call-graph). The
text is deterministic for a given size.
"""
from __future__ import annotations

from pathlib import Path

B, D = 8, 16  # activations are f32[B, D]; small so the interpreter can run generated modules
ACT = f"f32[{B},{D}]{{1,0}}"
WT = f"f32[{D},{D}]{{1,0}}"


def _add_region(name: str) -> list[str]:
    return [f"{name} {{", "  a = f32[] parameter(0)", "  b = f32[] parameter(1)",
            "  ROOT s = f32[] add(a, b)", "}", ""]


def _layer(k: int) -> list[str]:
    """One layer computation: about 40 instructions."""
    n = f".{k}"
    L = [f"layer{n} {{",
         f"  x{n} = {ACT} parameter(0)",
         f"  w{n} = {WT} parameter(1)",
         f"  dot{n} = {ACT} dot(x{n}, w{n}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, "
         f'metadata={{op_name="jit(model)/layer{k}/dot_general"}}',
         f"  bias_c{n} = f32[] constant({(k % 7) * 0.125})",
         f"  bias{n} = {ACT} broadcast(bias_c{n}), dimensions={{}}",
         f"  h{n} = {ACT} add(dot{n}, bias{n})",
         f"  zero{n} = f32[] constant(0)",
         f"  zeros{n} = {ACT} broadcast(zero{n}), dimensions={{}}",
         f"  relu{n} = {ACT} maximum(h{n}, zeros{n})",
         # duplicated subexpression (JAX emits these for gelu/softmax pieces)
         f"  half_c{n} = f32[] constant(0.5)",
         f"  half{n} = {ACT} broadcast(half_c{n}), dimensions={{}}",
         f"  half_c2{n} = f32[] constant(0.5)",
         f"  half2{n} = {ACT} broadcast(half_c2{n}), dimensions={{}}",
         f"  m1{n} = {ACT} multiply(relu{n}, half{n})",
         f"  m2{n} = {ACT} multiply(half2{n}, relu{n})",
         f"  t1{n} = {ACT} tanh(m1{n})",
         f"  t2{n} = {ACT} tanh(m2{n})",
         f"  g{n} = {ACT} add(t1{n}, t2{n})",
         # dead code
         f"  dead1{n} = {ACT} exponential(g{n})",
         f"  dead2{n} = {ACT} negate(dead1{n})",
         # reshape / transpose round trip under elementwise ops
         f"  rs{n} = f32[{B * D}]{{0}} reshape(g{n})",
         f"  rr{n} = f32[{B * D}]{{0}} reshape(relu{n})",
         f"  sum_r{n} = f32[{B * D}]{{0}} add(rs{n}, rr{n})",
         f"  back{n} = {ACT} reshape(sum_r{n})",
         f"  tr{n} = f32[{D},{B}]{{1,0}} transpose(back{n}), dimensions={{1,0}}",
         f"  two_c{n} = f32[] constant(2)",
         f"  two{n} = f32[{D},{B}]{{1,0}} broadcast(two_c{n}), dimensions={{}}",
         f"  scaled{n} = f32[{D},{B}]{{1,0}} multiply(tr{n}, two{n})",
         f"  untr{n} = {ACT} transpose(scaled{n}), dimensions={{1,0}}",
         # softmax-like normalisation with a reduce
         f"  mx{n} = f32[{B}]{{0}} reduce(untr{n}, zero{n}), dimensions={{1}}, to_apply=add{n}",
         f"  mxb{n} = {ACT} broadcast(mx{n}), dimensions={{0}}",
         f"  sh{n} = {ACT} subtract(untr{n}, mxb{n})",
         f"  e{n} = {ACT} exponential(sh{n})",
         f"  one_c{n} = f32[] constant(1)",
         f"  one{n} = {ACT} broadcast(one_c{n}), dimensions={{}}",
         f"  den{n} = {ACT} add(e{n}, one{n})",
         f"  out{n} = {ACT} divide(e{n}, den{n})",
         # a tuple taken apart again
         f"  pair{n} = ({ACT}, {ACT}) tuple(out{n}, x{n})",
         f"  p0{n} = {ACT} get-tuple-element(pair{n}), index=0",
         f"  p1{n} = {ACT} get-tuple-element(pair{n}), index=1",
         f"  ROOT res{n} = {ACT} add(p0{n}, p1{n})",
         "}", ""]
    return _add_region(f"add{n}") + L


def _loop(k: int) -> list[str]:
    """A fori loop running 3 times over the activations."""
    n = f".{k}"
    st = f"(s32[], {ACT})"
    return [f"cond{n} {{", f"  cs{n} = {st} parameter(0)", f"  ci{n} = s32[] get-tuple-element(cs{n}), index=0",
            f"  cn{n} = s32[] constant(3)", f"  ROOT clt{n} = pred[] compare(ci{n}, cn{n}), direction=LT", "}", "",
            f"body{n} {{", f"  bs{n} = {st} parameter(0)", f"  bi{n} = s32[] get-tuple-element(bs{n}), index=0",
            f"  b1{n} = s32[] constant(1)", f"  bi1{n} = s32[] add(bi{n}, b1{n})",
            f"  bv{n} = {ACT} get-tuple-element(bs{n}), index=1", f"  bt{n} = {ACT} tanh(bv{n})",
            f"  ROOT bo{n} = {st} tuple(bi1{n}, bt{n})", "}", ""]


def generate(instructions: int) -> str:
    """HLO text of a module with about `instructions` instructions."""
    layers = max(1, instructions // 47)
    comps: list[str] = []
    entry = [f"  p{n} = {ACT} parameter(0)" for n in ("in",)] + [f"  w = {WT} parameter(1)"]
    h = "pin"
    for k in range(layers):
        if k % 5 == 4:  # a layer called twice (second call on the first's result)
            comps += _layer(k)
            entry.append(f"  call_{k} = {ACT} call({h}, w), to_apply=layer.{k}")
            entry.append(f"  call_{k}b = {ACT} call(call_{k}, w), to_apply=layer.{k}")
            h = f"call_{k}b"
        else:
            comps += _layer(k)
            entry.append(f"  call_{k} = {ACT} call({h}, w), to_apply=layer.{k}")
            h = f"call_{k}"
        if k % 8 == 7:
            comps += _loop(k)
            entry += [f"  z{k} = s32[] constant(0)", f"  init{k} = (s32[], {ACT}) tuple(z{k}, {h})",
                      f"  loop{k} = (s32[], {ACT}) while(init{k}), condition=cond.{k}, body=body.{k}",
                      f"  lo{k} = {ACT} get-tuple-element(loop{k}), index=1"]
            h = f"lo{k}"
    entry.append(f"  ROOT result = {ACT} copy({h})")
    header = f"HloModule generated_{instructions}, entry_computation_layout={{({ACT}, {WT})->{ACT}}}"
    return "\n".join([header, "", *comps, "ENTRY main {", *entry, "}"]) + "\n"


if __name__ == "__main__":
    import sys
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    out = generate(size)
    if len(sys.argv) > 2:
        Path(sys.argv[2]).write_text(out)
    else:
        sys.stdout.write(out)
