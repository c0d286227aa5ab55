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
(native.py; the entry's header keeps its SHA-256), which a warm start dlopens instead of
loading the object into MCJIT, so it never imports llvmlite. The link runs on a background
worker once the object entry is stored (`link_later`, background_link.py; the entry is then
rewritten with the library's record; `wait_for_links` waits for it). `llvm/host/*.json` (host.py) remembers LLVM's
description of the host for the keys. HLOTOOLS_CACHE_DLOPEN=0 keeps to MCJIT.

The runtime library's objects (runtime_library.py: the parallel runtime, the GEMM kernels) are
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

import contextlib
import gc
import hashlib
import itertools
import json
import logging
import os
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hlotools.backend.llvm.native import shared_library as native
from hlotools.errors import HloError
from hlotools.ir.module import Module
from hlotools.ir.shape import Shape
from hlotools.text.parse_shape import ShapeError

MAGIC = b"HLOCACHE"
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
        if kind == RUNTIME_KIND:  # runtime_library.py's objects, few: one folder
            return self.directory / "runtime" / f"{key}.entry"
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

    def link_later(self, key: str, object_code: bytes, runtime_groups: list[str]) -> bool:
        """Queue, for the background worker (background_link.py), what only a later process
        needs of object entry `key`: the runtime library groups its code calls copied into
        this folder, the link of KEY.so (with those groups' objects) recorded in the entry,
        and the folder's trim. Returns whether a library is linked. When none can be made
        here the trim is `trim_later`'s, one queued per folder: a process compiling many
        modules then scans the folder once per batch, not once per module."""
        from hlotools.backend.llvm.kernels import library as runtime_library
        from hlotools.backend.llvm.native import background_link
        runtime: list[bytes] = []
        link = native.enabled() and native.c_compiler() is not None
        if link:
            loaded = [runtime_library.get(g) for g in runtime_groups]  # the module was just bound to them
            try:
                runtime = ([got.object_code for got in loaded if got is not None] if all(loaded)
                           else runtime_library.objects(runtime_groups, self))
            except HloError as e:
                self.say(f"compile cache: no shared library ({e.message})")
                link = False
        if link or runtime_groups:
            background_link.submit(background_link.LinkJob(self.quiet(), key, object_code, runtime,
                                                           runtime_groups=list(runtime_groups), link=link))
        if not link:
            self.trim_later()
        return link

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
        libraries: dict[str, int] = {}  # native.py's KEY.so beside KEY.entry: deleted with it
        try:
            with os.scandir(self.directory) as shards:
                for shard in shards:
                    if shard.is_dir():
                        with os.scandir(shard.path) as entries:
                            for e in entries:
                                if e.name.endswith(".entry"):
                                    st = e.stat()
                                    files.append((st.st_mtime, st.st_size, e.path))
                                elif e.name.endswith(native.SUFFIX):
                                    libraries[e.path] = e.stat().st_size
        except OSError:
            return 0
        total = sum(f[1] for f in files) + sum(libraries.values())
        removed = 0
        for _, size, path in sorted(files):
            if total <= self.max_bytes:
                break
            _unlink(path)
            library = path[:-len(".entry")] + native.SUFFIX
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


# -- compiling through the cache --------------------------------------------------------------

@dataclass(frozen=True)
class CompileOptions:
    """What besides the module changes the machine code (all of it goes into the key)."""

    preset: str = "O2"  # the pass pipeline run before codegen ('none': the module as given)
    opt_level: int = 3
    implicit_fusion: bool = True

    def key_fields(self) -> dict[str, Any]:
        # Which passes a preset runs depends on the registered passes, which the source
        # fingerprint of environment() covers (importing the registry to ask would cost a
        # warm start more than everything else together). HLOTOOLS_* variables may steer
        # codegen (HLOTOOLS_NUM_THREADS=1 turns generated threading off), so they count too.
        fields = asdict(self)
        fields["env"] = {k: v for k, v in sorted(os.environ.items())
                         if k.startswith("HLOTOOLS_") and k not in _NOT_CODEGEN_ENV}
        return fields


_NOT_CODEGEN_ENV = frozenset({"HLOTOOLS_CACHE_DIR", "HLOTOOLS_CACHE_MAX_MB", "HLOTOOLS_LOG",
                              "HLOTOOLS_CACHE_DLOPEN"})


def compile_cached(module: Module, options: CompileOptions = CompileOptions(), *,
                   compile_cache: CompileCache | None = None, source_text: str | None = None) -> Any:
    """A CompiledModule for `module`: from the cache when it has one, else compiled (passes,
    codegen, LLVM) and stored. `source_text` is the text `module` was parsed from (its key
    finds the optimised module's key without running the passes); without it the module is
    printed for that key. With `compile_cache` None nothing is read or written."""
    from hlotools import print_module
    from hlotools.backend.llvm.driver.runtime import CompiledModule
    if compile_cache is None:
        optimised = optimise(module, options.preset)
        return CompiledModule(optimised, opt_level=options.opt_level, implicit_fusion=options.implicit_fusion)
    t0 = time.perf_counter()
    fields = options.key_fields()
    source_key = make_key("source", source_text if source_text is not None else print_module(module), fields)
    alias = compile_cache.get(source_key, "alias")
    if alias is not None:
        found = _load(compile_cache, str(alias.meta.get("target", "")), module, t0, f"source key {source_key[:12]}")
        if found is not None:
            return found
    t1 = time.perf_counter()
    optimised = optimise(module, options.preset)
    t2 = time.perf_counter()
    module_key = make_key("module", module_key_text(optimised), fields)
    found = _load(compile_cache, module_key, module, t0, "optimised module key")
    if found is not None:
        compile_cache.put(Entry(source_key, "alias", {"target": module_key}, b""))
        return found
    compiled = CompiledModule(optimised, opt_level=options.opt_level, implicit_fusion=options.implicit_fusion,
                              keep_object=True, runtime_cache=compile_cache)
    compiled.timings.extra.update({"passes": t2 - t1, "cache_lookup": t1 - t0})
    spent = (f"passes {1e3 * (t2 - t1):.0f} ms, codegen {1e3 * compiled.timings.codegen_s:.0f} ms, "
             f"LLVM {1e3 * compiled.timings.llvm_s:.0f} ms")
    # Code that embeds addresses of this process (a callback, a Python object) must never be
    # reused by another one: the runtime marks such a module `cacheable = False`.
    if compiled.object_code is None or not getattr(compiled, "cacheable", True):
        compile_cache.say(f"compile cache: compiled ({spent}); not cacheable, nothing stored")
        return compiled
    meta = _meta(compiled, module.name)
    if compile_cache.put(Entry(module_key, "object", meta, compiled.object_code)):
        compile_cache.put(Entry(source_key, "alias", {"target": module_key}, b""))
        # a warm start dlopens the library instead of loading the object into MCJIT; linking
        # it (cc, 15-25 ms) is nobody's wait: a thread does it ("link" is what starting it cost)
        t3 = time.perf_counter()
        linking = compile_cache.link_later(module_key, compiled.object_code, list(compiled.runtime_groups))
        if linking:
            compiled.timings.extra["link"] = time.perf_counter() - t3
        compile_cache.say(f"compile cache: compiled ({spent}) and stored {module_key[:12]} in "
                          f"{compile_cache.directory}" + ("; its shared library is linked in the background"
                                                          if linking else ""))
    return compiled


def optimise(module: Module, preset: str) -> Module:
    """pipeline.optimise_module(module, preset) (the module itself for preset "none"), run
    with the cyclic garbage collector paused (collector_paused): the pass manager then
    leaves the collector's generations alone, as it does for any caller that turned the
    collector off."""
    if preset == "none":
        return module
    from hlotools.backend.llvm.driver.pipeline import optimise_module
    with collector_paused():
        return optimise_module(module, preset)


_PAUSE_LOCK = threading.Lock()
_PAUSED = [0, False]  # pipelines running with the collector paused; was it enabled before the first


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Turn the cyclic garbage collector off meanwhile (on again after the last of concurrent
    pauses, if it was on before the first).

    Why: the pass manager freezes an enabled collector while a pipeline runs (gc.freeze,
    then gc.unfreeze: passes/manager.py _quiet_gc). That moves every object alive at the
    start, garbage included, into the oldest generation without counting it towards the
    next full collection, and sets the youngest generation's allocation count back to 0. A
    process compiling many small modules then never collects at all: its allocation count
    never reaches 700 between two freezes, and each compile's parsed and optimised modules,
    llvmlite.ir module and emitter objects (cyclic: ~40 kB per module of
    tests/test_llvm_memory.py) piled up in the oldest generation for good, resident memory
    growing by 24 kB per module (480 modules: +11.5 MB) and faster the more had been
    compiled (the collections the test itself ran freed the garbage into pages that
    long-lived objects allocated meanwhile kept mapped). Paused, the collector skips the
    pipeline altogether (no rescans of the module, which the freeze was for), the
    allocations still count, and the collections they call for run once it is on again:
    the generations stay CPython's. The peak memory of a pipeline is the same (tracemalloc,
    chains of 100 to 20000 instructions: its young collections freed nothing that
    refcounting did not)."""
    with _PAUSE_LOCK:
        if _PAUSED[0] == 0:
            _PAUSED[1] = gc.isenabled()
            gc.disable()
        _PAUSED[0] += 1
    try:
        yield
    finally:
        with _PAUSE_LOCK:
            _PAUSED[0] -= 1
            if _PAUSED[0] == 0 and _PAUSED[1]:
                gc.enable()


def _meta(compiled: Any, name: str) -> dict[str, Any]:
    from hlotools.backend.llvm.abi import ENTRY_NAME
    return {"module": name, "entry": ENTRY_NAME, "runtime": list(compiled.runtime_groups),
            "params": [s.to_text(True) for s in compiled.param_leaves],
            "results": [s.to_text(True) for s in compiled.result_leaves], "stats": asdict(compiled.stats),
            "compile_seconds": {"codegen": compiled.timings.codegen_s, "llvm": compiled.timings.llvm_s}}


def _load(compile_cache: CompileCache, key: str, module: Module, t0: float, via: str) -> Any:
    """The cached module under `key`, or None (saying why) when there is none to trust."""
    from hlotools.backend.llvm.abi import ENTRY_NAME, CompileStats
    from hlotools.backend.llvm.driver.runtime import CompiledModule
    entry = compile_cache.get(key, "object") if key else None
    if entry is None:
        return None
    if "shared_library" not in entry.meta and compile_cache.wait_for_link(key):
        entry = compile_cache.get(key, "object") or entry  # now with its library's record
    try:
        if entry.meta.get("entry") != ENTRY_NAME:
            raise Rejected(f"entry symbol {entry.meta.get('entry')!r}")
        params = [_shape(t) for t in entry.meta["params"]]
        results = [_shape(t) for t in entry.meta["results"]]
        _check_leaves(module, params, results)
        stats = CompileStats(**entry.meta["stats"])
        stats.donated = {int(k): v for k, v in stats.donated.items()}  # JSON keys are strings
        groups = entry.meta.get("runtime", [])
        if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise Rejected(f"runtime groups {groups!r}")
        compiled = _from_library(compile_cache, key, entry, stats, params, results)
        how = "dlopen"
        if compiled is None:
            compiled = CompiledModule.from_object(entry.payload, stats, params, results, runtime_groups=groups,
                                                  runtime_cache=compile_cache)
            how = "MCJIT"
    except (Rejected, HloError, ShapeError, KeyError, TypeError, ValueError) as e:
        compile_cache.say(f"compile cache: miss, object entry {key[:12]} ignored: {e}")
        return None
    compiled.timings.extra["cache_total"] = time.perf_counter() - t0
    compile_cache.say(f"compile cache: hit {key[:12]} (via {via}, loaded with {how}) in "
                      f"{compile_cache.directory}, {1e3 * (time.perf_counter() - t0):.1f} ms")
    return compiled


def _from_library(compile_cache: CompileCache, key: str, entry: Entry, stats: Any, params: list[Shape],
                  results: list[Shape]) -> Any:
    """The entry's shared library, dlopened (native.py), or None (saying why when the entry
    has one that cannot be used): then the object goes through MCJIT."""
    from hlotools.backend.llvm.driver.runtime import CompiledModule
    record = entry.meta.get("shared_library")
    if record is None or not native.enabled():
        return None
    t0 = time.perf_counter()
    try:
        library = native.load(native.library_path(compile_cache.path(key)), record)
    except native.Unusable as e:
        compile_cache.say(f"compile cache: shared library of {key[:12]} not used: {e}")
        return None
    return CompiledModule.from_shared_library(library, stats, params, results, time.perf_counter() - t0)


def _shape(text: str) -> Shape:
    from hlotools.text.parse_shape import parse_shape_text
    shape, end = parse_shape_text(text)
    if end != len(text):
        raise Rejected(f"unreadable shape {text!r}")
    return shape


def _check_leaves(module: Module, params: list[Shape], results: list[Shape]) -> None:
    """The entry's leaves must be the cached code's (type and dims; layouts are the cached
    code's own, chosen by the passes)."""
    entry = module.entry
    assert entry is not None and entry.root is not None
    want_p = [s.to_text(False) for p in entry.parameters for s in p.shape.leaves()]
    want_r = [s.to_text(False) for s in entry.root.shape.leaves()]
    if want_p != [s.to_text(False) for s in params] or want_r != [s.to_text(False) for s in results]:
        raise Rejected("its parameter or result shapes differ from the module's")
