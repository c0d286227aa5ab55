"""Which instructions may not be removed (DCE) or merged (CSE).

XLA's HloInstruction::HasSideEffect: the opcode has side effects (the opcode table), or it is a
custom-call marked `custom_call_has_side_effect=true`, or any computation it calls (a while
body, a called computation, a conditional branch, ...) contains such an instruction. The
answer per computation is memoised so asking for every instruction stays linear.
"""
from __future__ import annotations

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODES


class SideEffects:
    """Memoised side-effect queries for one pass run (computations do not change meanwhile)."""

    def __init__(self) -> None:
        self._comp: dict[int, bool] = {}

    def instruction(self, inst: Instruction) -> bool:
        if has_side_effect_no_recurse(inst):
            return True
        if not _may_call(inst.opcode):
            return False
        return any(self.computation(c) for c in inst.called_computations())

    def computation(self, comp: Computation) -> bool:
        key = id(comp)
        known = self._comp.get(key)
        if known is not None:
            return known
        self._comp[key] = False  # a (malformed) recursive call graph must not loop forever
        result = any(self.instruction(i) for i in comp.instructions)
        self._comp[key] = result
        return result


def _may_call(opcode: str) -> bool:
    """Can this opcode carry called computations? (Asking every elementwise op for its
    computations is most of a pass's time on big modules.)"""
    info = OPCODES.get(opcode)
    return info is None or bool(info.calls)


def has_side_effect_no_recurse(inst: Instruction) -> bool:
    info = OPCODES.get(inst.opcode)
    if info is None or info.side_effect:
        return True  # an opcode we do not know is treated as effectful: never removed or merged
    return inst.opcode == "custom-call" and inst.attrs.get("custom_call_has_side_effect") is True


def disables_while_dce(loop: Instruction) -> bool:
    """XLA's frontend attribute xla_disable_while_loop_dce="true": DCE keeps the loop even if
    unused, and the while-loop simplifier keeps its state as is."""
    return loop.opcode == "while" and \
        'xla_disable_while_loop_dce="true"' in str(loop.attrs.get("frontend_attributes", ""))
