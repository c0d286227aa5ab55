"""While-loop simplification (XLA's WhileLoopSimplifier; XLA registers it as
`simplify-while-loops`, hlotools' pipelines call it `while-loop-simplifier`).

For each while loop, the first rewrite that applies:
  * dead loop: no users, not the root, no side effects in condition or body -> removed;
  * trip count provably 0 (the condition is false on the init; see while_trip_count.py) and a
    side-effect-free condition -> the loop is replaced by its init;
  * trip count provably 1, no side effects anywhere -> the body is inlined once on the init;
  * dead loop-state elements -> removed from the state. Element i is dead when the condition
    does not read it, in the body what depends on it flows only back into element i (never
    into another element, nor into an effectful op), and either nothing reads it after the loop
    or the body passes it through unchanged. The loop gets new condition and body computations
    over the smaller tuple (the old ones are left for DCE); its users get a tuple rebuilt from
    the new loop and, for dropped pass-through elements, the init (tuple-simplifier folds it).
    A passed-through element whose init is a constant goes too: its reads become the constant
    (which may then make the trip count provable on the next run).
"""
from __future__ import annotations

from dataclasses import dataclass

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction, reachable
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.shape import Shape
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.call_inliner import inline_computation
from hlotools.passes.dce import remove_dead_from
from hlotools.passes.side_effects import SideEffects, disables_while_dce
from hlotools.passes.while_trip_count import parameter_indices, small_trip_count


@dataclass
class WhileLoopSimplifier(HloPass):
    """XLA's WhileLoopSimplifier (see the module docstring)."""
    name = "while-loop-simplifier"
    description = "remove while loops that run 0 times, inline those that run once, drop dead loop state"

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        effects = SideEffects()
        for comp in list(module.computations):
            loops = [i for i in comp.instructions if i.opcode == "while"]
            if not loops:
                continue
            gone: list[Instruction] = []
            for loop in loops:
                gone.extend(_simplify(rw, comp, loop, ctx, effects))
            if gone:
                # The replaced loops go even when their bodies have effects: they no longer run.
                rw.flush_deferred(comp)
                operands = [o for inst in gone for o in inst.operands]
                rw.remove_instructions(comp, gone)
                remove_dead_from(rw, comp, operands, effects)
        return rw.changed


def _simplify(rw: Rewriter, comp: Computation, loop: Instruction, ctx: PassContext,
              effects: SideEffects) -> list[Instruction]:
    """Apply the first rewrite that fits; returns the instructions it replaced (to remove)."""
    cond, body = loop.attrs.get("condition"), loop.attrs.get("body")
    if not isinstance(cond, Computation) or not isinstance(body, Computation) or loop.control_predecessors:
        return []
    cond_effects, body_effects = effects.computation(cond), effects.computation(body)
    if not loop.users and not loop.is_root:
        if cond_effects or body_effects or disables_while_dce(loop) or not ctx.consume_fuel(f"remove dead loop {loop.name}"):
            return []
        ctx.decision("removed dead loop %s", loop.name)
        return [loop]
    trips = None if cond_effects else small_trip_count(loop)
    if trips == 0 and ctx.consume_fuel(f"{loop.name}: trip count 0"):
        ctx.decision("%s runs 0 times: replaced by its init", loop.name)
        rw.replace_all_uses_with(loop, loop.operands[0])
        return [loop]
    if trips == 1 and not body_effects and ctx.consume_fuel(f"{loop.name}: trip count 1"):
        ctx.decision("%s runs once: body inlined", loop.name)
        value = inline_computation(rw, comp, body, [loop.operands[0]], before=loop)
        rw.replace_all_uses_with(loop, value)
        return [loop]
    dead, constants = dead_state_indices(loop, effects)
    if dead and ctx.consume_fuel(f"{loop.name}: remove state elements {sorted(dead)}"):
        ctx.decision("%s: removed dead state elements %s (constants: %s)", loop.name, sorted(dead),
                     sorted(constants))
        return _remove_state_elements(rw, comp, loop, dead, constants)
    return []


