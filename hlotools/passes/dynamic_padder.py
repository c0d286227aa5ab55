"""The dynamic padder (XLA's DynamicPadder, pass name `dynamic-padder`): a module with bounded
dynamic dims becomes a static one that computes the same valid elements.

Every array lives at its bound, valid elements first; each dynamic size is an explicit s32[]
value. The rewritten entry's form (what `PaddedSignature` records, and what running relies on):
  * parameters: the original ones at their bounds, then one s32[] size per dynamic dim of their
    leaves (parameters in order, leaves depth-first, dims in order);
  * result: tuple(original result at its bounds, one s32[] size per dynamic dim of its leaves,
    then each set-dimension-size's requested size, unclamped, for the caller to check against
    its bound: the entry's own and those of the calls and conditional branches it reaches; a
    while loop's are not returned). Inside, a requested size is clamped into 0..bound.
Sizes flow through while/call/conditional as extra tuple elements of parameters and results.
Each entry instruction also records which of its dims run to which size parameter, and a dot
or reduce the sizes it reads across (ir/runtime_sizes.py): the LLVM backend stops its loops
there, while the module itself still computes the whole bound (the oracle).
Per-opcode rules (dynamic_rules.py) follow XLA's dynamic dimension inference; an opcode whose
dynamic behaviour is not defined is an HloError naming the instruction.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hlotools.errors import HloError
from hlotools.ir import runtime_sizes
from hlotools.ir.attributes import ComputationLayout
from hlotools.ir.computation import Computation
from hlotools.ir.dynamic import (
    DynamicDim,
    PaddedSignature,
    has_dynamic_shapes,
    is_dynamic_instruction,
    leaf_dynamic_dims,
    static_shape,
)
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.shape import Shape
from hlotools.ir.types import S32
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.dynamic_builder import Builder, Size
from hlotools.passes.dynamic_rules import RULES, Tree, elementwise, is_static_tree, static_tree

S32_SCALAR = Shape.array(S32, ())
LeafDim = tuple[int, int]  # (leaf index, dim)


@dataclass
class DynamicPadder(HloPass):
    """XLA's DynamicPadder: explicit sizes, masks where padding would be read."""
    name = "dynamic-padder"
    description = "bounded dynamic shapes -> static shapes plus s32 sizes and masks"

    def run(self, module: Module, ctx: PassContext) -> bool:
        return pad_module(module) is not None


def pad_module(module: Module) -> PaddedSignature | None:
    """Rewrite `module` in place; None (unchanged) when nothing in it is dynamic."""
    if not has_dynamic_shapes(module):
        return None
    assert module.entry is not None
    padder = _Padder(Rewriter(module))
    return padder.entry(module.entry)


def _flatten(tree: Tree) -> list[list[Size]]:
    """Per-leaf size lists, depth-first (Shape.leaves order)."""
    if isinstance(tree, tuple):
        return [leaf for t in tree for leaf in _flatten(t)]
    return [tree]


def _unflatten(shape: Shape, leaves: list[list[Size]]) -> Tree:
    it = iter(leaves)

    def build(s: Shape) -> Tree:
        if s.tuple_shapes is not None:
            return tuple(build(t) for t in s.tuple_shapes)
        return next(it)
    return build(shape)


def _dims_of(shape: Shape, tree: Tree | None) -> list[LeafDim]:
    """Declared dynamic dims of `shape` and the dims `tree` gives a size, in leaf/dim order."""
    found = {(d.leaf, d.dim) for d in leaf_dynamic_dims(shape)}
    if tree is not None:
        found |= {(k, d) for k, leaf in enumerate(_flatten(tree)) for d, s in enumerate(leaf) if s is not None}
    return sorted(found)


def _record_sizes(walk: Walk) -> None:
    """Each entry instruction records which of its dims run to which size parameter, and the
    sizes it reads across (ir/runtime_sizes.py): a backend may stop its loops there. A mask
    records only the dims it does not mask (its padding there is the fill, which is read)."""
    params = {id(p): p.parameter_number for p in walk.comp.parameters if p is not None}

    def numbers(sizes: list[Size]) -> list[int | None]:
        return [params.get(id(s)) if s is not None else None for s in sizes]
    for inst in walk.comp.instructions:
        tree = walk.trees.get(id(inst))
        if isinstance(tree, list) and inst.shape.is_array and len(tree) == inst.shape.rank:
            runtime_sizes.record(inst, runtime_sizes.SIZES_KEY, numbers(tree))
        reads = walk.reads.get(id(inst))
        if reads is not None:
            runtime_sizes.record(inst, runtime_sizes.READS_KEY, numbers(reads))
    for mask, x, masked in walk.masks:
        tree = walk.trees.get(id(x))
        if isinstance(tree, list) and len(tree) == len(masked):
            kept = [None if m is not None else s for s, m in zip(tree, masked)]
            runtime_sizes.record(mask, runtime_sizes.SIZES_KEY, numbers(kept))


