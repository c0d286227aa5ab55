"""Signatures of called computations, as XLA's HloVerifier checks them.

Each check returns None or a one-line message; verifier.py adds the instruction, computation
and location. Shapes are compared ignoring layouts.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from hlotools.ir.attributes import ShapeList
from hlotools.ir.computation import Computation
from hlotools.ir.dispatch import Table
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.shape_inference_common import PRED_SCALAR, same_dims_type, shape_text
from hlotools.ir.types import ElementType

Check = Callable[[Instruction], "str | None"]
CALL_CHECKS: Table[Check] = Table("called-computation check")
_check = CALL_CHECKS.register


def _comp(inst: Instruction, key: str) -> Computation | None:
    c = inst.attrs.get(key)
    return c if isinstance(c, Computation) else None


def _missing(key: str) -> str:
    return f"missing required attribute '{key}' (a computation)"


def _params(comp: Computation) -> list[Shape]:
    return [p.shape for p in comp.parameters if p is not None]


def _root(comp: Computation) -> Shape | None:
    return comp.root.shape if comp.root is not None else None


def _scalar(et: ElementType | None) -> Shape:
    assert et is not None
    return Shape.array(et, ())


def _sig(comp: Computation) -> str:
    params = ", ".join(shape_text(s) for s in _params(comp))
    return f"({params}) -> {shape_text(_root(comp))}"


def _expect_signature(comp: Computation, what: str, params: Sequence[Shape],
                      result: Shape | None) -> str | None:
    """comp must take exactly `params` and (unless result is None) return `result`."""
    got = _params(comp)
    if len(got) != len(params) or not all(same_dims_type(a, b) for a, b in zip(got, params)):
        want = ", ".join(shape_text(s) for s in params)
        return f"{what} %{comp.name} must take ({want}), but its signature is {_sig(comp)}"
    root = _root(comp)
    if result is not None and (root is None or not same_dims_type(root, result)):
        return f"{what} %{comp.name} must return {shape_text(result)}, but its signature is " \
               f"{_sig(comp)}"
    return None


def _reducer(comp: Computation, what: str, accumulators: Sequence[Shape],
             inputs: Sequence[Shape]) -> str | None:
    """A reducer takes N accumulators then N inputs (scalars) and returns the N accumulators
    (a tuple when N > 1; XLA also accepts a 1-tuple for N == 1)."""
    root = _root(comp)
    one_tuple = root is not None and root.is_tuple
    result = accumulators[0] if len(accumulators) == 1 and not one_tuple \
        else Shape.tuple_of(list(accumulators))
    return _expect_signature(comp, what, [*accumulators, *inputs], result)


def _operand_shapes(inst: Instruction, lo: int = 0, hi: int | None = None) -> list[Shape]:
    return [op.shape for op in inst.operands[lo:hi]]


@_check("reduce", "reduce-window")
def check_reduce(inst: Instruction) -> str | None:
    comp = _comp(inst, "to_apply")
    if comp is None:
        return _missing("to_apply")
    n = len(inst.operands) // 2
    inits = [_scalar(s.element_type) for s in _operand_shapes(inst, n)]
    inputs = [_scalar(s.element_type) for s in _operand_shapes(inst, 0, n)]
    return _reducer(comp, "to_apply", inits, inputs)


@_check("all-reduce", "all-reduce-start", "reduce-scatter")
def check_all_reduce(inst: Instruction) -> str | None:
    comp = _comp(inst, "to_apply")
    if comp is None:
        return _missing("to_apply")
    for s in _operand_shapes(inst):
        leaf = s.leaves()[0]
        if leaf.is_array:
            scalar = _scalar(leaf.element_type)
            err = _expect_signature(comp, "to_apply", [scalar, scalar], scalar)
            if err:
                return err
    return None


@_check("scatter")
def check_scatter(inst: Instruction) -> str | None:
    comp = _comp(inst, "to_apply")
    if comp is None:
        return _missing("to_apply")
    n = len(inst.operands) // 2
    accs = [_scalar(s.element_type) for s in _operand_shapes(inst, 0, n)]
    ups = [_scalar(s.element_type) for s in _operand_shapes(inst, n + 1)]
    return _reducer(comp, "to_apply", accs, ups)


@_check("select-and-scatter")
def check_select_and_scatter(inst: Instruction) -> str | None:
    x = inst.operands[0].shape
    src = inst.operands[1].shape
    sel, sc = _comp(inst, "select"), _comp(inst, "scatter")
    if sel is None or sc is None:
        return _missing("select" if sel is None else "scatter")
    if sel is not None:
        t = _scalar(x.element_type)
        err = _expect_signature(sel, "select", [t, t], PRED_SCALAR)
        if err:
            return err
    if sc is not None:
        t = _scalar(src.element_type)
        return _expect_signature(sc, "scatter", [t, t], t)
    return None


@_check("sort")
def check_sort(inst: Instruction) -> str | None:
    comp = _comp(inst, "to_apply")
    if comp is None:
        return _missing("to_apply")
    params: list[Shape] = []
    for s in _operand_shapes(inst):
        params += [_scalar(s.element_type)] * 2
    return _expect_signature(comp, "comparator to_apply", params, PRED_SCALAR)


@_check("map")
def check_map(inst: Instruction) -> str | None:
    comp = _comp(inst, "to_apply")
    if comp is None:
        return _missing("to_apply")
    params = [_scalar(s.element_type) for s in _operand_shapes(inst)]
    return _expect_signature(comp, "to_apply", params, None)


@_check("while")
def check_while(inst: Instruction) -> str | None:
    init = inst.operands[0].shape
    cond, body = _comp(inst, "condition"), _comp(inst, "body")
    if cond is None or body is None:
        return _missing("condition" if cond is None else "body")
    if cond is not None:
        err = _expect_signature(cond, "condition", [init], PRED_SCALAR)
        if err:
            return err
    if body is not None:
        return _expect_signature(body, "body", [init], init)
    return None


@_check("conditional")
def check_conditional(inst: Instruction) -> str | None:
    if "branch_computations" in inst.attrs:
        branches = list(inst.attrs["branch_computations"])
        index = inst.operands[0].shape
        if index.element_type is not None and index.element_type.kind == "pred" and len(branches) != 2:
            return "a pred branch index needs exactly 2 branch computations"
    else:
        branches = [_comp(inst, "true_computation"), _comp(inst, "false_computation")]
    if any(b is None for b in branches):
        return None
    if len(inst.operands) != len(branches) + 1:
        return f"expects {len(branches) + 1} operands (the index and one per branch), got " \
               f"{len(inst.operands)}"
    result = inst.shape
    for i, b in enumerate(branches):
        assert b is not None
        err = _expect_signature(b, f"branch {i}", [inst.operands[i + 1].shape], result)
        if err:
            return err
    return None


@_check("call", "fusion", "async-start")
def check_call(inst: Instruction) -> str | None:
    key = "to_apply" if inst.opcode == "call" else "calls"
    comp = _comp(inst, key)
    if comp is None:
        return _missing(key)
    params = _params(comp)
    ops = _operand_shapes(inst)
    if inst.opcode == "async-start" and len(ops) < len(params):
        params = params[:len(ops)]  # late binding: async-update passes the rest
    if len(params) != len(ops):
        return f"%{comp.name} takes {len(params)} parameters but the {inst.opcode} has " \
               f"{len(ops)} operands"
    for i, (p, o) in enumerate(zip(params, ops)):
        if not same_dims_type(p, o):
            return f"shape mismatch between parameter number {i} ({shape_text(p)}) of " \
                   f"%{comp.name} and its operand ({shape_text(o)})"
    if inst.opcode == "fusion":
        return _check_fused_users(comp)
    if inst.opcode == "async-start":
        return _check_async_computation(comp, inst)
    return None


def _check_fused_users(comp: Computation) -> str | None:
    """XLA: every non-root instruction of a fused computation must have users."""
    for i in comp.instructions:
        if i is not comp.root and not i.users:
            return f"non-root instruction %{i.name} in fused computation %{comp.name} must have users"
    return None


def _check_async_computation(comp: Computation, start: Instruction) -> str | None:
    """XLA (VerifyAsyncComputation): an async-wrapped computation on the main thread holds only
    the wrapped root and its parameters, unless it is a collectives group (its async-start has
    the `_collectives_group` frontend attribute) or an async barrier (parameters and
    get-tuple-elements feeding the root)."""
    if comp.execution_thread not in (None, "main") or _is_collectives_group(start):
        return None
    extra = [i for i in comp.instructions if i is not comp.root and i.opcode != "parameter"]
    if all(i.opcode == "get-tuple-element" for i in extra):
        return None
    return f"asynchronous computation %{comp.name} expected to contain only the root and " \
           f"parameter instructions (found %{extra[0].name})"


_COLLECTIVES_GROUP = re.compile(r"[{,\s]_collectives_group\s*=")


def _is_collectives_group(start: Instruction) -> bool:
    """The async-start carries frontend_attributes={_collectives_group=...} (kept as text)."""
    attrs = start.attrs.get("frontend_attributes")
    return attrs is not None and _COLLECTIVES_GROUP.search(str(attrs)) is not None


@_check("custom-call")
def check_operand_layout_constraints(inst: Instruction) -> str | None:
    """operand_layout_constraints={S0, S1, ...}: one shape per operand, compatible with it."""
    value = inst.attrs.get("operand_layout_constraints")
    if value is None:
        return None
    if not isinstance(value, ShapeList):  # the parser decodes it; a pass set something else
        return f"cannot read operand_layout_constraints {value}"
    shapes = value.shapes
    if len(shapes) != len(inst.operands):
        return f"operand_layout_constraints has {len(shapes)} shapes for {len(inst.operands)} operands"
    for i, (c, op) in enumerate(zip(shapes, inst.operands)):
        if not same_dims_type(c, op.shape):
            return f"operand_layout_constraints shape {i} {shape_text(c)} is not compatible with " \
                   f"operand {shape_text(op.shape)}"
    return None
