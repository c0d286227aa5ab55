"""The generated GEMM micro-kernel: one LLVM function per compute type, shared by every dot
of that type (sizes and strides are run-time values from a descriptor, so a module with many
dots compiles one kernel, not one per dot: compile time). The JIT goes further: each variant
is a group of the runtime library (kernels/library.py), compiled once per machine, and modules
only declare it; AOT objects define it inside (internal).

    void gemm.<type>(ptr desc, i64 begin, i64 end)     (parallel.WORKER_TYPE)

runs tasks [begin, end) of the dot described by `desc` (i64 slots, see the D_* indices and
D_FIELDS). The register block (Blocking: MR rows x V vectors of L lanes, NV = V * L result
columns per panel of B) is chosen per ISA level from one table, REGISTER_FILES, so that the
accumulators fit the register file (16 ymm at AVX2, 32 zmm at AVX-512, 16 xmm at SSE); the
kernel's name carries it. A task is (batch element, group of D_PPT panels, chunk of row
blocks): for each block of MR rows and each panel of its group it keeps V*MR vector
accumulators in registers over the whole k loop (V B vector loads and MR broadcasts of A
per step), then stores the tile. With one panel per task, iterating row blocks inside a
panel keeps the panel (K x NV) of B hot in L1 while A streams; with all panels in one task
(a big A and a small B: lower/gemm.py's panels_per_task) each row block of A is read once.
A may be produced by the tasks themselves (D_FILL, FILL_TYPE: a convolution's im2col), a
chunk of rows at a time into a per-task buffer that stays in cache.

B is read in place when its columns are contiguous (row stride b_rs, panels NV apart; the
last partial panel then comes from a small zero-padded copy, `tail`, K x NV per batch, so
vector loads never run past the buffer), or from a packed copy in panel-major order
(panels K * NV apart, rows NV apart: contiguous, no 4 KiB-stride cache set conflicts). In
place, the tasks can pack it themselves (D_PACK): a task then runs its panels one after the
other, the first row block of each storing the rows of B it loads into the task's buffer,
the others reading them back. Rows past M are clamped for reads and skipped for stores;
a tile with columns past N or a column stride (a result read transposed) is stored element
by element through a stack tile, column after column.

The descriptor's D_EPI slot points at an epilogue (gemm_epilogue.py: a small elementwise
program over the finished tile, run before the store: bias, activation, residual of a kOutput
fusion), or is 0: then nothing else changes (one branch per tile; the k loop's machine code is
the same instruction for instruction). The epilogue's interpreter is part of this group's
code, so the runtime library's fingerprint covers gemm_epilogue.py and llvm_ir/ (arith.py,
math_ops.py) too (library.sources()).

Each k step is acc = llvm.fma(a, b, acc) where the target has FMA (one rounding, the same bits
at every such level: x86-64-v3, v4, any CPU name with FMA): 20-25% less CPU than fmul + fadd on
the big benchmarks here (AVX-512), a little less at x86-64-v3. Without FMA (x86-64-v2, and
x86-64 itself) llvm.fma is a libm call per lane, ~20x slower than the two instructions, so
there the step is fmul then fadd (two roundings: the `.nofma` variant; its results differ
from the fused levels' in the last bits, within the dot tolerance); _mul_add has the figures.

A NaN of the finished tile becomes the canonical NaN (canonical_nan) before the epilogue and
the stores: which payload a chain of multiply-adds keeps depends on how LLVM orders and
commutes it per target, and the epilogue must see the dot's value as an unfused one would.
"""
from __future__ import annotations

from dataclasses import dataclass

import llvmlite.ir as ir

from hlotools.backend.llvm.kernels import gemm_epilogue, parallel_for
from hlotools.backend.llvm.kernels import library as runtime_library
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range
from hlotools.ir.types import ElementType

(D_A, D_B, D_C, D_TAIL, D_M, D_N, D_K, D_A_RS, D_A_CS, D_B_RS, D_C_RS, D_C_CS, D_PANELS, D_RCHUNKS, D_RPC,
 D_NB, D_B_PS, D_PPT, D_FILL_BLOCKS) = range(19)
