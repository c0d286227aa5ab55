"""The GEMM kernel's run-time epilogue: an elementwise program the kernel (kernels/gemm.py)
applies to each finished MR x NV register tile before storing it, so a kOutput fusion
(dot/convolution + bias + activation, ...) needs no per-module LLVM code: the kernel is a
runtime-library group compiled once per machine, and the module only adds a small i64
constant (the program) and a table of operand pointers (XLA CPU fuses such epilogues into
its library kernels too: YNNPACK / oneDNN post-ops).

The epilogue block (in the caller's frame; the descriptor's D_EPI slot points at it, 0 = no
epilogue, today's code path):

    [E_PROGRAM]      address of the program (a constant of the module)
    [E_OPERANDS + k] address of operand k (a parameter's buffer, a constant's global)

The program (i64): [P_COUNT] instruction count, [P_RESULT] the register holding the result,
then P_COUNT instructions of WIDTH slots (op, dst, x, y), then the operand records. Registers
are MAX_REGS tiles of MR x NV elements in the kernel's stack frame; register 0 holds D (the
accumulators) when the program starts. Ops:

* OP_LOAD (dst, k, record): dst[r][j] = operand_k[batch offset + row * rs + col * cs] where
  record = offset in the program of (rs, cs, one element stride per live batch dim of the
  GEMM descriptor, in its order). Scalars (rs = cs = 0), per-column vectors (rs = 0),
  per-row values (cs = 0) and full tensors are all this one op. Rows past M and columns past
  N are clamped to the last ones (never read out of bounds; their results are not stored).
* OP_SCALAR (dst, k, record): scalar register dst (>= MAX_REGS) = operand_k[batch offset]
  (the same record, rs = cs = 0): constants and broadcast scalars cost one load per tile.
* an elementwise op of ELEMENTWISE (dst, x, y): computed per element with the SAME scalar
  emitters as the elemental path (emit_arith.UNARY / BINARY, hence emit_math), in a loop
  LLVM vectorises, so a fused result is bit for bit the unfused kernel + elementwise loop.
  One of a binary op's operands may be a scalar register (never both; unary ops take tiles).

dst is never x or y (the encoder allocates it first: no loop-carried aliasing, so LLVM's
run-time overlap checks pass and the vector loop runs).
"""
from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ir

from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range
from hlotools.ir.types import ElementType

MAX_REGS = 8
MAX_SCALARS = 8  # scalar registers MAX_REGS.. (one value for the whole tile)
E_PROGRAM, E_OPERANDS = 0, 1
P_COUNT, P_RESULT, P_CODE = 0, 1, 2
WIDTH = 4
OP_LOAD, OP_SCALAR, OP_LOAD_PRED, OP_SCALAR_PRED = 0, 1, 2, 3  # (pred: i8 in memory, 0 / 1 in registers)
UNARY_OPS = ("negate", "abs", "sign", "exponential", "tanh", "logistic", "erf", "sqrt", "rsqrt", "log",
             "log-plus-one", "exponential-minus-one", "floor", "ceil", "sine", "cosine")
BINARY_OPS = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "power")
DIRECTIONS = ("EQ", "NE", "LT", "LE", "GT", "GE")
# compare.D: 1 / 0 for emit_arith.compare_values; select (dst, p, t): dst = p != 0 ? t : dst, after
# move (dst, 0, f): dst = f, is HLO's select(p, t, f) (one of the two values, bit for bit).
CONTROL_OPS = (*(f"compare.{d}" for d in DIRECTIONS), "move", "select")
ELEMENTWISE = UNARY_OPS + BINARY_OPS + CONTROL_OPS
_INTEGER_OPS = frozenset({"negate", "abs", "sign", "add", "subtract", "multiply", "divide", "maximum", "minimum",
                          *CONTROL_OPS})


def op_code(name: str) -> int:
    """The program's number for elementwise op `name` (after the four loads)."""
    return 4 + ELEMENTWISE.index(name)


def supports(name: str, et: ElementType) -> bool:
    """Does the epilogue of compute type `et` have op `name`? (floats: all; integers: the
    exact arithmetic ones)."""
    if name not in ELEMENTWISE:
        return False
    if et.kind == "float":
        return et.name in ("f32", "f64")
    return et.kind in ("signed", "unsigned") and et.bits >= 8 and name in _INTEGER_OPS


