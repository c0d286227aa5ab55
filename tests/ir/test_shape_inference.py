"""Shape inference rules on hand-built IR; expected shapes worked out by hand."""
from __future__ import annotations

from typing import Any

import pytest

from hlotools.errors import HloError
from hlotools.ir.attributes import ConvDimLabels, Enum, PaddingConfig, Raw, SliceRange, Window, WindowDim
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.shape_inference import has_rule, infer_shape
from tests.support.irbuild import S, computation, inst, param


def infer(opcode: str, operand_shapes: list[str], shape: str | None = None, **attrs: Any) -> str:
    ops = [param(s, i) for i, s in enumerate(operand_shapes)]
    return infer_shape(inst(opcode, ops, shape, **attrs)).to_text(with_layout=False)


def infer_error(opcode: str, operand_shapes: list[str], shape: str | None = None,
                **attrs: Any) -> str:
    with pytest.raises(HloError) as e:
        infer(opcode, operand_shapes, shape, **attrs)
    return e.value.message


def win(*dims: WindowDim) -> Window:
    return Window(tuple(dims))


def labels(text: str) -> ConvDimLabels:
    """Decode dim_labels such as b01f_01io->b01f (as the parser does)."""
    lhs, rest = text.split("_", 1)
    rhs, out = rest.split("->")

    def spatial(s: str) -> tuple[int, ...]:
        digits = sorted((int(c), i) for i, c in enumerate(s) if c.isdigit())
        return tuple(i for _, i in digits)
    return ConvDimLabels(lhs.index("b"), lhs.index("f"), spatial(lhs), rhs.index("i"),
                         rhs.index("o"), spatial(rhs), out.index("b"), out.index("f"),
                         spatial(out), text)


def test_every_opcode_has_a_rule() -> None:
    assert [op for op in OPCODES if not has_rule(op)] == []


def test_default_layout_is_filled_in() -> None:
    p = param("f32[2,3]{0,1}")
    shape = infer_shape(inst("negate", [p]))
    assert str(shape) == "f32[2,3]{1,0}"


@pytest.mark.parametrize("opcode,operands,shape,attrs,expected", [
    ("add", ["f32[2,3]", "f32[2,3]"], None, {}, "f32[2,3]"),
    ("negate", ["s32[4]"], None, {}, "s32[4]"),
    ("abs", ["c64[3]"], None, {}, "f32[3]"),
    ("abs", ["s8[3]"], None, {}, "s8[3]"),
    ("sign", ["f32[3]"], None, {}, "f32[3]"),
    ("compare", ["u8[2]", "u8[2]"], None, {"direction": Enum("EQ"), "type": Enum("UNSIGNED")},
     "pred[2]"),
    ("real", ["c128[2]"], None, {}, "f64[2]"),
    ("imag", ["f32[2]"], None, {}, "f32[2]"),
    ("is-finite", ["bf16[5]"], None, {}, "pred[5]"),
    ("exponential", ["c64[]"], None, {}, "c64[]"),
    ("not", ["pred[2]"], None, {}, "pred[2]"),
    ("popcnt", ["u16[2]"], None, {}, "u16[2]"),
    ("complex", ["f32[4]", "f32[4]"], None, {}, "c64[4]"),
    ("complex", ["f64[]", "f64[]"], None, {}, "c128[]"),
    ("and", ["pred[2]", "pred[2]"], None, {}, "pred[2]"),
    ("shift-left", ["u8[2]", "u8[2]"], None, {}, "u8[2]"),
    ("compare", ["f32[2,2]", "f32[2,2]"], None, {"direction": Enum("LT")}, "pred[2,2]"),
    ("select", ["pred[3]", "f32[3]", "f32[3]"], None, {}, "f32[3]"),
    ("clamp", ["f32[3]", "f32[3]", "f32[3]"], None, {}, "f32[3]"),
    ("clamp", ["f32[]", "f32[3]", "f32[]"], None, {}, "f32[3]"),  # XLA: scalar bounds broadcast
    ("clamp", ["s32[]", "s32[2,2]", "s32[2,2]"], None, {}, "s32[2,2]"),
    ("convert", ["f32[2,3]"], "s8[9]", {}, "s8[2,3]"),
    ("bitcast-convert", ["f32[2]"], "s32[2]", {}, "s32[2]"),
    ("bitcast-convert", ["f32[2]"], "u8[2,4]", {}, "u8[2,4]"),
    ("bitcast-convert", ["u16[3,2]"], "f32[3]", {}, "f32[3]"),
    ("bitcast-convert", ["f64[]"], "bf16[4]", {}, "bf16[4]"),
    ("reduce-precision", ["f32[7]"], "f32[7]", {"exponent_bits": 5, "mantissa_bits": 10}, "f32[7]"),
    ("stochastic-convert", ["f32[3]", "u32[3]"], "bf16[3]", {}, "bf16[3]"),
    ("copy", ["(f32[2], s32[])"], None, {}, "(f32[2], s32[])"),
    ("opt-barrier", ["(f32[2], s32[])"], None, {}, "(f32[2], s32[])"),
])
def test_elementwise(opcode: str, operands: list[str], shape: str | None, attrs: dict,
                     expected: str) -> None:
    assert infer(opcode, operands, shape, **attrs) == expected


