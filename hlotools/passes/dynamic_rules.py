"""Per-opcode rules of the dynamic padder: XLA's dynamic dimension inference (which size each
result dim has) plus the masks and data movement that keep padding out of results.

A rule gets the walk (its builder is anchored at the instruction, its sizes are the operands')
and returns the instruction's sizes: a list with one s32[] size (or None: static) per dim of an
array, a tuple of such trees for a tuple. A rule may swap the instruction for another
(`walk.replace`). Padding content is unspecified everywhere: where an op reads across a dynamic
dim it is masked first (with the reducer's init, zero, the pad value), or moved to the end (sort).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hlotools.ir.attributes import Enum, PaddingConfig, SliceRange
from hlotools.ir.computation import Computation
from hlotools.ir.dispatch import Table
from hlotools.ir.dynamic import static_shape
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.types import PRED, S32

if TYPE_CHECKING:
    from hlotools.passes.dynamic_padder import Walk

Tree = Any  # list[Size] for an array, tuple[Tree, ...] for a tuple
Rule = Callable[["Walk", Instruction], Tree]
RULES: Table[Rule] = Table("dynamic-padder rule")
_rule = RULES.register


def static_tree(shape: Shape) -> Tree:
    if shape.tuple_shapes is not None:
        return tuple(static_tree(s) for s in shape.tuple_shapes)
    return [None] * shape.rank


def is_static_tree(tree: Tree) -> bool:
    if isinstance(tree, tuple):
        return all(is_static_tree(t) for t in tree)
    return all(s is None for s in tree)


def _attr_dims(inst: Instruction, key: str = "dimensions") -> tuple[int, ...]:
    return tuple(int(d) for d in inst.attrs.get(key, ()))


# -- structure ------------------------------------------------------------------------------
@_rule("tuple")
def _tuple(w: Walk, inst: Instruction) -> Tree:
    return tuple(w.tree(o) for o in inst.operands)


@_rule("get-tuple-element")
def _gte(w: Walk, inst: Instruction) -> Tree:
    return w.tree(inst.operands[0])[int(inst.attrs.get("index", 0))]


@_rule("opt-barrier", "copy", "domain")
def _same_as_operand(w: Walk, inst: Instruction) -> Tree:
    return w.tree(inst.operands[0])


@_rule("constant", "iota", "rng", "rng-bit-generator", "rng-get-and-update-state", "partition-id",
       "replica-id", "after-all", "infeed")
def _source(w: Walk, inst: Instruction) -> Tree:
    """No operand data: a dim declared dynamic here is at its bound."""
    return static_tree(inst.shape)


def elementwise(w: Walk, inst: Instruction) -> Tree:
    """Each dim's size from the first same-rank operand that has one (XLA assumes they agree)."""
    out: list = [None] * inst.shape.rank
    for op in inst.operands:
        if op.shape.is_array and op.shape.rank == inst.shape.rank:
            for d, s in enumerate(w.tree(op)):
                out[d] = out[d] or s
        elif not is_static_tree(w.tree(op)):
            raise w.error(inst, "an operand of another rank has dynamic dimensions")
    return out


# -- dimension sizes ------------------------------------------------------------------------
@_rule("get-dimension-size")
def _get_dimension_size(w: Walk, inst: Instruction) -> Tree:
    x = inst.operands[0]
    d = _attr_dims(inst)[0]
    w.replace(inst, w.b.value(w.tree(x)[d], x.shape.dims[d]))
    return []


@_rule("set-dimension-size")
def _set_dimension_size(w: Walk, inst: Instruction) -> Tree:
    """The data stays; dim d's size becomes the operand, clamped into 0..bound (the entry also
    returns the unclamped size, so running can refuse one beyond the bound)."""
    x, n = inst.operands
    d = _attr_dims(inst)[0]
    w.check_size(inst, n, inst.shape.dims[d])
    out = list(w.tree(x))
    out[d] = w.b.clamp(0, n, inst.shape.dims[d])
    w.replace(inst, x)
    return out


