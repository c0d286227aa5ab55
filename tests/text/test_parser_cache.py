"""The LALR tables are built once and cached in the user's cache dir (never in the package, which
may be read-only); an unwritable or corrupt cache only costs a rebuild."""
from __future__ import annotations

from pathlib import Path

import pytest

from hlotools.text import parser

SMALL = "ENTRY e {\n  ROOT c = f32[] constant(1)\n}\n"


@pytest.fixture
def fresh_tables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setattr(parser, "_TABLES", None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    yield tmp_path
    parser._TABLES = None


def test_grammar_ships_as_package_data() -> None:
    text = parser.grammar_text()
    assert "%declare" in text and "instruction_fast" in text


def test_tables_are_cached_and_reused(fresh_tables: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parser.tables()
    cached = list((fresh_tables / "hlotools").glob("hlo-lalr-*.pickle"))
    assert len(cached) == 1
    monkeypatch.setattr(parser, "_TABLES", None)

    def no_rebuild(grammar: str) -> None:
        raise AssertionError("tables were rebuilt although a cache exists")
    monkeypatch.setattr(parser, "_build_tables", no_rebuild)
    parser.tables()
    assert parser.parse(SMALL).entry is not None


def test_unwritable_cache_dir_still_parses(fresh_tables: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = fresh_tables / "not-a-dir"
    blocker.write_text("")  # the cache dir cannot be created under a file (works even as root)
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert parser.parse(SMALL).entry is not None
    assert blocker.read_text() == ""


def test_corrupt_cache_is_rebuilt(fresh_tables: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parser.tables()
    (cached,) = (fresh_tables / "hlotools").glob("hlo-lalr-*.pickle")
    cached.write_bytes(b"not a pickle")
    monkeypatch.setattr(parser, "_TABLES", None)
    assert parser.parse(SMALL).entry is not None


def test_package_dir_is_never_written(fresh_tables: Path) -> None:
    grammar_dir = Path(parser.__file__).resolve().parents[2] / "grammar"
    before = sorted(p.name for p in grammar_dir.iterdir())
    parser.tables()
    assert sorted(p.name for p in grammar_dir.iterdir()) == before
