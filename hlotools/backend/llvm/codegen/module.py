"""HLO module -> one llvmlite.ir module: the module assembly half of the LLVM backend's
compiler (codegen/function.py emits the instructions of one function).

Every computation that is called as a unit (the entry, while bodies and conditions, call and
conditional targets, fusions that are not purely elemental) becomes one LLVM function

    void @name(ptr arena, ptr params, ptr outs)

`params`/`outs` are arrays of pointers to the flattened array leaves of the parameters and of
the result; `arena` is the temp memory, laid out by buffers.py (a callee's arena starts after
its caller's peak). `ModuleCompiler.function_for` compiles a computation on first use (with
the variants a caller needs: while bodies whose state is updated in place, donated entry
parameters, fusions that update one of their parameters in place); constants become private
globals holding their physical bytes.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import ENTRY_NAME, CompileStats, layout_of
from hlotools.backend.llvm.codegen import buffers, placement, registry
from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.kernels import Escape, Kernel
from hlotools.backend.llvm.llvm_ir import denormals, types
from hlotools.errors import HloUnsupportedError
from hlotools.ir import runtime_sizes
from hlotools.ir.attributes import InputOutputAlias
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape


@dataclass
class CompiledFunction:
    """One computation's LLVM function and what its callers need to know about it."""

    comp: Computation
    function: ir.Function
    arena_bytes: int = 0  # own peak plus the largest callee's total
    peak_own: int = 0
    alias_params: bool = False  # compiled for outs[k] == params[k] where alias_safe says so
    alias_safe: set[int] = field(default_factory=set)  # result leaves that may share their param leaf
    donation: dict[int, int] = field(default_factory=dict)  # entry: result leaf -> donated param leaf
    plan: buffers.BufferPlan | None = None  # the buffer assignment it was compiled with
    concurrent: list[list[Instruction]] = field(default_factory=list)  # sets run as one parallel_for


class ModuleCompiler:
    """Builds the LLVM module; `function_for(comp)` compiles a computation on first use."""

    def __init__(self, module: Module, *, implicit_fusion: bool = True, kernels: bool = False,
                 kernel_cached: Callable[[Kernel], bool] | None = None,
                 kernel_emitted: Callable[[Kernel], None] | None = None) -> None:
        """`kernels`: materialised instructions become kernels in LLVM modules of their own
        (codegen/kernels.py; `kernel_modules()`), each distinct one emitted once, none when
        `kernel_cached(kernel)` says its object is at hand already. `kernel_emitted(kernel)` is
        told of each kernel whose module is complete (the driver starts LLVM on it at once)."""
        registry.require_loaded()  # the driver has the lowerings fill codegen/registry.py's tables
        self.module = module
        self.implicit_fusion = implicit_fusion
        self.ir = ir.Module(name=module.name)
        self.main_ir = self.ir
        self.kernels = kernels
        self.kernel_table: dict[str, Kernel] = {}
        self.refused_kernels: set[str] = set()
        self.computation_digests: dict[int, str] = {}
        # A static module (no dynamic padder records): no instruction's loops stop at a run-time size
        self.size_records = runtime_sizes.any_records(module.computations)
        self._kernel_cached = kernel_cached
        self.kernel_emitted = kernel_emitted
        self.functions: dict[tuple[int, bool], CompiledFunction] = {}
        self.stats = CompileStats()
        self._globals = 0
        self._in_progress: set[int] = set()

    def compile(self) -> ir.Module:
        entry = self.module.entry
        if entry is None or entry.root is None:
            raise HloUnsupportedError(f"module {self.module.name} has no entry computation")
        cf = self.function_for(entry, ENTRY_NAME, export=True, donation=entry_donation(self.module))
        if denormals.entry_flushes(self.ir):  # XLA CPU's FTZ/DAZ for the call (x86, xla-cpu semantics)
            denormals.flush_during(cf.function)
        self.stats.arena_bytes = cf.arena_bytes
        self.stats.donated = {k: cf.donation[k] for k in sorted(cf.alias_safe)}
        self.stats.kernels = len(self.kernel_table)
        self.stats.kernels_emitted = len(self.kernel_modules())
        return self.ir

    def kernel_cached(self, kernel: Kernel) -> bool:
        return self._kernel_cached is not None and self._kernel_cached(kernel)

    def kernel_modules(self) -> list[Kernel]:
        """The kernels this compile emitted (the others' objects came from the cache)."""
        return [k for k in self.kernel_table.values() if k.module is not None]

    def function_for(self, comp: Computation, name: str | None = None, export: bool = False,
                     alias_params: bool = False, donation: dict[int, int] | None = None) -> CompiledFunction:
        """The function of `comp`, compiled on first use. `alias_params` (while bodies):
        a variant whose caller passes outs[k] == params[k] for the result leaves in
        `alias_safe`, so loop state is updated in place (no copy per iteration)."""
        key = (id(comp), alias_params)
        cf = self.functions.get(key)
        if cf is not None:
            return cf
        if self.ir is not self.main_ir:  # a kernel's module holds its kernel alone
            raise Escape(f"needs the function of computation {comp.name}")
        fnty = ir.FunctionType(ir.VoidType(), [types.PTR, types.PTR, types.PTR])
        fn = ir.Function(self.ir, fnty, name or self.unique_name("comp." + comp.name))
        if not export:
            fn.linkage = "internal"
        if donation is None and comp.is_fusion_computation:
            donation = placement.fused_update_donation(comp)
        cf = CompiledFunction(comp, fn, alias_params=alias_params, donation=dict(donation or {}))
        self.functions[key] = cf
        FunctionEmitter(self, comp, cf).emit()
        self.stats.functions += 1
        self.stats.instructions += len(comp.instructions)
        self.stats.peak_by_computation[comp.name] = cf.peak_own
        return cf

    def unique_name(self, base: str) -> str:
        self._globals += 1
        return f"{base}.{self._globals}"

    def constant_global(self, inst: Instruction) -> ir.GlobalVariable:
        """A literal as a private constant global holding its physical bytes."""
        lit = inst.literal
        if lit is None or lit.elided or lit.array is None:
            raise HloUnsupportedError(f"constant %{inst.name}: its value is elided in the text")
        data = physical_bytes(lit.array, inst.shape)
        ty = ir.ArrayType(types.I8, max(1, len(data)))
        g = ir.GlobalVariable(self.ir, ty, self.unique_name("const." + inst.name))
        g.global_constant = True
        g.linkage = "private"
        g.align = 64
        g.initializer = ir.Constant(ty, bytearray(data or b"\0"))
        return g