@pytest.mark.parametrize("opcode,operands,shape,attrs,expected", [
    ("broadcast", ["f32[3]"], "f32[2,3,4]", {"dimensions": (1,)}, "f32[2,3,4]"),
    ("broadcast", ["f32[]"], "f32[2,3]", {}, "f32[2,3]"),
    ("reshape", ["f32[2,3]"], "f32[6]", {}, "f32[6]"),
    ("reshape", ["f32[1]"], "f32[]", {}, "f32[]"),
    ("transpose", ["f32[2,3,4]"], None, {"dimensions": (2, 0, 1)}, "f32[4,2,3]"),
    ("reverse", ["f32[2,3]"], None, {"dimensions": (0, 1)}, "f32[2,3]"),
    ("slice", ["f32[10,8]"], None, {"slice": (SliceRange(2, 9, 3), SliceRange(0, 8))}, "f32[3,8]"),
    ("slice", ["f32[5]"], None, {"slice": (SliceRange(5, 5),)}, "f32[0]"),
    ("dynamic-slice", ["f32[10,8]", "s32[]", "s32[]"], None, {"dynamic_slice_sizes": (2, 8)},
     "f32[2,8]"),
    ("dynamic-slice", ["f32[10,8]", "s32[2]"], None, {"dynamic_slice_sizes": (2, 8)}, "f32[2,8]"),
    ("dynamic-update-slice", ["f32[10,8]", "f32[2,3]", "u32[]", "u32[]"], None, {}, "f32[10,8]"),
    ("concatenate", ["f32[2,3]", "f32[4,3]", "f32[1,3]"], None, {"dimensions": (0,)}, "f32[7,3]"),
    ("pad", ["f32[3,4]", "f32[]"], None, {"padding": PaddingConfig(((1, 2, 0), (0, 0, 1)))},
     "f32[6,7]"),
    ("pad", ["f32[5]", "f32[]"], None, {"padding": PaddingConfig(((-2, -1, 0),))}, "f32[2]"),
    ("pad", ["f32[3]", "f32[]"], None, {"padding": PaddingConfig(((-1, 0, 2),))}, "f32[6]"),
    ("pad", ["f32[0]", "f32[]"], None, {"padding": PaddingConfig(((1, 1, 5),))}, "f32[2]"),
    ("iota", [], "s32[4,5]", {"iota_dimension": 1}, "s32[4,5]"),
    ("tuple", ["f32[2]", "(s32[], pred[])"], None, {}, "(f32[2], (s32[], pred[]))"),
    ("tuple", [], None, {}, "()"),
    ("get-tuple-element", ["(f32[2], s32[])"], None, {"index": 1}, "s32[]"),
    ("sort", ["f32[5,4]"], None, {"dimensions": (1,)}, "f32[5,4]"),
    ("sort", ["f32[5]", "s32[5]"], None, {"dimensions": (0,)}, "(f32[5], s32[5])"),
    ("topk", ["f32[3,10]"], None, {"k": 4}, "(f32[3,4], s32[3,4])"),
    ("get-dimension-size", ["f32[3,10]"], None, {"dimensions": (1,)}, "s32[]"),
    ("set-dimension-size", ["f32[3,10]", "s32[]"], None, {"dimensions": (1,)}, "f32[3,<=10]"),
    ("bitcast", ["f32[2,3]"], "u32[6]", {}, "u32[6]"),
    ("dynamic-reshape", ["f32[6]", "s32[]", "s32[]"], "f32[<=2,3]", {}, "f32[<=2,3]"),
])
def test_data_movement(opcode: str, operands: list[str], shape: str | None, attrs: dict,
                       expected: str) -> None:
    assert infer(opcode, operands, shape, **attrs) == expected


GATHER_ROWS = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,),
                   index_vector_dim=1, slice_sizes=(1, 8))


@pytest.mark.parametrize("operands,attrs,expected", [
    # Take rows: indices s32[5,1] -> 5 rows of 8.
    (["f32[10,8]", "s32[5,1]"], GATHER_ROWS, "f32[5,8]"),
    # index_vector_dim == rank: implicit trailing 1.
    (["f32[10,8]", "s32[5]"], {**GATHER_ROWS, "index_vector_dim": 1}, "f32[5,8]"),
    # Window 2x3 at 2-d starts, batch dims [4,6], offsets at output dims 0 and 3.
    (["f32[10,8]", "s32[4,2,6]"], dict(offset_dims=(0, 3), collapsed_slice_dims=(),
                                       start_index_map=(0, 1), index_vector_dim=1,
                                       slice_sizes=(2, 3)), "f32[2,4,6,3]"),
    # Batching dims: operand dim 0 pairs with index dim 0.
    (["f32[4,10,8]", "s32[4,3,1]"], dict(offset_dims=(2,), collapsed_slice_dims=(1,),
                                         start_index_map=(1,), index_vector_dim=2,
                                         slice_sizes=(1, 1, 8), operand_batching_dims=(0,),
                                         start_indices_batching_dims=(0,)), "f32[4,3,8]"),
])
def test_gather(operands: list[str], attrs: dict, expected: str) -> None:
    assert infer("gather", operands, None, **attrs) == expected


def test_scatter() -> None:
    attrs = dict(update_window_dims=(1,), inserted_window_dims=(0,),
                 scatter_dims_to_operand_dims=(0,), index_vector_dim=1)
    assert infer("scatter", ["f32[10,8]", "s32[5,1]", "f32[5,8]"], None, **attrs) == "f32[10,8]"
    two = infer("scatter", ["f32[10,8]", "s32[10,8]", "s32[5,1]", "f32[5,8]", "s32[5,8]"], None,
                **attrs)
    assert two == "(f32[10,8], s32[10,8])"


