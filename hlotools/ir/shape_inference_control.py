"""Shape rules of control flow, calls, collectives, tokens and sources (async wrappers:
shape_inference_async.py).

Rules that depend on a called computation read its root's shape (callees are parsed before
their callers). Collectives follow XLA's single-program shape semantics; where the result
depends on the replica count (all-gather / reduce-scatter with no replica_groups), the declared
shape is checked for divisibility and trusted.
"""
from __future__ import annotations

import math
import re

from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.shape_inference_common import (
    PRED,
    S32,
    TOKEN_SHAPE,
    U32,
    U32_SCALAR,
    array_operand,
    attr,
    check_dims_in_range,
    declared,
    dims_str,
    fail,
    make,
    operand_shape,
    rule,
    same_dims_type,
    shape_text,
    strip_layout,
)
from hlotools.ir.types import ELEMENT_TYPES


def _root_shape(inst: Instruction, key: str) -> Shape:
    comp = attr(inst, key)
    if isinstance(comp, str) or getattr(comp, "root", None) is None or comp.root.shape is None:
        raise fail(inst, f"called computation '{key}' is unknown or has no root")
    return strip_layout(comp.root.shape)


def _tuple_if_many(shapes: list[Shape]) -> Shape:
    return shapes[0] if len(shapes) == 1 else Shape.tuple_of(shapes)


def _operand_shapes(inst: Instruction) -> list[Shape]:
    return [strip_layout(operand_shape(inst, i)) for i in range(len(inst.operands))]


@rule("parameter", "custom-call", "scan")
def infer_declared(inst: Instruction) -> Shape:
    """Opcodes whose result shape is only known from the text."""
    return declared(inst)


@rule("recv", "infeed")
def infer_recv_or_infeed(inst: Instruction) -> Shape:
    """The data shape comes from the text; the rest is fixed: recv -> (data, u32[], token[]),
    infeed -> (data, token[]), both taking a token."""
    if not operand_shape(inst, 0).is_token:
        raise fail(inst, f"operand 0 must be a token, got {shape_text(operand_shape(inst, 0))}")
    out = declared(inst)
    ts = out.tuple_shapes
    want = "(data, u32[], token[])" if inst.opcode == "recv" else "(data, token[])"
    if ts is None or len(ts) != (3 if inst.opcode == "recv" else 2):
        raise fail(inst, f"result must be {want}, got {shape_text(out)}")
    data = ts[0]
    if inst.opcode == "recv":
        return Shape.tuple_of([data, U32_SCALAR, TOKEN_SHAPE])
    return Shape.tuple_of([data, TOKEN_SHAPE])


@rule("constant")
def infer_constant(inst: Instruction) -> Shape:
    if inst.shape is None and inst.literal is not None:
        return strip_layout(inst.literal.shape)
    return declared(inst)


@rule("rng")
def infer_rng(inst: Instruction) -> Shape:
    out = declared(inst)
    dist = str(attr(inst, "distribution")).lower()
    if dist not in ("rng_uniform", "rng_normal"):
        raise fail(inst, f"unknown distribution {dist}")
    if len(inst.operands) != 2:
        raise fail(inst, f"expects 2 operands, got {len(inst.operands)}")
    for i in range(2):
        p = array_operand(inst, i)
        if p.rank != 0 or p.element_type != out.element_type:
            raise fail(inst, f"parameter {i} must be a scalar of the result type "
                             f"{out.element_type}, got {shape_text(p)}")
    if dist == "rng_normal" and out.element_type is not None and not out.element_type.is_float:
        raise fail(inst, "rng_normal needs a floating point result")
    return out


@rule("rng-bit-generator")
def infer_rng_bit_generator(inst: Instruction) -> Shape:
    state = array_operand(inst, 0, "state")
    algorithm = str(attr(inst, "algorithm")).lower()
    if algorithm not in ("rng_default", "rng_three_fry", "rng_philox"):
        raise fail(inst, f"unknown algorithm {algorithm} (rng_default, rng_three_fry or rng_philox)")
    out = declared(inst)
    if out.tuple_shapes is None or len(out.tuple_shapes) != 2:
        raise fail(inst, f"result must be a (state, bits) tuple, got {shape_text(out)}")
    return Shape.tuple_of([make(state.element_type, state.dims), out.tuple_shapes[1]])