# -- shape changes --------------------------------------------------------------------------
@_rule("broadcast")
def _broadcast(w: Walk, inst: Instruction) -> Tree:
    out: list = [None] * inst.shape.rank
    for i, d in enumerate(_attr_dims(inst)):
        out[d] = w.tree(inst.operands[0])[i]
    return out


@_rule("transpose")
def _transpose(w: Walk, inst: Instruction) -> Tree:
    sizes = w.tree(inst.operands[0])
    return [sizes[p] for p in _attr_dims(inst)]


@_rule("reverse")
def _reverse(w: Walk, inst: Instruction) -> Tree:
    """Reversing a padded dim puts the padding first: read x[size-1-i] instead."""
    x = inst.operands[0]
    sizes = w.tree(x)
    rev = set(_attr_dims(inst))
    if not any(sizes[d] is not None for d in rev):
        return list(sizes)
    b, dims = w.b, x.shape.dims
    index = []
    for d in range(x.shape.rank):
        i = b.iota(dims, d)
        if d in rev:
            last = b.arith("subtract", b.value(sizes[d], dims[d]), 1)
            i = b.op("subtract", i.shape, b.broadcast(last, dims), i)
        index.append(i)
    w.replace(inst, b.gather_flat(x, b.linear(index, list(dims), dims)))
    return list(sizes)


def _groups(a: tuple[int, ...], b: tuple[int, ...]) -> list[tuple[list[int], list[int]]]:
    """Consecutive dims of a and b with equal products (the reshape's factor groups)."""
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(a) or j < len(b):
        ga: list[int] = []
        gb: list[int] = []
        pa = pb = 1
        while not (ga and gb and pa == pb) and (i < len(a) or j < len(b)):
            if i < len(a) and (pa <= pb or j >= len(b)):
                ga.append(i)
                pa *= a[i]
                i += 1
            else:
                gb.append(j)
                pb *= b[j]
                j += 1
        groups.append((ga, gb))
    return _fold_one_sided(groups)


def _fold_one_sided(groups: list[tuple[list[int], list[int]]]) -> list[tuple[list[int], list[int]]]:
    """Size-1 dims left on one side join the group before them (or after, at the start)."""
    out: list[tuple[list[int], list[int]]] = []
    pending: tuple[list[int], list[int]] = ([], [])
    for ga, gb in groups:
        if not ga or not gb:
            if out:
                out[-1][0].extend(ga)
                out[-1][1].extend(gb)
            else:
                pending[0].extend(ga)
                pending[1].extend(gb)
            continue
        out.append((sorted(pending[0] + ga), sorted(pending[1] + gb)))
        pending = ([], [])
    if pending[0] or pending[1]:
        out.append(pending)
    return out


def _leading(dims: tuple[int, ...], group: list[int], d: int) -> bool:
    """d is the group's most major dim but for size-1 dims."""
    return all(dims[k] == 1 for k in group if k < d)


@_rule("reshape")
def _reshape(w: Walk, inst: Instruction) -> Tree:
    """Each factor group with a dynamic input dim gives one output dim (the declared dynamic one,
    else the most major) the group's runtime element count over the others' bounds. When the
    dynamic dims lead their groups on both sides the padded data already sits right; otherwise
    (merging a minor dynamic dim) the valid elements are gathered to their row-major places."""
    x = inst.operands[0]
    sizes = w.tree(x)
    if all(s is None for s in sizes):
        return [None] * inst.shape.rank
    a, out_dims, b = x.shape.dims, inst.shape.dims, w.b
    out: list = [None] * len(out_dims)
    plain = True
    for ga, gb in _groups(a, out_dims):
        dyn_in = [d for d in ga if sizes[d] is not None]
        if not dyn_in:
            continue
        if not gb:
            raise w.error(inst, "a dynamic dimension of bound 1 has no output dimension")
        declared = [d for d in gb if inst.shape.is_dynamic_dim(d)]
        if len(declared) > 1:
            raise w.error(inst, "splits a dynamic dimension into several dynamic dimensions")
        target = declared[0] if declared else next((d for d in gb if out_dims[d] != 1), gb[0])
        count = b.product([b.value(sizes[d], a[d]) for d in ga])
        rest = 1
        for d in gb:
            rest *= out_dims[d] if d != target else 1
        out[target] = count if rest == 1 else b.arith("divide", count, rest)
        plain = plain and len(dyn_in) == 1 and _leading(a, ga, dyn_in[0]) and _leading(out_dims, gb, target)
    if not plain:
        w.replace(inst, _relayout(w, x, sizes, inst, out))
    return out


