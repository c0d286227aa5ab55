#!/usr/bin/env python3
"""gen_stablehlo: the JAX corpus programs (and a few more) as StableHLO text, next to their HLO.

Run with the reference venv (../shared/tools/setup-ref.sh); never a hlotools dependency.
For each program NAME it writes into OUT (default testdata/stablehlo):
  NAME.mlir       jax.jit(f).lower(*args).as_text()               (StableHLO, pretty form)
  NAME.hlo        the same lowering's as_text(dialect="hlo")       (XLA's MLIR->HLO translation)
and, for the extra programs (not in the shared corpus), NAME.inputs.npz / NAME.expected.npz
(XLA CPU outputs). A few programs are also written in MLIR's generic form (NAME.generic.mlir)
and with locations (NAME.loc.mlir). Programs whose StableHLO exceeds --max-bytes are skipped,
so the folder stays small enough to commit.

usage: gen_stablehlo.py [OUT] [--only a,b] [--max-bytes N]
"""
from __future__ import annotations

import argparse
import os
import sys
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
# Eight host devices, for the program lowered with a device mesh (x_sdy_mesh); the others jit
# onto one device as before. gen_corpus keeps these flags and adds its own.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()
SHARED_TOOLS = os.environ.get("HLOTOOLS_SHARED_TOOLS", "/work/shared/tools")
sys.path.insert(0, SHARED_TOOLS)

import gen_corpus  # noqa: E402  (registers the corpus programs; sets XLA dump flags, harmless)
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

EXTRA: dict = {}
GENERIC = ("softmax", "cond_switch", "x_ops_misc", "x_composite")
WITH_LOC = ("mlp2_relu", "x_ops_misc")


def extra(name):
    def deco(build):
        EXTRA[name] = build
        return build
    return deco


def f32(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


@extra("x_chlo_special")
def _(rng):
    def x_chlo_special(x):
        p = jnp.abs(x) + 0.5
        return (lax.erf_inv(jnp.tanh(x) * 0.9), lax.lgamma(p), lax.digamma(p), jnp.arcsin(jnp.tanh(x)),
                jnp.arccos(jnp.tanh(x)), jnp.arctan(x), jnp.sinh(x), jnp.cosh(x), jnp.arcsinh(x),
                jnp.arccosh(p + 1), jnp.arctanh(jnp.tanh(x) * 0.9), lax.erf(x), lax.erfc(x), jnp.tan(x),
                lax.igamma(p, p + 1), jnp.nextafter(x, p))
    return x_chlo_special, [f32(rng, 4, 8)]


@extra("x_chlo_zeta")
def _(rng):
    def x_chlo_zeta(s, q, n, b):  # zeta's and polygamma's domain rules and poles, bessel_i1e across its split
        return lax.zeta(s, q), lax.polygamma(n, q), lax.bessel_i1e(b), jnp.square(b)
    s, q = np.meshgrid(np.array([1.0, 0.5, 2.0, 3.0, 4.0, 2.5, 1.5, 6.0], np.float32),
                       np.array([-2.0, -1.5, 0.0, 1e-3, 0.5, 1.0, 3.7, 20.0], np.float32))
    n = np.broadcast_to(np.array([0.0, 1.0, 2.0, 3.0, 4.0, -1.0, 1.5, 6.0], np.float32), (8, 8)).copy()
    b = np.concatenate([np.linspace(-30, 30, 55), [0.0, 1e-30, 8.0, 19.9, 20.0, 20.5, 100.0, 1e4, np.inf]])
    return x_chlo_zeta, [s, q, n, b.astype(np.float32)]


@extra("x_sdy_mesh")
def _(rng):
    """Shardy shardings on a 2x4 mesh (arguments, a constraint, results) and named results."""
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P
    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)

    def x_sdy_mesh(a, b):
        c = lax.with_sharding_constraint(a @ b, NamedSharding(mesh, P(None, "y")))
        return {"act": jnp.tanh(c), "total": c.sum()}
    shard = {"in_shardings": (NamedSharding(mesh, P("x", None)), NamedSharding(mesh, P(None, ("y", "x")))),
             "out_shardings": {"act": NamedSharding(mesh, P("y")), "total": NamedSharding(mesh, P())}}
    return x_sdy_mesh, [f32(rng, 8, 16), f32(rng, 16, 8)], shard


