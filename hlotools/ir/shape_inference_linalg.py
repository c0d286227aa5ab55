"""Shape rules of reductions, windowed ops and linear algebra: reduce, reduce-window,
select-and-scatter, dot (and ragged/scaled), convolution, fft, cholesky, triangular-solve,
batch-norm-*.

dot and convolution take the declared element type as XLA's `preferred_element_type` (the
text's result type is how XLA records it), so a bf16 x bf16 -> f32 dot is valid.
"""
from __future__ import annotations

from collections.abc import Sequence

from hlotools.ir.attributes import ConvDimLabels, Window, WindowDim
from hlotools.ir.instruction import Instruction
from hlotools.ir.shape import Shape
from hlotools.ir.shape_inference_common import (
    ELEMENT_TYPES,
    ElementType,
    array_operand,
    attr,
    check_dims_in_range,
    check_unique,
    dims_str,
    fail,
    make,
    opt_attr,
    rule,
    shape_text,
)


def _preferred_type(inst: Instruction, lhs: Shape, rhs: Shape) -> ElementType:
    """XLA: the declared type is the preferred element type; it may not narrow an integer.

    The operands may have different element types (XLA's operand upcaster converts them, e.g.
    bf16 x s4 or f32 x pred); without a declared type the wider one is the result type.
    """
    a, b = lhs.element_type, rhs.element_type
    assert a is not None and b is not None
    default = a if a.bits >= b.bits else b
    if inst.shape is None or not inst.shape.is_array:
        return default
    preferred = inst.shape.element_type
    assert preferred is not None
    if preferred != default and not default.is_float and preferred.bits < default.bits:
        raise fail(inst, "`preferred_element_type` must not be narrower than the original type")
    return preferred


def _dot_dims(inst: Instruction, lhs: Shape, rhs: Shape,
              rhs_skip: Sequence[int] = ()) -> list[int]:
    lb = tuple(opt_attr(inst, "lhs_batch_dims", ()))
    rb = tuple(opt_attr(inst, "rhs_batch_dims", ()))
    lc = tuple(opt_attr(inst, "lhs_contracting_dims", ()))
    rc = tuple(opt_attr(inst, "rhs_contracting_dims", ()))
    for name, dims, shape in (("lhs_batch_dims", lb, lhs), ("rhs_batch_dims", rb, rhs),
                              ("lhs_contracting_dims", lc, lhs),
                              ("rhs_contracting_dims", rc, rhs)):
        check_dims_in_range(inst, dims, shape.rank, name)
    check_unique(inst, lb + lc, "lhs batch + contracting dimensions")
    check_unique(inst, rb + rc, "rhs batch + contracting dimensions")
    if len(lb) != len(rb):
        raise fail(inst, f"lhs_batch_dims {dims_str(lb)} and rhs_batch_dims {dims_str(rb)} "
                         "differ in length")
    if len(lc) != len(rc):
        raise fail(inst, f"lhs_contracting_dims {dims_str(lc)} and rhs_contracting_dims "
                         f"{dims_str(rc)} differ in length")
    for a, b in zip(lb, rb):
        if lhs.dims[a] != rhs.dims[b]:
            raise fail(inst, f"batch dimension sizes differ: lhs {shape_text(lhs)} dim {a} vs "
                             f"rhs {shape_text(rhs)} dim {b}")
    for a, b in zip(lc, rc):
        if lhs.dims[a] != rhs.dims[b]:
            raise fail(inst, f"contracting dimension sizes differ: lhs {shape_text(lhs)} dim {a} "
                             f"vs rhs {shape_text(rhs)} dim {b}")
    out = [lhs.dims[d] for d in lb]
    out += [s for d, s in enumerate(lhs.dims) if d not in lb and d not in lc]
    out += [s for d, s in enumerate(rhs.dims) if d not in rb and d not in rc and d not in rhs_skip]
    return out


@rule("dot")
def infer_dot(inst: Instruction) -> Shape:
    lhs, rhs = array_operand(inst, 0, "lhs"), array_operand(inst, 1, "rhs")
    et = _preferred_type(inst, lhs, rhs)
    return make(et, _dot_dims(inst, lhs, rhs))


@rule("scaled-dot")
def infer_scaled_dot(inst: Instruction) -> Shape:
    # Operands: lhs, rhs, lhs_scale, rhs_scale.
    lhs, rhs = array_operand(inst, 0, "lhs"), array_operand(inst, 1, "rhs")
    for i in (2, 3):
        array_operand(inst, i, "scale")
    if inst.shape is not None and inst.shape.is_array:
        et = inst.shape.element_type
    else:
        et = ELEMENT_TYPES["bf16"]
    return make(et, _dot_dims(inst, lhs, rhs))


