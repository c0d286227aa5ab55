"""Deterministic random arguments for `hlo-run --random SEED`.

Floats are N(0, 1), complex numbers have N(0, 1) parts, integers are small (|x| <= 5, so
shifts, divisions and loop counts stay tame), preds are coin flips. Like XLA's
MakeFakeArguments, an integer parameter that ends up as an index (dynamic-slice starts,
gather/scatter indices, conditional branch indices) is drawn within the range that index can take, so the run exercises
the model rather than its clamping. Leaves are generated in order from one generator seeded
with SEED, so the same seed gives the same inputs on every machine.
"""
from __future__ import annotations

import numpy as np

from hlotools.errors import HloRuntimeError
from hlotools.io.arrays import leaf_bytes, parameter_leaves
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape
from hlotools.ir.types import array_bytes_error

SMALL_INT = 5

# Ops an index value flows through unchanged in range (the jax idiom for a negative index is
# select(lt(i, 0), add(i, n), i), so select carries it too).
_TRANSPARENT = {"convert", "reshape", "bitcast", "copy", "broadcast", "transpose", "slice",
                "concatenate", "select", "clamp"}


def _index_bound(user: Instruction, operand_index: int) -> int | None:
    """Exclusive upper bound of values `user` reads as indices from operand `operand_index`."""
    ops = user.operands
    if user.opcode == "dynamic-slice" and operand_index >= 1:
        sizes = user.attrs.get("dynamic_slice_sizes") or user.shape.dims
        d = operand_index - 1
        if d < len(ops[0].shape.dims) and d < len(sizes):
            return ops[0].shape.dims[d] - sizes[d] + 1
    elif user.opcode == "dynamic-update-slice" and operand_index >= 2:
        d = operand_index - 2
        if d < len(ops[0].shape.dims) and d < len(ops[1].shape.dims):
            return ops[0].shape.dims[d] - ops[1].shape.dims[d] + 1
    elif user.opcode == "gather" and operand_index == 1:
        sizes = user.attrs.get("slice_sizes") or ()
        dims = user.attrs.get("start_index_map") or ()
        bounds = [ops[0].shape.dims[d] - sizes[d] + 1 for d in dims
                  if d < len(ops[0].shape.dims) and d < len(sizes)]
        return min(bounds) if bounds else None
    elif user.opcode == "conditional" and operand_index == 0 and user.attrs.get("branch_computations"):
        return len(user.attrs["branch_computations"])  # an s32 branch index; pred ones are coins anyway
    elif user.opcode == "scatter" and operand_index == (len(ops) - 1) // 2:
        dims = user.attrs.get("scatter_dims_to_operand_dims") or ()
        bounds = [ops[0].shape.dims[d] for d in dims if d < len(ops[0].shape.dims)]
        return min(bounds) if bounds else None
    return None


def _uses(inst: Instruction) -> list[tuple[Instruction, int]]:
    return [(u, i) for u in inst.users for i, o in enumerate(u.operands) if o is inst]


def index_bound(param: Instruction) -> int | None:
    """The tightest index range this parameter's value is used with, following plain data flow."""
    best: int | None = None
    seen: set[int] = set()
    work = [param]
    while work:
        inst = work.pop()
        if id(inst) in seen:
            continue
        seen.add(id(inst))
        for user, k in _uses(inst):
            bound = _index_bound(user, k)
            if bound is not None:
                best = max(bound, 1) if best is None else min(best, max(bound, 1))
            elif user.opcode in _TRANSPARENT:
                work.append(user)
            elif user.opcode == "call":
                callee = user.attrs.get("to_apply")
                params = getattr(callee, "parameters", None)
                if params and k < len(params) and params[k] is not None:
                    work.append(params[k])
    return best


def _concrete_dims(shape: Shape) -> tuple[int, ...]:
    return tuple(max(d, 1) if shape.is_dynamic_dim(i) else d for i, d in enumerate(shape.dims))


def random_array(shape: Shape, rng: np.random.Generator, bound: int | None = None) -> np.ndarray:
    et = shape.element_type
    assert et is not None and et.dtype is not None, shape
    dims = _concrete_dims(shape)
    if et.kind == "pred":
        return rng.random(dims) < 0.5
    if et.kind == "float":
        return rng.standard_normal(dims).astype(et.dtype)
    if et.kind == "complex":
        return (rng.standard_normal(dims) + 1j * rng.standard_normal(dims)).astype(et.dtype)
    if et.kind == "signed":
        lo, hi = max(-SMALL_INT, -(2 ** (et.bits - 1))), min(SMALL_INT, 2 ** (et.bits - 1) - 1)
    else:
        lo, hi = 0, min(2 * SMALL_INT, 2 ** et.bits - 1)
    if bound is not None:
        lo, hi = 0, min(bound - 1, 2 ** (et.bits - (1 if et.kind == "signed" else 0)) - 1)
    return rng.integers(lo, hi, size=dims, endpoint=True).astype(et.dtype)


def random_inputs(module: Module, seed: int) -> list[np.ndarray]:
    """One array per non-token parameter leaf, reproducible from `seed`."""
    rng = np.random.default_rng(seed)
    assert module.entry is not None
    params = {p.name: p for p in module.entry.parameters}
    out: list[np.ndarray] = []
    for spec in parameter_leaves(module):
        if spec.is_token:
            continue
        why = array_bytes_error(f"{spec.describe()} ({spec.shape.to_text(False)})", leaf_bytes(spec.shape))
        if why is not None:  # refused before numpy allocates (its float64 draw is twice an f32 array)
            raise HloRuntimeError(why)
        bound = None
        param = params.get(spec.name)
        if param is not None and spec.shape.element_type is not None and spec.shape.element_type.is_integer:
            bound = index_bound(param)
        out.append(random_array(spec.shape, rng, bound))
    return out
