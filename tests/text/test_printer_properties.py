"""Property tests: printed constants read back to the same bits (XLA's round-trip promise), and
generated modules (tests/support/hlo_strategies.py) survive parse -> print -> parse in both styles."""
from __future__ import annotations

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hlotools
from hlotools.text.literal_format import format_float
from hlotools.text.printer import print_module
from tests.support.hlo_strategies import hlo_modules
from tests.support.module_compare import module_difference

_BITS = {"f16": (np.uint16, np.float16), "bf16": (np.uint16, ml_dtypes.bfloat16),
         "f32": (np.uint32, np.float32), "f64": (np.uint64, np.float64),
         "f8e4m3fn": (np.uint8, ml_dtypes.float8_e4m3fn), "f8e5m2": (np.uint8, ml_dtypes.float8_e5m2)}


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(_BITS)), st.integers(min_value=0, max_value=2**64 - 1))
def test_finite_floats_read_back_exactly(type_name: str, raw: int) -> None:
    uint, ftype = _BITS[type_name]
    bits = raw & int(np.iinfo(uint).max)
    value = np.array([bits], dtype=uint).view(ftype)[0]
    if not np.isfinite(float(value)):
        return
    text = format_float(value, type_name)
    back = np.array([float(text)]).astype(ftype)
    assert int(back.view(uint)[0]) == bits, (type_name, hex(bits), text)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=False), min_size=1, max_size=6),
       st.sampled_from(["short", "long"]))
def test_constants_survive_print_parse_print(values: list[float], style: str) -> None:
    body = ", ".join(format_float(np.float32(v), "f32") for v in values)
    text = f"ENTRY e {{\n  ROOT c = f32[{len(values)}] constant({{{body}}})\n}}\n"
    m1 = hlotools.parse_module(text, verify=False)
    printed = print_module(m1, style)
    m2 = hlotools.parse_module(printed, verify=False)
    assert m1.entry is not None and m2.entry is not None
    a1 = m1.entry.root.literal.array  # type: ignore[union-attr]
    a2 = m2.entry.root.literal.array  # type: ignore[union-attr]
    assert a1.tobytes() == a2.tobytes() == np.asarray(values, dtype=np.float32).tobytes()
    assert print_module(m2, style) == printed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hlo_modules(), st.sampled_from(["short", "long"]))
def test_generated_modules_round_trip(text: str, style: str) -> None:
    """parse (with verification) -> print -> parse gives the same module, and printing is a fixed point."""
    m1 = hlotools.parse_module(text, "generated.hlo")
    printed = print_module(m1, style)
    m2 = hlotools.parse_module(printed, f"<{style} reprint>")
    assert module_difference(m1, m2) is None, (module_difference(m1, m2), text, printed)
    assert print_module(m2, style) == printed
    other = "long" if style == "short" else "short"
    assert print_module(hlotools.parse_module(print_module(m2, other)), style) == printed
