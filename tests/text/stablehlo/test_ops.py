"""One small program per StableHLO op (and per translation convention), with goldens: the HLO
instruction it must become and the values it must compute (from the StableHLO spec's
definition of the op, written out with numpy)."""
from __future__ import annotations

import numpy as np
import pytest

from hlotools import evaluate
from hlotools.text.printer import print_module
from hlotools.text.stablehlo import parse_stablehlo, stablehlo_to_hlo

F = "tensor<2x3xf32>"
X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
Y = np.array([[2.0, 1.0, -1.0], [3.0, 0.25, 2.0]], np.float32)
INTS = np.array([[1, -6, 3], [7, 0, -2]], np.int32)


def main(args: str, results: str, body: str) -> str:
    return f"module @m {{\n  func.func public @main({args}) -> ({results}) {{\n{body}\n  }}\n}}\n"


def run(text: str, *inputs: np.ndarray) -> list[np.ndarray]:
    return [np.asarray(v) for v in evaluate(parse_stablehlo(text), list(inputs))]


def hlo(text: str) -> str:
    return print_module(parse_stablehlo(text), "short")


UNARY = [("abs", "abs", np.abs), ("negate", "negate", np.negative), ("exponential", "exponential", np.exp),
         ("sine", "sine", np.sin), ("cosine", "cosine", np.cos), ("tanh", "tanh", np.tanh),
         ("floor", "floor", np.floor), ("ceil", "ceil", np.ceil), ("sign", "sign", np.sign),
         ("round_nearest_even", "round-nearest-even", np.round), ("exponential_minus_one", "exponential-minus-one",
                                                                   np.expm1),
         ("logistic", "logistic", lambda x: 1 / (1 + np.exp(-x))), ("cbrt", "cbrt", np.cbrt)]


@pytest.mark.parametrize("op,opcode,ref", UNARY, ids=[u[0] for u in UNARY])
def test_unary(op: str, opcode: str, ref) -> None:  # type: ignore[no-untyped-def]
    text = main(f"%a: {F}", F, f"    %0 = stablehlo.{op} %a : {F}\n    return %0 : {F}")
    assert f" {opcode}(" in hlo(text)
    np.testing.assert_allclose(run(text, X)[0], ref(X), rtol=1e-5)


BINARY = [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply), ("divide", np.divide),
          ("maximum", np.maximum), ("minimum", np.minimum), ("power", lambda a, b: np.abs(a) ** b),
          ("atan2", np.arctan2), ("remainder", np.fmod)]


