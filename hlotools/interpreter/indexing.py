"""gather and scatter with XLA's full dimension numbers (batching dims included).

Out-of-bounds rules are XLA's: gather clamps each start index so the whole slice fits in the
operand; scatter skips an update window entirely when any part of it would fall outside the
operand (HloEvaluator / XLA:CPU ScatterThunk). Scatter applies its combiner in XLA's
order: update scatter indices in row-major order, and inside each window row-major.
Recognised combiners (add, multiply, max, min, and, or, replace) become one `ufunc.at`;
anything else runs the computation in "rounds" (the r-th update of every target at once),
which keeps the per-target order exact.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from hlotools.errors import HloRuntimeError
from hlotools.interpreter.patterns import combiner_ufunc
from hlotools.interpreter.registry import kernel
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import REDUCERS
from hlotools.ir.patterns import binary_combiner


def _fail(inst: Instruction, message: str) -> HloRuntimeError:
    return HloRuntimeError(f"{inst.opcode} %{inst.name}: {message}", inst.line or None, inst.column or None)


def _ints(inst: Instruction, name: str) -> tuple[int, ...]:
    return tuple(int(v) for v in inst.attrs.get(name, ()))


def _index_rows(indices: np.ndarray, index_vector_dim: int) -> tuple[np.ndarray, list[int]]:
    """Indices as (batch..., K) int64, plus the original dim number of each batch axis."""
    idx = np.asarray(indices)
    if index_vector_dim == idx.ndim:
        idx = idx[..., None]
    batch_dims = [d for d in range(idx.ndim) if d != index_vector_dim]
    idx = np.moveaxis(idx, index_vector_dim, -1)
    if idx.dtype == np.uint64:  # huge unsigned starts must clamp high, not wrap negative
        idx = np.minimum(idx, np.uint64(1 << 62))
    idx = idx.astype(np.int64)
    return idx, batch_dims


def _starts(idx: np.ndarray, batch_dims: list[int], rank: int, index_map: tuple[int, ...],
            operand_batching: tuple[int, ...], indices_batching: tuple[int, ...]) -> np.ndarray:
    """Operand start index per batch position: shape (batch..., rank)."""
    bshape = idx.shape[:-1]
    starts = np.zeros(bshape + (rank,), np.int64)
    for k, d in enumerate(index_map):
        starts[..., d] = idx[..., k]
    for od, idim in zip(operand_batching, indices_batching):
        axis = batch_dims.index(idim)
        shape = [1] * len(bshape)
        shape[axis] = bshape[axis]
        starts[..., od] = np.arange(bshape[axis]).reshape(shape)
    return starts


# ------------------------------------------------------------------------------ gather
@kernel("gather")
def gather_kernel(inst: Instruction, args: list[Any], ev: Any) -> np.ndarray:
    """Gather as one numpy fancy-indexing step: start indices clamped so each slice fits (XLA's
    rule, no out-of-bounds reads), then the window dims moved to offset_dims."""
    operand, indices = args[0], args[1]
    offset_dims = _ints(inst, "offset_dims")
    collapsed = _ints(inst, "collapsed_slice_dims")
    index_map = _ints(inst, "start_index_map")
    slice_sizes = _ints(inst, "slice_sizes")
    op_batching = _ints(inst, "operand_batching_dims")
    idx_batching = _ints(inst, "start_indices_batching_dims")
    ivd = int(inst.attrs.get("index_vector_dim", indices.ndim))
    if len(slice_sizes) != operand.ndim:
        raise _fail(inst, f"slice_sizes has {len(slice_sizes)} entries for an operand of rank {operand.ndim}")
    idx, batch_dims = _index_rows(indices, ivd)
    if idx.shape[-1] != len(index_map):
        raise _fail(inst, f"index vectors have {idx.shape[-1]} entries, start_index_map {len(index_map)}")
    starts = _starts(idx, batch_dims, operand.ndim, index_map, op_batching, idx_batching)
    limits = np.array([max(d - s, 0) for d, s in zip(operand.shape, slice_sizes)], np.int64)
    starts = np.clip(starts, 0, limits)
    bshape = starts.shape[:-1]
    nb = len(bshape)
    # One index array per operand dim, broadcasting (batch..., slice...).
    pieces = []
    for d, size in enumerate(slice_sizes):
        st = starts[..., d].reshape(bshape + (1,) * operand.ndim)
        ar = np.arange(size).reshape((1,) * nb + tuple(size if e == d else 1 for e in range(operand.ndim)))
        pieces.append(st + ar)
    window = operand[tuple(pieces)] if operand.size else np.zeros(bshape + slice_sizes, operand.dtype)
    dropped = set(collapsed) | set(op_batching)
    keep = [d for d in range(operand.ndim) if d not in dropped]
    window = window.reshape(bshape + tuple(slice_sizes[d] for d in keep))
    out_rank = nb + len(keep)
    if len(offset_dims) != len(keep):
        raise _fail(inst, f"offset_dims has {len(offset_dims)} entries for {len(keep)} window dims")
    perm = [0] * out_rank
    batch_positions = [p for p in range(out_rank) if p not in offset_dims]
    for j, p in enumerate(batch_positions):
        perm[p] = j
    for i, p in enumerate(sorted(offset_dims)):
        perm[p] = nb + i
    out = window.transpose(perm)
    if out.shape != tuple(inst.shape.dims):
        raise _fail(inst, f"computed shape {out.shape} does not match the declared {inst.shape}")
    return np.ascontiguousarray(out) if out.ndim else out.copy()  # (ascontiguousarray makes 0-d 1-d)


# ----------------------------------------------------------------------------- scatter
def scatter_targets(inst: Instruction, operand_shape: tuple[int, ...], indices: np.ndarray,
                    updates_shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Flat operand index of every update element, in XLA's application order.

    Returns (update_flat_positions, operand_flat_positions) for the updates that are applied
    (windows that do not fit in the operand are dropped entirely).
    """
    window_dims = _ints(inst, "update_window_dims")
    inserted = _ints(inst, "inserted_window_dims")
    index_map = _ints(inst, "scatter_dims_to_operand_dims")
    op_batching = _ints(inst, "input_batching_dims")
    idx_batching = _ints(inst, "scatter_indices_batching_dims")
    ivd = int(inst.attrs.get("index_vector_dim", indices.ndim))
    rank = len(operand_shape)
    idx, batch_dims = _index_rows(indices, ivd)
    starts = _starts(idx, batch_dims, rank, index_map, op_batching, idx_batching)
    scatter_axes = [d for d in range(len(updates_shape)) if d not in window_dims]
    operand_window = [d for d in range(rank) if d not in inserted and d not in op_batching]
    if len(operand_window) != len(window_dims):
        raise _fail(inst, f"{len(window_dims)} update_window_dims for {len(operand_window)} operand window dims")
    bshape = tuple(updates_shape[d] for d in scatter_axes)
    if starts.shape[:-1] != bshape:
        raise _fail(inst, f"scatter indices batch shape {starts.shape[:-1]} != update scatter dims {bshape}")
    wshape = tuple(updates_shape[d] for d in window_dims)
    # Window extent per operand dim (1 for inserted/batching dims) and the skip test.
    extent = np.ones(rank, np.int64)
    for od, ud in zip(operand_window, window_dims):
        extent[od] = updates_shape[ud]
    fits = np.all((starts >= 0) & (starts <= np.asarray(operand_shape) - extent), axis=-1)  # (batch...)
    nb, nw = math.prod(bshape), math.prod(wshape)
    starts2 = starts.reshape(nb, rank)
    wgrid = np.indices(wshape).reshape(len(wshape), nw) if wshape else np.zeros((0, 1), np.int64)
    full = np.repeat(starts2[:, None, :], nw, axis=1)  # (nb, nw, rank)
    for j, od in enumerate(operand_window):
        full[:, :, od] += wgrid[j][None, :]
    op_flat = np.ravel_multi_index(tuple(np.moveaxis(np.where(fits.reshape(nb, 1, 1), full, 0), -1, 0)),
                                   operand_shape) if rank else np.zeros((nb, nw), np.int64)
    # Update element (scatter position b, window position w) in the updates array.
    perm = scatter_axes + list(window_dims)
    upd_pos = np.arange(math.prod(updates_shape)).reshape(updates_shape).transpose(perm).reshape(nb, nw)
    keep = np.broadcast_to(fits.reshape(nb, 1), (nb, nw))
    return upd_pos[keep], op_flat[keep]


