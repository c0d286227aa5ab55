"""The evaluator: runs computations instruction by instruction, dispatching on the opcode
through registry.KERNELS (no opcode switch here).

Values: np.ndarray for arrays (0-d for scalars), tuple for tuples, None for tokens. Each
computation gets a cached plan (kernel, operand slots, and the slots whose last use is this
instruction, so big intermediates are freed early inside long while loops).

`apply` runs a scalar computation (a reducer, map function, comparator, combiner) on whole
arrays at once ("batched"): elementwise kernels ignore dims, so this is exact as long as the
computation is elementwise-only; otherwise it falls back to one call per element.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hlotools.errors import HloError, HloRuntimeError, HloUnsupportedError
from hlotools.interpreter.numeric import contiguous
from hlotools.interpreter.registry import KERNELS, UNSUPPORTED, Kernel
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import OPCODES
from hlotools.ir.shape import Shape

# Shape-only ops that are identities when their result is a scalar (inside scalar computations).
_SCALAR_IDENTITIES = frozenset({"broadcast", "reshape", "bitcast", "copy", "transpose"})
# Besides elementwise ops, these run on a batch of scalars as on one: the pass-through ops
# (not add-dependency: its token operand is no batchable value), sources, calls and fusions.
_BATCH_SAFE_OPCODES = (frozenset(n for n, i in OPCODES.items() if i.passthrough) - {"add-dependency"}
                       | {"parameter", "constant", "call", "fusion"} | _SCALAR_IDENTITIES)


# Values these produce are structurally derived from checked values: no result check needed.
_UNCHECKED = frozenset({"parameter", "constant", "tuple", "get-tuple-element"})


@dataclass
class _Step:
    inst: Instruction
    kernel: Kernel | None
    operands: tuple[int, ...]
    frees: tuple[int, ...]
    check: int  # 0: none, 1: static array (dtype, dims), 2: full structural check
    dtype: np.dtype | None = None
    dims: tuple[int, ...] = ()


@dataclass
class _Plan:
    steps: list[_Step]
    root: int


class Evaluator:
    """Evaluates computations of one module; `call(computation, args)` is re-entrant."""

    def __init__(self, module: Module | None = None, *, max_while_iterations: int | None = None) -> None:
        self.module = module
        self.max_while_iterations = max_while_iterations
        self.params: Sequence[Any] = ()
        self.batched = False
        self._plans: dict[int, _Plan] = {}
        self._batch_safe: dict[int, bool] = {}
        self._depth = 0

    # -- running ------------------------------------------------------------------
    def call(self, computation: Computation, args: Sequence[Any]) -> Any:
        plan = self._plan(computation)
        saved = self.params
        self.params = args
        env: list[Any] = [None] * len(plan.steps)
        check = not self.batched
        outermost = self._depth == 0
        self._depth += 1
        errstate = np.errstate(all="ignore")
        if outermost:
            errstate.__enter__()
        try:
            for i, step in enumerate(plan.steps):
                vals = [env[j] for j in step.operands]
                env[i] = self._run(step, vals, check)
                for j in step.frees:
                    env[j] = None
            return env[plan.root]
        finally:
            self.params = saved
            self._depth -= 1
            if outermost:
                errstate.__exit__(None, None, None)

    def _run(self, step: _Step, vals: list[Any], check: bool) -> Any:
        inst = step.inst
        if step.kernel is None:
            reason = UNSUPPORTED.get(inst.opcode, "no interpreter kernel")
            raise self._locate(HloUnsupportedError(f"{inst.opcode} is not supported by the interpreter: {reason}"),
                               inst)
        if not check and inst.opcode in _SCALAR_IDENTITIES and not inst.shape.dims:
            v = vals[0]
            if isinstance(v, np.ndarray) and inst.shape.is_array and v.dtype != inst.shape.dtype:
                return contiguous(v).view(inst.shape.dtype)  # a bitcast between element types
            return v
        try:
            out = step.kernel(inst, vals, self)
        except HloError as e:  # kernels raise nothing else (registry._guarded)
            # the original of a guarded numpy failure stays chained for --debug
            raise self._locate(e, inst) from e.__cause__
        if isinstance(out, np.generic):
            out = np.asarray(out)
        if check and step.check:
            if step.check == 1:
                if not (isinstance(out, np.ndarray) and out.dtype == step.dtype and out.shape == step.dims):
                    _check_value(inst, out)
            else:
                _check_value(inst, out)
        return out

    @staticmethod
    def _locate(e: HloError, inst: Instruction) -> HloError:
        """Name the instruction and its place, once (the innermost instruction wins)."""
        if e.line is None:
            e.line = inst.line or None
            e.column = inst.column or None
            if f"%{inst.name}" not in e.message:
                e.message = f"{inst.opcode} %{inst.name}: {e.message}"
                e.args = (e.message,)
        return e

    def _plan(self, comp: Computation) -> _Plan:
        plan = self._plans.get(id(comp))
        if plan is None:
            plan = _make_plan(comp)
            self._plans[id(comp)] = plan
        return plan

    # -- scalar computations on whole arrays ----------------------------------------------
    def apply(self, comp: Computation, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run the scalar computation `comp` elementwise over same-shaped (or broadcastable)
        arrays; returns the result leaves (one array per tuple element of the root)."""
        arrays = [np.asarray(a) for a in args]
        shape = np.broadcast_shapes(*[a.shape for a in arrays]) if arrays else ()
        if self.is_batch_safe(comp):
            saved = self.batched
            self.batched = True
            try:
                out = self.call(comp, arrays)
            finally:
                self.batched = saved
            leaves = list(out) if isinstance(out, tuple) else [out]
            return [_fit(np.asarray(v), shape, s) for v, s in zip(leaves, comp.result_shape.leaves())]
        return self._apply_per_element(comp, arrays, shape)

    def _apply_per_element(self, comp: Computation, arrays: list[np.ndarray],
                           shape: tuple[int, ...]) -> list[np.ndarray]:
        leaves = comp.result_shape.leaves()
        outs = [np.empty(shape, s.dtype) for s in leaves]
        full = [np.broadcast_to(a, shape) for a in arrays]
        for idx in np.ndindex(*shape):
            r = self.call(comp, [a[idx] for a in full])
            rs = list(r) if isinstance(r, tuple) else [r]
            for o, v in zip(outs, rs):
                o[idx] = v
        return outs

    def is_batch_safe(self, comp: Computation) -> bool:
        safe = self._batch_safe.get(id(comp))
        if safe is None:
            safe = all(_batch_safe_inst(i) and all(self.is_batch_safe(c) for c in i.called_computations())
                       for i in comp.instructions)
            self._batch_safe[id(comp)] = safe
        return safe