# -- dead loop state ----------------------------------------------------------------------------
def dead_state_indices(loop: Instruction, effects: SideEffects) -> tuple[set[int], dict[int, Instruction]]:
    """State elements to drop, and those of them that are constants (index -> the init's
    constant instruction, which replaces their reads in the condition and body).

    Droppable: not read by the condition, feeding no other element and no side effect, and
    either unused after the loop or passed through the body unchanged (the loop's result there
    is the init's element) — XLA's TryRemoveDeadWhileParams, without its union-find grouping
    of mutually dependent elements. An element whose init is a constant that the body passes
    through (or sets to the same constant) is droppable whoever reads it (XLA's
    TryRemoveConstantParams). Nothing is dropped under xla_disable_while_loop_dce."""
    shape = loop.shape
    cond, body = loop.attrs["condition"], loop.attrs["body"]
    if not shape.is_tuple or body.root is None or body.root.opcode != "tuple" or disables_while_dce(loop):
        return set(), {}
    if body.root.users or not body.parameters or not cond.parameters:
        return set(), {}
    n = len(shape.tuple_shapes or ())
    cond_used = parameter_indices(cond, [i for i in cond.instructions if i.opcode != "parameter"])
    if cond_used is None or not all(_is_gte(u) for u in body.parameters[0].users):
        return set(), {}
    init = loop.operands[0]
    constants = {i: init.operands[i] for i in range(n) if init.opcode == "tuple"
                 and _is_plain_constant(init.operands[i]) and _keeps_constant(body, i, init.operands[i])}
    used_after = _indices_read(loop)
    dead = {i for i in range(n) if i in constants
            or (i not in cond_used and (i not in used_after or _passed_through(body, i)))}
    flows = {i: set() if i in constants else _flows_into(body, i, effects) for i in dead}
    changed = True
    while changed:  # an element feeding a live element is live; repeat until stable
        changed = False
        for i in sorted(dead):
            reach = flows[i]
            if reach is None or not reach <= dead:
                dead.discard(i)
                changed = True
    if len(dead) == n:
        return set(), {}
    return dead, {i: c for i, c in constants.items() if i in dead}


def _keeps_constant(body: Computation, index: int, const: Instruction) -> bool:
    """Does the body pass element `index` through, or set it to the same constant again?"""
    assert body.root is not None
    out = body.root.operands[index]
    if _passed_through(body, index):
        return True
    return _is_plain_constant(out) and out.literal is not None and const.literal is not None \
        and out.literal.key() == const.literal.key()


def _is_plain_constant(inst: Instruction) -> bool:
    return inst.opcode == "constant" and inst.literal is not None and not inst.literal.elided \
        and not inst.shape.is_tuple


def _passed_through(body: Computation, index: int) -> bool:
    assert body.root is not None
    out = body.root.operands[index]
    return (_is_gte(out) and out.operands[0] is body.parameters[0] and out.attrs.get("index") == index)


def _is_gte(inst: Instruction) -> bool:
    return inst.opcode == "get-tuple-element"


def _indices_read(loop: Instruction) -> set[int]:
    """Result elements read after the loop (all of them for a root or a non-gte user)."""
    if loop.is_root or not all(_is_gte(u) for u in loop.users):
        return set(range(len(loop.shape.tuple_shapes or ())))
    return {int(u.attrs["index"]) for u in loop.users}


def _flows_into(body: Computation, index: int, effects: SideEffects) -> set[int] | None:
    """Root positions that body values depending on state element `index` reach (None: they
    reach something effectful, or the root other than as a tuple operand)."""
    param = body.parameters[0]
    root = body.root
    assert root is not None
    starts = [u for u in param.users if int(u.attrs["index"]) == index]
    positions: set[int] = set()
    for inst in reachable(starts, lambda i: [u for u in i.users if u is not root]):
        if effects.instruction(inst) or inst.control_predecessors:
            return None
        if any(u is root for u in inst.users):
            positions.update(k for k, o in enumerate(root.operands) if o is inst)
    return positions


