"""The lowering table (registry.TABLE), filled by one module per op family."""
from hlotools.torch.lowering import (  # noqa: F401  (register)
    distance,
    elementwise,
    indexing,
    linalg,
    nn,
    pooling,
    reduction,
    refused,
    shape,
    sorting,
    spectral,
)
from hlotools.torch.lowering.registry import REFUSED, TABLE, Lowering, lowers, refusal

__all__ = ["REFUSED", "TABLE", "Lowering", "lowers", "refusal"]