@rule("ragged-dot")
def infer_ragged_dot(inst: Instruction) -> Shape:
    """XLA InferRaggedDotOpShape: the rhs group dim disappears; when the ragged lhs dim is a
    contracting dim, the result gains a leading group dim."""
    lhs, rhs = array_operand(inst, 0, "lhs"), array_operand(inst, 1, "rhs")
    array_operand(inst, 2, "group_sizes")
    ragged = tuple(attr(inst, "lhs_ragged_dims"))
    group = tuple(opt_attr(inst, "rhs_group_dims", ()))
    if len(ragged) != 1:
        raise fail(inst, f"lhs_ragged_dims {dims_str(ragged)} must have exactly one entry")
    check_dims_in_range(inst, ragged, lhs.rank, "lhs_ragged_dims")
    check_dims_in_range(inst, group, rhs.rank, "rhs_group_dims")
    et = _preferred_type(inst, lhs, rhs)
    out = _dot_dims(inst, lhs, rhs, rhs_skip=group)
    if ragged[0] in tuple(opt_attr(inst, "lhs_contracting_dims", ())):
        gs = inst.operands[2].shape
        assert gs is not None
        out = [gs.dims[-1] if gs.dims else 1] + out
    return make(et, out)


def _window_output(inst: Instruction, size: int, w: WindowDim, d: int) -> int:
    """window_util: dilate the base, pad it, then count the strided window positions."""
    if w.stride < 1 or w.window_dilation < 1 or w.base_dilation < 1 or w.size < 1:
        raise fail(inst, f"window dimension {d} has a non-positive size, stride or dilation")
    base = 0 if size == 0 else (size - 1) * w.base_dilation + 1
    padded = base + w.padding_low + w.padding_high
    window = (w.size - 1) * w.window_dilation + 1
    if padded < 0:
        raise fail(inst, f"window padding makes dimension {d} negative")
    if window > padded:
        return 0
    return (padded - window) // w.stride + 1


def _window_dims(inst: Instruction, x: Shape, window: Window) -> list[int]:
    if len(window.dims) != x.rank:
        raise fail(inst, f"window has {len(window.dims)} dimensions for an operand of rank {x.rank}")
    return [_window_output(inst, s, w, d) for d, (s, w) in enumerate(zip(x.dims, window.dims))]


def _inputs_and_inits(inst: Instruction) -> tuple[list[Shape], list[Shape]]:
    n_ops = len(inst.operands)
    if n_ops < 2 or n_ops % 2:
        raise fail(inst, f"expects N inputs followed by N init values, got {n_ops} operands")
    n = n_ops // 2
    xs = [array_operand(inst, i, f"input {i}") for i in range(n)]
    inits = [array_operand(inst, n + i, f"init value {i}") for i in range(n)]
    for i, (x, init) in enumerate(zip(xs, inits)):
        if x.dims != xs[0].dims:
            raise fail(inst, f"input {i} {shape_text(x)} and input 0 {shape_text(xs[0])} have "
                             "different dimensions")
        if init.rank != 0:
            raise fail(inst, f"init value {i} must be a scalar, got {shape_text(init)}")
    return xs, inits


def _reducer_result(inst: Instruction, shapes: list[Shape]) -> Shape:
    """N results as a tuple when N > 1, or when the reducer itself returns a (1-)tuple."""
    comp = inst.attrs.get("to_apply")
    root = getattr(comp, "root", None)
    returns_tuple = root is not None and root.shape is not None and root.shape.is_tuple
    return shapes[0] if len(shapes) == 1 and not returns_tuple else Shape.tuple_of(shapes)


@rule("reduce")
def infer_reduce(inst: Instruction) -> Shape:
    xs, inits = _inputs_and_inits(inst)
    dims = tuple(attr(inst, "dimensions"))
    check_dims_in_range(inst, dims, xs[0].rank, "dimensions")
    check_unique(inst, dims, "dimensions")
    kept = [s for d, s in enumerate(xs[0].dims) if d not in dims]
    return _reducer_result(inst, [make(init.element_type, kept) for init in inits])


@rule("reduce-window")
def infer_reduce_window(inst: Instruction) -> Shape:
    xs, inits = _inputs_and_inits(inst)
    out = _window_dims(inst, xs[0], opt_attr(inst, "window", Window(())))
    return _reducer_result(inst, [make(init.element_type, out) for init in inits])


