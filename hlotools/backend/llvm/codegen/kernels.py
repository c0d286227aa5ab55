"""Kernels: each materialised instruction's code as a function of its own, `void @k.KEY(ptr
slots)`, named by a structural hash, so the 24 identical layers of a model compile ONE copy of
each distinct kernel (XLA CPU's kernel-per-fusion, with its dedup of identical fusions).

Why: emitted inline, every fusion's loop nest of every layer lands in the computation's one
function, and LLVM's optimiser and code generator grow faster than linearly in function size
(a 2-layer training step: a 54,000-instruction entry function, 6.5 s of LLVM; 8 layers: 174 s).
As kernels, the entry is straight-line calls (cheap at level 0), each kernel is small, and a
kernel lives in an LLVM module of its own that the driver compiles in parallel with the others
and caches as an object under its key (a second model sharing layers reuses it).

A kernel reads and writes memory only through its slot array: the distinct buffer locations
its code touches (result and scratch leaves, the leaves of every materialised value it reads
directly or through the instructions inlined into its loop, and the size parameters its loops
stop at: codegen/dynamic_extent.py), in a canonical order. The key covers everything the code
depends on: the structure of the instruction and of what is inlined into it (opcodes, shapes
with layouts, attributes, called computations, constants' values, the run-time size records
of ir/runtime_sizes.py), which slots coincide (in-place updates) and which are the caller's
parameters or outputs (those may alias each other; arena buffers and constants never do).
The emitters run unchanged: the FunctionEmitter is retargeted at the kernel (function.py asks
`slot` for every leaf pointer while `fe.kernel` is set); code that reaches for anything else
(a callee's arena, a computation's function) raises Escape and the instruction is emitted
inline after all.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import llvmlite.ir as ir

from hlotools.backend.llvm.codegen import buffers, dynamic_extent
from hlotools.backend.llvm.codegen.alias_scopes import AliasScopes, scopes_of
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64
from hlotools.ir import runtime_sizes
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction

if TYPE_CHECKING:
    from hlotools.backend.llvm.codegen.function import FunctionEmitter

KERNEL_TYPE = ir.FunctionType(ir.VoidType(), [types.PTR])
PREFIX = "k."
FORMAT = "kernel-v2"  # bump when what a key covers changes

# Opcodes never made kernels: control flow calls computations' functions with the caller's
# arena; custom calls may embed this process's addresses; the rest have no loop to move.
NOT_KERNELS = frozenset({
    "while", "conditional", "call", "scan", "custom-call", "parameter", "constant", "tuple",
    "get-tuple-element", "after-all", "partition-id", "replica-id", "infeed", "outfeed", "send",
    "recv", "send-done", "recv-done", "rng", "rng-get-and-update-state", "async-start", "async-update",
    "async-done", "copy-start", "copy-done", "opt-barrier", "add-dependency", "domain",
})
# Attributes that never change the code (printing and provenance only).
_IGNORED_ATTRS = frozenset({"metadata", "frontend_attributes", "sharding", "statistics", "origin",
                            "control-predecessors", "result_accuracy"})


_EXTERNAL_MARK = "x"  # a slot that is the caller's parameter or output (may alias another such)


class Escape(Exception):
    """The instruction's code reaches past its slots: emit it inline instead."""


@dataclass
class Kernel:
    """One distinct kernel of a ModuleCompiler: its symbol and, once emitted, its module."""

    key: str
    name: str
    module: ir.Module | None = None  # None: its object comes from the compile cache


@dataclass
class KernelContext:
    """Set as `fe.kernel` while a kernel is emitted: location key -> slot number."""

    slots: dict[tuple[Any, ...], int]

    def slot(self, location: tuple[Any, ...]) -> int:
        k = self.slots.get(location)
        if k is None:
            raise Escape(f"reads {location} outside its slots")
        return k