def function_name(kernel: str) -> str:
    return kernel + ".epilogue"


def epilogue_function(module: ir.Module, kernel: str, ct: ElementType, nv: int, MR: int) -> ir.Function:  # noqa: N803
    """The interpreter, defined once per kernel variant next to it (internal):

        ptr epilogue(ptr regs, ptr epi, ptr fields, i64 bt, i64 m0, i64 n0, i64 ncols)

    runs the program of `epi` on the tile in register 0 of `regs` (rows m0.., columns n0..,
    batch element bt; `fields` is the GEMM descriptor's constant part) and returns the
    result register. noinline: the kernel's k loop stays as it was."""
    name = function_name(kernel)
    got = module.globals.get(name)
    if got is not None:
        return got
    fnty = ir.FunctionType(types.PTR, [types.PTR, types.PTR, types.PTR, types.I64, types.I64, types.I64, types.I64])
    fn = ir.Function(module, fnty, name)
    fn.linkage = "internal"
    fn.attributes.add("noinline")
    _build(fn, ct, nv, MR)
    return fn


def _build(fn: ir.Function, ct: ElementType, nv: int, MR: int) -> None:  # noqa: N803
    from hlotools.backend.llvm.kernels import gemm as gemm_kernel
    sty = types.value_type(ct)
    tile = MR * nv
    regs, epi, fields, bt, m0, n0, ncols = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    acc = b.alloca(types.I64, name="boff")
    rest = b.alloca(types.I64, name="rest")
    scalars = b.alloca(sty, size=c64(MAX_SCALARS), name="scalars")

    def at(base: ir.Value, k: ir.Value | int) -> ir.Value:
        return b.load(b.gep(base, [c64(k) if isinstance(k, int) else k], source_etype=types.I64), typ=types.I64)

    prog = b.inttoptr(at(epi, E_PROGRAM), types.PTR)
    M, nb = at(fields, gemm_kernel.D_M), at(fields, gemm_kernel.D_NB)
    full = b.icmp_signed(">=", ncols, c64(nv))
    last_col = b.select(full, c64(nv - 1), b.sub(ncols, c64(1)))
    with for_range(b, 0, at(prog, P_COUNT), name="pc") as pc:
        base = b.add(c64(P_CODE), b.mul(pc, c64(WIDTH)))
        op, dst, x, y = (at(prog, b.add(base, c64(q))) for q in range(WIDTH))
        dptr, xptr, yptr = (b.gep(regs, [b.mul(r, c64(tile))], source_etype=sty) for r in (dst, x, y))
        done = b.append_basic_block("op.done")
        sw = b.switch(op, done)
        load_bb = b.append_basic_block("op.load")
        sw.add_case(c64(OP_LOAD), load_bb)
        b.position_at_end(load_bb)
        operand = b.inttoptr(at(epi, b.add(c64(E_OPERANDS), x)), types.PTR)
        _load(b, sty, MR, nv, dptr, operand, prog, y, fields, bt, m0, n0, M, nb, full, last_col, acc, rest,
              _Reader(sty, None))
        b.branch(done)
        pred_bb = b.append_basic_block("op.load_pred")
        sw.add_case(c64(OP_LOAD_PRED), pred_bb)
        b.position_at_end(pred_bb)
        operand = b.inttoptr(at(epi, b.add(c64(E_OPERANDS), x)), types.PTR)
        _load(b, sty, MR, nv, dptr, operand, prog, y, fields, bt, m0, n0, M, nb, full, last_col, acc, rest,
              _Reader(types.I8, ct))
        b.branch(done)
        for code, reader in ((OP_SCALAR, _Reader(sty, None)), (OP_SCALAR_PRED, _Reader(types.I8, ct))):
            scalar_bb = b.append_basic_block("op.scalar")
            sw.add_case(c64(code), scalar_bb)
            b.position_at_end(scalar_bb)
            operand = b.inttoptr(at(epi, b.add(c64(E_OPERANDS), x)), types.PTR)
            boff = _batch_offset(b, prog, y, fields, bt, nb, acc, rest)
            value = reader.read(b, b.gep(operand, [boff], source_etype=reader.ty))
            b.store(value, b.gep(scalars, [b.sub(dst, c64(MAX_REGS))], source_etype=sty))
            b.branch(done)
        for name in ELEMENTWISE:
            if not supports(name, ct):
                continue
            bb = b.append_basic_block(f"op.{name}")
            sw.add_case(c64(op_code(name)), bb)
            b.position_at_end(bb)
            if name in UNARY_OPS:
                _elementwise(b, name, ct, sty, tile, dptr, xptr, None)
            else:
                _binary(b, name, ct, sty, tile, dptr, (x, xptr), (y, yptr), scalars)
            b.branch(done)
        b.position_at_end(done)
    b.ret(b.gep(regs, [b.mul(at(prog, P_RESULT), c64(tile))], source_etype=sty))


