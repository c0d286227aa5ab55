"""Async chains: every async-update / async-done traces back to an async-start or -update.

XLA (ShapeVerifier::CheckAsyncUpdateOperands / CheckAsyncDoneOperands) follows the first
operand through the instructions an async value may pass on its way (TraceAsyncDataflow in
hlo_instruction_utils.h): get-tuple-element and tuple (by tuple index), opt-barrier, copy,
the metadata custom-calls (Sharding, ...), a while (its body's root, then its init) and the
parameter of a while body (the while's init, then the body's root). A chain that reaches
anything else, e.g. `custom-call-done(tuple(p0, p0, p1))`, has no producer and is rejected.
"""
from __future__ import annotations

from hlotools.ir.computation import Computation
from hlotools.ir.custom_calls import METADATA_TARGETS
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module

PRODUCERS = frozenset(["async-start", "async-update"])
CONSUMERS = frozenset(["async-update", "async-done"])


def find_async_producer(inst: Instruction, module: Module) -> Instruction | None:
    """The async-start/-update whose value reaches `inst` (itself if it is one), or None."""
    return _Tracer(module).trace(inst, ())


def first_async_chain_error(module: Module) -> tuple[Instruction, Computation, str] | None:
    """(instruction, computation, message) of the first async-update/-done without a producer."""
    tracer = _Tracer(module)
    for comp in module.computations:
        for inst in comp.instructions:
            if inst.opcode in CONSUMERS and inst.operands and tracer.trace(inst.operands[0], ()) is None:
                return inst, comp, "expects its operand to trace to an async-start or async-update, " \
                                   f"found {inst.operands[0].opcode}"
    return None


class _Tracer:
    """TraceAsyncDataflow: a depth-first walk back along the async value's path; `index` is
    the tuple index stack the get-tuple-elements on the way pushed."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.on_path: set[int] = set()
        self._while_callers: dict[int, list[Instruction]] | None = None

    def trace(self, inst: Instruction, index: tuple[int, ...]) -> Instruction | None:
        if id(inst) in self.on_path:
            return None
        if inst.opcode in PRODUCERS:
            return inst
        self.on_path.add(id(inst))
        found = self._step(inst, index)
        if found is None:
            self.on_path.discard(id(inst))
        return found

    def _step(self, inst: Instruction, index: tuple[int, ...]) -> Instruction | None:
        op, ops = inst.opcode, inst.operands
        if op == "get-tuple-element" and ops and isinstance(inst.attrs.get("index"), int):
            return self.trace(ops[0], (*index, inst.attrs["index"]))
        if op == "opt-barrier" and len(ops) == 1:
            return self.trace(ops[0], index)
        if op in ("tuple", "opt-barrier"):
            if not index:
                return self._first(ops, index)
            i = index[-1]
            return self.trace(ops[i], index[:-1]) if 0 <= i < len(ops) else None
        if (op == "copy" or (op == "custom-call" and inst.attrs.get("custom_call_target") in METADATA_TARGETS)) \
                and ops:
            return self.trace(ops[0], index)
        if op == "parameter":
            return self._through_loop(inst, index)
        if op == "while":
            body = inst.attrs.get("body")
            roots = [body.root] if isinstance(body, Computation) and body.root is not None else []
            return self._first(roots + ops[:1], index)
        return None

    def _first(self, candidates: list[Instruction], index: tuple[int, ...]) -> Instruction | None:
        for c in candidates:
            found = self.trace(c, index)
            if found is not None:
                return found
        return None

    def _through_loop(self, param: Instruction, index: tuple[int, ...]) -> Instruction | None:
        """A while body's parameter: the loop's init (first trip), else the body's root."""
        comp = param.parent
        callers = self.while_callers().get(id(comp), []) if comp is not None else []
        if len(callers) != 1 or comp is None:
            return None
        roots = [comp.root] if comp.root is not None else []
        return self._first(callers[0].operands[:1] + roots, index)

    def while_callers(self) -> dict[int, list[Instruction]]:
        """id(body) -> the whiles whose body it is (computed on the first loop crossing)."""
        if self._while_callers is None:
            self._while_callers = {}
            for comp in self.module.computations:
                for inst in comp.instructions:
                    body = inst.attrs.get("body") if inst.opcode == "while" else None
                    if isinstance(body, Computation):
                        self._while_callers.setdefault(id(body), []).append(inst)
        return self._while_callers
