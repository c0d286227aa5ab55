"""Reading inputs and expected outputs from .npy/.npz (or HLO literal text) files, writing
outputs to .npz.

Inputs bind to the entry's parameter leaves (see arrays.parameter_leaves): either one .npy
file per leaf, in order, a text file of HLO literals (one per line, in order), or one .npz
whose keys are `in0, in1, ...` (the corpus convention),
`arr_0, arr_1, ...` (np.savez's positional names) or the parameter names. Outputs are saved
as `out0, out1, ...`; ml_dtypes arrays are stored as raw bytes and come back typed when
read against the module.
"""
from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from hlotools.errors import HloError, HloRuntimeError
from hlotools.io.arrays import LeafSpec, coerce, storable
from hlotools.io.literal_text import parse_literal_lines
from hlotools.ir.types import array_bytes_error, human_bytes


@dataclass(frozen=True)
class NamedArray:
    """An array read from a file, with the npz key it was stored under."""
    key: str | None  # npz key; None for a .npy file (bound by position)
    array: np.ndarray
    source: str  # file the array came from (for messages)


_NUMPY_MAGIC = (b"\x93NUMPY", b"PK\x03\x04", b"PK\x05\x06")  # .npy, .npz (zip; empty zip)


def _load(path: str) -> np.ndarray | dict[str, np.ndarray] | list[np.ndarray]:
    p = Path(path)
    if not p.exists():
        raise HloError("no such file or directory", filename=path)
    if p.is_dir():
        raise HloError("is a directory, not a .npy/.npz file", filename=path)
    try:
        with open(p, "rb") as f:
            head = f.read(6)
            if not head.startswith(_NUMPY_MAGIC) and p.suffix not in (".npy", ".npz"):
                return _load_literals(p, path)
            f.seek(0)
            if head.startswith(_NUMPY_MAGIC[0]):
                return _read_npy(f, p.stat().st_size, path)
            return _read_npz(f, path)
    except HloError:
        raise
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        raise HloError(f"cannot read as .npy/.npz: {_reason(e)}", filename=path) from None


def _reason(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def _read_npy(f: BinaryIO, available: int, where: str) -> np.ndarray:
    """One .npy array, its header checked before anything is allocated: numpy allocates what the
    header claims (a 145-byte file can claim 373 GiB), and object arrays would need pickle."""
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(f)
    else:
        shape, _, dtype = np.lib.format.read_array_header_2_0(f)
    if dtype.hasobject:
        raise HloError("holds an array of Python objects (dtype object); hlotools reads only numeric "
                       "arrays (loading objects would need pickle, which it never enables)", filename=where)
    count = 1
    for d in shape:
        count *= d
    nbytes = count * dtype.itemsize
    left = available - f.tell()
    if nbytes > left:
        raise HloError(f"the .npy header claims {human_bytes(nbytes)} ({dtype}, shape {tuple(shape)}) but the "
                       f"file holds {human_bytes(max(left, 0))} of data: truncated or corrupt", filename=where)
    why = array_bytes_error(f"the array ({dtype}, shape {tuple(shape)})", nbytes)
    if why is not None:
        raise HloError(why, filename=where)
    f.seek(0)
    return np.lib.format.read_array(f, allow_pickle=False)


def _read_npz(f: BinaryIO, path: str) -> dict[str, np.ndarray]:
    """Every member of an .npz, each read (and CRC-checked) through _read_npy."""
    out: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(f) as archive:
        for info in archive.infolist():
            key = info.filename.removesuffix(".npy")
            where = f"{path}[{key}]"
            try:
                with archive.open(info) as member:
                    out[key] = _read_npy(member, info.file_size, where)  # type: ignore[arg-type]
            except HloError:
                raise
            except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as e:
                raise HloError(f"cannot read member '{info.filename}': {_reason(e)}", filename=path) from None
    return out


def _load_literals(p: Path, path: str) -> list[np.ndarray]:
    """A text file of HLO literals, one per line (what `hlo-run --print-literals` writes)."""
    try:
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise HloError("neither a .npy/.npz file nor HLO literal text", filename=path) from None
    return parse_literal_lines(text, path)


def read_arrays(paths: Sequence[str]) -> list[NamedArray]:
    """All arrays in the given files, in order: .npy files and literal lines by position,
    .npz members by key."""
    out: list[NamedArray] = []
    for path in paths:
        data = _load(path)
        if isinstance(data, np.ndarray):
            out.append(NamedArray(None, data, path))
        elif isinstance(data, list):
            out.extend(NamedArray(None, a, path) for a in data)
        else:
            out.extend(NamedArray(k, v, path) for k, v in data.items())
    return out


def bind(arrays: list[NamedArray], specs: list[LeafSpec], what: str = "input") -> list[np.ndarray]:
    """Arrays for the non-token leaves, type-checked. npz keys bind first: a parameter name
    (tuple leaves `name{i,j}`) or in<k>/arr_<k>/out<k> (leaf k); the unkeyed arrays (.npy
    files, literal lines) then fill the leaves left, in order. So `--inputs params.npz x.npy`
    gives a model's saved state by name and its user input by position."""
    wanted = [s for s in specs if not s.is_token]
    if len(arrays) != len(wanted):
        listing = ", ".join(f"{s.name}: {s.shape.to_text(False)}" for s in wanted)
        plural = "" if len(wanted) == 1 else "s"
        raise HloRuntimeError(f"expected {len(wanted)} {what}{plural}, given {len(arrays)}" +
                              (f" ({listing})" if listing else ""),
                              filename=arrays[0].source if arrays else None)
    bound = _by_key([a for a in arrays if a.key is not None], wanted)
    free = [k for k in range(len(wanted)) if k not in bound]
    for k, a in zip(free, [a for a in arrays if a.key is None]):
        bound[k] = a
    return [coerce(bound[k].array, s, bound[k].source) for k, s in enumerate(wanted)]


_POSITIONAL = re.compile(r"(?:in|arr_|out)(\d+)$")


def _by_key(keyed: list[NamedArray], wanted: list[LeafSpec]) -> dict[int, NamedArray]:
    """{position in `wanted`: array} for the keyed arrays; a key naming no leaf, or a leaf
    given twice, is an error."""
    by_name = {s.name: k for k, s in enumerate(wanted)}
    by_number = {s.index: k for k, s in enumerate(wanted)}
    bound: dict[int, NamedArray] = {}
    for a in keyed:
        assert a.key is not None
        m = _POSITIONAL.match(a.key)
        k = by_name.get(a.key, by_number.get(int(m.group(1))) if m else None)
        if k is None:
            names = ", ".join(s.name for s in wanted)
            raise HloRuntimeError(f"key '{a.key}' is neither a number (in0, in1, ...) nor a "
                                  f"parameter name ({names})", filename=a.source)
        if k in bound:
            raise HloRuntimeError(f"{wanted[k].describe()} is given twice: by '{bound[k].key or bound[k].source}' "
                                  f"and by '{a.key}'", filename=a.source)
        bound[k] = a
    return bound


def save_npz(path: str, arrays: Sequence[tuple[str, np.ndarray]]) -> None:
    """Write named arrays (out0, out1, ...); bf16/f8/int4 as raw bytes, loadable with np.load."""
    payload = {name: storable(a) for name, a in arrays}
    try:
        with open(path, "wb") as f:  # a file object, so numpy does not append '.npz'
            np.savez(f, **payload)  # type: ignore[arg-type]
    except OSError as e:
        raise HloError(f"cannot write: {e.strerror or e}", filename=path) from None