def _binary(b: ir.IRBuilder, name: str, ct: ElementType, sty: ir.Type, tile: int, dptr: ir.Value,
            x: tuple[ir.Value, ir.Value], y: tuple[ir.Value, ir.Value], scalars: ir.Value) -> None:
    """A binary op with a scalar register on the right, on the left, or none."""
    def scalar(reg: ir.Value) -> ir.Value:
        return b.load(b.gep(scalars, [b.sub(reg, c64(MAX_REGS))], source_etype=sty), typ=sty)
    with b.if_else(b.icmp_signed(">=", y[0], c64(MAX_REGS))) as (y_scalar, y_tile):
        with y_scalar:
            _elementwise(b, name, ct, sty, tile, dptr, x[1], None, right=scalar(y[0]))
        with y_tile:
            with b.if_else(b.icmp_signed(">=", x[0], c64(MAX_REGS))) as (x_scalar, both):
                with x_scalar:
                    _elementwise(b, name, ct, sty, tile, dptr, None, y[1], left=scalar(x[0]))
                with both:
                    _elementwise(b, name, ct, sty, tile, dptr, x[1], y[1])


def _elementwise(b: ir.IRBuilder, name: str, ct: ElementType, sty: ir.Type, tile: int, dptr: ir.Value,
                 xptr: ir.Value | None, yptr: ir.Value | None, left: ir.Value | None = None,
                 right: ir.Value | None = None) -> None:
    """dst[e] = op(x[e], y[e]) over the tile (x or y a scalar when `left` / `right` is given),
    through the elemental path's scalar emitters (and its rounding step), so the result is
    the unfused one bit for bit."""
    from hlotools.backend.llvm.llvm_ir.arith import BINARY, UNARY, compare_values
    with for_range(b, 0, tile, name="e") as e:
        x = left if xptr is None else b.load(b.gep(xptr, [e], source_etype=sty), typ=sty)
        assert x is not None
        out = b.gep(dptr, [e], source_etype=sty)
        if name in UNARY_OPS:
            r = UNARY[name](b, x, ct)
        else:
            y = right if yptr is None else b.load(b.gep(yptr, [e], source_etype=sty), typ=sty)
            if name in BINARY_OPS:
                r = BINARY[name](b, x, y, ct)
            elif name == "move":
                r = y
            elif name == "select":
                r = b.select(_truth(b, x, ct), y, b.load(out, typ=sty))
            else:
                r = _one_zero(b, compare_values(b, name.split(".")[1], x, y, ct), ct)
        if ct.kind == "float" and name in UNARY_OPS + BINARY_OPS:
            r = types.round_to(b, r, ct)
        b.store(r, out)


def _one_zero(b: ir.IRBuilder, flag: ir.Value, ct: ElementType) -> ir.Value:
    return b.select(flag, types.constant(ct, 1), types.constant(ct, 0))


def _truth(b: ir.IRBuilder, v: ir.Value, ct: ElementType) -> ir.Value:
    """A pred register's value (exactly 1 or 0) as i1."""
    if ct.kind == "float":
        return b.fcmp_unordered("!=", v, types.constant(ct, 0))
    return b.icmp_unsigned("!=", v, types.constant(ct, 0))