def enabled(fe: FunctionEmitter, inst: Instruction) -> bool:
    from hlotools.backend.llvm.codegen.concurrent import in_task
    return (fe.mc.kernels and fe.kernel is None and inst.opcode not in NOT_KERNELS
            and not in_task() and fe.kinds.get(id(inst)) == "define")


def emit_as_kernel(fe: FunctionEmitter, inst: Instruction, emit: Any) -> bool:
    """Emit `inst` as a call of its kernel (emitting the kernel on first use of its key with
    `emit(inst)`, the instruction's ordinary emitter). False when it is not one: the caller
    emits it inline."""
    if not enabled(fe, inst):
        return False
    return _emit(fe, [inst], lambda: _scoped(fe, lambda: emit(inst)))


def emit_set_as_kernel(fe: FunctionEmitter, members: list[Instruction], emit_set: Any) -> bool:
    """A concurrent set (codegen/concurrent.py: independent instructions run by one
    parallel_for) as ONE kernel, emitted by `emit_set()`: the set's members are emitted inline
    in it, as they would be in the caller, so the caller's function keeps no loop of its own
    (it is then straight-line code, compiled at level 0: a 24-layer training step's entry took
    LLVM 19 s at O3 for the dots of its sets, 0.3 s at level 0)."""
    if not all(enabled(fe, m) for m in members):
        return False
    return _emit(fe, members, emit_set)


def _scoped(fe: FunctionEmitter, emit: Any) -> None:
    scopes_of(fe).begin()  # the group of the instruction's accesses (alias_scopes.py)
    emit()


def _emit(fe: FunctionEmitter, insts: list[Instruction], emit: Any) -> bool:
    mc = fe.mc
    locations, key_text = signature(fe, insts)
    key = hashlib.sha256(key_text.encode()).hexdigest()[:24]
    kernel = mc.kernel_table.get(key)
    if kernel is None:
        if key in mc.refused_kernels:
            return False
        kernel = Kernel(key, PREFIX + key)
        if not mc.kernel_cached(kernel):
            try:
                kernel.module = _emit_kernel(fe, kernel, locations, emit)
            except Escape:
                mc.refused_kernels.add(key)
                return False
            if mc.kernel_emitted is not None:
                mc.kernel_emitted(kernel)  # nothing adds to a kernel's module after this
        mc.kernel_table[key] = kernel
    _call(fe, kernel, locations)
    return True


def _emit_kernel(fe: FunctionEmitter, kernel: Kernel, locations: list[tuple[Any, ...]], emit: Any) -> ir.Module:
    mc = fe.mc
    module = ir.Module(name=kernel.name)
    module.triple, module.data_layout = mc.ir.triple, mc.ir.data_layout
    fn = ir.Function(module, KERNEL_TYPE, kernel.name)
    saved = {k: getattr(fe, k, None) for k in _RETARGETED}
    saved_ir = mc.ir
    entry, body = fn.append_basic_block("entry"), fn.append_basic_block("body")
    null = ir.Constant(types.PTR, None)
    try:
        mc.ir = module
        fe.fn, fe.entry_block, fe.body_block = fn, entry, body
        fe.b = ir.IRBuilder(body)
        fe.arena, fe.params_arg, fe.outs_arg = null, fn.args[0], null
        fe._ptr_cache, fe._const_cache, fe.cache_layers = {}, {}, [{}]
        fe.alias_scopes = AliasScopes(fe)  # type: ignore[attr-defined]  # (alias_scopes.scopes_of's slot)
        fe.kernel = KernelContext({loc[:2]: k for k, loc in enumerate(locations)})
        emit()
        scopes_of(fe).finish()
        fe.b.ret_void()
        ir.IRBuilder(entry).branch(body)
    finally:
        mc.ir = saved_ir
        for k, v in saved.items():
            setattr(fe, k, v)
    return module


_RETARGETED = ("fn", "entry_block", "body_block", "b", "arena", "params_arg", "outs_arg", "_ptr_cache",
               "_const_cache", "cache_layers", "alias_scopes", "kernel")


