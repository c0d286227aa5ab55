"""The HLO verifier: is a parsed (or rewritten) module semantically valid?

Checks what XLA's HloVerifier checks for a module before compilation: one entry computation,
one root per computation, dense unique parameter numbers, operands defined before use in the
same computation, operand counts from the opcode table, declared shapes equal to the inferred
ones (ShapeVerifier: layouts ignored; dynamic dimensions compared only for the opcodes XLA
compares with Shape::Equal), called computations' signatures, valid layouts, and the
entry_computation_layout against the entry's signature. XLA's parser accepts
`f32[3] add(f32[2] p, p)`; this verifier rejects it.

`verify(module)` raises HloVerifyError naming the instruction, its computation and (via the
error's line/column) its place in the text.
"""
from __future__ import annotations

from hlotools.errors import HloError, HloVerifyError
from hlotools.ir import opcodes
from hlotools.ir.computation import Computation
from hlotools.ir.dynamic import check_dynamic
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.opcodes import OPCODES, VARIADIC
from hlotools.ir.shape import Shape
from hlotools.ir.shape_inference import infer_shape_without_layout
from hlotools.ir.shape_inference_common import same_dims_type, shape_text
from hlotools.ir.verifier_async import first_async_chain_error
from hlotools.ir.verifier_calls import CALL_CHECKS
from hlotools.ir.verifier_module import check_module_attributes

__all__ = ["verify", "shapes_match"]

# XLA's ShapeVerifier::CheckShape compares these opcodes with Shape::Equal (dynamic dimensions
# included, layout ignored); all others with ShapeUtil::Compatible (dynamic-ness ignored).
_EQUAL_OPCODES = frozenset(
    "bitcast call conditional constant copy-done copy-start custom-call dynamic-update-slice "
    "get-tuple-element infeed outfeed opt-barrier parameter recv recv-done send send-done tuple "
    "while".split())


def _err(inst: Instruction, comp: Computation, message: str) -> HloVerifyError:
    """An error at the instruction, or else at its computation: an instruction the parser
    synthesised (the op a sugared async-start wraps) has no place in the text of its own."""
    line, col = (inst.line, inst.column) if inst.line else (comp.line, comp.column)
    return HloVerifyError(f"%{inst.name} ({inst.opcode}) in computation %{comp.name}: {message}",
                          line or None, col or None)


def _comp_err(comp: Computation, message: str) -> HloVerifyError:
    return HloVerifyError(f"computation %{comp.name}: {message}", comp.line or None,
                          comp.column or None)


def shapes_match(declared: Shape, inferred: Shape, compare_dynamic: bool) -> bool:
    """Layout-insensitive comparison; dynamic dimension flags only when `compare_dynamic`."""
    if not same_dims_type(declared, inferred):
        return False
    if not compare_dynamic:
        return True
    return [s.dynamic or (False,) * s.rank for s in declared.leaves()] == \
        [s.dynamic or (False,) * s.rank for s in inferred.leaves()]


_VALID_SHAPES: set[Shape] = set()


def _check_shape_valid(shape: Shape) -> str | None:
    """Memoised: modules share a few shape objects among thousands of instructions."""
    if shape in _VALID_SHAPES:
        return None
    msg = _shape_problem(shape)
    if msg is None:
        if len(_VALID_SHAPES) > 50000:
            _VALID_SHAPES.clear()
        _VALID_SHAPES.add(shape)
    return msg


def _shape_problem(shape: Shape) -> str | None:
    """Dims are non-negative (or dynamic), layouts are permutations of the dims."""
    for leaf in shape.leaves():
        for i, d in enumerate(leaf.dims):
            if d < 0 and not (leaf.is_dynamic_dim(i) and d == -1):
                return f"shape {shape_text(shape)} has a negative dimension"
        lay = leaf.layout
        if lay is not None and leaf.is_array and sorted(lay.minor_to_major) != list(range(leaf.rank)):
            return f"layout {lay} of {leaf} contains {len(lay.minor_to_major)} elements, but the " \
                   f"shape has {leaf.rank} dimensions"
    return None


def _check_operand_count(inst: Instruction) -> str | None:
    info = OPCODES[inst.opcode]
    n = len(inst.operands)
    if info.arity != VARIADIC and n != info.arity:
        return f"expects {info.arity} operand{'s' if info.arity != 1 else ''}, got {n}"
    if info.arity == VARIADIC and n < info.min_operands:
        return f"expects at least {info.min_operands} operands, got {n}"
    return None


def _missing_attribute(inst: Instruction) -> str | None:
    """Required attributes per the opcode table's OPCODE_ATTRIBUTES (when the table has it)."""
    table = getattr(opcodes, "OPCODE_ATTRIBUTES", None)
    if not table or inst.opcode not in table:
        return None
    for name in sorted(table[inst.opcode][0]):
        # XLA lets a broadcast of a scalar omit `dimensions` (the rule checks the count).
        if name not in inst.attrs and not (name == "dimensions" and inst.opcode == "broadcast"):
            return f"missing required attribute '{name}'"
    return None


