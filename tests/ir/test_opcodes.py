"""Design rule 1: every opcode of the table is implemented by the interpreter or listed as
unsupported there with a reason — so adding an opcode cannot silently miss a backend."""
from __future__ import annotations

from hlotools.ir.opcodes import OPCODES


def test_every_opcode_has_an_interpreter_kernel_or_a_reason() -> None:
    import hlotools.interpreter  # noqa: F401  (registers the kernels)
    from hlotools.interpreter.registry import KERNELS, UNSUPPORTED

    missing = KERNELS.missing(set(OPCODES) - set(UNSUPPORTED))
    assert missing == [], f"opcodes with neither a kernel nor a stated reason: {missing}"
    assert not set(KERNELS) & set(UNSUPPORTED), "an opcode cannot be both implemented and unsupported"
    assert all(reason.strip() for reason in UNSUPPORTED.values())
    unknown = sorted((set(KERNELS) | set(UNSUPPORTED)) - set(OPCODES))
    assert unknown == [], f"kernels for opcodes the table does not know: {unknown}"


def test_table_facts_are_consistent() -> None:
    for name, info in OPCODES.items():
        assert info.name == name
        if info.commutative:
            assert info.arity == 2, name
        assert info.category, name
    # Spot checks against XLA's opcode definitions.
    assert OPCODES["add"].commutative and not OPCODES["subtract"].commutative
    assert OPCODES["rng"].side_effect and not OPCODES["add"].side_effect
    assert not OPCODES["reshape"].shape_optional and OPCODES["broadcast"].shape_optional
    assert OPCODES["exponential"].expensive and not OPCODES["add"].expensive