D_BATCH = 19  # then per batch dim: size, a stride, b stride, c stride, tail stride
BATCH_FIELDS = 5
# The descriptor itself is {A, B, C, tail, fields, epilogue, fill, fill argument}: the four
# pointers (i64) of a call, a pointer to the other slots above, a constant of the calling
# module (8 stores per dot instead of 18 + 5 per batch dim: LLVM time of every module with
# dots), the epilogue block's address or 0 (gemm_epilogue.py), and A's producer or 0 with
# its argument (FILL_TYPE).
D_FIELDS = 4
D_EPI = 5
D_FILL = 6
D_FILL_ARG = 7
# D_PACK: the tasks' panel buffers or 0. A task then runs its panels one after the other, each
# over all its row blocks; its first row block reads the panel of B in place and stores every
# row it loads into the task's buffer (at D_PACK + t * K * NV elements, K x NV), which the
# other row blocks read back contiguously (no 4 KiB-stride set conflicts; the packing is
# spread over the threads and overlaps the multiply-adds instead of a serial copy of all of B
# before the kernel). The k loops are the same chains of mul_add, so the same bits.
D_PACK = 8
DESC_SLOTS = 9
# void fill(ptr arg, i64 batch, i64 row0, i64 row1, ptr dst): writes rows [row0, row1) of
# A's batch element `batch` (a convolution's im2col: kernels/conv.py's rows) to dst, row
# after row (D_A_RS apart). The task that reads them calls it D_FILL_BLOCKS row blocks at a
# time, into its own buffer (task t's at A + t * D_FILL_BLOCKS * MR * D_A_RS elements), just
# before it multiplies them: the buffer is reused, so it stays in L2 and the rows never go
# to memory. A task then covers all panels (D_PPT = D_PANELS), so a row is filled once.
FILL_TYPE = ir.FunctionType(ir.VoidType(), [types.PTR, types.I64, types.I64, types.I64, types.PTR])


@dataclass(frozen=True)
class Blocking:
    """A micro-kernel's register block: `rows` (MR) rows of A times `vecs` vectors of `lanes`
    elements of B (a panel of NV = vecs * lanes columns): rows * vecs accumulators, `vecs` B
    vectors and one broadcast of A live in vector registers over the whole k loop."""

    lanes: int
    vecs: int
    rows: int
    fused: bool = True  # each k step one llvm.fma; False: fmul then fadd (targets without FMA)

    def __post_init__(self) -> None:
        assert self.vecs & (self.vecs - 1) == 0 and self.lanes & (self.lanes - 1) == 0, \
            "panels of B are packed by shifts: NV must be a power of two"

    @property
    def nv(self) -> int:
        return self.vecs * self.lanes

    def registers(self) -> int:
        """Vector registers live in the k loop (an unfused step needs one more, its product)."""
        return self.rows * self.vecs + self.vecs + 1 + (0 if self.fused else 1)


@dataclass(frozen=True)
class RegisterFile:
    """One x86 vector ISA level's register file and the block the GEMM kernel uses on it."""

    feature: str  # the feature (LLVM's name) that brings it: the first of REGISTER_FILES present wins
    vector_bytes: int
    registers: int
    vecs: int
    rows: int