@extra("x_composite")
def _(rng):
    """stablehlo.composite (lax.composite), with and without composite attributes."""
    from functools import partial

    def x_composite(x):
        @partial(lax.composite, name="hlotools.softplus")
        def softplus(x, beta=2.0):
            return jnp.log1p(jnp.exp(x * beta)) / beta
        return softplus(x) + 1.0, softplus(x * 2, beta=3.0)
    return x_composite, [f32(rng, 4, 8)]


@extra("x_chlo_edges")
def _(rng):
    """The special functions at their poles, signs, infinities and domain ends."""
    def x_chlo_edges(x, u):
        return (lax.lgamma(x), lax.digamma(x), lax.erf_inv(u), lax.nextafter(x, u), jnp.arcsin(u),
                jnp.arccosh(x), jnp.arctanh(u), jnp.sinh(x), jnp.tan(x), lax.erfc(x))
    x = np.array([-3.0, -2.5, -1.0, -0.5, 0.0, -0.0, 1e-3, 0.5, 1.0, 2.0, 7.5, 30.0, 200.0, np.inf, -np.inf, np.nan],
                 np.float32)
    u = np.array([-1.0, 1.0, -0.999, 0.999, 0.0, -0.0, 1e-4, 0.5, -0.5, 1.5, -2.0, 0.25, 0.9, np.inf, 0.0, np.nan],
                 np.float32)
    return x_chlo_edges, [x, u]


@extra("x_topk_case")
def _(rng):
    def x_topk_case(x, i):
        v, idx = lax.top_k(x, 3)
        s = lax.switch(i, [lambda a: a * 2, lambda a: a - 1, lambda a: jnp.exp(a)], v)
        return s, idx, lax.cumsum(x, axis=1, reverse=True), lax.cumlogsumexp(x, axis=0)
    return x_topk_case, [f32(rng, 6, 10), np.int32(2)]


@extra("x_ops_misc")
def _(rng):
    def x_ops_misc(x, y, k):
        z = lax.complex(x, y)
        return (lax.atan2(x, y), lax.nextafter(x, y), lax.is_finite(x), lax.exp2(x),
                lax.reduce_precision(x, 8, 7), lax.expand_dims(x, (0,)), lax.rev(x, (1,)),
                lax.sort(x, dimension=0, is_stable=True), jnp.abs(z), lax.real(z), lax.imag(z),
                lax.shift_right_arithmetic(k, 2), lax.shift_left(k, 1), lax.population_count(k),
                lax.clz(k), lax.bitwise_not(k), lax.convert_element_type(k, jnp.float32),
                lax.select_n(k % 3, x, y, x * y), jnp.argmax(x, axis=0),
                lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "SAME"),
                lax.dot_general(x, y, (((1,), (1,)), ((), ())), precision=lax.Precision.HIGHEST),
                lax.optimization_barrier((x, y))[0], lax.cbrt(x), lax.logistic(x),
                jnp.round(x), lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), lax.sign(x),
                lax.clamp(-1.0, x, 1.0), lax.rem(x, y), lax.pow(jnp.abs(x), y))
    return x_ops_misc, [f32(rng, 4, 6), f32(rng, 4, 6), rng.integers(-50, 50, (4, 6)).astype(np.int32)]


@extra("x_scatter_gather")
def _(rng):
    def x_scatter_gather(x, idx, u):
        g = x[idx]
        s = x.at[idx].add(u)
        m = x.at[idx].min(u)
        return g, s, m, jnp.take_along_axis(x[:4], idx[:, None] % 6, axis=1), x.at[::2].set(0.0)
    return x_scatter_gather, [f32(rng, 10, 6), rng.integers(0, 10, 4).astype(np.int32), f32(rng, 4, 6)]


@extra("x_while_int64")
def _(rng):
    def x_while_int64(x, n):
        def body(c):
            i, a = c
            return i + 1, a * 1.5 + jnp.float64(i)
        i, a = lax.while_loop(lambda c: c[0] < n, body, (jnp.int64(0), x))
        return i, a, jnp.cumsum(x.astype(jnp.int64))
    return x_while_int64, [rng.standard_normal(5), np.int64(7)]


EXPORTED: dict = {}  # written from jax.export (with its locations) for another platform; outputs from the CPU


def exported(name, platform):
    def deco(build):
        EXPORTED[name] = (build, platform)
        return build
    return deco


