"""Cached machine code as a shared library, so that a warm start needs no llvmlite at all.

When the compile cache stores a new object (cache.py), a background thread links it and the
runtime library objects it calls (kernels/library.py) with the system C compiler (`$CC`, else
`cc`) into `KEY.so` beside the entry: `cc -shared` with `-z defs`
(every symbol must resolve at link time: libc, libm, libpthread and, for dots that call BLAS,
numpy's OpenBLAS through a small C shim that gives its ILP64 cblas_?gemm the stable names
emit_gemm calls). On a warm start `load` opens it with dlopen (ctypes): no llvmlite.binding
import (60-90 ms), no MCJIT engine, no relocation in Python.

Trust: the library is only used through its cache entry, whose header records the library's
SHA-256 and size (written after linking, before the library is renamed into place). `load`
hashes the bytes of one open file descriptor and dlopens that same descriptor
(/proc/self/fd/N), so a truncated, corrupt or concurrently replaced file is never run: it is
reported and the entry's object goes through MCJIT as before. No C compiler, a failing link,
a platform other than Linux or HLOTOOLS_CACHE_DLOPEN=0: no library, the MCJIT path.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import sys
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hlotools.backend.llvm.abi import JOIN_SYMBOL

SUFFIX = ".so"
# emit_gemm.BLAS_SYMBOLS with their C element types; the signature is emit_gemm's declaration
# (CBLAS order/transpose as i32, sizes and leading dimensions as i64: ILP64).
BLAS_SHIMS = {"hlotools_blas_sgemm": "float", "hlotools_blas_dgemm": "double"}
_SHIM = """#include <stdint.h>
extern void {real}(int32_t, int32_t, int32_t, int64_t, int64_t, int64_t, {t}, const void *, int64_t,
                   const void *, int64_t, {t}, void *, int64_t);
