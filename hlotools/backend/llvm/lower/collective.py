"""Collectives on one device (1 replica, 1 partition), with the interpreter's semantics
(hlotools/interpreter/collective.py), as XLA's run_hlo_module runs them on one CPU.

With one participant every collective is a copy: all-reduce reduces over the operand alone
(the operand itself, for tuples and variadic operands too; the reducer is never applied),
all-gather / reduce-scatter / all-to-all / collective-broadcast return their operands
(dimensions times or divided by one), and collective-permute delivers the operand only when
the pair 0->0 is listed; otherwise nobody sends to this device and the result is zeros (XLA
fills receive buffers nobody writes). The in-place collective-permute (input, output, start
indices; slice_sizes) receiving from itself is the output buffer with the input's slices
written over it at the (clamped) output offsets (`_in_place_value`, generated element by
element like every other source). The asynchronous pairs split that in two: a -start's
shape is either the result's (current XLA) or (operands, results[, u32 contexts...]); the
-done returns the results part. The generic asynchronous wrappers (async-start/update/done,
copy-start/done) run synchronously too, as in the interpreter.

Every op is described per result leaf by a source: an operand leaf or zeros (`_sources`).
Array results also have an elemental generator (value_at of the source), so a collective
can be generated inside its consumer's loop like a copy; materialised results are copied
leaf by leaf (memcpy where the layouts agree, a relayout loop where they do not).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import layout_of
from hlotools.backend.llvm.codegen.registry import elemental, emitter
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64, loop_nest
from hlotools.errors import HloUnsupportedError
from hlotools.ir.attributes import SourceTargetPairs
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    from hlotools.backend.llvm.codegen.elemental import ElementalGen, Index, Value
    from hlotools.backend.llvm.codegen.function import FunctionEmitter

# one participant: the result is the operands (a -start may carry them twice)
COPIES = ("all-reduce", "all-reduce-start", "all-gather", "all-gather-start", "reduce-scatter", "all-to-all",
          "collective-broadcast")
DONES = ("all-reduce-done", "all-gather-done", "collective-permute-done")
PERMUTES = ("collective-permute", "collective-permute-start")
# the asynchronous wrappers, run synchronously (interpreter/control.py): async-start calls
# its computation at once (its own emitter below); the others move leaves
WRAPPERS = ("async-update", "async-done", "copy-start", "copy-done")
LOWERED = COPIES + DONES + PERMUTES + WRAPPERS


@dataclass(frozen=True)
class Source:
    """Where a result leaf comes from: leaf `leaf` (depth-first) of `inst`, or zeros."""

    inst: Instruction | None
    leaf: int = 0
    shape: Shape | None = None
    in_place: Instruction | None = None  # an in-place collective-permute writing its slices over it


ZEROS = Source(None)


def _fail(inst: Instruction, message: str) -> HloUnsupportedError:
    return HloUnsupportedError(f"{inst.opcode} %{inst.name}: {message}", inst.line or None, inst.column or None)


def _leaves_of(ops: list[Instruction]) -> list[Source]:
    return [Source(op, j, s) for op in ops for j, s in enumerate(op.shape.leaves())]


def _receives(inst: Instruction) -> bool:
    """Does device 0 receive from itself (the only sender there is)?"""
    pairs = inst.attrs.get("source_target_pairs")
    return isinstance(pairs, SourceTargetPairs) and (0, 0) in pairs.pairs


def _sources(inst: Instruction) -> list[Source]:
    """One source per result leaf (depth-first), checked against the result's leaves."""
    results = inst.shape.leaves()
    op = inst.opcode
    if op in COPIES:
        # an array result is the first operand (collective-broadcast's second operand, with
        # has_dynamic_root, names the root: one participant is the root)
        srcs = _leaves_of(list(inst.operands) if inst.shape.is_tuple else inst.operands[:1])
        if len(results) == 2 * len(srcs) and inst.shape.is_tuple:  # (operands, results)
            srcs = srcs + srcs
    elif op in DONES:
        srcs = _done_sources(inst)
    elif op in WRAPPERS:
        srcs = _wrapper_sources(inst)
    elif op == "collective-permute" or not inst.shape.is_tuple:
        srcs = _permute_sources(inst)
    else:  # collective-permute-start: (operands, results, u32 contexts...)
        operands = _leaves_of(inst.operands[:1] if _in_place(inst) else list(inst.operands))
        srcs = operands + _permute_sources(inst)
        srcs += [ZEROS] * (len(results) - len(srcs))
    if len(srcs) != len(results):
        raise _fail(inst, f"{len(results)} result arrays for {len(srcs)} operand arrays "
                          "(one participant: the result is the operands)")
    for k, (s, r) in enumerate(zip(srcs, results)):
        if s.shape is not None and (s.shape.dims != r.dims or s.shape.element_type != r.element_type):
            raise _fail(inst, f"result {k} is {r} but its operand is {s.shape}: more than one participant "
                              "(the LLVM backend compiles for one device)")
    return srcs