# The one table of per-ISA-level blocking. Blocking only regroups output elements (over m
# and n): every element's k loop is the same chain of fma in the same order at every level,
# so the bits are the same (tests/backend/llvm/native/test_feature_levels.py).
# Without FMA the 6x2 block still fits 16 registers with the product's (no spill in the k
# loop at x86-64-v2; f32 512^3 one thread: 376 ms with libm fmaf, ~12-17 ms with fmul + fadd).
# Rows x vectors measured single-threaded on Zen 4 (CPU time, best of 3 processes x 30 calls,
# f32 dots 512^3 / 128x1024x1024 / 1024x1024x256 / 32768x144x32, ms):
#   x86-64-v3: 4x2 2.91 3.82 5.99 9.9, 6x2 2.69 3.74 5.51 9.0; 3x4 (17 registers) 6.1 (spills)
#   x86-64-v4: 4x2 2.69 3.91 5.27 5.6, 8x2 2.73 3.34 5.22 5.5; 12x2 3.06 4.35 6.27
REGISTER_FILES: tuple[RegisterFile, ...] = (
    RegisterFile("avx512f", 64, 32, 2, 8),  # 32 zmm: 16 accumulators + 2 + 1
    RegisterFile("avx", 32, 16, 2, 6),  # 16 ymm: 12 accumulators + 2 + 1 = 15 (+1 unfused: 16)
    RegisterFile("", 16, 16, 2, 6),  # 16 xmm (SSE2, every x86-64; also the default elsewhere)
)


def register_file(features: str) -> RegisterFile:
    """The row of the widest vector ISA in `features` (LLVM's "+a,-b" list)."""
    for rf in REGISTER_FILES:
        if not rf.feature or f"+{rf.feature}" in features.split(","):
            return rf
    raise AssertionError("REGISTER_FILES ends with a catch-all row")


def vector_bytes(features: str) -> int:
    return register_file(features).vector_bytes


