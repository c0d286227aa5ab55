"""Epilogue fusion (pass `epilogue-fusion`): a dot or convolution and the elementwise chain
that consumes it become one `kind=kOutput` fusion, so the backend can apply the chain to each
finished tile of the GEMM (its epilogue) instead of writing the product out and running a loop
kernel over it. XLA CPU gets the same effect from its library fusions (oneDNN/YNNPACK post-ops);
the LLVM backend runs this pass after layout-assignment.

The fusions it makes satisfy the kOutput contract the backend relies on (`epilogue_hero` checks
it; the existing matrix-vector dot + add output fusions of `fusion` satisfy it too):
- exactly one instruction H of the fused computation is a dot or convolution, and its operands
  are parameters: the first ones, in H's operand order (repeated operands share one);
- every other non-parameter instruction is a constant, a broadcast or an elementwise op;
- H reaches the ROOT only through elementwise ops of H's shape (dims, element type, layout):
  no broadcast, reshape, transpose, slice or convert of H's value on the way (H may be read
  several times: x * logistic(x));
- the ROOT is such an op (one output, not a tuple) and H keeps the layout it had outside.

Per non-fusion computation (the entry and what control flow reaches), a dot or convolution H
(or an existing contract kOutput fusion) whose only user U is elementwise in it — a plain
elementwise op of H's shape, or a kLoop fusion whose body only holds constants, broadcasts and
elementwise ops and takes H's value to its root through ops of H's shape — is fused with U;
then again with U's only user while that is elementwise in the result (a chain), bounded by
`max-fused-instructions` (0: unbounded, as `fusion`'s). A plain U's broadcast and scalar
constant operands come into the fusion too (cloned when they have other users), as `fusion`
would have done. Nothing with control edges or a sharding is touched, nor an H whose value is
its computation's result. One fusion per chain, one unit of fuel each (--bisect-limit).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

from hlotools.ir.attributes import Enum
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.shape import Layout, Shape
from hlotools.ir.walks import elementwise_flow, is_elementwise, post_order_from
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.fusion import control_linked
from hlotools.passes.fusion_rules import fusion_kind
from hlotools.passes.fusion_stats import control_flow_computations, fusion_bodies

HEROES = frozenset(["dot", "convolution"])
INSIDE = frozenset(["constant", "broadcast", "parameter"])  # allowed besides elementwise ops
log = logging.getLogger("hlotools.passes")


@dataclass
class EpilogueFusion(HloPass):
    """Folds elementwise consumers of a dot/convolution into a kOutput fusion (module docstring)."""
    name = "epilogue-fusion"
    description = "dot/convolution + elementwise consumer chain -> one kOutput fusion (the GEMM epilogue)"

    max_fused_instructions: int = 0  # 0: unbounded (the `fusion` pass's default)

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        absorbed: list[Computation] = []  # bodies of the fusions folded into new ones
        for comp in control_flow_computations(module):
            self.fuse_computation(rw, comp, ctx, absorbed)
        if absorbed:
            called = fusion_bodies(module)
            dead = [c for c in dict.fromkeys(absorbed) if id(c) not in called]
            if dead:
                rw.remove_computations(dead)
        return rw.changed

    def fuse_computation(self, rw: Rewriter, comp: Computation, ctx: PassContext,
                         absorbed: list[Computation]) -> None:
        pinned: set[int] | None = None  # instructions with control edges (computed on first need)
        dead: dict[int, Instruction] = {}
        for inst in list(comp.instructions):
            if id(inst) in dead:
                continue
            hero = _seed_hero(inst)
            if hero is None:
                continue
            if pinned is None:
                pinned = control_linked(comp)
            orders: dict[int, list[Instruction]] = {}  # fused bodies' post orders, from the checks
            stages = self.chain(inst, hero, comp, pinned, ctx, orders)
            if not stages or not ctx.consume_fuel(f"fuse {inst.name} with {', '.join(s.name for s in stages)}"):
                continue
            fusion = _build(rw, comp, inst, hero, stages, pinned, dead, absorbed, orders)
            ctx.decision("fused %s and %s into %s", inst.name, ", ".join(s.name for s in stages), fusion.name)
        rw.flush_deferred(comp)
        if dead:
            rw.remove_instructions(comp, dead.values())

    def chain(self, seed: Instruction, hero: Instruction, comp: Computation, pinned: set[int],
              ctx: PassContext, orders: dict[int, list[Instruction]]) -> list[Instruction]:
        """The consumers to fold into `seed`, in order (each the only user of the one before)."""
        stages: list[Instruction] = []
        size = _size(seed)
        cur = seed
        while True:
            why, n = _stage_refusal(cur, hero, comp, pinned, orders)
            if why is None and self.max_fused_instructions and size + n > self.max_fused_instructions:
                why = f"more than max-fused-instructions={self.max_fused_instructions}"
            if why is not None:
                if cur.users:
                    ctx.decision("not fused: %s into %s: %s", cur.users[0].name, seed.name, why)
                return stages
            cur = cur.users[0]
            stages.append(cur)
            size += n


# -- what may be fused ---------------------------------------------------------------------
def epilogue_hero(fusion: Instruction, ordered: bool = True) -> Instruction | None:
    """The dot/convolution of a kOutput fusion that satisfies the contract (module docstring),
    else None. The backend's epilogue path may rely on everything the contract says.
    `ordered=False` waives the parameter order (fusion's matrix-vector dot + add output fusions
    take the add's operand first; this pass reorders them when it extends them)."""
    body = fusion.attrs.get("calls")
    if fusion.opcode != "fusion" or fusion_kind(fusion) != "kOutput" or not isinstance(body, Computation):
        return None
    root = body.root
    if root is None or root.opcode in INSIDE or not same_array_shape(root.shape, fusion.shape):
        return None
    order = post_order_from(root)
    heroes = [i for i in order if i.opcode in HEROES]
    if len(heroes) != 1 or heroes[0] is root or not same_array_shape(root.shape, heroes[0].shape):
        return None
    hero = heroes[0]
    operands = list(dict.fromkeys(hero.operands))
    if not all(o.opcode == "parameter" for o in operands):
        return None
    if ordered and [o.parameter_number for o in operands] != list(range(len(operands))):
        return None
    if not all(i.opcode in INSIDE or _true_elementwise(i) for i in order if i is not hero):
        return None
    return hero if _reaches_root_elementwise(order, {id(hero)}, hero.shape) else None


def _seed_hero(inst: Instruction) -> Instruction | None:
    """The dot/convolution at the start of a chain: `inst` itself or, for a contract kOutput
    fusion, the one inside it."""
    if inst.opcode in HEROES:
        return inst if _is_array(inst.shape) and "sharding" not in inst.attrs else None
    if inst.opcode == "fusion" and "sharding" not in inst.attrs:
        return epilogue_hero(inst, ordered=False)
    return None


def _stage_refusal(cur: Instruction, hero: Instruction, comp: Computation, pinned: set[int],
                   orders: dict[int, list[Instruction]]) -> tuple[str | None, int]:
    """(None, instructions it adds) if `cur`'s only user may join the fusion, else (why not, 0)."""
    if len(cur.users) != 1:
        return ("no user" if not cur.users else "more than one user"), 0
    user = cur.users[0]
    if cur is comp.root:
        return "the value is the computation's result", 0
    if id(cur) in pinned or id(user) in pinned:
        return "control dependencies", 0
    if "sharding" in user.attrs:
        return "sharding", 0
    if not same_array_shape(user.shape, hero.shape):
        return "its shape is not the dot/convolution's", 0
    if user.opcode == "fusion":
        return _fusion_stage_refusal(cur, user, hero.shape, orders)
    if not _true_elementwise(user):
        return f"{user.opcode} is not elementwise", 0
    return None, 1 + sum(1 for o in _pulled(user, cur, pinned))


def _fusion_stage_refusal(cur: Instruction, user: Instruction, shape: Shape,
                          orders: dict[int, list[Instruction]]) -> tuple[str | None, int]:
    body = user.attrs.get("calls")
    if fusion_kind(user) != "kLoop" or not isinstance(body, Computation) or body.root is None:
        return f"a {fusion_kind(user) or 'fusion'} fusion is not an elementwise loop", 0
    order = post_order_from(body.root)
    if not all(i.opcode in INSIDE or _true_elementwise(i) for i in order):
        return "the fusion holds more than constants, broadcasts and elementwise ops", 0
    start = {id(body.parameters[k]) for k, o in enumerate(user.operands) if o is cur and k < len(body.parameters)}
    if not _reaches_root_elementwise(order, start, shape):
        return "the fusion is not elementwise in the value", 0
    orders[id(user)] = order
    return None, sum(1 for i in order if i.opcode != "parameter")


def _reaches_root_elementwise(order: list[Instruction], start: set[int], shape: Shape) -> bool:
    """Do the values in `start` reach the root of `order` (a post order) only through
    elementwise ops of `shape`, and does the root depend on them?"""
    flow = elementwise_flow(order, start, lambda s: same_array_shape(s, shape))
    return flow is not None and bool(order) and id(order[-1]) in flow and order[-1].opcode not in INSIDE


def _pulled(user: Instruction, cur: Instruction, pinned: set[int]) -> list[Instruction]:
    """The operands of a plain elementwise stage that come into the fusion: broadcasts and
    scalar constants (what `fusion` would fuse), with a broadcast's scalar constant operand."""
    out: list[Instruction] = []
    for o in dict.fromkeys(user.operands):
        if o is cur or id(o) in pinned or "sharding" in o.attrs or o.parent is not user.parent:
            continue
        if o.opcode == "broadcast" or _is_scalar_constant(o):
            out.append(o)
            inner = o.operands[0] if o.opcode == "broadcast" and o.operands else None
            if inner is not None and _is_scalar_constant(inner) and id(inner) not in pinned:
                out.append(inner)
    return out


# -- building ----------------------------------------------------------------------------
@dataclass
class _Body:
    """The fused computation being built: outer values -> parameters or clones."""
    comp: Computation
    rw: Rewriter
    operands: list[Instruction] = field(default_factory=list)  # the fusion's operands (unique)
    values: dict[int, Instruction] = field(default_factory=dict)  # id(outer) -> its value inside

    def value(self, outer: Instruction) -> Instruction:
        known = self.values.get(id(outer))
        if known is None:
            n = len(self.operands)
            known = Instruction(self.rw.unique_name(f"param_{n}"), "parameter", outer.shape, parameter_number=n)
            self.comp.add_instruction(known)
            self.operands.append(outer)
            self.values[id(outer)] = known
        return known

    def clone(self, inst: Instruction, operands: list[Instruction], dies: bool) -> Instruction:
        copy = inst.clone(operands)
        if dies:  # the clone carries the name on (as fusion_builder's _take_name)
            copy.name = inst.name
            inst.name = self.rw.unique_name(inst.name + ".fused")
        else:
            copy.name = self.rw.unique_name(inst.name)
        self.comp.add_instruction(copy)
        return copy

    def inline(self, fusion: Instruction, first: list[Instruction] | None = None,
               order: list[Instruction] | None = None) -> Instruction:
        """Clone `fusion`'s body in (its parameters read the fusion's operands); `first`: inner
        instructions whose operands become parameters before any other; `order`: the body's
        post order from its root, when known."""
        inner = fusion.attrs["calls"]
        mapping: dict[int, Instruction] = {}
        for inst in first or ():
            for o in inst.operands:
                mapping[id(o)] = self.value(fusion.operands[o.parameter_number or 0])
        for inst in order or post_order_from(inner.root):
            if id(inst) in mapping:
                continue
            if inst.opcode == "parameter":
                mapping[id(inst)] = self.value(fusion.operands[inst.parameter_number or 0])
            else:
                mapping[id(inst)] = self.clone(inst, [mapping[id(o)] for o in inst.operands], dies=True)
        return mapping[id(inner.root)]


def _build(rw: Rewriter, comp: Computation, seed: Instruction, hero: Instruction, stages: list[Instruction],
           pinned: set[int], dead: dict[int, Instruction], absorbed: list[Computation],
           orders: dict[int, list[Instruction]]) -> Instruction:
    """Replace `seed` and `stages` (a chain, each the only user of the one before) by one
    kOutput fusion; what they leave unused joins `dead` (removed in one sweep)."""
    body = _Body(Computation("fused_computation"), rw)
    body.comp.is_fusion_computation = True
    members = [seed, *stages]
    member_ids = {id(m) for m in members}
    if seed.opcode == "fusion":
        body.values[id(seed)] = body.inline(seed, first=[hero])
        absorbed.append(seed.attrs["calls"])
    else:
        body.values[id(seed)] = body.clone(seed, [body.value(o) for o in seed.operands], dies=True)
    pulled: list[Instruction] = []
    prev = seed
    for stage in stages:
        if stage.opcode == "fusion":
            body.values[id(stage)] = body.inline(stage, order=orders.get(id(stage)))
            absorbed.append(stage.attrs["calls"])
        else:
            _clone_pulled(body, [o for o in _pulled(stage, prev, pinned) if id(o) not in body.values],
                          member_ids, comp, pulled)
            body.values[id(stage)] = body.clone(stage, [body.value(o) for o in stage.operands], dies=True)
        prev = stage
    last = stages[-1]
    root = body.values[id(last)]
    body.comp.root = root  # clones were added operands first: the instruction order is a post order
    attrs: dict[str, object] = {"kind": Enum("kOutput"), "calls": body.comp}
    for key in ("metadata", "frontend_attributes"):
        if key in last.attrs:
            attrs[key] = last.attrs[key]
    fusion = Instruction("fusion", "fusion", last.shape, body.operands, attrs)
    rw.add_instruction_deferred(comp, fusion, before=last, name=f"{hero.opcode}_{root.opcode}_fusion")
    rw.replace_all_uses_with(last, fusion)
    rw.add_computation(body.comp, before=comp)  # callees before callers, as XLA prints
    for m in reversed(members):
        rw.detach(m)
        dead[id(m)] = m
    for o in sorted(pulled, key=lambda o: o.opcode != "broadcast"):  # a broadcast before its constant
        if not o.users and o is not comp.root:
            rw.detach(o)
            dead[id(o)] = o
    return fusion


def _clone_pulled(body: _Body, new: list[Instruction], member_ids: set[int], comp: Computation,
                  pulled: list[Instruction]) -> None:
    """Clone a stage's broadcast/constant operands in (`new`: a broadcast before its constant).
    One whose users are all fused dies with the chain and its clone keeps its name."""
    dies: dict[int, bool] = {}
    for o in new:
        dies[id(o)] = all(id(u) in member_ids for u in o.users) and o is not comp.root
        if dies[id(o)]:
            member_ids.add(id(o))
    for o in reversed(new):  # operands first
        body.values[id(o)] = body.clone(o, [body.value(x) for x in o.operands], dies=dies[id(o)])
        pulled.append(o)


# -- small facts -----------------------------------------------------------------------------
def _size(seed: Instruction) -> int:
    if seed.opcode != "fusion":
        return 1
    return sum(1 for i in seed.attrs["calls"].instructions if i.opcode != "parameter")


def _is_array(shape: Shape) -> bool:
    return shape.tuple_shapes is None and shape.element_type is not None and shape.element_type.is_array \
        and not shape.is_buffer


def same_array_shape(a: Shape, b: Shape) -> bool:
    """Same element type, dims, dynamic dims and layout (a missing layout is the default)."""
    if a is b:
        return True
    if not (_is_array(a) and _is_array(b)) or a.element_type != b.element_type or a.dims != b.dims \
            or a.dynamic != b.dynamic:
        return False
    return (a.layout or Layout.default(len(a.dims))) == (b.layout or Layout.default(len(b.dims)))


def _true_elementwise(inst: Instruction) -> bool:
    """An elementwise op whose array operands all have its dims (the opcode table's category
    includes bitcast-convert, which changes the rank between element widths)."""
    return is_elementwise(inst) and all(o.shape.dims == inst.shape.dims for o in inst.operands)


def _is_scalar_constant(inst: Instruction) -> bool:
    return inst.opcode == "constant" and _is_array(inst.shape) and not inst.shape.dims
