"""What machine code depends on besides the module, for the compile cache's keys: the target
triple, the host CPU's name and features, the LLVM and llvmlite versions and which BLAS the
JIT binds; on a warm start without importing llvmlite.

Asking LLVM (jit.target_description) means importing llvmlite.binding and initialising the
native target: 60-90 ms, several times what a warm start spends on everything else. The answer
only changes with the machine, the llvmlite install (which bundles LLVM) or numpy's BLAS, so it
is kept in a small file of the cache folder, `llvm/host/FINGERPRINT.json`, named by a hash of
exactly those: /proc/cpuinfo's identifying lines (vendor, family, model, stepping, flags), the
machine name, llvmlite's version and its library's path, size and modification time, and
numpy's version and BLAS library files. A missing, unreadable or different file is asked of
LLVM again and rewritten (atomically); without /proc/cpuinfo nothing is kept.

The target: $HLOTOOLS_TARGET_CPU (`host`, the default; an x86-64 psABI level `x86-64`,
`x86-64-v2`, `x86-64-v3`, `x86-64-v4`; or an LLVM CPU name such as `znver3`, `skylake`) and
$HLOTOOLS_TARGET_FEATURES (`+avx2,-fma`, after the CPU's) choose what the JIT generates code
for (`resolve_target`); "cpu" and "features" of FIELDS are then the target's, so the compile
cache and the runtime library keep one entry per target. A target this host cannot run is a
TargetError (one line) before any code is made, never a SIGILL: a level's features are known
(X86_LEVELS), checked against the host's without LLVM; a CPU name is checked by LLVM (its code
for a probe module must not change when the features this host lacks are turned off, and they
are turned off in what it generates as well), its answer kept beside the host's file.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from hlotools.errors import HloError

FIELDS = ("llvmlite", "llvm", "triple", "cpu", "features", "blas")
_CPU_KEYS = frozenset({"vendor_id", "cpu family", "model", "model name", "stepping", "flags", "features",
                       "cpu implementer", "cpu architecture", "cpu variant", "cpu part", "cpu revision",
                       "isa", "uarch", "cpu"})


def llvm_environment(cache_dir: Path | None) -> dict[str, str]:
    """FIELDS for the JIT's target (target_request()): the host's from the host file in
    `cache_dir` when its fingerprint matches, else from LLVM (and written there for the next
    process); a target other than the host's resolved from them (resolve_target)."""
    fingerprint = host_fingerprint()
    path = cache_dir / "llvm" / "host" / f"{fingerprint}.json" if cache_dir and fingerprint else None
    host = _read(path, fingerprint or "") if path is not None else None
    if host is None:
        host = ask_llvm()
        if path is not None:
            _write(path, {"fingerprint": fingerprint, **host})
    request = target_request()
    if request is None:
        return host
    return {**host, **_target_fields(host, request, path)}


def _target_fields(host: dict[str, str], request: tuple[str, str], host_file: Path | None) -> dict[str, str]:
    """"cpu" and "features" of `request` on this host. A level needs no LLVM; a CPU name's
    answer is kept in a file beside the host's (named by the request), so a warm start with
    the same target asks LLVM nothing either."""
    if request[0] in X86_LEVELS:
        cpu, features = resolve_target(request, host["triple"], host["cpu"], host["features"])
        return {"cpu": cpu, "features": features}
    tag = hashlib.sha256("\0".join(request).encode()).hexdigest()[:16]
    path = host_file.with_name(f"{host_file.stem}.target-{tag}.json") if host_file is not None else None
    if path is not None:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(doc, dict) and doc.get("request") == list(request) and \
                    all(isinstance(doc.get(k), str) for k in ("cpu", "features")):
                return {"cpu": doc["cpu"], "features": doc["features"]}
        except (OSError, ValueError):
            pass
    cpu, features = resolve_target(request, host["triple"], host["cpu"], host["features"])
    if path is not None:
        _write(path, {"request": list(request), "cpu": cpu, "features": features})
    return {"cpu": cpu, "features": features}


