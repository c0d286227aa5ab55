"""Control flow and structure: tuples and get-tuple-element (aliases: no code, no memory),
while, conditional, call, non-elemental fusions (called as functions), tokens.

while keeps its state in its own buffers (A); each iteration calls the condition on A,
then the body from A into a scratch copy (B) and copies B back to A, so a body that swaps
or permutes state elements never reads what it has already overwritten.
"""
from __future__ import annotations

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import leaf_bytes
from hlotools.backend.llvm.codegen.elemental import ElementalGen, Index, Value, fusion_is_elemental
from hlotools.backend.llvm.codegen.function import FunctionEmitter, emit_elemental_loop
from hlotools.backend.llvm.codegen.registry import ALIASES, SCRATCH, elemental, emitter
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import OPCODES

# The pass-through ops alias their operands' buffers; bitcast is elemental here instead (it may
# reinterpret the element type or the layout; compiler.py aliases one that moves nothing).
ALIASES.update(n for n, i in OPCODES.items() if i.passthrough and n != "bitcast")


def _arg_shapes(inst: Instruction) -> list:
    return [leaf for op in inst.operands for leaf in op.shape.leaves()]


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
        p = next(it) if leaf_bytes(shape) else ir.Constant(types.PTR, None)
        next_ptrs.append(state[k] if k in body_cf.alias_safe else p)
    b = fe.b
    header = b.append_basic_block(f"while.{inst.name}.cond")
    loop = b.append_basic_block(f"while.{inst.name}.body")
    done = b.append_basic_block(f"while.{inst.name}.exit")
    b.branch(header)
    b.position_at_end(header)
    leaves = inst.shape.leaves()
    fe.call_computation(cond, state, [pred_buf], arg_shapes=leaves)
    go = b.icmp_unsigned("!=", b.load(pred_buf, typ=types.I8), ir.Constant(types.I8, 0))
    b.cbranch(go, loop, done)
    b.position_at_end(loop)
    fe.call_computation(body, state, next_ptrs, callee=body_cf, arg_shapes=leaves, out_shapes=leaves)
    _copy_leaves(fe, state, next_ptrs, inst)
    b.branch(header)
    b.position_at_end(done)


SCRATCH["while"] = lambda inst: [1] + [leaf_bytes(s) for s in inst.shape.leaves() if leaf_bytes(s)]


@emitter("call")
def _call(fe: FunctionEmitter, inst: Instruction) -> None:
    args = [p for op in inst.operands for p in fe.leaf_ptrs(op)]
    fe.call_computation(inst.attrs["to_apply"], args, fe.leaf_ptrs(inst), arg_shapes=_arg_shapes(inst),
                        out_shapes=inst.shape.leaves())


@emitter("fusion")
def _fusion(fe: FunctionEmitter, inst: Instruction) -> None:
    if fusion_is_elemental(inst):
        emit_elemental_loop(fe, inst)
        return
    if str(inst.attrs.get("kind", "")) == "kOutput":  # a dot/convolution + elementwise consumers
        from hlotools.backend.llvm.lower.output_fusion import emit_output_fusion
        if emit_output_fusion(fe, inst):
            return
    args = [p for op in inst.operands for p in fe.leaf_ptrs(op)]
    fe.call_computation(inst.attrs["calls"], args, fe.leaf_ptrs(inst), arg_shapes=_arg_shapes(inst),
                        out_shapes=inst.shape.leaves())


def _fusion_scratch(inst: Instruction) -> list[int]:
    """A kOutput fusion emitted in place needs its product's scratch (emit_output_fusion)."""
    if str(inst.attrs.get("kind", "")) != "kOutput" or fusion_is_elemental(inst):
        return []
    from hlotools.backend.llvm.lower.output_fusion import output_scratch
    return output_scratch(inst)


SCRATCH["fusion"] = _fusion_scratch


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
        idx = b.select(raw, ir.Constant(types.I32, 0), ir.Constant(types.I32, 1))
    else:
        idx = raw if raw.type.width == 32 else b.sext(raw, types.I32)
    n = len(branches)
    outs = fe.leaf_ptrs(inst)
    done = b.append_basic_block(f"cond.{inst.name}.exit")
    blocks = [b.append_basic_block(f"cond.{inst.name}.b{k}") for k in range(n)]
    sw = b.switch(idx, blocks[-1])
    for k in range(n - 1):
        sw.add_case(ir.Constant(types.I32, k), blocks[k])
    for k, comp in enumerate(branches):
        b.position_at_end(blocks[k])
        fe.call_computation(comp, fe.leaf_ptrs(inst.operands[k + 1]), outs,
                            arg_shapes=inst.operands[k + 1].shape.leaves(), out_shapes=inst.shape.leaves())
        b.branch(done)
    b.position_at_end(done)


