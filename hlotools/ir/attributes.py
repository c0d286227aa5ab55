"""Typed attribute values.

Value types, by attribute (the parser decodes, the printer calls `format_attr_value`):
  int lists (dimensions, *_dims, slice_sizes, dynamic_slice_sizes, fft_length, ...) -> tuple[int, ...]
    (collective-permute's `slice_sizes={{..},{..}}` is a tuple of such tuples)
  ints (index, iota_dimension, index_vector_dim, feature_group_count, k, ...)    -> int
  floats (epsilon)                                                               -> float
  bools (is_stable, indices_are_sorted, unique_indices, largest, ...)             -> bool
  bare words (direction, type, kind, fft_type, distribution, algorithm, ...)     -> Enum
  quoted strings (custom_call_target, infeed_config, backend_config="...", ...)  -> str (unescaped)
  computations (to_apply, calls, condition, body, select, scatter, ...)         -> Computation
  computation lists (branch_computations, called_computations)                   -> tuple[Computation, ...]
  window                                                                         -> Window
  dim_labels                                                                     -> ConvDimLabels
  padding                                                                        -> PaddingConfig
  slice                                                                          -> tuple[SliceRange, ...]
  shapes (outfeed_shape)                                                         -> Shape
  operand_layout_constraints                                                     -> ShapeList
  source_target_pairs                                                            -> SourceTargetPairs
  opaque mini-languages kept verbatim (sharding, metadata, frontend_attributes,
  backend_config={...}, replica_groups, operand_precision,
  output_to_operand_aliasing, statistics, origin, result_accuracy, literal=, ...)  -> Raw
    (the parser still validates sharding, replica_groups, result_accuracy and the header's
    debug_attributes the way XLA does)
Instruction.control_predecessors holds `control-predecessors` (not in attrs).
Module.attrs (header): is_scheduled, alias_passthrough_params -> bool; replica_count,
num_partitions -> int; entry_computation_layout -> ComputationLayout; input_output_alias ->
InputOutputAlias; buffer_donor -> BufferDonors; the rest -> Raw.
The values decoded from a mini-language keep their `text` as written: the printer prints that
back verbatim (comments and spacing included), so a round trip stays byte-identical.
Computation.execution_thread holds `, execution_thread="..."` after a computation (str).
Decoding lives in hlotools/text/parse_attrs.py (memoised on (name, text)).
"""
from __future__ import annotations

from dataclasses import dataclass

from hlotools.ir.shape import Shape


class Enum(str):
    """A bare word such as LT, kLoop, FFT (printed without quotes)."""

    __slots__ = ()


class Raw(str):
    """Attribute text kept verbatim (balanced braces included); printed exactly as stored."""

    __slots__ = ()


@dataclass(frozen=True)
class WindowDim:
    """One dimension of a window: size, stride, padding, dilations, reversal."""
    size: int
    stride: int = 1
    padding_low: int = 0
    padding_high: int = 0
    window_dilation: int = 1  # rhs_dilate
    base_dilation: int = 1  # lhs_dilate
    window_reversal: bool = False


@dataclass(frozen=True)
class Window:
    """A window attribute (reduce-window, select-and-scatter, convolution), one entry per dimension."""
    dims: tuple[WindowDim, ...]

    def to_text(self) -> str:
        """XLA's window_util::ToString: fields only when some dim differs from the default."""
        d = self.dims
        if not d:
            return "{}"
        parts = ["size=" + "x".join(str(x.size) for x in d)]
        if any(x.stride != 1 for x in d):
            parts.append("stride=" + "x".join(str(x.stride) for x in d))
        if any(x.padding_low or x.padding_high for x in d):
            parts.append("pad=" + "x".join(f"{x.padding_low}_{x.padding_high}" for x in d))
        if any(x.base_dilation != 1 for x in d):
            parts.append("lhs_dilate=" + "x".join(str(x.base_dilation) for x in d))
        if any(x.window_dilation != 1 for x in d):
            parts.append("rhs_dilate=" + "x".join(str(x.window_dilation) for x in d))
        if any(x.window_reversal for x in d):
            parts.append("rhs_reversal=" + "x".join(str(int(x.window_reversal)) for x in d))
        return "{" + " ".join(parts) + "}"


