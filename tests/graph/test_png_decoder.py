"""tests/support/chromium.png_pixels, the screenshot decoder the browser tests read pixels with."""
from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from tests.support.chromium import png_pixels


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png(img: np.ndarray, filters: list[int]) -> bytes:
    h, w, _ = img.shape
    rows = []
    for y, f in enumerate(filters):
        line = img[y].reshape(-1).astype(np.int64)
        ref = {0: np.zeros_like(line), 1: np.concatenate([np.zeros(3, np.int64), line[:-3]]),
               2: img[y - 1].reshape(-1).astype(np.int64) if y else np.zeros_like(line)}[f]
        rows.append(bytes([f]) + bytes(((line - ref) & 255).astype(np.uint8)))
    header = _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + header + _chunk(b"IDAT", zlib.compress(b"".join(rows))) + _chunk(b"IEND", b"")


def test_none_sub_and_up_rows_decode_exactly() -> None:
    img = np.random.default_rng(0).integers(0, 256, (6, 9, 3), dtype=np.uint8)
    assert np.array_equal(png_pixels(_png(img, [0, 1, 2, 2, 1, 0])), img)


def test_other_filters_are_refused() -> None:
    img = np.zeros((1, 2, 3), dtype=np.uint8)
    data = _png(img, [0]).replace(zlib.compress(b"\0" + bytes(6)), zlib.compress(b"\4" + bytes(6)))
    with pytest.raises(AssertionError, match="optimizeForSpeed"):
        png_pixels(data)
