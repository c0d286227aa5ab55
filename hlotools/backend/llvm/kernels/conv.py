"""The module-independent half of emit_conv_gemm's convolution: im2col and the kernel's
panel packing as generic, descriptor-driven LLVM functions, one pair per compute type,
so a module's convolution only fills two descriptors (three stores each: the fields are a
constant of the module) and calls them (then the GEMM kernel),
as its dots call kernels/gemm.py's kernel. The JIT takes them from the runtime library
(group `conv.<type>`, compiled once per machine: kernels/library.py); AOT objects define
them inside (internal). Why: generated per convolution, with static dims, these loop nests
were ~60% of big_conv's LLVM time (two convs: ~46 ms for the im2col workers, ~15 ms for the
packing loops in the entry function, of ~98 ms CPU).

    void conv.im2col.<type>(ptr desc, i64 begin, i64 end)     (parallel.WORKER_TYPE)

fills rows of A = [batch][M][K] for tasks [begin, end) of (batch element, index along the
first output spatial dim in physical order), exactly as emit_conv_gemm's generated im2col
does (same row and column order: the GEMM then sums in the same order, bit for bit):
rows run over the output positions in the output's physical order, columns over the
kernel's (spatial..., input feature) dims in the kernel's physical order. Up to MAX_SPATIAL
spatial dims: the unused position levels (size 1) and kernel levels (size 1, at the front)
cost nothing. Every kernel level reads one input dim; its position there is
`base[link] + k' * window_dilation` (k' = k, or size-1-k when reversed), where base[link] =
out_pos * stride - padding_low of the output spatial dim it pairs with, or 0 (link =
MAX_SPATIAL) for the input feature dim; with a base dilation the position must divide
evenly; outside [0, input size) the element is padding: 0. Speed (the generated im2col
had constant dims): the positions of every (output index, kernel index) pair of each level
are tabulated once per call (TABLE), the innermost levels are copies (I_MODE: a whole
span of kernel-row x channels, the channels, a clipped strided run, or checked elements),
and the body has no memcpy/memset idioms (short spans). Measured A/B in one process
(CPU): big_conv 1.00-1.01x, cnn_nchw_avgpool 1.00x, train_step_cnn 1.00x, cnn_mnist
1.00-1.05x, conv_variants 1.04x (its lhs_dilate conv: ~10 us).

    void conv.tables.<type>(ptr desc)
    void conv.rows.<type>(ptr desc, i64 batch, i64 row0, i64 row1, ptr dst)

the same rows, for a GEMM that fills A itself (kernels/gemm.py's D_FILL): `tables` writes
the position tables once per call into the descriptor's D_TABLES buffer (TABLES_SLOTS
i64), then the GEMM's tasks call `rows` (their fill) for rows [row0, row1) of one batch
element, written to dst row after row. Every entry runs one nest over a row range (the
output position carried from row to row).

    void conv.pack.<type>(ptr desc, i64 begin, i64 end)

copies the kernel into the GEMM kernel's panel-major B for panels [begin, end): element
(kk, o) -> dst[(o / NV) * K * NV + kk * NV + o % NV], kk row-major over up to
MAX_SPATIAL + 1 kernel levels (size, stride), zeros for o >= N.
"""
from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ir

from hlotools.backend.llvm.kernels import library as runtime_library
from hlotools.backend.llvm.kernels import parallel_for
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range
from hlotools.ir.types import ElementType