def _relayout(w: Walk, x: Instruction, sizes: list, inst: Instruction, out: list) -> Instruction:
    """out[o] = x's valid element number lin(o) (row-major over the runtime sizes)."""
    b, dims = w.b, inst.shape.dims
    lin = b.linear([b.iota(dims, d) for d in range(len(dims))],
                   [b.value(s, n) for s, n in zip(out, dims)], dims)
    src = b.unravel(lin, [b.value(s, n) for s, n in zip(sizes, x.shape.dims)], dims)
    return b.gather_flat(x, b.linear(src, list(x.shape.dims), dims))


@_rule("dynamic-reshape")
def _dynamic_reshape(w: Walk, inst: Instruction) -> Tree:
    """XLA's dynamic-reshape: the operand's valid elements, row-major, laid out at the sizes the
    operands give (dims declared static take their bound)."""
    x, given = inst.operands[0], inst.operands[1:]
    out = [g if inst.shape.is_dynamic_dim(d) else None for d, g in enumerate(given)]
    out = [w.b.clamp(0, g, inst.shape.dims[d]) if g is not None else None for d, g in enumerate(out)]
    w.replace(inst, _relayout(w, x, w.tree(x), inst, out))
    return out


# -- windows and slices -------------------------------------------------------------------------
@_rule("slice")
def _slice(w: Walk, inst: Instruction) -> Tree:
    """ceil((min(size, limit) - start) / stride), at least 0; the whole dim keeps its size."""
    x = inst.operands[0]
    ranges: tuple[SliceRange, ...] = inst.attrs["slice"]
    out: list = []
    for d, (s, r) in enumerate(zip(w.tree(x), ranges)):
        if s is None or (r.start == 0 and r.stride == 1 and r.limit == x.shape.dims[d]):
            out.append(s)
            continue
        b = w.b
        span = b.nonnegative(b.arith("subtract", b.arith("minimum", s, r.limit), r.start))
        out.append(b.ceil_div(span, r.stride))
    return out


@_rule("pad")
def _pad(w: Walk, inst: Instruction) -> Tree:
    """The padding after the valid elements must be the pad value: mask with it first."""
    x, value = inst.operands
    sizes = w.tree(x)
    if all(s is None for s in sizes):
        return list(sizes)
    w.set_operand(inst, 0, w.b.mask(x, sizes, value))
    config: PaddingConfig = inst.attrs["padding"]
    out: list = []
    b = w.b
    for s, (lo, hi, interior) in zip(sizes, config.dims):
        if s is None:
            out.append(None)
            continue
        n = b.arith("add", s, lo + hi)
        if interior:
            holes = b.arith("multiply", b.nonnegative(b.arith("subtract", s, 1)), interior)
            n = b.arith("add", n, holes)
        out.append(b.nonnegative(n))
    return out


@_rule("concatenate")
def _concatenate(w: Walk, inst: Instruction) -> Tree:
    """Along a dynamic dim the pieces must close up (XLA compacts): each operand, padded, is
    written at the running sum of the sizes before it, in order, so a later piece overwrites
    only an earlier piece's padding."""
    d = _attr_dims(inst)[0]
    trees = [w.tree(o) for o in inst.operands]
    out = list(elementwise_dims(trees, inst.shape.rank, skip=d))
    if all(t[d] is None for t in trees):
        return out
    b = w.b
    et = inst.shape.element_type
    assert et is not None
    acc = b.broadcast(b.zero(et), inst.shape.dims)
    offset: Instruction | None = None
    zero = b.constant(0)
    for o, t in zip(inst.operands, trees):
        starts = [offset if k == d and offset is not None else zero for k in range(inst.shape.rank)]
        acc = b.op("dynamic-update-slice", acc.shape, acc, o, *starts)
        size = b.value(t[d], o.shape.dims[d])
        offset = size if offset is None else b.arith("add", offset, size)
    out[d] = offset
    w.replace(inst, acc)
    return out