def _check_instruction(inst: Instruction, comp: Computation, position: dict[int, int],
                       users: dict[int, set[int]], module_comps: set[int]) -> None:
    if inst.opcode not in OPCODES:
        raise _err(inst, comp, "unknown opcode")
    msg = _check_operand_count(inst) or _missing_attribute(inst)
    if msg:
        raise _err(inst, comp, msg)
    _check_edges(inst, comp, position, users, module_comps)
    _check_result(inst, comp)
    check = CALL_CHECKS.get(inst.opcode)
    msg = (check(inst) if check is not None else None) or check_dynamic(inst)
    if msg:
        raise _err(inst, comp, msg)


def _check_edges(inst: Instruction, comp: Computation, position: dict[int, int],
                 users: dict[int, set[int]], module_comps: set[int]) -> None:
    """Operands and control predecessors come earlier in the same computation (and list
    `inst` as a user); called computations belong to the module."""
    here = position[id(inst)]
    for i, op in enumerate(inst.operands + inst.control_predecessors):
        where = position.get(id(op))
        if op.parent is not comp or where is None:
            raise _err(inst, comp, f"operand %{op.name} is not an instruction of this computation")
        if where >= here:
            raise _err(inst, comp, f"operand %{op.name} is used before it is defined")
        if i < len(inst.operands) and id(inst) not in users[id(op)]:
            raise _err(inst, comp, f"operand %{op.name} does not list it as a user")
    for called in inst.called_computations():
        if id(called) not in module_comps:
            raise _err(inst, comp, f"called computation %{called.name} is not in the module")


def _check_result(inst: Instruction, comp: Computation) -> None:
    """The declared shape is well formed and equals the inferred one (layouts ignored)."""
    if inst.shape is None:
        raise _err(inst, comp, "has no shape")
    msg = _check_shape_valid(inst.shape)
    if msg:
        raise _err(inst, comp, msg)
    try:
        inferred = infer_shape_without_layout(inst)
    except HloError as e:
        raise _err(inst, comp, e.message) from None
    if not shapes_match(inst.shape, inferred, inst.opcode in _EQUAL_OPCODES):
        raise _err(inst, comp, f"declared shape {shape_text(inst.shape)} does not match the "
                               f"inferred shape {shape_text(inferred)}")


def _check_parameters(comp: Computation) -> None:
    seen: dict[int, Instruction] = {}
    for inst in comp.instructions:
        if inst.opcode != "parameter":
            continue
        n = inst.parameter_number
        if n is None or n < 0:
            raise _err(inst, comp, "parameter has no parameter number")
        if n in seen:
            raise _err(inst, comp, f"parameter number {n} is already used by %{seen[n].name}")
        seen[n] = inst
    missing = sorted(set(range(len(seen))) - set(seen))
    if missing:
        raise _comp_err(comp, f"parameter numbers must be dense: parameter {missing[0]} is missing "
                              f"(numbers {sorted(seen)})")
    for n, p in seen.items():
        if n >= len(comp.parameters) or comp.parameters[n] is not p:
            raise _err(p, comp, f"parameter {n} is not registered as the computation's "
                                f"parameter {n}")


def _check_computation(comp: Computation, module_comps: set[int]) -> None:
    if comp.root is None:
        raise _comp_err(comp, "has no ROOT instruction")
    if comp.root.parent is not comp or comp.root not in comp.instructions:
        raise _comp_err(comp, f"ROOT %{comp.root.name} is not an instruction of this computation")
    names: set[str] = set()
    position: dict[int, int] = {}
    for i, inst in enumerate(comp.instructions):
        if inst.name in names:
            raise _err(inst, comp, f"instruction name %{inst.name} is not unique")
        names.add(inst.name)
        position[id(inst)] = i
    # Set per instruction, so a constant with thousands of users costs no quadratic scans.
    users = {id(inst): {id(u) for u in inst.users} for inst in comp.instructions}
    _check_parameters(comp)
    for inst in comp.instructions:
        _check_instruction(inst, comp, position, users, module_comps)


def _check_call_graph_acyclic(module: Module) -> None:
    """XLA's call graph is a DAG: no computation may (transitively) call itself."""
    state: dict[int, int] = {}  # 1 = on the DFS stack, 2 = done

    def visit(comp: Computation) -> None:
        state[id(comp)] = 1
        for inst in comp.instructions:
            for callee in inst.called_computations():
                s = state.get(id(callee))
                if s == 1:
                    raise _err(inst, comp, f"calls %{callee.name}, which is already on the call "
                                           "stack (recursive computations are not allowed)")
                if s is None:
                    visit(callee)
        state[id(comp)] = 2

    for comp in module.computations:
        if id(comp) not in state:
            visit(comp)


def verify(module: Module) -> None:
    """Raise HloVerifyError for the first problem found (computations in module order)."""
    entries = [c for c in module.computations if c.is_entry]
    if module.entry is None or module.entry not in module.computations:
        raise HloVerifyError(f"module {module.name} has no ENTRY computation")
    if len(entries) > 1:
        raise _comp_err(entries[1], f"module {module.name} has more than one ENTRY computation "
                                    f"(%{entries[0].name} and %{entries[1].name})")
    names: set[str] = set()
    for comp in module.computations:
        if comp.name in names:
            raise _comp_err(comp, "computation name is not unique")
        names.add(comp.name)
    chain = first_async_chain_error(module)
    if chain is not None:
        raise _err(*chain)
    module_comps = {id(c) for c in module.computations}
    for comp in module.computations:
        _check_computation(comp, module_comps)
    _check_call_graph_acyclic(module)
    check_module_attributes(module, module.entry)
