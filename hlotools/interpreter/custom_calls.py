"""custom-call: a table of known targets, each with a numpy implementation.

Values are logical (row-major) arrays, so LAPACK's column-major operand layouts
(`operand_layout_constraints={f32[8,8]{0,1}}`) need no special care: a column-major buffer
of the logical matrix is exactly what LAPACK factors. The LAPACK targets follow jaxlib's
FFI kernels (jaxlib/cpu/lapack_kernels.cc): leading batch dims, the factor written over the
input (the untouched triangle keeps the input's values), 1-based pivots, an s32 `info` per
matrix (0 = success). Attributes come from `backend_config={uplo = 76 : ui8, ...}` (ASCII
codes: L=76, U=85, N=78, T=84, C=67). Trailing outputs that jaxlib uses as workspace are
returned as zeros. An unknown target raises HloUnsupportedError naming it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from hlotools.errors import HloRuntimeError, HloUnsupportedError
from hlotools.interpreter.linalg import cholesky, triangular_solve
from hlotools.interpreter.numeric import merge_leading
from hlotools.interpreter.registry import Kernel, kernel
from hlotools.interpreter.sorting import top_k
from hlotools.ir.custom_calls import IDENTITY_TARGETS, backend_config_flag, lapack_targets
from hlotools.ir.dispatch import Table
from hlotools.ir.instruction import Instruction
from hlotools.ir.patterns import simple_comparator
from hlotools.ir.shape import Shape

# A target implementation has the kernel's signature (it runs inside the custom-call kernel).
Target = Kernel
TARGETS: Table[Target] = Table("custom-call target")
target = TARGETS.register



def _outputs(inst: Instruction, values: list[np.ndarray]) -> Any:
    """Fit computed values to the declared result (tuple or array), zero-filling extras."""
    shapes: list[Shape] = list(inst.shape.tuple_shapes) if inst.shape.is_tuple and inst.shape.tuple_shapes \
        is not None else [inst.shape]
    out = []
    for i, s in enumerate(shapes):
        if i < len(values):
            v = np.asarray(values[i])
            if v.shape != tuple(s.dims):
                raise HloRuntimeError(f"custom-call %{inst.name}: output {i} has shape {list(v.shape)}, "
                                      f"the instruction declares {s}")
            out.append(v.astype(s.dtype))
        else:
            out.append(np.zeros(s.dims, s.dtype))
    return tuple(out) if inst.shape.is_tuple else out[0]


# ----------------------------------------------------------------------------- targets
@target(*IDENTITY_TARGETS)
def _identity(inst: Instruction, args: list[Any], ev: Any) -> Any:
    return args[0]


@target("TopK")
def _topk(inst: Instruction, args: list[Any], ev: Any) -> Any:
    """XLA's TopK custom call: (values, s32 indices) of the k largest along the last dim."""
    shapes = inst.shape.tuple_shapes or ()
    k = shapes[0].dims[-1] if shapes else 0
    comps = inst.attrs.get("called_computations") or ()
    simple = simple_comparator(comps[0]) if comps else None
    largest = True if simple is None else simple.descending
    return _outputs(inst, list(top_k(np.asarray(args[0]), k, largest)))


@target(*lapack_targets("potrf"))
def _potrf(inst: Instruction, args: list[Any], ev: Any) -> Any:
    a = np.asarray(args[0])
    lower = backend_config_flag(inst, "uplo", "L") == "L"
    factor, ok = cholesky(a, lower)
    tri = np.tril if lower else np.triu
    merged = np.where(tri(np.ones(a.shape[-2:], bool)), factor, a)
    info = np.zeros(ok.shape, np.int32)
    for index in np.ndindex(*ok.shape):
        if not ok[index]:
            info[index] = _first_bad_minor(a[index], lower)
    return _outputs(inst, [merged, info])


def _first_bad_minor(a: np.ndarray, lower: bool) -> int:
    for k in range(1, a.shape[-1] + 1):
        if not bool(cholesky(a[:k, :k], lower)[1]):
            return k
    return 0