@pytest.mark.parametrize("opcode,operands,shape,attrs,expected", [
    ("reduce", ["f32[2,3,4]", "f32[]"], None, {"dimensions": (0, 2)}, "f32[3]"),
    ("reduce", ["f32[2,3]", "s32[2,3]", "f32[]", "s32[]"], None, {"dimensions": (1,)},
     "(f32[2], s32[2])"),
    ("reduce", ["bf16[8]", "f32[]"], None, {"dimensions": (0,)}, "f32[]"),
    # 1-d window size 3 stride 2 pad 1_1 on 10: (12 - 3) // 2 + 1 = 5.
    ("reduce-window", ["f32[10]", "f32[]"], None,
     {"window": win(WindowDim(3, 2, 1, 1))}, "f32[5]"),
    # base dilation 2 on 4 -> 7; window 2 with dilation 3 -> 4; (7 - 4) + 1 = 4.
    ("reduce-window", ["f32[4]", "f32[]"], None,
     {"window": win(WindowDim(2, window_dilation=3, base_dilation=2))}, "f32[4]"),
    ("reduce-window", ["f32[4,4]", "s32[4,4]", "f32[]", "s32[]"], None,
     {"window": win(WindowDim(2, 2), WindowDim(4))}, "(f32[2,1], s32[2,1])"),
    ("select-and-scatter", ["f32[4,6]", "f32[2,3]", "f32[]"], None,
     {"window": win(WindowDim(2, 2), WindowDim(2, 2))}, "f32[4,6]"),
])
def test_reductions(opcode: str, operands: list[str], shape: str | None, attrs: dict,
                    expected: str) -> None:
    assert infer(opcode, operands, shape, **attrs) == expected


@pytest.mark.parametrize("operands,shape,attrs,expected", [
    (["f32[2,3]", "f32[3,4]"], None, {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (0,)},
     "f32[2,4]"),
    # batch 5, lhs free 2, rhs free 4 -> [5,2,4].
    (["f32[5,2,3]", "f32[5,3,4]"], None, {"lhs_batch_dims": (0,), "rhs_batch_dims": (0,),
                                          "lhs_contracting_dims": (2,),
                                          "rhs_contracting_dims": (1,)}, "f32[5,2,4]"),
    # batch dim in the middle of rhs; free dims keep operand order.
    (["f32[7,2,3]", "f32[3,7,4,6]"], None, {"lhs_batch_dims": (0,), "rhs_batch_dims": (1,),
                                            "lhs_contracting_dims": (2,),
                                            "rhs_contracting_dims": (0,)}, "f32[7,2,4,6]"),
    # Outer product (no contracting dims).
    (["f32[2]", "f32[3]"], None, {}, "f32[2,3]"),
    # preferred_element_type: bf16 x bf16 declared f32.
    (["bf16[2,3]", "bf16[3]"], "f32[2]", {"lhs_contracting_dims": (1,),
                                          "rhs_contracting_dims": (0,)}, "f32[2]"),
    (["s8[2,3]", "s8[3]"], "s32[2]", {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (0,)},
     "s32[2]"),
])
def test_dot(operands: list[str], shape: str | None, attrs: dict, expected: str) -> None:
    assert infer("dot", operands, shape, **attrs) == expected


@pytest.mark.parametrize("operands,attrs,expected", [
    # NHWC 1x5x5x2, HWIO 3x3x2x4, stride 1, no pad -> 1x3x3x4.
    (["f32[1,5,5,2]", "f32[3,3,2,4]"], {"dim_labels": labels("b01f_01io->b01f"),
                                        "window": win(WindowDim(3), WindowDim(3))},
     "f32[1,3,3,4]"),
    # NCHW with stride 2 and pad 1_1: (7 + 2 - 3) // 2 + 1 = 4.
    (["f32[2,3,7,7]", "f32[8,3,3,3]"], {"dim_labels": labels("bf01_oi01->bf01"),
                                        "window": win(WindowDim(3, 2, 1, 1), WindowDim(3, 2, 1, 1))},
     "f32[2,8,4,4]"),
    # lhs dilation 2 (transposed conv): 4 -> 7; window 3 -> 5. rhs dilation 2: window 3 -> 5.
    (["f32[1,4,1]", "f32[3,1,1]"], {"dim_labels": labels("b0f_0io->b0f"),
                                    "window": win(WindowDim(3, base_dilation=2))}, "f32[1,5,1]"),
    (["f32[1,9,1]", "f32[3,1,1]"], {"dim_labels": labels("b0f_0io->b0f"),
                                    "window": win(WindowDim(3, window_dilation=2))}, "f32[1,5,1]"),
    # feature_group_count 2: input features 4 = 2 groups of 2 kernel input features.
    (["f32[1,5,4]", "f32[3,2,6]"], {"dim_labels": labels("b0f_0io->b0f"),
                                    "window": win(WindowDim(3)), "feature_group_count": 2},
     "f32[1,3,6]"),
    # batch_group_count 2: batch 4 -> 2, output features 6 divisible by 2.
    (["f32[4,5,3]", "f32[3,3,6]"], {"dim_labels": labels("b0f_0io->b0f"),
                                    "window": win(WindowDim(3)), "batch_group_count": 2},
     "f32[2,3,6]"),
    # 0 spatial dims: a matmul.
    (["f32[2,3]", "f32[3,5]"], {"dim_labels": labels("bf_io->bf")}, "f32[2,5]"),
])
def test_convolution(operands: list[str], attrs: dict, expected: str) -> None:
    assert infer("convolution", operands, None, **attrs) == expected


