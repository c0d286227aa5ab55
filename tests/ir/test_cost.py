"""ir/cost.py: flops and bytes accessed per instruction, as HloCostAnalysis counts them."""
from __future__ import annotations

from hlotools import parse_module
from hlotools.ir.cost import computation_cost, instruction_cost

TEXT = """HloModule c

add_f32 {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

fused {
  a = f32[8,16] parameter(0)
  e = f32[8,16] exponential(a)
  ROOT m = f32[8,16] multiply(e, e)
}

ENTRY main {
  p = f32[8,16] parameter(0)
  w = f32[16,4] parameter(1)
  d = f32[8,4] dot(p, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  r = f32[8] reduce(d, z), dimensions={1}, to_apply=add_f32
  img = f32[1,5,5,3] parameter(2)
  k = f32[3,3,3,2] parameter(3)
  conv = f32[1,3,3,2] convolution(img, k), window={size=3x3}, dim_labels=b01f_01io->b01f
  f = f32[8,16] fusion(p), kind=kLoop, calls=fused
  t = (f32[8], f32[8,16]) tuple(r, f)
  ROOT g = f32[8] get-tuple-element(t), index=0
}
"""


def _insts():
    m = parse_module(TEXT, "c")
    return m, {i.name: i for c in m.computations for i in c.instructions}


def test_dot_convolution_reduce_and_elementwise_flops() -> None:
    _, by = _insts()
    assert instruction_cost(by["d"]).flops == 2 * 8 * 4 * 16
    # each output element: a 3x3 window over 3 input features, two flops per multiply-add
    assert instruction_cost(by["conv"]).flops == 2 * (1 * 3 * 3 * 2) * (3 * 3 * 3)
    # the reduction combines each input element once, plus its reducer's own add per call (1 flop)
    assert instruction_cost(by["r"]).flops == 8 * 4 + 1
    assert instruction_cost(by["e"]).flops == 8 * 16


def test_bytes_are_operands_read_plus_result_written() -> None:
    _, by = _insts()
    assert instruction_cost(by["d"]).bytes_accessed == 4 * (8 * 16 + 16 * 4 + 8 * 4)
    # a fusion reads its operands and writes its result once; the fused intermediates are free
    f = instruction_cost(by["f"])
    assert f.bytes_accessed == 4 * (8 * 16 + 8 * 16) and f.flops == 2 * 8 * 16
    for name in ("t", "g", "p"):  # no new data
        assert instruction_cost(by[name]).bytes_accessed == 0


def test_computation_cost_adds_up_and_memoises() -> None:
    m, by = _insts()
    memo: dict = {}
    total = computation_cost(m.entry, memo)
    assert total.flops == sum(instruction_cost(i).flops for i in m.entry.instructions)
    assert id(m.entry) in memo and any(id(c) in memo for c in m.computations if c.name == "fused")