def _occurrence_rank(targets: np.ndarray) -> np.ndarray:
    """For each position, how many earlier positions have the same target."""
    order = np.argsort(targets, kind="stable")
    sorted_t = targets[order]
    starts = np.r_[0, np.flatnonzero(sorted_t[1:] != sorted_t[:-1]) + 1] if len(sorted_t) else np.zeros(0, int)
    group_start = np.repeat(starts, np.diff(np.r_[starts, len(sorted_t)]))
    rank = np.empty(len(targets), np.int64)
    rank[order] = np.arange(len(targets)) - group_start
    return rank


def _call_rounds(ev: Any, comp: Any, results: list[np.ndarray], updates: list[np.ndarray],
                 upd_pos: np.ndarray, op_pos: np.ndarray) -> None:
    """Apply an arbitrary combiner in order: round r handles every target's r-th update."""
    rank = _occurrence_rank(op_pos)
    n_ops = len(results)
    for r in range(int(rank.max()) + 1 if len(rank) else 0):
        sel = rank == r
        t, u = op_pos[sel], upd_pos[sel]
        cur = [res.reshape(-1)[t] for res in results]
        new = [upd.reshape(-1)[u] for upd in updates]
        out = apply_elementwise(ev, comp, cur + new, n_ops)
        for res, val in zip(results, out):
            res.reshape(-1)[t] = val


