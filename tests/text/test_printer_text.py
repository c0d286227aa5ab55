"""Printer behaviour on parsed text: canonical attribute order, async sugar, header forms."""
from __future__ import annotations

import hlotools
from hlotools.text.printer import print_instruction, print_module


def reprint(text: str, style: str = "short", **kw: bool) -> str:
    return print_module(hlotools.parse_module(text, verify=False), style, **kw)


def test_attributes_print_in_xla_order() -> None:
    text = """
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  p = f32[8,16] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[16] reduce(p, z), metadata={op_name="r"}, to_apply=add, dimensions={0}
}
"""
    out = reprint(text)
    assert '  ROOT r = f32[16]{0} reduce(p, z), dimensions={0}, to_apply=add, metadata={op_name="r"}\n' in out
    again = hlotools.parse_module(out, verify=False)
    assert reprint(out) == out and again.entry is not None


def test_reduce_scatter_puts_use_global_device_ids_before_dimensions() -> None:
    text = """
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY main {
  p = f32[8] parameter(0)
  ROOT rs = f32[4] reduce-scatter(p), dimensions={0}, use_global_device_ids=true, channel_id=1, replica_groups={{0,1}}, to_apply=add
}
"""
    line = [ln for ln in reprint(text).split("\n") if "reduce-scatter" in ln][0]
    assert line.endswith("reduce-scatter(p), channel_id=1, replica_groups={{0,1}}, "
                         "use_global_device_ids=true, dimensions={0}, to_apply=add")


def test_async_sugar_round_trips_and_hides_the_wrapped_computation() -> None:
    text = """
HloModule m

ENTRY main {
  p0 = f32[10] parameter(0)
  s = ((f32[10]), f32[20], s32[]) custom-call-start(p0), custom_call_target="foo"
  u = ((f32[10]), f32[20], s32[]) custom-call-update(s)
  ROOT d = f32[20] custom-call-done(u)
}
"""
    out = reprint(text, "long")
    assert "async_wrapped" not in out
    assert ("  %s = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-start(%p0), "
            'custom_call_target="foo"\n') in out
    assert "  %u = ((f32[10]{0}), f32[20]{0}, s32[]) custom-call-update(%s)\n" in out
    assert "  ROOT %d = f32[20]{0} custom-call-done(%u)\n" in out
    assert reprint(out, "long") == out


def test_explicit_async_computation_keeps_its_name_and_drops_derived_calls() -> None:
    text = """
HloModule m

comp { p = f32[10] parameter(0)  ROOT n = f32[10] negate(p) }

ENTRY main {
  p0 = f32[10] parameter(0)
  s = ((f32[10]), f32[10], s32[]) async-start(p0), calls=comp
  ROOT d = f32[10] async-done(s), calls=comp
}
"""
    out = reprint(text)
    assert "\ncomp {\n" in out
    assert "  s = ((f32[10]{0}), f32[10]{0}, s32[]) async-start(p0), calls=comp\n" in out
    assert "  ROOT d = f32[10]{0} async-done(s)\n" in out
    module = hlotools.parse_module(out, verify=False)
    assert module.entry is not None and module.entry.root is not None
    assert module.entry.root.attrs["calls"].name == "comp"


def test_operand_shapes_option_and_elided_constants() -> None:
    text = "ENTRY e { a = f32[2] parameter(0)  c = f32[12] constant({0,1,2,3,4,5,6,7,8,9,10,11})\n" \
           "  ROOT s = f32[2] slice(c), slice={[0:2]} }"
    m = hlotools.parse_module(text, verify=False)
    out = print_module(m, "long", print_operand_shapes=True, print_large_constants=False)
    assert "  %c = f32[12]{0} constant({...})\n" in out
    assert "  ROOT %s = f32[2]{0} slice(f32[12]{0} %c), slice={[0:2]}\n" in out
    assert m.entry is not None
    assert print_instruction(m.entry.instructions[1]) == \
        "c = f32[12]{0} constant({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})"


def test_header_attribute_order_and_stack_frames() -> None:
    text = """HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}, is_scheduled=true

FileNames
1 "a.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=2}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

ENTRY main {
  ROOT p = f32[2] parameter(0), metadata={op_name="x" stack_frame_id=1}
}
"""
    out = reprint(text)
    assert out.startswith("HloModule m, is_scheduled=true, entry_computation_layout={(f32[2]{0})->f32[2]{0}}"
                          "\n\nFileNames\n1 \"a.py\"\n")
    assert "\n1 {file_location_id=1 parent_frame_id=1}\n\n\nENTRY main {\n" in out
    assert reprint(out) == out


def test_dim_labels_are_printed_from_the_dimension_numbers() -> None:
    from hlotools.ir.attributes import ConvDimLabels
    from hlotools.text.print_attrs import dim_labels_text

    d = ConvDimLabels(0, 3, (1, 2), 2, 3, (0, 1), 0, 3, (1, 2), text="ignored")
    assert dim_labels_text(d) == "b01f_01io->b01f"
    nchw = ConvDimLabels(0, 1, (2, 3), 1, 0, (2, 3), 0, 1, (2, 3), text="ignored")
    assert dim_labels_text(nchw) == "bf01_oi01->bf01"


def test_case_insensitive_enums_print_in_xla_case() -> None:
    text = "ENTRY e { s = u32[2] parameter(0)\n" \
           "  ROOT r = (u32[2], u32[4]) rng-bit-generator(s), algorithm=RNG_PHILOX }"
    assert "rng-bit-generator(s), algorithm=rng_philox\n" in reprint(text)


def test_default_valued_attributes_are_left_out() -> None:
    text = """
cmp { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT lt = pred[] compare(a, b), direction=LT, type=FLOAT }
ENTRY e {
  x = f32[4] parameter(0)
  i = s32[4] parameter(1)
  c = pred[4] compare(i, i), direction=GT, type=SIGNED
  t = pred[4] compare(x, x), direction=GT, type=TOTALORDER
  s = f32[4] sort(x), dimensions={0}, is_stable=false, to_apply=cmp
  ROOT k = (f32[2], s32[2]) topk(x), k=2, largest=true, is_stable=false
}
"""
    out = reprint(text)
    assert "  c = pred[4]{0} compare(i, i), direction=GT\n" in out
    assert "  t = pred[4]{0} compare(x, x), direction=GT, type=TOTALORDER\n" in out
    assert "  s = f32[4]{0} sort(x), dimensions={0}, to_apply=cmp\n" in out
    assert "topk(x), k=2, largest=true, is_stable=false\n" in out
    assert "ROOT lt = pred[] compare(a, b), direction=LT\n" in out


def test_operand_precision_prints_lowercase_without_spaces() -> None:
    text = "ENTRY e { a = f32[2,2] parameter(0)\n" \
           "  ROOT d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}, " \
           "operand_precision={HIGH, default} }"
    assert "rhs_contracting_dims={0}, operand_precision={high,default}\n" in reprint(text)
