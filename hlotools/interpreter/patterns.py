"""The numpy side of the recognised computations (hlotools/ir/patterns.py): the ufunc a
recognised combiner folds with."""
from __future__ import annotations

import numpy as np

from hlotools.ir.opcodes import REDUCERS


def combiner_ufunc(name: str, dtype: np.dtype) -> np.ufunc:
    """The ufunc that folds like the combiner `name` on `dtype` (the table's reducer: and/or
    are bitwise on integers, logical on pred)."""
    r = REDUCERS[name]
    return getattr(np, r.pred_ufunc if np.dtype(dtype) == np.bool_ else r.ufunc)  # type: ignore[no-any-return]