def elementwise_dims(trees: list, rank: int, skip: int = -1) -> list:
    out: list = [None] * rank
    for t in trees:
        for k, s in enumerate(t):
            if k != skip:
                out[k] = out[k] or s
    return out


def _clamp_starts(w: Walk, inst: Instruction, x: Instruction, window: tuple[int, ...], first: int) -> None:
    """XLA clamps a start so the window fits the runtime size, not the bound."""
    sizes = w.tree(x)
    for d, s in enumerate(sizes):
        if s is None:
            continue
        b = w.b
        start = inst.operands[first + d]
        if start.shape.element_type != S32:
            start = b.op("convert", Shape.array(S32, ()), start)
        hi = b.nonnegative(b.arith("subtract", s, window[d]))
        clamped = b.op("clamp", Shape.array(S32, ()), b.constant(0), start, hi)
        et = inst.operands[first + d].shape.element_type
        if et != S32:
            assert et is not None
            clamped = b.op("convert", Shape.array(et, ()), clamped)
        w.set_operand(inst, first + d, clamped)


@_rule("dynamic-slice")
def _dynamic_slice(w: Walk, inst: Instruction) -> Tree:
    x = inst.operands[0]
    if len(inst.operands) != x.shape.rank + 1:
        raise w.error(inst, "start indices as one array are not supported with dynamic dimensions")
    _clamp_starts(w, inst, x, _attr_dims(inst, "dynamic_slice_sizes"), 1)
    return [None] * inst.shape.rank


@_rule("dynamic-update-slice")
def _dynamic_update_slice(w: Walk, inst: Instruction) -> Tree:
    x, update = inst.operands[:2]
    if len(inst.operands) != x.shape.rank + 2:
        raise w.error(inst, "start indices as one array are not supported with dynamic dimensions")
    if not is_static_tree(w.tree(update)):
        raise w.error(inst, "a dynamic update has no defined placement")
    _clamp_starts(w, inst, x, update.shape.dims, 2)
    return list(w.tree(x))


# -- reductions -------------------------------------------------------------------------------
@_rule("reduce")
def _reduce(w: Walk, inst: Instruction) -> Tree:
    """Masks the reduced dynamic dims of each input with its init value (XLA's choice)."""
    n = len(inst.operands) // 2
    reduced = set(_attr_dims(inst))
    sizes = w.tree(inst.operands[0])
    w.note_reads(inst, [s if d in reduced else None for d, s in enumerate(sizes)])
    for k in range(n):
        x, init = inst.operands[k], inst.operands[n + k]
        own = w.tree(x)
        w.set_operand(inst, k, w.b.mask(x, [s if d in reduced else None for d, s in enumerate(own)], init))
    kept = [s for d, s in enumerate(sizes) if d not in reduced]
    return tuple(list(kept) for _ in range(n)) if inst.shape.is_tuple else kept


def _window_size(w: Walk, s: Instruction, wd: Any) -> Instruction:
    """floor((size + lo + hi - dilated window) / stride) + 1, or 0 when the window never fits."""
    b = w.b
    span = (wd.size - 1) * wd.window_dilation + 1
    room = b.arith("subtract", s, span - wd.padding_low - wd.padding_high)
    fits = b.op("compare", Shape.array(PRED, ()), room, b.constant(0), direction=Enum("GE"))
    count = b.arith("add", b.arith("divide", b.nonnegative(room), wd.stride), 1)
    return b.op("select", Shape.array(S32, ()), fits, count, b.constant(0))


def _trivial(wd: Any) -> bool:
    return (wd.size, wd.stride, wd.padding_low, wd.padding_high, wd.window_dilation, wd.base_dilation) == \
        (1, 1, 0, 0, 1, 1)


