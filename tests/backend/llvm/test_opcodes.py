"""Every opcode of the opcode table is lowered by the LLVM backend or refused with a reason;
refusals are clean compile-time errors naming the instruction."""
from __future__ import annotations

import numpy as np
import pytest

import hlotools
from hlotools.backend.llvm import compile_module
from hlotools.backend.llvm.codegen.registry import UNSUPPORTED, supported_opcodes
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


# ------------------------------------------------- element-type coverage of elementwise ops

def _elementwise_cases() -> list[tuple[str, str]]:
    """Every (opcode, instruction text) of one elementwise opcode: unary, binary, compare
    (each direction), select and clamp, on `ET[4]` operands x, y, z (p: pred[4])."""
    from hlotools.ir.opcodes import OPCODES
    cases: list[tuple[str, str]] = []
    for name, info in sorted(OPCODES.items()):
        if info.category == "unary" and name not in ("reduce-precision",):
            cases.append((name, f"{name}(x)"))
        elif info.category == "binary":
            cases.append((name, f"{name}(x, y)"))
        elif info.category == "select":
            cases.append((name, "select(p, x, y)"))
        elif info.category == "clamp":
            cases.append((name, "clamp(x, y, z)"))
        elif info.category == "compare":
            cases += [(f"compare {d}", f"compare(x, y), direction={d}") for d in ("EQ", "NE", "LT", "GE")]
    return cases


_HEADER = ("HloModule m\nENTRY e {{\n  x = {et}[4] parameter(0)\n  y = {et}[4] parameter(1)\n"
           "  z = {et}[4] parameter(2)\n  p = pred[4] parameter(3)\n")


def _module(et: str, calls: list[str]) -> str:
    """One module computing every call (the result shapes are left to shape inference)."""
    body = "".join(f"  r{k} = {c}\n" for k, c in enumerate(calls))
    root = ", ".join(f"r{k}" for k in range(len(calls)))
    return _HEADER.format(et=et) + body + f"  ROOT t = tuple({root})\n}}\n"


def _inputs(et: str) -> list[np.ndarray]:
    from hlotools.ir.types import ELEMENT_TYPES
    dt = ELEMENT_TYPES[et].dtype
    vals = np.array([0.5, 1.0, 2.0, 3.0]) if et != "pred" else np.array([0, 1, 1, 0])
    x = (vals + 0.25j * vals).astype(dt) if dt.kind == "c" else vals.astype(dt)
    return [x, x, x, np.array([True, False, True, False])]


def _interpreter_accepts(et: str, call: str) -> bool:
    """The instruction verifies (shape inference accepts the element type) and the interpreter
    evaluates it without an error."""
    from hlotools import evaluate
    from hlotools.errors import HloError
    try:
        m = hlotools.parse_module(_module(et, [call]))
        with np.errstate(all="ignore"):
            evaluate(m, _inputs(et))
    except HloError:
        return False
    return True


def _llvm_refusal(et: str, calls: list[str]) -> dict[str, str]:
    """The calls the LLVM backend refuses (call -> message): one compile of them all, then one
    per call only when that fails."""
    def refused(cs: list[str]) -> str | None:
        try:
            compile_module(hlotools.parse_module(_module(et, cs)))
        except HloUnsupportedError as e:
            return str(e)
        return None
    if not calls or refused(calls) is None:
        return {}
    return {c: msg for c in calls if (msg := refused([c])) is not None}


# (opcode, element type kind) pairs the interpreter runs and the LLVM backend refuses, each with
# its reason (the backend's own table where it has one).
def _llvm_unsupported() -> dict[tuple[str, str], str]:
    from hlotools.backend.llvm.llvm_ir.complex_ops import UNSUPPORTED_COMPLEX
    return {(op, "complex"): reason for op, reason in UNSUPPORTED_COMPLEX.items()}


@pytest.mark.parametrize("et", ["pred", "s4", "s8", "s32", "s64", "u8", "u32", "u64", "f16", "bf16", "f32", "f64",
                                "f8e5m2", "f8e4m3fn", "c64", "c128"])
def test_every_elementwise_opcode_and_element_type_the_interpreter_runs_compiles(et: str) -> None:
    """Design rule 1 per element type: where the interpreter evaluates an elementwise opcode on
    `et`, the LLVM backend compiles it too, unless the pair is listed with a reason (and a
    listed pair must really be refused, so the list cannot go stale)."""
    from hlotools.ir.types import ELEMENT_TYPES
    kind = ELEMENT_TYPES[et].kind
    unsupported = _llvm_unsupported()
    accepted = [(op, call) for op, call in _elementwise_cases() if _interpreter_accepts(et, call)]
    assert accepted, f"the interpreter runs no elementwise opcode on {et}"
    refused = _llvm_refusal(et, [call for _, call in accepted])
    for op, call in accepted:
        listed = (op.split()[0], kind) in unsupported
        if call in refused:
            assert listed, f"LLVM refuses {op} of {et}, which the interpreter runs: {refused[call]}"
        else:
            assert not listed, f"{op} of {et} is listed as unsupported but compiles"
