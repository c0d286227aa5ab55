"""io/xla_dump.py: XLA's dump file names."""
from __future__ import annotations

from pathlib import Path

import pytest

from hlotools.errors import HloError
from hlotools.io.xla_dump import classify, find_module, find_stage, read_dump_folder


@pytest.mark.parametrize("name, want", [
    ("module_0003.jit_f.before_optimizations.txt", (3, "jit_f", "before", None, "", "", "")),
    ("module_0003.jit_f.cpu_after_optimizations.hlo.pb", (3, "jit_f", "after", None, "", "", "")),
    ("module_0000.m.after_optimization.txt", (0, "m", "after", None, "", "", "")),  # XLA's hlo-opt
    ("module_0003.jit_f.cpu_after_optimizations-buffer-assignment.txt",
     (3, "jit_f", "report", None, "", "", "buffer-assignment")),
    ("module_0003.jit_f.0012.simplification.after_algsimp.before_simplify-sorts.txt",
     (3, "jit_f", "pass", 12, "simplification", "algsimp", "")),
    ("module_0001.jit_g.1.0002.transforms_pipeline.after_dce.txt",  # a dotted module name, our own dumps
     (1, "jit_g.1", "pass", 2, "transforms_pipeline", "dce", "")),
    ("1701234567.module_0007.jit_h.before_optimizations.txt", (7, "jit_h", "before", None, "", "", "")),
])
def test_file_names(name: str, want: tuple) -> None:
    found = classify(Path(name))
    assert found is not None
    module_id, module, f = found
    assert (module_id, module, f.kind, f.step, f.pipeline, f.pass_name, f.report) == want


@pytest.mark.parametrize("name", ["module_0003.jit_f.debug_options", "module_0003.jit_f.ir-no-opt.ll",
                                  "module_0003.jit_f.obj-file.dot_kernel.o", "notes.txt",
                                  "module_0000.m.before_dce.reproducer.hlo"])
def test_other_files_are_skipped(name: str) -> None:
    assert classify(Path(name)) is None


def test_modules_and_stages(tmp_path: Path) -> None:
    for name in ["module_0001.a.before_optimizations.txt", "module_0001.a.0001.p.after_dce.txt",
                 "module_0001.a.0002.p.after_constant_folding.txt", "module_0001.a.0003.q.after_dce.txt",
                 "module_0002.b.before_optimizations.txt", "module_0002.b.before_optimizations.hlo.pb"]:
        (tmp_path / name).write_text("")
    modules = read_dump_folder(tmp_path)
    assert [(m.id, m.name) for m in modules] == [(1, "a"), (2, "b")]
    assert find_module(modules, "2", "d").stage("before").path.name == "module_0002.b.before_optimizations.txt"
    a = find_module(modules, "a", "d")
    aliases = {"constant_folding": "constant-folding"}
    assert find_stage(a, "constant-folding", aliases, "d").step == 2
    assert find_stage(a, "q.dce", aliases, "d").step == 3 and find_stage(a, "1", aliases, "d").step == 1
    with pytest.raises(HloError, match="ambiguous.*steps 0001 \\(p\\), 0003 \\(q\\)"):
        find_stage(a, "dce", aliases, "d")
    with pytest.raises(HloError, match="has no after_optimizations file"):
        find_stage(a, "after", aliases, "d")
    with pytest.raises(HloError, match="give --module"):
        find_module(modules, None, "d")