void {name}(int32_t order, int32_t ta, int32_t tb, int64_t m, int64_t n, int64_t k, {t} alpha,
            const void *a, int64_t lda, const void *b, int64_t ldb, {t} beta, void *c, int64_t ldc) {{
  {real}(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}}
"""
Say = Callable[[str], None]


def enabled() -> bool:
    return sys.platform.startswith("linux") and os.environ.get("HLOTOOLS_CACHE_DLOPEN", "1") != "0"


def c_compiler() -> str | None:
    return _which(os.environ.get("CC") or "cc", os.environ.get("PATH"))


@cache
def _which(name: str, search_path: str | None) -> str | None:
    """shutil.which, once per process for each ($CC, $PATH): it stats every folder of the
    PATH (0.1-0.2 ms), and every cold compile asks."""
    import shutil
    return shutil.which(name, path=search_path)


def library_path(entry_path: Path) -> Path:
    return entry_path.with_suffix(SUFFIX)


@dataclass
class LinkedLibrary:
    """A library linked in a private folder, held in memory until it is installed beside its
    entry: nothing is written into the cache folder while the linker runs (it may run in the
    background while someone deletes the folder)."""

    data: bytes
    sha256: str
    size: int

    def record(self) -> dict[str, object]:
        """What the cache entry's header keeps about the library (and `load` checks)."""
        return {"sha256": self.sha256, "bytes": self.size}

    def install(self, final: Path) -> bool:
        """Write the library to a temp file in `final`'s folder and rename it into place
        (atomic). The folder is never created: a cache deleted meanwhile stays deleted."""
        import tempfile
        try:
            fd, tmp = tempfile.mkstemp(dir=final.parent, prefix=f".{final.stem[:12]}.", suffix=".so.tmp")
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(self.data)
            os.replace(tmp, final)
            return True
        except OSError:
            _unlink(tmp)
            return False

    def discard(self) -> None:
        """Drop a library that will not be installed (nothing is on disk before install)."""
        self.data = b""


def link(object_code: bytes, entry_path: Path, say: Say, runtime_objects: Sequence[bytes]) -> LinkedLibrary | None:
    """Link `object_code` (the object jit.py generated for this host) and the runtime library objects it
    calls (kernels/library.py objects(), which the caller asks: this layer is below it) into a shared library for the entry at `entry_path` (LinkedLibrary.install puts it
    there): each library has its own copy of the runtime, so it stays self-contained. None
    (saying why) when it cannot be done here."""
    cc = c_compiler()
    if not enabled() or cc is None:
        return None
    import shutil
    import tempfile

    from hlotools.backend.llvm.native.objfile import read_objects
    from hlotools.errors import HloError
    try:
        undefined = set(read_objects(object_code).undefined)
    except HloError as e:
        say(f"compile cache: no shared library ({e.message})")
        return None
    # mkdtemp, not TemporaryDirectory: this may run on a thread at interpreter exit, after
    # weakref finalizers (TemporaryDirectory's cleanup) have run
    work = tempfile.mkdtemp(prefix="hlotools-link-")
    try:
        return _link_in(work, cc, object_code, undefined, runtime_objects, say)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _link_in(work: str, cc: str, object_code: bytes, undefined: set[str], runtime_objects: Sequence[bytes],
             say: Say) -> LinkedLibrary | None:
    import subprocess  # (here, not at the top: a warm start only loads)

    from hlotools.backend.llvm.native.objfile import unpack
    inputs = []  # relative, linked in `work`: the same objects link to the same bytes
    for k, code in enumerate(unpack(object_code)):  # the entry's, then its kernels'
        with open(os.path.join(work, f"module{k}.o"), "wb") as f:
            f.write(code)
        inputs.append(f"module{k}.o")
    for k, code in enumerate(runtime_objects):
        with open(os.path.join(work, f"runtime{k}.o"), "wb") as f:
            f.write(code)
        inputs.append(f"runtime{k}.o")
    for name, ctype in BLAS_SHIMS.items():
        if name in undefined:
            shim = _blas_shim(name, ctype, work)
            if shim is None:
                say(f"compile cache: no shared library ({name} has no library to link)")
                return None
            inputs += shim
    out = os.path.join(work, "module.so")
    cmd = [cc, "-shared", "-o", "module.so", *inputs, "-lm", "-lpthread", "-Wl,-z,defs", "-Wl,-Bsymbolic",
           "-Wl,-z,now"]
    why = ""
    try:
        done: subprocess.CompletedProcess[str] | None = subprocess.run(cmd, capture_output=True, text=True,
                                                                        timeout=120, cwd=work)
    except (OSError, subprocess.SubprocessError) as e:
        done = None
        why = str(e)
    if done is None or done.returncode != 0:
        why = why if done is None else (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[0]
        say(f"compile cache: no shared library ({os.path.basename(cc)} failed: {why})")
        return None
    try:
        data = Path(out).read_bytes()
    except OSError as e:
        say(f"compile cache: no shared library (cannot read the linker's output: {e.strerror or e})")
        return None
    return LinkedLibrary(data, hashlib.sha256(data).hexdigest(), len(data))


def _blas_shim(name: str, ctype: str, work: str) -> list[str] | None:
    """[shim.c, -Wl,-rpath,DIR, LIBRARY]: `name` calling the BLAS function the JIT binds it to
    (found by its address: dladdr names the function and its library)."""
    from hlotools.backend.llvm.native import jit
    address = jit._BLAS_FOUND.get(name) if name in jit.blas_symbols() else None
    if not address:
        return None
    found = _dladdr(address)
    if found is None:
        return None
    real, library = found
    source = os.path.join(work, f"{name}.c")
    with open(source, "w", encoding="utf-8") as f:
        f.write(_SHIM.format(real=real, t=ctype, name=name))
    return [os.path.basename(source), f"-Wl,-rpath,{os.path.dirname(library)}", library]


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def _dladdr(address: int) -> tuple[str, str] | None:
    """(symbol name, library path) of a function address in this process."""
    info = _DlInfo()
    try:
        ok = ctypes.CDLL(None).dladdr(ctypes.c_void_p(address), ctypes.byref(info))
    except (OSError, AttributeError):
        return None
    if not ok or not info.dli_sname or not info.dli_fname or info.dli_saddr != address:
        return None
    return info.dli_sname.decode(), os.path.abspath(info.dli_fname.decode())


class SharedLibrary:
    """A dlopened library of generated code, dlclosed when the last reference to it goes (the
    CompiledModule that runs it holds it), after `hlotools_parallel_join` stopped the helper
    threads that may still run its code: a process loading many cached modules unmaps each
    one's code again. `load` opens one handle per call (dlopen counts them), so two modules
    loaded from the same library each close their own."""

    def __init__(self, handle: ctypes.CDLL, path: Path) -> None:
        self._handle = handle
        self.path = path
        join = handle[JOIN_SYMBOL] if self.address(JOIN_SYMBOL) else None
        _OPEN[0] += 1
        weakref.finalize(self, _release, join, int(handle._handle))

    def address(self, name: str) -> int:
        try:
            return ctypes.cast(self._handle[name], ctypes.c_void_p).value or 0
        except AttributeError:
            return 0

    def set_threads(self) -> None:
        """Tell the library's parallel runtime how many threads to use (host_threads()),
        as parallel._set_threads does for MCJIT; 0 would mean sysconf's online CPUs."""
        from hlotools.backend.llvm.native.host import THREADS_GLOBAL, host_threads
        try:
            ctypes.c_int32.in_dll(self._handle, THREADS_GLOBAL).value = host_threads()
        except ValueError:  # no parallel loops: no such global
            pass


_OPEN = [0]  # libraries loaded and not yet closed (tests)


def open_libraries() -> int:
    """How many SharedLibrary handles this process holds open."""
    return _OPEN[0]


def _release(join: Callable[[], None] | None, handle: int) -> None:
    """Join the library's helper threads (they may be parked in its code), then dlclose it."""
    import _ctypes
    if join is not None:
        join()
    _ctypes.dlclose(handle)
    _OPEN[0] -= 1


class Unusable(Exception):
    """The library is absent or not to be trusted; the message says why."""


def load(path: Path, record: object) -> SharedLibrary:
    """dlopen the library at `path` if its bytes are the ones `record` (from the cache entry's
    header) describes; Unusable otherwise."""
    if not enabled():
        raise Unusable("HLOTOOLS_CACHE_DLOPEN=0" if sys.platform.startswith("linux") else "not Linux")
    if not isinstance(record, dict) or not isinstance(record.get("sha256"), str):
        raise Unusable("the entry describes no library")
    try:
        with open(path, "rb") as f:
            data = f.read()
            hashed = os.fstat(f.fileno())
    except OSError as e:
        raise Unusable(f"no library file ({e.strerror or e})") from None
    if len(data) != record.get("bytes") or hashlib.sha256(data).hexdigest() != record["sha256"]:
        raise Unusable("the library file is not the one the entry describes")
    try:
        # By path, not /proc/self/fd/N: glibc recognises loaded libraries by name first, so a
        # second module behind a reused descriptor number would get the first one's code.
        # (The same name can still bring back an old file's code: checked below.)
        handle = ctypes.CDLL(str(path), mode=os.RTLD_NOW | os.RTLD_LOCAL)
    except OSError as e:
        raise Unusable(f"dlopen failed: {e}") from None
    library = SharedLibrary(handle, path)  # closed again when dropped (an Unusable one at once)
    from hlotools.backend.llvm.abi import ENTRY_NAME
    entry = library.address(ENTRY_NAME)
    if not entry:
        raise Unusable(f"the library has no {ENTRY_NAME}")
    # The code must come from the file just hashed. It may not: glibc hands back a library it
    # already loaded under the same name (an earlier file at this path, since replaced), or
    # another process replaced the file between the hash and dlopen. Same key should mean same
    # code, but a writer whose source fingerprint raced an edit breaks that, and running one
    # build's code with another's arena size crashes the process.
    if _mapped_file(entry) != (hashed.st_dev, hashed.st_ino):
        raise Unusable("the code loaded under that name is not the file the entry describes")
    return library


def _mapped_file(address: int) -> tuple[int, int] | None:
    """(device, inode) of the file mapped at `address` in this process (/proc/self/maps)."""
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as f:
            for line in f:
                fields = line.split(maxsplit=5)
                lo, _, hi = fields[0].partition("-")
                if int(lo, 16) <= address < int(hi, 16) and len(fields) >= 5:
                    major, _, minor = fields[3].partition(":")
                    return os.makedev(int(major, 16), int(minor, 16)), int(fields[4])
    except (OSError, ValueError):
        return None
    return None


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