def _batch_safe_inst(inst: Instruction) -> bool:
    if any(leaf.dims for leaf in inst.shape.leaves()):
        return False
    return inst.opcode in _BATCH_SAFE_OPCODES or inst.info.is_elementwise


def _fit(v: np.ndarray, shape: tuple[int, ...], leaf: Shape) -> np.ndarray:
    if v.dtype != leaf.dtype:
        v = v.astype(leaf.dtype)
    return v if v.shape == shape else np.broadcast_to(v, shape)


def _make_plan(comp: Computation) -> _Plan:
    order = comp.instructions
    slot = {id(inst): i for i, inst in enumerate(order)}
    last_use: dict[int, int] = {}
    for i, inst in enumerate(order):
        for op in inst.operands:
            last_use[slot[id(op)]] = i
    root = slot[id(comp.root)] if comp.root is not None else len(order) - 1
    frees: list[list[int]] = [[] for _ in order]
    for j, i in last_use.items():
        if j != root:
            frees[i].append(j)
    steps = []
    for i, inst in enumerate(order):
        step = _Step(inst, KERNELS.get(inst.opcode), tuple(slot[id(op)] for op in inst.operands),
                     tuple(frees[i]), 0 if inst.opcode in _UNCHECKED else 2)
        shape = inst.shape
        if step.check and shape.is_array and shape.is_static:
            step.check, step.dtype, step.dims = 1, shape.dtype, shape.dims
        steps.append(step)
    return _Plan(steps, root)


