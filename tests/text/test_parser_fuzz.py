"""Mutated HLO text only ever yields a module or an HloError: never another exception, never a hang.

Seeds are small files from the shared corpora plus an inline module (so the test still runs
without the corpora), and generated modules (tests/support/hlo_strategies.py) with small edits. Texts
that still parse are verified too, so shape inference and the verifier are fuzzed as well. Mutations: truncation, deleted and swapped spans, duplicated spans and
inserted random characters (HLO punctuation weighted up, since that is where parsers break).
"""
from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hlotools import parse_module
from hlotools.errors import HloError
from hlotools.text import lexer
from tests.support.hlo_strategies import hlo_modules
from tests.support.paths import SHARED

SHARED = SHARED / "corpus"
INLINE = """HloModule m, entry_computation_layout={(f32[2,3]{1,0}, (s32[], f32[2]{0}))->f32[3]{0}}

add (a: f32[], b: f32[]) -> f32[] {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[2,3]{1,0} parameter(0), sharding={devices=[2,1]0,1}
  t = (s32[], f32[2]{0}) parameter(1)
  c = f32[] constant(-inf), metadata={op_name="x" source_line=3}
  k = f32[2,2]{1,0} constant({ {1, 2}, {3, nan(0x1)} })
  r = f32[3]{0} reduce(p, c), dimensions={0}, to_apply=add, backend_config={"a": [1, {"b": 2}]}
  g = f32[2]{0} negate(t#1)
  ROOT o = f32[3]{0} add(r, f32[3]{0} broadcast(c), /*index=2*/), control-predecessors={g}
}
"""


def _seeds() -> list[str]:
    seeds = [INLINE]
    for folder in ("xla/parser_test", "jax"):
        d = SHARED / folder
        if d.is_dir():
            files = sorted(p for p in d.glob("*.hlo") if p.stat().st_size < 2500)
            seeds += [p.read_text() for p in files[::7][:40]]
    return seeds


SEEDS = _seeds()
ALPHABET = "{}()[],=%#:<>-+*?.\"'/ \n0123456789abcfxT_\\\x00"


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def boom(signum: int, frame: object) -> None:
        raise TimeoutError(f"parse did not finish within {seconds}s")
    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 40)))
        kind = draw(st.sampled_from(["truncate", "delete", "swap", "insert", "duplicate"]))
        if kind == "truncate":
            text = text[:i]
        elif kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif kind == "swap":
            k = draw(st.integers(0, n))
            a, b = sorted((i, k))
            text = text[:a] + text[b:b + (j - i)] + text[a + (j - i):b] + text[a:a + (j - i)] + text[b + (j - i):]
        else:
            text = text[:i] + draw(st.text(alphabet=ALPHABET, min_size=1, max_size=6)) + text[i:]
    return text


# The grammar's terminal names and Lark's own words: none may leak into a message.
_GRAMMAR_WORDS = re.compile(r"\b(?:LPAR|RPAR|LBRACE|RBRACE|COMMA|ARROW|SHAPE|CATTR|CLATTR|PARAMNUM|INSTR|PNAME|"
                            r"CNAME|IDENT|HLOMODULE|STACKFRAMES|UnexpectedToken|Token|lark)\b|\$END")


def _check(text: str) -> None:
    """Parse and verify: a mutation that still parses must get through the verifier and shape
    inference with nothing but HloError too."""
    with time_limit(10):
        try:
            parse_module(text, "fuzz.hlo")
        except HloError as e:
            assert e.line is None or e.line >= 1
            assert not _GRAMMAR_WORDS.search(e.message), f"message not in HLO terms: {e.message}"
            e.format()


@st.composite
def mutated_generated(draw: st.DrawFn) -> str:
    """A valid generated module with a few small edits: mostly still parses, so the verifier and
    shape inference see near-valid modules (a dimension, type or operand list changed)."""
    text = draw(hlo_modules())
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        piece = draw(st.sampled_from(["0", "1", "-1", "3", "f32", "s8", "pred", "{}", "()", ",", ""]))
        text = text[:i] + piece + text[j:]
    return text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_generated())
def test_edited_generated_modules_only_raise_hlo_errors(text: str) -> None:
    _check(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutations_only_raise_hlo_errors(text: str) -> None:
    _check(text)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutations_without_fast_path(text: str) -> None:
    lexer.FAST_PATH = False
    try:
        _check(text)
    finally:
        lexer.FAST_PATH = True


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=ALPHABET + "ENTRYROOTHloModule", max_size=80))
def test_random_text(text: str) -> None:
    _check(text)