MAX_SPATIAL = 3
(D_STATIC, D_SRC, D_DST, D_TABLES) = range(4)  # the descriptor the functions take (_Desc); D_TABLES: rows only
DESC_SLOTS = 4
LEVELS = MAX_SPATIAL + 1  # kernel levels: the spatial dims and the input feature dim
# im2col descriptor (i64 slots)
(I_IN, I_A, I_M, I_K, I_S0, I_IN_BS, I_MODE) = range(7)
# how the innermost levels run (I_MODE): per element, checked; a simple innermost level (no
# dilation, no reversal, as the input feature dim always is: a strided copy clipped to the
# input); a simple spatial level over a contiguous input feature level (one span per pair)
(MODE_GENERAL, MODE_SIMPLE, MODE_SPAN, MODE_FEATURE) = range(4)  # FEATURE: the feature level innermost
I_POS = 7  # MAX_SPATIAL position levels: out size, window stride, padding low
POS_FIELDS = 3
I_LEV = I_POS + POS_FIELDS * MAX_SPATIAL  # LEVELS kernel levels:
(L_SIZE, L_LINK, L_WDIL, L_BDIL, L_IN_SIZE, L_IN_STRIDE, L_REV) = range(7)
LEV_FIELDS = 7
IM2COL_FIELDS = I_LEV + LEV_FIELDS * LEVELS
# pack descriptor
(P_SRC, P_DST, P_K, P_N, P_NV, P_SO) = range(6)
P_LEV = 6  # LEVELS kernel levels: size, source stride
PACK_FIELDS = P_LEV + 2 * LEVELS
TABLE = 512  # entries per kernel level of im2col's position tables (i64, on the stack or in D_TABLES)


TABLES_SLOTS = LEVELS * TABLE + 1  # the `tables` entry's buffer: the tables, then whether they fit
ROWS_TYPE = ir.FunctionType(ir.VoidType(), [types.PTR, types.I64, types.I64, types.I64, types.PTR])
TABLES_TYPE = ir.FunctionType(ir.VoidType(), [types.PTR])


def im2col_name(ct: ElementType) -> str:
    return f"conv.im2col.{ct.name}"


def pack_name(ct: ElementType) -> str:
    return f"conv.pack.{ct.name}"


def rows_name(ct: ElementType) -> str:
    return f"conv.rows.{ct.name}"


def tables_name(ct: ElementType) -> str:
    return f"conv.tables.{ct.name}"


def group_name(ct: ElementType) -> str:
    """The runtime library group defining the functions of `ct`."""
    return f"conv.{ct.name}"


def _entries(ct: ElementType) -> tuple[tuple[str, ir.FunctionType, Callable[[ir.Function, ElementType], None]], ...]:
    return ((im2col_name(ct), parallel_for.WORKER_TYPE, _build_im2col), (pack_name(ct), parallel_for.WORKER_TYPE, _build_pack),
            (tables_name(ct), TABLES_TYPE, _build_tables_entry), (rows_name(ct), ROWS_TYPE, _build_rows))


def function(module: ir.Module, ct: ElementType, name: str) -> ir.Function:
    """The group's function `name` (im2col_name(ct), ...) in `module`: declared while the JIT
    compiles (the runtime library defines it once per process), else defined here (internal)."""
    fn = module.globals.get(name)
    if fn is None:
        fnty, build = next((t, f) for n, t, f in _entries(ct) if n == name)
        fn = ir.Function(module, fnty, name)
        if not runtime_library.external():
            fn.linkage = "internal"
            build(fn, ct)
    return fn


def define_runtime(module: ir.Module, ct: ElementType) -> list[str]:
    """The runtime library's group `conv.<type>`: its functions, exported."""
    names = []
    for name, fnty, build in _entries(ct):
        build(ir.Function(module, fnty, name), ct)
        names.append(name)
    return names