def _check_value(inst: Instruction, out: Any, shape: Shape | None = None) -> None:
    """Catch kernel bugs early: the value must have the instruction's shape and dtype."""
    shape = shape or inst.shape
    if shape.is_tuple:
        subs = shape.tuple_shapes or ()
        if not isinstance(out, tuple) or len(out) != len(subs):
            raise HloRuntimeError(f"internal: {inst.opcode} kernel returned {type(out).__name__}, "
                                  f"expected a tuple {shape}")
        for v, s in zip(out, subs):
            _check_value(inst, v, s)
        return
    if shape.is_token or not shape.is_array:
        return
    if not isinstance(out, np.ndarray) or out.dtype != shape.dtype or (
            out.shape != shape.dims and shape.is_static):
        got = f"{out.dtype}{list(out.shape)}" if isinstance(out, np.ndarray) else type(out).__name__
        raise HloRuntimeError(f"internal: {inst.opcode} kernel returned {got}, expected {shape}")


# ------------------------------------------------------------------------ entry points

def flatten_value(value: Any, shape: Shape) -> list[np.ndarray]:
    """Leaves depth-first; a token leaf becomes a 0-d bool array (it carries no data)."""
    if shape.is_tuple:
        out: list[np.ndarray] = []
        for v, s in zip(value, shape.tuple_shapes or ()):
            out.extend(flatten_value(v, s))
        return out
    if value is None:
        return [np.zeros((), np.bool_)]
    return [np.asarray(value)]


def _argument(arg: Any, shape: Shape, where: str) -> Any:
    if shape.is_token:
        return None
    a = np.asarray(arg)
    dt = shape.dtype
    if a.dtype != dt and a.dtype.kind == "V" and a.dtype.itemsize == dt.itemsize:
        a = a.view(dt)  # bf16/f8/int4 stored as raw bytes in .npz files
    if a.dtype != dt:
        raise HloRuntimeError(f"{where}: expected {shape.to_text(False)}, got dtype {a.dtype}")
    if a.shape != shape.dims:
        raise HloRuntimeError(f"{where}: expected {shape.to_text(False)}, got dims {list(a.shape)}")
    return a


def unflatten_arguments(comp: Computation, args: Sequence[Any]) -> list[Any]:
    """Rebuild (tuple) parameter values from flattened leaves, checking types and dims."""
    leaves = [leaf for p in comp.parameters for leaf in p.shape.leaves()]
    if len(args) != len(leaves):
        raise HloRuntimeError(f"entry computation {comp.name} takes {len(leaves)} argument leaves, "
                              f"got {len(args)}")
    it = iter(range(len(args)))

    def build(shape: Shape) -> Any:
        if shape.is_tuple:
            return tuple(build(s) for s in shape.tuple_shapes or ())
        i = next(it)
        return _argument(args[i], shape, f"argument {i}")

    return [build(p.shape) for p in comp.parameters]


def evaluate(module: Module, args: Sequence[Any], *, max_while_iterations: int | None = None
             ) -> list[np.ndarray]:
    """Run the entry computation on flattened argument leaves; returns flattened result leaves.

    The module runs as given, each op with XLA CPU's numerics; `hlotools.evaluate` runs it as
    XLA CPU's compiler would (its module-level rounding rewrites first:
    passes/xla_cpu_rounding.py)."""
    entry = module.entry
    if entry is None or entry.root is None:
        raise HloRuntimeError(f"module {module.name} has no entry computation")
    params = unflatten_arguments(entry, args)
    ev = Evaluator(module, max_while_iterations=max_while_iterations)
    with np.errstate(all="ignore"):
        out = ev.call(entry, params)
    return flatten_value(out, entry.root.shape)
