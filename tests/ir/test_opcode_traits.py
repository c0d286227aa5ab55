"""The traits of the opcode table (ir/opcodes.py) hold, and the code reads them instead of
restating them: reducer identities are neutral bit for bit per dtype, each trait is consistent
with the rest of the table, and every string compared with an `.opcode` is an opcode."""
from __future__ import annotations

import ast
import math

import ml_dtypes
import numpy as np
import pytest

from hlotools.ir import semantics
from hlotools.ir.opcodes import (
    COMPUTATION_ATTRS,
    COMPUTATION_LIST_ATTRS,
    CONTROL_FLOW,
    OPCODE_ATTRIBUTES,
    OPCODES,
    OPERAND_TYPES,
    REDUCERS,
    computation_attributes,
    reducer_identity,
)
from hlotools.ir.types import ELEMENT_TYPES
from tests.support.paths import ROOT
from tests.support.runner import binary

PACKAGE = ROOT / "hlotools"

# -- reducer identities, numerically ----------------------------------------------------------

_FLOATS = ("f16", "bf16", "f32", "f64")
_INTS = ("s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64")
_COMPLEX = ("c64", "c128")


def _float_spread(dtype: np.dtype) -> np.ndarray:
    fi = ml_dtypes.finfo(dtype)
    tiny, big = float(fi.smallest_normal), float(fi.max)
    values = [-0.0, 0.0, 1.0, -1.5, 3.0e-3, tiny, -tiny, tiny / 4, -tiny / 4, big, -big, math.inf, -math.inf,
              math.nan, -math.nan]
    return np.asarray(values, dtype=np.float64).astype(dtype)