class _Desc:
    """Reads a descriptor: {ptr to the static i64 fields, source pointer, destination
    pointer} (D_*). The fields are a constant of the calling module, so a convolution costs
    the module three stores, not ~50 (LLVM time); the fields' pointer slots (I_IN, I_A,
    P_SRC, P_DST) are unused there. Loads in the entry block: once per call."""

    def __init__(self, b: ir.IRBuilder, desc: ir.Value) -> None:
        self.b = b
        self.d = desc
        self.p = b.load(b.gep(desc, [c64(D_STATIC)], source_etype=types.PTR), typ=types.PTR)

    def __call__(self, k: int) -> ir.Value:
        return self.b.load(self.b.gep(self.p, [c64(k)], source_etype=types.I64), typ=types.I64)

    def slot(self, j: int) -> ir.Value:
        """Descriptor slot j (D_*) as a pointer."""
        return self.b.load(self.b.gep(self.d, [c64(j)], source_etype=types.PTR), typ=types.PTR)

    def ptr(self, k: int) -> ir.Value:
        """The source (k = I_IN or P_SRC) or destination (I_A, P_DST) pointer."""
        return self.b.load(self.b.gep(self.d, [c64(D_SRC + k)], source_etype=types.PTR), typ=types.PTR)


_BODY_TYPE = ir.FunctionType(ir.VoidType(), [types.PTR, types.I64, types.I64, types.I64, types.PTR, types.PTR,
                                               types.PTR])


def _internals(module: ir.Module, ct: ElementType) -> tuple[ir.Function, ir.Function, ir.Function]:
    """(body, computed, tables): the internal functions every im2col entry calls, defined once
    per module. body and computed fill rows [r0, r1) of batch element bi, row r0 at `dst`:
    void(desc, bi, r0, r1, src, dst, tables); body looks positions up in `tables`, computed
    computes them (tables too big: optimised for size, as LLVM's unswitching of its many
    invariant branches multiplied the group's build time by ~3, to ~0.8 s). The input and A
    are `noalias` arguments: the copy loops then need no run-time overlap checks (A is
    scratch, never the input). tables: bool(desc, tables), _build_tables."""
    prefix = f"conv.im2col.{ct.name}"
    found = module.globals.get(f"{prefix}.body")
    if found is not None:
        return found, module.globals[f"{prefix}.computed"], module.globals[f"{prefix}.tables"]

    def internal(name: str, fnty: ir.FunctionType, small: bool) -> ir.Function:
        g = ir.Function(module, fnty, f"{prefix}.{name}")
        g.linkage = "internal"
        g.attributes.add("noinline")
        if small:
            g.attributes.add("optsize")
        # no memcpy/memset idioms: the copy and zero loops are short (a few channels), and a
        # libc call there costs more than the loop (measured: ~2x on 1-channel convs)
        set.add(g.attributes, '"no-builtins"')  # llvmlite only knows the enum attributes
        return g
    body = internal("body", _BODY_TYPE, False)
    slow = internal("computed", _BODY_TYPE, True)
    fill = internal("tables", ir.FunctionType(types.I1, [types.PTR, types.PTR]), True)
    for g in (body, slow):
        for a in g.args[4:6]:
            a.add_attribute("noalias")
    _build_im2col_body(body, ct, True)
    _build_im2col_body(slow, ct, False)
    _build_tables(fill)
    return body, slow, fill


def _build_im2col(fn: ir.Function, ct: ElementType) -> None:
    """The worker: the position tables on the stack, once per call, then each task's rows
    (one index along the first output spatial dim of one batch element)."""
    body, slow, fill = _internals(fn.module, ct)
    desc, begin, end = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    f = _Desc(b, desc)
    s0, K = f(I_S0), f(I_K)
    mper = b.udiv(f(I_M), s0)
    sty = types.value_type(ct)
    src, dst = f.ptr(I_IN), f.ptr(I_A)
    tables = b.alloca(types.I64, size=c64(LEVELS * TABLE), name="tables")
    fits = b.call(fill, [desc, tables])
    with b.if_else(fits) as (fast, computed):
        for branch, nest in ((fast, body), (computed, slow)):
            with branch:
                with for_range(b, begin, end, name="task") as t:
                    # task t: rows [t * mper, (t + 1) * mper) of A's [batch * M] rows
                    row = b.gep(dst, [b.mul(b.mul(t, mper), K)], source_etype=sty)
                    r0 = b.mul(b.urem(t, s0), mper)
                    b.call(nest, [desc, b.udiv(t, s0), r0, b.add(r0, mper), src, row, tables])
    b.ret_void()


