"""Linear-algebra kernels: dot, convolution, fft, cholesky, triangular-solve, batch-norm-*.

Numerics follow XLA:CPU: bf16/f16/f8 operands are widened to f32, the product is accumulated
in f32 and rounded once to the declared result type (the "preferred element type"); integer
dots and convolutions accumulate in the result type (wrapping like C++). Everything is
vectorised: dot is one batched matmul, convolution is im2col (strided window views) plus one
batched matmul per feature/batch group.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from hlotools.errors import HloRuntimeError, HloUnsupportedError
from hlotools.interpreter.numeric import merge_leading
from hlotools.interpreter.registry import kernel
from hlotools.ir.attributes import ConvDimLabels, Window
from hlotools.ir.instruction import Instruction
from hlotools.ir.xla_conv import SPEC, ConvNumerics, convolution_numerics


def _fail(inst: Instruction, message: str, cls: type = HloRuntimeError) -> Exception:
    return cls(f"{inst.opcode} %{inst.name}: {message}", inst.line or None, inst.column or None)


def dtype_kind(dt: np.dtype) -> str:
    """numpy's kind letter, also for ml_dtypes types (which numpy reports as 'V')."""
    dt = np.dtype(dt)
    if dt.kind != "V":
        return dt.kind
    if dt.name.startswith(("int", "uint")):
        return "u" if dt.name.startswith("uint") else "i"
    return "f"


def compute_dtype(result: np.dtype, *operands: np.dtype) -> np.dtype:
    """The dtype a dot/convolution accumulates in before rounding to `result`."""
    dts = [np.dtype(d) for d in (result, *operands)]
    wide = any(d == np.float64 or d == np.complex128 for d in dts)
    if any(dtype_kind(d) == "c" for d in dts):
        return np.dtype(np.complex128 if wide else np.complex64)
    kind = dtype_kind(result)
    if kind == "f":
        return np.dtype(np.float64 if wide else np.float32)
    if kind in "iu":
        return np.dtype(np.int64) if result.kind == "V" else np.dtype(result)
    return np.dtype(np.int64)  # pred: sum of products, then != 0


def to_result(value: np.ndarray, result: np.dtype) -> np.ndarray:
    """Round/convert an accumulator to the result type (pred: non-zero is true).

    XLA:CPU's FloatNormalization runs 8-bit (and narrower) float dots/convolutions as f16
    ops, so their result is rounded to f16 first and then to the narrow type (the double
    rounding is visible: it matches XLA where a direct f32 -> f8 rounding does not)."""
    if result.kind == "b":
        return value != 0
    with np.errstate(all="ignore"):
        value = np.asarray(value)
        if result.itemsize == 1 and dtype_kind(result) == "f" and value.dtype.kind == "f":
            value = value.astype(np.float16)
        return value.astype(result)


def canonical_nans(value: np.ndarray) -> np.ndarray:
    """A dot's or convolution's result with each NaN (each NaN part of a complex element) the
    default quiet NaN of its type with the sign clear: f32 0x7FC00000, f64 0x7FF8000000000000,
    narrower floats that f32 NaN converted (f16 0x7E00, bf16 0x7FC0). Which payload a sum of
    products keeps depends on the order and operand order of its adds and multiplies (BLAS's
    here; the LLVM backend's at each x86 feature level), so neither backend keeps one: the
    LLVM backend stores the same NaN (gemm_kernel.canonical_nan)."""
    if dtype_kind(value.dtype) == "c":
        if not np.isnan(value).any():
            return value
        out = np.empty_like(value)
        out.real, out.imag = canonical_nans(value.real), canonical_nans(value.imag)
        return out
    if dtype_kind(value.dtype) != "f":
        return value
    with np.errstate(all="ignore"):
        bad = np.isnan(value.astype(np.float32) if value.dtype.itemsize < 4 else value)
        if not bad.any():
            return value
        nan = to_result(np.array(np.nan, np.float64 if value.dtype == np.float64 else np.float32), value.dtype)
        return np.where(bad, nan, value)


