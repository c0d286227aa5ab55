"""custom-call targets against hand-worked values: LAPACK potrf (untouched triangle, info),
getrf (1-based pivots, info), trsm flags, geqrf/orgqr, syevd, the TopK call, annotation
targets, and the error for an unknown target. On both backends where the LLVM backend
implements the target (potrf, getrf, trsm; the unknown target's error)."""
from __future__ import annotations

import numpy as np
import pytest

from hlotools.errors import HloUnsupportedError
from tests.support.runner import opcode, run

F = np.float32


def entry(body: str, *args: np.ndarray, backend: str, comps: str = "") -> list[np.ndarray]:
    return run("HloModule t\n" + comps + "\nENTRY e {\n" + body + "\n}\n", *args, backend=backend)


POTRF = """
  a = f32[2,2]{0,1} parameter(0)
  ROOT c = (f32[2,2]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_spotrf_ffi", operand_layout_constraints={f32[2,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = %d : ui8}
"""


@opcode("custom-call")
def test_potrf_lower_keeps_the_other_triangle(backend: str) -> None:
    factor, info = entry(POTRF % ord("L"), np.array([[4, 123], [2, 5]], F), backend=backend)
    assert factor.tolist() == [[2, 123], [1, 2]] and int(info) == 0


@opcode("custom-call")
def test_potrf_upper(backend: str) -> None:
    factor, info = entry(POTRF % ord("U"), np.array([[4, 2], [-7, 5]], F), backend=backend)
    assert factor.tolist() == [[2, 1], [-7, 2]] and int(info) == 0


@opcode("custom-call")
def test_potrf_reports_the_failing_minor(backend: str) -> None:
    _, info = entry(POTRF % ord("L"), np.array([[1, 2], [2, 1]], F), backend=backend)
    assert int(info) == 2  # the 1x1 minor is fine, the 2x2 one is not positive definite


@opcode("custom-call")
def test_getrf_pivots_are_one_based(backend: str) -> None:
    lu, piv, info = entry("""
  a = f32[2,2]{0,1} parameter(0)
  ROOT c = (f32[2,2]{0,1}, s32[2], s32[]) custom-call(a), custom_call_target="lapack_sgetrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={}
""", np.array([[1, 2], [3, 4]], F), backend=backend)
    assert piv.tolist() == [2, 2] and int(info) == 0
    assert np.allclose(lu, [[3, 4], [1 / 3, 2 - 4 / 3]])


@opcode("custom-call")
def test_getrf_singular_sets_info(backend: str) -> None:
    _, piv, info = entry("""
  a = f32[2,2] parameter(0)
  ROOT c = (f32[2,2], s32[2], s32[]) custom-call(a), custom_call_target="lapack_sgetrf_ffi"
""", np.array([[0, 0], [0, 1]], F), backend=backend)
    assert int(info) == 1 and piv.tolist() == [1, 2]


@opcode("custom-call")
@pytest.mark.parametrize("flags,b,expected", [
    ("diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8", [[2], [9]], [[1], [2]]),
    ("diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8", [[2], [9]], [[-0.125], [2.25]]),
    ("diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8", [[2], [9]], [[2], [7]]),
])
def test_trsm_flags(flags: str, b: list, expected: list, backend: str) -> None:
    x, = entry(f"""
  a = f32[2,2] parameter(0)
  b = f32[2,1] parameter(1)
  ROOT x = f32[2,1] custom-call(a, b), custom_call_target="lapack_strsm_ffi", backend_config={{{flags}}}
""", np.array([[2, 555], [1, 4]], F), np.array(b, F), backend=backend)
    assert np.allclose(x, expected)


