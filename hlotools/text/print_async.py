"""XLA's async syntax sugar for the printer: `custom-call-start(...)` instead of `async-start`.

XLA prints an async-start whose wrapped computation is a single instruction fed by its
parameters as `<op>-start` carrying the wrapped op's attributes, the matching
`async-update`/`async-done` as `<op>-update`/`<op>-done`, and leaves the wrapped computation
out of the module (HloPrintOptions::syntax_sugar_async_ops). The parser rebuilds that
computation from the sugar, so the printer uses it only when reparsing gives the same IR
back: the computation has the form the parser synthesises (`async_wrapped_<op>`, parameters
`param_i` feeding a root named after its opcode), only this async chain calls it, the
`-start` carries nothing the parser would move onto the wrapped op, and replaying the chain
(the start's shapes, then each late-binding -update/-done) gives its exact signature.
XLA never prints `calls=` on async-update/-done (the parser inherits it from the producer).
"""
from __future__ import annotations

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.shape import Shape
from hlotools.text.parse_async import ASYNC_OPS, Signature, initial_signature, late_bound_shapes, rebound

# Attributes the parser keeps on a sugared -start (everything else goes to the wrapped op).
START_OWN_ATTRS = ("async_execution_thread", "output_to_operand_aliasing")


def producer(inst: Instruction) -> Instruction | None:
    """The async-start/-update an async-update/-done inherits its computation from."""
    if inst.operands:
        prev = inst.operands[0]
        if prev.opcode in ("async-start", "async-update"):
            return prev
    return None


def chain_head(inst: Instruction) -> Instruction:
    """The first op of the chain: an async-start, or an -update/-done without a producer."""
    cur = inst
    while cur.opcode != "async-start":
        prev = producer(cur)
        if prev is None:
            break
        cur = prev
    return cur


def derived_calls(inst: Instruction) -> bool:
    """True when the parser re-derives `calls` of this async-update/-done from its producer."""
    prev = producer(inst)
    return prev is not None and prev.attrs.get("calls") is inst.attrs.get("calls")


def _synthesised(comp: Computation) -> Instruction | None:
    """The root when `comp` has the form the parser builds for sugar (parse_async._wrap)."""
    root = comp.root
    info = OPCODES.get(root.opcode) if root is not None else None
    if root is None or root.opcode in ASYNC_OPS or info is not None and info.native_async:
        return None  # native async ops: their start/done forms are opcodes of their own, never sugar
    if root.name != root.opcode or not comp.name.startswith("async_wrapped_" + root.opcode):
        return None
    params = comp.instructions[:-1]
    if comp.instructions[-1] is not root or root.control_predecessors or root.operands != params:
        return None
    for i, p in enumerate(params):
        if p.opcode != "parameter" or p.parameter_number != i or p.name != f"param_{i}" or p.attrs:
            return None
    return root


def _async_form(shape: Shape) -> tuple[Shape, ...] | None:
    ts = shape.tuple_shapes
    return ts if ts is not None and len(ts) >= 2 and ts[0].tuple_shapes is not None else None


def _replayed(head: Instruction, root: Instruction, callers: list[Instruction]) -> Signature | None:
    """The (parameter shapes, root shape) the parser would give the wrapped computation when
    reading the sugared chain back: built from its head, then rebound by every later -update
    and -done of the chain in order (late binding, parse_async.rebind)."""
    if head.opcode == "async-start":
        ts = _async_form(head.shape)
        if ts is None:
            return None
        sig = initial_signature(root.opcode, ts[1], ts[0].tuple_shapes or (), root.attrs)
    else:  # no producer: rebuilt from the operand's async value, no attributes
        ts = _async_form(head.operands[0].shape) if head.operands else None
        if ts is None:
            return None
        result = head.shape if head.opcode == "async-done" else ts[1]
        sig = initial_signature(root.opcode, result, ts[0].tuple_shapes or (), {})
    for member in callers:
        prev = producer(member)
        if member is head or prev is None:
            continue
        if member.opcode == "async-update" and _async_form(member.shape) is None:
            return None
        sig = rebound(sig, *late_bound_shapes(member.opcode, member.shape, prev))
    return sig


def wrapped_root(inst: Instruction, callers: dict[int, list[Instruction]] | None) -> Instruction | None:
    """The wrapped op when this async op may print as `<op>-start/-update/-done`, else None."""
    comp = inst.attrs.get("calls")
    if not isinstance(comp, Computation):
        return None
    if inst.opcode != "async-start":
        prev = producer(inst)
        if prev is not None:
            return wrapped_root(prev, callers) if prev.attrs.get("calls") is comp else None
        # No producer (e.g. a chain crossing a loop): the parser rebuilds the computation from
        # the operand's shape, with no attributes on the wrapped op.
        root = _synthesised(comp)
        if root is None or root.attrs or comp.execution_thread is not None:
            return None
    else:
        if inst.control_predecessors or any(n not in START_OWN_ATTRS and n != "calls" for n in inst.attrs):
            return None  # the parser would move those attributes onto the wrapped op
        root = _synthesised(comp)
        if root is None or comp.execution_thread != inst.attrs.get("async_execution_thread"):
            return None  # the parser sets the wrapped computation's thread from the start's
    chain = callers.get(id(comp), []) if callers is not None else []
    if any(chain_head(c) is not inst for c in chain):
        return None
    if _replayed(inst, root, chain) != ([p.shape for p in comp.parameters], root.shape):
        return None
    return root


def callers_by_computation(module: Module) -> dict[int, list[Instruction]]:
    """id(computation) -> the instructions that call it."""
    out: dict[int, list[Instruction]] = {}
    for c in module.computations:
        for inst in c.instructions:
            if inst.attrs:
                for callee in inst.called_computations():
                    out.setdefault(id(callee), []).append(inst)
    return out
