"""Sibling multi-output fusion (XLA CPU's cpu_multi_output_fusion, part of pass `fusion`).

Loop fusions and elementwise ops that read a common operand and produce arrays of the same
dimensions are merged into one fusion whose root is a tuple of their roots: the shared operand
is read once, and one kernel replaces several. The merged fusion's users read its outputs
through get-tuple-element. At most `max_operands` distinct operands (CPU's budget of 20), and
never when one sibling reaches the other (the merged node would depend on itself): that check
is a search over users bounded by topological position and by a node budget (an exhausted
budget counts as "reachable", i.e. no fusion); the groups are then checked together for a
cycle in one topological sort, so the pass stays near-linear.
"""
from __future__ import annotations

from collections.abc import Callable

from hlotools.ir.attributes import Enum
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction, unique
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.shape import Shape
from hlotools.ir.walks import is_elementwise, post_order_from
from hlotools.passes.base import PassContext
from hlotools.passes.fusion_rules import fusion_kind
from hlotools.passes.side_effects import SideEffects

SEARCH_BUDGET = 256


def fuse_siblings(rw: Rewriter, comp: Computation, ctx: PassContext, max_operands: int,
                  effects: SideEffects) -> bool:
    """Merge sibling groups in `comp`; True if anything changed."""
    dead: list[Instruction] = []
    bodies: list[Computation] = []
    for shared, group in _acyclic(_sibling_groups(comp, max_operands, effects), comp):
        names = ", ".join(g.name for g in group)
        if not ctx.consume_fuel(f"multi-output fusion of {names}"):
            continue
        fusion, body = _merge(rw, comp, group)
        ctx.decision("fused siblings %s (sharing %s) into %s", names, shared.name, fusion.name)
        dead.extend(group)
        bodies.append(body)
    if not dead:
        return False
    rw.flush_deferred(comp)
    rw.remove_instructions(comp, dead)
    for body in bodies:
        rw.add_computation(body)
    rw.set_instruction_order(comp, comp.post_order())
    return True


Group = tuple[Instruction, list[Instruction]]  # (the shared operand, the siblings to merge)


def _sibling_groups(comp: Computation, max_operands: int, effects: SideEffects) -> list[Group]:
    """Every group chosen on the unchanged graph, where textual positions are a topological
    order (so the reachability search may stop at b's position); an instruction joins one
    group at most. Groups are merged only afterwards, once _acyclic has checked them together."""
    order = list(comp.instructions)
    pos = {id(inst): n for n, inst in enumerate(order)}
    pinned = {id(i) for i in order if i.control_predecessors}
    pinned.update(id(p) for i in order for p in i.control_predecessors)
    taken: set[int] = set()
    groups: list[Group] = []
    exhausted: dict[int, int] = {}  # see _reaches
    for shared in order:
        if len(shared.users) < 2:
            continue
        cands = [u for u in unique(shared.users) if id(u) in pos and id(u) not in taken and id(u) not in pinned
                 and u is not comp.root and _candidate(u, effects)]
        cands.sort(key=lambda u: pos[id(u)])
        if len(cands) < 2:
            continue
        group = [cands[0]]
        operands = {id(o) for o in cands[0].operands}
        for b in cands[1:]:
            if b.shape.dims != group[0].shape.dims:
                continue
            more = operands | {id(o) for o in b.operands}
            if len(more) > max_operands or any(_reaches(a, b, pos, exhausted) for a in group):
                continue
            group.append(b)
            operands = more
        if len(group) >= 2:
            taken.update(id(g) for g in group)
            groups.append((shared, group))
    return groups


def _acyclic(groups: list[Group], comp: Computation) -> list[Group]:
    """The groups that can all be merged at once. Each group is acyclic on its own, but two
    together can make a cycle (a1 reaches b2 and a2 reaches b1): contract every group to one
    node and sort the graph topologically (data and control edges, linear time); while nodes
    stay unsorted, drop the newest group among them and sort again (rare)."""
    while groups:
        stuck = _unsorted_groups(groups, comp)
        if not stuck:
            return groups
        del groups[max(stuck)]
    return groups


def _unsorted_groups(groups: list[Group], comp: Computation) -> list[int]:
    node = {id(m): -1 - g for g, (_, members) in enumerate(groups) for m in members}
    succ: dict[int, list[int]] = {}
    indegree: dict[int, int] = {}
    for inst in comp.instructions:
        dst = node.get(id(inst), id(inst))
        indegree.setdefault(dst, 0)
        for src_inst in (*inst.operands, *inst.control_predecessors):
            src = node.get(id(src_inst), id(src_inst))
            if src != dst:
                succ.setdefault(src, []).append(dst)
                indegree[dst] += 1
    ready = [k for k, n in indegree.items() if n == 0]
    while ready:
        for dst in succ.get(ready.pop(), ()):
            indegree[dst] -= 1
            if indegree[dst] == 0:
                ready.append(dst)
    return [-1 - k for k, n in indegree.items() if n > 0 and k < 0]