@pytest.mark.parametrize("opcode,operands,shape,attrs,expected", [
    ("fft", ["c64[4,8]"], None, {"fft_type": Enum("FFT"), "fft_length": (8,)}, "c64[4,8]"),
    ("fft", ["f32[4,8]"], None, {"fft_type": Enum("RFFT"), "fft_length": (8,)}, "c64[4,5]"),
    ("fft", ["f64[3,6,8]"], None, {"fft_type": Enum("RFFT"), "fft_length": (6, 8)}, "c128[3,6,5]"),
    ("fft", ["c64[4,5]"], None, {"fft_type": Enum("IRFFT"), "fft_length": (8,)}, "f32[4,8]"),
    ("fft", ["c64[4,5]"], None, {"fft_type": Enum("IRFFT"), "fft_length": (9,)}, "f32[4,9]"),
    ("cholesky", ["f32[3,4,4]"], None, {"lower": True}, "f32[3,4,4]"),
    ("triangular-solve", ["f32[4,4]", "f32[4,6]"], None, {"left_side": True}, "f32[4,6]"),
    ("triangular-solve", ["f32[4,4]", "f32[6,4]"], None, {"left_side": False}, "f32[6,4]"),
    ("batch-norm-training", ["f32[2,3,5]", "f32[3]", "f32[3]"], None,
     {"epsilon": 0.001, "feature_index": 1}, "(f32[2,3,5], f32[3], f32[3])"),
    ("batch-norm-inference", ["f32[2,3]", "f32[3]", "f32[3]", "f32[3]", "f32[3]"], None,
     {"epsilon": 0.001, "feature_index": 1}, "f32[2,3]"),
    ("batch-norm-grad", ["f32[2,3]", "f32[2]", "f32[2]", "f32[2]", "f32[2,3]"], None,
     {"epsilon": 0.001, "feature_index": 0}, "(f32[2,3], f32[2], f32[2])"),
    ("ragged-dot", ["f32[11,5]", "f32[3,5,7]", "s32[3]"], None,
     {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (1,), "lhs_ragged_dims": (0,),
      "rhs_group_dims": (0,)}, "f32[11,7]"),
])
def test_linalg(opcode: str, operands: list[str], shape: str | None, attrs: dict,
                expected: str) -> None:
    assert infer(opcode, operands, shape, **attrs) == expected


@pytest.mark.parametrize("opcode,operands,shape,attrs,expected", [
    ("all-reduce", ["f32[4]"], None, {}, "f32[4]"),
    ("all-reduce", ["f32[4]", "s32[]"], None, {}, "(f32[4], s32[])"),
    ("all-gather", ["f32[2,3]"], None, {"dimensions": (1,), "replica_groups": Raw("{{0,1,2,3}}")},
     "f32[2,12]"),
    ("all-gather", ["f32[2,3]"], None, {"dimensions": (0,), "replica_groups": Raw("[2,4]<=[8]")},
     "f32[8,3]"),
    ("all-gather", ["f32[2,3]"], "f32[2,6]", {"dimensions": (1,), "replica_groups": Raw("{}")},
     "f32[2,6]"),
    ("reduce-scatter", ["f32[8]"], None, {"dimensions": (0,), "replica_groups": Raw("{{0,1}}")},
     "f32[4]"),
    ("all-to-all", ["f32[4,2]"], None, {"dimensions": (0,), "replica_groups": Raw("{{0,1}}")},
     "f32[4,2]"),
    ("collective-permute", ["f32[3]"], None, {"source_target_pairs": Raw("{{0,1}}")}, "f32[3]"),
    ("all-gather-start", ["f32[2]"], None, {"dimensions": (0,), "replica_groups": Raw("{{0,1}}")},
     "(f32[2], f32[4])"),
    ("all-gather-done", ["(f32[2], f32[4])"], None, {}, "f32[4]"),
    ("copy-start", ["f32[3]"], None, {}, "(f32[3], f32[3], u32[])"),
    ("copy-done", ["(f32[3], f32[3], u32[])"], None, {}, "f32[3]"),
    ("send", ["f32[3]", "token[]"], None, {"channel_id": 1}, "(f32[3], u32[], token[])"),
    ("send-done", ["(f32[3], u32[], token[])"], None, {}, "token[]"),
    ("recv-done", ["(f32[3], u32[], token[])"], None, {}, "(f32[3], token[])"),
    ("after-all", ["token[]", "token[]"], None, {}, "token[]"),
    ("after-all", [], None, {}, "token[]"),
    ("add-dependency", ["f32[2]", "token[]"], None, {}, "f32[2]"),
    ("outfeed", ["f32[2]", "token[]"], None, {"outfeed_shape": S("f32[2]")}, "token[]"),
    ("replica-id", [], None, {}, "u32[]"),
    ("partition-id", [], None, {}, "u32[]"),
    ("rng", ["f32[]", "f32[]"], "f32[3,2]", {"distribution": Enum("rng_uniform")}, "f32[3,2]"),
    ("rng-bit-generator", ["u64[2]"], "(u64[2], u32[4,4])", {"algorithm": Enum("rng_default")},
     "(u64[2], u32[4,4])"),
    ("rng-get-and-update-state", [], "u64[2]", {"delta": 1}, "u64[2]"),
    ("custom-call", ["f32[2]"], "(f32[3], s8[])", {"custom_call_target": "foo"}, "(f32[3], s8[])"),
    ("async-done", ["((f32[2]), f32[5], s32[])"], None, {}, "f32[5]"),
    ("async-update", ["((f32[2]), f32[5], s32[])"], None, {}, "((f32[2]), f32[5], s32[])"),
    ("while", ["(s32[], f32[3])"], None, {}, "(s32[], f32[3])"),
])
def test_control_and_collectives(opcode: str, operands: list[str], shape: str | None, attrs: dict,
                                 expected: str) -> None:
    assert infer(opcode, operands, shape, **attrs) == expected


