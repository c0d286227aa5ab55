"""kOutput fusions (a dot or convolution D with an elementwise consumer chain: bias, ReLU,
GELU, residual; the fusion pass's epilogue-fusion and CPU's matrix-vector dot + add) without
calling the fused computation as a function. Three ways, chosen at compile time (`decide`):

* "epilogue": D runs through the generated GEMM (emit_gemm.gemm_into) or the im2col + GEMM
  convolution (emit_conv_gemm.conv_into) straight into the fusion's output buffer, and the
  kernel applies the rest of the computation to each register tile before storing it: an
  epilogue program (epilogue_program.py) interpreted by the runtime library's kernel
  (gemm_epilogue.py), so the module gets no loop of its own for it. Needs the generated
  kernel writing the result in place (not BLAS, no staged or converted C) and every node of
  the epilogue supported.
* "in_place": otherwise, when D is planned as a GEMM and reaches the ROOT only through
  elementwise ops of its dims (the contract; the element at an index then needs D only at
  that index), D is written into the output buffer as a standalone D would be, then one loop
  over the output computes the ROOT from D's value at each index before overwriting it.
* None: anything else (D not planned as a GEMM, other layouts or types at the output, data
  movement of D's value): the caller calls the fused computation as a function.

The epilogue is taken for results of EPILOGUE_MIN_BYTES or more and programs of at most
EPILOGUE_MAX_INSTRUCTIONS (otherwise the in-place loop is faster at run time; see there). The output buffer never shares memory with an operand
(buffers.py gives in-place sharing only to dynamic-update-slice roots), so writing D there
first is safe. HLOTOOLS_EPILOGUE=0 turns the epilogue off (A/B measurements); `epilogues()`
sets the size or turns it off in a context (tests).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import layout_of
from hlotools.backend.llvm.codegen.elemental import ElementalGen, Index, Value
from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.registry import ELEMENTAL
from hlotools.backend.llvm.kernels import gemm_epilogue
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64
from hlotools.backend.llvm.lower import conv_gemm
from hlotools.backend.llvm.lower import gemm as lower_gemm
from hlotools.backend.llvm.lower.epilogue_program import Grouping, Program, encode
from hlotools.ir.attributes import ConvDimLabels
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.opcodes import opcode_info
from hlotools.ir.shape import Shape
from hlotools.ir.types import ElementType

# The epilogue trades run time for compile time. Measured (min CPU time, A/B in one process):
# the interpreter costs ~100 cycles per register tile (D to its stack registers and back, one
# pass per instruction, no constant folding), more than the in-place flat loop, which LLVM
# compiles with the constants folded: dot + bias + ReLU f32[4096,256] 1.28 -> 1.50 ms, ReLU
# alone 1.31 -> 1.42 ms; big_conv (two convolutions + ReLU, 4 MiB and 1 MiB results) run
# 6.80 -> 7.26 ms on 1 thread, 7.14 -> 7.36 ms CPU on 2, but its cold compile 19.8 -> 10.5 ms
# CPU (no loop of its own: XLA's is 15 ms). So by default only results from
# EPILOGUE_MIN_BYTES with programs of at most EPILOGUE_MAX_INSTRUCTIONS (big_attention_256's
# scale + causal mask, 2 MiB and 6 instructions: 4.47 -> 4.63 ms, in place instead; below
# 1 MiB, big_mlp_1024 6.0 -> 6.2 ms, transformer_block 0.169 -> 0.181 ms);
# HLOTOOLS_EPILOGUE=0 or epilogues(False) turns it off.
EPILOGUE_MIN_BYTES = 1 << 20
EPILOGUE_MAX_INSTRUCTIONS = 3
_MIN_BYTES: ContextVar[int | None] = ContextVar("hlotools_llvm_epilogues", default=EPILOGUE_MIN_BYTES)
ConvFound = tuple[lower_gemm.Plan, tuple[int, ...], tuple[int, ...]]


@contextmanager
def epilogues(on: bool = True, min_bytes: int = 0) -> Iterator[None]:
    """In this context kOutput fusions whose result has `min_bytes` or more use the GEMM
    epilogue when it can do theirs (default: all sizes and program lengths), or never (`on`
    False: the in-place path)."""
    tok = _MIN_BYTES.set(min_bytes if on else None)
    try:
        yield
    finally:
        _MIN_BYTES.reset(tok)


def _epilogue_wanted(shape: Shape) -> bool:
    least = _MIN_BYTES.get()
    if least is None or os.environ.get("HLOTOOLS_EPILOGUE", "") == "0":
        return False
    from hlotools.backend.llvm.abi import leaf_bytes
    return leaf_bytes(shape) >= least


@dataclass
class Decision:
    how: str  # 'epilogue' | 'in_place'
    d: Instruction
    root: Instruction
    operands: list[Instruction]  # the fusion's operands standing for D's operands
    params: dict[int, Instruction]  # id(fused parameter) -> the fusion's operand
    gemm: lower_gemm.Plan | None  # a dot's plan
    conv: ConvFound | None  # a convolution's plan
    program: Program | None

    @property
    def scratch(self) -> list[int]:
        p = self.gemm if self.gemm is not None else self.conv[0] if self.conv is not None else None
        return list(p.scratch) if p is not None else []


def decide(inst: Instruction) -> Decision | None:
    comp = inst.attrs.get("calls")
    if not isinstance(comp, Computation) or comp.root is None or inst.shape.is_tuple:
        return None
    products = [i for i in comp.instructions if i.opcode in ("dot", "convolution")]
    if len(products) != 1:
        return None
    d, root = products[0], comp.root
    params = {id(p): inst.operands[k] for k, p in enumerate(comp.parameters) if k < len(inst.operands)}
    operands = [params.get(id(op)) for op in d.operands]
    if any(o is None or not _same(o.shape, op.shape) for o, op in zip(operands, d.operands)):
        return None
    if not _same(inst.shape, d.shape) or not _same(root.shape, d.shape):
        return None
    if not all(i is d or i.opcode == "parameter" or i.opcode in ELEMENTAL for i in comp.instructions):
        return None
    if not _reaches_in_place(root, d):
        return None
    gemm = conv = None
    if d.opcode == "dot":
        gemm = lower_gemm.plan(d)
        if gemm is None:
            return None
        direct, grouping = not (gemm.blas or gemm.c.packed), _dot_grouping(d, gemm)
    else:
        conv = conv_gemm.fused_plan(d)  # None when a run-time kernel check picks the path
        if conv is None:
            return None
        direct, grouping = not conv[0].c.packed, _conv_grouping(d, conv)
    ops = [o for o in operands if o is not None]
    program = None
    if direct and _epilogue_wanted(inst.shape):
        ct = (gemm or conv[0]).ct  # type: ignore[index]
        program = encode(root, d, params, grouping, ct)
        if program is not None and _MIN_BYTES.get() and program.code[gemm_epilogue.P_COUNT] > EPILOGUE_MAX_INSTRUCTIONS:
            program = None  # by default only short programs (see EPILOGUE_MAX_INSTRUCTIONS)
    return Decision("epilogue" if program is not None else "in_place", d, root, ops, params, gemm, conv, program)


def _same(a: Shape, b: Shape) -> bool:
    return (not a.is_tuple and not b.is_tuple and a.dims == b.dims and a.element_type == b.element_type
            and tuple(layout_of(a)) == tuple(layout_of(b)))


def _reaches_in_place(root: Instruction, d: Instruction) -> bool:
    """Does every path from `root` to `d` pass only through elementwise ops of d's dims
    (so the root's element at an index reads d only at that index)?"""
    from hlotools.ir.walks import elementwise_flow, post_order_from
    dims = d.shape.dims
    return elementwise_flow(post_order_from(root), {id(d)}, lambda s: not s.is_tuple and s.dims == dims) is not None


def _dot_grouping(d: Instruction, p: lower_gemm.Plan) -> Grouping:
    dd = p.dims
    nb = len(dd.batch)
    rank = len(d.shape.dims)
    split = nb + len(dd.rfree if p.swapped else dd.lfree)  # the result's m dims, then its n dims
    first, second = tuple(range(nb, split)), tuple(range(split, rank))
    return Grouping(tuple(j for j, n in enumerate(dd.batch) if n > 1), *((second, first) if p.swapped else (first, second)))


def _conv_grouping(d: Instruction, found: ConvFound) -> Grouping:
    p, sp_order, _ = found
    labels: ConvDimLabels = d.attrs["dim_labels"]
    batch = (labels.output_batch,) if p.dims.batch[0] > 1 else ()
    if p.swapped:  # conv_columns' form: the kernel's rows are the features
        return Grouping(batch, (labels.output_feature,), sp_order)
    return Grouping(batch, sp_order, (labels.output_feature,))


def output_scratch(inst: Instruction) -> list[int]:
    """SCRATCH of a kOutput fusion emitted here: its product's (nothing when it is called)."""
    got = decide(inst)
    return got.scratch if got is not None else []


def emit_output_fusion(fe: FunctionEmitter, inst: Instruction) -> bool:
    """Emit the kOutput fusion `inst` here; False: the caller calls its computation."""
    got = decide(inst)
    if got is None:
        return False
    ct = (got.gemm or got.conv[0]).ct  # type: ignore[index]
    epi = _epilogue_block(fe, got.program, ct) if got.program is not None else None
    if got.gemm is not None:
        lower_gemm.gemm_into(fe, got.gemm, got.d, inst, got.operands, epi)
    else:
        assert got.conv is not None
        conv_gemm.conv_into(fe, got.conv, got.d, inst, got.operands, epi)
    if epi is None:
        _root_in_place(fe, inst, got)
    return True


def _epilogue_block(fe: FunctionEmitter, program: Program, ct: ElementType) -> ir.Value:
    """The program as a constant of the module and the epilogue block (its address, then the
    operands' addresses) in the entry block's frame."""
    ty = ir.ArrayType(types.I64, len(program.code))
    g = ir.GlobalVariable(fe.mc.ir, ty, fe.mc.unique_name("gemm.epilogue"))
    g.global_constant = True
    g.linkage = "private"
    g.initializer = ir.Constant(ty, program.code)
    blk = fe.in_entry().alloca(types.I64, size=c64(gemm_epilogue.E_OPERANDS + len(program.sources)), name="epi.block")
    b = fe.b
    addrs: list[ir.Value] = [g]
    for src in program.sources:
        if src.outer is not None:
            addrs.append(fe.leaf_ptrs(src.outer)[0])
        elif src.value is not None:
            vty = types.value_type(ct)
            v = ir.GlobalVariable(fe.mc.ir, vty, fe.mc.unique_name("gemm.epilogue.value"))
            v.global_constant = True
            v.linkage = "private"
            v.initializer = ir.Constant(vty, src.value)
            addrs.append(v)
        else:
            assert src.const is not None
            addrs.append(fe.mc.constant_global(src.const))
    for k, a in enumerate(addrs):
        b.store(b.ptrtoint(a, types.I64), b.gep(blk, [c64(k)], source_etype=types.I64))
    return b.bitcast(blk, types.PTR)


def _root_in_place(fe: FunctionEmitter, inst: Instruction, got: Decision) -> None:
    """out[i] := root(i), reading D as out[i] before the store (D is already in out)."""
    from hlotools.backend.llvm.codegen.outline import result_loop
    shape = inst.shape
    d = got.d

    def body(index: list[ir.Value]) -> None:
        out = fe.leaf_ptrs(inst)[0]  # asked here: a parallel nest emits the body in a worker function
        bindings: dict[int, Callable[[Index], Value]] = {
            id(d): lambda idx: fe.load_element(out, shape, idx)}
        for pid, outer in got.params.items():
            bindings[pid] = (lambda o: (lambda idx: fe.gen.value_at(o, idx)))(outer)
        with fe.gen.region():
            v = ElementalGen(fe, bindings).value_at(got.root, index)
            fe.store_element(v, out, shape, index)
    result_loop(fe, inst, shape, body, 1, len(shape.dims) > 1 and _reads_in_place(got, shape))


def _reads_in_place(got: Decision, shape: Shape) -> bool:
    """Does the ROOT read every array at the output's own element offset (D, operands of its
    dims and layout, scalars)? Then the loop is one flat loop (as placement.reads_in_place
    decides for elemental loops: cheaper for LLVM, and long inner loops for NHWC results)."""
    layout = tuple(layout_of(shape))
    seen: set[int] = set()

    def ok(x: Instruction) -> bool:
        if x is got.d or id(x) in seen:
            return True
        seen.add(id(x))
        if x.opcode == "parameter":
            outer = got.params.get(id(x))
            return outer is not None and (not outer.shape.dims or (
                outer.shape.dims == shape.dims and tuple(layout_of(outer.shape)) == layout))
        if x.opcode == "constant":
            return not x.shape.dims
        if x.opcode == "broadcast":
            return not x.operands[0].shape.dims and ok(x.operands[0])
        info = opcode_info(x.opcode)
        return (info is not None and info.is_elementwise and x.shape.dims == shape.dims
                and all(ok(o) for o in x.operands))
    return ok(got.root)
