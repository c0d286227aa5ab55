"""custom-call targets: what the IR knows about a `custom_call_target` whatever runs it.

Like opcodes.py for opcodes, this is the one place that names targets by family; the interpreter
(hlotools/interpreter/custom_calls.py) and the LLVM backend (backend/llvm/emit_lapack.py,
emit_data.py) key their implementations by these names and read flags through
`backend_config_flag`. The LAPACK names are jaxlib's (jaxlib/cpu/lapack_kernels.cc); flags come
from `backend_config={uplo = 76 : ui8, ...}` (ASCII codes: L=76, U=85, N=78, T=84, C=67).
"""
from __future__ import annotations

import re

from hlotools.ir.instruction import Instruction

# Targets that only annotate their operand (sharding, placement, layout): identity on one device.
IDENTITY_TARGETS = ("Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape", "MoveToHost",
                    "MoveToDevice", "LayoutConstraint", "annotate_device_placement")
# XLA's IsAllowedAsyncIntermediaryCustomCall: custom-calls that only carry sharding metadata.
METADATA_TARGETS = frozenset(["Sharding", "LocalToGlobalShape", "GlobalToLocalShape",
                              "xla.sdy.LocalToGlobalShape", "xla.sdy.GlobalToLocalShape",
                              "xla.sdy.FuncResultSharding"])
_BACKEND_CONFIG_VALUE = re.compile(r"(\w+)\s*=\s*(-?\d+)")


def lapack_targets(op: str, types: str = "sdcz") -> list[str]:
    """lapack_{s,d,c,z}OP and its _ffi spelling, per element type letter in `types` (complex
    names swap sy->he, or->un, as LAPACK's do)."""
    out = []
    for p in types:
        name = op
        if p in "cz":
            name = name.replace("syevd", "heevd").replace("orgqr", "ungqr")
        out += [f"lapack_{p}{name}", f"lapack_{p}{name}_ffi"]
    return out


def backend_config_values(inst: Instruction) -> dict[str, int]:
    """`{uplo = 76 : ui8, mode = 65 : ui8}` -> {'uplo': 76, 'mode': 65}."""
    text = str(inst.attrs.get("backend_config", ""))
    return {k: int(v) for k, v in _BACKEND_CONFIG_VALUE.findall(text)}


def backend_config_flag(inst: Instruction, name: str, default: str) -> str:
    """A one-character flag of the backend_config (`uplo = 76` -> 'L'), `default` when absent."""
    code = backend_config_values(inst).get(name)
    return chr(code) if code is not None else default
