"""Run-time sizes of the dynamic padder's static module, for backends that bound loops by them.

The padder (passes/dynamic_padder.py) turns `f32[<=512,256]` into f32[512,256] plus an s32[]
size; the padded module computes the whole bound (the oracle). It also records, on each
instruction of the entry whose dim d has a run-time size held by an entry parameter, that
parameter's number: frontend_attributes={_dynamic_sizes="6,-"} (dim 0 runs to the value of
parameter 6, dim 1 is static). What the record promises, and why a backend may act on it:
the elements past the size are padding, whose content no reader depends on (the padder
masks or moves padding before every op that reads across a dynamic dim), so they may be left
unwritten. `_dynamic_reads` records, for a dot and a reduce, the sizes of the dims of operand
0 it reads across (a dot's lhs contracting dims, a reduce's reduced dims) in the same form:
the read may stop there (the padder's masks make the rest neutral anyway).

Frontend attributes survive the passes: fusion copies them into fused computations (and onto
the fusion), a rewrite that replaces an instruction by an equal value inherits them (the same
value has the same padding), and CSE merges only instructions whose attributes agree. Only
the entry computation's records are meaningful (parameter numbers are the entry's), and only
the padder writes them: a record is a promise about padding, which a module carrying one is
taken to keep.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from hlotools.ir.attributes import Raw
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction

SIZES_KEY = "_dynamic_sizes"
READS_KEY = "_dynamic_reads"
_ENTRY = re.compile(r'(?:^|[{,\s])(_dynamic_(?:sizes|reads))="([^"]*)"')

Record = tuple[int | None, ...]  # per dim: the entry parameter holding its size, or None


def _text(record: Sequence[int | None]) -> str:
    return ",".join("-" if p is None else str(p) for p in record)


def _parse(text: str) -> Record | None:
    out: list[int | None] = []
    for part in text.split(","):
        if part == "-":
            out.append(None)
        elif part.isdigit():
            out.append(int(part))
        else:
            return None
    return tuple(out)


def any_records(computations: Iterable[Computation]) -> bool:
    """Might an instruction of `computations` hold a record? (False: every result_sizes and
    read_sizes of them is None, which codegen then need not ask per instruction)"""
    return any(_ENTRY_PREFIX in str(inst.attrs.get("frontend_attributes") or "")
               for comp in computations for inst in comp.instructions if inst.attrs)


_ENTRY_PREFIX = "_dynamic_"  # what every key _ENTRY matches starts with


def _records(inst: Instruction) -> dict[str, str]:
    text = inst.attrs.get("frontend_attributes") if inst.attrs else None
    if not text:
        return {}
    return {m.group(1): m.group(2) for m in _ENTRY.finditer(str(text))}


def record(inst: Instruction, key: str, sizes: Sequence[int | None]) -> None:
    """Add `key`="sizes" to inst's frontend attributes (nothing when no dim has a size)."""
    if all(p is None for p in sizes):
        return
    entry = f'{key}="{_text(sizes)}"'
    old = str(inst.attrs.get("frontend_attributes") or "").strip()
    if re.search(f'{key}="[^"]*"', old):
        text = re.sub(f'{key}="[^"]*"', entry, old)
    else:
        body = old[1:-1].strip().rstrip(",") if old.startswith("{") else ""
        text = "{" + (body + "," if body else "") + entry + "}"
    inst.attrs = {**inst.attrs, "frontend_attributes": Raw(text)}


def result_sizes(inst: Instruction) -> Record | None:
    """Per result dim, the entry parameter holding its run-time size (None: the bound); None
    when inst has no record or one that does not fit its shape."""
    got = _records(inst).get(SIZES_KEY)
    rec = _parse(got) if got is not None else None
    if rec is None or not inst.shape.is_array or len(rec) != inst.shape.rank:
        return None
    return rec


def read_sizes(inst: Instruction) -> Record | None:
    """Per dim of operand 0, the size where inst's read across it may stop (see module doc)."""
    got = _records(inst).get(READS_KEY)
    rec = _parse(got) if got is not None else None
    if rec is None or not inst.operands or not inst.operands[0].shape.is_array \
            or len(rec) != inst.operands[0].shape.rank:
        return None
    return rec


def size_parameter_bounds(computation: Computation) -> dict[int, int]:
    """Entry parameter number -> the largest bound of a dim whose size it holds, over the
    records of `computation` (the entry): a caller running the padded module as a static one
    (the whole bound: a differential test, say) passes each size parameter its bound."""
    bounds: dict[int, int] = {}
    for inst in computation.instructions:
        for rec, shape in ((result_sizes(inst), inst.shape),
                           (read_sizes(inst), inst.operands[0].shape if inst.operands else None)):
            for d, p in enumerate(rec or ()):
                if p is not None and shape is not None:
                    bounds[p] = max(bounds.get(p, 0), shape.dims[d])
    return bounds
