"""Call inlining (XLA's CallInliner, pass name `call-inliner`).

Every `call` is replaced by a copy of its callee's instructions, placed right before the call
(so the textual order stays topological): callee parameters map to the call's operands, users
of the call take the copied root. Copies keep their names where free (`NAME.N` otherwise) and
their metadata. Computations are visited callees first, so nested calls are inlined bottom-up
and each callee is copied once per call site. Then, like XLA, DCE runs: the callees are dead.

Not inlined: calls inside async computations, calls with control dependencies, composite calls
(frontend attribute `composite.name`: XLA keeps them as one op), and with `single-call-site`
calls to computations that have other callers.
"""
from __future__ import annotations

from dataclasses import dataclass

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.call_graph import CallGraph
from hlotools.passes.dce import HloDCE


@dataclass
class CallInliner(HloPass):
    """XLA's CallInliner: replaces call instructions by the called computation's body."""
    name = "call-inliner"
    description = "inline every call instruction (callees first), then remove the dead callees"

    single_call_site: bool = False

    def run(self, module: Module, ctx: PassContext) -> bool:
        # In a fixed-point group every run after the first finds no call: one scan of the
        # opcodes, not the call graph, the post order and the per-computation lists.
        if not any(i.opcode == "call" for c in module.computations for i in c.instructions):
            return False
        rw = Rewriter(module)
        graph = CallGraph.build(module)
        inlined = False
        for comp in module.computation_post_order(entry_last=True):
            if comp.execution_thread not in (None, "main") or _is_async(graph, comp):
                continue
            pinned = {id(p) for i in comp.instructions for p in i.control_predecessors}
            calls = [i for i in comp.instructions
                     if id(i) not in pinned and self._inlinable(i, graph if self.single_call_site else None)]
            calls = [c for c in calls if ctx.consume_fuel(f"inline {c.name}")]
            if calls:
                inline_calls(rw, comp, calls)
                ctx.decision("inlined %d calls into %s", len(calls), comp.name)
                inlined = True
        if inlined:
            HloDCE().run(module, PassContext(pass_name=f"{self.name}/dce", logger=ctx.logger))
        return rw.changed

    def _inlinable(self, inst: Instruction, graph: CallGraph | None) -> bool:
        if inst.opcode != "call" or inst.control_predecessors:
            return False
        callee = inst.attrs.get("to_apply")
        if not isinstance(callee, Computation):
            return False
        if "composite.name" in str(inst.attrs.get("frontend_attributes", "")):
            return False
        return graph is None or len(graph.call_sites(callee)) == 1


def _is_async(graph: CallGraph, comp: Computation) -> bool:
    """Called by an async op (its calls stay: the computation runs as one unit elsewhere)."""
    return any(site.opcode.startswith("async") for site in graph.call_sites(comp))


def inline_calls(rw: Rewriter, comp: Computation, calls: list[Instruction]) -> dict[int, Instruction]:
    """Inline each call of `comp` (batched: one list rebuild); returns id(call) -> new value."""
    results: dict[int, Instruction] = {}
    for call in calls:
        results[id(call)] = inline_one(rw, call)
    rw.flush_deferred(comp)
    rw.remove_instructions(comp, calls)
    return results


def inline_one(rw: Rewriter, call: Instruction) -> Instruction:
    """Copy the callee before `call` (deferred insertion) and move the call's users to the copy
    of the root. The caller must `flush_deferred` and remove `call`."""
    assert call.parent is not None
    new_root = inline_computation(rw, call.parent, call.attrs["to_apply"], call.operands, before=call)
    rw.replace_all_uses_with(call, new_root)
    return new_root


def inline_computation(rw: Rewriter, comp: Computation, callee: Computation, arguments: list[Instruction],
                       before: Instruction) -> Instruction:
    """Copy `callee`'s instructions into `comp` before `before` (deferred; the caller flushes),
    with its parameters bound to `arguments`; returns the value of the copied root."""
    assert callee.root is not None
    mapping: dict[int, Instruction] = {}
    for p in callee.parameters:
        mapping[id(p)] = arguments[p.parameter_number or 0]
    for inst in callee.post_order():
        if inst.opcode == "parameter":
            continue
        copy = inst.clone([mapping[id(o)] for o in inst.operands])
        copy.control_predecessors = [mapping[id(p)] for p in inst.control_predecessors
                                     if id(p) in mapping and mapping[id(p)].parent is comp]
        rw.add_instruction_deferred(comp, copy, before=before, name=inst.name)
        mapping[id(inst)] = copy
    return mapping[id(callee.root)]