def lanes_for(ct: ElementType, features: str) -> int:
    return max(2, vector_bytes(features) // (ct.bits // 8))


def has_fma(features: str) -> bool:
    return "+fma" in features.split(",")


NARROW_MAX_ROWS = 16  # the narrow block's MR cap (kernels/library.py builds r1..r16)


def blocking_for(ct: ElementType, features: str, n: int | None = None) -> Blocking:
    """The register block of compute type `ct` on a target of `features` (fused where the
    target has FMA or the type is no float: integers multiply and add either way) for a dot
    of `n` columns (None: any). A dot of at most one vector of columns gets the narrow block,
    one vector by as many rows as the table's block has accumulators: the table's V vectors
    would be zero padding, V - 1 of every V multiply-adds wasted. Each output element's k
    loop is the same chain, so the bits do not change. Measured on Zen 4 (AVX-512, one
    thread, hlo-run --repeat 300 minima, ms): f32 conv [4,16,16,16] 3x3 16->16 (b01f_01io)
    0.117 -> 0.073, dot 1024x144 . 144x16 0.097 -> 0.054; cnn_train_L8 3.59 -> 2.33."""
    rf = register_file(features)
    fused = ct.kind != "float" or has_fma(features)
    lanes = lanes_for(ct, features)
    if n is not None and n <= lanes and rf.vecs > 1:
        return Blocking(lanes, 1, min(NARROW_MAX_ROWS, rf.rows * rf.vecs), fused)
    return Blocking(lanes, rf.vecs, rf.rows, fused)


def kernel_name(ct: ElementType, blk: Blocking) -> str:
    """The kernel's symbol, which is also its runtime library group (kernels/library.py):
    the name alone decides the code (`.nofma`: the unfused k step)."""
    return f"gemm.{ct.name}.x{blk.lanes}.v{blk.vecs}.r{blk.rows}" + ("" if blk.fused else ".nofma")


def kernel_function(module: ir.Module, ct: ElementType, blk: Blocking) -> ir.Function:
    """The kernel in `module`: declared while the JIT compiles (the runtime library defines
    it once per process: runtime_library.external()), else defined here (internal)."""
    name = kernel_name(ct, blk)
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    fn = ir.Function(module, parallel_for.WORKER_TYPE, name)
    if runtime_library.external():
        return fn
    fn.linkage = "internal"
    _build(fn, ct, blk)
    return fn


def define_runtime(module: ir.Module, ct: ElementType, blk: Blocking) -> list[str]:
    """The runtime library's group for one kernel variant: the kernel, exported."""
    fn = ir.Function(module, parallel_for.WORKER_TYPE, kernel_name(ct, blk))
    _build(fn, ct, blk)
    return [fn.name]


def canonical_nan(b: ir.IRBuilder, v: ir.Value) -> ir.Value:
    """v, or where it is NaN the default quiet NaN with the sign clear (f32 0x7FC00000, f64
    0x7FF8000000000000; f16/bf16 results are that f32 NaN converted): what a dot or
    convolution gives for a NaN element on both backends (interpreter/linalg.py). With several
    NaN operands the payload out of a multiply-add chain depends on how LLVM orders and
    commutes it at each x86 feature level, so no payload is kept. Scalars, vectors and
    complex values (each part); anything else is returned as is. One compare and select per
    stored element, never in a k loop."""
    ty = v.type
    if isinstance(ty, ir.LiteralStructType):
        out = v
        for k in range(len(ty.elements)):
            out = b.insert_value(out, canonical_nan(b, b.extract_value(v, k)), k)
        return out
    scalar = ty.element if isinstance(ty, ir.VectorType) else ty
    if not isinstance(scalar, (ir.FloatType, ir.DoubleType)):
        return v
    nan: ir.Value = ir.Constant(scalar, float("nan"))  # the default quiet NaN, sign clear
    if isinstance(ty, ir.VectorType):
        nan = ir.Constant(ty, [nan] * ty.count)
    return b.select(b.fcmp_unordered("uno", v, v), nan, v)


def _mul_add(b: ir.IRBuilder, x: ir.Value, y: ir.Value, acc: ir.Value, ct: ElementType, fused: bool) -> ir.Value:
    """acc + x*y: `fused`, rounded once (llvm.fma, hardware FMA from x86-64-v3), else fmul
    then fadd for a target without FMA, where llvm.fma is a libm fmaf/fma call per lane. Never
    llvm.fmuladd, which leaves the choice to LLVM's target, so a kernel's name would not decide
    its bits (tests/backend/llvm/native/test_feature_levels.py). Why fma and not
    fmul + fadd (the same bits everywhere too), measured on this 2-core AVX-512 host, A/B
    interleaved, medians of CPU times (bench/run.py --big --no-interp, 5 runs of 20 calls each):
    big_mlp_1024 9.57 -> 7.57 ms, big_attention_256 7.26 -> 5.84 ms, big_conv 11.9 -> 9.7 ms,
    transformer_block 0.272 -> 0.208 ms, llama_block 0.110 -> 0.100 ms; the kernel alone
    (one thread, best CPU of 30): f32 512^3 3.9 -> 2.7 ms, f64 384^3 3.3 -> 2.3 ms at v4,
    3.2 -> 2.9 ms and 2.6 -> 2.5 ms at x86-64-v3, but 8.1 -> 175 ms and 5.6 -> 75 ms at
    x86-64-v2 (libm calls), hence fmul + fadd there. XLA CPU's Eigen kernels fuse too where the
    CPU has FMA, and not elsewhere."""
    if ct.kind == "float" and not fused:
        return b.fadd(acc, b.fmul(x, y))
    if ct.kind == "float":
        ty = x.type
        bits = 64 if ct.name == "f64" else 32
        name = f"llvm.fma.v{ty.count}f{bits}" if isinstance(ty, ir.VectorType) else f"llvm.fma.f{bits}"
        fn = b.module.globals.get(name) or ir.Function(b.module, ir.FunctionType(ty, [ty, ty, ty]), name)
        return b.call(fn, [x, y, acc])
    return b.add(acc, b.mul(x, y))


def _splat(b: ir.IRBuilder, x: ir.Value, vty: ir.VectorType) -> ir.Value:
    v = b.insert_element(ir.Constant(vty, ir.Undefined), x, ir.Constant(types.I32, 0))
    return b.shuffle_vector(v, ir.Constant(vty, ir.Undefined),
                            ir.Constant(ir.VectorType(types.I32, vty.count), [0] * vty.count))


def _build(fn: ir.Function, ct: ElementType, blk: Blocking) -> None:
    L, V, MR = blk.lanes, blk.vecs, blk.rows  # noqa: N806
    sty = types.value_type(ct)
    vty = ir.VectorType(sty, L)
    nv = blk.nv
    desc, begin, end = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    stage = b.alloca(vty, size=c64(MR * V), name="tile")
    regs = b.alloca(vty, size=c64(gemm_epilogue.MAX_REGS * MR * V), name="epi.regs")  # the epilogue's registers
    epilogue = gemm_epilogue.epilogue_function(fn.module, fn.name, ct, nv, MR)
    dp = b.bitcast(desc, types.I64.as_pointer())
    fields = b.load(b.gep(desc, [c64(D_FIELDS)], source_etype=types.PTR), typ=types.PTR)

    def field(k: int | ir.Value) -> ir.Value:
        src = dp if isinstance(k, int) and k < D_FIELDS else fields  # the pointers, or the constant part
        return b.load(b.gep(src, [c64(k) if isinstance(k, int) else k], source_etype=types.I64), typ=types.I64)

    def ptr(k: int) -> ir.Value:
        return b.inttoptr(field(k), types.PTR)

    A, B, C, tail = ptr(D_A), ptr(D_B), ptr(D_C), field(D_TAIL)
    epi = b.load(b.gep(dp, [c64(D_EPI)], source_etype=types.I64), typ=types.I64)
    has_epi = b.icmp_unsigned("!=", epi, c64(0))
    M, N, K = field(D_M), field(D_N), field(D_K)
    a_rs, a_cs, b_rs, c_rs, c_cs = (field(k) for k in (D_A_RS, D_A_CS, D_B_RS, D_C_RS, D_C_CS))
    panels, rchunks, rpc, nb = field(D_PANELS), field(D_RCHUNKS), field(D_RPC), field(D_NB)
    b_ps = field(D_B_PS)  # element distance between panels: NV in place, K * NV when packed as panels
    ppt = field(D_PPT)
    fill_blocks = field(D_FILL_BLOCKS)
    fill = b.load(b.gep(dp, [c64(D_FILL)], source_etype=types.I64), typ=types.I64)
    has_fill = b.icmp_unsigned("!=", fill, c64(0))
    fill_fn = _Callee(b.inttoptr(fill, types.PTR), FILL_TYPE)
    fill_arg = b.inttoptr(b.load(b.gep(dp, [c64(D_FILL_ARG)], source_etype=types.I64), typ=types.I64), types.PTR)
    groups = b.udiv(b.add(panels, b.sub(ppt, c64(1))), ppt)
    mblocks = b.udiv(b.add(M, c64(MR - 1)), c64(MR))
    zero_v = ir.Constant(vty, [0.0 if ct.kind == "float" else 0] * L)
    offs = [b.alloca(types.I64) for _ in range(4)]  # batch offsets of A, B, C, tail (entry block)
    rest = b.alloca(types.I64)
    with for_range(b, begin, end, name="task") as t:
        rc = b.urem(t, rchunks)
        t2 = b.udiv(t, rchunks)
        pg = b.urem(t2, groups)
        bt = b.udiv(t2, groups)
        # batch offsets (a run-time loop over the batch dims, last fastest)
        for o in offs:
            b.store(c64(0), o)
        b.store(bt, rest)
        with for_range(b, 0, nb, name="bd") as j:
            jj = b.sub(b.sub(nb, c64(1)), j)
            base = b.add(c64(D_BATCH), b.mul(jj, c64(BATCH_FIELDS)))
            size = field(base)
            r = b.load(rest, typ=types.I64)
            i = b.urem(r, size)
            b.store(b.udiv(r, size), rest)
            for q, o in enumerate(offs):
                st = field(b.add(base, c64(1 + q)))
                b.store(b.add(b.load(o, typ=types.I64), b.mul(i, st)), o)
        oa, ob, oc, ot = (b.load(o, typ=types.I64) for o in offs)
        rb0 = b.mul(rc, rpc)
        rb1 = b.add(rb0, rpc)
        rb1 = b.select(b.icmp_signed(">", rb1, mblocks), mblocks, rb1)
        pj0 = b.mul(pg, ppt)
        pj1 = b.add(pj0, ppt)
        pj1 = b.select(b.icmp_signed(">", pj1, panels), panels, pj1)

        pack = b.load(b.gep(dp, [c64(D_PACK)], source_etype=types.I64), typ=types.I64)
        packing = b.icmp_unsigned("!=", pack, c64(0))
        pbuf = b.gep(b.inttoptr(pack, types.PTR), [b.mul(t, b.mul(K, c64(nv)))], source_etype=sty)

        def k_loop(src: ir.Value, srs: ir.Value, a_rows: list[ir.Value], dst: ir.Value | None) -> list[ir.Value]:
            """The tile's accumulators after its k loop over the panel at `src` (rows `srs`
            apart); with `dst`, each row of B loaded is also stored there (NV apart)."""
            pre = b.block
            kb = b.append_basic_block("k.body")
            kx = b.append_basic_block("k.exit")
            b.branch(kb)
            b.position_at_end(kb)
            kv = b.phi(types.I64, name="k")
            kv.add_incoming(c64(0), pre)
            accs = []
            for _ in range(V * MR):
                ph = b.phi(vty)
                ph.add_incoming(zero_v, pre)
                accs.append(ph)
            brow = b.gep(src, [b.mul(kv, srs)], source_etype=sty)
            bv = [b.load(b.gep(brow, [c64(j * L)], source_etype=sty), typ=vty, align=ct.bits // 8) for j in range(V)]
            if dst is not None:
                drow = b.gep(dst, [b.mul(kv, c64(nv))], source_etype=sty)
                for j in range(V):
                    b.store(bv[j], b.gep(drow, [c64(j * L)], source_etype=sty), align=ct.bits // 8)
            new = []
            aoff = b.mul(kv, a_cs)
            for r in range(MR):
                av = b.load(b.gep(a_rows[r], [aoff], source_etype=sty), typ=sty)
                sv = _splat(b, av, vty)
                for j in range(V):
                    new.append(_mul_add(b, sv, bv[j], accs[V * r + j], ct, blk.fused))
            kn = b.add(kv, c64(1), flags=["nsw"])
            kv.add_incoming(kn, b.block)
            for ph, v in zip(accs, new):
                ph.add_incoming(v, b.block)
            b.cbranch(b.icmp_signed("<", kn, K), kb, kx)
            b.position_at_end(kx)
            return new

        def tile(rb: ir.Value, pj: ir.Value, oa: ir.Value, first: ir.Value, reuse: ir.Value) -> None:
            """The tile of row block rb and panel pj (row r of A at element oa + r * a_rs).
            `first`: the first of the row blocks the task runs over this panel (which packs
            it when packing), `reuse`: more follow."""
            m0 = b.mul(rb, c64(MR))
            a_rows = []
            for r in range(MR):
                rr = b.add(m0, c64(r))
                rr = b.select(b.icmp_signed("<", rr, M), rr, b.sub(M, c64(1)))  # clamped read
                a_rows.append(b.gep(A, [b.add(oa, b.mul(rr, a_rs))], source_etype=sty))
            n0 = b.mul(pj, c64(nv))
            ncols = b.sub(N, n0)
            full = b.icmp_signed(">=", ncols, c64(nv))
            use_tail = b.and_(b.not_(full), b.icmp_unsigned("!=", tail, c64(0)))
            direct = b.gep(B, [b.add(ob, b.mul(pj, b_ps))], source_etype=sty)
            tailp = b.gep(b.inttoptr(tail, types.PTR), [ot], source_etype=sty)
            panel = b.select(use_tail, tailp, direct)
            prs = b.select(use_tail, c64(nv), b_rs)
            packed = b.and_(b.and_(packing, reuse), b.not_(use_tail))  # this panel goes through the buffer
            store = b.and_(packed, first)
            from_buf = b.and_(packed, b.not_(first))
            src = b.select(from_buf, pbuf, panel)
            srs = b.select(from_buf, c64(nv), prs)
            bs = b.append_basic_block("k.pack")
            bn = b.append_basic_block("k.plain")
            join = b.append_basic_block("k.join")
            b.cbranch(store, bs, bn)
            b.position_at_end(bs)
            got_s = k_loop(panel, prs, a_rows, pbuf)
            end_s = b.block
            b.branch(join)
            b.position_at_end(bn)
            got_n = k_loop(src, srs, a_rows, None)
            end_n = b.block
            b.branch(join)
            b.position_at_end(join)
            new = _merge(b, got_s, end_s, got_n, end_n, vty)
            new = [canonical_nan(b, v) for v in new]  # before the epilogue: it reads the dot's value
            new = _apply_epilogue(b, new, has_epi, epi, regs, epilogue, fields, bt, m0, n0, ncols, vty, ct, blk)
            vec_store = b.and_(full, b.icmp_signed("==", c_cs, c64(1)))
            with b.if_else(vec_store) as (then, other):
                with then:
                    for r in range(MR):
                        rr = b.add(m0, c64(r))
                        with b.if_then(b.icmp_signed("<", rr, M)):
                            crow = b.gep(C, [b.add(oc, b.add(b.mul(rr, c_rs), b.mul(n0, c_cs)))], source_etype=sty)
                            for j in range(V):
                                b.store(new[V * r + j], b.gep(crow, [c64(j)], source_etype=vty), align=ct.bits // 8)
                with other:
                    _store_by_columns(b, new, stage, C, oc, m0, n0, M, b.select(full, c64(nv), ncols), c_rs, c_cs,
                                      sty, vty, blk)

        # row blocks in sub-chunks of D_FILL_BLOCKS, each filled (when there is a fill) first;
        # each sub-chunk's row blocks over its panels (row block outer), or with D_PACK
        # (never with a fill) the panels over all the row blocks (panel outer)
        sub = b.select(has_fill, fill_blocks, b.sub(rb1, rb0))
        sub = b.select(b.icmp_signed("<", sub, c64(1)), c64(1), sub)
        nsub = b.udiv(b.add(b.sub(rb1, rb0), b.sub(sub, c64(1))), sub)
        with for_range(b, 0, nsub, name="sub") as si:
            sb0 = b.add(rb0, b.mul(si, sub))
            sb1 = b.add(sb0, sub)
            sb1 = b.select(b.icmp_signed(">", sb1, rb1), rb1, sb1)
            first = b.mul(sb0, c64(MR))
            buf = b.mul(t, b.mul(sub, c64(MR)))  # the task's buffer: its first row, in rows of A
            with b.if_then(has_fill):
                top = b.mul(sb1, c64(MR))
                b.call(fill_fn, [fill_arg, bt, first, b.select(b.icmp_signed(">", top, M), M, top),
                                 b.gep(A, [b.mul(buf, a_rs)], source_etype=sty)])
            oa_sub = b.select(has_fill, b.mul(b.sub(buf, first), a_rs), oa)
            reuse = b.icmp_signed(">", b.sub(sb1, sb0), c64(1))
            with for_range(b, b.select(packing, pj0, sb0), b.select(packing, pj1, sb1), name="outer") as o:
                lo = b.select(packing, sb0, pj0)
                with for_range(b, lo, b.select(packing, sb1, pj1), name="inner") as i:
                    tile(b.select(packing, i, o), b.select(packing, o, i), oa_sub, b.icmp_signed("==", i, lo), reuse)
    b.ret_void()




def _store_by_columns(b: ir.IRBuilder, tile: list[ir.Value], stage: ir.Value, C: ir.Value, oc: ir.Value,  # noqa: N803
                      m0: ir.Value, n0: ir.Value, M: ir.Value, count: ir.Value, c_rs: ir.Value, c_cs: ir.Value,  # noqa: N803
                      sty: ir.Type, vty: ir.VectorType, blk: Blocking) -> None:
    """The tile's first `count` columns and rows below M, element by element through the
    stage, column after column with the rows inner: a result read transposed (the swapped
    plan's C^T, column stride N) then gets each column's MR consecutive elements in one go,
    where rows outer touched MR * NV cache lines that far apart MR times (4 KiB apart at
    N = 1024: one L1 set). Measured, f32 x[512,256] . W[1024,256]^T on Zen 4, one thread: see
    lower/gemm.py _swaps."""
    MR, V, nv = blk.rows, blk.vecs, blk.nv  # noqa: N806
    for r in range(MR):
        for j in range(V):
            b.store(tile[V * r + j], b.gep(stage, [c64(V * r + j)], source_etype=vty), align=4)
    rows = b.sub(M, m0)
    rows = b.select(b.icmp_signed(">", rows, c64(MR)), c64(MR), rows)
    with for_range(b, 0, count, name="col") as i:
        col = b.gep(C, [b.add(oc, b.mul(b.add(n0, i), c_cs))], source_etype=sty)
        with for_range(b, 0, rows, name="row") as r:
            x = b.load(b.gep(stage, [b.add(b.mul(r, c64(nv)), i)], source_etype=sty), typ=sty)
            b.store(x, b.gep(col, [b.mul(b.add(m0, r), c_rs)], source_etype=sty))


def _apply_epilogue(b: ir.IRBuilder, tile: list[ir.Value], has_epi: ir.Value, epi: ir.Value, regs: ir.Value,
                    epilogue: ir.Function, fields: ir.Value, bt: ir.Value, m0: ir.Value, n0: ir.Value,
                    ncols: ir.Value, vty: ir.VectorType, ct: ElementType, blk: Blocking) -> list[ir.Value]:
    """The tile after the epilogue when there is one (register 0 := the accumulators, run the
    program, read the result register back), else the accumulators themselves."""
    sty = types.value_type(ct)
    L, V, MR, nv = blk.lanes, blk.vecs, blk.rows, blk.nv  # noqa: N806
    pre = b.block
    run = b.append_basic_block("epi.run")
    join = b.append_basic_block("epi.join")
    b.cbranch(has_epi, run, join)
    b.position_at_end(run)
    align = ct.bits // 8
    for r in range(MR):
        for j in range(V):
            b.store(tile[V * r + j], b.gep(regs, [c64(V * r + j)], source_etype=vty), align=align)
    res = b.call(epilogue, [regs, b.inttoptr(epi, types.PTR), fields, bt, m0, n0, ncols])
    out = [b.load(_vec(b, res, r * nv + j * L, sty, vty), typ=vty, align=align) for r in range(MR) for j in range(V)]
    last = b.block
    b.branch(join)
    b.position_at_end(join)
    return _merge(b, tile, pre, out, last, vty)


def _merge(b: ir.IRBuilder, xs: list[ir.Value], x_from: ir.Block, ys: list[ir.Value], y_from: ir.Block,
           vty: ir.VectorType) -> list[ir.Value]:
    """Phis joining the vectors xs (reaching from block x_from) and ys (from y_from)."""
    merged = []
    for x, y in zip(xs, ys):
        ph = b.phi(vty)
        ph.add_incoming(x, x_from)
        ph.add_incoming(y, y_from)
        merged.append(ph)
    return merged


def _vec(b: ir.IRBuilder, base: ir.Value, k: int, sty: ir.Type, vty: ir.VectorType) -> ir.Value:
    """The vector at element k of an element array."""
    return b.gep(b.gep(base, [c64(k)], source_etype=sty), [c64(0)], source_etype=vty)


class _Callee:
    """Lets IRBuilder.call emit an indirect call through an opaque pointer of a known type."""

    def __init__(self, ptr: ir.Value, fnty: ir.FunctionType) -> None:
        self.ptr = ptr
        self.function_type = fnty

    def __getattr__(self, name: str) -> object:
        return getattr(self.ptr, name)
