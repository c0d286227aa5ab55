"""Bad input that used to hang, exhaust memory or end in a traceback: a located one-line HloError now.

Each class is tested in general (several spellings, both parser paths where they differ), on
tiny texts: huge or non-contiguous parameter numbers, zero-filled constants far larger than
their text, dimensions and element counts beyond int64, deep tuple and operand nesting, long
lines and control characters in error messages, layout text that would not print back. The
fast literal path is checked against the exact walk value for value; printing anything the
parser accepts must give text that parses to the same print.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from hlotools import parse_module
from hlotools.errors import HloError, HloParseError
from hlotools.ir.shape import Shape
from hlotools.ir.types import ELEMENT_TYPES, MAX_TUPLE_DEPTH, shape_size_error
from hlotools.text import parse_literal_fast
from hlotools.text.parse_literal import LiteralError, parse_literal
from hlotools.text.parser import parse
from hlotools.text.printer import print_module
from tests.text.test_parser_fuzz import mutated, time_limit


def module(root: str, *before: str) -> str:
    body = "".join(f"  {line}\n" for line in before)
    return f"HloModule m\nENTRY e {{\n{body}  ROOT {root}\n}}\n"


def parse_error(text: str) -> HloParseError:
    with time_limit(20):
        with pytest.raises(HloParseError) as exc:
            parse(text, "bad.hlo")
    e = exc.value
    assert e.line is not None and e.column is not None, e.format()
    return e


# -- 1. parameter numbers ------------------------------------------------------------------------

@pytest.mark.parametrize("number", ["1", "2", "7", "2147483648", "9223372036854775807", "18446744073709551616"])
def test_parameter_number_beyond_the_count_is_refused_before_padding(number: str) -> None:
    e = parse_error(module(f"p = f32[] parameter({number})"))
    assert f"invalid parameter number {number}" in e.message
    assert "Expected [0, 1)" in e.message
    assert (e.line, e.column) == (3, 28)


def test_parameter_gap_names_the_count() -> None:
    e = parse_error(module("b = f32[] parameter(2)", "a = f32[] parameter(0)"))
    assert "Expected [0, 2), got 2" in e.message and e.line == 4


def test_parameter_count_includes_nested_operands_and_inner_computations() -> None:
    text = """HloModule m