def physical_bytes(array: object, shape: Shape) -> bytes:
    """Bytes of a logical numpy array in the shape's layout and the backend's storage."""
    import numpy as np

    a = np.asarray(array)
    et = shape.element_type
    assert et is not None
    if et.kind in ("signed", "unsigned") and et.bits < 8:
        a = a.astype(np.int8 if et.kind == "signed" else np.uint8)
    perm = list(reversed(layout_of(shape)))
    if a.ndim:
        a = np.transpose(a, perm)
    return np.ascontiguousarray(a).tobytes()


def entry_donation(module: Module) -> dict[int, int]:
    """input_output_alias as flat leaves: result leaf -> argument leaf (both depth-first)."""
    alias = module.attrs.get("input_output_alias")
    entry = module.entry
    if not isinstance(alias, InputOutputAlias) or entry is None or entry.root is None:
        return {}
    out: dict[int, int] = {}
    base = [0]
    for p in entry.parameters:
        base.append(base[-1] + len(p.shape.leaves()))
    for a in alias.aliases:
        n = a.parameter
        if not 0 <= n < len(entry.parameters):
            continue
        k = _flat_leaf(entry.root.shape, a.output_index)
        i = _flat_leaf(entry.parameters[n].shape, a.parameter_index)
        if k is not None and i is not None:
            out[k] = base[n] + i
    return out


def _flat_leaf(shape: Shape, index: tuple[int, ...] | list[int]) -> int | None:
    """Depth-first leaf number of the array at a tuple index (None if not an array leaf)."""
    n = 0
    for i in index:
        subs = shape.tuple_shapes
        if subs is None or not 0 <= i < len(subs):
            return None
        n += sum(len(s.leaves()) for s in subs[:i])
        shape = subs[i]
    return n if not shape.is_tuple else None


def straight_line_instructions(module: ir.Module) -> int | None:
    """How many instructions the functions `module` defines have when none of them has a loop,
    else None. A cycle needs a branch to the block itself or an earlier one (in any block
    order), so a module without such a branch runs each of its instructions at most once per
    call: then the loops are all in what it calls (the runtime library's kernels) and its own
    code is the argument plumbing around those calls, which LLVM's optimiser and aggressive
    code generator cannot make measurably faster (runtime.py compiles it at level 0)."""
    total = 0
    for fn in module.functions:
        blocks = fn.blocks
        if not blocks:
            continue
        place = {id(b): k for k, b in enumerate(blocks)}
        for k, block in enumerate(blocks):
            total += len(block.instructions)
            term = block.terminator
            if term is None:
                return None
            # br/cbranch name their blocks as operands; a switch keeps its default and cases
            # aside, an indirectbr its destinations
            targets = [op for op in term.operands if isinstance(op, ir.Block)]
            targets += [b for _, b in getattr(term, "cases", [])]
            targets += list(getattr(term, "destinations", []))
            default = getattr(term, "default", None)
            if isinstance(default, ir.Block):
                targets.append(default)
            if any(place.get(id(b), -1) <= k for b in targets):
                return None
    return total


def compile_module(module: Module, *, implicit_fusion: bool = True) -> tuple[ir.Module, CompileStats]:
    """The whole module as one LLVM module (no kernels: AOT objects and the tests' IR checks)."""
    mc = ModuleCompiler(module, implicit_fusion=implicit_fusion)
    return mc.compile(), mc.stats
