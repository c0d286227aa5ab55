"""The printer on IR built by hand: both styles, attribute order, signatures, index comments."""
from __future__ import annotations

import numpy as np

from hlotools.ir.attributes import Enum, Raw
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.literal import Literal
from hlotools.ir.module import Module
from hlotools.ir.shape import Layout, Shape
from hlotools.ir.types import ELEMENT_TYPES
from hlotools.text.printer import print_computation, print_instruction, print_module

F32 = ELEMENT_TYPES["f32"]
PRED = ELEMENT_TYPES["pred"]


def f32(*dims: int) -> Shape:
    return Shape.array(F32, dims, Layout.default(len(dims)))


def build() -> Module:
    m = Module("jit_f")
    add = Computation("region_0.1")
    a = add.add_instruction(Instruction("a.1", "parameter", f32(), parameter_number=0))
    b = add.add_instruction(Instruction("b.1", "parameter", f32(), parameter_number=1))
    add.root = add.add_instruction(Instruction("add.1", "add", f32(), [a, b]))
    m.add_computation(add)
    main = Computation("main.2")
    main.is_entry = True
    x = main.add_instruction(Instruction("x.1", "parameter", f32(8, 16), parameter_number=0,
                                         attrs={"metadata": Raw('{op_name="x"}')}))
    zero = main.add_instruction(Instruction(
        "constant.1", "constant", f32(), literal=Literal.from_array(f32(), np.float32(0.797884583))))
    # Attributes inserted out of XLA's order: the printer puts them in canonical order.
    red = main.add_instruction(Instruction("reduce.1", "reduce", f32(16), [x, zero], attrs={
        "metadata": Raw('{op_name="jit(f)/reduce_sum"}'), "to_apply": add, "dimensions": (0,)}))
    cmp = main.add_instruction(Instruction("gt.1", "compare", Shape.array(PRED, (16,), Layout((0,))),
                                           [red, red], attrs={"direction": Enum("GT")}))
    cmp.control_predecessors.append(zero)
    outs = [red] * 6 + [cmp]
    tshape = Shape.tuple_of([o.shape for o in outs])
    main.root = main.add_instruction(Instruction("tuple.1", "tuple", tshape, outs))
    m.add_computation(main)
    m.entry = main
    m.attrs["entry_computation_layout"] = Raw("{(f32[8,16]{1,0})->f32[16]{0}}")
    m.attrs["is_scheduled"] = True
    return m


def test_long_style() -> None:
    text = print_module(build(), "long")
    lines = text.split("\n")
    assert lines[0] == ("HloModule jit_f, is_scheduled=true, "
                        "entry_computation_layout={(f32[8,16]{1,0})->f32[16]{0}}")
    assert lines[1] == ""
    assert lines[2] == "%region_0.1 (a.1: f32[], b.1: f32[]) -> f32[] {"
    assert lines[5] == "  ROOT %add.1 = f32[] add(%a.1, %b.1)"
    assert "ENTRY %main.2 (x.1: f32[8,16]) -> (f32[16], f32[16], f32[16], f32[16], f32[16], " \
           "/*index=5*/f32[16], pred[16]) {" in lines
    assert "  %constant.1 = f32[] constant(0.797884583)" in lines
    assert ("  %reduce.1 = f32[16]{0} reduce(%x.1, %constant.1), dimensions={0}, to_apply=%region_0.1, "
            'metadata={op_name="jit(f)/reduce_sum"}') in lines
    assert ("  %gt.1 = pred[16]{0} compare(%reduce.1, %reduce.1), direction=GT, "
            "control-predecessors={%constant.1}") in lines
    root = [ln for ln in lines if ln.startswith("  ROOT %tuple.1")][0]
    assert "/*index=5*/f32[16]{0}, pred[16]{0}) tuple(" in root
    assert root.endswith("%reduce.1, %reduce.1, %reduce.1, %reduce.1, %reduce.1, /*index=5*/%reduce.1, %gt.1)")
    assert text.endswith("}\n\n")


def test_short_style() -> None:
    text = print_module(build(), "short")
    assert "\nregion_0.1 {\n" in text
    assert "\nENTRY main.2 {\n" in text
    assert "  ROOT add.1 = f32[] add(a.1, b.1)\n" in text
    assert "tuple(reduce.1, reduce.1, reduce.1, reduce.1, reduce.1, reduce.1, gt.1)" in text
    assert "%" not in text


def test_helpers_and_large_constants() -> None:
    m = build()
    main = m.entry
    assert main is not None
    assert print_instruction(main.instructions[1], "long") == "%constant.1 = f32[] constant(0.797884583)"
    comp = print_computation(m.computations[0])
    assert comp.startswith("region_0.1 {\n") and comp.endswith("\n}")
    big = Instruction("c", "constant", f32(11), literal=Literal.from_array(f32(11), np.arange(11)))
    assert print_instruction(big) == "c = f32[11]{0} constant({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})"


def test_out_of_order_ir_prints_definitions_first() -> None:
    import hlotools

    m = Module("m")
    c = Computation("main")
    c.is_entry = True
    p = c.add_instruction(Instruction("p", "parameter", f32(4), parameter_number=0))
    late = Instruction("neg", "negate", f32(4), [p])
    use = c.add_instruction(Instruction("use", "add", f32(4), [late, p]))
    c.add_instruction(late)  # appended after its user, as a careless pass might
    c.root = use
    m.add_computation(c)
    m.entry = c
    text = print_module(m)
    assert text.index("  neg = ") < text.index("  ROOT use = ")
    again = hlotools.parse_module(text, verify=False)
    assert again.entry is not None and [i.name for i in again.entry.instructions] == ["p", "neg", "use"]
