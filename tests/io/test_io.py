"""hlotools.io on hand-built modules: binding arrays to parameters, raw bf16 bytes, random
inputs, comparisons and summaries (no parser needed)."""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from hlotools.errors import HloError, HloRuntimeError
from hlotools.io.arrays import coerce, parameter_leaves, result_leaves, storable
from hlotools.io.compare import compare
from hlotools.io.literal_text import literal_text
from hlotools.io.npz import bind, read_arrays, save_npz
from hlotools.io.random_inputs import index_bound, random_inputs
from hlotools.io.summary import summarize
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape
from hlotools.ir.types import ELEMENT_TYPES

F32, S32, BF16, PRED = (ELEMENT_TYPES[n] for n in ("f32", "s32", "bf16", "pred"))


def arr(et, *dims: int) -> Shape:
    return Shape.array(et, dims)


def make_module(param_shapes: list[Shape], root_shape: Shape | None = None,
                names: list[str] | None = None) -> Module:
    """ENTRY with the given parameters; the root is a tuple of them (or parameter 0)."""
    m = Module("test")
    comp = Computation("main")
    comp.is_entry = True
    params = []
    for i, s in enumerate(param_shapes):
        p = Instruction((names or [])[i] if names else f"p{i}", "parameter", s, parameter_number=i)
        comp.add_instruction(p)
        params.append(p)
    if root_shape is None:
        root = comp.add_instruction(Instruction("t", "tuple", Shape.tuple_of([p.shape for p in params]),
                                                params))
    else:
        root = params[0]
    comp.root = root
    m.add_computation(comp)
    m.entry = comp
    return m


def test_tuple_parameters_flatten_depth_first() -> None:
    m = make_module([arr(F32, 2), Shape.tuple_of([arr(S32), Shape.tuple_of([arr(PRED, 3)])])])
    specs = parameter_leaves(m)
    assert [s.name for s in specs] == ["p0", "p1{0}", "p1{1,0}"]
    assert [str(s.shape) for s in specs] == ["f32[2]", "s32[]", "pred[3]"]
    assert [s.name for s in result_leaves(m)] == ["out0", "out1", "out2"]


def test_raw_bf16_bytes_take_the_module_type(tmp_path: Path) -> None:
    m = make_module([arr(BF16, 4)])
    values = np.array([1.5, -2, 0.25, 3], dtype=ml_dtypes.bfloat16)
    np.savez(tmp_path / "in.npz", in0=values)
    loaded = read_arrays([str(tmp_path / "in.npz")])
    assert loaded[0].array.dtype.str == "|V2"  # what numpy gives back
    (bound,) = bind(loaded, parameter_leaves(m))
    assert bound.dtype == ml_dtypes.bfloat16
    assert bound.astype(np.float32).tolist() == [1.5, -2.0, 0.25, 3.0]


def test_saved_bf16_outputs_load_back(tmp_path: Path) -> None:
    values = np.array([1, 2, 3], dtype=ml_dtypes.bfloat16)
    f8 = np.array([0.5, 1], dtype=ml_dtypes.float8_e4m3fn)
    path = tmp_path / "out"  # no .npz suffix: the file keeps the name given
    save_npz(str(path), [("out0", values), ("out1", f8), ("out2", np.arange(3, dtype=np.int32))])
    assert path.exists()
    m = make_module([arr(BF16, 3), Shape.array(ELEMENT_TYPES["f8e4m3fn"], (2,)), arr(S32, 3)])
    back = bind(read_arrays([str(path)]), result_leaves(m), what="expected outputs")
    assert back[0].dtype == ml_dtypes.bfloat16 and back[0].astype(float).tolist() == [1, 2, 3]
    assert back[1].dtype == ml_dtypes.float8_e4m3fn and back[1].astype(float).tolist() == [0.5, 1]
    assert back[2].tolist() == [0, 1, 2]
    assert storable(values).dtype.str == "|V2"


def test_wrong_shape_names_parameter_expected_and_given() -> None:
    m = make_module([arr(F32, 2, 3)], names=["x.1"])
    (spec,) = parameter_leaves(m)
    with pytest.raises(HloRuntimeError) as e:
        coerce(np.zeros((3, 2), np.float32), spec, "a.npy")
    assert e.value.format() == "a.npy: error: parameter 0 'x.1' expects f32[2,3], given f32[3,2]"
    with pytest.raises(HloRuntimeError, match=r"expects f32\[2,3\], given f64\[2,3\]"):
        coerce(np.zeros((2, 3)), spec, "a.npy")