def _call(fe: FunctionEmitter, kernel: Kernel, locations: list[tuple[Any, ...]]) -> None:
    """slots[k] = the caller's pointer of location k; call the kernel."""
    mc = fe.mc
    fn = mc.ir.globals.get(kernel.name)
    if fn is None:
        fn = ir.Function(mc.ir, KERNEL_TYPE, kernel.name)
    eb = fe.in_entry()
    arr = eb.alloca(types.PTR, size=c64(max(1, len(locations))), name="slots")
    for k, loc in enumerate(locations):
        fe.b.store(_caller_pointer(fe, loc), fe.b.gep(arr, [c64(k)], source_etype=types.PTR))
    fe.b.call(fn, [arr])
    mc.stats.kernel_calls += 1


def _caller_pointer(fe: FunctionEmitter, loc: tuple[Any, ...]) -> ir.Value:
    kind, where = loc[0], loc[1]
    if kind == -1:
        return fe.param_ptr(where)
    if kind == -2:
        return fe.out_ptr(where)
    if kind == -3:
        return fe.arena_ptr(where)
    assert kind == -4 and len(loc) > 2
    return fe.constant_ptr(loc[2])


# -- the signature ----------------------------------------------------------------------------

def location_of(fe: FunctionEmitter, lf: buffers.Leaf) -> tuple[Any, ...] | None:
    """The location key of a leaf (function.py's pointer cache keys: -1 parameter leaf, -2
    output, -3 arena offset; -4 a constant); None for a leaf without memory."""
    assert fe.plan is not None
    if lf.kind == "param":
        return (-1, lf.index)
    if lf.kind == "const":
        assert lf.inst is not None
        return (-4, id(lf.inst), lf.inst)
    if lf.kind == "none":
        return None
    loc = fe.plan.location[lf.index]
    return (-2, loc.offset) if loc.kind == "output" else (-3, loc.offset)


def signature(fe: FunctionEmitter, insts: list[Instruction]) -> tuple[list[tuple[Any, ...]], str]:
    """(the kernel's slot locations in order, the text its key is the hash of) for the code of
    `insts` (one instruction, or the members of a concurrent set in their order)."""
    assert fe.plan is not None
    slots: dict[tuple[Any, ...], int] = {}
    lines = [FORMAT, f"implicit_fusion={fe.mc.implicit_fusion}"]

    def slot_text(locs: list[tuple[Any, ...] | None]) -> str:
        out = []
        for loc in locs:
            if loc is None:
                out.append("-")
                continue
            k = slots.get(loc[:2])
            if k is None:
                k = slots[loc[:2]] = len(slots)
                order.append(loc)
            out.append(f"{k}{_EXTERNAL_MARK if loc[0] in (-1, -2) else ''}")
        return ",".join(out)

    order: list[tuple[Any, ...]] = []
    numbers: dict[tuple[int, int], int] = {}
    comps = fe.mc.computation_digests

    def emit_line(text: str) -> int:
        lines.append(text)
        return len(lines) - 1

    def node(x: Instruction) -> int:
        n = numbers.get((0, id(x)))
        if n is not None:
            return n
        if id(x) not in tops and fe.is_materialised(x):
            # what a kernel reads of a materialised value is its memory: its kind (a
            # parameter, another kernel's result, an alias of one) does not change the code
            assert fe.plan is not None
            leaves = fe.plan.leaves[id(x)]
            text = (f"in {x.shape.text} slots={slot_text([location_of(fe, lf) for lf in leaves])}"
                    + (f" literal={_literal_digest(x)}" if x.opcode == "constant" else ""))
        elif x.opcode == "fusion" and isinstance(x.attrs.get("calls"), Computation):
            root = fused(x, x.attrs["calls"])
            attrs = _attrs_text(x, comps, skip="calls")
            text = f"fusion {x.shape.text} root={root} {attrs}"
        else:
            text = _node_text(x, [node(o) for o in x.operands], comps)
        n = numbers[(0, id(x))] = emit_line(text)
        return n

    def fused(f: Instruction, comp: Computation) -> int:
        """The fused computation walked from its root, each parameter standing for the fusion
        operand it binds: fusions that differ only in the order of their operands (each layer's
        fusion pass run may number them differently) get one text."""
        def walk(y: Instruction) -> int:
            got = numbers.get((id(f), id(y)))
            if got is not None:
                return got
            if y.opcode == "parameter" and y.parameter_number is not None and y.parameter_number < len(f.operands):
                n = node(f.operands[y.parameter_number])
            else:
                n = emit_line(_node_text(y, [walk(o) for o in y.operands], comps))
            numbers[(id(f), id(y))] = n
            return n
        assert comp.root is not None
        return walk(comp.root)

    tops = {id(i) for i in insts}
    for inst in insts:
        results = slot_text([location_of(fe, lf) for lf in fe.plan.leaves[id(inst)]])
        scratch = slot_text([(-3, off) for off in fe.plan.scratch.get(id(inst), [])])
        sizes = slot_text([(-1, leaf) for leaf in dynamic_extent.locations(fe, inst)])
        lines.append(f"member results={results} scratch={scratch} sizes={sizes}")
        lines.append(f"root={node(inst)}")
    text = "\n".join(lines)
    if sum(1 for loc in order if loc[0] in (-1, -2)) < 2:
        # one caller parameter or output aliases nothing else the kernel touches, as an arena
        # buffer does not: the first layer (reading the model's input) shares the others' kernel
        text = text.replace(_EXTERNAL_MARK, "")
    return order, text


