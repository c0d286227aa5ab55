"""A structural diff of two HLO modules: what was added, removed, changed, fused or split.

Instructions outside fused computations are matched, in three rounds: by name; then by value
number (fingerprint.py: the same computation under another name, or a fusion computing what an
instruction computed); then by opcode and matched operands (the same place in the graph with
another shape or attributes). Matched pairs are compared field by field. What is left is added
or removed, except that an instruction whose value a new fusion computes inside itself is
reported as fused into it (and the reverse for a fusion that is gone: split).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable
from dataclasses import asdict, dataclass, field

from hlotools.diff.fingerprint import CALLED, Numbering, attribute_texts, literal_key, value_text
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module


@dataclass(frozen=True)
class Ref:
    """An instruction as a diff names it."""
    name: str
    opcode: str
    shape: str
    computation: str

    @staticmethod
    def of(inst: Instruction) -> Ref:
        return Ref(inst.name, inst.opcode, str(inst.shape), inst.parent.name if inst.parent else "")


@dataclass(frozen=True)
class FieldChange:
    field: str  # opcode | shape | operands | attribute NAME | constant | called computation | fused computation
    before: str
    after: str


@dataclass
class Changed:
    before: Ref
    after: Ref
    fields: list[FieldChange]


@dataclass
class FusionEvent:
    """A fusion in one module only, and the other module's instructions it stands for."""
    event: str  # 'formed' (in B, absorbing A's members) | 'split' (in A, B's members instead)
    fusion: Ref
    kind: str  # kLoop, kInput, kOutput, ...
    members: list[Ref]


@dataclass
class ModuleDiff:
    before: str
    after: str
    added: list[Ref] = field(default_factory=list)
    removed: list[Ref] = field(default_factory=list)
    changed: list[Changed] = field(default_factory=list)
    fusions: list[FusionEvent] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)  # same structure, another name

    @property
    def same(self) -> bool:
        return not (self.added or self.removed or self.changed or self.fusions)

    def counts(self) -> dict[str, int]:
        return {"added": len(self.added), "removed": len(self.removed), "changed": len(self.changed),
                "fusions_formed": sum(f.event == "formed" for f in self.fusions),
                "fusions_split": sum(f.event == "split" for f in self.fusions), "renamed": len(self.renamed)}

    def summary(self) -> str:
        c = self.counts()
        if self.same:
            return "same structure" + (f" ({c['renamed']} renamed)" if c["renamed"] else "")
        parts = [f"{c[k]} {k.replace('_', ' ')}" for k in ("added", "removed", "changed", "fusions_formed",
                                                           "fusions_split", "renamed") if c[k]]
        return ", ".join(parts)

    def to_json(self) -> dict:
        return {"before": self.before, "after": self.after, "same": self.same, "counts": self.counts(),
                "added": [asdict(r) for r in self.added], "removed": [asdict(r) for r in self.removed],
                "changed": [asdict(c) for c in self.changed], "fusions": [asdict(f) for f in self.fusions],
                "renamed": [list(p) for p in self.renamed]}


def top_level(module: Module) -> list[Instruction]:
    """The instructions a diff matches: all but those inside fused computations."""
    return [i for c in module.computation_post_order() if not c.is_fusion_computation for i in c.instructions]