def test_wrong_count_lists_the_parameters(tmp_path: Path) -> None:
    m = make_module([arr(F32, 2), arr(S32)])
    np.savez(tmp_path / "in.npz", in0=np.zeros(2, np.float32))
    with pytest.raises(HloRuntimeError, match=r"expected 2 inputs, given 1 \(p0: f32\[2\], p1: s32\[\]\)"):
        bind(read_arrays([str(tmp_path / "in.npz")]), parameter_leaves(m))


def test_npz_keys_may_be_parameter_names(tmp_path: Path) -> None:
    m = make_module([arr(F32, 2), arr(S32)], names=["x", "n"])
    np.savez(tmp_path / "in.npz", n=np.int32(7), x=np.ones(2, np.float32))
    x, n = bind(read_arrays([str(tmp_path / "in.npz")]), parameter_leaves(m))
    assert x.tolist() == [1, 1] and int(n) == 7
    np.savez(tmp_path / "bad.npz", y=np.int32(7), x=np.ones(2, np.float32))
    with pytest.raises(HloRuntimeError, match="key 'y' is neither a number"):
        bind(read_arrays([str(tmp_path / "bad.npz")]), parameter_leaves(m))


def test_npz_state_and_npy_inputs_mix(tmp_path: Path) -> None:
    """A model's state by name from one .npz, its user input by position (issue 13's
    `hlo-run NAME.hlo --inputs NAME.params.npz x.npy`), in any order on the command line."""
    m = make_module([arr(F32, 2), arr(S32), arr(F32, 3)], names=["w", "n", "x"])
    np.savez(tmp_path / "params.npz", n=np.int32(7), w=np.ones(2, np.float32))
    np.save(tmp_path / "x.npy", np.arange(3, dtype=np.float32))
    for order in (["params.npz", "x.npy"], ["x.npy", "params.npz"]):
        w, n, x = bind(read_arrays([str(tmp_path / f) for f in order]), parameter_leaves(m))
        assert w.tolist() == [1, 1] and int(n) == 7 and x.tolist() == [0, 1, 2]
    np.savez(tmp_path / "twice.npz", in0=np.ones(2, np.float32), w=np.ones(2, np.float32))
    with pytest.raises(HloRuntimeError, match="parameter 0 'w' is given twice: by 'in0' and by 'w'"):
        bind(read_arrays([str(tmp_path / "twice.npz"), str(tmp_path / "x.npy")]), parameter_leaves(m))


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(HloError) as e:
        read_arrays([str(tmp_path / "nope.npy")])
    assert e.value.format().endswith("nope.npy: error: no such file or directory")
    (tmp_path / "junk.npy").write_text("not numpy")
    with pytest.raises(HloError, match="cannot read as .npy/.npz"):
        read_arrays([str(tmp_path / "junk.npy")])


def test_random_inputs_are_deterministic_and_typed() -> None:
    m = make_module([arr(F32, 100), arr(S32, 50), arr(PRED, 64), arr(BF16, 3)])
    a, b = random_inputs(m, 7), random_inputs(m, 7)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(a[0], random_inputs(m, 8)[0])
    assert [x.dtype for x in a] == [np.float32, np.int32, np.bool_, ml_dtypes.bfloat16]
    assert abs(float(a[0].mean())) < 0.5 and 0.5 < float(a[0].std()) < 1.5
    assert a[1].min() >= -5 and a[1].max() <= 5
    assert 0 < a[2].sum() < 64


def test_random_index_parameter_stays_in_range() -> None:
    m = make_module([arr(F32, 10, 4), arr(S32)])
    comp = m.entry
    assert comp is not None
    data, start = comp.parameters
    zero = comp.add_instruction(Instruction("z", "constant", arr(S32)))
    ds = comp.add_instruction(Instruction("ds", "dynamic-slice", arr(F32, 3, 4), [data, start, zero],
                                          attrs={"dynamic_slice_sizes": (3, 4)}))
    comp.root = ds
    assert index_bound(start) == 8  # starts 0..7 keep a 3-row slice of 10 rows in bounds
    for seed in range(20):
        s = int(random_inputs(m, seed)[1])
        assert 0 <= s <= 7