@dataclass(frozen=True)
class ConvDimLabels:
    """Convolution dimension numbers, decoded from e.g. `b01f_01io->b01f`."""

    input_batch: int
    input_feature: int
    input_spatial: tuple[int, ...]
    kernel_input_feature: int
    kernel_output_feature: int
    kernel_spatial: tuple[int, ...]
    output_batch: int
    output_feature: int
    output_spatial: tuple[int, ...]
    text: str  # as written (XLA prints it back the same way for valid labels)

    def to_text(self) -> str:
        return self.text


@dataclass(frozen=True)
class PaddingConfig:
    """A pad instruction's padding: (low, high, interior) per dimension."""
    dims: tuple[tuple[int, int, int], ...]  # (low, high, interior) per dimension

    def to_text(self) -> str:
        """XLA's PaddingConfigToString: interior padding on every dim once any dim has it."""
        if any(it for _, _, it in self.dims):
            return "x".join(f"{lo}_{hi}_{it}" for lo, hi, it in self.dims)
        return "x".join(f"{lo}_{hi}" for lo, hi, _ in self.dims)


@dataclass(frozen=True)
class SliceRange:
    """One dimension of a slice: [start:limit:stride]."""
    start: int
    limit: int
    stride: int = 1


def format_slices(ranges: tuple[SliceRange, ...]) -> str:
    with_stride = any(r.stride != 1 for r in ranges)
    body = ", ".join(f"[{r.start}:{r.limit}:{r.stride}]" if with_stride else f"[{r.start}:{r.limit}]"
                     for r in ranges)
    return "{" + body + "}"


ShapeIndex = tuple[int, ...]  # XLA's ShapeIndex: the path to a subshape of a tuple shape


@dataclass(frozen=True)
class ComputationLayout:
    """entry_computation_layout={(P0, P1, ...)->R}: the entry's parameter and result shapes, with
    the layouts the caller passes and expects (XLA's ComputationLayout)."""
    params: tuple[Shape, ...]
    result: Shape
    text: str | None  # as written; None: derived from the entry (the printer writes the shapes)


@dataclass(frozen=True)
class Alias:
    """One input_output_alias entry: the output subshape at `output_index` may reuse the buffer
    of parameter `parameter` at `parameter_index` (XLA's HloInputOutputAliasConfig::Alias)."""
    output_index: ShapeIndex
    parameter: int
    parameter_index: ShapeIndex
    kind: str | None = None  # 'must-alias' | 'may-alias' as written (None: not written)


@dataclass(frozen=True)
class InputOutputAlias:
    """input_output_alias={ {0}: (0, {}, may-alias), ... }."""
    aliases: tuple[Alias, ...]
    text: str  # as written

    def to_text(self) -> str:
        return self.text


@dataclass(frozen=True)
class BufferDonors:
    """buffer_donor={ (0, {}), ... }: parameter buffers the computation may reuse (XLA's
    HloBufferDonorConfig), as (parameter number, ShapeIndex) pairs."""
    donors: tuple[tuple[int, ShapeIndex], ...]
    text: str  # as written

    def to_text(self) -> str:
        return self.text


@dataclass(frozen=True)
class ShapeList:
    """A list of shapes such as a custom-call's operand_layout_constraints={f32[2,2]{0,1}, s32[]}."""
    shapes: tuple[Shape, ...]
    text: str  # as written

    def to_text(self) -> str:
        return self.text


@dataclass(frozen=True)
class SourceTargetPairs:
    """collective-permute's source_target_pairs={{0,1},{1,2}}: (source, target) device pairs."""
    pairs: tuple[tuple[int, int], ...]
    text: str  # as written

    def to_text(self) -> str:
        return self.text


# The decoded values the printer writes back as their text (a derived ComputationLayout aside).
VERBATIM_TYPES = (InputOutputAlias, BufferDonors, ShapeList, SourceTargetPairs)
