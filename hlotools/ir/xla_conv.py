"""How XLA CPU treats a convolution's padding, as facts both backends share (semantics.xla_cpu()).

The HLO specification pads the input with zeros and dilates it with zero holes, so a
non-finite kernel element over padding gives 0 * inf = NaN. XLA CPU does that on one path
only. Which path a convolution takes (jaxlib 0.10; every rule below checked against XLA by
running modules with inf in the kernel or the input, tests/xla/test_agreement_conv.py):

* Eigen's generic convolution (ConvolutionThunk; PotentiallyImplementedAsEigenConvolution):
  extract_image_patches fills padding and lhs-dilation holes with zeros and multiplies them:
  the spec's answer. Taken by f32 operands (f16, bf16 and the f8 types run as f32 after
  FloatNormalization and the CPU's f16 upcast), 1-3 spatial dims, no window reversal,
  input, kernel and output each over 8 bytes as f32 (at least 3 elements: Eigen's 16-byte
  alignment), canonical dim labels (b0..f, 0..io, b0..f) -- ConvCanonicalization makes any
  labels canonical, but only in the entry computation.
* Eigen's custom transposed convolution (CanUseCustomTransposedConv: an lhs dilation, all
  strides 1, no rhs dilation, one feature group, 1-2 spatial dims): multiplies the real
  input only and scatters into the output, so padding and holes contribute nothing.
* The elemental loop (everything else: f64, complex, integers, window reversal, 4+ spatial
  dims, tiny arrays, non-canonical labels outside the entry): sums only in-bounds, non-hole
  taps: padding contributes nothing.
* algsimp's operand swap (ConvOperandSwapper: one group, and the kernel's window product
  over the dims that are not group/contraction dims is larger than the input's): the
  swapped convolution has window reversal, hence the elemental loop.
Kernel (rhs) dilation holes are never multiplied on any path (nor by either backend).

Groups are rewritten before the path is chosen (ConvolutionGroupConverter):
* batch_group_count > 1, unless the input batch and the kernel output features both equal
  the count (then an ordinary convolution over every batch x feature pair, masked by a
  select: nothing leaks): one more spatial dim, the batch groups, dilated by the count with
  a window of `count` taps and stride count - 1, so each output group's window reads its own
  group and holes elsewhere. On a multiplying path those holes meet the other groups'
  kernels: a non-finite kernel element of group k makes the same output feature of every
  other group NaN (`kernel_leaks`).
* feature_group_count > 1 is kept for f32 (Eigen does groups); other types are expanded.
  One input feature per group (depthwise): the kernel is broadcast to every input feature
  and zeroed outside its group by a select, and the convolution multiplies those zeros by
  the input: a non-finite input element makes every output of the other groups whose window
  covers it NaN (`input_leaks`). Larger groups get a group spatial dim as above.

`spec` semantics never skips and nothing leaks.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import prod

from hlotools.ir import semantics
from hlotools.ir.attributes import ConvDimLabels, Window, WindowDim
from hlotools.ir.computation import Computation
from hlotools.ir.instruction import Instruction

_EIGEN_TYPES = frozenset(["f16", "bf16", "f32"])  # what runs as f32 (f8 types too, by prefix)
MIN_ELEMENTS = 3  # Eigen needs 16-byte aligned buffers: more than 8 bytes of f32


@dataclass(frozen=True)
class ConvNumerics:
    """What a convolution does with non-finite values where XLA CPU and the spec differ."""

    skips_padding: bool = False  # padding and lhs-dilation holes contribute nothing (not 0 * x)
    kernel_leaks: bool = False  # a non-finite kernel element of one group NaNs the others' outputs
    input_leaks: bool = False  # a non-finite input element NaNs the other groups' outputs


SPEC = ConvNumerics()


@dataclass(frozen=True)
class ConvForm:
    """What XLA's CPU pipeline looks at to choose a convolution's path."""

    eigen_type: bool  # the operands run as f32 (f16, bf16, f8 or f32)
    window: tuple[WindowDim, ...]
    input_spatial: tuple[int, ...]  # input sizes along the spatial dims (window order)
    elements: tuple[int, int, int]  # input, kernel, output element counts
    canonical: bool  # canonical dim labels (b0..f_0..io->b0..f)
    entry: bool  # in the entry computation, where ConvCanonicalization makes any labels canonical
    feature_groups: int
    batch_groups: int
    input_batch: int
    kernel_input_features: int
    kernel_output_features: int


def convolution_numerics(inst: Instruction) -> ConvNumerics:
    """The one predicate both backends ask: SPEC under `spec` semantics or for a convolution
    that cannot be described, else what XLA CPU's path for `inst` does (module docstring)."""
    if not semantics.xla_cpu():
        return SPEC
    form = conv_form(inst)
    return SPEC if form is None else numerics_of(form)


