"""sort: per row (every index but the sort dimension) a stable bottom-up merge sort of an
index permutation, compared with the inlined comparator on the operands' elements, then
every operand is gathered through the permutation into its result. O(n log n), two i64
scratch rows. A stable order is one valid order of an unstable sort too; it differs from
XLA only between elements the comparator calls equal (the interpreter replays libstdc++'s
std::sort there).
"""
from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ir

from hlotools.backend.llvm import emit_types as T
from hlotools.backend.llvm.compiler import FunctionEmitter
from hlotools.backend.llvm.emit_loops import c64, for_range, loop_nest
from hlotools.backend.llvm.registry import SCRATCH, emitter
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape


def _while(b: ir.IRBuilder, cond: Callable[[], ir.Value], body: Callable[[], None], name: str) -> None:
    head = b.append_basic_block(f"{name}.head")
    loop = b.append_basic_block(f"{name}.body")
    done = b.append_basic_block(f"{name}.done")
    b.branch(head)
    b.position_at_end(head)
    b.cbranch(cond(), loop, done)
    b.position_at_end(loop)
    body()
    b.branch(head)
    b.position_at_end(done)


def _var(fe: FunctionEmitter, init: ir.Value) -> ir.AllocaInstr:
    slot = fe.in_entry().alloca(init.type)
    fe.b.store(init, slot)
    return slot


@emitter("sort")
def emit_sort(fe: FunctionEmitter, inst: Instruction) -> None:
    comp = inst.attrs["to_apply"]
    dim = int(inst.attrs["dimensions"][0])
    operands = inst.operands
    outs = fe.leaf_ptrs(inst)
    out_shapes = inst.shape.leaves()

    def less(at: Callable[[ir.Value], list[ir.Value]], x: ir.Value, y: ir.Value) -> ir.Value:
        args: list[ir.Value] = []
        for op in operands:
            args.append(fe.load_element(fe.leaf_ptrs(op)[0], op.shape, at(x)))
            args.append(fe.load_element(fe.leaf_ptrs(op)[0], op.shape, at(y)))
        r = fe.gen.apply(comp, args)
        return r[0] if isinstance(r, list) else r

    def write(at: Callable[[ir.Value], list[ir.Value]], i: ir.Value, p: ir.Value) -> None:
        for op, out, s in zip(operands, outs, out_shapes):
            fe.store_element(fe.load_element(fe.leaf_ptrs(op)[0], op.shape, at(p)), out, s, at(i))
    sort_rows(fe, inst, operands[0].shape, dim, operands[0].shape.dims[dim], less, write)


@emitter("topk")
def emit_topk(fe: FunctionEmitter, inst: Instruction) -> None:
    """The k largest (smallest) along the last dim in TOTALORDER, ties to the lower index."""
    from hlotools.backend.llvm.emit_arith import compare_values
    x = inst.operands[0]
    k = int(inst.attrs.get("k", 0))
    largest = bool(inst.attrs.get("largest", True))
    dim = len(x.shape.dims) - 1
    et = x.shape.element_type
    assert et is not None
    values, indices = fe.leaf_ptrs(inst)
    vshape, ishape = inst.shape.leaves()
    src = fe.leaf_ptrs(x)[0]

    def less(at: Callable[[ir.Value], list[ir.Value]], a: ir.Value, c: ir.Value) -> ir.Value:
        va, vc = fe.load_element(src, x.shape, at(a)), fe.load_element(src, x.shape, at(c))
        return compare_values(fe.b, "GT" if largest else "LT", va, vc, et, "TOTALORDER")

    def write(at: Callable[[ir.Value], list[ir.Value]], i: ir.Value, p: ir.Value) -> None:
        b = fe.b
        with b.if_then(b.icmp_signed("<", i, c64(k))):
            fe.store_element(fe.load_element(src, x.shape, at(p)), values, vshape, at(i))
            fe.store_element(b.trunc(p, T.I32), indices, ishape, at(i))
    if k > 0:
        sort_rows(fe, inst, x.shape, dim, x.shape.dims[dim], less, write)