@dataclass(frozen=True)
class _Reader:
    """How OP_LOAD reads an operand element: the compute type itself, or a pred byte
    (`pred_of` = the compute type it becomes 1 / 0 in)."""

    ty: ir.Type
    pred_of: ElementType | None

    def read(self, b: ir.IRBuilder, ptr: ir.Value) -> ir.Value:
        raw = b.load(ptr, typ=self.ty)
        if self.pred_of is None:
            return raw
        from hlotools.ir.types import ELEMENT_TYPES
        return _one_zero(b, types.from_storage(b, raw, ELEMENT_TYPES["pred"]), self.pred_of)


def _batch_offset(b: ir.IRBuilder, prog: ir.Value, rec: ir.Value, fields: ir.Value, bt: ir.Value, nb: ir.Value,
                  acc: ir.Value, rest: ir.Value) -> ir.Value:
    """The element offset of batch element bt in the operand of record `rec` (bt
    delinearised as the kernel does, the last batch dim fastest)."""
    from hlotools.backend.llvm.kernels import gemm as gemm_kernel

    def at(base: ir.Value, k: ir.Value) -> ir.Value:
        return b.load(b.gep(base, [k], source_etype=types.I64), typ=types.I64)
    b.store(c64(0), acc)
    b.store(bt, rest)
    with for_range(b, 0, nb, name="lb") as j:
        jj = b.sub(b.sub(nb, c64(1)), j)
        size = at(fields, b.add(c64(gemm_kernel.D_BATCH), b.mul(jj, c64(gemm_kernel.BATCH_FIELDS))))
        r = b.load(rest, typ=types.I64)
        b.store(b.udiv(r, size), rest)
        st = at(prog, b.add(rec, b.add(c64(2), jj)))
        b.store(b.add(b.load(acc, typ=types.I64), b.mul(b.urem(r, size), st)), acc)
    return b.load(acc, typ=types.I64)


def _load(b: ir.IRBuilder, sty: ir.Type, MR: int, nv: int, dptr: ir.Value, operand: ir.Value,  # noqa: N803
          prog: ir.Value, rec: ir.Value, fields: ir.Value, bt: ir.Value, m0: ir.Value, n0: ir.Value,
          M: ir.Value, nb: ir.Value, full: ir.Value, last_col: ir.Value, acc: ir.Value,  # noqa: N803
          rest: ir.Value, reader: _Reader) -> None:
    """OP_LOAD / OP_LOAD_PRED: the operand's values at the tile's (batch, rows, columns) into dst."""

    def at(base: ir.Value, k: ir.Value) -> ir.Value:
        return b.load(b.gep(base, [k], source_etype=types.I64), typ=types.I64)

    rs, cs = at(prog, rec), at(prog, b.add(rec, c64(1)))
    boff = b.add(_batch_offset(b, prog, rec, fields, bt, nb, acc, rest), b.mul(n0, cs))
    contiguous = b.and_(full, b.icmp_signed("==", cs, c64(1)))
    with for_range(b, 0, MR, name="lr") as r:
        rr = b.add(m0, r)
        rr = b.select(b.icmp_signed("<", rr, M), rr, b.sub(M, c64(1)))
        row = b.gep(operand, [b.add(boff, b.mul(rr, rs))], source_etype=reader.ty)
        out = b.gep(dptr, [b.mul(r, c64(nv))], source_etype=sty)
        with b.if_else(b.icmp_signed("==", cs, c64(0))) as (same, varies):
            with same:  # a scalar or a per-row value: one load, vector stores
                v = reader.read(b, row)
                with for_range(b, 0, nv, name="ls") as j:
                    b.store(v, b.gep(out, [j], source_etype=sty))
            with varies:
                with b.if_else(contiguous) as (then, other):
                    with then:
                        with for_range(b, 0, nv, name="lj") as j:
                            b.store(reader.read(b, b.gep(row, [j], source_etype=reader.ty)),
                                    b.gep(out, [j], source_etype=sty))
                    with other:  # strided, or the last partial panel (columns clamped)
                        with for_range(b, 0, nv, name="lk") as j:
                            col = b.select(b.icmp_signed("<", j, last_col), j, last_col)
                            v = reader.read(b, b.gep(row, [b.mul(col, cs)], source_etype=reader.ty))
                            b.store(v, b.gep(out, [j], source_etype=sty))