def test_called_computation_rules() -> None:
    add = computation("add", ["f32[]", "f32[]"])
    assert infer("map", ["f32[4]", "f32[4]"], None, to_apply=add) == "f32[4]"
    body = computation("body", ["f32[2]", "s32[]"], "tuple", "(f32[2], s32[])")
    assert infer("call", ["f32[2]", "s32[]"], None, to_apply=body) == "(f32[2], s32[])"
    assert infer("fusion", ["f32[2]", "s32[]"], "(f32[2], s32[])", calls=body,
                 kind=Enum("kLoop")) == "(f32[2], s32[])"
    b0 = computation("b0", ["f32[2]"], "negate")
    b1 = computation("b1", ["s32[]"], None)
    assert infer("conditional", ["s32[]", "f32[2]", "s32[]"], None,
                 branch_computations=(b0, b1)) == "f32[2]"
    assert infer("async-start", ["f32[2]", "s32[]"], "((f32[2], s32[]), (f32[2], s32[]), s32[])",
                 calls=body) == "((f32[2], s32[]), (f32[2], s32[]), s32[])"


@pytest.mark.parametrize("opcode,operands,shape,attrs,needle", [
    ("add", ["f32[2]", "f32[3]"], None, {}, "operand shapes differ"),
    ("add", ["f32[2]", "s32[2]"], None, {}, "different element types"),
    ("add", ["(f32[2])", "f32[2]"], None, {}, "expected an array"),
    ("and", ["f32[2]", "f32[2]"], None, {}, "integral or pred"),
    ("shift-left", ["f32[2]", "f32[2]"], None, {}, "integral element type"),
    ("complex", ["s32[2]", "s32[2]"], None, {}, "f32 or f64"),
    ("floor", ["s32[2]"], None, {}, "floating point element type"),
    ("exponential", ["s32[2]"], None, {}, "floating point or complex"),
    ("popcnt", ["f32[2]"], None, {}, "integral"),
    ("not", ["f32[2]"], None, {}, "integral or pred"),
    ("negate", ["pred[2]"], None, {}, "numeric"),
    ("real", ["s32[2]"], None, {}, "floating point or complex operand"),
    ("compare", ["f32[2]", "f32[2]"], None, {}, "missing required attribute 'direction'"),
    ("compare", ["f32[2]", "f32[2]"], None, {"direction": Enum("XX")}, "unknown comparison"),
    ("select", ["s32[2]", "f32[2]", "f32[2]"], None, {}, "predicate must be pred"),
    ("select", ["pred[3]", "f32[2]", "f32[2]"], None, {}, "different dimensions"),
    ("clamp", ["f32[2]", "f32[3]", "f32[3]"], None, {}, "must have the operand's dimensions"),
    ("clamp", ["f32[3]", "f32[]", "f32[3]"], None, {}, "or be a scalar"),
    ("select", ["pred[]", "f32[3]", "f32[3]"], None, {}, "different dimensions"),
    ("abs", ["u8[2]"], None, {}, "signed, floating point or complex"),
    ("sign", ["u32[2]"], None, {}, "signed, floating point or complex"),
    ("compare", ["f32[2]", "f32[2]"], None, {"direction": Enum("LT"), "type": Enum("SIGNED")},
     "expected FLOAT or TOTALORDER"),
    ("bitcast-convert", ["c64[2]"], "f32[2,2]", {}, "complex and real"),
    ("stochastic-convert", ["s32[3]", "u32[3]"], "s8[3]", {}, "only floating point"),
    ("reduce-window", ["f32[4]", "f32[]"], None, {"window": win(WindowDim(0))}, "non-positive"),
    ("clamp", ["s32[]", "f32[3]", "f32[]"], None, {}, "different element types"),
    ("convert", ["c64[2]"], "f32[2]", {}, "complex to real"),
    ("convert", ["f32[2]"], None, {}, "result shape must be given"),
    ("bitcast-convert", ["u8[3,3]"], "f32[3]", {}, "minor dimension of size 4"),
    ("reduce-precision", ["f32[2]"], "f32[2]", {"exponent_bits": 0, "mantissa_bits": 2},
     "out of range"),
    ("stochastic-convert", ["f32[3]", "u16[3]"], "bf16[3]", {}, "unsigned of the operand's width"),
    ("broadcast", ["f32[3]"], "f32[2,4]", {"dimensions": (1,)}, "does not match output"),
    ("broadcast", ["f32[3]"], "f32[2,3]", {"dimensions": (2,)}, "out of range"),
    ("broadcast", ["f32[3]"], "f32[3,3]", {"dimensions": (0, 1)}, "one entry per operand"),
    ("reshape", ["f32[2,3]"], "f32[5]", {}, "element count"),
    ("transpose", ["f32[2,3]"], None, {"dimensions": (0, 0)}, "not a permutation"),
    ("transpose", ["f32[2,3]"], None, {}, "missing required attribute 'dimensions'"),
    ("reverse", ["f32[2,3]"], None, {"dimensions": (1, 1)}, "duplicate"),
    ("slice", ["f32[4]"], None, {"slice": (SliceRange(1, 5),)}, "out of bounds"),
    ("slice", ["f32[4]"], None, {"slice": (SliceRange(0, 4, 0),)}, "must be positive"),
    ("slice", ["f32[4,4]"], None, {"slice": (SliceRange(0, 4),)}, "1 ranges for an operand of rank 2"),
    ("dynamic-slice", ["f32[4,4]", "s32[]"], None, {"dynamic_slice_sizes": (1, 1)},
     "expects 2 start indices"),
    ("dynamic-slice", ["f32[4]", "f32[]"], None, {"dynamic_slice_sizes": (1,)}, "must be integers"),
    ("dynamic-slice", ["f32[4]", "s32[]"], None, {"dynamic_slice_sizes": (5,)}, "out of range"),
    ("dynamic-slice", ["f32[4,4]", "s32[]", "u32[]"], None, {"dynamic_slice_sizes": (1, 1)},
     "same element type"),
    ("dynamic-update-slice", ["f32[4]", "f32[5]", "s32[]"], None, {}, "larger than the operand"),
    ("dynamic-update-slice", ["f32[4]", "s32[2]", "s32[]"], None, {}, "different element types"),
    ("concatenate", ["f32[2,3]", "f32[2,4]"], None, {"dimensions": (0,)}, "outside dimension 0"),
    ("concatenate", ["f32[2,3]", "f32[2,3]"], None, {"dimensions": (0, 1)}, "exactly one"),
    ("concatenate", ["f32[2,3]", "f32[2,3]"], None, {"dimensions": (2,)}, "out of range"),
    ("pad", ["f32[2]", "f32[]"], None, {"padding": PaddingConfig(((0, 0, -1),))}, "interior"),
    ("pad", ["f32[2]", "f32[]"], None, {"padding": PaddingConfig(((-2, -1, 0),))}, "negative"),
    ("pad", ["f32[2]", "s32[]"], None, {"padding": PaddingConfig(((0, 0, 0),))}, "padding value"),
    ("iota", [], "f32[3]", {"iota_dimension": 1}, "out of range"),
    ("get-tuple-element", ["(f32[2])"], None, {"index": 1}, "out of range"),
    ("get-tuple-element", ["f32[2]"], None, {"index": 0}, "must be a tuple"),
    ("sort", ["f32[5]", "s32[4]"], None, {"dimensions": (0,)}, "different dimensions"),
    ("topk", ["f32[3]"], None, {"k": 4}, "exceeds"),
    ("gather", ["f32[10,8]", "s32[5,1]"], None, {**GATHER_ROWS, "slice_sizes": (2, 8)},
     "must be <= 1"),
    ("gather", ["f32[10,8]", "s32[5,1]"], None, {**GATHER_ROWS, "start_index_map": (0, 1)},
     "index vector size"),
    ("gather", ["f32[10,8]", "s32[5,1]"], None, {**GATHER_ROWS, "slice_sizes": (1, 9)},
     "out of range"),
    ("gather", ["f32[10,8]", "f32[5,1]"], None, GATHER_ROWS, "must be integers"),
    ("gather", ["f32[10,8]", "s32[5,2]"], None, {**GATHER_ROWS, "start_index_map": (0, 0),
                                                 "slice_sizes": (1, 8)}, "duplicate"),
    ("gather", ["f32[10,8,4]", "s32[5,1]"], None, dict(offset_dims=(1,), collapsed_slice_dims=(2, 0),
                                                       start_index_map=(0,), index_vector_dim=1,
                                                       slice_sizes=(1, 8, 1)), "must be sorted"),
    ("scatter", ["f32[10,8]", "s32[5,2]", "f32[5,1,8]"], None,
     dict(update_window_dims=(1, 2), inserted_window_dims=(), scatter_dims_to_operand_dims=(0, 0),
          index_vector_dim=1), "scatter_dims_to_operand_dims {0,0} has duplicate"),
    ("convolution", ["f32[4,5,4]", "f32[3,2,8]"], None,
     {"dim_labels": labels("b0f_0io->b0f"), "window": win(WindowDim(3)), "batch_group_count": 2,
      "feature_group_count": 2}, "cannot be greater than 1"),
    ("batch-norm-inference", ["s32[2,3]", "s32[3]", "s32[3]", "s32[3]", "s32[3]"], None,
     {"epsilon": 0.1, "feature_index": 1}, "floating point"),
    ("map", ["f32[2,3]"], None, {"to_apply": computation("m1", ["f32[]"], "negate"),
                                 "dimensions": (1,)}, "all of the operand's dimensions"),
    ("scatter", ["f32[10,8]", "s32[5,1]", "f32[5,9]"], None,
     dict(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
          index_vector_dim=1), "larger than operand dimension"),
    ("scatter", ["f32[10,8]", "s32[5,1]", "f32[4,8]"], None,
     dict(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
          index_vector_dim=1), "does not match the indices"),
    ("reduce", ["f32[2,3]", "f32[2]"], None, {"dimensions": (0,)}, "must be a scalar"),
    ("reduce", ["f32[2,3]", "f32[]"], None, {"dimensions": (2,)}, "out of range"),
    ("reduce", ["f32[2,3]", "f32[]", "f32[]"], None, {"dimensions": (0,)}, "N init values"),
    ("reduce-window", ["f32[4]", "f32[]"], None, {"window": win(WindowDim(2), WindowDim(2))},
     "2 dimensions for an operand of rank 1"),
    ("select-and-scatter", ["f32[4]", "f32[3]", "f32[]"], None, {"window": win(WindowDim(2, 2))},
     "window output dimensions"),
    ("dot", ["f32[2,3]", "f32[4,5]"], None, {"lhs_contracting_dims": (1,),
                                             "rhs_contracting_dims": (0,)}, "contracting dimension"),
    ("dot", ["f32[2,3]", "f32[3]"], None, {"lhs_contracting_dims": (1,)}, "differ in length"),
    ("dot", ["f32[2,3]", "f32[3]"], None, {"lhs_contracting_dims": (2,),
                                           "rhs_contracting_dims": (0,)}, "out of range"),
    ("dot", ["s32[2,3]", "s32[3]"], "s8[2]", {"lhs_contracting_dims": (1,),
                                              "rhs_contracting_dims": (0,)}, "narrower"),
    ("convolution", ["f32[1,5,3]", "f32[3,2,4]"], None,
     {"dim_labels": labels("b0f_0io->b0f"), "window": win(WindowDim(3))}, "kernel input features"),
    ("convolution", ["f32[1,5,2]", "f32[2,2,4]"], None,
     {"dim_labels": labels("b0f_0io->b0f"), "window": win(WindowDim(3))}, "does not match the kernel"),
    ("convolution", ["f32[1,5,2]", "f32[3,2,4]"], None,
     {"dim_labels": labels("b0f_0io->b0f"), "window": win()}, "spatial dimensions"),
    ("convolution", ["f32[3,5,2]", "f32[3,2,4]"], None,
     {"dim_labels": labels("b0f_0io->b0f"), "window": win(WindowDim(3)), "batch_group_count": 2},
     "divisible by batch_group_count"),
    ("fft", ["f32[8]"], None, {"fft_type": Enum("FFT"), "fft_length": (8,)}, "complex operand"),
    ("fft", ["c64[8]"], None, {"fft_type": Enum("FFT"), "fft_length": (4,)}, "minor dims"),
    ("fft", ["c64[4]"], None, {"fft_type": Enum("IRFFT"), "fft_length": (8,)}, "{5}"),
    ("cholesky", ["f32[3,4]"], None, {}, "square"),
    ("triangular-solve", ["f32[4,4]", "f32[4,6]"], None,
     {"left_side": True, "transpose_a": Enum("SIDEWAYS")}, "invalid transpose_a"),
    ("rng-bit-generator", ["u64[2]"], "(u64[2], u32[4])", {"algorithm": Enum("rng_dice")},
     "unknown algorithm"),
    ("triangular-solve", ["f32[4,4]", "f32[5,6]"], None, {"left_side": True}, "solved dimension"),
    ("batch-norm-training", ["f32[2,3]", "f32[2]", "f32[3]"], None,
     {"epsilon": 0.1, "feature_index": 1}, "one per feature"),
    ("batch-norm-training", ["f32[2,3]", "f32[3]", "f32[3]"], None,
     {"epsilon": 0.1, "feature_index": 2}, "out of range"),
    ("all-gather", ["f32[2]"], None, {"dimensions": (1,), "replica_groups": Raw("{{0,1}}")},
     "out of range"),
    ("reduce-scatter", ["f32[3]"], None, {"dimensions": (0,), "replica_groups": Raw("{{0,1}}")},
     "not divisible"),
    ("after-all", ["f32[]"], None, {}, "must be a token"),
    ("add-dependency", ["f32[2]", "f32[]"], None, {}, "must be a token"),
    ("send", ["f32[2]", "f32[]"], None, {}, "token"),
    ("outfeed", ["f32[2]", "token[]"], None, {"outfeed_shape": S("f32[3]")}, "outfeed_shape"),
    ("rng", ["f32[]", "s32[]"], "f32[2]", {"distribution": Enum("rng_uniform")}, "parameter 1"),
    ("rng", ["s32[]", "s32[]"], "s32[2]", {"distribution": Enum("rng_normal")}, "floating point"),
    ("custom-call", ["f32[2]"], None, {"custom_call_target": "foo"}, "result shape must be given"),
    ("async-done", ["f32[2]"], None, {}, "must be a tuple"),
    ("recv", ["token[]"], "(f32[2], token[])", {}, "result must be (data, u32[], token[])"),
    ("recv", ["f32[]"], "(f32[2], u32[], token[])", {}, "must be a token"),
    ("infeed", ["token[]"], "f32[2]", {}, "result must be (data, token[])"),
    ("conditional", ["f32[]", "f32[2]"], None, {}, "branch index"),
    ("map", ["f32[2]", "f32[3]"], None, {"to_apply": computation("m", ["f32[]", "f32[]"])},
     "different dimensions"),
    ("call", ["f32[2]"], None, {}, "missing required attribute 'to_apply'"),
    ("dynamic-reshape", ["f32[6]", "s32[]"], "f32[2,3]", {}, "one size operand per output"),
    ("get-dimension-size", ["f32[2]"], None, {"dimensions": (0, 0)}, "exactly one"),
    ("set-dimension-size", ["f32[2]", "s64[]"], None, {"dimensions": (0,)}, "s32[]"),
])
def test_errors(opcode: str, operands: list[str], shape: str | None, attrs: dict,
                needle: str) -> None:
    assert needle in infer_error(opcode, operands, shape, **attrs)


