"""Pipeline specs in the LLVM style: `algsimp,cse,fusion{max-fused-instructions=16}` and
`fixed-point(algsimp,cse,dce){max-iterations=25}`; plus the -O0/-O1/-O2 presets."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from hlotools.errors import HloError
from hlotools.passes.base import HloPass
from hlotools.passes.registry import pass_class

# XLA CPU's order: a fixed-point simplification group, then fusion, layout, scheduling.
SIMPLIFICATION = "call-inliner,algsimp,constant-folding,reshape-mover,while-loop-simplifier,cse,dce,tuple-simplifier"
PRESETS = {
    "O0": "",
    "O1": f"fixed-point({SIMPLIFICATION})",
    "O2": f"fixed-point({SIMPLIFICATION}),fusion,layout-assignment,scheduling",
}


@dataclass
class PassStep:
    hlo_pass: HloPass

    def text(self) -> str:
        return self.hlo_pass.name + self.hlo_pass.options_text()


@dataclass
class FixedPoint:
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
            elif name in PRESETS:
                out.extend(parse_pipeline(PRESETS[name]))
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
        tok = m.group("name") or m.group("punct")
        if tok:
            out.append((tok, m.start(m.lastgroup)))  # type: ignore[arg-type]
    return out


def pipeline_text(steps: list[Step]) -> str:
    return ",".join(s.text() for s in steps)