@rule("select-and-scatter")
def infer_select_and_scatter(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    source, init = array_operand(inst, 1, "source"), array_operand(inst, 2, "init value")
    if init.rank != 0 or init.element_type != x.element_type:
        raise fail(inst, f"init value must be a scalar of the operand's type, got {shape_text(init)}")
    expected = _window_dims(inst, x, opt_attr(inst, "window", Window(())))
    if list(source.dims) != expected:
        raise fail(inst, f"source {shape_text(source)} must have the window output dimensions "
                         f"{dims_str(expected)}")
    return make(x.element_type, x.dims)


@rule("convolution")
def infer_convolution(inst: Instruction) -> Shape:
    """ShapeInference::InferConvolveShape: dim_labels place batch/feature/spatial dims, the window
    gives each spatial output size; feature and batch groups split the features/batch first."""
    lhs, rhs = array_operand(inst, 0, "lhs"), array_operand(inst, 1, "rhs")
    dl: ConvDimLabels = attr(inst, "dim_labels")
    window: Window = opt_attr(inst, "window", Window(()))
    fgc = opt_attr(inst, "feature_group_count", 1)
    bgc = opt_attr(inst, "batch_group_count", 1)
    n_sp = len(dl.input_spatial)
    if lhs.rank != n_sp + 2 or rhs.rank != n_sp + 2:
        raise fail(inst, f"dim_labels {dl.text} need rank {n_sp + 2} operands, got "
                         f"{shape_text(lhs)} and {shape_text(rhs)}")
    if len(window.dims) != n_sp:
        raise fail(inst, f"window has {len(window.dims)} dimensions but the convolution has {n_sp} "
                         "spatial dimensions")
    if fgc < 1 or bgc < 1:
        raise fail(inst, "feature_group_count and batch_group_count must be positive")
    if fgc > 1 and bgc > 1:
        raise fail(inst, f"both batch_group_count {bgc} and feature_group_count {fgc} cannot be "
                         "greater than 1")
    for what, dims in (("input", (dl.input_batch, dl.input_feature, *dl.input_spatial)),
                       ("kernel", (dl.kernel_input_feature, dl.kernel_output_feature,
                                   *dl.kernel_spatial)),
                       ("output", (dl.output_batch, dl.output_feature, *dl.output_spatial))):
        if sorted(dims) != list(range(n_sp + 2)):
            raise fail(inst, f"{what} dimensions of dim_labels {dl.text} must contain each "
                             "dimension exactly once")
    in_f, k_in, k_out = lhs.dims[dl.input_feature], rhs.dims[dl.kernel_input_feature], \
        rhs.dims[dl.kernel_output_feature]
    batch = lhs.dims[dl.input_batch]
    if in_f % fgc or in_f // fgc != k_in:
        raise fail(inst, f"input features ({in_f}) / feature_group_count ({fgc}) must equal the "
                         f"kernel input features ({k_in})")
    if k_out % fgc or k_out % bgc:
        raise fail(inst, f"kernel output features ({k_out}) must be divisible by "
                         f"feature_group_count ({fgc}) and batch_group_count ({bgc})")
    if batch % bgc:
        raise fail(inst, f"batch ({batch}) must be divisible by batch_group_count ({bgc})")
    for i, w in enumerate(window.dims):
        if w.size != rhs.dims[dl.kernel_spatial[i]]:
            raise fail(inst, f"window size {w.size} in spatial dimension {i} does not match the "
                             f"kernel's {rhs.dims[dl.kernel_spatial[i]]}")
    out = [0] * (n_sp + 2)
    out[dl.output_batch] = batch // bgc
    out[dl.output_feature] = k_out
    for i, w in enumerate(window.dims):
        out[dl.output_spatial[i]] = _window_output(inst, lhs.dims[dl.input_spatial[i]], w, i)
    return make(_preferred_type(inst, lhs, rhs), out)


_REAL = {"c64": "f32", "c128": "f64"}
_COMPLEX = {"f32": "c64", "f64": "c128"}


@rule("fft")
def infer_fft(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    kind = str(attr(inst, "fft_type")).upper()
    length = tuple(attr(inst, "fft_length"))
    assert x.element_type is not None
    if not 1 <= len(length) <= 3 or len(length) > x.rank:
        raise fail(inst, f"fft_length {dims_str(length)} must have 1 to 3 entries (<= rank)")
    tail = x.dims[x.rank - len(length):]
    et = x.element_type.name
    if kind in ("FFT", "IFFT"):
        if not x.element_type.is_complex:
            raise fail(inst, f"{kind} needs a complex operand, got {shape_text(x)}")
        if tail != length:
            raise fail(inst, f"fft_length {dims_str(length)} must match the operand's minor dims")
        return make(x.element_type, x.dims)
    if kind == "RFFT":
        if et not in _COMPLEX:
            raise fail(inst, f"RFFT needs an f32 or f64 operand, got {shape_text(x)}")
        if tail != length:
            raise fail(inst, f"fft_length {dims_str(length)} must match the operand's minor dims")
        return make(ELEMENT_TYPES[_COMPLEX[et]], x.dims[:-1] + (length[-1] // 2 + 1,))
    if kind == "IRFFT":
        if et not in _REAL:
            raise fail(inst, f"IRFFT needs a complex operand, got {shape_text(x)}")
        want = length[:-1] + (length[-1] // 2 + 1,)
        if tail != want:
            raise fail(inst, f"IRFFT operand minor dims must be {dims_str(want)}, got {shape_text(x)}")
        return make(ELEMENT_TYPES[_REAL[et]], x.dims[:-1] + (length[-1],))
    raise fail(inst, f"unknown fft_type {kind}")


def _check_float_or_complex(inst: Instruction, x: Shape) -> None:
    assert x.element_type is not None
    if not (x.element_type.is_float or x.element_type.is_complex):
        raise fail(inst, f"expected a floating point or complex operand, got {shape_text(x)}")


@rule("cholesky")
def infer_cholesky(inst: Instruction) -> Shape:
    a = array_operand(inst, 0)
    _check_float_or_complex(inst, a)
    if a.rank < 2 or a.dims[-1] != a.dims[-2]:
        raise fail(inst, f"operand must be a batch of square matrices, got {shape_text(a)}")
    return make(a.element_type, a.dims)


@rule("triangular-solve")
def infer_triangular_solve(inst: Instruction) -> Shape:
    a, b = array_operand(inst, 0, "a"), array_operand(inst, 1, "b")
    _check_float_or_complex(inst, a)
    if a.element_type != b.element_type:
        raise fail(inst, f"a {shape_text(a)} and b {shape_text(b)} have different element types")
    if a.rank < 2 or a.rank != b.rank or a.dims[-1] != a.dims[-2]:
        raise fail(inst, f"a must be square matrices of b's rank: a {shape_text(a)}, b {shape_text(b)}")
    if a.dims[:-2] != b.dims[:-2]:
        raise fail(inst, f"batch dimensions of a {shape_text(a)} and b {shape_text(b)} differ")
    transpose = str(opt_attr(inst, "transpose_a", "NO_TRANSPOSE")).upper()
    if transpose not in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
        raise fail(inst, f"invalid transpose_a={transpose} (NO_TRANSPOSE, TRANSPOSE or ADJOINT)")
    k = b.dims[-2] if opt_attr(inst, "left_side", False) else b.dims[-1]
    if k != a.dims[-1]:
        raise fail(inst, f"the solved dimension of b {shape_text(b)} must equal a's {a.dims[-1]}")
    return make(b.element_type, b.dims)


def _feature_vectors(inst: Instruction, x: Shape, indices: Sequence[int]) -> int:
    fi = attr(inst, "feature_index")
    assert x.element_type is not None
    if not x.element_type.is_float:
        raise fail(inst, f"the operand must have a floating point element type, got {shape_text(x)}")
    if not 0 <= fi < x.rank:
        raise fail(inst, f"feature_index={fi} is out of range for rank {x.rank}")
    n = x.dims[fi]
    for i in indices:
        v = array_operand(inst, i)
        if v.rank != 1 or v.dims[0] != n or v.element_type != x.element_type:
            raise fail(inst, f"operand {i} must be {x.element_type}[{n}] (one per feature), got "
                             f"{shape_text(v)}")
    return n


@rule("batch-norm-training")
def infer_batch_norm_training(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    n = _feature_vectors(inst, x, (1, 2))
    vec = make(x.element_type, (n,))
    return Shape.tuple_of([make(x.element_type, x.dims), vec, vec])


@rule("batch-norm-inference")
def infer_batch_norm_inference(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    _feature_vectors(inst, x, (1, 2, 3, 4))
    return make(x.element_type, x.dims)


@rule("batch-norm-grad")
def infer_batch_norm_grad(inst: Instruction) -> Shape:
    x = array_operand(inst, 0)
    n = _feature_vectors(inst, x, (1, 2, 3))
    g = array_operand(inst, 4, "grad_output")
    if g.dims != x.dims:
        raise fail(inst, f"grad_output {shape_text(g)} must have the operand's shape")
    vec = make(x.element_type, (n,))
    return Shape.tuple_of([make(x.element_type, x.dims), vec, vec])
