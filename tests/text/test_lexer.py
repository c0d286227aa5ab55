"""Lexical corners where XLA's lexer decides (hlo_lexer.cc), each pinned so it cannot drift:
comments between a shape and its layout, decimal-only integers with leading zeros, and where a
NUL byte is an error (everywhere but inside a quoted string, which XLA matches with RE2)."""
from __future__ import annotations

import pytest

import hlotools
from hlotools.errors import HloError, HloParseError
from hlotools.ir.shape import Layout
from hlotools.text.parser import parse


def _entry_root(text: str):  # -> Instruction
    m = parse(text)
    assert m.entry is not None and m.entry.root is not None
    return m.entry.root


@pytest.mark.parametrize("gap", [" /*c*/ ", "/*c*/", " // to the end of the line\n ", "\n/* a */ /* b */"])
def test_comment_between_shape_and_layout_keeps_the_layout(gap: str) -> None:
    root = _entry_root(f"ENTRY e {{\n  ROOT p = f32[2,3]{gap}{{0,1}} parameter(0)\n}}\n")
    assert root.shape.layout == Layout((0, 1), "")


def test_comment_inside_layout_and_in_operand_shapes() -> None:
    text = ("ENTRY e {\n  p = f32[2,3] /*x*/ {0,1} parameter(0)\n"
            "  ROOT n = f32[2,3]{ /*q*/ 0,1} negate(f32[2,3] /*y*/ {0,1} p)\n}\n")
    m = hlotools.parse_module(text)
    assert "ROOT n = f32[2,3]{0,1} negate(p)" in hlotools.print_module(m)


def test_comments_inside_shapes_of_attribute_values() -> None:
    text = ('ENTRY e {\n  p = f32[2,3]{0,1} parameter(0)\n  ROOT c = f32[2,3]{0,1} custom-call(p), '
            'custom_call_target="foo", operand_layout_constraints={ /*0*/ f32[2,3] /*c*/ {0,1}}\n}\n')
    m = hlotools.parse_module(text)
    assert m.entry is not None and m.entry.root is not None
    constraints = m.entry.root.attrs["operand_layout_constraints"]
    assert constraints.text == "{ /*0*/ f32[2,3] /*c*/ {0,1}}"
    assert [s.to_text(True) for s in constraints.shapes] == ["f32[2,3]{0,1}"]


def test_brace_after_a_comment_that_is_not_a_layout_stays_an_operand_list() -> None:
    """`{` is a layout only when a digit or ':' follows it (comments skipped), as XLA's LookAhead."""
    root = _entry_root("ENTRY e {\n  ROOT c = f32[2] /*c*/ constant({1, 2})\n}\n")
    assert root.literal is not None and root.literal.array.tolist() == [1.0, 2.0]


def test_a_comment_inside_a_body_brace_is_not_read_as_a_layout() -> None:
    """`-> f32[2] {` then `// CHECK: ...`: the ':' inside the comment must not make `{` a layout
    (the lexer never backtracks into a comment; XLA's corpus has FileCheck lines like this)."""
    text = "ENTRY e () -> f32[2] {\n  // CHECK: [[X:%.*]] = 0\n  ROOT c = f32[2] constant({1, 2})\n}\n"
    assert _entry_root(text).opcode == "constant"


@pytest.mark.parametrize("literal, values", [("010", [10]), ("{010, -007, 0}", [10, -7, 0])])
def test_integers_with_leading_zeros_are_decimal(literal: str, values: list[int]) -> None:
    dims = "" if literal.isdigit() else "3"
    root = _entry_root(f"ENTRY e {{\n  ROOT c = s32[{dims}] constant({literal})\n}}\n")
    assert root.literal is not None and root.literal.array.reshape(-1).tolist() == values


@pytest.mark.parametrize("shape, literal, col", [("s32[]", "0x1F", 27), ("pred[]", "0x1", 28),
                                                 ("u8[2]", "{1, 0xff}", 31)])
def test_hex_integers_are_rejected_like_xla(shape: str, literal: str, col: int) -> None:
    """XLA lexes `0x1F` as the window pattern `0x1` and then `F`: never an integer."""
    with pytest.raises(HloParseError) as exc:
        parse(f"ENTRY e {{\n  ROOT c = {shape} constant({literal})\n}}\n")
    assert "expects integer for primitive type" in exc.value.message
    assert (exc.value.line, exc.value.column) == (2, col)


@pytest.mark.parametrize("literal, ok", [(".5", False), ("{1, .5}", False), ("(.5, 1)", False), ("-.5", True),
                                         ("5.", True), ("1e5", True), ("+1", False)])
def test_a_number_starts_with_a_digit_or_minus(literal: str, ok: bool) -> None:
    """XLA's lexer starts a number only at a digit or '-', so `.5` and `+1` are errors."""
    ty = "c64" if literal.startswith("(") else "f32"
    dims = "[2]" if literal.startswith("{") else "[]"
    text = f"ENTRY e {{\n  ROOT c = {ty}{dims} constant({literal})\n}}\n"
    if ok:
        assert parse(text).entry is not None
    else:
        with pytest.raises(HloParseError, match="expect"):
            parse(text)


def test_a_float_attribute_starts_with_a_digit_or_minus() -> None:
    body = ("  x = f32[2,3] parameter(0)\n  s = f32[3] parameter(1)\n  o = f32[3] parameter(2)\n"
            "  ROOT b = (f32[2,3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=%s, feature_index=1")
    assert parse("ENTRY e {\n" + body % "0.001" + "\n}\n").entry is not None
    with pytest.raises(HloParseError, match="epsilon"):
        parse("ENTRY e {\n" + body % ".001" + "\n}\n")


@pytest.mark.parametrize("text, where", [
    ("ENTRY e {\n  // a\0b\n  ROOT p = f32[2] parameter(0)\n}\n", (2, 7)),
    ("ENTRY e {\n  /* it's \0 */\n  ROOT p = f32[2] parameter(0)\n}\n", (2, 11)),
    ("ENTRY e {\n  ROOT p = f32[2] /*\0*/ parameter(0)\n}\n", (2, 21)),
    ("ENTRY e {\n  ROOT p = f32[2] parameter(0)\0\n}\n", (2, 31)),
])
def test_nul_outside_strings_is_an_error_at_the_byte(text: str, where: tuple[int, int]) -> None:
    with pytest.raises(HloParseError) as exc:
        parse(text)
    assert exc.value.message == "NUL character in the input"
    assert (exc.value.line, exc.value.column) == where


def test_nul_inside_a_string_is_kept() -> None:
    text = 'ENTRY e {\n  ROOT p = f32[2] parameter(0), metadata={op_name="a\0b"}\n}\n'
    printed = hlotools.print_module(hlotools.parse_module(text))
    assert 'op_name="a\0b"' in printed
    assert hlotools.print_module(hlotools.parse_module(printed)) == printed


def test_lexical_errors_are_hlo_errors() -> None:
    for text in ("ENTRY e {\n  ROOT c = s32[] constant(0x)\n}\n", "ENTRY e {\n  ROOT c = s32[] constant(00x1)\n}\n"):
        with pytest.raises(HloError):
            parse(text)
