"""A small reader of the protocol-buffer wire format, enough for XLA's HloProto dumps.

hlotools reads `.hlo.pb` files (`--xla_dump_hlo_as_proto`) without the protobuf package: the
wire format is four field encodings, and the schema (xla/service/hlo.proto, xla/xla_data.proto)
is applied by hlotools.io.hlo_proto, which knows the field numbers it needs. A malformed
message raises ProtoError with the byte offset, so a truncated file gives one located line.
"""
from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


class ProtoError(ValueError):
    """The bytes are not a well-formed protocol-buffer message."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ProtoError(f"truncated varint at byte {pos}")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ProtoError(f"varint longer than 10 bytes at byte {pos}")


def _fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) in order; LENGTH values are the raw bytes."""
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ProtoError(f"field number 0 at byte {pos}")
        value: int | bytes
        if wire == VARINT:
            value, pos = _varint(data, pos)
        elif wire == LENGTH:
            size, pos = _varint(data, pos)
            if pos + size > len(data):
                raise ProtoError(f"field {number}: {size} bytes announced at byte {pos}, {len(data) - pos} left")
            value, pos = data[pos:pos + size], pos + size
        elif wire in (FIXED64, FIXED32):
            width = 8 if wire == FIXED64 else 4
            if pos + width > len(data):
                raise ProtoError(f"field {number}: truncated fixed-width value at byte {pos}")
            value, pos = data[pos:pos + width], pos + width
        else:
            raise ProtoError(f"field {number}: unsupported wire type {wire} at byte {pos}")
        yield number, wire, value


@dataclass
class Message:
    """One decoded message: the values of each field number, in wire order (the schema says
    whether a field is a sub-message, a string, a packed list or a scalar)."""
    values: dict[int, list[int | bytes]] = field(default_factory=dict)
    wires: dict[int, int] = field(default_factory=dict)

    @classmethod
    def parse(cls, data: bytes) -> Message:
        msg = cls()
        for number, wire, value in _fields(data):
            msg.values.setdefault(number, []).append(value)
            msg.wires[number] = wire
        return msg

    def has(self, number: int) -> bool:
        return number in self.values

    def get_int(self, number: int, default: int = 0) -> int:
        """A scalar varint field (the last value wins, as in protobuf), sign-corrected int64."""
        ints = self.ints(number)
        return ints[-1] if ints else default

    def get_bool(self, number: int) -> bool:
        return bool(self.get_int(number))

    def ints(self, number: int) -> list[int]:
        """A repeated integer field, packed or not, as signed 64-bit values."""
        out: list[int] = []
        for v in self.values.get(number, []):
            if isinstance(v, int):
                out.append(_signed(v))
            else:
                pos = 0
                while pos < len(v):
                    n, pos = _varint(v, pos)
                    out.append(_signed(n))
        return out

    def string(self, number: int) -> str:
        raw = self.get_bytes(number)
        return raw.decode("utf-8", errors="replace")

    def get_bytes(self, number: int) -> bytes:
        values = [v for v in self.values.get(number, []) if isinstance(v, bytes)]
        return values[-1] if values else b""

    def strings(self, number: int) -> list[str]:
        return [v.decode("utf-8", errors="replace") for v in self.values.get(number, []) if isinstance(v, bytes)]

    def message(self, number: int) -> Message | None:
        raw = [v for v in self.values.get(number, []) if isinstance(v, bytes)]
        return Message.parse(raw[-1]) if raw else None

    def messages(self, number: int) -> list[Message]:
        return [Message.parse(v) for v in self.values.get(number, []) if isinstance(v, bytes)]

    def floats(self, number: int, double: bool = False) -> list[float]:
        """A repeated float/double field, packed (one LENGTH value) or not (fixed-width values)."""
        fmt, width = ("<d", 8) if double else ("<f", 4)
        out: list[float] = []
        for v in self.values.get(number, []):
            if isinstance(v, bytes):
                out.extend(x for (x,) in struct.iter_unpack(fmt, v[: len(v) - len(v) % width]))
        return out

    def get_float(self, number: int) -> float:
        values = self.floats(number)
        return values[-1] if values else 0.0


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v
