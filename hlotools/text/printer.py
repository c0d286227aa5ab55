"""IR -> canonical HLO text, in XLA's two print styles.

`long` is XLA's dump form (`HloModule::ToString()` with the dump options): `%` before every
instruction and computation name, computation signatures `%c (p: f32[2]) -> f32[2] {`, and
`/*index=N*/` before every fifth operand. `short` is what `jax.jit(f).lower(...).as_text()`
prints: bare names and no signatures. Both print tuple shapes with `/*index=N*/` markers,
layouts on every array shape (not on scalars unless the layout has extras), full constants
(or `{...}` when the IR holds an elided one) and the module's stack-frame tables verbatim.

Attribute order is XLA's (HloInstruction::PrintWithCanonicalNameMap): opcode-specific
attributes (in the order of XLA's PrintExtraAttributesImpl overrides; unknown ones after them
in IR order), then called computations, then sharding, frontend_attributes,
control-predecessors, statistics, result_accuracy, origin, metadata, backend_config. Header
attributes follow HloModule::Print's order; entry_computation_layout is derived from the entry
computation when the IR has none (XLA's module config always carries one). Attributes holding
the value XLA assumes (feature_group_count=1, is_stable=false on sort, the default compare
type, ...) are left out, as XLA does. Values are formatted from their typed IR values
(text/literal_format.py for constants); Raw attributes print verbatim by design (apart from
operand_precision, which XLA lowercases). Async ops print with XLA's syntax sugar when the
wrapped computation is the one the parser would rebuild (text/print_async.py).
Computations print in the module's order (the parser's text order), callees moved before
their callers when needed; instructions in the computation's order.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hlotools.errors import HloError
from hlotools.ir.attributes import (
    VERBATIM_TYPES,
    ComputationLayout,
    ConvDimLabels,
    Enum,
    PaddingConfig,
    Raw,
    SliceRange,
    Window,
    format_slices,
)
from hlotools.ir.canonical import MAYBE_DEFAULT, attr_order, header_order, is_default_attr, precision_text
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape
from hlotools.text import print_async
from hlotools.text.literal_format import format_literal
from hlotools.text.parse_async import ASYNC_OPS
from hlotools.text.print_attrs import ENUM_CASE, dim_labels_text, escape

STYLES = ("short", "long")

class HloPrinter:
    """Prints IR in one style; memoises shape strings (shapes are shared, hashable objects)."""

    def __init__(self, style: str = "short", *, print_large_constants: bool = True,
                 print_operand_shapes: bool = False) -> None:
        if style not in STYLES:
            raise HloError(f"unknown print style {style!r}; expected one of {', '.join(STYLES)}")
        self.style = style
        self.long = style == "long"
        self.pct = "%" if self.long else ""
        self.print_large_constants = print_large_constants
        # XLA's default HloPrintOptions (HloModule::ToString() outside dumps) also print
        # operand shapes: `add(f32[2]{0} %a, f32[2]{0} %b)`.
        self.print_operand_shapes = print_operand_shapes
        self._shape_cache: dict[Shape, str] = {}
        self._bare_shape_cache: dict[Shape, str] = {}
        # Shapes are shared immutable objects: an id lookup avoids hashing them per line.
        self._shape_by_id: dict[int, tuple[Shape, str]] = {}
        self._value_cache: dict[tuple, str] = {}
        # Async sugar: id(async-start) -> wrapped root (or None); callers map of the module.
        self._sugar: dict[int, Instruction | None] = {}
        self._callers: dict[int, list[Instruction]] | None = None

    # -- shapes -----------------------------------------------------------------------
    def shape(self, shape: Shape) -> str:
        """ShapeUtil::HumanStringWithLayout (tuples get `/*index=N*/` every 5 elements)."""
        s = self._shape_cache.get(shape)
        if s is None:
            s = self._shape_cache[shape] = self._shape_text(shape, True)
        return s

    def bare_shape(self, shape: Shape) -> str:
        """ShapeUtil::HumanString: no layouts (computation signatures)."""
        s = self._bare_shape_cache.get(shape)
        if s is None:
            s = self._bare_shape_cache[shape] = self._shape_text(shape, False)
        return s

    def _shape_text(self, shape: Shape, with_layout: bool) -> str:
        if shape.tuple_shapes is not None:
            parts = []
            for i, sub in enumerate(shape.tuple_shapes):
                text = self.shape(sub) if with_layout else self.bare_shape(sub)
                parts.append(f"/*index={i}*/{text}" if i and i % 5 == 0 else text)
            return "(" + ", ".join(parts) + ")"
        if with_layout and shape.layout is None and shape.dims and shape.is_array:
            # XLA's parser fills missing layouts with the default (descending) one.
            return shape.with_default_layout().to_text(True)
        return shape.to_text(with_layout)

    # -- attribute values -------------------------------------------------------------
    def value(self, value: Any) -> str:
        """Text of a typed attribute value (see the table in ir/attributes.py)."""
        if isinstance(value, (Raw, Enum)):
            return str(value)
        if isinstance(value, str):
            return '"' + escape(value) + '"'
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return f"{value:g}"  # absl::StrCat(float): six significant digits
        if isinstance(value, Computation):
            return self.pct + value.name
        if isinstance(value, Shape):
            return self.shape(value)
        if isinstance(value, ConvDimLabels):
            return dim_labels_text(value)
        if isinstance(value, ComputationLayout):
            return value.text if value.text is not None else self.layout(value.params, value.result)
        if isinstance(value, (Window, PaddingConfig, *VERBATIM_TYPES)):
            return value.to_text()
        if isinstance(value, Instruction):
            return self.pct + value.name
        if isinstance(value, (tuple, list)):
            return self._sequence(tuple(value))
        return str(value)

    def _sequence(self, items: tuple) -> str:
        if not items:
            return "{}"
        first = items[0]
        if isinstance(first, SliceRange):
            return format_slices(items)
        if isinstance(first, (bool, int)) or (isinstance(first, tuple) and (not first or isinstance(first[0], int))):
            # int lists, bool lists and lists of int lists ({{0,1},{1,2}}) join without spaces
            return "{" + ",".join(self.value(x) for x in items) + "}"
        return "{" + ", ".join(self.value(x) for x in items) + "}"

    # -- instructions -----------------------------------------------------------------
    def attr_order(self, inst: Instruction) -> list[str]:
        return attr_order(inst)

    def _attrs_text(self, inst: Instruction, skip: str | None = None) -> str:
        return "".join([f", {name}={text}" for name, text in self.attribute_items(inst, skip)])

    def attribute_items(self, inst: Instruction, skip: str | None = None) -> list[tuple[str, str]]:
        """(name, value text) of each attribute the instruction line prints, in its order."""
        attrs = inst.attrs
        cache = self._value_cache
        parts = []
        for name in self.attr_order(inst):
            if name == skip:
                continue
            if name == "control-predecessors" and name not in attrs:
                preds = ", ".join(self.pct + p.name for p in inst.control_predecessors)
                parts.append((name, "{" + preds + "}"))
                continue
            value = attrs[name]
            if value is None or (name in MAYBE_DEFAULT and is_default_attr(inst, name, value)):
                continue  # None: a pass cleared the attribute
            if isinstance(value, Raw):  # metadata, frontend_attributes, ...: verbatim
                parts.append((name, precision_text(value) if name == 'operand_precision' else str(value)))
                continue
            if isinstance(value, VERBATIM_TYPES):  # decoded, printed as written
                parts.append((name, value.text))
                continue
            if isinstance(value, Enum) and name in ENUM_CASE:
                parts.append((name, ENUM_CASE[name](value)))
                continue
            key = (type(value), type(value[0]) if type(value) is tuple and value else None, value)
            try:
                text = cache[key]
            except KeyError:
                text = cache[key] = self.value(value)
            except TypeError:  # unhashable (a list)
                text = self.value(value)
            parts.append((name, text))
        return parts

    def operands(self, inst: Instruction) -> str:
        opcode = inst.opcode
        if opcode == "parameter":
            return str(inst.parameter_number if inst.parameter_number is not None else 0)
        if opcode == "constant":
            lit = inst.literal
            if lit is None:
                return "{...}"
            if not self.print_large_constants and (lit.elements is not None or lit.shape.size > 10):
                return "{...}"
            return format_literal(lit)
        ops = inst.operands
        if self.print_operand_shapes:
            pct = self.pct
            texts = [f"{self.shape(op.shape)} {pct}{op.name}" for op in ops]
            if self.long and len(texts) > 5:
                return ", ".join(f"/*index={i}*/{t}" if i and i % 5 == 0 else t for i, t in enumerate(texts))
            return ", ".join(texts)
        if self.long:
            if len(ops) > 5:
                return ", ".join(f"/*index={i}*/%{op.name}" if i and i % 5 == 0 else "%" + op.name
                                 for i, op in enumerate(ops))
            return ", ".join(["%" + op.name for op in ops])
        return ", ".join([op.name for op in ops])

    def instruction(self, inst: Instruction) -> str:
        """`%name = shape opcode(operands), attrs...` (no indentation, no ROOT)."""
        shape = inst.shape
        hit = self._shape_by_id.get(id(shape))
        shape_text = hit[1] if hit is not None and hit[0] is shape else self._remember_shape(shape)
        opcode = inst.opcode
        if opcode in ASYNC_OPS:
            opcode, tail = self._async_parts(inst)
        else:
            tail = self._attrs_text(inst) if inst.attrs or inst.control_predecessors else ""
        return f"{self.pct}{inst.name} = {shape_text} {opcode}({self.operands(inst)}){tail}"

    def sugar_root(self, inst: Instruction) -> Instruction | None:
        """The wrapped op when this async op prints as `<op>-start/-update/-done` (print_async)."""
        key = id(inst)
        if key not in self._sugar:
            if self._callers is None:
                parent = inst.parent
                module = parent.parent if parent is not None else None
                self._callers = print_async.callers_by_computation(module) if module is not None else {}
            self._sugar[key] = print_async.wrapped_root(inst, self._callers)
        return self._sugar[key]

    def _async_parts(self, inst: Instruction) -> tuple[str, str]:
        """Opcode text and attribute text of an async-start/-update/-done."""
        root = self.sugar_root(inst)
        if root is None:
            skip = "calls" if inst.opcode != "async-start" and print_async.derived_calls(inst) else None
            return inst.opcode, self._attrs_text(inst, skip=skip)
        opcode = root.opcode + inst.info.async_suffix
        if inst.opcode != "async-start":
            return opcode, self._attrs_text(inst, skip="calls")
        own = "".join(f", {n}={self.value(inst.attrs[n])}" for n in print_async.START_OWN_ATTRS
                      if n in inst.attrs)
        wrapped = self._attrs_text(root) if root.attrs or root.control_predecessors else ""
        return opcode, own + wrapped

    def _remember_shape(self, shape: Shape) -> str:
        text = self.shape(shape)
        self._shape_by_id[id(shape)] = (shape, text)
        return text

    # -- computations and modules -----------------------------------------------------
    def signature(self, comp: Computation) -> str:
        params = ", ".join(f"{p.name}: {self.bare_shape(p.shape)}" for p in comp.parameters if p is not None)
        root = comp.root if comp.root is not None else (comp.instructions[-1] if comp.instructions else None)
        result = self.bare_shape(root.shape) if root is not None else "()"
        return f"({params}) -> {result}"

    def computation(self, comp: Computation, is_entry: bool | None = None) -> str:
        if is_entry is None:
            parent = comp.parent
            is_entry = comp.is_entry or (parent is not None and parent.entry is comp)
        lines = []
        head = ("ENTRY " if is_entry else "") + self.pct + comp.name
        if self.long:
            head += " " + self.signature(comp)
        lines.append(head + " {")
        root = comp.root if comp.root is not None else (comp.instructions[-1] if comp.instructions else None)
        for inst in comp.definition_order():
            prefix = "  ROOT " if inst is root else "  "
            lines.append(prefix + self.instruction(inst))
        close = "}"
        if comp.execution_thread is not None and comp.execution_thread != "main":
            close += ', execution_thread="' + escape(comp.execution_thread) + '"'
        lines.append(close)
        return "\n".join(lines)

    def entry_computation_layout(self, module: Module) -> str | None:
        """The layout XLA derives from the entry computation when the header gives none."""
        entry = module.entry
        if entry is None or not entry.instructions:
            return None
        root = entry.root if entry.root is not None else entry.instructions[-1]
        return self.layout([p.shape for p in entry.parameters if p is not None], root.shape)

    def layout(self, params: Sequence[Shape], result: Shape) -> str:
        """`{(P0, P1, ...)->R}`, the text of a computation layout."""
        return "{" + self.shape(Shape.tuple_of(list(params))) + "->" + self.shape(result) + "}"

    def header(self, module: Module) -> str:
        items = list(module.attrs.items())
        if "entry_computation_layout" not in module.attrs:
            # XLA's module config always has one (taken from the entry's shapes) and prints it.
            derived = self.entry_computation_layout(module)
            if derived is not None:
                items.append(("entry_computation_layout", Raw(derived)))
        items = list(header_order(dict(items)).items())
        text = "HloModule " + module.name
        for name, value in items:
            if name == "origin_recovery_table":  # HloModule::Print: ", origin_recovery_table={\n...}\n"
                text += ", origin_recovery_table=" + self.value(value) + "\n"
            elif name == "debug_attributes":  # printed on a line of its own
                text += ",\ndebug_attributes=" + self.value(value)
            else:
                text += ", " + name + "=" + self.value(value)
        return text

    def _sugared_computations(self, module: Module) -> set[int]:
        hidden: set[int] = set()
        for comp in module.computations:
            for inst in comp.instructions:
                if inst.opcode in ASYNC_OPS and self.sugar_root(inst) is not None:
                    hidden.add(id(inst.attrs["calls"]))
        return hidden

    def module(self, module: Module) -> str:
        out = [self.header(module), "\n\n"]
        if module.stack_frames_text:
            out.append(module.stack_frames_text.strip("\n"))
            out.append("\n\n\n")
        self._callers = print_async.callers_by_computation(module)
        hidden = self._sugared_computations(module)
        for comp in module.computation_post_order():
            if id(comp) in hidden:
                continue  # printed through the `<op>-start` sugar
            entry = comp is module.entry if module.entry is not None else comp.is_entry
            out.append(self.computation(comp, entry))
            out.append("\n\n")
        return "".join(out)


def print_module(module: Module, style: str = "short", *, print_large_constants: bool = True,
                 print_operand_shapes: bool = False) -> str:
    """Canonical text of a whole module ('long': XLA's dump form; 'short': jax's as_text).

    `print_large_constants=False` elides constants of more than 10 elements as `{...}` (XLA's
    dump default; the text then no longer carries the values). `print_operand_shapes=True`
    with 'long' is XLA's HloModule::ToString() default form.
    """
    return HloPrinter(style, print_large_constants=print_large_constants,
                      print_operand_shapes=print_operand_shapes).module(module)


def print_computation(comp: Computation, style: str = "short") -> str:
    return HloPrinter(style).computation(comp)


def print_instruction(inst: Instruction, style: str = "short") -> str:
    """One instruction line (for error messages and pass logs)."""
    return HloPrinter(style).instruction(inst)
