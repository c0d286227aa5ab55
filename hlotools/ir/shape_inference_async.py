"""Shape rules of the async wrappers async-start / async-update / async-done, with late binding.

An async value is ((bound operands...), bound output, context...). Since XLA 2026-08 the
operands and the output may be bound late: an async-start passes a prefix of the wrapped
computation's parameters and writes `()` (or a shorter tuple) for the output it does not bind
yet; each async-update appends operands and may bind more of the output; the async-done
needs every operand bound and returns the wrapped computation's result. The checks and their
order are ShapeVerifier::CheckAsyncOp's (hlo_verifier.cc): the async shape's form, its
elements as prefixes of the wrapped computation's signature, then the operands. The declared
shape is what they admit, so a valid declared shape is the inferred one; the context elements
are backend-defined and not checked. Without a declared shape (hand-built IR) everything
is taken as bound.
"""
from __future__ import annotations

from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.shape_inference_common import (
    fail,
    operand_shape,
    rule,
    same_dims_type,
    shape_text,
    strip_layout,
)


def is_shape_prefix(prefix: Shape, shape: Shape) -> bool:
    """ShapeUtil::IsPrefix, layouts ignored: equal, or `()`, or a tuple whose elements are
    prefixes of the leading elements of `shape`."""
    if same_dims_type(prefix, shape):
        return True
    if prefix.tuple_shapes is None:
        return False
    if not prefix.tuple_shapes:
        return True
    if shape.tuple_shapes is None or len(prefix.tuple_shapes) > len(shape.tuple_shapes):
        return False
    return all(is_shape_prefix(a, b) for a, b in zip(prefix.tuple_shapes, shape.tuple_shapes))


def _wrapped(inst: Instruction) -> Computation | None:
    comp = inst.attrs.get("calls")
    return comp if isinstance(comp, Computation) and comp.root is not None else None


def _wrapped_or_fail(inst: Instruction) -> Computation:
    comp = _wrapped(inst)
    if comp is None:
        raise fail(inst, "called computation 'calls' is unknown or has no root")
    return comp


def _params(comp: Computation) -> Shape:
    return Shape.tuple_of([p.shape for p in comp.parameters if p is not None])


def _result(comp: Computation) -> Shape:
    assert comp.root is not None
    return comp.root.shape


def _form(inst: Instruction, shape: Shape, what: str) -> tuple[Shape, ...]:
    """The elements of an async value ((operands...), output, ...), or XLA's error."""
    ts = shape.tuple_shapes
    if ts is None or len(ts) < 2 or ts[0].tuple_shapes is None:
        raise fail(inst, f"{what} must be a tuple in the form of ((op0_shape, op1_shape, ...), "
                         f"output_shape, ...), found {shape_text(shape)}")
    return ts


def _bound(ts: tuple[Shape, ...]) -> tuple[Shape, ...]:
    operands = ts[0].tuple_shapes
    assert operands is not None
    return operands


def _check_computation_prefix(inst: Instruction, ts: tuple[Shape, ...], comp: Computation) -> None:
    """CheckAsyncOpComputationShapes: what is bound so far is a prefix of the signature."""
    params, result = _params(comp), _result(comp)
    if not is_shape_prefix(ts[0], params):
        raise fail(inst, f"the async shape at index {{0}} {shape_text(ts[0])} must be a prefix of "
                         f"the parameters {shape_text(params)} of %{comp.name}")
    if not is_shape_prefix(ts[1], result):
        raise fail(inst, f"the async shape at index {{1}} {shape_text(ts[1])} must be a prefix of "
                         f"the result {shape_text(result)} of %{comp.name}")


def _check_new_operands(inst: Instruction, bound: tuple[Shape, ...], first: int, skip: int) -> None:
    """Operands `skip`.. of `inst` bind the async shape's operand elements `first`.."""
    for i, op in enumerate(inst.operands[skip:]):
        want, got = bound[first + i], op.shape
        if got is None or not same_dims_type(want, got):
            raise fail(inst, f"operand {skip + i} {shape_text(got)} does not match the async shape "
                             f"at index {{0, {first + i}}} {shape_text(want)}")


@rule("async-start")
def infer_async_start(inst: Instruction) -> Shape:
    comp = _wrapped_or_fail(inst)
    if inst.shape is None:
        ops = [strip_layout(operand_shape(inst, i)) for i in range(len(inst.operands))]
        return Shape.tuple_of([Shape.tuple_of(ops), strip_layout(_result(comp))])
    ts = _form(inst, inst.shape, "the shape")
    _check_computation_prefix(inst, ts, comp)
    bound = _bound(ts)
    if len(inst.operands) != len(bound):
        raise fail(inst, f"expects {len(bound)} operands (the async shape's bound operands), found "
                         f"{len(inst.operands)}")
    _check_new_operands(inst, bound, 0, 0)
    return strip_layout(inst.shape)


@rule("async-update")
def infer_async_update(inst: Instruction) -> Shape:
    prev_shape = strip_layout(operand_shape(inst, 0))
    prev = _form(inst, prev_shape, "the async-start/update operand")
    if inst.shape is None:  # hand-built IR: the operands after the first are appended
        new = [strip_layout(operand_shape(inst, i)) for i in range(1, len(inst.operands))]
        return Shape.tuple_of([Shape.tuple_of([*_bound(prev), *new]), *prev[1:]])
    ts = _form(inst, inst.shape, "the shape")
    comp = _wrapped(inst)
    if comp is not None:
        _check_computation_prefix(inst, ts, comp)
    for i, what in ((0, "parameter"), (1, "result")):
        if not is_shape_prefix(prev[i], ts[i]):
            raise fail(inst, f"the {what} shape {shape_text(prev[i])} of its operand must be a prefix "
                             f"of its own {shape_text(ts[i])}")
    bound, before = _bound(ts), len(_bound(prev))
    if len(inst.operands) - 1 != len(bound) - before:
        raise fail(inst, f"has {len(inst.operands) - 1} new operands, but the shape indicates "
                         f"{len(bound) - before} new bound parameters")
    _check_new_operands(inst, bound, before, 1)
    return strip_layout(inst.shape)


@rule("async-done")
def infer_async_done(inst: Instruction) -> Shape:
    prev = _form(inst, strip_layout(operand_shape(inst, 0)), "the async-start/update operand")
    comp = _wrapped(inst)
    if comp is None:
        return strip_layout(prev[1])
    params = _params(comp)
    if not same_dims_type(prev[0], params):
        raise fail(inst, f"expects the operands of the previous async instruction to be fully "
                         f"bound: {shape_text(prev[0])} of parameters {shape_text(params)}")
    return strip_layout(_result(comp))