class _Padder:
    """Walks computations from the entry down the control-flow calls."""

    def __init__(self, rw: Rewriter) -> None:
        self.rw = rw
        self.originals: list[Computation] = []

    def entry(self, comp: Computation) -> PaddedSignature:
        sig = PaddedSignature()
        walk = Walk(self, comp, entry=True)
        self._entry_parameters(walk, sig)
        self._entry_result(walk, walk.run(), sig)
        _record_sizes(walk)
        self._finish()
        if "entry_computation_layout" in self.rw.module.attrs:
            assert comp.root is not None
            layout = ComputationLayout(tuple(p.shape.with_default_layout() for p in comp.parameters),
                                       comp.root.shape.with_default_layout(), None)
            self.rw.set_module_attr("entry_computation_layout", layout)
        return sig

    def _entry_parameters(self, walk: Walk, sig: PaddedSignature) -> None:
        """One s32[] parameter per dynamic dim of the parameters' leaves, after the parameters."""
        comp = walk.comp
        params = sorted((p for p in comp.parameters if p is not None), key=lambda p: p.parameter_number or 0)
        first = next((i for i in comp.instructions if i.opcode != "parameter"), None)
        leaf_base = 0
        for p in params:
            leaves = p.shape.leaves()
            trees: list[list[Size]] = [[None] * leaf.rank for leaf in leaves]
            for d in leaf_dynamic_dims(p.shape):
                if d.bound < 0:
                    raise walk.error(p, "an unbounded dynamic dimension (?) has no padded form")
                trees[d.leaf][d.dim] = self._parameter(comp, f"{p.name}.size{d.leaf}_{d.dim}", first)
                sig.inputs.append(DynamicDim(leaf_base + d.leaf, d.dim, d.bound))
            walk.trees[id(p)] = _unflatten(p.shape, trees)
            leaf_base += len(leaves)

    def _entry_result(self, walk: Walk, root_tree: Tree, sig: PaddedSignature) -> None:
        """The root becomes tuple(result, its dynamic sizes, the set-dimension-size requests)."""
        comp = walk.comp
        assert comp.root is not None
        result = comp.root
        sig.results = len(result.shape.leaves())
        dims = _dims_of(result.shape, root_tree)
        root_leaves = _flatten(root_tree)
        bounds = [leaf.dims for leaf in result.shape.leaves()]
        sizes = [walk.end_builder().value(root_leaves[k][d], bounds[k][d]) for k, d in dims]
        sig.outputs = [DynamicDim(k, d, bounds[k][d]) for k, d in dims]
        sig.checks = [(name, bound) for name, bound, _ in walk.checks]
        extra = sizes + [walk.resolve(n) for _, _, n in walk.checks]
        root = self.rw.new_instruction(comp, "tuple", Shape.tuple_of([result.shape] + [S32_SCALAR] * len(extra)),
                                       [result, *extra], name="dynamic_padder.result")
        self.rw.set_root(comp, root)

    def _parameter(self, comp: Computation, name: str, before: Instruction | None) -> Instruction:
        n = len(comp.parameters)
        inst = Instruction(name, "parameter", S32_SCALAR, [], parameter_number=n)
        self.rw.add_instruction(comp, inst, before=before, name=name)
        comp.parameters.append(inst)
        return inst

    def _finish(self) -> None:
        """Drop the computations only the rewritten call sites used to call."""
        from hlotools.ir.rewriter import reachable_computations
        live = {id(c) for c in reachable_computations(self.rw.module)}
        self.rw.remove_computations([c for c in self.originals if id(c) not in live])

    # -- called computations ----------------------------------------------------------------
    def callee(self, comp: Computation, params: list[list[LeafDim]]) -> tuple[Computation, Walk]:
        """A padded copy of `comp`, parameter k extended to tuple(param, its sizes at params[k])."""
        copy = comp.clone(f"{comp.name}.padded", rename=self.rw.unique_name)
        self.rw.add_computation(copy, before=comp)
        self.originals.append(comp)
        walk = Walk(self, copy, entry=False)
        for p in list(copy.parameters):
            dims = params[p.parameter_number or 0]
            if not dims:
                walk.trees[id(p)] = static_tree(p.shape)
                continue
            walk.trees.update(self._unpack_parameter(walk, p, dims))
        walk.tree_root = walk.run()
        return copy, walk

    def _unpack_parameter(self, walk: Walk, p: Instruction, dims: list[LeafDim]) -> dict[int, Tree]:
        """p becomes tuple(p, sizes...); its users read gte(p, 0), the sizes gte(p, 1 + i)."""
        inner = static_shape(p.shape)
        users = list(p.users)
        was_root = walk.comp.root is p
        p.shape = Shape.tuple_of([inner] + [S32_SCALAR] * len(dims))
        position = walk.comp.instructions.index(p) + 1
        at = walk.comp.instructions[position] if position < len(walk.comp.instructions) else None
        data = self.rw.new_instruction(walk.comp, "get-tuple-element", inner, [p], {"index": 0}, before=at)
        for u in users:
            u.operands = [data if o is p else o for o in u.operands]
            p.users.remove(u)
            data.users.append(u)
        if was_root:
            walk.comp.root = data
        leaves: list[list[Size]] = [[None] * leaf.rank for leaf in inner.leaves()]
        for i, (k, d) in enumerate(dims):
            leaves[k][d] = self.rw.new_instruction(walk.comp, "get-tuple-element", S32_SCALAR, [p],
                                                   {"index": 1 + i}, before=at)
        walk.done.add(id(data))
        walk.done.update(id(s) for leaf in leaves for s in leaf if s is not None)
        return {id(p): static_tree(p.shape), id(data): _unflatten(inner, leaves)}

    def returning(self, walk: Walk, dims: list[LeafDim], checks: Sequence[Instruction | None] = ()) -> None:
        """The callee's root becomes tuple(root, its sizes at `dims`, then `checks`: the
        set-dimension-size requests the caller checks; None returns 0, always valid)."""
        comp = walk.comp
        assert comp.root is not None
        tree = walk.tree_root
        extra = [d for d in _dims_of(comp.root.shape, tree) if d not in dims]
        if extra:
            raise walk.error(comp.root, f"leaf {extra[0][0]} dimension {extra[0][1]} becomes dynamic "
                                        "but is static in the caller's shape")
        if not dims and not checks:
            return
        leaves, bounds = _flatten(tree), [leaf.dims for leaf in comp.root.shape.leaves()]
        b = walk.end_builder()
        sizes = [b.value(leaves[k][d], bounds[k][d]) for k, d in dims]
        sizes += [b.value(c and walk.resolve(c), 0) for c in checks]
        root = self.rw.new_instruction(comp, "tuple", Shape.tuple_of([comp.root.shape] + [S32_SCALAR] * len(sizes)),
                                       [comp.root, *sizes], name="dynamic_padder.result")
        self.rw.set_root(comp, root)