@_rule("reduce-window")
def _reduce_window(w: Walk, inst: Instruction) -> Tree:
    """Masked with the init value, so a window reaching past the size sees what M[size]'s
    padding holds there."""
    n = len(inst.operands) // 2
    sizes = w.tree(inst.operands[0])
    window = inst.attrs["window"].dims
    out: list = []
    for s, wd in zip(sizes, window):
        if s is not None and wd.base_dilation != 1:
            raise w.error(inst, "base dilation over a dynamic dimension is not supported")
        out.append(None if s is None else s if _trivial(wd) else _window_size(w, s, wd))
    for k in range(n):
        x, init = inst.operands[k], inst.operands[n + k]
        w.set_operand(inst, k, w.b.mask(x, w.tree(x), init))
    return tuple(list(out) for _ in range(n)) if inst.shape.is_tuple else out


@_rule("dot")
def _dot(w: Walk, inst: Instruction) -> Tree:
    """A dynamic contracting dim is masked with zero on both sides (padding may be NaN)."""
    lhs, rhs = inst.operands
    lt, rt = list(w.tree(lhs)), list(w.tree(rhs))
    lc, rc = _attr_dims(inst, "lhs_contracting_dims"), _attr_dims(inst, "rhs_contracting_dims")
    lb, rb = _attr_dims(inst, "lhs_batch_dims"), _attr_dims(inst, "rhs_batch_dims")
    contract_l: list = [None] * lhs.shape.rank
    contract_r: list = [None] * rhs.shape.rank
    for i, j in zip(lc, rc):
        s = lt[i] or rt[j]
        contract_l[i], contract_r[j] = s, s
    w.note_reads(inst, contract_l)
    _mask_zero(w, inst, 0, contract_l)
    _mask_zero(w, inst, 1, contract_r)
    out = [lt[i] or rt[j] for i, j in zip(lb, rb)]
    out += [lt[d] for d in range(lhs.shape.rank) if d not in lc and d not in lb]
    out += [rt[d] for d in range(rhs.shape.rank) if d not in rc and d not in rb]
    return out


def _mask_zero(w: Walk, inst: Instruction, k: int, sizes: list) -> None:
    x = inst.operands[k]
    if any(s is not None for s in sizes):
        et = x.shape.element_type
        assert et is not None
        w.set_operand(inst, k, w.b.mask(x, sizes, w.b.zero(et)))


@_rule("convolution")
def _convolution(w: Walk, inst: Instruction) -> Tree:
    """Dynamic input features are contracted (masked with zero on both sides), dynamic spatial
    dims masked with zero and sized like a window; batch and output features carry over."""
    x, k = inst.operands
    xt, kt = list(w.tree(x)), list(w.tree(k))
    labels = inst.attrs["dim_labels"]
    groups = int(inst.attrs.get("feature_group_count", 1)) * int(inst.attrs.get("batch_group_count", 1))
    if any(kt[d] is not None for d in labels.kernel_spatial) or \
            (groups != 1 and not (is_static_tree(xt) and is_static_tree(kt))):
        raise w.error(inst, "dynamic kernel spatial dims or grouped features are not supported")
    feature = xt[labels.input_feature] or kt[labels.kernel_input_feature]
    x_mask: list = [None] * x.shape.rank
    k_mask: list = [None] * k.shape.rank
    x_mask[labels.input_feature], k_mask[labels.kernel_input_feature] = feature, feature
    out: list = [None] * inst.shape.rank
    window = inst.attrs["window"].dims if "window" in inst.attrs else ()
    for i, d in enumerate(labels.input_spatial):
        if xt[d] is not None:
            x_mask[d] = xt[d]
            if window[i].base_dilation != 1:
                raise w.error(inst, "lhs dilation over a dynamic dimension is not supported")
            out[labels.output_spatial[i]] = _window_size(w, xt[d], window[i])
    _mask_zero(w, inst, 0, x_mask)
    _mask_zero(w, inst, 1, k_mask)
    out[labels.output_batch] = xt[labels.input_batch]
    out[labels.output_feature] = kt[labels.kernel_output_feature]
    return out


