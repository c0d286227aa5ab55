"""Pipeline specs in the LLVM style: `algsimp,cse,fusion{max-fused-instructions=16}` and
`fixed-point(algsimp,cse,dce){max-iterations=25}`; plus the -O0/-O1/-O2 presets."""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from hlotools.errors import HloError
from hlotools.passes.base import HloPass
from hlotools.passes.registry import pass_class

# XLA CPU's order: a fixed-point simplification group, then transpose folding (XLA CPU runs it
# after its simplification pipelines), fusion, layout, scheduling.
# A preset is a list of pass names and (fixed-point, [names]) groups; `preset_spec` renders it.
SIMPLIFICATION_PASSES = ("call-inliner", "algsimp", "constant-folding", "reshape-mover",
                         "while-loop-simplifier", "cse", "dce", "tuple-simplifier")
PresetItem = str | tuple[str, tuple[str, ...]]
PRESET_LAYOUT: dict[str, tuple[PresetItem, ...]] = {
    "O0": (),
    "O1": (("fixed-point", SIMPLIFICATION_PASSES),),
    "O2": (("fixed-point", SIMPLIFICATION_PASSES), "transpose-folding", "float-normalization-bf16", "fusion",
           "layout-assignment", "scheduling"),
}
PRESET_DESCRIPTIONS = {
    "O0": "no passes: parse, verify, print",
    "O1": "the fixed-point simplification group (call-inliner, algsimp, constant-folding, ...)",
    "O2": "O1, then transpose-folding, float-normalization-bf16, fusion, layout-assignment and scheduling "
          "(XLA CPU's order; the default -O)",
}


def _render(items: Iterable[PresetItem]) -> str:
    return ",".join(item if isinstance(item, str) else f"{item[0]}({','.join(item[1])})" for item in items)


def _item_name(item: PresetItem) -> str:
    return item if isinstance(item, str) else item[0]


def preset_spec(name: str, insert_after: Iterable[tuple[str, str]] = ()) -> str:
    """Preset `name` ('O0', 'O1', 'O2') as a pipeline spec; each (pass, after) of
    `insert_after` puts `pass` right after the top-level pass `after` (at the end when the
    preset has no `after`), in order: how a driver adds its own passes to XLA's order."""
    if name not in PRESET_LAYOUT:
        raise HloError(f"unknown optimization level '{name}' (levels: {', '.join(PRESET_LAYOUT)})")
    items = list(PRESET_LAYOUT[name])
    for added, after in insert_after:
        at = next((k + 1 for k, item in enumerate(items) if _item_name(item) == after), len(items))
        items.insert(at, added)
    return _render(items)


PRESETS = {name: preset_spec(name) for name in PRESET_LAYOUT}


@dataclass
class PassStep:
    """One pass of a pipeline."""
    hlo_pass: HloPass

    def text(self) -> str:
        return self.hlo_pass.name + self.hlo_pass.options_text()


@dataclass
class FixedPoint:
    """Steps repeated until none changes the module (at most max_iterations times)."""
    steps: list[PassStep | FixedPoint] = field(default_factory=list)
    max_iterations: int = 25

    def text(self) -> str:
        inner = ",".join(s.text() for s in self.steps)
        opt = "" if self.max_iterations == 25 else f"{{max-iterations={self.max_iterations}}}"
        return f"fixed-point({inner}){opt}"


Step = PassStep | FixedPoint

_TOKEN = re.compile(r"\s*(?:(?P<name>[\w.\-]+)|(?P<punct>[(){},=])|(?P<bad>\S))")


def parse_pipeline(spec: str) -> list[Step]:
    """Parse a pipeline spec; errors name the offending position."""
    tokens = _tokenize(spec)
    pos = 0

    def peek() -> str | None:
        return tokens[pos][0] if pos < len(tokens) else None

    def take(expected: str | None = None) -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise HloError(f"pipeline '{spec}': unexpected end" + (f", expected '{expected}'" if expected else ""))
        tok, col = tokens[pos]
        if expected is not None and tok != expected:
            raise HloError(f"pipeline '{spec}': expected '{expected}' at column {col + 1}, found '{tok}'")
        pos += 1
        return tok

    def options() -> dict[str, str]:
        out: dict[str, str] = {}
        if peek() != "{":
            return out
        take("{")
        while peek() != "}":
            key = take()
            take("=")
            out[key] = take()
            if peek() == ",":
                take(",")
        take("}")
        return out

    def steps(until: str | None) -> list[Step]:
        out: list[Step] = []
        while peek() is not None and peek() != until:
            name = take()
            if name == "fixed-point":
                take("(")
                inner = steps(")")
                take(")")
                opts = options()
                unknown = set(opts) - {"max-iterations"}
                if unknown:
                    raise HloError(f"fixed-point has no option {sorted(unknown)[0]!r} (options: max-iterations)")
                out.append(FixedPoint(inner, int(opts.get("max-iterations", 25))))
            elif name in PRESET_LAYOUT:
                out.extend(parse_pipeline(preset_spec(name)))
            else:
                out.append(PassStep(pass_class(name).from_options(options())))
            if peek() == ",":
                take(",")
        return out

    result = steps(None)
    if pos != len(tokens):
        raise HloError(f"pipeline '{spec}': unexpected '{tokens[pos][0]}' at column {tokens[pos][1] + 1}")
    return result


def _tokenize(spec: str) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for m in _TOKEN.finditer(spec):
        if m.group("bad"):
            raise HloError(f"pipeline '{spec}': unexpected character '{m.group('bad')}' at column {m.start('bad') + 1}")
        for group in ("name", "punct"):
            tok = m.group(group)
            if tok:
                out.append((tok, m.start(group)))
    return out


def pipeline_text(steps: list[Step]) -> str:
    """The spec of `steps`, presets expanded; parse_pipeline(pipeline_text(s)) rebuilds s."""
    return ",".join(s.text() for s in steps)


def pipeline_lines(steps: list[Step], indent: str = "") -> Iterator[str]:
    """One line per pass, fixed-point groups indented: what --print-pipeline shows people."""
    for step in steps:
        if isinstance(step, FixedPoint):
            yield f"{indent}fixed-point(max-iterations={step.max_iterations})"
            yield from pipeline_lines(step.steps, indent + "  ")
        else:
            yield f"{indent}{step.text()}"


def pass_names(steps: list[Step]) -> list[str]:
    """Every pass named in `steps`, in order (groups flattened)."""
    out: list[str] = []
    for step in steps:
        out.extend(pass_names(step.steps) if isinstance(step, FixedPoint) else [step.hlo_pass.name])
    return out
