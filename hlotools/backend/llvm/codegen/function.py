"""One computation -> one LLVM function `void @name(ptr arena, ptr params, ptr outs)`: the
per-instruction half of the LLVM backend's compiler (module.py assembles the module;
placement.py holds the alias/in-place/inline decisions this file asks per instruction).

FunctionEmitter decides per instruction param/const/alias/inline/define, gets a buffer plan
(buffers.py), runs independent kernels together (codegen/concurrent.py) and emits each
instruction through the tables in registry.py (no opcode switch lives here). Scalar
computations (reducers, comparators, map functions) are inlined at their uses.

Implicit fusion: in a computation that has no fusions yet, an elemental instruction whose
value is read once per element (or that only moves indices: broadcast, transpose, slice, ...)
is not materialised but generated inside its consumers' loops, so unfused modules still get
register-resident chains. Fusions made by the fusion pass are emitted the same way.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import leaf_bytes
from hlotools.backend.llvm.codegen import buffers, kernels, placement
from hlotools.backend.llvm.codegen.alias_scopes import scopes_of
from hlotools.backend.llvm.codegen.elemental import CacheKey, ElementalGen, Value, fusion_is_elemental
from hlotools.backend.llvm.codegen.kernels import KernelContext
from hlotools.backend.llvm.codegen.registry import (
    ALIASES,
    ELEMENTAL,
    EMITTERS,
    NO_INLINE,
    SCRATCH,
    UNSUPPORTED,
)
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import c64, linear_index, loop_nest
from hlotools.errors import HloError, HloUnsupportedError
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    from hlotools.backend.llvm.codegen.module import CompiledFunction, ModuleCompiler

class FunctionEmitter:
    """Emits one computation as one LLVM function."""

    def __init__(self, mc: ModuleCompiler, comp: Computation, cf: CompiledFunction) -> None:
        self.mc = mc
        self.comp = comp
        self.cf = cf
        self.fn = cf.function
        self.entry_block = self.fn.append_basic_block("entry")
        self.body_block = self.fn.append_basic_block("body")
        self.b = ir.IRBuilder(self.body_block)
        self.arena, self.params_arg, self.outs_arg = self.fn.args
        self.order = schedule(comp)
        self.kinds: dict[int, str] = {}
        self._ptr_cache: dict[tuple[int, int], ir.Value] = {}
        self._const_cache: dict[int, ir.GlobalVariable] = {}
        self.callee_bytes = 0
        self.plan: buffers.BufferPlan | None = None
        # the elemental generators' value caches, innermost region last (emit_elemental)
        self.cache_layers: list[dict[CacheKey, Value]] = [{}]
        self.gen = ElementalGen(self)
        self.kernel: KernelContext | None = None  # set while a kernel is emitted (codegen/kernels.py)

    # -- planning -------------------------------------------------------------------
    def classify(self) -> None:
        rep: dict[int, float] = {}
        root = self.comp.root
        for inst in reversed(self.order):
            self.kinds[id(inst)] = self._kind(inst, root, rep)

    def _kind(self, inst: Instruction, root: Instruction | None, rep: dict[int, float]) -> str:
        op = inst.opcode
        if op == "parameter":
            return "param"
        if op == "constant":
            return "const"
        if op in ALIASES:
            # before layout assignment an alias may declare other layouts than its source
            # (a get-tuple-element of an inlined call): then it is a relayout copy
            return "alias" if placement.alias_layouts_agree(inst) else "define"
        if self._can_inline(inst, root, rep):
            return "inline"
        if op in ("reshape", "bitcast") and placement.is_free_reshape(inst):
            return "alias"  # materialised anyway: share the operand's buffer
        return "define"

    def _can_inline(self, inst: Instruction, root: Instruction | None, rep: dict[int, float]) -> bool:
        """Generate `inst` inside its consumers' loops? Only when every consumer reads it
        elementally and no element would be computed more than once (index-only ops, which
        just forward reads to their operand, may be read several times)."""
        op = inst.opcode
        if not self.mc.implicit_fusion or inst is root or not self._elemental(inst) or op in NO_INLINE:
            return False
        if inst.shape.is_tuple or not inst.users:
            return False
        total = 0.0
        for u in inst.users:
            uk = self.kinds.get(id(u))
            if u.parent is not self.comp or uk not in ("inline", "define") or not self._reads_elementally(u):
                return False
            total += (rep.get(id(u), 1.0) if uk == "inline" else 1.0) * placement.reads_per_element(u, inst)
        rep[id(inst)] = total
        return total <= 1.0 + 1e-9 or op in placement.INDEX_ONLY

    def _elemental(self, inst: Instruction) -> bool:
        if inst.opcode == "fusion":
            return fusion_is_elemental(inst)
        return inst.opcode in ELEMENTAL

    def _reads_elementally(self, user: Instruction) -> bool:
        """Does `user` read its operands through value_at (so an operand can be inlined)?"""
        if user.opcode in ALIASES:  # a relayout alias (layouts differ) copies its sources' buffers
            return False
        if user.opcode == "fusion":
            return fusion_is_elemental(user)
        return user.opcode in ELEMENTAL and (user.opcode not in EMITTERS or user.opcode in ELEMENTAL_EMITTERS)

    def _classifier(self) -> buffers.Classifier:
        base: dict[int, int] = {}
        n = 0
        for p in self.comp.parameters:
            base[id(p)] = n
            n += len(p.shape.leaves())
        return buffers.Classifier(
            kind=lambda i: self.kinds[id(i)],
            alias_leaves=placement.alias_leaves,
            leaf_sizes=lambda i: [leaf_bytes(s) for s in i.shape.leaves()],
            scratch=lambda i: SCRATCH[i.opcode](i) if i.opcode in SCRATCH else [],
            in_place_operand=placement.in_place_operand,
            param_leaf_base=lambda i: base[id(i)],
            param_alias=self._param_alias(),
        )

    def _param_alias(self) -> dict[int, int]:
        """Result leaf -> parameter leaf pairs of identical shape the caller may alias."""
        params = [leaf for p in self.comp.parameters for leaf in p.shape.leaves()]
        assert self.comp.root is not None
        results = self.comp.root.shape.leaves()
        wanted = {k: k for k in range(len(results))} if self.cf.alias_params else self.cf.donation
        return {k: i for k, i in wanted.items()
                if k < len(results) and i < len(params) and results[k] == params[i] and leaf_bytes(results[k])}

    # -- emission -------------------------------------------------------------------
    def emit(self) -> None:
        from hlotools.backend.llvm.codegen.concurrent import emit_set, plan_concurrency
        self.classify()
        root = self.comp.root
        assert root is not None
        conc = plan_concurrency(self)  # independent kernels run at once (codegen/concurrent.py)
        self.order = conc.order
        self.plan = buffers.assign(self.order, root, self._classifier(), conc.sets)
        set_of = {id(i): k for k, s in enumerate(conc.sets) for i in s}
        emitted: set[int] = set()
        for inst in self.order:
            k = set_of.get(id(inst))
            if k is None:
                self._emit_located(inst)
            elif k not in emitted:  # the set's first member in the order: the whole set here
                emitted.add(k)
                members = conc.sets[k]
                if not kernels.emit_set_as_kernel(self, members, lambda m=members: emit_set(self, m, self._emit_located)):
                    emit_set(self, members, self._emit_located)
        for j, lf in self.plan.output_copies:
            shape = root.shape.leaves()[j]
            if j in self.plan.alias_safe:  # normally the caller passes the parameter's own memory
                self.memcpy_if_distinct(self.out_ptr(j), self.leaf_ptr_of(lf, shape), leaf_bytes(shape))
                continue
            self.memcpy(self.out_ptr(j), self.leaf_ptr_of(lf, shape), leaf_bytes(shape))
        scopes_of(self).finish()  # no-alias metadata per instruction (alias_scopes.py)
        self.b.ret_void()
        with self.b.goto_block(self.entry_block):
            self.b.branch(self.body_block)
        self.cf.alias_safe = set(self.plan.alias_safe)
        self.cf.plan = self.plan
        self.cf.concurrent = conc.sets
        self.cf.peak_own = self.plan.arena_bytes
        self.cf.arena_bytes = self.plan.arena_bytes + self.callee_bytes

    def _emit_located(self, inst: Instruction) -> None:
        try:
            self.emit_instruction(inst)
        except HloError as e:
            raise _locate(e, inst) from None

    def emit_instruction(self, inst: Instruction) -> None:
        kind = self.kinds[id(inst)]
        if kind in ("param", "const", "alias", "inline"):
            return
        if kernels.emit_as_kernel(self, inst, self._emit_code):
            return
        scopes_of(self).begin()
        self._emit_code(inst)

    def _emit_code(self, inst: Instruction) -> None:
        """The instruction's own code, here or in its kernel (codegen/kernels.py)."""
        op = inst.opcode
        for et in (s.element_type for s in inst.shape.leaves()):
            if et is not None:
                types.check_supported(et, f"{op} %{inst.name}")
        if op in ALIASES:  # an alias whose layouts differ from its source's
            for dst, dst_shape, (src, src_shape) in zip(self.leaf_ptrs(inst), inst.shape.leaves(),
                                                        self._alias_sources(inst)):
                if leaf_bytes(dst_shape):
                    self.relayout(src, src_shape, dst, dst_shape)
            return
        if op in EMITTERS:
            EMITTERS[op](self, inst)
        elif op in ELEMENTAL:
            emit_elemental_loop(self, inst)
        else:
            reason = UNSUPPORTED.get(op, "no emitter yet")
            raise HloUnsupportedError(f"{op} %{inst.name} is not supported by the LLVM backend: {reason}")

    # -- pointers ---------------------------------------------------------------------
    def in_entry(self) -> ir.IRBuilder:
        """A builder positioned at the end of the entry block (for hoisted setup code): a new
        IRBuilder starts there (positioning after the last instruction searched the block,
        quadratic in a training step's ~1,400 kernel calls' slot arrays)."""
        return ir.IRBuilder(self.entry_block)

    def _arg_ptr(self, array: ir.Value, k: int, key: tuple[int, int]) -> ir.Value:
        p = self._ptr_cache.get(key)
        if p is None:
            if self.kernel is not None:  # a kernel reaches every buffer through its slots
                return self._slot_ptr(key)
            eb = self.in_entry()
            slot = eb.gep(array, [c64(k)], source_etype=types.PTR)
            p = eb.load(slot, typ=types.PTR, name=f"{'in' if key[0] == -1 else 'out'}{k}")
            self._ptr_cache[key] = p
        return p

    def param_ptr(self, k: int) -> ir.Value:
        return self._arg_ptr(self.params_arg, k, (-1, k))

    def out_ptr(self, k: int) -> ir.Value:
        return self._arg_ptr(self.outs_arg, k, (-2, k))

    def arena_ptr(self, offset: int) -> ir.Value:
        key = (-3, offset)
        p = self._ptr_cache.get(key)
        if p is None:
            if self.kernel is not None:
                return self._slot_ptr(key)
            p = self.in_entry().gep(self.arena, [c64(offset)], source_etype=types.I8)
            self._ptr_cache[key] = p
        return p

    def _slot_ptr(self, key: tuple[int, int]) -> ir.Value:
        """In a kernel: the pointer of location `key` from its slot (cached under the key, so
        alias_scopes.py tells the locations apart as in the caller)."""
        assert self.kernel is not None
        k = self.kernel.slot(key)
        eb = self.in_entry()
        p = eb.load(eb.gep(self.params_arg, [c64(k)], source_etype=types.PTR), typ=types.PTR, name=f"slot{k}")
        self._ptr_cache[key] = p
        return p

    def constant_ptr(self, inst: Instruction) -> ir.Value:
        """A materialised constant's memory: its global (a kernel's slot)."""
        if self.kernel is not None:
            key = (-4, id(inst))
            return self._ptr_cache.get(key) or self._slot_ptr(key)
        g = self._const_cache.get(id(inst))
        if g is None:
            g = self.mc.constant_global(inst)
            self._const_cache[id(inst)] = g
        return g

    def leaf_ptr_of(self, lf: buffers.Leaf, shape: Shape) -> ir.Value:
        assert self.plan is not None
        if lf.kind == "param":
            return self.param_ptr(lf.index)
        if lf.kind == "const":
            assert lf.inst is not None
            return self.constant_ptr(lf.inst)
        if lf.kind == "none":
            return ir.Constant(types.PTR, None)
        loc = self.plan.location[lf.index]
        if loc.kind == "output":
            return self.out_ptr(loc.offset)
        return self.arena_ptr(loc.offset)

    def leaf_ptrs(self, inst: Instruction) -> list[ir.Value]:
        """Pointers to the array leaves of a materialised value (depth-first)."""
        assert self.plan is not None
        leaves = self.plan.leaves[id(inst)]
        shapes = inst.shape.leaves()
        if len(leaves) != len(shapes):
            raise HloUnsupportedError(f"internal: %{inst.name} has {len(leaves)} buffers for {len(shapes)} leaves")
        return [self.leaf_ptr_of(lf, s) for lf, s in zip(leaves, shapes)]

    def scratch_ptrs(self, inst: Instruction) -> list[ir.Value]:
        assert self.plan is not None
        return [self.arena_ptr(off) for off in self.plan.scratch.get(id(inst), [])]

    def is_materialised(self, inst: Instruction) -> bool:
        return self.kinds.get(id(inst)) in ("param", "const", "alias", "define") and inst.parent is self.comp

    # -- helpers for emitters -------------------------------------------------------------
    def element_ptr(self, base: ir.Value, shape: Shape, index: list[ir.Value]) -> ir.Value:
        et = shape.element_type
        assert et is not None
        return self.b.gep(base, [linear_index(self.b, shape, index)], inbounds=True, source_etype=types.storage_type(et))

    def load_element(self, base: ir.Value, shape: Shape, index: list[ir.Value]) -> ir.Value:
        et = shape.element_type
        assert et is not None
        raw = self.b.load(self.element_ptr(base, shape, index), typ=types.storage_type(et))
        scopes_of(self).tag(raw, base)
        return types.from_storage(self.b, raw, et)

    def store_element(self, value: ir.Value, base: ir.Value, shape: Shape, index: list[ir.Value]) -> None:
        et = shape.element_type
        assert et is not None
        st = self.b.store(types.to_storage(self.b, value, et), self.element_ptr(base, shape, index))
        scopes_of(self).tag(st, base)

    def memcpy(self, dst: ir.Value, src: ir.Value, nbytes: int) -> None:
        if nbytes <= 0:
            return
        fn = self.mc.ir.globals.get("llvm.memcpy.p0.p0.i64")
        if fn is None:
            fn = ir.Function(self.mc.ir, ir.FunctionType(ir.VoidType(), [types.PTR, types.PTR, types.I64, types.I1]),
                             "llvm.memcpy.p0.p0.i64")
        self.b.call(fn, [dst, src, c64(nbytes), ir.Constant(types.I1, 0)])

    def memcpy_if_distinct(self, dst: ir.Value, src: ir.Value, nbytes: int) -> None:
        """memcpy unless dst and src are the same memory (aliased results)."""
        with self.b.if_then(self.b.icmp_unsigned("!=", self.b.ptrtoint(dst, types.I64), self.b.ptrtoint(src, types.I64))):
            self.memcpy(dst, src, nbytes)

    def call_computation(self, comp: Computation, args: list[ir.Value], outs: list[ir.Value],
                         callee: CompiledFunction | None = None, arg_shapes: list[Shape] | None = None,
                         out_shapes: list[Shape] | None = None) -> None:
        """Call the function of `comp` with leaf pointers (its temps after ours).

        With the caller's leaf shapes given, a leaf whose layout differs from the callee's
        parameter (or root) layout goes through a relayout copy in heap memory: modules before
        layout assignment may disagree across a call, and the callee reads memory in its own
        layout (XLA's layout assignment would insert copies there)."""
        if self.kernel is not None:
            raise kernels.Escape(f"calls computation {comp.name}")
        callee = callee or self.mc.function_for(comp)
        assert self.plan is not None
        fixups: list[tuple[ir.Value, Shape, ir.Value, Shape]] = []
        temps: list[ir.Value] = []
        if arg_shapes is not None:
            params = [leaf for p in comp.parameters for leaf in p.shape.leaves()]
            args = list(args)
            for k, (mine, theirs) in enumerate(zip(arg_shapes, params)):
                if placement.needs_relayout(mine, theirs):
                    tmp = self._malloc(leaf_bytes(theirs))
                    temps.append(tmp)
                    self.relayout(args[k], mine, tmp, theirs)
                    args[k] = tmp
        if out_shapes is not None:
            assert comp.root is not None
            outs = list(outs)
            for k, (mine, theirs) in enumerate(zip(out_shapes, comp.root.shape.leaves())):
                if placement.needs_relayout(mine, theirs):
                    tmp = self._malloc(leaf_bytes(theirs))
                    temps.append(tmp)
                    fixups.append((tmp, theirs, outs[k], mine))
                    outs[k] = tmp
        self._call(callee, args, outs)
        for src, src_shape, dst, dst_shape in fixups:
            self.relayout(src, src_shape, dst, dst_shape)
        for tmp in temps:
            self._libc("free", ir.VoidType(), [tmp])

    def _alias_sources(self, inst: Instruction) -> list[tuple[ir.Value, Shape]]:
        pairs = [(p, s) for op in inst.operands for p, s in zip(self.leaf_ptrs(op), op.shape.leaves())]
        return placement.alias_slice(inst, pairs)

    def relayout(self, src: ir.Value, src_shape: Shape, dst: ir.Value, dst_shape: Shape) -> None:
        """dst := src element by element (same dims and type, different layouts)."""
        def body(index: list[ir.Value]) -> None:
            self.store_element(self.load_element(src, src_shape, index), dst, dst_shape, index)
        loop_nest(self.b, dst_shape, body)

    def _malloc(self, nbytes: int) -> ir.Value:
        return self._libc("malloc", types.PTR, [c64(max(1, nbytes))])

    def _libc(self, name: str, ret: ir.Type, args: list[ir.Value]) -> ir.Value:
        fn = self.mc.ir.globals.get(name) or ir.Function(self.mc.ir, ir.FunctionType(ret, [a.type for a in args]), name)
        return self.b.call(fn, args)

    def _call(self, callee: CompiledFunction, args: list[ir.Value], outs: list[ir.Value]) -> None:
        assert self.plan is not None
        self.callee_bytes = max(self.callee_bytes, callee.arena_bytes)
        eb = self.in_entry()
        arr_in = eb.bitcast(eb.alloca(types.PTR, size=max(1, len(args))), types.PTR)
        arr_out = eb.bitcast(eb.alloca(types.PTR, size=max(1, len(outs))), types.PTR)
        for arr, ptrs in ((arr_in, args), (arr_out, outs)):
            for k, p in enumerate(ptrs):
                self.b.store(p, self.b.gep(arr, [c64(k)], source_etype=types.PTR))
        sub_arena = self.b.gep(self.arena, [c64(self.plan.arena_bytes)], source_etype=types.I8)
        self.b.call(callee.function, [sub_arena, arr_in, arr_out])