def sort_rows(fe: FunctionEmitter, inst: Instruction, shape: Shape, dim: int, n: int,
              less: Callable[[Callable[[ir.Value], list[ir.Value]], ir.Value, ir.Value], ir.Value],
              write: Callable[[Callable[[ir.Value], list[ir.Value]], ir.Value, ir.Value], None]) -> None:
    """For every row along `dim`: merge-sort a permutation with `less`, then call
    write(at, i, perm[i]) for each position (at(k) is the row's index with k at `dim`)."""
    b = fe.b
    if any(d == 0 for d in shape.dims):
        return
    perm_a, perm_b = fe.scratch_ptrs(inst)
    assert shape.element_type is not None
    row_shape = Shape.array(shape.element_type, tuple(1 if d == dim else s for d, s in enumerate(shape.dims)))

    def load_perm(base: ir.Value, i: ir.Value) -> ir.Value:
        return b.load(b.gep(base, [i], source_etype=T.I64), typ=T.I64)

    def store_perm(v: ir.Value, base: ir.Value, i: ir.Value) -> None:
        b.store(v, b.gep(base, [i], source_etype=T.I64))

    def row(index: list[ir.Value]) -> None:
        def at(k: ir.Value) -> list[ir.Value]:
            idx = list(index)
            idx[dim] = k
            return idx

        with for_range(b, 0, n, name="p") as i:
            store_perm(i, perm_a, i)
        src = _var(fe, perm_a)
        dst = _var(fe, perm_b)
        width = _var(fe, c64(1))

        def pass_body() -> None:
            w = b.load(width, typ=T.I64)
            s, d = b.load(src, typ=T.PTR), b.load(dst, typ=T.PTR)
            lo = _var(fe, c64(0))

            def merge() -> None:
                lo_v = b.load(lo, typ=T.I64)
                mid = _min(b, b.add(lo_v, w), c64(n))
                hi = _min(b, b.add(mid, w), c64(n))
                i, j, k = _var(fe, lo_v), _var(fe, mid), _var(fe, lo_v)

                def step() -> None:
                    iv, jv, kv = (b.load(v, typ=T.I64) for v in (i, j, k))
                    left_ok = b.icmp_signed("<", iv, mid)
                    right_ok = b.icmp_signed("<", jv, hi)
                    li = load_perm(s, _min(b, iv, c64(n - 1)))
                    ri = load_perm(s, _min(b, jv, c64(n - 1)))
                    with fe.gen.region():
                        right_less = less(at, ri, li)
                    # take the right element only when it is strictly less (stability)
                    take_right = b.and_(right_ok, b.or_(b.not_(left_ok), right_less))
                    store_perm(b.select(take_right, ri, li), d, kv)
                    b.store(b.select(take_right, iv, b.add(iv, c64(1))), i)
                    b.store(b.select(take_right, b.add(jv, c64(1)), jv), j)
                    b.store(b.add(kv, c64(1)), k)
                _while(b, lambda: b.icmp_signed("<", b.load(k, typ=T.I64), hi), step, "merge")
                b.store(hi, lo)
            _while(b, lambda: b.icmp_signed("<", b.load(lo, typ=T.I64), c64(n)), merge, "runs")
            b.store(d, src)
            b.store(s, dst)
            b.store(b.mul(w, c64(2)), width)
        _while(b, lambda: b.icmp_signed("<", b.load(width, typ=T.I64), c64(n)), pass_body, "pass")
        final = b.load(src, typ=T.PTR)
        with for_range(b, 0, n, name="g") as i:
            with fe.gen.region():
                write(at, i, load_perm(final, i))
    loop_nest(b, row_shape, row)


def _min(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_signed("<", x, y), x, y)


SCRATCH["sort"] = lambda inst: [8 * inst.operands[0].shape.dims[int(inst.attrs["dimensions"][0])]] * 2
SCRATCH["topk"] = lambda inst: [8 * inst.operands[0].shape.dims[-1]] * 2
