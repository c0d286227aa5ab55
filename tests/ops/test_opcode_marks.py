"""Every case in tests/ops names the opcodes it is about (`@opcode`, the `opcode(name)` marker),
and each name is an opcode of the table: so `pytest -m "opcode(name='reduce-window')"` finds all
of an opcode's semantics cases, and a misspelt or renamed opcode fails here."""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator

import pytest

import tests.ops
from hlotools.ir.opcodes import OPCODES


def _cases() -> Iterator[tuple[str, object]]:
    for info in pkgutil.iter_modules(tests.ops.__path__):
        if info.name.startswith("test_") and info.name != "test_opcode_marks":
            module = importlib.import_module(f"tests.ops.{info.name}")
            for name, fn in vars(module).items():
                if name.startswith("test_") and callable(fn):
                    yield f"{info.name}::{name}", fn


def opcode_names(fn: object) -> list[str]:
    marks = [m for m in getattr(fn, "pytestmark", []) if isinstance(m, pytest.Mark) and m.name == "opcode"]
    return [str(m.kwargs["name"]) for m in marks]


def test_every_ops_case_names_known_opcodes() -> None:
    cases = dict(_cases())
    assert len(cases) > 100  # the families are all there
    unmarked = sorted(k for k, fn in cases.items() if not opcode_names(fn))
    assert unmarked == [], f"tests/ops cases without @opcode: {unmarked}"
    unknown = sorted({(k, n) for k, fn in cases.items() for n in opcode_names(fn) if n not in OPCODES})
    assert unknown == [], f"@opcode names that are not opcodes: {unknown}"


def test_a_case_without_a_mark_or_with_a_wrong_name_is_seen() -> None:
    def unmarked() -> None: ...

    @pytest.mark.opcode(name="reduce_window")
    def misspelt() -> None: ...

    assert opcode_names(unmarked) == []
    assert [n for n in opcode_names(misspelt) if n not in OPCODES] == ["reduce_window"]
