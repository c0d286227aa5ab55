"""The compile-time half of the GEMM epilogue (gemm_epilogue.py has the format and the
kernel's interpreter): the elementwise part of a kOutput fusion's computation, between the
dot/convolution D and the ROOT, as an epilogue program, or None when it has anything the
epilogue cannot do (then lower/output_fusion.py takes its general path; decided here, at
compile time, never at run time).

The GEMM addresses its result C as (batch element, row, column): `Grouping` says which
output dims form each (the live batch dims of the descriptor in its order, the row dims read
row-major, the column dims likewise). An operand of the epilogue (a parameter of D's
shape, a broadcast of a parameter or constant, a constant, a scalar) is read through its
element stride per output dim (0 where it is broadcast); those collapse into one stride per
batch dim, a row stride and a column stride when each group's dims are evenly spaced in the
operand (always true for a broadcast along whole groups and for an operand with C's layout).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from hlotools.backend.llvm.kernels import gemm_epilogue
from hlotools.backend.llvm.llvm_ir.loops import strides
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.types import ElementType

_LOADS = (gemm_epilogue.OP_LOAD, gemm_epilogue.OP_SCALAR, gemm_epilogue.OP_LOAD_PRED, gemm_epilogue.OP_SCALAR_PRED)


@dataclass(frozen=True)
class Grouping:
    """Output dims of the GEMM's live batch fields (kernel order), rows and columns."""

    batch: tuple[int, ...]
    rows: tuple[int, ...]
    cols: tuple[int, ...]


@dataclass(frozen=True)
class Source:
    """Where an OP_LOAD operand lives: a fusion operand (`outer`, the caller's
    materialised value), a constant of the fused computation (`const`), or a scalar value."""

    outer: Instruction | None = None
    const: Instruction | None = None
    value: float | None = None  # a scalar the encoder made (a reciprocal)


@dataclass
class Program:
    code: list[int]
    sources: list[Source]


@dataclass
class _Builder:
    d: Instruction
    params: dict[int, Instruction]  # id(fused parameter) -> the fusion's operand
    grouping: Grouping
    ct: ElementType
    out_dims: tuple[int, ...]
    code: list[tuple[int, int, int, int]] = field(default_factory=list)
    records: list[list[int]] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    free: list[int] = field(default_factory=lambda: list(range(gemm_epilogue.MAX_REGS - 1, 0, -1)))
    free_scalars: list[int] = field(
        default_factory=lambda: list(range(gemm_epilogue.MAX_REGS + gemm_epilogue.MAX_SCALARS - 1, gemm_epilogue.MAX_REGS - 1, -1)))
    reg: dict[int, int] = field(default_factory=dict)  # id(node) -> its register
    uses: dict[int, int] = field(default_factory=dict)  # id(node) -> reads still to come
    scalar_leaf: dict[int, tuple[int, int, bool]] = field(default_factory=dict)  # scalar reg -> (source, record, pred)

    def alloc(self) -> int | None:
        return self.free.pop() if self.free else None

    def give_back(self, reg: int) -> None:
        pool = self.free_scalars if reg >= gemm_epilogue.MAX_REGS else self.free
        pool.append(reg)
        pool.sort(reverse=True)

    def release(self, node: Instruction) -> None:
        k = id(node)
        self.uses[k] -= 1
        if self.uses[k] == 0:
            self.give_back(self.reg[k])

    def as_tile(self, reg: int, temps: list[int]) -> int | None:
        """A tile register holding `reg`'s values (a scalar one is loaded into a temporary)."""
        if reg < gemm_epilogue.MAX_REGS:
            return reg
        t = self.alloc()
        if t is None:
            return None
        src, rec, pred = self.scalar_leaf[reg]
        self.code.append((gemm_epilogue.OP_LOAD_PRED if pred else gemm_epilogue.OP_LOAD, t, src, rec))
        temps.append(t)
        return t