class Walk:
    """Rewrites one computation in order; `trees[id(inst)]` holds each value's sizes."""

    def __init__(self, padder: _Padder, comp: Computation, entry: bool) -> None:
        self.padder, self.rw, self.comp, self.is_entry = padder, padder.rw, comp, entry
        self.trees: dict[int, Tree] = {}
        self.done: set[int] = set()
        self.replacements: dict[int, Instruction] = {}
        self.checks: list[tuple[str, int, Instruction]] = []
        self.tree_root: Tree = None
        self.masks: list[tuple[Instruction, Instruction, list[Size]]] = []  # (mask, operand, masked sizes)
        self.reads: dict[int, list[Size]] = {}  # note_reads: per dim of operand 0
        self.b = Builder(self.rw, comp, comp.instructions[0], self.masks)

    def run(self) -> Tree:
        for inst in list(self.comp.instructions):
            if id(inst) not in self.trees and id(inst) not in self.done:
                self.b = Builder(self.rw, self.comp, inst, self.masks)
                self.trees[id(inst)] = self._rule(inst)
            self.rw.set_shape(inst, static_shape(inst.shape))
        self.rw.flush_deferred(self.comp)
        dead = [i for i in self.comp.instructions if id(i) in self.replacements]
        self.rw.replace_all_uses_batched(self.comp, self.replacements)
        self.rw.remove_instructions(self.comp, dead)
        assert self.comp.root is not None
        root = self.comp.root
        for old_id, new in self.replacements.items():
            if new is root and old_id in self.trees:
                return self.trees[old_id]
        return self.trees[id(root)]

    def _rule(self, inst: Instruction) -> Tree:
        rule = RULES.get(inst.opcode)
        if rule is not None:
            return rule(self, inst)
        if inst.opcode in _CONTROL:
            return _CONTROL[inst.opcode](self, inst)
        if OPCODES[inst.opcode].is_elementwise or inst.opcode in ("map", "reduce-precision"):
            return elementwise(self, inst)
        if inst.opcode == "custom-call":
            return _custom_call(self, inst)
        if inst.shape.is_static and all(is_static_tree(self.tree(o)) for o in inst.operands):
            return static_tree(inst.shape)
        raise self.error(inst, "has no defined dynamic-dimension behaviour (XLA's dynamic padder "
                               "does not define one either)")

    # -- what rules use ---------------------------------------------------------------------
    def tree(self, inst: Instruction) -> Tree:
        return self.trees[id(inst)]

    def replace(self, inst: Instruction, new: Instruction) -> None:
        self.replacements[id(inst)] = new

    def resolve(self, inst: Instruction) -> Instruction:
        while id(inst) in self.replacements:
            inst = self.replacements[id(inst)]
        return inst

    def set_operand(self, inst: Instruction, k: int, new: Instruction) -> None:
        if inst.operands[k] is not new:
            self.rw.replace_operand(inst, k, new)

    def note_reads(self, inst: Instruction, sizes: list[Size]) -> None:
        """The sizes of the dims of operand 0 that `inst` reads across (a dot's contracting,
        a reduce's reduced dims): where a backend may stop the read (ir/runtime_sizes.py)."""
        if any(s is not None for s in sizes):
            self.reads[id(inst)] = sizes

    def check_size(self, inst: Instruction, size: Instruction, bound: int) -> None:
        """Every request is returned to the caller (and from the entry to the runner), except
        from a while loop's body and condition: there it is only clamped."""
        self.checks.append((inst.name, bound, size))

    def add_computation(self, comp: Computation) -> Computation:
        return self.rw.add_computation(comp, before=self.comp)

    def end_builder(self) -> Builder:
        return Builder(self.rw, self.comp, None)

    def error(self, inst: Instruction, message: str) -> HloError:
        return HloError(f"dynamic-padder: %{inst.name} ({inst.opcode}) in computation %{self.comp.name}: {message}",
                        inst.line or None, inst.column or None)


