"""The decomposition table every ATen graph is traced with: core ATen's, torch's own for a
few core ops it leaves whole (grid_sampler_2d), plus our own for the fused inference fast
paths of nn.TransformerEncoderLayer and nn.MultiheadAttention.

In eval mode without gradients those modules call one fused kernel
(aten._transformer_encoder_layer_fwd, aten._native_multi_head_attention) that Dynamo and
torch.export record as it is. Writing them out here as linear / softmax / layer_norm (which
the core table then lowers further) keeps them off the eager fallback wherever a graph comes
from, without a lowering that restates what those ops already lower to."""
from __future__ import annotations

import functools
import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor

aten = torch.ops.aten


# core ATen ops outside the core table that torch's own decompositions write in ops we lower
TORCH_DECOMPOSED = (aten.grid_sampler_2d.default,)


@functools.cache
def table() -> dict[Any, Any]:
    from torch._decomp import core_aten_decompositions, decomposition_table
    found = dict(core_aten_decompositions())
    for op in TORCH_DECOMPOSED:
        found[op] = decomposition_table[op]
    found[aten._native_multi_head_attention.default] = native_multi_head_attention
    found[aten._transformer_encoder_layer_fwd.default] = transformer_encoder_layer_fwd
    return found


def _mask4(mask: Tensor, mask_type: int | None, batch: int, target: int, source: int) -> Tensor:
    """The fast path's mask as a boolean (batch, heads | 1, target, source) tensor. The kernels
    read any nonzero entry as "masked" (their masked softmax converts a float mask to bool;
    the module hands them its canonical 0 / -inf masks). Type 1 is a key-padding mask
    (batch, source), type 0 a (target, source) mask, type 2 already 4-d."""
    masked = mask if mask.dtype == torch.bool else mask != 0
    if mask_type == 1:
        return masked.view(batch, 1, 1, source)
    if masked.dim() == 2:
        return masked.view(1, 1, target, source)
    return masked if masked.dim() == 4 else masked.view(batch, -1, target, source)


def _attention(query: Tensor, key: Tensor, value: Tensor, embed_dim: int, heads: int, qkv_weight: Tensor,
               qkv_bias: Tensor, proj_weight: Tensor, proj_bias: Tensor, mask: Tensor | None,
               mask_type: int | None) -> tuple[Tensor, Tensor]:
    """(projected attention output, per-head weights) as the fused CPU kernel computes them:
    q scaled by 1/sqrt(head_dim) before q @ k^T, masked entries -inf before the softmax."""
    batch, target, _ = query.shape
    source = key.shape[1]
    head_dim = embed_dim // heads
    w_q, w_k, w_v = qkv_weight.split(embed_dim)
    b_q, b_k, b_v = qkv_bias.split(embed_dim)

    def heads_of(x: Tensor, w: Tensor, b: Tensor, length: int) -> Tensor:
        return F.linear(x, w, b).view(batch, length, heads, head_dim).transpose(1, 2)
    q = heads_of(query, w_q, b_q, target) * (1.0 / math.sqrt(head_dim))
    k = heads_of(key, w_k, b_k, source)
    v = heads_of(value, w_v, b_v, source)
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(_mask4(mask, mask_type, batch, target, source), float("-inf"))
    weights = torch.softmax(scores, -1)
    context = (weights @ v).transpose(1, 2).reshape(batch, target, embed_dim)
    return F.linear(context, proj_weight, proj_bias), weights


def native_multi_head_attention(query: Tensor, key: Tensor, value: Tensor, embed_dim: int, num_head: int,
                                qkv_weight: Tensor, qkv_bias: Tensor, proj_weight: Tensor, proj_bias: Tensor,
                                mask: Tensor | None = None, need_weights: bool = True,
                                average_attn_weights: bool = True,
                                mask_type: int | None = None) -> tuple[Tensor, Tensor]:
    out, weights = _attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias, proj_weight,
                              proj_bias, mask, mask_type)
    if not need_weights:
        return out, query.new_empty(0)
    return out, weights.mean(1) if average_attn_weights else weights


def transformer_encoder_layer_fwd(src: Tensor, embed_dim: int, num_heads: int, qkv_weight: Tensor,
                                  qkv_bias: Tensor, proj_weight: Tensor, proj_bias: Tensor, use_gelu: bool,
                                  norm_first: bool, eps: float, norm_weight_1: Tensor, norm_bias_1: Tensor,
                                  norm_weight_2: Tensor, norm_bias_2: Tensor, ffn_weight_1: Tensor,
                                  ffn_bias_1: Tensor, ffn_weight_2: Tensor, ffn_bias_2: Tensor,
                                  mask: Tensor | None = None, mask_type: int | None = None) -> Tensor:
    def norm1(x: Tensor) -> Tensor:
        return F.layer_norm(x, (embed_dim,), norm_weight_1, norm_bias_1, eps)

    def norm2(x: Tensor) -> Tensor:
        return F.layer_norm(x, (embed_dim,), norm_weight_2, norm_bias_2, eps)

    def attention(x: Tensor) -> Tensor:
        return _attention(x, x, x, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias,
                          mask, mask_type)[0]

    def feed_forward(x: Tensor) -> Tensor:
        hidden = F.linear(x, ffn_weight_1, ffn_bias_1)
        return F.linear(F.gelu(hidden) if use_gelu else F.relu(hidden), ffn_weight_2, ffn_bias_2)
    if norm_first:
        x = src + attention(norm1(src))
        return x + feed_forward(norm2(x))
    x = norm1(src + attention(src))
    return norm2(x + feed_forward(x))