@rule("rng-get-and-update-state")
def infer_rng_state(inst: Instruction) -> Shape:
    return make(ELEMENT_TYPES["u64"], (2,))


@rule("while")
def infer_while(inst: Instruction) -> Shape:
    return strip_layout(operand_shape(inst, 0))


@rule("conditional")
def infer_conditional(inst: Instruction) -> Shape:
    index = array_operand(inst, 0, "branch index")
    if index.rank != 0 or index.element_type not in (PRED, S32):
        raise fail(inst, f"branch index must be pred[] or s32[], got {shape_text(index)}")
    if "branch_computations" in inst.attrs:
        branches = list(inst.attrs["branch_computations"])
    else:
        branches = [attr(inst, "true_computation"), attr(inst, "false_computation")]
    if not branches or any(isinstance(b, str) or b.root is None for b in branches):
        raise fail(inst, "branch computations are missing or unknown")
    return _union_dynamic(strip_layout(branches[0].root.shape),
                          [b.root.shape for b in branches[1:]])


def _union_dynamic(shape: Shape, others: list[Shape]) -> Shape:
    """XLA: a result dimension is dynamic when it is dynamic in any branch."""
    if shape.tuple_shapes is not None:
        return Shape.tuple_of([
            _union_dynamic(s, [o.tuple_shapes[i] for o in others
                               if o.tuple_shapes is not None and i < len(o.tuple_shapes)])
            for i, s in enumerate(shape.tuple_shapes)])
    dyn = list(shape.dynamic or (False,) * shape.rank)
    for o in others:
        for i, d in enumerate(o.dynamic[:shape.rank] if o.rank == shape.rank else ()):
            dyn[i] = dyn[i] or d
    if not any(dyn):
        return shape
    return Shape.array(shape.element_type, shape.dims, None, tuple(dyn)) \
        if shape.element_type is not None else shape


@rule("call")
def infer_call(inst: Instruction) -> Shape:
    return _root_shape(inst, "to_apply")


_FUSION_KINDS = ("kLoop", "kInput", "kOutput", "kCustom")


@rule("fusion")
def infer_fusion(inst: Instruction) -> Shape:
    kind = str(attr(inst, "kind"))
    if kind not in _FUSION_KINDS:
        raise fail(inst, f"unknown fusion kind {kind} (expected one of {', '.join(_FUSION_KINDS)})")
    return _root_shape(inst, "calls")


@rule("map")
def infer_map(inst: Instruction) -> Shape:
    xs = [array_operand(inst, i) for i in range(len(inst.operands))]
    if not xs:
        raise fail(inst, "expects at least one operand")
    for i, x in enumerate(xs):
        if x.dims != xs[0].dims:
            raise fail(inst, f"operand {i} {shape_text(x)} and operand 0 {shape_text(xs[0])} have "
                             "different dimensions")
    dims = inst.attrs.get("dimensions")
    if dims is not None and tuple(dims) != tuple(range(xs[0].rank)):
        raise fail(inst, f"dimensions {dims_str(tuple(dims))} must be all of the operand's "
                         f"dimensions in order (map applies a scalar computation)")
    root = _root_shape(inst, "to_apply")
    if not root.is_array or root.rank != 0:
        raise fail(inst, f"to_apply must return a scalar, got {shape_text(root)}")
    return make(root.element_type, xs[0].dims)


@rule("domain", "add-dependency")
def infer_first_operand(inst: Instruction) -> Shape:
    if inst.opcode == "add-dependency" and not operand_shape(inst, 1).is_token:
        raise fail(inst, f"operand 1 must be a token, got {shape_text(operand_shape(inst, 1))}")
    return strip_layout(operand_shape(inst, 0))


@rule("after-all")
def infer_after_all(inst: Instruction) -> Shape:
    for i, s in enumerate(_operand_shapes(inst)):
        if not s.is_token:
            raise fail(inst, f"operand {i} must be a token, got {shape_text(s)}")
    return TOKEN_SHAPE


@rule("replica-id", "partition-id")
def infer_id(inst: Instruction) -> Shape:
    return U32_SCALAR


