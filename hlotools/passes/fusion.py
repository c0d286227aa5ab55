"""Instruction fusion (XLA's InstructionFusion with CpuInstructionFusion's rules; pass `fusion`).

Per non-fusion computation (the entry, while bodies, branches — not the embedded bodies of
reduce/sort/map/...), consumers are visited in reverse post order and each one tries its
operands latest-producer first (so a shared producer is not cloned twice); after a fusion the
new fusion node is re-queued and tried again, as XLA's ReversePostOrderFusionQueue does.
Fusions are `kLoop`, or `kInput` when a reduction is the root (the input-fusion hero).

Rules (fusion_rules.py has the static ones): producers must be loop-fusible (elementwise,
broadcast, reshape, transpose, slice, pad, concatenate, iota, gather, dynamic-slice, reduce,
scalar constants — the latter only into an existing fusion); dot, convolution, custom-calls,
control flow and side effects stay out. A producer with other users is duplicated only when it
is cheap (never an expensive op: exp, log, divide, reduce, gather, ...; always a broadcast or a
widening convert) and not globally unfusible (XLA's ComputeGloballyUnfusible); an expensive
producer is never fused where its elements are re-read (broadcast, dot, reduce-window); no fused
instruction may be evaluated at more than 15 index vectors (code duplication); at most five
reductions per fusion. `max-fused-instructions` and `max-operands` bound the fusion size (the
register-pressure budget: each fused operand is a live input stream in the kernel's loop).
`max-duplicated` bounds how many producers that other users still read one fusion may copy
(the LLVM backend's budget: a training step's residual-stream gradient is a chain of adds,
each read by one layer's fusion, and unbounded duplication copies the whole rest of the chain
into every layer's fusion, so fused code grows with the square of the depth).

A fusion producer with a single user is merged into its consumer fusion (`merge-fusions`).
Afterwards, siblings — loop fusions or elementwise ops sharing an operand, with equal output
dims — are merged into multi-output fusions (`multi-output`, fusion_multi_output.py), and the
producer-consumer round runs again until nothing changes, so the pass is idempotent.
Every decision takes one unit of fuel (--bisect-limit) and is logged with -vv.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction, unique
from hlotools.ir.module import Module
from hlotools.ir.rewriter import Rewriter
from hlotools.ir.walks import is_elementwise
from hlotools.passes.base import HloPass, PassContext
from hlotools.passes.cse import HloCSE
from hlotools.passes.fusion_builder import FusionBuilder, FusionState, counts_as_duplicate
from hlotools.passes.fusion_multi_output import fuse_siblings
from hlotools.passes.fusion_rules import (
    ALWAYS_DUPLICABLE,
    MAX_INDEX_VECTORS,
    MAX_REDUCTIONS,
    can_be_output_fused,
    concat_too_wide,
    effectively_at_most_unary,
    is_consumer_fusible,
    is_expensive,
    is_producer_fusible,
    is_widening_convert,
)
from hlotools.passes.fusion_stats import (
    control_flow_computations,
    kernel_counts,
    remove_unused_fusion_computations,
    unused_fusion_computations,
)
from hlotools.passes.side_effects import SideEffects

MAX_ROUNDS = 8
log = logging.getLogger("hlotools.passes")


@dataclass
class InstructionFusion(HloPass):
    """XLA CPU's instruction fusion (see the module docstring)."""
    name = "fusion"
    description = "loop and input fusion of elementwise/data-movement producers into consumers (XLA CPU rules)"

    max_fused_instructions: int = 0  # 0: unbounded (XLA CPU has no such budget)
    max_operands: int = 96  # GPU's operand+output budget; CPU kernels take parameters by pointer
    may_duplicate: bool = True
    max_duplicated: int = 0  # 0: unbounded (XLA CPU); else duplicated producers per fusion
    merge_fusions: bool = True
    multi_output: bool = True
    max_multi_output_operands: int = 20  # CPU multi-output fusion's budget
    output_fusion: bool = True  # matrix-vector dot + add -> kOutput fusion

    def run(self, module: Module, ctx: PassContext) -> bool:
        rw = Rewriter(module)
        effects = _MemoEffects()
        before = kernel_counts(module)
        comps = control_flow_computations(module)
        unused_before = unused_fusion_computations(module)
        for comp in comps:
            for _ in range(MAX_ROUNDS):  # producer/consumer again after each sibling merge
                self.fuse_computation(rw, comp, ctx, effects)
                if not (self.multi_output and fuse_siblings(rw, comp, ctx, self.max_multi_output_operands, effects)):
                    break
        if rw.changed:
            remove_unused_fusion_computations(rw, unused_before)
            rw.sort_computations()  # new fused computations (appended) go before their callers
            # Bodies merged from duplicated producers hold identical clones (two copies of one
            # scalar constant, say): XLA runs CSE on fusion computations after fusion; so do we,
            # which keeps the pass (and -O2) idempotent.
            HloCSE(only_fusion_computations=True).run(module, ctx)
        after = kernel_counts(module)
        log.info("fusion: %d kernels -> %d (%d fusions, %d unfused)", before.total, after.total,
                 after.fusions, after.unfused)
        return rw.changed

    # -- the producer/consumer loop --------------------------------------------------------
    def fuse_computation(self, rw: Rewriter, comp: Computation, ctx: PassContext, effects: SideEffects) -> bool:
        order = comp.post_order()
        queue: list[Instruction | None] = list(order)
        pos = {inst: n for n, inst in enumerate(order)}  # (instructions hash by identity)
        pinned = control_linked(comp)
        builder = FusionBuilder(rw, comp)
        no_dup = self._globally_unfusible(order, pinned, comp, effects, builder)
        # A candidate producer is still in the queue, so nothing has changed it yet: what
        # depends on it alone is asked once, not each time a wide fusion re-tries its operands.
        facts: dict[Instruction, _ProducerFacts] = {}
        refused_for_good: dict[Instruction, set[Instruction]] = {}  # fusion -> operands refused for good
        fused_any = False
        log_decisions = ctx.logger.isEnabledFor(logging.DEBUG)  # skip the call per refusal
        while queue:
            consumer = queue.pop()
            if consumer is None:
                continue
            pos.pop(consumer, None)
            if id(consumer) in pinned or not is_consumer_fusible(consumer) or effects.instruction(consumer):
                continue
            if consumer.opcode == "fusion" and not log_decisions:  # (a log lists every refusal)
                # A wide fusion is re-queued after each fusion and re-tries all its operands:
                # most are refused for good (dots, parameters), or while they have other users.
                skip = refused_for_good.setdefault(consumer, set())
                # A fusion at max-duplicated refuses every producer that would count while
                # the producer has other users (refusal() asks the same, after costlier checks).
                grown = builder.states.get(id(consumer))
                full = bool(self.max_duplicated) and grown is not None and grown.duplicated >= self.max_duplicated
                candidates = []
                for o in unique([o for o in consumer.operands if o in pos and o not in skip]):
                    known = facts.get(o)
                    if known is None:
                        candidates.append(o)
                    elif known.early is not None or known.late is not None:
                        skip.add(o)  # the output-fusion exception between them: plain consumers only
                    elif known.duplication is None or len(o.users) == 1:  # (its one user: the consumer)
                        if full and counts_as_duplicate(o) and _other_users(o, consumer):
                            continue
                        candidates.append(o)
            else:
                candidates = unique([o for o in consumer.operands if o in pos])
            candidates.sort(key=pos.__getitem__, reverse=True)
            for producer in candidates:
                reason = self.refusal(builder, producer, consumer, comp, pinned, no_dup, effects, facts)
                if reason is not None:
                    if log_decisions:
                        ctx.decision("not fused: %s into %s: %s", producer.name, consumer.name, reason)
                    continue
                if not ctx.consume_fuel(f"fuse {producer.name} into {consumer.name}"):
                    continue
                producer_name = producer.name
                kind = "kOutput" if can_be_output_fused(producer, consumer) else None
                st = builder.state(consumer) if consumer.opcode == "fusion" else \
                    builder.start(consumer, producer.opcode, kind)
                builder.fuse(st, producer)
                if log_decisions:
                    ctx.decision("fused %s into %s", producer_name, st.fusion.name)
                fused_any = True
                if id(producer) in builder.dead and producer in pos:
                    queue[pos.pop(producer)] = None
                pos[st.fusion] = len(queue)
                queue.append(st.fusion)
                break
        builder.finish()
        return fused_any

    def refusal(self, builder: FusionBuilder, producer: Instruction, consumer: Instruction, comp: Computation,
                pinned: set[int], no_dup: set[int], effects: SideEffects,
                facts: dict[Instruction, _ProducerFacts] | None = None,
                static: dict[Instruction, tuple] | None = None) -> str | None:
        """None if `producer` may be fused into `consumer`, else why not (XLA CPU's ShouldFuse).
        `facts` memoises what depends on the producer alone (see _ProducerFacts); `static`,
        while `no_dup` still grows, all of it but the duplication refusal."""
        known = facts.get(producer) if facts is not None else None
        if known is None:
            known = self._producer_facts(producer, comp, pinned, no_dup, effects, static)
            if facts is not None:
                facts[producer] = known
        if known.early is not None:
            return known.early
        if self.output_fusion and consumer.opcode != "fusion" and can_be_output_fused(producer, consumer):
            return None  # XLA CPU's dot output fusion: the add runs in the dot's epilogue
        if self.output_fusion and producer.opcode == "add" and \
                any(can_be_output_fused(o, producer) for o in producer.operands):  # (it needs an add)
            return "it will take its dot operand as an output fusion"
        if known.late is not None:
            return known.late
        if producer.opcode == "constant" and consumer.opcode != "fusion":
            return "a constant is only fused into an existing fusion"
        if consumer.opcode != "fusion" and concat_too_wide(consumer):
            return "concatenate with too many operands or along a long minor dimension"
        # Asked before the readers (their scan of a wide fusion's operands is the costly part):
        # a refusal either way.
        if known.duplication is not None and _other_users(producer, consumer):
            return known.duplication
        st = builder.state(consumer) if consumer.opcode == "fusion" else builder.single_state(consumer)
        readers, inner = _readers(st, producer, consumer)
        in_place = [r for r in readers if r.opcode == "dynamic-update-slice"]
        if in_place and any(r.operands[0] is i for r in in_place for i in inner):
            return "the consumer updates the producer's buffer in place"
        if self.max_duplicated and st.duplicated >= self.max_duplicated and counts_as_duplicate(producer) \
                and _other_users(producer, consumer):
            return f"more than max-duplicated={self.max_duplicated} duplicated producers"
        indices: set[int] = set()
        reused = False
        for i in inner:
            idx, r = builder.facts_from_users(st, i, readers)
            indices |= idx
            reused = reused or r
        if reused and known.expensive:
            return "an expensive producer whose elements the consumer re-reads"
        if len(indices) > MAX_INDEX_VECTORS and producer.opcode != "broadcast":
            return f"code duplication: it would be evaluated at more than {MAX_INDEX_VECTORS} index vectors"
        return self._budget_refusal(st, producer, consumer)

    def _producer_facts(self, producer: Instruction, comp: Computation, pinned: set[int], no_dup: set[int],
                        effects: SideEffects, static: dict[Instruction, tuple] | None = None) -> _ProducerFacts:
        known = static.get(producer) if static is not None else None
        if known is not None:
            early, late, expensive = known
            return _ProducerFacts(early, late, self._duplication_refusal(producer, no_dup), expensive)
        early = late = None
        if id(producer) in pinned:
            early = "control dependencies"
        elif producer is comp.root:
            early = "the producer is the computation's root"
        if not is_producer_fusible(producer) or effects.instruction(producer):
            late = f"{producer.opcode} is not loop-fusible"
        elif producer.opcode == "fusion" and not self.merge_fusions:
            late = "merging fusions is off"
        elif concat_too_wide(producer):
            late = "concatenate with too many operands or along a long minor dimension"
        expensive = _contains_expensive(producer)
        if static is not None:
            static[producer] = (early, late, expensive)
        return _ProducerFacts(early, late, self._duplication_refusal(producer, no_dup), expensive)

    def _globally_unfusible(self, order: list[Instruction], pinned: set[int], comp: Computation,
                            effects: SideEffects, builder: FusionBuilder) -> set[int]:
        """XLA's ComputeGloballyUnfusible: a producer reading more than one large input, and
        more elements than it writes, is not duplicated unless it can be fused into each of its
        users along every path between them (CanFuseOnAllPaths: each instruction on the way
        takes its operand on the path, and none is unfusible itself); producers are judged
        users first. Without the paths (judging only the direct users), a transformer's
        residual adds were duplicated into every later layer's fusions: gpt_fwd_L24 printed
        17,337 lines after -O2 (XLA 8,774), 5.6x its 8-layer form's. Plus CPU's coupled
        max-reduce/exp-shift producers, which are materialised once (recomputing them may
        differ by an ulp)."""
        pos = {id(i): n for n, i in enumerate(order)}
        below: dict[int, int] = {}  # id -> bit set of the positions it depends on (itself included)
        for inst in order:
            bits = 1 << pos[id(inst)]
            for o in inst.operands:
                bits |= below.get(id(o), 0)
            below[id(inst)] = bits
        out: set[int] = set()
        cache: dict[tuple[int, int], bool] = {}
        static: dict[Instruction, tuple] = {}  # the graph does not change here; `out` grows

        def takes_operands(c: Instruction) -> bool:  # the fusion loop's own consumer test
            return id(c) not in pinned and is_consumer_fusible(c) and not effects.instruction(c)

        def on_all_paths(producer: Instruction, consumer: Instruction) -> bool:
            """CanFuseOnAllPaths, memoised, with an explicit stack (paths can be long)."""
            bit = pos[id(producer)]
            stack = [consumer]
            while stack:
                c = stack[-1]
                key = (id(producer), id(c))
                if key in cache:
                    stack.pop()
                    continue
                result, pending = c is producer or _is_fusible(c, effects), None
                for o in c.operands if result and c is not producer else ():
                    if not (below.get(id(o), 0) >> bit) & 1:
                        continue  # not on a path from the producer
                    if id(o) in out or not takes_operands(c) or \
                            self.refusal(builder, o, c, comp, pinned, out, effects, None, static) is not None:
                        result = False
                        break
                    known = cache.get((id(producer), id(o)), None if o is not producer else True)
                    if known is None:
                        pending = o  # decide it first, then look at c again
                        break
                    if not known:
                        result = False
                        break
                if pending is not None:
                    stack.append(pending)
                    continue
                cache[key] = result
                stack.pop()
            return cache[(id(producer), id(consumer))]

        for p in reversed(order):
            if effectively_at_most_unary(p):
                continue
            in_size = sum(o.shape.size for o in unique(p.operands) if o.shape.is_array)
            if in_size <= sum(leaf.size for leaf in p.shape.leaves() if leaf.is_array):
                continue
            if not (_is_fusible(p, effects) and all(on_all_paths(p, u) for u in p.users)):
                out.add(id(p))
        out.update(id(p) for p in order if _coupled_softmax_producer(p))
        return out

    def _duplication_refusal(self, producer: Instruction, no_dup: set[int]) -> str | None:
        if producer.opcode == "fusion":
            return "it would duplicate a fusion"
        if not self.may_duplicate:
            return "it would duplicate the producer (may-duplicate=false)"
        if producer.opcode in ALWAYS_DUPLICABLE or is_widening_convert(producer):
            return None
        if id(producer) in no_dup:
            return "it would duplicate a producer that cannot be fused into all its users"
        if is_expensive(producer):
            return f"it would duplicate an expensive {producer.opcode}"
        return None

    def _budget_refusal(self, st: FusionState, producer: Instruction, consumer: Instruction) -> str | None:
        if producer.opcode == "fusion":
            inner = producer.attrs["calls"]
            p_size = sum(1 for i in inner.instructions if i.opcode != "parameter")
            p_reductions = sum(1 for i in inner.instructions if i.opcode == "reduce")
        else:
            p_size, p_reductions = 1, int(producer.opcode == "reduce")
        if st.reductions + p_reductions > MAX_REDUCTIONS:
            return f"more than {MAX_REDUCTIONS} reductions in one fusion"
        if self.max_fused_instructions and st.size + p_size > self.max_fused_instructions:
            return f"more than max-fused-instructions={self.max_fused_instructions}"
        if self.max_operands:
            # |consumer's operands but the producer, and the producer's| without a set of a
            # wide fusion's operands per candidate (the producer is one of the consumer's)
            ops = consumer.operands
            kept = (len(ops) if st.distinct_operands else len(unique(ops))) - 1
            added = sum(1 for o in unique(producer.operands) if o not in ops)
            if kept + added > self.max_operands:
                return f"more than max-operands={self.max_operands}"
        return None


