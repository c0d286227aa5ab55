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
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

FIELDS = ("llvmlite", "llvm", "triple", "cpu", "features", "blas")
_CPU_KEYS = frozenset({"vendor_id", "cpu family", "model", "model name", "stepping", "flags", "features",
                       "cpu implementer", "cpu architecture", "cpu variant", "cpu part", "cpu revision",
                       "isa", "uarch", "cpu"})


def llvm_environment(cache_dir: Path | None) -> dict[str, str]:
    """FIELDS, from the host file in `cache_dir` when its fingerprint matches, else from LLVM
    (and written there for the next process)."""
    fingerprint = host_fingerprint()
    path = cache_dir / "llvm" / "host" / f"{fingerprint}.json" if cache_dir and fingerprint else None
    if path is not None:
        known = _read(path, fingerprint or "")
        if known is not None:
            return known
    answer = ask_llvm()
    if path is not None:
        _write(path, {"fingerprint": fingerprint, **answer})
    return answer


def ask_llvm() -> dict[str, str]:
    from hlotools.backend.llvm import jit
    t = jit.target_description()
    return {"llvmlite": t.llvmlite_version, "llvm": t.llvm_version, "triple": t.triple, "cpu": t.cpu,
            "features": t.features, "blas": ",".join(sorted(jit.blas_symbols()))}  # dots call BLAS or not


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
# Here rather than in parallel.py (which builds IR with llvmlite): a warm start that dlopens a
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
