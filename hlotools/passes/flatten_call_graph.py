"""Call-graph flattening (XLA's FlattenCallGraph, pass name `flatten-call-graph`).

Afterwards every computation called in a control-flow context (`call`, `while`, `conditional`)
has exactly one such call site: the first site keeps the original, every further site gets a
clone (`NAME.clone`, instructions `NAME.clone` too), and the clone's own control-flow callees are
cloned with it so the sub-tree below stays single-caller. A computation called from both
contexts (say a `call` and a `reduce`) is cloned for every control-flow site and the original
stays with the embedded callers. Embedded callees (reduce/sort/map/fusion bodies) are shared
freely, as XLA leaves them. Passes that rewrite a callee for one caller (while-loop
simplification of a shared body, say) rely on this.
"""
from __future__ import annotations

from dataclasses import dataclass

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.call_graph import CallGraph, call_context
from hlotools.passes.cloning import clone_computation, retarget_called_computation


@dataclass
class FlattenCallGraph(HloPass):
    """XLA's FlattenCallGraph: one computation per call site."""
    name = "flatten-call-graph"
    description = "clone computations called from several control-flow sites so each has one caller"

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        graph = CallGraph.build(module)
        for comp in module.computation_post_order(entry_last=True):
            if comp is module.entry or comp.execution_thread not in (None, "main"):
                continue
            _flatten_node(rw, graph, comp, ctx)
        if rw.changed:
            rw.sort_computations()
        return rw.changed


def _flatten_node(rw: Rewriter, graph: CallGraph, comp: Computation, ctx: PassContext) -> None:
    sites = graph.call_sites(comp)
    both = graph.context(comp) == "both"
    first = True
    seen_instructions: set[int] = set()
    for site in sites:
        if call_context(site) != "control-flow":
            continue
        if site.opcode.startswith("async"):
            continue  # async computations belong to their start/update/done chain
        repeat = id(site) in seen_instructions  # e.g. a while whose condition and body coincide
        seen_instructions.add(id(site))
        if first and not both and not repeat:
            first = False
            continue
        first = False
        if not ctx.consume_fuel(f"clone {comp.name} for {site.name}"):
            continue
        clone = clone_computation(rw, comp)
        ctx.decision("cloned %s as %s for %s", comp.name, clone.name, site.name)
        _retarget_one_use(rw, site, comp, clone)
        _clone_subtree(rw, clone)


def _retarget_one_use(rw: Rewriter, site: Instruction, old: Computation, new: Computation) -> None:
    """Point `site` at `new`; if `site` calls `old` twice (condition == body), only the first use
    moves here and the second is handled by the site's next appearance in the caller list."""
    uses = [k for k, v in site.attrs.items() if v is old]
    if len(uses) > 1:
        site.attrs[uses[0]] = new
        rw.changed = True
        return
    retarget_called_computation(rw, site, old, new)


def _clone_subtree(rw: Rewriter, root: Computation) -> None:
    """Give a fresh clone private copies of everything it calls in control-flow contexts."""
    worklist = [root]
    while worklist:
        current = worklist.pop()
        for inst in current.instructions:
            if call_context(inst) != "control-flow" or inst.opcode.startswith("async"):
                continue
            for callee in list(dict.fromkeys(inst.called_computations())):
                copy = clone_computation(rw, callee)
                retarget_called_computation(rw, inst, callee, copy)
                worklist.append(copy)