@pytest.mark.parametrize("op,ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary(op: str, ref) -> None:  # type: ignore[no-untyped-def]
    body = (f"    %p = stablehlo.abs %a : {F}\n    %0 = stablehlo.{op} {'%p' if op == 'power' else '%a'}, %b : {F}\n"
            f"    return %0 : {F}")
    got = run(main(f"%a: {F}, %b: {F}", F, body), X, Y)[0]
    np.testing.assert_allclose(got, ref(X, Y), rtol=1e-5)


def test_integer_ops_and_generic_form() -> None:
    t = "tensor<2x3xi32>"
    body = (f'    %0 = "stablehlo.and"(%a, %b) : ({t}, {t}) -> {t}\n'
            f'    %1 = "stablehlo.shift_left"(%0, %b) : ({t}, {t}) -> {t}\n'
            f'    %2 = stablehlo.popcnt %a : {t}\n    %3 = stablehlo.not %a : {t}\n'
            f"    return %1, %2, %3 : {t}, {t}, {t}")
    b = np.abs(INTS) % 4
    got = run(main(f"%a: {t}, %b: {t}", f"{t}, {t}, {t}", body), INTS, b)
    np.testing.assert_array_equal(got[0], (INTS & b) << b)
    np.testing.assert_array_equal(got[1], [[bin(v & 0xFFFFFFFF).count("1") for v in row] for row in INTS.tolist()])
    np.testing.assert_array_equal(got[2], ~INTS)


def test_compare_select_clamp() -> None:
    body = (f"    %0 = stablehlo.compare  GT, %a, %b,  FLOAT : ({F}, {F}) -> tensor<2x3xi1>\n"
            f"    %1 = stablehlo.select %0, %a, %b : tensor<2x3xi1>, {F}\n"
            "    %lo = stablehlo.constant dense<-1.0> : tensor<f32>\n    %hi = stablehlo.constant dense<1.0> : tensor<f32>\n"
            f"    %2 = stablehlo.clamp %lo, %a, %hi : (tensor<f32>, {F}, tensor<f32>) -> {F}\n"
            f"    %3 = stablehlo.compare  LT, %a, %b,  TOTALORDER : ({F}, {F}) -> tensor<2x3xi1>\n"
            f"    return %1, %2, %3 : {F}, {F}, tensor<2x3xi1>")
    text = main(f"%a: {F}, %b: {F}", f"{F}, {F}, tensor<2x3xi1>", body)
    assert "direction=GT" in hlo(text) and "direction=LT, type=TOTALORDER" in hlo(text)
    got = run(text, X, Y)
    np.testing.assert_array_equal(got[0], np.maximum(X, Y))
    np.testing.assert_array_equal(got[1], np.clip(X, -1, 1))
    np.testing.assert_array_equal(got[2], X < Y)


def test_constants_splat_hex_and_dense_resource() -> None:
    body = ("    %0 = stablehlo.constant dense<[[1.0, 0x7F800000, -2.5], [0.0, 3.0, 0xFF800000]]> : tensor<2x3xf32>\n"
            "    %1 = stablehlo.constant dense<7> : tensor<2x2xi32>\n"
            '    %2 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>\n'
            "    %3 = stablehlo.constant dense_resource<blob1> : tensor<3xi16>\n"
            "    %4 = stablehlo.constant dense<[true, false]> : tensor<2xi1>\n"
            "    %5 = stablehlo.constant dense<(1.0,2.0)> : tensor<complex<f32>>\n"
            "    return %0, %1, %2, %3, %4, %5 : tensor<2x3xf32>, tensor<2x2xi32>, tensor<2xf32>, tensor<3xi16>, "
            "tensor<2xi1>, tensor<complex<f32>>")
    text = main("", "tensor<2x3xf32>, tensor<2x2xi32>, tensor<2xf32>, tensor<3xi16>, tensor<2xi1>, tensor<complex<f32>>",
                body) + '{-#\n  dialect_resources: {\n    builtin: {\n      blob1: "0x02000000010002000300"\n    }\n  }\n#-}\n'
    got = run(text)
    np.testing.assert_array_equal(got[0], [[1, np.inf, -2.5], [0, 3, -np.inf]])
    np.testing.assert_array_equal(got[1], np.full((2, 2), 7))
    np.testing.assert_array_equal(got[2], [1.0, 2.0])
    np.testing.assert_array_equal(got[3], [1, 2, 3])
    np.testing.assert_array_equal(got[4], [True, False])
    assert got[5] == np.complex64(1 + 2j)


def test_broadcast_in_dim_follows_xla_reshape_then_broadcast() -> None:
    body = ("    %0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x3xf32>\n"
            "    %1 = stablehlo.broadcast_in_dim %b, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>\n"
            "    return %0, %1 : tensor<2x3xf32>, tensor<2x1xf32>")
    text = main("%a: tensor<2x1xf32>, %b: tensor<2xf32>", "tensor<2x3xf32>, tensor<2x1xf32>", body)
    out = hlo(text)
    assert "f32[2]{0} reshape(" in out and "broadcast(" in out and "dimensions={0}" in out
    got = run(text, X[:, :1], X[:, 0])
    np.testing.assert_array_equal(got[0], np.broadcast_to(X[:, :1], (2, 3)))
    np.testing.assert_array_equal(got[1], X[:, :1])


def test_dot_general_pretty_and_generic() -> None:
    a = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    b = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    body = ("    %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], "
            "precision = [DEFAULT, HIGHEST] : (tensor<2x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>\n"
            '    %1 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions'
            " = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = "
            "[1]>}> : (tensor<2x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>\n"
            "    return %0, %1 : tensor<2x2x2xf32>, tensor<2x2x2xf32>")
    text = main("%a: tensor<2x2x3xf32>, %b: tensor<2x3x2xf32>", "tensor<2x2x2xf32>, tensor<2x2x2xf32>", body)
    assert "lhs_batch_dims={0}, lhs_contracting_dims={2}" in hlo(text)
    assert "operand_precision={default,highest}" in hlo(text)
    got = run(text, a, b)
    np.testing.assert_allclose(got[0], a @ b)
    np.testing.assert_allclose(got[1], a @ b)


def test_data_movement_ops() -> None:
    body = ("    %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
            "    %1 = stablehlo.slice %a [0:2, 1:3:1] : (tensor<2x3xf32>) -> tensor<2x2xf32>\n"
            "    %2 = stablehlo.reverse %a, dims = [1] : tensor<2x3xf32>\n"
            "    %3 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>\n"
            "    %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "    %4 = stablehlo.pad %a, %z, low = [1, 0], high = [0, 1], interior = [0, 1] : (tensor<2x3xf32>, "
            "tensor<f32>) -> tensor<3x6xf32>\n"
            "    %5 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>\n"
            "    %6 = stablehlo.iota dim = 1 : tensor<2x3xi32>\n"
            "    %i = stablehlo.constant dense<1> : tensor<i32>\n"
            "    %7 = stablehlo.dynamic_slice %a, %i, %i, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) "
            "-> tensor<1x2xf32>\n"
            "    %8 = stablehlo.dynamic_update_slice %a, %7, %i, %i : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, "
            "tensor<i32>) -> tensor<2x3xf32>\n"
            "    %9 = stablehlo.convert %6 : (tensor<2x3xi32>) -> tensor<2x3xf32>\n"
            "    return %0, %1, %2, %3, %4, %5, %9, %7, %8 : tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>, "
            "tensor<4x3xf32>, tensor<3x6xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<1x2xf32>, tensor<2x3xf32>")
    results = ("tensor<3x2xf32>, tensor<2x2xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<3x6xf32>, tensor<3x2xf32>, "
               "tensor<2x3xf32>, tensor<1x2xf32>, tensor<2x3xf32>")
    text = main("%a: tensor<2x3xf32>", results, body)
    assert "padding=1_0_0x0_1_1" in hlo(text) and "slice={[0:2], [1:3]}" in hlo(text)
    got = run(text, X)
    pad = np.zeros((3, 6), np.float32)
    pad[1:, 0:5:2] = X
    upd = X.copy()
    upd[1, 1:3] = X[1, 1:3]
    for g, w in zip(got, [X.T, X[:, 1:3], X[:, ::-1], np.concatenate([X, X]), pad, X.reshape(3, 2),
                          np.tile(np.arange(3, dtype=np.float32), (2, 1)), X[1:2, 1:3], upd]):
        np.testing.assert_array_equal(g, w)


def test_reduce_pretty_applies_and_variadic_reducer_block() -> None:
    body = ("    %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            "    %m = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
            "    %k = stablehlo.constant dense<0> : tensor<i32>\n"
            "    %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : "
            "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n"
            "    %ix = stablehlo.iota dim = 1 : tensor<2x3xi32>\n"
            "    %1:2 = stablehlo.reduce(%a init: %m), (%ix init: %k) across dimensions = [1] : (tensor<2x3xf32>, "
            "tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)\n"
            "     reducer(%x: tensor<f32>, %y: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>)  {\n"
            "      %g = stablehlo.compare  GE, %x, %y,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
            "      %v = stablehlo.select %g, %x, %y : tensor<i1>, tensor<f32>\n"
            "      %w = stablehlo.select %g, %i, %j : tensor<i1>, tensor<i32>\n"
            "      stablehlo.return %v, %w : tensor<f32>, tensor<i32>\n    }\n"
            "    return %0, %1#0, %1#1 : tensor<2xf32>, tensor<2xf32>, tensor<2xi32>")
    got = run(main("%a: tensor<2x3xf32>", "tensor<2xf32>, tensor<2xf32>, tensor<2xi32>", body), X)
    np.testing.assert_allclose(got[0], X.sum(1))
    np.testing.assert_array_equal(got[1], X.max(1))
    np.testing.assert_array_equal(got[2], X.argmax(1))


def test_older_generic_spelling_with_dense_index_attributes() -> None:
    """JAX 0.4's generic form: attributes after the regions, index lists as dense<> (a splat too)."""
    body = ('    %z = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>\n'
            '    %0 = "stablehlo.reduce"(%a, %z) ({\n    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n'
            '      %s = "stablehlo.add"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n'
            '      "stablehlo.return"(%s) : (tensor<f32>) -> ()\n'
            '    }) {dimensions = dense<1> : tensor<1xi64>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>\n'
            '    %1 = "stablehlo.transpose"(%a) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x3xf32>) '
            "-> tensor<3x2xf32>\n"
            '    "func.return"(%0, %1) : (tensor<2xf32>, tensor<3x2xf32>) -> ()')
    got = run(main("%a: tensor<2x3xf32>", "tensor<2xf32>, tensor<3x2xf32>", body), X)
    np.testing.assert_allclose(got[0], X.sum(1))
    np.testing.assert_array_equal(got[1], X.T)


def test_while_with_a_value_captured_from_outside() -> None:
    body = ("    %c0 = stablehlo.constant dense<0> : tensor<i32>\n"
            "    %n = stablehlo.constant dense<3> : tensor<i32>\n"
            "    %0:2 = stablehlo.while(%i = %c0, %acc = %a) : tensor<i32>, tensor<2x3xf32>\n"
            "     cond {\n      %p = stablehlo.compare  LT, %i, %n,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
            "      stablehlo.return %p : tensor<i1>\n    } do {\n"
            "      %one = stablehlo.constant dense<1> : tensor<i32>\n"
            "      %j = stablehlo.add %i, %one : tensor<i32>\n"
            "      %s = stablehlo.add %acc, %b : tensor<2x3xf32>\n"
            "      stablehlo.return %j, %s : tensor<i32>, tensor<2x3xf32>\n    }\n"
            "    return %0#0, %0#1 : tensor<i32>, tensor<2x3xf32>")
    text = main("%a: tensor<2x3xf32>, %b: tensor<2x3xf32>", "tensor<i32>, tensor<2x3xf32>", body)
    assert " while(" in hlo(text)
    got = run(text, X, Y)
    assert got[0] == 3
    np.testing.assert_allclose(got[1], X + 3 * Y)


def test_case_and_if_pass_captured_values_to_their_branches() -> None:
    body = ('    %0 = "stablehlo.case"(%k) ({\n      stablehlo.return %a : tensor<2x3xf32>\n    }, {\n'
            "      %n = stablehlo.negate %b : tensor<2x3xf32>\n      stablehlo.return %n : tensor<2x3xf32>\n    }, {\n"
            "      %s = stablehlo.add %a, %b : tensor<2x3xf32>\n      stablehlo.return %s : tensor<2x3xf32>\n"
            "    }) : (tensor<i32>) -> tensor<2x3xf32>\n"
            "    %z = stablehlo.constant dense<0> : tensor<i32>\n"
            "    %p = stablehlo.compare  EQ, %k, %z,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
            '    %1:2 = "stablehlo.if"(%p) ({\n      stablehlo.return %a, %k : tensor<2x3xf32>, tensor<i32>\n    }, {\n'
            "      stablehlo.return %b, %z : tensor<2x3xf32>, tensor<i32>\n    }) : (tensor<i1>) -> (tensor<2x3xf32>, "
            "tensor<i32>)\n    return %0, %1#0, %1#1 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>")
    text = main("%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %k: tensor<i32>",
                "tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>", body)
    assert "branch_computations={" in hlo(text) and "true_computation=" in hlo(text)
    for k, want in [(0, X), (1, -Y), (2, X + Y), (7, X + Y)]:
        got = run(text, X, Y, np.int32(k))
        np.testing.assert_allclose(got[0], want)
        np.testing.assert_array_equal(got[1], X if k == 0 else Y)


def test_sort_gather_scatter_and_reduce_window() -> None:
    t = "tensor<5xf32>"
    body = ('    %0:2 = "stablehlo.sort"(%a, %ix) <{dimension = 0 : i64, is_stable = true}> ({\n'
            "    ^bb0(%x: tensor<f32>, %y: tensor<f32>, %i: tensor<i32>, %j: tensor<i32>):\n"
            "      %l = stablehlo.compare  GT, %x, %y,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
            "      stablehlo.return %l : tensor<i1>\n"
            f"    }}) : ({t}, tensor<5xi32>) -> ({t}, tensor<5xi32>)\n"
            '    %1 = "stablehlo.gather"(%a, %idx) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], '
            "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> : "
            f"({t}, tensor<2x1xi32>) -> tensor<2xf32>\n"
            '    %2 = "stablehlo.scatter"(%a, %idx, %u) <{scatter_dimension_numbers = #stablehlo.scatter<'
            "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({\n"
            "    ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n      %s = stablehlo.add %p, %q : tensor<f32>\n"
            f"      stablehlo.return %s : tensor<f32>\n    }}) : ({t}, tensor<2x1xi32>, tensor<2xf32>) -> {t}\n"
            "    %z = stablehlo.constant dense<0.0> : tensor<f32>\n"
            '    %3 = "stablehlo.reduce_window"(%a, %z) <{padding = dense<[[1, 0]]> : tensor<1x2xi64>, '
            "window_dimensions = array<i64: 2>}> ({\n    ^bb0(%p: tensor<f32>, %q: tensor<f32>):\n"
            "      %s = stablehlo.add %p, %q : tensor<f32>\n      stablehlo.return %s : tensor<f32>\n"
            f"    }}) : ({t}, tensor<f32>) -> {t}\n"
            f"    return %0#0, %0#1, %1, %2, %3 : {t}, tensor<5xi32>, tensor<2xf32>, {t}, {t}")
    a = np.array([3, 1, 4, 1, 5], np.float32)
    idx = np.array([[4], [1]], np.int32)
    u = np.array([10, 20], np.float32)
    got = run(main(f"%a: {t}, %ix: tensor<5xi32>, %idx: tensor<2x1xi32>, %u: tensor<2xf32>",
                   f"{t}, tensor<5xi32>, tensor<2xf32>, {t}, {t}", body), a, np.arange(5, dtype=np.int32), idx, u)
    np.testing.assert_array_equal(got[0], [5, 4, 3, 1, 1])
    np.testing.assert_array_equal(got[1], [4, 2, 0, 1, 3])
    np.testing.assert_array_equal(got[2], [5, 1])
    np.testing.assert_array_equal(got[3], [3, 21, 4, 1, 15])
    np.testing.assert_array_equal(got[4], [3, 4, 5, 5, 6])


def test_convolution_pretty_form() -> None:
    body = ("    %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = "
            "{stride = [1], pad = [[1, 1]], lhs_dilate = [1], rhs_dilate = [1]} {batch_group_count = 1 : i64, "
            "feature_group_count = 1 : i64} : (tensor<1x4x1xf32>, tensor<3x1x1xf32>) -> tensor<1x4x1xf32>\n"
            "    return %0 : tensor<1x4x1xf32>")
    text = main("%x: tensor<1x4x1xf32>, %k: tensor<3x1x1xf32>", "tensor<1x4x1xf32>", body)
    assert "window={size=3 pad=1_1}, dim_labels=b0f_0io->b0f" in hlo(text)
    x = np.array([1, 2, 3, 4], np.float32).reshape(1, 4, 1)
    k = np.array([1, 10, 100], np.float32).reshape(3, 1, 1)
    np.testing.assert_array_equal(run(text, x, k)[0].reshape(-1), [210, 321, 432, 43])


def test_calls_tuples_and_multi_result_functions() -> None:
    text = ("module @m {\n  func.func public @main(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {\n"
            "    %0:2 = func.call @pair(%a) : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)\n"
            "    %t = stablehlo.tuple %0#0, %0#1 : tuple<tensor<2x3xf32>, tensor<2x3xf32>>\n"
            "    %g = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2x3xf32>, tensor<2x3xf32>>) -> tensor<2x3xf32>\n"
            "    %1:2 = stablehlo.optimization_barrier %0#0, %g : tensor<2x3xf32>, tensor<2x3xf32>\n"
            "    return %1#0, %1#1 : tensor<2x3xf32>, tensor<2x3xf32>\n  }\n"
            "  func.func private @pair(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {\n"
            "    %n = stablehlo.negate %x : tensor<2x3xf32>\n    return %x, %n : tensor<2x3xf32>, tensor<2x3xf32>\n"
            "  }\n}\n")
    out = hlo(text)
    assert " call(" in out and "to_apply=pair" in out and " opt-barrier(" in out
    got = run(text, X)
    np.testing.assert_array_equal(got[0], X)
    np.testing.assert_array_equal(got[1], -X)


def test_chlo_ops_follow_their_definitions() -> None:
    t = "tensor<4xf32>"
    body = (f"    %0 = chlo.erf_inv %a : {t} -> {t}\n    %1 = chlo.lgamma %b : {t} -> {t}\n"
            f"    %2 = chlo.digamma %b : {t} -> {t}\n    %3 = chlo.next_after %a, %b : {t}, {t} -> {t}\n"
            f"    %4 = chlo.square %a : {t} -> {t}\n    %5 = chlo.atan %a : {t} -> {t}\n"
            f"    %v, %i = chlo.top_k(%b, k = 2) : {t} -> (tensor<2xf32>, tensor<2xi32>)\n"
            f"    return %0, %1, %2, %3, %4, %5, %v, %i : {t}, {t}, {t}, {t}, {t}, {t}, tensor<2xf32>, tensor<2xi32>")
    a = np.array([-0.5, 0.0, 0.3, 0.99], np.float32)
    b = np.array([0.5, 1.0, 2.5, 10.0], np.float32)
    got = run(main(f"%a: {t}, %b: {t}", f"{t}, {t}, {t}, {t}, {t}, {t}, tensor<2xf32>, tensor<2xi32>", body), a, b)
    import math
    np.testing.assert_allclose([math.erf(v) for v in got[0]], a, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got[1], [math.lgamma(v) for v in b], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[2], [-1.9635100260214235, -0.5772156649015329, 0.7031566406452432,
                                        2.251752589066721], rtol=1e-6)
    np.testing.assert_array_equal(got[3], np.nextafter(a, b))
    np.testing.assert_array_equal(got[4], a * a)
    np.testing.assert_allclose(got[5], np.arctan(a), rtol=1e-6)
    np.testing.assert_array_equal(got[6], [10.0, 2.5])
    np.testing.assert_array_equal(got[7], [3, 2])


def test_linalg_map_and_batch_norm() -> None:
    m = "tensor<2x2xf32>"
    body = (f'    %0 = "stablehlo.cholesky"(%a) <{{lower = true}}> : ({m}) -> {m}\n'
            f'    %1 = "stablehlo.triangular_solve"(%0, %b) <{{left_side = true, lower = true, transpose_a = '
            f'#stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}}> : ({m}, {m}) -> {m}\n'
            f'    %2 = "stablehlo.map"(%a, %b) <{{dimensions = array<i64: 0, 1>}}> ({{\n'
            "    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n      %s = stablehlo.multiply %x, %y : tensor<f32>\n"
            f"      stablehlo.return %s : tensor<f32>\n    }}) : ({m}, {m}) -> {m}\n"
            "    %sc = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
            "    %of = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf32>\n"
            f'    %3:3 = "stablehlo.batch_norm_training"(%a, %sc, %of) <{{epsilon = 0.0 : f32, feature_index = 1 : i64}}> '
            f": ({m}, tensor<2xf32>, tensor<2xf32>) -> ({m}, tensor<2xf32>, tensor<2xf32>)\n"
            f"    return %0, %1, %2, %3#0 : {m}, {m}, {m}, {m}")
    a = np.array([[4.0, 2.0], [2.0, 5.0]], np.float32)
    b = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    got = run(main(f"%a: {m}, %b: {m}", f"{m}, {m}, {m}, {m}", body), a, b)
    low = np.linalg.cholesky(a.astype(np.float64))
    np.testing.assert_allclose(np.tril(got[0]), low, rtol=1e-6)
    np.testing.assert_allclose(got[1], np.linalg.solve(low, b), rtol=1e-5)
    np.testing.assert_array_equal(got[2], a * b)
    norm = (a - a.mean(0)) / a.std(0)
    np.testing.assert_allclose(got[3], norm * [1, 2] + [0, 1], rtol=1e-5, atol=1e-6)


def test_collectives_on_one_device() -> None:
    t = "tensor<2x3xf32>"
    body = (f'    %0 = "stablehlo.all_reduce"(%a) <{{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, '
            "replica_groups = dense<[[0]]> : tensor<1x1xi64>, use_global_device_ids}> ({\n"
            "    ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n      %s = stablehlo.add %x, %y : tensor<f32>\n"
            f"      stablehlo.return %s : tensor<f32>\n    }}) : ({t}) -> {t}\n"
            f'    %1 = "stablehlo.all_gather"(%0) <{{all_gather_dim = 0 : i64, replica_groups = dense<[[0]]> : '
            f"tensor<1x1xi64>}}> : ({t}) -> {t}\n    return %1 : {t}")
    text = main(f"%a: {t}", t, body)
    line = next(x for x in hlo(text).splitlines() if " all-reduce(" in x)
    assert all(a in line for a in ("replica_groups={{0}}", "channel_id=1", "use_global_device_ids=true", "to_apply="))
    np.testing.assert_array_equal(run(text, X)[0], X)


def test_bounded_dynamic_dims() -> None:
    t = "tensor<?x3xf32, #stablehlo.bounds<8, ?>>"
    text = main(f"%a: {t}", f"{t}, tensor<i32>", f"    %0 = stablehlo.negate %a : {t}\n"
                f"    %1 = stablehlo.get_dimension_size %0, dim = 0 : ({t}) -> tensor<i32>\n"
                f"    return %0, %1 : {t}, tensor<i32>")
    assert "f32[<=8,3]" in hlo(text)
    from hlotools.backend.llvm import compile_module
    x = np.arange(15, dtype=np.float32).reshape(5, 3)  # any size up to the bound
    for got in (run(text, x), [np.asarray(v) for v in compile_module(parse_stablehlo(text))([x])]):
        np.testing.assert_array_equal(got[0], -x)
        assert int(got[1]) == 5


def test_locations_become_metadata_and_module_attributes_are_kept() -> None:
    text = ('#loc1 = loc("model.py":12:5)\n'
            "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
            "  func.func public @main(%arg0: tensor<2xf32> {mhlo.sharding = \"{replicated}\"}) -> "
            '(tensor<2xf32> {jax.result_info = "result"}) {\n'
            '    %0 = stablehlo.sine %arg0 : tensor<2xf32> loc(#loc2)\n    return %0 : tensor<2xf32>\n  }\n}\n'
            '#loc2 = loc("jit(f)/sin"(#loc1))\n')
    out = stablehlo_to_hlo(text)
    assert 'metadata={op_name="jit(f)/sin" source_file="model.py" source_line=12}' in out
    assert "HloModule jit_f, entry_computation_layout={(f32[2]{0})->f32[2]{0}}" in out
    assert "sharding={replicated}" in out
    laid = text.replace('{mhlo.sharding = "{replicated}"}', '{mhlo.layout_mode = "{0}"}').replace("2xf32", "2x3xf32")
    laid = laid.replace('{mhlo.layout_mode = "{0}"}', '{mhlo.layout_mode = "{0,1}"}')
    assert "entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{1,0}}" in stablehlo_to_hlo(laid)
    text = main("%a: tensor<2xf32>", "tensor<2xf32>", "    %0 = stablehlo.custom_call @Sharding(%a) "
                '{mhlo.sharding = "{maximal device=0}"} : (tensor<2xf32>) -> tensor<2xf32>\n'
                "    return %0 : tensor<2xf32>")
    assert 'custom_call_target="Sharding", sharding={maximal device=0}' in stablehlo_to_hlo(text)


def _i1e(x: float) -> float:
    """exp(-|x|) I1(x) from I1's power series, summed exactly enough in Python floats."""
    import math
    log_h = math.log(abs(x) / 2)
    terms = [math.exp((2 * k + 1) * log_h - math.lgamma(k + 1) - math.lgamma(k + 2) - abs(x)) for k in range(800)]
    return math.copysign(math.fsum(terms), x)


def test_chlo_zeta_polygamma_and_bessel_i1e() -> None:
    import math
    t = "tensor<5xf32>"
    body = (f"    %0 = chlo.zeta %s, %q : {t}, {t} -> {t}\n    %1 = chlo.polygamma %n, %q : {t}, {t} -> {t}\n"
            f"    %2 = chlo.bessel_i1e %b : {t} -> {t}\n    return %0, %1, %2 : {t}, {t}, {t}")
    text = main(f"%s: {t}, %q: {t}, %n: {t}, %b: {t}", f"{t}, {t}, {t}", body)
    s = np.array([2.0, 3.0, 0.5, 1.0, 3.0], np.float32)
    q = np.array([1.0, 2.0, 1.0, 1.0, -2.0], np.float32)
    n = np.array([1.0, 2.0, 0.0, 1.5, 1.0], np.float32)
    b = np.array([1.0, -3.5, 19.0, 25.0, -200.0], np.float32)
    got = run(text, s, q, n, b)
    zeta3 = 1.2020569031595942
    np.testing.assert_allclose(got[0], [math.pi ** 2 / 6, zeta3 - 1, np.nan, np.inf, np.nan], rtol=1e-6)
    # polygamma(1, 1) = zeta(2); polygamma(2, 2) = -2 zeta(3, 2); polygamma(0, 1) = digamma(1); n not natural: nan
    np.testing.assert_allclose(got[1][:4], [math.pi ** 2 / 6, -2 * (zeta3 - 1), -0.5772156649015329, np.nan], rtol=1e-6)
    assert got[1][4] == np.inf  # polygamma(1, -2): zeta(2, -2), a pole at an even order
    np.testing.assert_allclose(got[2], [_i1e(float(v)) for v in b], rtol=2e-6)


def test_chlo_broadcasting_binary_ops_and_small_ops() -> None:
    row, mat, cm = "tensor<3xf32>", "tensor<2x3xf32>", "tensor<2x3xcomplex<f32>>"
    body = (f"    %0 = chlo.broadcast_add %r, %m : ({row}, {mat}) -> {mat}\n"
            f"    %1 = chlo.broadcast_multiply %c, %m {{broadcast_dimensions = array<i64: 0>}} : "
            f"(tensor<2xf32>, {mat}) -> {mat}\n"
            f"    %2 = chlo.broadcast_compare %m, %r {{comparison_direction = #chlo<comparison_direction GT>}} : "
            f"({mat}, {row}) -> tensor<2x3xi1>\n"
            f"    %3 = chlo.broadcast_maximum %one, %m : (tensor<1x3xf32>, {mat}) -> {mat}\n"
            f"    %4 = chlo.is_inf %m : {mat} -> tensor<2x3xi1>\n    %5 = chlo.is_neg_inf %m : {mat} -> tensor<2x3xi1>\n"
            f"    %6 = chlo.is_pos_inf %m : {mat} -> tensor<2x3xi1>\n"
            f'    %7 = "chlo.constant_like"(%m) {{value = 2.5 : f32}} : ({mat}) -> {mat}\n'
            f"    %z = stablehlo.complex %m, %m : {cm}\n"
            f"    %8 = chlo.conj %z : {cm} -> {cm}\n"
            f"    %9 = chlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
            f"    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : {mat}, {mat}, tensor<2x3xi1>, {mat}, tensor<2x3xi1>, "
            f"tensor<2x3xi1>, tensor<2x3xi1>, {mat}, {cm}, tensor<2xf32>")
    outs = (f"{mat}, {mat}, tensor<2x3xi1>, {mat}, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, {mat}, "
            f"{cm}, tensor<2xf32>")
    text = main(f"%r: {row}, %m: {mat}, %c: tensor<2xf32>, %one: tensor<1x3xf32>", outs, body)
    r = np.array([1.0, -1.0, 0.5], np.float32)
    m = np.array([[1.0, np.inf, -2.0], [-np.inf, 0.25, 3.0]], np.float32)
    c = np.array([10.0, -1.0], np.float32)
    one = np.array([[0.0, 1.0, 2.0]], np.float32)
    got = run(text, r, m, c, one)
    np.testing.assert_array_equal(got[0], r + m)
    np.testing.assert_array_equal(got[1], c[:, None] * m)
    np.testing.assert_array_equal(got[2], m > r)
    np.testing.assert_array_equal(got[3], np.maximum(one, m))
    np.testing.assert_array_equal(got[4], np.isinf(m))
    np.testing.assert_array_equal(got[5], np.isneginf(m))
    np.testing.assert_array_equal(got[6], np.isposinf(m))
    np.testing.assert_array_equal(got[7], np.full((2, 3), 2.5, np.float32))
    want = np.zeros((2, 3), np.complex64)
    want.real, want.imag = m, -m
    np.testing.assert_array_equal(got[8], want)
    np.testing.assert_array_equal(got[9], [1.0, 2.0])


def test_chlo_broadcast_rejects_shapes_that_do_not_broadcast() -> None:
    from hlotools.errors import HloError
    body = ("    %0 = chlo.broadcast_add %a, %b : (tensor<2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>\n"
            "    return %0 : tensor<2x3xf32>")
    with pytest.raises(HloError, match="does not broadcast"):
        parse_stablehlo(main("%a: tensor<2xf32>, %b: tensor<2x3xf32>", "tensor<2x3xf32>", body))


def test_chlo_ragged_dot_is_xlas_ragged_dot() -> None:
    dn = ("#chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions "
          "= [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>")
    body = (f'    %0 = "chlo.ragged_dot"(%x, %w, %g) {{precision_config = [#chlo<precision DEFAULT>, '
            f"#chlo<precision DEFAULT>], ragged_dot_dimension_numbers = {dn}}} : (tensor<5x3xf32>, tensor<2x3x4xf32>, "
            "tensor<2xi32>) -> tensor<5x4xf32>\n    return %0 : tensor<5x4xf32>")
    text = main("%x: tensor<5x3xf32>, %w: tensor<2x3x4xf32>, %g: tensor<2xi32>", "tensor<5x4xf32>", body)
    assert "ragged-dot(" in hlo(text) and "lhs_ragged_dims={0}, rhs_group_dims={0}" in hlo(text)
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((2, 3, 4)).astype(np.float32)
    g = np.array([2, 2], np.int32)  # rows 0-1 use w[0], rows 2-3 w[1], row 4 no group: zeros
    want = np.concatenate([x[:2] @ w[0], x[2:4] @ w[1], np.zeros((1, 4), np.float32)])
    np.testing.assert_allclose(run(text, x, w, g)[0], want, rtol=1e-5, atol=1e-6)
