"""The arena's first fit: the incremental form (sorted live list + heap of ends) gives the
offsets of the plain definition (re-filter and re-sort the live intervals per buffer)."""
from __future__ import annotations

import random

import pytest

from hlotools.backend.llvm.codegen.buffers import first_fit


def reference(items: list[tuple[int, int, int]]) -> tuple[list[int], int]:
    active: list[tuple[int, int, int]] = []
    offsets, peak = [], 0
    for start, end, size in items:
        active = sorted(a for a in active if a[2] >= start)
        offset = 0
        for a_off, a_size, _ in active:
            if a_off - offset >= size:
                break
            offset = max(offset, a_off + a_size)
        active.append((offset, size, end))
        offsets.append(offset)
        peak = max(peak, offset + size)
    return offsets, peak


@pytest.mark.parametrize("seed", range(40))
def test_first_fit_matches_the_definition_and_never_overlaps_live_buffers(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([1, 5, 50, 300])
    items = []
    for _ in range(n):
        start = rng.randrange(0, 2 * n)
        end = start + rng.choice([0, 0, 1, rng.randrange(0, 2 * n), 10 ** 9])  # INF-like ends too
        items.append((start, end, 64 * rng.choice([0, 1, 1, 2, 3, 16, 100])))
    items.sort(key=lambda t: (t[0], -t[2]))
    offsets, peak = first_fit(items)
    assert (offsets, peak) == reference(items)
    for i, (s1, e1, z1) in enumerate(items):
        for j in range(i):
            s2, e2, z2 = items[j]
            if z1 and z2 and s1 <= e2 and s2 <= e1:  # both live at once
                assert offsets[i] + z1 <= offsets[j] or offsets[j] + z2 <= offsets[i]