@exported("x_ragged_dot", "tpu")
def _(rng):
    """lax.ragged_dot as jax.export writes it for TPU: a composite "chlo.ragged_dot" (XLA: ragged-dot)."""
    def x_ragged_dot(x, w, g):
        return lax.ragged_dot(x, w, g), lax.ragged_dot(x * 2, w, g[::-1])
    return x_ragged_dot, [f32(rng, 7, 4), f32(rng, 3, 4, 5), np.array([2, 0, 4], np.int32)]


def write_exported(out, name, fn, args, platform):
    from jax._src.lib import _jax
    text = jax.export.export(jax.jit(fn), platforms=[platform])(*args).mlir_module()
    text = text.replace(os.getcwd() + "/", "").replace(os.path.dirname(os.path.abspath(__file__)) + "/", "")
    with open(os.path.join(out, f"{name}.mlir"), "w") as f:
        f.write(text)
    hlo = _jax.mlir.mlir_module_to_xla_computation(text, use_tuple_args=False, return_tuple=False).as_hlo_text()
    with open(os.path.join(out, f"{name}.hlo"), "w") as f:
        f.write(hlo)
    outs = [np.asarray(a) for a in jax.tree_util.tree_leaves(jax.jit(fn)(*args))]
    np.savez(os.path.join(out, f"{name}.inputs.npz"), **{f"in{i}": a for i, a in enumerate(args)})
    np.savez(os.path.join(out, f"{name}.expected.npz"), **{f"out{i}": a for i, a in enumerate(outs)})
    return len(text)


def lower(fn, args, jit_options=None):
    return jax.jit(fn, keep_unused=True, **(jit_options or {})).lower(*args)


def write(out, name, lowered, inputs=None, fn=None, args=None):
    text = lowered.as_text()
    with open(os.path.join(out, f"{name}.mlir"), "w") as f:
        f.write(text)
    with open(os.path.join(out, f"{name}.hlo"), "w") as f:
        f.write(lowered.as_text(dialect="hlo"))
    if name in GENERIC:
        asm = lowered.compiler_ir().operation.get_asm(print_generic_op_form=True, large_elements_limit=None)
        with open(os.path.join(out, f"{name}.generic.mlir"), "w") as f:
            f.write(asm)
    if name in WITH_LOC:
        with open(os.path.join(out, f"{name}.loc.mlir"), "w") as f:
            f.write(lowered.as_text(debug_info=True).replace(os.getcwd() + "/", "").replace(SHARED_TOOLS + "/", ""))
    if fn is not None:
        leaves = [np.asarray(a) for a in jax.tree_util.tree_leaves(args)]
        outs = [np.asarray(a) for a in jax.tree_util.tree_leaves(lowered.compile()(*args))]
        np.savez(os.path.join(out, f"{name}.inputs.npz"), **{f"in{i}": a for i, a in enumerate(leaves)})
        np.savez(os.path.join(out, f"{name}.expected.npz"), **{f"out{i}": a for i, a in enumerate(outs)})
    return len(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "testdata", "stablehlo"))
    ap.add_argument("--only", default="")
    ap.add_argument("--max-bytes", type=int, default=60_000)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    jax.config.update("jax_enable_x64", False)
    for name, (build, _big, x64, _tags) in sorted(gen_corpus.MODELS.items()):
        if only and name not in only:
            continue
        with jax.enable_x64(bool(x64)):
            rng = np.random.default_rng([0, zlib.crc32(name.encode())])
            fn, fargs = build(rng)
            lowered = lower(fn, fargs)
            if len(lowered.as_text()) > args.max_bytes:
                print(f"skip {name}: StableHLO over {args.max_bytes} bytes")
                continue
            print(name, write(args.out, name, lowered))
    for name, build in sorted(EXTRA.items()):
        if only and name not in only:
            continue
        with jax.enable_x64(name.endswith("int64")):
            rng = np.random.default_rng([0, zlib.crc32(name.encode())])
            fn, fargs, *jit_options = build(rng)
            print(name, write(args.out, name, lower(fn, fargs, *jit_options), fn=fn, args=fargs))
    for name, (build, platform) in sorted(EXPORTED.items()):
        if only and name not in only:
            continue
        rng = np.random.default_rng([0, zlib.crc32(name.encode())])
        fn, fargs = build(rng)
        print(name, write_exported(args.out, name, fn, fargs, platform))
    return 0


if __name__ == "__main__":
    sys.exit(main())
