"""hlotools.ir.semantics: the xla-cpu|spec switch, from the environment, using() and --semantics."""
from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from hlotools.cli.run import main as hlo_run
from hlotools.errors import HloError
from hlotools.ir import semantics

MODULE = "HloModule m\nENTRY e {\n  x = f32[2] parameter(0)\n  ROOT n = f32[2] negate(x)\n}\n"


def test_default_is_xla_cpu_and_using_restores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(semantics.ENV, "")
    monkeypatch.delenv(semantics.ENV)
    assert semantics.current() == "xla-cpu" and semantics.xla_cpu()
    with semantics.using("spec"):
        assert semantics.current() == "spec" and not semantics.xla_cpu()
    assert semantics.ENV not in os.environ


def test_a_bad_value_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(semantics.ENV, "ieee")
    with pytest.raises(HloError, match="HLOTOOLS_SEMANTICS='ieee'"):
        semantics.current()
    with pytest.raises(HloError):
        with semantics.using("nonsense"):
            pass


def test_the_command_line_sets_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(semantics.ENV, "")  # recorded, so the value the CLI sets is undone afterwards
    r = CliRunner().invoke(hlo_run, ["-", "--random", "0", "--backend", "interp", "--semantics", "spec"],
                           input=MODULE)
    assert r.exit_code == 0, r.output
    assert os.environ.get(semantics.ENV) == "spec"  # what the backends and the cache key read
    r = CliRunner().invoke(hlo_run, ["-", "--random", "0", "--semantics", "bogus"], input=MODULE)
    assert r.exit_code == 2
