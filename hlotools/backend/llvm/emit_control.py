"""Control flow and structure: tuples and get-tuple-element (aliases: no code, no memory),
while, conditional, call, non-elemental fusions (called as functions), tokens.

while keeps its state in its own buffers (A); each iteration calls the condition on A,
then the body from A into a scratch copy (B) and copies B back to A, so a body that swaps
or permutes state elements never reads what it has already overwritten.
"""
from __future__ import annotations

import llvmlite.ir as ir

from hlotools.backend.llvm import emit_types as T
from hlotools.backend.llvm.compiler import FunctionEmitter, emit_elemental_loop, leaf_bytes
from hlotools.backend.llvm.emit_elemental import fusion_is_elemental
from hlotools.backend.llvm.registry import ALIASES, SCRATCH, emitter
from hlotools.ir.instruction import Instruction

ALIASES.update({"tuple", "get-tuple-element", "opt-barrier", "domain", "add-dependency"})


def _copy_leaves(fe: FunctionEmitter, dst: list[ir.Value], src: list[ir.Value], inst: Instruction) -> None:
    for d, s, shape in zip(dst, src, inst.shape.leaves()):
        if d is not s:
            fe.memcpy(d, s, leaf_bytes(shape))


@emitter("while")
def _while(fe: FunctionEmitter, inst: Instruction) -> None:
    """State A lives in the while's buffers. The body is the alias_params variant: leaves
    it can update in place get A itself as their output; the others go to scratch B and are
    copied back after each iteration."""
    cond, body = inst.attrs["condition"], inst.attrs["body"]
    state = fe.leaf_ptrs(inst)
    _copy_leaves(fe, state, fe.leaf_ptrs(inst.operands[0]), inst)
    scratch = fe.scratch_ptrs(inst)
    pred_buf, next_state = scratch[0], scratch[1:]
    body_cf = fe.mc.function_for(body, alias_params=True)
    next_ptrs = []
    it = iter(next_state)
    for k, shape in enumerate(inst.shape.leaves()):
        p = next(it) if leaf_bytes(shape) else ir.Constant(T.PTR, None)
        next_ptrs.append(state[k] if k in body_cf.alias_safe else p)
    b = fe.b
    header = b.append_basic_block(f"while.{inst.name}.cond")
    loop = b.append_basic_block(f"while.{inst.name}.body")
    done = b.append_basic_block(f"while.{inst.name}.exit")
    b.branch(header)
    b.position_at_end(header)
    fe.call_computation(cond, state, [pred_buf])
    go = b.icmp_unsigned("!=", b.load(pred_buf, typ=T.I8), ir.Constant(T.I8, 0))
    b.cbranch(go, loop, done)
    b.position_at_end(loop)
    fe.call_computation(body, state, next_ptrs, callee=body_cf)
    _copy_leaves(fe, state, next_ptrs, inst)
    b.branch(header)
    b.position_at_end(done)


SCRATCH["while"] = lambda inst: [1] + [leaf_bytes(s) for s in inst.shape.leaves() if leaf_bytes(s)]


@emitter("call")
def _call(fe: FunctionEmitter, inst: Instruction) -> None:
    args = [p for op in inst.operands for p in fe.leaf_ptrs(op)]
    fe.call_computation(inst.attrs["to_apply"], args, fe.leaf_ptrs(inst))


@emitter("fusion")
def _fusion(fe: FunctionEmitter, inst: Instruction) -> None:
    if fusion_is_elemental(inst):
        emit_elemental_loop(fe, inst)
        return
    args = [p for op in inst.operands for p in fe.leaf_ptrs(op)]
    fe.call_computation(inst.attrs["calls"], args, fe.leaf_ptrs(inst))


@emitter("conditional")
def _conditional(fe: FunctionEmitter, inst: Instruction) -> None:
    """Branch index: pred true -> 0 (true_computation), false -> 1; an s32 index out of
    range selects the last branch (XLA's semantics)."""
    a = inst.attrs
    branches = list(a["branch_computations"]) if a.get("branch_computations") else [
        a["true_computation"], a["false_computation"]]
    b = fe.b
    sel_shape = inst.operands[0].shape
    raw = fe.load_element(fe.leaf_ptrs(inst.operands[0])[0], sel_shape, [])
    if sel_shape.element_type is not None and sel_shape.element_type.kind == "pred":
        idx = b.select(raw, ir.Constant(T.I32, 0), ir.Constant(T.I32, 1))
    else:
        idx = raw if raw.type.width == 32 else b.sext(raw, T.I32)
    n = len(branches)
    outs = fe.leaf_ptrs(inst)
    done = b.append_basic_block(f"cond.{inst.name}.exit")
    blocks = [b.append_basic_block(f"cond.{inst.name}.b{k}") for k in range(n)]
    sw = b.switch(idx, blocks[-1])
    for k in range(n - 1):
        sw.add_case(ir.Constant(T.I32, k), blocks[k])
    for k, comp in enumerate(branches):
        b.position_at_end(blocks[k])
        fe.call_computation(comp, fe.leaf_ptrs(inst.operands[k + 1]), outs)
        b.branch(done)
    b.position_at_end(done)


@emitter("after-all", "partition-id", "replica-id")
def _sources(fe: FunctionEmitter, inst: Instruction) -> None:
    """Tokens carry no data; on one device the replica and partition ids are 0."""
    if inst.opcode in ("partition-id", "replica-id"):
        fe.b.store(ir.Constant(T.I32, 0), fe.leaf_ptrs(inst)[0])
