"""The persistent compile cache: machine code of compiled modules, kept between processes,
so a warm `hlo-run` skips the passes, codegen and LLVM entirely and only loads an object
file into the JIT.

Two kinds of entries, both keyed by a SHA-256 over the text, the compile options and the
environment (format version, hlotools version and a fingerprint of the compiler's sources,
llvmlite and LLVM versions, target triple, CPU name and features):

- an *object* entry under the key of the canonical optimised module text: the module's
  object code (jit.py) plus what the runtime needs to call it (entry symbol, parameter and result leaf
  shapes with layouts, buffer-plan statistics with the arena size);
- an *alias* entry under the key of the raw input text (or the input module's printed text):
  the optimised module's key, so a warm start skips even the passes and the printing.

Files: DIR/ab/abcdef....entry, each `MAGIC | version u32 | header length u32 | payload
length u64 | sha256(header + payload) | header JSON | payload`. The header repeats the key
and the kind. Anything that is not exactly right (truncated, other version, bad checksum,
another key, shapes that do not match the module) is reported and ignored: the caller
rebuilds and overwrites it. Writes go to a temp file in the same folder and are renamed over
the entry (os.replace is atomic), so concurrent writers never expose a partial entry; the
last one wins and both wrote the same thing.

Beside an object entry, KEY.so is the same machine code linked into a shared library
(native/shared_library.py; the entry's header keeps its SHA-256), which a warm start dlopens instead of
loading the object into MCJIT, so it never imports llvmlite. The link runs on a background
worker once the object entry is stored (`link_later`, background_link.py; the entry is then
rewritten with the library's record; `wait_for_links` waits for it). `llvm/host/*.json` (host.py) remembers LLVM's
description of the host for the keys. HLOTOOLS_CACHE_DLOPEN=0 keeps to MCJIT.

Kernels' objects (codegen/kernels.py: one per distinct kernel, kind "kernel", keyed by the
kernel's structural key and the compile options) live in `llvm/kernels/`, trimmed with the rest.
An object entry's payload holds its entry's object and those of its kernels (objfile.pack).
The runtime library's objects (kernels/library.py: the parallel runtime, the GEMM kernels) are
entries of kind "runtime" in `llvm/runtime/`, keyed by their own sources; object entries list
the groups their code calls (meta "runtime"), loaded before the object. A cold compile whose
groups this process has loaded already leaves their copy into the folder to the background
worker too (only a later process reads it).

Location: $HLOTOOLS_CACHE_DIR, else $XDG_CACHE_HOME/hlotools, else ~/.cache/hlotools
(folder `llvm` inside). After each new object the least recently written entries are
deleted while the folder holds more than $HLOTOOLS_CACHE_MAX_MB (default 1024) MiB (by the
background worker, after the link: scanning a full folder is no compile's wait);
deleting the folder by hand is always safe.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import struct
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hlotools.backend.llvm.native import shared_library
from hlotools.ir.module import Module

MAGIC = b"HLOCACHE"
KERNEL_KIND = "kernel"
RUNTIME_KIND = "runtime"  # runtime_library.KIND
FORMAT_VERSION = 1
_FIXED = struct.Struct("<8sIIQ32s")  # magic, version, header length, payload length, checksum
_LOGGER = logging.getLogger("hlotools.cache")
Log = Callable[[str], None]


def default_cache_dir() -> Path:
    env = os.environ.get("HLOTOOLS_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "hlotools"


class Rejected(Exception):
    """An entry that is absent or not to be trusted; the message says why."""


@dataclass
class Entry:
    key: str
    kind: str  # 'object' | 'alias'
    meta: dict[str, Any]
    payload: bytes


def encode_entry(entry: Entry) -> bytes:
    return b"".join(entry_pieces(entry))


def entry_pieces(entry: Entry) -> tuple[bytes, bytes, bytes]:
    """The fixed part, the header and the payload of `entry`'s file, written one after the
    other (no copy of the machine code to join them)."""
    header = json.dumps({"key": entry.key, "kind": entry.kind, "meta": entry.meta}, sort_keys=True).encode()
    h = hashlib.sha256(header)
    h.update(entry.payload)
    return _FIXED.pack(MAGIC, FORMAT_VERSION, len(header), len(entry.payload), h.digest()), header, entry.payload


def decode_entry(data: bytes, key: str, kind: str) -> Entry:
    """The entry in `data`, or Rejected naming the first thing wrong with it."""
    if len(data) < _FIXED.size:
        raise Rejected(f"truncated ({len(data)} bytes)")
    magic, version, header_len, payload_len, digest = _FIXED.unpack_from(data)
    if magic != MAGIC:
        raise Rejected("not a cache entry (bad magic)")
    if version != FORMAT_VERSION:
        raise Rejected(f"format version {version}, this hlotools writes {FORMAT_VERSION}")
    if len(data) != _FIXED.size + header_len + payload_len:
        raise Rejected(f"truncated or padded ({len(data)} bytes, header says "
                       f"{_FIXED.size + header_len + payload_len})")
    body = data[_FIXED.size:]
    if hashlib.sha256(body).digest() != digest:
        raise Rejected("checksum mismatch")
    try:
        header = json.loads(body[:header_len])
    except ValueError:
        raise Rejected("unreadable header") from None
    if not isinstance(header, dict) or header.get("key") != key or header.get("kind") != kind:
        raise Rejected("entry belongs to another key")
    meta = header.get("meta")
    if not isinstance(meta, dict):
        raise Rejected("unreadable header")
    return Entry(key, kind, meta, bytes(body[header_len:]))


class CompileCache:
    """One cache folder. `get` never raises for a bad entry (it logs why and returns None);
    `put` never raises for an unwritable folder (the compile still succeeded)."""

    def __init__(self, directory: Path | None = None, log: Log | None = None,
                 max_bytes: int | None = None) -> None:
        self.directory = (directory or default_cache_dir()) / "llvm"
        self._log = log
        self.max_bytes = max_bytes if max_bytes is not None else _max_bytes_from_env()
        self._quiet = False

    def say(self, message: str) -> None:
        if self._quiet:
            _LOGGER.debug(message)
            return
        _LOGGER.info(message)
        if self._log is not None:
            self._log(message)

    def quiet(self) -> CompileCache:
        """The same folder, saying things at debug level only (for background work: the log
        callback belongs to a call that has returned, and -v output would show its messages
        in the middle of another call's)."""
        import copy
        other = copy.copy(self)
        other._quiet = True
        return other

    def path(self, key: str, kind: str = "object") -> Path:
        if kind == RUNTIME_KIND:  # kernels/library.py's objects, few: one folder
            return self.directory / "runtime" / f"{key}.entry"
        if kind == KERNEL_KIND:  # codegen/kernels.py's objects, one per distinct kernel
            return self.directory / "kernels" / key[:2] / f"{key}.entry"
        return self.directory / key[:2] / f"{key}.entry"

    def get(self, key: str, kind: str) -> Entry | None:
        try:
            return self.read(key, kind)
        except Rejected as e:
            self.say(f"compile cache: miss, {kind} entry {key[:12]}: {e}")
            return None

    def read(self, key: str, kind: str) -> Entry:
        try:
            data = self.path(key, kind).read_bytes()
        except FileNotFoundError:
            raise Rejected("no entry") from None
        except OSError as e:
            raise Rejected(f"unreadable: {e.strerror or e}") from None
        return decode_entry(data, key, kind)

    def put(self, entry: Entry, create_folders: bool = True) -> bool:
        """Write `entry` (temp file + rename). `create_folders` False: only into a folder that
        exists (a background writer must not bring back a cache deleted meanwhile)."""
        target = self.path(entry.key, entry.kind)
        try:
            if create_folders:
                target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = _temp_file(str(target.parent), entry.key[:12])
            try:
                with os.fdopen(fd, "wb") as f:
                    for piece in entry_pieces(entry):
                        f.write(piece)
                os.replace(tmp, target)
            except BaseException:
                _unlink(tmp)
                raise
        except OSError as e:
            self.say(f"compile cache: could not write {target}: {e.strerror or e}")
            return False
        return True

    def trim_later(self) -> None:
        """Queue `trim` for the background worker (it scans every entry: off the critical path)."""
        from hlotools.backend.llvm.native import background_link
        background_link.trim_later(self.quiet())

    def wait_for_links(self, timeout: float | None = None) -> bool:
        """Wait for the background links into this folder (tests, benchmarks); True when none
        is left."""
        from hlotools.backend.llvm.native import background_link
        return background_link.wait_all(timeout, str(self.directory))

    def wait_for_link(self, key: str, timeout: float = 30.0) -> bool:
        """Wait for this process's background link of entry `key`, if one is queued (a warm
        start of the module just compiled then gets its library); True if there was one."""
        import sys
        background_link = sys.modules.get("hlotools.backend.llvm.native.background_link")  # a warm start never imports it
        job = background_link.pending(str(self.directory), key) if background_link is not None else None
        if job is None:
            return False
        job.wait(timeout)
        return True

    def trim(self) -> int:
        """Delete the least recently written entries while the folder holds more than
        max_bytes (run by the background worker after each new object: link_later; readers
        of a deleted entry just miss). Returns how many entries were deleted."""
        files: list[tuple[float, int, str]] = []
        libraries: dict[str, int] = {}  # native/shared_library.py's KEY.so beside KEY.entry: deleted with it
        try:
            for top in (self.directory, self.directory / "kernels"):
                if not top.is_dir():
                    continue
                with os.scandir(top) as shards:
                    for shard in shards:
                        if shard.is_dir() and shard.name != "kernels":
                            with os.scandir(shard.path) as entries:
                                for e in entries:
                                    if e.name.endswith(".entry"):
                                        st = e.stat()
                                        files.append((st.st_mtime, st.st_size, e.path))
                                    elif e.name.endswith(shared_library.SUFFIX):
                                        libraries[e.path] = e.stat().st_size
        except OSError:
            return 0
        total = sum(f[1] for f in files) + sum(libraries.values())
        removed = 0
        for _, size, path in sorted(files):
            if total <= self.max_bytes:
                break
            _unlink(path)
            library = path[:-len(".entry")] + shared_library.SUFFIX
            if library in libraries:
                _unlink(library)
                size += libraries[library]
            total -= size
            removed += 1
        if removed:
            self.say(f"compile cache: deleted {removed} old entries (over {self.max_bytes >> 20} MiB)")
        return removed


def wait_for_all_links(timeout: float | None = None) -> bool:
    """Wait for the background links of every CompileCache of the process (tests)."""
    from hlotools.backend.llvm.native import background_link
    return background_link.wait_all(timeout)


def _max_bytes_from_env() -> int:
    """HLOTOOLS_CACHE_MAX_MB (default 1024 MiB)."""
    try:
        return max(0, int(os.environ.get("HLOTOOLS_CACHE_MAX_MB", "1024"))) << 20
    except ValueError:
        return 1024 << 20


_TEMP_NUMBERS = itertools.count()


def _temp_file(folder: str, stem: str) -> tuple[int, str]:
    """A new file for one writer (O_EXCL, mode 0600 as mkstemp's), named by the process, the
    thread and a counter: unique without mkstemp's random names (tens of microseconds per
    entry). A name left by a crashed process with the same pid is skipped."""
    while True:
        tmp = os.path.join(folder, f".{stem}.{os.getpid()}.{threading.get_ident()}.{next(_TEMP_NUMBERS)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600), tmp
        except FileExistsError:
            continue


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


# -- keys ---------------------------------------------------------------------------------

@cache
def environment() -> dict[str, str]:
    """Everything besides the module and the options that the machine code depends on. The
    LLVM side (triple, CPU name and features, versions, BLAS) comes from host.py, which
    remembers LLVM's answer per host so that a warm start does not import llvmlite."""
    import hlotools
    from hlotools.backend.llvm.native.host import llvm_environment
    return {"format": str(FORMAT_VERSION), "hlotools": hlotools.__version__, "sources": _source_fingerprint(),
            **llvm_environment(default_cache_dir())}


def _source_fingerprint() -> str:
    """Names, sizes and modification times of the files that decide the generated code
    (the backend, the passes, the IR, the custom-call tables): a development tree's edits
    invalidate old entries even though the version number stays the same. An installed release (site-packages)
    is identified by its version alone."""
    root = _package_root()
    if _is_release(root):
        return "release"
    paths = ["interpreter/custom_calls.py"]  # the emitters read its tables
    for sub in ("backend", "passes", "ir"):
        for folder, dirs, files in os.walk(os.path.join(root, sub)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            paths += [os.path.relpath(os.path.join(folder, name), root) for name in files if name.endswith(".py")]
    return files_fingerprint(paths)


def _package_root() -> str:
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _is_release(root: str) -> bool:
    return os.path.basename(os.path.dirname(root)) in ("site-packages", "dist-packages")


def files_fingerprint(paths: Iterable[str]) -> str:
    """Names, sizes and modification times of `paths` (relative to the hlotools package), or
    "release" for an installed release (site-packages), identified by its version alone."""
    root = _package_root()
    if _is_release(root):
        return "release"
    lines = []
    for rel in paths:
        path = os.path.join(root, rel)
        try:
            st = os.stat(path)
        except OSError:  # deleted while we walked (someone editing the tree)
            continue
        lines.append(f"{path[len(root):]}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()[:16]


def make_key(kind: str, text: str, options: dict[str, Any], env: dict[str, str] | None = None) -> str:
    h = hashlib.sha256()
    h.update(json.dumps({"kind": kind, "options": options, "env": env if env is not None else environment()},
                        sort_keys=True).encode())
    h.update(b"\0")
    h.update(text.encode())
    return h.hexdigest()


def module_key_text(module: Module) -> str:
    """What the optimised module's key is made of: its long text with the values of constants
    over 10 elements elided (as XLA's dumps do), then one line per constant naming it and the
    SHA-256 of its shape, its array's dtype and dims, and its bytes. Printing a big literal
    costs more than printing the whole rest of the module (big_attention_256's folded 256x256 mask: 5-10 ms of its cold compile,
    hashing its bytes 0.05 ms); the bytes identify the value more exactly than its text."""
    from hlotools.text.printer import print_module
    constants = sorted(f"{comp.name}/{inst.name} {_literal_digest(inst.literal)}"
                       for comp in module.computations for inst in comp.instructions
                       if inst.opcode == "constant" and inst.literal is not None)
    return print_module(module, "long", print_large_constants=False) + "\n// constants\n" + "\n".join(constants)


def _literal_digest(literal: Any) -> str:
    if literal.elements is not None:
        return "(" + ",".join(_literal_digest(e) for e in literal.elements) + ")"
    if literal.elided or literal.array is None:
        return "{...}"
    # the array's own dtype and dims too: equal bytes of another dtype are another value
    # (literal.py keeps arrays in the shape's dtype, but nothing enforces it)
    array = literal.array
    h = hashlib.sha256(f"{literal.shape.to_text(True)} {array.dtype.str} {array.shape}".encode())
    h.update(b"\0")
    h.update(array.tobytes())
    return h.hexdigest()
