"""Every opcode of the opcode table is lowered by the LLVM backend or refused with a reason;
refusals are clean compile-time errors naming the instruction."""
from __future__ import annotations

import pytest

import hlotools
from hlotools.backend.llvm import compile_module
from hlotools.backend.llvm.registry import UNSUPPORTED, supported_opcodes
from hlotools.errors import HloUnsupportedError
from hlotools.ir.opcodes import OPCODES


def test_every_opcode_is_lowered_or_refused_with_a_reason() -> None:
    supported = supported_opcodes()
    missing = sorted(op for op in OPCODES if op not in supported and op not in UNSUPPORTED)
    assert not missing, f"opcodes with neither an LLVM emitter nor an UNSUPPORTED reason: {missing}"
    assert all(len(UNSUPPORTED[op]) > 10 for op in UNSUPPORTED)
    both = sorted(op for op in UNSUPPORTED if op in supported)
    assert not both, f"listed as unsupported but implemented: {both}"


def test_unsupported_op_is_a_compile_error_naming_the_instruction() -> None:
    m = hlotools.parse_module("HloModule m\n"
                              "ENTRY e {\n  x = f32[4] parameter(0)\n"
                              "  ROOT s = f32[4] custom-call(x), custom_call_target=\"no_such_target\"\n}\n",
                              verify=False)
    with pytest.raises(HloUnsupportedError, match=r"custom-call %s.*no_such_target"):
        compile_module(m)