def _build_tables_entry(fn: ir.Function, ct: ElementType) -> None:
    """void tables(desc): the position tables into the descriptor's D_TABLES buffer
    (TABLES_SLOTS i64), its last slot saying whether they fit; once per convolution call,
    before the GEMM's tasks call `rows` (which only read them)."""
    _, _, fill = _internals(fn.module, ct)
    (desc,) = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    tables = _Desc(b, desc).slot(D_TABLES)
    fits = b.call(fill, [desc, tables])
    b.store(b.zext(fits, types.I64), b.gep(tables, [c64(LEVELS * TABLE)], source_etype=types.I64))
    b.ret_void()


def _build_rows(fn: ir.Function, ct: ElementType) -> None:
    """void rows(desc, bi, r0, r1, dst): rows [r0, r1) of batch element bi, row r0 at dst (the
    GEMM kernel's fill: a task's buffer, per chunk of its row blocks), with the tables
    `tables` left in D_TABLES (A's pointer in the descriptor is not used)."""
    body, slow, _ = _internals(fn.module, ct)
    desc, bi, r0, r1, dst = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    f = _Desc(b, desc)
    tables = f.slot(D_TABLES)
    fits = b.load(b.gep(tables, [c64(LEVELS * TABLE)], source_etype=types.I64), typ=types.I64)
    args = [desc, bi, r0, r1, f.ptr(I_IN), dst, tables]
    with b.if_else(b.icmp_unsigned("!=", fits, c64(0))) as (fast, computed):
        with fast:
            b.call(body, args)
        with computed:
            b.call(slow, args)
    b.ret_void()


def _build_im2col_body(fn: ir.Function, ct: ElementType, use_tables: bool) -> None:
    """The loop over the output positions of rows [r0, r1) of batch element bi (row-major
    over the output spatial dims in physical order: the indices are carried from row to
    row); with `use_tables` it looks positions up in the tables."""
    sty = types.value_type(ct)
    desc, bi, r0, r1, src, dst, tables = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    f = _Desc(b, desc)
    K, in_bs, mode = f(I_K), f(I_IN_BS), f(I_MODE)
    pos = [[f(I_POS + POS_FIELDS * p + j) for j in range(POS_FIELDS)] for p in range(MAX_SPATIAL)]
    lev = [[f(I_LEV + LEV_FIELDS * q + j) for j in range(LEV_FIELDS)] for q in range(LEVELS)]
    base = b.alloca(types.I64, size=c64(LEVELS), name="base")  # per output position; slot MAX_SPATIAL is 0
    b.store(c64(0), b.gep(base, [c64(MAX_SPATIAL)], source_etype=types.I64))
    oidx = b.alloca(types.I64, size=c64(LEVELS), name="oidx")  # the output position; slot MAX_SPATIAL is 0
    b.store(c64(0), b.gep(oidx, [c64(MAX_SPATIAL)], source_etype=types.I64))
    tab = (tables, oidx) if use_tables else None
    zero = types.constant(ct, 0)
    n1, n2 = pos[1][0], pos[2][0]
    mper = b.mul(n1, n2)
    inb = b.gep(src, [b.mul(bi, in_bs)], source_etype=sty)
    rem = b.urem(r0, mper)
    first = (b.udiv(r0, mper), b.udiv(rem, n2), b.urem(rem, n2))

    def at(arr: ir.Value, p: int) -> ir.Value:
        return b.gep(arr, [c64(p)], source_etype=types.I64)

    def place(p: int, o: ir.Value) -> None:
        b.store(o, at(oidx, p))
        b.store(b.sub(b.mul(o, pos[p][1]), pos[p][2]), at(base, p))
    for p in range(MAX_SPATIAL):
        place(p, first[p])
    with for_range(b, r0, r1, name="row") as mi:
        row = b.gep(dst, [b.mul(b.sub(mi, r0), K)], source_etype=sty)
        _levels(b, 0, lev, base, ir.Constant(types.I1, 1), c64(0), c64(0), inb, row, mode, zero, sty, tab)

        def advance(p: int) -> None:
            """The next output position: index p + 1, or 0 and carry into p - 1."""
            nxt = b.add(b.load(at(oidx, p), typ=types.I64), c64(1))
            with b.if_else(b.icmp_unsigned("<", nxt, pos[p][0])) as (step, carry):
                with step:
                    place(p, nxt)
                with carry:
                    place(p, c64(0))
                    if p > 0:
                        advance(p - 1)
        advance(MAX_SPATIAL - 1)
    b.ret_void()