def apply_elementwise(ev: Any, comp: Any, operands: list[np.ndarray], n_out: int) -> list[np.ndarray]:
    """Run a scalar computation over equal-length vectors (Evaluator.apply: one batched call
    when the computation is elementwise-only, else one call per element)."""
    outs = ev.apply(comp, operands)
    if len(outs) != n_out:
        raise HloRuntimeError(f"combiner {comp.name} returns {len(outs)} values, expected {n_out}")
    return [np.asarray(o) for o in outs]


def _apply_replace(result: np.ndarray, update: np.ndarray, upd_pos: np.ndarray, op_pos: np.ndarray) -> None:
    """`f(a, b) = b` in order: the last update of each target wins."""
    last = len(op_pos) - 1 - np.unique(op_pos[::-1], return_index=True)[1]
    result.reshape(-1)[op_pos[last]] = update.reshape(-1)[upd_pos[last]]


@kernel("scatter")
def scatter_kernel(inst: Instruction, args: list[Any], ev: Any) -> Any:
    n = (len(args) - 1) // 2
    if len(args) != 2 * n + 1 or n < 1:
        raise _fail(inst, f"expected N operands, indices and N updates, got {len(args)} operands")
    operands, indices, updates = args[:n], args[n], args[n + 1:]
    results = [np.array(o, copy=True) for o in operands]
    upd_pos, op_pos = scatter_targets(inst, operands[0].shape, indices, updates[0].shape)
    comp = inst.attrs.get("to_apply")
    combiner = binary_combiner(comp) if n == 1 else None
    if len(op_pos) == 0 or combiner == "keep":
        pass
    elif combiner == "replace":
        _apply_replace(results[0], updates[0], upd_pos, op_pos)
    elif combiner in REDUCERS:
        ufunc = combiner_ufunc(combiner, results[0].dtype)
        flat = results[0].reshape(-1)
        with np.errstate(all="ignore"):
            ufunc.at(flat, op_pos, updates[0].reshape(-1)[upd_pos].astype(results[0].dtype))
    else:
        if comp is None:
            raise _fail(inst, "missing to_apply")
        _call_rounds(ev, comp, results, list(updates), upd_pos, op_pos)
    return results[0] if n == 1 and not inst.shape.is_tuple else tuple(results)