# -- sort ---------------------------------------------------------------------------------------
@_rule("sort")
def _sort(w: Walk, inst: Instruction) -> Tree:
    """Along a dynamic dim, a pred operand `iota < size` joins the sort and the comparator puts
    valid before padding: valid elements sort among themselves as in M[size]."""
    d = _attr_dims(inst)[0]
    trees = [w.tree(o) for o in inst.operands]
    out = elementwise_dims(trees, inst.operands[0].shape.rank)
    if out[d] is None:
        return tuple(list(out) for _ in trees) if inst.shape.is_tuple else out
    b = w.b
    dims = inst.operands[0].shape.dims
    valid = b.valid(dims, [out[d] if k == d else None for k in range(len(dims))])
    assert valid is not None
    shapes = [static_shape(o.shape) for o in inst.operands] + [valid.shape]
    sort = b.op("sort", Shape.tuple_of(shapes), *inst.operands, valid, dimensions=(d,),
                to_apply=_valid_first(w, inst.attrs["to_apply"]),
                **({"is_stable": inst.attrs["is_stable"]} if "is_stable" in inst.attrs else {}))
    parts = [b.op("get-tuple-element", s, sort, index=i) for i, s in enumerate(shapes[:-1])]
    w.replace(inst, b.op("tuple", Shape.tuple_of(shapes[:-1]), *parts) if inst.shape.is_tuple else parts[0])
    return tuple(list(out) for _ in trees) if inst.shape.is_tuple else out


def _valid_first(w: Walk, comparator: Computation) -> Computation:
    """comparator'(..., va, vb) = va and (not vb or comparator(...))."""
    name = w.rw.unique_name
    comp = comparator.clone(f"{comparator.name}.valid_first", rename=name)
    scalar = Shape.array(PRED, ())
    n = len(comp.parameters)
    va = comp.add_instruction(_new("parameter", scalar, [], name(f"valid.{n}"), parameter_number=n))
    vb = comp.add_instruction(_new("parameter", scalar, [], name(f"valid.{n + 1}"), parameter_number=n + 1))
    assert comp.root is not None
    invalid_b = comp.add_instruction(_new("not", scalar, [vb], name("invalid_b")))
    either = comp.add_instruction(_new("or", scalar, [invalid_b, comp.root], name("valid_first.or")))
    comp.root = comp.add_instruction(_new("and", scalar, [va, either], name("valid_first")))
    w.padder.originals.append(comparator)  # dropped at the end if no other sort calls it
    return w.add_computation(comp)


def _new(opcode: str, shape: Shape, operands: list[Instruction], name: str,
         parameter_number: int | None = None) -> Instruction:
    return Instruction(name, opcode, shape, operands, parameter_number=parameter_number)


# -- gather -------------------------------------------------------------------------------------
@_rule("gather")
def _gather(w: Walk, inst: Instruction) -> Tree:
    """XLA's inference: the indices' dynamic batch dims size the output's batch dims; an operand
    dim sliced whole sizes its offset dim. Indexing into a dynamic dim would clamp at the bound,
    not at the size, so it is refused."""
    x, idx = inst.operands
    xt, it = w.tree(x), w.tree(idx)
    offset = _attr_dims(inst, "offset_dims")
    skipped = set(_attr_dims(inst, "collapsed_slice_dims")) | set(_attr_dims(inst, "operand_batching_dims"))
    indexed = set(_attr_dims(inst, "start_index_map"))
    sizes = _attr_dims(inst, "slice_sizes")
    out: list = [None] * inst.shape.rank
    kept = [d for d in range(x.shape.rank) if d not in skipped]
    for d, o in zip(kept, offset):
        if xt[d] is not None:
            if d in indexed or sizes[d] != x.shape.dims[d]:
                raise w.error(inst, f"operand dimension {d} is dynamic and indexed into")
            out[o] = xt[d]
    if any(xt[d] is not None for d in skipped):
        raise w.error(inst, "a collapsed or batching operand dimension is dynamic")
    vector = int(inst.attrs.get("index_vector_dim", idx.shape.rank))
    batch = [o for o in range(inst.shape.rank) if o not in offset]
    for o, d in zip(batch, [d for d in range(idx.shape.rank) if d != vector]):
        out[o] = it[d]
    return out