add {
  x = f32[] parameter(0)
  ROOT s = f32[] add(x, f32[] parameter(1))
}
ENTRY e {
  a = f32[] parameter(0)
  ROOT r = f32[] call(a, a), to_apply=add
}
"""
    m = parse(text)
    assert len(m.computations[0].parameters) == 2
    bad = text.replace("parameter(1)", "parameter(3)")
    assert "Expected [0, 2), got 3" in parse_error(bad).message


# -- 2. zero-filled constants ---------------------------------------------------------------------

@pytest.mark.parametrize("text", ["s32[536870912] constant(7)", "f64[100000,100000] constant(0)",
                                  "pred[1000000000] constant(1)", "u8[100000000] constant(1)"])
def test_zero_fill_beyond_the_cap_is_refused_naming_the_constant(text: str) -> None:
    e = parse_error(module(f"c = {text}"))
    assert e.message.startswith(f"constant c ({text.split(' ')[0]}): the text gives 1 of the constant's ")
    assert "HLOTOOLS_MAX_CONSTANT_FILL_BYTES" in e.message


def test_zero_fill_under_the_cap_still_zero_fills_as_xla() -> None:
    m = parse(module("c = s32[2,3] constant(7)"))
    assert m.entry is not None and m.entry.root is not None and m.entry.root.literal is not None
    assert m.entry.root.literal.value().tolist() == [[7, 0, 0], [0, 0, 0]]  # XLA's own result


def test_zero_fill_cap_is_configurable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HLOTOOLS_MAX_CONSTANT_FILL_BYTES", "1K")
    parse(module("c = s32[257] constant(7)"))  # 1024 bytes of fill
    assert "raise it with" in parse_error(module("c = s32[258] constant(7)")).message


def test_spelled_out_values_are_never_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HLOTOOLS_MAX_CONSTANT_FILL_BYTES", "0")
    body = ", ".join(str(i) for i in range(3000))
    m = parse(module(f"c = s32[3000] constant({{{body}}})"))
    assert m.entry is not None and m.entry.root is not None and m.entry.root.literal is not None
    assert m.entry.root.literal.value()[-1] == 2999


# -- 3. dimensions beyond int64 -------------------------------------------------------------------

@pytest.mark.parametrize(("shape", "what"), [
    ("f32[9223372036854775808]", "does not fit in int64"),
    ("f32[1,99999999999999999999]", "does not fit in int64"),
    ("f32[2,9223372036854775807]", "element count"),
    ("f32[4294967296,4294967296]", "element count"),
    ("f32[9223372036854775807]", "byte size"),  # XLA: "size may overflow int64_t"
    ("f32[<=9223372036854775808]", "does not fit in int64"),
])
def test_dimensions_beyond_int64_are_located_errors(shape: str, what: str) -> None:
    for text in (module(f"p = {shape} parameter(0)"), module(f"c = {shape} constant(256)"),
                 module("c = f32[] constant(1)", f"p = {shape} parameter(0)")):
        e = parse_error(text)
        assert what in e.message and shape in e.message, e.message


def test_parse_module_raises_hlo_error_for_the_bare_value_error_case() -> None:
    with pytest.raises(HloError) as exc:
        parse_module(module("c = f32[2,9223372036854775807] constant(256)"), "x.hlo")
    assert exc.value.location is not None and str(exc.value.location) == "x.hlo:3:16"


def test_largest_valid_dimensions_still_parse() -> None:
    parse(module("p = s8[9223372036854775807] parameter(0)"))  # 2^63-1 bytes: fits, as in XLA
    assert shape_size_error((3037000499, 3037000499), 8, "s") is None
    assert shape_size_error((3037000500, 3037000500), 8, "s") is not None


# -- 4. deep nesting -------------------------------------------------------------------------------

def _tuple(depth: int) -> str:
    return "(" * depth + "f32[]" + ")" * depth


@pytest.mark.parametrize("depth", [MAX_TUPLE_DEPTH + 1, 100_000])
def test_deep_tuple_shapes_are_refused_with_a_place(depth: str) -> None:
    for text in (module(f"p = {_tuple(depth)} parameter(0)"),
                 module(f"o = token[] outfeed(c, t), outfeed_shape={_tuple(depth)}",
                        "t = token[] after-all()", "c = f32[] constant(1)"),
                 f"HloModule m\nENTRY e (p: {_tuple(depth)}) -> f32[] {{\n  p = {_tuple(depth)} parameter(0)\n"
                 "  ROOT c = f32[] constant(1)\n}\n"):
        assert "nested more than" in parse_error(text).message


def test_tuple_depth_at_the_limit_parses_prints_and_verifies() -> None:
    text = module(f"p = {_tuple(MAX_TUPLE_DEPTH)} parameter(0)")
    m = parse_module(text)
    assert parse(print_module(m)).entry is not None


def test_deep_inferred_tuples_are_refused() -> None:
    lines = ["x0 = f32[] constant(1)"] + [f"x{i} = tuple(x{i - 1})" for i in range(1, 300)]
    e = parse_error(module("r = tuple(x299)", *lines))
    assert "nested more than" in e.message and e.line == 3 + MAX_TUPLE_DEPTH + 1


@pytest.mark.parametrize("depth", [102, 100_000])  # the outer negate is the instruction itself
def test_deep_nested_operands_are_refused_with_a_place(depth: int) -> None:
    text = module("c = f32[] " + "negate(f32[] " * depth + "constant(1)" + ")" * depth)
    assert "operands nested more than 100 levels" in parse_error(text).message


def test_deep_literal_nesting_is_an_error_not_a_recursion() -> None:
    for literal in ("(" * 100_000 + "1" + ")" * 100_000, "{" * 100_000 + "1" + "}" * 100_000):
        parse_error(module(f"c = f32[1] constant({literal})"))
    parse_error(module(f"c = {_tuple(3)} constant({'(' * 100_000})"))
    parse_error(module(f"c = {_tuple(3)} constant({'(' * 100_000 + '1' + ')' * 100_000})"))


# -- 5. large literals: the numpy fast path agrees with the exact walk ------------------------------

def _slow(text: str, shape: Shape) -> np.ndarray | LiteralError | None:
    """The exact walk's reading (None: elided)."""
    saved = parse_literal_fast.MIN_FAST_CHARS
    from hlotools.text import parse_literal as pl
    try:
        pl.MIN_FAST_CHARS = 1 << 62  # type: ignore[attr-defined]
        return parse_literal(text, shape).array
    except LiteralError as e:
        return e
    finally:
        pl.MIN_FAST_CHARS = saved  # type: ignore[attr-defined]


