"""Scoped no-alias metadata for the loads and stores of each emitted HLO instruction, so
LLVM's loop vectoriser and LICM know that an instruction's buffers are distinct memory.

Without it a fused loop that reads two arena buffers and writes a third (softmax's
exp(x - max)) stays scalar: the buffers are offsets from one arena pointer and the loop
bounds of a parallel chunk are run-time values, so LLVM cannot prove that the store never
hits the loaded row maximum (measured: the loop vectorises once the accesses carry scopes).

Why per instruction (a *group*): buffer assignment reuses memory between instructions
that are not alive together, so "buffer A never aliases buffer B" is only true while one
instruction runs (its operands, results and scratch are all alive then, hence disjoint).
Each group gets its own scopes; accesses of different groups carry unrelated scopes, which
claims nothing about them. Buffers are keyed by their location, not the pointer value:
the parameters and outputs of a function share one scope (the caller may pass the same
memory twice, or donate an input as an output), every arena offset and every constant
global has its own. Untagged memory operations (kernels, memcpy, callees) are unaffected.
"""
from __future__ import annotations

from typing import Any

import llvmlite.ir as ir

EXTERNAL = ("external",)  # parameters and outputs: may alias each other


class AliasScopes:
    """Collects (memory instruction, buffer key) per group; `finish` attaches metadata."""

    def __init__(self, fe: Any) -> None:
        self.fe = fe
        self.groups: list[list[tuple[ir.Instruction, tuple[object, ...]]]] = []

    def begin(self) -> None:
        self.groups.append([])

    def key_of(self, ptr: ir.Value) -> tuple[object, ...] | None:
        if isinstance(ptr, ir.GlobalVariable):
            return ("global", ptr.name)
        for key, value in self.fe._ptr_cache.items():  # pointers are cached per location
            if value is ptr:
                if key[0] in (-1, -2):
                    return EXTERNAL
                if key[0] == -3:
                    return ("arena", key[1])
                if key[0] == -4:  # a constant reached through a kernel's slot
                    return ("constant", key[1])
        return None

    def tag(self, instr: ir.Instruction, base: ir.Value) -> None:
        if not self.groups:
            return
        key = self.key_of(base)
        if key is not None:
            self.groups[-1].append((instr, key))

    def finish(self) -> None:
        module: ir.Module = self.fe.mc.ir
        domain = module.add_metadata([ir.MetaDataString(module, f"hlo.{self.fe.fn.name}")])
        for g, group in enumerate(self.groups):
            keys = list(dict.fromkeys(k for _, k in group))
            if len(keys) < 2:
                continue  # one buffer: nothing to tell
            scopes = {k: module.add_metadata([ir.MetaDataString(module, f"{self.fe.fn.name}.{g}.{k}"), domain])
                      for k in keys}
            own = {k: module.add_metadata([scopes[k]]) for k in keys}
            others = {k: module.add_metadata([scopes[o] for o in keys if o != k]) for k in keys}
            for instr, k in group:
                instr.set_metadata("alias.scope", own[k])
                instr.set_metadata("noalias", others[k])
        self.groups = []


def scopes_of(fe: Any) -> AliasScopes:
    s = getattr(fe, "alias_scopes", None)
    if s is None:
        s = AliasScopes(fe)
        fe.alias_scopes = s
    return s