def _widen(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if x.dtype == dtype:
        return x
    if x.dtype.kind == "c" and dtype.kind != "c":
        return np.real(x).astype(dtype)
    with np.errstate(all="ignore"):
        return x.astype(dtype)


# --------------------------------------------------------------------------------- dot
def dot_general(lhs: np.ndarray, rhs: np.ndarray, lhs_batch: tuple[int, ...], rhs_batch: tuple[int, ...],
                lhs_contract: tuple[int, ...], rhs_contract: tuple[int, ...], acc: np.dtype) -> np.ndarray:
    """XLA dot: result dims = batch dims, lhs free dims, rhs free dims (each in operand order)."""
    lhs_free = [d for d in range(lhs.ndim) if d not in lhs_batch and d not in lhs_contract]
    rhs_free = [d for d in range(rhs.ndim) if d not in rhs_batch and d not in rhs_contract]
    batch_dims = [lhs.shape[d] for d in lhs_batch]
    m = math.prod(lhs.shape[d] for d in lhs_free)
    n = math.prod(rhs.shape[d] for d in rhs_free)
    k = math.prod(lhs.shape[d] for d in lhs_contract)
    a = _widen(lhs, acc).transpose(list(lhs_batch) + lhs_free + list(lhs_contract))
    b = _widen(rhs, acc).transpose(list(rhs_batch) + list(rhs_contract) + rhs_free)
    nb = math.prod(batch_dims)
    a = a.reshape(nb, m, k)
    b = b.reshape(nb, k, n)
    with np.errstate(all="ignore"):
        if not k:
            out = np.zeros((nb, m, n), acc)
        elif acc in (np.float32, np.float64):
            out = fma_matmul(a, b)
        else:
            out = np.matmul(a, b)
    return out.reshape(batch_dims + [lhs.shape[d] for d in lhs_free] + [rhs.shape[d] for d in rhs_free])


def fma_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(nb, m, k) @ (nb, k, n) in a's float type, each output element summed as the LLVM
    backend's GEMM does: acc = fma(a[k], b[k], acc) for k = 0, 1, ..., one rounding per step,
    from +0. np.matmul is BLAS, whose summation order is the host's: OpenBLAS picks its kernel
    by CPU (on a Zen 5 its Haswell kernel, on a Zen 4 its SkylakeX one), and the bits differed
    between them. Vectorised over (nb, m, n), a Python loop over k.

    f32: the f64 product is exact and the f64 sum rounds at most once; rounding that to f32
    can only go wrong (double rounding) where the f64 sum is an f32 midpoint or lies in f32's
    subnormal range: those few elements are recomputed with the exact emulation (special.fma32).
    f64: the exact emulation throughout (complex_ops' IEEE fma64)."""
    from hlotools.interpreter.special import fma32
    nb, m, k = a.shape
    n = b.shape[2]
    if a.dtype == np.float64:
        from hlotools.interpreter.complex_ops import _fma64
        out64 = np.zeros((nb, m, n), np.float64)
        for kk in range(k):
            out64 = _fma64(np.broadcast_to(a[:, :, kk, None], out64.shape),
                           np.broadcast_to(b[:, None, kk, :], out64.shape), out64)
        return out64
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    out = np.zeros((nb, m, n), np.float32)
    for kk in range(k):
        p = a64[:, :, kk, None] * b64[:, None, kk, :]
        s = p + out
        r = s.astype(np.float32)
        bits = s.view(np.uint64)
        exponent = (bits >> np.uint64(52)) & np.uint64(0x7FF)
        risky = ((bits & np.uint64(0x1FFFFFFF)) == np.uint64(0x10000000)) | (
            (exponent < np.uint64(1023 - 126)) & (s != 0))
        if risky.any():
            at = np.nonzero(risky)
            r[at] = fma32(np.broadcast_to(a64[:, :, kk, None], p.shape)[at],
                          np.broadcast_to(b64[:, None, kk, :], p.shape)[at], out[at])
        out = r
    return out


@kernel("dot")
def dot_kernel(inst: Instruction, args: list[Any], ev: Any) -> np.ndarray:
    lhs, rhs = args[0], args[1]
    result = inst.shape.dtype
    acc = compute_dtype(result, lhs.dtype, rhs.dtype)
    lb, rb, lc, rc = _dot_dims(inst)
    _check_dot(inst, lhs, rhs, lb, rb, lc, rc)
    out = dot_general(lhs, rhs, lb, rb, lc, rc, acc)
    if out.shape != tuple(inst.shape.dims):
        raise _fail(inst, f"computed shape {out.shape} does not match the declared {inst.shape}")
    return canonical_nans(to_result(out, result))


def _check_dot(inst: Instruction, lhs: np.ndarray, rhs: np.ndarray, lb: tuple[int, ...], rb: tuple[int, ...],
               lc: tuple[int, ...], rc: tuple[int, ...]) -> None:
    """Dimension numbers must pair equal sizes (a clear error rather than a numpy one)."""
    for kind, ld, rd in (("batch", lb, rb), ("contracting", lc, rc)):
        if len(ld) != len(rd) or any(not 0 <= d < lhs.ndim for d in ld) or any(not 0 <= d < rhs.ndim for d in rd):
            raise _fail(inst, f"invalid {kind} dims lhs {ld} / rhs {rd} for ranks {lhs.ndim} and {rhs.ndim}")
        for a, b in zip(ld, rd):
            if lhs.shape[a] != rhs.shape[b]:
                raise _fail(inst, f"{kind} dim sizes differ: lhs dim {a} is {lhs.shape[a]}, rhs dim {b} is {rhs.shape[b]}")


def _dot_dims(inst: Instruction) -> tuple[tuple[int, ...], ...]:
    a = inst.attrs
    return tuple(tuple(int(v) for v in a.get(k, ())) for k in (
        "lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims", "rhs_contracting_dims"))


def _group_masks(sizes: np.ndarray, length: int) -> np.ndarray:
    """masks[..., i, p]: position p of a ragged dim of `length` lies in group i (groups are
    consecutive runs of `sizes[..., i]` positions; positions past the total are in none)."""
    sizes = sizes.astype(np.int64)
    end = np.cumsum(sizes, axis=-1)
    start = end - sizes
    p = np.arange(length)
    return (p >= start[..., None]) & (p < end[..., None])


@kernel("ragged-dot")
def ragged_dot_kernel(inst: Instruction, args: list[Any], ev: Any) -> np.ndarray:
    """XLA/CHLO ragged dot. The lhs ragged dim is split into consecutive groups of
    `group_sizes`; the mode follows from what that dim is:
      non-contracting: rows of group i multiply rhs[i] (rhs_group_dims picks i); out [.., m, n]
      contracting:     out[i] = dot restricted to group i's contracting positions; out [g, ..]
      batch:           an ordinary dot over the rows that lie in some group.
    Leading dims of group_sizes (all but the last) pair with the lhs dims before the ragged
    dim that are not contracting dims."""
    lhs, rhs, sizes = args[0], args[1], np.asarray(args[2])
    lb, rb, lc, rc = _dot_dims(inst)
    ragged = tuple(int(v) for v in inst.attrs.get("lhs_ragged_dims", ()))
    group = tuple(int(v) for v in inst.attrs.get("rhs_group_dims", ()))
    if len(ragged) != 1:
        raise _fail(inst, f"expected one lhs_ragged_dims entry, got {ragged}")
    r = ragged[0]
    result = inst.shape.dtype
    acc = compute_dtype(result, lhs.dtype, rhs.dtype)
    lead = [d for d in range(r) if d not in lc][-(sizes.ndim - 1):] if sizes.ndim > 1 else []
    masks = _group_masks(sizes, lhs.shape[r])  # (lead..., g, length)
    g = masks.shape[-2]
    xw = _widen(lhs, acc)

    def masked(i: int) -> np.ndarray:
        m = np.take(masks, i, axis=-2)  # (lead..., length)
        shape = [1] * lhs.ndim
        for d in lead:
            shape[d] = lhs.shape[d]
        shape[r] = lhs.shape[r]
        return xw * m.reshape(shape)

    if r in lc:
        outs = [dot_general(masked(i), rhs, lb, rb, lc, rc, acc) for i in range(g)]
        out = np.stack(outs) if outs else np.zeros(tuple(inst.shape.dims), acc)
    elif r in lb:
        union = masks.any(axis=-2)
        shape = [1] * lhs.ndim
        for d in lead:
            shape[d] = lhs.shape[d]
        shape[r] = lhs.shape[r]
        out = dot_general(xw * union.reshape(shape), rhs, lb, rb, lc, rc, acc)
    else:
        if len(group) != 1:
            raise _fail(inst, f"a non-contracting ragged dim needs one rhs_group_dims entry, got {group}")
        gd = group[0]
        keep = [d for d in range(rhs.ndim) if d != gd]
        remap = {d: keep.index(d) for d in keep}
        rb2, rc2 = tuple(remap[d] for d in rb), tuple(remap[d] for d in rc)
        out = sum((dot_general(masked(i), np.take(rhs, i, axis=gd), lb, rb2, lc, rc2, acc)
                   for i in range(g)), np.zeros((), acc))
    out = np.asarray(out)
    if out.shape != tuple(inst.shape.dims):
        raise _fail(inst, f"computed shape {out.shape} does not match the declared {inst.shape}")
    return to_result(out, result)


def _expand_scale(x: np.ndarray, scale: np.ndarray, acc: np.dtype) -> np.ndarray:
    """Block scaling: each scale element covers a block of x (x dims are multiples of the
    scale dims); a rank-0 scale applies to everything."""
    s = np.asarray(scale).astype(acc)
    if s.ndim == 0:
        return _widen(x, acc) * s
    for d in range(x.ndim):
        if s.shape[d] != x.shape[d]:
            s = np.repeat(s, x.shape[d] // max(s.shape[d], 1), axis=d)
    return _widen(x, acc) * s


@kernel("scaled-dot")
def scaled_dot_kernel(inst: Instruction, args: list[Any], ev: Any) -> np.ndarray:
    """dot(lhs * expand(lhs_scale), rhs * expand(rhs_scale)) in f32 (MX-style block scales).

    Operand order is XLA's (lhs, rhs, lhs_scale, rhs_scale); two optional trailing scalar
    "global" scales (NVFP4) multiply the result."""
    lhs, rhs, lhs_scale, rhs_scale = args[:4]
    result = inst.shape.dtype
    acc = compute_dtype(result, np.dtype(np.float32))
    lb, rb, lc, rc = _dot_dims(inst)
    out = dot_general(_expand_scale(lhs, lhs_scale, acc), _expand_scale(rhs, rhs_scale, acc), lb, rb, lc, rc, acc)
    for extra in args[4:]:
        out = out * np.asarray(extra).astype(acc).reshape(())
    if out.shape != tuple(inst.shape.dims):
        raise _fail(inst, f"computed shape {out.shape} does not match the declared {inst.shape}")
    return to_result(out, result)


# ------------------------------------------------------------------------- convolution
def _dilate_and_pad(x: np.ndarray, spatial_axes: list[int], window: Window) -> np.ndarray:
    """Base (lhs) dilation, then low/high padding (negative = cropping), with zeros."""
    for axis, wd in zip(spatial_axes, window.dims):
        size = x.shape[axis]
        if wd.base_dilation > 1 and size > 0:
            new_shape = list(x.shape)
            new_shape[axis] = (size - 1) * wd.base_dilation + 1
            dilated = np.zeros(new_shape, x.dtype)
            index = [slice(None)] * x.ndim
            index[axis] = slice(None, None, wd.base_dilation)
            dilated[tuple(index)] = x
            x = dilated
        lo, hi = wd.padding_low, wd.padding_high
        if lo < 0 or hi < 0:
            index = [slice(None)] * x.ndim
            index[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
            x = x[tuple(index)]
        if lo > 0 or hi > 0:
            pad = [(0, 0)] * x.ndim
            pad[axis] = (max(lo, 0), max(hi, 0))
            x = np.pad(x, pad)
    return x


def _windows(x: np.ndarray, out_sizes: list[int], window: Window) -> np.ndarray:
    """View (N, C, S...) as (N, C, O..., K...): element [.., o, k] = x[.., o*stride + k*dilation]."""
    n_sp = len(out_sizes)
    sizes = [wd.size for wd in window.dims]
    needed = [(o - 1) * wd.stride + (wd.size - 1) * wd.window_dilation + 1 if o > 0 and wd.size > 0 else 0
              for o, wd in zip(out_sizes, window.dims)]
    if any(s < need for s, need in zip(x.shape[2:], needed)):
        pad = [(0, 0), (0, 0)] + [(0, max(need - s, 0)) for s, need in zip(x.shape[2:], needed)]
        x = np.pad(x, pad)
    strides = x.strides
    shape = x.shape[:2] + tuple(out_sizes) + tuple(sizes)
    new_strides = strides[:2] + tuple(strides[2 + i] * window.dims[i].stride for i in range(n_sp)) + \
        tuple(strides[2 + i] * window.dims[i].window_dilation for i in range(n_sp))
    return np.lib.stride_tricks.as_strided(x, shape, new_strides, writeable=False)


def convolution(lhs: np.ndarray, rhs: np.ndarray, labels: ConvDimLabels, window: Window,
                out_dims: tuple[int, ...], feature_group_count: int, batch_group_count: int,
                acc: np.dtype, numerics: ConvNumerics = SPEC) -> np.ndarray:
    """XLA's convolution (HloEvaluator semantics) as im2col + batched matmul; `numerics` says
    where XLA CPU's answer for non-finite values differs (ir/xla_conv.py)."""
    n_sp = len(labels.input_spatial)
    x = _widen(lhs, acc).transpose([labels.input_batch, labels.input_feature, *labels.input_spatial])
    w = _widen(rhs, acc).transpose([labels.kernel_output_feature, labels.kernel_input_feature,
                                    *labels.kernel_spatial])
    rev = [2 + i for i, wd in enumerate(window.dims) if wd.window_reversal]
    if rev:
        w = np.flip(w, axis=tuple(rev))
    out_sizes = [out_dims[d] for d in labels.output_spatial]
    g, bg = feature_group_count, batch_group_count
    res = _grouped_conv(x, w, out_sizes, window, g, bg, acc, numerics.skips_padding)
    if numerics.kernel_leaks:
        res = _kernel_leak(res, w, g * bg)
    if numerics.input_leaks:
        res = _input_leak(res, x, out_sizes, window, g)
    perm = [0] * (n_sp + 2)
    perm[labels.output_batch] = 0
    perm[labels.output_feature] = 1
    for i, d in enumerate(labels.output_spatial):
        perm[d] = 2 + i
    return res.transpose(perm)


def _grouped_conv(x: np.ndarray, w: np.ndarray, out_sizes: list[int], window: Window, g: int, bg: int,
                  acc: np.dtype, skips_padding: bool) -> np.ndarray:
    """x (N, C, S...) conv w (O, C/g, K...) -> (N/bg, O, out...): one batched matmul over
    the feature x batch groups. With `skips_padding`, output elements the matmul made NaN are
    recomputed tap by tap without the products of padding and holes (XLA's skipping paths):
    only a non-finite kernel element times a padding zero can make them differ."""
    n_sp = len(out_sizes)
    xp = _dilate_and_pad(x, list(range(2, 2 + n_sp)), window)
    patches = _windows(xp, out_sizes, window)  # (N, C, O..., K...)
    n, c = xp.shape[0], xp.shape[1]
    o_feat, c_per_group = w.shape[0], w.shape[1]
    p = math.prod(out_sizes)
    kk = math.prod(wd.size for wd in window.dims)
    nb = n // bg
    # patches -> (groups, rows, C_g * K) with groups = feature groups x batch groups.
    pt = np.ascontiguousarray(patches).reshape(bg, nb, g, c // g, p, kk)
    pt = pt.transpose(0, 2, 1, 4, 3, 5).reshape(bg * g, nb * p, (c // g) * kk)
    wt = w.reshape(bg * g, o_feat // (g * bg), c_per_group * kk).transpose(0, 2, 1)
    with np.errstate(all="ignore"):
        res = np.matmul(pt, wt) if pt.shape[2] else np.zeros((bg * g, nb * p, wt.shape[2]), acc)
        if skips_padding and _pads(window) and res.dtype.kind in "fc" and np.isnan(res).any():
            real = _windows(_dilate_and_pad(np.ones((1, 1, *x.shape[2:]), bool), list(range(2, 2 + n_sp)), window),
                            out_sizes, window).reshape(p, kk)
            res = np.where(np.isnan(res), _tap_by_tap(pt, wt, real, nb, c_per_group), res)
    # (groups, nb, P, O_g) -> (nb, O, P): output feature o = group * O_g + j.
    return res.reshape(bg * g, nb, p, o_feat // (g * bg)).transpose(1, 0, 3, 2).reshape(nb, o_feat, *out_sizes)


def _pads(window: Window) -> bool:
    return any(wd.padding_low > 0 or wd.padding_high > 0 or wd.base_dilation > 1 for wd in window.dims)


def _tap_by_tap(pt: np.ndarray, wt: np.ndarray, real: np.ndarray, nb: int, c_g: int) -> np.ndarray:
    """The matmul pt @ wt summed one kernel tap at a time, each tap's products kept only at
    the output positions where that tap reads a real input element (`real`: (P, K))."""
    groups, rows, _ = pt.shape
    kk = real.shape[1]
    a = pt.reshape(groups, rows, c_g, kk)
    b = wt.reshape(groups, c_g, kk, wt.shape[2])
    out = np.zeros((groups, rows, wt.shape[2]), np.result_type(pt, wt))
    for k in range(kk):
        keep = np.tile(real[:, k], nb)[None, :, None]
        out += np.where(keep, a[:, :, :, k] @ b[:, :, k, :], 0)
    return out


def _kernel_leak(res: np.ndarray, w: np.ndarray, groups: int) -> np.ndarray:
    """XLA's group rewrite on a multiplying path: holes meet every other group's kernel, so
    0 * (a non-finite kernel element of group k) lands in the same feature of each group j != k
    (output feature o = group * O_g + j)."""
    og = w.shape[0] // groups
    with np.errstate(all="ignore"):
        zero_products = (0 * w.reshape(groups, og, -1)).sum(axis=2)  # NaN where a group's kernel is not finite
        others = [zero_products[np.arange(groups) != j].sum(axis=0) for j in range(groups)]
        leak = np.stack(others).reshape(1, groups * og, *([1] * (res.ndim - 2)))
        return np.where(np.isnan(leak), res + leak, res)


def _input_leak(res: np.ndarray, x: np.ndarray, out_sizes: list[int], window: Window, g: int) -> np.ndarray:
    """XLA's depthwise expansion (f64, complex): the kernel broadcast to every input feature
    and zeroed outside its group, so 0 * (a non-finite input element) reaches every output of
    the other groups whose window covers it (padding is skipped on that elemental path)."""
    c = x.shape[1]
    f64 = np.dtype(np.float64)
    bad = (~np.isfinite(x)).astype(f64)  # (N, C, S...); C == g (one input feature per group)
    ones = np.ones((c, 1, *(wd.size for wd in window.dims)), f64)
    hits = _grouped_conv(bad, ones, out_sizes, window, c, 1, f64, False) > 0  # (N, C, out...)
    elsewhere = hits.sum(axis=1, keepdims=True) - hits > 0  # a bad element of another group in the window
    per_out = np.repeat(elsewhere, res.shape[1] // g, axis=1)  # output feature o is in group o // (O / g)
    with np.errstate(all="ignore"):
        return np.where(per_out, res + _nan_of(res.dtype), res)


def _nan_of(dtype: np.dtype) -> np.ndarray:
    """The NaN 0 * inf makes on x86 (the sign bit set), whatever the host CPU gives."""
    return np.asarray(-np.nan if np.dtype(dtype).kind == "f" else complex(-np.nan, -np.nan), dtype)


def _check_conv(inst: Instruction, lhs: np.ndarray, rhs: np.ndarray, labels: ConvDimLabels,
                window: Window, g: int, bg: int) -> None:
    n_sp = len(labels.input_spatial)
    if len(window.dims) != n_sp or lhs.ndim != n_sp + 2 or rhs.ndim != n_sp + 2:
        raise _fail(inst, f"window has {len(window.dims)} dims, dim_labels {n_sp} spatial dims, "
                          f"operands ranks {lhs.ndim} and {rhs.ndim}")
    c = lhs.shape[labels.input_feature]
    o = rhs.shape[labels.kernel_output_feature]
    if g < 1 or bg < 1 or c % g or o % (g * bg) or lhs.shape[labels.input_batch] % bg:
        raise _fail(inst, f"feature_group_count={g} / batch_group_count={bg} do not divide "
                          f"input features {c}, output features {o}, batch {lhs.shape[labels.input_batch]}")
    if rhs.shape[labels.kernel_input_feature] * g != c:
        raise _fail(inst, f"kernel input features {rhs.shape[labels.kernel_input_feature]} x "
                          f"feature_group_count {g} != input features {c}")


@kernel("convolution")
def convolution_kernel(inst: Instruction, args: list[Any], ev: Any) -> np.ndarray:
    lhs, rhs = args[0], args[1]
    labels = inst.attrs.get("dim_labels")
    if not isinstance(labels, ConvDimLabels):
        raise _fail(inst, "missing dim_labels")
    window = inst.attrs.get("window") or Window(())
    g = int(inst.attrs.get("feature_group_count", 1))
    bg = int(inst.attrs.get("batch_group_count", 1))
    _check_conv(inst, lhs, rhs, labels, window, g, bg)
    result = inst.shape.dtype
    acc = compute_dtype(result, lhs.dtype, rhs.dtype)
    out = convolution(lhs, rhs, labels, window, tuple(inst.shape.dims), g, bg, acc, convolution_numerics(inst))
    return canonical_nans(to_result(out, result))


# --------------------------------------------------------------------------------- fft
@kernel("fft")
def fft_kernel(inst: Instruction, args: list[Any], ev: Any) -> np.ndarray:
    x = args[0]
    kind = str(inst.attrs.get("fft_type", "FFT")).upper()
    lengths = tuple(int(v) for v in inst.attrs.get("fft_length", ()))
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    result = inst.shape.dtype
    if 0 in lengths or 0 in inst.shape.dims:  # numpy refuses 0 points; XLA gives an empty result
        return np.zeros(inst.shape.dims, result)
    out: np.ndarray
    if kind == "FFT":
        out = np.fft.fftn(x, s=lengths, axes=axes)
    elif kind == "IFFT":
        out = np.fft.ifftn(x, s=lengths, axes=axes)
    elif kind == "RFFT":
        out = np.fft.rfftn(x, s=lengths, axes=axes)
    elif kind == "IRFFT":
        # The input holds fft_length[-1] // 2 + 1 coefficients along the last axis.
        out = np.fft.irfftn(x, s=lengths, axes=axes)
    else:
        raise _fail(inst, f"unknown fft_type {kind}")
    return out.astype(result)


# -------------------------------------------------------------------------- cholesky
def _float_work(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "c":
        return x.astype(np.complex128)
    return x.astype(np.float64)


def cholesky(a: np.ndarray, lower: bool) -> tuple[np.ndarray, np.ndarray]:
    """Batched Cholesky of the `lower`/upper triangle; returns (factor, ok) per matrix.

    Only the selected triangle is read (like LAPACK and XLA's expander); the other triangle
    of the factor is zero. Matrices that are not positive definite give ok=False.
    """
    work = _float_work(a)
    n = work.shape[-1]
    tri = np.tril(work) if lower else np.triu(work)
    herm = tri + np.conj(np.swapaxes(tri, -1, -2))
    diag = np.diagonal(work, axis1=-2, axis2=-1)
    idx = np.arange(n)
    herm[..., idx, idx] = diag.real if work.dtype.kind == "c" else diag
    batch = merge_leading(herm, 2)
    factors = np.full_like(batch, np.nan)
    ok = np.ones(batch.shape[0], bool)
    for i in range(batch.shape[0]):
        try:
            factors[i] = np.linalg.cholesky(batch[i])
        except np.linalg.LinAlgError:
            ok[i] = False
    if not lower:
        factors = np.conj(np.swapaxes(factors, -1, -2))
    factors[~ok] = np.nan  # like XLA's CholeskyExpander: the whole matrix is NaN (imag +0)
    return factors.reshape(work.shape), ok.reshape(work.shape[:-2])


@kernel("cholesky")
def cholesky_kernel(inst: Instruction, args: list[Any], ev: Any) -> np.ndarray:
    # XLA's CholeskyExpander yields NaNs for matrices that are not positive definite.
    out, _ = cholesky(args[0], bool(inst.attrs.get("lower", False)))
    return out.astype(inst.shape.dtype)


# ------------------------------------------------------------------ triangular-solve
def triangular_solve(a: np.ndarray, b: np.ndarray, left_side: bool, lower: bool, unit_diagonal: bool,
                     transpose_a: str) -> np.ndarray:
    """Solve op(a) x = b (left_side) or x op(a) = b, reading only a's `lower` triangle.

    Forward/back substitution vectorised over batch and right-hand sides, so singular
    systems produce inf/NaN like LAPACK's trsm rather than raising.
    """
    work = np.result_type(_float_work(a).dtype, _float_work(b).dtype)
    t = (np.tril(a) if lower else np.triu(a)).astype(work)
    n = t.shape[-1]
    if unit_diagonal:
        idx = np.arange(n)
        t[..., idx, idx] = 1
    kind = transpose_a.upper()
    if kind in ("TRANSPOSE", "ADJOINT"):
        t = np.swapaxes(t, -1, -2)
        if kind == "ADJOINT":
            t = np.conj(t)
        lower = not lower
    rhs = b.astype(work)
    if not left_side:
        # x op(a) = b  <=>  op(a)^T x^T = b^T
        t = np.swapaxes(t, -1, -2)
        lower = not lower
        rhs = np.swapaxes(rhs, -1, -2)
    x = np.zeros_like(rhs)
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            acc = rhs[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, :], x)
            x[..., i, :] = acc / t[..., i, i][..., None]
    return x if left_side else np.swapaxes(x, -1, -2)


@kernel("triangular-solve")
def triangular_solve_kernel(inst: Instruction, args: list[Any], ev: Any) -> np.ndarray:
    a = inst.attrs
    x = triangular_solve(args[0], args[1], bool(a.get("left_side", False)), bool(a.get("lower", False)),
                         bool(a.get("unit_diagonal", False)), str(a.get("transpose_a", "NO_TRANSPOSE")))
    return x.astype(inst.shape.dtype)


# ------------------------------------------------------------------------ batch norm
def _bn_setup(inst: Instruction, x: np.ndarray) -> tuple[int, tuple[int, ...], list[int], float, np.dtype]:
    fi = int(inst.attrs.get("feature_index", 0))
    if not 0 <= fi < x.ndim:
        raise _fail(inst, f"feature_index {fi} out of range for rank {x.ndim}")
    eps = float(inst.attrs.get("epsilon", 0.0))
    axes = tuple(d for d in range(x.ndim) if d != fi)
    bshape = [1] * x.ndim
    bshape[fi] = x.shape[fi]
    work = np.dtype(np.float64) if x.dtype == np.float64 else np.dtype(np.float32)
    return fi, axes, bshape, eps, work


@kernel("batch-norm-training")
def batch_norm_training(inst: Instruction, args: list[Any], ev: Any) -> tuple:
    x, scale, offset = args
    _, axes, bshape, eps, work = _bn_setup(inst, x)
    xw = x.astype(work)
    e = np.asarray(eps, work)
    count = np.asarray(math.prod(x.shape[d] for d in axes), work)
    with np.errstate(all="ignore"):  # an empty batch: 0 / 0 = NaN, as XLA gives (not a warning)
        mean = xw.sum(axis=axes) / count
        # BatchNormExpander: Var[X] = E[X^2] - E[X]^2.
        var = (xw * xw).sum(axis=axes) / count - mean * mean
        norm = (xw - mean.reshape(bshape)) / np.sqrt(var.reshape(bshape) + e)
        out = norm * scale.astype(work).reshape(bshape) + offset.astype(work).reshape(bshape)
    dt = x.dtype
    return (out.astype(dt), mean.astype(dt), var.astype(dt))


@kernel("batch-norm-inference")
def batch_norm_inference(inst: Instruction, args: list[Any], ev: Any) -> np.ndarray:
    x, scale, offset, mean, var = args
    _, _, bshape, eps, work = _bn_setup(inst, x)
    with np.errstate(all="ignore"):
        inv = 1 / np.sqrt(var.astype(work).reshape(bshape) + np.asarray(eps, work))
        out = (x.astype(work) - mean.astype(work).reshape(bshape)) * inv * scale.astype(work).reshape(bshape) \
            + offset.astype(work).reshape(bshape)
    return out.astype(x.dtype)


@kernel("batch-norm-grad")
def batch_norm_grad(inst: Instruction, args: list[Any], ev: Any) -> tuple:
    x, scale, mean, var, grad = args
    _, axes, bshape, eps, work = _bn_setup(inst, x)
    count = x.size // max(x.shape[int(inst.attrs.get("feature_index", 0))], 1)
    xw, gw = x.astype(work), grad.astype(work)
    with np.errstate(all="ignore"):
        inv = 1 / np.sqrt(var.astype(work) + np.asarray(eps, work))
        centered = xw - mean.astype(work).reshape(bshape)
        sum_grad = gw.sum(axis=axes)
        sum_grad_centered = (gw * centered).sum(axis=axes)
        dscale = sum_grad_centered * inv
        # dX = scale * rsqrt(var + eps) / N * (N * dY - sum(dY) - (X - mean) * sum(dY * (X - mean)) / (var + eps))
        dx = (scale.astype(work) * inv).reshape(bshape) / count * (
            count * gw - sum_grad.reshape(bshape)
            - centered * (sum_grad_centered * inv * inv).reshape(bshape))
    dt = x.dtype
    return (dx.astype(dt), dscale.astype(dt), sum_grad.astype(dt))


__all__ = ["HloUnsupportedError", "compute_dtype", "convolution", "dot_general", "triangular_solve", "cholesky"]