# -- control flow ------------------------------------------------------------------------------
def _needs_padding(w: Walk, inst: Instruction) -> bool:
    if not all(is_static_tree(w.tree(o)) for o in inst.operands) or not inst.shape.is_static:
        return True
    seen: set[int] = set()
    stack = list(inst.called_computations())
    while stack:
        c = stack.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        if any(is_dynamic_instruction(i) for i in c.instructions):
            return True
        stack.extend(c.callees())
    return False


def _pack(w: Walk, value: Instruction, dims: list[LeafDim]) -> Instruction:
    """tuple(value, its sizes at dims) before the current instruction."""
    if not dims:
        return value
    leaves, bounds = _flatten(w.tree(value)), [leaf.dims for leaf in value.shape.leaves()]
    sizes = [w.b.value(leaves[k][d], bounds[k][d]) for k, d in dims]
    return w.b.op("tuple", Shape.tuple_of([static_shape(value.shape)] + [S32_SCALAR] * len(dims)), value, *sizes)


def _unpack(w: Walk, inst: Instruction, dims: list[LeafDim], checks: Sequence[tuple[str, int]] = ()) -> Tree:
    """inst now returns tuple(data, sizes at dims, checks): its users read gte(inst, 0), placed
    right after it with the size and check gtes; the returned tree is the new tuple's (static)."""
    if not dims and not checks:
        return static_tree(inst.shape)
    data_shape = static_shape(inst.shape)
    users = list(inst.users)
    inst.shape = Shape.tuple_of([data_shape] + [S32_SCALAR] * (len(dims) + len(checks)))
    comp = w.comp
    at = comp.instructions.index(inst) + 1
    b = Builder(w.rw, comp, comp.instructions[at] if at < len(comp.instructions) else None)
    data = b.op("get-tuple-element", data_shape, inst, index=0)
    leaves: list[list[Size]] = [[None] * leaf.rank for leaf in data_shape.leaves()]
    for i, (k, d) in enumerate(dims):
        leaves[k][d] = b.op("get-tuple-element", S32_SCALAR, inst, index=1 + i)
    for j, (name, bound) in enumerate(checks):
        w.checks.append((name, bound, b.op("get-tuple-element", S32_SCALAR, inst, index=1 + len(dims) + j)))
    for u in users:
        u.operands = [data if o is inst else o for o in u.operands]
        inst.users.remove(u)
        data.users.append(u)
    if comp.root is inst:
        comp.root = data
    w.trees[id(data)] = _unflatten(data_shape, leaves)
    return static_tree(inst.shape)


