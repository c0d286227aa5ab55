"""The elemental IR emitter (XLA's idea): `value_at(inst, index)` builds the value of an
instruction at one multi-index from the values of its operands, so a chain of elemental ops
(a fusion, or an implicitly fused chain) becomes ONE loop nest whose intermediates live in
registers. Materialised values (parameters, constants, results of emitters) are loaded from
their buffers instead.

Values already built at the same index are reused (a DAG is not re-expanded into a tree);
the cache is a stack of regions so a value built inside an inner loop (a reduction) is never
used after that loop, where it would not dominate its use.

This file holds the generator; the generators per opcode are in lower/ (registry.ELEMENTAL).
"""
from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import llvmlite.ir as ir

from hlotools.backend.llvm.codegen.registry import ELEMENTAL
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.loops import FlatIndex, value_key
from hlotools.errors import HloUnsupportedError
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape

if TYPE_CHECKING:
    from hlotools.backend.llvm.codegen.function import FunctionEmitter


Value = Any  # ir.Value, or a list of them for tuple-shaped values


Index = list[ir.Value]


CacheKey = tuple[int, int, tuple[object, ...]]  # (generator serial, id(instruction), index key)


_SERIAL = itertools.count()


class ElementalGen:
    """Generates values of the instructions of one computation at given indices.
    `bindings` replaces parameters (of a fused or scalar computation) by generators."""

    def __init__(self, fe: FunctionEmitter, bindings: dict[int, Callable[[Index], Value]] | None = None,
                 sources: dict[int, tuple[ElementalGen, Instruction]] | None = None) -> None:
        self.fe = fe
        self.bindings = bindings or {}
        self.sources = sources or {}  # bound parameters that read (gen, instruction) at the same index
        self.serial = next(_SERIAL)

    @property
    def b(self) -> ir.IRBuilder:
        return self.fe.b

    @contextmanager
    def region(self) -> Iterator[None]:
        """Values built inside stay inside (a loop body or a branch)."""
        layers = self.fe.cache_layers
        layers.append({})
        try:
            yield
        finally:
            layers.pop()

    def buffer_shape(self, inst: Instruction) -> Shape | None:
        """The shape of the buffer value_at(inst, index) loads its element from (through the
        parameters of fusions), None when the value is computed: then a reader that knows the
        element's offset in that shape needs no index components (FlatIndex)."""
        source = self.sources.get(id(inst))
        if source is not None:
            return source[0].buffer_shape(source[1])
        if self.bindings or inst.shape.is_tuple or not self.fe.is_materialised(inst):
            return None
        if inst.opcode == "constant" and not inst.shape.dims:
            return None
        return inst.shape

    def value_at(self, inst: Instruction, index: Index) -> Value:
        key: CacheKey = (self.serial, id(inst), _index_key(index))
        layers = self.fe.cache_layers
        for layer in reversed(layers):
            v = layer.get(key)
            if v is not None:
                return v
        binding = self.bindings.get(id(inst))
        if binding is not None:
            v = binding(index)
        elif inst.opcode == "constant" and not inst.shape.is_tuple and not inst.shape.dims:
            v = constant_value(inst)
        elif self.fe.is_materialised(inst) and not self.bindings:
            v = self.load(inst, index)
        else:
            v = self.generate(inst, index)
        layers[-1][key] = v
        return v

    def generate(self, inst: Instruction, index: Index) -> Value:
        fn = ELEMENTAL.get(inst.opcode)
        if fn is None:
            raise HloUnsupportedError(f"{inst.opcode} %{inst.name} has no elemental generator in the LLVM backend")
        return fn(self, inst, index)

    def load(self, inst: Instruction, index: Index) -> Value:
        ptrs = self.fe.leaf_ptrs(inst)
        shapes = inst.shape.leaves()
        vals = [self.fe.load_element(p, s, index) for p, s in zip(ptrs, shapes)]
        return vals if inst.shape.is_tuple else vals[0]

    def operand(self, inst: Instruction, k: int, index: Index) -> Value:
        return self.value_at(inst.operands[k], index)

    def apply(self, comp: Computation, args: list[ir.Value]) -> Value:
        """Inline a scalar computation (reducer, comparator, map function) on values. A
        reducer's float add/multiply are never marked reassociable: LLVM would then vectorise
        the fold with a width and interleave of the target's choosing, and a row sum would have
        other bits at x86-64-v2, -v3 and -v4 (measured: 55 of 128 sums differed)."""
        bindings: dict[int, Callable[[Index], Value]] = {}
        for p, v in zip(comp.parameters, args):
            bindings[id(p)] = (lambda val: (lambda idx: val))(v)
        sub = ElementalGen(self.fe, bindings)
        assert comp.root is not None
        for inst in comp.instructions:
            if inst.shape.is_array and inst.shape.dims and inst.opcode not in ("parameter",):
                raise HloUnsupportedError(f"computation {comp.name} applied per element has a non-scalar "
                                          f"instruction %{inst.name}")
        return sub.value_at(comp.root, [])


def _index_key(index: Index) -> tuple[object, ...]:
    """A flat index by its offset (its components may be placeholders: FlatIndex.offset_only)."""
    if isinstance(index, FlatIndex):
        return ("flat", value_key(index.linear), index.dims, index.layout)
    return tuple(value_key(v) for v in index)


def constant_value(inst: Instruction) -> ir.Value:
    et = inst.shape.element_type
    assert et is not None and inst.literal is not None
    arr = inst.literal.value()
    return types.constant(et, arr.reshape(()).item() if et.kind != "complex" else complex(arr.reshape(())))


def fusion_is_elemental(inst: Instruction) -> bool:
    """Can the fused computation be generated element by element (one loop nest)?"""
    cache = _FUSION_ELEMENTAL
    comp = inst.attrs.get("calls")
    if comp is None:
        return False
    hit = cache.get(comp)
    if hit is None:
        hit = all(i.opcode in ELEMENTAL or i.opcode == "parameter" for i in comp.instructions)
        root = comp.root
        if root is not None and root.shape.is_tuple:
            leaves = root.shape.leaves()
            hit = hit and all(s.dims == leaves[0].dims for s in leaves)
        cache[comp] = hit
    return hit


# Weak keys: an id() key could be reused by a new computation after the old one is freed.
_FUSION_ELEMENTAL: weakref.WeakKeyDictionary[Computation, bool] = weakref.WeakKeyDictionary()