def test_error_names_the_place() -> None:
    a, b = param("f32[2]", 0), param("f32[3]", 1)
    x = inst("add", [a, b])
    x.line, x.column = 7, 3
    with pytest.raises(HloError) as e:
        infer_shape(x)
    assert (e.value.line, e.value.column) == (7, 3)
    assert e.value.message.startswith("add: ")


def test_malformed_attribute_is_an_hlo_error() -> None:
    with pytest.raises(HloError, match="malformed"):
        infer("transpose", ["f32[2,3]"], None, dimensions=5)


def test_parser_fills_omitted_shapes_with_inferred_default_layout_shapes() -> None:
    import hlotools
    m = hlotools.parse_module("""HloModule m
ENTRY e {
  a = f32[2,3]{0,1} parameter(0)
  b = s32[] parameter(1)
  t = transpose(a), dimensions={1,0}
  n = negate(t)
  ROOT r = tuple(n, b)
}""")
    assert str(m.entry.instruction_by_name("t").shape) == "f32[3,2]{1,0}"
    assert str(m.entry.root.shape) == "(f32[3,2]{1,0}, s32[])"


@pytest.mark.parametrize("opcode,operands,shape,attrs,expected", [
    # scaled-dot operands: lhs, rhs, lhs_scale, rhs_scale; the result follows the dot dims.
    ("scaled-dot", ["f8e4m3fn[4,32]", "f8e4m3fn[32,8]", "f8e8m0fnu[4,1]", "f8e8m0fnu[1,8]"],
     "bf16[4,8]", {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (0,)}, "bf16[4,8]"),
    ("collective-permute-start", ["f32[3]"], "(f32[3], f32[3], u32[], u32[])",
     {"source_target_pairs": Raw("{{0,1}}")}, "(f32[3], f32[3], u32[], u32[])"),
    ("collective-permute-done", ["(f32[3], f32[3], u32[], u32[])"], None, {}, "f32[3]"),
    # In-place form: (input, output, input offsets, output offsets) -> the output's shape.
    ("collective-permute", ["f32[4]", "f32[8]", "(s32[])", "(s32[])"], None,
     {"source_target_pairs": Raw("{{0,1}}"), "slice_sizes": Raw("{{4}}")}, "f32[8]"),
    ("all-reduce-start", ["f32[3]"], None, {}, "f32[3]"),
    ("all-reduce-done", ["f32[3]"], None, {}, "f32[3]"),
    # all-to-all without a split dimension is the tuple form, even with one operand.
    ("all-to-all", ["f32[4]"], None, {}, "(f32[4])"),
    ("collective-broadcast", ["f32[4]", "u32[]"], None, {"has_dynamic_root": True}, "f32[4]"),
    # mesh replica groups: a group spans the listed axes (4 here).
    ("all-gather", ["f32[2]"], None, {"dimensions": (0,),
                                      "replica_groups": Raw("mesh['x'=4,'y'=2] {'x'}")}, "f32[8]"),
    ("domain", ["(f32[2], s32[])"], None, {}, "(f32[2], s32[])"),
    ("recv", ["token[]"], "(f32[2], u32[], token[])", {"channel_id": 1}, "(f32[2], u32[], token[])"),
    ("infeed", ["token[]"], "((f32[2]), token[])", {}, "((f32[2]), token[])"),
    ("scan", ["f32[5,2]", "f32[2]"], "(f32[5,2], f32[2])", {}, "(f32[5,2], f32[2])"),
    # A late-bound operand appended by async-update extends the bound operands.
    ("async-update", ["((f32[2]), f32[5], s32[])", "s32[]"], None, {}, "((f32[2], s32[]), f32[5], s32[])"),
])
def test_more_rules(opcode: str, operands: list[str], shape: str | None, attrs: dict,
                    expected: str) -> None:
    assert infer(opcode, operands, shape, **attrs) == expected