def _tuple_element(inst: Instruction, shape: Shape, index: int, what: str) -> Shape:
    if shape.tuple_shapes is None or len(shape.tuple_shapes) <= index:
        raise fail(inst, f"{what} must be a tuple with an element {index}, got {shape_text(shape)}")
    return strip_layout(shape.tuple_shapes[index])


@rule("copy-start")
def infer_copy_start(inst: Instruction) -> Shape:
    x = strip_layout(operand_shape(inst, 0))
    return Shape.tuple_of([x, x, U32_SCALAR])


@rule("copy-done")
def infer_copy_done(inst: Instruction) -> Shape:
    return _tuple_element(inst, operand_shape(inst, 0), 0, "the copy-start operand")


# -- collectives ------------------------------------------------------------------------
def group_size(inst: Instruction) -> int | None:
    """Participants per group from replica_groups ({{0,1},{2,3}} or [G,S]<=[N]); None when the
    groups are absent or empty (the count then depends on the replica count)."""
    text = str(inst.attrs.get("replica_groups", "") or "").strip()
    m = re.match(r"\[\s*(\d+)\s*,\s*(\d+)\s*\]\s*<=", text)
    if m:
        return int(m.group(2))
    if text.startswith("mesh"):
        # mesh['a'=4,'b'=2] {'a'}: a group spans the listed axes.
        axes = dict((k, int(v)) for k, v in re.findall(r"'([^']*)'\s*=\s*(\d+)", text))
        sel = re.search(r"\]\s*\{([^}]*)\}", text)
        if sel is None:
            return None
        names = re.findall(r"'([^']*)'", sel.group(1))
        if not names or any(n not in axes for n in names):
            return None
        return math.prod(axes[n] for n in names)
    groups = re.findall(r"\{([^{}]*)\}", text)
    sizes = {len([t for t in g.split(",") if t.strip()]) for g in groups}
    sizes.discard(0)
    return sizes.pop() if len(sizes) == 1 else None


def _one_dim(inst: Instruction, rank: int) -> int:
    dims = tuple(attr(inst, "dimensions"))
    if len(dims) != 1:
        raise fail(inst, f"dimensions {dims_str(dims)} must have exactly one entry")
    check_dims_in_range(inst, dims, rank, "dimensions")
    return dims[0]


def _declared_leaves(inst: Instruction, n: int) -> list[Shape] | None:
    if inst.shape is None:
        return None
    if n == 1 and not inst.shape.is_tuple:
        return [strip_layout(inst.shape)]
    ts = inst.shape.tuple_shapes or ()
    return [strip_layout(s) for s in ts] if len(ts) == n else None


def _scaled(inst: Instruction, gather: bool) -> list[Shape]:
    """all-gather multiplies, reduce-scatter divides the `dimensions` dim by the group size."""
    xs = [array_operand(inst, i) for i in range(len(inst.operands))]
    if not xs:
        raise fail(inst, "expects at least one operand")
    d = _one_dim(inst, xs[0].rank)
    g = group_size(inst)
    decl = _declared_leaves(inst, len(xs))
    outs = []
    for i, x in enumerate(xs):
        dims = list(x.dims)
        if g is not None:
            if not gather and dims[d] % g:
                raise fail(inst, f"dimension {d} of {shape_text(x)} is not divisible by the group "
                                 f"size {g}")
            dims[d] = dims[d] * g if gather else dims[d] // g
        elif decl is not None and decl[i].rank == x.rank:
            # Group size unknown (depends on the replica count): accept a consistent declared size.
            a, b = (decl[i].dims[d], x.dims[d]) if gather else (x.dims[d], decl[i].dims[d])
            if b and a % b == 0:
                dims[d] = decl[i].dims[d]
        outs.append(make(x.element_type, dims))
    return outs


@rule("all-gather")
def infer_all_gather(inst: Instruction) -> Shape:
    return _tuple_if_many(_scaled(inst, gather=True))


@rule("all-gather-start")
def infer_all_gather_start(inst: Instruction) -> Shape:
    ins = _operand_shapes(inst)
    outs = _scaled(inst, gather=True)
    if len(ins) == 1:
        return Shape.tuple_of([ins[0], outs[0]])
    return Shape.tuple_of([Shape.tuple_of(ins), Shape.tuple_of(outs)])


