"""Reductions: reduce (variadic), reduce-window (padding, base/window dilation, variadic)
and select-and-scatter.

A reducer whose root is one of add/multiply/maximum/minimum/and/or/xor applied to its two
parameters becomes a numpy ufunc reduction. For f16/bf16/f8 every application of the reducer
rounds to the type (as the HLO says), so those reduce as a pairwise tree rounded per level;
f32/f64/int use ufunc.reduce directly. Any other reducer is folded with Evaluator.apply on
whole slices: sequentially (XLA's evaluator and CPU order, which matters for reducers that
are not associative) up to _SEQUENTIAL_MAX elements, pairwise beyond (log2(K) calls; XLA
leaves the order unspecified, so a tree is as valid an order as a sequential one).
Window ops never feed padding or dilation holes to the reducer: the simple path pads with
the reducer's identity, the general path masks them out (init is combined exactly once).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from hlotools.errors import HloRuntimeError
from hlotools.interpreter.data_movement import pad_array
from hlotools.interpreter.numeric import compute_dtype, finfo, finish, merge_trailing, quiet_nan
from hlotools.interpreter.registry import kernel
from hlotools.ir import semantics
from hlotools.ir.attributes import Window, WindowDim
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import HIGHEST, LOWEST, REDUCERS, reducer_identity
from hlotools.ir.patterns import binary_reducer_opcode
from hlotools.ir.types import ElementType
from hlotools.ir.xla_reduce import (
    Stage,
    init_applications,
    keeps_elements,
    reduce_offloaded_to_ynn,
    reduce_stages,
    window_keeps_operand,
)

Array = np.ndarray
_SEQUENTIAL_MAX = 2048


def simple_reducer(comp: Computation) -> str | None:
    """The opcode of a reducer `f(a, b) = op(a, b)` (either operand order) that numpy's
    ufuncs reduce, else None."""
    op = binary_reducer_opcode(comp)
    return op if op in REDUCERS else None


def _ufunc(op: str, et: ElementType) -> np.ufunc:
    r = REDUCERS[op]
    return getattr(np, r.pred_ufunc if et.kind == "pred" else r.ufunc)  # type: ignore[no-any-return]


def identity_value(op: str, et: ElementType) -> Any:
    """The identity of a simple reducer in the compute dtype (used to pad windows). Float add
    pads with +0, not the exact -0: a window of -0 elements beside padding sums to +0 here."""
    if et.kind == "pred":
        return reducer_identity(op, "pred", 1)
    dt = compute_dtype(et)
    value = reducer_identity(op, et.kind, 8 * dt.itemsize)
    return dt.type(0) if value == 0 else dt.type(value)


def _storage_identity(op: str, et: ElementType) -> Array:
    """identity_value rounded to `et`; types without infinities (f8 *fn) use their extremes."""
    v = finish(identity_value(op, et), et)
    if REDUCERS[op].floating in (LOWEST, HIGHEST) and np.isnan(v.astype(np.float32)):
        fi = finfo(v.dtype)
        v = np.asarray(fi.min if op == "maximum" else fi.max).astype(et.dtype)
    return v


def _compute(x: Array, et: ElementType) -> Array:
    dt = compute_dtype(et) if et.kind != "pred" else np.dtype(np.bool_)
    return x if x.dtype == dt else x.astype(dt)


# ------------------------------------------------------------------------------ fold

def _rounds_per_step(et: ElementType) -> bool:
    return et.kind == "float" and et.bits < 32


def tree_reduce(op: str, x: Array, init: Array, et: ElementType) -> Array:
    """Reduce the last axis with a simple reducer, pairwise, rounding every level to `et`
    (each reducer application rounds, as in the HLO); then op(init, total)."""
    fn = _ufunc(op, et)
    k = x.shape[-1]
    if k == 0:
        return np.broadcast_to(init, x.shape[:-1]).astype(et.dtype)
    while k > 1:
        half = k // 2
        r = finish(fn(_compute(x[..., 0:2 * half:2], et), _compute(x[..., 1:2 * half:2], et)), et)
        x = np.concatenate([r, x[..., -1:]], axis=-1) if k % 2 else r
        k = half + k % 2
    return finish(fn(_compute(np.asarray(init), et), _compute(x[..., 0], et)), et)


def first_nan_wins(op: str, r: Array, values: Any, init: Array, et: ElementType) -> Array:
    """A float add/multiply/maximum/minimum reduction whose result is NaN gives the first NaN
    of the fold (the init value's, else the first along the reduced elements' order), quieted:
    what a sequential fold gives (x86 and maximum/minimum keep acc's NaN first), the LLVM
    backend's answer on every CPU (emit_reduce.lane_fold). numpy's reduction loops pick any.
    `values()` gives the reduced elements along the last axis, in fold order."""
    if et.kind != "float" or REDUCERS[op].floating is None:
        return r
    r = np.asarray(r)
    nan = np.isnan(r)
    if not np.any(nan):
        return r
    init_c = _compute(np.asarray(init), et)
    if np.isnan(init_c):
        return np.where(nan, quiet_nan(init_c), r)
    x = _compute(np.asarray(values()), et)
    first = np.take_along_axis(x, np.argmax(np.isnan(x), axis=-1)[..., None], axis=-1)[..., 0]
    return np.where(nan & np.isnan(first), quiet_nan(first), r)  # inf - inf: no NaN operand


def _reduced_last(x: Array, dims: tuple[int, ...]) -> Array:
    """x with the reduced dims moved last and merged (row-major: the fold's order)."""
    keep = [d for d in range(x.ndim) if d not in dims]
    return merge_trailing(np.transpose(x, keep + list(dims)), len(keep))


def fold_last_axis(ev: Any, comp: Computation, arrays: list[Array], inits: list[Array]) -> list[Array]:
    """Reduce the last axis of each array with `comp` (2N scalar params -> N results),
    pairwise, then combine with the init values once: f(init, total)."""
    vals = arrays
    k = vals[0].shape[-1]
    lead = vals[0].shape[:-1]
    if k == 0:
        return [np.broadcast_to(i, lead) for i in inits]
    if k <= _SEQUENTIAL_MAX:
        accs = [np.broadcast_to(i, lead) for i in inits]
        for j in range(k):
            accs = ev.apply(comp, accs + [v[..., j] for v in vals])
        return accs
    while k > 1:
        half = k // 2
        a = [v[..., 0:2 * half:2] for v in vals]
        b = [v[..., 1:2 * half:2] for v in vals]
        r = ev.apply(comp, a + b)
        if k % 2:
            r = [np.concatenate([ri, v[..., -1:]], axis=-1) for ri, v in zip(r, vals)]
        vals = r
        k = half + k % 2
    totals = [v[..., 0] for v in vals]
    return ev.apply(comp, [np.broadcast_to(i, lead) for i in inits] + totals)


# ---------------------------------------------------------------------------- reduce

@kernel("reduce")
def reduce(inst: Instruction, args: list, ev: Any) -> Any:
    """Like reduce_window: a ufunc where the reducer is a known op and the type needs no per-step
    rounding, else the reduced dims are moved last and folded with the reducer computation."""
    n = len(args) // 2
    inputs = [np.asarray(a) for a in args[:n]]
    inits = [np.asarray(a) for a in args[n:]]
    dims = tuple(int(d) for d in inst.attrs.get("dimensions", ()))
    comp = inst.attrs.get("to_apply")
    if not isinstance(comp, Computation):
        raise HloRuntimeError("reduce needs to_apply")
    et = inst.operands[0].shape.element_type
    assert et is not None
    xla = semantics.xla_cpu()
    if xla and keeps_elements(inputs[0].shape, dims):  # algsimp: a reshape, init unused
        outs = [x.reshape(s.dims) for x, s in zip(inputs, inst.shape.leaves())]
        return tuple(outs) if inst.shape.is_tuple else outs[0]
    op = simple_reducer(comp) if n == 1 else None
    if xla and n == 1 and (op is None or _rounds_per_step(et)) and not reduce_offloaded_to_ynn(inst):
        with np.errstate(all="ignore"):
            r = xla_tree_reduce(ev, comp, inputs[0], inits[0], dims, et, reduce_stages(inst))
        return (r,) if inst.shape.is_tuple else r  # a reducer may return a 1-tuple
    if op is not None and not _rounds_per_step(et):
        with np.errstate(all="ignore"):
            x = _compute(inputs[0], et)
            r = _ufunc(op, et).reduce(x, axis=dims, initial=_compute(inits[0], et)[()])
            r = first_nan_wins(op, r, lambda: _reduced_last(x, dims), inits[0], et)
            if xla:
                r = _extra_inits(op, r, inits[0], init_applications(inst), et)
        return finish(r, et)
    keep = [d for d in range(inputs[0].ndim) if d not in dims]
    moved = []
    for x in inputs:
        t = np.transpose(x, keep + list(dims))
        moved.append(merge_trailing(t, len(keep)))
    with np.errstate(all="ignore"):
        if op is not None:
            return finish(first_nan_wins(op, tree_reduce(op, moved[0], inits[0], et), lambda: moved[0],
                                         inits[0], et), et)
        out = fold_last_axis(ev, comp, moved, inits)
    return tuple(out) if inst.shape.is_tuple else out[0]


def _extra_inits(op: str, r: Array, init: Array, count: int, et: ElementType) -> Array:
    """r combined with init count - 1 more times: XLA CPU's tree applies init once per window
    (ir/xla_reduce.py; count is 1 where YNNPACK takes the reduce); add/multiply/xor are the
    reducers where that changes the value when init is not their identity (and/or/maximum/
    minimum are idempotent)."""
    if count <= 1 or REDUCERS[op].idempotent:
        return r
    fn, i = _ufunc(op, et), _compute(init, et)
    for _ in range(count - 1):
        r = fn(r, i)
    return r


def _stage_fold(ev: Any, comp: Computation, x: Array, st: Stage, init: Array, et: ElementType) -> Array:
    """One reduce-window of XLA CPU's tree: each window folds its real elements in row-major
    order starting from init (padding is skipped), with the reducer as XLA calls it."""
    pads = [(lo, o * w - n - lo) for n, w, lo, o in zip(st.dims, st.window, st.pad_low, st.out)]
    xp, valid = np.pad(x, pads), np.pad(np.ones(x.shape, np.bool_), pads)
    split = [v for o, w in zip(st.out, st.window) for v in (o, w)]
    rank = x.ndim
    perm = [2 * d for d in range(rank)] + [2 * d + 1 for d in range(rank)]
    xp = merge_trailing(xp.reshape(split).transpose(perm), rank)
    valid = merge_trailing(valid.reshape(split).transpose(perm), rank)
    acc = np.broadcast_to(init, st.out)
    for k in range(xp.shape[-1]):
        acc = np.where(valid[..., k], _apply(ev, comp, acc, xp[..., k], et), acc)
    return acc


def _apply(ev: Any, comp: Computation, acc: Array, x: Array, et: ElementType) -> Array:
    op = simple_reducer(comp)
    if op is None:
        return np.asarray(ev.apply(comp, [acc, x])[0])
    return finish(_ufunc(op, et)(_compute(acc, et), _compute(x, et)), et)


def xla_tree_reduce(ev: Any, comp: Computation, x: Array, init: Array, dims: tuple[int, ...],
                    et: ElementType, stages: list[Stage]) -> Array:
    """A single-input reduce as XLA CPU runs it (ir/xla_reduce.py): the tree's 32-wide
    reduce-windows (`stages`: none where YNNPACK takes the reduce), each rounding per step,
    then one sequential fold from init."""
    for st in stages:
        x = _stage_fold(ev, comp, x, st, init, et)
    t = _reduced_last(x, tuple(sorted(dims)))
    acc = np.broadcast_to(init, t.shape[:-1])
    for k in range(t.shape[-1]):
        acc = _apply(ev, comp, acc, t[..., k], et)
    return np.asarray(acc).astype(et.dtype)


# ---------------------------------------------------------------------- reduce-window

def _window_dims(window: Window | None, rank: int) -> tuple[WindowDim, ...]:
    if window is None or not window.dims:
        return tuple(WindowDim(1) for _ in range(rank))
    if len(window.dims) != rank:
        raise HloRuntimeError(f"window has {len(window.dims)} dims, operand rank is {rank}")
    return window.dims


def _windows(x: Array, wd: tuple[WindowDim, ...], fill: Any) -> Array:
    """All windows as an array of shape out_dims + (K,) (padding/holes hold `fill`)."""
    config = [(d.padding_low, d.padding_high, d.base_dilation - 1) for d in wd]
    padded = pad_array(x, fill, config)
    span = [(d.size - 1) * d.window_dilation + 1 for d in wd]
    out_dims = [max((p - s) // d.stride + 1, 0) if p >= s else 0
                for p, s, d in zip(padded.shape, span, wd)]
    if any(o == 0 for o in out_dims) or x.ndim == 0:
        k = int(np.prod([d.size for d in wd]))
        return np.full(out_dims + [k], fill, dtype=x.dtype) if x.ndim else padded.reshape(1)
    view = sliding_window_view(padded, span)
    rank = x.ndim
    index = tuple(slice(None, None, d.stride) for d in wd) + tuple(
        slice(None, None, d.window_dilation) for d in wd)
    view = view[index][tuple(slice(0, o) for o in out_dims)]
    return view.reshape(tuple(out_dims) + (-1,)) if rank else view


@kernel("reduce-window")
def reduce_window(inst: Instruction, args: list, ev: Any) -> Any:
    """Three speeds: a numpy ufunc for add/max/... reducers in wide types, a pairwise tree for
    floats narrower than 32 bits (rounded at each step, as each reducer call rounds), and the
    reducer computation applied window slot by window slot (padding slots masked out) for
    anything else, including variadic reducers."""
    n = len(args) // 2
    inputs = [np.asarray(a) for a in args[:n]]
    inits = [np.asarray(a) for a in args[n:]]
    comp = inst.attrs.get("to_apply")
    if not isinstance(comp, Computation):
        raise HloRuntimeError("reduce-window needs to_apply")
    if semantics.xla_cpu() and window_keeps_operand(inputs[0].ndim):  # XLA: the operand, no init
        outs = [x.astype(s.dtype) for x, s in zip(inputs, inst.shape.leaves())]
        return tuple(outs) if inst.shape.is_tuple else outs[0]
    wd = _window_dims(inst.attrs.get("window"), inputs[0].ndim)
    et = inst.operands[0].shape.element_type
    assert et is not None
    op = simple_reducer(comp) if n == 1 else None
    with np.errstate(all="ignore"):
        if op is not None and not _rounds_per_step(et):
            x = _compute(inputs[0], et)
            w = _windows(x, wd, identity_value(op, et))
            r = _ufunc(op, et).reduce(w, axis=-1, initial=_compute(inits[0], et)[()])
            return finish(first_nan_wins(op, r, lambda: w, inits[0], et), et)
        if op is not None:
            w = _windows(inputs[0], wd, _storage_identity(op, et))
            return finish(first_nan_wins(op, tree_reduce(op, w, inits[0], et), lambda: w, inits[0], et), et)
        valid = _windows(np.ones(inputs[0].shape, np.bool_), wd, False)
        ws = [_windows(x, wd, np.zeros((), x.dtype)) for x in inputs]
        accs = [np.broadcast_to(i, valid.shape[:-1]) for i in inits]
        for k in range(valid.shape[-1]):
            m = valid[..., k]
            if not m.any():
                continue
            cand = ev.apply(comp, accs + [w[..., k] for w in ws])
            accs = [np.where(m, c, a) for c, a in zip(cand, accs)]
    outs = [np.asarray(a).astype(s.dtype) for a, s in zip(accs, inst.shape.leaves())]
    return tuple(outs) if inst.shape.is_tuple else outs[0]


# ----------------------------------------------------------------- select-and-scatter

@kernel("select-and-scatter")
def select_and_scatter(inst: Instruction, args: list, ev: Any) -> Array:
    """Per source position: pick the window element `select` prefers (first valid element,
    replaced by a later one e whenever select(current, e) is false), then combine the source
    value into the output there with `scatter`; other positions keep init."""
    operand, source, init = (np.asarray(a) for a in args)
    select, scatter = inst.attrs.get("select"), inst.attrs.get("scatter")
    if not isinstance(select, Computation) or not isinstance(scatter, Computation):
        raise HloRuntimeError("select-and-scatter needs select and scatter computations")
    wd = _window_dims(inst.attrs.get("window"), operand.ndim)
    flat_index = np.arange(operand.size, dtype=np.int64).reshape(operand.shape)
    vals = _windows(operand, wd, np.zeros((), operand.dtype))
    idxs = _windows(flat_index, wd, -1)
    if vals.shape[:-1] != source.shape:
        raise HloRuntimeError(f"source dims {list(source.shape)} do not match the window count "
                              f"{list(vals.shape[:-1])}")
    with np.errstate(all="ignore"):
        sel_val = vals[..., 0]
        sel_idx = np.full(source.shape, -1, np.int64)
        for k in range(vals.shape[-1]):
            v, i = vals[..., k], idxs[..., k]
            valid = i >= 0
            has = sel_idx >= 0
            keep = ev.apply(select, [sel_val, v])[0].astype(bool)
            take = valid & (~has | ~keep)
            sel_val = np.where(take, v, sel_val)
            sel_idx = np.where(take, i, sel_idx)
        out = np.full(operand.size, init, dtype=operand.dtype)
        chosen = sel_idx >= 0
        targets = sel_idx[chosen]
        values = source[chosen]
        _combine_in_rounds(ev, scatter, out, targets, values)
    return out.reshape(operand.shape)


def _combine_in_rounds(ev: Any, comp: Computation, out: Array, targets: Array, values: Array) -> None:
    """out[t] = comp(out[t], v) for each (t, v) in order; all first occurrences of the targets
    at once, then all second occurrences, ... (keeps each target's order exact)."""
    while targets.size:
        uniq, first = np.unique(targets, return_index=True)
        out[uniq] = ev.apply(comp, [out[uniq], values[first]])[0]
        rest = np.ones(targets.size, bool)
        rest[first] = False
        targets, values = targets[rest], values[rest]
