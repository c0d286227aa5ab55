"""reduce-window through the runtime library's kernel (kernels/reduce_window.py) instead of
an elemental loop nest of its own: the module fills a descriptor (a constant of i64 fields
and three pointers) and calls `reduce_window.<type>`, on several threads when big
(hlo.parallel_for; inside a concurrent set of codegen/concurrent.py the call is the member's
last parallel_for, which the set merges). No LLVM code is generated for the loop.

When (`plan`): a reduce-window with one operand and one init value of the same element type
(f32, f64, 8- to 64-bit integers), a reducer that is add, multiply, maximum or minimum of its
two parameters (either order), rank 1..MAX_RANK, at most CAP window elements, no window
reversal, the operand in memory (not generated inside the loop); or an elemental fusion
whose root is such a reduce-window of fusion parameters (XLA's wrapped reduce-window).
Anything else (variadic reducers, other reducers, narrow floats, an elementwise producer
fused into the reduce-window) keeps emit_reduce's elemental loop.

Speed rule (`worth_it`): the kernel vectorises across outputs along the innermost output
dim when consecutive outputs read consecutive inputs there (unit input step: window stride
1, input stride 1; unit output stride), as NHWC pooling's channels, and is used only there,
for rows of at least CHUNK_BYTES; otherwise it reads one element at a time and the loop
stays (figures in worth_it).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import layout_of
from hlotools.backend.llvm.codegen import outline
from hlotools.backend.llvm.codegen.elemental import constant_value
from hlotools.backend.llvm.codegen.function import KERNEL_LOOPS, FunctionEmitter
from hlotools.backend.llvm.kernels import parallel_for
from hlotools.backend.llvm.kernels import reduce_window as reduce_window_kernel
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64, strides
from hlotools.ir.attributes import Window, WindowDim
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.patterns import binary_reducer_opcode
from hlotools.ir.shape import Shape
from hlotools.ir.types import ElementType

# "auto": the speed rule decides; "always": every eligible reduce-window (tests); "never":
# the elemental loop everywhere (tests, A/B measurements)
_MODE: ContextVar[str] = ContextVar("hlotools_llvm_reduce_window_kernel", default="auto")


@contextmanager
def kernel_mode(mode: str) -> Iterator[None]:
    """Force the choice between the kernel and the elemental loop ('always', 'never') or
    leave it to the speed rule ('auto') while compiling inside this context."""
    if mode not in ("auto", "always", "never"):
        raise ValueError(f"reduce-window kernel mode {mode!r}")
    tok = _MODE.set(mode)
    try:
        yield
    finally:
        _MODE.reset(tok)


@dataclass
class Plan:
    """What the kernel call needs: the descriptor's fields and where the values come from."""

    fields: list[int]
    et: ElementType
    operand: Instruction  # the materialised operand (outside a fusion)
    operand_shape: Shape
    init: Instruction  # the init value's instruction (in this computation or the fused one)
    init_outer: Instruction | None  # the fusion operand bound to it, when it is a fused parameter
    tasks: int
    work: int
    unit: bool


def reducer_op(comp: object, et: ElementType) -> str | None:
    """The opcode of a reducer `f(a, b) = op(a, b)` (either order) of scalars of `et` with
    op one of the kernel's, else None."""
    op = binary_reducer_opcode(comp)
    if op not in reduce_window_kernel.OPS:
        return None
    assert isinstance(comp, Computation) and comp.root is not None
    if any(s.is_tuple or s.dims or s.element_type != et for s in (*(p.shape for p in comp.parameters), comp.root.shape)):
        return None
    return op


def plan(fe: FunctionEmitter, inst: Instruction) -> Plan | None:
    """The kernel's plan for a reduce-window or a wrapped reduce-window fusion, or None."""
    rw, operand, init, init_outer = inst, None, None, None
    if inst.opcode == "fusion":
        comp = inst.attrs.get("calls")
        root = comp.root if isinstance(comp, Computation) else None
        if root is None or root.opcode != "reduce-window" or len(root.operands) != 2:
            return None
        rw = root
        x, i = root.operands
        if x.opcode != "parameter":
            return None
        operand = inst.operands[x.parameter_number or 0]
        if i.opcode == "parameter":
            init_outer = inst.operands[i.parameter_number or 0]
        elif i.opcode != "constant":
            return None
        init = i
    elif inst.opcode == "reduce-window" and len(inst.operands) == 2:
        operand, init = inst.operands
    else:
        return None
    if operand is None or init is None or not fe.is_materialised(operand):
        return None
    return _plan(rw, inst.shape, operand, init, init_outer)