@emitter("after-all", "partition-id", "replica-id")
def _sources(fe: FunctionEmitter, inst: Instruction) -> None:
    """Tokens carry no data; on one device the replica and partition ids are 0."""
    if inst.opcode in ("partition-id", "replica-id"):
        fe.b.store(ir.Constant(types.I32, 0), fe.leaf_ptrs(inst)[0])


@emitter("scan")
def _scan(fe: FunctionEmitter, inst: Instruction) -> None:
    """Sequential scan along dimensions[0]: to_apply(input slices..., carries...) returns
    (output slices..., new carries...); the result is (stacked outputs..., final carries...).
    Slices and step results live in scratch; the carries in the result's own buffers."""
    from hlotools.backend.llvm.llvm_ir.loops import for_range, loop_nest
    from hlotools.errors import HloUnsupportedError
    comp = inst.attrs["to_apply"]
    num_carries = int(inst.attrs.get("num_carries", 0))
    n_in = len(inst.operands) - num_carries
    dim = int(inst.attrs.get("dimensions", (0,))[0])
    shapes = list(inst.shape.tuple_shapes or ())
    n_out = len(shapes) - num_carries
    if any(s.is_tuple for s in shapes) or any(op.shape.is_tuple for op in inst.operands):
        raise HloUnsupportedError("scan with tuple-shaped inputs, outputs or carries")
    length = inst.operands[0].shape.dims[dim] if n_in else shapes[0].dims[dim]
    results = fe.leaf_ptrs(inst)
    carries = results[n_out:]
    for k, op in enumerate(inst.operands[n_in:]):
        fe.memcpy(carries[k], fe.leaf_ptrs(op)[0], leaf_bytes(op.shape))
    scratch = iter(fe.scratch_ptrs(inst))
    param_shapes = [p.shape for p in comp.parameters]
    root_shapes = comp.root.shape.leaves()
    slices = [next(scratch) for _ in range(n_in)]
    step_out = [next(scratch) for _ in range(n_out)]
    new_carry = [next(scratch) for _ in range(num_carries)]
    b = fe.b
    if length == 0:
        return
    with for_range(b, 0, length, name="scan") as step:
        i = b.sub(c64(length - 1), step) if inst.attrs.get("is_reverse") else step
        for k, op in enumerate(inst.operands[:n_in]):
            def copy_in(index: list[ir.Value], k: int = k, op: Instruction = op) -> None:
                src = index[:dim] + [i] + index[dim:]
                fe.store_element(fe.load_element(fe.leaf_ptrs(op)[0], op.shape, src), slices[k], param_shapes[k], index)
            loop_nest(b, param_shapes[k], copy_in)
        fe.call_computation(comp, slices + list(carries), step_out + new_carry)
        for k in range(n_out):
            def copy_out(index: list[ir.Value], k: int = k) -> None:
                dst = index[:dim] + [i] + index[dim:]
                fe.store_element(fe.load_element(step_out[k], root_shapes[k], index), results[k], shapes[k], dst)
            loop_nest(b, root_shapes[k], copy_out)
        for k in range(num_carries):
            fe.memcpy(carries[k], new_carry[k], leaf_bytes(shapes[n_out + k]))


SCRATCH["scan"] = lambda inst: (
    [max(1, leaf_bytes(p.shape)) for p in inst.attrs["to_apply"].parameters[:len(inst.operands) - int(inst.attrs.get("num_carries", 0))]]
    + [max(1, leaf_bytes(s)) for s in inst.attrs["to_apply"].root.shape.leaves()])


@elemental("fusion")
def _fusion_value(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    return fused_gen(gen, inst).value_at(inst.attrs["calls"].root, index)


def fused_gen(gen: ElementalGen, inst: Instruction) -> ElementalGen:
    """The generator of a fusion's computation, its parameters read through `gen`."""
    comp = inst.attrs["calls"]
    bindings = {id(p): (lambda k: (lambda idx: gen.value_at(inst.operands[k], idx)))(n)
                for n, p in enumerate(comp.parameters)}
    sources = {id(p): (gen, o) for p, o in zip(comp.parameters, inst.operands)}
    return ElementalGen(gen.fe, bindings, sources)