def ask_llvm() -> dict[str, str]:
    """FIELDS of the host itself (its CPU and features), from LLVM."""
    from hlotools.backend.llvm.native import jit
    t = jit.host_description()
    return {"llvmlite": t.llvmlite_version, "llvm": t.llvm_version, "triple": t.triple, "cpu": t.cpu,
            "features": t.features, "blas": ",".join(sorted(jit.blas_symbols()))}  # dots call BLAS or not


# -- the target ------------------------------------------------------------------------------

TARGET_CPU_ENV = "HLOTOOLS_TARGET_CPU"
TARGET_FEATURES_ENV = "HLOTOOLS_TARGET_FEATURES"
HOST = "host"
# The x86-64 psABI micro-architecture levels, as LLVM names them, with every feature each one
# implies (LLVM's X86TargetParser: FeaturesX86_64, _V2, _V3, _V4). Code for a level runs on
# any CPU that has these, and its features are spelled out in the target's feature string
# (the emitters read vector widths from it: gemm_kernel.vector_bytes).
_X86_64 = ("64bit", "cmov", "cx8", "fxsr", "mmx", "sse", "sse2")
_X86_64_V2 = _X86_64 + ("crc32", "cx16", "popcnt", "sahf", "sse3", "sse4.1", "sse4.2", "ssse3")
_X86_64_V3 = _X86_64_V2 + ("avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave")
_X86_64_V4 = _X86_64_V3 + ("avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl")
X86_LEVELS: dict[str, tuple[str, ...]] = {"x86-64": _X86_64, "x86-64-v2": _X86_64_V2, "x86-64-v3": _X86_64_V3,
                                          "x86-64-v4": _X86_64_V4}


class TargetError(HloError):
    """An unknown target CPU or feature, or one this host cannot run (a usage error)."""


def target_request() -> tuple[str, str] | None:
    """($HLOTOOLS_TARGET_CPU, $HLOTOOLS_TARGET_FEATURES), or None for the host's own CPU and
    features (the default, and `host` without extra features)."""
    cpu = os.environ.get(TARGET_CPU_ENV, "").strip() or HOST
    features = ",".join(f.strip() for f in os.environ.get(TARGET_FEATURES_ENV, "").split(",") if f.strip())
    return None if cpu == HOST and not features else (cpu, features)


def feature_map(features: str) -> dict[str, bool]:
    """"+a,-b" as {"a": True, "b": False} (the last mention of a feature wins, as in LLVM)."""
    out: dict[str, bool] = {}
    for item in features.split(","):
        item = item.strip()
        if item[:1] in "+-" and len(item) > 1:
            out[item[1:]] = item[0] == "+"
    return out


def resolve_target(request: tuple[str, str], triple: str, host_cpu: str, host_features: str) -> tuple[str, str]:
    """The (CPU name, feature string) the JIT generates code for when asked for `request`
    (cpu, extra features) on a host of `triple`, `host_cpu` and `host_features` (LLVM's
    flattened "+a,-b" list). TargetError (one line) for what the host cannot run."""
    cpu, extra = request
    what = f"{TARGET_CPU_ENV}={cpu}" + (f" {TARGET_FEATURES_ENV}={extra}" if extra else "")
    have = feature_map(host_features)
    for name, on in feature_map(extra).items():
        if on and not have.get(name, True):
            raise TargetError(f"{what}: this host ({host_cpu}) has no {name}")
    if cpu == HOST:
        return host_cpu, ",".join(x for x in (host_features, extra) if x)
    if cpu in X86_LEVELS:
        if not triple.startswith(("x86_64", "amd64")):
            raise TargetError(f"{what}: an x86-64 level, and this host is {triple}")
        missing = [f for f in X86_LEVELS[cpu] if not have.get(f, True)]
        if missing:
            raise TargetError(f"{what}: this host ({host_cpu}) cannot run it (no {', '.join(missing)})")
        return cpu, ",".join(["+" + f for f in X86_LEVELS[cpu]] + ([extra] if extra else []))
    return _resolve_cpu_name(cpu, extra, what, triple, host_cpu, have)


_VECTOR_FEATURES = ("avx", "avx512f")  # what the emitters read from the feature string