class _Matcher:
    def __init__(self, a: Module, b: Module, with_metadata: bool) -> None:
        self.numbers = Numbering()
        self.numbers.add_module(a)
        self.numbers.add_module(b)
        self.local = Numbering()  # fused parameters as themselves: a fusion's own content
        self.a, self.b = top_level(a), top_level(b)
        self.with_metadata = with_metadata
        self.b_to_a: dict[int, Instruction] = {}
        self.a_to_b: dict[int, Instruction] = {}

    def pair(self, a: Instruction, b: Instruction) -> None:
        self.b_to_a[id(b)] = a
        self.a_to_b[id(a)] = b

    def match(self) -> None:
        # Names: within the same computation first (hand-written modules reuse names such as a
        # reducer's x and y), then module-wide for names each module uses once (XLA's are unique).
        self._match_by(lambda a: (_computation(a), a.name), lambda b: (_computation(b), b.name))
        self._match_by(_unique_names(self.a), _unique_names(self.b))
        self._match_by(lambda i: self.numbers.number(i), lambda i: self.numbers.number(i))
        # Last, the same place in the graph: an instruction with operands only (a constant or an
        # iota has nothing to anchor it, and pairing any two would report a rewrite as a change).
        self._match_by(lambda a: (a.opcode, tuple(o.name for o in a.operands)) if a.operands else None,
                       lambda b: (b.opcode, tuple(self._a_name(o) for o in b.operands)) if b.operands else None)

    def _a_name(self, b_operand: Instruction) -> str | None:
        a = self.b_to_a.get(id(b_operand))
        return a.name if a is not None else None

    def _match_by(self, key_a: Callable[[Instruction], Hashable | None],
                  key_b: Callable[[Instruction], Hashable | None]) -> None:
        pool: dict[Hashable, list[Instruction]] = defaultdict(list)
        for a in self.a:
            key = key_a(a)
            if id(a) not in self.a_to_b and key is not None:
                pool[key].append(a)
        for b in self.b:  # B in post order: operands are matched before their users' keys are made
            if id(b) in self.b_to_a:
                continue
            key = key_b(b)
            if key is None or isinstance(key, tuple) and isinstance(key[1], tuple) and None in key[1]:
                continue
            hits = pool.get(key)
            if hits:
                self.pair(hits.pop(0), b)

    def fields(self, a: Instruction, b: Instruction) -> list[FieldChange]:
        out: list[FieldChange] = []
        if a.opcode != b.opcode:
            out.append(FieldChange("opcode", a.opcode, b.opcode))
        if str(a.shape) != str(b.shape):
            out.append(FieldChange("shape", str(a.shape), str(b.shape)))
        mapped = [self._a_name(o) or f"(new) {o.name}" for o in b.operands]
        if [o.name for o in a.operands] != mapped:
            out.append(FieldChange("operands", ", ".join(o.name for o in a.operands),
                                   ", ".join(o.name for o in b.operands)))
        ta, tb = attribute_texts(a, self.with_metadata), attribute_texts(b, self.with_metadata)
        for k in dict.fromkeys([*ta, *tb]):
            if ta.get(k) != tb.get(k):
                out.append(FieldChange(f"attribute {k}", ta.get(k, "(none)"), tb.get(k, "(none)")))
        if literal_key(a) != literal_key(b):
            out.append(FieldChange("constant", _literal_text(a), _literal_text(b)))
        out += self._called_fields(a, b)
        return out

    def _called_fields(self, a: Instruction, b: Instruction) -> list[FieldChange]:
        number = self.numbers.number
        if a.opcode == "fusion" and b.opcode == "fusion":
            ia, ib = _fused(a), _fused(b)
            na, nb = [self.local.number(i) for i in ia], [self.local.number(i) for i in ib]
            if sorted(na) == sorted(nb):
                return []
            gone, new = _multiset_minus(ia, na, nb), _multiset_minus(ib, nb, na)
            both = {i.name for i in gone} & {i.name for i in new}
            parts = [f"{label} {_names([i for i in side if (i.name in both) == common])}"
                     for label, side, common in (("changed", new, True), ("+", new, False), ("-", gone, False))
                     if any((i.name in both) == common for i in side)]
            return [FieldChange("fused computation", f"{len(ia)} instructions",
                                f"{len(ib)} instructions ({'; '.join(parts)})")]
        ca = [c for k, v in a.attrs.items() if k in CALLED for c in (v if isinstance(v, (list, tuple)) else [v])]
        cb = [c for k, v in b.attrs.items() if k in CALLED for c in (v if isinstance(v, (list, tuple)) else [v])]
        roots_a = [number(c.root) for c in ca if getattr(c, "root", None) is not None]
        roots_b = [number(c.root) for c in cb if getattr(c, "root", None) is not None]
        if roots_a != roots_b:
            return [FieldChange("called computation", value_text(ca), value_text(cb))]
        return []


def _computation(inst: Instruction) -> str:
    return inst.parent.name if inst.parent is not None else ""


def _unique_names(insts: list[Instruction]) -> Callable[[Instruction], Hashable | None]:
    counts: defaultdict[str, int] = defaultdict(int)
    for i in insts:
        counts[i.name] += 1
    return lambda i: i.name if counts[i.name] == 1 else None


