"""Small models the front-end tests compile (per-model tests, export, the dtype matrix): each
is what its name says at a size that compiles in about a second."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class MLP(nn.Module):
    def __init__(self, d_in: int = 8, hidden: int = 16, d_out: int = 4) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, d_out)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc2(F.relu(self.fc1(x)))


class CNN(nn.Module):
    """conv-bn-relu-pool twice (a max and an average pool) and a linear head."""

    def __init__(self, classes: int = 5) -> None:
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4)
        self.conv2, self.bn2 = nn.Conv2d(4, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.fc = nn.Linear(8 * 2 * 2, classes)
        for bn in (self.bn1, self.bn2):  # running statistics that are not the identity
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x: Tensor) -> Tensor:
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.avg_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(x.flatten(1))


class RMSNorm(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.rand(d) + 0.5)

    def forward(self, x: Tensor) -> Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


def rotate(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    """Rotary position embedding (the half-split form LLaMA uses)."""
    half = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin


class LlamaBlock(nn.Module):
    """RMSNorm, rotary q/k, causal SDPA, SwiGLU feed-forward, residuals."""

    def __init__(self, d: int = 16, heads: int = 2, ffn: int = 32) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = RMSNorm(d), RMSNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, d, bias=False)
        self.gate, self.up = nn.Linear(d, ffn, bias=False), nn.Linear(d, ffn, bias=False)
        self.down = nn.Linear(ffn, d, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        b, t, d = x.shape
        hd = d // self.heads
        inv = 10000.0 ** (-torch.arange(0, hd, 2, dtype=torch.float32) / hd)
        angles = torch.arange(t, dtype=torch.float32)[:, None] * inv[None, :]
        angles = torch.cat([angles, angles], -1)
        cos, sin = angles.cos(), angles.sin()
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, hd).permute(2, 0, 3, 1, 4)
        attended = F.scaled_dot_product_attention(rotate(q, cos, sin), rotate(k, cos, sin), v, is_causal=True)
        x = x + self.out(attended.transpose(1, 2).reshape(b, t, d))
        y = self.norm2(x)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


class Embedder(nn.Module):
    def __init__(self, vocabulary: int = 20, d: int = 8) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocabulary, d)
        self.fc = nn.Linear(d, 3)

    def forward(self, tokens: Tensor) -> Tensor:
        return self.fc(self.embedding(tokens).mean(1))


class RecurrentCells(nn.Module):
    """A GRU cell feeding an LSTM cell, unrolled over the sequence (time-major input)."""

    def __init__(self, d_in: int = 4, gru: int = 6, lstm: int = 5) -> None:
        super().__init__()
        self.gru, self.lstm = nn.GRUCell(d_in, gru), nn.LSTMCell(gru, lstm)

    def forward(self, x: Tensor) -> Tensor:
        batch = x.shape[1]
        h = x.new_zeros(batch, self.gru.hidden_size)
        state = (x.new_zeros(batch, self.lstm.hidden_size), x.new_zeros(batch, self.lstm.hidden_size))
        outs = []
        for step in x:
            h = self.gru(step, h)
            state = self.lstm(h, state)
            outs.append(state[0])
        return torch.stack(outs)


class SelfAttention(nn.Module):
    def __init__(self, d: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.attention = nn.MultiheadAttention(d, heads, batch_first=True)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        return self.attention(x, x, x)


class FusedAttention(SelfAttention):
    """nn.MultiheadAttention's eval fast-path kernel called as the module calls it (Dynamo
    traces the module through its Python path; torch.export and scripts may reach the kernel)."""

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        a = self.attention
        return torch._native_multi_head_attention(x, x, x, a.embed_dim, a.num_heads, a.in_proj_weight,
                                                  a.in_proj_bias, a.out_proj.weight, a.out_proj.bias,
                                                  None, True, True, None)


def _encoder() -> nn.Module:
    return nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)


class MaskedEncoder(nn.Module):
    """A pre-norm GELU encoder layer with a causal mask and a key-padding mask (the fused
    eval kernel's other branches and its merged mask)."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True, activation="gelu",
                                                norm_first=True)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(5))

    def forward(self, x: Tensor, padding: Tensor) -> Tensor:
        return self.layer(x, src_mask=self.causal, src_key_padding_mask=padding)


def _padding() -> Tensor:
    return torch.tensor([[0.0] * 5, [0.0, 0.0, 0.0, float("-inf"), float("-inf")]])


def _random(*shape: int) -> Tensor:
    return torch.randn(*shape)


MODELS: dict[str, tuple[Callable[[], nn.Module], Callable[[], list[Any]]]] = {
    "mlp": (MLP, lambda: [_random(4, 8)]),
    "cnn": (CNN, lambda: [_random(2, 3, 8, 8)]),
    "transformer_encoder_layer": (_encoder, lambda: [_random(2, 5, 16)]),
    "transformer_encoder_layer_masked": (MaskedEncoder, lambda: [_random(2, 5, 16), _padding()]),
    "multihead_attention": (SelfAttention, lambda: [_random(2, 5, 16)]),
    "native_multi_head_attention": (FusedAttention, lambda: [_random(2, 5, 16)]),
    "llama_block": (LlamaBlock, lambda: [_random(2, 5, 16)]),
    "embedding": (Embedder, lambda: [torch.randint(0, 20, (3, 4))]),
    "gru_lstm_cells": (RecurrentCells, lambda: [_random(3, 2, 4)]),
}
