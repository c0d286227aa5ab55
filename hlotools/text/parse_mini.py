"""The attribute mini-languages XLA's parser reads token by token, read the same way here so that
malformed values are rejected with XLA's messages (sharding and replica groups: parse_sharding.py).

Debug attributes, result accuracy, metadata, frontend attributes and the stack-frame table are
only checked (stored as their text, printed back unchanged). The entry computation layout,
aliasing and buffer donors are also decoded here, once, into the typed values of
ir/attributes.py. `offset` in AttrError is relative to the value text.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from hlotools.errors import ShapeError
from hlotools.ir.attributes import Alias, ShapeIndex
from hlotools.ir.lazy_regex import lazy_regex
from hlotools.ir.shape import Shape
from hlotools.text.parse_attrs import AttrError

_TOKEN = lazy_regex(r"""\s*(?:
   (?P<comment>/\*(?:[^*]|\*(?!/))*\*/|//[^\n\r]*)
 | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
 | (?P<attr>[A-Za-z_][A-Za-z0-9_.\-]*)=
 | (?P<word>[A-Za-z_][A-Za-z0-9_.\-]*)
 | (?P<num>-?(?:[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|[0-9]*\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+(?:[eE][+-]?[0-9]+)?))
 | (?P<punct><=|->|[{}()\[\],:=?#*+~])
)""", re.X)


class Mini:
    """A tiny token reader over an attribute value (XLA's lexer classes, roughly)."""

    def __init__(self, text: str) -> None:
        self.toks: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                if text[pos:].strip():
                    self.toks.append(("bad", text[pos], pos))
                break
            pos = m.end()
            kind = m.lastgroup or "bad"
            if kind == "comment":
                continue
            self.toks.append((kind, m.group(kind), m.start(kind)))
        self.i = 0
        self.end = len(text)

    def peek(self) -> tuple[str, str, int]:
        return self.toks[self.i] if self.i < len(self.toks) else ("eof", "", self.end)

    def at(self, value: str) -> bool:
        k, v, _ = self.peek()
        return v == value and k in ("punct", "word")

    def take(self) -> tuple[str, str, int]:
        t = self.peek()
        self.i += 1
        return t

    def error(self, msg: str) -> AttrError:
        return AttrError(msg, self.peek()[2])

    def expect(self, value: str, msg: str) -> None:
        if not self.at(value):
            raise self.error(msg)
        self.i += 1

    def eat(self, value: str) -> bool:
        if self.at(value):
            self.i += 1
            return True
        return False

    def integer(self) -> int:
        k, v, _ = self.peek()
        if k != "num" or not re.fullmatch(r"-?[0-9]+", v):
            raise self.error("expects integer")
        self.i += 1
        return int(v)

    def ints(self, start: str, end: str, delim: str = ",") -> list[int]:
        self.expect(start, f"expects a list starting with {start}")
        out: list[int] = []
        if not self.at(end):
            out.append(self.integer())
            while self.eat(delim):
                out.append(self.integer())
        self.expect(end, f"expects a list to end with {end}")
        return out

    def done(self) -> None:
        if self.i < len(self.toks):
            raise self.error(f"unexpected '{self.peek()[1]}' after the attribute value")


def _shape_index(m: Mini) -> ShapeIndex:
    m.expect("{", "Expects '{' at the start of ShapeIndex")
    index: list[int] = []
    while not m.at("}"):
        index.append(m.integer())
        if not m.eat(","):
            break
    m.expect("}", "Expects '}' at the end of ShapeIndex")
    return tuple(index)


def aliasing(text: str) -> tuple[Alias, ...]:
    m = Mini(text)
    m.expect("{", "Expects '{' at the start of aliasing description")
    fmt = ("Expected format: <output_shape_index>: (<input_param>, <input_param_shape_index>) OR "
           "<output_shape_index>: <input_param>")
    aliases: list[Alias] = []
    while not m.at("}"):
        output = _shape_index(m)
        m.expect(":", fmt)
        m.expect("(", fmt)
        number = m.integer()
        m.expect(",", fmt)
        index = _shape_index(m)
        kind = None
        if m.eat(","):
            k, kind, _ = m.take()
            if kind not in ("must-alias", "may-alias"):
                raise AttrError("Unexpected aliasing kind; expected SYSTEM or USER", m.peek()[2])
        m.expect(")", fmt)
        aliases.append(Alias(output, number, index, kind))
        if not m.eat(","):
            break
    m.expect("}", "Expects '}' at the end of aliasing description")
    m.done()
    return tuple(aliases)


def buffer_donor(text: str) -> tuple[tuple[int, ShapeIndex], ...]:
    m = Mini(text)
    m.expect("{", "Expects '{' at the start of buffer donor description")
    fmt = "Expected format: (<input_param>, <input_param_shape_index>)"
    donors: list[tuple[int, ShapeIndex]] = []
    while not m.at("}"):
        m.expect("(", fmt)
        number = m.integer()
        m.expect(",", fmt)
        donors.append((number, _shape_index(m)))
        m.expect(")", fmt)
        if not m.eat(","):
            break
    m.expect("}", "Expects '}' at the end of buffer donor description")
    m.done()
    return tuple(donors)


def _original_array(m: Mini) -> None:
    m.expect("{", "Expects '{'")
    if m.peek()[0] == "string":
        m.take()
        if m.at("{"):
            _shape_index(m)
    m.expect("}", "Expects '} at end of OriginalArray'")


def _debug_attrs(m: Mini) -> None:
    m.expect("{", "Expects '{' to start debug attributes")
    while True:
        k, name, _ = m.peek()
        if k != "attr":
            raise m.error("Expects attribute name in debug attributes")
        m.take()
        if name == "log_mode":
            k, mode, _ = m.peek()
            if k not in ("word", "attr"):
                raise m.error("expects name")
            if mode not in ("default", "fusion_debugger"):
                raise m.error(f"Invalid debug_log_mode value: {mode}")
            m.take()
        elif name in ("callback_id", "op_id"):
            m.integer()
        elif name == "partitioned":
            if not (m.at("true") or m.at("false")):
                raise m.error("expects true or false")
            m.take()
        else:
            raise m.error(f"Unknown debug attribute: {name}")
        if not m.eat(","):
            break
    m.expect("}", "Expects '}' to end debug attributes")


def debug_attributes(text: str) -> None:
    m = Mini(text)
    m.expect("{", "Expects '{' to start debug_attributes")
    if m.eat("}"):
        return
    while True:
        _original_array(m)
        m.expect(":", "Expects ':' in debug_attributes entry")
        if m.eat("("):
            if not m.at(")"):
                _debug_attrs(m)
                while m.eat(","):
                    _debug_attrs(m)
            m.expect(")", "Expects ')' after list of debug_attributes")
        else:
            _debug_attrs(m)
        if not m.eat(","):
            break
    m.expect("}", "Expects '}' to end debug_attributes")


def _double(m: Mini) -> None:
    k, v, _ = m.peek()
    if k == "num" or v in ("inf", "-inf"):
        m.take()
        return
    raise m.error("expects decimal or integer")


def result_accuracy(text: str) -> None:
    m = Mini(text)
    m.expect("{", "expected '{' to start result precision list")
    k, name, _ = m.peek()
    if k != "attr":
        raise m.error("expects attribute name")
    m.take()
    if name == "mode":
        k, v, _ = m.peek()
        if k != "word":
            raise m.error("expects ResultAccuracy type")
        if v.upper() not in ("DEFAULT", "HIGHEST", "TOLERANCE"):
            raise m.error(f"expects ResultAccuracy type but sees: {v}, error: Unknown accuracy mode: {v}")
        m.take()
    elif name == "tolerance":
        m.expect("{", "expected '{' to start result accuracy list")
        if not m.at("}"):
            while True:
                k, field, _ = m.peek()
                if k != "attr":
                    raise m.error("expects string for result_accuracy tolerance type")
                m.take()
                if field not in ("ulps", "rtol", "atol"):
                    raise m.error(f"invalid attribute name: {field}")
                _double(m)
                if not m.eat(","):
                    break
        m.expect("}", "expects '}' at the end of result precision")
    else:
        raise m.error(f"invalid attribute name: {name}")
    m.expect("}", "expected '}' to end result_accuracy")
    m.done()


_FILE_LOCATION = ("file_name_id", "function_name_id", "line", "end_line", "column", "end_column")
_STACK_FRAME = ("file_location_id", "parent_frame_id")


def take_sub_attribute_name(m: Mini, seen: set[str], allowed: list[str]) -> str:
    """The next `name=` inside a `{...}` of sub-attributes, with XLA's messages for a missing,
    repeated or unknown name (ParseSubAttributes and ParseMetadata word them alike)."""
    k, name, _ = m.peek()
    if k != "attr":
        raise m.error("expects attribute name")
    if name in seen:
        raise m.error(f"attribute {name} already exists")
    if name not in allowed:
        raise m.error(f'unexpected attribute "{name}". Allowed attributes: {", ".join(allowed)}')
    m.take()
    seen.add(name)
    return name


def _sub_attributes(m: Mini, required: tuple[str, ...]) -> None:
    start = m.peek()[2]
    m.expect("{", "expects '{' to start sub attributes")
    seen: set[str] = set()
    while not m.at("}"):
        m.eat(",")
        take_sub_attribute_name(m, seen, sorted(required))
        m.integer()
    for name in sorted(required):
        if name not in seen:
            raise AttrError(f"sub-attribute {name} is expected but not seen", start)
    m.expect("}", "expects '}' to end sub attributes")


def _entries(body: str) -> str:
    return r"(?:\s+[0-9]+\s*\{\s*" + r"[\s,]*".join(f"{k}=-?[0-9]+" for k in body.split()) + r"[\s,]*\})*"


_NAMES = r'(?:\s+[0-9]+\s+"(?:[^"\\]|\\.)*")*'
# The printer's own layout in one regex (the common case); anything else goes through Mini.
_FRAMES_FAST = lazy_regex(r"FileNames" + _NAMES + r"\s+FunctionNames" + _NAMES + r"\s+FileLocations"
                          + _entries(" ".join(_FILE_LOCATION)) + r"\s+StackFrames"
                          + _entries(" ".join(_STACK_FRAME)) + r"\s*$")


def stack_frames(text: str) -> None:
    """FileNames / FunctionNames / FileLocations / StackFrames, as ParseStackFrameIndex reads them."""
    if _FRAMES_FAST.match(text):
        return
    m = Mini(text)
    m.expect("FileNames", "expects 'FileNames'")
    for section in ("FunctionNames", None):
        while m.peek()[0] == "num":
            m.integer()
            if m.peek()[0] != "string":
                raise m.error("expects string")
            m.take()
        if section:
            m.expect(section, f"expects '{section}'")
    m.expect("FileLocations", "expects 'FileLocations'")
    while m.peek()[0] == "num":
        m.integer()
        _sub_attributes(m, _FILE_LOCATION)
    m.expect("StackFrames", "expects 'StackFrames'")
    while m.peek()[0] == "num":
        m.integer()
        _sub_attributes(m, _STACK_FRAME)
    m.done()


def computation_layout(text: str) -> tuple[tuple[Shape, ...], Shape]:
    """`{(shape, ...)->shape}` as ParseComputationLayout reads it: (parameter shapes, result)."""
    from hlotools.ir.shape_text import parse_shape_text
    params: list[Shape] = []
    s = re.sub(r"/\*(?:[^*]|\*(?!/))*\*/|//[^\n\r]*", lambda c: " " * len(c.group()), text).strip()
    if not s.startswith("{"):
        raise AttrError("Expects '{' at the start of aliasing description")
    pos = 1
    while pos < len(s) and s[pos] in " \t\r\n":
        pos += 1
    if not s.startswith("(", pos):
        raise AttrError("Expects ( before parameter shape list", pos)
    pos += 1
    try:
        while True:
            rest = s[pos:].lstrip()
            pos = len(s) - len(rest)
            if rest.startswith(")"):
                pos += 1
                break
            shape, pos = parse_shape_text(s, pos)
            params.append(shape)
            rest = s[pos:].lstrip()
            pos = len(s) - len(rest)
            if rest.startswith(","):
                pos += 1
            elif not rest.startswith(")"):
                raise AttrError("Expects , between parameter shapes", pos)
        rest = s[pos:].lstrip()
        pos = len(s) - len(rest)
        if not rest.startswith("->"):
            raise AttrError("Expects -> before result shape", pos)
        result, pos = parse_shape_text(s, pos + 2)
    except ShapeError as e:
        raise AttrError(e.message, e.offset) from None
    if s[pos:].strip() != "}":
        raise AttrError("Expects '}' at the end of computation layouts", pos)
    return tuple(params), result


_METADATA_STRINGS = ("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name",
                     "metadata_payload")
_METADATA_INTS = ("source_line", "source_end_line", "source_column", "source_end_column", "stack_frame_id")
_METADATA_FAST = lazy_regex(r"\{(?:[\s,]*(?:(?:" + "|".join(_METADATA_STRINGS) + r')="(?:[^"\\]|\\.)*"|(?:'
                            + "|".join(_METADATA_INTS) + r")=-?[0-9]+|profile_type=\{[0-9,\s]*\}))*[\s,]*\}$")


def metadata(text: str) -> None:
    """ParseMetadata: optional-comma separated sub-attributes with fixed names and types."""
    s = text.strip()
    if _METADATA_FAST.match(s):
        return
    m = Mini(s)
    allowed = sorted(_METADATA_STRINGS + _METADATA_INTS + ("profile_type",))
    m.expect("{", "expects '{' to start sub attributes")
    seen: set[str] = set()
    while not m.at("}"):
        m.eat(",")
        if m.at("}"):
            break
        name = take_sub_attribute_name(m, seen, allowed)
        if name in _METADATA_STRINGS:
            if m.peek()[0] != "string":
                raise m.error("expects string")
            m.take()
        elif name == "profile_type":
            m.ints("{", "}")
        else:
            value = m.integer()
            if not -(1 << 31) <= value < (1 << 31):
                raise m.error("value out of range for int32_t")
    m.expect("}", "expects '}' to end sub attributes")
    m.done()


_FRONTEND_FAST = lazy_regex(r"""\{(?:[\s]*[A-Za-z_][A-Za-z0-9_.\-]*="(?:[^"\\]|\\.)*"[\s]*(?:,|(?=\})))*[\s]*\}$""")


_KEY = lazy_regex(r"\s*([A-Za-z_][A-Za-z0-9_.\-]*)=")
_STR = lazy_regex(r'\s*"(?:[^"\\]|\\.)*"')
_SEP = lazy_regex(r"\s*([,}])")


def _raw_dict_end(s: str, pos: int) -> int:
    """End of the brace-balanced blob at s[pos] == '{', skipping double-quoted strings (XLA's
    LexJsonDict: the contents need not be HLO tokens or even JSON)."""
    depth = 0
    i = pos
    while i < len(s):
        c = s[i]
        if c == '"':
            m = _STR.match(s, i)
            if m is None:
                raise AttrError("expects JSON dict", pos)
            i = m.end()
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise AttrError("expects JSON dict", pos)


def frontend_attributes(text: str) -> None:
    """ParseFrontendAttributes: `{key="value", key={raw json}, ...}`."""
    s = text.strip()
    if _FRONTEND_FAST.match(s):
        return
    if not s.startswith("{"):
        raise AttrError("expected '{' to start frontend attributes")
    pos = 1
    if s[pos:].strip() == "}":
        return
    while True:
        m = _KEY.match(s, pos)
        if m is None:
            raise AttrError("expects attribute name", pos)
        pos = m.end()
        ms = _STR.match(s, pos)
        if ms is not None:
            pos = ms.end()
        elif s[pos:pos + 1] == "{":
            pos = _raw_dict_end(s, pos)
        else:
            raise AttrError("expects a string or a JSON dict as the frontend attribute value", pos)
        sep = _SEP.match(s, pos)
        if sep is None:
            raise AttrError("expects '}' at the end of frontend attributes", pos)
        pos = sep.end()
        if sep.group(1) == "}":
            if s[pos:].strip():
                raise AttrError("unexpected text after the frontend attributes", pos)
            return


CHECKS: dict[str, Callable[[str], None]] = {
    "metadata": metadata,
    "frontend_attributes": frontend_attributes,
    "debug_attributes": debug_attributes,
    "result_accuracy": result_accuracy,
}