def conv_form(inst: Instruction) -> ConvForm | None:
    labels = inst.attrs.get("dim_labels")
    window = inst.attrs.get("window") or Window(())
    if not isinstance(labels, ConvDimLabels) or len(inst.operands) != 2 or inst.shape.is_tuple:
        return None
    lhs, rhs = (op.shape for op in inst.operands)
    if lhs.is_tuple or rhs.is_tuple or len(window.dims) != len(labels.input_spatial) or len(lhs.dims) < 2:
        return None
    et = lhs.element_type.name if lhs.element_type is not None else ""
    return ConvForm(
        eigen_type=et in _EIGEN_TYPES or et.startswith("f8"),
        window=window.dims,
        input_spatial=tuple(lhs.dims[d] for d in labels.input_spatial),
        elements=(prod(lhs.dims), prod(rhs.dims), prod(inst.shape.dims)),
        canonical=canonical_labels(labels),
        entry=in_entry(inst.parent),
        feature_groups=int(inst.attrs.get("feature_group_count", 1)),
        batch_groups=int(inst.attrs.get("batch_group_count", 1)),
        input_batch=lhs.dims[labels.input_batch],
        kernel_input_features=rhs.dims[labels.kernel_input_feature],
        kernel_output_features=rhs.dims[labels.kernel_output_feature])


def numerics_of(form: ConvForm) -> ConvNumerics:
    """XLA CPU's answer for a convolution described by `form` (the group rewrites first)."""
    if form.batch_groups > 1:
        if form.input_batch == form.batch_groups and form.kernel_output_features == form.batch_groups:
            i, k, o = form.elements
            return ConvNumerics(skips_padding=_skips(replace(form, batch_groups=1, elements=(i, k, o * i))))
        inner = _skips(_with_group_dim(replace(form, batch_groups=1), form.batch_groups))
        return ConvNumerics(skips_padding=inner, kernel_leaks=not inner)
    if form.feature_groups > 1 and not form.eigen_type:
        g = form.feature_groups
        if form.kernel_input_features == 1:
            i, k, o = form.elements
            expanded = replace(form, feature_groups=1, elements=(i, k * g, o))
            return ConvNumerics(skips_padding=_skips(expanded), input_leaks=True)
        inner = _skips(_with_group_dim(replace(form, feature_groups=1), g))
        return ConvNumerics(skips_padding=inner, kernel_leaks=not inner)
    return ConvNumerics(skips_padding=_skips(form))


def _with_group_dim(form: ConvForm, count: int) -> ConvForm:
    """ConvolutionGroupConverter's rewrite: the groups as one more spatial dim (input size
    `count`, dilated by `count`, window `count` with stride count - 1), labels no longer
    canonical (ConvCanonicalization fixes that in the entry only)."""
    dim = WindowDim(size=count, stride=count - 1, base_dilation=count)
    return replace(form, window=(*form.window, dim), input_spatial=(*form.input_spatial, count),
                   canonical=False)


def _skips(form: ConvForm) -> bool:
    """Whether the (group-free) convolution's path skips padding and holes."""
    if form.feature_groups == 1 and form.batch_groups == 1 and _swaps_operands(form):
        return True  # the swapped convolution is reversed: the elemental loop
    if not _eigen(form):
        return True
    return _custom_transposed(form)


def _eigen(form: ConvForm) -> bool:
    return (form.eigen_type and 1 <= len(form.window) <= 3 and (form.canonical or form.entry)
            and not any(w.window_reversal for w in form.window)
            and all(n >= MIN_ELEMENTS for n in form.elements))


def _custom_transposed(form: ConvForm) -> bool:
    w = form.window
    return (len(w) <= 2 and any(d.base_dilation > 1 for d in w) and all(d.stride == 1 for d in w)
            and all(d.window_dilation == 1 for d in w) and form.feature_groups == 1)


def _swaps_operands(form: ConvForm) -> bool:
    """ConvOperandSwapper's test: fewer multiplications with the operands' roles swapped."""
    kernel_product = swapped_product = 1
    for w, n in zip(form.window, form.input_spatial):
        plain = not w.window_reversal and w.padding_low == 0 and w.padding_high == 0 and w.window_dilation == 1
        group_dim = plain and w.base_dilation == w.size and w.stride == w.size - 1
        contraction_dim = plain and w.size == n and w.base_dilation == 1 and w.stride == 1
        if group_dim or contraction_dim:
            continue
        kernel_product *= w.size
        full = (n == 1 and w.stride == 1 and w.window_dilation == 1
                and w.padding_low == w.size - 1 and w.padding_high == w.size - 1)
        swapped_product *= w.size if full else n
    return kernel_product > swapped_product


def canonical_labels(labels: ConvDimLabels) -> bool:
    """b0..nf_0..nio->b0..nf, the only labels XLA's Eigen convolution takes."""
    n = len(labels.input_spatial)
    return (labels.input_batch == 0 and labels.input_feature == n + 1
            and labels.input_spatial == tuple(range(1, n + 1))
            and labels.kernel_spatial == tuple(range(n)) and labels.kernel_input_feature == n
            and labels.kernel_output_feature == n + 1
            and labels.output_batch == 0 and labels.output_feature == n + 1
            and labels.output_spatial == tuple(range(1, n + 1)))


def in_entry(comp: Computation | None) -> bool:
    """The entry computation, or one XLA inlines into it: reached from the entry only through
    `call` (CallInliner) or, in hlotools' own pipeline, `fusion` instructions."""
    seen: set[int] = set()
    while comp is not None and not comp.is_entry:
        if id(comp) in seen or comp.parent is None:
            return False
        seen.add(id(comp))
        callers = [i for c in comp.parent.computations for i in c.instructions
                   if any(cc is comp for cc in i.called_computations())]
        if not callers or any(i.opcode not in ("call", "fusion") for i in callers):
            return False
        parents = {id(i.parent): i.parent for i in callers}
        if len(parents) != 1:
            return all(in_entry(p) for p in parents.values())
        comp = next(iter(parents.values()))
    return comp is not None