def _candidate(inst: Instruction, effects: SideEffects) -> bool:
    if not inst.shape.is_array or effects.instruction(inst):
        return False
    if inst.opcode == "fusion":
        return fusion_kind(inst) == "kLoop" and inst.attrs["calls"].root.opcode != "tuple"
    return is_elementwise(inst)


def _reaches(a: Instruction, b: Instruction, pos: dict[int, int], exhausted: dict[int, int]) -> bool:
    """Is `b` reachable from `a` over user edges? `pos` holds positions in a topological order:
    instructions at or after b's position cannot lead to b and are not searched. A search past
    SEARCH_BUDGET nodes counts as reaching. Whatever the order of the search, that answer is
    "b is among the nodes searched, or there are more than the budget": `exhausted` keeps, per
    `a`, the lowest position whose search ran out, as any later position's search covers it."""
    limit = pos[id(b)]
    if exhausted.get(id(a), limit + 1) <= limit:
        return True
    stack = list(a.users)
    seen: set[int] = set()
    while stack:
        u = stack.pop()
        if u is b:
            return True
        if id(u) in seen:
            continue
        seen.add(id(u))
        if len(seen) > SEARCH_BUDGET:
            exhausted[id(a)] = limit
            return True
        p = pos.get(id(u))
        if p is not None and p >= limit:
            continue
        stack.extend(u.users)
    return False


def _merge(rw: Rewriter, comp: Computation, group: list[Instruction]) -> tuple[Instruction, Computation]:
    """One fusion computing every member of `group`, placed before the last member."""
    body = Computation("fused_computation")
    body.is_fusion_computation = True
    operands: list[Instruction] = []
    params: dict[int, Instruction] = {}

    def param_for(outer: Instruction) -> Instruction:
        if id(outer) not in params:
            p = Instruction(rw.unique_name(f"param_{len(operands)}"), "parameter", outer.shape,
                            parameter_number=len(operands))
            body.add_instruction(p)
            params[id(outer)] = p
            operands.append(outer)
        return params[id(outer)]

    roots = [_copy_member(rw, body, m, param_for) for m in group]
    root = Instruction(rw.unique_name("tuple"), "tuple", Shape.tuple_of([r.shape for r in roots]), roots)
    body.add_instruction(root)
    body.root = root
    body.instructions = post_order_from(root)
    first = group[0]
    attrs = {"kind": Enum("kLoop"), "calls": body}
    if "metadata" in first.attrs:
        attrs["metadata"] = first.attrs["metadata"]
    fusion = Instruction("fusion", "fusion", root.shape, operands, attrs)
    rw.add_instruction_deferred(comp, fusion, before=group[-1], name="fusion")
    if first.opcode == "fusion":  # the first sibling fusion becomes the multi-output one
        fusion.name = first.name
        first.name = rw.unique_name(first.name + ".merged")
    for i, member in enumerate(group):
        gte = Instruction("get-tuple-element", "get-tuple-element", member.shape, [fusion], {"index": i})
        rw.add_instruction_deferred(comp, gte, before=group[-1], name="get-tuple-element")
        rw.replace_all_uses_with(member, gte)
        rw.detach(member)
    return fusion, body


def _copy_member(rw: Rewriter, body: Computation, member: Instruction,
                 param_for: Callable[[Instruction], Instruction]) -> Instruction:
    """Clone `member` (its fused body, for a fusion) into `body`; returns the clone's root."""
    if member.opcode != "fusion":
        clone = member.clone([param_for(o) for o in member.operands])
        clone.name = member.name  # the member is removed: its name moves into the fusion
        member.name = rw.unique_name(member.name + ".merged")
        body.add_instruction(clone)
        return clone
    inner = member.attrs["calls"]
    mapping: dict[int, Instruction] = {}
    for k, p in enumerate(inner.parameters):
        mapping[id(p)] = param_for(member.operands[k])
    for inst in post_order_from(inner.root):
        if inst.opcode == "parameter":
            continue
        clone = inst.clone([mapping[id(o)] for o in inst.operands])
        clone.name = inst.name  # the member's body is dropped with it: names move over
        inst.name = rw.unique_name(inst.name + ".merged")
        body.add_instruction(clone)
        mapping[id(inst)] = clone
    return mapping[id(inner.root)]
