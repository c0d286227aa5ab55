"""convolution (XLA's semantics, as the interpreter's: window strides, padding, base (lhs)
and window (rhs) dilation, window reversal, feature and batch groups).

For an output element (batch b, feature o, spatial s...): with O_g = O / (groups) and
group gi = o // O_g (gi = batch_group * feature_groups + feature_group), it sums over the
kernel window k... and the group's input features ci:
    lhs[bg * N/bg + b, fg * C/g + ci, s*stride + k*window_dilation - pad_low (over base_dilation)]
  * rhs[o, ci, k (reversed when window_reversal)]
skipping positions in the padding or between dilated input elements.

Two loop forms: when the output feature is the result's minor (contiguous) dimension and
the result accumulates in its own type, a "row" form accumulates a whole feature row in
memory with the loop over output features innermost (vectorisable, like dot's); otherwise
each element is a register accumulation (narrow floats accumulate in f32, rounding once).

Non-finite values follow ir/xla_conv.py's convolution_numerics (XLA CPU's path, or the
spec): where it skips padding, a tap outside the input adds nothing (never 0 * inf); its
group leaks (0 * a non-finite element of another group's kernel, or of another group's
input under the window) are extra sums per output element, run only when a check of the
operand found a non-finite value. A NaN result element is stored as the canonical NaN
(gemm_kernel.canonical_nan, as the GEMM path's: the payload a multiply-add chain keeps
depends on the target), once the element is final.
"""
from __future__ import annotations

from collections.abc import Callable

import llvmlite.ir as ir

from hlotools.backend.llvm.abi import layout_of
from hlotools.backend.llvm.codegen import dynamic_extent
from hlotools.backend.llvm.codegen.function import FunctionEmitter
from hlotools.backend.llvm.codegen.registry import emitter
from hlotools.backend.llvm.kernels.gemm import canonical_nan
from hlotools.backend.llvm.llvm_ir import types
from hlotools.backend.llvm.llvm_ir.arith import convert_value
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range, loop_nest, nested_loops
from hlotools.backend.llvm.lower.data_movement import clamp_index
from hlotools.errors import HloUnsupportedError
from hlotools.ir.attributes import ConvDimLabels, Window, WindowDim
from hlotools.ir.instruction import Instruction
from hlotools.ir.types import ELEMENT_TYPES
from hlotools.ir.xla_conv import ConvNumerics, convolution_numerics


def input_position(b: ir.IRBuilder, w: WindowDim, out_pos: ir.Value, k: ir.Value, size: int,
                   inside: ir.Value) -> tuple[ir.Value, ir.Value]:
    """The input index that output position `out_pos` reads at window offset `k` along one
    spatial dim of `size` (clamped into range, so the load is always safe), and `inside`
    and-ed with whether that is a real element: not padding, not a base-dilation hole."""
    pos = b.add(b.mul(out_pos, c64(w.stride)), b.mul(k, c64(w.window_dilation)))
    pos = b.sub(pos, c64(w.padding_low))
    if w.base_dilation > 1:
        inside = b.and_(inside, b.icmp_signed("==", b.srem(pos, c64(w.base_dilation)), c64(0)))
        pos = b.sdiv(pos, c64(w.base_dilation))
    inside = b.and_(inside, b.and_(b.icmp_signed(">=", pos, c64(0)), b.icmp_signed("<", pos, c64(size))))
    return clamp_index(b, pos, 0, max(0, size - 1)), inside


def any_non_finite(fe: FunctionEmitter, operand: Instruction) -> ir.Value:
    """i1: some element of the float `operand` is inf or NaN (x - x is not 0), one pass."""
    et = operand.shape.element_type
    assert et is not None and et.kind == "float"
    b = fe.b
    slot = fe.in_entry().alloca(types.I1)
    b.store(ir.Constant(types.I1, 0), slot)
    wide = ELEMENT_TYPES["f32"] if types.is_small_float(et) else et

    def body(idx: list[ir.Value]) -> None:
        with fe.gen.region():
            x = convert_value(b, fe.gen.value_at(operand, idx), et, wide)
            bad = b.fcmp_unordered("!=", b.fsub(x, x), types.constant(wide, 0))
            b.store(b.or_(b.load(slot, typ=types.I1), bad), slot)
    loop_nest(b, operand.shape, body, name="nf")
    return b.load(slot, typ=types.I1)