ELEMENTAL_EMITTERS: set[str] = set()  # opcodes with an emitter that still reads operands via value_at
# Runtime-library kernels or special loops that may replace an elemental loop
# (lower/reduce_window.py for reduce-window, lower/column_reduction.py for column sums):
# each fn(fe, inst) emits `inst` and returns True, or returns False (emitting nothing) to
# leave it to the next one or the loop. The instruction stays an elemental loop for everything
# else (implicit fusion of its operands, emit_concurrent's task kernels).
KERNEL_LOOPS: dict[str, list[Callable[[FunctionEmitter, Instruction], bool]]] = {}


def emit_elemental_loop(fe: FunctionEmitter, inst: Instruction) -> None:
    """The default emitter: one loop nest over the result, storing value_at(inst, index)
    (or a runtime-library kernel's call, KERNEL_LOOPS)."""
    if any(kernel(fe, inst) for kernel in KERNEL_LOOPS.get(inst.opcode, ())):
        return
    ptrs = fe.leaf_ptrs(inst)
    shapes = inst.shape.leaves()
    loop_shape = shapes[0]
    if any(s.dims != loop_shape.dims for s in shapes):
        raise HloUnsupportedError(f"{inst.opcode} %{inst.name}: tuple leaves of different dims in one loop")

    def body(index: list[ir.Value]) -> None:
        with fe.gen.region():
            v = fe.gen.generate(inst, index)
            vals = v if isinstance(v, list) else [v]
            # (pointers asked again here: a parallel nest emits the body in a worker function)
            for val, p, s in zip(vals, fe.leaf_ptrs(inst) if ptrs else ptrs, shapes):
                if leaf_bytes(s):
                    fe.store_element(val, p, s, index)
    from hlotools.backend.llvm.codegen.outline import result_loop, work_per_element
    flat = len(loop_shape.dims) > 1 and placement.reads_in_place(fe, inst, loop_shape)
    result_loop(fe, inst, loop_shape, body, work_per_element(inst), flat, placement.concatenate_cuts(inst, loop_shape))



def schedule(comp: Computation) -> list[Instruction]:
    """The instruction order: the text's (a topological order; the scheduler may refine it)."""
    return comp.post_order() if any(i.control_predecessors for i in comp.instructions) else list(comp.instructions)


def _locate(e: HloError, inst: Instruction) -> HloError:
    if e.line is None and inst.line:
        e.line = inst.line
        e.column = inst.column or None
    if f"%{inst.name}" not in e.message:
        e.message = f"{inst.opcode} %{inst.name}: {e.message}"
        e.args = (e.message,)
    return e


