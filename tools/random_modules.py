#!/usr/bin/env python3
"""Random well-typed HLO modules for differential runs against real XLA CPU.

A module is a random data-flow graph over 1-3 entry parameters: elementwise ops of every
element type (pred, s8..s64, u8..u64, f16, bf16, f32, f64, c64), compare/select/clamp,
convert and bitcast-convert, broadcast/reshape/transpose/slice/concatenate/pad/reverse, reduce
and reduce-window (several reducers, identity and non-identity inits), dot, convolution, sort,
gather/scatter, iota, dynamic-slice/dynamic-update-slice, while and conditional. Its root is a
tuple of every value nothing else reads. Inputs mix ordinary values with 0, -0, inf, NaN,
denormals and the type's extremes. Everything follows from the seed.

    random_modules.py gen --seed 0 --count 200 --out DIR    (modules + inputs, numpy only)
    random_modules.py xla DIR                                (run under xla_ref's venv)
    random_modules.py ours DIR                               (run under hlotools' venv)
    random_modules.py report DIR                             (agreement rates, mismatches)

`xla` and `ours` write DIR/NAME.xla.npz / NAME.interp.npz / NAME.llvm.npz (outputs as raw
bits, with NAME.*.json holding the element types or the error). Modules stay out of the repo.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

FLOATS = ("f16", "bf16", "f32", "f64")
SIGNED = ("s8", "s16", "s32", "s64")
UNSIGNED = ("u8", "u16", "u32", "u64")
ALL_TYPES = ("pred",) + SIGNED + UNSIGNED + FLOATS + ("c64",)
NP_TYPES = {"pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
            "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
            "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64,
            "c64": np.complex64, "c128": np.complex128}
WIDTH = {"pred": 8, "s8": 8, "u8": 8, "s16": 16, "u16": 16, "f16": 16, "bf16": 16, "s32": 32,
         "u32": 32, "f32": 32, "s64": 64, "u64": 64, "f64": 64, "c64": 64}

UNARY = {
    "float": ["negate", "abs", "exponential", "exponential-minus-one", "log", "log-plus-one",
              "sqrt", "rsqrt", "cbrt", "tanh", "logistic", "sine", "cosine", "tan", "floor",
              "ceil", "round-nearest-afz", "round-nearest-even", "sign", "erf"],
    "int": ["negate", "abs", "not", "popcnt", "count-leading-zeros", "sign"],
    "uint": ["not", "popcnt", "count-leading-zeros"],
    "pred": ["not"],
    "complex": ["negate", "exponential", "log", "sqrt", "sign", "tanh", "log-plus-one",
                "exponential-minus-one", "rsqrt", "cosine", "sine"],
}
BINARY = {
    "float": ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power",
              "remainder", "atan2"],
    "int": ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and",
            "or", "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical", "power"],
    "pred": ["and", "or", "xor", "maximum", "minimum"],
    "complex": ["add", "subtract", "multiply", "divide"],
}
BINARY["uint"] = BINARY["int"]


def kind(ty: str) -> str:
    if ty in FLOATS:
        return "float"
    if ty in SIGNED:
        return "int"
    if ty in UNSIGNED:
        return "uint"
    return "pred" if ty == "pred" else "complex"


@dataclass(frozen=True)
class Value:
    name: str
    ty: str
    dims: tuple[int, ...]


def shape(ty: str, dims: tuple[int, ...]) -> str:
    return f"{ty}[{','.join(map(str, dims))}]"


def _float_text(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(float(x))


def special_values(ty: str) -> list[Any]:
    """0, -0, inf, NaN, denormals, extremes and a few ordinary values of `ty`."""
    if ty == "pred":
        return [False, True]
    if kind(ty) in ("int", "uint"):
        info = np.iinfo(NP_TYPES[ty])
        return [0, 1, -1, 2, 7, int(info.min), int(info.max), int(info.max) - 1,
                int(info.min) + 1, WIDTH[ty], WIDTH[ty] - 1, WIDTH[ty] + 1, 64, 31, 63]
    fi = ml_dtypes.finfo(NP_TYPES["f32" if ty == "c64" else ty])
    return [0.0, -0.0, math.inf, -math.inf, math.nan, float(fi.smallest_subnormal),
            -float(fi.smallest_subnormal), float(fi.smallest_subnormal) * 3,
            float(fi.tiny) / 2, float(fi.tiny), -float(fi.tiny), float(fi.max), -float(fi.max),
            1.0, -1.0, 0.5, 2.0, -2.5, 3.0, 100.0, 1e-3]


def random_array(rng: np.random.Generator, ty: str, dims: tuple[int, ...],
                 p_special: float) -> np.ndarray:
    n = math.prod(dims)
    dt = np.dtype(NP_TYPES[ty])
    if ty == "pred":
        return (rng.random(n) < 0.5).reshape(dims)
    if kind(ty) in ("int", "uint"):
        info = np.iinfo(dt)
        small = rng.integers(-9 if kind(ty) == "int" else 0, 10, size=n)
        wide = rng.integers(int(info.min), int(info.max), size=n, endpoint=True, dtype=dt)
        out = np.where(rng.random(n) < 0.2, wide, small.astype(dt)).astype(dt)
        specials = np.array([v for v in special_values(ty) if info.min <= v <= info.max],
                            dtype=object)
        pick = rng.random(n) < p_special
        out[pick] = specials[rng.integers(0, len(specials), size=int(pick.sum()))].astype(dt)
        return out.reshape(dims)

    def part() -> np.ndarray:
        scale = rng.choice([1.0, 1.0, 100.0, 1e-3, 1e4])
        base = rng.standard_normal(n) * scale
        sp = np.array(special_values(ty), dtype=np.float64)
        pick = rng.random(n) < p_special
        base[pick] = sp[rng.integers(0, len(sp), size=int(pick.sum()))]
        return base

    if ty == "c64":
        return (part() + 1j * part()).astype(dt).reshape(dims)
    with np.errstate(over="ignore"):
        return part().astype(dt).reshape(dims)


class Builder:
    """One module: parameters, entry lines, side computations, and the values so far."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.lines: list[str] = []
        self.comps: dict[str, str] = {}
        self.values: list[Value] = []
        self.used: set[str] = set()
        self.params: list[Value] = []
        self.count = 0

    # ---------------------------------------------------------------- plumbing
    def fresh(self, base: str) -> str:
        self.count += 1
        return f"{base}.{self.count}"

    def emit(self, ty: str, dims: tuple[int, ...], rhs: str, base: str = "v",
             operands: tuple[Value, ...] = (), keep: bool = True) -> Value:
        v = Value(self.fresh(base), ty, tuple(dims))
        self.lines.append(f"  {v.name} = {shape(ty, v.dims)} {rhs}")
        for o in operands:
            self.used.add(o.name)
        if keep:
            self.values.append(v)
        return v

    def param(self, ty: str, dims: tuple[int, ...]) -> Value:
        v = Value(f"p{len(self.params)}", ty, tuple(dims))
        self.lines.insert(len(self.params), f"  {v.name} = {shape(ty, v.dims)} parameter({len(self.params)})")
        self.params.append(v)
        self.values.append(v)
        return v

    def dims(self, max_rank: int = 3) -> tuple[int, ...]:
        rank = self.r.choice([0, 1, 1, 2, 2, 2, 3, 3][: 2 + 2 * max_rank])
        return tuple(self.r.choice([1, 2, 3, 4, 5, 7, 8]) for _ in range(rank))

    def pick(self, pred=lambda v: True) -> Value | None:
        cands = [v for v in self.values if pred(v)]
        if not cands:
            return None
        # Recent values first: deeper graphs.
        k = min(len(cands) - 1, int(self.r.expovariate(0.6)))
        return cands[-1 - k]

    def scalar_const(self, ty: str, special: bool = True) -> Value:
        return self.emit(ty, (), f"constant({self.literal(ty, special)})", "c", keep=False)

    def literal(self, ty: str, special: bool = True) -> str:
        if ty == "pred":
            return self.r.choice(["true", "false"])
        vals = special_values(ty) if special else [0, 1, 2, 3, -1]
        if kind(ty) in ("int", "uint"):
            info = np.iinfo(NP_TYPES[ty])
            return str(self.r.choice([v for v in vals if info.min <= v <= info.max]))
        if ty == "c64":
            a, b = self.r.choice(vals), self.r.choice(vals)
            return f"({_float_text(float(np.float32(a)))}, {_float_text(float(np.float32(b)))})"
        with np.errstate(over="ignore"):
            return _float_text(float(np.asarray(self.r.choice(vals)).astype(NP_TYPES[ty])))

    def computation(self, name: str, text: str) -> str:
        self.comps.setdefault(name, text)
        return name

    def binary_comp(self, op: str, ty: str) -> str:
        s = shape(ty, ())
        return self.computation(
            f"{op}_{ty}", f"{op}_{ty} {{\n  a = {s} parameter(0)\n  b = {s} parameter(1)\n"
            f"  ROOT r = {s} {op}(a, b)\n}}\n")

    def like(self, v: Value) -> Value:
        """Another value of v's type and dims: an existing one, a broadcast constant or a new
        parameter."""
        same = [w for w in self.values if w.ty == v.ty and w.dims == v.dims and w != v]
        c = self.r.random()
        if same and c < 0.5:
            return self.r.choice(same)
        if c < 0.7:
            k = self.scalar_const(v.ty)
            return self.emit(v.ty, v.dims, f"broadcast({k.name}), dimensions={{}}", "b", (k,))
        return self.param(v.ty, v.dims)

    def any_value(self) -> Value:
        v = self.pick()
        if v is None or self.r.random() < 0.1:
            v = self.param(self.r.choice(ALL_TYPES), self.dims())
        return v

    # ---------------------------------------------------------------- ops
    def op_unary(self) -> Value | None:
        v = self.pick(lambda w: w.ty != "pred" or True)
        assert v is not None
        k = kind(v.ty)
        ops = UNARY[k] + (["abs", "real", "imag"] if k == "complex" else [])
        ops += ["is-finite"] if k == "float" else []
        op = self.r.choice(ops)
        ty = "pred" if op == "is-finite" else "f32" if op in ("abs", "real", "imag") and k == "complex" else v.ty
        return self.emit(ty, v.dims, f"{op}({v.name})", "u", (v,))

    def op_binary(self) -> Value | None:
        v = self.any_value()
        op = self.r.choice(BINARY[kind(v.ty)])
        w = self.like(v)
        a, b = (v, w) if self.r.random() < 0.6 else (w, v)
        return self.emit(v.ty, v.dims, f"{op}({a.name}, {b.name})", "e", (a, b))

    def op_compare(self) -> Value | None:
        v = self.any_value()
        k = kind(v.ty)
        dirs = ["EQ", "NE"] if k == "complex" else ["EQ", "NE", "LT", "LE", "GT", "GE"]
        d = self.r.choice(dirs)
        w = self.like(v)
        extra = ""
        if k == "float" and self.r.random() < 0.3:
            extra = ", type=TOTALORDER"
        return self.emit("pred", v.dims, f"compare({v.name}, {w.name}), direction={d}{extra}",
                         "cmp", (v, w))

    def op_select(self) -> Value | None:
        v = self.any_value()
        p = self.pick(lambda w: w.ty == "pred" and w.dims == v.dims)
        if p is None:
            p = self.param("pred", v.dims)
        w = self.like(v)
        return self.emit(v.ty, v.dims, f"select({p.name}, {v.name}, {w.name})", "sel", (p, v, w))

    def op_clamp(self) -> Value | None:
        v = self.pick(lambda w: kind(w.ty) not in ("pred", "complex"))
        if v is None:
            return None
        lo = self.scalar_const(v.ty) if self.r.random() < 0.5 else self.like(v)
        hi = self.scalar_const(v.ty) if self.r.random() < 0.5 else self.like(v)
        return self.emit(v.ty, v.dims, f"clamp({lo.name}, {v.name}, {hi.name})", "cl", (lo, v, hi))

    def op_convert(self) -> Value | None:
        v = self.any_value()
        tys = ["c64"] if v.ty == "c64" else list(ALL_TYPES)
        return self.emit(self.r.choice(tys), v.dims, f"convert({v.name})", "cv", (v,))

    def op_bitcast_convert(self) -> Value | None:
        v = self.pick(lambda w: w.ty not in ("pred", "c64"))
        if v is None:
            return None
        tys = [t for t in ALL_TYPES if t not in ("pred", "c64") and WIDTH[t] == WIDTH[v.ty]]
        return self.emit(self.r.choice(tys), v.dims, f"bitcast-convert({v.name})", "bc", (v,))

    def op_broadcast(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) < 3)
        if v is None:
            return None
        pos = self.r.randint(0, len(v.dims))
        dims = v.dims[:pos] + (self.r.choice([1, 2, 3]),) + v.dims[pos:]
        mapping = [i if i < pos else i + 1 for i in range(len(v.dims))]
        return self.emit(v.ty, dims, f"broadcast({v.name}), dimensions={{{','.join(map(str, mapping))}}}",
                         "br", (v,))

    def op_reshape(self) -> Value | None:
        v = self.any_value()
        n = math.prod(v.dims)
        choices: list[tuple[int, ...]] = [(n,)]
        for a in range(2, n):
            if n % a == 0:
                choices.append((a, n // a))
        if n == 1:
            choices += [(), (1, 1)]
        return self.emit(v.ty, self.r.choice(choices), f"reshape({v.name})", "rs", (v,))

    def op_transpose(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) >= 2)
        if v is None:
            return None
        perm = list(range(len(v.dims)))
        self.r.shuffle(perm)
        dims = tuple(v.dims[p] for p in perm)
        return self.emit(v.ty, dims, f"transpose({v.name}), dimensions={{{','.join(map(str, perm))}}}",
                         "tr", (v,))

    def op_reverse(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) >= 1)
        if v is None:
            return None
        ds = sorted(self.r.sample(range(len(v.dims)), self.r.randint(1, len(v.dims))))
        return self.emit(v.ty, v.dims, f"reverse({v.name}), dimensions={{{','.join(map(str, ds))}}}",
                         "rev", (v,))

    def op_slice(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) >= 1 and min(w.dims) >= 1)
        if v is None:
            return None
        parts, dims = [], []
        for d in v.dims:
            s = self.r.randint(0, d - 1)
            e = self.r.randint(s + 1, d)
            st = self.r.choice([1, 1, 2, 3])
            parts.append(f"[{s}:{e}:{st}]")
            dims.append(-(-(e - s) // st))
        return self.emit(v.ty, tuple(dims), f"slice({v.name}), slice={{{', '.join(parts)}}}", "sl", (v,))

    def op_concatenate(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) >= 1)
        if v is None:
            return None
        d = self.r.randrange(len(v.dims))
        others = [w for w in self.values if w.ty == v.ty and len(w.dims) == len(v.dims)
                  and all(a == b for i, (a, b) in enumerate(zip(w.dims, v.dims)) if i != d)]
        w = self.r.choice(others)
        dims = list(v.dims)
        dims[d] += w.dims[d]
        return self.emit(v.ty, tuple(dims), f"concatenate({v.name}, {w.name}), dimensions={{{d}}}",
                         "cat", (v, w))

    def op_pad(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) >= 1)
        if v is None:
            return None
        pv = self.scalar_const(v.ty)
        cfg, dims = [], []
        for d in v.dims:
            while True:
                lo, hi = self.r.randint(-1, 2), self.r.randint(-1, 2)
                it = self.r.choice([0, 0, 1, 2]) if d > 1 else 0
                n = lo + hi + d + max(d - 1, 0) * it
                if n >= 1:
                    break
            cfg.append(f"{lo}_{hi}" + (f"_{it}" if it else ""))
            dims.append(n)
        return self.emit(v.ty, tuple(dims), f"pad({v.name}, {pv.name}), padding={'x'.join(cfg)}",
                         "pad", (v, pv))

    def reducer(self, ty: str) -> tuple[str, str]:
        """(reducer op, init literal) for `ty`: the identity or, sometimes, another value."""
        k = kind(ty)
        if k == "pred":
            op = self.r.choice(["and", "or"])
            ident = "true" if op == "and" else "false"
        elif k == "complex":
            op, ident = self.r.choice([("add", "(0, 0)"), ("multiply", "(1, 0)")])
        else:
            op = self.r.choice(["add", "add", "multiply", "maximum", "minimum"])
            if k == "float":
                ident = {"add": "-0" if self.r.random() < 0.3 else "0", "multiply": "1",
                         "maximum": "-inf", "minimum": "inf"}[op]
            else:
                info = np.iinfo(NP_TYPES[ty])
                ident = {"add": "0", "multiply": "1", "maximum": str(int(info.min)),
                         "minimum": str(int(info.max))}[op]
        init = ident if self.r.random() < 0.7 else self.literal(ty)
        return op, init

    def op_reduce(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) >= 1)
        if v is None:
            return None
        if self.r.random() < 0.08:  # large enough for XLA's YNNPACK/tree rewrites
            ty = self.r.choice(["f32", "f16", "bf16", "f64", "s32", "u8"])
            v = self.param(ty, (self.r.choice([3, 64]), self.r.choice([33, 100, 1500])))
        op, init = self.reducer(v.ty)
        c = self.emit(v.ty, (), f"constant({init})", "init", keep=False)
        rd = sorted(self.r.sample(range(len(v.dims)), self.r.randint(1, len(v.dims))))
        dims = tuple(d for i, d in enumerate(v.dims) if i not in rd)
        comp = self.binary_comp(op, v.ty)
        return self.emit(v.ty, dims, f"reduce({v.name}, {c.name}), dimensions={{{','.join(map(str, rd))}}}, "
                         f"to_apply={comp}", "red", (v, c))

    def op_reduce_window(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) >= 1)
        if v is None:
            return None
        op, init = self.reducer(v.ty)
        c = self.emit(v.ty, (), f"constant({init})", "init", keep=False)
        sizes, strides, pads, dils, dims = [], [], [], [], []
        for d in v.dims:
            while True:
                sz = self.r.randint(1, min(d, 3) + 1)
                st = self.r.choice([1, 1, 2])
                lo, hi = self.r.choice([0, 0, 1]), self.r.choice([0, 0, 1, 2])
                dil = self.r.choice([1, 1, 1, 2])
                ext = (d - 1) * dil + 1 + lo + hi
                if ext >= sz:
                    break
            sizes.append(sz)
            strides.append(st)
            pads.append(f"{lo}_{hi}")
            dils.append(dil)
            dims.append((ext - sz) // st + 1)
        win = f"size={'x'.join(map(str, sizes))} stride={'x'.join(map(str, strides))} pad={'x'.join(pads)}"
        if any(x != 1 for x in dils):
            win += f" lhs_dilate={'x'.join(map(str, dils))}"
        comp = self.binary_comp(op, v.ty)
        return self.emit(v.ty, tuple(dims), f"reduce-window({v.name}, {c.name}), window={{{win}}}, "
                         f"to_apply={comp}", "rw", (v, c))

    def op_dot(self) -> Value | None:
        v = self.pick(lambda w: 1 <= len(w.dims) <= 3 and kind(w.ty) != "pred")
        if v is None:
            return None
        if len(v.dims) == 1:
            w = self.like(v)
            return self.emit(v.ty, (), f"dot({v.name}, {w.name}), lhs_contracting_dims={{0}}, "
                             "rhs_contracting_dims={0}", "dot", (v, w))
        n = self.r.choice([1, 2, 3, 5])
        if len(v.dims) == 2:
            w = self.param(v.ty, (v.dims[1], n))
            return self.emit(v.ty, (v.dims[0], n), f"dot({v.name}, {w.name}), lhs_contracting_dims={{1}}, "
                             "rhs_contracting_dims={0}", "dot", (v, w))
        w = self.param(v.ty, (v.dims[0], n, v.dims[2]))
        return self.emit(v.ty, (v.dims[0], v.dims[1], n),
                         f"dot({v.name}, {w.name}), lhs_batch_dims={{0}}, lhs_contracting_dims={{2}}, "
                         "rhs_batch_dims={0}, rhs_contracting_dims={2}", "dot", (v, w))

    def op_convolution(self) -> Value | None:
        ty = self.r.choice(["f32", "f32", "f16", "bf16", "f64"])
        g = self.r.choice([1, 1, 2])
        nb, c, o = self.r.choice([1, 2]), g * self.r.choice([1, 2]), g * self.r.choice([1, 2])
        hs, ks = [self.r.randint(1, 6) for _ in range(2)], [self.r.randint(1, 3) for _ in range(2)]
        sizes, strides, pads, ld, rd, outs = [], [], [], [], [], []
        for h, k in zip(hs, ks):
            while True:
                st, lo, hi = self.r.choice([1, 1, 2]), self.r.randint(0, 2), self.r.randint(0, 2)
                l_d, r_d = self.r.choice([1, 1, 2]), self.r.choice([1, 1, 2])
                ext, kext = (h - 1) * l_d + 1 + lo + hi, (k - 1) * r_d + 1
                if ext >= kext:
                    break
            sizes.append(k)
            strides.append(st)
            pads.append(f"{lo}_{hi}")
            ld.append(l_d)
            rd.append(r_d)
            outs.append((ext - kext) // st + 1)
        lhs = self.param(ty, (nb, hs[0], hs[1], c))
        rhs = self.param(ty, (ks[0], ks[1], c // g, o))
        win = f"size={'x'.join(map(str, sizes))} stride={'x'.join(map(str, strides))} pad={'x'.join(pads)}"
        if any(x != 1 for x in ld):
            win += f" lhs_dilate={'x'.join(map(str, ld))}"
        if any(x != 1 for x in rd):
            win += f" rhs_dilate={'x'.join(map(str, rd))}"
        extra = f", feature_group_count={g}" if g > 1 else ""
        return self.emit(ty, (nb, outs[0], outs[1], o),
                         f"convolution({lhs.name}, {rhs.name}), window={{{win}}}, dim_labels=b01f_01io->b01f{extra}",
                         "conv", (lhs, rhs))

    def op_sort(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) >= 1 and w.ty != "c64")
        if v is None:
            return None
        d = self.r.randrange(len(v.dims))
        direction = self.r.choice(["LT", "GT"])
        total = ", type=TOTALORDER" if kind(v.ty) == "float" and self.r.random() < 0.5 else ""
        s = shape(v.ty, ())
        two = self.r.random() < 0.4
        name = f"cmp_{v.ty}_{direction}{'_t' if total else ''}{'_2' if two else ''}"
        extra_params = ""
        if two:
            extra_params = "  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n"
        self.computation(name, f"{name} {{\n  a = {s} parameter(0)\n  b = {s} parameter(1)\n{extra_params}"
                         f"  ROOT r = pred[] compare(a, b), direction={direction}{total}\n}}\n")
        stable = ", is_stable=true" if self.r.random() < 0.5 else ""
        if not two:
            return self.emit(v.ty, v.dims, f"sort({v.name}), dimensions={{{d}}}{stable}, to_apply={name}",
                             "sort", (v,))
        io = self.emit("s32", v.dims, f"iota(), iota_dimension={d}", "io", keep=False)
        t = self.fresh("sort")
        self.lines.append(f"  {t} = ({shape(v.ty, v.dims)}, {shape('s32', v.dims)}) sort({v.name}, {io.name}), "
                          f"dimensions={{{d}}}{stable}, to_apply={name}")
        self.used.add(v.name)
        self.emit(v.ty, v.dims, f"get-tuple-element({t}), index=0", "gte")
        return self.emit("s32", v.dims, f"get-tuple-element({t}), index=1", "gte")

    def index_param(self, dims: tuple[int, ...], bound: int) -> Value:
        p = self.param("s32", dims)
        self.index_bounds[p.name] = bound
        return p

    index_bounds: dict[str, int]

    def op_gather(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) == 2)
        if v is None:
            return None
        k = self.r.randint(1, 5)
        idx = self.index_param((k,), v.dims[0])
        return self.emit(v.ty, (k, v.dims[1]),
                         f"gather({v.name}, {idx.name}), offset_dims={{1}}, collapsed_slice_dims={{0}}, "
                         f"start_index_map={{0}}, index_vector_dim=1, slice_sizes={{1,{v.dims[1]}}}",
                         "ga", (v, idx))

    def op_scatter(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) == 2 and w.ty != "pred")
        if v is None:
            return None
        k = self.r.randint(1, 5)
        idx = self.index_param((k,), v.dims[0])
        upd = self.param(v.ty, (k, v.dims[1]))
        op = self.r.choice(["add", "maximum", "minimum"] if v.ty != "c64" else ["add"])
        comp = self.binary_comp(op, v.ty)
        return self.emit(v.ty, v.dims,
                         f"scatter({v.name}, {idx.name}, {upd.name}), update_window_dims={{1}}, "
                         f"inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, "
                         f"index_vector_dim=1, to_apply={comp}", "sc", (v, idx, upd))

    def op_iota(self) -> Value | None:
        dims = self.dims()
        if not dims:
            dims = (4,)
        ty = self.r.choice([t for t in ALL_TYPES if t != "pred"])
        return self.emit(ty, dims, f"iota(), iota_dimension={self.r.randrange(len(dims))}", "iota")

    def op_dynamic_slice(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) >= 1)
        if v is None:
            return None
        starts = [self.index_param((), d) for d in v.dims]
        sizes = tuple(self.r.randint(1, d) for d in v.dims)
        names = ", ".join(s.name for s in starts)
        if self.r.random() < 0.5:
            return self.emit(v.ty, sizes, f"dynamic-slice({v.name}, {names}), "
                             f"dynamic_slice_sizes={{{','.join(map(str, sizes))}}}", "ds", (v, *starts))
        upd = self.param(v.ty, sizes)
        return self.emit(v.ty, v.dims, f"dynamic-update-slice({v.name}, {upd.name}, {names})", "dus",
                         (v, upd, *starts))

    def op_while(self) -> Value | None:
        v = self.any_value()
        k = kind(v.ty)
        op = self.r.choice(BINARY[k])
        st = f"(s32[], {shape(v.ty, v.dims)})"
        n = self.fresh("w").replace(".", "_")
        trips = self.r.randint(0, 4)
        cond = self.computation(f"cond_{n}", f"cond_{n} {{\n  s = {st} parameter(0)\n"
                                "  i = s32[] get-tuple-element(s), index=0\n"
                                f"  k = s32[] constant({trips})\n"
                                "  ROOT lt = pred[] compare(i, k), direction=LT\n}\n")
        body = self.computation(f"body_{n}", f"body_{n} {{\n  s = {st} parameter(0)\n"
                                "  i = s32[] get-tuple-element(s), index=0\n"
                                "  one = s32[] constant(1)\n  j = s32[] add(i, one)\n"
                                f"  x = {shape(v.ty, v.dims)} get-tuple-element(s), index=1\n"
                                f"  y = {shape(v.ty, v.dims)} {op}(x, x)\n"
                                f"  ROOT t = {st} tuple(j, y)\n}}\n")
        z = self.emit("s32", (), "constant(0)", "z", keep=False)
        t0 = self.fresh("init")
        self.lines.append(f"  {t0} = {st} tuple({z.name}, {v.name})")
        w = self.fresh("while")
        self.lines.append(f"  {w} = {st} while({t0}), condition={cond}, body={body}")
        self.used.add(v.name)
        return self.emit(v.ty, v.dims, f"get-tuple-element({w}), index=1", "gte")

    def op_conditional(self) -> Value | None:
        v = self.any_value()
        s = shape(v.ty, v.dims)
        names = []
        for _ in range(self.r.choice([2, 3])):
            op = self.r.choice(UNARY[kind(v.ty)])
            nm = self.fresh("br").replace(".", "_")
            names.append(self.computation(nm, f"{nm} {{\n  x = {s} parameter(0)\n  ROOT y = {s} {op}(x)\n}}\n"))
        if len(names) == 2 and self.r.random() < 0.5:
            p = self.param("pred", ())
            return self.emit(v.ty, v.dims, f"conditional({p.name}, {v.name}, {v.name}), "
                             f"true_computation={names[0]}, false_computation={names[1]}", "cond", (p, v))
        i = self.index_param((), len(names))
        ops = ", ".join([v.name] * len(names))
        return self.emit(v.ty, v.dims, f"conditional({i.name}, {ops}), branch_computations={{{', '.join(names)}}}",
                         "cond", (i, v))

    def op_map(self) -> Value | None:
        v = self.pick(lambda w: w.ty != "c64")
        if v is None:
            return None
        s = shape(v.ty, ())
        op = self.r.choice(BINARY[kind(v.ty)])
        name = self.computation(f"map_{op}_{v.ty}", f"map_{op}_{v.ty} {{\n  a = {s} parameter(0)\n"
                                f"  b = {s} parameter(1)\n  ROOT r = {s} {op}(a, b)\n}}\n")
        w = self.like(v)
        dims = ",".join(map(str, range(len(v.dims))))
        return self.emit(v.ty, v.dims, f"map({v.name}, {w.name}), dimensions={{{dims}}}, to_apply={name}",
                         "map", (v, w))

    def op_reduce_precision(self) -> Value | None:
        v = self.pick(lambda w: kind(w.ty) == "float")
        if v is None:
            return None
        e, m = self.r.choice([(5, 10), (8, 7), (8, 23), (4, 3), (5, 2), (11, 52), (3, 1)])
        return self.emit(v.ty, v.dims, f"reduce-precision({v.name}), exponent_bits={e}, mantissa_bits={m}",
                         "rp", (v,))

    def op_complex(self) -> Value | None:
        v = self.pick(lambda w: w.ty == "f32")
        if v is None:
            return None
        w = self.like(v)
        return self.emit("c64", v.dims, f"complex({v.name}, {w.name})", "cx", (v, w))

    def op_argmax(self) -> Value | None:
        """A variadic reduce: the value and index of the maximum (JAX's argmax reducer)."""
        v = self.pick(lambda w: len(w.dims) >= 1 and kind(w.ty) in ("float", "int", "uint"))
        if v is None:
            return None
        d = self.r.randrange(len(v.dims))
        s, n = shape(v.ty, ()), self.fresh("argmax").replace(".", "_")
        cmp = "GT" if self.r.random() < 0.5 else "GE"
        self.computation(n, f"{n} {{\n  a = {s} parameter(0)\n  i = s32[] parameter(1)\n"
                         f"  b = {s} parameter(2)\n  j = s32[] parameter(3)\n"
                         f"  g = pred[] compare(a, b), direction={cmp}\n"
                         f"  x = {s} select(g, a, b)\n  k = s32[] select(g, i, j)\n"
                         f"  ROOT t = ({s}, s32[]) tuple(x, k)\n}}\n")
        io = self.emit("s32", v.dims, f"iota(), iota_dimension={d}", "io", keep=False)
        lo = self.emit(v.ty, (), f"constant({self.literal(v.ty)})", "init", keep=False)
        zi = self.emit("s32", (), "constant(0)", "init", keep=False)
        dims = tuple(x for i, x in enumerate(v.dims) if i != d)
        t = self.fresh("argmax")
        self.lines.append(f"  {t} = ({shape(v.ty, dims)}, {shape('s32', dims)}) reduce({v.name}, {io.name}, "
                          f"{lo.name}, {zi.name}), dimensions={{{d}}}, to_apply={n}")
        self.used.add(v.name)
        self.emit(v.ty, dims, f"get-tuple-element({t}), index=0", "gte")
        return self.emit("s32", dims, f"get-tuple-element({t}), index=1", "gte")

    def op_select_and_scatter(self) -> Value | None:
        v = self.pick(lambda w: len(w.dims) == 2 and kind(w.ty) == "float" and min(w.dims) >= 2)
        if v is None:
            return None
        (a, b), st = v.dims, self.r.choice([1, 2])
        outs = ((a - 2) // st + 1, (b - 2) // st + 1)
        src = self.param(v.ty, outs)
        s = shape(v.ty, ())
        ge = self.computation(f"ge_{v.ty}", f"ge_{v.ty} {{\n  a = {s} parameter(0)\n  b = {s} parameter(1)\n"
                              "  ROOT r = pred[] compare(a, b), direction=GE\n}\n")
        add = self.binary_comp("add", v.ty)
        z = self.emit(v.ty, (), "constant(0)", "init", keep=False)
        return self.emit(v.ty, v.dims, f"select-and-scatter({v.name}, {src.name}, {z.name}), "
                         f"window={{size=2x2 stride={st}x{st}}}, select={ge}, scatter={add}", "sas",
                         (v, src, z))

    OPS = {"unary": 5, "binary": 7, "compare": 2, "select": 2, "clamp": 1.5, "convert": 3,
           "bitcast_convert": 0.7, "broadcast": 1.5, "reshape": 1.5, "transpose": 1.5, "reverse": 0.7,
           "slice": 1.5, "concatenate": 1, "pad": 1.5, "reduce": 3, "reduce_window": 2, "dot": 2,
           "convolution": 1, "sort": 1.2, "gather": 0.8, "scatter": 0.8, "iota": 0.7,
           "dynamic_slice": 1, "while": 0.8, "conditional": 0.8, "map": 0.6,
           "reduce_precision": 0.6, "complex": 0.5, "argmax": 0.8, "select_and_scatter": 0.5}

    def build(self, n_ops: int, weights: dict[str, float] | None = None) -> str:
        self.index_bounds = {}
        for _ in range(self.r.randint(1, 3)):
            self.param(self.r.choice(ALL_TYPES), self.dims())
        names, ws = zip(*{**self.OPS, **(weights or {})}.items())
        done = 0
        while done < n_ops:
            op = self.r.choices(names, ws)[0]
            if getattr(self, f"op_{op}")() is not None:
                done += 1
        sinks = [v for v in self.values if v.name not in self.used and not v.name.startswith("p")]
        if not sinks:
            sinks = [self.values[-1]]
        root = f"  ROOT out = ({', '.join(shape(v.ty, v.dims) for v in sinks)}) tuple({', '.join(v.name for v in sinks)})"
        comps = "\n".join(self.comps.values())
        return f"HloModule rand\n\n{comps}\nENTRY main {{\n" + "\n".join(self.lines + [root]) + "\n}\n"

    def inputs(self, seed: int) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        p_special = float(rng.choice([0.1, 0.3, 0.6]))
        out = []
        for p in self.params:
            if p.name in self.index_bounds:  # in range mostly, out of range sometimes
                b = self.index_bounds[p.name]
                vals = rng.integers(0, max(b, 1), size=math.prod(p.dims))
                odd = rng.random(vals.size) < 0.25
                vals[odd] = rng.choice([-1, -7, b, b + 3, 2**31 - 1, -2**31], size=int(odd.sum()))
                out.append(vals.astype(np.int32).reshape(p.dims))
            else:
                out.append(random_array(rng, p.ty, p.dims, p_special))
        return out


def generate(seed: int, weights: dict[str, float] | None = None) -> tuple[str, list[np.ndarray]]:
    b = Builder(seed)
    text = b.build(random.Random(seed ^ 0x5EED).randint(2, 9), weights)
    return text, b.inputs(seed)


# ---------------------------------------------------------------- files

def to_bits(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    if a.dtype == np.bool_:
        return a.view(np.uint8)
    if a.dtype.kind in "fcV" or a.dtype == ml_dtypes.bfloat16:
        return a.view(f"u{a.dtype.itemsize}") if a.dtype.itemsize <= 8 else a.view("u8")
    return a


def type_name(dt: np.dtype) -> str:
    for k, v in NP_TYPES.items():
        if np.dtype(v) == dt:
            return k
    return str(dt)


def from_bits(bits: np.ndarray, ty: str) -> np.ndarray:
    dt = np.dtype(NP_TYPES[ty])
    return bits.view(dt) if bits.dtype != dt else bits


def save(path: Path, arrays: list[np.ndarray], extra: dict | None = None) -> None:
    arrays = [np.asarray(a) for a in arrays]
    bits: dict[str, Any] = {f"a{i}": to_bits(a) for i, a in enumerate(arrays)}
    np.savez(Path(f"{path}.npz"), **bits)
    meta = {"ok": True, "types": [type_name(a.dtype) for a in arrays], **(extra or {})}
    Path(f"{path}.json").write_text(json.dumps(meta))


def load(path: Path) -> tuple[dict, list[np.ndarray]]:
    meta = json.loads(Path(f"{path}.json").read_text())
    if not meta.get("ok"):
        return meta, []
    z = np.load(Path(f"{path}.npz"))
    return meta, [from_bits(z[f"a{i}"], t) for i, t in enumerate(meta["types"])]


def fail(path: Path, msg: str) -> None:
    Path(f"{path}.json").write_text(json.dumps({"ok": False, "error": msg}))


def cmd_gen(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    weights = {k: float(v) for k, _, v in (w.partition("=") for w in args.weights)}
    for seed in range(args.seed, args.seed + args.count):
        text, inputs = generate(seed, weights)
        (out / f"m{seed:05d}.hlo").write_text(text)
        save(out / f"m{seed:05d}.in", inputs)
    return 0


def _modules(d: Path, names: list[str] | None) -> list[Path]:
    files = sorted(d.glob("m*.hlo"))
    return [f for f in files if not names or f.stem in names]


def cmd_xla(args: argparse.Namespace) -> int:
    sys.path.insert(0, "/work/shared/tools")
    import xla_ref  # type: ignore[import-not-found]
    for f in _modules(Path(args.dir), args.names):
        res = f.with_name(f.stem + ".xla")
        if Path(f"{res}.json").exists() and not args.force:
            continue
        try:
            _, inputs = load(f.with_name(f.stem + ".in"))
            module = xla_ref.parse_text(f.read_text(), str(f))
            inputs = xla_ref.check_inputs(inputs, xla_ref.entry_params(module))
            exe, _, _ = xla_ref.compile_module(module, str(f))
            outs, _ = xla_ref.execute(exe, inputs, 1, 1)
            save(res, outs)
        except Exception as e:  # noqa: BLE001 - recorded per module
            fail(res, " ".join(str(e).split())[:400])
    return 0


def _flat(value: object) -> list[np.ndarray]:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flat(v)]
    return [np.asarray(value)]


def cmd_ours(args: argparse.Namespace) -> int:
    import hlotools
    from hlotools import evaluate
    for f in _modules(Path(args.dir), args.names):
        for backend in args.backends.split(","):
            res = f.with_name(f"{f.stem}.{backend}")
            if Path(f"{res}.json").exists() and not args.force:
                continue
            try:
                _, inputs = load(f.with_name(f.stem + ".in"))
                module = hlotools.parse_module(f.read_text(), str(f))
                if backend == "interp":
                    with np.errstate(all="ignore"):
                        outs = _flat(evaluate(module, inputs))
                else:
                    from hlotools.backend.llvm.driver.compile import CompileOptions, compile_cached
                    compiled = compile_cached(module, CompileOptions(preset="O2"), compile_cache=None)
                    outs = _flat(compiled(inputs))
                save(res, outs)
            except Exception as e:  # noqa: BLE001 - recorded per module
                msg = f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"
                if args.traceback:
                    traceback.print_exc()
                fail(res, msg)
    return 0


# ---------------------------------------------------------------- comparing

def compare(got: np.ndarray, want: np.ndarray) -> str:
    """'exact' (same bits), 'nan' (same but for NaN payloads), 'close' (rtol 1e-5, atol 1e-6,
    NaN and inf positions alike), or 'differ'."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return "differ"
    if np.array_equal(to_bits(got), to_bits(want)):
        return "exact"
    if got.dtype.kind not in "fc" and got.dtype != ml_dtypes.bfloat16:
        return "differ"
    g = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64)
    w = want.astype(g.dtype)
    parts = [(g.real, w.real), (g.imag, w.imag)] if g.dtype.kind == "c" else [(g, w)]
    level = "nan"
    for x, y in parts:
        nx, ny = np.isnan(x), np.isnan(y)
        if not np.array_equal(nx, ny):
            return "differ"
        x, y = np.where(nx, 0, x), np.where(ny, 0, y)
        if not np.array_equal(to_bits(x), to_bits(y)):
            level = "close"
            fin = np.isfinite(x) & np.isfinite(y)
            if not np.array_equal(x[~fin], y[~fin]):
                return "differ"
            with np.errstate(all="ignore"):
                if not np.all(np.abs(x[fin] - y[fin]) <= 1e-6 + 1e-5 * np.abs(y[fin])):
                    return "differ"
    return level


def module_result(d: Path, stem: str, backend: str) -> tuple[str, str]:
    xm, xo = load(d / f"{stem}.xla")
    if not xm.get("ok"):
        return "xla-error", xm["error"]
    om, oo = load(d / f"{stem}.{backend}")
    if not om.get("ok"):
        return "error", om["error"]
    if len(oo) != len(xo):
        return "differ", f"{len(oo)} leaves, XLA {len(xo)}"
    order = ["exact", "nan", "close", "differ"]
    worst, where = "exact", ""
    for i, (g, w) in enumerate(zip(oo, xo)):
        c = compare(g, w)
        if order.index(c) > order.index(worst):
            worst, where = c, f"leaf {i}"
    return worst, where


def cmd_report(args: argparse.Namespace) -> int:
    d = Path(args.dir)
    stems = [f.stem for f in _modules(d, args.names)]
    summary: dict = {}
    for backend in args.backends.split(","):
        counts: dict[str, int] = {}
        rows = []
        for s in stems:
            if not (d / f"{s}.xla.json").exists() or not (d / f"{s}.{backend}.json").exists():
                continue
            res, why = module_result(d, s, backend)
            counts[res] = counts.get(res, 0) + 1
            if res not in ("exact", "nan", "xla-error") and args.verbose:
                rows.append(f"  {s} {backend} {res} {why}")
        valid = sum(v for k, v in counts.items() if k != "xla-error")
        exact = counts.get("exact", 0)
        nan = exact + counts.get("nan", 0)
        close = nan + counts.get("close", 0)
        summary[backend] = counts
        print(f"{backend}: {valid} modules XLA runs ({counts.get('xla-error', 0)} it refuses); "
              f"exact {exact} ({100 * exact / max(valid, 1):.1f}%), same but NaN payloads {nan} "
              f"({100 * nan / max(valid, 1):.1f}%), within rtol 1e-5/atol 1e-6 {close} "
              f"({100 * close / max(valid, 1):.1f}%), errors {counts.get('error', 0)}")
        print("\n".join(rows))
    return 0


# ---------------------------------------------------------------- blaming one instruction

_LINE = re.compile(r"^  (?:ROOT )?(\S+) = (\(.*?\)|\S+) ([a-z][a-z0-9-]*)\((.*?)\)(.*)$")


def _entry_lines(text: str) -> tuple[str, list[str]]:
    head, _, body = text.partition("ENTRY main {\n")
    return head, [ln for ln in body.split("\n") if ln.startswith("  ")]


def _parsed(line: str) -> tuple[str, str, str, list[str]] | None:
    m = _LINE.match(line)
    if m is None:
        return None
    name, shp, op, args, _ = m.groups()
    ops = [] if op in ("constant", "parameter", "iota") else [a.strip() for a in args.split(",") if a.strip()]
    return name, shp, op, ops


def cmd_trace(args: argparse.Namespace) -> int:
    """DIR/trace/NAME.hlo: the module with every array value of its entry in the root tuple."""
    d = Path(args.dir)
    out = d / "trace"
    out.mkdir(exist_ok=True)
    for f in _modules(d, args.names):
        head, lines = _entry_lines(f.read_text())
        body = [ln for ln in lines if not ln.lstrip().startswith("ROOT")]
        vals = [p for p in map(_parsed, body) if p and not p[1].startswith("(") and p[2] != "parameter"]
        root = (f"  ROOT out = ({', '.join(v[1] for v in vals)}) tuple({', '.join(v[0] for v in vals)})")
        (out / f.name).write_text(head + "ENTRY main {\n" + "\n".join(body + [root]) + "\n}\n")
        for suf in (".in.json", ".in.npz"):
            (out / (f.stem + suf)).write_bytes((d / (f.stem + suf)).read_bytes())
    return 0


def cmd_blame(args: argparse.Namespace) -> int:
    """For each traced module that differs: DIR/min/NAME.hlo, the first instruction whose value
    differs from XLA's while its operands agree, alone, on XLA's operand values."""
    d = Path(args.dir)
    tr, out = d / "trace", d / "min"
    out.mkdir(exist_ok=True)
    for f in _modules(tr, args.names):
        xm, xo = load(tr / f"{f.stem}.xla")
        if not xm.get("ok"):
            continue
        head, lines = _entry_lines(f.read_text())
        parsed = [p for p in map(_parsed, lines) if p]
        by_name = {p[0]: (p, ln) for p, ln in zip(map(_parsed, lines), lines) if p}
        _, pin = load(d / f"{f.stem}.in")
        known = {p[0]: pin[p_i] for p_i, p in enumerate(x for x in parsed if x[2] == "parameter")}
        vals = [p for p in parsed if not p[1].startswith("(") and p[2] != "parameter" and p[0] != "out"]
        for i, v in enumerate(vals):
            known[v[0]] = xo[i]
        for backend in args.backends.split(","):
            om, oo = load(tr / f"{f.stem}.{backend}")
            if not om.get("ok") or len(oo) != len(xo):
                continue
            bad = next((i for i, (g, w) in enumerate(zip(oo, xo)) if compare(g, w) not in ("exact", "nan")), None)
            if bad is None:
                continue
            first = vals[bad]
            if first[2] == "get-tuple-element":
                first = by_name[first[3][0]][0]
            keep, params, todo = [], [], [first[0]]
            while todo:
                n = todo.pop()
                p, ln = by_name[n]
                if n != first[0] and not p[1].startswith("(") and p[2] != "constant":
                    if n not in params:
                        params.append(n)
                    continue
                keep.append(ln.replace("ROOT ", ""))
                todo.extend(o for o in p[3] if o in by_name)
            plines = [f"  {n} = {by_name[n][0][1]} parameter({i})" for i, n in enumerate(params)]
            body = plines + keep[::-1]
            body[-1] = body[-1].replace(f"  {first[0]} =", f"  ROOT {first[0]} =", 1)
            stem = f"m{f.stem[1:]}_{backend}"
            (out / f"{stem}.hlo").write_text(head + "ENTRY main {\n" + "\n".join(body) + "\n}\n")
            save(out / f"{stem}.in", [known[n] for n in params])
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--count", type=int, default=100)
    g.add_argument("--out", required=True)
    g.add_argument("--weight", dest="weights", action="append", default=[],
                   help="OP=W: another weight for an op kind (e.g. convolution=0)")
    for name in ("xla", "ours", "report", "trace", "blame"):
        p = sub.add_parser(name)
        p.add_argument("dir")
        p.add_argument("names", nargs="*")
        p.add_argument("--force", action="store_true")
        p.add_argument("--backends", default="interp,llvm")
        p.add_argument("--traceback", action="store_true")
        p.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    return {"gen": cmd_gen, "xla": cmd_xla, "ours": cmd_ours, "report": cmd_report, "trace": cmd_trace, "blame": cmd_blame}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