def encode(root: Instruction, d: Instruction, params: dict[int, Instruction], grouping: Grouping,
           ct: ElementType) -> Program | None:
    """The program computing `root` from D (register 0) and the leaves, or None."""
    if root is d or _is_leaf_kind(root):
        return None  # nothing to do after the product, or a result that ignores it
    bld = _Builder(d, params, grouping, ct, d.shape.dims)
    order: list[Instruction] = []
    if not _collect(bld, root, order, set()):
        return None
    for node in order:
        for op in _reads(node):
            bld.uses[id(op)] = bld.uses.get(id(op), 0) + 1
    bld.uses[id(root)] = bld.uses.get(id(root), 0) + 1
    bld.uses.setdefault(id(d), 0)
    bld.reg[id(d)] = 0
    if bld.uses[id(d)] == 0:
        bld.free.append(0)
    for node in order:
        if node is not d and not _emit(bld, node):
            return None
    ninstr = len(bld.code)
    rec_base = gemm_epilogue.P_CODE + gemm_epilogue.WIDTH * ninstr
    offsets = []
    pos = rec_base
    for rec in bld.records:
        offsets.append(pos)
        pos += len(rec)
    code = [ninstr, bld.reg[id(root)]]
    for opc, dst, x, y in bld.code:
        code += [opc, dst, x, offsets[y] if opc in _LOADS else y]
    for rec in bld.records:
        code += rec
    return Program(code, bld.sources)


def _reads(node: Instruction) -> list[Instruction]:
    return [] if _is_leaf_kind(node) else list(node.operands)


def _is_leaf_kind(node: Instruction) -> bool:
    return node.opcode in ("parameter", "constant", "broadcast")


def _collect(bld: _Builder, node: Instruction, order: list[Instruction], seen: set[int]) -> bool:
    """Post order of the program's nodes (D, elementwise ops of D's dims, leaves); False
    when some node is none of them."""
    if id(node) in seen:
        return True
    seen.add(id(node))
    if node is not bld.d and not _is_leaf_kind(node):
        want = _operand_types(bld, node)
        if want is None or node.shape.is_tuple or node.shape.dims != bld.out_dims:
            return False
        for op, et in zip(node.operands, want):
            if op.shape.is_tuple or op.shape.element_type != et:
                return False
            if op.shape.dims != bld.out_dims and not (node.opcode == "clamp" and not op.shape.dims):
                return False
            if not _collect(bld, op, order, seen):
                return False
    order.append(node)
    return True


def _operand_types(bld: _Builder, node: Instruction) -> list[ElementType] | None:
    """The element types an epilogue op node needs of its operands (its own result being the
    compute type, or pred for compare), or None when the epilogue has no such op."""
    from hlotools.ir.types import ELEMENT_TYPES
    ct, et, n = bld.ct, node.shape.element_type, len(node.operands)
    if node.opcode == "compare":
        ok = (et is not None and et.kind == "pred" and gemm_epilogue.supports("compare.EQ", ct)
              and str(node.attrs.get("direction", "")) in gemm_epilogue.DIRECTIONS and not node.attrs.get("type"))
        return [ct, ct] if ok and n == 2 else None
    if et != ct:
        return None
    if node.opcode == "select":
        return [ELEMENT_TYPES["pred"], ct, ct] if gemm_epilogue.supports("select", ct) and n == 3 else None
    if node.opcode == "clamp":
        return [ct] * 3 if gemm_epilogue.supports("maximum", ct) and gemm_epilogue.supports("minimum", ct) and n == 3 else None
    if node.opcode in gemm_epilogue.CONTROL_OPS or not gemm_epilogue.supports(node.opcode, ct):
        return None
    if node.opcode == "power" and ct.kind == "float" and any(_constant_leaf(op) for op in node.operands):
        # The elemental loop passes a constant to libm's pow, which LLVM's library-call
        # simplifier rewrites by value (x^2 -> x * x, x^-1 -> 1 / x, x^0.5 -> sqrt, 2^y ->
        # exp2): other bits than the pow call the interpreter would make; in place instead.
        return None
    return [ct] * n


