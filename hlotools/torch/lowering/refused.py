"""Core ATen ops no lowering takes, each with why: they run eagerly (the partitioner's
reason, the fallback warning's), not silently and never approximated."""
from __future__ import annotations

import torch

from hlotools.torch.lowering.registry import refuses

aten = torch.ops.aten

refuses("random numbers (HLO's rng-bit-generator cannot draw torch's generator's bits)",
        aten.rand.default, aten.randn.default, aten.randperm.default, aten.rand_like.default,
        aten.randn_like.default, aten.native_dropout.default, aten.bernoulli.p)
refuses("a data-dependent result size", aten.nonzero.default)
refuses("a tensor's value read as a Python number (.item()): the host needs it", aten._local_scalar_dense.default)
refuses("updates its running statistics in place (functionalised graphs carry "
        "_native_batch_norm_legit_functional)", aten._native_batch_norm_legit.default)
refuses("an out= variant (functionalised graphs carry atan2.default)", aten.atan2.out)