def _resolve_cpu_name(cpu: str, extra: str, what: str, triple: str, host_cpu: str,
                      have: dict[str, bool]) -> tuple[str, str]:
    """An LLVM CPU name: LLVM's code for it must use none of the features the host lacks
    (jit.features_code_uses on a probe module); they are turned off in the feature string as
    well (a probe cannot use every instruction), and the vector features it uses are spelled
    out for the emitters."""
    import re

    from hlotools.backend.llvm.native import jit
    lacking = tuple(sorted(f for f, on in have.items() if not on))
    try:
        used = jit.features_code_uses(triple, cpu, extra, lacking)
        vectors = jit.features_code_uses(triple, cpu, extra, tuple(f for f in _VECTOR_FEATURES if have.get(f)))
    except ValueError as e:
        raise TargetError(f"{what}: {re.sub(r' [(]ignoring [^)]*[)]', '', str(e))}") from None
    if used:
        raise TargetError(f"{what}: this host ({host_cpu}) cannot run its code (no {', '.join(used)})")
    return cpu, ",".join(["-" + f for f in lacking] + ["+" + f for f in vectors] + ([extra] if extra else []))


def host_fingerprint() -> str | None:
    """A hash of what FIELDS depend on, or None where the CPU cannot be identified cheaply."""
    cpu = _cpu_identity()
    if cpu is None:
        return None
    parts = [sys.platform, os.uname().machine, cpu, _llvmlite_identity(), _numpy_identity()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def _cpu_identity() -> str | None:
    """The identifying lines of /proc/cpuinfo's first processor (not its clock or core ids)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            text = f.read(16384)  # the first processor is enough (big machines list hundreds)
    except OSError:
        return None
    lines = []
    for line in text.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() in _CPU_KEYS:
            lines.append(f"{key.strip().lower()}={value.strip()}")
    return "\n".join(lines) if lines else None


def _file_identity(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return f"{path}:missing"
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def _llvmlite_identity() -> str:
    """Where llvmlite is installed and its files' sizes and times (found without importing it)."""
    from importlib.util import find_spec
    spec = find_spec("llvmlite")
    if spec is None or not spec.submodule_search_locations:
        return "llvmlite:missing"
    root = list(spec.submodule_search_locations)[0]
    files = [os.path.join(root, "_version.py")] + _matching(os.path.join(root, "binding"), "llvmlite", "")
    return ";".join(_file_identity(p) for p in files)


def _numpy_identity() -> str:
    """numpy's version and BLAS files: jit.py binds GEMM to numpy's OpenBLAS when it has one."""
    import numpy
    root = os.path.dirname(numpy.__file__)
    libs = (_matching(os.path.join(root, ".libs"), "openblas", ".so")
            + _matching(os.path.join(os.path.dirname(root), "numpy.libs"), "openblas", ".so"))
    return ";".join([numpy.__version__] + [_file_identity(p) for p in libs])


def _matching(folder: str, part: str, suffix: str) -> list[str]:
    """Files in `folder` whose names contain `part` and `suffix` (glob's *part*suffix*, without
    compiling a regular expression on a warm start)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(os.path.join(folder, n) for n in names if part in n and suffix in n[n.find(part):])


def _read(path: Path, fingerprint: str) -> dict[str, str] | None:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("fingerprint") != fingerprint:
        return None
    if not all(isinstance(doc.get(k), str) for k in FIELDS):
        return None
    return {k: doc[k] for k in FIELDS}


def _write(path: Path, doc: dict[str, object]) -> None:
    """Temp file + rename, like the cache's entries; an unwritable folder only costs speed."""
    import tempfile
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".host.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        pass


# -- threads ---------------------------------------------------------------------------------
# Here rather than in kernels/parallel_for.py (which builds IR with llvmlite): a warm start that dlopens a
# module's shared library sets the thread count of its parallel runtime without importing it.

MAX_THREADS = 64
THREADS_GLOBAL = "hlotools_num_threads"  # the parallel runtime's knob (0: sysconf's online CPUs)


def host_threads() -> int:
    """Threads the runtime tells generated code to use: $HLOTOOLS_NUM_THREADS, else the
    CPUs this process may run on."""
    env = os.environ.get("HLOTOOLS_NUM_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return min(MAX_THREADS, int(env))
    try:
        return max(1, min(MAX_THREADS, len(os.sched_getaffinity(0))))
    except (AttributeError, OSError):
        return max(1, min(MAX_THREADS, os.cpu_count() or 1))