def _shape(name: str, dims: tuple[int, ...]) -> Shape:
    return Shape.array(ELEMENT_TYPES[name], dims).with_default_layout()


def _nested(values: list[str], dims: tuple[int, ...]) -> str:
    if len(dims) == 1:
        return "{" + ", ".join(values) + "}"
    step = len(values) // dims[0]
    return "{ " + ", ".join(_nested(values[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])) + " }"


@pytest.mark.parametrize("type_name", ["f32", "f64", "f16", "bf16", "s8", "s32", "s64", "u8", "u64", "pred"])
@pytest.mark.parametrize("dims", [(600,), (20, 30), (4, 5, 30)])
def test_fast_path_values_equal_the_exact_walk(type_name: str, dims: tuple[int, ...]) -> None:
    rng = np.random.default_rng(hash((type_name, dims)) % (1 << 32))
    n = int(np.prod(dims))
    if type_name.startswith("f") or type_name == "bf16":
        span = 3 if type_name == "f16" else 30  # within the type's range: the exact path reports others
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-span, span, n)
        values = [f"{v:.{int(rng.integers(1, 20))}g}" for v in x]
        values[:7] = ["5.", "-.5", "1e3", "-0", "inf", "-inf", "nan"]
    elif type_name == "pred":
        values = [str(int(v)) for v in rng.integers(-3, 3, n)]
    else:
        info = np.iinfo(ELEMENT_TYPES[type_name].dtype)
        lo, hi = max(int(info.min), -10**17), min(int(info.max), 10**17)
        values = [str(v) for v in rng.integers(lo, hi, n, endpoint=True)]
        values[0] = "007"
    shape = _shape(type_name, dims)
    text = _nested(values, dims)
    fast = parse_literal_fast.fast_dense(text, shape)
    assert fast is not None, "the well-formed case must take the fast path"
    slow = _slow(text, shape)
    assert isinstance(slow, np.ndarray)
    assert fast.reshape(dims).tobytes() == np.ascontiguousarray(slow).tobytes()


@pytest.mark.parametrize("edit", [
    lambda s: s[:-1],  # unbalanced
    lambda s: s + "}",
    lambda s: "{" + s + "}",  # nesting deeper than the rank
    lambda s: s.replace("{", "", 2),
    lambda s: s.replace(", 1", ", 1 2", 1),  # one value too many in a row
    lambda s: s.replace(", 1", "", 1),  # one value too few
    lambda s: s.replace(", 1", ", .5", 1),  # XLA reads a number only from a digit or '-'
    lambda s: s.replace(", 1", ", 0x1", 1),
    lambda s: s.replace(", 1", ", 1e999", 1),  # out of double's range
    lambda s: s.replace(", 1", ", 1e39", 1),  # out of f32's range
    lambda s: s.replace(", 1", ", +1", 1),
    lambda s: s.replace(", 1", ", inf", 1),
    lambda s: s.replace(", 1", ", -nan", 1),  # its sign bit: the exact path
    lambda s: s.replace(", 1", ", nan(0x1)", 1),
    lambda s: s.replace(", 1", ", INF", 1),  # numpy would read it; XLA does not
    lambda s: s.replace(", 1", ", infinity", 1),
    lambda s: s.replace(", 1", ", /*c*/ 1", 1),
    lambda s: s.replace(", 1", ", \u00a01", 1),
    lambda s: s + " 1",
    lambda s: s.replace("{", "{...", 1),
])
def test_fast_path_declines_what_it_does_not_read_exactly(edit: object) -> None:
    dims = (10, 60)
    text = _nested(["1"] * 600, dims)
    shape = _shape("f32", dims)
    assert parse_literal_fast.fast_dense(text, shape) is not None
    bad = edit(text)  # type: ignore[operator]
    fast = parse_literal_fast.fast_dense(bad, shape)
    slow = _slow(bad, shape)
    if fast is not None:  # the fast path may only accept what the walk accepts, with equal values
        assert isinstance(slow, np.ndarray) and fast.reshape(dims).tobytes() == slow.tobytes()
    if isinstance(slow, LiteralError):
        assert fast is None


