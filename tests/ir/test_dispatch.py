"""ir/dispatch.py: the one dispatch-table class every layer registers into, and what the
tables built on it promise (no silent duplicates, guarded interpreter kernels, coverage)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import hlotools
from hlotools.errors import HloRuntimeError
from hlotools.ir.dispatch import RuleTable, Table
from hlotools.ir.opcodes import OPCODES


def _one(x: int) -> int:
    return 1


def _two(x: int) -> int:
    return 2


def test_a_second_registration_names_the_key_and_both_functions() -> None:
    t: Table[Any] = Table("widget")
    t.register("a", "b")(_one)
    with pytest.raises(AssertionError, match=r"two widgets for 'b': .*test_dispatch\._one and .*test_dispatch\._two"):
        t.register("b")(_two)
    assert t["b"] is _one and sorted(t) == ["a", "b"] and len(t) == 2


def test_lookups_replace_and_missing() -> None:
    t: Table[Any] = Table("widget")
    assert t.register("a")(_one) is _one  # the decorator hands the function back
    assert "a" in t and "z" not in t and t.get("z") is None and t.get("a") is _one
    assert t.missing(["z", "a", "y", "z"]) == ["y", "z"]
    assert t.replace("a", _two) is _one and t["a"] is _two
    with pytest.raises(AssertionError, match=r"no widget for 'q' to replace"):
        t.replace("q", _one)
    with pytest.raises(TypeError):
        t["b"] = _one  # type: ignore[index]  # read-only: registration goes through add/register


def test_wrap_applies_to_the_table_not_to_the_returned_function() -> None:
    t: Table[Any] = Table("widget", wrap=lambda fn: lambda x: fn(x) * 10)
    assert t.register("a")(_one) is _one
    assert t["a"](0) == 10


def test_rule_table_keeps_registration_order_and_refuses_a_rule_twice() -> None:
    t: RuleTable[Any] = RuleTable("rule")
    t.register("add", "mul")(_one)
    t.register("add")(_two)
    assert t["add"] == (_one, _two) and t["mul"] == (_one,)
    with pytest.raises(AssertionError, match=r"rule .*_one registered twice for 'add'"):
        t.register("add")(_one)
    assert t.missing(["add", "sub"]) == ["sub"]


def test_every_opcode_has_a_shape_rule() -> None:
    import hlotools.ir.shape_inference  # noqa: F401  (registers the rules)
    from hlotools.ir.shape_inference_common import RULES
    assert RULES.missing(OPCODES) == []


def _chain(fn: Any) -> list[Any]:
    out = [fn]
    while hasattr(out[-1], "__wrapped__"):
        out.append(out[-1].__wrapped__)
    return out


def test_every_interpreter_kernel_is_guarded() -> None:
    import hlotools.interpreter  # noqa: F401
    from hlotools.interpreter import registry
    guard_code = registry._guarded(lambda inst, args, ev: None).__code__
    unguarded = [op for op, fn in registry.KERNELS.items()
                 if not any(getattr(f, "__code__", None) is guard_code for f in _chain(fn))]
    assert unguarded == []


def _kernel_call(text: str, args: list[Any]) -> Any:
    from hlotools.interpreter import Evaluator
    from hlotools.interpreter.registry import KERNELS
    m = hlotools.parse_module(text, verify=False)
    inst = m.entry.root
    return KERNELS[inst.opcode](inst, args, Evaluator(m))


_ADD = ("HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)\n"
        "  ROOT s = f32[4] add(a, b)\n}\n")


def test_a_kernel_called_directly_raises_an_hlo_error_on_bad_operands() -> None:
    """What constant folding sees: the table's kernel, not the evaluator around it. `add` was
    one of the kernels without @guard before the guard moved into the registry."""
    bad = [np.ones((5,), np.float32), np.ones((3,), np.float32)]
    with pytest.raises(HloRuntimeError, match=r"add %s: cannot evaluate: ValueError") as info:
        _kernel_call(_ADD, bad)
    assert isinstance(info.value.__cause__, ValueError)  # the original stays chained for --debug


def test_the_evaluator_locates_a_guarded_failure_once() -> None:
    from hlotools.interpreter import Evaluator
    m = hlotools.parse_module(_ADD, verify=False)
    with pytest.raises(HloRuntimeError) as info:
        Evaluator(m).call(m.entry, [np.ones((5,), np.float32), np.ones((3,), np.float32)])
    assert str(info.value).count("add %s:") == 1 and info.value.line == 5, str(info.value)
    assert isinstance(info.value.__cause__, ValueError)


_FOLD = ("HloModule m\nENTRY e {\n  a = f32[4] constant({1, 2, 3, 4})\n  b = f32[4] constant({1, 1, 1, 1})\n"
         "  ROOT s = f32[4] add(a, b)\n}\n")


def _fold(text: str) -> str:
    from hlotools.passes.manager import run_pipeline
    from hlotools.passes.pipeline import parse_pipeline
    m = hlotools.parse_module(text)
    run_pipeline(m, parse_pipeline("constant-folding"))
    return m.entry.root.opcode


def test_constant_folding_does_not_hide_an_interpreter_bug() -> None:
    import hlotools.interpreter  # noqa: F401
    from hlotools.interpreter.registry import KERNELS

    def buggy(inst: Any, args: list[Any], ev: Any) -> Any:
        raise ZeroDivisionError("a bug, not bad data")

    def refusing(inst: Any, args: list[Any], ev: Any) -> Any:
        raise HloRuntimeError("cannot evaluate this")

    assert _fold(_FOLD) == "constant"
    saved = KERNELS.replace("add", buggy)
    try:
        with pytest.raises(Exception, match="a bug, not bad data"):
            _fold(_FOLD)
        KERNELS.replace("add", refusing)
        assert _fold(_FOLD) == "add"  # an HloError: not folded, the pass goes on
    finally:
        KERNELS.replace("add", saved)