def _remove_state_elements(rw: Rewriter, comp: Computation, loop: Instruction, dead: set[int],
                           constants: dict[int, Instruction]) -> list[Instruction]:
    shapes = loop.shape.tuple_shapes or ()
    live = [i for i in range(len(shapes)) if i not in dead]
    new_index = {old: new for new, old in enumerate(live)}
    state_shape = Shape.tuple_of([shapes[i] for i in live])
    cond = _reparameterize(rw, loop.attrs["condition"], state_shape, new_index, constants, live_root=None)
    body = _reparameterize(rw, loop.attrs["body"], state_shape, new_index, constants, live_root=live)
    init = loop.operands[0]
    if init.opcode == "tuple":
        elements = [init.operands[i] for i in live]
    else:
        elements = [rw.add_instruction_deferred(
            comp, Instruction("get-tuple-element", "get-tuple-element", shapes[i], [init], {"index": i}),
            before=loop, name="get-tuple-element") for i in live]
    new_init = rw.add_instruction_deferred(comp, Instruction("tuple", "tuple", state_shape, elements),
                                           before=loop, name="tuple")
    attrs = dict(loop.attrs)
    attrs["condition"], attrs["body"] = cond, body
    new_loop = rw.add_instruction_deferred(comp, loop.clone([new_init], shape=state_shape, attrs=attrs),
                                           before=loop, name=loop.name)
    # Rebuild the old result (XLA's RemoveDeadTupleIndices): kept elements from the new loop,
    # dropped ones from the init (right for pass-through elements; the others are unread).
    # tuple-simplifier then folds the get-tuple-elements of it.
    parts = []
    for i, element_shape in enumerate(shapes):
        if i in new_index:
            source, index = new_loop, new_index[i]
        elif init.opcode == "tuple":
            parts.append(init.operands[i])
            continue
        else:
            source, index = init, i
        parts.append(rw.add_instruction_deferred(
            comp, Instruction("get-tuple-element", "get-tuple-element", element_shape, [source], {"index": index}),
            before=loop, name="get-tuple-element"))
    result = rw.add_instruction_deferred(comp, Instruction("tuple", "tuple", loop.shape, parts),
                                         before=loop, name="tuple")
    rw.replace_all_uses_with(loop, result)
    return [loop]


def _reparameterize(rw: Rewriter, comp: Computation, state_shape: Shape, new_index: dict[int, int],
                    constants: dict[int, Instruction], live_root: list[int] | None) -> Computation:
    """A copy of a loop computation over the smaller state tuple: reads of kept elements get their
    new index, whatever depends on a removed element is dropped (for the body root: the removed
    positions), and the root tuple keeps only `live_root` positions."""
    new = Computation(comp.name)
    new.execution_thread = comp.execution_thread
    old_param = comp.parameters[0]
    param = Instruction(old_param.name, "parameter", state_shape, [], dict(old_param.attrs), parameter_number=0)
    param.attrs.pop("sharding", None)
    new.add_instruction(param)
    mapping: dict[int, Instruction] = {id(old_param): param}
    dropped: set[int] = set()
    for inst in comp.post_order():
        if inst is old_param:
            continue
        if _is_gte(inst) and inst.operands[0] is old_param:
            index = int(inst.attrs["index"])
            if index in constants:
                const = constants[index]
                copy = Instruction(inst.name, "constant", const.shape, [], {}, literal=const.literal)
            elif index not in new_index:
                dropped.add(id(inst))
                continue
            else:
                copy = inst.clone([param], attrs=dict(inst.attrs, index=new_index[index]))
        elif inst is comp.root and live_root is not None:
            copy = inst.clone([mapping[id(inst.operands[i])] for i in live_root], shape=state_shape)
        elif any(id(o) in dropped for o in inst.operands):
            dropped.add(id(inst))
            continue
        else:
            copy = inst.clone([mapping[id(o)] for o in inst.operands])
        copy.control_predecessors = [mapping[id(p)] for p in inst.control_predecessors if id(p) in mapping]
        mapping[id(inst)] = copy
        new.add_instruction(copy)
    assert comp.root is not None
    new.root = mapping[id(comp.root)]
    for inst in new.instructions:
        inst.name = rw.unique_name(inst.name)
    return rw.add_computation(new, before=comp)
