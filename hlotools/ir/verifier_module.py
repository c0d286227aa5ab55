"""Module-header checks: entry_computation_layout, input_output_alias and buffer_donor
must fit the entry computation's signature (XLA's HloVerifier / HloInputOutputAliasConfig)."""
from __future__ import annotations

from hlotools.errors import HloVerifyError
from hlotools.ir.attributes import BufferDonors, ComputationLayout, InputOutputAlias, ShapeIndex
from hlotools.ir.computation import Computation
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape
from hlotools.ir.shape_inference_common import same_dims_type, shape_text


def _comp_err(comp: Computation, message: str) -> HloVerifyError:
    return HloVerifyError(f"computation %{comp.name}: {message}", comp.line or None,
                          comp.column or None)


def _check_entry_layout(module: Module, entry: Computation) -> None:
    value = module.attrs.get("entry_computation_layout")
    if value is None:
        return
    if not isinstance(value, ComputationLayout):  # the parser decodes it; a pass set something else
        raise HloVerifyError(f"module {module.name}: cannot read entry_computation_layout {value}")
    params, result = value.params, value.result
    got = entry.parameter_shapes
    if len(params) != len(got):
        raise _comp_err(entry, f"entry_computation_layout has {len(params)} parameters but the "
                               f"entry computation has {len(got)}")
    for i, (a, b) in enumerate(zip(params, got)):
        if not same_dims_type(a, b):
            raise _comp_err(entry, f"entry_computation_layout parameter {i} {shape_text(a)} is "
                                   f"not compatible with the entry's parameter {shape_text(b)}")
    if entry.root is not None and not same_dims_type(result, entry.root.shape):
        raise _comp_err(entry, f"entry_computation_layout result {shape_text(result)} is not "
                               f"compatible with the entry's result {shape_text(entry.root.shape)}")


def _subshape(shape: Shape, index: tuple[int, ...]) -> Shape | None:
    """The subshape at a ShapeIndex, or None when the index is not valid for `shape`."""
    for i in index:
        if shape.tuple_shapes is None or not 0 <= i < len(shape.tuple_shapes):
            return None
        shape = shape.tuple_shapes[i]
    return shape


def _index_text(index: ShapeIndex) -> str:
    return "{" + ",".join(map(str, index)) + "}"


def _param_subshape(entry: Computation, number: int, index: tuple[int, ...], what: str) -> Shape:
    params = entry.parameter_shapes
    if not 0 <= number < len(params):
        raise _comp_err(entry, f"{what} names parameter {number}, but the entry has {len(params)}")
    sub = _subshape(params[number], index)
    if sub is None:
        raise _comp_err(entry, f"{what} index {{{','.join(map(str, index))}}} is not valid for "
                               f"parameter {number} {shape_text(params[number])}")
    return sub


def _check_aliasing(module: Module, entry: Computation) -> None:
    alias = module.attrs.get("input_output_alias")
    if isinstance(alias, InputOutputAlias) and entry.root is not None:
        for a in alias.aliases:
            out = _subshape(entry.root.shape, a.output_index)
            if out is None:
                raise _comp_err(entry, f"input_output_alias output index {_index_text(a.output_index)} is "
                                       f"not valid for the result {shape_text(entry.root.shape)}")
            src = _param_subshape(entry, a.parameter, a.parameter_index, "input_output_alias")
            if out.byte_size() != src.byte_size():
                raise _comp_err(entry, f"input_output_alias pairs output {_index_text(a.output_index)} "
                                       f"{shape_text(out)} with a parameter buffer of another size "
                                       f"{shape_text(src)}")
    donor = module.attrs.get("buffer_donor")
    if isinstance(donor, BufferDonors):
        for number, index in donor.donors:
            _param_subshape(entry, number, index, "buffer_donor")


def check_module_attributes(module: Module, entry: Computation) -> None:
    _check_entry_layout(module, entry)
    _check_aliasing(module, entry)