def lu_factor(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """getrf: P A = L U with partial pivoting (first max |a| like i?amax), batched.

    Returns (LU packed like LAPACK, 1-based s32 pivots, s32 info = first zero pivot, 1-based).
    """
    work = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    *batch, m, n = work.shape
    lu = merge_leading(work, 2).copy()
    nb, k = lu.shape[0], min(m, n)
    piv = np.zeros((nb, k), np.int32)
    info = np.zeros(nb, np.int32)
    rows = np.arange(nb)
    with np.errstate(all="ignore"):
        for j in range(k):
            col = lu[:, j:, j]
            mag = np.abs(col.real) + np.abs(col.imag) if lu.dtype.kind == "c" else np.abs(col)
            p = np.argmax(mag, axis=1) + j
            piv[:, j] = p + 1
            top = lu[rows, j, :].copy()
            lu[rows, j, :] = lu[rows, p, :]
            lu[rows, p, :] = top
            pivot = lu[:, j, j]
            zero = pivot == 0
            info = np.where(zero & (info == 0), j + 1, info)
            scale = np.where(zero, 1, pivot)
            lu[:, j + 1:, j] = np.where(zero[:, None], lu[:, j + 1:, j], lu[:, j + 1:, j] / scale[:, None])
            lu[:, j + 1:, j + 1:] = lu[:, j + 1:, j + 1:] - lu[:, j + 1:, j:j + 1] * lu[:, j:j + 1, j + 1:]
    return lu.reshape(*batch, m, n), piv.reshape(*batch, k), info.reshape(batch)


@target(*lapack_targets("getrf"))
def _getrf(inst: Instruction, args: list[Any], ev: Any) -> Any:
    return _outputs(inst, list(lu_factor(np.asarray(args[0]))))


@target(*lapack_targets("trsm"), "blas_strsm", "blas_dtrsm", "blas_ctrsm", "blas_ztrsm")
def _trsm(inst: Instruction, args: list[Any], ev: Any) -> Any:
    """op(A) X = alpha B (side L) or X op(A) = alpha B (side R); alpha is an optional 3rd operand."""
    a, b = np.asarray(args[0]), np.asarray(args[1])
    trans = {"N": "NO_TRANSPOSE", "T": "TRANSPOSE", "C": "ADJOINT"}[backend_config_flag(inst, "trans_x", "N")]
    x = triangular_solve(a, b, backend_config_flag(inst, "side", "L") == "L", backend_config_flag(inst, "uplo", "L") == "L",
                         backend_config_flag(inst, "diag", "N") == "U", trans)
    if len(args) > 2:
        x = x * np.asarray(args[2]).reshape(())
    return _outputs(inst, [x])


@target(*lapack_targets("geqrf"))
def _geqrf(inst: Instruction, args: list[Any], ev: Any) -> Any:
    a = np.asarray(args[0])
    *batch, m, n = a.shape
    flat = merge_leading(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64), 2)
    hs, taus = flat.copy(), np.zeros((flat.shape[0], min(m, n)), flat.dtype)
    for i, mat in enumerate(flat):
        if mat.size:  # LAPACK leaves an empty matrix alone (numpy's qr refuses it)
            h, taus[i] = np.linalg.qr(mat, mode="raw")
            hs[i] = h.T  # numpy returns LAPACK's column-major buffer, i.e. the transpose
    return _outputs(inst, [hs.reshape(a.shape), taus.reshape(*batch, min(m, n))])


@target(*lapack_targets("orgqr"))
def _orgqr(inst: Instruction, args: list[Any], ev: Any) -> Any:
    """Q from geqrf's Householder vectors: Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^H."""
    a, tau = np.asarray(args[0]), np.asarray(args[1])
    *batch, m, n = a.shape
    k = tau.shape[-1]
    work = merge_leading(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64), 2)
    taus = merge_leading(tau, 1)
    q = np.broadcast_to(np.eye(m, n, dtype=work.dtype), work.shape).copy()
    for i in range(k - 1, -1, -1):
        v = np.zeros((work.shape[0], m), work.dtype)
        v[:, i] = 1
        v[:, i + 1:] = work[:, i + 1:, i]
        vq = np.einsum("bm,bmn->bn", np.conj(v), q)
        q -= taus[:, i, None, None] * v[:, :, None] * vq[:, None, :]
    return _outputs(inst, [q.reshape(a.shape)])


@target(*lapack_targets("syevd"))
def _syevd(inst: Instruction, args: list[Any], ev: Any) -> Any:
    a = np.asarray(args[0])
    uplo = backend_config_flag(inst, "uplo", "L")
    work: np.ndarray = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    w, v = np.linalg.eigh(work, UPLO="U" if uplo == "U" else "L")
    info = np.zeros(a.shape[:-2], np.int32)
    return _outputs(inst, [v, w, *_info_slots(inst, 2, info)])


@target(*lapack_targets("gesdd"))
def _gesdd(inst: Instruction, args: list[Any], ev: Any) -> Any:
    """(a_out, s, u, vt, info, ...): full or reduced U/V^T as the declared shapes ask;
    U/V^T outputs of other shapes (job 'N') are zero."""
    a = np.asarray(args[0])
    shapes = inst.shape.tuple_shapes or ()
    m, n = a.shape[-2:]
    want_u = tuple(shapes[2].dims[-2:]) if len(shapes) > 2 else ()
    want_vt = tuple(shapes[3].dims[-2:]) if len(shapes) > 3 else ()
    full = want_u == (m, m) and want_vt == (n, n)
    work = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    u, s, vt = np.linalg.svd(work, full_matrices=full)
    if u.shape[-2:] != want_u:
        u = np.zeros(a.shape[:-2] + want_u, u.dtype)
    if vt.shape[-2:] != want_vt:
        vt = np.zeros(a.shape[:-2] + want_vt, vt.dtype)
    info = np.zeros(a.shape[:-2], np.int32)
    return _outputs(inst, [a, s, u, vt, *_info_slots(inst, 4, info)])


def _info_slots(inst: Instruction, start: int, info: np.ndarray) -> list[np.ndarray]:
    """jaxlib puts workspace and the s32 info among the trailing outputs: fill the info."""
    shapes = inst.shape.tuple_shapes or ()
    out = []
    for s in shapes[start:]:
        if s.element_type is not None and s.element_type.name == "s32" and tuple(s.dims) == info.shape:
            out.append(info)
        else:
            out.append(np.zeros(s.dims, s.dtype))
    return out


@kernel("custom-call")
def custom_call_kernel(inst: Instruction, args: list[Any], ev: Any) -> Any:
    name = str(inst.attrs.get("custom_call_target", ""))
    impl = TARGETS.get(name)
    if impl is None:
        raise HloUnsupportedError(f"custom-call %{inst.name}: unknown custom_call_target \"{name}\" "
                                  f"(the interpreter implements: {', '.join(sorted(_short_names()))})",
                                  inst.line or None, inst.column or None)
    return impl(inst, args, ev)


def _short_names() -> set[str]:
    return {n for n in TARGETS if not n.startswith(("lapack_d", "lapack_c", "lapack_z", "blas_"))
            and not n.endswith("_ffi")} | {"lapack_{s,d,c,z}*[_ffi]"}
