"""The code both sides generate (--target-cpu): hlotools' JIT through $HLOTOOLS_TARGET_CPU
(native/host.py: `host`, an x86-64 psABI level such as x86-64-v3, or an LLVM CPU name), XLA's
through its ISA cap, `--xla_cpu_max_isa` in XLA_FLAGS.

This host can run lower feature levels, so a run at x86-64-v3 here measures the AVX2 + FMA
code an AVX2 machine would get, on both sides. The target is resolved once, in a child
process exactly as hlo-run resolves it (a target this host cannot run, or an unknown name, is
one line and exit 2 before anything is measured); XLA's cap is the widest ISA of the target's
features. Caveat, seen in XLA's dumps (--xla_dump_to): the cap governs the code XLA's LLVM
emits (with AVX2 no EVEX instruction and no ymm16-31 remain), while the kernels XLA calls
from its libraries (YNNPACK's dots: `__ynn_fusion`) choose their ISA from the CPU at run
time, so XLA's dots may still use AVX-512 on an AVX-512 host.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass

from .children import run_child

TARGET_VAR = "HLOTOOLS_TARGET_CPU"
FEATURES_VAR = "HLOTOOLS_TARGET_FEATURES"
HOST = "host"
# XLA's ISA cap per feature (LLVM's names), widest first; XLA's lowest cap is SSE4_2.
XLA_ISAS = (("avx512f", "AVX512"), ("avx2", "AVX2"), ("avx", "AVX"), ("", "SSE4_2"))
_RESOLVE = """
import json, sys
from hlotools.backend.llvm.native import jit
from hlotools.errors import HloError
try:
    print(json.dumps(jit.jit_target()))
except HloError as e:
    sys.exit(str(e).splitlines()[0])
"""


@dataclass(frozen=True)
class Target:
    """What --target-cpu asked for and what it resolved to."""

    cpu: str  # as asked: 'host', a level or an LLVM CPU name
    llvm_cpu: str  # the CPU name our JIT generates code for
    features: str  # LLVM's "+a,-b" list of that code

    @property
    def is_host(self) -> bool:
        return self.cpu == HOST

    def has(self, feature: str) -> bool:
        return f"+{feature}" in self.features.split(",")

    def xla_isa(self) -> str | None:
        """The --xla_cpu_max_isa value (None: the host's own, XLA's default)."""
        if self.is_host:
            return None
        return next(isa for feature, isa in XLA_ISAS if not feature or self.has(feature))

    def ours_env(self) -> dict[str, str]:
        """Variables for hlotools' children (the runtime library seed, hlo-run)."""
        return {} if self.is_host else {TARGET_VAR: self.cpu, FEATURES_VAR: ""}

    def xla_env(self, environ: dict[str, str]) -> dict[str, str]:
        """`environ` with the ISA cap appended to XLA_FLAGS (xla_ref.py appends its own)."""
        isa = self.xla_isa()
        if isa is None:
            return dict(environ)
        flags = " ".join(f for f in (environ.get("XLA_FLAGS", ""), f"--xla_cpu_max_isa={isa}") if f)
        return {**environ, "XLA_FLAGS": flags}

    def describe(self) -> str:
        """The header line's part: what both sides compile for."""
        isa = next(name for feature, name in (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("avx", "AVX"),
                                              ("", "SSE")) if not feature or self.has(feature))
        fma = ", FMA" if self.has("fma") else ", no FMA"
        cap = self.xla_isa()
        xla = f"XLA_FLAGS=--xla_cpu_max_isa={cap}" if cap else "XLA's default (the host's ISA)"
        return f"target: {self.cpu} (hlotools: {self.llvm_cpu}, {isa}{fma}; XLA: {xla})"


def resolve(cpu: str, environ: dict[str, str], timeout: float = 120.0) -> Target:
    """`cpu` as hlo-run would compile for it on this host; SystemExit(2) with hlo-run's one-line
    message when it cannot."""
    env = {k: v for k, v in environ.items() if k not in (TARGET_VAR, FEATURES_VAR)}
    if cpu != HOST:
        env[TARGET_VAR] = cpu
    child = run_child([sys.executable, "-c", _RESOLVE], timeout=timeout, env=env)
    if not child.ok:
        print(f"bench/run.py: --target-cpu {cpu}: {child.why()}", file=sys.stderr)
        raise SystemExit(2)
    _, llvm_cpu, features = json.loads(child.stdout.strip().splitlines()[-1])
    return Target(cpu, llvm_cpu, features)
