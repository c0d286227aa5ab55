"""fft as a direct DFT over the transformed (trailing) dims, accumulated in f64 with f64
twiddles (exact angles from (j*k mod n)/n), so it is more accurate than the f32 result needs;
O(N) per output element, meant for the modest sizes HLO modules transform on a CPU (a
fast FFT can replace it through the ELEMENTAL/EMITTERS tables).

  FFT:   X[k] = sum_j x[j] e^{-2 pi i <j,k>}          IFFT: x[j] = 1/N sum_k X[k] e^{+2 pi i <j,k>}
  RFFT:  the FFT of a real input, last dim n//2 + 1 outputs
  IRFFT: x[j] = 1/N Re sum_k w_k X[k] e^{+2 pi i <j,k>} over the stored half of the last dim,
         w = 1 for its DC (and Nyquist, n even) bins and 2 otherwise: numpy's c2r convention,
         which ignores the imaginary parts of those bins.
"""
from __future__ import annotations

import math

import llvmlite.ir as ir

from hlotools.backend.llvm.codegen.elemental import ElementalGen, Index, Value
from hlotools.backend.llvm.codegen.registry import NO_INLINE, elemental
from hlotools.backend.llvm.llvm_ir import complex_ops, math_ops, types
from hlotools.backend.llvm.llvm_ir.arith import convert_value
from hlotools.backend.llvm.llvm_ir.loops import c64, for_range
from hlotools.errors import HloUnsupportedError
from hlotools.ir.instruction import Instruction
from hlotools.ir.types import ELEMENT_TYPES


@elemental("fft")
def _fft(gen: ElementalGen, inst: Instruction, index: Index) -> Value:
    kind = str(inst.attrs.get("fft_type", "FFT")).upper()
    lengths = tuple(int(v) for v in inst.attrs.get("fft_length", ()))
    x = inst.operands[0]
    src_et, out_et = x.shape.element_type, inst.shape.element_type
    assert src_et is not None and out_et is not None
    rank = len(inst.shape.dims)
    nd = len(lengths)
    if kind not in ("FFT", "IFFT", "RFFT", "IRFFT") or nd == 0 or nd > rank:
        raise HloUnsupportedError(f"fft_type {kind} with fft_length {list(lengths)}")
    b = gen.b
    f64 = ELEMENT_TYPES["f64"]
    inverse = kind in ("IFFT", "IRFFT")
    axes = list(range(rank - nd, rank))
    # the summation range per transformed dim (the stored input extent)
    extents = [x.shape.dims[a] for a in axes]
    if kind != "IRFFT" and any(e != n for e, n in zip(extents, lengths)):
        raise HloUnsupportedError("fft input dims differ from fft_length (cropping/padding)")
    eb = gen.fe.in_entry()
    acc_re, acc_im = eb.alloca(types.F64), eb.alloca(types.F64)
    b.store(ir.Constant(types.F64, 0.0), acc_re)
    b.store(ir.Constant(types.F64, 0.0), acc_im)
    src: list[ir.Value] = list(index)
    sign = 1.0 if inverse else -1.0

    def term() -> None:
        with gen.region():
            v = gen.value_at(x, list(src))
            if src_et.kind == "complex":
                re, im = complex_ops.parts(b, v)
                re, im = (b.fpext(p, types.F64) if p.type == types.F32 else p for p in (re, im))
            else:
                re, im = convert_value(b, v, src_et, f64), ir.Constant(types.F64, 0.0)
            # angle = sign * 2 pi * sum_d ((j_d * k_d) mod n_d) / n_d
            frac: ir.Value = ir.Constant(types.F64, 0.0)
            weight: ir.Value = ir.Constant(types.F64, 1.0)
            for d, a in enumerate(axes):
                n = lengths[d]
                j, k = src[a], index[a]
                phase = b.urem(b.mul(j, k), c64(n))
                frac = b.fadd(frac, b.fdiv(b.uitofp(phase, types.F64), ir.Constant(types.F64, float(n))))
                if kind == "IRFFT" and d == nd - 1:
                    edge = b.icmp_unsigned("==", j, c64(0))
                    if n % 2 == 0:
                        edge = b.or_(edge, b.icmp_unsigned("==", j, c64(n // 2)))
                    weight = b.select(edge, ir.Constant(types.F64, 1.0), ir.Constant(types.F64, 2.0))
            angle = b.fmul(frac, ir.Constant(types.F64, sign * 2 * math.pi))
            cs, sn = math_ops.libm(b, "cos", [angle]), math_ops.libm(b, "sin", [angle])
            t_re = b.fsub(b.fmul(re, cs), b.fmul(im, sn))
            t_im = b.fadd(b.fmul(re, sn), b.fmul(im, cs))
            if kind == "IRFFT":
                t_re, t_im = b.fmul(t_re, weight), b.fmul(t_im, weight)
            b.store(b.fadd(b.load(acc_re, typ=types.F64), t_re), acc_re)
            b.store(b.fadd(b.load(acc_im, typ=types.F64), t_im), acc_im)

    def level(d: int) -> None:
        if d == nd:
            term()
            return
        a = axes[d]
        with for_range(b, 0, extents[d], name=f"fj{d}") as j:
            src[a] = j
            level(d + 1)
    with gen.region():
        level(0)
    re, im = b.load(acc_re, typ=types.F64), b.load(acc_im, typ=types.F64)
    if inverse:
        scale = ir.Constant(types.F64, 1.0 / math.prod(lengths))
        re, im = b.fmul(re, scale), b.fmul(im, scale)
    if out_et.kind != "complex":  # IRFFT
        return convert_value(b, re, f64, out_et)
    ft = types.float_of(out_et)
    if ft == types.F32:
        re, im = b.fptrunc(re, types.F32), b.fptrunc(im, types.F32)
    return complex_ops.make(b, re, im, out_et)


NO_INLINE.add("fft")
