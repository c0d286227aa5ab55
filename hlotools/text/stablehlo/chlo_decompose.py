"""chlo ops without an HLO opcode, decomposed into elementwise HLO as XLA's chlo legalization does."""
from __future__ import annotations
