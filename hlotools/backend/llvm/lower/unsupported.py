"""Opcodes the LLVM backend refuses, each with its reason (a compile-time
HloUnsupportedError naming the instruction). tests/backend/llvm/test_opcodes.py checks that every
opcode of hlotools/ir/opcodes.py is either implemented or listed here."""
from __future__ import annotations

from hlotools.backend.llvm.codegen.registry import unsupported

unsupported("not implemented in the LLVM backend yet (the interpreter runs it)",
            "ragged-dot", "scaled-dot")
unsupported("dynamic sizes are the dynamic padder's (compile_module and hlo-run run it first, so the "
            "padded static module is what compiles)",
            "dynamic-reshape", "set-dimension-size", "get-dimension-size")
unsupported("ragged all-to-all offsets/sizes are not modelled for a single device (nor in the interpreter)",
            "ragged-all-to-all")
unsupported("host transfers (infeed/outfeed/send/recv) have no host runtime in the LLVM backend",
            "infeed", "outfeed", "send", "send-done", "recv", "recv-done")