@opcode("custom-call")
def test_geqrf_then_orgqr_rebuilds_q() -> None:
    # Interpreter only: the LLVM backend refuses it (custom-call target "lapack_sgeqrf_ffi" is not supported).
    a = np.array([[3, 1], [4, 2]], F)
    h, tau = entry("""
  a = f32[2,2] parameter(0)
  ROOT q = (f32[2,2], f32[2]) custom-call(a), custom_call_target="lapack_sgeqrf_ffi"
""", a, backend="interp")
    # R's first row: |(3, 4)| = 5 up to sign; the Householder vector's tail sits below it.
    assert abs(abs(h[0, 0]) - 5) < 1e-5
    q, = entry("""
  h = f32[2,2] parameter(0)
  t = f32[2] parameter(1)
  ROOT q = f32[2,2] custom-call(h, t), custom_call_target="lapack_sorgqr_ffi"
""", h, tau, backend="interp")
    r = np.triu(h)
    assert np.allclose(q @ r, a, atol=1e-5) and np.allclose(q.T @ q, np.eye(2), atol=1e-5)


@opcode("custom-call")
def test_syevd_eigenvalues_ascending() -> None:
    # Interpreter only: the LLVM backend refuses it (custom-call target "lapack_ssyevd_ffi" is not supported).
    v, w, info = entry("""
  a = f32[2,2] parameter(0)
  ROOT e = (f32[2,2], f32[2], s32[]) custom-call(a), custom_call_target="lapack_ssyevd_ffi", backend_config={mode = 86 : ui8, uplo = 76 : ui8}
""", np.array([[2, 1], [1, 2]], F), backend="interp")
    assert np.allclose(w, [1, 3]) and int(info) == 0
    assert np.allclose(np.abs(v[:, 1]), [2 ** -0.5, 2 ** -0.5])


@opcode("compare", "custom-call")
def test_topk_custom_call_and_sharding_identity() -> None:
    # Interpreter only: the LLVM backend refuses it (custom-call target "TopK" is not supported).
    gt = """
gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GT
}
"""
    vals, idx, same = entry("""
  x = f32[1,4] parameter(0)
  t = (f32[1,2], s32[1,2]) custom-call(x), custom_call_target="TopK", called_computations={gt}
  v = f32[1,2] get-tuple-element(t), index=0
  i = s32[1,2] get-tuple-element(t), index=1
  s = f32[1,4] custom-call(x), custom_call_target="Sharding", sharding={replicated}
  ROOT r = (f32[1,2], s32[1,2], f32[1,4]) tuple(v, i, s)
""", np.array([[1, 7, 7, 3]], F), comps=gt, backend="interp")
    assert vals.tolist() == [[7, 7]] and idx.tolist() == [[1, 2]] and same.tolist() == [[1, 7, 7, 3]]


@opcode("custom-call")
def test_unknown_target_is_named(backend: str) -> None:
    with pytest.raises(HloUnsupportedError, match='"my_kernel"'):
        entry("""
  x = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(x), custom_call_target="my_kernel"
""", np.zeros(2, F), backend=backend)


@opcode("custom-call")
def test_gesdd_reduced_and_full() -> None:
    # Interpreter only: the LLVM backend refuses it (custom-call target "lapack_sgesdd_ffi" is not supported).
    a = np.array([[3, 0, 0], [0, 4, 0]], F)  # singular values 4, 3
    _, s, u, vt, info = entry("""
  a = f32[2,3] parameter(0)
  ROOT r = (f32[2,3], f32[2], f32[2,2], f32[2,3], s32[]) custom-call(a), custom_call_target="lapack_sgesdd_ffi", backend_config={mode = 83 : ui8}
""", a, backend="interp")
    assert np.allclose(s, [4, 3]) and int(info) == 0
    assert np.allclose((u * s) @ vt, a, atol=1e-5)
    _, s, u, vt, _ = entry("""
  a = f32[2,3] parameter(0)
  ROOT r = (f32[2,3], f32[2], f32[2,2], f32[3,3], s32[]) custom-call(a), custom_call_target="lapack_sgesdd_ffi", backend_config={mode = 65 : ui8}
""", a, backend="interp")
    assert vt.shape == (3, 3) and np.allclose(vt @ vt.T, np.eye(3), atol=1e-5)