def _node_text(x: Instruction, operands: list[int], comps: dict[int, str]) -> str:
    text = f"{x.opcode} {x.shape.text} ({','.join(map(str, operands))}) {_attrs_text(x, comps)}"
    if x.opcode == "constant":
        text += f" literal={_literal_digest(x)}"
    if x.opcode == "parameter":
        text += f" number={x.parameter_number}"
    if x.attrs.get("frontend_attributes"):  # where the records live (most instructions have none)
        sizes, reads = runtime_sizes.result_sizes(x), runtime_sizes.read_sizes(x)
        if sizes is not None or reads is not None:  # run-time loop bounds (codegen/dynamic_extent.py)
            text += f" sizes={sizes} reads={reads}"
    return text


def _literal_digest(x: Instruction) -> str:
    lit = x.literal
    if lit is None:
        return "none"
    return hashlib.sha256(repr(lit.key()).encode()).hexdigest()[:16]


def _attrs_text(x: Instruction, comps: dict[int, str], skip: str = "") -> str:
    parts = []
    for name in sorted(x.attrs):
        if name not in _IGNORED_ATTRS and name != skip:
            parts.append(f"{name}={_value_text(x.attrs[name], comps)}")
    return " ".join(parts)


def _value_text(v: Any, comps: dict[int, str]) -> str:
    if isinstance(v, Computation):
        return "comp:" + computation_digest(v, comps)
    if isinstance(v, (list, tuple)):
        if all(type(e) is int for e in v):  # dimension lists, the common case: repr of each
            return "[" + ",".join(map(repr, v)) + "]"
        return "[" + ",".join(_value_text(e, comps) for e in v) + "]"
    if isinstance(v, Instruction):
        raise TypeError("an instruction as an attribute")
    return repr(v)


def computation_digest(comp: Computation, comps: dict[int, str]) -> str:
    """A hash of a computation's structure (names left out), memoised per computation."""
    got = comps.get(id(comp))
    if got is not None:
        return got
    index = {id(i): k for k, i in enumerate(comp.instructions)}
    lines = [_node_text(i, [index.get(id(o), -1) for o in i.operands], comps) for i in comp.instructions]
    lines.append(f"root={index.get(id(comp.root), '?')}")
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:24]
    comps[id(comp)] = digest
    return digest
