"""hlotools.diff: matching by name, structure and place; fields that changed; fusions formed and split."""
from __future__ import annotations

import hlotools
from hlotools.diff import diff_modules
from tests.support.paths import ROOT

STEP = ROOT / "testdata" / "xla_dump_step"
BEFORE_FUSION = STEP / "module_0008.jit_step.0016.after_layout_assignment.after_pipeline-start.before_pipeline-end.txt"
AFTER_FUSION = STEP / "module_0008.jit_step.0017.HLO_passes_after_layout_assignment.after_fusion.before_fusion-wrapper.txt"

BASE = """HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  c = f32[] constant(2)
  b = f32[4] broadcast(c), dimensions={}
  m = f32[4] multiply(p, b), metadata={op_name="a"}
  ROOT n = f32[4] negate(m)
}
"""


def parse(text: str) -> hlotools.ir.module.Module:
    return hlotools.parse_module(text)


def test_the_same_module_is_the_same_and_renames_alone_do_not_count() -> None:
    assert diff_modules(parse(BASE), parse(BASE)).same
    renamed = BASE.replace("m = f32[4] multiply", "mm = f32[4] multiply").replace("negate(m)", "negate(mm)")
    d = diff_modules(parse(BASE), parse(renamed))
    assert d.same and d.renamed == [("m", "mm")]
    assert diff_modules(parse(BASE), parse(BASE.replace('op_name="a"', 'op_name="b"'))).same
    d = diff_modules(parse(BASE), parse(BASE.replace('op_name="a"', 'op_name="b"')), with_metadata=True)
    assert [(c.after.name, [f.field for f in c.fields]) for c in d.changed] == [("m", ["attribute metadata"])]


def test_changed_fields_opcode_shape_operands_attributes_constants() -> None:
    other = (BASE.replace("constant(2)", "constant(3)").replace("negate(m)", "abs(m)")
             .replace("multiply(p, b)", "multiply(b, p)"))
    d = diff_modules(parse(BASE), parse(other))
    fields = {c.after.name: [(f.field, f.before, f.after) for f in c.fields] for c in d.changed}
    assert fields == {"c": [("constant", "2", "3")], "m": [("operands", "p, b", "b, p")],
                      "n": [("opcode", "negate", "abs")]}
    assert not d.added and not d.removed
    wide = BASE.replace("f32[4]", "f32[8]")
    d = diff_modules(parse(BASE), parse(wide))
    assert {c.after.name for c in d.changed} == {"p", "b", "m", "n"}
    assert all(c.fields[0].field == "shape" for c in d.changed)


def test_a_rewrite_is_removed_plus_added_and_users_see_new_operands() -> None:
    folded = BASE.replace("  c = f32[] constant(2)\n  b = f32[4] broadcast(c), dimensions={}\n", "")
    folded = folded.replace("multiply(p, b)", "add(p, p)")
    d = diff_modules(parse(BASE), parse(folded))
    assert [r.name for r in d.removed] == ["c", "b"]
    assert [(c.after.name, [f.field for f in c.fields]) for c in d.changed] == [("m", ["opcode", "operands"])]
    same_place = BASE.replace("m = f32[4] multiply(p, b)", "q = f32[4] multiply(p, b), sharding={replicated}")
    d = diff_modules(parse(BASE), parse(same_place.replace("negate(m)", "negate(q)")))
    assert [(c.before.name, c.after.name, c.fields[0].field) for c in d.changed] == [("m", "q", "attribute sharding")]


def test_xlas_fusion_is_fusions_formed_and_the_reverse_is_split() -> None:
    a, b = parse(BEFORE_FUSION.read_text()), parse(AFTER_FUSION.read_text())
    d = diff_modules(a, b)
    assert not d.added and not d.removed and not d.changed
    formed = {f.fusion.name: sorted(m.name for m in f.members) for f in d.fusions}
    assert formed == {"multiply_subtract_fusion": ["broadcast.4", "constant.4", "mul.7", "sub.5"],
                      "multiply_add_fusion": sorted(["add_any.1", "tanh.1", "sub.4", "constant", "broadcast",
                                                     "broadcast_in_dim.1", "constant.7", "broadcast.7", "sub.3",
                                                     "mul.5", "mul.6"])}
    assert {f.event for f in d.fusions} == {"formed"} and {f.kind for f in d.fusions} == {"kLoop"}
    back = diff_modules(b, a)
    assert {f.event for f in back.fusions} == {"split"} and not back.added and not back.removed
    assert back.counts()["fusions_split"] == 2


def test_a_changed_fused_computation_is_a_change_of_the_fusion() -> None:
    text = AFTER_FUSION.read_text()
    other = text.replace("%tanh.0 = f32[2,3]{1,0} tanh(%param_1.7)", "%tanh.0 = f32[2,3]{1,0} exponential(%param_1.7)")
    d = diff_modules(parse(text), parse(other))
    assert [(c.after.name, c.fields[0].field) for c in d.changed] == [("multiply_add_fusion", "fused computation")]


def test_a_long_chain_does_not_hit_the_recursion_limit() -> None:
    lines = ["HloModule chain", "ENTRY e {", "  x0 = f32[2] parameter(0)"]
    lines += [f"  x{i} = f32[2] negate(x{i - 1})" for i in range(1, 3000)]
    lines += ["  ROOT r = f32[2] negate(x2999)", "}"]
    text = "\n".join(lines)
    assert diff_modules(parse(text), parse(text.replace("x1500 = f32[2] negate", "x1500 = f32[2] abs"))).changed


MULTI_A = """HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  e1 = f32[4] exponential(p)
  n = f32[4] negate(e1)
  a = f32[4] abs(e1)
  ROOT t = (f32[4], f32[4]) tuple(n, a)
}
"""
MULTI_B = """HloModule m
fused {
  q = f32[4] parameter(0)
  x = f32[4] exponential(q)
  y = f32[4] negate(x)
  z = f32[4] abs(x)
  ROOT r = (f32[4], f32[4]) tuple(y, z)
}
ENTRY e {
  p = f32[4] parameter(0)
  f = (f32[4], f32[4]) fusion(p), kind=kLoop, calls=fused
  g0 = f32[4] get-tuple-element(f), index=0
  g1 = f32[4] get-tuple-element(f), index=1
  ROOT t = (f32[4], f32[4]) tuple(g0, g1)
}
"""


def test_a_multi_output_fusion_and_its_get_tuple_elements_are_one_fusion_formed() -> None:
    d = diff_modules(parse(MULTI_A), parse(MULTI_B))
    assert not d.added and not d.removed and not d.changed, d.to_json()
    (f,) = d.fusions
    assert f.fusion.name == "f" and sorted(m.name for m in f.members) == ["a", "e1", "n"]


def test_names_reused_in_other_computations_match_in_their_own() -> None:
    text = """HloModule r
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
mul {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] multiply(x, y)
}
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  a = f32[] reduce(p, z), dimensions={0}, to_apply=add
  m = f32[] reduce(p, z), dimensions={0}, to_apply=mul
  ROOT t = (f32[], f32[]) tuple(a, m)
}
"""
    assert diff_modules(parse(text), parse(text)).same
    other = text.replace("ROOT s = f32[] multiply(x, y)", "ROOT s = f32[] maximum(x, y)")
    d = diff_modules(parse(text), parse(other))
    assert [(c.after.computation, c.after.name, c.fields[0].field) for c in d.changed] == [
        ("mul", "s", "opcode"), ("e", "m", "called computation")]