def _constant_leaf(node: Instruction) -> bool:
    """A constant, or a broadcast of one (a value LLVM sees as a constant in the loop)."""
    while node.opcode == "broadcast" and node.operands:
        node = node.operands[0]
    return node.opcode == "constant"


def _emit(bld: _Builder, node: Instruction) -> bool:
    if _is_leaf_kind(node):
        return _emit_load(bld, node)
    xs = [bld.reg[id(op)] for op in node.operands]
    temps: list[int] = []
    dst: int | None
    if node.opcode == "select":  # move the false value in, then the true one where p holds
        on, on_true, on_false = xs
        pt = bld.as_tile(on, temps)
        dst = bld.alloc()
        if pt is None or dst is None:
            return False
        bld.code.append((gemm_epilogue.op_code("move"), dst, 0, on_false))
        bld.code.append((gemm_epilogue.op_code("select"), dst, pt, on_true))
    elif node.opcode == "compare" and not all(r >= gemm_epilogue.MAX_REGS for r in xs):
        dst = bld.alloc()
        if dst is None:
            return False
        bld.code.append((gemm_epilogue.op_code(f"compare.{node.attrs['direction']}"), dst, xs[0], xs[1]))
    elif node.opcode == "compare":
        first = bld.as_tile(xs[0], temps)
        dst = bld.alloc()
        if first is None or dst is None:
            return False
        bld.code.append((gemm_epilogue.op_code(f"compare.{node.attrs['direction']}"), dst, first, xs[1]))
    elif node.opcode == "clamp":  # emit_arith's clamp: minimum(maximum(x, lo), hi)
        lo, x, hi = xs
        xt = bld.as_tile(x, temps)
        t = bld.alloc()
        dst = bld.alloc()
        if xt is None or t is None or dst is None:
            return False
        bld.code.append((gemm_epilogue.op_code("maximum"), t, xt, lo))
        bld.code.append((gemm_epilogue.op_code("minimum"), dst, t, hi))
        temps.append(t)
    elif node.opcode == "divide" and _reciprocal(node.operands[1], bld.ct) is not None and bld.free_scalars:
        # x / 2^k is x * 2^-k exactly (LLVM folds the same in the elemental loop): a multiply
        recip = bld.free_scalars.pop()
        bld.sources.append(Source(value=_reciprocal(node.operands[1], bld.ct)))
        bld.records.append([0, 0, *([0] * len(bld.grouping.batch))])
        bld.code.append((gemm_epilogue.OP_SCALAR, recip, len(bld.sources) - 1, len(bld.records) - 1))
        first = bld.as_tile(xs[0], temps)
        dst = bld.alloc()
        if first is None or dst is None:
            return False
        bld.code.append((gemm_epilogue.op_code("multiply"), dst, first, recip))
        temps.append(recip)
    elif len(xs) == 1 or all(r >= gemm_epilogue.MAX_REGS for r in xs):  # unary ops and scalar pairs take tiles
        first = bld.as_tile(xs[0], temps)
        dst = bld.alloc()
        if first is None or dst is None:
            return False
        bld.code.append((gemm_epilogue.op_code(node.opcode), dst, first, xs[1] if len(xs) > 1 else first))
    else:
        dst = bld.alloc()
        if dst is None:
            return False
        bld.code.append((gemm_epilogue.op_code(node.opcode), dst, xs[0], xs[1]))
    for t in temps:
        bld.give_back(t)
    assert dst is not None
    bld.reg[id(node)] = dst
    for op in node.operands:
        bld.release(op)
    return True