def _int_spread(dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    values = {0, 1, 2, info.max, info.min, info.max - 1, info.min + 1, info.max // 3}
    if info.min < 0:
        values |= {-1, -2, info.min // 3}
    return np.asarray(sorted(values), dtype=dtype)


def _complex_spread(op: str, dtype: np.dtype) -> np.ndarray:
    parts = [-0.0, 0.0, 1.0, -2.5, math.inf, -math.inf] if op == "add" else [1.0, -2.5, 3.0e-3, 7.0e10]
    return np.asarray([complex(a, b) for a in parts for b in parts], dtype=dtype)


def _identity_array(op: str, name: str, n: int) -> np.ndarray:
    et = ELEMENT_TYPES[name]
    dtype = et.dtype
    assert dtype is not None
    return np.full(n, reducer_identity(op, et.kind, et.bits), dtype=dtype)


def _assert_neutral(op: str, name: str, x: np.ndarray) -> None:
    e = _identity_array(op, name, x.size)
    for left, right in ((e, x), (x, e)):
        with semantics.using("spec"):  # spec semantics: denormals are not flushed
            out = binary(op, name, left, right)
        assert out.dtype == x.dtype
        if x.dtype.kind == "c":
            for part in ("real", "imag"):
                got, want = np.ascontiguousarray(getattr(out, part)), np.ascontiguousarray(getattr(x, part))
                nan = np.isnan(want)
                assert np.all(np.isnan(got[nan]))
                assert np.array_equal(got[~nan].view(f"u{got.itemsize}"), want[~nan].view(f"u{want.itemsize}")), \
                    (op, name, part, got, want)
            continue
        if x.dtype.kind in "biu":
            assert np.array_equal(out, x), (op, name, out, x)
            continue
        nan = np.isnan(x.astype(np.float64))
        assert np.all(np.isnan(out[nan].astype(np.float64))), (op, name, "a NaN operand gives NaN")
        width = f"u{x.dtype.itemsize}"
        assert np.array_equal(out[~nan].view(width), x[~nan].view(width)), (op, name, out, x)


_CASES = ([(op, t) for op in REDUCERS if REDUCERS[op].floating is not None for t in _FLOATS]
          + [(op, t) for op in REDUCERS for t in _INTS + ("pred",)]
          + [(op, t) for op in ("add", "multiply") for t in _COMPLEX])


@pytest.mark.parametrize(("op", "name"), _CASES, ids=[f"{op}-{t}" for op, t in _CASES])
def test_reducer_identity_is_neutral_bit_for_bit(op: str, name: str) -> None:
    """op(e, x) == x == op(x, e) bitwise on the interpreter's own op, for -0, denormals, the
    extremes and infinities; a NaN stays NaN (complex multiply: finite nonzero parts)."""
    dtype = ELEMENT_TYPES[name].dtype
    assert dtype is not None
    if name == "pred":
        x = np.array([False, True])
    elif name in _INTS:
        x = _int_spread(np.dtype(dtype))
    elif name in _COMPLEX:
        x = _complex_spread(op, np.dtype(dtype))
    else:
        x = _float_spread(np.dtype(dtype))
    _assert_neutral(op, name, x)


def test_identities_that_matter_are_pinned() -> None:
    """The values XLA uses, stated independently of the table (-0 for float add, all ones for and)."""
    assert math.copysign(1.0, reducer_identity("add", "float", 32)) == -1.0
    assert reducer_identity("add", "complex", 64) == 0 and str(reducer_identity("add", "complex", 64)) == "(-0-0j)"
    assert reducer_identity("and", "signed", 8) == -1 and reducer_identity("and", "unsigned", 16) == 0xFFFF
    assert reducer_identity("maximum", "signed", 32) == -(2 ** 31) and reducer_identity("minimum", "unsigned", 8) == 255
    assert reducer_identity("maximum", "float", 64) == -math.inf and reducer_identity("minimum", "pred", 1) is True
    with pytest.raises(ValueError):
        reducer_identity("xor", "float", 32)


def test_reducer_algebra_is_consistent() -> None:
    for name, r in REDUCERS.items():
        info = OPCODES[name]
        assert info.commutative and info.arity == 2 and info.category == "binary", name
        assert hasattr(np, r.ufunc) and hasattr(np, r.pred_ufunc), name
        if r.dual:
            assert REDUCERS[r.dual].dual == name, "duals come in pairs"
        if r.floating is None:
            assert info.operand_types == "int_or_pred", name  # a bit operation: no float form
        assert not r.exact_for_floats or r.exact_for_ints, name
    assert set(REDUCERS) == {"add", "multiply", "maximum", "minimum", "and", "or", "xor"}
    assert [n for n, r in REDUCERS.items() if r.exact_for_floats] == ["maximum", "minimum"]
    assert [n for n, r in REDUCERS.items() if r.negative_zero] == ["add"]
    assert [n for n, r in REDUCERS.items() if r.idempotent] == ["maximum", "minimum", "and", "or"]


# -- the other traits are consistent with the table ---------------------------------------------

def test_every_opcode_calling_computations_says_in_which_context() -> None:
    """An opcode whose attributes name computations has `calls`, and only those (XLA's CallContext)."""
    for name, info in OPCODES.items():
        assert bool(computation_attributes(name)) == bool(info.calls), name
    control = {n for n, i in OPCODES.items() if i.calls == CONTROL_FLOW}
    assert control == {"call", "while", "conditional", "async-start", "async-update", "async-done"}
    named = {a for req, opt in OPCODE_ATTRIBUTES.values() for a in req | opt}
    assert set(COMPUTATION_ATTRS + COMPUTATION_LIST_ATTRS) <= named


def test_async_forms() -> None:
    """Every `<op>-start`/`<op>-done` opcode belongs to a native-async op, and the async wrappers
    carry the suffixes of the sugar."""
    for name in OPCODES:
        for suffix in ("-start", "-done"):
            base = name[: -len(suffix)]
            if name.endswith(suffix) and base in OPCODES:
                assert OPCODES[base].native_async, f"{base} has {name} but is not native_async"
    for name, info in OPCODES.items():
        if info.native_async:
            done = name + "-done"
            assert done in OPCODES and (name + "-start" in OPCODES or info.category == "collective"), name
    assert {i.async_suffix: n for n, i in OPCODES.items() if i.async_suffix} == {
        "-start": "async-start", "-update": "async-update", "-done": "async-done"}


def test_transcendental_ops_take_result_accuracy() -> None:
    transcendental = {n for n, i in OPCODES.items() if i.transcendental}
    assert len(transcendental) == 20
    assert transcendental == {n for n, (req, opt) in OPCODE_ATTRIBUTES.items() if "result_accuracy" in opt}
    assert all(OPCODES[n].expensive and OPCODES[n].operand_types == "float_or_complex" for n in transcendental)


def test_operand_types_and_other_flags() -> None:
    for name, info in OPCODES.items():
        assert info.operand_types in OPERAND_TYPES, name
        if info.operand_types:
            assert info.is_elementwise, name
        if info.one_dimension:
            req, opt = OPCODE_ATTRIBUTES[name]
            assert "dimensions" in req | opt, name
        if info.passthrough:
            assert info.category in ("data", "misc") and not info.expensive, name
    assert {n for n, i in OPCODES.items() if i.passthrough} == {
        "tuple", "get-tuple-element", "bitcast", "opt-barrier", "domain", "add-dependency"}
    assert {n for n, i in OPCODES.items() if i.reuses_operand_elements} == {
        "dot", "convolution", "reduce-window", "select-and-scatter"}
    assert {n for n, i in OPCODES.items() if i.one_dimension} == {
        "all-gather", "all-gather-start", "reduce-scatter", "sort", "concatenate", "get-dimension-size",
        "set-dimension-size"}


# -- every string compared with .opcode is an opcode ----------------------------------------------

def _strings(node: ast.AST, consts: dict[str, list[str]]) -> list[str]:
    """The string constants a comparison's other side holds (literals, sets, named module constants)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for e in node.elts for s in _strings(e, consts)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple"):
        return _strings(node.args[0], consts) if node.args else []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "split" \
            and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str):
        return node.func.value.value.split()
    if isinstance(node, ast.Name):
        return consts.get(node.id, [])
    if isinstance(node, ast.BinOp):
        return _strings(node.left, consts) + _strings(node.right, consts)
    if isinstance(node, ast.Dict):
        return [s for k in node.keys if k is not None for s in _strings(k, consts)]
    return []


def _module_constants(tree: ast.Module) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for st in tree.body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None:
            for t in st.targets if isinstance(st, ast.Assign) else [st.target]:
                if isinstance(t, ast.Name):
                    out[t.id] = _strings(st.value, out)
    return out


def opcode_strings(source: str) -> list[tuple[int, str]]:
    """(line, string) for every string compared with an opcode in `source`: `x.opcode == "s"`,
    `!=`, `in (...)`/`{...}`/a named module constant, also through `op = x.opcode` or an `opcode`
    variable."""
    tree = ast.parse(source)
    consts = _module_constants(tree)
    found: set[tuple[int, str]] = set()
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        aliases = {"opcode"} | {t.id for n in ast.walk(scope) if isinstance(n, ast.Assign)
                                and isinstance(n.value, ast.Attribute) and n.value.attr == "opcode"
                                for t in n.targets if isinstance(t, ast.Name)}

        def is_opcode(node: ast.AST, aliases: set[str] = aliases) -> bool:
            return isinstance(node, ast.Attribute) and node.attr == "opcode" or \
                isinstance(node, ast.Name) and node.id in aliases
        for node in ast.walk(scope):
            if not isinstance(node, ast.Compare):
                continue
            sides = [node.left, *node.comparators]
            for a, op, b in zip(sides, node.ops, sides[1:]):
                pairs = [(a, b), (b, a)] if isinstance(op, (ast.Eq, ast.NotEq)) else [(a, b)]
                for lhs, rhs in pairs:
                    if is_opcode(lhs) and isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
                        found.update((node.lineno, s) for s in _strings(rhs, consts))
    return sorted(found)


def test_every_string_compared_with_an_opcode_is_an_opcode() -> None:
    checked = 0
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line, s in opcode_strings(path.read_text()):
            checked += 1
            if s not in OPCODES:
                violations.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {s!r}")
    assert checked > 500  # the walk does find the comparisons (762 distinct ones when written)
    assert violations == []


def test_the_opcode_string_check_can_fail() -> None:
    src = '''
NAMES = frozenset({"tuple", "get-tuple-elment"})
def f(inst, other):
    op = inst.opcode
    return op == "bitcats" or inst.opcode in NAMES or other.opcode in ("add", "mul")
'''
    assert {s for _, s in opcode_strings(src)} - set(OPCODES) == {"get-tuple-elment", "bitcats", "mul"}


@pytest.mark.parametrize("op", list(REDUCERS))
def test_idempotent_reducers(op: str) -> None:
    """f(a, a) = a exactly for the idempotent ones (an init applied twice changes nothing), and
    not for the others (XLA CPU's tree applies a non-identity init more than once)."""
    x = _int_spread(np.dtype(np.int32))
    same = np.array_equal(binary(op, "s32", x, x), x)
    assert same == REDUCERS[op].idempotent
