"""HloProto dumps (--xla_dump_hlo_as_proto) read through the text parser.

testdata/xla_dump holds one module XLA CPU compiled from a small jax function
(exp, multiply, add, reduce fused into one loop fusion), dumped both as text and as proto.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlotools import parse_module, print_module
from hlotools.errors import HloError
from hlotools.io.hlo_proto import looks_like_proto, proto_to_text
from hlotools.io.protowire import Message, ProtoError

DUMP = Path(__file__).resolve().parents[2] / "testdata" / "xla_dump"
PROTO = DUMP / "module_0004.jit_f.cpu_after_optimizations.hlo.pb"
TEXT = DUMP / "module_0004.jit_f.cpu_after_optimizations.txt"


def _instructions(text: str) -> list[str]:
    """The instruction lines in short form, without metadata (the text dump carries stack
    frames the proto reader does not restate), sorted: the two dumps order parameters apart."""
    printed = print_module(parse_module(text), "short")
    lines = [re.sub(r", metadata=\{[^}]*\}", "", line.strip()) for line in printed.splitlines()]
    return sorted(line for line in lines if " = " in line)


def test_proto_gives_the_same_instructions_as_the_text_dump() -> None:
    from_proto = proto_to_text(PROTO.read_bytes(), str(PROTO))
    assert _instructions(from_proto) == _instructions(TEXT.read_text())
    assert "kind=kLoop, calls=%fused_computation" in from_proto
    assert "is_scheduled=true" in from_proto.splitlines()[0]


def test_proto_is_recognised_by_content_and_name() -> None:
    data = PROTO.read_bytes()
    assert looks_like_proto(data, "model")
    assert looks_like_proto(data, "x.hlo.pb")
    assert not looks_like_proto(TEXT.read_bytes(), str(TEXT))


def test_truncated_proto_is_one_located_error() -> None:
    data = PROTO.read_bytes()[:700]
    with pytest.raises(HloError) as info:
        proto_to_text(data, "cut.hlo.pb")
    assert info.value.format().startswith("cut.hlo.pb: error: not a valid HloProto file:")


def test_wire_reader_packed_and_signed_fields() -> None:
    # field 1: packed varints [1, 300, -1]; field 2: string "ab"
    data = bytes([0x0A, 0x0D, 0x01, 0xAC, 0x02]) + bytes([0xFF] * 9 + [0x01]) + b"\x12\x02ab"
    msg = Message.parse(data)
    assert msg.ints(1) == [1, 300, -1]
    assert msg.string(2) == "ab"
    with pytest.raises(ProtoError):
        Message.parse(b"\x0a\x05ab")