def test_compare_tolerance_nan_and_worst_element() -> None:
    e = np.array([1.0, 2.0, np.nan, np.inf, 100.0], np.float32)
    ok = compare("out0", e.copy(), e, "f32")
    assert ok.ok and ok.mismatches == 0
    a = e.copy()
    a[4] = 100.5
    a[0] = 1.00001
    bad = compare("out0", a, e, "f32", rtol=1e-3, atol=0)
    assert not bad.ok and bad.mismatches == 1 and bad.worst_index == (4,)
    assert bad.actual == 100.5 and bad.expected == 100.0 and bad.abs_error == pytest.approx(0.5)
    assert "1 of 5 elements differ" in bad.describe() and "worst at [4]" in bad.describe()
    assert compare("out0", a, e, "f32", rtol=1e-2, atol=0).ok
    nan_moved = np.array([1.0, 2.0, 3.0, np.inf, 100.0], np.float32)
    assert not compare("out0", nan_moved, e, "f32", rtol=1, atol=1).ok


def test_an_infinite_expected_value_matches_only_itself() -> None:
    """inf * rtol was the tolerance: any finite value 'matched' an expected -inf (found when a
    flushed log gave -inf in XLA and -713.8 here and hlo-run --expected said match)."""
    e = np.array([-np.inf, np.inf, 1.0], np.float32)
    for rtol, atol in ((0.0, 0.0), (1e-5, 1e-6), (1.0, 1.0)):
        c = compare("out0", np.array([-713.0, np.inf, 1.0], np.float32), e, "f32", rtol=rtol, atol=atol)
        assert not c.ok and c.mismatches == 1 and c.worst_index == (0,) and c.rel_error == float("inf")
        assert not compare("out0", np.array([-np.inf, -np.inf, 1.0], np.float32), e, "f32", rtol=rtol, atol=atol).ok
        assert compare("out0", e.copy(), e, "f32", rtol=rtol, atol=atol).ok


def test_compare_integers_exactly() -> None:
    e = np.array([[1, 2], [3, 4]], np.int32)
    a = e.copy()
    a[1, 0] = 5
    c = compare("out1", a, e, "s32", rtol=1, atol=10)
    assert not c.ok and c.worst_index == (1, 0) and c.actual == 5 and c.expected == 3
    assert compare("p", np.array([True]), np.array([True]), "pred").ok


def test_summary_and_literal_text() -> None:
    x = np.array([[1.0, np.nan], [-3.0, 4.0]], np.float32)
    s = summarize("out0", x, "f32[2,2]")
    assert (s.min, s.max, s.mean, s.nan_count) == (-3.0, 4.0, pytest.approx(2 / 3), 1)
    assert s.values_text() == "[1, nan, -3, 4]"
    assert literal_text(np.array([1, 2], np.float32), arr(F32, 2)) == "f32[2]{0} {1, 2}"
    assert literal_text(np.float32(2.5).reshape(()), arr(F32)) == "f32[] 2.5"


def test_literal_text_files_round_trip(tmp_path: Path) -> None:
    from hlotools.io.literal_text import parse_literal_lines

    text = ("// results\nf32[2]{0} {1.5, -2}\n\ns32[] 7\n(pred[2], bf16[]) ({1, 0}, 0.5)\n"
            "f32[2] {3, 4}\n")
    a, b, c, d, e = parse_literal_lines(text, "l.txt")
    assert a.dtype == np.float32 and a.tolist() == [1.5, -2.0]
    assert b.dtype == np.int32 and int(b) == 7 and b.shape == ()
    assert c.tolist() == [True, False] and d.dtype == ml_dtypes.bfloat16 and float(d) == 0.5
    assert e.tolist() == [3.0, 4.0]  # no layout: the braces are the values
    printed = literal_text(a, arr(F32, 2))
    (back,) = parse_literal_lines(printed, "p.txt")
    assert np.array_equal(back, a)
    with pytest.raises(HloError) as err:
        parse_literal_lines("f32[2] {1, 2}\ns32[] 3x\n", "bad.txt")
    assert err.value.format().splitlines()[0].startswith("bad.txt:2:7: error: ")
    with pytest.raises(HloError, match="expected a literal 'SHAPE VALUES'"):
        parse_literal_lines("f32[2 {1, 2}\n", "bad.txt")
    (tmp_path / "lits.txt").write_text(text)
    assert [x.key for x in read_arrays([str(tmp_path / "lits.txt")])] == [None] * 5
