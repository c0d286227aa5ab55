"""The lowering table (registry.TABLE), filled by one module per op family."""
from hlotools.torch.lowering import elementwise, indexing, linalg, nn, pooling, reduction, refused, shape, sorting  # noqa: F401  (register)
from hlotools.torch.lowering.registry import REFUSED, TABLE, Lowering, lowers, refusal

__all__ = ["REFUSED", "TABLE", "Lowering", "lowers", "refusal"]
