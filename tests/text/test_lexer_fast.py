"""The one-token fast path (hlotools/text/lexer_fast.py) and the general grammar rules must build
the same IR: every corpus module is parsed both ways and the results compared field by field."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hlotools.ir.computation import Computation
from hlotools.ir.module import Module
from hlotools.text import lexer
from hlotools.text.parser import parse
from tests.support.corpus import XLA, jax_files, parsed, xla_files


def _value(v: Any) -> Any:
    if isinstance(v, Computation):
        return ("computation", v.name)
    if isinstance(v, tuple):
        return tuple(_value(x) for x in v)
    return (type(v).__name__, repr(v))


def summary(m: Module) -> tuple:
    comps = []
    for c in m.computations:
        insts = []
        for i in c.instructions:
            lit = None
            if i.literal is not None:
                lit = (i.literal.elided, None if i.literal.array is None else
                       (i.literal.array.dtype.str, np.asarray(i.literal.array).tobytes()))
            insts.append((i.name, i.opcode, i.shape.to_text(), [o.name for o in i.operands],
                          sorted(u.name for u in i.users), [(k, _value(v)) for k, v in i.attrs.items()],
                          lit, i.parameter_number, [p.name for p in i.control_predecessors],
                          i.line, i.column))
        comps.append((c.name, c.is_entry, c.root.name if c.root else None, insts, c.execution_thread,
                      c.signature_text, c.line, c.column))
    return (m.name, m.source_style, m.stack_frames_text, list(m.attrs.items()), comps,
            m.entry.name if m.entry else None)


def _files() -> list[Path]:
    return jax_files() + [XLA / f for f in xla_files("parse_ok")]


@pytest.mark.slow
@pytest.mark.skipif(not _files(), reason="shared corpora not present")
def test_fast_and_general_paths_build_the_same_ir() -> None:
    mismatches = []
    files = _files()
    for path in files:
        fast = summary(parsed(path))  # the fast path, parsed once per session (tests/support/corpus.py)
        lexer.FAST_PATH = False
        try:
            general = summary(parse(path.read_text(), str(path)))
        finally:
            lexer.FAST_PATH = True
        if fast != general:
            mismatches.append(path.name)
    assert len(files) == 147 + 1691 and mismatches == []