def _plan(rw: Instruction, out: Shape, operand: Instruction, init: Instruction,
          init_outer: Instruction | None) -> Plan | None:
    src = operand.shape
    et = out.element_type
    if out.is_tuple or src.is_tuple or et is None or not reduce_window_kernel.supported_type(et.name):
        return None
    if src.element_type != et or init.shape.is_tuple or init.shape.dims or init.shape.element_type != et:
        return None
    op = reducer_op(rw.attrs.get("to_apply"), et)
    window = rw.attrs.get("window")
    rank = len(src.dims)
    if op is None or not 1 <= rank <= reduce_window_kernel.MAX_RANK or out.dims != rw.shape.dims or len(out.dims) != rank:
        return None
    wdims = window.dims if isinstance(window, Window) and window.dims else tuple(WindowDim(1) for _ in src.dims)
    if len(wdims) != rank or any(w.window_reversal for w in wdims):
        return None
    count = 1
    for w in wdims:
        count *= w.size
    elems = 1
    for n in out.dims:
        elems *= n
    if count > reduce_window_kernel.CAP or elems == 0:
        return None
    fields, tasks, unit = descriptor_fields(reduce_window_kernel.OPS.index(op), src, out, wdims)
    return Plan(fields, et, operand, src, init, init_outer, tasks, elems * count, unit)


def descriptor_fields(op: int, src: Shape, out: Shape, wdims: tuple[WindowDim, ...]) -> tuple[list[int], int, bool]:
    """The kernel's i64 fields (reduce_window_kernel's F_*, R_*, W_* layout), the number of
    tasks (rows) and whether the innermost level runs as vectors."""
    rank = len(src.dims)
    ist, ost = strides(src), strides(out)
    pad = reduce_window_kernel.MAX_RANK - rank  # logical dim d lives in slot pad + d
    physical = list(reversed(layout_of(out)))  # major -> minor
    big = [d for d in physical if out.dims[d] > 1]
    order = [d for d in physical if out.dims[d] == 1] + big  # the innermost level has size > 1 if any
    rows: list[tuple[int, ...]] = [reduce_window_kernel.DUMMY_ROW] * (reduce_window_kernel.MAX_RANK - rank)
    for d in order:
        lo, hi = interior(wdims[d], src.dims[d], out.dims[d])
        rows.append((out.dims[d], wdims[d].stride * ist[d], ost[d], lo, hi, pad + d))
    win: list[tuple[int, ...]] = [reduce_window_kernel.DUMMY_WIN] * pad
    for d, w in enumerate(wdims):
        win.append((w.size, w.stride, w.padding_low, w.window_dilation, w.base_dilation, src.dims[d], ist[d]))
    count = 1
    for w in wdims:
        count *= w.size
    base0 = -sum(w.padding_low * ist[d] for d, w in enumerate(wdims))
    j = rows[-1]
    unit = j[reduce_window_kernel.R_IN_STEP] == 1 and j[reduce_window_kernel.R_OUT_STRIDE] == 1 and j[reduce_window_kernel.R_SIZE] > 1
    fields = [op, count, base0, int(unit), *(x for r in rows for x in r), *(x for w_ in win for x in w_)]
    assert len(fields) == reduce_window_kernel.FIELDS
    tasks = 1
    for r in rows[:-1]:
        tasks *= r[reduce_window_kernel.R_SIZE]
    return fields, tasks, unit