def _in_place(inst: Instruction) -> bool:
    """The in-place form (input, output, input start indices, output start indices)."""
    return len(inst.operands) == 4 and (inst.operands[2].shape.is_tuple or "slice_sizes" in inst.attrs)


def _permute_sources(inst: Instruction) -> list[Source]:
    if _in_place(inst):
        outputs = inst.operands[1].shape.leaves()
        if not _receives(inst):
            return [Source(None, 0, s) for s in outputs]  # nobody sends: zeros
        _check_in_place(inst)
        return [Source(inst.operands[1], a, s, in_place=inst) for a, s in enumerate(outputs)]
    srcs = _leaves_of(list(inst.operands))
    return srcs if _receives(inst) else [Source(None, 0, s.shape) for s in srcs]


def _done_sources(inst: Instruction) -> list[Source]:
    """A -done returns its -start's results: the whole operand when the start has the
    result's shape, else the start's element 1."""
    start = inst.operands[0]
    srcs = _leaves_of([start])
    if _same_leaves(start.shape, inst.shape):
        return srcs
    parts = start.shape.tuple_shapes or ()
    if len(parts) >= 2 and _same_leaves(parts[1], inst.shape):
        first = len(parts[0].leaves())
        return srcs[first:first + len(parts[1].leaves())]
    raise _fail(inst, f"its start %{start.name} has shape {start.shape}, which holds no {inst.shape}")


def _wrapper_sources(inst: Instruction) -> list[Source]:
    """async-update: its operand; async-done: element 1 (the result) of the async-start
    value ((operands), result, contexts...); copy-start: (destination, source, context) =
    (operand, operand, 0); copy-done: element 0 of that."""
    operand = inst.operands[0]
    srcs = _leaves_of([operand])
    if inst.opcode == "async-update":
        return srcs
    if inst.opcode == "copy-start":
        return srcs + srcs + [ZEROS] * (len(inst.shape.leaves()) - 2 * len(srcs))
    parts = operand.shape.tuple_shapes or ()
    k = 1 if inst.opcode == "async-done" else 0
    if len(parts) <= k:
        raise _fail(inst, f"its operand %{operand.name} is not a {'async' if k else 'copy'}-start value")
    first = sum(len(p.leaves()) for p in parts[:k])
    return srcs[first:first + len(parts[k].leaves())]


def _same_leaves(a: Shape, b: Shape) -> bool:
    la, lb = a.leaves(), b.leaves()
    return len(la) == len(lb) and all(x.dims == y.dims and x.element_type == y.element_type for x, y in zip(la, lb))


