#!/usr/bin/env python3
"""Real layered models from JAX at any depth, for the compile-time and run-time benchmarks.

Run with the reference venv (../shared/tools/setup-ref.sh): jax is never a dependency of
hlotools. For each model and depth it writes into OUT

    NAME.hlo          the module as JAX emits it (jit(f).lower(...).as_text(dialect="hlo"))
    NAME.inputs.npz   deterministic inputs in0, in1, ... in entry parameter order

Models (the layers are a Python loop, so the HLO repeats itself as real models' do):
    gpt_fwd_L{n}     GPT-style forward: n pre-norm transformer blocks (causal attention, GELU MLP)
    gpt_train_L{n}   the same as a training step: value_and_grad of an MSE loss, then SGD
    cnn_train_L{n}   a conv net training step: n conv+relu layers, a pooled dense head
    rnn_scan_L{n}    an LSTM over a sequence (lax.scan), n stacked layers

usage: models.py OUT [--depths 2,8,24] [--only gpt_train,...]
"""
from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

B, T, D, HEADS, HIDDEN = 2, 32, 64, 4, 256


def _f32(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _block_params(rng):
    p = {n: _f32(rng, D, D, scale=D ** -0.5) for n in ("wq", "wk", "wv", "wo")}
    p["w1"], p["b1"] = _f32(rng, D, HIDDEN, scale=D ** -0.5), _f32(rng, HIDDEN, scale=0.02)
    p["w2"], p["b2"] = _f32(rng, HIDDEN, D, scale=HIDDEN ** -0.5), _f32(rng, D, scale=0.02)
    for n in ("g1", "g2"):
        p[n] = 1 + _f32(rng, D, scale=0.1)
    for n in ("be1", "be2"):
        p[n] = _f32(rng, D, scale=0.1)
    return p


def _gpt(depth):
    import jax
    import jax.numpy as jnp

    def layernorm(x, g, b):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) * jax.lax.rsqrt(v + 1e-5) * g + b

    def block(x, p):
        hd = D // HEADS
        h = layernorm(x, p["g1"], p["be1"])
        q, k, v = ((h @ p[w]).reshape(B, T, HEADS, hd) for w in ("wq", "wk", "wv"))
        s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * np.float32(hd ** -0.5)
        s = jnp.where(jnp.tril(jnp.ones((T, T), bool)), s, -1e9)
        o = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, axis=-1), v).reshape(B, T, D)
        x = x + o @ p["wo"]
        h = layernorm(x, p["g2"], p["be2"])
        return x + jax.nn.gelu(h @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]

    def forward(params, x):
        for p in params:
            x = block(x, p)
        return x
    return forward


def gpt_fwd(rng, depth):
    params = [_block_params(rng) for _ in range(depth)]
    return _gpt(depth), (params, _f32(rng, B, T, D))


def gpt_train(rng, depth):
    import jax
    import jax.numpy as jnp
    forward = _gpt(depth)

    def train_step(params, x, y):
        loss, g = jax.value_and_grad(lambda p: jnp.mean((forward(p, x) - y) ** 2))(params)
        return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, g), loss
    params = [_block_params(rng) for _ in range(depth)]
    return train_step, (params, _f32(rng, B, T, D), _f32(rng, B, T, D))


def cnn_train(rng, depth):
    import jax
    import jax.numpy as jnp
    from jax import lax
    C = 16
    dn = ("NHWC", "HWIO", "NHWC")

    def train_step(params, x, y):
        def loss_fn(p):
            h = x
            for k in p["convs"]:
                h = jax.nn.relu(lax.conv_general_dilated(h, k, (1, 1), "SAME", dimension_numbers=dn))
            h = h.mean(axis=(1, 2))
            return jnp.mean((h @ p["head"] - y) ** 2)
        loss, g = jax.value_and_grad(loss_fn)(params)
        return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, g), loss
    convs = [_f32(rng, 3, 3, 3 if i == 0 else C, C, scale=0.2) for i in range(depth)]
    params = {"convs": convs, "head": _f32(rng, C, 10, scale=0.25)}
    return train_step, (params, _f32(rng, 4, 16, 16, 3), _f32(rng, 4, 10))


def rnn_scan(rng, depth):
    import jax
    import jax.numpy as jnp
    H = 64

    def forward(params, xs):
        for p in params:
            def cell(carry, x, p=p):
                h, c = carry
                z = x @ p["wx"] + h @ p["wh"] + p["b"]
                i, f, o, u = jnp.split(z, 4, axis=-1)
                c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(u)
                h = jax.nn.sigmoid(o) * jnp.tanh(c)
                return (h, c), h
            zeros = jnp.zeros((xs.shape[1], H), jnp.float32)
            _, xs = jax.lax.scan(cell, (zeros, zeros), xs)
        return xs
    params = [{"wx": _f32(rng, H, 4 * H, scale=H ** -0.5), "wh": _f32(rng, H, 4 * H, scale=H ** -0.5),
               "b": _f32(rng, 4 * H, scale=0.1)} for _ in range(depth)]
    return forward, (params, _f32(rng, 64, 8, H))


MODELS = {"gpt_fwd": gpt_fwd, "gpt_train": gpt_train, "cnn_train": cnn_train, "rnn_scan": rnn_scan}


def write(out: str, name: str, depth: int) -> str:
    import jax
    rng = np.random.default_rng(depth)
    f, args = MODELS[name](rng, depth)
    text = jax.jit(f).lower(*args).as_text(dialect="hlo")
    stem = os.path.join(out, f"{name}_L{depth}")
    with open(stem + ".hlo", "w") as fh:
        fh.write(text)
    leaves = jax.tree_util.tree_leaves(args)
    np.savez(stem + ".inputs.npz", **{f"in{i}": np.asarray(a) for i, a in enumerate(leaves)})
    return stem + ".hlo"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--depths", default="2,8,24")
    ap.add_argument("--only", default=",".join(MODELS))
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    for name in a.only.split(","):
        for depth in (int(d) for d in a.depths.split(",")):
            print(write(a.out, name, depth))
    return 0


if __name__ == "__main__":
    sys.exit(main())