def _build_tables(fn: ir.Function) -> None:
    """bool tables(desc, tables): per kernel level, (input offset * 2 + inside) of every
    (output index along the position level it pairs with, kernel index), when they all fit
    TABLE entries (else false, nothing written): the position work then leaves the
    per-output-position loops."""
    desc, tables = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    f = _Desc(b, desc)
    pos = [[f(I_POS + POS_FIELDS * p + j) for j in range(POS_FIELDS)] for p in range(MAX_SPATIAL)]
    lev = [[f(I_LEV + LEV_FIELDS * q + j) for j in range(LEV_FIELDS)] for q in range(LEVELS)]
    sizes = b.alloca(types.I64, size=c64(LEVELS), name="pos.sizes")
    for p in range(MAX_SPATIAL):
        b.store(pos[p][0], b.gep(sizes, [c64(p)], source_etype=types.I64))
    b.store(c64(1), b.gep(sizes, [c64(MAX_SPATIAL)], source_etype=types.I64))
    fits: ir.Value = ir.Constant(types.I1, 1)
    counts = []
    for lv in lev:
        n = b.load(b.gep(sizes, [lv[L_LINK]], source_etype=types.I64), typ=types.I64)
        counts.append(n)
        fits = b.and_(fits, b.icmp_unsigned("<=", b.mul(n, lv[L_SIZE]), c64(TABLE)))
    base = b.alloca(types.I64, size=c64(LEVELS), name="tbase")
    with b.if_then(fits):
        for q, lv in enumerate(lev):
            tab = b.gep(tables, [c64(q * TABLE)], source_etype=types.I64)
            with for_range(b, 0, counts[q], name=f"to{q}") as o:
                # the base of this output index, in slot `link` (the others are never read)
                b.store(b.sub(b.mul(o, _pick(b, pos, lv[L_LINK], 1)), _pick(b, pos, lv[L_LINK], 2)),
                        b.gep(base, [lv[L_LINK]], source_etype=types.I64))
                with for_range(b, 0, lv[L_SIZE], name=f"tk{q}") as k:
                    ins, off = _level_position(b, lv, base, k, ir.Constant(types.I1, 1), c64(0))
                    v = b.add(b.shl(off, c64(1)), b.zext(ins, types.I64))
                    b.store(v, b.gep(tab, [b.add(b.mul(o, lv[L_SIZE]), k)], source_etype=types.I64))
    b.ret(fits)


def _pick(b: ir.IRBuilder, pos: list[list[ir.Value]], link: ir.Value, field: int) -> ir.Value:
    """pos[link][field], 0 for link MAX_SPATIAL (the input feature dim)."""
    v: ir.Value = c64(0)
    for p in range(MAX_SPATIAL):
        v = b.select(b.icmp_unsigned("==", link, c64(p)), pos[p][field], v)
    return v