def _emit_load(bld: _Builder, node: Instruction) -> bool:
    found = _leaf_strides(bld, node)
    if found is None:
        return False
    source, per_dim = found
    g = bld.grouping
    rs = _collapse(per_dim, g.rows, bld.out_dims)
    cs = _collapse(per_dim, g.cols, bld.out_dims)
    if rs is None or cs is None:
        return False
    scalar = rs == 0 and cs == 0 and bool(bld.free_scalars)
    dst = bld.free_scalars.pop() if scalar else bld.alloc()
    if dst is None:
        return False
    bld.sources.append(source)
    bld.records.append([rs, cs, *(per_dim[j] for j in g.batch)])
    where = (len(bld.sources) - 1, len(bld.records) - 1)
    et = node.shape.element_type
    pred = et is not None and et.kind == "pred"
    op = (gemm_epilogue.OP_SCALAR_PRED if pred else gemm_epilogue.OP_SCALAR) if scalar else (gemm_epilogue.OP_LOAD_PRED if pred else gemm_epilogue.OP_LOAD)
    bld.code.append((op, dst, *where))
    if scalar:
        bld.scalar_leaf[dst] = (*where, pred)
    bld.reg[id(node)] = dst
    if bld.uses[id(node)] == 0:
        bld.give_back(dst)
    return True


def _leaf_strides(bld: _Builder, node: Instruction) -> tuple[Source, list[int]] | None:
    """(where the values are, element stride per output dim) of a leaf, or None."""
    n = len(bld.out_dims)
    if node.opcode == "broadcast":
        src = node.operands[0]
        dims = tuple(node.attrs.get("dimensions", ()))
        got = _memory(bld, src)
        if got is None or len(dims) != len(src.shape.dims):
            return None
        source, shape = got
        st = strides(shape)
        per_dim = [0] * n
        for k, od in enumerate(dims):
            if shape.dims[k] != 1:
                per_dim[od] = st[k]
        return source, per_dim
    got = _memory(bld, node)
    if got is None:
        return None
    source, shape = got
    if not shape.dims:
        return source, [0] * n
    if shape.dims != bld.out_dims:
        return None
    st = strides(shape)
    return source, [st[k] if shape.dims[k] != 1 else 0 for k in range(n)]


def _memory(bld: _Builder, node: Instruction) -> tuple[Source, Shape] | None:
    """A parameter (the fusion operand bound to it) or a constant, in the compute type."""
    et = node.shape.element_type
    if node.shape.is_tuple or et is None or (et != bld.ct and et.kind != "pred"):
        return None
    if node.opcode == "parameter":
        outer = bld.params.get(id(node))
        if outer is None or outer.shape.dims != node.shape.dims or outer.shape.element_type != et:
            return None
        return Source(outer=outer), outer.shape
    if node.opcode == "constant" and node.literal is not None:
        return Source(const=node), node.shape
    return None


def _collapse(per_dim: list[int], group: tuple[int, ...], dims: tuple[int, ...]) -> int | None:
    """One stride for `group` read as a row-major index (the last dim fastest), or None when
    the operand does not space those dims evenly (0: the operand does not vary along them)."""
    live = [d for d in group if dims[d] != 1]
    if not live:
        return 0
    for a, b in zip(live, live[1:]):
        if per_dim[a] != per_dim[b] * dims[b]:
            return None
    return per_dim[live[-1]]


def _reciprocal(node: Instruction, ct: ElementType) -> float | None:
    """1 / c for a divisor that is a scalar constant c = +-2^k (or a broadcast of one) whose
    reciprocal is a normal number of the compute type: division by c is then exactly a
    multiplication by it."""
    import math

    import numpy as np
    if ct.kind != "float":
        return None
    if node.opcode == "broadcast" and node.operands:
        node = node.operands[0]
    if node.opcode != "constant" or node.shape.dims or node.literal is None:
        return None
    c = float(np.asarray(node.literal.value()).reshape(()))
    if not math.isfinite(c) or c == 0:
        return None
    mant, _ = math.frexp(abs(c))
    if mant != 0.5:
        return None
    r = 1.0 / c
    info = np.finfo(np.float32 if ct.name == "f32" else np.float64)
    return r if float(info.tiny) <= abs(r) <= float(info.max) else None
