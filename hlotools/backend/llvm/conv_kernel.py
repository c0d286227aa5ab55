"""The module-independent half of emit_conv_gemm's convolution: im2col and the kernel's
panel packing as generic, descriptor-driven LLVM functions, one pair per compute type,
so a module's convolution only fills two descriptors and calls them (then the GEMM kernel),
as its dots call gemm_kernel.py's kernel. The JIT takes them from the runtime library
(group `conv.<type>`, compiled once per machine: runtime_library.py); AOT objects define
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
evenly; outside [0, input size) the element is padding: 0.

    void conv.pack.<type>(ptr desc, i64 begin, i64 end)

copies the kernel into the GEMM kernel's panel-major B for panels [begin, end): element
(kk, o) -> dst[(o / NV) * K * NV + kk * NV + o % NV], kk row-major over up to
MAX_SPATIAL + 1 kernel levels (size, stride), zeros for o >= N.
"""
from __future__ import annotations

import llvmlite.ir as ir

from hlotools.backend.llvm import emit_types as T
from hlotools.backend.llvm import parallel as par
from hlotools.backend.llvm import runtime_library as RL
from hlotools.backend.llvm.emit_loops import c64, for_range
from hlotools.ir.types import ElementType

MAX_SPATIAL = 3
LEVELS = MAX_SPATIAL + 1  # kernel levels: the spatial dims and the input feature dim
# im2col descriptor (i64 slots)
(I_IN, I_A, I_M, I_K, I_S0, I_IN_BS, I_PLAIN) = range(7)
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


def im2col_name(ct: ElementType) -> str:
    return f"conv.im2col.{ct.name}"


def pack_name(ct: ElementType) -> str:
    return f"conv.pack.{ct.name}"


def group_name(ct: ElementType) -> str:
    """The runtime library group defining both functions of `ct`."""
    return f"conv.{ct.name}"


def functions(module: ir.Module, ct: ElementType) -> tuple[ir.Function, ir.Function]:
    """(im2col, pack) of `ct` in `module`: declared while the JIT compiles (the runtime
    library defines them once per process), else defined here (internal)."""
    out = []
    for name, build in ((im2col_name(ct), _build_im2col), (pack_name(ct), _build_pack)):
        fn = module.globals.get(name)
        if fn is None:
            fn = ir.Function(module, par.WORKER_TYPE, name)
            if not RL.external():
                fn.linkage = "internal"
                build(fn, ct)
        out.append(fn)
    return out[0], out[1]


def define_runtime(module: ir.Module, ct: ElementType) -> list[str]:
    """The runtime library's group `conv.<type>`: both functions, exported."""
    names = []
    for name, build in ((im2col_name(ct), _build_im2col), (pack_name(ct), _build_pack)):
        fn = ir.Function(module, par.WORKER_TYPE, name)
        build(fn, ct)
        names.append(name)
    return names


class _Desc:
    """Reads i64 slots of a descriptor (loads in the entry block: hoisted once per call)."""

    def __init__(self, b: ir.IRBuilder, desc: ir.Value) -> None:
        self.b = b
        self.p = b.bitcast(desc, T.I64.as_pointer())

    def __call__(self, k: int) -> ir.Value:
        return self.b.load(self.b.gep(self.p, [c64(k)], source_etype=T.I64), typ=T.I64)

    def ptr(self, k: int) -> ir.Value:
        return self.b.inttoptr(self(k), T.PTR)


def _build_im2col(fn: ir.Function, ct: ElementType) -> None:
    sty = T.value_type(ct)
    desc, begin, end = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    f = _Desc(b, desc)
    src, dst = f.ptr(I_IN), f.ptr(I_A)
    M, K, s0, in_bs, plain = f(I_M), f(I_K), f(I_S0), f(I_IN_BS), f(I_PLAIN)
    pos = [[f(I_POS + POS_FIELDS * p + j) for j in range(POS_FIELDS)] for p in range(MAX_SPATIAL)]
    lev = [[f(I_LEV + LEV_FIELDS * q + j) for j in range(LEV_FIELDS)] for q in range(LEVELS)]
    base = b.alloca(T.I64, size=c64(LEVELS), name="base")  # per output position; slot MAX_SPATIAL is 0
    b.store(c64(0), b.gep(base, [c64(MAX_SPATIAL)], source_etype=T.I64))
    zero = T.constant(ct, 0)
    n1, n2 = pos[1][0], pos[2][0]
    mper = b.mul(n1, n2)
    with for_range(b, begin, end, name="task") as t:
        bi = b.udiv(t, s0)
        o0 = b.urem(t, s0)
        inb = b.gep(src, [b.mul(bi, in_bs)], source_etype=sty)
        b.store(b.sub(b.mul(o0, pos[0][1]), pos[0][2]), base)
        with for_range(b, 0, n1, name="o1") as o1:
            b.store(b.sub(b.mul(o1, pos[1][1]), pos[1][2]), b.gep(base, [c64(1)], source_etype=T.I64))
            with for_range(b, 0, n2, name="o2") as o2:
                b.store(b.sub(b.mul(o2, pos[2][1]), pos[2][2]), b.gep(base, [c64(2)], source_etype=T.I64))
                mi = b.add(b.mul(o0, mper), b.add(b.mul(o1, n2), o2))
                row = b.gep(dst, [b.mul(b.add(b.mul(bi, M), mi), K)], source_etype=sty)
                _levels(b, 0, lev, base, ir.Constant(T.I1, 1), c64(0), c64(0), inb, row, plain, zero, sty)
    b.ret_void()