def _fusion_output(inst: Instruction) -> bool:
    """A fusion, or one output of a multi-output fusion: what fusing put in an instruction's place."""
    return inst.opcode == "fusion" or (inst.opcode == "get-tuple-element" and bool(inst.operands)
                                       and inst.operands[0].opcode == "fusion")


def _literal_text(inst: Instruction) -> str:
    lit = inst.literal
    if lit is None:
        return "(none)"
    if lit.text is not None:
        return lit.text if len(lit.text) <= 60 else lit.text[:57] + "..."
    return "(value)" if lit.array is not None else "{...}"


Number = Callable[[Instruction], int]


def _fused(fusion: Instruction) -> list[Instruction]:
    """The instructions a fusion computes (its fused computations' non-parameters)."""
    return [i for c in fusion.called_computations() for i in c.instructions if i.opcode != "parameter"]


def _fused_numbers(fusion: Instruction, number: Number) -> list[int]:
    return [number(i) for i in _fused(fusion)]


def _multiset_minus(items: list[Instruction], numbers: list[int], others: list[int]) -> list[Instruction]:
    """The items whose numbers are not matched one for one by `others`."""
    left: defaultdict[int, int] = defaultdict(int)
    for n in others:
        left[n] += 1
    out = []
    for item, n in zip(items, numbers):
        if left[n]:
            left[n] -= 1
        else:
            out.append(item)
    return out


def _names(insts: list[Instruction], shown: int = 4) -> str:
    text = ", ".join(f"{i.name} ({i.opcode})" for i in insts[:shown])
    return text + (f", ... {len(insts) - shown} more" if len(insts) > shown else "")


def diff_modules(a: Module, b: Module, with_metadata: bool = False) -> ModuleDiff:
    """What changed from `a` to `b`."""
    m = _Matcher(a, b, with_metadata)
    m.match()
    result = ModuleDiff(a.name, b.name)
    pairs = [(m.b_to_a[id(b)], b) for b in m.b if id(b) in m.b_to_a]
    fusion_pairs = {id(b) for a_i, b in pairs if _fusion_output(a_i) != _fusion_output(b)}
    for a_i, b_i in pairs:
        if id(b_i) in fusion_pairs:
            continue
        fields = m.fields(a_i, b_i)
        if fields:
            result.changed.append(Changed(Ref.of(a_i), Ref.of(b_i), fields))
        elif a_i.name != b_i.name:
            result.renamed.append((a_i.name, b_i.name))
    removed = [a_i for a_i in m.a if id(a_i) not in m.a_to_b or id(m.a_to_b[id(a_i)]) in fusion_pairs]
    added = [b_i for b_i in m.b if id(b_i) not in m.b_to_a or id(b_i) in fusion_pairs]
    number = m.numbers.number
    used: set[int] = set()
    result.fusions = (_fusion_events("formed", [i for i in added if i.opcode == "fusion"], removed, number, used)
                      + _fusion_events("split", [i for i in removed if i.opcode == "fusion"], added, number, used))
    result.removed = [Ref.of(i) for i in removed if id(i) not in used]
    result.added = [Ref.of(i) for i in added if id(i) not in used]
    return result


def _fusion_events(event: str, fusions: list[Instruction], others: list[Instruction],
                   number: Number, used: set[int]) -> list[FusionEvent]:
    """Each fusion with the `others` (the other side's unmatched instructions) whose values it
    computes inside itself; a fusion that stands for none of them is left as added/removed.
    Everything reported (fusion and members) goes into `used`."""
    by_number: dict[int, list[Instruction]] = defaultdict(list)
    for o in others:
        if o.opcode != "parameter" and id(o) not in used:
            by_number[number(o)].append(o)
    out = []
    for f in fusions:
        if id(f) in used:
            continue
        members: list[Instruction] = []
        for n in dict.fromkeys([number(f), *_fused_numbers(f, number)]):
            members += by_number.pop(n, [])
        if members:  # the fusion's get-tuple-elements go with it
            used.update([id(f), *map(id, members), *(id(u) for u in f.users if u.opcode == "get-tuple-element")])
            out.append(FusionEvent(event, Ref.of(f), str(f.attrs.get("kind", "")), [Ref.of(i) for i in members]))
    return out