@emitter("convolution")
def emit_convolution(fe: FunctionEmitter, inst: Instruction) -> None:
    labels = inst.attrs.get("dim_labels")
    window = inst.attrs.get("window") or Window(())
    if not isinstance(labels, ConvDimLabels):
        raise HloUnsupportedError("convolution without dim_labels")
    lhs, rhs = inst.operands
    g = int(inst.attrs.get("feature_group_count", 1))
    bg = int(inst.attrs.get("batch_group_count", 1))
    out_shape = inst.shape
    out_et, lhs_et, rhs_et = out_shape.element_type, lhs.shape.element_type, rhs.shape.element_type
    assert out_et is not None and lhs_et is not None and rhs_et is not None
    acc_et = ELEMENT_TYPES["f32"] if types.is_small_float(out_et) else out_et
    ld, rd, od = lhs.shape.dims, rhs.shape.dims, out_shape.dims
    n_sp = len(labels.input_spatial)
    if len(window.dims) != n_sp:
        raise HloUnsupportedError("convolution window rank does not match dim_labels")
    if any(n == 0 for n in od):
        return
    numerics = convolution_numerics(inst) if acc_et.kind == "float" else ConvNumerics()
    c_g = rd[labels.kernel_input_feature]
    o_g = rd[labels.kernel_output_feature] // (g * bg)
    nb = ld[labels.input_batch] // bg
    b = fe.b
    gen = fe.gen
    out_ptr = fe.leaf_ptrs(inst)[0]
    out_idx: list[ir.Value] = [c64(0)] * len(od)
    kpos: list[ir.Value] = [c64(0)] * n_sp
    ci_var: list[ir.Value] = [c64(0)]

    def lhs_index() -> tuple[list[ir.Value], ir.Value]:
        """Input index for the current (output, window, ci) position and whether it is real."""
        o = out_idx[labels.output_feature]
        gi = b.udiv(o, c64(o_g)) if o_g > 1 else o
        fgi = b.urem(gi, c64(g)) if g > 1 else c64(0)
        bgi = b.udiv(gi, c64(g)) if bg > 1 else c64(0)
        idx: list[ir.Value] = [c64(0)] * len(ld)
        n = out_idx[labels.output_batch]
        idx[labels.input_batch] = b.add(b.mul(bgi, c64(nb)), n) if bg > 1 else n
        idx[labels.input_feature] = b.add(b.mul(fgi, c64(c_g)), ci_var[0]) if g > 1 else ci_var[0]
        inside: ir.Value = ir.Constant(types.I1, 1)
        for i, w in enumerate(window.dims):
            idx[labels.input_spatial[i]], inside = input_position(
                b, w, out_idx[labels.output_spatial[i]], kpos[i], ld[labels.input_spatial[i]], inside)
        return idx, inside

    def rhs_value() -> ir.Value:
        idx: list[ir.Value] = [c64(0)] * len(rd)
        idx[labels.kernel_output_feature] = out_idx[labels.output_feature]
        idx[labels.kernel_input_feature] = ci_var[0]
        for i, w in enumerate(window.dims):
            k = kpos[i]
            idx[labels.kernel_spatial[i]] = b.sub(c64(w.size - 1), k) if w.window_reversal else k
        return convert_value(b, gen.value_at(rhs, idx), rhs_et, acc_et)

    def lhs_real() -> tuple[ir.Value, ir.Value]:
        """(the input element at the current position, converted; whether it is real)."""
        idx, inside = lhs_index()
        return convert_value(b, gen.value_at(lhs, idx), lhs_et, acc_et), inside

    def lhs_value() -> ir.Value:
        v, inside = lhs_real()
        return b.select(inside, v, types.constant(acc_et, 0))

    def window_loops(body: Callable[[], None]) -> None:
        with nested_loops(b, [w.size for w in window.dims[:n_sp]], range(n_sp), kpos, name="kw"):
            if c_g == 1:
                ci_var[0] = c64(0)
                body()
            else:
                with for_range(b, 0, c_g, name="ci") as ci:
                    ci_var[0] = ci
                    body()

    def kernel_leak(slot: ir.Value) -> None:
        """acc += 0 * w[k, o', ...] over the other groups k (XLA's group rewrite on a
        multiplying path: their kernels meet the holes of this group's window)."""
        groups = g * bg
        o = out_idx[labels.output_feature]
        own = b.udiv(o, c64(o_g))
        within = b.urem(o, c64(o_g))
        with for_range(b, 0, groups, name="lk") as k:
            with b.if_then(b.icmp_unsigned("!=", k, own)):
                out_idx[labels.output_feature] = b.add(b.mul(k, c64(o_g)), within)
                zero_products(slot, lambda: rhs_value())
        out_idx[labels.output_feature] = o

    def input_leak(slot: ir.Value) -> None:
        """acc += 0 * x[b, c, window] over the real window of every other group's input
        feature c (XLA's depthwise expansion: the kernel is zero there, not absent)."""
        o = out_idx[labels.output_feature]
        own = b.udiv(o, c64(o_g)) if o_g > 1 else o
        with for_range(b, 0, g, name="li") as c:
            with b.if_then(b.icmp_unsigned("!=", c, own)):
                out_idx[labels.output_feature] = b.mul(c, c64(o_g))  # a feature of group c
                zero_products(slot, lambda: lhs_value(), masked=True)
        out_idx[labels.output_feature] = o

    def zero_products(slot: ir.Value, value: Callable[[], ir.Value], masked: bool = False) -> None:
        def add() -> None:
            with gen.region():
                if masked:
                    x, inside = lhs_real()
                    acc = b.load(slot, typ=slot.allocated_type)
                    b.store(b.select(inside, b.fadd(acc, b.fmul(types.constant(acc_et, 0), x)), acc), slot)
                    return
                acc = b.load(slot, typ=slot.allocated_type)
                b.store(b.fadd(acc, b.fmul(types.constant(acc_et, 0), value())), slot)
        window_loops(add)

    leaks: list[tuple[ir.Value, Callable[[ir.Value], None]]] = []
    if numerics.kernel_leaks and g * bg > 1:
        leaks.append((any_non_finite(fe, rhs), kernel_leak))
    if numerics.input_leaks and g > 1 and c_g == 1:
        leaks.append((any_non_finite(fe, lhs), input_leak))

    feat = labels.output_feature
    row_form = layout_of(out_shape)[0] == feat and acc_et is out_et and g == 1 and bg == 1 and \
        acc_et.kind == "float"
    outer_dims = [d for d in reversed(layout_of(out_shape)) if not (row_form and d == feat)]

    def mul_add(acc: ir.Value, x: ir.Value, y: ir.Value) -> ir.Value:
        if acc_et.is_integer:
            return b.add(acc, b.mul(x, y))
        if acc_et.kind == "pred":
            return b.or_(acc, b.and_(x, y))
        return b.fadd(acc, b.fmul(x, y))

    def element() -> None:
        if row_form:
            with for_range(b, 0, od[feat], name="oz") as o:
                out_idx[feat] = o
                fe.store_element(types.constant(out_et, 0), out_ptr, out_shape, list(out_idx))

            def features(x: ir.Value) -> None:
                with for_range(b, 0, od[feat], name="of") as o:
                    out_idx[feat] = o
                    with gen.region():
                        acc = fe.load_element(out_ptr, out_shape, list(out_idx))
                        fe.store_element(mul_add(acc, x, rhs_value()), out_ptr, out_shape, list(out_idx))

            def row() -> None:
                with gen.region():
                    out_idx[feat] = c64(0)
                    # the input element does not depend on the output feature (g == bg == 1)
                    if not numerics.skips_padding:
                        features(lhs_value())
                        return
                    x, inside = lhs_real()
                    with b.if_then(inside):  # padding and holes add nothing (XLA's skipping paths)
                        features(x)
            window_loops(row)
            with for_range(b, 0, od[feat], name="oc") as o:  # the row is final: canonical NaNs
                out_idx[feat] = o
                done = fe.load_element(out_ptr, out_shape, list(out_idx))
                fe.store_element(canonical_nan(b, done), out_ptr, out_shape, list(out_idx))
            return
        slot = fe.in_entry().alloca(types.value_type(acc_et))
        b.store(types.constant(acc_et, 0), slot)

        def accumulate() -> None:
            with gen.region():
                acc = b.load(slot, typ=slot.allocated_type)
                if numerics.skips_padding:  # the product only where the tap is real (never 0 * inf)
                    x, inside = lhs_real()
                    b.store(b.select(inside, mul_add(acc, x, rhs_value()), acc), slot)
                else:
                    b.store(mul_add(acc, lhs_value(), rhs_value()), slot)
        window_loops(accumulate)
        for flag, leak in leaks:
            with b.if_then(flag, likely=False):
                leak(slot)
        v = convert_value(b, b.load(slot, typ=slot.allocated_type), acc_et, out_et)
        fe.store_element(canonical_nan(b, v), out_ptr, out_shape, list(out_idx))

    stops = dynamic_extent.loop_stops(fe, inst, out_shape)  # a bounded dynamic batch or spatial dim
    with nested_loops(b, od, outer_dims, out_idx, name="co", stops=stops() if stops else None), gen.region():
        element()