def _while(w: Walk, inst: Instruction) -> Tree:
    if not _needs_padding(w, inst):
        return static_tree(inst.shape)
    init = inst.operands[0]
    dims = _dims_of(inst.shape, w.tree(init))
    cond, _ = w.padder.callee(inst.attrs["condition"], [dims])
    body, body_walk = w.padder.callee(inst.attrs["body"], [dims])
    w.padder.returning(body_walk, dims)
    w.set_operand(inst, 0, _pack(w, init, dims))
    inst.attrs = {**inst.attrs, "condition": cond, "body": body}
    return _unpack(w, inst, dims)


def _call(w: Walk, inst: Instruction) -> Tree:
    if not _needs_padding(w, inst):
        return static_tree(inst.shape)
    target: Computation = inst.attrs["to_apply"]
    params = [_dims_of(p.shape, w.tree(o)) for p, o in zip(target.parameters, inst.operands)]
    callee, walk = w.padder.callee(target, params)
    dims = _dims_of(inst.shape, walk.tree_root)
    w.padder.returning(walk, dims, [n for _, _, n in walk.checks])
    for k, (o, pd) in enumerate(zip(list(inst.operands), params)):
        w.set_operand(inst, k, _pack(w, o, pd))
    inst.attrs = {**inst.attrs, "to_apply": callee}
    return _unpack(w, inst, dims, [(name, bound) for name, bound, _ in walk.checks])


def _conditional(w: Walk, inst: Instruction) -> Tree:
    if not _needs_padding(w, inst):
        return static_tree(inst.shape)
    key = "branch_computations" if "branch_computations" in inst.attrs else None
    branches: list[Computation] = list(inst.attrs[key]) if key else \
        [inst.attrs["true_computation"], inst.attrs["false_computation"]]
    operands = list(inst.operands[1:])
    params = [_dims_of(c.parameters[0].shape, w.tree(o)) for c, o in zip(branches, operands)]
    made = [w.padder.callee(c, [p]) for c, p in zip(branches, params)]
    dims = sorted(set(_dims_of(inst.shape, None)).union(*(_dims_of(inst.shape, wk.tree_root) for _, wk in made)))
    requests = [(i, c) for i, (_, wk) in enumerate(made) for c in wk.checks]
    for i, (_, wk) in enumerate(made):  # each branch returns its own requests, 0 for the others'
        w.padder.returning(wk, dims, [c[2] if j == i else None for j, c in requests])
    for k, (o, pd) in enumerate(zip(operands, params)):
        w.set_operand(inst, 1 + k, _pack(w, o, pd))
    news = [c for c, _ in made]
    inst.attrs = {**inst.attrs, **({key: tuple(news)} if key else
                                   {"true_computation": news[0], "false_computation": news[1]})}
    return _unpack(w, inst, dims, [(name, bound) for _, (name, bound, _) in requests])


_CONTROL = {"while": _while, "call": _call, "conditional": _conditional}


def _custom_call(w: Walk, inst: Instruction) -> Tree:
    """XLA's PadToStatic (dynamic -> padded data plus every dim's size) and SliceToDynamic
    (padded data plus sizes -> dynamic) are the padded form's own boundary markers."""
    target = inst.attrs.get("custom_call_target")
    if target == "PadToStatic":
        x = inst.operands[0]
        sizes = [w.b.value(s, n) for s, n in zip(w.tree(x), x.shape.dims)]
        w.replace(inst, w.b.op("tuple", static_shape(inst.shape), x, *sizes))
        return static_tree(inst.shape)
    if target == "SliceToDynamic":
        x, given = inst.operands[0], inst.operands[1:]
        if len(given) != inst.shape.rank:
            raise w.error(inst, f"expects one size per dimension ({inst.shape.rank}), got {len(given)}")
        w.replace(inst, x)
        return [w.b.clamp(0, g, inst.shape.dims[d]) if inst.shape.is_dynamic_dim(d) else None
                for d, g in enumerate(given)]
    if inst.shape.is_static and all(is_static_tree(w.tree(o)) for o in inst.operands):
        return static_tree(inst.shape)
    raise w.error(inst, f"custom-call target {target!r} has no defined dynamic-dimension behaviour")
