"""Error-message cases in testdata/errors/*.hlo: the first line of each file is
`// ERROR: LINE:COL: expected message substring`; parsing must raise HloParseError there."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from hlotools.errors import HloParseError
from hlotools.text.parser import parse
from tests.support.paths import TESTDATA

CASES = sorted((TESTDATA / "errors").glob("*.hlo"))
_HEADER = re.compile(r"// ERROR: (\d+):(\d+): (.*)")


def test_there_are_cases() -> None:
    assert len(CASES) >= 25


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_error_case(path: Path) -> None:
    text = path.read_text()
    m = _HEADER.match(text.splitlines()[0])
    assert m is not None, f"{path.name}: first line must be // ERROR: L:C: message"
    line, col, message = int(m.group(1)), int(m.group(2)), m.group(3)
    with pytest.raises(HloParseError) as exc:
        parse(text, path.name)
    e = exc.value
    assert message in e.message, e.format()
    assert (e.line, e.column) == (line, col), e.format()
    assert e.format().startswith(f"{path.name}:{line}:{col}: error: ")
