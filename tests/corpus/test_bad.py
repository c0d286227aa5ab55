"""Every `parse_error` file of the XLA corpus (bad/) is rejected with a located HloError whose
message says what XLA's says (bad/EXPECTED_ERRORS.json), and our message per file is pinned in
testdata/errors/xla_bad_messages.tsv so a change of wording or location is a visible decision."""
from __future__ import annotations

import json
import re

import pytest

from hlotools.errors import HloError
from hlotools.text.parser import parse
from tests.support.corpus import HAVE_XLA, XLA, xla_files
from tests.support.paths import ROOT

PINNED = ROOT / "testdata" / "errors" / "xla_bad_messages.tsv"

pytestmark = pytest.mark.skipif(not HAVE_XLA, reason="shared XLA corpus not present")


def _pinned() -> dict[str, tuple[str, str]]:
    out = {}
    for line in PINNED.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        file, where, message = line.split("\t", 2)
        out[file] = (where, message)
    return out


def says_the_same(e: HloError, expected: str) -> bool:
    """XLA's substrings may include its own framing ("was parsing L:C: error: MSG\\n<line>\\n^"):
    compare the message and the location instead of the framing."""
    if expected in e.message or expected in e.format():
        return True
    m = re.match(r"was parsing (\d+):(\d+): error: ([^\n]*)", expected)
    if m is None:
        return False
    line, col, msg = int(m.group(1)), int(m.group(2)), m.group(3)
    return msg in e.message and ((e.line, e.column) == (line, col) or f"{line}:{col}" in e.message)


def _reject(rel: str) -> HloError:
    text = (XLA / rel).read_text()
    with pytest.raises(HloError) as exc:
        parse(text, rel)
    return exc.value


@pytest.mark.slow
def test_counts() -> None:
    files = xla_files("parse_error")
    assert len(files) == 110
    assert set(_pinned()) == set(files)


@pytest.mark.slow
@pytest.mark.parametrize("rel", xla_files("parse_error"))
def test_bad_file_is_rejected_like_xla(rel: str) -> None:
    expected = json.loads((XLA / "bad" / "EXPECTED_ERRORS.json").read_text()).get(rel, [])
    e = _reject(rel)
    assert e.line is not None and e.column is not None, f"no location: {e.message}"
    if expected:
        assert any(says_the_same(e, s) for s in expected), f"{e.message!r} does not say {expected!r}"
    where, message = _pinned()[rel]
    assert f"{e.line}:{e.column}" == where
    assert e.message.splitlines()[0].replace("\t", " ") == message
