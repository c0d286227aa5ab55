"""Attribute values: (attribute name, verbatim value text) -> typed value.

The lexer captures every `name=value` as text; this module decodes it by attribute name into
the value types listed in hlotools/ir/attributes.py. Decoding is memoised on (name, text):
dumps repeat the same `dimensions={0}` or `metadata={...}` many times and the values are
immutable. Errors raise AttrError with an offset into the value text.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from hlotools.errors import ShapeError
from hlotools.ir.attributes import (
    BufferDonors,
    ComputationLayout,
    ConvDimLabels,
    Enum,
    InputOutputAlias,
    PaddingConfig,
    Raw,
    ShapeList,
    SliceRange,
    SourceTargetPairs,
    Window,
    WindowDim,
)
from hlotools.ir.lazy_regex import lazy_regex

_INT_LIST_ATTRS = frozenset("""dimensions slice_sizes dynamic_slice_sizes fft_length lhs_batch_dims
lhs_contracting_dims rhs_batch_dims rhs_contracting_dims lhs_ragged_dims rhs_group_dims offset_dims
collapsed_slice_dims start_index_map operand_batching_dims start_indices_batching_dims update_window_dims
inserted_window_dims scatter_dims_to_operand_dims input_batching_dims scatter_indices_batching_dims
""".split())
_INT_ATTRS = frozenset("""index iota_dimension index_vector_dim feature_group_count batch_group_count k
channel_id exponent_bits mantissa_bits feature_index num_carries delta cross_program_prefetch_index
inferred_dimension replica_count num_partitions""".split())
_FLOAT_ATTRS = frozenset(["epsilon"])
_BOOL_ATTRS = frozenset("""is_stable indices_are_sorted unique_indices largest constrain_layout
use_global_device_ids custom_call_has_side_effect is_host_transfer lower left_side unit_diagonal
is_composite is_reverse is_associative has_dynamic_root is_scheduled alias_passthrough_params
is_cross_program_prefetch""".split())
_ENUM_ATTRS = frozenset("""direction type kind fft_type distribution algorithm padding_type
convolution_kind schedule api_version transpose_a mode""".split())
_STRING_ATTRS = frozenset("""custom_call_target infeed_config outfeed_config async_execution_thread
execution_thread""".split())

_COMMENT = lazy_regex(r"/\*(?:[^*]|\*(?!/))*\*/|//[^\n\r]*")
_INT = re.compile(r"-?[0-9]+$")
_INT_LIST = re.compile(r"\{\s*(-?[0-9]+(?:\s*,\s*-?[0-9]+)*)?\s*\}$")
# No leading '.': XLA lexes a number only from a digit or '-' (`.5` is an error, `-.5` is not).
_FLOAT = lazy_regex(r"(?=-|[0-9]|inf)-?(?:(?:[0-9]+|[0-9]+\.[0-9]*|[0-9]*\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf)$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*$")
_STRING = lazy_regex(r'"((?:[^"\\]|\\.)*)"$', re.S)
_ESCAPE = lazy_regex(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)", re.S)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a", "b": "\b",
            "f": "\f", "v": "\v", "?": "?"}
_DIMLABELS = lazy_regex(r"([0-9bf?]{2,})_([0-9io?]{2,})->([0-9bf?]{2,})$")
_DXD = lazy_regex(r"[0-9]+(?:x[0-9]+)*$")
_PAD = lazy_regex(r"-?[0-9]+_-?[0-9]+(?:_[0-9]+)?(?:x-?[0-9]+_-?[0-9]+(?:_[0-9]+)?)*$")
_SLICE_ITEM = lazy_regex(r"\s*\[\s*(-?[0-9]+)\s*:\s*(-?[0-9]+)\s*(?::\s*(-?[0-9]+)\s*)?\]\s*")
_WINDOW_KEYS = ("size", "stride", "pad", "lhs_dilate", "rhs_dilate", "rhs_reversal")

_CACHE: dict[tuple[str, str], Any] = {}


class AttrError(Exception):
    def __init__(self, message: str, offset: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


def decode_attr(name: str, raw: str) -> Any:
    key = (name, raw)
    try:
        return _CACHE[key]
    except KeyError:
        pass
    value = _decoder(name)(name, raw)
    if len(_CACHE) < 100_000:
        _CACHE[key] = value
    return value


def strip_comments(raw: str) -> str:
    return _COMMENT.sub(" ", raw) if "/" in raw else raw


def _decoder(name: str) -> Callable[[str, str], Any]:
    if name in _INT_LIST_ATTRS or name.endswith("_dims"):
        return _int_list
    if name in _INT_ATTRS:
        return _int
    if name in _BOOL_ATTRS:
        return _bool
    if name in _ENUM_ATTRS:
        return _enum
    if name in _STRING_ATTRS:
        return _string
    if name in _FLOAT_ATTRS:
        return _float
    special = _SPECIAL.get(name)
    if special is not None:
        return special
    from hlotools.text.parse_mini import CHECKS
    from hlotools.text.parse_sharding import CHECKS as SHARDING_CHECKS
    check = CHECKS.get(name) or SHARDING_CHECKS.get(name)
    if check is not None:
        return lambda n, raw: _checked_raw(check, n, raw)
    return _raw


def _checked_raw(check: Callable[[str], None], name: str, raw: str) -> Raw:
    value = _raw(name, raw)
    check(raw)
    return value


def _fail(name: str, what: str, raw: str, offset: int = 0) -> AttrError:
    shown = raw if len(raw) <= 60 else raw[:57] + "..."
    return AttrError(f"attribute {name} expects {what}, but sees '{shown}'", offset)


def _int(name: str, raw: str) -> int:
    s = strip_comments(raw).strip()
    if not _INT.match(s):
        raise _fail(name, "an integer", raw)
    return int(s)


def _float(name: str, raw: str) -> float:
    s = strip_comments(raw).strip()
    if not _FLOAT.match(s):
        raise _fail(name, "a floating point number", raw)
    return float(s)


def _bool(name: str, raw: str) -> bool:
    s = strip_comments(raw).strip()
    if s == "true":
        return True
    if s == "false":
        return False
    raise _fail(name, "true or false", raw)


def _enum(name: str, raw: str) -> Enum:
    s = strip_comments(raw).strip()
    if not _WORD.match(s):
        raise _fail(name, "a bare word", raw)
    return Enum(s)


def _int_list(name: str, raw: str) -> tuple:
    s = strip_comments(raw).strip()
    m = _INT_LIST.match(s)
    if m is None and name == "slice_sizes" and s.startswith("{{"):
        return _int_list_list(name, s)
    if m is None:
        raise _fail(name, "a list of integers such as {0,1}", raw)
    body = m.group(1)
    return tuple(int(x) for x in body.split(",")) if body else ()


def _int_list_list(name: str, s: str) -> tuple[tuple[int, ...], ...]:
    """`{{1,2},{3}}` (collective-permute's slice_sizes) -> ((1, 2), (3,))."""
    inner = s[1:-1].strip() if s.endswith("}") else ""
    parts = re.findall(r"\{[^{}]*\}", inner)
    if re.sub(r"\{[^{}]*\}|[\s,]", "", inner):
        raise _fail(name, "a list of integer lists such as {{0,1},{2}}", s)
    return tuple(_int_list(name, p) for p in parts)


def parse_int_list_list(text: str) -> list[tuple[int, ...]] | None:
    """`{{0,1},{1,0}}` -> [(0, 1), (1, 0)]; None when malformed."""
    s = strip_comments(text).strip()
    if not (s.startswith("{") and s.endswith("}")):
        return None
    inner = s[1:-1]
    if re.sub(r"\{[^{}]*\}|[\s,]", "", inner):
        return None
    out = []
    for part in re.findall(r"\{[^{}]*\}", inner):
        m = _INT_LIST.match(part.strip())
        if m is None:
            return None
        out.append(tuple(int(x) for x in m.group(1).split(",")) if m.group(1) else ())
    return out


def parse_shape_list(text: str) -> list[Any]:
    """`{f32[2]{0}, (s32[], f32[])}` -> [Shape, ...] (raises AttrError)."""
    from hlotools.ir.shape_text import parse_shape_text
    s = strip_comments(text).strip()
    if not (s.startswith("{") and s.endswith("}")):
        raise AttrError("expects a list of shapes such as {f32[2]{0}, s32[]}")
    body = s[1:-1]
    out = []
    pos = 0
    while body[pos:].strip():
        try:
            shape, pos = parse_shape_text(body, pos)
        except ShapeError as e:
            raise AttrError(e.message, e.offset + 1) from None
        out.append(shape)
        rest = body[pos:].lstrip()
        if rest.startswith(","):
            pos = len(body) - len(rest) + 1
        elif rest:
            raise AttrError("expects ',' between shapes", pos + 1)
    return out


def unescape(body: str) -> str:
    if "\\" not in body:
        return body

    def one(m: re.Match[str]) -> str:
        e = m.group(1)
        if e[0] == "x":
            return chr(int(e[1:], 16))
        if e[0] in "01234567":
            return chr(int(e, 8))
        if e in _ESCAPES:
            return _ESCAPES[e]
        raise AttrError(f"unknown escape sequence '\\{e}' in string", m.start())
    return _ESCAPE.sub(one, body)


def _string(name: str, raw: str) -> str:
    m = _STRING.match(raw.strip())
    if m is None:
        raise _fail(name, "a quoted string", raw)
    return unescape(m.group(1))


def _backend_config(name: str, raw: str) -> str | Raw:
    s = raw.strip()
    if s.startswith("{"):
        return Raw(s)
    return _string(name, raw)


def _raw(name: str, raw: str) -> Any:
    s = raw.strip()
    if not s:
        raise AttrError(f"attribute {name} has no value")
    if s[0] == '"':
        return _string(name, s)
    return Raw(s)


def _dim_labels(name: str, raw: str) -> ConvDimLabels:
    """XLA's ParseConvolutionDimensionNumbers: '?' marks an unused dimension, digits are spatial."""
    s = raw.strip()
    m = _DIMLABELS.match(s)
    if m is None:
        raise AttrError("expects dim labels pattern, e.g., 'bf0_0io->0bf'")
    lhs, rhs, out = m.groups()
    ib, if_, isp = _labels(lhs, "b", "f", "lhs")
    kin, kout, ksp = _labels(rhs, "i", "o", "rhs")
    ob, of, osp = _labels(out, "b", "f", "output")
    if not len(isp) == len(ksp) == len(osp):
        raise AttrError(f"input, kernel, and output must have same number of spatial dimensions, but got "
                        f"{len(isp)}, {len(ksp)}, {len(osp)}, respectively.")
    return ConvDimLabels(ib, if_, isp, kin, kout, ksp, ob, of, osp, s)


def _labels(part: str, a: str, b: str, what: str) -> tuple[int, int, tuple[int, ...]]:
    letters = [c for c in part if c != "?"]
    if len(set(letters)) != len(letters):
        raise AttrError(f"expects unique {what} dimension numbers, but sees {part}")
    nsp = sum(1 for c in part if c not in (a, b, "?"))
    spatial = [-1] * nsp
    pos_a = pos_b = -1
    for i, c in enumerate(part):
        if c == "?":
            continue
        if c == a:
            pos_a = i
        elif c == b:
            pos_b = i
        elif c.isdigit() and int(c) < nsp:
            spatial[int(c)] = i
        else:
            raise AttrError(f"expects [0-{nsp - 1}{a}{b}?] in {what} dimension numbers")
    return pos_a, pos_b, tuple(spatial)


def _padding(name: str, raw: str) -> PaddingConfig:
    s = raw.strip()
    if not _PAD.match(s):
        raise _fail(name, "padding such as 0_0x1_1 (low_high[_interior] per dimension)", raw)
    dims = []
    for part in s.split("x"):
        nums = [int(v) for v in re.findall(r"-?[0-9]+", part)]
        if len(nums) == 2:
            nums.append(0)
        if nums[2] < 0:
            raise AttrError(f"interior padding must be non-negative in {s}")
        dims.append((nums[0], nums[1], nums[2]))
    return PaddingConfig(tuple(dims))


def _slice(name: str, raw: str) -> tuple[SliceRange, ...]:
    s = strip_comments(raw).strip()
    if not (s.startswith("{") and s.endswith("}")):
        raise _fail(name, "slice ranges such as {[0:2], [1:4:2]}", raw)
    body = s[1:-1]
    out: list[SliceRange] = []
    pos = 0
    while body[pos:].strip():
        m = _SLICE_ITEM.match(body, pos)
        if m is None:
            raise _fail(name, "slice ranges such as {[0:2], [1:4:2]}", raw, pos + 1)
        out.append(SliceRange(int(m.group(1)), int(m.group(2)),
                              int(m.group(3)) if m.group(3) is not None else 1))
        pos = m.end()
        if body[pos:pos + 1] == ",":
            pos += 1
        elif body[pos:].strip():
            raise _fail(name, "',' between slice ranges", raw, pos + 1)
    return tuple(out)


def _window(name: str, raw: str) -> Window:
    """XLA's ParseWindow: whitespace-separated sub-attributes, `size=` sets the rank."""
    s = strip_comments(raw).strip()
    if not s.startswith("{"):
        raise AttrError("expected '{' to start window attribute")
    if not s.endswith("}"):
        raise AttrError("expected '}' to end window attribute")
    fields: dict[str, list] = {}
    if "," in s:
        raise AttrError("expects sub-attributes in window (they are separated by spaces, not commas)",
                        raw.find(","))
    for item in s[1:-1].split():
        key, eq, value = item.partition("=")
        if not eq:
            raise AttrError("expects sub-attributes in window")
        if key not in _WINDOW_KEYS:
            raise AttrError(f"unexpected attribute name: {key}")
        if key in fields:
            raise AttrError(f"sub-attribute '{key}=' already exists")
        if key == "pad":
            if not _PAD.match(value):
                raise AttrError("expects window pad pattern, e.g., '0_0x3_3'")
            pads = []
            for part in value.split("x"):
                nums = part.split("_")
                if len(nums) != 2:
                    raise AttrError("expects padding_low and padding_high separated by '_'")
                pads.append((int(nums[0]), int(nums[1])))
            fields[key] = pads
        else:
            if not _DXD.match(value):
                raise AttrError("expects token type kInt or kDxD")
            fields[key] = [int(x) for x in value.split("x")]
    size = fields.get("size", [])
    for key in ("stride", "lhs_dilate", "rhs_dilate", "pad", "rhs_reversal"):
        if key in fields and len(fields[key]) != len(size):
            raise AttrError(f"expects '{key}=' has the same size as 'size='")

    def at(key: str, i: int, default: Any) -> Any:
        v = fields.get(key)
        return v[i] if v else default
    return Window(tuple(WindowDim(size[i], stride=at("stride", i, 1),
                                  padding_low=at("pad", i, (0, 0))[0], padding_high=at("pad", i, (0, 0))[1],
                                  window_dilation=at("rhs_dilate", i, 1), base_dilation=at("lhs_dilate", i, 1),
                                  window_reversal=at("rhs_reversal", i, 0) == 1)
                        for i in range(len(size))))


def _shape_attr(name: str, raw: str) -> Any:
    from hlotools.ir.shape_text import parse_shape_text
    s = strip_comments(raw)
    try:
        shape, end = parse_shape_text(s)
    except ShapeError as e:
        raise AttrError(f"attribute {name}: {e.message}", e.offset) from None
    if s[end:].strip():
        raise AttrError(f"unexpected text after the shape of attribute {name}", end)
    return shape


def _text(name: str, raw: str) -> str:
    """The value as written, as Raw keeps it (an empty value is an error)."""
    s = raw.strip()
    if not s:
        raise AttrError(f"attribute {name} has no value")
    return s


def _computation_layout(name: str, raw: str) -> ComputationLayout:
    from hlotools.text.parse_mini import computation_layout
    text = _text(name, raw)
    params, result = computation_layout(raw)
    return ComputationLayout(params, result, text)


def _input_output_alias(name: str, raw: str) -> InputOutputAlias:
    from hlotools.text.parse_mini import aliasing
    text = _text(name, raw)
    return InputOutputAlias(aliasing(raw), text)


def _buffer_donor(name: str, raw: str) -> BufferDonors:
    from hlotools.text.parse_mini import buffer_donor
    text = _text(name, raw)
    return BufferDonors(buffer_donor(raw), text)


def _operand_layout_constraints(name: str, raw: str) -> ShapeList:
    text = _text(name, raw)
    try:
        shapes = parse_shape_list(raw)
    except AttrError as e:
        raise AttrError(f"error parsing attribute {name}: {e.message}", e.offset) from None
    return ShapeList(tuple(shapes), text)


def _source_target_pairs(name: str, raw: str) -> SourceTargetPairs:
    text = _text(name, raw)
    groups = parse_int_list_list(raw)
    if groups is None or any(len(g) != 2 for g in groups):
        raise AttrError("expects 'source_target_pairs=' to be a list of pairs")
    return SourceTargetPairs(tuple((g[0], g[1]) for g in groups), text)


_SPECIAL: dict[str, Callable[[str, str], Any]] = {
    "source_target_pairs": _source_target_pairs,
    "entry_computation_layout": _computation_layout,
    "input_output_alias": _input_output_alias,
    "buffer_donor": _buffer_donor,
    "operand_layout_constraints": _operand_layout_constraints,
    "dim_labels": _dim_labels,
    "padding": _padding,
    "slice": _slice,
    "window": _window,
    "outfeed_shape": _shape_attr,
    "backend_config": _backend_config,
}
