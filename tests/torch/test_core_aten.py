"""Every core ATen overload (torch.Tag.core) is accounted for: lowered (the table), removed
by the decomposition table every graph is traced with or by its own CompositeImplicitAutograd
kernel (a traced graph never holds it), a size (its value a SymInt: graph_to_hlo computes
it), or refused with a reason (it runs eagerly, and the fallback warning says why)."""
from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from hlotools.torch.decompositions import table  # noqa: E402
from hlotools.torch.lowering import REFUSED, TABLE  # noqa: E402
from hlotools.torch.partition import unsupported  # noqa: E402
from tests.torch.support import trace  # noqa: E402

aten = torch.ops.aten
# sizes, strides and offsets: graph_to_hlo reads a node with a SymInt value as a size
SIZES = {aten.sym_size.int, aten.sym_stride.int, aten.sym_numel.default, aten.sym_storage_offset.default}
# core ops with no lowering yet: each runs eagerly ("no lowering" in the fallback warning)
NOT_LOWERED: set[Any] = set()


def core_overloads() -> list[Any]:
    found = []
    for name in dir(aten):
        packet = getattr(aten, name, None)
        if isinstance(packet, torch._ops.OpOverloadPacket):
            found += [op for op in (getattr(packet, o) for o in packet.overloads()) if torch.Tag.core in op.tags]
    return found


def _composite(op: Any) -> bool:
    """Dispatch runs the op as the ops it is written in (upsample_*.vec, var.dim)."""
    return torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "CompositeImplicitAutograd")


def test_every_core_aten_op_is_lowered_decomposed_a_size_or_refused_with_a_reason() -> None:
    decomposed = set(table()) | {op for op in core_overloads() if _composite(op)} - SIZES
    unaccounted = sorted(str(op) for op in core_overloads()
                         if op not in TABLE and op not in decomposed and op not in SIZES and op not in REFUSED
                         and op not in NOT_LOWERED)
    assert not unaccounted, f"core ATen ops neither lowered, decomposed, sizes nor refused: {unaccounted}"
    stale = sorted(str(op) for op in NOT_LOWERED if op in TABLE or op in decomposed)
    assert not stale, f"lowered or decomposed now: {stale}"


def test_a_refused_op_runs_eagerly_with_its_reason() -> None:
    gm = trace(lambda x: torch.nonzero(x > 0), [torch.randn(5)])
    reasons = {str(n.target): why for n, why in unsupported(gm).items()}
    assert reasons == {"aten.nonzero.default": REFUSED[aten.nonzero.default]}
    assert "data-dependent" in reasons["aten.nonzero.default"]
