"""A module as a Graphviz graph: one cluster per computation, an edge from each operand to
its user, nodes labelled with opcode and shape (the instruction name on top, as XLA's graph
dumps do). A call-like instruction gets a dashed edge from the root of each computation it
calls, so the data flow through `call`, `while`, `reduce` ... stays visible.

Fusions are drawn in place, as XLA's dot dumps draw them: the fusion instruction becomes a
cluster holding its fused computation, the fusion's operands feed the fused parameters and the
fused root feeds the fusion's users (`fusions=False`: one node per fusion). Big modules get
smaller with `node`/`radius` (only the instructions within `radius` operand/user steps of one
instruction) and `max_nodes` (the drawing stops there and says how much it left out).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from hlotools.graph.model import callees, category
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module

# Fill colours by opcode category (ir/opcodes.py), light enough for black text.
_ELEMENTWISE = "#dae8fc"
_CATEGORY_COLOURS = {
    "parameter": "#fff2cc", "constant": "#e6e6e6", "unary": _ELEMENTWISE, "binary": _ELEMENTWISE,
    "compare": _ELEMENTWISE, "select": _ELEMENTWISE, "clamp": _ELEMENTWISE, "convert": _ELEMENTWISE,
    "reduction": "#f8cecc", "data": "#d5e8d4", "linalg": "#f5d0a9", "control": "#e1d5e7",
    "collective": "#ffe6cc", "async": "#ffe6cc",
}
_FUSION_CLUSTER = "#f4ecfc"
_MAX_CONSTANT_TEXT = 24


class DotError(ValueError):
    """A size option that names nothing in the module."""


@dataclass
class DotOptions:
    fusions: bool = True  # fused computations in place (XLA's dumps); False: one node per fusion
    node: str | None = None  # draw only around this instruction ...
    radius: int = 3  # ... this many operand/user steps out
    max_nodes: int | None = None  # stop drawing after this many nodes


def _quote(text: str) -> str:
    """A DOT double-quoted string; newlines become centred line breaks."""
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{body}"'


def _label(inst: Instruction) -> str:
    parts = [inst.name, inst.opcode if inst.opcode != "parameter" else f"parameter {inst.parameter_number}"]
    lit = inst.literal
    if inst.opcode == "constant" and lit is not None and lit.text and len(lit.text) <= _MAX_CONSTANT_TEXT:
        parts[1] = f"constant {lit.text}"
    elif inst.opcode == "get-tuple-element" and isinstance(inst.attrs.get("index"), int):
        parts[1] = f"get-tuple-element {inst.attrs['index']}"
    parts.append(inst.shape.to_text(with_layout=False))
    return "\n".join(parts)


def _colour(inst: Instruction) -> str:
    return _CATEGORY_COLOURS.get(category(inst), "#ffffff")


def _fused(inst: Instruction) -> Computation | None:
    body = inst.attrs.get("calls") if inst.opcode == "fusion" else None
    return body if isinstance(body, Computation) and body.root is not None else None


class _Writer:
    def __init__(self, module: Module, options: DotOptions) -> None:
        self.module = module
        self.options = options
        self.ids: dict[int, str] = {}  # "" for a fusion drawn as its cluster
        self.nodes = 0
        self.lines: list[str] = []
        self.edges: list[str] = []
        self.clusters = 0
        self.left_out = 0
        self.focus: set[int] | None = None
        self.rim: set[int] = set()  # focus instructions with neighbours left out

    # -- which instructions -------------------------------------------------------------
    def expanded(self, inst: Instruction) -> Computation | None:
        return _fused(inst) if self.options.fusions else None

    def wanted(self, inst: Instruction) -> bool:
        return self.focus is None or id(inst) in self.focus

    def select_focus(self) -> list[Computation]:
        """The computations to draw: around --node its computation alone, else all but the
        fused ones drawn in place (entry first, so --max-nodes keeps the entry)."""
        if self.options.node is not None:
            inst = next((i for c in self.module.computations for i in c.instructions if i.name == self.options.node),
                        None)
            if inst is None:
                raise DotError(f"no instruction named '{self.options.node}' in module {self.module.name}")
            self.focus, self.rim = _neighbourhood(inst, self.options.radius)
            return [inst.parent] if inst.parent is not None else []
        fused = {id(b) for c in self.module.computations for i in c.instructions if (b := _fused(i)) is not None}
        shown = self.reachable(fused)
        comps = [c for c in self.module.computations if id(c) in shown and id(c) not in fused]
        entry = self.module.entry
        return sorted(comps, key=lambda c: c is not entry)

    def reachable(self, fused: set[int]) -> set[int]:
        """ids of the computations reached from those nobody calls, through called computations
        but not into collapsed fusions (a reducer used only inside them is not drawn either)."""
        called = {id(c) for comp in self.module.computations for i in comp.instructions for _, c in callees(i)}
        stack = [c for c in self.module.computations if id(c) not in called]
        seen = {id(c) for c in stack}
        while stack:
            comp = stack.pop()
            for inst in comp.instructions:
                if inst.opcode == "fusion" and not self.options.fusions:
                    continue
                for _, callee in callees(inst):
                    if id(callee) not in seen:
                        seen.add(id(callee))
                        stack.append(callee)
        return seen

    # -- nodes and clusters -------------------------------------------------------------
    def node_count(self, inst: Instruction) -> int:
        """The nodes `inst` is drawn as (a fusion in place: those of its fused computation)."""
        body = self.expanded(inst)
        return 1 if body is None else sum(self.node_count(i) for i in body.instructions)

    def node_id(self, inst: Instruction) -> str:
        key = id(inst)
        if key not in self.ids:
            self.ids[key] = f"n{self.nodes}"
            self.nodes += 1
        return self.ids[key]

    def full(self) -> bool:
        limit = self.options.max_nodes
        return limit is not None and self.nodes >= limit

    def computation(self, comp: Computation, indent: str, title: str, fill: str | None, top: bool = True) -> None:
        self.clusters += 1
        style = 'style="rounded,filled"; fillcolor="' + fill + '";' if fill else 'style="rounded";'
        self.lines += [f"{indent}subgraph cluster_{self.clusters - 1} {{", f"{indent}  label={_quote(title)};",
                       f'{indent}  {style} color="#888888";']
        for inst in comp.instructions:
            if top and not self.wanted(inst):
                continue
            if self.full():
                self.left_out += self.node_count(inst)
                continue
            body = self.expanded(inst)
            if body is not None:
                self.ids[id(inst)] = ""  # drawn as its cluster: edges use the fused nodes
                kind = inst.attrs.get("kind")
                self.computation(body, indent + "  ", f"{inst.name} ({kind})" if kind else inst.name, _FUSION_CLUSTER,
                                 top=False)
                continue
            attrs = [f"label={_quote(_label(inst))}", f'fillcolor="{_colour(inst)}"']
            if inst is comp.root:
                attrs.append("penwidth=2")
            if id(inst) in self.rim:
                attrs.append('style="rounded,filled,dashed"')
            self.lines.append(f"{indent}  {self.node_id(inst)} [{', '.join(attrs)}];")
        self.lines.append(f"{indent}}}")

    # -- edges --------------------------------------------------------------------------
    def source(self, inst: Instruction) -> str | None:
        """The node an edge out of `inst` starts at (a fusion drawn in place: its fused root)."""
        while (body := self.expanded(inst)) is not None and body.root is not None:
            inst = body.root
        return self.ids.get(id(inst)) or None

    def target(self, inst: Instruction, operand: int) -> str | None:
        """The node operand `operand` of `inst` goes to (in place: that fused parameter)."""
        body = self.expanded(inst)
        if body is None:
            return self.ids.get(id(inst)) or None
        params = [p for p in body.parameters if p is not None and p.parameter_number == operand]
        return self.target(params[0], 0) if params else None

    def edges_of(self, comp: Computation) -> None:
        for inst in comp.instructions:
            body = self.expanded(inst)
            if body is not None:
                self.edges_of(body)
            for i, op in enumerate(inst.operands):
                src, dst = self.source(op), self.target(inst, i)
                if src and dst:
                    tag = f" [label={_quote(str(i))}]" if len(inst.operands) > 1 else ""
                    self.edges.append(f"  {src} -> {dst}{tag};")
            me = self.ids.get(id(inst))
            if not me:
                continue
            for pred in inst.control_predecessors:
                src = self.source(pred)
                if src:
                    self.edges.append(f'  {src} -> {me} [style=dotted, color="#cc0000"];')
            for role, callee in callees(inst):
                src = self.source(callee.root) if callee.root is not None else None
                if src:
                    self.edges.append(f'  {src} -> {me} [style=dashed, color="#666666", label={_quote(role)}];')

    def write(self) -> str:
        comps = self.select_focus()
        for comp in comps:
            title = ("ENTRY " if comp is self.module.entry else "") + comp.name
            self.computation(comp, "  ", title, None)
        for comp in comps:
            self.edges_of(comp)
        head = [f"digraph {_quote(self.module.name)} {{", "  compound=true; rankdir=TB;",
                '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
                '  edge [fontname="Helvetica", fontsize=8];']
        if self.left_out:
            note = (f"{self.left_out} more instructions not drawn (--max-nodes {self.options.max_nodes}); "
                    "draw around one with --node NAME --radius R, or collapse fusions")
            head.append(f'  truncated [shape=note, style=filled, fillcolor="#ffe3e3", label={_quote(note)}];')
        return "\n".join(head + self.lines + self.edges + ["}"]) + "\n"


def _neighbourhood(start: Instruction, radius: int) -> tuple[set[int], set[int]]:
    """ids of the instructions within `radius` operand/user steps of `start` (its computation),
    and those of them with a neighbour farther out."""
    dist = {id(start): 0}
    queue = deque([start])
    rim: set[int] = set()
    while queue:
        inst = queue.popleft()
        d = dist[id(inst)]
        for n in (*inst.operands, *inst.users):
            if id(n) in dist:
                continue
            if d == radius:
                rim.add(id(inst))
                continue
            dist[id(n)] = d + 1
            queue.append(n)
    return set(dist), rim


def module_to_dot(module: Module, options: DotOptions | None = None) -> str:
    """The module (or the part the options pick) as one `digraph`."""
    return _Writer(module, options or DotOptions()).write()