def undilated(b: ir.IRBuilder, p: ir.Value, bdil: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(p divides by the base dilation bdil, p / bdil), emit_conv.input_position's test (also
    reduce_window_kernel's). Branches, not selects: no division on the common paths (bdil 1);
    a power of two, as in stride-2 transposed convolutions, is a shift and a mask, which
    differ from sdiv only at holes, where nothing is read."""
    bm1 = b.sub(bdil, c64(1))
    pre = b.block
    dilated = b.append_basic_block("bd.dilated")
    shifted = b.append_basic_block("bd.pow2")
    divided = b.append_basic_block("bd.div")
    merge = b.append_basic_block("bd.merge")
    b.cbranch(b.icmp_signed(">", bdil, c64(1)), dilated, merge)
    b.position_at_end(dilated)
    b.cbranch(b.icmp_signed("==", b.and_(bdil, bm1), c64(0)), shifted, divided)
    b.position_at_end(shifted)
    cttz = b.module.globals.get("llvm.cttz.i64") or ir.Function(
        b.module, ir.FunctionType(types.I64, [types.I64, types.I1]), "llvm.cttz.i64")
    even2 = b.icmp_signed("==", b.and_(p, bm1), c64(0))
    q2 = b.ashr(p, b.call(cttz, [bdil, ir.Constant(types.I1, 1)]))
    b.branch(merge)
    b.position_at_end(divided)
    even = b.icmp_signed("==", b.srem(p, bdil), c64(0))
    q = b.sdiv(p, bdil)
    b.branch(merge)
    b.position_at_end(merge)
    ok = b.phi(types.I1)
    pd = b.phi(types.I64)
    for blk, o, v in ((pre, ir.Constant(types.I1, 1), p), (shifted, even2, q2), (divided, even, q)):
        ok.add_incoming(o, blk)
        pd.add_incoming(v, blk)
    return ok, pd


def _level_position(b: ir.IRBuilder, lv: list[ir.Value], base: ir.Value, k: ir.Value, inside: ir.Value,
                    off: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(inside, input offset) after kernel level `lv` at index k: emit_conv.input_position."""
    size, link, wdil, bdil, in_size, in_stride, rev = lv
    kp = b.select(b.icmp_unsigned("!=", rev, c64(0)), b.sub(b.sub(size, c64(1)), k), k)
    p = b.add(b.load(b.gep(base, [link], source_etype=types.I64), typ=types.I64), b.mul(kp, wdil))
    ok, p = undilated(b, p, bdil)
    inside = b.and_(inside, ok)
    inside = b.and_(inside, b.and_(b.icmp_signed(">=", p, c64(0)), b.icmp_signed("<", p, in_size)))
    lo = b.select(b.icmp_signed("<", p, c64(0)), c64(0), p)
    top = b.sub(in_size, c64(1))
    clamped = b.select(b.icmp_signed(">", lo, top), top, lo)
    return inside, b.add(off, b.mul(clamped, in_stride))


def _levels(b: ir.IRBuilder, q: int, lev: list[list[ir.Value]], base: ir.Value, inside: ir.Value,
            off: ir.Value, col: ir.Value, inb: ir.Value, row: ir.Value, mode: ir.Value, zero: ir.Value,
            sty: ir.Type, tab: tuple[ir.Value, ir.Value] | None = None) -> None:
    """Kernel levels q.. for one output position: the last writes row[col * size + k]."""
    size = lev[q][L_SIZE]
    if q == LEVELS - 2:
        # a simple spatial level over a channels-last feature level: one contiguous span
        with b.if_else(b.icmp_unsigned("==", mode, c64(MODE_SPAN))) as (then, other):
            with then:
                inner = lev[q + 1][L_SIZE]
                lo, hi = _valid_range(b, lev[q], base, inside)
                first = b.gep(inb, [b.add(off, b.mul(b.add(_base(b, lev[q], base), lo), lev[q][L_IN_STRIDE]))],
                              source_etype=sty)
                out = b.gep(row, [b.mul(col, b.mul(size, inner))], source_etype=sty)
                _span(b, out, first, b.mul(lo, inner), b.mul(hi, inner), b.mul(size, inner), c64(1), zero, sty)
            with other:
                _level_loop(b, q, lev, base, inside, off, col, inb, row, mode, zero, sty, tab)
        return
    if q < LEVELS - 1:
        _level_loop(b, q, lev, base, inside, off, col, inb, row, mode, zero, sty, tab)
        return
    out = b.gep(row, [b.mul(col, size)], source_etype=sty)
    stride = lev[q][L_IN_STRIDE]
    general = b.append_basic_block("k.general")
    simple = b.append_basic_block("k.simple")
    done = b.append_basic_block("k.done")
    feature = b.append_basic_block("k.feature")
    sw = b.switch(mode, simple)
    sw.add_case(c64(MODE_GENERAL), general)
    sw.add_case(c64(MODE_FEATURE), feature)
    b.position_at_end(feature)  # the input feature dim: all of it, or all padding
    with b.if_else(inside) as (copy, pad):
        with copy:
            first = b.gep(inb, [off], source_etype=sty)
            with for_range(b, 0, size, name="kf") as k:
                x = b.load(b.gep(first, [b.mul(k, stride)], source_etype=sty), typ=sty)
                b.store(x, b.gep(out, [k], source_etype=sty))
        with pad:
            with for_range(b, 0, size, name="kz") as k:
                b.store(zero, b.gep(out, [k], source_etype=sty))
    b.branch(done)
    b.position_at_end(simple)  # no dilation, no reversal: a strided copy clipped to the input
    lo, hi = _valid_range(b, lev[q], base, inside)
    first = b.gep(inb, [b.add(off, b.mul(b.add(_base(b, lev[q], base), lo), stride))], source_etype=sty)
    _span(b, out, first, lo, hi, size, stride, zero, sty)
    b.branch(done)
    b.position_at_end(general)
    with for_range(b, 0, size, name="kg") as k:
        ins, o = _position(b, q, lev[q], base, k, inside, off, tab)
        x = b.load(b.gep(inb, [o], source_etype=sty), typ=sty)
        b.store(b.select(ins, x, zero), b.gep(out, [k], source_etype=sty))
    b.branch(done)
    b.position_at_end(done)


def _level_loop(b: ir.IRBuilder, q: int, lev: list[list[ir.Value]], base: ir.Value, inside: ir.Value,
                off: ir.Value, col: ir.Value, inb: ir.Value, row: ir.Value, mode: ir.Value, zero: ir.Value,
                sty: ir.Type, tab: tuple[ir.Value, ir.Value] | None) -> None:
    size = lev[q][L_SIZE]
    with for_range(b, 0, size, name=f"k{q}") as k:
        ins, o = _position(b, q, lev[q], base, k, inside, off, tab)
        _levels(b, q + 1, lev, base, ins, o, b.add(b.mul(col, size), k), inb, row, mode, zero, sty, tab)


def _position(b: ir.IRBuilder, q: int, lv: list[ir.Value], base: ir.Value, k: ir.Value, inside: ir.Value,
              off: ir.Value, tab: tuple[ir.Value, ir.Value] | None) -> tuple[ir.Value, ir.Value]:
    """(inside, input offset) after level q at index k: from the tables when given."""
    if tab is None:
        return _level_position(b, lv, base, k, inside, off)
    tables, oidx = tab
    o = b.load(b.gep(oidx, [lv[L_LINK]], source_etype=types.I64), typ=types.I64)
    v = b.load(b.gep(tables, [b.add(c64(q * TABLE), b.add(b.mul(o, lv[L_SIZE]), k))], source_etype=types.I64),
               typ=types.I64)
    return (b.and_(inside, b.trunc(v, types.I1)), b.add(off, b.lshr(v, c64(1))))


def _base(b: ir.IRBuilder, lv: list[ir.Value], base: ir.Value) -> ir.Value:
    return b.load(b.gep(base, [lv[L_LINK]], source_etype=types.I64), typ=types.I64)


def _valid_range(b: ir.IRBuilder, lv: list[ir.Value], base: ir.Value, inside: ir.Value) -> tuple[ir.Value, ir.Value]:
    """[lo, hi): the k of a simple spatial level (no dilation, no reversal) whose position
    base + k lies in [0, input size); empty when the outer levels are outside already."""
    size, in_size = lv[L_SIZE], lv[L_IN_SIZE]
    bp = _base(b, lv, base)
    lo = _clamp(b, b.sub(c64(0), bp), c64(0), size)
    hi = _clamp(b, b.sub(in_size, bp), lo, size)
    return b.select(inside, lo, size), b.select(inside, hi, size)


def _clamp(b: ir.IRBuilder, x: ir.Value, lo: ir.Value, hi: ir.Value) -> ir.Value:
    x = b.select(b.icmp_signed("<", x, lo), lo, x)
    return b.select(b.icmp_signed(">", x, hi), hi, x)


def _span(b: ir.IRBuilder, out: ir.Value, first: ir.Value, lo: ir.Value, hi: ir.Value, n: ir.Value,
          stride: ir.Value, zero: ir.Value, sty: ir.Type) -> None:
    """out[0:lo] = 0, out[lo:hi] = first[(k - lo) * stride], out[hi:n] = 0 (a lone copy loop
    when the whole span is inside: the common case, cheapest for short spans)."""
    whole = b.and_(b.icmp_signed("==", lo, c64(0)), b.icmp_signed("==", hi, n))
    with b.if_else(whole) as (then, other):
        with then:
            with for_range(b, 0, n, name="kw") as k:
                x = b.load(b.gep(first, [b.mul(k, stride)], source_etype=sty), typ=sty)
                b.store(x, b.gep(out, [k], source_etype=sty))
        with other:
            _clipped_span(b, out, first, lo, hi, n, stride, zero, sty)


def _clipped_span(b: ir.IRBuilder, out: ir.Value, first: ir.Value, lo: ir.Value, hi: ir.Value, n: ir.Value,
                  stride: ir.Value, zero: ir.Value, sty: ir.Type) -> None:
    with for_range(b, 0, lo, name="zl") as k:
        b.store(zero, b.gep(out, [k], source_etype=sty))
    src = b.gep(first, [b.sub(c64(0), b.mul(lo, stride))], source_etype=sty)
    with for_range(b, lo, hi, name="kc") as k:
        x = b.load(b.gep(src, [b.mul(k, stride)], source_etype=sty), typ=sty)
        b.store(x, b.gep(out, [k], source_etype=sty))
    with for_range(b, hi, n, name="zh") as k:
        b.store(zero, b.gep(out, [k], source_etype=sty))


def _build_pack(fn: ir.Function, ct: ElementType) -> None:
    sty = types.value_type(ct)
    desc, begin, end = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    f = _Desc(b, desc)
    src, dst = f.ptr(P_SRC), f.ptr(P_DST)
    K, N, nv, so = f(P_K), f(P_N), f(P_NV), f(P_SO)
    lev = [(f(P_LEV + 2 * q), f(P_LEV + 2 * q + 1)) for q in range(LEVELS)]
    zero = types.constant(ct, 0)
    with for_range(b, begin, end, name="panel") as pj:
        n0 = b.mul(pj, nv)
        panel = b.gep(dst, [b.mul(n0, K)], source_etype=sty)

        def level(q: int, off: ir.Value, kk: ir.Value) -> None:
            if q == LEVELS:
                out = b.gep(panel, [b.mul(kk, nv)], source_etype=sty)
                with for_range(b, 0, nv, name="lane") as j:
                    o = b.add(n0, j)
                    ok = b.icmp_signed("<", o, N)
                    x = b.load(b.gep(src, [b.add(off, b.mul(b.select(ok, o, c64(0)), so))], source_etype=sty),
                               typ=sty)
                    b.store(b.select(ok, x, zero), b.gep(out, [j], source_etype=sty))
                return
            size, stride = lev[q]
            with for_range(b, 0, size, name=f"p{q}") as k:
                level(q + 1, b.add(off, b.mul(k, stride)), b.add(b.mul(kk, size), k))
        level(0, c64(0), c64(0))
    b.ret_void()