def test_conditional_with_true_and_false_computations() -> None:
    t = computation("t", ["f32[2]"], "negate")
    f = computation("f", ["s32[]"], None, )
    f.root = f.add_instruction(inst("broadcast", [f.parameters[0]], "s32[2]", "b", dimensions=()))
    f.root = f.add_instruction(inst("convert", [f.root], "f32[2]", "c"))
    assert infer("conditional", ["pred[]", "f32[2]", "s32[]"], None, true_computation=t,
                 false_computation=f) == "f32[2]"


def test_reduce_with_a_one_tuple_reducer_returns_a_one_tuple() -> None:
    add1 = computation("add1", ["f32[]", "f32[]"], "add", "f32[]")
    t = add1.add_instruction(inst("tuple", [add1.root], "(f32[])", "t"))
    add1.root = t
    assert infer("reduce", ["f32[3,4]", "f32[]"], None, dimensions=(1,), to_apply=add1) == "(f32[3])"


def test_dynamic_dimensions_propagate_like_xla() -> None:
    # A dynamic update covering a whole dimension makes it dynamic.
    assert infer("dynamic-update-slice", ["f32[4,3]", "f32[<=4,2]", "s32[]", "s32[]"]) == "f32[<=4,3]"
    assert infer("dynamic-update-slice", ["f32[4,3]", "f32[<=3,2]", "s32[]", "s32[]"]) == "f32[4,3]"
    # A conditional's result is dynamic where any branch's is.
    b0 = computation("d0", ["f32[3]"], None)
    b1 = computation("d1", ["f32[<=3]"], None)
    assert infer("conditional", ["s32[]", "f32[3]", "f32[<=3]"], None,
                 branch_computations=(b0, b1)) == "f32[<=3]"