@dataclass(frozen=True)
class _ProducerFacts:
    """What refusal() needs of a producer alone: refusals before and after the output-fusion
    exception, the refusal to duplicate it (when it has other users), whether it is expensive."""
    early: str | None
    late: str | None
    duplication: str | None
    expensive: bool


class _MemoEffects(SideEffects):
    """SideEffects with a per-instruction memo: the fusion loop asks about the same operands
    each time a growing fusion is re-queued."""

    def __init__(self) -> None:
        super().__init__()
        self._inst: dict[Instruction, bool] = {}  # keyed by the object: ids of dead ones recycle

    def instruction(self, inst: Instruction) -> bool:
        known = self._inst.get(inst)
        if known is None:
            known = self._inst[inst] = super().instruction(inst)
        return known


def _other_users(producer: Instruction, consumer: Instruction) -> bool:
    """Does `producer` have users besides `consumer`? (a C count: instructions compare by
    identity; asked per refusal)"""
    return producer.users.count(consumer) != len(producer.users)


def _readers(st: FusionState, producer: Instruction, consumer: Instruction) -> tuple[list[Instruction], list[Instruction]]:
    """The instructions that would read the fused producer, and what they read it as now (the
    fusion parameters standing for it, or the producer itself for a plain consumer)."""
    if consumer.opcode != "fusion":
        return [consumer], [producer]
    params = [st.body.parameters[k] for k in st.operand_index(producer)]
    readers: list[Instruction] = []
    for p in params:
        readers.extend(u for u in p.users if u not in readers)
    return readers, params


