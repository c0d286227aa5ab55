"""hlo-opt reads XLA's HloProto dumps and HLO text with glog prefixes."""
from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from hlotools.cli.common import strip_log_headers
from hlotools.cli.opt import main as opt_main

DUMP = Path(__file__).resolve().parents[2] / "testdata" / "xla_dump"


def test_hlo_opt_reads_a_proto_dump() -> None:
    result = CliRunner().invoke(opt_main, [str(DUMP / "module_0004.jit_f.cpu_after_optimizations.hlo.pb")])
    assert result.exit_code == 0, result.output
    assert "fusion(%y.1, %x.1), kind=kLoop, calls=%fused_computation" in result.output


def test_glog_prefixes_are_stripped(tmp_path: Path) -> None:
    logged = ("I0521 12:04:45.883483    1509 service.cc:186] HloModule m\n"
              "I0521 12:04:45.883490    1509 service.cc:186] ENTRY e {\n"
              "W0521 12:04:45.883491    1509 service.cc:186]   p = f32[2] parameter(0)\n"
              "I0521 12:04:45.883492    1509 service.cc:186]   ROOT n = f32[2] negate(p)\n"
              "I0521 12:04:45.883493    1509 service.cc:186] }\n")
    path = tmp_path / "log.txt"
    path.write_text(logged)
    result = CliRunner().invoke(opt_main, [str(path)])
    assert result.exit_code == 0, result.output
    assert "ROOT n = f32[2]{0} negate(p)" in result.output or "ROOT n = f32[2] negate(p)" in result.output
    assert strip_log_headers("a = b] c") == "a = b] c"  # a bracket alone is not a log header
