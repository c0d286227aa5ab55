"""The instruction structure of a module, for comparing our StableHLO import with XLA's HLO form.

XLA's HLO form (`lower().as_text(dialect="hlo")`) is printed after MLIR's canonicalizer and CSE
have run on the StableHLO, so both modules are first brought to the same normal form with our
own passes (cse, algsimp, cse, dce); then instructions that only rename a value (a broadcast,
reshape, copy or convert to its operand's own shape) and tuple plumbing are left out, and
what remains is counted per opcode."""
from __future__ import annotations

from collections import Counter

from hlotools.ir.module import Module

_PLUMBING = frozenset({"parameter", "tuple", "get-tuple-element"})
_RENAMES = frozenset({"broadcast", "reshape", "copy", "convert"})


def normalized_counts(module: Module) -> Counter:
    from hlotools.passes.manager import run_pipeline
    from hlotools.passes.pipeline import parse_pipeline
    run_pipeline(module, parse_pipeline("cse,algsimp,cse,dce"))
    out: Counter = Counter()
    for comp in module.computations:
        for inst in comp.instructions:
            if inst.opcode in _PLUMBING:
                continue
            if inst.opcode in _RENAMES and inst.operands and inst.operands[0].shape == inst.shape:
                continue
            out[inst.opcode] += 1
    return out


def delta(ours: Counter, theirs: Counter) -> dict[str, int]:
    return {k: ours[k] - theirs[k] for k in sorted(set(ours) | set(theirs)) if ours[k] != theirs[k]}


def parse_differences(text: str) -> dict[str, tuple[dict[str, int], str]]:
    """`NAME: op:+1 op:-2 | reason` lines -> {NAME: (delta, reason)}."""
    out: dict[str, tuple[dict[str, int], str]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        head, _, reason = line.partition("|")
        name, _, counts = head.partition(":")
        d = {}
        for item in counts.split():
            op, _, n = item.rpartition(":")
            d[op] = int(n)
        out[name.strip()] = (d, reason.strip())
    return out


def measured_differences() -> dict[str, dict[str, int]]:
    from hlotools.text.parser import parse
    from hlotools.text.stablehlo import parse_stablehlo
    from tests.support.paths import TESTDATA
    folder = TESTDATA / "stablehlo"
    out = {}
    for path in sorted(folder.glob("*.mlir")):
        hlo = folder / (path.name.split(".")[0] + ".hlo")
        d = delta(normalized_counts(parse_stablehlo(path.read_text())), normalized_counts(parse(hlo.read_text())))
        if d:
            out[path.name[:-5]] = d
    return out


if __name__ == "__main__":  # python -m tests.text.stablehlo.structure: rewrite the table, keeping the reasons
    from tests.support.paths import TESTDATA
    path = TESTDATA / "stablehlo" / "structure_differences.txt"
    old = parse_differences(path.read_text())
    head = [line for line in path.read_text().splitlines() if line.startswith("#")]
    rows = [f"{name}: " + " ".join(f"{k}:{v:+d}" for k, v in d.items()) + f" | {old.get(name, ({}, 'TODO'))[1]}"
            for name, d in measured_differences().items()]
    path.write_text("\n".join(head + rows) + "\n")
