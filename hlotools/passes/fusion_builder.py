"""Building fusion instructions the way XLA does (HloCallableInstruction::
CloneAndAppendInstructionIntoCalledComputation), one producer at a time.

A new fusion takes the consumer's place: the fused computation `fused_computation` holds a
clone of the consumer over parameters `param_0..` (its unique operands, in order). Fusing a
producer (an operand of the fusion) replaces that operand's parameter by a clone of the
producer, removes the parameter (the later ones are renumbered, `param_N` again) and appends
the producer's operands that are not operands yet as new parameters. The clone keeps the
producer's name when the producer dies with it (the producer then takes a throwaway name until
its batched removal), and gets a fresh one when the producer stays for other users.

Per fused instruction the state tracks what the fusion heuristics need incrementally: the
index vectors it is evaluated at (XLA's FusionNodeIndexingEvaluation) and whether some path to
the root re-reads its elements (ReusesOperandElements). Adding a producer never changes these
facts for instructions already fused, so every update costs O(users of the new clone).

Computations are only added to the module when the pass is done with the outer computation
(`FusionBuilder.finish`), so fusions later merged into other fusions leave nothing behind.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from hlotools.ir.attributes import Enum
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction, remove_user
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.walks import post_order_from
from hlotools.passes.fusion_rules import MAX_INDEX_VECTORS, index_preserving, reuses_operand

_CAP = MAX_INDEX_VECTORS + 1
_NO_INDICES: frozenset[int] = frozenset()


@dataclass
class FusionState:
    """A fusion instruction being grown, with the per-instruction facts of its body."""

    fusion: Instruction
    body: Computation
    pending: bool  # the body is not in the module yet
    indices: dict[int, frozenset[int]] = field(default_factory=dict)
    reused: dict[int, bool] = field(default_factory=dict)
    size: int = 0  # fused instructions, parameters excluded
    reductions: int = 0
    duplicated: int = 0  # fused producers that other users still read unfused (max-duplicated)
    # No operand twice: true of the fusions built here (each producer's slots all go, new
    # operands are appended only when absent), so the operand budget need not dedupe them.
    distinct_operands: bool = True

    def operand_index(self, operand: Instruction) -> list[int]:
        ops = self.fusion.operands  # (instructions compare by identity: list.index is a C scan)
        if ops.count(operand) == 1:
            return [ops.index(operand)]
        return [i for i, o in enumerate(ops) if o is operand]


def counts_as_duplicate(producer: Instruction) -> bool:
    """Whether duplicating `producer` counts towards max-duplicated: not the free ones
    (broadcasts and widening converts only move or widen what they read)."""
    from hlotools.passes.fusion_rules import ALWAYS_DUPLICABLE, is_widening_convert
    return producer.opcode not in ALWAYS_DUPLICABLE and not is_widening_convert(producer)


class FusionBuilder:
    """Creates and grows fusions in one outer computation; `finish` commits them."""

    def __init__(self, rw: Rewriter, comp: Computation) -> None:
        self.rw = rw
        self.comp = comp
        self.created: list[FusionState] = []
        self.states: dict[int, FusionState] = {}
        self.dead: dict[int, Instruction] = {}
        self._ids = itertools.count(1)

    # -- facts ---------------------------------------------------------------------------
    def state(self, fusion: Instruction) -> FusionState:
        """The state of a fusion (an existing one is analysed on first use)."""
        st = self.states.get(id(fusion))
        if st is None:
            body = fusion.attrs["calls"]
            st = FusionState(fusion, body, pending=False,
                             distinct_operands=len(set(map(id, fusion.operands))) == len(fusion.operands))
            self._analyse(st)
            self.states[id(fusion)] = st
        return st

    def _analyse(self, st: FusionState) -> None:
        order = post_order_from(st.body.root)  # type: ignore[arg-type]
        st.indices[id(st.body.root)] = frozenset([next(self._ids)])
        st.reused[id(st.body.root)] = False
        for inst in reversed(order):
            if inst is not st.body.root:
                st.indices[id(inst)], st.reused[id(inst)] = self.facts_from_users(st, inst, inst.users)
            if inst.opcode != "parameter":
                st.size += 1
                st.reductions += inst.opcode == "reduce"

    def facts_from_users(self, st: FusionState, inst: Instruction,
                         users: list[Instruction]) -> tuple[frozenset[int], bool]:
        """Index vectors and reuse of `inst` given its users inside the body."""
        idx: set[int] = set()
        reused = False
        indices, reuse = st.indices, st.reused
        for u in users:
            u_idx = indices.get(id(u), _NO_INDICES)
            u_reused = reuse.get(id(u), False)
            preserving: bool | None = None  # asked once per user, not per operand edge
            for k, o in enumerate(u.operands):
                if o is not inst:
                    continue
                reused = reused or u_reused or reuses_operand(u, k)
                if preserving is None:
                    preserving = index_preserving(u)
                if preserving:
                    idx.update(u_idx)
                else:
                    idx.update(next(self._ids) for _ in u_idx)
                if len(idx) >= _CAP:
                    break
        return frozenset(itertools.islice(idx, _CAP)), reused

    def single_state(self, consumer: Instruction) -> FusionState:
        """Facts for a consumer that is not a fusion yet (as if it were the root of one)."""
        st = FusionState(consumer, None, pending=True, distinct_operands=False)  # type: ignore[arg-type]
        st.indices[id(consumer)] = frozenset([0])
        st.reused[id(consumer)] = False
        st.size = 1
        st.reductions = int(consumer.opcode == "reduce")
        return st

    # -- edits ---------------------------------------------------------------------------
    def start(self, consumer: Instruction, producer_opcode: str, kind: str | None = None) -> FusionState:
        """Replace `consumer` by a one-instruction fusion named `<producer>_<consumer>_fusion`."""
        rw = self.rw
        body = Computation("fused_computation")
        body.is_fusion_computation = True
        operands: list[Instruction] = []
        params: dict[int, Instruction] = {}
        for o in consumer.operands:
            if id(o) not in params:
                params[id(o)] = self._new_param(body, len(operands), o)
                operands.append(o)
        clone = consumer.clone([params[id(o)] for o in consumer.operands])
        self._take_name(clone, consumer)
        body.add_instruction(clone)
        body.root = clone
        attrs = {"kind": Enum(kind or _kind_of(clone)), "calls": body}
        for key in ("metadata", "frontend_attributes"):
            if key in consumer.attrs:
                attrs[key] = consumer.attrs[key]
        fusion = Instruction("fusion", "fusion", consumer.shape, None, attrs)
        for o in operands:  # unique: append the edges without scanning long users lists
            fusion.operands.append(o)
            o.users.append(fusion)
        rw.add_instruction_deferred(self.comp, fusion, before=consumer,
                                    name=f"{producer_opcode}_{consumer.opcode}_fusion")
        rw.replace_all_uses_with(consumer, fusion)
        self._kill(consumer)
        st = FusionState(fusion, body, pending=True)
        self._analyse(st)
        self.states[id(fusion)] = st
        self.created.append(st)
        return st

    def fuse(self, st: FusionState, producer: Instruction) -> None:
        """Fuse `producer` (an operand of the fusion) into it; a fusion producer is merged."""
        fusion, body = st.fusion, st.body
        slots = st.operand_index(producer)
        old_params = [body.parameters[k] for k in slots]
        duplicate = producer.users.count(fusion) != len(producer.users)  # other users (identity compare)
        # Drop the parameters and operand slots of the producer (later ones renumbered).
        for k in sorted(slots, reverse=True):
            fusion.operands.pop(k)
            body.parameters.pop(k)
        remove_user(producer.users, fusion)
        for n, p in enumerate(body.parameters):
            p.parameter_number = n  # renamed `param_N` once, in finish
        if producer.opcode == "fusion":
            root, new = self._inline_body(st, producer)
        else:
            root = self._clone_into(st, producer, duplicate)
            new = [root]
            if duplicate and counts_as_duplicate(producer):
                st.duplicated += 1
        for p in old_params:
            for u in list(p.users):
                u.operands = [root if o is p else o for o in u.operands]
                if u not in root.users:
                    root.users.append(u)
            p.users = []
        for inst in reversed(new):  # users before operands: facts flow from the root
            st.indices[id(inst)], st.reused[id(inst)] = self.facts_from_users(st, inst, inst.users)
        if not duplicate:
            self._kill(producer)

    # -- finishing -----------------------------------------------------------------------
    def finish(self) -> list[FusionState]:
        """Place the new fusions, remove what they replaced, add their computations."""
        rw = self.rw
        rw.flush_deferred(self.comp)
        if self.dead:
            rw.remove_instructions(self.comp, self.dead.values())
        live = [st for st in self.created if id(st.fusion) not in self.dead]
        for st in self.states.values():
            if id(st.fusion) not in self.dead and st.body is not None and st.body.root is not None:
                st.body.instructions = post_order_from(st.body.root)  # XLA's print order
                for n, p in enumerate(st.body.parameters):  # XLA renumbers as `param_N`
                    if not p.name.startswith(f"param_{n}") or p.name[len(f"param_{n}"):][:1] not in ("", "."):
                        p.name = rw.unique_name(f"param_{n}")
        for st in live:
            rw.add_computation(st.body)
        return live

    # -- helpers -------------------------------------------------------------------------
    def _new_param(self, body: Computation, number: int, operand: Instruction) -> Instruction:
        p = Instruction(self.rw.unique_name(f"param_{number}"), "parameter", operand.shape,
                        parameter_number=number)
        body.add_instruction(p)
        return p

    def _operand_param(self, st: FusionState, operand: Instruction) -> Instruction:
        """The parameter standing for outer `operand`, appended when it is new."""
        if operand in st.fusion.operands:  # (by identity, a C scan of a wide fusion's operands)
            return st.body.parameters[st.fusion.operands.index(operand)]
        p = self._new_param(st.body, len(st.fusion.operands), operand)
        st.fusion.operands.append(operand)  # not an operand yet, so not a user yet: no scan
        operand.users.append(st.fusion)
        return p

    def _clone_into(self, st: FusionState, producer: Instruction, duplicate: bool) -> Instruction:
        operands = [self._operand_param(st, o) for o in producer.operands]
        clone = producer.clone(operands)
        if duplicate:
            clone.name = self.rw.unique_name(producer.name)
        else:
            self._take_name(clone, producer)
        st.body.add_instruction(clone)
        st.size += 1
        st.reductions += producer.opcode == "reduce"
        return clone

    def _inline_body(self, st: FusionState, producer: Instruction) -> tuple[Instruction, list[Instruction]]:
        """Merge a (single-user) fusion producer: its body's instructions join ours."""
        inner = self.states.get(id(producer))
        body = producer.attrs["calls"]
        mapping: dict[int, Instruction] = {}
        clones: list[Instruction] = []
        for k, p in enumerate(body.parameters):
            mapping[id(p)] = self._operand_param(st, producer.operands[k])
        for inst in post_order_from(body.root):
            if inst.opcode == "parameter":
                continue
            clone = inst.clone([mapping[id(o)] for o in inst.operands])
            self._take_name(clone, inst)
            st.body.add_instruction(clone)
            mapping[id(inst)] = clone
            clones.append(clone)
            st.size += 1
            st.reductions += inst.opcode == "reduce"
        if inner is not None:
            inner.pending = False  # a body created here is never added: its fusion is dead
        return mapping[id(body.root)], clones

    def _take_name(self, clone: Instruction, original: Instruction) -> None:
        clone.name = original.name
        original.name = self.rw.unique_name(original.name + ".fused")

    def _kill(self, inst: Instruction) -> None:
        self.rw.detach(inst)
        self.dead[id(inst)] = inst


def _kind_of(root: Instruction) -> str:
    """kInput when a reduction is the fusion's hero (its root, or a root tuple's element)."""
    outs = root.operands if root.opcode == "tuple" else [root]
    return "kInput" if any(o.opcode == "reduce" for o in outs) else "kLoop"