@rule("reduce-scatter")
def infer_reduce_scatter(inst: Instruction) -> Shape:
    return _tuple_if_many(_scaled(inst, gather=False))


@rule("all-reduce", "all-reduce-start", "collective-broadcast")
def infer_all_reduce(inst: Instruction) -> Shape:
    shapes = _operand_shapes(inst)
    if inst.opcode == "collective-broadcast" and inst.attrs.get("has_dynamic_root"):
        shapes = shapes[:-1]  # the last operand names the root participant
    if not shapes:
        raise fail(inst, "expects at least one operand")
    return _tuple_if_many(shapes)


@rule("all-to-all")
def infer_all_to_all(inst: Instruction) -> Shape:
    shapes = _operand_shapes(inst)
    if not shapes:
        raise fail(inst, "expects at least one operand")
    if "dimensions" not in inst.attrs:
        return Shape.tuple_of(shapes)  # the tuple form: always a tuple, even of one operand
    d = _one_dim(inst, shapes[0].rank)
    g = group_size(inst)
    if g is not None and shapes[0].dims[d] % g:
        raise fail(inst, f"split dimension {d} of {shape_text(shapes[0])} is not divisible by "
                         f"the group size {g}")
    return _tuple_if_many(shapes)


@rule("ragged-all-to-all")
def infer_ragged_all_to_all(inst: Instruction) -> Shape:
    return strip_layout(operand_shape(inst, 1))


@rule("collective-permute")
def infer_collective_permute(inst: Instruction) -> Shape:
    shapes = _operand_shapes(inst)
    if "slice_sizes" in inst.attrs or (len(shapes) == 4 and shapes[2].is_tuple):
        return shapes[1]
    return _tuple_if_many(shapes)


@rule("collective-permute-start")
def infer_collective_permute_start(inst: Instruction) -> Shape:
    """(input, output, context...): the context elements are backend-defined (declared)."""
    out = declared(inst)
    ops = _operand_shapes(inst)
    in_place = "slice_sizes" in inst.attrs or (len(ops) == 4 and ops[2].is_tuple)
    x = ops[0] if len(ops) == 1 or in_place else Shape.tuple_of(ops)
    if out.tuple_shapes is None or len(out.tuple_shapes) < 2 or \
            not same_dims_type(out.tuple_shapes[0], x):
        raise fail(inst, f"result must be a tuple starting with the operand shape "
                         f"{shape_text(x)}, got {shape_text(out)}")
    return out


@rule("all-reduce-done")
def infer_all_reduce_done(inst: Instruction) -> Shape:
    return strip_layout(operand_shape(inst, 0))


@rule("all-gather-done", "collective-permute-done")
def infer_second_element(inst: Instruction) -> Shape:
    return _tuple_element(inst, operand_shape(inst, 0), 1, "the start operand")


@rule("send")
def infer_send(inst: Instruction) -> Shape:
    data = strip_layout(operand_shape(inst, 0))
    if not operand_shape(inst, 1).is_token:
        raise fail(inst, "operand 1 must be a token")
    return Shape.tuple_of([data, make(U32, ()), TOKEN_SHAPE])


@rule("send-done", "outfeed")
def infer_token_result(inst: Instruction) -> Shape:
    if inst.opcode == "outfeed" and not operand_shape(inst, 1).is_token:
        raise fail(inst, "operand 1 must be a token")
    if inst.opcode == "outfeed" and "outfeed_shape" in inst.attrs:
        want = inst.attrs["outfeed_shape"]
        if not same_dims_type(strip_layout(want), strip_layout(operand_shape(inst, 0))):
            raise fail(inst, f"outfeed_shape {shape_text(want)} does not match the data operand "
                             f"{shape_text(operand_shape(inst, 0))}")
    return TOKEN_SHAPE


@rule("recv-done")
def infer_recv_done(inst: Instruction) -> Shape:
    data = _tuple_element(inst, operand_shape(inst, 0), 0, "the recv operand")
    return Shape.tuple_of([data, TOKEN_SHAPE])
