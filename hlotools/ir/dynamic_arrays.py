"""Arrays in and out of a padded module (passes/dynamic_padder.py's entry form); here, below
every runner (interpreter, LLVM backend, hlo-run), so each pads and trims the same way.

In: each argument padded to its bound (valid elements first, as XLA's padder lays them out),
then one s32 size per dynamic dim. Out: each result trimmed to the sizes the module returned
(XLA hands dynamic outputs back compacted the same way: the first prod(sizes) elements,
row-major), after checking every set-dimension-size request against its bound.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hlotools.errors import HloRuntimeError
from hlotools.ir.dynamic import PaddedSignature, static_shape
from hlotools.ir.module import Module

__all__ = ["pad_arguments", "unpad_results"]


def pad_arguments(module: Module, sig: PaddedSignature, args: Sequence[np.ndarray | None],
                  fill: float = 0) -> list[np.ndarray | None]:
    """`args` (leaves of `module`'s entry parameters, at runtime sizes) at their bounds, plus
    the sizes. `fill` is what the padding holds (it must not matter: tests poison it)."""
    assert module.entry is not None
    leaves = [(p.name, leaf) for p in module.entry.parameters for leaf in p.shape.leaves()]
    if len(args) != len(leaves):
        raise HloRuntimeError(f"expected {len(leaves)} argument leaves, got {len(args)}")
    out: list[np.ndarray | None] = []
    for k, ((name, shape), arg) in enumerate(zip(leaves, args)):
        if arg is None or shape.is_static:
            out.append(arg)
            continue
        arg = np.asarray(arg)
        _check_fits(f"parameter {k} '{name}'", shape.dims, shape.dynamic, arg.shape)
        full = np.full(static_shape(shape).dims, fill, dtype=arg.dtype) if fill != 0 else \
            np.zeros(static_shape(shape).dims, dtype=arg.dtype)
        full[tuple(slice(0, n) for n in arg.shape)] = arg
        out.append(full)
    sizes = [np.int32(np.shape(np.asarray(args[d.leaf]))[d.dim]) for d in sig.inputs]
    return out + [np.asarray(s) for s in sizes]


def _check_fits(what: str, bounds: tuple[int, ...], dynamic: tuple[bool, ...], dims: tuple[int, ...]) -> None:
    if len(dims) != len(bounds):
        raise HloRuntimeError(f"{what} has rank {len(bounds)}, given an array of rank {len(dims)}")
    for d, (n, bound, dyn) in enumerate(zip(dims, bounds, dynamic)):
        if dyn and n > bound:
            raise HloRuntimeError(f"{what}: dimension {d} has size {n}, beyond its bound {bound}")
        if not dyn and n != bound:
            raise HloRuntimeError(f"{what}: dimension {d} has size {n}, expected {bound}")


def unpad_results(sig: PaddedSignature, outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The original result's leaves, each cut to its returned sizes."""
    results = [np.asarray(o) for o in outputs[:sig.results]]
    sizes = [int(np.asarray(s)) for s in outputs[sig.results:sig.results + len(sig.outputs)]]
    checks = outputs[sig.results + len(sig.outputs):]
    for (name, bound), got in zip(sig.checks, checks):
        n = int(np.asarray(got))
        if not 0 <= n <= bound:
            raise HloRuntimeError(f"set-dimension-size %{name}: size {n} is outside its bound 0..{bound}")
    cuts: list[list[slice]] = [[slice(None)] * r.ndim for r in results]
    for d, n in zip(sig.outputs, sizes):
        cuts[d.leaf][d.dim] = slice(0, n)
    return [np.ascontiguousarray(r[tuple(c)]) if any(s.stop is not None for s in c) else r
            for r, c in zip(results, cuts)]