def interior(w: WindowDim, in_size: int, out_size: int) -> tuple[int, int]:
    """[lo, hi): the output indices whose window positions along this dim all read real
    elements (no padding; empty with a base dilation)."""
    if w.base_dilation != 1:
        return 0, 0
    lo = max(0, -(-w.padding_low // w.stride))
    top = in_size - 1 + w.padding_low - (w.size - 1) * w.window_dilation
    hi = min(out_size, top // w.stride + 1) if top >= 0 else 0
    lo = min(lo, out_size)
    return lo, max(lo, hi)


def worth_it(p: Plan) -> bool:
    """The compile-time speed rule, from the descriptor's structure: the kernel when the
    innermost output dim runs as vectors (unit steps) at least CHUNK_BYTES wide (a row has
    a fixed cost of ~40 cycles: the row loop, the offset list, the masked remainder) for at
    least 3/4 of its indices (the rest are edges whose windows leave the base: one checked
    list per element).

    Measured in the modules (perf samples of the kernel against the JIT loop's code, one
    thread, 300-20000 calls, two runs each): big_conv's max-pool (NHWC 2x2 stride 2, C=32)
    0.8x and 1.3x (noise: the module's run time is 0.99-1.01x either way, the pool being
    ~2% of it); reductions.hlo's 16x1 window over 64 columns 0.25x; cnn_mnist's two pools
    (C=8 and C=16: rows of 32 and 64 bytes) ~4-9x (5-10 us against ~1 us per call), hence
    the width condition. Standalone modules (raw entry calls, interleaved medians, one
    thread): NHWC 2x2 stride 2 C=32 1.13x, C=64 1.13-1.25x, its sum 1.17-1.20x (the loop
    has constant offsets; the kernel the same vector code reading its offset list); 3x3
    stride 2 pad 1 C=32 0.89x; NCHW 3x3 stride 1 pad 1 sum 0.34x; the cumulative max along
    the major dim 0.36x. Not taken (one element at a time): NCHW 2x2 stride 2 (stride 2
    along the minor dim) 5-15x, the cumulative sum along the minor dim (63 of 64 indices
    are edges) 1.5x."""
    mode = _MODE.get()
    if mode != "auto":
        return mode == "always"
    nj, lo, hi = (p.fields[reduce_window_kernel.F_ROW + reduce_window_kernel.ROW_FIELDS * (reduce_window_kernel.MAX_RANK - 1) + f] for f in (reduce_window_kernel.R_SIZE, reduce_window_kernel.R_LO, reduce_window_kernel.R_HI))
    wide = nj * max(1, p.et.bits // 8) >= reduce_window_kernel.CHUNK_BYTES
    return p.unit and wide and 4 * (hi - lo) >= 3 * nj


def emit(fe: FunctionEmitter, inst: Instruction) -> bool:
    """Emit `inst` as a kernel call when it is eligible and worth it; False leaves it to the
    elemental loop."""
    if _MODE.get() == "never":
        return False
    p = plan(fe, inst)
    if p is None or not worth_it(p):
        return False
    b = fe.b
    fn = reduce_window_kernel.function(fe.mc.ir, p.et)
    init_value = fe.gen.value_at(p.init_outer, []) if p.init_outer is not None else (
        constant_value(p.init) if p.init.opcode == "constant" else fe.gen.value_at(p.init, []))
    slot = fe.in_entry().alloca(types.storage_type(p.et), name="rw.init")
    b.store(types.to_storage(b, init_value, p.et), slot)
    desc = _descriptor(fe, p.fields, fe.leaf_ptrs(p.operand)[0], fe.leaf_ptrs(inst)[0], slot)
    if parallel_for.worth_parallel(p.work) and p.tasks > 1:
        outline.call_parallel_for(fe, fn, desc, p.tasks)
    else:
        b.call(fn, [desc, c64(0), c64(p.tasks)])
    return True


def _descriptor(fe: FunctionEmitter, fields: list[int], src: ir.Value, dst: ir.Value, init: ir.Value) -> ir.Value:
    """{fields (a private constant of the module), src, dst, init} in the entry block's frame."""
    ty = ir.ArrayType(types.I64, len(fields))
    g = ir.GlobalVariable(fe.mc.ir, ty, fe.mc.unique_name("reduce_window.fields"))
    g.global_constant = True
    g.linkage = "private"
    g.initializer = ir.Constant(ty, fields)
    desc = fe.in_entry().alloca(types.PTR, size=c64(4), name="rw.desc")
    for k, v in ((reduce_window_kernel.D_STATIC, g), (reduce_window_kernel.D_SRC, src), (reduce_window_kernel.D_DST, dst), (reduce_window_kernel.D_INIT, init)):
        fe.b.store(fe.b.bitcast(v, types.PTR), fe.b.gep(desc, [c64(k)], source_etype=types.PTR))
    return fe.b.bitcast(desc, types.PTR)


for _op in ("reduce-window", "fusion"):
    KERNEL_LOOPS.setdefault(_op, []).append(emit)