def _slices(inst: Instruction) -> list[tuple[int, tuple[int, ...]]]:
    """(array, slice sizes) per slice of an in-place permute, in order: the slices are
    split evenly over the output arrays (interpreter/collective.py)."""
    outputs = len(inst.operands[1].shape.leaves())
    sizes = [tuple(int(d) for d in s) for s in inst.attrs.get("slice_sizes", ()) or ()]
    if not sizes or len(sizes) % outputs:
        raise _fail(inst, f"slice_sizes has {len(sizes)} slices for {outputs} output arrays")
    per = len(sizes) // outputs
    return [(k // per, s) for k, s in enumerate(sizes)]


def _check_in_place(inst: Instruction) -> None:
    """The slices fit their arrays and the index tuples hold one scalar per dimension."""
    inputs, outputs = inst.operands[0].shape.leaves(), inst.operands[1].shape.leaves()
    if len(inputs) != len(outputs):
        raise _fail(inst, f"{len(inputs)} input arrays for {len(outputs)} output arrays")
    slices = _slices(inst)
    for a, sizes in slices:
        for dims in (inputs[a].dims, outputs[a].dims):
            if len(sizes) != len(dims) or any(z < 0 or z > d for z, d in zip(sizes, dims)):
                raise _fail(inst, f"slice of size {list(sizes)} does not fit an array of dims {list(dims)}")
    count = sum(len(z) for _, z in slices)
    for k in (2, 3):
        idx = inst.operands[k].shape.leaves()
        if len(idx) != count or any(s.dims or s.element_type is None or s.element_type.kind
                                    not in ("signed", "unsigned") for s in idx):
            raise _fail(inst, f"operand {k} holds {len(idx)} start indices, slice_sizes needs {count} integer scalars")


def _starts(gen: ElementalGen, op: Instruction) -> list[ir.Value]:
    """The scalars of a start-index tuple (depth-first), as i64."""
    vals = gen.value_at(op, [])
    vals = vals if isinstance(vals, list) else [vals]
    out = []
    for v, s in zip(vals, op.shape.leaves()):
        assert s.element_type is not None
        if v.type.width < 64:
            v = gen.b.sext(v, types.I64) if s.element_type.kind == "signed" else gen.b.zext(v, types.I64)
        out.append(v)
    return out


def _clamp(b: ir.IRBuilder, v: ir.Value, hi: int) -> ir.Value:
    v = b.select(b.icmp_signed("<", v, c64(0)), c64(0), v)
    return b.select(b.icmp_signed(">", v, c64(hi)), c64(hi), v)


def _in_place_value(gen: ElementalGen, src: Source, shape: Shape, index: Index) -> ir.Value:
    """Output array `src.leaf` with the slices received from device 0 written over it
    (later slices over earlier ones), starts clamped into bounds as the interpreter does;
    the input is read at a valid index whether or not the element is inside a slice."""
    inst = src.in_place
    assert inst is not None
    b, a = gen.b, src.leaf
    value = source_value(gen, Source(src.inst, a, src.shape), shape, index)
    in_shape = inst.operands[0].shape.leaves()[a]
    in_starts, out_starts = _starts(gen, inst.operands[2]), _starts(gen, inst.operands[3])
    pos = 0
    for arr, sizes in _slices(inst):
        here, pos = pos, pos + len(sizes)
        if arr != a or not all(sizes):
            continue
        inside: ir.Value = ir.Constant(types.I1, 1)
        at = []
        for d, z in enumerate(sizes):
            lo_out = _clamp(b, out_starts[here + d], shape.dims[d] - z)
            lo_in = _clamp(b, in_starts[here + d], in_shape.dims[d] - z)
            off = b.sub(index[d], lo_out)
            inside = b.and_(inside, b.icmp_unsigned("<", off, c64(z)))
            at.append((off, lo_in))
        j = [b.select(inside, b.add(off, lo_in), c64(0)) for off, lo_in in at]
        got = source_value(gen, Source(inst.operands[0], a, in_shape), in_shape, j)
        value = b.select(inside, got, value)
    return value


# ------------------------------------------------------------------ elemental

def source_value(gen: ElementalGen, src: Source, shape: Shape, index: Index) -> ir.Value:
    """The value of one source at `index` (zeros of `shape`'s type for ZEROS)."""
    if src.in_place is not None:
        return _in_place_value(gen, src, shape, index)
    if src.inst is None:
        et = shape.element_type
        assert et is not None
        return types.constant(et, 0)
    op = src.inst
    if not op.shape.is_tuple:
        return gen.value_at(op, index)
    if gen.fe.is_materialised(op) and not gen.bindings:  # read that leaf only
        return gen.fe.load_element(gen.fe.leaf_ptrs(op)[src.leaf], op.shape.leaves()[src.leaf], index)
    return gen.value_at(op, index)[src.leaf]


@elemental(*LOWERED)
def _collective_value(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    results = inst.shape.leaves()
    if any(r.dims != results[0].dims for r in results):
        raise _fail(inst, "tuple leaves of different dims have no value at one index")
    vals = [source_value(gen, s, r, index) for s, r in zip(_sources(inst), results)]
    return vals if inst.shape.is_tuple else vals[0]


# ------------------------------------------------------------------ materialised

@emitter(*LOWERED)
def _collective(fe: FunctionEmitter, inst: Instruction) -> None:
    for src, dst, shape in zip(_sources(inst), fe.leaf_ptrs(inst), inst.shape.leaves()):
        copy_leaf(fe, src, dst, shape)


def copy_leaf(fe: FunctionEmitter, src: Source, dst: ir.Value, shape: Shape) -> None:
    """dst (a leaf of `shape`) := the source (memset for zeros, memcpy when the layouts agree)."""
    from hlotools.backend.llvm.abi import leaf_bytes
    nbytes = leaf_bytes(shape)
    if not nbytes:
        return
    if src.inst is None:
        memset_zero(fe, dst, nbytes)
    elif src.in_place is None and fe.is_materialised(src.inst) and layout_of(src.inst.shape.leaves()[src.leaf]) == layout_of(shape):
        fe.memcpy(dst, fe.leaf_ptrs(src.inst)[src.leaf], nbytes)
    else:
        _copy_loop(fe, src, dst, shape)


@emitter("async-start")
def _async_start(fe: FunctionEmitter, inst: Instruction) -> None:
    """((operands), result, contexts...): the operands are copied, the wrapped computation
    (`calls`) runs now writing the result leaves, contexts are 0."""
    comp = inst.attrs.get("calls")
    parts = inst.shape.tuple_shapes or ()
    if comp is None or comp.root is None or len(parts) < 2:
        raise _fail(inst, "expected calls= and a ((operands), result, contexts...) shape")
    ptrs, shapes = fe.leaf_ptrs(inst), inst.shape.leaves()
    n0, n1 = len(parts[0].leaves()), len(parts[1].leaves())
    operands = _leaves_of(list(inst.operands))
    if len(operands) != n0 or not _same_leaves(parts[0], Shape.tuple_of([o.shape for o in inst.operands])):
        raise _fail(inst, f"its element 0 {parts[0]} is not its operands")
    if not _same_leaves(parts[1], comp.root.shape):
        raise _fail(inst, f"its element 1 {parts[1]} is not the result of %{comp.name} ({comp.root.shape})")
    for src, dst, shape in zip(operands, ptrs[:n0], shapes[:n0]):
        copy_leaf(fe, src, dst, shape)
    args = [p for op in inst.operands for p in fe.leaf_ptrs(op)]
    arg_shapes = [s for op in inst.operands for s in op.shape.leaves()]
    fe.call_computation(comp, args, ptrs[n0:n0 + n1], arg_shapes=arg_shapes, out_shapes=shapes[n0:n0 + n1])
    for dst, shape in zip(ptrs[n0 + n1:], shapes[n0 + n1:]):
        copy_leaf(fe, ZEROS, dst, shape)


def _copy_loop(fe: FunctionEmitter, src: Source, dst: ir.Value, shape: Shape) -> None:
    def body(index: list[ir.Value]) -> None:
        with fe.gen.region():
            fe.store_element(source_value(fe.gen, src, shape, index), dst, shape, index)
    loop_nest(fe.b, shape, body)


def memset_zero(fe: FunctionEmitter, dst: ir.Value, nbytes: int) -> None:
    """Zero bytes are the zero of every element type (floats, integers, pred, complex)."""
    name = "llvm.memset.p0.i64"
    fn = fe.mc.ir.globals.get(name)
    if fn is None:
        fn = ir.Function(fe.mc.ir, ir.FunctionType(ir.VoidType(), [types.PTR, types.I8, types.I64, types.I1]), name)
    fe.b.call(fn, [dst, ir.Constant(types.I8, 0), c64(nbytes), ir.Constant(types.I1, 0)])