def test_fast_path_declines_out_of_range_integers() -> None:
    for name, value in (("s8", "128"), ("u8", "256"), ("u32", "-1"), ("s64", "9223372036854775808")):
        shape = _shape(name, (600,))
        text = "{" + ", ".join(["1"] * 599 + [value]) + "}"
        assert parse_literal_fast.fast_dense(text, shape) is None
        with pytest.raises(LiteralError, match="out of range"):
            parse_literal(text, shape)


def test_a_million_value_literal_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The work done, not the time: the token-at-a-time walk is never entered."""
    from hlotools.text import parse_literal as pl

    def walk(*args: object) -> object:
        raise AssertionError("the exact walk ran for a well-formed literal")
    monkeypatch.setattr(pl, "_walk", walk)
    values = np.arange(1_000_000, dtype=np.int64) % 1000 - 500
    text = module("c = s32[1000,1000] constant(" + _nested([str(v) for v in values], (1000, 1000)) + ")")
    m = parse(text)
    assert m.entry is not None and m.entry.root is not None and m.entry.root.literal is not None
    assert np.array_equal(m.entry.root.literal.value().reshape(-1), values)


# -- 6. error messages: bounded, escaped ------------------------------------------------------------

def test_a_line_of_nul_bytes_is_quoted_as_a_short_escaped_window() -> None:
    e = parse_error("\0" * 1_000_000)
    shown = e.format()
    assert len(shown) < 1000 and "\0" not in shown and "\\x00" in shown
    assert shown.splitlines()[0] == "bad.hlo:1:1: error: NUL character in the input"


def test_the_caret_stays_under_the_error_in_a_long_line() -> None:
    text = module("c = f32[100004] constant({1, 2, " + "3, " * 100_000 + "})")
    e = parse_error(text)
    assert "but sees 100002" in e.message
    head, line, caret = e.format().splitlines()
    assert len(line) <= 2 * 100 + 6 and line.startswith("...") and line.endswith("})")
    assert line[caret.index("^")] == "}"


def test_control_characters_in_the_source_line_keep_the_caret_aligned() -> None:
    text = module("c = f32[] constant(1)\x01\x02 x")
    shown = parse_error(text).format().splitlines()
    line, caret = shown[1], shown[2]
    assert "\x01" not in line and "\\x01\\x02" in line
    assert line[caret.index("^"):].startswith("x") or line[caret.index("^"):].startswith("\\x01")


def test_line_numbers_count_only_real_line_breaks() -> None:
    """\\f and U+2028 are no line breaks for the lexer, so the quoted line must not split there."""
    text = "HloModule m\nENTRY e {\n  a = f32[] constant(1) /*\x0c\u2028*/\n  ROOT b = f32[] add(a, q)\n}\n"
    shown = parse_error(text).format().splitlines()
    assert shown[0].startswith("bad.hlo:4:") and "add(a, q)" in shown[1]


def test_long_messages_are_cut() -> None:
    e = HloError("x" * 10_000 + "\x07", 1, 1, "f", "abc")
    assert len(e.format()) < 1200


# -- 7. what the parser accepts prints back as text that parses -------------------------------------

@pytest.mark.parametrize("layout", ['T(8,"128)', "T(8,x)", "T(8,128", "SC(a)", "T(8)(", "T(8,,1)"])
def test_malformed_layout_extras_are_refused(layout: str) -> None:
    parse_error(module(f"p = f32[8,128]{{1,0:{layout}}} parameter(0)"))


@pytest.mark.parametrize("layout", ["T(8,128)", "T(8,128)(2,1)S(1)", "T(*,128)", "T()", "SC(0:1,2)", "T(8)L(1024)",
                                    "E(4)S(5)", "D(D,C)P(f32[10,10]{1,0:T(8)})M(1)"])
def test_layout_extras_round_trip(layout: str) -> None:
    dims = "10,10" if "P(" in layout else "8,128"
    text = module(f"p = f32[{dims}]{{1,0:{layout}}} parameter(0)")
    printed = print_module(parse(text))
    assert f"{{1,0:{layout}}}" in printed
    assert print_module(parse(printed)) == printed


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_whatever_parses_prints_as_text_that_parses_the_same(text: str) -> None:
    with time_limit(10):
        try:
            m = parse(text, "fuzz.hlo")
        except HloError:
            return
        for style in ("short", "long"):
            printed = print_module(m, style)
            again = parse(printed, "printed.hlo")
            assert print_module(again, style) == printed


def test_messages_name_no_python_exception() -> None:
    for text in (module("p = f32[2,9223372036854775807] parameter(0)"), module("c = s32[536870912] constant(7)")):
        assert not re.search(r"ValueError|MemoryError|Traceback", parse_error(text).format())


# -- 8. the command lines: exit 1 with one line naming the file and the cause, never 70 --------------

BIN = Path(sys.executable).parent  # the console scripts live next to the interpreter
ONE = module("p = f32[4] parameter(0)")


def cli(args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PATH": f"{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}", **(env or {})}
    return subprocess.run(args, shell=True, cwd=cwd, capture_output=True, text=True, timeout=300, env=full_env)


def one_line_error(p: subprocess.CompletedProcess[str], starts: str, *words: str) -> None:
    assert p.returncode == 1, (p.returncode, p.stderr)
    first = p.stderr.splitlines()[0]
    assert first.startswith(starts), p.stderr
    for w in words:
        assert w in first, p.stderr
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "one.hlo").write_text(ONE)
    np.savez(tmp_path / "good.npz", in0=np.arange(4, dtype=np.float32))
    return tmp_path


def test_corrupt_crc_npz(work: Path) -> None:
    data = bytearray((work / "good.npz").read_bytes())
    data[data.find(b"\x93NUMPY") + 140] ^= 0xFF  # a byte of the array's data
    (work / "bad.npz").write_bytes(bytes(data))
    one_line_error(cli("hlo-run one.hlo --inputs bad.npz", work), "bad.npz: error:", "in0.npy", "CRC")


def test_object_array_npz_is_refused_without_unpickling(work: Path) -> None:
    np.savez(work / "obj.npz", in0=np.array([1, "a", None], dtype=object))
    one_line_error(cli("hlo-run one.hlo --inputs obj.npz", work), "obj.npz[in0]: error:", "objects", "pickle")


@pytest.mark.parametrize("suffix", [".npy", ".npz"])
def test_npy_header_claiming_more_than_the_file_holds(work: Path, suffix: str) -> None:
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000,), }"
    header += " " * (118 - len(header)) + "\n"
    blob = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 16
    if suffix == ".npy":
        (work / "huge.npy").write_bytes(blob)
    else:
        with zipfile.ZipFile(work / "huge.npz", "w") as z:
            z.writestr("in0.npy", blob)
    p = cli(f"hlo-run one.hlo --inputs huge{suffix}", work)
    one_line_error(p, f"huge{suffix}", "373 GiB", "16 bytes")


def test_truncated_and_garbage_numpy_files(work: Path) -> None:
    (work / "t.npy").write_bytes((work / "good.npz").read_bytes()[:40])
    one_line_error(cli("hlo-run one.hlo --inputs t.npy", work), "t.npy: error:")
    (work / "g.npz").write_bytes(b"PK\x03\x04" + b"\xff" * 50)
    one_line_error(cli("hlo-run one.hlo --inputs g.npz", work), "g.npz: error:")


def test_numpy_files_still_load(work: Path) -> None:
    np.save(work / "f.npy", np.arange(4, dtype=np.float32)[::-1].copy())
    np.savez_compressed(work / "c.npz", in0=np.arange(4, dtype=np.float32))
    for name in ("f.npy", "c.npz", "good.npz"):
        p = cli(f"hlo-run one.hlo --inputs {name} --backend=interp -o out_{name}.npz", work)
        assert p.returncode == 0, p.stderr
        assert np.load(work / f"out_{name}.npz")["out0"].shape == (4,)


@pytest.mark.parametrize(("root", "what"), [
    ("p = f32[1000000,1000000] parameter(0)", "parameter p"),
    ("i = f32[1000000,1000000] iota(), iota_dimension=0", "iota i"),
    ("b = f32[1000000,1000000] broadcast(c), dimensions={}", "broadcast b"),
])
@pytest.mark.parametrize("backend", ["llvm", "interp"])
def test_runs_refuse_arrays_over_the_cap_before_allocating(work: Path, root: str, what: str, backend: str) -> None:
    (work / "big.hlo").write_text(module(root, "c = f32[] constant(1)"))
    p = cli(f"hlo-run big.hlo --random 0 --backend={backend}", work)
    one_line_error(p, "big.hlo:4:", what, "3.64 TiB", "HLOTOOLS_MAX_ARRAY_BYTES")


def test_array_cap_is_configurable(work: Path) -> None:
    p = cli("hlo-run one.hlo --random 0 --backend=interp", work, {"HLOTOOLS_MAX_ARRAY_BYTES": "15"})
    one_line_error(p, "one.hlo:3:", "16 bytes", "15 bytes")
    assert cli("hlo-run one.hlo --random 0 --backend=interp", work, {"HLOTOOLS_MAX_ARRAY_BYTES": "16"}).returncode == 0


def test_random_inputs_refuse_over_the_cap() -> None:
    from hlotools.io.random_inputs import random_inputs
    with pytest.raises(HloError, match="parameter 0 'p'.*3.64 TiB"):
        random_inputs(parse(module("p = f32[1000000,1000000] parameter(0)")), 0)


@pytest.mark.parametrize("command", ["hlo-opt one.hlo", "hlo-translate one.hlo --emit=hlo",
                                     "hlo-run one.hlo --inputs good.npz --backend=interp",
                                     "hlo-run one.hlo --inputs good.npz --backend=interp --json"])
def test_standard_output_on_a_full_device(work: Path, command: str) -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    p = cli(f"{command} > /dev/full", work)
    assert p.stderr == "<stdout>: error: cannot write: No space left on device\n", p.stderr
    assert p.returncode == 1


def test_dump_dir_that_cannot_be_written(work: Path) -> None:
    # A folder below a plain file cannot be created, even by root (chmod would not stop root).
    p = cli("hlo-opt one.hlo --passes=dce --dump-dir one.hlo/dumps", work)
    one_line_error(p, "one.hlo/dumps: error: --dump-dir:", "Not a directory")
    assert cli("hlo-opt one.hlo --passes=dce --dump-dir fresh/dumps", work).returncode == 0
    assert (work / "fresh" / "dumps").is_dir() and not list((work / "fresh" / "dumps").glob(".hlo-opt-probe*"))


def test_output_file_that_cannot_be_written(work: Path) -> None:
    one_line_error(cli("hlo-opt one.hlo -o one.hlo/x.hlo", work), "one.hlo/x.hlo: error: cannot write")
    one_line_error(cli("hlo-run one.hlo --inputs good.npz --backend=interp -o one.hlo/x.npz", work),
                   "one.hlo/x.npz: error: cannot write")


def test_memory_error_is_a_one_line_exit_1() -> None:
    """The backstop behind the size checks (a machine smaller than the cap)."""
    import click
    from click.testing import CliRunner

    from hlotools.cli.common import HloCommand

    @click.command(cls=HloCommand)
    @click.option("--debug", is_flag=True)
    def boom(debug: bool) -> None:
        raise MemoryError("Unable to allocate 3.64 TiB")
    result = CliRunner().invoke(boom, [])
    assert result.exit_code == 1
    assert result.output.strip() == ("error: out of memory: Unable to allocate 3.64 TiB (the input needs more "
                                     "memory than this machine has)")


def test_recursion_error_is_a_one_line_exit_1_naming_the_input(work: Path) -> None:
    """The backstop for valid but deep structure the parser does not bound: a call chain 3000
    computations deep (the interpreter evaluates calls recursively)."""
    lines = ["HloModule m", "k0 {", "  a = f32[] parameter(0)", "  ROOT n = f32[] negate(a)", "}"]
    for i in range(1, 3000):
        lines += [f"k{i} {{", "  a = f32[] parameter(0)", f"  ROOT n = f32[] call(a), to_apply=k{i - 1}", "}"]
    lines += ["ENTRY e {", "  a = f32[] parameter(0)", "  ROOT r = f32[] call(a), to_apply=k2999", "}"]
    (work / "calls.hlo").write_text("\n".join(lines) + "\n")
    p = cli("hlo-run calls.hlo --random 0 --backend=interp", work)
    if p.returncode == 0:
        pytest.skip("the interpreter evaluated the chain (no recursion limit reached)")
    one_line_error(p, "calls.hlo: error:", "nests too deeply")


@pytest.mark.parametrize("text", [
    "\0" * 100_000,
    module("p = f32[] parameter(2147483648)"),
    module("c = s32[536870912] constant(7)"),
    module("c = f32[2,9223372036854775807] constant(256)"),
    module("p = " + "(" * 100_000 + "f32[]" + ")" * 100_000 + " parameter(0)"),
    module('p = f32[8,128]{1,0:T(8,"128)} parameter(0)'),
])
def test_the_reported_inputs_are_one_short_error_exit_1(work: Path, text: str) -> None:
    (work / "x.hlo").write_text(text)
    p = cli("hlo-opt x.hlo", work)
    one_line_error(p, "x.hlo:")
    assert len(p.stderr) < 1000 and "\0" not in p.stderr and p.stdout == ""


def test_literal_text_inputs_count_lines_as_error_messages_do(work: Path) -> None:
    (work / "args.txt").write_text("f32[4] {1, 2, 3, 4} // a form feed \x0c here\n")
    assert cli("hlo-run one.hlo --inputs args.txt --backend=interp", work).returncode == 0
    (work / "bad.txt").write_text("// \x0c\nf32[4] {1, 2, x, 4}\n")
    p = cli("hlo-run one.hlo --inputs bad.txt --backend=interp", work)
    one_line_error(p, "bad.txt:2:")
    assert p.stderr.splitlines()[1] == "f32[4] {1, 2, x, 4}"


def _tuple_literal_cases() -> list[tuple[str, str]]:
    row = "{" + ", ".join(str(i % 7 - 3) for i in range(600)) + "}"
    return [
        ("(f32[600], s32[600])", f"({row}, {row})"),
        ("(f32[600], (s8[600], f32[]), pred[])", f"( {row},\n ( {row} , -2.5 ), 1 )"),
        ("(f32[600], f32[2])", f"({row}, {{...}})"),
        ("(c64[2], f32[600])", f"({{(1, 2), (3, -nan)}}, {row})"),
        ("(f32[600], f32[])", f"({row}, -nan(0x1))"),
        ("(f32[600], f32[2])", f"({row} {{1, 2}})"),  # missing ',': an error either way
        ("(f32[600], f32[2])", f"({row}, {{1, 2}}, {{3}})"),
        ("(f32[600], f32[2])", f"({row}, {{1, 2}}"),
        ("(f32[600], f32[2])", f"({row}, {{1, x}})"),
        ("(f32[600], f32[2])", f"({row},, {{1, 2}})"),
        ("(f32[600], f32[2])", f"({row}, {{1, 2}}) 3"),
    ]


@pytest.mark.parametrize(("shape_text", "text"), _tuple_literal_cases())
def test_tuple_literals_read_the_same_on_both_paths(shape_text: str, text: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from hlotools.ir.shape_text import parse_shape_text
    from hlotools.text import parse_literal as pl
    shape = parse_shape_text(shape_text)[0].with_default_layout()

    def read() -> object:
        try:
            lit = parse_literal(text, shape)
        except LiteralError as e:
            return ("error", e.message, e.offset)
        return [None if e.array is None else e.array.tobytes() for e in _leaf_literals(lit)]
    fast = read()
    monkeypatch.setattr(pl, "MIN_FAST_CHARS", 1 << 62)
    assert read() == fast


def _leaf_literals(lit: object) -> list:
    elements = getattr(lit, "elements", None)
    if elements is None:
        return [lit]
    return [leaf for e in elements for leaf in _leaf_literals(e)]


def test_a_large_tuple_literal_is_not_tokenised_value_by_value(monkeypatch: pytest.MonkeyPatch) -> None:
    from hlotools.text import parse_literal as pl

    def tokens(*args: object) -> object:
        raise AssertionError("the token-at-a-time tokeniser ran on a well-formed tuple literal")
    monkeypatch.setattr(pl, "_tokens", tokens)
    row = "{" + ", ".join(map(str, range(100_000))) + "}"
    m = parse(module(f"c = (s32[100000], (s32[100000])) constant(({row}, ({row})))"))
    assert m.entry is not None and m.entry.root is not None and m.entry.root.literal is not None
    inner = m.entry.root.literal.elements
    assert inner is not None and inner[1].elements is not None
    assert inner[1].elements[0].value()[-1] == 99_999


# -- integers past 64 bits anywhere: XLA's lexer refuses them; Python's int() fails past 4300 digits --

_HUGE = "9" * 5000


@pytest.mark.parametrize("text", [
    module(f"p = f32[] parameter({_HUGE})"),
    module(f"p = f32[{_HUGE}] parameter(0)"),
    module(f"c = s32[] constant({_HUGE})"),
    module(f"c = f32[] constant(-{_HUGE})"),
    module(f"r = f32[2] reverse(p), dimensions={{{_HUGE}}}", "p = f32[2] parameter(0)"),
    module(f"r = f32[2] get-tuple-element(p), index={_HUGE}", "p = (f32[2]) parameter(0)"),
    module(f"r = f32[2] negate(p#{_HUGE})", "p = (f32[2]) parameter(0)"),
    module(f"p = f32[2]{{0:T({_HUGE})}} parameter(0)"),
    module(f"p = f32[2] parameter(0), sharding={{devices=[{_HUGE}]0}}"),
    module(f"r = f32[1] slice(p), slice={{[0:{_HUGE}]}}", "p = f32[2] parameter(0)"),
    f"HloModule m, replica_count={_HUGE}\nENTRY e {{\n  ROOT p = f32[2] parameter(0)\n}}\n",
    module("c = f32[] constant(1234567890123456789012345)"),  # XLA: "unexpected token type in a literal"
])
def test_integers_past_64_bits_are_located_errors(text: str) -> None:
    e = parse_error(text)
    assert "does not fit in 64 bits" in e.message and len(e.message) < 200


@pytest.mark.parametrize("text", [
    module("c = u64[] constant(18446744073709551615)"),  # 20 digits: XLA's largest u64
    module('c = f32[] constant(1), metadata={op_name="' + "1" * 30 + '"}'),
    module("c = f64[] constant(0.1000000000000000055511151231257827) /* 123456789012345678901234 */"),
    module("c = f64[] constant(1.5e-0000000000000000000001)"),
    module("x_1234567890123456789012345 = f32[] constant(1)").replace("ROOT x", "ROOT x"),
])
def test_long_digit_runs_that_are_no_integers_still_parse(text: str) -> None:
    assert parse(text).entry is not None


def test_literal_text_inputs_with_huge_integers(work: Path) -> None:
    (work / "a.txt").write_text(f"f32[4] {{1, 2, 3, {_HUGE}}}\n")
    (work / "b.txt").write_text(f"s32[4] {{1, 2, 3, {_HUGE}}}\n")
    (work / "c.txt").write_text(f"f32[{_HUGE}] {{1}}\n")
    for name in ("b.txt", "c.txt"):
        one_line_error(cli(f"hlo-run one.hlo --inputs {name} --backend=interp", work), f"{name}:1:")
    one_line_error(cli("hlo-run one.hlo --inputs a.txt --backend=interp", work), "a.txt:1:", "out of range")