def _level_position(b: ir.IRBuilder, lv: list[ir.Value], base: ir.Value, k: ir.Value, inside: ir.Value,
                    off: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(inside, input offset) after kernel level `lv` at index k: emit_conv.input_position."""
    size, link, wdil, bdil, in_size, in_stride, rev = lv
    kp = b.select(b.icmp_unsigned("!=", rev, c64(0)), b.sub(b.sub(size, c64(1)), k), k)
    p = b.add(b.load(b.gep(base, [link], source_etype=T.I64), typ=T.I64), b.mul(kp, wdil))
    # a base dilation divides (a branch, not a select: no division on the common path)
    pre = b.block
    with b.if_then(b.icmp_signed(">", bdil, c64(1))):
        even = b.icmp_signed("==", b.srem(p, bdil), c64(0))
        q = b.sdiv(p, bdil)
        dil = b.block
    ok = b.phi(T.I1)
    ok.add_incoming(ir.Constant(T.I1, 1), pre)
    ok.add_incoming(even, dil)
    pd = b.phi(T.I64)
    pd.add_incoming(p, pre)
    pd.add_incoming(q, dil)
    inside, p = b.and_(inside, ok), pd
    inside = b.and_(inside, b.and_(b.icmp_signed(">=", p, c64(0)), b.icmp_signed("<", p, in_size)))
    lo = b.select(b.icmp_signed("<", p, c64(0)), c64(0), p)
    top = b.sub(in_size, c64(1))
    clamped = b.select(b.icmp_signed(">", lo, top), top, lo)
    return inside, b.add(off, b.mul(clamped, in_stride))


def _levels(b: ir.IRBuilder, q: int, lev: list[list[ir.Value]], base: ir.Value, inside: ir.Value,
            off: ir.Value, col: ir.Value, inb: ir.Value, row: ir.Value, plain: ir.Value, zero: ir.Value,
            sty: ir.Type) -> None:
    """Kernel levels q.. for one output position: the last writes row[col * size + k]."""
    size = lev[q][L_SIZE]
    if q < LEVELS - 1:
        with for_range(b, 0, size, name=f"k{q}") as k:
            ins, o = _level_position(b, lev[q], base, k, inside, off)
            _levels(b, q + 1, lev, base, ins, o, b.add(b.mul(col, size), k), inb, row, plain, zero, sty)
        return
    out = b.gep(row, [b.mul(col, size)], source_etype=sty)
    stride = lev[q][L_IN_STRIDE]
    # the input feature dim innermost (channels-last): every element inside, a strided copy
    with b.if_else(b.icmp_unsigned("!=", plain, c64(0))) as (then, other):
        with then:
            with b.if_else(inside) as (copy, pad):
                with copy:
                    first = b.gep(inb, [off], source_etype=sty)
                    with for_range(b, 0, size, name="kc") as k:
                        x = b.load(b.gep(first, [b.mul(k, stride)], source_etype=sty), typ=sty)
                        b.store(x, b.gep(out, [k], source_etype=sty))
                with pad:
                    with for_range(b, 0, size, name="kz") as k:
                        b.store(zero, b.gep(out, [k], source_etype=sty))
        with other:
            with for_range(b, 0, size, name="kg") as k:
                ins, o = _level_position(b, lev[q], base, k, inside, off)
                x = b.load(b.gep(inb, [o], source_etype=sty), typ=sty)
                b.store(b.select(ins, x, zero), b.gep(out, [k], source_etype=sty))


def _build_pack(fn: ir.Function, ct: ElementType) -> None:
    sty = T.value_type(ct)
    desc, begin, end = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    f = _Desc(b, desc)
    src, dst = f.ptr(P_SRC), f.ptr(P_DST)
    K, N, nv, so = f(P_K), f(P_N), f(P_NV), f(P_SO)
    lev = [(f(P_LEV + 2 * q), f(P_LEV + 2 * q + 1)) for q in range(LEVELS)]
    zero = T.constant(ct, 0)
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