def _contains_expensive(inst: Instruction) -> bool:
    if inst.opcode != "fusion":
        return is_expensive(inst)
    return any(i.opcode != "parameter" and is_expensive(i) for i in inst.attrs["calls"].instructions)


def control_linked(comp: Computation) -> set[int]:
    """Instructions with control edges either way: they stay as they are (fusing them would
    lose the edge; epilogue_fusion.py leaves them alone for the same reason)."""
    out: set[int] = set()
    for inst in comp.instructions:
        if inst.control_predecessors:
            out.add(id(inst))
            out.update(id(p) for p in inst.control_predecessors)
    return out


def _is_fusible(inst: Instruction, effects: SideEffects) -> bool:
    """XLA's HloInstruction::IsFusible: not a parameter or control flow, and no side effect
    (fusions and reductions always are)."""
    if inst.opcode in ("domain", "parameter", "while", "conditional", "call"):
        return False
    return inst.opcode in ("fusion", "map", "reduce", "reduce-window") or not effects.instruction(inst)


def _coupled_softmax_producer(p: Instruction) -> bool:
    """CPU's IsCoupledReductionShiftExpProducer: an elementwise p feeding both a max-reduce and
    the subtract of exp(p - max) — also when those already sit in fusions (so a second run
    decides as the first did)."""
    if not is_elementwise(p) or not any(u.opcode in ("reduce", "fusion") for u in p.users):
        return False  # (the max-reduce reads p directly or inside a fusion: asked of every instruction)
    reads: list[tuple[Instruction, Instruction]] = []  # (reader, what it reads p as)
    for u in unique(p.users):
        if u.opcode == "fusion" and "calls" in u.attrs:
            body = u.attrs["calls"]
            for k, o in enumerate(u.operands):
                if o is p and k < len(body.parameters):
                    reads.extend((r, body.parameters[k]) for r in body.parameters[k].users)
        else:
            reads.append((u, p))
    has_max = any(r.opcode == "reduce" and r.operands[0] is v and _reduces_with(r, "maximum") for r, v in reads)
    has_shift = any(r.opcode == "subtract" and r.operands[0] is v and
                    any(x.opcode == "exponential" for x in r.users) for r, v in reads)
    return has_max and has_shift


def _reduces_with(reduce: Instruction, opcode: str) -> bool:
    body = reduce.attrs.get("to_apply")
    return body is not None and getattr(body, "root", None) is not None and body.root.opcode == opcode
