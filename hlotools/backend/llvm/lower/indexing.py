"""Data movement beyond pure index arithmetic: gather (elemental), dynamic-update-slice
(in place when buffer assignment lets it share its operand's buffer), scatter, and the
copy helper they share. Start indices clamp as XLA says: each start into
[0, operand_dim - window_dim], so no valid module reads or writes out of bounds.
"""
from __future__ import annotations

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import layout_of, leaf_bytes
from hlotools.backend.llvm.codegen.elemental import ElementalGen, Index, Value
from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.registry import elemental, emitter
from hlotools.backend.llvm.llvm_ir.loops import c64, loop_nest
from hlotools.backend.llvm.lower.data_movement import clamp_index, index_value
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape


@elemental("gather")
def _gather(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    a = inst.attrs
    operand, indices = inst.operands
    offset_dims = tuple(a.get("offset_dims", ()))
    collapsed = tuple(a.get("collapsed_slice_dims", ()))
    start_map = tuple(a.get("start_index_map", ()))
    ivd = int(a.get("index_vector_dim", len(indices.shape.dims)))
    sizes = tuple(a.get("slice_sizes", ()))
    op_batch = tuple(a.get("operand_batching_dims", ()))
    idx_batch = tuple(a.get("start_indices_batching_dims", ()))
    b = gen.b
    op_dims = operand.shape.dims
    batch_out = [d for d in range(len(inst.shape.dims)) if d not in offset_dims]
    # XLA clamps each start so that the slice fits in the operand
    starts = _operand_starts(gen, inst, 1, [index[d] for d in batch_out], ivd, start_map,
                             (op_batch, idx_batch), sizes)
    window_dims = [d for d in range(len(op_dims)) if d not in collapsed and d not in op_batch]
    src = list(starts)
    for j, od in enumerate(window_dims):
        src[od] = b.add(starts[od], index[offset_dims[j]])
    return gen.operand(inst, 0, src)


def copy_value(fe: FunctionEmitter, src: Instruction, dst: ir.Value, dst_inst: Instruction) -> None:
    """dst (the buffer of dst_inst) := the value of src (same dims)."""
    _copy_into(fe, src, dst, dst_inst.shape)


def _copy_into(fe: FunctionEmitter, src: Instruction, dst: ir.Value, shape: Shape) -> None:
    """dst (an array buffer of `shape`) := the value of src: one memcpy when src has a buffer
    in the same layout, else an element loop (src computed in place, or a relayout)."""
    if fe.is_materialised(src) and not src.shape.is_tuple and layout_of(src.shape) == layout_of(shape):
        fe.memcpy(dst, fe.leaf_ptrs(src)[0], leaf_bytes(shape))
        return

    def body(index: list[ir.Value]) -> None:
        with fe.gen.region():
            fe.store_element(fe.gen.value_at(src, index), dst, shape, index)
    loop_nest(fe.b, shape, body)


def _operand_starts(gen: ElementalGen, inst: Instruction, indices_no: int, batch: list[ir.Value],
                    ivd: int, index_map: tuple[int, ...], batching: tuple[tuple[int, ...], tuple[int, ...]],
                    slice_sizes: tuple[int, ...] | None = None) -> list[ir.Value]:
    """Gather's and scatter's operand start for one batch position: `batch` indexes the
    start indices (operand `indices_no`) in every dim but index_vector_dim `ivd`, whose k-th
    entry starts operand dim index_map[k]; operand batching dims (batching[0]) take the
    position of their start-indices batching dim (batching[1]); other dims start at 0. With
    `slice_sizes`, each loaded start is clamped into [0, operand_dim - slice_size]."""
    idx_rank = len(inst.operands[indices_no].shape.dims)
    op_dims = inst.operands[0].shape.dims
    it = iter(batch)
    batch_index = [c64(0) if d == ivd else next(it) for d in range(idx_rank)]
    starts: list[ir.Value] = [c64(0)] * len(op_dims)
    for k, od in enumerate(index_map):
        ii = list(batch_index)
        if ivd < idx_rank:
            ii[ivd] = c64(k)
        v = index_value(gen, inst, indices_no, ii)
        starts[od] = v if slice_sizes is None else clamp_index(gen.b, v, 0, op_dims[od] - slice_sizes[od])
    for od, idd in zip(*batching):
        starts[od] = batch_index[idd]
    return starts


@emitter("dynamic-update-slice")
def _dynamic_update_slice(fe: FunctionEmitter, inst: Instruction) -> None:
    assert fe.plan is not None
    out = fe.leaf_ptrs(inst)[0]
    operand, update = inst.operands[0], inst.operands[1]
    if id(inst) not in fe.plan.in_place:
        copy_value(fe, operand, out, inst)
    elif fe.is_materialised(operand) and operand.opcode != "constant":
        # in place: the operand's buffer is (normally) the result's; copy if the caller did
        # not alias a donated / loop-state parameter after all
        fe.memcpy_if_distinct(out, fe.leaf_ptrs(operand)[0], leaf_bytes(inst.shape))
    b = fe.b
    dims, udims = inst.shape.dims, update.shape.dims
    if any(n == 0 for n in udims):
        return
    with fe.gen.region():
        starts = []
        for d in range(len(dims)):
            if len(inst.operands) == 3 and inst.operands[2].shape.dims:  # old form: one index vector
                v = index_value(fe.gen, inst, 2, [c64(d)])
            else:
                v = index_value(fe.gen, inst, 2 + d, [])
            starts.append(clamp_index(b, v, 0, dims[d] - udims[d]))

        def body(index: list[ir.Value]) -> None:
            with fe.gen.region():
                v = fe.gen.value_at(update, index)
                fe.store_element(v, out, inst.shape, [b.add(s, i) for s, i in zip(starts, index)])
        loop_nest(b, update.shape, body)


@emitter("scatter")
def _scatter(fe: FunctionEmitter, inst: Instruction) -> None:
    """Copy the operands to the results, then for every update element in order combine it
    into the addressed result element; an update window that does not fit in the operand is
    skipped as a whole (XLA's semantics)."""
    a = inst.attrs
    n = (len(inst.operands) - 1) // 2
    operands, indices, updates = inst.operands[:n], inst.operands[n], inst.operands[n + 1:]
    outs = fe.leaf_ptrs(inst)
    out_shapes = inst.shape.leaves()
    for op, p, s in zip(operands, outs, out_shapes):
        _copy_into(fe, op, p, s)
    uwd = tuple(a.get("update_window_dims", ()))
    inserted = tuple(a.get("inserted_window_dims", ()))
    sdims = tuple(a.get("scatter_dims_to_operand_dims", ()))
    ivd = int(a.get("index_vector_dim", len(indices.shape.dims)))
    in_batch = tuple(a.get("input_batching_dims", ()))
    idx_batch = tuple(a.get("scatter_indices_batching_dims", ()))
    comp = a["to_apply"]
    b = fe.b
    gen = fe.gen
    op_dims = operands[0].shape.dims
    ushape = updates[0].shape
    upd_scatter = [d for d in range(len(ushape.dims)) if d not in uwd]
    window_op_dims = [d for d in range(len(op_dims)) if d not in inserted and d not in in_batch]

    def body(uidx: list[ir.Value]) -> None:
        with gen.region():
            # not clamped: a window that does not fit is skipped below
            full = _operand_starts(gen, inst, n, [uidx[d] for d in upd_scatter], ivd, sdims,
                                   (in_batch, idx_batch))
            ok: ir.Value = ir.Constant(ir.IntType(1), 1)
            window_sizes = {od: ushape.dims[uwd[j]] for j, od in enumerate(window_op_dims)}
            for od in range(len(op_dims)):
                size = window_sizes.get(od, 1)
                ok = b.and_(ok, b.icmp_signed(">=", full[od], c64(0)))
                ok = b.and_(ok, b.icmp_signed("<=", full[od], c64(op_dims[od] - size)))
            for j, od in enumerate(window_op_dims):
                full[od] = b.add(full[od], uidx[uwd[j]])
            with b.if_then(ok):
                with gen.region():
                    safe = [clamp_index(b, v, 0, op_dims[d] - 1) for d, v in enumerate(full)]
                    olds = [fe.load_element(p, s, safe) for p, s in zip(outs, out_shapes)]
                    news = [gen.value_at(u, uidx) for u in updates]
                    res = gen.apply(comp, olds + news)
                    res = res if isinstance(res, list) else [res]
                    for v, p, s in zip(res, outs, out_shapes):
                        fe.store_element(v, p, s, safe)
    if not any(d == 0 for d in ushape.dims):
        loop_nest(b, ushape, body)


@emitter("custom-call")
def _custom_call(fe: FunctionEmitter, inst: Instruction) -> None:
    """Targets in registry.CUSTOM_CALLS (LAPACK factorizations, ...) and the ones that are
    identities on one device (Sharding, ...: ir/custom_calls.py's IDENTITY_TARGETS); anything
    else is refused naming the target."""
    from hlotools.backend.llvm.codegen.registry import CUSTOM_CALLS
    from hlotools.errors import HloUnsupportedError
    from hlotools.ir.custom_calls import IDENTITY_TARGETS
    target = str(inst.attrs.get("custom_call_target", ""))
    if target in CUSTOM_CALLS:
        CUSTOM_CALLS[target](fe, inst)
        return
    if target not in IDENTITY_TARGETS or len(inst.operands) != 1 or inst.shape.is_tuple:
        raise HloUnsupportedError(f"custom-call target \"{target}\" is not supported by the LLVM backend")
    copy_value(fe, inst.operands[0], fe.leaf_ptrs(inst)[0], inst)
